#include "distwriter/input_digest.h"

#include <fmt/format.h>
#include <xxhash.h>

namespace distwriter {
namespace {

unsigned __int128 Wide(XXH128_hash_t h) {
  return static_cast<unsigned __int128>(h.high64) << 64 | h.low64;
}

}  // namespace

InputDigest::InputDigest(int k, int writer, std::string_view session) {
  std::string identity = fmt::format("webdb-round-inputs k={} writer={}\n", k, writer);
  if (!session.empty()) identity += fmt::format("session={}\n", session);
  identity_ = Wide(XXH3_128bits(identity.data(), identity.size()));
}

// The key's hash is seeded with the order, the value's with the key's hash and the
// kind; the edit's hash is the value's with the key's high half folded in.
void InputDigest::Add(const webdb::EditView& e) {
  const XXH128_hash_t key = XXH3_128bits_withSeed(e.key.data(), e.key.size(), e.order);
  XXH128_hash_t edit = XXH3_128bits_withSeed(e.value.data(), e.value.size(), key.low64 ^ e.kind);
  edit.high64 ^= key.high64;
  sum_ += Wide(edit);
}

std::string InputDigest::Hex() const {
  const unsigned __int128 digest = identity_ + sum_;
  return fmt::format("{:016x}{:016x}", static_cast<uint64_t>(digest >> 64),
                     static_cast<uint64_t>(digest));
}

}  // namespace distwriter
