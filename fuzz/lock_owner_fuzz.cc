// Fuzzes the lock file a NutchFS lock holder writes (nutchfs/lock_owner.h), which
// another host reads to decide whether the lock is stale.
// Properties: no crash or undefined behaviour; errors are Corruption naming the file; a
// decoded owner encodes to text that decodes to the same owner; judging it against this
// host at any clock gives a verdict with a reason, never breakable without force for a
// live-looking lock of another host.
#include <cstdint>
#include <limits>
#include <string>

#include "fuzz/fuzz_util.h"
#include "nutchfs/lock_owner.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text = fuzzutil::AsView(data, size);
  auto owner = nutchfs::DecodeLockOwner(text, "/g/LOCK");
  if (!owner) {
    FUZZ_CHECK_MSG(owner.error().IsCorruption(), owner.error().ToString());
    FUZZ_CHECK(owner.error().message().starts_with("lock file /g/LOCK: "));
  } else {
    const std::string again_text = nutchfs::EncodeLockOwner(*owner);
    auto again = nutchfs::DecodeLockOwner(again_text, "/g/LOCK");
    FUZZ_CHECK_MSG(again.has_value() && *again == *owner, again_text);
  }
  // Judged from another host (no process of this one is looked at).
  nutchfs::LockOwner me;
  me.machine = "m";
  me.host = "fuzz-judge.invalid";
  me.boot_id = "boot";
  me.token = "t";
  if (owner && owner->host == me.host) return 0;
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  for (int64_t now : {int64_t{0}, int64_t{1767225600000}, kMin, kMax}) {
    for (int64_t lease : {int64_t{0}, int64_t{3600000}, kMax}) {
      for (bool force : {false, true}) {
        const nutchfs::LockVerdict v = nutchfs::JudgeLock(owner, me, now, lease, force);
        FUZZ_CHECK(!v.reason.empty());
        if (!force) FUZZ_CHECK(!v.breakable);
      }
    }
  }
  return 0;
}
