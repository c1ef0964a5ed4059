#include "webdb/inspect/cross_check.h"

#include <fmt/format.h>

#include <functional>

#include "webdb/sort/sorter.h"

namespace webdb {
namespace {

// Appends to *k and *v the row (key, value) as the other table of its pair stores it.
using Rekey = std::function<void(std::string_view key, std::string_view value, std::string* k,
                                 std::string* v)>;
// The inverse of a Rekey's key: the row's key in its own table, from the re-keyed row.
using Unkey = std::function<std::string(const EditView& rekeyed)>;

// A table of one version, read from the start; reading failures become findings.
struct Scan {
  Scan(const Reader& reader, TableId t, const CrossCheckOptions& options, FindingLog& log)
      : table(t), it(reader.NewTableIterator(t)), label(options.labels[static_cast<int>(t)]),
        file_of(options.file_of), log(log),
        progress(log.progress(), std::string("cross-check ") + TableName(t),
                 reader.Size(t).records) {
    it->SeekToFirst();
  }
  bool Valid() const { return it->Valid(); }
  void Next() {
    it->Next();
    ++rows;
    progress.Row();
  }
  std::string_view key() const { return it->key(); }
  std::string_view value() const { return it->value(); }
  // At the end of the scan.
  void Finish() const {
    if (!it->status().ok()) log.AddStatus(label, it->status());
  }
  // The file holding the row of this table with this key.
  std::string FileOf(std::string_view key) const { return file_of ? file_of(table, key) : label; }
  void Report(std::string_view key, std::string what) const {
    log.Add({FileOf(key), DescribeKey(table, key), std::move(what)});
  }

