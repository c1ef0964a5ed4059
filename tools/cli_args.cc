#include "tools/cli_args.h"

#include <fmt/format.h>
#include <spdlog/common.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <limits>

#include "tools/cli_parser.h"
#include "tools/cli_spec.h"
#include "webdb/rank/rank_math.h"

namespace tools {
namespace {

using webdb::ParseMd5Hex;
using webdb::ParseTableName;
using webdb::ValidateUrl;

Status Usage(std::string msg) { return Status::InvalidArgument(std::move(msg)); }


Result<Md5> ParseMd5Arg(const std::string& hex) {
  auto md5 = ParseMd5Hex(hex);
  if (!md5) return Err(Usage("--md5 " + hex + ": expected 32 lowercase hex digits"));
  return *md5;
}

Status CheckUrlArg(const std::string& url) {
  Status s = ValidateUrl(url);
  return s.ok() ? s : Usage("bad URL argument: " + s.message());
}

bool IsCrawlCommand(const std::string& c) {
  return c == "inject" || c == "update" || c == "generate" || c == "calls";
}

Status FillCallsArgs(const std::vector<std::string>& args, Invocation* inv) {
  inv->subcommand = args[0];
  if (inv->subcommand == "inject" && inv->config.empty()) {
    inv->db.clear();
    inv->inputs.assign(args.begin() + 1, args.end());
    return Status::OK();
  }
  if (inv->subcommand == "warc" && args.size() >= 3) {
    inv->db = args[1];
    inv->inputs.assign(args.begin() + 2, args.end());
    return Status::OK();
  }
  return Usage("usage: webdb calls inject URLFILE... | webdb calls warc (DB | --config FILE) WARC...");
}

Status FillGenerateArgs(const ParsedArgs& given, CrawlArgs* c) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  auto opt = [&](const char* name) { return given.Value(name); };
  auto top = opt("top");
  if (!top) return Usage("generate needs --top N");
  NUTCHFS_ASSIGN_OR_RETURN(int64_t n, ParseIntArg("--top", *top, 1, kMax));
  c->top = static_cast<uint64_t>(n);
  if (auto m = opt("max-per-host")) {
    NUTCHFS_ASSIGN_OR_RETURN(int64_t cap, ParseIntArg("--max-per-host", *m, 1, kMax));
    c->max_per_host = static_cast<uint64_t>(cap);
  }
  if (auto by = opt("by")) {
    if (*by != "host" && *by != "domain") return Usage("--by " + *by + ": expected host or domain");
    c->by_domain = *by == "domain";
  }
  if (auto now = opt("now")) {
    NUTCHFS_ASSIGN_OR_RETURN(c->now, ParseIntArg("--now", *now, 0, kMax));
  }
  if (auto days = opt("lease-days")) {
    NUTCHFS_ASSIGN_OR_RETURN(int64_t d, ParseIntArg("--lease-days", *days, 0, 100000));
    c->lease_ms = d * 24 * 3600 * 1000;
  }
  // nextFetch 2^63-1 is "never" (a gone page): a lease past it would wrap negative and
  // hand the pages out again at once, and a "now" at it would make gone pages due.
  if (c->now && *c->now > kMax - 1 - c->lease_ms) {
    return Usage(fmt::format("--now {} --lease-days {}: the lease would end past {} ms, the "
                             "latest time the db can hold before 'never'",
                             *c->now, c->lease_ms / (24 * 3600 * 1000), kMax - 1));
  }
  if (auto out = opt("out")) c->out = *out;
  c->dry_run = given.Switch("dry-run");
  return Status::OK();
}

// The options and inputs of inject, update, generate and calls.
Status FillCrawlArgs(const ParsedArgs& given, const std::vector<std::string>& args,
                     Invocation* inv) {
  CrawlArgs& c = inv->crawl;
  if (given.Given("filter")) c.filter = *given.Value("filter");
  c.skip_bad = given.Switch("skip-bad");
  c.follow_nofollow = given.Switch("follow-nofollow");
  if (given.Given("max-retries")) {
    NUTCHFS_ASSIGN_OR_RETURN(
        c.max_retries, ParseIntArg("--max-retries", *given.Value("max-retries"), 0, 255));
  }
  if (given.Given("retry-delay-days")) {
    NUTCHFS_ASSIGN_OR_RETURN(
        int64_t d,
        ParseIntArg("--retry-delay-days", *given.Value("retry-delay-days"), 0, 100000));
    c.retry_delay_ms = d * 24 * 3600 * 1000;
  }
  if (given.Given("fetchlist")) c.fetchlist = *given.Value("fetchlist");
  if (given.Given("max-outlinks")) {
    NUTCHFS_ASSIGN_OR_RETURN(
        c.max_outlinks,
        ParseIntArg("--max-outlinks", *given.Value("max-outlinks"), 0, 1 << 30));
  }
  if (given.Given("max-anchor")) {
    NUTCHFS_ASSIGN_OR_RETURN(
        c.max_anchor, ParseIntArg("--max-anchor", *given.Value("max-anchor"), 0, 65535));
  }
  if (inv->command == "generate") return FillGenerateArgs(given, &c);
  if (inv->command == "calls") return FillCallsArgs(args, inv);
  inv->inputs.assign(args.begin() + 1, args.end());
  if (std::count(inv->inputs.begin(), inv->inputs.end(), "-") > 1) {
    return Usage("standard input (\"-\") can be read only once");
  }
  return Status::OK();
}

Result<uint64_t> ParseVersionArg(std::string_view what, const std::string& text) {
  NUTCHFS_ASSIGN_OR_RETURN(int64_t v, ParseIntArg(what, text, 1, std::numeric_limits<int64_t>::max()));
  return static_cast<uint64_t>(v);
}

// --version, --keep, and the arguments of rollback and keep.
Result<double> ParseDoubleArg(const char* name, const std::string& text) {
  double x = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), x);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty()) {
    return Err(Usage(fmt::format("--{} {}: expected a number", name, text)));
  }
  return x;
}

