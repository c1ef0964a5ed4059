// Helpers for tests of edit streams: owned edits, random edit generators with hostile
// bytes and many ties, a vector-backed EditIterator and a drain that collects a stream.
// Plain functions and values; one thread.
#ifndef TEST_UTIL_EDIT_UTIL_H_
#define TEST_UTIL_EDIT_UTIL_H_

#include <cstdint>
#include <memory>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include "nutchfs/status.h"
#include "webdb/table/iterator.h"

namespace testutil {

// An edit that owns its bytes.
struct OwnedEdit {
  std::string key;
  uint64_t order = 0;
  uint8_t kind = 0;
  std::string value;

  webdb::EditView view() const { return {key, order, kind, value}; }
  static OwnedEdit From(const webdb::EditView& e) {
    return {std::string(e.key), e.order, e.kind, std::string(e.value)};
  }
  bool operator==(const OwnedEdit&) const = default;
};
std::ostream& operator<<(std::ostream& os, const OwnedEdit& e);

bool OwnedEditLess(const OwnedEdit& a, const OwnedEdit& b);

struct EditGenOptions {
  size_t distinct_keys = 1000;  // keys are drawn from this many
  uint64_t max_order = 50;      // orders are drawn from [0, max_order]
  size_t max_value = 40;        // value length in [0, max_value]
};

// count random edits: keys of 0..30 bytes including '\0' and '\xff' (and the empty key),
// repeated keys and orders so that (key, order) ties are common, values unique per edit
// (they start with the edit's index), so a test can tell tied edits apart.
std::vector<OwnedEdit> RandomEdits(std::mt19937_64& rng, size_t count,
                                   const EditGenOptions& options = {});

// The reference order: std::stable_sort by (key, order).
std::vector<OwnedEdit> StableSorted(std::vector<OwnedEdit> edits);

// Iterates a copy of edits; when they run out its status becomes end_status.
std::unique_ptr<webdb::EditIterator> NewVectorEditIterator(
    std::vector<OwnedEdit> edits, nutchfs::Status end_status = nutchfs::Status::OK());

// Everything the iterator yields, and its status at the end.
struct Drained {
  std::vector<OwnedEdit> edits;
  nutchfs::Status status;
};
Drained Drain(webdb::EditIterator& it);

}  // namespace testutil

#endif  // TEST_UTIL_EDIT_UTIL_H_
