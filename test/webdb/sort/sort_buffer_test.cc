#include "webdb/sort/sort_buffer.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <random>
#include <thread>

#include "test/util/edit_util.h"

namespace webdb {
namespace {

using testutil::OwnedEdit;

std::vector<OwnedEdit> SortedByBuffer(const std::vector<OwnedEdit>& edits) {
  SortMemory memory(size_t{64} << 20);
  SortBuffer buffer(memory);
  for (const OwnedEdit& e : edits) {
    REQUIRE(buffer.Reserve(SortBuffer::RecordSize(e.view())));
    buffer.Add(e.view());
  }
  buffer.Sort();
  std::vector<OwnedEdit> out;
  for (size_t i = 0; i < buffer.size(); ++i) out.push_back(OwnedEdit::From(buffer.Get(i)));
  return out;
}

// Random 16-byte prefixes (like md5 keys), keys that agree on up to 40 bytes and then
// differ in one byte, and linksByURL-like keys (one of a few long urls, then 0x00 and a
// source md5 drawn from few, cut short at times): the radix passes see wide and narrow
// digit spreads, empty and full buckets, keys ending inside a chunk, and ranges whose
// keys share far more than a chunk (of any length, and whole keys).
std::string RadixKey(std::mt19937_64& rng, int shape) {
  std::string key;
  switch (shape) {
    case 0:
      for (int i = 0; i < 16; ++i) key.push_back(static_cast<char>(rng()));
      key += "http://a.example.com/";
      break;
    case 1:
      key.assign(rng() % 40, 'q');
      key.push_back(static_cast<char>(rng() % 3 == 0 ? 0xff : rng() % 4));
      break;
    case 2:
      key = "http://www.example.com/" + std::string(rng() % 70, 'p') + std::to_string(rng() % 4);
      key.push_back('\0');
      for (int i = 0; i < 16; ++i) key.push_back(static_cast<char>(rng() % 3));
      key.resize(key.size() - rng() % 24);
      break;
    default:
      key.assign(rng() % 9, static_cast<char>(rng() % 2 ? 0 : 0xff));
  }
  return key;
}

TEST_CASE("sort buffer sorts like a stable sort for radix-heavy keys", "[sorter][random]") {
  const int shape = GENERATE(0, 1, 2, 3);
  const uint64_t seed = GENERATE(1, 2, 3);
  INFO("shape " << shape << " seed " << seed);
  std::mt19937_64 rng(seed);
  std::vector<OwnedEdit> edits;
  for (int i = 0; i < 30000; ++i) {
    edits.push_back({RadixKey(rng, rng() % 5 == 0 ? (shape + 1) % 4 : shape), rng() % 4, 0,
                     std::to_string(i)});
  }
  CHECK(SortedByBuffer(edits) == testutil::StableSorted(edits));
}

// Sets of up to 40 edits are sorted as one small range, or as few: keys sharing a long
// prefix of any length (a page's links share its md5 and more), keys that are prefixes of
// others, equal keys of equal or different order.
TEST_CASE("sort buffer sorts small sets of keys that share long prefixes", "[sorter][random]") {
  std::mt19937_64 rng(11);
  for (int trial = 0; trial < 3000; ++trial) {
    const std::string shared(rng() % 40, static_cast<char>('a' + rng() % 3));
    std::vector<OwnedEdit> edits;
    const size_t n = 1 + rng() % 40;
    for (size_t i = 0; i < n; ++i) {
      std::string key = shared;
      for (size_t tail = rng() % 12; tail > 0; --tail) key.push_back(static_cast<char>(rng() % 3));
      key.resize(key.size() - rng() % 3 * (rng() % 2) % (key.size() + 1));
      edits.push_back({key, rng() % 3, 0, std::to_string(i)});
    }
    INFO("trial " << trial);
    REQUIRE(SortedByBuffer(edits) == testutil::StableSorted(edits));
  }
}

// The sorter's thread sorts a chunk while the merge reads its front (webdb/sort/sorter.h):
// every edit read after WaitSorted is the final one.
TEST_CASE("sort buffer front read while another thread sorts", "[sorter][random]") {
  const int shape = GENERATE(0, 1, 2, 3);
  std::mt19937_64 rng(7 + shape);
  std::vector<OwnedEdit> edits;
  for (int i = 0; i < 200000; ++i) {
    edits.push_back(
        {RadixKey(rng, rng() % 5 == 0 ? (shape + 1) % 4 : shape), rng() % 4, 0, std::to_string(i)});
  }
  const std::vector<OwnedEdit> want = testutil::StableSorted(edits);
  for (int round = 0; round < 3; ++round) {
    SortMemory memory(size_t{64} << 20);
    SortBuffer buffer(memory);
    for (const OwnedEdit& e : edits) {
      REQUIRE(buffer.Reserve(SortBuffer::RecordSize(e.view())));
      buffer.Add(e.view());
    }
    std::thread sorting([&buffer] { buffer.Sort(); });
    std::vector<OwnedEdit> got;
    for (size_t i = 0; i < buffer.size(); ++i) {
      buffer.WaitSorted(i);
      got.push_back(OwnedEdit::From(buffer.Get(i)));
    }
    sorting.join();
    INFO("shape " << shape << " round " << round);
    REQUIRE(got.size() == want.size());
    // The first edit read that is not the final one, if any (the whole vectors would
    // print for minutes).
    const size_t first_wrong = static_cast<size_t>(
        std::mismatch(got.begin(), got.end(), want.begin()).first - got.begin());
    CHECK(first_wrong == got.size());
  }
}

// Regression (found by UBSan, scripts/sanitize.sh): a deletePage edit has a default
// value view, whose data() is null; copying it passed null to memcpy.
TEST_CASE("sort buffer takes edits whose empty key or value has no data", "[sorter]") {
  SortMemory memory(size_t{1} << 20);
  SortBuffer buffer(memory);
  const std::vector<EditView> edits = {{"http://b/", 2, 1, {}}, {{}, 1, 2, "v"}, {{}, 0, 3, {}}};
  for (const EditView& e : edits) {
    REQUIRE(buffer.Reserve(SortBuffer::RecordSize(e)));
    buffer.Add(e);
  }
  buffer.Sort();
  REQUIRE(buffer.size() == 3);
  CHECK(OwnedEdit::From(buffer.Get(0)) == OwnedEdit{"", 0, 3, ""});
  CHECK(OwnedEdit::From(buffer.Get(1)) == OwnedEdit{"", 1, 2, "v"});
  CHECK(OwnedEdit::From(buffer.Get(2)) == OwnedEdit{"http://b/", 2, 1, ""});
}

TEST_CASE("sort buffer takes memory from the pool and gives it back", "[sorter]") {
  SortMemory memory(size_t{3} << 20);
  const OwnedEdit e{std::string(1000, 'k'), 0, 0, std::string(1000, 'v')};
  {
    SortBuffer a(memory);
    SortBuffer b(memory);
    size_t added = 0;
    while (a.Reserve(SortBuffer::RecordSize(e.view()))) {
      a.Add(e.view());
      ++added;
    }
    CHECK(added > 1000);  // nearly the whole pool: 3 MiB / ~2 KiB
    CHECK(memory.available() < 2100);
    // b is empty, so it makes room beyond the budget; then the pool has nothing left.
    REQUIRE(b.Reserve(SortBuffer::RecordSize(e.view())));
    b.Add(e.view());
    CHECK(memory.taken() > memory.budget());
    CHECK_FALSE(b.Reserve(SortBuffer::RecordSize(e.view())));
    a.Release();
    CHECK(b.Reserve(SortBuffer::RecordSize(e.view())));
  }
  CHECK(memory.taken() == 0);
}

TEST_CASE("a buffer that starts after another is done takes over its mapping", "[sorter]") {
  SortMemory memory(size_t{8} << 20);
  const OwnedEdit big{std::string(1000, 'k'), 0, 0, std::string(1000, 'v')};
  SortBuffer a(memory);
  for (int i = 0; i < 1500; ++i) {  // ~3 MiB: the block doubles past its first MiB
    REQUIRE(a.Reserve(SortBuffer::RecordSize(big.view())));
    a.Add(big.view());
  }
  a.Release();
  const size_t kept = memory.kept();
  CHECK(kept >= size_t{3} << 20);
  CHECK(memory.taken() == 0);
  CHECK(memory.available() == memory.budget());  // a kept mapping is there for the taking

  // The next buffer starts in the kept mapping, whose bytes it now holds, and sorts
  // correctly over the stale records it finds there.
  std::vector<OwnedEdit> edits;
  for (int i = 0; i < 2000; ++i) {
    edits.push_back({"key" + std::to_string(i * 7919 % 2000), 0, 0, "v"});
  }
  SortBuffer b(memory);
  for (const OwnedEdit& e : edits) {
    REQUIRE(b.Reserve(SortBuffer::RecordSize(e.view())));
    b.Add(e.view());
  }
  CHECK(memory.kept() == 0);
  CHECK(memory.taken() == kept);
  b.Sort();
  std::vector<OwnedEdit> out;
  for (size_t i = 0; i < b.size(); ++i) out.push_back(OwnedEdit::From(b.Get(i)));
  CHECK(out == testutil::StableSorted(edits));
  b.Release();
  CHECK(memory.taken() == 0);
  CHECK(memory.kept() == kept);
}

TEST_CASE("the kept mapping gives way to memory that is taken", "[sorter]") {
  SortMemory memory(size_t{4} << 20);
  MappedMemory m;
  m.Map(size_t{3} << 20);
  memory.Keep(std::move(m));
  CHECK(memory.kept() == size_t{3} << 20);
  CHECK(memory.Take(size_t{1} << 20));  // fits beside it
  CHECK(memory.kept() == size_t{3} << 20);
  CHECK(memory.Take(size_t{1} << 20));  // does not: it is unmapped
  CHECK(memory.kept() == 0);
  CHECK(memory.taken() == size_t{2} << 20);
  // A mapping that would not fit beside what is taken is not kept, and of two that do
  // not fit together the larger is.
  MappedMemory too_big;
  too_big.Map(size_t{3} << 20);
  memory.Keep(std::move(too_big));
  CHECK(memory.kept() == 0);
  MappedMemory small, larger;
  small.Map(size_t{1} << 20);
  larger.Map(size_t{2} << 20);
  memory.Keep(std::move(small));
  memory.Keep(std::move(larger));
  CHECK(memory.kept() == size_t{2} << 20);
  memory.Force(size_t{1} << 20);  // beyond what fits beside it: the kept mapping goes
  CHECK(memory.kept() == 0);
  SortMemory::Mapping fresh = memory.Acquire(size_t{1} << 20);  // none kept: a fresh one
  CHECK(fresh.memory.size() == size_t{1} << 20);
  CHECK(fresh.taken == 0);
  memory.Give(size_t{3} << 20);
  CHECK(memory.taken() == 0);
}

TEST_CASE("the pool keeps several mappings and hands out the smallest that is large enough",
          "[sorter]") {
  SortMemory memory(size_t{8} << 20);
  auto mapping = [](size_t mib) {
    MappedMemory m;
    m.Map(mib << 20);
    return m;
  };
  MappedMemory two = mapping(2);
  two.data()[0] = 'x';
  memory.Keep(std::move(two));
  memory.Keep(mapping(4));
  memory.Keep(mapping(1));
  CHECK(memory.kept() == size_t{7} << 20);
  CHECK(memory.taken() == 0);

  SortMemory::Mapping m = memory.Acquire(size_t{3} << 20);
  CHECK(m.memory.size() == size_t{4} << 20);
  CHECK(m.taken == size_t{4} << 20);
  CHECK(memory.taken() == size_t{4} << 20);
  CHECK(memory.kept() == size_t{3} << 20);
  // None that large: the largest, grown (its pages stay), only its kept bytes taken
  // (the caller takes the rest as it uses them).
  SortMemory::Mapping n = memory.Acquire(size_t{5} << 20);
  CHECK(n.memory.size() == size_t{5} << 20);
  CHECK(n.memory.data()[0] == 'x');
  CHECK(n.taken == size_t{2} << 20);
  CHECK(memory.taken() == size_t{6} << 20);
  CHECK(memory.kept() == size_t{1} << 20);
  memory.Give(n.taken);
  memory.Keep(std::move(n.memory));  // 5 MiB do not fit beside the 4 taken: unmapped
  CHECK(memory.kept() == size_t{1} << 20);

  // Taking more than fits beside them unmaps the kept mappings, smallest first.
  memory.Keep(mapping(2));
  CHECK(memory.kept() == size_t{3} << 20);
  CHECK(memory.Take(size_t{2} << 20));
  CHECK(memory.kept() == size_t{2} << 20);
  // A mapping kept beyond the budget pushes out smaller ones, or is not kept itself.
  memory.Keep(mapping(3));  // more than the 2 MiB left: not kept
  CHECK(memory.kept() == size_t{2} << 20);
  memory.Give(size_t{2} << 20);
  memory.Keep(mapping(2));
  CHECK(memory.kept() == size_t{4} << 20);
  memory.Keep(mapping(1));  // the smallest: goes itself
  CHECK(memory.kept() == size_t{4} << 20);
  memory.Keep(mapping(3));  // both 2 MiB mappings go
  CHECK(memory.kept() == size_t{3} << 20);
  SortMemory::Mapping last = memory.Acquire(size_t{1} << 20);
  CHECK(last.memory.size() == size_t{3} << 20);
  CHECK(last.taken == size_t{3} << 20);
  CHECK(memory.kept() == 0);
  memory.Give(m.taken + last.taken);
  CHECK(memory.taken() == 0);
}

TEST_CASE("a buffer filled again turns the pool to huge pages and keeps its records",
          "[sorter]") {
  SortMemory memory(size_t{16} << 20);
  SortBuffer b(memory);
  std::mt19937_64 rng(11);
  auto fill = [&](int n) {
    std::vector<OwnedEdit> edits;
    for (int i = 0; i < n; ++i) {
      edits.push_back(OwnedEdit{RadixKey(rng, i % 3), rng(), 1, std::string(rng() % 300, 'v')});
      REQUIRE(b.Reserve(SortBuffer::RecordSize(edits.back().view())));
      b.Add(edits.back().view());
    }
    b.Sort();
    std::vector<OwnedEdit> out;
    for (size_t i = 0; i < b.size(); ++i) out.push_back(OwnedEdit::From(b.Get(i)));
    CHECK(out == testutil::StableSorted(edits));
  };
  fill(5000);
  CHECK_FALSE(memory.reused());  // one fill: small pages, as the system's policy has it
  b.Clear();
  CHECK(memory.reused());
  fill(20000);  // grows the collapsed mapping
  b.Release();
  // A buffer starting now takes the kept mapping over, as it is.
  SortBuffer c(memory);
  REQUIRE(c.Reserve(100));
  CHECK(memory.kept() == 0);
}

TEST_CASE("a mapping moved into huge pages keeps its bytes, and as it grows", "[sorter]") {
  MappedMemory m;
  m.Map(size_t{6} << 20);
  for (size_t i = 0; i < m.size(); i += 4096) m.data()[i] = static_cast<char>(i >> 12);
  m.UseHugePages();
  m.UseHugePages();  // once is enough: nothing changes
  REQUIRE(m.Remap(size_t{12} << 20));
  for (size_t i = 0; i < (size_t{6} << 20); i += 4096) {
    REQUIRE(m.data()[i] == static_cast<char>(i >> 12));
  }
  CHECK(m.data()[(size_t{12} << 20) - 1] == 0);
  MappedMemory fresh;  // nothing to collapse: the advice alone
  fresh.Map(size_t{4} << 20);
  fresh.UseHugePages();
  CHECK(fresh.data()[123] == 0);
}

TEST_CASE("sort memory takes within the budget, forces beyond it", "[sorter]") {
  SortMemory memory(100);
  CHECK(memory.Take(60));
  CHECK_FALSE(memory.Take(41));
  CHECK(memory.available() == 40);
  memory.Force(50);
  CHECK(memory.available() == 0);
  CHECK_FALSE(memory.Take(1));
  memory.Give(110);
  CHECK(memory.taken() == 0);
}

}  // namespace
}  // namespace webdb