Status FillVersionArgs(const ParsedArgs& given, const std::vector<std::string>& args,
                       Invocation* inv) {
  if (given.Given("version")) {
    NUTCHFS_ASSIGN_OR_RETURN(inv->version, ParseVersionArg("--version", *given.Value("version")));
    if (inv->command == "generate" && !inv->crawl.dry_run) {
      return Usage("generate --version V needs --dry-run: leases go to the current version");
    }
  }
  if (given.Given("keep")) {
    NUTCHFS_ASSIGN_OR_RETURN(int64_t keep, ParseIntArg("--keep", *given.Value("keep"), 1,
                                                       webdb::kMaxKeep));
    inv->keep = static_cast<uint32_t>(keep);
  }
  if (inv->command == "rollback" || inv->command == "drop-version") {
    NUTCHFS_ASSIGN_OR_RETURN(inv->version,
                             ParseVersionArg(inv->command + " VERSION", args[1]));
  } else if (inv->command == "keep") {
    NUTCHFS_ASSIGN_OR_RETURN(int64_t keep, ParseIntArg("keep N", args[1], 1, webdb::kMaxKeep));
    inv->keep = static_cast<uint32_t>(keep);
  }
  if (inv->json && inv->text) return Usage("--json and --text exclude each other");
  return Status::OK();
}

