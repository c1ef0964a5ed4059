#include "webdb/inspect/finding.h"

#include <fmt/format.h>

namespace webdb {
std::string Finding::ToString() const {
  if (where.empty()) return file + ": " + what;
  return file + ": " + where + ": " + what;
}

void FindingLog::Add(Finding f) {
  ++count_;
  if (fn_) fn_(f);
}

void FindingLog::AddStatus(const std::string& file, const Status& s) {
  std::string what = s.message();
  if (what.starts_with(file + ": ")) what.erase(0, file.size() + 2);
  Add({file, "", what});
}
}  // namespace webdb
