#include "webdb/key_merger.h"

namespace webdb {

KeyMerger::KeyMerger(Iterator& rows, EditIterator& edits, bool copy_blocks,
                     const BlockMarks* marks)
    : rows_(rows), edits_(edits), copy_blocks_(copy_blocks), marks_(marks) {
  rows_.SeekToFirst();
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
  const bool row_valid = rows_.Valid();
  const bool edit_valid = edits_.Valid();
  if (!row_valid && !edit_valid) return false;
  if (!status().ok()) return false;
  if (copy_blocks_ && row_valid) {
    const std::optional<BlockStart> start = rows_.AtBlockStart();
    if (start && (!edit_valid || edits_.edit().key > start->last_key) &&
        (marks_ == nullptr || !marks_->marked(start->index))) {
      block_ = rows_.CurrentBlock();
      if (block_) {
        num_edits_ = 0;
        has_row_ = false;
        return true;
      }
    }
  }

  int cmp = !edit_valid ? -1 : !row_valid ? 1 : rows_.key().compare(edits_.edit().key);
  key_.assign(cmp <= 0 ? rows_.key() : edits_.edit().key);
  has_row_ = cmp <= 0;
  row_pending_ = has_row_;

  num_edits_ = 0;
  while (edits_.Valid() && edits_.edit().key == key_) {
    if (num_edits_ == edits_buf_.size()) edits_buf_.emplace_back();
    OwnedEdit& e = edits_buf_[num_edits_++];
    e.order = edits_.edit().order;
    e.kind = edits_.edit().kind;
    e.value.assign(edits_.edit().value);
    edits_.Next();
    ++total_edits_;
  }
  if (edits_.Valid() && edits_.edit().key < key_) {
    status_ = Status::Corruption("edit stream out of order");
  }
  return status().ok();
}

Status KeyMerger::status() const {
  if (!status_.ok()) return status_;
  Status s = rows_.status();
  if (!s.ok()) return s;
  return edits_.status();
}

}  // namespace webdb
