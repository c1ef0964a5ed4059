#include "test/util/edit_util.h"

#include <algorithm>
#include <utility>

namespace testutil {

std::ostream& operator<<(std::ostream& os, const OwnedEdit& e) {
  os << "{key=";
  for (unsigned char c : e.key) {
    if (c >= 0x20 && c < 0x7f) {
      os << c;
    } else {
      os << "\\x"
         << "0123456789abcdef"[c >> 4] << "0123456789abcdef"[c & 15];
    }
  }
  return os << " (" << e.key.size() << " bytes) order=" << e.order << " kind=" << int{e.kind}
            << " value=" << e.value.size() << " bytes}";
}

bool OwnedEditLess(const OwnedEdit& a, const OwnedEdit& b) {
  return webdb::EditLess(a.view(), b.view());
}

namespace {

std::string RandomKey(std::mt19937_64& rng) {
  static const std::string kAlphabet("ab\0\xff/z", 6);
  std::string key(rng() % 31, '\0');
  for (char& c : key) c = kAlphabet[rng() % kAlphabet.size()];
  return key;
}

}  // namespace

std::vector<OwnedEdit> RandomEdits(std::mt19937_64& rng, size_t count,
                                   const EditGenOptions& options) {
  std::vector<std::string> keys(options.distinct_keys);
  for (std::string& key : keys) key = RandomKey(rng);
  std::vector<OwnedEdit> edits(count);
  for (size_t i = 0; i < count; ++i) {
    OwnedEdit& e = edits[i];
    e.key = keys[rng() % keys.size()];
    e.order = rng() % (options.max_order + 1);
    e.kind = static_cast<uint8_t>(rng());
    e.value = std::to_string(i) + ":";
    e.value.resize(e.value.size() + rng() % (options.max_value + 1), '\xfe');
  }
  return edits;
}

std::vector<OwnedEdit> StableSorted(std::vector<OwnedEdit> edits) {
  std::stable_sort(edits.begin(), edits.end(), OwnedEditLess);
  return edits;
}

namespace {

class VectorEditIterator final : public webdb::EditIterator {
 public:
  VectorEditIterator(std::vector<OwnedEdit> edits, nutchfs::Status end_status)
      : edits_(std::move(edits)), end_status_(std::move(end_status)) {
    Load();
  }
  bool Valid() const override { return i_ < edits_.size(); }
  void Next() override {
    ++i_;
    Load();
  }
  const webdb::EditView& edit() const override { return view_; }
  nutchfs::Status status() const override { return Valid() ? nutchfs::Status::OK() : end_status_; }

 private:
  void Load() {
    if (i_ < edits_.size()) view_ = edits_[i_].view();
  }

  std::vector<OwnedEdit> edits_;
  nutchfs::Status end_status_;
  size_t i_ = 0;
  webdb::EditView view_;
};

}  // namespace

std::unique_ptr<webdb::EditIterator> NewVectorEditIterator(std::vector<OwnedEdit> edits,
                                                           nutchfs::Status end_status) {
  return std::make_unique<VectorEditIterator>(std::move(edits), std::move(end_status));
}

Drained Drain(webdb::EditIterator& it) {
  Drained out;
  for (; it.Valid(); it.Next()) out.edits.push_back(OwnedEdit::From(it.edit()));
  out.status = it.status();
  return out;
}

}  // namespace testutil
