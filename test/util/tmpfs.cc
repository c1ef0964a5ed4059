#include "test/util/tmpfs.h"

#include <sys/mount.h>
#include <sys/statvfs.h>

#include <catch2/catch.hpp>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace testutil {

Tmpfs::Tmpfs(std::string dir, uint64_t bytes) : dir_(std::move(dir)) {
  std::filesystem::create_directories(dir_);
  const std::string options = "size=" + std::to_string(bytes);
  const int rc = ::mount("tmpfs", dir_.c_str(), "tmpfs", 0, options.c_str());
  INFO("mount -t tmpfs -o " << options << " tmpfs " << dir_ << ": " << std::strerror(errno)
                            << " (the test needs root)");
  REQUIRE(rc == 0);
}

Tmpfs::~Tmpfs() { ::umount2(dir_.c_str(), MNT_DETACH); }

uint64_t Tmpfs::Used() const {
  struct statvfs st;
  REQUIRE(::statvfs(dir_.c_str(), &st) == 0);
  return (st.f_blocks - st.f_bfree) * st.f_frsize;
}

void Tmpfs::Fill(const std::string& path, uint64_t bytes) const {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  const std::string block(1 << 16, 'x');
  for (uint64_t left = bytes; left > 0;) {
    const uint64_t n = std::min<uint64_t>(left, block.size());
    out.write(block.data(), static_cast<std::streamsize>(n));
    left -= n;
  }
  out.close();
  INFO("filling " << path << " with " << bytes << " bytes");
  REQUIRE(out.good());
}

}  // namespace testutil
