#include "crawl/url_list.h"

#include <string_view>

#include "crawl/text_lines.h"
#include "crawl/url.h"
#include "nutchfs/strings.h"

namespace crawl {

namespace {

constexpr std::string_view kLineBlanks = " \t\f\v";

// The URL of a line: surrounding white space and a comment (`#` after white space, or
// at the start) removed; empty if there is none. White space inside what is left is an
// error: a line holds one URL, and a raw space is in no URL.
Result<std::string_view> UrlOfLine(std::string_view line) {
  line = nutchfs::Trim(line, kLineBlanks);
  for (size_t hash = line.find('#'); hash != std::string_view::npos;
       hash = line.find('#', hash + 1)) {
    if (hash == 0 || kLineBlanks.find(line[hash - 1]) != std::string_view::npos) {
      line = nutchfs::Trim(line.substr(0, hash), kLineBlanks);
      break;
    }
  }
  if (line.find_first_of(kLineBlanks) != std::string_view::npos) {
    return nutchfs::Err(Status::InvalidArgument(
        "white space inside the URL '" + std::string(line.substr(0, 80)) +
        "' (one URL a line; a comment starts with white space and #)"));
  }
  return line;
}

Status ReadLine(std::string_view line, const std::string& path, uint64_t line_no,
                const UrlListOptions& options, const std::function<Status(std::string)>& fn) {
  auto text = UrlOfLine(line);
  if (text && text->empty()) return Status::OK();
  Result<std::string> url = text ? NormalizeUrl(*text) : nutchfs::Err(text.error());
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
  TextLines lines;
  const TextLines::LineFn each = [&](std::string_view line, uint64_t line_no) {
    return ReadLine(line, path, line_no, options, fn);
  };
  while (true) {
    NUTCHFS_ASSIGN_OR_RETURN(std::string_view chunk, file->Read(scratch.size(), scratch.data()));
    if (chunk.empty()) return lines.Finish(each);
    NUTCHFS_RETURN_IF_ERROR(lines.Add(chunk, each));
  }
}

}  // namespace crawl
