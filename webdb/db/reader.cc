#include "webdb/db/reader.h"

#include <algorithm>
#include <array>

#include "webdb/db/manifest.h"
#include "webdb/db/manifest_table.h"
#include "webdb/db/version_pin.h"
#include "webdb/db/versions.h"

namespace webdb {
namespace {

// The tables of one version of a local db, pinned (version_pin.h) while it is open. The
// files stay open too, so on a local disk the version stays readable even if its files
// are deleted (a reader that cannot write its pin, on a read-only mount, relies on that).
class LocalTableSource final : public TableSource {
 public:
  static Result<std::unique_ptr<TableSource>> Open(nutchfs::Env& env, const std::string& dir,
                                                   std::optional<uint64_t> version) {
    NUTCHFS_ASSIGN_OR_RETURN(Manifest m, ReadKeptManifest(env, dir, version));
    auto source = std::make_unique<LocalTableSource>(m);
    auto pin = VersionPin::Create(env, dir, m.version);
    if (pin) {
      source->pin_ = std::move(*pin);
      // A collector that listed the pins before this one was made deletes only versions
      // it no longer keeps: still kept after the pin, the version is safe.
      auto still_kept = ReadKeptManifest(env, dir, m.version);
      if (!still_kept) return Err(still_kept.error());
    }
    for (int i = 0; i < kNumTables; ++i) {
      NUTCHFS_ASSIGN_OR_RETURN(source->tables_[i],
                               OpenLayeredTableOf(env, dir, m, static_cast<TableId>(i),
                                                  ManifestFileName(m.version)));
    }
    return std::unique_ptr<TableSource>(std::move(source));
  }

  explicit LocalTableSource(Manifest m) : manifest_(std::move(m)) {}

  std::unique_ptr<Iterator> NewIterator(TableId t) const override {
    return tables_[static_cast<int>(t)]->NewIterator();
  }
  uint64_t NumPages() const override { return manifest_.num_pages(); }
  uint64_t NumLinks() const override { return manifest_.num_links(); }
  TableSize Size(TableId t) const override { return SizeOf(manifest_, t); }

 private:
  const Manifest manifest_;
  std::unique_ptr<VersionPin> pin_;
  std::array<std::unique_ptr<LayeredTable>, kNumTables> tables_;
};

// Collects the decoded rows whose key starts with prefix.
template <typename Record, typename Decode>
Result<std::vector<Record>> ScanPrefix(Iterator& it, std::string_view prefix, Decode decode) {
  std::vector<Record> out;
  for (it.Seek(prefix); it.Valid() && it.key().starts_with(prefix); it.Next()) {
    NUTCHFS_ASSIGN_OR_RETURN(Record r, decode(it.key(), it.value()));
    out.push_back(std::move(r));
  }
  NUTCHFS_RETURN_IF_ERROR(it.status());
  return out;
}

// Moves a cursor's iterator to its next row: the first row on the first call. False at
// the end or on error (then the iterator's status says which).
bool StepCursor(Iterator& it, bool& started) {
  if (!started) {
    it.SeekToFirst();
    started = true;
  } else if (it.Valid()) {
    it.Next();
  }
  return it.Valid();
}

}  // namespace

TableSize SizeOf(const Manifest& m, TableId t) {
  uint64_t stored = m.run_records(t);
  for (const TableFile& f : m.table(t)) stored += f.records;
  return {m.records(t), m.bytes(t), m.runs_of(t).size(), stored};
}

TableSize Sum(const TableSize& a, const TableSize& b) {
  return {a.records + b.records, a.bytes + b.bytes, std::max(a.runs, b.runs),
          a.stored_records + b.stored_records};
}

PageCursor::PageCursor(std::unique_ptr<Iterator> it, TableId table)
    : it_(std::move(it)), table_(table) {}

Result<std::optional<Page>> PageCursor::Next() {
  if (!StepCursor(*it_, started_)) {
    NUTCHFS_RETURN_IF_ERROR(it_->status());
    return std::optional<Page>();
  }
  NUTCHFS_ASSIGN_OR_RETURN(Page p, DecodePage(table_, it_->key(), it_->value()));
  return std::optional<Page>(std::move(p));
}

LinkCursor::LinkCursor(std::unique_ptr<Iterator> it, TableId table)
    : it_(std::move(it)), table_(table) {}

Result<std::optional<Link>> LinkCursor::Next() {
  if (!StepCursor(*it_, started_)) {
    NUTCHFS_RETURN_IF_ERROR(it_->status());
    return std::optional<Link>();
  }
  NUTCHFS_ASSIGN_OR_RETURN(Link l, DecodeLink(table_, it_->key(), it_->value()));
  return std::optional<Link>(std::move(l));
}

Reader::Reader(std::unique_ptr<TableSource> source) : source_(std::move(source)) {}

Result<std::unique_ptr<Reader>> Reader::Open(nutchfs::Env& env, const std::string& dir,
                                             std::optional<uint64_t> version) {
  return OpenRetrying([&] { return LocalTableSource::Open(env, dir, version); });
}

Result<std::unique_ptr<Reader>> Reader::OpenRetrying(const OpenSourceFn& open) {
  constexpr int kAttempts = 5;
  Status last;
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    auto source = open();
    if (source) return std::make_unique<Reader>(std::move(*source));
    last = source.error();
    if (!last.IsNotFound()) break;
  }
  return Err(last);
}

