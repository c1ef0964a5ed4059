#include "tools/progress_reporter.h"

#include <catch2/catch.hpp>
#include <cstdio>
#include <string>

namespace tools {
namespace {

// What the reporter wrote to its temporary file.
std::string Contents(std::FILE* f) {
  std::rewind(f);
  std::string out;
  char buf[256];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof(buf), f)) > 0) out.append(buf, n);
  return out;
}

TEST_CASE("human counts") {
  CHECK(ProgressReporter::HumanCount(0) == "0");
  CHECK(ProgressReporter::HumanCount(9999) == "9999");
  CHECK(ProgressReporter::HumanCount(850000) == "850.0k");
  CHECK(ProgressReporter::HumanCount(1234567) == "1.2M");
  CHECK(ProgressReporter::HumanCount(3.5e9) == "3.5G");
}

TEST_CASE("reports are lines with step, count, rate and percent") {
  std::FILE* f = std::tmpfile();
  REQUIRE(f != nullptr);
  ProgressReporter reporter(f, "webdb", std::chrono::milliseconds(0));
  reporter.Report(Progress{"stage 3 linksByMD5", 1200000, 2400000});
  reporter.Report("reading calls", 5000, -1);
  std::string out = Contents(f);
  std::fclose(f);
  CHECK_THAT(out, Catch::StartsWith("webdb: stage 3 linksByMD5: 1.2M records"));
  CHECK_THAT(out, Catch::Contains(", 50%\n"));
  CHECK_THAT(out, Catch::Contains("webdb: reading calls: 5000 records"));
  CHECK(std::count(out.begin(), out.end(), '\n') == 2);
  CHECK_THAT(out.substr(out.find("reading")), !Catch::Contains("%"));
}

TEST_CASE("reports name their writer and never show more than 100%") {
  std::FILE* f = std::tmpfile();
  REQUIRE(f != nullptr);
  ProgressReporter reporter(f, "distwriter: writer 2", std::chrono::milliseconds(0));
  reporter.Report(Progress{"stage 1 pagesByURL", 1092270, 1000});
  reporter.Report(Progress{"stage 1 pagesByURL", 1000, 1000});
  std::string out = Contents(f);
  std::fclose(f);
  CHECK_THAT(out, Catch::StartsWith("distwriter: writer 2: stage 1 pagesByURL: 1.1M records"));
  CHECK_THAT(out, !Catch::Contains("109227%") && Catch::Contains(", 100%\n"));
  CHECK(std::count(out.begin(), out.end(), '%') == 1);
}

TEST_CASE("reports are throttled") {
  std::FILE* f = std::tmpfile();
  REQUIRE(f != nullptr);
  // A clock of the test's own, so that a slow machine cannot make the intervals pass.
  ProgressReporter::Clock::time_point now{};
  ProgressReporter reporter(f, "webdb", std::chrono::milliseconds(200), [&] { return now; });
  ProgressFn fn = reporter.AsProgressFn();
  auto report_1000 = [&] {
    for (int i = 0; i < 1000; ++i) {
      fn(Progress{"step", static_cast<uint64_t>(i), 0});
      now += std::chrono::microseconds(100);
    }
  };
  report_1000();  // 0.1 s
  CHECK(Contents(f).empty());  // nothing during the first interval
  now += std::chrono::milliseconds(250);
  report_1000();
  std::string out = Contents(f);
  std::fclose(f);
  CHECK(std::count(out.begin(), out.end(), '\n') == 1);
  CHECK_THAT(out, Catch::StartsWith("webdb: step: 0 records"));
}

}  // namespace
}  // namespace tools