  const TableId table;
  std::unique_ptr<Iterator> it;
  const std::string& label;
  const std::function<std::string(TableId, std::string_view)>& file_of;
  FindingLog& log;
  RowProgress progress;
  uint64_t rows = 0;
};

// The rows of table `from`, re-keyed into the key order of another table, sorted.
Result<std::unique_ptr<EditIterator>> SortRekeyed(Sorter& sorter, Scan& from, const Rekey& rekey) {
  std::string key, value;
  for (; from.Valid(); from.Next()) {
    key.clear();
    value.clear();
    rekey(from.key(), from.value(), &key, &value);
    NUTCHFS_RETURN_IF_ERROR(sorter.Add(EditView{key, from.rows, 0, value}));
  }
  from.Finish();
  return sorter.Finish();
}

// Compares the sorted rows of `a` (in b's key order, same values) with the rows of b.
void CompareSets(EditIterator& a, const Scan& a_scan, const Unkey& unkey, Scan& b) {
  const std::string a_name = TableName(a_scan.table), b_name = TableName(b.table);
  std::string previous;
  bool first = true;
  while (a.Valid() || b.Valid()) {
    const EditView* e = a.Valid() ? &a.edit() : nullptr;
    if (e && !first && e->key == previous) {
      b.log.Add(
          {a_scan.FileOf(unkey(*e)), DescribeKey(b.table, e->key), "same record twice in " + a_name});
    }
    int c = !e ? 1 : !b.Valid() ? -1 : e->key.compare(b.key());
    if (c == 0 && e->value != b.value()) b.Report(b.key(), "record differs in " + a_name);
    if (c < 0) {
      b.log.Add(
          {a_scan.FileOf(unkey(*e)), DescribeKey(b.table, e->key), "record missing from " + b_name});
    }
    if (c > 0) b.Report(b.key(), "record missing from " + a_name);
    if (c <= 0) {
      previous.assign(e->key);
      first = false;
      a.Next();
    }
    if (c >= 0) b.Next();
  }
  b.Finish();
  if (!a.status().ok()) b.log.AddStatus(a_scan.label, a.status());
}

// Invariant 1 for one pair: the MD5 table re-keyed and sorted, merged with the URL table.
Status CheckSameRecords(const Reader& reader, TableId md5_table, TableId url_table,
                        const Rekey& rekey, const Unkey& unkey, const CrossCheckOptions& options,
                        FindingLog& log,
                        uint64_t* md5_rows, uint64_t* url_rows) {
  auto sorter = Sorter::Create(*options.tmp_env, options.tmp_dir, options.memory_budget,
                               fmt::format("verify-{}", TableName(md5_table)));
  Scan from(reader, md5_table, options, log);
  NUTCHFS_ASSIGN_OR_RETURN(auto sorted, SortRekeyed(*sorter, from, rekey));
  Scan to(reader, url_table, options, log);
  CompareSets(*sorted, from, unkey, to);
  *md5_rows = from.rows;
  *url_rows = to.rows;
  return Status::OK();
}

// Invariant 2: linksByMD5 and pagesByMD5 are both in md5 order.
void CheckSourceRule(const Reader& reader, const CrossCheckOptions& options, FindingLog& log) {
  Scan links(reader, TableId::kLinksByMd5, options, log);
  Scan pages(reader, TableId::kPagesByMd5, options, log);
  for (; links.Valid(); links.Next()) {
    std::string_view from = Md5OfKey(links.key());
    while (pages.Valid() && Md5OfKey(pages.key()) < from) pages.Next();
    if (!pages.Valid() || Md5OfKey(pages.key()) != from) {
      links.Report(links.key(), "no page has the link's from md5 (source rule)");
    }
  }
  links.Finish();
  pages.Finish();
}

// Invariants 3 and 4: linksByURL and pagesByURL are both in url order.
void CheckTargetRule(const Reader& reader, const CrossCheckOptions& options, FindingLog& log) {
  Scan links(reader, TableId::kLinksByUrl, options, log);
  Scan pages(reader, TableId::kPagesByUrl, options, log);
  for (; links.Valid(); links.Next()) {
    std::string_view url = UrlOfLinkUrlKey(links.key());
    while (pages.Valid() && pages.key() < url) pages.Next();
    if (!pages.Valid() || pages.key() != url) {
      links.Report(links.key(), "no page at the link's url (target rule)");
      continue;
    }
    auto page = DecodePageByUrl(pages.key(), pages.value());
    auto link = DecodeLinkByUrl(links.key(), links.value());
    if (page && link && link->target_has_outlink != (page->num_outlinks > 0)) {
      links.Report(links.key(), fmt::format("targetHasOutlink is {} but the target has {} outlinks",
                                            link->target_has_outlink, page->num_outlinks));
    }
  }
  links.Finish();
  pages.Finish();
}

bool Intact(const CrossCheckOptions& options, TableId a, TableId b) {
  return options.intact[static_cast<int>(a)] && options.intact[static_cast<int>(b)];
}

void CheckCount(const CrossCheckOptions& options, TableId t, std::string_view what,
                uint64_t counted, uint64_t rows, FindingLog& log) {
  if (counted == rows) return;
  log.Add({options.labels[static_cast<int>(t)], "",
           fmt::format("{} is {} but the table has {} rows", what, counted, rows)});
}

}  // namespace

Status CheckCrossTables(const Reader& reader, const CrossCheckOptions& options, FindingLog& log) {
  using enum TableId;
  if (Intact(options, kPagesByMd5, kPagesByUrl)) {
    uint64_t md5_rows = 0, url_rows = 0;
    NUTCHFS_RETURN_IF_ERROR(CheckSameRecords(
        reader, kPagesByMd5, kPagesByUrl,
        [](std::string_view key, std::string_view value, std::string* k, std::string* v) {
          k->append(key.substr(16));
          v->append(key.substr(0, 16));
          v->append(value);
        },
        [](const EditView& e) { return std::string(e.value.substr(0, 16)).append(e.key); },
        options, log, &md5_rows, &url_rows));
    CheckCount(options, kPagesByMd5, "numPages", reader.NumPages(), md5_rows, log);
    CheckCount(options, kPagesByUrl, "numPages", reader.NumPages(), url_rows, log);
  }
  if (Intact(options, kLinksByMd5, kLinksByUrl)) {
    uint64_t md5_rows = 0, url_rows = 0;
    NUTCHFS_RETURN_IF_ERROR(CheckSameRecords(
        reader, kLinksByMd5, kLinksByUrl,
        [](std::string_view key, std::string_view value, std::string* k, std::string* v) {
          k->append(key.substr(16));
          k->push_back('\0');
          k->append(key.substr(0, 16));
          v->append(value);
        },
        [](const EditView& e) {
          return std::string(e.key.substr(e.key.size() - 16))
              .append(e.key.substr(0, e.key.size() - 17));
        },
        options, log, &md5_rows, &url_rows));
    CheckCount(options, kLinksByMd5, "numLinks", reader.NumLinks(), md5_rows, log);
    CheckCount(options, kLinksByUrl, "numLinks", reader.NumLinks(), url_rows, log);
  }
  if (Intact(options, kLinksByMd5, kPagesByMd5)) CheckSourceRule(reader, options, log);
  if (Intact(options, kLinksByUrl, kPagesByUrl)) CheckTargetRule(reader, options, log);
  return Status::OK();
}

}  // namespace webdb
