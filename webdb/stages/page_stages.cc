// Stages 1 and 2: the page tables.
#include <optional>
#include <string>

#include "webdb/stages/key_merger.h"
#include "webdb/stages/stage_edits.h"
#include "webdb/stages/stages.h"

namespace webdb {
namespace {

// The winning call for one url: lowest kind, then earliest order (edits come sorted
// by order, so the first edit of the lowest kind).
const KeyEdit& Winner(const KeyMerger& m) {
  size_t best = 0;
  for (size_t i = 1; i < m.num_edits(); ++i) {
    if (m.edit(i).kind < m.edit(best).kind) best = i;
  }
  return m.edit(best);
}

// The page at url after the winning call; *inserted is set when an
// addPageIfNotPresent call inserted it.
Result<std::optional<Page>> ResolvePage(const std::optional<Page>& old, std::string_view url,
                                        const KeyEdit& winner, std::optional<Link>* inserted_link) {
  if (winner.kind == kDeletePage) return std::optional<Page>();
  if (winner.kind > kDeletePage) return Err(Status::Corruption("unknown page edit kind"));
  NUTCHFS_ASSIGN_OR_RETURN(PageCall call, DecodePageCall(url, winner.value));
  switch (winner.kind) {
    case kAddPage:
      if (old) {
        call.page.score = old->score;
        call.page.next_score = old->next_score;
      }
      return std::optional<Page>(std::move(call.page));
    case kAddPageWithScore:
      return std::optional<Page>(std::move(call.page));
    default:  // kAddPageIfNotPresent
      if (old) return old;
      *inserted_link = std::move(call.link);
      return std::optional<Page>(std::move(call.page));
  }
}

// Follows the md5s of pagesByMD5 keys met in key order and reports every md5 whose
// keys all went ("md5 gone").
class GoneMd5s {
 public:
  GoneMd5s(NoticeSink* sink, StageStats& stats) : sink_(sink), stats_(stats) {}

  // A key of md5 is met; ends the previous md5's keys if it differs. {} ends the last.
  void Enter(std::string_view md5) {
    if (md5 == md5_ && !md5.empty()) return;
    if (!kept_) {
      ++stats_.notices;
      if (sink_ != nullptr) sink_->Notice(md5_);
    }
    md5_.assign(md5);
    kept_ = false;
  }
  // A row of the current md5 stays.
  void Keep() { kept_ = true; }

 private:
  NoticeSink* const sink_;
  StageStats& stats_;
  std::string md5_;
  bool kept_ = true;  // nothing met yet
};

class PagesByUrlStage {
 public:
  PagesByUrlStage(uint64_t url_section, const PagesByUrlOutputs& out)
      : url_section_(url_section), out_(out) {}

  Status Apply(const KeyMerger& m) {
    if (m.num_edits() == 0) {  // unchanged: the row's bytes as they are
      ++stats.rows_out;
      return out_.table->Add(m.key(), m.row_value());
    }
    std::optional<Page> old;
    if (m.has_row()) {
      NUTCHFS_ASSIGN_OR_RETURN(old, DecodePageByUrl(m.key(), m.row_value()));
    }
    std::optional<Link> link;
    Result<std::optional<Page>> resolved = ResolvePage(old, m.key(), Winner(m), &link);
    if (!resolved) return RowError(TableId::kPagesByUrl, m.key(), resolved.error());
    const std::optional<Page>& page = *resolved;
    NUTCHFS_RETURN_IF_ERROR(EmitPageChange(old, page));
    if (link) NUTCHFS_RETURN_IF_ERROR(EmitInsertedLink(*link));
    if (!page) return Status::OK();
    return Write(*page);
  }

  StageStats stats;

 private:
  Status Write(const Page& page) {
    value_.clear();
    EncodePageByUrlValue(page, &value_);
    ++stats.rows_out;
    return out_.table->Add(page.url, value_);
  }

  Status EmitPageChange(const std::optional<Page>& old, const std::optional<Page>& page) {
    const bool old_out = old && old->num_outlinks > 0;
    const bool new_out = page && page->num_outlinks > 0;
    if (old.has_value() != page.has_value() || old_out != new_out) {
      ++stats.notices;
      if (out_.target_changes != nullptr) out_.target_changes->Notice(old ? old->url : page->url);
    }
    if (old && (!page || page->md5 != old->md5)) {
      NUTCHFS_RETURN_IF_ERROR(Emit(*out_.pages_by_md5, PageMd5Key(old->md5, old->url), kRemove, {}));
    }
    if (page && (!old || *page != *old)) {
      value_.clear();
      EncodePageByMd5Value(*page, &value_);
      NUTCHFS_RETURN_IF_ERROR(Emit(*out_.pages_by_md5, PageMd5Key(page->md5, page->url), kPut, value_));
    }
    return Status::OK();
  }

