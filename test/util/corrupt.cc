#include "test/util/corrupt.h"

#include <fcntl.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cerrno>
#include <cstring>
#include <filesystem>

namespace testutil {

void FlipByte(const std::string& path, uint64_t offset) {
  int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
  INFO("open " << path << ": " << std::strerror(errno));
  REQUIRE(fd >= 0);
  char byte = 0;
  bool ok = ::pread(fd, &byte, 1, static_cast<off_t>(offset)) == 1;
  byte = static_cast<char>(~byte);
  ok = ok && ::pwrite(fd, &byte, 1, static_cast<off_t>(offset)) == 1;
  ::close(fd);
  INFO("flip byte " << offset << " of " << path);
  REQUIRE(ok);
}

void TruncateFile(const std::string& path, uint64_t size) {
  std::error_code ec;
  uint64_t old_size = std::filesystem::file_size(path, ec);
  INFO("truncate " << path << " to " << size << ": " << ec.message());
  REQUIRE((!ec && size <= old_size));
  std::filesystem::resize_file(path, size, ec);
  REQUIRE(!ec);
}

}  // namespace testutil
