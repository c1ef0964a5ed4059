#include <catch2/catch.hpp>
#include <limits>
#include <string>
#include <vector>

#include "tools/cli_args.h"

namespace tools {
namespace {

Result<Invocation> Parse(std::vector<std::string> args) {
  std::vector<const char*> argv = {"webdb"};
  for (const std::string& a : args) argv.push_back(a.c_str());
  return ParseCommandLine(static_cast<int>(argv.size()), argv.data());
}

Invocation MustParse(std::vector<std::string> args) {
  auto inv = Parse(args);
  if (!inv) FAIL(inv.error().ToString());
  return *inv;
}

void CheckUsage(std::vector<std::string> args, const std::string& reason) {
  auto inv = Parse(args);
  REQUIRE_FALSE(inv.has_value());
  CHECK(inv.error().IsInvalidArgument());
  CHECK(inv.error().message().find(reason) != std::string::npos);
}

TEST_CASE("crawl commands: arguments and defaults", "[cli]") {
  Invocation inject = MustParse({"inject", "db", "a.txt", "b.txt", "--skip-bad", "--filter", "f"});
  CHECK(inject.db == "db");
  CHECK(inject.inputs == std::vector<std::string>{"a.txt", "b.txt"});
  CHECK(inject.crawl.skip_bad);
  CHECK(inject.crawl.filter == "f");
  Invocation update = MustParse({"update", "--config", "c.conf", "x.warc.gz", "--max-retries",
                                 "5", "--max-outlinks", "7", "--max-anchor", "9",
                                 "--follow-nofollow", "--fetchlist", "list.txt",
                                 "--retry-delay-days", "2"});
  CHECK(update.config == "c.conf");
  CHECK(update.inputs == std::vector<std::string>{"x.warc.gz"});
  CHECK(update.crawl.max_retries == 5);
  CHECK(update.crawl.max_outlinks == 7);
  CHECK(update.crawl.max_anchor == 9);
  CHECK(update.crawl.follow_nofollow);
  CHECK(update.crawl.fetchlist == "list.txt");
  CHECK(update.crawl.retry_delay_ms == 2 * 86400000LL);
  Invocation update_defaults = MustParse({"update", "db", "x.warc"});
  CHECK(update_defaults.crawl.fetchlist.empty());
  CHECK(update_defaults.crawl.retry_delay_ms == 86400000LL);
  CHECK(update_defaults.crawl.max_retries == 3);
  Invocation gen = MustParse({"generate", "db", "--top", "10"});
  CHECK(gen.crawl.top == 10);
  CHECK(gen.crawl.max_per_host == 0);
  CHECK_FALSE(gen.crawl.now.has_value());
  CHECK(gen.crawl.lease_ms == 7 * 86400000LL);
  CHECK_FALSE(gen.crawl.dry_run);
  Invocation gen2 = MustParse({"generate", "db", "--top", "10", "--max-per-host", "2", "--by",
                               "domain", "--now", "5", "--lease-days", "1", "--out", "l",
                               "--dry-run"});
  CHECK(gen2.crawl.by_domain);
  CHECK(gen2.crawl.now == 5);
  CHECK(gen2.crawl.lease_ms == 86400000LL);
  CHECK(gen2.crawl.out == "l");
  CHECK(gen2.crawl.dry_run);
  Invocation calls = MustParse({"calls", "inject", "s1", "s2"});
  CHECK(calls.subcommand == "inject");
  CHECK(calls.inputs == std::vector<std::string>{"s1", "s2"});
  Invocation warc = MustParse({"calls", "warc", "--config", "c.conf", "w1", "w2"});
  CHECK(warc.subcommand == "warc");
  CHECK(warc.config == "c.conf");
  CHECK(warc.inputs == std::vector<std::string>{"w1", "w2"});
  Invocation warc_db = MustParse({"calls", "warc", "db", "w1"});
  CHECK(warc_db.db == "db");
  CHECK(warc_db.inputs == std::vector<std::string>{"w1"});
}

TEST_CASE("crawl commands: usage errors", "[cli]") {
  CheckUsage({"inject", "db"}, "usage: webdb inject");
  CheckUsage({"generate", "db"}, "generate needs --top");
  CheckUsage({"generate", "db", "--top", "0"}, "--top 0");
  CheckUsage({"generate", "db", "--top", "x"}, "--top x");
  CheckUsage({"generate", "db", "--top", "1", "--by", "site"}, "--by site");
  CheckUsage({"inject", "db", "s", "--dry-run"}, "--dry-run does not apply to inject");
  CheckUsage({"update", "db", "w", "--top", "3"}, "--top does not apply to update");
  CheckUsage({"generate", "db", "--top", "1", "--skip-bad"}, "--skip-bad does not apply");
  CheckUsage({"update", "db", "w", "--max-retries", "256"}, "--max-retries 256");
  CheckUsage({"update", "db", "w", "--retry-delay-days", "-1"}, "--retry-delay-days -1");
  CheckUsage({"inject", "db", "s", "--fetchlist", "l"}, "--fetchlist does not apply to inject");
  CheckUsage({"calls", "fetch", "x"}, "usage: webdb calls");
  CheckUsage({"calls", "warc", "db"}, "usage: webdb calls");
  CheckUsage({"calls", "inject", "--config", "c", "s"}, "usage: webdb calls");
  CheckUsage({"inject", "db", "-", "-"}, "read only once");
}

// Issue 36, item 13: now + lease wrapped past 2^63-1, the lease was negative, and the next
// generate handed the same pages out again.
TEST_CASE("generate: a lease must end before the db's 'never' (2^63-1 ms)", "[cli]") {
  const std::string max = "9223372036854775807";
  CheckUsage({"generate", "db", "--top", "1", "--now", max}, "the lease would end");
  CheckUsage({"generate", "db", "--top", "1", "--now", "9223372036854775000"}, "--lease-days 7");
  CheckUsage({"generate", "db", "--top", "1", "--now", max, "--lease-days", "0"},
             "the lease would end");
  CheckUsage({"generate", "db", "--top", "1", "--now", "9223372036854775000", "--dry-run"},
             "the lease would end");
  const int64_t last = std::numeric_limits<int64_t>::max() - 1 - 7 * 86400000LL;
  Invocation ok = MustParse({"generate", "db", "--top", "1", "--now", std::to_string(last)});
  CHECK(*ok.crawl.now + ok.crawl.lease_ms == std::numeric_limits<int64_t>::max() - 1);
}

}  // namespace
}  // namespace tools
