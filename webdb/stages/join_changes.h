// Where a link stage's join can change rows that have no edits, row by row.
//
// Stages 3 and 5 keep a linksByMD5 row only if its source md5 has a page, and stage 4 a
// linksByURL row only if its target url has one (and take targetHasOutlink from it). In
// a db that holds to these rules, a row without edits can therefore change only if its
// join key (md5 or url, a prefix of the row key) is one that stage 2 or 1 reported: an
// md5 left with no page ("md5 gone"), a url whose page came, went or flipped its
// numOutlinks > 0 status ("target changed"). Each worker of those stages reports its
// notices in increasing key order to a NoticeSink of its own; JoinNotices writes each
// worker's to a sorted edit file of its own (docs/FORMAT.md, "Notice files"), so that
// memory stays bounded whatever their number, and hands them back merged as a
// JoinChanges, which a link stage's KeyMerger asks as it goes (webdb/stages/key_merger.h).
//
// Join keys against row keys: a join key is a prefix of its row key, nondecreasing in key
// order, such that for a reported join key j and any row key k, k < j exactly when k's
// join key is below j (true of a fixed-length prefix such as the md5, and of the url
// before linksByURL's 0x00). Hence From(from) = j says: every row key k >= from with
// k < j has a join key no notice names, and the row k = from is one a notice names
// exactly when j <= from.
//
// Thread-safety: each producer's sink on a thread of its own; Finish on one thread once
// the sinks are done; Read from any thread after it. A JoinChanges is used by one thread.
#ifndef WEBDB_STAGES_JOIN_CHANGES_H_
#define WEBDB_STAGES_JOIN_CHANGES_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "nutchfs/env.h"
#include "webdb/table/iterator.h"

namespace webdb {

// Where stages 1 and 2 report notices: the url of each target change, the md5 of each md5
// gone, in increasing order from each worker.
class NoticeSink {
 public:
  virtual ~NoticeSink() = default;
  virtual void Notice(std::string_view key) = 0;
};

// The join key of a row key (Md5OfKey for linksByMD5, UrlOfLinkUrlKey for linksByURL).
using JoinKeyFn = std::string_view (*)(std::string_view row_key);

// The notices, read forward.
class JoinChanges {
 public:
  // notices: join keys in nondecreasing order (repeats allowed).
  JoinChanges(JoinKeyFn join_key, std::unique_ptr<EditIterator> notices);
  JoinChanges(const JoinChanges&) = delete;
  JoinChanges& operator=(const JoinChanges&) = delete;

  // The first notice at or above the join key of row key from, or nullopt when none is
  // left. A view valid until the next call. REQUIRES: from is not below the from of an
  // earlier call. When the notices cannot be read, the empty key (every row is then
  // checked one by one, which is always right), and status() says why.
  std::optional<std::string_view> From(std::string_view from);
  Status status() const { return status_; }

 private:
  const JoinKeyFn join_key_;
  const std::unique_ptr<EditIterator> notices_;
  Status status_;
};

// One kind of notices of an update, in files in the db directory that the object
// removes when it is destroyed (a writer that dies leaves them to the next garbage
// collection: their names are temporary ones).
class JoinNotices {
 public:
  // Files dir/<kind>-notices-<version>.<producer>.tmp.edits, one for each of up to
  // `producers` producers that report a notice.
  JoinNotices(nutchfs::Env& env, std::string dir, std::string_view kind, uint64_t version,
              size_t producers);
  ~JoinNotices();
  JoinNotices(const JoinNotices&) = delete;
  JoinNotices& operator=(const JoinNotices&) = delete;

  // Where producer reports its notices. REQUIRES: producer < producers, before Finish().
  NoticeSink& Sink(size_t producer);
  // Closes the files; the first error of a sink (its file could not be written, or its
  // notices came out of order), naming the file.
  Status Finish();
  // The notices of every producer, merged. REQUIRES: Finish() returned OK.
  Result<std::unique_ptr<JoinChanges>> Read(JoinKeyFn join_key) const;

 private:
  class ProducerSink;

  nutchfs::Env& env_;
  std::vector<std::unique_ptr<ProducerSink>> sinks_;
};

}  // namespace webdb

#endif  // WEBDB_STAGES_JOIN_CHANGES_H_
