// The `nutchfs` command line as data (tools/cli_spec.h); docs/NUTCHFS.md, "Command", says
// the same at length.
#include "tools/cli_spec.h"

namespace tools {
namespace {

using C = Completion;

std::vector<OptionSpec> Options() {
  return {
      {"config", 0, "FILE", "the cluster config (config/README.md); every command needs it",
       C::kFile},
      {"machine", 0, "NAME",
       "this machine's name in the config (default: the machine whose "
       "ssh host is this host)"},
      {"db", 0, "NAME", "the db's name (default: the config's db)"},
      {"verify", 0, "", "re-read every copy written and compare its SHA-256 with the source's"},
      {"break", 0, "", "break the named lock (unless a live process on this host holds it)"},
      {"force", 0, "",
       "with --break: also another host's lock older than lock_lease_ms, or an "
       "unreadable one"},
  };
}

std::vector<CommandSpec> Commands() {
  return {
      {"ls",
       "nutchfs ls --config FILE GROUP [DIR]",
       "Lists the visible files of a share group (of DIR in it).",
       {},
       1,
       2,
       C::kNone},
      {"put",
       "nutchfs put --config FILE [--verify] LOCALFILE GROUP NAME",
       "Publishes a local file as NAME to every machine of its share group; prints its size and "
       "SHA-256.",
       {{"verify", ""}},
       3,
       3},
      {"get",
       "nutchfs get --config FILE [--verify] GROUP NAME LOCALFILE",
       "Copies a file of a share group to a local file; prints its size and SHA-256.",
       {{"verify", ""}},
       3,
       3},
      {"rm",
       "nutchfs rm --config FILE GROUP NAME",
       "Deletes a file at every machine of its share group.",
       {},
       2,
       2,
       C::kNone},
      {"locks",
       "nutchfs locks --config FILE [GROUP]\n"
       "  nutchfs locks --config FILE --break [--force] GROUP NAME",
       "Lists the locks (of every group by default) with their owners, or breaks a stale one.",
       {{"break", ""}, {"force", ""}},
       0,
       2,
       C::kNone},
  };
}

ProgramSpec MakeSpec() {
  ProgramSpec p{
      "nutchfs",
      "the operator's command for a NutchFS cluster: files of share groups, locks",
      "nutchfs lists, publishes, fetches and deletes the files of a NutchFS share group (a "
      "file namespace over local or NFS directories and SSH/SFTP machines, as a cluster "
      "config describes it), and lists or breaks its locks.",
      Commands(),
      Options(),
      {"config", "machine", "db"},
      {{0, "success"},
       {1, "not found"},
       {2, "usage error"},
       {3, "bad input (the config, a name)"},
       {4, "I/O, peer or lock failure"}},
      "Documentation: docs/NUTCHFS.md."};
  AddCommonParts(&p);
  return p;
}

}  // namespace

const ProgramSpec& NutchfsSpec() {
  static const ProgramSpec spec = MakeSpec();
  return spec;
}

}  // namespace tools
