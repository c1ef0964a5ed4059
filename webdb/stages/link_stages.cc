// Stages 3, 4 and 5: the link tables.
#include <optional>

#include "webdb/stages/key_merger.h"
#include "webdb/stages/stage_edits.h"
#include "webdb/stages/stages.h"
#include "webdb/util/coding.h"

namespace webdb {
namespace {

constexpr size_t kMd5Size = 16;

// A link value with its targetHasOutlink byte (always the last byte) replaced.
void SetFlag(std::string* value, bool flag) { value->back() = flag ? 1 : 0; }
bool FlagOf(std::string_view value) { return !value.empty() && value.back() == 1; }

// Answers "does the new table hold this key prefix?" for prefixes asked in increasing
// order, reading the table forward once, or with seek moving to each prefix by a seek
// (for a sparse stage, whose prefixes are few and far apart).
class ForwardProbe {
 public:
  ForwardProbe(Iterator& rows, bool seek) : rows_(rows), seek_(seek) { rows_.SeekToFirst(); }

  // True if some row's key starts with prefix (whole_key: equals it).
  bool HasPrefix(std::string_view prefix, bool whole_key) {
    if (seek_ && rows_.Valid() && rows_.key() < prefix) rows_.Seek(prefix);
    for (; rows_.Valid(); rows_.Next()) {
      const std::string_view k = rows_.key();
      const int order = CompareKeys(whole_key ? k : k.substr(0, prefix.size()), prefix);
      if (order >= 0) return order == 0;
    }
    return false;
  }
  std::string_view value() const { return rows_.value(); }
  Status status() const { return rows_.status(); }

 private:
  Iterator& rows_;
  const bool seek_;
};

// What stage 3 makes of one linksByMD5 key, for stage 3 (which emits what changed) and
// stage 5 (which recomputes it and writes it with its fix): the link the key holds after
// the additions (the last put wins, keeping the old row's flag, which stage 4 fixes), if
// the source rule keeps it.
class AddedLinks {
 public:
  AddedLinks(Iterator& new_pages_by_md5, bool seek) : sources_(new_pages_by_md5, seek) {}

  // The link of m's key, or nullopt if none stays; a view valid until the next call.
  // With fix non-null, edits of kinds kRemove and kSetFlag are stage 4's fixes and the
  // last one is returned there; otherwise every edit must be a put.
  Result<std::optional<std::string_view>> Resolve(const KeyMerger& m, const KeyEdit** fix) {
    if (m.key().size() <= kMd5Size) return Err(Error(m, "short key"));
    const KeyEdit* put = nullptr;
    for (size_t i = 0; i < m.num_edits(); ++i) {
      const KeyEdit& e = m.edit(i);
      if (e.kind == kPut && !e.value.empty()) {
        put = &e;
      } else if (fix != nullptr && (e.kind == kRemove || (e.kind == kSetFlag && e.value.size() == 1))) {
        *fix = &e;
      } else {
        return Err(Error(m, fix != nullptr ? "an edit neither a put nor a fix of stage 4"
                                           : "an edit that is not a put"));
      }
    }
    std::string_view link;
    if (put != nullptr) {
      changed_.assign(put->value);
      // Stage 4 sets the flag from the target page and sends a fix back wherever this
      // guess was wrong: a replaced link keeps its old row's flag (its target has not
      // changed, mostly), a new link is guessed to point at a page with outlinks (most
      // pages have some), so that few links need a fix.
      SetFlag(&changed_, m.has_row() ? FlagOf(m.row_value()) : true);
      link = changed_;
    } else if (m.has_row()) {
      link = m.row_value();  // unchanged: copied as bytes
    } else {
      return std::optional<std::string_view>();  // a fix alone
    }
    if (!sources_.HasPrefix(Md5OfKey(m.key()), /*whole_key=*/false)) {
      return std::optional<std::string_view>();
    }
    return std::optional<std::string_view>(link);
  }

