#include "webdb/inspect/explain.h"

#include <fmt/format.h>

#include <algorithm>

namespace webdb {
namespace {

// True when a is picked before b by generate: higher score first, then lower url.
bool PickedBefore(const Page& a, const Page& b) {
  return a.score > b.score || (a.score == b.score && a.url < b.url);
}

// Counts the due pages and, when page is due, its 1-based rank among them.
Status RankDue(const Reader& reader, const std::optional<Page>& page, int64_t now_ms,
               Explanation* e) {
  PageCursor pages = reader.Pages();
  uint64_t before = 0;
  for (;;) {
    NUTCHFS_ASSIGN_OR_RETURN(auto p, pages.Next());
    if (!p) break;
    if (p->next_fetch > now_ms) continue;
    ++e->due_pages;
    if (page && PickedBefore(*p, *page)) ++before;
  }
  e->due = page && page->next_fetch <= now_ms;
  e->rank = e->due ? before + 1 : 0;
  return Status::OK();
}

// What the content of inlink l gives url.
Result<Contribution> ContributionOf(const Reader& reader, const Link& l, std::string_view url) {
  NUTCHFS_ASSIGN_OR_RETURN(std::vector<Page> pages, reader.GetPages(l.from));
  NUTCHFS_ASSIGN_OR_RETURN(std::vector<Link> links, reader.GetLinks(l.from));
  Contribution c{l.from, 0, {}, 0};
  for (const Page& u : pages) {
    if (u.url == url) continue;
    // links are in url order; a page's link to its own url does not count.
    auto at = std::lower_bound(links.begin(), links.end(), u.url,
                               [](const Link& a, const std::string& b) { return a.url < b; });
    const bool self = at != links.end() && at->url == u.url;
    const size_t outdeg = links.size() - (self ? 1 : 0);
    if (outdeg == 0) continue;
    if (c.pages++ == 0) c.first_url = u.url;
    c.share += static_cast<double>(u.score) / static_cast<double>(outdeg);
  }
  return c;
}

// The largest contributions to url, of its inlinks'.
Status TopContributions(const Reader& reader, std::string_view url, Explanation* e) {
  std::vector<Contribution>& top = e->top_contributions;
  for (const Link& l : e->inlinks) {
    NUTCHFS_ASSIGN_OR_RETURN(Contribution c, ContributionOf(reader, l, url));
    if (c.pages == 0) continue;
    top.push_back(std::move(c));
    std::sort(top.begin(), top.end(), [](const Contribution& a, const Contribution& b) {
      return a.share > b.share || (a.share == b.share && a.from < b.from);
    });
    if (top.size() > kTopContributions) top.pop_back();
  }
  return Status::OK();
}

}  // namespace

Result<Explanation> Explain(const Reader& reader, std::string_view url, int64_t now_ms) {
  Explanation e;
  NUTCHFS_ASSIGN_OR_RETURN(e.page, reader.GetPage(url));
  NUTCHFS_ASSIGN_OR_RETURN(e.inlinks, reader.GetLinks(url));
  if (e.page) {
    NUTCHFS_ASSIGN_OR_RETURN(std::vector<Page> pages, reader.GetPages(e.page->md5));
    for (Page& p : pages) {
      if (p.url != url) e.same_md5.push_back(std::move(p));
    }
    NUTCHFS_ASSIGN_OR_RETURN(e.outlinks, reader.GetLinks(e.page->md5));
  }
  NUTCHFS_RETURN_IF_ERROR(TopContributions(reader, url, &e));
  NUTCHFS_RETURN_IF_ERROR(RankDue(reader, e.page, now_ms, &e));
  return e;
}

namespace {

// The links of url in one version: its inlinks and the outlinks of its content.
Result<std::vector<std::pair<Link, bool>>> LinksOf(const Reader& reader, std::string_view url,
                                                   const std::optional<Page>& page) {
  std::vector<std::pair<Link, bool>> links;
  NUTCHFS_ASSIGN_OR_RETURN(std::vector<Link> in, reader.GetLinks(url));
  for (Link& l : in) links.emplace_back(std::move(l), false);
  if (page) {
    NUTCHFS_ASSIGN_OR_RETURN(std::vector<Link> out, reader.GetLinks(page->md5));
    for (Link& l : out) links.emplace_back(std::move(l), true);
  }
  return links;
}

bool HasLink(const std::vector<std::pair<Link, bool>>& links, const Link& l) {
  for (const auto& [have, outlink] : links) {
    if (have.from == l.from && have.url == l.url) return true;
  }
  return false;
}

std::string WhyPageGone(const VersionRecord& last, const KeptVersion& gone) {
  if (gone.restores > 0) {
    return fmt::format("version {} is a rollback to version {}, which had no page here",
                       gone.version, gone.restores);
  }
  std::string why = fmt::format("deletePage in the session that made version {}", gone.version);
  if (last.page->retries > 0) {
    why += fmt::format(
        " (its last page had {} failed fetches: webdb update deletes a page whose fetch fails "
        "again after --max-retries, default 3)",
        last.page->retries);
  }
  return why;
}

// Why link l of the url is not one of its links in version `gone`, where the url's page
// is `page`.
Result<std::string> WhyLinkGone(const Link& l, bool outlink, const std::optional<Page>& page,
                                const KeptVersion& gone) {
  if (gone.restores > 0) {
    return fmt::format("version {} is a rollback to version {}, which did not have it",
                       gone.version, gone.restores);
  }
  if (outlink && page && page->md5 != l.from) {
    return fmt::format("the page's content changed to {} in version {}: a link of its old content",
                       Md5Hex(page->md5), gone.version);
  }
  NUTCHFS_ASSIGN_OR_RETURN(bool source, gone.reader->PageExists(l.from));
  if (!source) {
    return fmt::format("source rule: no page has content {} in version {}", Md5Hex(l.from),
                       gone.version);
  }
  NUTCHFS_ASSIGN_OR_RETURN(auto target, gone.reader->GetPage(l.url));
  if (!target) return fmt::format("target rule: no page at its url in version {}", gone.version);
  if (outlink && !page) return fmt::format("the page is gone in version {}", gone.version);
  return fmt::format("gone in version {}", gone.version);
}

}  // namespace

Result<History> ExplainHistory(const std::vector<KeptVersion>& versions, std::string_view url) {
  History h;
  std::vector<std::vector<std::pair<Link, bool>>> links;
  for (const KeptVersion& v : versions) {
    NUTCHFS_ASSIGN_OR_RETURN(auto page, v.reader->GetPage(url));
    NUTCHFS_ASSIGN_OR_RETURN(auto of, LinksOf(*v.reader, url, page));
    h.versions.push_back({v.version, v.restores, std::move(page)});
    links.push_back(std::move(of));
  }
  const size_t n = h.versions.size();
  for (size_t i = n; i-- > 0;) {
    if (!h.versions[i].page || (i > 0 && h.versions[i - 1].page)) continue;
    h.appeared = i == 0 ? fmt::format("in version {} or before (the oldest kept)",
                                      h.versions[0].version)
                        : fmt::format("in version {}", h.versions[i].version);
    break;
  }
  for (size_t i = n - 1; i-- > 0 && !h.versions[n - 1].page;) {
    if (!h.versions[i].page) continue;
    h.removed = WhyPageGone(h.versions[i], versions[i + 1]);
    break;
  }
  // Each link the explained version lacks, from the last version that had it.
  for (size_t i = n - 1; i-- > 0;) {
    for (const auto& [link, outlink] : links[i]) {
      if (HasLink(links[n - 1], link) || HasLink(links[i + 1], link)) continue;
      bool listed = false;
      for (const GoneLink& g : h.gone_links) {
        listed = listed || (g.link.from == link.from && g.link.url == link.url);
      }
      if (listed) continue;
      NUTCHFS_ASSIGN_OR_RETURN(
          std::string why, WhyLinkGone(link, outlink, h.versions[i + 1].page, versions[i + 1]));
      h.gone_links.push_back(
          {link, outlink, h.versions[i].version, h.versions[i + 1].version, std::move(why)});
    }
  }
  return h;
}

}  // namespace webdb