// Fills the command-specific fields of inv from its positional args and options.
Status FillCommandArgs(const ParsedArgs& given, const std::vector<std::string>& args,
                       Invocation* inv) {
  inv->db = args[0];
  auto opt = [&](const char* name) { return given.Value(name); };
  if (inv->command == "apply") {
    inv->call_files.assign(args.begin() + 1, args.end());
    if (std::count(inv->call_files.begin(), inv->call_files.end(), "-") > 1) {
      return Usage("standard input (\"-\") can be read only once");
    }
  } else if (inv->command == "dump") {
    auto table = opt("table");
    if (!table) return Usage("dump needs --table");
    NUTCHFS_ASSIGN_OR_RETURN(inv->table, ParseTableName(*table));
  } else if (inv->command == "page" || inv->command == "explain") {
    inv->url = args[1];
    NUTCHFS_RETURN_IF_ERROR(CheckUrlArg(*inv->url));
  } else if (inv->command == "pages" || inv->command == "links") {
    inv->url = opt("url");
    if (inv->url) NUTCHFS_RETURN_IF_ERROR(CheckUrlArg(*inv->url));
    if (auto md5 = opt("md5")) {
      NUTCHFS_ASSIGN_OR_RETURN(inv->md5, ParseMd5Arg(*md5));
    }
    if (inv->url.has_value() == inv->md5.has_value()) {
      return Usage(inv->command == "pages" ? "pages needs --md5"
                                           : "links needs exactly one of --url and --md5");
    }
  }
  inv->json = given.Switch("json");
  inv->quick = given.Switch("quick");
  inv->text = given.Switch("text");
  if (IsCrawlCommand(inv->command)) NUTCHFS_RETURN_IF_ERROR(FillCrawlArgs(given, args, inv));
  if (inv->command == "rank") {
    NUTCHFS_ASSIGN_OR_RETURN(inv->rank, ParseRankOptions(opt("iterations"), opt("epsilon"),
                                                         opt("damping")));
  }
  NUTCHFS_RETURN_IF_ERROR(FillVersionArgs(given, args, inv));
  if (auto memory = opt("memory")) {
    NUTCHFS_ASSIGN_OR_RETURN(inv->memory_budget, ParseMemorySize(*memory));
    NUTCHFS_RETURN_IF_ERROR(CheckMemoryBudget(inv->memory_budget, "--memory " + *memory));
  }
  return Status::OK();
}

Status FillGlobalOptions(const ParsedArgs& given, Invocation* inv) {
  inv->quiet = given.Switch("quiet");
  if (given.Given("log-level")) {
    inv->log_level = *given.Value("log-level");
    if (spdlog::level::from_str(inv->log_level) == spdlog::level::off && inv->log_level != "off") {
      return Usage("--log-level " + inv->log_level +
                   ": expected trace, debug, info, warn, error, critical or off");
    }
  }
  return Status::OK();
}

Status CheckCommandShape(const ParsedArgs& given, const CommandSpec& spec,
                         const std::vector<std::string>& args) {
  if (args.size() < spec.min_operands || args.size() > spec.max_operands) {
    return Usage("usage: " + spec.synopsis);
  }
  return CheckOptionsTaken(WebdbSpec(), spec, given);
}

}  // namespace

Result<int64_t> ParseIntArg(std::string_view name, const std::string& text, int64_t min,
                            int64_t max) {
  int64_t n = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty() || n < min || n > max) {
    return Err(Usage(fmt::format("{}{}{}: expected an integer in {}..{}", name,
                                 name.starts_with("--") ? " " : " = ", text, min, max)));
  }
  return n;
}

Result<Invocation> ParseCommandLine(int argc, const char* const* argv) {
  NUTCHFS_ASSIGN_OR_RETURN(ParsedArgs given, ParseArgs(WebdbSpec(), argc, argv));
  Invocation inv;
  std::vector<std::string> args;
  if (!given.words.empty()) {
    inv.command = given.words.front();
    args.assign(given.words.begin() + 1, given.words.end());
  }
  // `webdb --help`, `webdb CMD --help`, `webdb help [CMD]`: the help of CMD, if any.
  if (given.Switch("help") || inv.command == "help") {
    inv.help = true;
    inv.help_command = inv.command;
    if (inv.command == "help" && args.size() > 1) {
      return Err(Usage("usage: webdb help [COMMAND]"));
    }
    // `webdb help CMD`; `webdb help` alone is webdb's help, `webdb help --help` help's.
    if (inv.command == "help" && !args.empty()) inv.help_command = args[0];
    if (inv.command == "help" && args.empty() && !given.Switch("help")) inv.help_command.clear();
    return inv;
  }
  if (inv.command.empty()) return Err(Usage("no command given"));
  const CommandSpec* spec = WebdbSpec().FindCommand(inv.command);
  if (spec == nullptr) return Err(Usage("unknown command '" + inv.command + "'"));
  // --config FILE takes the place of the DB argument.
  if (given.Given("config")) {
    inv.config = *given.Value("config");
    bool calls = inv.command == "calls" && !args.empty();  // calls warc --config: after "warc"
    args.insert(calls ? args.begin() + 1 : args.begin(), std::string());
  }
  NUTCHFS_RETURN_IF_ERROR(CheckCommandShape(given, *spec, args));
  NUTCHFS_RETURN_IF_ERROR(FillGlobalOptions(given, &inv));
  NUTCHFS_RETURN_IF_ERROR(FillCommandArgs(given, args, &inv));
  return inv;
}

