// The work files of a rank session (docs/FORMAT.md, "Rank work files"): the pages, the scores, the
// groups' md5s and the group sums as runs of entries in id (or group) order, and the edges sorted
// by (block, group). Each is an edit file (webdb/sort/edit_file.h), so every frame is checksummed
// and a damaged or cut file is Corruption naming it; these classes write and read its records.
//
// Writers add to an EditSink they do not own (a local edit file, or a distributed
// writer's exchange file); readers read an EditIterator they do not own. Each object is
// used by one thread.
#ifndef WEBDB_RANK_RANK_FILES_H_
#define WEBDB_RANK_RANK_FILES_H_

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "webdb/rank/rank_math.h"
#include "webdb/table/iterator.h"
#include "webdb/table/record.h"

namespace webdb {

// Entries a record of a file of runs holds, but the last.
constexpr size_t kRunEntries = 4096;
// The read buffer of each work file a rank reads.
constexpr size_t kRankReadBuffer = size_t{256} << 10;

// Labels of the local work files (docs/FORMAT.md); a reader refuses a file with another.
constexpr std::string_view kRankPagesLabel = "webdb rank pages 1";
constexpr std::string_view kRankScoresLabel = "webdb rank scores 1";
constexpr std::string_view kRankSumsLabel = "webdb rank sums 1";
constexpr std::string_view kRankGroupsLabel = "webdb rank groups 1";
constexpr std::string_view kRankEdgesLabel = "webdb rank edges 1";

// What a page is in the graph: its outdeg and flags.
struct PageInfo {
  static constexpr uint8_t kSelfLink = 1;    // it links to its own url
  static constexpr uint8_t kFirstOfMd5 = 2;  // the first page (in id order) of its md5
  static constexpr uint8_t kInGroup = 4;     // its md5 has links
  uint32_t outdeg = 0;
  uint8_t flags = 0;
  bool operator==(const PageInfo&) const = default;
};

// Writes entries of one kind into records of kRunEntries.
class RunWriter {
 public:
  explicit RunWriter(EditSink& out) : out_(out) {}
  RunWriter(const RunWriter&) = delete;
  RunWriter& operator=(const RunWriter&) = delete;

  Status AddPage(PageInfo page);
  Status AddScore(double score);
  Status AddSum(Fixed sum);
  // REQUIRES: md5 is 16 bytes.
  Status AddMd5(std::string_view md5);
  // Writes the last record. Once, after the last entry.
  Status Finish();
  uint64_t count() const { return count_; }

 private:
  Status Added();

  EditSink& out_;
  std::string run_;
  size_t in_run_ = 0;
  uint64_t count_ = 0;
};

// Reads the entries a RunWriter wrote, one kind a reader. Every error is Corruption
// naming the file (`name`) and the entry.
class RunReader {
 public:
  RunReader(EditIterator& in, std::string name) : in_(in), name_(std::move(name)) {}
  RunReader(const RunReader&) = delete;
  RunReader& operator=(const RunReader&) = delete;

  // The next up to n entries (at least one; fewer where a record ends) as a span valid
  // until the next call; empty at the end of the file.
  Result<std::span<const PageInfo>> Pages(size_t n);
  Result<std::span<const double>> Scores(size_t n);
  Result<std::span<const Fixed>> Sums(size_t n);
  Result<std::span<const Md5>> Md5s(size_t n);
  // The entries read so far.
  uint64_t position() const { return position_; }
  // OK when every entry has been read (the file holds no more).
  Status ExpectEnd();

 private:
  // Makes sure the current record has entries left; false at the end of the file.
  Result<bool> Fill();
  // n entries of sizeof(T) little-endian bytes each, decoded into out.
  template <typename T>
  Result<std::span<const T>> ReadFixedWidth(size_t n, std::vector<T>& out);
  Status Bad(std::string_view what) const;

  EditIterator& in_;
  const std::string name_;
  std::string_view rest_;  // of the current record
  bool started_ = false;
  uint64_t position_ = 0;
  std::vector<PageInfo> pages_;
  std::vector<double> scores_;
  std::vector<Fixed> sums_;
  std::vector<Md5> md5s_;
};

// The edges of one (block, group): the group, and the targets' offsets from the block's
// first id, increasing.
struct EdgeRun {
  uint32_t block = 0;
  uint64_t group = 0;
  std::vector<uint32_t> offsets;
};

// The key of an edge record: block (big-endian 32 bits), group (big-endian 64).
std::string EdgeKey(uint32_t block, uint64_t group);
// The key of an edit of the edges stream: block (big-endian 32 bits), then the 16 bytes of the
// linking md5; and the block alone, where the stream is cut between writers.
void SetEdgeStreamKey(uint32_t block, std::string_view md5, std::string* key);
constexpr size_t kEdgeStreamKeySize = 4 + sizeof(Md5);
std::string BlockKey(uint32_t block);

// Writes the edges, added in (block, group, offset) order, one record a (block, group).
class EdgeWriter {
 public:
  explicit EdgeWriter(EditSink& out) : out_(out) {}
  EdgeWriter(const EdgeWriter&) = delete;
  EdgeWriter& operator=(const EdgeWriter&) = delete;

  // REQUIRES: (block, group, offset) above the edge added before.
  Status Add(uint32_t block, uint64_t group, uint32_t offset);
  Status Finish();
  uint64_t count() const { return count_; }

 private:
  Status Flush();

  EditSink& out_;
  bool open_ = false;
  uint32_t block_ = 0;
  uint64_t group_ = 0;
  uint32_t last_ = 0;
  uint32_t in_run_ = 0;
  std::string deltas_;
  std::string value_;
  uint64_t count_ = 0;
};

// Reads the records of an edges file in order.
class EdgeReader {
 public:
  EdgeReader(EditIterator& in, std::string name) : in_(in), name_(std::move(name)) {}
  EdgeReader(const EdgeReader&) = delete;
  EdgeReader& operator=(const EdgeReader&) = delete;

  // The record the reader stands on (valid until Pop), or nullptr at the end.
  Result<const EdgeRun*> Peek();
  // Moves past it. REQUIRES: Peek() returned a record.
  void Pop() { have_ = false; }

 private:
  Status Bad(std::string_view what) const;

  EditIterator& in_;
  const std::string name_;
  EdgeRun run_;
  bool have_ = false;
  uint64_t records_ = 0;
};

}  // namespace webdb

#endif  // WEBDB_RANK_RANK_FILES_H_
