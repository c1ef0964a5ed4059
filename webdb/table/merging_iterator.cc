#include "webdb/table/merging_iterator.h"

#include <utility>

#include "webdb/util/coding.h"

namespace webdb {
namespace {

// A tree of losers (Knuth, TAOCP 5.4.1): input i is leaf k + i of a binary tree whose
// inner nodes 1..k-1 each hold the input that lost the match played there; node 0 holds
// the winner. When the winner moves, replaying the matches on its path to the root
// puts the tree right: one comparison a level, ceil(log2 k) an edit, where a heap's
// sift-down makes two. Each input's current edit is kept here, so a comparison makes no
// virtual call; an input that has ended loses every match.
class MergingEditIterator final : public EditIterator {
 public:
  explicit MergingEditIterator(std::vector<std::unique_ptr<EditIterator>> inputs)
      : inputs_(std::move(inputs)), k_(inputs_.size()), current_(k_), ended_(k_), tree_(k_ + 1) {
    for (const auto& in : inputs_) stable_ = stable_ && in->views_stable();
    for (size_t i = 0; i < k_; ++i) {
      if (!Load(i)) return;
    }
    if (k_ == 0) return;
    // Play every match bottom-up: winner[n] is the winner below inner node n.
    std::vector<size_t> winner(k_);
    auto winner_at = [&](size_t node) { return node >= k_ ? node - k_ : winner[node]; };
    for (size_t n = k_ - 1; n >= 1; --n) {
      const size_t a = winner_at(2 * n), b = winner_at(2 * n + 1);
      const bool a_wins = Before(a, b);
      winner[n] = a_wins ? a : b;
      tree_[n] = a_wins ? b : a;
    }
    tree_[0] = k_ == 1 ? 0 : winner[1];
    valid_ = !ended_[tree_[0]];
  }

  bool Valid() const override { return valid_; }

  void Next() override {
    size_t w = tree_[0];
    inputs_[w]->Next();
    if (!Load(w)) {
      valid_ = false;
      return;
    }
    for (size_t n = (w + k_) / 2; n >= 1; n /= 2) {
      if (Before(tree_[n], w)) std::swap(tree_[n], w);
    }
    tree_[0] = w;
    valid_ = !ended_[w];
  }

  const EditView& edit() const override { return current_[tree_[0]]; }
  Status status() const override { return status_; }
  bool views_stable() const override { return stable_; }

 private:
  // Takes input i's current edit, or notes that it ended; false (status_ set) when it
  // failed.
  bool Load(size_t i) {
    EditIterator& in = *inputs_[i];
    if (in.Valid()) {
      current_[i] = in.edit();
      return true;
    }
    ended_[i] = true;
    if (in.status().ok()) return true;
    status_ = in.status();
    return false;
  }

  // Whether input a's edit comes out before input b's (an ended input never does).
  bool Before(size_t a, size_t b) const {
    if (ended_[a] || ended_[b]) return !ended_[a];
    const EditView& x = current_[a];
    const EditView& y = current_[b];
    const int c = CompareKeys(x.key, y.key);
    if (c != 0) return c < 0;
    if (x.order != y.order) return x.order < y.order;
    return a < b;
  }

  std::vector<std::unique_ptr<EditIterator>> inputs_;
  const size_t k_;
  std::vector<EditView> current_;  // each input's edit, while it has one
  std::vector<char> ended_;        // per input: no edit left
  std::vector<size_t> tree_;       // [0]: the winner; [1, k): the loser at each inner node
  bool stable_ = true;             // every input's views are
  bool valid_ = false;             // status_ is ok and the winner has an edit
  Status status_;
};

}  // namespace

std::unique_ptr<EditIterator> NewMergingEditIterator(
    std::vector<std::unique_ptr<EditIterator>> inputs) {
  if (inputs.size() == 1) return std::move(inputs[0]);
  return std::make_unique<MergingEditIterator>(std::move(inputs));
}

}  // namespace webdb
