// Partition: how every table is cut into k sections, one per writer.
//
// Each table has k-1 split keys; section i holds keys in [split[i-1], split[i]). MD5
// tables split the md5 space evenly (top bits when k is a power of two); URL tables
// split at url breakpoints chosen from data. The same object routes edits to writers
// and serves distributed reads, so the two can never disagree. See
// docs/DISTRIBUTED.md. An immutable value; thread-safe.
#ifndef DISTWRITER_PARTITION_H_
#define DISTWRITER_PARTITION_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "webdb/table/record.h"

namespace distwriter {

using nutchfs::Err;
using nutchfs::Result;
using nutchfs::Status;

class Partition {
 public:
  // REQUIRES: k >= 1; breakpoints empty or k-1 strictly increasing urls.
  Partition(int k, std::vector<std::string> url_breakpoints);

  int k() const { return k_; }
  const std::vector<std::string>& url_breakpoints() const { return url_breakpoints_; }
  bool has_url_breakpoints() const { return k_ == 1 || !url_breakpoints_.empty(); }

  // The section owning a key of table t (webdb/table/record.h key layouts).
  int SectionOf(webdb::TableId t, std::string_view key) const;
  // Section i of table t starts at split key i-1 (empty for i == 0).
  const std::string& SectionStart(webdb::TableId t, int section) const;
  const std::vector<std::string>& Splits(webdb::TableId t) const;

  // k-1 breakpoints (valid, strictly increasing urls; ValidateBreakpoints holds) at the
  // quantiles of a set of valid urls (sorted and deduplicated here). Where the urls are
  // fewer than k, a breakpoint that would repeat the one before is the smallest url
  // after it the same length allows, or one byte longer; so k sections always exist,
  // some then empty. InvalidArgument only when no url can follow (a 65535-byte url of
  // 0xff bytes).
  static Result<std::vector<std::string>> ChooseBreakpoints(std::vector<std::string> urls, int k);

 private:
  const int k_;
  const std::vector<std::string> url_breakpoints_;
  std::vector<std::string> md5_splits_;
  std::vector<std::string> url_splits_;  // breakpoints; "" sentinel first for starts
  std::vector<std::string> md5_starts_;
  std::vector<std::string> url_starts_;
};

// Validates breakpoints read from a file or a peer: k-1 valid, increasing urls.
Status ValidateBreakpoints(const std::vector<std::string>& breakpoints, int k);

}  // namespace distwriter

#endif  // DISTWRITER_PARTITION_H_
