#include "tools/allocator.h"

#include <malloc.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <cstring>

// AddressSanitizer and ThreadSanitizer replace glibc's malloc, whose thresholds
// KeepFreedMemory sets: there only that allocation still works can be checked.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define ALLOCATOR_REPLACED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define ALLOCATOR_REPLACED 1
#endif
#endif

namespace tools {
namespace {

TEST_CASE("blocks of up to 32 MiB come from the heap once KeepFreedMemory is called") {
  KeepFreedMemory();
#ifdef ALLOCATOR_REPLACED
  WARN("a sanitizer's allocator replaces glibc's: only allocation is checked");
#else
  const size_t mapped_before = mallinfo2().hblks;
#endif
  for (size_t size : {size_t{256} << 10, size_t{4} << 20, size_t{24} << 20, size_t{64} << 20}) {
    INFO(size << " bytes");
    void* block = std::malloc(size);
    REQUIRE(block != nullptr);
    std::memset(block, 1, size);
#ifndef ALLOCATOR_REPLACED
    // Not a mapping of its own up to the threshold; mapped above it.
    CHECK(mallinfo2().hblks == mapped_before + (size > (size_t{32} << 20) ? 1 : 0));
#endif
    std::free(block);
  }
}

}  // namespace
}  // namespace tools
