#include "crawl/url_filter.h"

#include <re2/re2.h>

#include "crawl/text_lines.h"

namespace crawl {

UrlFilter::UrlFilter() = default;
UrlFilter::~UrlFilter() = default;
UrlFilter::UrlFilter(UrlFilter&&) noexcept = default;
UrlFilter& UrlFilter::operator=(UrlFilter&&) noexcept = default;

Result<UrlFilter> UrlFilter::Parse(std::string_view text, const std::string& name) {
  UrlFilter filter;
  Status st = TextLines::Split(text, [&](std::string_view line, uint64_t line_no) {
    if (line.empty() || line[0] == '#') return Status::OK();
    std::string where = name + ":" + std::to_string(line_no) + ": ";
    if (line[0] != '+' && line[0] != '-') {
      return Status::InvalidArgument(where + "a rule starts with + or -");
    }
    RE2::Options options;
    options.set_log_errors(false);
    auto regex = std::make_unique<RE2>(re2::StringPiece(line.data() + 1, line.size() - 1), options);
    if (!regex->ok()) {
      return Status::InvalidArgument(where + "bad regular expression: " + regex->error());
    }
    filter.rules_.push_back(Rule{line[0] == '+', std::move(regex)});
    return Status::OK();
  });
  if (!st.ok()) return nutchfs::Err(st);
  return filter;
}

Result<UrlFilter> UrlFilter::Load(nutchfs::Env& env, const std::string& path) {
  NUTCHFS_ASSIGN_OR_RETURN(auto file, env.NewSequentialFile(path));
  std::string text;
  std::string scratch(size_t{1} << 16, '\0');
  while (true) {
    NUTCHFS_ASSIGN_OR_RETURN(std::string_view chunk, file->Read(scratch.size(), scratch.data()));
    if (chunk.empty()) break;
    text.append(chunk);
  }
  return Parse(text, path);
}

bool UrlFilter::Accepts(std::string_view url) const {
  if (rules_.empty()) return true;
  for (const Rule& rule : rules_) {
    if (RE2::PartialMatch(re2::StringPiece(url.data(), url.size()), *rule.regex)) {
      return rule.accept;
    }
  }
  return false;
}

}  // namespace crawl
