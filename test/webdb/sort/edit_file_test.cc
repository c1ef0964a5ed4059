#include "webdb/sort/edit_file.h"

#include <catch2/catch.hpp>
#include <random>
#include <set>

#include "nutchfs/env.h"
#include "nutchfs/fault_env.h"
#include "nutchfs/mem_env.h"
#include "test/util/corrupt.h"
#include "test/util/edit_util.h"
#include "test/util/temp_dir.h"
#include "webdb/util/coding.h"
#include "webdb/util/crc32c.h"

namespace webdb {
namespace {

using testutil::Drain;
using testutil::OwnedEdit;

struct Written {
  uint64_t bytes = 0;
  uint32_t checksum = 0;
};

Written WriteEdits(nutchfs::Env& env, const std::string& path, const std::vector<OwnedEdit>& edits,
                   bool sorted) {
  auto writer = EditFileWriter::Create(env, path, sorted);
  REQUIRE(writer);
  for (const OwnedEdit& e : edits) REQUIRE((*writer)->Add(e.view()).ok());
  REQUIRE((*writer)->count() == edits.size());
  Status s = (*writer)->Finish();
  REQUIRE(s.ok());
  return {(*writer)->bytes(), (*writer)->checksum()};
}

// Writes contents to path without syncing (fsync per damaged copy would make tests slow).
void WriteFile(nutchfs::Env& env, const std::string& path, const std::string& contents) {
  static_cast<void>(env.RemoveFile(path));  // a fresh file: rewriting one in place flushes
  auto file = env.NewWritableFile(path);
  REQUIRE(file);
  REQUIRE((*file)->Append(contents).ok());
  REQUIRE((*file)->Close().ok());
}

testutil::Drained ReadEdits(nutchfs::Env& env, const std::string& path,
                            size_t buffer = kEditReadBufferSize) {
  auto it = OpenEditFile(env, path, buffer);
  if (!it) return {{}, it.error()};
  return Drain(**it);
}

// Edits with hostile bytes and sizes: empty, NUL, 0xff, 64 KiB keys and values, extreme
// orders and every kind.
std::vector<OwnedEdit> HostileEdits() {
  std::vector<OwnedEdit> edits = {
      {"", 0, 0, ""},
      {std::string("\0", 1), ~uint64_t{0}, 255, std::string("\0\0", 2)},
      {std::string(65536, '\xff'), 7, 1, "v"},
      {"k", 1, 2, std::string(65536, '\0')},
      {std::string(70000, 'x'), 3, 3, std::string(70000, 'y')},
      {"WDBEDITS", 0xFFFFFFFF, 4, "\xff\xff\xff\xff"},
  };
  std::mt19937_64 rng(7);
  for (OwnedEdit& e : testutil::RandomEdits(rng, 3000)) edits.push_back(std::move(e));
  return edits;
}

TEST_CASE("edit file round-trips hostile edits", "[edit_file]") {
  testutil::TempDir dir;
  auto env = nutchfs::NewLocalEnv();
  std::vector<OwnedEdit> edits = HostileEdits();
  const std::string path = dir.File("log.edits");
  Written w = WriteEdits(*env, path, edits, /*sorted=*/false);
  REQUIRE(*env->GetFileSize(path) == w.bytes);

  for (size_t buffer : {size_t{1}, size_t{4096}, kEditReadBufferSize}) {
    testutil::Drained got = ReadEdits(*env, path, buffer);
    INFO("buffer " << buffer << ": " << got.status.ToString());
    REQUIRE(got.status.ok());
    REQUIRE(got.edits == edits);
  }
  auto info = ReadEditFileInfo(*env, path);
  REQUIRE(info);
  CHECK(info->count == edits.size());
  CHECK(info->file_size == w.bytes);
  CHECK(info->checksum == w.checksum);
  CHECK_FALSE(info->sorted);
}

TEST_CASE("edit file: sorted files, empty files", "[edit_file]") {
  testutil::TempDir dir;
  auto env = nutchfs::NewLocalEnv();
  for (bool sorted : {false, true}) {
    const std::string path = dir.File("empty.edits");
    Written w = WriteEdits(*env, path, {}, sorted);
    CHECK(w.bytes == 16 + 4 + 28);
    testutil::Drained got = ReadEdits(*env, path);
    CHECK(got.status.ok());
    CHECK(got.edits.empty());
    auto info = ReadEditFileInfo(*env, path);
    REQUIRE(info);
    CHECK(info->count == 0);
    CHECK(info->payload_bytes == 0);
    CHECK(info->checksum == w.checksum);
    CHECK(info->sorted == sorted);
  }
  std::vector<OwnedEdit> edits = testutil::StableSorted(HostileEdits());
  const std::string path = dir.File("sorted.edits");
  Written w = WriteEdits(*env, path, edits, /*sorted=*/true);
  testutil::Drained got = ReadEdits(*env, path);
  REQUIRE(got.status.ok());
  CHECK(got.edits == edits);
  CHECK(ReadEditFileInfo(*env, path)->sorted);
  CHECK(ReadEditFileInfo(*env, path)->checksum == w.checksum);
}

TEST_CASE("edit file: a sorted writer refuses edits out of order", "[edit_file]") {
  testutil::TempDir dir;
  auto env = nutchfs::NewLocalEnv();
  auto writer = EditFileWriter::Create(*env, dir.File("s.edits"), /*sorted=*/true);
  REQUIRE(writer);
  EditFileWriter& w = **writer;
  CHECK(w.Add({"b", 5, 0, ""}).ok());
  CHECK(w.Add({"b", 5, 1, ""}).ok());  // equal (key, order) is fine
  CHECK(w.Add({"b", 4, 0, ""}).IsInvalidArgument());
  CHECK(w.Add({"a", 9, 0, ""}).IsInvalidArgument());
  const std::string b_nul("b\0", 2);
  CHECK(w.Add({b_nul, 0, 0, ""}).ok());
  CHECK(w.Add({"ba", 0, 0, ""}).ok());
  CHECK(w.Finish().ok());
  CHECK(w.Add({"c", 0, 0, ""}).IsInvalidArgument());
  CHECK(w.Finish().IsInvalidArgument());
  CHECK(ReadEditFileInfo(*env, dir.File("s.edits"))->count == 4);
}

TEST_CASE("edit file: frames hold up to 64 KiB and a big record gets its own", "[edit_file]") {
  testutil::TempDir dir;
  auto env = nutchfs::NewLocalEnv();
  std::vector<OwnedEdit> edits;
  for (int i = 0; i < 5000; ++i) edits.push_back({std::to_string(i), 0, 0, std::string(50, 'v')});
  edits.push_back({"big", 0, 0, std::string(200000, 'b')});
  const std::string path = dir.File("f.edits");
  Written w = WriteEdits(*env, path, edits, false);
  auto contents = nutchfs::ReadFileToString(*env, path);
  REQUIRE(contents);
  // Walk the frame headers: small frames full up to a record, then the big one alone.
  std::vector<uint32_t> lengths;
  for (size_t pos = 16; DecodeFixed32(contents->data() + pos) != 0xFFFFFFFFu;) {
    lengths.push_back(DecodeFixed32(contents->data() + pos));
    pos += 8 + lengths.back();
  }
  // shared 0, unshared 3, "big", order 0, kind, value length, value.
  const uint32_t big_record = 1 + 1 + 3 + 1 + 1 + 3 + 200000;
  REQUIRE(lengths.size() >= 6);
  CHECK(lengths.back() == big_record);
  for (size_t i = 0; i + 2 < lengths.size(); ++i) {
    CHECK(lengths[i] <= kEditFrameSize);
    CHECK(lengths[i] > kEditFrameSize - 64);
  }
  CHECK(w.bytes == contents->size());
  CHECK(ReadEdits(*env, path, 100).edits == edits);
}

TEST_CASE("edit file: keys share prefixes with the record before, within a frame",
          "[edit_file]") {
  testutil::TempDir dir;
  auto env = nutchfs::NewLocalEnv();
  std::vector<OwnedEdit> edits;
  uint64_t key_bytes = 0;
  for (int i = 0; i < 20000; ++i) {
    edits.push_back({"http://www.example.com/section/page-" + std::to_string(100000 + i), 0,
                     0, "v"});
    key_bytes += edits.back().key.size();
  }
  const std::string path = dir.File("sorted.edits");
  Written w = WriteEdits(*env, path, edits, true);
  CHECK(w.bytes < key_bytes / 4);  // about 4 key bytes a record are stored
  CHECK(ReadEdits(*env, path, 100).edits == edits);
}

TEST_CASE("edit file: a frame whose first key claims a shared prefix is Corruption",
          "[edit_file][fault]") {
  testutil::TempDir dir;
  auto env = nutchfs::NewLocalEnv();
  const std::string path = dir.File("f.edits");
  WriteEdits(*env, path, {{"a", 0, 0, "1"}, {"ab", 0, 0, "2"}}, true);
  auto contents = nutchfs::ReadFileToString(*env, path);
  REQUIRE(contents);
  // One frame right after the 16-byte header; its first byte is the first record's
  // `shared`. Set it to 1 and make every checksum agree, so only the decoding can tell.
  std::string& f = *contents;
  const uint32_t length = DecodeFixed32(f.data() + 16);
  f[24] = 1;
  std::string crc;
  PutFixed32(&crc, crc32c::Mask(crc32c::Value(f.data() + 24, length)));
  f.replace(20, 4, crc);
  const uint32_t file_crc = crc32c::Extend(crc32c::Value(f.data(), 16), crc.data(), 4);
  std::string masked;
  PutFixed32(&masked, crc32c::Mask(file_crc));
  f.replace(f.size() - 12, 4, masked);
  WriteFile(*env, path, f);
  testutil::Drained got = ReadEdits(*env, path);
  CHECK(got.edits.empty());
  CHECK(got.status.IsCorruption());
  CHECK_THAT(got.status.message(),
             Catch::Contains("bad shared key prefix length at offset 24"));
}

// Reads a damaged file: it must fail with Corruption, and whatever it returned before
// failing must be a prefix of the true contents.
void ExpectCorruption(nutchfs::Env& env, const std::string& path,
                      const std::vector<OwnedEdit>& edits, const std::string& what) {
  testutil::Drained got = ReadEdits(env, path, 4096);
  INFO(what << ": " << got.status.ToString());
  REQUIRE(got.status.IsCorruption());
  REQUIRE(got.status.message().find(path) != std::string::npos);
  REQUIRE(got.status.message().find(" at offset ") != std::string::npos);
  REQUIRE(got.edits.size() <= edits.size());
  for (size_t i = 0; i < got.edits.size(); ++i) REQUIRE(got.edits[i] == edits[i]);
}

TEST_CASE("edit file: a flipped byte anywhere is Corruption", "[edit_file][fault]") {
  testutil::TempDir dir;
  auto env = nutchfs::NewLocalEnv();
  std::mt19937_64 rng(11);
  for (bool sorted : {false, true}) {
    // Small: every byte. Large (several frames): header, frame headers, trailer, and a
    // stride through the payload.
    for (size_t n : {size_t{0}, size_t{12}, size_t{4000}}) {
      std::vector<OwnedEdit> edits = testutil::RandomEdits(rng, n);
      if (sorted) edits = testutil::StableSorted(std::move(edits));
      const std::string good = dir.File("good.edits");
      const std::string bad = dir.File("bad.edits");
      Written w = WriteEdits(*env, good, edits, sorted);
      std::set<uint64_t> offsets;
      for (uint64_t i = 0; i < std::min<uint64_t>(w.bytes, 400); ++i) offsets.insert(i);
      for (uint64_t i = w.bytes - std::min<uint64_t>(w.bytes, 100); i < w.bytes; ++i) {
        offsets.insert(i);
      }
      for (uint64_t i = 0; i < w.bytes; i += 1 + rng() % 2000) offsets.insert(i);
      for (uint64_t f = 16; f < w.bytes - 32; f += kEditFrameSize) {
        for (uint64_t i = f; i < f + 16; ++i) offsets.insert(i);  // near frame headers
      }
      for (uint64_t offset : offsets) {
        REQUIRE(env->RenameFile(good, bad).ok());
        testutil::FlipByte(bad, offset);
        ExpectCorruption(*env, bad, edits, "flip at " + std::to_string(offset));
        testutil::FlipByte(bad, offset);
        REQUIRE(env->RenameFile(bad, good).ok());
      }
      CHECK(ReadEdits(*env, good).status.ok());
    }
  }
}

TEST_CASE("edit file: a label is kept, checked, and covered by the file checksum",
          "[edit_file][fault]") {
  testutil::TempDir dir;
  auto env = nutchfs::NewLocalEnv();
  std::mt19937_64 rng(14);
  const std::vector<OwnedEdit> edits = testutil::StableSorted(testutil::RandomEdits(rng, 40));
  const std::string label = "webdb-exchange db=crawl round=5 token=0123456789abcdef stage=3 "
                            "from=1 to=0";
  const std::string path = dir.File("labelled.edits");
  auto writer = EditFileWriter::Create(*env, path, /*sorted=*/true, label);
  REQUIRE(writer);
  for (const OwnedEdit& e : edits) REQUIRE((*writer)->Add(e.view()).ok());
  REQUIRE((*writer)->Finish().ok());

  auto info = ReadEditFileInfo(*env, path);
  REQUIRE(info);
  CHECK(info->label == label);
  CHECK(info->sorted);
  CHECK(info->count == edits.size());
  CHECK(info->file_size == *env->GetFileSize(path));
  for (std::optional<std::string_view> expected : {std::optional<std::string_view>(),
                                                   std::optional<std::string_view>(label)}) {
    auto it = OpenEditFile(*env, path, 4096, expected);
    REQUIRE(it);
    testutil::Drained got = Drain(**it);
    REQUIRE(got.status.ok());
    CHECK(got.edits == edits);
  }

  const std::string other = "webdb-exchange db=crawl round=4 token=0123456789abcdef stage=3 "
                            "from=1 to=0";
  auto wrong = OpenEditFile(*env, path, 4096, other);
  REQUIRE_FALSE(wrong);
  CHECK(wrong.error().IsCorruption());
  CHECK_THAT(wrong.error().message(),
             Catch::Contains(path + ": edit file labelled '" + label + "', expected '" + other +
                             "' at offset 20"));
  const std::string plain = dir.File("plain.edits");
  WriteEdits(*env, plain, edits, true);
  CHECK(ReadEditFileInfo(*env, plain)->label.empty());
  auto unlabelled = OpenEditFile(*env, plain, 4096, label);
  REQUIRE_FALSE(unlabelled);
  CHECK_THAT(unlabelled.error().message(),
             Catch::Contains(plain + ": edit file has no label, expected '" + label + "'"));

  // Every byte of the header, the label's length and the label is covered.
  const std::string bad = dir.File("bad.edits");
  for (uint64_t offset = 0; offset < 16 + 4 + label.size(); ++offset) {
    REQUIRE(env->RenameFile(path, bad).ok());
    testutil::FlipByte(bad, offset);
    ExpectCorruption(*env, bad, edits, "flip at " + std::to_string(offset));
    testutil::FlipByte(bad, offset);
    REQUIRE(env->RenameFile(bad, path).ok());
  }

  CHECK(EditFileWriter::Create(*env, dir.File("max.edits"), false, std::string(kMaxEditLabel, 'x')));
  auto too_long = EditFileWriter::Create(*env, dir.File("long.edits"), false,
                                         std::string(kMaxEditLabel + 1, 'x'));
  REQUIRE_FALSE(too_long);
  CHECK(too_long.error().IsInvalidArgument());
}

TEST_CASE("edit file: truncated or extended files are Corruption", "[edit_file][fault]") {
  testutil::TempDir dir;
  auto env = nutchfs::NewLocalEnv();
  std::mt19937_64 rng(12);
  std::vector<OwnedEdit> edits = testutil::RandomEdits(rng, 3000);
  const std::string good = dir.File("good.edits");
  const std::string bad = dir.File("bad.edits");
  Written w = WriteEdits(*env, good, edits, false);
  auto contents = nutchfs::ReadFileToString(*env, good);
  REQUIRE(contents);
  std::set<uint64_t> sizes;
  for (uint64_t i = 0; i < 100; ++i) sizes.insert(i);
  for (uint64_t i = w.bytes - 100; i < w.bytes; ++i) sizes.insert(i);
  for (uint64_t i = 0; i < w.bytes; i += 1 + rng() % 3000) sizes.insert(i);
  for (uint64_t size : sizes) {
    WriteFile(*env, bad, *contents);
    testutil::TruncateFile(bad, size);
    ExpectCorruption(*env, bad, edits, "truncated to " + std::to_string(size));
    auto info = ReadEditFileInfo(*env, bad);
    INFO("info of file truncated to " << size);
    CHECK((!info && info.error().IsCorruption()));
  }
  WriteFile(*env, bad, *contents + "x");
  ExpectCorruption(*env, bad, edits, "one trailing byte");
}

TEST_CASE("edit file: a footer that miscounts its records is Corruption", "[edit_file][fault]") {
  auto env = nutchfs::NewMemEnv();
  std::mt19937_64 rng(15);
  std::vector<OwnedEdit> edits = testutil::StableSorted(testutil::RandomEdits(rng, 500));
  Written w = WriteEdits(*env, "/good.edits", edits, true);
  auto contents = nutchfs::ReadFileToString(*env, "/good.edits");
  REQUIRE(contents);
  // The footer's count, whose bytes no checksum covers (a peer may claim any count).
  const uint64_t count_at = w.bytes - 28;
  auto with_count = [&](uint64_t count) {
    std::string bytes = *contents;
    std::string fixed;
    PutFixed64(&fixed, count);
    bytes.replace(count_at, 8, fixed);
    WriteFile(*env, "/bad.edits", bytes);
  };
  // More than its payload can hold: refused by the cheap look, before any record is read.
  for (uint64_t claimed : {~uint64_t{0}, w.bytes}) {
    with_count(claimed);
    auto info = ReadEditFileInfo(*env, "/bad.edits");
    INFO("claims " << claimed);
    REQUIRE_FALSE(info);
    CHECK(info.error().IsCorruption());
    CHECK_THAT(info.error().message(),
               Catch::Contains("footer record count " + std::to_string(claimed) +
                               " exceeds what its payload bytes can hold"));
    ExpectCorruption(*env, "/bad.edits", edits, "claims too many");
  }
  // A count it could hold but does not: the look takes it, the reading refuses it.
  for (uint64_t claimed : {uint64_t{0}, uint64_t{499}, uint64_t{501}}) {
    with_count(claimed);
    auto info = ReadEditFileInfo(*env, "/bad.edits");
    INFO("claims " << claimed);
    REQUIRE(info);
    CHECK(info->count == claimed);
    testutil::Drained got = ReadEdits(*env, "/bad.edits");
    CHECK(got.status.IsCorruption());
    CHECK_THAT(got.status.message(),
               Catch::Contains("footer record count " + std::to_string(claimed) + " differs"));
  }
}

TEST_CASE("edit file: a file whose writer never finished is Corruption", "[edit_file][fault]") {
  testutil::TempDir dir;
  auto env = nutchfs::NewLocalEnv();
  std::mt19937_64 rng(13);
  std::vector<OwnedEdit> edits = testutil::RandomEdits(rng, 5000);
  const std::string path = dir.File("unfinished.edits");
  {
    auto writer = EditFileWriter::Create(*env, path, false);
    REQUIRE(writer);
    for (const OwnedEdit& e : edits) REQUIRE((*writer)->Add(e.view()).ok());
  }
  ExpectCorruption(*env, path, edits, "unfinished");
  CHECK(ReadEditFileInfo(*env, path).error().IsCorruption());
}

TEST_CASE("edit file: a silently cut transfer reads as Corruption", "[edit_file][fault]") {
  auto mem = nutchfs::NewMemEnv();
  auto env = nutchfs::NewFaultEnv(mem.get());
  std::mt19937_64 rng(14);
  std::vector<OwnedEdit> edits = testutil::StableSorted(testutil::RandomEdits(rng, 4000));
  Written whole = WriteEdits(*env, "/whole.edits", edits, true);
  CHECK(ReadEdits(*env, "/whole.edits", 1000).edits == edits);  // the in-memory Env too
  for (uint64_t keep : {uint64_t{0}, uint64_t{10}, uint64_t{70000}, whole.bytes - 1}) {
    REQUIRE(env->Inject({nutchfs::FaultOp::kNewWritable, 1, nutchfs::FaultKind::kTruncate, 1, keep})
                .ok());
    WriteEdits(*env, "/cut.edits", edits, true);  // every call reports OK
    INFO("kept " << keep);
    if (keep < 16) {
      CHECK(OpenEditFile(*env, "/cut.edits").error().IsCorruption());
    } else {
      ExpectCorruption(*env, "/cut.edits", edits, "cut transfer");
    }
    CHECK(ReadEditFileInfo(*env, "/cut.edits").error().IsCorruption());
  }
}

TEST_CASE("edit file: read and write errors are reported", "[edit_file][fault]") {
  auto mem = nutchfs::NewMemEnv();
  auto env = nutchfs::NewFaultEnv(mem.get());
  std::mt19937_64 rng(15);
  std::vector<OwnedEdit> edits = testutil::RandomEdits(rng, 4000);
  WriteEdits(*env, "/a.edits", edits, false);
  REQUIRE(env->Inject({nutchfs::FaultOp::kRead, 3, nutchfs::FaultKind::kError, 1, 0}).ok());
  testutil::Drained got = ReadEdits(*env, "/a.edits", 4096);
  CHECK(got.status.IsIOError());
  CHECK(got.edits.size() < edits.size());
  env->Clear();
  REQUIRE(env->Inject({nutchfs::FaultOp::kAppend, 2, nutchfs::FaultKind::kError, 1, 0}).ok());
  auto writer = EditFileWriter::Create(*env, "/b.edits", false);
  REQUIRE(writer);
  Status s;
  for (const OwnedEdit& e : edits) {
    s = (*writer)->Add(e.view());
    if (!s.ok()) break;
  }
  if (s.ok()) s = (*writer)->Finish();
  CHECK(s.IsIOError());
}

TEST_CASE("edit file: opening a missing file fails", "[edit_file]") {
  testutil::TempDir dir;
  auto env = nutchfs::NewLocalEnv();
  CHECK_FALSE(OpenEditFile(*env, dir.File("missing")));
  CHECK_FALSE(ReadEditFileInfo(*env, dir.File("missing")));
}

}  // namespace
}  // namespace webdb
