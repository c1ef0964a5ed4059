#include "webdb/table/layered_table.h"

#include <fmt/format.h>

#include <utility>

namespace webdb {
namespace {

constexpr size_t kNone = SIZE_MAX;

// A key as error messages show it: printable ASCII as is, other bytes as \xNN, cut after
// 200 bytes (the iterator does not know its table, so md5s are not shown in hex).
std::string Printable(std::string_view key) {
  std::string out;
  for (size_t i = 0; i < key.size() && i < 200; ++i) {
    const unsigned char c = static_cast<unsigned char>(key[i]);
    if (c >= 0x20 && c < 0x7f && c != '\\') {
      out.push_back(static_cast<char>(c));
    } else {
      out += fmt::format("\\x{:02x}", c);
    }
  }
  if (key.size() > 200) out += "...";
  return out;
}

class LayeredIterator final : public Iterator {
 public:
  LayeredIterator(std::unique_ptr<Iterator> base, std::vector<std::unique_ptr<Iterator>> runs,
                  std::vector<std::string> run_names)
      : base_(std::move(base)), runs_(std::move(runs)), run_names_(std::move(run_names)) {}

  bool Valid() const override { return valid_; }
  std::string_view key() const override { return key_; }
  std::string_view value() const override { return value_; }
  Status status() const override { return status_; }

  void SeekToFirst() override {
    status_ = Status::OK();
    base_->SeekToFirst();
    for (auto& run : runs_) run->SeekToFirst();
    if (FindRunMin()) Settle();
  }

  // Every layer stands at its first key at or above the current key, so a layer at or
  // above a target not below it stands where a seek would put it, and a layer used up
  // stays so.
  void Seek(std::string_view target) override {
    const bool forward = valid_ && target >= key_;
    status_ = Status::OK();
    auto seek = [&](Iterator& layer) {
      if (forward && (!layer.Valid() || layer.key() >= target)) return;
      layer.Seek(target);
    };
    if (forward && target == key_) return;
    for (auto& run : runs_) seek(*run);
    seek(*base_);
    if (FindRunMin()) Settle();
  }

  void Next() override {
    if (!valid_) return;
    if (base_only_) {
      base_->Next();
      Settle();
      return;
    }
    if (Pass(key_, base_at_)) Settle();
  }

  std::optional<BlockStart> AtBlockStart() const override {
    if (!valid_ || !base_only_) return std::nullopt;
    std::optional<BlockStart> start = base_->AtBlockStart();
    if (!start || !BelowRuns(start->last_key)) return std::nullopt;
    return start;
  }
  std::optional<RawBlock> CurrentBlock() const override {
    if (!AtBlockStart()) return std::nullopt;
    return base_->CurrentBlock();
  }
  void SkipBlock() override {
    base_->SkipBlock();
    Settle();
  }
  std::optional<BlockStart> BlockAt(uint64_t index) const override {
    std::optional<BlockStart> start = base_->BlockAt(index);
    if (!start || !BelowRuns(start->last_key)) return std::nullopt;
    return start;
  }
  void SkipToBlock(uint64_t index) override {
    base_->SkipToBlock(index);
    Settle();
  }
  std::optional<uint64_t> BlockIndex() const override {
    if (!valid_ || !base_only_) return std::nullopt;
    return base_->BlockIndex();
  }

  // The base's rows below the runs' next key are the table's: the base moves past them
  // as it would alone.
  Status MoveRowsInBlock(std::optional<std::string_view> limit, RowSink* sink,
                         uint64_t* moved) override {
    if (!valid_ || !base_only_) return Iterator::MoveRowsInBlock(limit, sink, moved);
    if (run_min_ != kNone) {
      const std::string_view runs = runs_[run_min_]->key();
      if (!limit || runs < *limit) limit = runs;
    }
    Status s = base_->MoveRowsInBlock(limit, sink, moved);
    Settle();
    return s;
  }

  // Rows sharing the current key's first n bytes are a key range: the base alone holds
  // them when the runs' next key does not share those bytes.
  uint64_t SkipRowsSharing(size_t n) override {
    if (!valid_ || !base_only_ ||
        (run_min_ != kNone && runs_[run_min_]->key().starts_with(key_.substr(0, n)))) {
      return Iterator::SkipRowsSharing(n);
    }
    const uint64_t moved = base_->SkipRowsSharing(n);
    Settle();
    return moved;
  }

 private:
  // Whether no run holds a key at or below last_key.
  bool BelowRuns(std::string_view last_key) const {
    return run_min_ == kNone || last_key < runs_[run_min_]->key();
  }

  // Finds the run with the smallest key; false (the iterator failed) when a run that is
  // used up failed.
  bool FindRunMin() {
    run_min_ = kNone;
    for (size_t i = 0; i < runs_.size(); ++i) {
      const Iterator& run = *runs_[i];
      if (!run.Valid()) {
        if (!run.status().ok()) {
          Fail(run.status());
          return false;
        }
        continue;
      }
      if (run_min_ == kNone || run.key() < runs_[run_min_]->key()) run_min_ = i;
    }
    return true;
  }

