// `webdb calls ... | distwriter launch --config C -`: the converters' JSON Lines applied
// by k writers equal the same command run on a single-machine db, and bad input applies
// nothing anywhere.
#include <catch2/catch.hpp>

#include "test/util/db_dump.h"
#include "test/util/dist_cluster.h"
#include "test/util/subprocess.h"
#include "test/util/temp_dir.h"
#include "test/util/warc_util.h"
#include "webdb/db/reader.h"

namespace crawl {
namespace {

const std::string kWebdb = PROJECT_BINARY_DIR "/tools/webdb";
const std::string kDistwriter = PROJECT_BINARY_DIR "/tools/distwriter";

testutil::ProcessResult Shell(const std::string& command, const std::string& prefix) {
  return testutil::RunProcess({"/bin/bash", "-o", "pipefail", "-c", command}, {}, prefix);
}

testutil::DbDump DumpSingle(const std::string& db) {
  auto env = nutchfs::NewLocalEnv();
  auto reader = webdb::Reader::Open(*env, db);
  REQUIRE(reader);
  auto dump = testutil::DumpDb(**reader);
  REQUIRE(dump);
  return *dump;
}

TEST_CASE("calls inject and calls warc piped into distwriter launch", "[calls]") {
  testutil::TempDir dir;
  testutil::DistCluster cluster(kDistwriter, 2);
  cluster.Create();
  std::string db = dir.File("db");
  REQUIRE(testutil::RunProcess({kWebdb, "create", db}, {}, dir.File("create")).exit_code == 0);
  testutil::WriteFile(dir.File("seeds"), "http://a.example/\nhttp://b.example/x\n");
  std::string warc = testutil::HtmlResponseRecord(
      "http://a.example/", "<a href=/y>y</a><a href='http://c.example/'>c</a>");
  warc += testutil::WarcRecordText("response", "http://b.example/x",
                                   testutil::HttpText(404, "", ""));
  testutil::WriteFile(dir.File("crawl.warc.gz"), testutil::Gzip(warc));
  std::string launch = " | " + kDistwriter + " launch --config " + cluster.config() + " -";
  for (const std::string& step : {"inject " + dir.File("seeds"),
                                  "warc --config " + cluster.config() + " " +
                                      dir.File("crawl.warc.gz")}) {
    auto dist = Shell(kWebdb + " calls " + step + launch, dir.File("dist"));
    INFO(dist.Describe());
    REQUIRE(dist.exit_code == 0);
  }
  REQUIRE(Shell(kWebdb + " inject -q " + db + " " + dir.File("seeds"), dir.File("s1")).exit_code ==
          0);
  REQUIRE(Shell(kWebdb + " update -q " + db + " " + dir.File("crawl.warc.gz"), dir.File("s2"))
              .exit_code == 0);
  testutil::DbDump single = DumpSingle(db);
  CHECK(single.num_pages == 4);
  CHECK(single.num_links == 2);
  CHECK(testutil::CompareDumps(single, cluster.Dump()).empty());

  testutil::WriteFile(dir.File("bad"), "http://new.example/\nftp://x/\n");
  auto bad = Shell(kWebdb + " calls inject " + dir.File("bad") + launch, dir.File("bad"));
  CHECK(bad.exit_code != 0);
  CHECK(bad.err.find("bad:2: not an http or https URL") != std::string::npos);
  CHECK(testutil::CompareDumps(single, cluster.Dump()).empty());
  auto bad_single = Shell(kWebdb + " inject " + db + " " + dir.File("bad"), dir.File("bad1"));
  CHECK(bad_single.exit_code == 3);
  CHECK(testutil::CompareDumps(single, DumpSingle(db)).empty());
}

}  // namespace
}  // namespace crawl
