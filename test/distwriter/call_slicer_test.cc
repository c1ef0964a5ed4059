// SliceCalls: k contiguous slices whose concatenation is the stream, cut at line starts
// by byte position, from files and from streams (spilled), with nothing left behind, and
// the stream's digest, the same whichever way it came.
#include "distwriter/call_slicer.h"

#include <fmt/format.h>
#include <sys/stat.h>
#include <xxhash.h>

#include <catch2/catch.hpp>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "nutchfs/fault_env.h"
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

// The pieces SliceCalls published, each taken (read and removed) as publish must.
struct Pieces {
  std::vector<int> slice;
  std::vector<std::string> path, text;
};

// Slices, each the concatenation of its pieces in the order published, checking that
// they come 0..k-1 with at least one piece each, and that every piece is whole lines.
std::vector<std::string> Slice(const std::vector<std::string>& files, int k,
                               const std::string& prefix, const std::string& stdin_path = "",
                               uint64_t spill_file_bytes = kSpillFileBytes,
                               Pieces* pieces = nullptr, std::string* digest = nullptr) {
  auto env = nutchfs::NewLocalEnv();
  std::vector<std::string> slices;
  Pieces got;
  auto publish = [&](int i, const std::string& path) {
    CHECK((i == static_cast<int>(slices.size()) - 1 || i == static_cast<int>(slices.size())));
    if (i == static_cast<int>(slices.size())) slices.emplace_back();
    const std::string text = ReadFile(path);
    CHECK((text.empty() || text.back() == '\n'));
    slices.back() += text;
    got.slice.push_back(i);
    got.path.push_back(path);
    got.text.push_back(text);
    std::filesystem::remove(path);
    return Status::OK();
  };
  auto sliced = SliceCalls(*env, files, k, prefix, publish,
                          stdin_path.empty() ? "/dev/stdin" : stdin_path, spill_file_bytes);
  INFO((sliced ? "" : sliced.error().ToString()));
  REQUIRE(sliced.has_value());
  if (digest != nullptr) *digest = *sliced;
  REQUIRE(slices.size() == static_cast<size_t>(k));
  if (pieces != nullptr) *pieces = std::move(got);
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

TEST_CASE("a stream's spill files inside a slice are its pieces as they are", "[slicer]") {
  testutil::TempDir dir;
  std::mt19937 rng(6);
  const std::string text = RandomLines(rng, 1000) + "no newline at the end";
  WriteFile(dir.File("calls"), text);
  const auto from_file = Slice({dir.File("calls")}, 3, dir.File("tmp"));
  for (uint64_t spill_file_bytes : {uint64_t{0}, uint64_t{500}, uint64_t{5000}}) {
    CAPTURE(spill_file_bytes);
    const std::string fifo = dir.File("fifo");
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    std::thread writer([&] { WriteFile(fifo, text); });
    Pieces pieces;
    auto from_stream = Slice({"-"}, 3, dir.File("tmp"), fifo, spill_file_bytes, &pieces);
    writer.join();
    std::filesystem::remove(fifo);
    CHECK(from_stream == from_file);
    // Spill files are handed over whole: every piece but the copies around the two cuts
    // (at most two a cut) is one, and each ends at the first newline after its size.
    size_t spilled = 0;
    for (size_t p = 0; p < pieces.path.size(); ++p) {
      if (pieces.path[p].find(".spill") == std::string::npos) continue;
      ++spilled;
      const std::string& t = pieces.text[p];
      CHECK((t.size() < spill_file_bytes ||
             t.find('\n', spill_file_bytes == 0 ? 0 : spill_file_bytes - 1) == t.size() - 1));
    }
    CHECK(spilled + 4 >= pieces.path.size());
    CHECK(spilled >= text.size() / (spill_file_bytes + 90) - 4);
    CheckNoFilesLeft(dir, dir.File("tmp"));
  }
}

// A stream through a fifo, its writer on a thread of its own; SIGPIPE is ignored while
// it runs, since a slicing that fails stops reading.
Status SliceStream(nutchfs::Env& env, const testutil::TempDir& dir, const std::string& text,
                   uint64_t spill_file_bytes) {
  const std::string fifo = dir.File("fifo");
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  auto* const old_handler = std::signal(SIGPIPE, SIG_IGN);
  std::thread writer([&] { WriteFile(fifo, text); });
  auto publish = [](int, const std::string& path) {
    std::filesystem::remove(path);
    return Status::OK();
  };
  auto sliced = SliceCalls(env, {"-"}, 3, dir.File("tmp"), publish, fifo, spill_file_bytes);
  writer.join();
  std::signal(SIGPIPE, old_handler);
  std::filesystem::remove(fifo);
  return sliced ? Status::OK() : sliced.error();
}

TEST_CASE("a failing write of a spill file or of a piece leaves no files", "[slicer]") {
  testutil::TempDir dir;
  std::mt19937 rng(7);
  const std::string text = RandomLines(rng, 3000);
  auto base = nutchfs::NewLocalEnv();
  auto env = nutchfs::NewFaultEnv(base.get());
  for (nutchfs::FaultOp op :
       {nutchfs::FaultOp::kNewWritable, nutchfs::FaultOp::kAppend, nutchfs::FaultOp::kClose}) {
    REQUIRE(env->Inject({op, 1 << 30}).ok());
    REQUIRE(SliceStream(*env, dir, text, 4000).ok());
    const int calls = env->seen(op);
    CAPTURE(static_cast<int>(op), calls);
    CHECK(calls > 30);  // spill files and pieces
    for (int nth = 1; nth <= calls; ++nth) {
      CAPTURE(nth);
      REQUIRE(env->Inject({op, nth}).ok());
      CHECK_FALSE(SliceStream(*env, dir, text, 4000).ok());
      CHECK(env->fired() > 0);
      env->Clear();
      CheckNoFilesLeft(dir, dir.File("tmp"));
    }
  }
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
  auto sliced = SliceCalls(*env, {dir.File("calls")}, 3, dir.File("tmp"), publish);
  REQUIRE_FALSE(sliced.has_value());
  CHECK(sliced.error().IsIOError());
  CHECK(published == 2);
  CheckNoFilesLeft(dir, dir.File("tmp"));
  auto missing = SliceCalls(*env, {dir.File("missing")}, 3, dir.File("tmp"), publish);
  REQUIRE_FALSE(missing.has_value());
  CHECK(missing.error().IsNotFound());
}

std::string Xxh128Hex(const std::string& bytes) {
  const XXH128_hash_t h = XXH3_128bits(bytes.data(), bytes.size());
  return fmt::format("{:016x}{:016x}", h.high64, h.low64);
}

TEST_CASE("the stream's digest is its bytes' XXH3-128, from files or a stream alike",
          "[slicer]") {
  testutil::TempDir dir;
  std::mt19937 rng(9);
  const std::string a = RandomLines(rng, 200), b = RandomLines(rng, 300);
  WriteFile(dir.File("a"), a);
  WriteFile(dir.File("b"), b + "no newline");
  WriteFile(dir.File("ab"), a + b + "no newline");
  const std::string stream = a + b + "no newline\n";
  std::string from_files, from_one, from_stream;
  Slice({dir.File("a"), dir.File("b")}, 3, dir.File("tmp"), "", kSpillFileBytes, nullptr,
        &from_files);
  CHECK(from_files == Xxh128Hex(stream));
  Slice({dir.File("ab")}, 2, dir.File("tmp"), "", kSpillFileBytes, nullptr, &from_one);
  CHECK(from_one == from_files);
  const std::string fifo = dir.File("fifo");
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  std::thread writer([&] { WriteFile(fifo, a + b + "no newline"); });
  Slice({"-"}, 3, dir.File("tmp"), fifo, 1000, nullptr, &from_stream);
  writer.join();
  CHECK(from_stream == from_files);
  // A file before the stream: its bytes come first in the digest, as in the stream.
  WriteFile(dir.File("a-open"), a + "open");
  const std::string fifo2 = dir.File("fifo2");
  REQUIRE(::mkfifo(fifo2.c_str(), 0600) == 0);
  std::thread writer2([&] { WriteFile(fifo2, b + "no newline"); });
  std::string file_then_stream;
  Slice({dir.File("a-open"), "-"}, 3, dir.File("tmp"), fifo2, 1000, nullptr, &file_then_stream);
  writer2.join();
  CHECK(file_then_stream == Xxh128Hex(a + "open\n" + b + "no newline\n"));
  WriteFile(dir.File("c"), a + "another line\n");
  std::string other;
  Slice({dir.File("c")}, 3, dir.File("tmp"), "", kSpillFileBytes, nullptr, &other);
  CHECK(other != from_files);
}

}  // namespace
}  // namespace distwriter
