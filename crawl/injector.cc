#include "crawl/injector.h"

#include "crawl/url.h"
#include "webdb/record.h"

namespace crawl {

Status Injector::AddLine(std::string_view line, const std::string& name, uint64_t line_no) {
  auto space = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; };
  while (!line.empty() && space(line.front())) line.remove_prefix(1);
  while (!line.empty() && space(line.back())) line.remove_suffix(1);
  if (line.empty() || line.front() == '#') return Status::OK();
  auto url = NormalizeUrl(line);
  if (!url) {
    if (options_.skip_bad) {
      ++stats_.bad;
      return Status::OK();
    }
    return Status::InvalidArgument(name + ":" + std::to_string(line_no) + ": " +
                                   url.error().message());
  }
  if (options_.filter != nullptr && !options_.filter->Accepts(*url)) {
    ++stats_.filtered;
    return Status::OK();
  }
  ++stats_.urls;
  return sink_.AddPageIfNotPresent(webdb::Page::WithDefaults(std::move(*url)));
}

Status Injector::AddFile(nutchfs::Env& env, const std::string& path) {
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
      NUTCHFS_RETURN_IF_ERROR(
          AddLine(std::string_view(pending).substr(start, eol - start), path, ++line_no));
      start = eol + 1;
    }
    pending.erase(0, start);
  }
  if (!pending.empty()) return AddLine(pending, path, ++line_no);
  return Status::OK();
}

}  // namespace crawl
