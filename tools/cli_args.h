// The `webdb` command line (docs/CLI.md, spec/interfaces.md section 3): parsing argv
// into an Invocation, with every usage rule checked here so that commands receive
// well-formed, typed arguments.
//
// Plain values and functions; thread-safe.
#ifndef TOOLS_CLI_ARGS_H_
#define TOOLS_CLI_ARGS_H_

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tools/cli_spec.h"
#include "webdb/db/manifest.h"
#include "webdb/table/record.h"

namespace tools {

using nutchfs::Err;
using nutchfs::Result;
using nutchfs::Status;
using webdb::Md5;
using webdb::TableId;

constexpr size_t kDefaultMemoryBudget = size_t{256} << 20;
constexpr size_t kMinMemoryBudget = size_t{1} << 20;

// Options of the crawl commands (docs/CRAWL.md).
struct CrawlArgs {
  std::string filter;  // --filter FILE; empty: none
  bool skip_bad = false;
  int max_retries = 3;
  int64_t retry_delay_ms = int64_t{24} * 3600 * 1000;  // --retry-delay-days
  std::string fetchlist;  // update --fetchlist FILE; empty: none
  size_t max_outlinks = 100;
  size_t max_anchor = 100;
  bool follow_nofollow = false;
  uint64_t top = 0;           // generate --top
  uint64_t max_per_host = 0;  // 0: no cap
  bool by_domain = false;
  std::optional<int64_t> now;  // generate --now MS; default the clock
  int64_t lease_ms = int64_t{7} * 24 * 3600 * 1000;
  std::string out;  // generate --out FILE; empty: stdout
  bool dry_run = false;
};

struct Invocation {
  std::string command;  // "create", "apply", "dump", ..., "generate", "calls", "verify"
  bool help = false;    // --help, help: print the help and do nothing else
  std::string help_command;  // ... of this command; empty: of webdb
  std::string db;
  std::string config;  // read commands: a distributed db's cluster config instead of db
  std::vector<std::string> call_files;  // apply; "-" is standard input
  std::string subcommand;               // calls: "inject" or "warc"
  std::vector<std::string> inputs;      // inject, update, calls: URL files or WARC files
  CrawlArgs crawl;
  std::optional<std::string> url;       // page's URL argument, links --url
  std::optional<Md5> md5;               // pages/links --md5
  TableId table = TableId::kPagesByUrl;  // dump --table
  size_t memory_budget = kDefaultMemoryBudget;
  std::optional<uint64_t> version;  // read commands --version V; rollback's VERSION
  std::optional<uint32_t> keep;     // create, apply --keep N; keep's N
  webdb::RankOptions rank;          // rank --iterations, --epsilon, --damping
  bool json = false;   // verify, explain, versions, stats --json
  bool quick = false;  // stats --quick
  bool text = false;   // stats --text
  bool quiet = false;
  std::string log_level = "warn";
};

// Parses argv (argv[0] is the program). Every usage error (unknown command or option,
// wrong number of arguments, an option the command does not take, a malformed value)
// is InvalidArgument with a message for the user.
Result<Invocation> ParseCommandLine(int argc, const char* const* argv);

// The integer value of text, InvalidArgument naming it unless text is a decimal integer
// in min..max. name is what the user wrote the value after: an option ("--top") or, for
// an argument, the command and the argument's name ("keep N"), which the message joins
// with " = ".
Result<int64_t> ParseIntArg(std::string_view name, const std::string& text, int64_t min,
                            int64_t max);

// rank's --iterations, --epsilon and --damping (docs/CLI.md), each absent for its
// default: InvalidArgument naming the option when one is malformed or out of range
// (webdb/rank/rank_math.h).
Result<webdb::RankOptions> ParseRankOptions(const std::optional<std::string>& iterations,
                                            const std::optional<std::string>& epsilon,
                                            const std::optional<std::string>& damping);

// "256M", "1G", "512k", "1048576", with an optional "B"/"iB" after the unit; units
// are powers of 1024. InvalidArgument if malformed, overflowing or below 1 MiB.
Result<size_t> ParseMemorySize(std::string_view text);

// A memory budget this machine can honour: InvalidArgument, naming `source` (such as
// "--memory 10T"), when it exceeds the machine's physical memory. The writer allocates
// the budget only as it fills, so anything up to that is accepted.
Status CheckMemoryBudget(size_t bytes, std::string_view source);

}  // namespace tools

#endif  // TOOLS_CLI_ARGS_H_
