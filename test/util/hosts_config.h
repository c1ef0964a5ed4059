// Distributed-writer cluster configs on test hosts (test/util/test_hosts.h): writer i
// runs as machine host(i).name, k = hosts.size(), and the machines' roots are reached
//   kSftp:   over SFTP, `root@<address>:22:<host root>`, with the hosts' client key and
//            known_hosts file (a writer reaches its own root directly);
//   kShared: as local paths `<shared dir>/<host name>` (the NFS stand-in; no ssh);
//   kSshfs:  as local paths `<host root>`, which a host's command replaces with sshfs
//            mounts of its peers (see the multi-host test).
// timeout_ms is 30 s, so a broken round fails a test instead of hanging it.
//
// Free functions; the config file lives in hosts.dir() and goes with the hosts.
#ifndef TEST_UTIL_HOSTS_CONFIG_H_
#define TEST_UTIL_HOSTS_CONFIG_H_

#include <string>

#include "test/util/test_hosts.h"

namespace testutil {

enum class HostsTransport { kSftp, kShared, kSshfs };

// The config text.
std::string HostsConfigText(const TestHosts& hosts, HostsTransport transport);

// Writes the config to hosts.dir() + "/cluster.conf" and returns that path; fails the
// running Catch2 test if it cannot be written.
std::string WriteHostsConfig(const TestHosts& hosts, HostsTransport transport);

// Writes text to path (replacing it); fails the running Catch2 test if it cannot.
void WriteTextFile(const std::string& path, const std::string& text);

}  // namespace testutil

#endif  // TEST_UTIL_HOSTS_CONFIG_H_