Result<std::optional<Page>> Reader::GetPage(std::string_view url) const {
  auto it = source_->NewIterator(TableId::kPagesByUrl);
  it->Seek(url);
  if (!it->Valid() || it->key() != url) {
    NUTCHFS_RETURN_IF_ERROR(it->status());
    return std::optional<Page>();
  }
  NUTCHFS_ASSIGN_OR_RETURN(Page p, DecodePageByUrl(it->key(), it->value()));
  return std::optional<Page>(std::move(p));
}

Result<std::vector<Page>> Reader::GetPages(const Md5& md5) const {
  auto it = source_->NewIterator(TableId::kPagesByMd5);
  return ScanPrefix<Page>(*it, Md5Bytes(md5), DecodePageByMd5);
}

Result<bool> Reader::PageExists(const Md5& md5) const {
  auto it = source_->NewIterator(TableId::kPagesByMd5);
  it->Seek(Md5Bytes(md5));
  NUTCHFS_RETURN_IF_ERROR(it->status());
  return it->Valid() && it->key().starts_with(Md5Bytes(md5));
}

Result<std::vector<Link>> Reader::GetLinks(std::string_view url) const {
  auto it = source_->NewIterator(TableId::kLinksByUrl);
  std::string prefix(url);
  prefix.push_back('\0');
  return ScanPrefix<Link>(*it, prefix, DecodeLinkByUrl);
}

Result<std::vector<Link>> Reader::GetLinks(const Md5& md5) const {
  auto it = source_->NewIterator(TableId::kLinksByMd5);
  return ScanPrefix<Link>(*it, Md5Bytes(md5), DecodeLinkByMd5);
}

PageCursor Reader::Pages() const {
  return PageCursor(source_->NewIterator(TableId::kPagesByUrl), TableId::kPagesByUrl);
}
PageCursor Reader::PagesByMd5() const {
  return PageCursor(source_->NewIterator(TableId::kPagesByMd5), TableId::kPagesByMd5);
}
LinkCursor Reader::Links() const {
  return LinkCursor(source_->NewIterator(TableId::kLinksByUrl), TableId::kLinksByUrl);
}
LinkCursor Reader::LinksByMd5() const {
  return LinkCursor(source_->NewIterator(TableId::kLinksByMd5), TableId::kLinksByMd5);
}

std::unique_ptr<Iterator> Reader::NewTableIterator(TableId t) const {
  return source_->NewIterator(t);
}

uint64_t Reader::NumPages() const { return source_->NumPages(); }
uint64_t Reader::NumLinks() const { return source_->NumLinks(); }

}  // namespace webdb
