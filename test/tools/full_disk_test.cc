// `webdb apply` on a real file system that fills up mid-apply: a size-limited tmpfs
// (test/util/tmpfs.h; the test needs root and fails if the mount does) holding the db,
// with a filler file leaving room for about half of the new tables. The apply must exit
// 4 naming ENOSPC, the operation and a file of the db; the db must be left exactly as
// it was (same files, byte for byte: no lock, no work area, no unfinished table, no
// temporary file) and verify clean; once the filler is deleted, the same apply succeeds
// with the model's result.
#include <catch2/catch.hpp>
#include <filesystem>

#include "nutchfs/env.h"
#include "test/util/call_writer.h"
#include "test/util/crash_recovery.h"
#include "test/util/model.h"
#include "test/util/session_gen.h"
#include "test/util/subprocess.h"
#include "test/util/temp_dir.h"
#include "test/util/tmpfs.h"
#include "webdb/db/reader.h"

namespace {

using testutil::ProcessResult;
using testutil::Session;

const std::string kWebdb = PROJECT_BINARY_DIR "/tools/webdb";

ProcessResult Webdb(const testutil::TempDir& tmp, const std::vector<std::string>& args) {
  static int n = 0;
  std::vector<std::string> argv = {kWebdb};
  argv.insert(argv.end(), args.begin(), args.end());
  return testutil::RunProcess(argv, {}, tmp.File("webdb-" + std::to_string(n++)));
}

ProcessResult Apply(const testutil::TempDir& tmp, const std::string& db, const std::string& calls) {
  return Webdb(tmp, {"apply", db, calls, "--quiet", "--memory", "1M"});
}

testutil::DbDump Dump(nutchfs::Env& env, const std::string& db) {
  auto reader = webdb::Reader::Open(env, db);
  INFO((reader ? "" : reader.error().ToString()));
  REQUIRE(reader);
  auto dump = testutil::DumpDb(**reader);
  REQUIRE(dump);
  return *dump;
}

uint64_t DirBytes(const std::string& dir) {
  uint64_t bytes = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
    if (e.is_regular_file()) bytes += e.file_size();
  }
  return bytes;
}

TEST_CASE("webdb apply on a file system that fills up fails cleanly and succeeds later",
          "[fault]") {
  testutil::TempDir tmp;
  auto env = nutchfs::NewLocalEnv();
  testutil::GenOptions options;
  options.hostile_bytes = false;  // call files carry valid UTF-8 only
  options.universe_urls = 20000;
  options.min_calls = 30000;
  options.max_calls = 30000;
  options.long_anchor_chance = 0.001;
  testutil::SessionGenerator gen(101, options);
  const Session first = gen.Next(), second = gen.Next();
  const std::string calls1 = tmp.File("first.jsonl"), calls2 = tmp.File("second.jsonl");
  testutil::WriteCallFile(calls1, first);
  testutil::WriteCallFile(calls2, second);
  testutil::Model model;
  model.Apply(first);

  // How big the db grows with the second session, on an unlimited disk.
  const std::string sized = tmp.File("sized");
  REQUIRE(Webdb(tmp, {"create", sized}).exit_code == 0);
  REQUIRE(Apply(tmp, sized, calls1).exit_code == 0);
  REQUIRE(Apply(tmp, sized, calls2).exit_code == 0);
  const uint64_t grown = DirBytes(sized);
  REQUIRE(grown > (4 << 20));  // enough to fail in the middle, not at the first write

  testutil::Tmpfs disk(tmp.File("small"), 256 << 20);
  const std::string db = disk.dir() + "/db";
  REQUIRE(Webdb(tmp, {"create", db}).exit_code == 0);
  REQUIRE(Apply(tmp, db, calls1).exit_code == 0);
  const testutil::FileMap before = testutil::FilesBelow(*env, db);
  // Room for about half of the new tables: the old ones stay until the switch.
  const std::string filler = disk.dir() + "/filler";
  disk.Fill(filler, (256 << 20) - disk.Used() - grown / 2);

  ProcessResult full = Apply(tmp, db, calls2);
  INFO(full.Describe());
  CHECK(full.exit_code == 4);
  CHECK_THAT(full.err, Catch::Contains("No space left on device (ENOSPC)"));
  CHECK_THAT(full.err, Catch::Contains(db + "/"));
  CHECK_THAT(full.err, Catch::Contains("write ") || Catch::Contains("sync ") ||
                           Catch::Contains("open "));
  CHECK(testutil::DiffFiles(before, testutil::FilesBelow(*env, db)) == "");
  CHECK(testutil::CompareDumps(model.ToDump(), Dump(*env, db)) == "");
  ProcessResult verified = Webdb(tmp, {"verify", db});
  CHECK(verified.exit_code == 0);

  std::filesystem::remove(filler);
  ProcessResult again = Apply(tmp, db, calls2);
  INFO(again.Describe());
  REQUIRE(again.exit_code == 0);
  model.Apply(second);
  CHECK(testutil::CompareDumps(model.ToDump(), Dump(*env, db)) == "");
  CHECK(Webdb(tmp, {"verify", db}).exit_code == 0);
}

}  // namespace
