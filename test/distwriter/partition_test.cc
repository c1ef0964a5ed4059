#include "distwriter/partition.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "distwriter/dist_config.h"
#include "distwriter/round_manifest.h"

namespace distwriter {
namespace {

std::vector<std::string> Choose(std::vector<std::string> urls, int k) {
  auto b = Partition::ChooseBreakpoints(std::move(urls), k);
  REQUIRE(b);
  INFO("k = " << k);
  Status valid = ValidateBreakpoints(*b, k);
  CHECK(valid.ok());
  if (!valid.ok()) FAIL(valid.ToString());
  return *b;
}

// The breakpoints survive a round manifest: every reader must be able to decode it.
void CheckRoundTrip(const std::vector<std::string>& breakpoints, int k) {
  RoundManifest m;
  m.version = 2;
  m.k = k;
  m.digests.assign(k, "");
  m.sections.assign(k, webdb::Manifest{});
  for (webdb::Manifest& section : m.sections) {
    section.version = 1;
    for (int t = 0; t < webdb::kNumTables; ++t) {
      const auto id = static_cast<webdb::TableId>(t);
      section.tables[t] = {webdb::TableFile{webdb::TableFileName(id, 1)}};
    }
  }
  m.breakpoints = breakpoints;
  auto again = RoundManifest::Decode(m.Encode(), "ROUND-000002");
  if (!again) FAIL(again.error().ToString());
  CHECK(*again == m);
}

}  // namespace

TEST_CASE("partition: breakpoints are the quantiles of the sample", "[distwriter]") {
  std::vector<std::string> urls;
  for (char c = 'a'; c <= 'z'; ++c) urls.push_back(std::string("http://") + c + "/");
  CHECK(Choose(urls, 2) == std::vector<std::string>{"http://n/"});
  const Partition p(2, Choose(urls, 2));
  CHECK(p.SectionOf(webdb::TableId::kPagesByUrl, "http://a/") == 0);
  CHECK(p.SectionOf(webdb::TableId::kPagesByUrl, "http://n/") == 1);
  CHECK(p.SectionOf(webdb::TableId::kLinksByUrl, std::string("http://m/\0", 10) + "x") == 0);
  CHECK(Choose({"http://b/", "http://a/", "http://b/"}, 3) ==
        std::vector<std::string>{"http://a/", "http://b/"});
}

// Regression: with no sample at all, k >= 96 writers gave the breakpoint "\x7f" (a control
// byte) and later ones wrapped around to NUL; the round manifest holding them could not be
// decoded, so the db was lost on its first round.
TEST_CASE("partition: breakpoints without any sample are valid for every writer count",
          "[distwriter]") {
  for (int k = 2; k <= kMaxWriters; ++k) CheckRoundTrip(Choose({}, k), k);
  CHECK(Choose({}, 3) == std::vector<std::string>{"!", "!~"});
}

// Regression: a sample with fewer distinct urls than writers repeats the last url plus
// "~", which made a url over 65535 bytes from a longest one (distwriter create --sample
// wrote a round manifest no command could read).
TEST_CASE("partition: breakpoints after a longest url stay within the url limit", "[distwriter]") {
  const std::string longest(webdb::kMaxUrlLength, 'u');
  auto b = Choose({longest}, 4);
  CHECK(b[0] == longest);
  CHECK(b[1] == std::string(webdb::kMaxUrlLength - 1, 'u') + "v");
  CHECK(b[2] == std::string(webdb::kMaxUrlLength - 1, 'u') + "w");
  CheckRoundTrip(b, 4);
  // The byte after 0x7e is 0x80: 0x7f is a control byte.
  b = Choose({std::string(webdb::kMaxUrlLength - 1, 'u') + "~"}, 3);
  CHECK(b[1] == std::string(webdb::kMaxUrlLength - 1, 'u') + "\x80");
  // Trailing 0xff bytes cannot grow: the byte before them does.
  b = Choose({"http://a/" + std::string(webdb::kMaxUrlLength - 9, '\xff')}, 3);
  CHECK(b[1] == "http://a0");
  // Nothing sorts after 65535 bytes of 0xff: an error, not a broken manifest.
  auto none = Partition::ChooseBreakpoints({std::string(webdb::kMaxUrlLength, '\xff')}, 3);
  REQUIRE_FALSE(none);
  CHECK(none.error().IsInvalidArgument());
}

}  // namespace distwriter
