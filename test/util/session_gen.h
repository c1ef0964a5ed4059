// SessionGenerator: random writer sessions for model-based tests, deterministic per seed.
//
// Sessions are drawn over a small universe of urls and md5s that evolves slowly from
// session to session, so that successive sessions on one db keep hitting existing pages
// and links: shared md5s, deletes of absent pages, addPageIfNotPresent on present and
// absent urls, several calls on one url, repeated link keys, links from absent content and
// to absent pages, hostile bytes, 65535-byte urls and anchors, numOutlinks flipping
// between 0 and >0, and empty, page-only and link-only sessions.
//
// A generator owns its random engine and universe; not thread-safe.
#ifndef TEST_UTIL_SESSION_GEN_H_
#define TEST_UTIL_SESSION_GEN_H_

#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "test/util/session.h"
#include "webdb/table/record.h"

namespace testutil {

struct GenOptions {
  size_t universe_urls = 40;  // urls in play at a time
  size_t universe_md5s = 12;  // contents shared among pages, besides md5(url)
  size_t min_calls = 1;       // calls in a non-empty session
  size_t max_calls = 120;
  double churn = 0.05;               // share of the universe replaced after each session
  double long_url_chance = 0.01;     // a new universe url has exactly 65535 bytes
  double long_anchor_chance = 0.01;  // an anchor has exactly 65535 bytes
  // Bytes 0x80-0xff and quotes/backslashes in urls, any byte (NUL too) in anchors. Off:
  // printable ASCII only.
  bool hostile_bytes = true;
};

class SessionGenerator {
 public:
  SessionGenerator(uint64_t seed, GenOptions options);

  SessionGenerator(const SessionGenerator&) = delete;
  SessionGenerator& operator=(const SessionGenerator&) = delete;

  // The next session; then moves the universe on by options.churn.
  Session Next();

  std::mt19937_64& rng() { return rng_; }
  const GenOptions& options() const { return options_; }

 private:
  enum class Shape { kEmpty, kPagesOnly, kLinksOnly, kMixed };

  Shape PickShape();
  Call RandomCall(Shape shape, const Session& so_far);
  Call RandomPageCall();
  Call RepeatOnSameKey(const Session& so_far);
  webdb::Page RandomPage(const std::string& url);
  webdb::Link RandomLink();
  webdb::Link LinkTo(const std::string& url);
  std::string NewUrl();
  std::string HostileSuffix();
  std::string RandomAnchor();
  webdb::Md5 RandomMd5();
  webdb::Md5 PickMd5();
  const std::string& PickUrl();
  void Churn();

  bool Chance(double p);
  size_t Uniform(size_t n);  // [0, n)

  GenOptions options_;
  std::mt19937_64 rng_;
  std::vector<std::string> urls_;
  std::vector<webdb::Md5> md5s_;
  uint64_t next_url_id_ = 0;
};

// n sessions of valid UTF-8 only (call files carry nothing else) over universe_urls urls,
// each of min_calls to max_calls calls: the rounds of the distributed writer's tests.
std::vector<Session> RoundSessions(uint64_t seed, size_t n, size_t universe_urls,
                                   size_t max_calls, size_t min_calls);

// Cuts a session into k contiguous slices at random points (slices may be empty);
// concatenating them gives the session back.
std::vector<Session> SplitSession(const Session& session, size_t k, std::mt19937_64& rng);

}  // namespace testutil

#endif  // TEST_UTIL_SESSION_GEN_H_
