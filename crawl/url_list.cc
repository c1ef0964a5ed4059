#include "crawl/url_list.h"

#include <string_view>

#include "crawl/url.h"
#include "nutchfs/strings.h"

namespace crawl {

namespace {

// White space other than a line feed (lines are cut at line feeds).
std::string_view TrimLine(std::string_view line) { return nutchfs::Trim(line, " \t\r\f\v"); }

Status ReadLine(std::string_view line, const std::string& path, uint64_t line_no,
                const UrlListOptions& options, const std::function<Status(std::string)>& fn) {
  line = TrimLine(line);
  if (line.empty() || line.front() == '#') return Status::OK();
  auto url = NormalizeUrl(line);
  if (url) return fn(std::move(*url));
  if (!options.skip_bad) {
    return Status::InvalidArgument(path + ":" + std::to_string(line_no) + ": " +
                                   url.error().message());
  }
  if (options.bad != nullptr) ++*options.bad;
  return Status::OK();
}

}  // namespace

Status ReadUrlList(nutchfs::Env& env, const std::string& path, const UrlListOptions& options,
                   const std::function<Status(std::string url)>& fn) {
  NUTCHFS_ASSIGN_OR_RETURN(auto file, env.NewSequentialFile(path == "-" ? "/dev/stdin" : path));
  std::string scratch(size_t{1} << 16, '\0');
  std::string pending;
  uint64_t line_no = 0;
  while (true) {
    NUTCHFS_ASSIGN_OR_RETURN(std::string_view chunk, file->Read(scratch.size(), scratch.data()));
    if (chunk.empty()) break;
    pending.append(chunk);
    size_t start = 0;
    size_t eol;
    while ((eol = pending.find('\n', start)) != std::string::npos) {
      NUTCHFS_RETURN_IF_ERROR(ReadLine(std::string_view(pending).substr(start, eol - start), path,
                                       ++line_no, options, fn));
      start = eol + 1;
    }
    pending.erase(0, start);
  }
  if (!pending.empty()) return ReadLine(pending, path, ++line_no, options, fn);
  return Status::OK();
}

}  // namespace crawl
