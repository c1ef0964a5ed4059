#include "test/util/session_gen.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

namespace testutil {

using webdb::Link;
using webdb::Md5;
using webdb::Page;

namespace {

// Byte strings that differ from ordinary urls only in ways that stress ordering and
// escaping: the smallest allowed byte, the largest, lone continuation bytes, a truncated
// multi-byte sequence, characters above U+FFFF, quotes and backslashes.
const char* const kHostilePieces[] = {
    " ",   "\xff",     "\x80", "\xfe", "\xc3", "\"", "\\", "'", "\xf0\x9f\x98\x80", "\xef\xbf\xbd",
    "%00", "\xc3\xa9", "~"};
const char* const kPlainPieces[] = {" ", "~", "!", "\"", "\\", "'", "%00", "/", "?a=1"};

}  // namespace

SessionGenerator::SessionGenerator(uint64_t seed, GenOptions options)
    : options_(options), rng_(seed) {
  for (size_t i = 0; i < options_.universe_urls; ++i) urls_.push_back(NewUrl());
  for (size_t i = 0; i < options_.universe_md5s; ++i) md5s_.push_back(RandomMd5());
}

bool SessionGenerator::Chance(double p) {
  return std::uniform_real_distribution<double>(0.0, 1.0)(rng_) < p;
}

size_t SessionGenerator::Uniform(size_t n) {
  return std::uniform_int_distribution<size_t>(0, n - 1)(rng_);
}

Session SessionGenerator::Next() {
  Shape shape = PickShape();
  Session session;
  if (shape != Shape::kEmpty) {
    size_t n = options_.min_calls + Uniform(options_.max_calls - options_.min_calls + 1);
    while (session.size() < n) session.push_back(RandomCall(shape, session));
  }
  Churn();
  return session;
}

SessionGenerator::Shape SessionGenerator::PickShape() {
  size_t r = Uniform(100);
  if (r < 4) return Shape::kEmpty;
  if (r < 14) return Shape::kPagesOnly;
  if (r < 24) return Shape::kLinksOnly;
  return Shape::kMixed;
}

Call SessionGenerator::RandomCall(Shape shape, const Session& so_far) {
  if (!so_far.empty() && Chance(0.15)) return RepeatOnSameKey(so_far);
  switch (shape) {
    case Shape::kPagesOnly: {
      Call c = RandomPageCall();
      c.link.reset();
      return c;
    }
    case Shape::kLinksOnly:
      return AddLinkCall(RandomLink());
    default:
      return Chance(0.55) ? RandomPageCall() : AddLinkCall(RandomLink());
  }
}

Call SessionGenerator::RandomPageCall() {
  const std::string& url = PickUrl();
  size_t r = Uniform(100);
  if (r < 27) return AddPageCall(RandomPage(url));
  if (r < 45) return AddPageWithScoreCall(RandomPage(url));
  if (r < 80) {
    std::optional<Link> link;
    if (Chance(0.6)) link = Chance(0.8) ? LinkTo(url) : RandomLink();
    return AddPageIfNotPresentCall(RandomPage(url), std::move(link));
  }
  return DeletePageCall(url);
}

// Another call on the key of an earlier call of this session: the same url for a page
// call (any opcode, so every opcode pair occurs in both orders), the same (from, url) for
// a link, including the link of an addPageIfNotPresent.
Call SessionGenerator::RepeatOnSameKey(const Session& so_far) {
  const Call& old = so_far[Uniform(so_far.size())];
  bool as_link = old.op == Call::Op::kAddLink ||
                 (old.op == Call::Op::kAddPageIfNotPresent && old.link && Chance(0.5));
  if (as_link) {
    Link l = LinkTo(old.link->url);
    l.from = old.link->from;
    return AddLinkCall(std::move(l));
  }
  Call c = RandomPageCall();
  if (c.op == Call::Op::kDeletePage) {
    c.url = PageUrl(old);
  } else {
    c.page = RandomPage(PageUrl(old));
  }
  bool pages_only =
      std::none_of(so_far.begin(), so_far.end(), [](const Call& t) { return t.link.has_value(); });
  if (pages_only) c.link.reset();
  return c;
}

Page SessionGenerator::RandomPage(const std::string& url) {
  Page p = Page::WithDefaults(url);
  if (Chance(0.7)) p.md5 = Chance(0.2) ? webdb::Md5Of(PickUrl()) : PickMd5();
  if (Chance(0.5)) p.next_fetch = static_cast<int64_t>(rng_());
  if (Chance(0.5)) p.retries = static_cast<uint8_t>(rng_());
  if (Chance(0.5)) p.fetch_interval = static_cast<uint8_t>(rng_());
  size_t r = Uniform(100);
  if (r < 40) {
    p.num_outlinks = 0;
  } else if (r < 97) {
    p.num_outlinks = static_cast<int32_t>(1 + Uniform(20));
  } else {
    p.num_outlinks = std::numeric_limits<int32_t>::max();
  }
  const float kScores[] = {0.0f, 1.0f, 0.5f, -3.25f, 1e30f, 1e-40f, 7.0f};
  if (Chance(0.6)) p.score = kScores[Uniform(std::size(kScores))];
  if (Chance(0.6)) p.next_score = kScores[Uniform(std::size(kScores))];
  return p;
}

Link SessionGenerator::RandomLink() {
  size_t r = Uniform(100);
  if (r < 85) return LinkTo(PickUrl());
  if (r < 95) return LinkTo(NewUrl());  // most likely no page there
  // A target sorting after every page.
  return LinkTo(
      fmt::format("{}{}", options_.hostile_bytes ? "\xff\xff\xff" : "~~~", next_url_id_++));
}

Link SessionGenerator::LinkTo(const std::string& url) {
  Link l;
  l.from = Chance(0.5) ? PickMd5() : webdb::Md5Of(PickUrl());
  l.url = url;
  l.domain_id = Chance(0.5) ? static_cast<int64_t>(rng_()) : static_cast<int64_t>(Uniform(5));
  l.anchor = RandomAnchor();
  l.target_has_outlink = Chance(0.5);  // must be ignored by the db
  return l;
}

std::string SessionGenerator::NewUrl() {
  uint64_t id = next_url_id_++;
  std::string url;
  size_t kind = Uniform(10);
  if (kind < 4 || urls_.empty()) {
    url = fmt::format("http://h{}.example/p{}", id % 7, id);
  } else if (kind < 6) {
    // Extends an existing url. Two draws, sequenced: the operands of + are not, and GCC
    // and clang evaluate them in opposite orders, which gave the seeds other sessions.
    std::string suffix = HostileSuffix();
    url = urls_[Uniform(urls_.size())] + suffix;
  } else if (kind < 8) {
    url = fmt::format("http://x.example/{}{}", id, HostileSuffix());
  } else if (kind < 9) {
    url = fmt::format("{}{}", options_.hostile_bytes ? "\xff\xff" : "~~", id);
  } else {
    url = std::string(1, static_cast<char>('a' + Uniform(3)));
  }
  if (url.size() > webdb::kMaxUrlLength) url.resize(webdb::kMaxUrlLength);
  if (Chance(options_.long_url_chance)) {
    url = fmt::format("http://long.example/{}/", id);
    url.resize(webdb::kMaxUrlLength, static_cast<char>('a' + id % 26));
  }
  return url;
}

std::string SessionGenerator::HostileSuffix() {
  std::string s;
  size_t pieces = 1 + Uniform(3);
  for (size_t i = 0; i < pieces; ++i) {
    if (options_.hostile_bytes) {
      s += kHostilePieces[Uniform(std::size(kHostilePieces))];
    } else {
      s += kPlainPieces[Uniform(std::size(kPlainPieces))];
    }
  }
  return s;
}

std::string SessionGenerator::RandomAnchor() {
  size_t n = Uniform(17);
  if (Chance(options_.long_anchor_chance)) n = webdb::kMaxAnchorLength;
  std::string s(n, 'x');
  for (char& c : s) {
    c = options_.hostile_bytes ? static_cast<char>(rng_()) : static_cast<char>(' ' + Uniform(95));
  }
  return s;
}

Md5 SessionGenerator::RandomMd5() {
  Md5 m;
  for (auto& b : m) b = static_cast<uint8_t>(rng_());
  return m;
}

// Mostly content from the shared pool; sometimes content nothing else has.
Md5 SessionGenerator::PickMd5() {
  if (md5s_.empty() || Chance(0.08)) return RandomMd5();
  return md5s_[Uniform(md5s_.size())];
}

const std::string& SessionGenerator::PickUrl() { return urls_[Uniform(urls_.size())]; }

void SessionGenerator::Churn() {
  for (auto& url : urls_) {
    if (Chance(options_.churn)) url = NewUrl();
  }
  for (auto& md5 : md5s_) {
    if (Chance(options_.churn)) md5 = RandomMd5();
  }
}

std::vector<Session> RoundSessions(uint64_t seed, size_t n, size_t universe_urls,
                                   size_t max_calls, size_t min_calls) {
  GenOptions o;
  o.universe_urls = universe_urls;
  o.max_calls = max_calls;
  o.hostile_bytes = false;
  SessionGenerator gen(seed, o);
  std::vector<Session> sessions;
  while (sessions.size() < n) {
    Session s = gen.Next();
    if (s.size() >= min_calls) sessions.push_back(std::move(s));
  }
  return sessions;
}

std::vector<Session> SplitSession(const Session& session, size_t k, std::mt19937_64& rng) {
  std::vector<size_t> cuts;
  std::uniform_int_distribution<size_t> pick(0, session.size());
  for (size_t i = 1; i < k; ++i) cuts.push_back(pick(rng));
  std::sort(cuts.begin(), cuts.end());
  cuts.push_back(session.size());
  std::vector<Session> slices;
  size_t begin = 0;
  for (size_t end : cuts) {
    slices.emplace_back(session.begin() + begin, session.begin() + end);
    begin = end;
  }
  return slices;
}

}  // namespace testutil