  Status EmitInsertedLink(const Link& link) {
    value_.clear();
    EncodeLinkValue(link, &value_);
    return Emit(*out_.links_by_md5, LinkMd5Key(link.from, link.url), kPut, value_,
                InsertedLinkOrder(url_section_, inserted_links_++));
  }

  Status Emit(EditSink& sink, std::string_view key, uint8_t kind, std::string_view value,
              uint64_t order = 0) {
    ++stats.emitted;
    return sink.Add(EditView{key, order, kind, value});
  }

  const uint64_t url_section_;
  const PagesByUrlOutputs out_;
  uint64_t inserted_links_ = 0;
  std::string value_;
};

}  // namespace

Result<StageStats> ApplyPagesByUrl(Iterator& old_rows, EditIterator& edits,
                                   uint64_t url_section, const PagesByUrlOutputs& out,
                                   bool seek) {
  KeyMerger m(old_rows, edits, /*copy_blocks=*/true);
  if (seek) m.SeekPastUnchanged(out.table, 0);
  PagesByUrlStage stage(url_section, out);
  while (m.Next()) {
    if (m.block() != nullptr) {
      NUTCHFS_RETURN_IF_ERROR(CopyBlock(*m.block(), *out.table, stage.stats));
      continue;
    }
    NUTCHFS_RETURN_IF_ERROR(stage.Apply(m));
    // After an unchanged row, the rows up to the next edit are unchanged too: copied as
    // they are stored.
    if (m.num_edits() == 0 && m.InStoredBlock()) {
      NUTCHFS_ASSIGN_OR_RETURN(uint64_t copied, m.MoveUnchangedRows(out.table));
      stage.stats.rows_out += copied;
    }
  }
  NUTCHFS_RETURN_IF_ERROR(m.status());
  stage.stats.edits_in = m.total_edits();
  return stage.stats;
}

Result<StageStats> ApplyPagesByMd5(Iterator& old_rows, EditIterator& edits, RowSink& table,
                                   NoticeSink* md5s_gone, bool seek) {
  KeyMerger m(old_rows, edits, /*copy_blocks=*/true);
  // An md5 is gone when all its rows are: the merge sees every row of an md5 it edits.
  if (seek) m.SeekPastUnchanged(&table, 16);
  StageStats stats;
  GoneMd5s gone(md5s_gone, stats);
  while (m.Next()) {
    if (const RawBlock* b = m.block()) {  // every row kept
      if (b->first_key.size() < 16 || b->last_key.size() < 16) {
        const std::string_view key = b->first_key.size() < 16 ? b->first_key : b->last_key;
        return Err(RowError(TableId::kPagesByMd5, key, Status::Corruption("short key")));
      }
      gone.Enter(Md5OfKey(b->first_key));
      gone.Keep();
      gone.Enter(Md5OfKey(b->last_key));
      gone.Keep();
      NUTCHFS_RETURN_IF_ERROR(CopyBlock(*b, table, stats));
      continue;
    }
    if (m.key().size() < 16) {
      return Err(RowError(TableId::kPagesByMd5, m.key(), Status::Corruption("short key")));
    }
    gone.Enter(Md5OfKey(m.key()));
    std::optional<std::string_view> value;
    if (m.has_row()) value = m.row_value();
    for (size_t i = 0; i < m.num_edits(); ++i) {
      const KeyEdit& e = m.edit(i);
      if (e.kind == kPut) {
        value = e.value;
      } else if (e.kind == kRemove) {
        value.reset();
      } else {
        return Err(RowError(TableId::kPagesByMd5, m.key(),
                            Status::Corruption("unknown edit kind " + std::to_string(e.kind))));
      }
    }
    if (!value) continue;
    gone.Keep();
    ++stats.rows_out;
    NUTCHFS_RETURN_IF_ERROR(table.Add(m.key(), *value));
  }
  NUTCHFS_RETURN_IF_ERROR(m.status());
  gone.Enter({});
  stats.edits_in = m.total_edits();
  return stats;
}

}  // namespace webdb
