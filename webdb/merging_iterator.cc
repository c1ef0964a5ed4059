#include "webdb/merging_iterator.h"

#include <utility>

namespace webdb {
namespace {

// A binary min-heap of input indices. After the top input moves, one sift-down puts
// the heap right again, which costs about log2(k) comparisons per edit.
class MergingEditIterator final : public EditIterator {
 public:
  explicit MergingEditIterator(std::vector<std::unique_ptr<EditIterator>> inputs)
      : inputs_(std::move(inputs)) {
    heap_.reserve(inputs_.size());
    for (const auto& in : inputs_) stable_ = stable_ && in->views_stable();
    for (size_t i = 0; i < inputs_.size(); ++i) {
      if (inputs_[i]->Valid()) {
        heap_.push_back(i);
      } else if (!inputs_[i]->status().ok()) {
        status_ = inputs_[i]->status();
        return;
      }
    }
    for (size_t i = heap_.size() / 2; i-- > 0;) SiftDown(i);
  }

  bool Valid() const override { return status_.ok() && !heap_.empty(); }

  void Next() override {
    EditIterator& top = *inputs_[heap_[0]];
    top.Next();
    if (!top.Valid()) {
      if (!top.status().ok()) {
        status_ = top.status();
        return;
      }
      heap_[0] = heap_.back();
      heap_.pop_back();
    }
    if (!heap_.empty()) SiftDown(0);
  }

  const EditView& edit() const override { return inputs_[heap_[0]]->edit(); }
  Status status() const override { return status_; }
  bool views_stable() const override { return stable_; }

 private:
  // Whether input a's edit comes out before input b's.
  bool Before(size_t a, size_t b) const {
    const EditView& x = inputs_[a]->edit();
    const EditView& y = inputs_[b]->edit();
    int c = x.key.compare(y.key);
    if (c != 0) return c < 0;
    if (x.order != y.order) return x.order < y.order;
    return a < b;
  }

  void SiftDown(size_t i) {
    const size_t n = heap_.size();
    size_t item = heap_[i];
    while (true) {
      size_t child = 2 * i + 1;
      if (child >= n) break;
      if (child + 1 < n && Before(heap_[child + 1], heap_[child])) ++child;
      if (!Before(heap_[child], item)) break;
      heap_[i] = heap_[child];
      i = child;
    }
    heap_[i] = item;
  }

  std::vector<std::unique_ptr<EditIterator>> inputs_;
  std::vector<size_t> heap_;
  bool stable_ = true;  // every input's views are
  Status status_;
};

}  // namespace

std::unique_ptr<EditIterator> NewMergingEditIterator(
    std::vector<std::unique_ptr<EditIterator>> inputs) {
  if (inputs.size() == 1) return std::move(inputs[0]);
  return std::make_unique<MergingEditIterator>(std::move(inputs));
}

}  // namespace webdb
