#include "tools/cli_args.h"

#include <fmt/format.h>
#include <spdlog/common.h>
#include <unistd.h>

#include <algorithm>
#include <boost/program_options.hpp>
#include <charconv>
#include <cstdint>
#include <limits>

#include "webdb/rank/rank_math.h"

namespace tools {
namespace {

using webdb::ParseMd5Hex;
using webdb::ParseTableName;
using webdb::ValidateUrl;

namespace po = boost::program_options;

Status Usage(std::string msg) { return Status::InvalidArgument(std::move(msg)); }

// The per-command options, as bits.
enum OptionBit : unsigned {
  kTableOpt = 1, kMd5Opt = 2, kUrlOpt = 4, kMemoryOpt = 8, kConfigOpt = 16,
  kFilterOpt = 32, kSkipBadOpt = 64, kUpdateOpt = 128, kGenerateOpt = 256,
  kJsonOpt = 512, kQuickOpt = 1024, kTextOpt = 2048, kKeepOpt = 4096, kVersionOpt = 8192,
  kRankOpt = 16384
};
constexpr std::pair<OptionBit, const char*> kOptionNames[] = {
    {kTableOpt, "table"},           {kMd5Opt, "md5"},
    {kUrlOpt, "url"},               {kMemoryOpt, "memory"},
    {kConfigOpt, "config"},         {kFilterOpt, "filter"},
    {kSkipBadOpt, "skip-bad"},      {kUpdateOpt, "max-retries"},
    {kUpdateOpt, "retry-delay-days"}, {kUpdateOpt, "fetchlist"},
    {kUpdateOpt, "max-outlinks"},   {kUpdateOpt, "max-anchor"},
    {kUpdateOpt, "follow-nofollow"}, {kGenerateOpt, "top"},
    {kGenerateOpt, "max-per-host"}, {kGenerateOpt, "by"},
    {kGenerateOpt, "now"},          {kGenerateOpt, "lease-days"},
    {kGenerateOpt, "out"},          {kGenerateOpt, "dry-run"},
    {kJsonOpt, "json"},             {kQuickOpt, "quick"},
    {kTextOpt, "text"},             {kKeepOpt, "keep"},
    {kVersionOpt, "version"},       {kRankOpt, "iterations"},
    {kRankOpt, "epsilon"},          {kRankOpt, "damping"}};

struct CommandSpec {
  const char* name;
  size_t min_args;  // positional arguments after the command, DB included
  size_t max_args;
  unsigned options;
  const char* synopsis;
};

constexpr size_t kUnlimited = std::numeric_limits<size_t>::max();

constexpr CommandSpec kCommands[] = {
    {"create", 1, 1, kKeepOpt, "webdb create DB [--keep N]"},
    {"unlock", 1, 1, 0, "webdb unlock DB"},
    {"apply", 2, kUnlimited, kMemoryOpt | kKeepOpt,
     "webdb apply DB CALLFILE... [--memory SIZE] [--keep N]"},
    {"dump", 1, 1, kTableOpt | kConfigOpt | kVersionOpt,
     "webdb dump (DB | --config FILE) --table pagesByURL|pagesByMD5|linksByURL|linksByMD5\n"
     "               [--version V]"},
    {"stats", 1, 1, kConfigOpt | kQuickOpt | kTextOpt | kJsonOpt | kVersionOpt,
     "webdb stats (DB | --config FILE) [--quick] [--text | --json] [--version V]"},
    {"page", 2, 2, kConfigOpt | kVersionOpt, "webdb page (DB | --config FILE) URL [--version V]"},
    {"pages", 1, 1, kMd5Opt | kConfigOpt | kVersionOpt,
     "webdb pages (DB | --config FILE) --md5 HEX [--version V]"},
    {"links", 1, 1, kUrlOpt | kMd5Opt | kConfigOpt | kVersionOpt,
     "webdb links (DB | --config FILE) (--url URL | --md5 HEX) [--version V]"},
    {"inject", 2, kUnlimited, kConfigOpt | kMemoryOpt | kFilterOpt | kSkipBadOpt,
     "webdb inject (DB | --config FILE) URLFILE... [--filter FILE] [--skip-bad]"},
    {"update", 2, kUnlimited, kConfigOpt | kMemoryOpt | kFilterOpt | kSkipBadOpt | kUpdateOpt,
     "webdb update (DB | --config FILE) WARC... [--filter FILE] [--skip-bad]\n"
     "               [--fetchlist FILE] [--max-retries N] [--retry-delay-days D]\n"
     "               [--max-outlinks N] [--max-anchor N] [--follow-nofollow]"},
    {"generate", 1, 1, kConfigOpt | kMemoryOpt | kGenerateOpt | kVersionOpt,
     "webdb generate (DB | --config FILE) --top N [--max-per-host M] [--by host|domain]\n"
     "               [--now MS] [--lease-days D] [--out FILE] [--dry-run [--version V]]"},
    {"calls", 2, kUnlimited, kConfigOpt | kFilterOpt | kSkipBadOpt | kUpdateOpt,
     "webdb calls inject URLFILE... [--filter FILE] [--skip-bad]\n"
     "  webdb calls warc (DB | --config FILE) WARC... [update's options]"},
    {"verify", 1, 1, kConfigOpt | kMemoryOpt | kJsonOpt | kVersionOpt,
     "webdb verify (DB | --config FILE) [--json] [--memory SIZE] [--version V]"},
    {"explain", 2, 2, kConfigOpt | kJsonOpt | kVersionOpt,
     "webdb explain (DB | --config FILE) URL [--json] [--version V]"},
    {"versions", 1, 1, kConfigOpt | kJsonOpt, "webdb versions (DB | --config FILE) [--json]"},
    {"rollback", 2, 2, kConfigOpt, "webdb rollback (DB | --config FILE) VERSION"},
    {"keep", 2, 2, kConfigOpt, "webdb keep (DB | --config FILE) N"},
    {"rank", 1, 1, kConfigOpt | kMemoryOpt | kJsonOpt | kRankOpt,
     "webdb rank (DB | --config FILE) [--iterations K] [--epsilon E] [--damping D]\n"
     "               [--memory SIZE] [--json]"},
    {"drop-version", 2, 2, kConfigOpt, "webdb drop-version (DB | --config FILE) VERSION"},
};

po::options_description AllOptions() {
  po::options_description opts;
  opts.add_options()
      ("help,h", "")
      ("table", po::value<std::string>())
      ("md5", po::value<std::string>())
      ("url", po::value<std::string>())
      ("memory", po::value<std::string>())
      ("config", po::value<std::string>())
      ("filter", po::value<std::string>())
      ("skip-bad", po::bool_switch())
      ("max-retries", po::value<std::string>())
      ("retry-delay-days", po::value<std::string>())
      ("fetchlist", po::value<std::string>())
      ("max-outlinks", po::value<std::string>())
      ("max-anchor", po::value<std::string>())
      ("follow-nofollow", po::bool_switch())
      ("top", po::value<std::string>())
      ("max-per-host", po::value<std::string>())
      ("by", po::value<std::string>())
      ("now", po::value<std::string>())
      ("lease-days", po::value<std::string>())
      ("out", po::value<std::string>())
      ("dry-run", po::bool_switch())
      ("json", po::bool_switch())
      ("quick", po::bool_switch())
      ("text", po::bool_switch())
      ("keep", po::value<std::string>())
      ("version", po::value<std::string>())
      ("iterations", po::value<std::string>())
      ("epsilon", po::value<std::string>())
      ("damping", po::value<std::string>())
      ("quiet,q", po::bool_switch())
      ("log-level", po::value<std::string>())
      ("command", po::value<std::string>())
      ("args", po::value<std::vector<std::string>>());
  return opts;
}

Result<po::variables_map> RunParser(int argc, const char* const* argv) {
  po::positional_options_description positional;
  positional.add("command", 1).add("args", -1);
  // No abbreviated options: "--mem" must not silently mean "--memory".
  int style = po::command_line_style::default_style & ~po::command_line_style::allow_guessing;
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(argc, argv)
                  .options(AllOptions())
                  .positional(positional)
                  .style(style)
                  .run(),
              vm);
  } catch (const po::error& e) {
    return Err(Usage(e.what()));
  }
  return vm;
}

