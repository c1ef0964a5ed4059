#include "webdb/util/progress.h"

#include <catch2/catch.hpp>
#include <vector>

namespace webdb {
namespace {

TEST_CASE("a row progress reports every kEvery-th row, with its step and total") {
  std::vector<std::pair<uint64_t, uint64_t>> reports;
  ProgressFn fn = [&](const Progress& p) {
    CHECK(p.step == "scan t");
    CHECK(p.unit == "records");
    reports.emplace_back(p.done, p.total);
  };
  RowProgress progress(fn, "scan t", 10000);
  for (int i = 0; i < 10000; ++i) progress.Row();
  CHECK(reports == std::vector<std::pair<uint64_t, uint64_t>>{{RowProgress::kEvery, 10000},
                                                              {2 * RowProgress::kEvery, 10000}});
  ProgressFn none;
  RowProgress silent(none, "scan", 0);
  for (int i = 0; i < 10000; ++i) silent.Row();  // no function: nothing to call
}

}  // namespace
}  // namespace webdb
