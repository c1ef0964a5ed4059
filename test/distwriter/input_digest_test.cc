#include "distwriter/input_digest.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

namespace distwriter {
namespace {

struct Edit {
  std::string key;
  uint64_t order;
  uint8_t kind;
  std::string value;
};

std::string HexOf(const std::vector<Edit>& edits, int k = 4, int writer = 1) {
  InputDigest d(k, writer);
  for (const Edit& e : edits) d.Add({e.key, e.order, e.kind, e.value});
  return d.Hex();
}

std::vector<Edit> SomeEdits() {
  std::vector<Edit> edits;
  for (uint64_t i = 0; i < 200; ++i) {
    edits.push_back({"http://h" + std::to_string(i % 37) + ".example/p" + std::to_string(i), i,
                     static_cast<uint8_t>(i % 3), std::string(i % 50, static_cast<char>('a' + i % 26))});
  }
  return edits;
}

}  // namespace

TEST_CASE("input digest: 32 lowercase hex digits, the same for the same edits in any order",
          "[distwriter]") {
  std::vector<Edit> edits = SomeEdits();
  const std::string hex = HexOf(edits);
  CHECK(hex.size() == 32);
  CHECK(std::all_of(hex.begin(), hex.end(),
                    [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); }));
  std::mt19937 rng(7);
  for (int i = 0; i < 3; ++i) {
    std::shuffle(edits.begin(), edits.end(), rng);
    CHECK(HexOf(edits) == hex);
  }
}

TEST_CASE("input digest: digests of a writer's edits kept apart merge into the one digest",
          "[distwriter]") {
  const std::vector<Edit> edits = SomeEdits();
  InputDigest even(4, 1), odd(4, 1), none(4, 1);
  for (size_t i = 0; i < edits.size(); ++i) {
    const Edit& e = edits[i];
    (i % 2 == 0 ? even : odd).Add({e.key, e.order, e.kind, e.value});
  }
  even.Merge(odd);
  even.Merge(none);
  CHECK(even.Hex() == HexOf(edits));
}

TEST_CASE("input digest: any change of an edit, of k or of the writer changes it",
          "[distwriter]") {
  const std::vector<Edit> edits = SomeEdits();
  const std::string hex = HexOf(edits);
  CHECK(HexOf(edits, 4, 2) != hex);
  CHECK(HexOf(edits, 3, 1) != hex);
  CHECK(HexOf({}) != hex);
  CHECK(HexOf({}) != HexOf({}, 4, 2));
  auto changed = [&](auto change) {
    std::vector<Edit> other = edits;
    change(other[100]);
    return HexOf(other);
  };
  CHECK(changed([](Edit& e) { e.key += "x"; }) != hex);
  CHECK(changed([](Edit& e) { ++e.order; }) != hex);
  CHECK(changed([](Edit& e) { e.kind ^= 4; }) != hex);
  CHECK(changed([](Edit& e) { e.value += "x"; }) != hex);
  std::vector<Edit> fewer(edits.begin(), edits.end() - 1);
  CHECK(HexOf(fewer) != hex);
  std::vector<Edit> twice = edits;
  twice.push_back(edits.back());
  CHECK(HexOf(twice) != hex);
  // Bytes moved between key and value.
  CHECK(HexOf({{"ab", 1, 1, "c"}}) != HexOf({{"a", 1, 1, "bc"}}));
}

// A rerun recognizes its calls by the digest the committed round lists: it must come out
// the same from every build on every machine, so its value is pinned here.
TEST_CASE("input digest: its value is stable across builds", "[distwriter]") {
  CHECK(HexOf({}, 2, 1) == "ea87a415738246fde7b6ce5f302fb9f6");
  CHECK(HexOf({{"http://a.example/", 7, 1, "v"}}, 2, 1) == "8d4eaf4701b3f113cac6e32bf0f8a15f");
}

}  // namespace distwriter
