// SliceCalls: k contiguous slices whose concatenation is the stream, cut at line starts
// by byte position, from files and from streams (spilled), with nothing left behind.
#include "distwriter/call_slicer.h"

#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "test/util/temp_dir.h"

namespace distwriter {
namespace {

void WriteFile(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// Slices in the order published, checking that they come 0..k-1; each is taken (read
// and removed), as publish must.
std::vector<std::string> Slice(const std::vector<std::string>& files, int k,
                               const std::string& prefix, const std::string& stdin_path = "") {
  auto env = nutchfs::NewLocalEnv();
  std::vector<std::string> slices;
  auto publish = [&](int i, const std::string& path) {
    CHECK(i == static_cast<int>(slices.size()));
    slices.push_back(ReadFile(path));
    std::filesystem::remove(path);
    return Status::OK();
  };
  Status s = stdin_path.empty() ? SliceCalls(*env, files, k, prefix, publish)
                                : SliceCalls(*env, files, k, prefix, publish, stdin_path);
  INFO(s.ToString());
  REQUIRE(s.ok());
  REQUIRE(slices.size() == static_cast<size_t>(k));
  return slices;
}

std::string RandomLines(std::mt19937& rng, int lines) {
  std::string text;
  for (int i = 0; i < lines; ++i) {
    text += std::string(rng() % 90, static_cast<char>('a' + i % 26));
    text += '\n';
  }
  return text;
}

void CheckNoFilesLeft(const testutil::TempDir& dir, const std::string& prefix) {
  for (const auto& e : std::filesystem::directory_iterator(dir.path())) {
    CHECK(e.path().string().rfind(prefix, 0) != 0);
  }
}

TEST_CASE("slices are contiguous, cut at line starts, about equal in bytes", "[slicer]") {
  testutil::TempDir dir;
  std::mt19937 rng(3);
  const std::string a = RandomLines(rng, 700), b = RandomLines(rng, 300);
  WriteFile(dir.File("a"), a);
  WriteFile(dir.File("b"), b);
  const std::string stream = a + b;
  for (int k : {1, 2, 3, 7, 16}) {
    INFO("k " << k);
    auto slices = Slice({dir.File("a"), dir.File("b")}, k, dir.File("tmp"));
    std::string joined;
    uint64_t start = 0;
    for (int i = 0; i < k; ++i) {
      const std::string& s = slices[i];
      joined += s;
      if (!s.empty()) CHECK(s.back() == '\n');
      // Its first line starts at or after bound i, the next slice's first line at or
      // after bound i+1: every line starts inside its slice's byte range.
      const uint64_t bound = stream.size() * i / k, next = stream.size() * (i + 1) / k;
      if (!s.empty()) {
        CHECK(start >= bound);
        CHECK(start < next + (i + 1 == k ? 1 : 0));
      }
      start += s.size();
    }
    CHECK(joined == stream);
  }
  CheckNoFilesLeft(dir, dir.File("tmp"));
}

TEST_CASE("a last line without newline gets one, and empty files and tiny streams", "[slicer]") {
  testutil::TempDir dir;
  WriteFile(dir.File("a"), "1\n2");
  WriteFile(dir.File("empty"), "");
  WriteFile(dir.File("b"), "3\n\n4\n");
  auto slices = Slice({dir.File("a"), dir.File("empty"), dir.File("b")}, 2, dir.File("tmp"));
  CHECK(slices[0] + slices[1] == "1\n2\n3\n\n4\n");
  // More slices than lines: some are empty, every line is in one, in order.
  auto many = Slice({dir.File("a")}, 5, dir.File("tmp"));
  std::string joined;
  int non_empty = 0;
  for (const std::string& s : many) {
    joined += s;
    non_empty += !s.empty();
  }
  CHECK(joined == "1\n2\n");
  CHECK(non_empty == 2);
  auto none = Slice({dir.File("empty")}, 3, dir.File("tmp"));
  CHECK(none == std::vector<std::string>(3));
}

TEST_CASE("a stream is spilled, sliced like the file and its spill removed", "[slicer]") {
  testutil::TempDir dir;
  std::mt19937 rng(4);
  const std::string text = RandomLines(rng, 20000);  // several read chunks
  WriteFile(dir.File("calls"), text);
  const std::string fifo = dir.File("fifo");
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  std::thread writer([&] { WriteFile(fifo, text); });
  auto from_stream = Slice({"-"}, 4, dir.File("tmp"), fifo);
  writer.join();
  CHECK(from_stream == Slice({dir.File("calls")}, 4, dir.File("tmp")));
  CheckNoFilesLeft(dir, dir.File("tmp"));
}

TEST_CASE("a failed publish stops the slicing and leaves no files", "[slicer]") {
  testutil::TempDir dir;
  std::mt19937 rng(5);
  WriteFile(dir.File("calls"), RandomLines(rng, 500));
  auto env = nutchfs::NewLocalEnv();
  int published = 0;
  auto publish = [&](int i, const std::string& path) {
    ++published;
    if (i == 1) return Status::IOError("no room on writer 1");
    std::filesystem::remove(path);
    return Status::OK();
  };
  Status s = SliceCalls(*env, {dir.File("calls")}, 3, dir.File("tmp"), publish);
  CHECK(s.IsIOError());
  CHECK(published == 2);
  CheckNoFilesLeft(dir, dir.File("tmp"));
  CHECK(SliceCalls(*env, {dir.File("missing")}, 3, dir.File("tmp"), publish).IsNotFound());
}

}  // namespace
}  // namespace distwriter
