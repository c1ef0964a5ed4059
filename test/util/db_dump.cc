#include "test/util/db_dump.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "test/util/session.h"

namespace testutil {
namespace {

using webdb::Link;
using webdb::Page;

template <typename Cursor, typename T>
webdb::Status Drain(Cursor cursor, std::vector<T>* out) {
  while (true) {
    auto next = cursor.Next();
    if (!next) return next.error();
    if (!next->has_value()) return webdb::Status::OK();
    out->push_back(std::move(**next));
  }
}

std::string Fmt(const Page& p) { return FormatPage(p); }
std::string Fmt(const Link& l) { return FormatLink(l); }

template <typename T>
std::string CompareTable(const char* table, const std::vector<T>& expected,
                         const std::vector<T>& actual) {
  size_t n = std::max(expected.size(), actual.size());
  for (size_t i = 0; i < n; ++i) {
    bool has_e = i < expected.size(), has_a = i < actual.size();
    if (has_e && has_a && expected[i] == actual[i]) continue;
    return fmt::format(
        "{} differs at index {} (expected {} records, got {}):\n  expected: {}\n"
        "  actual:   {}",
        table, i, expected.size(), actual.size(), has_e ? Fmt(expected[i]) : "<end>",
        has_a ? Fmt(actual[i]) : "<end>");
  }
  return "";
}

auto UrlKey(const Page& p) { return std::tie(p.url); }
auto Md5Key(const Page& p) { return std::tie(p.md5, p.url); }
auto FromKey(const Link& l) { return std::tie(l.from, l.url); }
auto TargetKey(const Link& l) { return std::tie(l.url, l.from); }

// Strict increase of key(record) through the table.
template <typename T, typename KeyFn>
std::string CheckOrder(const char* table, const std::vector<T>& rows, KeyFn key) {
  for (size_t i = 1; i < rows.size(); ++i) {
    if (!(key(rows[i - 1]) < key(rows[i]))) {
      return fmt::format("{} not strictly ordered at index {}:\n  {}\n  {}", table, i,
                         Fmt(rows[i - 1]), Fmt(rows[i]));
    }
  }
  return "";
}

// Same record set: the second table re-sorted into the first one's order must equal it.
template <typename T, typename KeyFn>
std::string CheckSameSet(const char* a_name, const std::vector<T>& a, const char* b_name,
                         std::vector<T> b, KeyFn a_key) {
  std::sort(b.begin(), b.end(), [&](const T& x, const T& y) { return a_key(x) < a_key(y); });
  std::string diff = CompareTable(a_name, a, b);
  if (diff.empty()) return "";
  return fmt::format("invariant 1: {} and {} hold different records; {} re-sorted vs {}: {}",
                     a_name, b_name, b_name, a_name, diff);
}

std::string CheckLinkRules(const DbDump& d) {
  std::set<webdb::Md5> md5s;
  std::map<std::string, int32_t> outlinks_of_url;
  for (const Page& p : d.pages_by_url) {
    md5s.insert(p.md5);
    outlinks_of_url[p.url] = p.num_outlinks;
  }
  for (const Link& l : d.links_by_md5) {
    if (!md5s.count(l.from)) return "invariant 2: link without source content: " + Fmt(l);
    auto it = outlinks_of_url.find(l.url);
    if (it == outlinks_of_url.end()) return "invariant 3: link to a url without page: " + Fmt(l);
    if (l.target_has_outlink != (it->second > 0)) {
      return fmt::format("invariant 4: flag wrong (target numOutlinks {}): {}", it->second, Fmt(l));
    }
  }
  return "";
}

}  // namespace

webdb::Result<DbDump> DumpDb(const webdb::Reader& reader) {
  DbDump d;
  NUTCHFS_RETURN_IF_ERROR(Drain(reader.Pages(), &d.pages_by_url));
  NUTCHFS_RETURN_IF_ERROR(Drain(reader.PagesByMd5(), &d.pages_by_md5));
  NUTCHFS_RETURN_IF_ERROR(Drain(reader.LinksByMd5(), &d.links_by_md5));
  NUTCHFS_RETURN_IF_ERROR(Drain(reader.Links(), &d.links_by_url));
  d.num_pages = reader.NumPages();
  d.num_links = reader.NumLinks();
  return d;
}

std::string CompareDumps(const DbDump& expected, const DbDump& actual) {
  std::string diff = CompareTable("pagesByURL", expected.pages_by_url, actual.pages_by_url);
  if (diff.empty()) diff = CompareTable("pagesByMD5", expected.pages_by_md5, actual.pages_by_md5);
  if (diff.empty()) diff = CompareTable("linksByMD5", expected.links_by_md5, actual.links_by_md5);
  if (diff.empty()) diff = CompareTable("linksByURL", expected.links_by_url, actual.links_by_url);
  if (!diff.empty()) return diff;
  if (expected.num_pages != actual.num_pages || expected.num_links != actual.num_links) {
    return fmt::format(
        "counts differ: expected numPages={} numLinks={}, got numPages={} "
        "numLinks={}",
        expected.num_pages, expected.num_links, actual.num_pages, actual.num_links);
  }
  return "";
}

std::string CheckInvariants(const DbDump& d) {
  std::string e = CheckOrder("pagesByURL", d.pages_by_url, UrlKey);
  if (e.empty()) e = CheckOrder("pagesByMD5", d.pages_by_md5, Md5Key);
  if (e.empty()) e = CheckOrder("linksByMD5", d.links_by_md5, FromKey);
  if (e.empty()) e = CheckOrder("linksByURL", d.links_by_url, TargetKey);
  if (e.empty()) {
    e = CheckSameSet("pagesByURL", d.pages_by_url, "pagesByMD5", d.pages_by_md5, UrlKey);
  }
  if (e.empty()) {
    e = CheckSameSet("linksByMD5", d.links_by_md5, "linksByURL", d.links_by_url, FromKey);
  }
  if (e.empty()) e = CheckLinkRules(d);
  if (e.empty() && (d.num_pages != d.pages_by_url.size() || d.num_links != d.links_by_md5.size())) {
    e = fmt::format("invariant 5: numPages={} numLinks={} but tables hold {} pages, {} links",
                    d.num_pages, d.num_links, d.pages_by_url.size(), d.links_by_md5.size());
  }
  return e;
}

}  // namespace testutil