  Status status() const { return sources_.status(); }

  // Corruption about the linksByMD5 row at m's key.
  static Status Error(const KeyMerger& m, std::string_view what) {
    return RowError(TableId::kLinksByMd5, m.key(), Status::Corruption(std::string(what)));
  }

 private:
  ForwardProbe sources_;
  std::string changed_;
};

Status EmitTo(EditSink& sink, std::string_view key, uint8_t kind, std::string_view value,
              StageStats& stats) {
  ++stats.emitted;
  return sink.Add(EditView{key, 0, kind, value});
}

}  // namespace

Result<StageStats> ApplyLinksByMd5(Iterator& old_rows, EditIterator& edits,
                                   Iterator& new_pages_by_md5, EditSink& links_by_url,
                                   JoinChanges* sources, bool seek) {
  // Blocks whose rows stay as they are tell linksByURL nothing: they are not even read.
  KeyMerger m(old_rows, edits, sources != nullptr, sources, /*skip_blocks=*/true);
  if (seek) m.SeekPastUnchanged(nullptr, 0);
  AddedLinks links(new_pages_by_md5, seek);
  StageStats stats;  // rows_out stays 0: stage 3 writes no table
  std::string key;  // of the edit emitted last
  while (m.Next()) {
    NUTCHFS_ASSIGN_OR_RETURN(std::optional<std::string_view> link, links.Resolve(m, nullptr));
    // Built only for an emitted edit: most rows of a round go out unchanged.
    auto url_key = [&m, &key] {
      SetLinkUrlKey(m.key().substr(kMd5Size), Md5FromBytes(Md5OfKey(m.key())), &key);
      return std::string_view(key);
    };
    if (!link) {
      if (m.has_row()) NUTCHFS_RETURN_IF_ERROR(EmitTo(links_by_url, url_key(), kRemove, {}, stats));
    } else {
      if (!m.has_row() || *link != m.row_value()) {
        NUTCHFS_RETURN_IF_ERROR(EmitTo(links_by_url, url_key(), kPut, *link, stats));
      }
    }
    // The rows after it that stay as they are tell linksByURL nothing. After an unchanged
    // row whose source stays, the source's next rows up to the next edit: moved past by
    // their lengths alone. Otherwise those up to the next edit or notice, decoded to find
    // it. Most rows of a round are such rows.
    if (link && m.has_row() && m.num_edits() == 0 && m.SkipRowsSharing(kMd5Size) > 0) continue;
    if (m.InStoredBlock()) {
      if (Result<uint64_t> moved = m.MoveUnchangedRows(nullptr); !moved) return Err(moved.error());
    }
  }
  NUTCHFS_RETURN_IF_ERROR(m.status());
  NUTCHFS_RETURN_IF_ERROR(links.status());
  stats.edits_in = m.total_edits();
  return stats;
}

Result<StageStats> ApplyLinksByUrl(Iterator& old_rows, EditIterator& edits,
                                   Iterator& new_pages_by_url, RowSink& table,
                                   EditSink& links_by_md5, JoinChanges* targets_changed,
                                   bool seek) {
  KeyMerger m(old_rows, edits, targets_changed != nullptr, targets_changed);
  if (seek) m.SeekPastUnchanged(&table, 0);
  ForwardProbe targets(new_pages_by_url, seek);
  StageStats stats;
  std::string changed;
  std::string key;  // of the edit emitted last
  const std::string flag_true(1, '\1'), flag_false(1, '\0');
  while (m.Next()) {
    if (m.block() != nullptr) {
      NUTCHFS_RETURN_IF_ERROR(CopyBlock(*m.block(), table, stats));
      continue;
    }
    if (m.key().size() <= kMd5Size + 1) {
      return Err(RowError(TableId::kLinksByUrl, m.key(), Status::Corruption("short key")));
    }
    // Views of the row or of the winning edit: nothing is copied unless the flag changes.
    std::optional<std::string_view> link;
    if (m.has_row()) link = m.row_value();
    for (size_t i = 0; i < m.num_edits(); ++i) {
      const KeyEdit& e = m.edit(i);
      if (e.kind == kPut && !e.value.empty()) {
        link = e.value;
      } else if (e.kind == kRemove) {
        link.reset();
      } else {
        return Err(RowError(TableId::kLinksByUrl, m.key(),
                            Status::Corruption("an edit neither a put nor a remove")));
      }
    }
    if (!link) continue;
    // linksByMD5 now holds exactly `link` under this key: emit what it must change.
    const std::string_view url = UrlOfLinkUrlKey(m.key());
    auto md5_key = [&m, url, &key] {  // built only for an emitted edit
      SetLinkMd5Key(Md5FromBytes(m.key().substr(m.key().size() - kMd5Size)), url, &key);
      return std::string_view(key);
    };
    if (!targets.HasPrefix(url, /*whole_key=*/true)) {
      NUTCHFS_RETURN_IF_ERROR(EmitTo(links_by_md5, md5_key(), kRemove, {}, stats));
      continue;
    }
    NUTCHFS_ASSIGN_OR_RETURN(bool flag, HasOutlinks(targets.value()));
    if (FlagOf(*link) != flag) {
      changed.assign(*link);
      SetFlag(&changed, flag);
      link = changed;
      NUTCHFS_RETURN_IF_ERROR(
          EmitTo(links_by_md5, md5_key(), kSetFlag, flag ? flag_true : flag_false, stats));
    }
    ++stats.rows_out;
    NUTCHFS_RETURN_IF_ERROR(table.Add(m.key(), *link));
    // The rows after it up to the next edit or notice stay as they are: copied as stored.
    if (m.InStoredBlock()) {
      NUTCHFS_ASSIGN_OR_RETURN(uint64_t copied, m.MoveUnchangedRows(&table));
      stats.rows_out += copied;
    }
  }
  NUTCHFS_RETURN_IF_ERROR(m.status());
  NUTCHFS_RETURN_IF_ERROR(targets.status());
  stats.edits_in = m.total_edits();
  return stats;
}

Result<StageStats> ApplyLinkFixes(Iterator& old_rows, EditIterator& edits,
                                  Iterator& new_pages_by_md5, RowSink& table,
                                  JoinChanges* sources, bool seek) {
  KeyMerger m(old_rows, edits, /*copy_blocks=*/true, sources);
  if (seek) m.SeekPastUnchanged(&table, 0);
  AddedLinks links(new_pages_by_md5, seek);
  StageStats stats;
  std::string fixed;
  while (m.Next()) {
    if (m.block() != nullptr) {
      NUTCHFS_RETURN_IF_ERROR(CopyBlock(*m.block(), table, stats));
      continue;
    }
    const KeyEdit* fix = nullptr;
    NUTCHFS_ASSIGN_OR_RETURN(std::optional<std::string_view> link, links.Resolve(m, &fix));
    if (fix != nullptr && !link) {
      return Err(AddedLinks::Error(m, "a fix of stage 4 for a link the table does not hold"));
    }
    if (!link || (fix != nullptr && fix->kind == kRemove)) continue;
    if (fix != nullptr) {
      fixed.assign(*link);
      SetFlag(&fixed, fix->value[0] == 1);
      link = fixed;
    }
    ++stats.rows_out;
    NUTCHFS_RETURN_IF_ERROR(table.Add(m.key(), *link));
    // The rows after it up to the next edit or notice stay as they are: copied as stored.
    if (m.InStoredBlock()) {
      NUTCHFS_ASSIGN_OR_RETURN(uint64_t copied, m.MoveUnchangedRows(&table));
      stats.rows_out += copied;
    }
  }
  NUTCHFS_RETURN_IF_ERROR(m.status());
  NUTCHFS_RETURN_IF_ERROR(links.status());
  stats.edits_in = m.total_edits();
  return stats;
}

}  // namespace webdb
