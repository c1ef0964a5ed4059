// The simulated machines themselves (test/util/test_hosts.h, scripts/testhosts.sh):
// separate network namespaces that reach each other's sshd and nothing outside, one
// file-system view per host, and an sshd that can be stopped and started.
#include "test/util/test_hosts.h"

#include <catch2/catch.hpp>
#include <fstream>

namespace {

using Catch::Contains;
using testutil::ShellQuote;

// An ssh command line, run on some host, that logs in to host `to`.
std::string SshTo(const testutil::TestHosts& hosts, int to, const std::string& cmd) {
  return "ssh -i " + ShellQuote(hosts.client_key()) +
         " -o UserKnownHostsFile=" + ShellQuote(hosts.known_hosts()) +
         " -o BatchMode=yes -o ConnectTimeout=5 root@" + hosts.host(to).address + " " +
         ShellQuote(cmd);
}

}  // namespace

TEST_CASE("test hosts are separate machines reachable over ssh", "[ssh]") {
  testutil::TestHosts hosts(3);
  REQUIRE(hosts.size() == 3);
  CHECK(hosts.host(0).address != hosts.host(1).address);

  auto own = hosts.Exec(1, "ip -4 -o addr show dev eth0");
  CHECK(own.exit_code == 0);
  CHECK_THAT(own.output, Contains(hosts.host(1).address + "/24"));
  auto env = hosts.Exec(1, "echo $TESTHOSTS_HOST $TESTHOSTS_ROOT $TESTHOSTS_SHARED");
  CHECK(env.output == "h1 " + hosts.host(1).root + " " + hosts.shared_dir() + "\n");

  // Host 0 logs in to host 2, whose commands run in host 2's namespace.
  auto remote = hosts.Exec(0, SshTo(hosts, 2, "ip -4 -o addr show dev eth0"));
  INFO(remote.output);
  CHECK(remote.exit_code == 0);
  CHECK_THAT(remote.output, Contains(hosts.host(2).address + "/24"));

  // Nothing outside the private network is reachable.
  CHECK(hosts.Exec(0, "ip route get 192.0.2.1").exit_code != 0);

  hosts.StopSshd(2);
  CHECK(hosts.Exec(0, SshTo(hosts, 2, "true")).exit_code != 0);
  hosts.StartSshd(2);
  CHECK(hosts.Exec(0, SshTo(hosts, 2, "true")).exit_code == 0);
}

TEST_CASE("test hosts see their root and the shared directory as separate mounts", "[ssh]") {
  testutil::TestHosts hosts(2);
  const std::string file = hosts.host(0).root + "/f";
  REQUIRE(hosts.Exec(0, "echo on-h0 > " + ShellQuote(file)).exit_code == 0);
  std::string line;
  std::getline(std::ifstream(file), line);
  CHECK(line == "on-h0");

  // rename(2) from the host's root into the shared directory fails as across NFS.
  auto moved = hosts.Exec(0, "perl -e 'rename($ARGV[0], $ARGV[1]) or die \"$!\\n\"' " +
                                 ShellQuote(file) + " " + ShellQuote(hosts.shared_dir() + "/f"));
  CHECK(moved.exit_code != 0);
  CHECK_THAT(moved.output, Contains("cross-device"));
  // Within one mount it works.
  auto renamed = hosts.Exec(0, "perl -e 'rename($ARGV[0], $ARGV[1]) or die \"$!\\n\"' " +
                                   ShellQuote(file) + " " + ShellQuote(file + ".2"));
  CHECK(renamed.exit_code == 0);
}
