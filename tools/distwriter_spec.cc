// The `distwriter` command line as data (tools/cli_spec.h); docs/DISTRIBUTED.md says the
// same at length.
#include "tools/cli_spec.h"
#include "tools/config_query.h"

namespace tools {
namespace {

using C = Completion;

std::vector<OptionSpec> Options() {
  return {
      {"config", 0, "FILE", "the cluster config (config/README.md)", C::kFile},
      {"writers", 0, "K", "the number of writers"},
      {"root", 0, "DIR", "the directory under which each writer's machine gets a folder", C::kDir},
      {"out", 0, "FILE", "the cluster config to write", C::kFile},
      {"db", 0, "NAME", "the db's name in the config (default webdb)"},
      {"force", 0, "", "replace an existing config FILE (a regular file only)"},
      {"sample", 0, "URLFILE",
       "URLs whose order splits the url-keyed tables among the writers (default: an even "
       "split of the byte range)",
       C::kFile},
      {"keep", 0, "N", "keep N rounds readable (1..10000, default 2)"},
      {"writer", 0, "I", "the writer's index, 0..k-1"},
      {"machine", 0, "M",
       "run as machine M, a replica holder of the writer's group: a takeover "
       "(docs/DISTRIBUTED.md, \"Takeover\")"},
      {"session", 0, "NAME",
       "the round's session, 1 to 256 bytes: the k writers of a round and every rerun of it "
       "get the same NAME, a new round a new one (docs/DISTRIBUTED.md, \"Sessions\")"},
      {"memory", 0, "SIZE",
       "memory budget of each writer's sorts (default: the config's memory, else 256M)"},
      {"get", 0, "KEY", "the top-level config key to print, as distwriter reads it", C::kWords,
       ReportedConfigKeys()},
      {"json", 0, "", "one JSON object on standard output: the round and each writer's report"},
      {"quiet", 'q', "", "no progress reports on stderr"},
      {"rank", 0, "", "a rank round (webdb rank, docs/CLI.md) instead of a round of call files"},
      {"iterations", 0, "K", "rank: at most K iterations (default 10)"},
      {"epsilon", 0, "E",
       "rank: stop once an iteration changes the scores by less than E x pages in all "
       "(default 0.0001)"},
      {"damping", 0, "D", "rank: the damping factor, 0 <= D < 1 (default 0.85)"},
  };
}

std::vector<CommandSpec> Commands() {
  return {
      {"init-local",
       "distwriter init-local --writers K --root DIR --out FILE [--db NAME] [--force]",
       "Writes a cluster config of K writers on this host, each in a folder under DIR.",
       {{"writers", ""}, {"root", ""}, {"out", ""}, {"db", ""}, {"force", ""}},
       0,
       0},
      {"create",
       "distwriter create --config FILE [--sample URLFILE] [--keep N]",
       "Creates the empty distributed db on every machine of the config.",
       {{"config", ""}, {"sample", ""}, {"keep", ""}},
       0,
       0},
      {"run",
       "distwriter run --config FILE [--writer I] [--machine M] [--session NAME] CALLFILE...",
       "Runs writer I's part of one round with these call files (each writer is given the "
       "same files); prints its report as JSON. Without --writer, I is taken from "
       "SLURM_ARRAY_TASK_ID, SLURM_PROCID or JOB_COMPLETION_INDEX.",
       {{"config", ""}, {"writer", ""}, {"machine", ""}, {"session", ""}, {"memory", ""}},
       1,
       kAnyNumber},
      {"rank",
       "distwriter rank --config FILE --writer I [--iterations K] [--epsilon E] [--damping D]",
       "Runs writer I's part of a rank round (docs/DISTRIBUTED.md); prints its report as JSON.",
       {{"config", ""},
        {"writer", ""},
        {"iterations", ""},
        {"epsilon", ""},
        {"damping", ""},
        {"memory", ""}},
       0,
       0},
      {"launch",
       "distwriter launch --config FILE [--memory SIZE] [--session NAME] [--json] CALLFILE...\n"
       "distwriter launch --config FILE [--memory SIZE] [--json] --rank [...]",
       "Runs one round: starts every writer (over ssh for remote machines), waits for all "
       "and reports each writer's outcome. With --rank, a rank round instead, of no call files.",
       {{"config", ""},
        {"memory", ""},
        {"session",
         "name the round's session instead of drawing one: a launch with the session of the "
         "installed round finds its calls applied, a new NAME is a new round"},
        {"json", ""},
        {"rank", ""},
        {"iterations", ""},
        {"epsilon", ""},
        {"damping", ""}},
       0,
       kAnyNumber},
      {"unlock",
       "distwriter unlock --config FILE --writer I",
       "Removes writer I's lock, left by a writer that is gone.",
       {{"config", ""}, {"writer", ""}},
       0,
       0},
      {"rereplicate",
       "distwriter rereplicate --config FILE",
       "Restores the copies a replaced machine lacks (kept rounds' sections, round files) from "
       "their holders, then publishes a round naming them; no writer may run meanwhile.",
       {{"config", ""}},
       0,
       0},
      {"machines",
       "distwriter machines --config FILE",
       "Prints one line per writer: index, machine, scheme, host, port, user, root.",
       {{"config", ""}},
       0,
       0},
      {"config",
       "distwriter config --config FILE --get KEY",
       "Prints one config value as distwriter uses it (defaults and units resolved).",
       {{"config", ""}, {"get", ""}},
       0,
       0},
  };
}

ProgramSpec MakeSpec() {
  ProgramSpec p{
      "distwriter",
      "the distributed writer of a WebDB: k writers on k machines, one round at a time",
      "distwriter applies sessions of writer calls to a distributed WebDB: k writers, each "
      "owning a section of every table, exchange edit files through NutchFS (local or NFS "
      "directories, or SSH/SFTP) in lockstep rounds; the result is the db a single writer "
      "would make. webdb reads it with --config FILE.",
      Commands(),
      Options(),
      {"quiet"},
      {{0, "success"},
       {1, "unlock: the writer is not locked"},
       {2, "usage error"},
       {3, "bad input (a call file, a config), nothing applied"},
       {4, "I/O or peer failure, a busy writer"}},
      "Documentation: docs/DISTRIBUTED.md and config/README.md."};
  AddCommonParts(&p);
  return p;
}

}  // namespace

const ProgramSpec& DistwriterSpec() {
  static const ProgramSpec spec = MakeSpec();
  return spec;
}

}  // namespace tools
