#include "tools/cli_args.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

namespace tools {
namespace {

using webdb::Md5Hex;

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

void CheckUsageError(std::vector<std::string> args, const std::string& reason) {
  auto inv = Parse(args);
  std::string joined;
  for (const std::string& a : args) joined += a + " ";
  INFO(joined);
  REQUIRE_FALSE(inv.has_value());
  CHECK(inv.error().IsInvalidArgument());
  CHECK_THAT(inv.error().message(), Catch::Contains(reason));
}

const std::string kHex = "0123456789abcdef0123456789abcdef";

TEST_CASE("memory sizes") {
  CHECK(*ParseMemorySize("256M") == size_t{256} << 20);
  CHECK(*ParseMemorySize("1G") == size_t{1} << 30);
  CHECK(*ParseMemorySize("1g") == size_t{1} << 30);
  CHECK(*ParseMemorySize("2048k") == size_t{2} << 20);
  CHECK(*ParseMemorySize("512MiB") == size_t{512} << 20);
  CHECK(*ParseMemorySize("3MB") == size_t{3} << 20);
  CHECK(*ParseMemorySize("1T") == size_t{1} << 40);
  CHECK(*ParseMemorySize("1048576") == size_t{1} << 20);
  CHECK(*ParseMemorySize("1048576B") == size_t{1} << 20);
  for (const char* bad : {"", "M", "12X", "1.5G", "-1M", "1MM", "iB", "1iB", "1048575",
                          "99999999999999999999", "17179869184G", "256 M"}) {
    INFO(bad);
    CHECK_FALSE(ParseMemorySize(bad).has_value());
  }
}

TEST_CASE("each command's arguments") {
  Invocation create = MustParse({"create", "db"});
  CHECK(create.command == "create");
  CHECK(create.db == "db");
  CHECK_FALSE(create.quiet);
  CHECK(create.log_level == "warn");

  Invocation apply = MustParse({"apply", "db", "a.jsonl", "-", "--memory", "64M", "-q"});
  CHECK(apply.call_files == std::vector<std::string>{"a.jsonl", "-"});
  CHECK(apply.memory_budget == size_t{64} << 20);
  CHECK(apply.quiet);
  CHECK(MustParse({"apply", "db", "a"}).memory_budget == kDefaultMemoryBudget);

  CHECK(MustParse({"dump", "db", "--table", "linksByMD5"}).table == TableId::kLinksByMd5);
  CHECK(MustParse({"--table=pagesByMD5", "dump", "db"}).table == TableId::kPagesByMd5);
  CHECK(MustParse({"stats", "db", "--log-level", "debug"}).log_level == "debug");
  CHECK(*MustParse({"page", "db", "http://a/"}).url == "http://a/");
  CHECK(*MustParse({"page", "db", "--", "-dash"}).url == "-dash");
  CHECK(Md5Hex(*MustParse({"pages", "db", "--md5", kHex}).md5) == kHex);
  Invocation in = MustParse({"links", "db", "--url", "http://a/"});
  CHECK(*in.url == "http://a/");
  CHECK_FALSE(in.md5.has_value());
  Invocation out = MustParse({"links", "db", "--md5", kHex});
  CHECK_FALSE(out.url.has_value());
  CHECK(out.md5.has_value());
  CHECK(MustParse({"--help"}).help);
  CHECK(MustParse({"--help"}).help_command.empty());
  CHECK(MustParse({"dump", "-h"}).help_command == "dump");
  CHECK(MustParse({"help", "dump"}).help_command == "dump");
  CHECK(MustParse({"help"}).help);

  CHECK(*MustParse({"dump", "db", "--table", "pagesByURL", "--version", "3"}).version == 3);
  CHECK_FALSE(MustParse({"page", "db", "http://a/"}).version.has_value());
  CHECK(*MustParse({"create", "db", "--keep", "5"}).keep == 5);
  CHECK(*MustParse({"apply", "db", "f", "--keep", "1"}).keep == 1);
  CHECK(*MustParse({"rollback", "db", "7"}).version == 7);
  CHECK(*MustParse({"keep", "db", "4"}).keep == 4);
  CHECK(MustParse({"versions", "db", "--json"}).json);
  CHECK(MustParse({"stats", "db", "--json"}).json);
}

// Issue 36, item 18: `webdb keep DB 0` said "--N 0"; --memory 1.5G said "unknown unit".
TEST_CASE("usage errors name what was written") {
  CheckUsageError({"keep", "db", "0"}, "keep N = 0: expected an integer in 1..10000");
  CheckUsageError({"rollback", "db", "x"}, "rollback VERSION = x: expected an integer in 1..");
  auto usage = [](const char* size, const std::string& why) {
    auto r = ParseMemorySize(size);
    INFO(size);
    REQUIRE_FALSE(r);
    CHECK_THAT(r.error().message(), Catch::Contains(std::string("--memory ") + size + ": " + why));
  };
  usage("1.5G", "a whole number is expected (1.5G is 1536M)");
  usage("0.25M", "a whole number is expected (0.25M is 256K)");
  usage("1.3K", "a whole number is expected");
  usage("12X", "unknown unit 'X': expected K, M, G or T (powers of 1024), optionally with B or iB");
  usage("1MM", "unknown unit 'MM'");
}

TEST_CASE("usage errors") {
  CheckUsageError({}, "no command given");
  CheckUsageError({"frob", "db"}, "unknown command 'frob'");
  CheckUsageError({"create"}, "usage: webdb create DB");
  CheckUsageError({"create", "db", "extra"}, "usage: webdb create DB");
  CheckUsageError({"apply", "db"}, "usage: webdb apply");
  CheckUsageError({"apply", "db", "-", "-"}, "can be read only once");
  CheckUsageError({"dump", "db"}, "dump needs --table");
  CheckUsageError({"dump", "db", "--table", "pages"}, "unknown table 'pages'");
  CheckUsageError({"dump", "db", "--tab", "pagesByURL"}, "--tab");  // no abbreviations
  CheckUsageError({"dump", "db", "--table", "pagesByURL", "--table", "linksByURL"}, "table");
  CheckUsageError({"stats", "db", "--memory", "1G"}, "--memory does not apply to stats");
  CheckUsageError({"page", "db"}, "usage: webdb page (DB | --config FILE) URL");
  CheckUsageError({"create", "--config", "c.conf"}, "--config does not apply to create");
  CheckUsageError({"page", "--config", "c.conf", "db", "http://a/"}, "usage: webdb page");
  CheckUsageError({"page", "db", ""}, "bad URL argument: url is empty");
  CheckUsageError({"pages", "db"}, "pages needs --md5");
  CheckUsageError({"pages", "db", "--md5", "ABC"}, "--md5 ABC: expected 32 lowercase hex");
  CheckUsageError({"pages", "db", "--url", "http://a/"}, "--url does not apply to pages");
  CheckUsageError({"links", "db"}, "exactly one of --url and --md5");
  CheckUsageError({"links", "db", "--url", "http://a/", "--md5", kHex}, "exactly one");
  CheckUsageError({"apply", "db", "f", "--memory", "10"}, "--memory 10: less than");
  CheckUsageError({"stats", "db", "--log-level", "loud"}, "--log-level loud");
  CheckUsageError({"stats", "db", "--bogus"}, "--bogus");
  CheckUsageError({"stats", "db", "--json", "--text"}, "--json and --text exclude each other");
  CheckUsageError({"versions", "db", "--text"}, "--text does not apply to versions");
  CheckUsageError({"dump", "db", "--table", "pagesByURL", "--version", "0"}, "--version 0");
  CheckUsageError({"generate", "db", "--top", "1", "--version", "2"}, "needs --dry-run");
  CheckUsageError({"create", "db", "--keep", "0"}, "--keep 0: expected an integer in 1..10000");
  CheckUsageError({"apply", "db", "f", "--version", "2"}, "--version does not apply to apply");
  CheckUsageError({"rollback", "db"}, "usage: webdb rollback (DB | --config FILE) VERSION");
  CheckUsageError({"keep", "--config", "c.conf"}, "usage: webdb keep (DB | --config FILE) N");
  CheckUsageError({"keep", "db", "many"}, "expected an integer");
  CheckUsageError({"verify", "db", "--quick"}, "--quick does not apply to verify");
  CheckUsageError({"page", "db", "http://a/", "--text"}, "--text does not apply to page");
}

TEST_CASE("a config file takes the place of the db argument of the read commands") {
  const char* argv[] = {"webdb", "page", "--config", "c.conf", "http://a/"};
  auto inv = ParseCommandLine(5, argv);
  REQUIRE(inv);
  CHECK(inv->config == "c.conf");
  CHECK(inv->db.empty());
  CHECK(inv->url == "http://a/");
}

}  // namespace
}  // namespace tools
