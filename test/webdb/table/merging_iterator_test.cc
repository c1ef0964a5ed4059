#include "webdb/table/merging_iterator.h"

#include <catch2/catch.hpp>
#include <random>

#include "test/util/edit_util.h"

namespace webdb {
namespace {

using testutil::Drain;
using testutil::OwnedEdit;

std::unique_ptr<EditIterator> Merge(const std::vector<std::vector<OwnedEdit>>& inputs) {
  std::vector<std::unique_ptr<EditIterator>> its;
  for (const auto& input : inputs) its.push_back(testutil::NewVectorEditIterator(input));
  return NewMergingEditIterator(std::move(its));
}

TEST_CASE("merging iterator equals a stable sort of the inputs in order",
          "[merging_iterator][random]") {
  const uint64_t seed = GENERATE(1, 2, 3, 4, 5);
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  size_t k = 1 + rng() % 70;
  std::vector<std::vector<OwnedEdit>> inputs(k);
  std::vector<OwnedEdit> all;
  for (auto& input : inputs) {
    input = testutil::StableSorted(testutil::RandomEdits(rng, rng() % 300, {50, 5, 4}));
    all.insert(all.end(), input.begin(), input.end());
  }
  // Concatenation in input order, stably sorted: ties come out by input index.
  auto merged = Merge(inputs);
  testutil::Drained got = Drain(*merged);
  CHECK(got.status.ok());
  CHECK(got.edits == testutil::StableSorted(all));
}

TEST_CASE("merging iterator breaks (key, order) ties by input index", "[merging_iterator]") {
  std::vector<std::vector<OwnedEdit>> inputs = {
      {{"a", 1, 0, "in0"}, {"b", 2, 0, "in0"}},
      {{"a", 1, 0, "in1"}, {"a", 1, 0, "in1'"}, {"b", 1, 0, "in1"}},
      {{"a", 0, 0, "in2"}, {"a", 1, 0, "in2"}, {"b", 2, 0, "in2"}},
  };
  testutil::Drained got = Drain(*Merge(inputs));
  REQUIRE(got.status.ok());
  std::vector<std::string> values;
  for (const OwnedEdit& e : got.edits) values.push_back(e.key + e.value);
  CHECK(values ==
        std::vector<std::string>{"ain2", "ain0", "ain1", "ain1'", "ain2", "bin1", "bin0", "bin2"});
}

TEST_CASE("merging iterator over no or empty inputs", "[merging_iterator]") {
  CHECK_FALSE(Merge({})->Valid());
  CHECK(Merge({})->status().ok());
  auto merged = Merge({{}, {}, {}});
  CHECK_FALSE(merged->Valid());
  CHECK(merged->status().ok());
  testutil::Drained got = Drain(*Merge({{}, {{"x", 0, 0, ""}}, {}}));
  CHECK(got.status.ok());
  CHECK(got.edits == std::vector<OwnedEdit>{{"x", 0, 0, ""}});
}

TEST_CASE("merging iterator stops at the first failing input", "[merging_iterator][fault]") {
  const Status broken = Status::Corruption("peer.edits: frame checksum mismatch at offset 9");
  std::vector<std::unique_ptr<EditIterator>> its;
  its.push_back(testutil::NewVectorEditIterator({{"a", 0, 0, ""}, {"c", 0, 0, ""}}));
  its.push_back(testutil::NewVectorEditIterator({{"b", 0, 0, ""}}, broken));
  its.push_back(testutil::NewVectorEditIterator({{"d", 0, 0, ""}}));
  auto merged = NewMergingEditIterator(std::move(its));
  testutil::Drained got = Drain(*merged);
  CHECK(got.status.IsCorruption());
  CHECK(got.status.message() == broken.message());
  // Nothing after the failure point: "c" and "d" might sort after the lost edits.
  CHECK(got.edits == std::vector<OwnedEdit>{{"a", 0, 0, ""}, {"b", 0, 0, ""}});

  std::vector<std::unique_ptr<EditIterator>> failed_at_start;
  failed_at_start.push_back(testutil::NewVectorEditIterator({{"a", 0, 0, ""}}));
  failed_at_start.push_back(testutil::NewVectorEditIterator({}, broken));
  auto merged2 = NewMergingEditIterator(std::move(failed_at_start));
  CHECK_FALSE(merged2->Valid());
  CHECK(merged2->status().IsCorruption());
}

}  // namespace
}  // namespace webdb
