// Determinism: the same calls give byte-identical table files whatever the memory budget
// (how the sorters spill and merge, which blocks are copied) and whether the call file is
// parsed and logged, the edits sorted and the key ranges of a stage merged on threads of
// their own (whatever those threads' timing: which lane logs which chunk of calls).
#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "nutchfs/env.h"
#include "test/util/call_writer.h"
#include "test/util/session_gen.h"
#include "test/util/temp_dir.h"
#include "webdb/calls/call_file.h"
#include "webdb/db/manifest.h"
#include "webdb/db/writer.h"

namespace webdb {
namespace {

// Applies every call of the call file at path in one session on the db at dir; the
// number of sorted runs the sorters had spilled by the time stage 5 began.
size_t Apply(nutchfs::Env& env, const std::string& dir, const std::string& path, size_t budget,
             bool threads) {
  WriterOptions options;
  options.memory_budget = budget;
  options.threads = threads;
  options.partition_rows = 500;  // every table in key ranges (webdb/db/update.h)
  size_t runs = 0;
  options.hooks.on_stage = [&](int stage) {
    auto names = env.GetChildren(dir + "/work");
    if (stage != 5 || !names) return;
    for (const std::string& name : *names) runs += name.find("-run-") != std::string::npos;
  };
  const bool parse_thread = threads;
  auto writer = Writer::Open(env, dir, options);
  REQUIRE(writer);
  auto reader = CallFileReader::Open(env, path, parse_thread);
  REQUIRE(reader);
  if (threads) {  // as `webdb apply` does: the parse threads log through the lanes
    auto logged = (*reader)->LogCalls((*writer)->lanes(), {});
    INFO((logged ? Status::OK() : logged.error()).ToString());
    REQUIRE(logged);
    CHECK(*logged > 10000);
  } else {
    for (;;) {
      auto call = (*reader)->Next();
      REQUIRE(call);
      if (!*call) break;
      REQUIRE(ApplyCall(**writer, **call).ok());
    }
  }
  Status s = (*writer)->Close();
  INFO(s.ToString());
  REQUIRE(s.ok());
  return runs;
}

std::string Contents(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

// The table files of the db's current version, parts included, in manifest order, with
// their bytes.
std::vector<std::pair<std::string, std::string>> Tables(nutchfs::Env& env, const std::string& dir) {
  auto manifest = ReadCurrentManifest(env, dir);
  REQUIRE(manifest);
  std::vector<std::pair<std::string, std::string>> files;
  for (const TableParts& parts : manifest->tables) {
    for (const TableFile& f : parts) files.emplace_back(f.name, Contents(dir + "/" + f.name));
  }
  return files;
}

TEST_CASE("tables are byte-identical at every budget, with and without threads",
          "[determinism]") {
  testutil::TempDir dir;
  auto env = nutchfs::NewLocalEnv();
  testutil::GenOptions gen;
  gen.universe_urls = 4000;
  gen.universe_md5s = 800;
  gen.min_calls = 20000;
  gen.max_calls = 25000;
  gen.churn = 0.02;
  gen.long_url_chance = 0;
  gen.long_anchor_chance = 0;
  gen.hostile_bytes = false;
  testutil::SessionGenerator sessions(78, gen);
  const int kSessions = 4;
  for (int i = 0; i < kSessions; ++i) {
    testutil::WriteCallFile(dir.File("calls-" + std::to_string(i)), sessions.Next());
  }
  std::vector<std::pair<std::string, std::string>> reference;
  for (size_t budget : {size_t{1} << 20, size_t{4} << 20, size_t{256} << 20}) {
    for (bool threads : {false, true}) {
      INFO("budget " << budget << " parse and sort threads " << threads);
      const std::string db = dir.File("db-" + std::to_string(budget) + "-" +
                                      std::to_string(threads));
      REQUIRE(Writer::Create(*env, db).ok());
      size_t runs = 0;
      for (int i = 0; i < kSessions; ++i) {
        runs += Apply(*env, db, dir.File("calls-" + std::to_string(i)), budget, threads);
      }
      if (budget == size_t{1} << 20) CHECK(runs > 10);  // the sorts spilled and merged
      auto tables = Tables(*env, db);
      if (reference.empty()) {
        reference = tables;
        size_t bytes = 0;
        for (const auto& [name, contents] : tables) bytes += contents.size();
        REQUIRE(bytes > (size_t{512} << 10));  // many blocks
        REQUIRE(tables.size() == 2 * kNumTables);  // each table in two parts
        continue;
      }
      REQUIRE(tables.size() == reference.size());
      for (size_t t = 0; t < tables.size(); ++t) {
        INFO("table " << tables[t].first);
        CHECK(tables[t].first == reference[t].first);
        CHECK(tables[t].second == reference[t].second);
      }
    }
  }
}

}  // namespace
}  // namespace webdb