Result<Md5> ParseMd5Arg(const std::string& hex) {
  auto md5 = ParseMd5Hex(hex);
  if (!md5) return Err(Usage("--md5 " + hex + ": expected 32 lowercase hex digits"));
  return *md5;
}

Status CheckUrlArg(const std::string& url) {
  Status s = ValidateUrl(url);
  return s.ok() ? s : Usage("bad URL argument: " + s.message());
}

// name is what the user wrote the value after: an option ("--top") or, for an argument,
// the command and the argument's name ("keep N"), which the message joins with " = ".
Result<int64_t> ParseIntArg(std::string_view name, const std::string& text, int64_t min,
                            int64_t max) {
  int64_t n = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty() || n < min ||
      n > max) {
    return Err(Usage(fmt::format("{}{}{}: expected an integer in {}..{}", name,
                                 name.starts_with("--") ? " " : " = ", text, min, max)));
  }
  return n;
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

Status FillGenerateArgs(const po::variables_map& vm, CrawlArgs* c) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  auto opt = [&](const char* name) -> std::optional<std::string> {
    if (!vm.count(name)) return std::nullopt;
    return vm[name].as<std::string>();
  };
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
  c->dry_run = vm["dry-run"].as<bool>();
  return Status::OK();
}

// The options and inputs of inject, update, generate and calls.
Status FillCrawlArgs(const po::variables_map& vm, const std::vector<std::string>& args,
                     Invocation* inv) {
  CrawlArgs& c = inv->crawl;
  if (vm.count("filter")) c.filter = vm["filter"].as<std::string>();
  c.skip_bad = vm["skip-bad"].as<bool>();
  c.follow_nofollow = vm["follow-nofollow"].as<bool>();
  if (vm.count("max-retries")) {
    NUTCHFS_ASSIGN_OR_RETURN(
        c.max_retries, ParseIntArg("--max-retries", vm["max-retries"].as<std::string>(), 0, 255));
  }
  if (vm.count("retry-delay-days")) {
    NUTCHFS_ASSIGN_OR_RETURN(
        int64_t d,
        ParseIntArg("--retry-delay-days", vm["retry-delay-days"].as<std::string>(), 0, 100000));
    c.retry_delay_ms = d * 24 * 3600 * 1000;
  }
  if (vm.count("fetchlist")) c.fetchlist = vm["fetchlist"].as<std::string>();
  if (vm.count("max-outlinks")) {
    NUTCHFS_ASSIGN_OR_RETURN(
        c.max_outlinks,
        ParseIntArg("--max-outlinks", vm["max-outlinks"].as<std::string>(), 0, 1 << 30));
  }
  if (vm.count("max-anchor")) {
    NUTCHFS_ASSIGN_OR_RETURN(
        c.max_anchor, ParseIntArg("--max-anchor", vm["max-anchor"].as<std::string>(), 0, 65535));
  }
  if (inv->command == "generate") return FillGenerateArgs(vm, &c);
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

Result<double> ParseDoubleArg(const char* name, const std::string& text) {
  double x = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), x);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty()) {
    return Err(Usage(fmt::format("--{} {}: expected a number", name, text)));
  }
  return x;
}

