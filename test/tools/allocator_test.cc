#include "tools/allocator.h"

#include <malloc.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <cstring>

namespace tools {
namespace {

TEST_CASE("blocks of up to 32 MiB come from the heap once KeepFreedMemory is called") {
  KeepFreedMemory();
  const size_t mapped_before = mallinfo2().hblks;
  for (size_t size : {size_t{256} << 10, size_t{4} << 20, size_t{24} << 20}) {
    INFO(size << " bytes");
    void* block = std::malloc(size);
    REQUIRE(block != nullptr);
    std::memset(block, 1, size);
    CHECK(mallinfo2().hblks == mapped_before);  // not a mapping of its own
    std::free(block);
  }
  void* huge = std::malloc(size_t{64} << 20);  // above the threshold: mapped
  REQUIRE(huge != nullptr);
  CHECK(mallinfo2().hblks == mapped_before + 1);
  std::free(huge);
}

}  // namespace
}  // namespace tools
