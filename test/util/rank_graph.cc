#include "test/util/rank_graph.h"

#include <fmt/format.h>

#include <cmath>
#include <random>
#include <set>

namespace testutil {

using webdb::Link;
using webdb::Md5;
using webdb::Page;

namespace {

Md5 ContentMd5(int content) { return webdb::Md5Of(fmt::format("content {}", content)); }

}  // namespace

Session RankGraph::ToSession() const {
  Session s;
  for (const PageSpec& p : pages) {
    Page page = Page::WithDefaults(p.url);
    page.md5 = ContentMd5(p.content);
    page.score = page.next_score = p.score;
    s.push_back(AddPageWithScoreCall(page));
  }
  for (const auto& [content, url] : links) {
    Link l;
    l.from = ContentMd5(content);
    l.url = url;
    s.push_back(AddLinkCall(l));
  }
  return s;
}

RankGraph RankGraph::Random(uint64_t seed, int pages, int contents, int max_links, bool scores) {
  std::mt19937_64 rng(seed);
  RankGraph g;
  std::vector<std::vector<std::string>> urls_of(contents);
  for (int i = 0; i < pages; ++i) {
    const int content = static_cast<int>(rng() % contents);
    const std::string url = fmt::format("http://p{}.example/", i);
    const float score = scores ? static_cast<float>(rng() % 3000) / 1000 : 1.0f;
    g.pages.push_back({url, content, score});
    urls_of[content].push_back(url);
  }
  for (int c = 0; c < contents; ++c) {
    if (urls_of[c].empty()) continue;  // a content no page has cannot link
    std::set<std::string> targets;
    const int n = static_cast<int>(rng() % (max_links + 1));
    for (int j = 0; j < n; ++j) {
      // Now and then one of its own urls: a self-link for that page.
      targets.insert(rng() % 8 == 0 ? urls_of[c][rng() % urls_of[c].size()]
                                    : g.pages[rng() % pages].url);
    }
    for (const std::string& t : targets) g.links.emplace_back(c, t);
  }
  return g;
}

ReferenceRank RankByDefinition(const DbDump& dump, const webdb::RankOptions& options) {
  const std::vector<Page>& pages = dump.pages_by_url;
  const size_t n = pages.size();
  std::map<std::string, size_t> index;
  for (size_t i = 0; i < n; ++i) index[pages[i].url] = i;
  std::map<Md5, std::vector<size_t>> targets_of_md5;
  for (const Link& l : dump.links_by_md5) targets_of_md5[l.from].push_back(index.at(l.url));
  std::vector<std::vector<size_t>> out(n);
  for (size_t u = 0; u < n; ++u) {
    for (size_t t : targets_of_md5[pages[u].md5]) {
      if (t != u) out[u].push_back(t);
    }
  }
  std::vector<double> r(n);
  for (size_t i = 0; i < n; ++i) r[i] = pages[i].score;
  ReferenceRank result;
  const double d = options.damping;
  for (uint32_t k = 1; k <= options.iterations; ++k) {
    double dangling = 0;
    std::vector<double> in(n, 0);
    for (size_t u = 0; u < n; ++u) {
      if (out[u].empty()) dangling += r[u];
      for (size_t t : out[u]) in[t] += r[u] / out[u].size();
    }
    double l1 = 0;
    for (size_t t = 0; t < n; ++t) {
      const double next = (1 - d) + d * (in[t] + dangling / n);
      l1 += std::fabs(next - r[t]);
      r[t] = next;
    }
    result.done = k;
    result.l1 = l1;
    if (l1 < options.epsilon * n) break;
  }
  for (size_t i = 0; i < n; ++i) result.scores[pages[i].url] = r[i];
  return result;
}

std::string CompareScores(const ReferenceRank& expected, const DbDump& dump, double tolerance) {
  if (expected.scores.size() != dump.pages_by_url.size()) {
    return fmt::format("{} pages, the reference has {}", dump.pages_by_url.size(),
                       expected.scores.size());
  }
  for (const Page& p : dump.pages_by_url) {
    auto it = expected.scores.find(p.url);
    if (it == expected.scores.end()) return p.url + ": not in the reference";
    if (!(std::fabs(p.score - it->second) <= tolerance) || p.next_score != p.score) {
      return fmt::format("{}: score {} nextScore {}, the reference {}", p.url, p.score,
                         p.next_score, it->second);
    }
  }
  return "";
}

}  // namespace testutil
