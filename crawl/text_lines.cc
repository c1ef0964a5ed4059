#include "crawl/text_lines.h"

namespace crawl {

namespace {
constexpr std::string_view kBom = "\xEF\xBB\xBF";
}  // namespace

Status TextLines::Emit(std::string_view line, const LineFn& fn) {
  if (line_no_ == 0 && line.starts_with(kBom)) line.remove_prefix(kBom.size());
  Status st = fn(line, ++line_no_);
  pending_.clear();
  return st;
}

Status TextLines::Add(std::string_view bytes, const LineFn& fn) {
  while (!bytes.empty()) {
    if (after_cr_ && bytes.front() == '\n') bytes.remove_prefix(1);  // the CR ended the line
    after_cr_ = false;
    const size_t eol = bytes.find_first_of("\r\n");
    if (eol == std::string_view::npos) {
      pending_.append(bytes);
      return Status::OK();
    }
    std::string_view line = bytes.substr(0, eol);
    if (!pending_.empty()) line = pending_.append(line);
    after_cr_ = bytes[eol] == '\r';
    bytes.remove_prefix(eol + 1);
    NUTCHFS_RETURN_IF_ERROR(Emit(line, fn));
  }
  return Status::OK();
}

Status TextLines::Finish(const LineFn& fn) {
  if (pending_.empty()) return Status::OK();
  return Emit(pending_, fn);
}

Status TextLines::Split(std::string_view text, const LineFn& fn) {
  TextLines lines;
  NUTCHFS_RETURN_IF_ERROR(lines.Add(text, fn));
  return lines.Finish(fn);
}

}  // namespace crawl