Result<webdb::RankOptions> ParseRankOptions(const std::optional<std::string>& iterations,
                                            const std::optional<std::string>& epsilon,
                                            const std::optional<std::string>& damping) {
  webdb::RankOptions o;
  if (iterations) {
    NUTCHFS_ASSIGN_OR_RETURN(int64_t k, ParseIntArg("--iterations", *iterations, 1, 1000000));
    o.iterations = static_cast<uint32_t>(k);
  }
  if (epsilon) {
    NUTCHFS_ASSIGN_OR_RETURN(o.epsilon, ParseDoubleArg("epsilon", *epsilon));
  }
  if (damping) {
    NUTCHFS_ASSIGN_OR_RETURN(o.damping, ParseDoubleArg("damping", *damping));
  }
  Status s = webdb::ValidateRankOptions(o);
  if (!s.ok()) return Err(Usage(s.message()));
  return o;
}

Result<size_t> ParseMemorySize(std::string_view text) {
  auto bad = [&](std::string_view why) {
    return Err(Usage("--memory " + std::string(text) + ": " + std::string(why)));
  };
  uint64_t n = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec != std::errc() || end == text.data()) return bad("expected a size such as 256M or 1G");
  constexpr std::string_view kUnits = "KMGT";
  auto shift_of = [&](char unit) -> int {
    size_t i = kUnits.find(static_cast<char>(std::toupper(static_cast<unsigned char>(unit))));
    return i == std::string_view::npos ? -1 : 10 * static_cast<int>(i + 1);
  };
  std::string_view unit(end, text.data() + text.size() - end);
  if (unit.starts_with('.')) {
    // 1.5G: said in the next smaller unit when that makes it whole.
    double value = 0;
    std::from_chars(text.data(), text.data() + text.size(), value);
    const int shift = unit.size() >= 2 ? shift_of(unit.back()) : -1;
    const double smaller = value * 1024;
    if (shift > 0 && smaller == static_cast<double>(static_cast<uint64_t>(smaller))) {
      return bad(fmt::format("a whole number is expected ({} is {}{})", text,
                             static_cast<uint64_t>(smaller),
                             shift == 10 ? std::string() : std::string(1, kUnits[shift / 10 - 2])));
    }
    return bad("a whole number is expected");
  }
  std::string_view suffix = unit;
  if (unit.ends_with("iB")) {
    unit.remove_suffix(2);
    if (unit.empty()) return bad("expected K, M, G or T before iB");
  } else if (unit.ends_with("B")) {
    unit.remove_suffix(1);
  }
  int shift = 0;
  if (unit.size() > 1 || (unit.size() == 1 && shift_of(unit[0]) < 0)) {
    return bad(fmt::format("unknown unit '{}': expected K, M, G or T (powers of 1024), "
                           "optionally with B or iB",
                           suffix));
  }
  if (unit.size() == 1) shift = shift_of(unit[0]);
  if (n > (std::numeric_limits<size_t>::max() >> shift)) return bad("too large");
  size_t bytes = static_cast<size_t>(n) << shift;
  if (bytes < kMinMemoryBudget) return bad("less than the minimum of 1M");
  return bytes;
}

Status CheckMemoryBudget(size_t bytes, std::string_view source) {
  const long pages = ::sysconf(_SC_PHYS_PAGES);
  const long page_size = ::sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page_size <= 0) return Status::OK();  // unknown: the OS will tell
  const double physical = static_cast<double>(pages) * static_cast<double>(page_size);
  if (static_cast<double>(bytes) <= physical) return Status::OK();
  return Usage(fmt::format("{}: more than this machine's memory ({:.1f} GiB)", source,
                           physical / (1 << 30)));
}

}  // namespace tools
