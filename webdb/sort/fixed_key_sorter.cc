#include "webdb/sort/fixed_key_sorter.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <vector>

namespace webdb {
namespace {

constexpr size_t kFirstEntries = 4096;
constexpr int kBucketBits = 16;
constexpr size_t kInsertionSort = 32;

bool Less(const FixedKeySorter::Entry& a, const FixedKeySorter::Entry& b) {
  for (int w = 0; w < 3; ++w) {
    if (a.key[w] != b.key[w]) return a.key[w] < b.key[w];
  }
  return a.order < b.order;
}

// Entries equal in key and order are equal edits (kind 0, no value): which goes first cannot
// show, so the buckets need no stable sort.
void SortBucket(FixedKeySorter::Entry* first, FixedKeySorter::Entry* last) {
  if (static_cast<size_t>(last - first) > kInsertionSort) return std::sort(first, last, Less);
  for (FixedKeySorter::Entry* i = first + 1; i < last; ++i) {
    const FixedKeySorter::Entry e = *i;
    FixedKeySorter::Entry* j = i;
    for (; j > first && Less(e, j[-1]); --j) *j = j[-1];
    *j = e;
  }
}

class EntryIterator final : public EditIterator {
 public:
  EntryIterator(const FixedKeySorter::Entry* first, size_t n, size_t key_size)
      : at_(first), end_(first + n), key_size_(key_size) {
    Load();
  }
  bool Valid() const override { return at_ != end_; }
  void Next() override {
    ++at_;
    Load();
  }
  const EditView& edit() const override { return edit_; }
  Status status() const override { return Status::OK(); }

 private:
  void Load() {
    if (at_ == end_) return;
    for (int w = 0; w < 3; ++w) {
      const uint64_t big = __builtin_bswap64(at_->key[w]);
      std::memcpy(key_ + 8 * w, &big, 8);
    }
    edit_ = EditView{std::string_view(key_, key_size_), at_->order, 0, {}};
  }

  const FixedKeySorter::Entry* at_;
  const FixedKeySorter::Entry* const end_;
  const size_t key_size_;
  char key_[FixedKeySorter::kMaxKeySize];
  EditView edit_;
};

}  // namespace

FixedKeySorter::FixedKeySorter(SortMemory& memory, size_t key_size,
                               std::function<std::unique_ptr<Sorter>()> fallback)
    : memory_(memory),
      key_size_(key_size),
      max_entries_(memory.budget() / 4 / sizeof(Entry)),
      make_sorter_(std::move(fallback)) {}

FixedKeySorter::~FixedKeySorter() { Free(); }

bool FixedKeySorter::Fits(const EditView& edit) const {
  return edit.key.size() == key_size_ && edit.value.empty() && edit.kind == 0;
}

bool FixedKeySorter::Grow() {
  const size_t want = std::min(std::max(kFirstEntries, 2 * capacity_), max_entries_);
  if (want <= capacity_) return false;
  const size_t more = 2 * (want - capacity_) * sizeof(Entry);
  if (!memory_.Take(more)) return false;
  taken_ += more;
  const size_t bytes = want * sizeof(Entry);
  for (MappedMemory* m : {&entries_, &scatter_}) {
    if (m->data() == nullptr) {
      m->Map(bytes);
    } else if (!m->Remap(bytes)) {
      return false;
    }
  }
  capacity_ = want;
  return true;
}

Status FixedKeySorter::Add(const EditView& edit) {
  if (finished_) return Status::InvalidArgument("fixed key sorter: Add after Finish");
  if (sorter_ == nullptr && (!Fits(edit) || (n_ == capacity_ && !Grow()))) {
    NUTCHFS_RETURN_IF_ERROR(FallBack());
  }
  if (sorter_ != nullptr) return sorter_->Add(edit);
  Entry& e = reinterpret_cast<Entry*>(entries_.data())[n_++];
  char key[kMaxKeySize] = {};
  std::memcpy(key, edit.key.data(), key_size_);
  for (int w = 0; w < 3; ++w) {
    std::memcpy(&e.key[w], key + 8 * w, 8);
    e.key[w] = __builtin_bswap64(e.key[w]);
  }
  e.order = edit.order;
  const Entry& first = reinterpret_cast<const Entry*>(entries_.data())[0];
  for (int w = 0; w < 3; ++w) differ_[w] |= e.key[w] ^ first.key[w];
  return Status::OK();
}

Status FixedKeySorter::FallBack() {
  sorter_ = make_sorter_();
  const Entry* entries = reinterpret_cast<const Entry*>(entries_.data());
  EntryIterator held(entries, n_, key_size_);
  for (; held.Valid(); held.Next()) NUTCHFS_RETURN_IF_ERROR(sorter_->Add(held.edit()));
  Free();
  return Status::OK();
}

void FixedKeySorter::Free() {
  n_ = 0;
  std::fill(std::begin(differ_), std::end(differ_), 0);
  capacity_ = 0;
  memory_.Give(taken_);
  taken_ = 0;
  memory_.Keep(std::move(entries_));
  memory_.Keep(std::move(scatter_));
}

Result<std::unique_ptr<EditIterator>> FixedKeySorter::Finish() {
  if (finished_) return Err(Status::InvalidArgument("fixed key sorter: Finish called twice"));
  finished_ = true;
  if (sorter_ != nullptr) return sorter_->Finish();
  Sort();
  return std::unique_ptr<EditIterator>(
      new EntryIterator(reinterpret_cast<const Entry*>(scatter_.data()), n_, key_size_));
}

// The bucket of an entry is the kBucketBits of its key from the highest bit where any two keys
// differ: every key agrees above it, so bucket order is key order.
void FixedKeySorter::Sort() {
  if (n_ == 0) return;
  Entry* in = reinterpret_cast<Entry*>(entries_.data());
  Entry* out = reinterpret_cast<Entry*>(scatter_.data());
  int word = 0;
  while (word < 2 && differ_[word] == 0) ++word;
  const int top = differ_[word] == 0 ? 0 : 63 - std::countl_zero(differ_[word]);
  const int shift = std::max(0, top - (kBucketBits - 1));
  constexpr size_t kBuckets = size_t{1} << kBucketBits;
  std::vector<size_t> start(kBuckets + 1, 0);
  auto bucket = [&](const Entry& e) { return (e.key[word] >> shift) & (kBuckets - 1); };
  for (size_t i = 0; i < n_; ++i) ++start[bucket(in[i]) + 1];
  for (size_t b = 0; b < kBuckets; ++b) start[b + 1] += start[b];
  std::vector<size_t> next(start.begin(), start.end() - 1);
  for (size_t i = 0; i < n_; ++i) out[next[bucket(in[i])]++] = in[i];
  for (size_t b = 0; b < kBuckets; ++b) SortBucket(out + start[b], out + start[b + 1]);
}

}  // namespace webdb
