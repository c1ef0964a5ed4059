// CallStream: calls streamed into spill files are sliced (SliceSpool) exactly as
// SliceCalls slices a call file of the same bytes, with the same digest; spill files that
// lie inside a slice are its pieces as they are; nothing is left behind after success,
// after a failed write or publish, or when the stream is dropped unsliced.
#include "distwriter/call_stream.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "nutchfs/fault_env.h"
#include "test/util/temp_dir.h"

namespace distwriter {
namespace {

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// Makes n calls of varied length on sink (the same ones for the same seed).
Status MakeCalls(webdb::CallSink& sink, uint64_t seed, int n) {
  std::mt19937 rng(static_cast<uint32_t>(seed));
  for (int i = 0; i < n; ++i) {
    webdb::Page page = webdb::Page::WithDefaults(
        "http://h" + std::to_string(rng() % 7) + ".example/" + std::string(rng() % 60, 'p') +
        std::to_string(i));
    NUTCHFS_RETURN_IF_ERROR(i % 5 == 4 ? sink.DeletePage(page.url) : sink.AddPage(page));
  }
  return Status::OK();
}

struct Sliced {
  std::vector<std::string> slices;
  std::vector<std::string> pieces;  // the paths published
  std::string digest;
};

// A publish that takes each piece (reads and removes it) into got.
Publish Taker(Sliced& got) {
  return [&got](int i, const std::string& path) {
    if (i == static_cast<int>(got.slices.size())) got.slices.emplace_back();
    got.slices.back() += ReadFile(path);
    got.pieces.push_back(path);
    std::filesystem::remove(path);
    return Status::OK();
  };
}

bool Empty(const std::string& dir) { return std::filesystem::is_empty(dir); }

TEST_CASE("streamed calls are sliced as the call file of the same bytes, with its digest",
          "[slicer]") {
  testutil::TempDir dir;
  auto env = nutchfs::NewLocalEnv();
  std::string text;
  webdb::JsonCallWriter file_writer(webdb::JsonCallWriter::ToString(&text));
  REQUIRE(MakeCalls(file_writer, 11, 1500).ok());
  REQUIRE(file_writer.Flush().ok());
  REQUIRE(text.size() > 50000);
  std::ofstream(dir.File("calls.jsonl"), std::ios::binary) << text;
  std::filesystem::create_directory(dir.File("spill"));
  for (int k : {1, 3, 8}) {
    for (uint64_t file_bytes : {uint64_t{0}, uint64_t{4000}, kSpillFileBytes}) {
      CAPTURE(k, file_bytes);
      Sliced from_file, streamed;
      auto digest = SliceCalls(*env, {dir.File("calls.jsonl")}, k, dir.File("spill/cut"),
                               Taker(from_file));
      REQUIRE(digest.has_value());
      {
        CallStream stream(*env, dir.File("spill/calls"), file_bytes);
        REQUIRE(MakeCalls(stream.sink(), 11, 1500).ok());
        REQUIRE(stream.Finish().ok());
        CHECK(stream.spool().size() == text.size());
        auto got = SliceSpool(*env, stream.spool(), k, dir.File("spill/cut"), Taker(streamed));
        REQUIRE(got.has_value());
        CHECK(*got == *digest);
      }
      CHECK(streamed.slices == from_file.slices);
      CHECK(Empty(dir.File("spill")));
      // Written once: every spill file inside a slice is a piece itself; only those
      // around the k - 1 cuts are copied.
      if (file_bytes == 4000) {
        size_t whole = 0;
        for (const std::string& p : streamed.pieces) whole += p.find("/calls-") != p.npos;
        CHECK(whole + 2 * (k - 1) >= text.size() / 4100);
      }
    }
  }
}

TEST_CASE("a stream dropped unsliced, or failing to spill or to publish, leaves no files",
          "[slicer]") {
  testutil::TempDir dir;
  auto base = nutchfs::NewLocalEnv();
  auto env = nutchfs::NewFaultEnv(base.get());
  {
    CallStream dropped(*env, dir.File("calls"), 1000);
    REQUIRE(MakeCalls(dropped.sink(), 3, 200).ok());
    REQUIRE(dropped.Finish().ok());
    CHECK_FALSE(Empty(dir.path()));
  }
  CHECK(Empty(dir.path()));
  auto run = [&]() -> Status {
    CallStream stream(*env, dir.File("calls"), 1000);
    NUTCHFS_RETURN_IF_ERROR(MakeCalls(stream.sink(), 3, 200));
    NUTCHFS_RETURN_IF_ERROR(stream.Finish());
    Sliced got;
    auto sliced = SliceSpool(*env, stream.spool(), 3, dir.File("cut"), Taker(got));
    return sliced.has_value() ? Status::OK() : sliced.error();
  };
  for (nutchfs::FaultOp op :
       {nutchfs::FaultOp::kNewWritable, nutchfs::FaultOp::kAppend, nutchfs::FaultOp::kClose}) {
    REQUIRE(env->Inject({op, 1 << 30}).ok());
    REQUIRE(run().ok());
    const int calls = env->seen(op);
    CAPTURE(static_cast<int>(op), calls);
    CHECK(calls > 10);
    for (int nth = 1; nth <= calls; ++nth) {
      CAPTURE(nth);
      REQUIRE(env->Inject({op, nth}).ok());
      CHECK_FALSE(run().ok());
      CHECK(env->fired() > 0);
      env->Clear();
      CHECK(Empty(dir.path()));
    }
  }
  {
    CallStream stream(*env, dir.File("calls"), 1000);
    REQUIRE(MakeCalls(stream.sink(), 3, 200).ok());
    REQUIRE(stream.Finish().ok());
    int published = 0;
    auto refused = SliceSpool(*env, stream.spool(), 3, dir.File("cut"),
                              [&](int i, const std::string& path) {
                                ++published;
                                if (i == 1) return Status::IOError("no room on writer 1");
                                std::filesystem::remove(path);
                                return Status::OK();
                              });
    REQUIRE_FALSE(refused.has_value());
    CHECK(refused.error().IsIOError());
    CHECK(published >= 2);
  }
  CHECK(Empty(dir.path()));
}

}  // namespace
}  // namespace distwriter
