// Exchanged files as a hostile or broken peer could send them: a file of another attempt
// at the round (wrong token), a replayed one from an older round, one meant for another
// writer or from another sender, one without a label, and one that keeps growing. Each
// is refused naming the file, the sender, what was expected and what was found, and is
// removed; the right file is read.
#include "distwriter/exchange_file.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <random>

#include "test/util/edit_util.h"
#include "test/util/temp_dir.h"

namespace distwriter {
namespace {

using testutil::OwnedEdit;

const ExchangeId kWant{"crawl", 5, "0123456789abcdef", 3, 1, 0};
const std::string kSender = "writer 1 (machine m1)";

void Write(nutchfs::Env& env, const std::string& path, const std::optional<ExchangeId>& id,
           const std::vector<OwnedEdit>& edits) {
  auto out = id ? CreateExchangeFile(env, path, *id, true)
                : webdb::EditFileWriter::Create(env, path, true);
  REQUIRE(out);
  for (const OwnedEdit& e : edits) REQUIRE((*out)->Add(e.view()).ok());
  REQUIRE((*out)->Finish().ok());
}

std::vector<OwnedEdit> SomeEdits(size_t n) {
  std::mt19937_64 rng(61);
  return testutil::StableSorted(testutil::RandomEdits(rng, n));
}

TEST_CASE("exchange labels name db, round, token, stage, sender, receiver and epoch") {
  CHECK(kWant.Label() ==
        "webdb-exchange db=crawl round=5 token=0123456789abcdef stage=3 from=1 to=0 epoch=0");
  CHECK(ExchangeId::Parse(kWant.Label()) == kWant);
  const ExchangeId zero{"crawl", 5, "", 0, 2, 1, 7};
  CHECK(zero.Label() == "webdb-exchange db=crawl round=5 token=- stage=0 from=2 to=1 epoch=7");
  CHECK(ExchangeId::Parse(zero.Label()) == zero);
  for (const char* bad :
       {"", "webdb-exchange", "webdb-exchange db=crawl round=5 token=- stage=0 from=2",
        "webdb-exchange db=crawl round=5 token=- stage=0 from=2 to=1",
        "webdb-exchange db=crawl round=5 token=- stage=0 from=2 to=1 epoch=1 extra=1",
        "webdb-exchange db=crawl round=5 token=- stage=0 from=2 to=1 epoch=x",
        "webdb-exchange round=5 db=crawl token=- stage=0 from=2 to=1",
        "webdb-exchange db=crawl round=x token=- stage=0 from=2 to=1",
        "webdb-exchange db=crawl round=5 token=- stage=0 from=2 to=1 ",
        "webdb-exchange db=crawl round=-5 token=- stage=0 from=2 to=1",
        "other db=crawl round=5 token=- stage=0 from=2 to=1"}) {
    CAPTURE(bad);
    CHECK_FALSE(ExchangeId::Parse(bad).has_value());
  }
}

TEST_CASE("a received file that is not what its name says is refused and removed", "[fault]") {
  testutil::TempDir dir;
  auto env = nutchfs::NewLocalEnv();
  const std::vector<OwnedEdit> edits = SomeEdits(50);
  const std::string path = dir.File("from-1.edits");
  struct Case {
    std::optional<ExchangeId> found;
    std::string why;
  };
  ExchangeId token = kWant, replay = kWant, later = kWant, other_to = kWant, other_from = kWant,
             stage = kWant, db = kWant;
  token.token = "fedcba9876543210";
  replay.round = 4;
  later.round = 6;
  other_to.to = 2;
  other_from.from = 2;
  stage.stage = 4;
  db.db = "other";
  const Case cases[] = {
      {token,
       "another attempt at round 5 (token fedcba9876543210, this one's is 0123456789abcdef)"},
      {replay, "a replayed file of round 4 (this is round 5)"},
      {later, "it is of round 6"},
      {other_to, "it is meant for writer 2, not for writer 0"},
      {other_from, "it was sent by writer 2"},
      {stage, "it is a stage 4 file"},
      {db, "it is of db 'other'"},
      {std::nullopt, "it carries no exchange label"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.why);
    Write(*env, path, c.found, edits);
    auto opened = OpenExchangeFile(*env, path, kWant, kSender, 4096);
    REQUIRE_FALSE(opened);
    CHECK(opened.error().IsCorruption());
    const std::string& m = opened.error().message();
    CHECK_THAT(m, Catch::Contains("writer 0: round 5 stage 3: file from " + kSender + ": " + path +
                                  ": refused: "));
    CHECK_THAT(m, Catch::Contains(c.why));
    CHECK_THAT(m, Catch::Contains("(found '" + (c.found ? c.found->Label() : std::string()) +
                                  "', expected '" + kWant.Label() + "')"));
    CHECK_FALSE(env->FileExists(path));  // removed: a rerun waits for a fresh copy
  }
  Write(*env, path, kWant, edits);
  auto opened = OpenExchangeFile(*env, path, kWant, kSender, 4096);
  REQUIRE(opened);
  testutil::Drained got = testutil::Drain(**opened);
  REQUIRE(got.status.ok());
  CHECK(got.edits == edits);
}

TEST_CASE("a received file that grows, during or before its reading, is refused", "[fault]") {
  testutil::TempDir dir;
  auto env = nutchfs::NewLocalEnv();
  const std::vector<OwnedEdit> edits = SomeEdits(3000);
  const std::string path = dir.File("from-1.edits");
  Write(*env, path, kWant, edits);
  const uint64_t size = *env->GetFileSize(path);

  auto opened = OpenExchangeFile(*env, path, kWant, kSender, 4096);
  REQUIRE(opened);
  REQUIRE((*opened)->Valid());
  std::ofstream(path, std::ios::app) << "more";
  testutil::Drained got = testutil::Drain(**opened);
  INFO(got.status.ToString());
  CHECK(got.status.IsCorruption());
  // The reader meets the new bytes past the footer, or the size check at the end finds
  // the file longer than on arrival: either way it is refused.
  CHECK_THAT(got.status.message(),
             Catch::Contains("file from " + kSender + ": " + path + ": ") &&
                 (Catch::Contains("trailing bytes after footer") ||
                  Catch::Contains("changed from " + std::to_string(size) + " to " +
                                  std::to_string(size + 4) + " bytes while it was read")));
  CHECK_FALSE(env->FileExists(path));

  // Replaced under its name by a longer file while read: the reader finishes the file it
  // opened, but the name no longer holds what arrived.
  Write(*env, path, kWant, edits);
  auto replaced = OpenExchangeFile(*env, path, kWant, kSender, 4096);
  REQUIRE(replaced);
  Write(*env, dir.File("longer.edits"), kWant, SomeEdits(3001));
  const uint64_t longer = *env->GetFileSize(dir.File("longer.edits"));
  REQUIRE(env->RenameFile(dir.File("longer.edits"), path).ok());
  got = testutil::Drain(**replaced);
  CHECK(got.status.IsCorruption());
  CHECK_THAT(got.status.message(),
             Catch::Contains(path + ": changed from " + std::to_string(size) + " to " +
                             std::to_string(longer) + " bytes while it was read"));
  CHECK(got.edits == edits);

  Write(*env, path, kWant, edits);
  std::ofstream(path, std::ios::app) << "more";  // bytes past the footer on arrival
  auto grown = OpenExchangeFile(*env, path, kWant, kSender, 4096);
  REQUIRE_FALSE(grown);
  CHECK(grown.error().IsCorruption());
  CHECK_THAT(grown.error().message(), Catch::Contains(path + ": "));
  CHECK_FALSE(env->FileExists(path));
}

TEST_CASE("a symbolic link in place of a received file is refused and removed", "[fault]") {
  testutil::TempDir dir;
  auto env = nutchfs::NewLocalEnv({dir.File("root")});
  const std::vector<OwnedEdit> edits = SomeEdits(20);
  std::filesystem::create_directories(dir.File("root/w0"));
  const std::string outside = dir.File("outside.edits");
  Write(*env, outside, kWant, edits);  // the right file, but outside the root
  const std::string path = dir.File("root/w0/from-1.edits");
  std::filesystem::create_symlink(outside, path);
  auto opened = OpenExchangeFile(*env, path, kWant, kSender, 4096);
  REQUIRE_FALSE(opened);
  CHECK(opened.error().IsRefused());
  CHECK_THAT(opened.error().message(), Catch::Contains(path + " is a symbolic link below"));
  CHECK_FALSE(std::filesystem::is_symlink(path));
  CHECK(std::filesystem::exists(outside));  // the link went, not its target
}

}  // namespace
}  // namespace distwriter
