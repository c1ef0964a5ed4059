#include "webdb/explain.h"

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
  NUTCHFS_RETURN_IF_ERROR(RankDue(reader, e.page, now_ms, &e));
  return e;
}

}  // namespace webdb
