// The `webdb` command line as data (tools/cli_spec.h); docs/CLI.md says the same at length.
#include "tools/cli_spec.h"
#include "webdb/table/record.h"

namespace tools {
namespace {

using C = Completion;

std::vector<std::string> TableNames() {
  std::vector<std::string> names;
  for (auto t : {webdb::TableId::kPagesByUrl, webdb::TableId::kPagesByMd5,
                 webdb::TableId::kLinksByMd5, webdb::TableId::kLinksByUrl}) {
    names.emplace_back(webdb::TableName(t));
  }
  return names;
}

std::vector<OptionSpec> Options() {
  return {
      {"table", 0, "T", "the table to dump: pagesByURL, pagesByMD5, linksByURL or linksByMD5",
       C::kWords, TableNames()},
      {"md5", 0, "HEX", "a content md5: 32 lowercase hex digits"},
      {"url", 0, "URL", "a target url: list its inlinks"},
      {"memory", 0, "SIZE",
       "memory budget of the external sorts (default 256M; units K, M, G, T are powers of "
       "1024; at least 1M, at most this machine's memory)"},
      {"config", 0, "FILE",
       "the distributed db of this cluster config instead of DB (docs/DISTRIBUTED.md)", C::kFile},
      {"filter", 0, "FILE", "URL filter: +REGEX / -REGEX lines, the first match wins", C::kFile},
      {"skip-bad", 0, "", "count and skip bad URL lines or WARC records instead of exit 3"},
      {"max-retries", 0, "N", "failed fetches before a page is deleted (default 3)"},
      {"retry-delay-days", 0, "D", "a failed page is due again after D days (default 1)"},
      {"fetchlist", 0, "FILE",
       "the fetch list crawled: listed URLs with no WARC record are network failures", C::kFile},
      {"max-outlinks", 0, "N", "outlinks kept per page (default 100)"},
      {"max-anchor", 0, "N", "anchor text bytes kept (default 100)"},
      {"follow-nofollow", 0, "", "ignore rel=nofollow and meta robots nofollow"},
      {"top", 0, "N", "the fetch list's size (required)"},
      {"max-per-host", 0, "M", "at most M URLs per host (per domain with --by domain)"},
      {"by",
       0,
       "host|domain",
       "what --max-per-host counts by (default host)",
       C::kWords,
       {"host", "domain"}},
      {"now", 0, "MS", "the time, ms since the epoch (default the clock)"},
      {"lease-days", 0, "D", "listed pages are not due again for D days (default 7)"},
      {"out", 0, "FILE", "write the fetch list to FILE instead of standard output", C::kFile},
      {"dry-run", 0, "", "do not lease the listed pages"},
      {"json", 0, "", "one JSON object on standard output instead of a report for humans"},
      {"quick", 0, "", "counts and bytes only, from the manifest alone"},
      {"text", 0, "", "a report for humans instead of one JSON object"},
      {"keep", 0, "N", "keep N versions readable (1..10000, default 2)"},
      {"version", 0, "V",
       "read kept version V (with --config: round V) instead of the current one"},
      {"quiet", 'q', "", "no progress reports and no closing summary on stderr"},
      {"iterations", 0, "K", "at most K iterations (default 10)"},
      {"epsilon", 0, "E",
       "stop once an iteration changes the scores by less than E x pages in all "
       "(default 0.0001)"},
      {"damping", 0, "D", "the damping factor, 0 <= D < 1 (default 0.85)"},
  };
}

// The options of update and of calls (warc), whose calls are update's.
const std::vector<CommandOption> kWarcOptions = {
    {"config", ""},       {"filter", ""},      {"skip-bad", ""},
    {"fetchlist", ""},    {"max-retries", ""}, {"retry-delay-days", ""},
    {"max-outlinks", ""}, {"max-anchor", ""},  {"follow-nofollow", ""}};

std::vector<CommandSpec> Commands() {
  std::vector<CommandSpec> c = {
      {"create",
       "webdb create DB [--keep N]",
       "Makes an empty db in directory DB (created if missing); exit 3 if a db is there.",
       {{"keep", ""}},
       1,
       1,
       C::kDir},
      {"unlock",
       "webdb unlock DB",
       "Removes DB's lock, left by a writer that is gone (any lock but a live local process's).",
       {},
       1,
       1,
       C::kDir},
      {"apply",
       "webdb apply DB CALLFILE... [--memory SIZE] [--keep N]",
       "Applies the calls of the call files (JSON Lines; \"-\" reads standard input) as one "
       "session: all of them, or none on a bad line (exit 3, FILE:LINE named).",
       {{"memory", ""}, {"keep", "the db keeps N versions readable from this version on"}},
       2,
       kAnyNumber},
      {"dump",
       "webdb dump (DB | --config FILE) --table T [--version V]",
       "Prints every record of table T, one JSON object per line, in the table's order.",
       {{"table", ""}, {"config", ""}, {"version", ""}},
       1,
       1,
       C::kDir},
      {"stats",
       "webdb stats (DB | --config FILE) [--quick] [--text | --json] [--version V]",
       "Prints what the db holds as one JSON object: counts, table bytes, top hosts, "
       "histograms.",
       {{"config", ""},
        {"quick", ""},
        {"text", ""},
        {"json", "one JSON object (the default)"},
        {"version", ""}},
       1,
       1,
       C::kDir},
      {"page",
       "webdb page (DB | --config FILE) URL [--version V]",
       "Prints the page at URL as JSON; exit 1 if there is none.",
       {{"config", ""}, {"version", ""}},
       2,
       2,
       C::kDir},
      {"pages",
       "webdb pages (DB | --config FILE) --md5 HEX [--version V]",
       "Prints every page with that content md5, in url order.",
       {{"md5", ""}, {"config", ""}, {"version", ""}},
       1,
       1,
       C::kDir},
      {"links",
       "webdb links (DB | --config FILE) (--url URL | --md5 HEX) [--version V]",
       "Prints the inlinks of URL (--url) or the outlinks of a content (--md5).",
       {{"url", ""}, {"md5", "a content md5: list its outlinks"}, {"config", ""}, {"version", ""}},
       1,
       1,
       C::kDir},
      {"inject",
       "webdb inject (DB | --config FILE) URLFILE... [--filter FILE] [--skip-bad]",
       "Adds the URLs of the URL files (one a line; \"-\" reads standard input) as pages "
       "not yet fetched, in one session.",
       {{"config", ""},
        {"memory", "memory budget of the session's sorts (default 256M)"},
        {"filter", ""},
        {"skip-bad", ""}},
       2,
       kAnyNumber},
      {"update",
       "webdb update (DB | --config FILE) WARC... [--filter FILE] [--skip-bad]\n"
       "             [--fetchlist FILE] [--max-retries N] [--retry-delay-days D]\n"
       "             [--max-outlinks N] [--max-anchor N] [--follow-nofollow]",
       "Applies what a crawler fetched, as WARC files (plain or gzip), in one session; prints "
       "the counts as one JSON object.",
       kWarcOptions, 2, kAnyNumber},
      {"generate",
       "webdb generate (DB | --config FILE) --top N [--max-per-host M]\n"
       "             [--by host|domain] [--now MS] [--lease-days D] [--out FILE]\n"
       "             [--dry-run [--version V]]",
       "Prints the fetch list, the N due pages of highest score, and leases them unless "
       "--dry-run.",
       {{"config", ""},
        {"memory",
         "memory budget of the selection's sorts and the lease "
         "session (default 256M)"},
        {"top", ""},
        {"max-per-host", ""},
        {"by", ""},
        {"now", ""},
        {"lease-days", ""},
        {"out", ""},
        {"dry-run", ""},
        {"version", "with --dry-run: select from kept version V"}},
       1,
       1,
       C::kDir},
      {"calls",
       "webdb calls inject URLFILE... [--filter FILE] [--skip-bad]\n"
       "  webdb calls warc (DB | --config FILE) WARC... [update's options]",
       "Prints the calls inject or update would apply, as a call file, and applies nothing.",
       kWarcOptions,
       2,
       kAnyNumber,
       C::kWords,
       {"inject", "warc"}},
      {"verify",
       "webdb verify (DB | --config FILE) [--json] [--memory SIZE] [--version V]",
       "Checks every file and invariant of the db, as fsck does; one line a finding, exit 3 "
       "if there is one.",
       {{"config", ""},
        {"json", "a JSON summary on standard output, the findings on stderr"},
        {"memory", "memory budget of the invariant checks' sorts (default 256M)"},
        {"version", ""}},
       1,
       1,
       C::kDir},
      {"explain",
       "webdb explain (DB | --config FILE) URL [--json] [--version V]",
       "Says everything the db holds about one url: its page, same-md5 pages, links, rank "
       "among the due pages, history in the kept versions.",
       {{"config", ""}, {"json", ""}, {"version", ""}},
       2,
       2,
       C::kDir},
      {"versions",
       "webdb versions (DB | --config FILE) [--json]",
       "Lists the versions (rounds) the db keeps, newest first.",
       {{"config", ""}, {"json", ""}},
       1,
       1,
       C::kDir},
      {"rollback",
       "webdb rollback (DB | --config FILE) VERSION",
       "Makes kept version VERSION current again, as a new version.",
       {{"config", ""}},
       2,
       2,
       C::kDir},
      {"drop-version",
       "webdb drop-version (DB | --config FILE) VERSION",
       "Drops kept version VERSION, which is not the current one (a damaged one, say): its "
       "manifest and the files no other kept version names.",
       {{"config", ""}},
       2,
       2,
       C::kDir},
      {"compact",
       "webdb compact (DB | --config FILE)",
       "Merges every table's runs into its base and publishes the result as a new version.",
       {{"config", ""}},
       1,
       1,
       C::kDir},
      {"keep",
       "webdb keep (DB | --config FILE) N",
       "Keeps the N newest versions readable from now on.",
       {{"config", ""}},
       2,
       2,
       C::kDir},
      {"rank",
       "webdb rank (DB | --config FILE) [--iterations K] [--epsilon E] [--damping D] [--json]",
       "Computes every page's score from the link graph (docs/CLI.md) and publishes them as "
       "a new version.",
       {{"config", ""},
        {"iterations", ""},
        {"epsilon", ""},
        {"damping", ""},
        {"memory", "memory budget of rank's sorts and accumulators (default 256M)"},
        {"json", "print a JSON summary on standard output"}},
       1,
       1,
       C::kDir},
  };
  for (CommandSpec& command : c) {
    if (command.name == "update") {
      command.options.push_back({"memory", "memory budget of the session's sorts (default 256M)"});
    }
  }
  return c;
}

ProgramSpec MakeSpec() {
  ProgramSpec p{
      "webdb",
      "a web crawler's database of pages and links (Nutch's WebDB), updated in batch",
      "webdb creates, updates and reads a single-machine WebDB in a directory, or with "
      "--config FILE the distributed db of a cluster config (written by distwriter): four "
      "sorted tables of pages and links, updated by sessions of writer calls that only "
      "log edits and are merged into the tables when the session closes. It also runs "
      "the crawl cycle: inject seed URLs, generate a fetch list, update from the WARC "
      "files a crawler wrote.",
      Commands(),
      Options(),
      {"quiet"},
      {{0, "success"},
       {1, "not found (page: no page at URL; unlock: not locked)"},
       {2, "usage error"},
       {3, "bad input (a call file, URL or WARC file; verify: a damaged db), nothing applied"},
       {4, "I/O or peer failure, a busy or missing db"}},
      "Documentation: docs/CLI.md and docs/CRAWL.md."};
  AddCommonParts(&p);
  return p;
}

}  // namespace

const ProgramSpec& WebdbSpec() {
  static const ProgramSpec spec = MakeSpec();
  return spec;
}

}  // namespace tools
