#include "webdb/sort/fixed_key_sorter.h"

#include <catch2/catch.hpp>
#include <random>

#include "nutchfs/env.h"
#include "test/util/edit_util.h"
#include "test/util/temp_dir.h"
#include "webdb/sort/sort_memory.h"

namespace webdb {
namespace {

using testutil::Drain;
using testutil::OwnedEdit;

// count edits with keys of key_size bytes whose first half is drawn from three values a byte (so
// that many keys share their first bytes) and orders from 0..3; every fifth is added twice (equal
// edits, whose order is their insertion order).
std::vector<OwnedEdit> FixedEdits(std::mt19937_64& rng, size_t count, size_t key_size) {
  std::vector<OwnedEdit> edits;
  for (size_t i = 0; i < count; ++i) {
    OwnedEdit e;
    for (size_t b = 0; b < key_size; ++b) {
      e.key.push_back(static_cast<char>(b < key_size / 2 ? rng() % 3 : rng() % 256));
    }
    e.order = rng() % 4;
    edits.push_back(e);
    if (i % 5 == 0) edits.push_back(e);
  }
  return edits;
}

struct Sorted {
  testutil::Drained got;
  bool fell_back = false;
};

Sorted SortFixed(const std::vector<OwnedEdit>& edits, size_t key_size, size_t budget,
                 const std::string& tmp) {
  auto env = nutchfs::NewLocalEnv();
  SortMemory memory(budget);
  Sorted out;
  {
    FixedKeySorter sorter(memory, key_size,
                          [&] { return Sorter::Create(*env, tmp, memory, "edges"); });
    size_t most_taken = 0;
    for (const OwnedEdit& e : edits) {
      REQUIRE(sorter.Add(e.view()).ok());
      most_taken = std::max(most_taken, memory.taken());
    }
    CHECK(most_taken <= budget);
    auto it = sorter.Finish();
    REQUIRE(it);
    out.got = Drain(**it);
    out.fell_back = sorter.fallback() != nullptr;
  }
  CHECK(memory.taken() == 0);
  return out;
}

TEST_CASE("fixed key sorter sorts as the sorter does: key, order, insertion", "[sorter]") {
  testutil::TempDir dir;
  std::mt19937_64 rng(35);
  for (size_t key_size : {size_t{1}, size_t{8}, size_t{12}, size_t{20}, size_t{24}}) {
    CAPTURE(key_size);
    for (size_t count : {size_t{0}, size_t{1}, size_t{100}, size_t{30000}}) {
      CAPTURE(count);
      const std::vector<OwnedEdit> edits = FixedEdits(rng, count, key_size);
      Sorted s = SortFixed(edits, key_size, 64 << 20, dir.File("tmp"));
      CHECK(s.got.status.ok());
      CHECK_FALSE(s.fell_back);
      CHECK(s.got.edits == testutil::StableSorted(edits));
    }
  }
}

TEST_CASE("fixed key sorter hands the stream to a sorter beyond a quarter of the budget",
          "[sorter]") {
  testutil::TempDir dir;
  std::mt19937_64 rng(36);
  // 20000 entries of 32 bytes (and as many to scatter into) do not fit a quarter of 1 MiB;
  // 16 KiB holds 128 entries, 1 KiB none at all.
  for (size_t budget : {size_t{1} << 20, size_t{16} << 10, size_t{1} << 10}) {
    CAPTURE(budget);
    const std::vector<OwnedEdit> edits = FixedEdits(rng, 20000, 20);
    Sorted s = SortFixed(edits, 20, budget, dir.File("tmp"));
    CHECK(s.got.status.ok());
    CHECK(s.fell_back);
    CHECK(s.got.edits == testutil::StableSorted(edits));
  }
}

TEST_CASE("fixed key sorter hands the stream to a sorter at an edit of another shape",
          "[sorter]") {
  testutil::TempDir dir;
  std::mt19937_64 rng(37);
  for (int odd : {0, 1, 2}) {
    CAPTURE(odd);
    std::vector<OwnedEdit> edits = FixedEdits(rng, 1000, 20);
    OwnedEdit& e = edits[500];
    if (odd == 0) e.key.pop_back();
    if (odd == 1) e.value.push_back('v');
    if (odd == 2) e.kind = 1;
    Sorted s = SortFixed(edits, 20, 64 << 20, dir.File("tmp"));
    CHECK(s.got.status.ok());
    CHECK(s.fell_back);
    CHECK(s.got.edits == testutil::StableSorted(edits));
  }
}

}  // namespace
}  // namespace webdb
