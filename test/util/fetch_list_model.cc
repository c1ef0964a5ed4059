#include "test/util/fetch_list_model.h"

#include <algorithm>
#include <map>

#include "crawl/domain.h"
#include "crawl/url.h"

namespace testutil {

std::vector<webdb::Page> RandomPages(std::mt19937_64& rng, const RandomPagesOptions& options) {
  const int64_t fetch_times[] = {0, kFetchListNow - 1, kFetchListNow, kFetchListNow + 1,
                                 int64_t{1} << 62};
  const float scores[] = {0.5f, 1.0f, 1.0f, 2.0f, -1.0f, 0.0f, 7.25f};
  std::vector<webdb::Page> pages;
  for (int i = 0; i < options.pages; ++i) {
    // One draw a statement: the operands of + are unsequenced (compilers differ).
    const int host = static_cast<int>(rng() % options.hosts);
    const char* tld = host % 4 == 0 ? ".co.uk" : "";
    const size_t padding = options.max_padding > 0 ? rng() % (options.max_padding + 1) : 0;
    const std::string domain = std::to_string(host % ((options.hosts + 1) / 2));
    webdb::Page p =
        webdb::Page::WithDefaults("http://h" + std::to_string(host) + ".d" + domain + ".example" +
                                  tld + "/p" + std::to_string(i) + std::string(padding, 'x'));
    p.next_fetch = options.all_due ? fetch_times[rng() % 3] : fetch_times[rng() % 5];
    p.score = scores[rng() % 7];
    pages.push_back(p);
  }
  return pages;
}

std::vector<std::string> ExpectedFetchList(std::vector<webdb::Page> pages,
                                           const crawl::GenerateOptions& options) {
  std::sort(pages.begin(), pages.end(), [](const webdb::Page& a, const webdb::Page& b) {
    return a.score != b.score ? a.score > b.score : a.url < b.url;
  });
  std::map<std::string, uint64_t> per_group;
  std::vector<std::string> out;
  for (const auto& p : pages) {
    if (p.next_fetch > options.now_ms || out.size() >= options.top_n) continue;
    std::string group = options.group_by == crawl::GenerateOptions::GroupBy::kHost
                            ? std::string(crawl::HostOfUrl(p.url))
                            : crawl::RegistrableDomain(crawl::HostOfUrl(p.url));
    if (options.max_per_group > 0 && per_group[group]++ >= options.max_per_group) continue;
    out.push_back(p.url);
  }
  return out;
}

}  // namespace testutil
