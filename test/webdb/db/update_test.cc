// The sorters' share of the memory budget (webdb::SorterBudget): the budget less the
// indexes of the tables an update holds open at once, reckoned from their footers so
// that it covers what Table::Open keeps, and never less than a quarter of the budget.
#include "webdb/db/update.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <string>

#include "test/util/session.h"
#include "test/util/temp_dir.h"
#include "webdb/db/manifest_table.h"

namespace webdb {
namespace {

// A db of 6,000 pages with ten links each, to other pages: each table has many data blocks.
struct Db {
  static constexpr int kPages = 6000;

  Db() : env(nutchfs::NewLocalEnv()), dir(tmp.File("db")) {
    REQUIRE(Writer::Create(*env, dir, 2).ok());
    auto url = [](int i) {
      return "http://host" + std::to_string(i % 50) + ".example/page/" + std::to_string(i);
    };
    testutil::Session session;
    for (int i = 0; i < kPages; ++i) {
      Page page = Page::WithDefaults(url(i));
      page.num_outlinks = 10;
      for (int j = 0; j < 10; ++j) {
        session.push_back(testutil::AddLinkCall(
            {page.md5, url((i * 7 + j) % kPages), j, "anchor text " + std::to_string(j), false}));
      }
      session.push_back(testutil::AddPageCall(std::move(page)));
    }
    REQUIRE(testutil::RunSession(*env, dir, session).ok());
    auto m = ReadCurrentManifest(*env, dir);
    REQUIRE(m.has_value());
    manifest = *m;
  }
  std::unique_ptr<Table> Open(TableId t) {
    auto table = OpenTableOf(*env, TableRefsOf(dir, manifest, t, "m"));
    REQUIRE(table.has_value());
    return std::move(*table);
  }

  testutil::TempDir tmp;
  std::unique_ptr<nutchfs::Env> env;
  std::string dir;
  Manifest manifest;
};

TEST_CASE("the sorters get the budget less the indexes an update holds open", "[update]") {
  Db db;
  uint64_t index[4] = {};
  for (TableId t : {TableId::kPagesByUrl, TableId::kPagesByMd5, TableId::kLinksByMd5,
                    TableId::kLinksByUrl}) {
    auto table = db.Open(t);
    INFO("table " << static_cast<int>(t) << ": " << table->num_records() << " records");
    REQUIRE(table->num_blocks() > 1);
    // What Open keeps: the last key of each group of kIndexGroup blocks (and a summary of
    // the group); a reader holds one group's entries, at most the whole index.
    uint64_t kept = 0;
    for (uint64_t b = Table::kIndexGroup - 1;; b += Table::kIndexGroup) {
      b = std::min(b, table->num_blocks() - 1);
      kept += table->BlockLastKey(b)->size();
      if (b == table->num_blocks() - 1) break;
    }
    REQUIRE(table->num_parts() == 1);
    const Footer& footer = table->footer(0);
    index[static_cast<int>(t)] = Table::IndexMemory(footer);
    CHECK(index[static_cast<int>(t)] >= kept);
    const uint64_t groups = (table->num_blocks() + Table::kIndexGroup - 1) / Table::kIndexGroup;
    CHECK(index[static_cast<int>(t)] <= kept + groups * 128 + Table::kIndexGroup * footer.index.size / table->num_blocks());
  }
  const uint64_t held = index[2] + index[3] + std::max(index[0], index[1]);

  const size_t budget = size_t{64} << 20;
  auto sorters = SorterBudget(*db.env, db.dir, db.manifest, budget);
  REQUIRE(sorters.has_value());
  CHECK(*sorters == budget - held);

  SECTION("never below a quarter of the budget") {
    const size_t small = held + held / 10;
    auto floor = SorterBudget(*db.env, db.dir, db.manifest, small);
    REQUIRE(floor.has_value());
    CHECK(*floor == small / 4);
  }
  SECTION("a table file cut short is an error naming it") {
    const std::string path = db.dir + "/" + db.manifest.table(TableId::kLinksByUrl).front().name;
    std::filesystem::resize_file(path, std::filesystem::file_size(path) - 1);
    auto bad = SorterBudget(*db.env, db.dir, db.manifest, budget);
    REQUIRE_FALSE(bad.has_value());
    CHECK(bad.error().message().find(path) != std::string::npos);
  }
}

}  // namespace
}  // namespace webdb
