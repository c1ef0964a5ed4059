#include "webdb/iterator.h"

#include <string>

namespace webdb {
namespace {

class EmptyIterator final : public Iterator {
 public:
  bool Valid() const override { return false; }
  void SeekToFirst() override {}
  void Seek(std::string_view) override {}
  void Next() override {}
  std::string_view key() const override { return {}; }
  std::string_view value() const override { return {}; }
  Status status() const override { return Status::OK(); }
};

class EmptyEditIterator final : public EditIterator {
 public:
  bool Valid() const override { return false; }
  void Next() override {}
  const EditView& edit() const override { return edit_; }
  Status status() const override { return Status::OK(); }

 private:
  EditView edit_;
};

}  // namespace

uint64_t Iterator::SkipRowsSharing(size_t n) {
  const std::string prefix(key().substr(0, n));
  uint64_t moved = 0;
  do {
    Next();
    ++moved;
  } while (Valid() && key().starts_with(prefix));
  return moved;
}

std::unique_ptr<Iterator> NewEmptyIterator() { return std::make_unique<EmptyIterator>(); }
std::unique_ptr<EditIterator> NewEmptyEditIterator() {
  return std::make_unique<EmptyEditIterator>();
}

}  // namespace webdb
