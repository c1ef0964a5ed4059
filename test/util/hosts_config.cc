#include "test/util/hosts_config.h"

#include <catch2/catch.hpp>
#include <fstream>

namespace testutil {
namespace {

std::string MachineLocation(const TestHosts& hosts, HostsTransport transport, int i) {
  switch (transport) {
    case HostsTransport::kSftp:
      return "root@" + hosts.host(i).address + ":22:" + hosts.host(i).root;
    case HostsTransport::kShared:
      return hosts.shared_dir() + "/" + hosts.host(i).name;
    case HostsTransport::kSshfs:
      return hosts.host(i).root;
  }
  return "";
}

}  // namespace

std::string HostsConfigText(const TestHosts& hosts, HostsTransport transport) {
  std::string text = "db = crawl\nwriters = " + std::to_string(hosts.size()) +
                     "\ntimeout_ms = 30000\nconnect_timeout_ms = 5000\n";
  if (transport == HostsTransport::kSftp) {
    text += "ssh_identity = " + hosts.client_key() + "\nssh_known_hosts = " +
            hosts.known_hosts() + "\n";
  }
  for (int i = 0; i < hosts.size(); ++i) {
    text += "[machine." + hosts.host(i).name +
            "]\nlocation = " + MachineLocation(hosts, transport, i) + "\n";
  }
  for (int i = 0; i < hosts.size(); ++i) {
    text += "[writer." + std::to_string(i) + "]\nmachine = " + hosts.host(i).name + "\n";
  }
  return text;
}

std::string WriteHostsConfig(const TestHosts& hosts, HostsTransport transport) {
  const std::string path = hosts.dir() + "/cluster.conf";
  WriteTextFile(path, HostsConfigText(hosts, transport));
  return path;
}

void WriteTextFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  INFO("writing " << path);
  REQUIRE(out.good());
}

}  // namespace testutil