Status FillRankArgs(const po::variables_map& vm, webdb::RankOptions* o) {
  auto opt = [&](const char* name) -> std::optional<std::string> {
    if (!vm.count(name)) return std::nullopt;
    return vm[name].as<std::string>();
  };
  NUTCHFS_ASSIGN_OR_RETURN(*o, ParseRankOptions(opt("iterations"), opt("epsilon"), opt("damping")));
  return Status::OK();
}

// --version, --keep, and the arguments of rollback, drop-version and keep.
Status FillVersionArgs(const po::variables_map& vm, const std::vector<std::string>& args,
                       Invocation* inv) {
  if (vm.count("version")) {
    NUTCHFS_ASSIGN_OR_RETURN(inv->version,
                             ParseVersionArg("--version", vm["version"].as<std::string>()));
    if (inv->command == "generate" && !inv->crawl.dry_run) {
      return Usage("generate --version V needs --dry-run: leases go to the current version");
    }
  }
  if (vm.count("keep")) {
    NUTCHFS_ASSIGN_OR_RETURN(int64_t keep, ParseIntArg("--keep", vm["keep"].as<std::string>(), 1,
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
Status FillCommandArgs(const po::variables_map& vm, const std::vector<std::string>& args,
                       Invocation* inv) {
  inv->db = args[0];
  auto opt = [&](const char* name) -> std::optional<std::string> {
    if (!vm.count(name)) return std::nullopt;
    return vm[name].as<std::string>();
  };
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
  inv->json = vm["json"].as<bool>();
  inv->quick = vm["quick"].as<bool>();
  inv->text = vm["text"].as<bool>();
  if (IsCrawlCommand(inv->command)) NUTCHFS_RETURN_IF_ERROR(FillCrawlArgs(vm, args, inv));
  if (inv->command == "rank") NUTCHFS_RETURN_IF_ERROR(FillRankArgs(vm, &inv->rank));
  NUTCHFS_RETURN_IF_ERROR(FillVersionArgs(vm, args, inv));
  if (auto memory = opt("memory")) {
    NUTCHFS_ASSIGN_OR_RETURN(inv->memory_budget, ParseMemorySize(*memory));
    NUTCHFS_RETURN_IF_ERROR(CheckMemoryBudget(inv->memory_budget, "--memory " + *memory));
  }
  return Status::OK();
}

Status FillGlobalOptions(const po::variables_map& vm, Invocation* inv) {
  inv->quiet = vm["quiet"].as<bool>();
  if (vm.count("log-level")) {
    inv->log_level = vm["log-level"].as<std::string>();
    if (spdlog::level::from_str(inv->log_level) == spdlog::level::off && inv->log_level != "off") {
      return Usage("--log-level " + inv->log_level +
                   ": expected trace, debug, info, warn, error, critical or off");
    }
  }
  return Status::OK();
}

Status CheckCommandShape(const po::variables_map& vm, const CommandSpec& spec,
                         const std::vector<std::string>& args) {
  if (args.size() < spec.min_args || args.size() > spec.max_args) {
    return Usage(std::string("usage: ") + spec.synopsis);
  }
  for (auto [bit, name] : kOptionNames) {
    if (vm.count(name) && !vm[name].defaulted() && !(spec.options & bit)) {
      return Usage(std::string("--") + name + " does not apply to " + spec.name);
    }
  }
  return Status::OK();
}

}  // namespace

Result<Invocation> ParseCommandLine(int argc, const char* const* argv) {
  NUTCHFS_ASSIGN_OR_RETURN(po::variables_map vm, RunParser(argc, argv));
  Invocation inv;
  if (vm.count("help")) {
    inv.help = true;
    return inv;
  }
  if (!vm.count("command")) return Err(Usage("no command given"));
  inv.command = vm["command"].as<std::string>();
  const CommandSpec* spec = nullptr;
  for (const CommandSpec& c : kCommands) {
    if (inv.command == c.name) spec = &c;
  }
  if (spec == nullptr) return Err(Usage("unknown command '" + inv.command + "'"));
  std::vector<std::string> args;
  if (vm.count("args")) args = vm["args"].as<std::vector<std::string>>();
  // --config FILE takes the place of the DB argument.
  if (vm.count("config")) {
    inv.config = vm["config"].as<std::string>();
    bool calls = inv.command == "calls" && !args.empty();  // calls warc --config: after "warc"
    args.insert(calls ? args.begin() + 1 : args.begin(), std::string());
  }
  NUTCHFS_RETURN_IF_ERROR(CheckCommandShape(vm, *spec, args));
  NUTCHFS_RETURN_IF_ERROR(FillGlobalOptions(vm, &inv));
  NUTCHFS_RETURN_IF_ERROR(FillCommandArgs(vm, args, &inv));
  return inv;
}

Result<webdb::RankOptions> ParseRankOptions(const std::optional<std::string>& iterations,
                                            const std::optional<std::string>& epsilon,
                                            const std::optional<std::string>& damping) {
  webdb::RankOptions o;
  if (iterations) {
    NUTCHFS_ASSIGN_OR_RETURN(int64_t k, ParseIntArg("iterations", *iterations, 1, 1000000));
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

std::string UsageText() {
  std::string text = "Usage:\n";
  for (const CommandSpec& c : kCommands) text += std::string("  ") + c.synopsis + "\n";
  text +=
      "\nOptions:\n"
      "  --config FILE     the distributed db of this cluster config (docs/DISTRIBUTED.md)\n"
      "  --memory SIZE     memory budget of apply, verify and rank (external sorts, rank's\n"
      "                    accumulators)\n"
      "                    (default 256M; units K, M, G, T are powers of 1024; at least 1M)\n"
      "  --json            verify, rank: print a JSON summary on stdout (verify: findings\n"
      "                    on stderr);\n"
      "                    explain, versions: one JSON object instead of a report for\n"
      "                    humans; stats: one JSON object (the default)\n"
      "  --quick           stats: counts and bytes only, from the manifest alone\n"
      "  --text            stats: a report for humans instead of one JSON object\n"
      "  --version V       read commands: read kept version V instead of the current one\n"
      "  --keep N          create, apply: keep N versions readable (default 2)\n"
      "  --iterations K    rank: at most K iterations (default 10)\n"
      "  --epsilon E       rank: stop once an iteration changes the scores by less than\n"
      "                    E x pages in all (default 0.0001)\n"
      "  --damping D       rank: the damping factor, 0 <= D < 1 (default 0.85)\n"
      "  --quiet, -q       no progress reports on stderr\n"
      "Crawl commands (docs/CRAWL.md):\n"
      "  --filter FILE     URL filter, +REGEX / -REGEX lines, first match wins\n"
      "  --skip-bad        count and skip bad URL lines or WARC records instead of exit 3\n"
      "  --fetchlist FILE  update: the fetch list crawled; URLs with no WARC record are\n"
      "                    network failures\n"
      "  --max-retries N   failures before a page is deleted (default 3)\n"
      "  --retry-delay-days D  update: a failed page is due again after D days (default 1)\n"
      "  --max-outlinks N  links kept per page (default 100)\n"
      "  --max-anchor N    anchor text bytes kept (default 100)\n"
      "  --follow-nofollow ignore rel=nofollow and meta robots nofollow\n"
      "  --top N           generate: fetch list size\n"
      "  --max-per-host M  generate: at most M urls per host (or domain with --by domain)\n"
      "  --now MS          generate: the time, ms since the epoch (default the clock)\n"
      "  --lease-days D    generate: handed-out pages are not due for D days (default 7)\n"
      "  --out FILE        generate: write the fetch list to FILE instead of stdout\n"
      "  --dry-run         generate: do not lease the pages\n"
      "  --log-level LEVEL trace, debug, info, warn (default), error, critical or off\n"
      "  --help, -h        this text\n"
      "\nCALLFILE \"-\" reads standard input. Exit codes: 0 success, 1 not found (page),\n"
      "2 usage error, 3 bad input or a damaged db (verify), 4 I/O or other failure.\n"
      "See docs/CLI.md.\n";
  return text;
}

}  // namespace tools
