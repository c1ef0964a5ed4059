#include "webdb/sorter.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <utility>

#include "webdb/edit_file.h"
#include "webdb/merging_iterator.h"

namespace webdb {
namespace {

using nutchfs::Err;

// A run being merged reads through a buffer of at least two frames.
constexpr size_t kMinReadBuffer = 2 * kEditFrameSize;
constexpr size_t kMaxReadBuffer = 4 << 20;
// Buffer record: key size u32, value size u32, order u64, kind u8, key, value.
constexpr size_t kRecordHeader = 4 + 4 + 8 + 1;
// Keeps a record (and its edit file encoding) well below the 4 GiB frame limit.
constexpr size_t kMaxEditBytes = size_t{1} << 31;

// As many runs as leave each a kMinReadBuffer of the budget, with one share for the
// output, between 2 and kMaxFanIn.
size_t FanInFor(size_t budget) {
  return std::clamp<size_t>(budget / kMinReadBuffer, 3, Sorter::kMaxFanIn + 1) - 1;
}

size_t ReadBufferFor(size_t budget, size_t fan_in) {
  return std::clamp<size_t>(budget / (fan_in + 1), kMinReadBuffer, kMaxReadBuffer);
}

}  // namespace

// One block of memory: records grow from the front, sort entries from the back. Entries
// are 16 bytes (a chunk of key bytes as a number, the record offset) so that sorting moves
// little and most comparisons stay inside them; the offset breaks ties, which keeps
// equal (key, order) pairs in insertion order.
class SortBuffer {
 public:
  struct Entry {
    uint64_t chunk;  // see Chunk()
    uint64_t offset;
  };

  explicit SortBuffer(size_t budget) : budget_slots_(std::max<size_t>(budget / sizeof(Entry), 1)) {}
  SortBuffer(const SortBuffer&) = delete;
  SortBuffer& operator=(const SortBuffer&) = delete;

  static size_t RecordSize(const EditView& e) {
    return kRecordHeader + e.key.size() + e.value.size();
  }
  bool empty() const { return n_ == 0; }
  size_t size() const { return n_; }

  // Whether a record of record_size bytes fits beside what is held.
  bool Fits(size_t record_size) const {
    size_t slots = std::max(slots_, budget_slots_);
    return used_ + record_size + (n_ + 1) * sizeof(Entry) <= slots * sizeof(Entry);
  }

  // REQUIRES: empty() or Fits(RecordSize(edit)).
  void Add(const EditView& edit) {
    size_t record_size = RecordSize(edit);
    size_t need = used_ + record_size + (n_ + 1) * sizeof(Entry);
    if (need > slots_ * sizeof(Entry)) Allocate(need);
    char* p = arena() + used_;
    uint32_t key_size = static_cast<uint32_t>(edit.key.size());
    uint32_t value_size = static_cast<uint32_t>(edit.value.size());
    std::memcpy(p, &key_size, 4);
    std::memcpy(p + 4, &value_size, 4);
    std::memcpy(p + 8, &edit.order, 8);
    p[16] = static_cast<char>(edit.kind);
    std::memcpy(p + kRecordHeader, edit.key.data(), key_size);
    std::memcpy(p + kRecordHeader + key_size, edit.value.data(), value_size);
    memory_[slots_ - n_ - 1] = Entry{0, used_};  // chunk: set by Sort()
    NoteKey(std::string_view(p + kRecordHeader, key_size));
    ++n_;
    used_ += record_size;
  }

  // Sorts by (key, order, offset). Keys are compared 7 bytes at a time, held in the
  // entries: a pass fills in every entry's chunk at the current depth, a sort orders by
  // chunk, and each group of equal chunks is refined at the next depth. That touches each
  // record about once per level instead of on every comparison. Sorting starts after the
  // bytes all keys held share ("http://www."), which would otherwise cost a level each.
  void Sort() { SortRange(arena(), entries(), entries() + n_, common_, kMaxLevels); }

  // The i-th edit in sorted order. REQUIRES: Sort() since the last Add(); i < size().
  // Records are read in random order: fetch one a few entries ahead.
  EditView Get(size_t i) const {
    constexpr size_t kAhead = 8;
    if (i + kAhead < n_) __builtin_prefetch(arena() + entries()[i + kAhead].offset);
    return Decode(arena(), entries()[i].offset);
  }

  // Forgets every record; gives memory back if a huge record made the block grow.
  void Clear() {
    used_ = 0;
    n_ = 0;
    if (slots_ > budget_slots_) Release();
  }
  void Release() {
    memory_.reset();
    slots_ = 0;
    used_ = 0;
    n_ = 0;
  }

 private:
  static constexpr size_t kChunkBytes = 7;
  static constexpr uint64_t kKeyGoesOn = kChunkBytes + 1;
  static constexpr ptrdiff_t kSmallRange = 16;
  static constexpr int kMaxLevels = 16;

