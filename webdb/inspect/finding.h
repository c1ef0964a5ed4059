// Findings of a db verification (webdb verify): one damaged thing each — the file it is
// in, where in that file (an offset or a key), and what is wrong. A FindingLog hands
// each finding to a callback as soon as it is found (so a huge number of them needs no
// memory) and counts them; it also carries the verification's progress reports, since
// every check that reads rows has it at hand. Not thread-safe.
#ifndef WEBDB_INSPECT_FINDING_H_
#define WEBDB_INSPECT_FINDING_H_

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "nutchfs/status.h"
#include "webdb/table/record.h"
#include "webdb/util/progress.h"

namespace webdb {

struct Finding {
  std::string file;   // path of the damaged file (or the db directory)
  std::string where;  // "offset N", "key K", or empty for the whole file
  std::string what;
  // "file: where: what" (without "where: " when where is empty).
  std::string ToString() const;
};

using FindingFn = std::function<void(const Finding&)>;

class FindingLog {
 public:
  explicit FindingLog(FindingFn fn, ProgressFn progress = {})
      : fn_(std::move(fn)), progress_(std::move(progress)) {}

  void Add(Finding f);
  // A failed read of file: its status message as the finding (the message already
  // names the file and offset; the leading "file: " is not repeated).
  void AddStatus(const std::string& file, const Status& s);
  uint64_t count() const { return count_; }
  // Where the checks report the rows they read (RowProgress); may be empty.
  const ProgressFn& progress() const { return progress_; }

 private:
  FindingFn fn_;
  ProgressFn progress_;
  uint64_t count_ = 0;
};

}  // namespace webdb

#endif  // WEBDB_INSPECT_FINDING_H_
