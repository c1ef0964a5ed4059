// InputDigest: a writer's input digest (docs/DISTRIBUTED.md, "A round", step 2, and
// "Sessions"), what a rerun of the same session with the same calls is recognized by. It
// is the sum, mod 2^128, of a 128-bit XXH3 hash (Debian's libxxhash) of the writer's
// identity (k, its index and its session) and of every edit its calls logged (order,
// kind, key and value). Every edit carries its own order
// number, so the sum covers the edits and their order without depending on the order in
// which they are added, and digests of a writer's edits kept apart (one for each thread
// logging calls) merge into the one digest. Value type; not thread-safe.
#ifndef DISTWRITER_INPUT_DIGEST_H_
#define DISTWRITER_INPUT_DIGEST_H_

#include <string>
#include <string_view>

#include "webdb/table/iterator.h"

namespace distwriter {

class InputDigest {
 public:
  // The digest of no edits yet of writer `writer` of k in session `session` (empty: no
  // session, the identity of writers before sessions).
  InputDigest(int k, int writer, std::string_view session = "");

  void Add(const webdb::EditView& e);
  // Adds the edits other has seen. REQUIRES: other is of the same writer of the same k.
  void Merge(const InputDigest& other) { sum_ += other.sum_; }

  // 32 lowercase hex digits.
  std::string Hex() const;

 private:
  unsigned __int128 identity_;  // the hash of the writer's identity
  unsigned __int128 sum_ = 0;    // of the edits
};

}  // namespace distwriter

#endif  // DISTWRITER_INPUT_DIGEST_H_