  // Moves every layer at key past it (the base too when base_at); false when a run failed.
  bool Pass(std::string_view key, bool base_at) {
    passed_.assign(key);  // key views a layer about to move
    for (auto& run : runs_) {
      if (run->Valid() && run->key() == passed_) run->Next();
    }
    if (base_at) base_->Next();
    return FindRunMin();
  }

  // Makes the current row the one the layers hold at their smallest key, passing keys
  // whose newest row is a tombstone. REQUIRES: run_min_ up to date.
  void Settle() {
    for (;;) {
      const bool base_valid = base_->Valid();
      if (!base_valid && !base_->status().ok()) return Fail(base_->status());
      if (run_min_ == kNone) {
        if (!base_valid) return End();
        return FromBase();
      }
      const std::string_view smallest = runs_[run_min_]->key();
      const int c = base_valid ? base_->key().compare(smallest) : 1;
      if (c < 0) return FromBase();
      size_t top = runs_.size() - 1;
      while (!runs_[top]->Valid() || runs_[top]->key() != smallest) --top;
      const std::optional<RunRow> row = DecodeRunValue(runs_[top]->value());
      if (!row) {
        return Fail(Status::Corruption(run_names_[top] + ": malformed run row at key " +
                                       Printable(smallest)));
      }
      if (row->tag == RunTag::kRemove) {
        if (!Pass(smallest, c == 0)) return;
        continue;
      }
      key_ = smallest;
      value_ = row->value;
      base_at_ = c == 0;
      base_only_ = false;
      valid_ = true;
      maybe_at_block_start_ = false;
      return;
    }
  }

  void FromBase() {
    key_ = base_->key();
    value_ = base_->value();
    base_at_ = true;
    base_only_ = true;
    valid_ = true;
    maybe_at_block_start_ = base_->MaybeAtBlockStart();
  }

  void End() {
    valid_ = false;
    maybe_at_block_start_ = false;
  }

  void Fail(Status s) {
    End();
    status_ = std::move(s);
  }

  std::unique_ptr<Iterator> base_;
  std::vector<std::unique_ptr<Iterator>> runs_;  // oldest first
  const std::vector<std::string> run_names_;
  size_t run_min_ = kNone;  // the run whose key is the smallest of the runs' keys
  bool valid_ = false;
  bool base_at_ = false;    // the base holds the current key
  bool base_only_ = false;  // the current row is the base's, no run holding its key
  std::string_view key_;
  std::string_view value_;
  std::string passed_;  // the key being passed, copied
  Status status_;
};

}  // namespace

std::optional<RunTag> TagOf(bool held_below, bool held_after) {
  if (held_after) return held_below ? RunTag::kReplace : RunTag::kInsert;
  if (held_below) return RunTag::kRemove;
  return std::nullopt;
}

std::optional<RunRow> DecodeRunValue(std::string_view stored) {
  if (stored.empty()) return std::nullopt;
  const uint8_t tag = static_cast<uint8_t>(stored[0]);
  if (tag > static_cast<uint8_t>(RunTag::kRemove)) return std::nullopt;
  RunRow row{static_cast<RunTag>(tag), stored.substr(1)};
  if (row.tag == RunTag::kRemove && !row.value.empty()) return std::nullopt;
  return row;
}

void EncodeRunValue(RunTag tag, std::string_view value, std::string* out) {
  out->push_back(static_cast<char>(tag));
  if (tag != RunTag::kRemove) out->append(value);
}

std::unique_ptr<Iterator> NewLayeredIterator(std::unique_ptr<Iterator> base,
                                             std::vector<std::unique_ptr<Iterator>> runs,
                                             std::vector<std::string> run_names) {
  if (runs.empty()) return base;
  return std::make_unique<LayeredIterator>(std::move(base), std::move(runs),
                                           std::move(run_names));
}

LayeredTable::LayeredTable(std::unique_ptr<Table> base, std::vector<std::unique_ptr<Table>> runs,
                           uint64_t num_records)
    : base_(std::move(base)), runs_(std::move(runs)), num_records_(num_records) {}

std::unique_ptr<Iterator> LayeredTable::NewIterator(const KeyRange& range) const {
  return IteratorOf(range, runs_.size());
}

std::unique_ptr<Iterator> LayeredTable::NewIteratorBelow(size_t n) const {
  return IteratorOf({}, n);
}

std::unique_ptr<Iterator> LayeredTable::IteratorOf(const KeyRange& range, size_t n) const {
  std::vector<std::unique_ptr<Iterator>> runs;
  std::vector<std::string> names;
  for (size_t i = 0; i < n; ++i) {
    runs.push_back(runs_[i]->NewIterator(range));
    names.push_back(runs_[i]->path(0));
  }
  return NewLayeredIterator(base_->NewIterator(range), std::move(runs), std::move(names));
}

uint64_t LayeredTable::run_records() const {
  uint64_t n = 0;
  for (const auto& run : runs_) n += run->num_records();
  return n;
}

uint64_t LayeredTable::num_blocks() const {
  uint64_t n = base_->num_blocks();
  for (const auto& run : runs_) n += run->num_blocks();
  return n;
}

}  // namespace webdb
