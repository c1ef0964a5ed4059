#include "webdb/stages/key_merger.h"

#include "webdb/util/coding.h"

namespace webdb {

KeyMerger::KeyMerger(Iterator& rows, EditIterator& edits, bool copy_blocks,
                     JoinChanges* changes, bool skip_blocks)
    : rows_(rows),
      edits_(edits),
      copy_blocks_(copy_blocks),
      skip_blocks_(skip_blocks),
      stable_edits_(edits.views_stable()),
      changes_(changes) {
  rows_.SeekToFirst();
}

void KeyMerger::SeekPastUnchanged(RowSink* kept, size_t group) {
  seek_ = true;
  kept_ = kept;
  group_ = group;
}

// The rows from the current one up to the next edit's key (cut to the group) and the
// next notice are unchanged: kept unread, and moved past by one seek.
bool KeyMerger::SeekToChange() {
  const std::string_view at = rows_.key();
  if (group_ > 0 && !group_key_.empty() && at.starts_with(group_key_)) return true;
  std::optional<std::string_view> target = ChangeFrom(at);
  if (edits_.Valid()) {
    std::string_view edit = edits_.edit().key;
    if (group_ > 0) edit = edit.substr(0, group_);
    if (!target || edit < *target) target = edit;
  }
  if (target && at >= *target) return true;
  if (kept_ != nullptr) {
    status_ = kept_->KeepRows(at, target);
    if (!status_.ok()) return false;
  }
  ++seeks_;
  if (!target) {
    rows_done_ = true;
    return true;
  }
  rows_.Seek(*target);
  return true;
}

bool KeyMerger::Next() {
  if (block_) {
    rows_.SkipBlock();
    block_.reset();
  }
  if (row_pending_) {
    rows_.Next();
    row_pending_ = false;
  }
  if (seek_ && !rows_done_ && rows_.Valid() && !SeekToChange()) return false;
  const bool row_valid = !rows_done_ && rows_.Valid();
  const bool edit_valid = edits_.Valid();
  // An input that fails turns invalid: only then can there be an error to report.
  if ((!row_valid && !rows_.status().ok()) || (!edit_valid && !edits_.status().ok()) ||
      !status_.ok()) {
    return false;
  }
  if (!row_valid && !edit_valid) return false;
  if (copy_blocks_ && row_valid && rows_.MaybeAtBlockStart()) {
    const std::optional<BlockStart> start = rows_.AtBlockStart();
    if (start && Unchanged(*start, ChangeFrom(rows_.key()))) {
      if (skip_blocks_) {
        // The blocks after it that stay as they are too are not even read. A block
        // starts above the last key of the one before it (asked for before BlockAt()
        // moves the index, which holds that key).
        uint64_t next = start->index + 1;
        std::optional<std::string_view> change = ChangeFrom(start->last_key);
        for (std::optional<BlockStart> b; (b = rows_.BlockAt(next)) && Unchanged(*b, change);) {
          change = ChangeFrom(b->last_key);
          ++next;
        }
        rows_.SkipToBlock(next);
        return Next();
      }
      block_ = rows_.CurrentBlock();
      if (block_) {
        num_edits_ = 0;
        has_row_ = false;
        return true;
      }
    }
  }

  // The row against the next edit, compared once: a row before it has no edits, and the
  // edit stream needs no order check there.
  const int order = !edit_valid ? -1 : !row_valid ? 1 : CompareKeys(rows_.key(), edits_.edit().key);
  has_row_ = order <= 0;
  row_pending_ = has_row_;
  if (has_row_) {
    key_ = rows_.key();  // stays until rows_ moves, at the next Next()
  } else if (stable_edits_) {
    key_ = edits_.edit().key;
  } else {
    key_copy_.assign(edits_.edit().key);
    key_ = key_copy_;
  }
  if (group_ > 0) group_key_.assign(key_.substr(0, group_));
  if (order < 0) {
    num_edits_ = 0;
    return true;
  }
  CollectEdits();
  return status_.ok();
}

// The current edit's key is key_: Next() compared them. Each following edit is compared
// once, which both ends the key's edits and checks the stream's order.
void KeyMerger::CollectEdits() {
  const bool stable = stable_edits_;
  num_edits_ = 0;
  values_.clear();
  int order = 0;
  while (order == 0) {
    const EditView& e = edits_.edit();
    if (num_edits_ == edits_buf_.size()) edits_buf_.emplace_back();
    KeyEdit& k = edits_buf_[num_edits_++];
    k.order = e.order;
    k.kind = e.kind;
    k.value = e.value;
    if (!stable) values_.append(e.value);
    edits_.Next();
    ++total_edits_;
    order = edits_.Valid() ? CompareKeys(edits_.edit().key, key_) : 1;
  }
  if (order < 0) status_ = Status::Corruption("edit stream out of order");
  if (stable) return;
  // Now that values_ is complete, the copies are in it one after another.
  size_t offset = 0;
  for (size_t i = 0; i < num_edits_; ++i) {
    KeyEdit& k = edits_buf_[i];
    k.value = std::string_view(values_.data() + offset, k.value.size());
    offset += k.value.size();
  }
}

// The next edit follows key_: unless it starts with the same n bytes, it follows every
// row that does.
bool KeyMerger::EditAmongRowsSharing(size_t n) const {
  return edits_.Valid() && edits_.edit().key.starts_with(key_.substr(0, n));
}

uint64_t KeyMerger::SkipRowsSharing(size_t n) {
  if (EditAmongRowsSharing(n)) return 0;
  row_pending_ = false;
  return rows_.SkipRowsSharing(n) - 1;
}

std::optional<std::string_view> KeyMerger::ChangeFrom(std::string_view from) {
  return changes_ == nullptr ? std::nullopt : changes_->From(from);
}

bool KeyMerger::Unchanged(const BlockStart& block, std::optional<std::string_view> change) const {
  return (!edits_.Valid() || edits_.edit().key > block.last_key) &&
         (!change || *change > block.last_key);
}

bool KeyMerger::InStoredBlock() const {
  return copy_blocks_ && has_row_ && row_pending_ && rows_.BlockIndex().has_value();
}

Result<uint64_t> KeyMerger::MoveUnchangedRows(RowSink* sink) {
  row_pending_ = false;
  // The rows below the next notice at or above the current row's join key (none moves
  // when the current row is one a notice names).
  std::optional<std::string_view> limit = ChangeFrom(key_);
  if (edits_.Valid() && (!limit || edits_.edit().key < *limit)) limit = edits_.edit().key;
  uint64_t moved = 0;
  NUTCHFS_RETURN_IF_ERROR(rows_.MoveRowsInBlock(limit, sink, &moved));
  return moved;
}

Status KeyMerger::status() const {
  if (!status_.ok()) return status_;
  Status s = rows_.status();
  if (!s.ok()) return s;
  if (changes_ != nullptr && !(s = changes_->status()).ok()) return s;
  return edits_.status();
}

}  // namespace webdb
