#include "test/util/model.h"

#include <algorithm>
#include <set>
#include <tuple>

namespace testutil {

using webdb::Link;
using webdb::Md5;
using webdb::Page;
using Op = Call::Op;

void Model::Apply(const Session& session) {
  std::vector<Link> apinp_links = ApplyPageWinners(session, PageWinners(session));
  AddLinks(session, apinp_links);
  ApplySourceAndTargetRules();
}

std::map<std::string, size_t> Model::PageWinners(const Session& session) {
  std::map<std::string, size_t> winners;
  for (size_t i = 0; i < session.size(); ++i) {
    const Call& c = session[i];
    if (c.op == Op::kAddLink) continue;
    auto [it, inserted] = winners.emplace(PageUrl(c), i);
    // Lowest rank wins; equal ranks keep the earlier call, which is already there.
    if (!inserted && PageRank(c.op) < PageRank(session[it->second].op)) it->second = i;
  }
  return winners;
}

std::vector<Link> Model::ApplyPageWinners(const Session& session,
                                          const std::map<std::string, size_t>& winners) {
  const std::map<std::string, Page> p0 = pages_;
  std::vector<Link> apinp_links;
  for (const auto& [url, index] : winners) {  // url order
    const Call& c = session[index];
    auto old = p0.find(url);
    bool existed = old != p0.end();
    switch (c.op) {
      case Op::kAddPage: {
        Page p = c.page;
        if (existed) {
          p.score = old->second.score;
          p.next_score = old->second.next_score;
        }
        pages_[url] = p;
        break;
      }
      case Op::kAddPageWithScore:
        pages_[url] = c.page;
        break;
      case Op::kAddPageIfNotPresent:
        if (existed) break;
        pages_[url] = c.page;
        if (c.link) apinp_links.push_back(*c.link);
        break;
      case Op::kDeletePage:
        pages_.erase(url);
        break;
      case Op::kAddLink:
        break;
    }
  }
  return apinp_links;
}

void Model::AddLinks(const Session& session, const std::vector<Link>& apinp_links) {
  // Last addition per key wins: plain assignment in addition order.
  for (const Call& c : session) {
    if (c.op == Op::kAddLink) links_[{c.link->from, c.link->url}] = *c.link;
  }
  for (const Link& l : apinp_links) links_[{l.from, l.url}] = l;
}

void Model::ApplySourceAndTargetRules() {
  std::set<Md5> md5s;
  for (const auto& [url, p] : pages_) md5s.insert(p.md5);
  for (auto it = links_.begin(); it != links_.end();) {
    auto target = pages_.find(it->first.second);
    if (!md5s.count(it->first.first) || target == pages_.end()) {
      it = links_.erase(it);
      continue;
    }
    it->second.target_has_outlink = target->second.num_outlinks > 0;
    ++it;
  }
}

std::vector<Page> Model::PagesByUrl() const {
  std::vector<Page> out;
  for (const auto& [url, p] : pages_) out.push_back(p);
  return out;
}

std::vector<Page> Model::PagesByMd5() const {
  std::vector<Page> out = PagesByUrl();
  std::stable_sort(out.begin(), out.end(), [](const Page& a, const Page& b) {
    return std::tie(a.md5, a.url) < std::tie(b.md5, b.url);
  });
  return out;
}

std::vector<Link> Model::LinksByMd5() const {
  std::vector<Link> out;
  for (const auto& [key, l] : links_) out.push_back(l);
  return out;
}

std::vector<Link> Model::LinksByUrl() const {
  std::vector<Link> out = LinksByMd5();
  std::sort(out.begin(), out.end(), [](const Link& a, const Link& b) {
    return std::tie(a.url, a.from) < std::tie(b.url, b.from);
  });
  return out;
}

DbDump Model::ToDump() const {
  DbDump d;
  d.pages_by_url = PagesByUrl();
  d.pages_by_md5 = PagesByMd5();
  d.links_by_md5 = LinksByMd5();
  d.links_by_url = LinksByUrl();
  d.num_pages = pages_.size();
  d.num_links = links_.size();
  return d;
}

std::optional<Page> Model::GetPage(const std::string& url) const {
  auto it = pages_.find(url);
  if (it == pages_.end()) return std::nullopt;
  return it->second;
}

std::vector<Page> Model::GetPages(const Md5& md5) const {
  std::vector<Page> out;
  for (const auto& [url, p] : pages_) {
    if (p.md5 == md5) out.push_back(p);
  }
  return out;
}

bool Model::PageExists(const Md5& md5) const { return !GetPages(md5).empty(); }

std::vector<Link> Model::Inlinks(const std::string& url) const {
  std::vector<Link> out;
  for (const auto& [key, l] : links_) {
    if (key.second == url) out.push_back(l);
  }
  return out;  // map order is (from, url), so these are in from order
}

std::vector<Link> Model::Outlinks(const Md5& md5) const {
  std::vector<Link> out;
  for (auto it = links_.lower_bound({md5, std::string()}); it != links_.end(); ++it) {
    if (it->first.first != md5) break;
    out.push_back(it->second);
  }
  return out;
}

}  // namespace testutil