  // Key bytes [depth, depth + 7) big-endian and zero-padded in the high 56 bits; in the
  // low 8 bits how many key bytes remain from depth, capped at 8 (kKeyGoesOn). Ordering
  // chunks as numbers agrees with bytewise key order: a key that ends inside the chunk
  // sorts before a longer key with the same bytes. REQUIRES: key.size() >= depth.
  static uint64_t Chunk(std::string_view key, size_t depth) {
    size_t rest = key.size() - depth;
    uint64_t v = 0;
    for (size_t i = 0; i < kChunkBytes && i < rest; ++i) {
      v |= uint64_t{static_cast<uint8_t>(key[depth + i])} << (56 - 8 * i);
    }
    return v | std::min<uint64_t>(rest, kKeyGoesOn);
  }

  // REQUIRES: the keys of [first, last) share their first depth bytes.
  static void SortRange(const char* arena, Entry* first, Entry* last, size_t depth, int levels) {
    if (last - first <= kSmallRange || levels == 0) {
      return SortByFullKey(arena, first, last, depth);
    }
    constexpr ptrdiff_t kAhead = 8;  // records are scattered: fetch ahead
    for (Entry* e = first; e != last; ++e) {
      if (last - e > kAhead) __builtin_prefetch(arena + e[kAhead].offset + kRecordHeader + depth);
      e->chunk = Chunk(Decode(arena, e->offset).key, depth);
    }
    std::sort(first, last, [](const Entry& a, const Entry& b) { return a.chunk < b.chunk; });
    for (Entry* group = first; group != last;) {
      Entry* end = group + 1;
      while (end != last && end->chunk == group->chunk) ++end;
      if ((group->chunk & 0xff) == kKeyGoesOn) {
        SortRange(arena, group, end, depth + kChunkBytes, levels - 1);
      } else {
        SortByFullKey(arena, group, end, depth);  // equal keys: by (order, offset)
      }
      group = end;
    }
  }

  static void SortByFullKey(const char* arena, Entry* first, Entry* last, size_t depth) {
    if (last - first < 2) return;
    std::sort(first, last, [arena, depth](const Entry& a, const Entry& b) {
      EditView x = Decode(arena, a.offset);
      EditView y = Decode(arena, b.offset);
      int c = x.key.substr(depth).compare(y.key.substr(depth));
      if (c != 0) return c < 0;
      if (x.order != y.order) return x.order < y.order;
      return a.offset < b.offset;
    });
  }

  void NoteKey(std::string_view key) {
    if (n_ == 0) {
      first_key_ = key;
      common_ = key.size();
      return;
    }
    auto end = key.begin() + std::min(common_, key.size());
    common_ = std::mismatch(key.begin(), end, first_key_.begin()).first - key.begin();
  }

  static EditView Decode(const char* arena, uint64_t offset) {
    const char* p = arena + offset;
    uint32_t key_size, value_size;
    std::memcpy(&key_size, p, 4);
    std::memcpy(&value_size, p + 4, 4);
    EditView e;
    std::memcpy(&e.order, p + 8, 8);
    e.kind = static_cast<uint8_t>(p[16]);
    e.key = std::string_view(p + kRecordHeader, key_size);
    e.value = std::string_view(p + kRecordHeader + key_size, value_size);
    return e;
  }

  // The budget, or more if a single record needs it. REQUIRES: empty().
  void Allocate(size_t bytes) {
    slots_ = std::max(budget_slots_, (bytes + sizeof(Entry) - 1) / sizeof(Entry));
    // Default-initialised: pages the sorter never touches cost nothing.
    memory_.reset(new Entry[slots_]);
  }

  char* arena() const { return reinterpret_cast<char*>(memory_.get()); }
  Entry* entries() const { return memory_.get() + slots_ - n_; }

  const size_t budget_slots_;
  std::unique_ptr<Entry[]> memory_;
  size_t slots_ = 0;  // size of memory_ in entries
  size_t used_ = 0;   // arena bytes in use
  size_t n_ = 0;      // records (and entries) held
  std::string_view first_key_;
  size_t common_ = 0;  // length of the prefix all keys held share
};

namespace {

class SortBufferIterator final : public EditIterator {
 public:
  explicit SortBufferIterator(const SortBuffer& buffer) : buffer_(buffer) { Load(); }
  bool Valid() const override { return i_ < buffer_.size(); }
  void Next() override {
    ++i_;
    Load();
  }
  const EditView& edit() const override { return edit_; }
  Status status() const override { return Status::OK(); }

 private:
  void Load() {
    if (i_ < buffer_.size()) edit_ = buffer_.Get(i_);
  }

