#include "webdb/sort/sort_buffer.h"

#include <algorithm>
#include <cstring>

#include "webdb/util/coding.h"

namespace webdb {
namespace {

// Record: key size u32, value size u32, order u64, kind u8, key, value.
constexpr size_t kRecordHeader = 4 + 4 + 8 + 1;
// Memory is taken from the pool in steps of a sixteenth of the budget, between these
// sizes: several buffers fill at once (one a stage worker and partition, webdb/db/update.h),
// and a step as large as a small budget would leave the others none.
constexpr size_t kMinStep = size_t{4} << 10;
constexpr size_t kMaxStep = size_t{1} << 20;
constexpr size_t kChunkBytes = 7;
constexpr uint64_t kKeyGoesOn = kChunkBytes + 1;
// Ranges this small are sorted by comparison; larger ones by radix passes.
constexpr ptrdiff_t kSmallRange = 16;
constexpr ptrdiff_t kSmallRadix = 48;
constexpr int kMaxLevels = 16;
constexpr ptrdiff_t kAhead = 8;  // records are scattered: fetch this far ahead
constexpr int kLinesAhead = 3;   // cache lines of each record fetched ahead by Get()
// The sorted front is made final in steps of at least this many entries.
constexpr size_t kPublishStep = 1024;

// Key bytes [depth, depth + 7) big-endian and zero-padded in the high 56 bits; in the
// low 8 bits how many key bytes remain from depth, capped at 8 (kKeyGoesOn). Ordering
// chunks as numbers agrees with bytewise key order: a key that ends inside the chunk
// sorts before a longer key with the same bytes. REQUIRES: key.size() >= depth.
uint64_t Chunk(std::string_view key, size_t depth) {
  const size_t rest = key.size() - depth;
  const char* p = key.data() + depth;
  uint64_t v = 0;
  if (rest >= 8) {
    std::memcpy(&v, p, 8);
    v = __builtin_bswap64(v) & ~uint64_t{0xff};
  } else {
    for (size_t i = 0; i < kChunkBytes && i < rest; ++i) {
      v |= uint64_t{static_cast<uint8_t>(p[i])} << (56 - 8 * i);
    }
  }
  return v | std::min<uint64_t>(rest, kKeyGoesOn);
}

}  // namespace

SortBuffer::SortBuffer(SortMemory& memory)
    : memory_(memory),
      budget_slots_(std::max<size_t>(memory.budget() / sizeof(Entry), 1)),
      step_(std::clamp(memory.budget() / 16, kMinStep, kMaxStep)) {}

SortBuffer::~SortBuffer() { Release(); }

size_t SortBuffer::RecordSize(const EditView& e) {
  return kRecordHeader + e.key.size() + e.value.size() + sizeof(Entry);
}

bool SortBuffer::Reserve(size_t record_size, bool beyond_budget) {
  const size_t need = used_ + n_ * sizeof(Entry) + record_size;
  if (need > capacity()) {
    if (empty()) {
      Allocate(need);
    } else if (need > budget_slots_ * sizeof(Entry) || !Grow(need)) {
      return false;  // full, or the memory the budget promised is not there: spill
    }
  }
  if (need <= taken_) return true;
  const size_t step = std::min(std::max(need - taken_, step_), capacity() - taken_);
  if (memory_.Take(step)) {
    taken_ += step;
    return true;
  }
  const size_t rest = need - taken_;
  if (!memory_.Take(rest)) {
    if (!empty() && !beyond_budget) return false;
    memory_.Force(rest);
  }
  taken_ = need;
  return true;
}

void SortBuffer::Add(const EditView& edit) {
  char* p = arena() + used_;
  const auto key_size = static_cast<uint32_t>(edit.key.size());
  const auto value_size = static_cast<uint32_t>(edit.value.size());
  std::memcpy(p, &key_size, 4);
  std::memcpy(p + 4, &value_size, 4);
  std::memcpy(p + 8, &edit.order, 8);
  p[16] = static_cast<char>(edit.kind);
  // An empty view may have a null data(), which memcpy must not get even for 0 bytes.
  if (key_size > 0) std::memcpy(p + kRecordHeader, edit.key.data(), key_size);
  if (value_size > 0) std::memcpy(p + kRecordHeader + key_size, edit.value.data(), value_size);
  slots()[slots_ - n_ - 1] = Entry{0, used_};  // chunk: set by Sort()
  NoteKey(std::string_view(p + kRecordHeader, key_size));
  ++n_;
  used_ += kRecordHeader + key_size + value_size;
}

// Sorting starts after the bytes all keys share ("http://www."), which would otherwise
// cost a level each.
void SortBuffer::Sort() {
  if (n_ > 1)
    SortRange(arena(), entries(), entries() + n_, common_, kMaxLevels, &sorted_, entries());
  Publish(&sorted_, n_);
}

// A reader waiting for the front blocks (futex), so that it leaves the CPU to the sort.
void SortBuffer::WaitSorted(size_t i) const {
  for (size_t s; (s = sorted_.load(std::memory_order_acquire)) <= i;) {
    sorted_.wait(s, std::memory_order_acquire);
  }
}

void SortBuffer::Publish(std::atomic<size_t>* sorted, size_t n) {
  sorted->store(n, std::memory_order_release);
  sorted->notify_all();
}

EditView SortBuffer::Get(size_t i) const {
  // Only a record's first line tells how long it is: fetch the lines most records
  // take (header and key of a link edit span two, its value often a third). Entries
  // past the sorted front may still move.
  if (i + kAhead < sorted_.load(std::memory_order_acquire)) {
    const char* record = arena() + entries()[i + kAhead].offset;
    for (int line = 0; line < kLinesAhead; ++line) __builtin_prefetch(record + 64 * line);
  }
  return Decode(arena(), entries()[i].offset);
}

// A buffer filled again is memory used many times: worth huge pages from now on.
void SortBuffer::Clear() {
  used_ = 0;
  n_ = 0;
  sorted_.store(0, std::memory_order_relaxed);
  if (slots_ > budget_slots_) return Release();
  memory_.SetReused();
  block_.UseHugePages();
}

void SortBuffer::Release() {
  slots_ = 0;
  used_ = 0;
  n_ = 0;
  sorted_.store(0, std::memory_order_relaxed);
  memory_.Give(taken_);
  taken_ = 0;
  memory_.Keep(std::move(block_));
}

EditView SortBuffer::Decode(const char* arena, uint64_t offset) {
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

// REQUIRES: the keys of [first, last) share their first depth bytes. Each level fills in
// every entry's chunk at depth, radix-sorts by chunk, and refines each group of equal
// chunks at the next depth; that touches each record about once per level. A range whose
// keys all agree on the chunk goes on where they first differ: the links to one url
// share the url and more, which would otherwise cost a level every seven bytes.
void SortBuffer::SortRange(const char* arena, Entry* first, Entry* last, size_t depth, int levels,
                           std::atomic<size_t>* sorted, const Entry* base) {
  if (last - first <= kSmallRange || levels == 0) {
    // After what the range's keys share (a page's links share its md5 and more), the
    // chunks tell most keys apart.
    const std::string_view first_rest = Decode(arena, first->offset).key.substr(depth);
    size_t shared = first_rest.size();
    for (const Entry* e = first + 1; e != last && shared > 0; ++e) {
      shared = SharedPrefixLength(first_rest.substr(0, shared),
                                  Decode(arena, e->offset).key.substr(depth));
    }
    depth += shared;
    for (Entry* e = first; e != last; ++e) {
      e->chunk = Chunk(Decode(arena, e->offset).key.substr(depth), 0);
    }
    return SortByChunkThenKey(arena, first, last, depth);
  }
  const std::string_view first_rest = Decode(arena, first->offset).key.substr(depth);
  first->chunk = Chunk(first_rest, 0);
  bool same = true;  // every chunk so far is the first one
  size_t shared = first_rest.size();  // while same: bytes from depth on all keys share
  for (Entry* e = first + 1; e != last; ++e) {
    if (last - e > kAhead) __builtin_prefetch(arena + e[kAhead].offset + kRecordHeader + depth);
    const std::string_view rest = Decode(arena, e->offset).key.substr(depth);
    e->chunk = Chunk(rest, 0);
    if (same) {
      same = e->chunk == first->chunk;
      if (same) shared = std::min(shared, SharedPrefixLength(first_rest, rest));
    }
  }
  if (same && (first->chunk & 0xff) == kKeyGoesOn) {
    return SortRange(arena, first, last, depth + shared, levels - 1, sorted, base);
  }
  RadixSort(first, last, 0);
  for (Entry* group = first; group != last;) {
    Entry* end = group + 1;
    while (end != last && end->chunk == group->chunk) ++end;
    if (end - group > 1) {
      if ((group->chunk & 0xff) == kKeyGoesOn) {
        SortRange(arena, group, end, depth + kChunkBytes, levels - 1);
      } else {
        SortByChunkThenKey(arena, group, end, depth);  // equal keys: by (order, offset)
      }
    }
    // Readers are told in steps: keyed by md5, a chunk has about one group per entry.
    const size_t front = static_cast<size_t>(end - base);
    if (sorted != nullptr && front - sorted->load(std::memory_order_relaxed) >= kPublishStep) {
      Publish(sorted, front);
    }
    group = end;
  }
}

// Most significant byte first, in place (American flag sort), by chunk alone. The bytes
// every entry of the range shares are found in one pass (each chunk XOR the first, ORed)
// and skipped, neither counted nor moved: url keys share many.
void SortBuffer::RadixSort(Entry* first, Entry* last, int byte) {
  const ptrdiff_t n = last - first;
  if (n <= kSmallRadix) {
    std::sort(first, last, [](const Entry& a, const Entry& b) { return a.chunk < b.chunk; });
    return;
  }
  uint64_t differ = 0;
  for (const Entry* e = first + 1; e != last; ++e) differ |= e->chunk ^ first->chunk;
  if (differ == 0) return;
  byte = std::max(byte, __builtin_clzll(differ) / 8);
  const int shift = 56 - 8 * byte;
  auto digit = [shift](const Entry& e) { return static_cast<uint8_t>(e.chunk >> shift); };
  size_t count[256] = {};
  for (const Entry* e = first; e != last; ++e) ++count[digit(*e)];
  Entry* head[256];
  Entry* tail[256];
  Entry* at = first;
  for (int d = 0; d < 256; ++d) {
    head[d] = at;
    at += count[d];
    tail[d] = at;
  }
  for (int d = 0; d < 256; ++d) {
    while (head[d] != tail[d]) {
      Entry v = *head[d];
      for (uint8_t b = digit(v); b != d; b = digit(v)) std::swap(v, *head[b]++);
      *head[d]++ = v;
    }
  }
  if (byte == 7) return;
  Entry* start = first;
  for (int d = 0; d < 256; ++d) {
    Entry* end = start + count[d];
    if (count[d] > 1) RadixSort(start, end, byte + 1);
    start = end;
  }
}

// Chunks first: a comparison reads the records only when two chunks are equal, and
// then from the first byte after the chunk.
void SortBuffer::SortByChunkThenKey(const char* arena, Entry* first, Entry* last, size_t depth) {
  if (last - first < 2) return;
  std::sort(first, last, [arena, depth](const Entry& a, const Entry& b) {
    if (a.chunk != b.chunk) return a.chunk < b.chunk;
    const EditView x = Decode(arena, a.offset);
    const EditView y = Decode(arena, b.offset);
    if ((a.chunk & 0xff) == kKeyGoesOn) {
      const int c = x.key.substr(depth + kChunkBytes).compare(y.key.substr(depth + kChunkBytes));
      if (c != 0) return c < 0;
    }
    if (x.order != y.order) return x.order < y.order;
    return a.offset < b.offset;
  });
}

void SortBuffer::NoteKey(std::string_view key) {
  if (n_ == 0) {
    first_key_ = key;
    common_ = key.size();
    return;
  }
  common_ = SharedPrefixLength(key.substr(0, std::min(common_, key.size())), first_key_);
}

// A first block of 1 MiB (less if the budget is smaller), or larger if a single record
// needs it; or the block the pool kept, grown if a record needs it. REQUIRES: empty().
void SortBuffer::Allocate(size_t bytes) {
  Release();
  const size_t wanted =
      sizeof(Entry) *
      std::max(std::min(budget_slots_, kFirstSlots), (bytes + sizeof(Entry) - 1) / sizeof(Entry));
  SortMemory::Mapping m = memory_.Acquire(wanted);
  block_ = std::move(m.memory);
  taken_ = m.taken;
  if (memory_.reused()) block_.UseHugePages();
  slots_ = block_.size() / sizeof(Entry);
}

// Doubles the block (at least to `bytes`, at most to the budget), keeping the records at
// the front and moving the entries to the new back. False, changing nothing, when the
// system refuses the memory.
bool SortBuffer::Grow(size_t bytes) {
  const size_t grown =
      std::min(budget_slots_, std::max(slots_ * 2, (bytes + sizeof(Entry) - 1) / sizeof(Entry)));
  const char* old_front = arena();
  if (!block_.Remap(grown * sizeof(Entry))) return false;
  std::memmove(slots() + grown - n_, slots() + slots_ - n_, n_ * sizeof(Entry));
  if (n_ > 0) {
    first_key_ = std::string_view(arena() + (first_key_.data() - old_front), first_key_.size());
  }
  slots_ = grown;
  return true;
}

}  // namespace webdb