  const SortBuffer& buffer_;
  size_t i_ = 0;
  EditView edit_;
};

}  // namespace

std::unique_ptr<Sorter> Sorter::Create(nutchfs::Env& env, std::string tmp_dir, size_t memory_budget,
                                       std::string name) {
  return std::unique_ptr<Sorter>(
      new Sorter(env, std::move(tmp_dir), memory_budget, std::move(name)));
}

Sorter::Sorter(nutchfs::Env& env, std::string tmp_dir, size_t memory_budget, std::string name)
    : env_(env),
      tmp_dir_(std::move(tmp_dir)),
      name_(std::move(name)),
      fan_in_(FanInFor(memory_budget)),
      read_buffer_(ReadBufferFor(memory_budget, fan_in_)),
      buffer_(std::make_unique<SortBuffer>(memory_budget)) {}

Sorter::~Sorter() {
  // Best effort: a run that cannot be removed is left behind in tmp_dir, which the
  // caller clears as a whole; files merged away are already gone (NotFound).
  for (const std::string& path : created_) static_cast<void>(env_.RemoveFile(path));
}

Status Sorter::Add(const EditView& edit) {
  if (finished_) return Status::InvalidArgument(name_ + ": sorter Add after Finish");
  if (edit.key.size() + edit.value.size() > kMaxEditBytes) {
    return Status::InvalidArgument(name_ + ": edit too large to sort");
  }
  if (!buffer_->empty() && !buffer_->Fits(SortBuffer::RecordSize(edit))) {
    NUTCHFS_RETURN_IF_ERROR(Spill());
  }
  buffer_->Add(edit);
  ++count_;
  return Status::OK();
}

std::string Sorter::NewRunPath() {
  char number[16];
  std::snprintf(number, sizeof(number), "%06zu", created_.size());
  created_.push_back(tmp_dir_ + "/" + name_ + "-run-" + number + ".edits");
  return created_.back();
}

Status Sorter::Spill() {
  buffer_->Sort();
  if (!dir_created_) {
    NUTCHFS_RETURN_IF_ERROR(env_.CreateDirs(tmp_dir_));
    dir_created_ = true;
  }
  std::string path = NewRunPath();
  NUTCHFS_ASSIGN_OR_RETURN(auto writer, EditFileWriter::Create(env_, path, /*sorted=*/true));
  for (size_t i = 0; i < buffer_->size(); ++i) {
    NUTCHFS_RETURN_IF_ERROR(writer->Add(buffer_->Get(i)));
  }
  NUTCHFS_RETURN_IF_ERROR(writer->Finish(/*sync=*/false));
  runs_.push_back(std::move(path));
  ++runs_spilled_;
  buffer_->Clear();
  return Status::OK();
}

Result<std::vector<std::unique_ptr<EditIterator>>> Sorter::OpenRuns(
    const std::vector<std::string>& paths) {
  std::vector<std::unique_ptr<EditIterator>> runs;
  runs.reserve(paths.size());
  for (const std::string& path : paths) {
    NUTCHFS_ASSIGN_OR_RETURN(auto run, OpenEditFile(env_, path, read_buffer_));
    runs.push_back(std::move(run));
  }
  return runs;
}

Status Sorter::MergeRuns(const std::vector<std::string>& inputs, const std::string& output) {
  NUTCHFS_ASSIGN_OR_RETURN(auto runs, OpenRuns(inputs));
  std::unique_ptr<EditIterator> merged = NewMergingEditIterator(std::move(runs));
  NUTCHFS_ASSIGN_OR_RETURN(auto writer, EditFileWriter::Create(env_, output, /*sorted=*/true));
  for (; merged->Valid(); merged->Next()) {
    NUTCHFS_RETURN_IF_ERROR(writer->Add(merged->edit()));
  }
  NUTCHFS_RETURN_IF_ERROR(merged->status());
  NUTCHFS_RETURN_IF_ERROR(writer->Finish(/*sync=*/false));
  // Best effort: the destructor tries again.
  for (const std::string& path : inputs) static_cast<void>(env_.RemoveFile(path));
  return Status::OK();
}

// Merges groups of consecutive runs, each replaced by its merge in place (which keeps
// ties in insertion order), and stops merging as soon as fan_in_ runs would remain, so
// the last pass rewrites no more data than needed.
Status Sorter::MergePass() {
  const size_t n = runs_.size();
  size_t excess = n - fan_in_;  // REQUIRES: n > fan_in_
  std::vector<std::string> next;
  size_t i = 0;
  while (i < n) {
    size_t group = std::min({fan_in_, n - i, excess + 1});
    if (group < 2) {
      next.push_back(runs_[i++]);
      continue;
    }
    std::vector<std::string> inputs(runs_.begin() + i, runs_.begin() + i + group);
    std::string output = NewRunPath();
    NUTCHFS_RETURN_IF_ERROR(MergeRuns(inputs, output));
    next.push_back(std::move(output));
    excess -= group - 1;
    i += group;
  }
  runs_ = std::move(next);
  ++merge_passes_;
  return Status::OK();
}

Result<std::unique_ptr<EditIterator>> Sorter::Finish() {
  if (finished_) return Err(Status::InvalidArgument(name_ + ": sorter Finish called twice"));
  finished_ = true;
  if (runs_.empty()) {
    buffer_->Sort();
    return std::unique_ptr<EditIterator>(std::make_unique<SortBufferIterator>(*buffer_));
  }
  if (!buffer_->empty()) NUTCHFS_RETURN_IF_ERROR(Spill());
  buffer_->Release();
  while (runs_.size() > fan_in_) NUTCHFS_RETURN_IF_ERROR(MergePass());
  NUTCHFS_ASSIGN_OR_RETURN(auto runs, OpenRuns(runs_));
  return NewMergingEditIterator(std::move(runs));
}

}  // namespace webdb
