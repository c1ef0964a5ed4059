#include "nutchfs/cluster_config.h"

#include <catch2/catch.hpp>

#include "test/util/temp_dir.h"

using nutchfs::ClusterConfig;
using nutchfs::Location;

namespace {

constexpr char kGood[] = R"(# a comment
db = crawl
timeout_ms = 5000
retries = 2
retry_window_ms = 4000
memory = 64M
ssh_identity = keys/id_ed25519
ssh_accept_unknown_host_keys = yes
writers = 2            # not a NutchFS key: left for the writer

[machine.a]
location = /data/a/

[machine.b]
location = nutch@host-b:2222:/srv/nutch

[group.part0]
machines = a

[group.part1]
machines = b, a

[writer.0]
machine = a
)";

// Parses text as "/etc/x.conf" and returns the error message (empty on success).
std::string ErrorOf(const std::string& text) {
  auto c = ClusterConfig::Parse(text, "/etc/x.conf");
  if (c) return "";
  CHECK(c.error().IsInvalidArgument());
  return c.error().message();
}

}  // namespace

TEST_CASE("a good config parses with every key", "[nutchfs]") {
  auto c = ClusterConfig::Parse(kGood, "/etc/nutch/x.conf");
  REQUIRE(c);
  CHECK(c->db == "crawl");
  CHECK(c->timeout_ms == 5000);
  CHECK(c->retries == 2);
  CHECK(c->retry_window_ms == 4000);
  CHECK(c->memory_bytes == 64ull << 20);
  CHECK(c->ssh.identity_file == "/etc/nutch/keys/id_ed25519");
  CHECK(c->ssh.accept_unknown_host_keys);
  REQUIRE(c->machines.size() == 2);
  CHECK(c->machines[0].location.root == "/data/a");
  CHECK(c->machines[0].line == 12);
  const Location& b = c->FindMachine("b")->location;
  CHECK(b.scheme == Location::Scheme::kSsh);
  CHECK(b.user == "nutch");
  CHECK(b.host == "host-b");
  CHECK(b.port == 2222);
  CHECK(b.root == "/srv/nutch");
  CHECK(c->FindGroup("part1")->machines == std::vector<std::string>{"b", "a"});
  CHECK(c->MachineOnHost("host-b") == c->FindMachine("b"));
  CHECK(c->MachineOnHost("nowhere") == nullptr);
  auto unclaimed = c->UnclaimedEntries();
  REQUIRE(unclaimed.size() == 2);
  CHECK(unclaimed[0]->key == "writers");
  CHECK(unclaimed[0]->line == 9);
  CHECK(unclaimed[1]->key == "writer.0.machine");
  CHECK(unclaimed[1]->section == "writer.0");
  CHECK(unclaimed[1]->value == "a");
  CHECK(unclaimed[1]->line == 24);
  CHECK(c->file.ErrorAt(23, "bad").message() == "/etc/nutch/x.conf:23: bad");
}

TEST_CASE("config errors name the file and line", "[nutchfs]") {
  struct Case {
    std::string text;
    std::string error;
  };
  const std::string head = "db = d\n[machine.a]\nlocation = /r/a\n";  // lines 1-3
  const std::vector<Case> cases = {
      {head + "[group.g]\nmachines = a, zz\n",
       "x.conf:5: share group 'g' names unknown machine 'zz'"},
      {head + "[group.g]\nmachines =\n", "x.conf:5: share group 'g' has no machine"},
      {head + "[group.g]\n", "x.conf:4: [group.g] has no 'machines'"},
      {head + "[group.g]\nmachines = a, a\n", "x.conf:5: share group 'g' lists machine 'a' twice"},
      {head + "[group.g]\nmachines = a,,a\n", "x.conf:5: share group 'g' has an empty machine"},
      {head + "[machine.a]\nlocation = /r/b\n[group.g]\nmachines = a\n",
       "x.conf:4: duplicate section [machine.a] (first at line 2)"},
      {head + "location = /r/c\n[group.g]\nmachines = a\n",
       "x.conf:4: duplicate key 'machine.a.location' (first at line 3)"},
      {head + "[machine.b]\nlocation = /r/a\n[group.g]\nmachines = a\n",
       "x.conf:5: machines 'a' and 'b' have the same location /r/a"},
      {head + "[machine.b]\nlocation = r/b\n", "x.conf:5: malformed location 'r/b'"},
      {head + "[machine.b]\nlocation = h:99999:/r\n", "x.conf:5: malformed location"},
      {head + "[machine.b]\nlocation = h:/r/../x\n", "x.conf:5: malformed location"},
      {head + "[machine.b]\nlocation = @h:/r\n", "x.conf:5: malformed location"},
      {head + "[machine.b]\nlocation = h!x:/r\n", "x.conf:5: malformed location"},
      {head + "[machine.b]\n[group.g]\nmachines = a\n", "x.conf:4: [machine.b] has no 'location'"},
      {head + "[machine.b]\nlocaton = /r/b\n", "x.conf:5: unknown key 'locaton' in [machine.b]"},
      {head + "[machine..x]\nlocation = /r/x\n", "x.conf:4: machine name '.x' begins with '.'"},
      {head + "[group.g]\nmachines = a\n[group.g]\nmachines = a\n",
       "x.conf:6: duplicate section [group.g] (first at line 4)"},
      {"db = d\ndb = e\n", "x.conf:2: duplicate key 'db' (first at line 1)"},
      {"db = ../x\n", "x.conf:1: db name '../x'"},
      {"\n\ntimeout_ms = soon\n", "x.conf:3: 'timeout_ms' must be an integer"},
      {"retries = 1000\n", "x.conf:1: 'retries' must be an integer in 0..100"},
      {"timeout_ms = 0\n", "x.conf:1: 'timeout_ms' must be an integer in 1.."},
      {"retry_window_ms = -1\n", "x.conf:1: 'retry_window_ms' must be an integer in 0.."},
      {"memory = 12Q\n", "x.conf:1: 'memory' must be a byte count"},
      {"ssh_accept_unknown_host_keys = maybe\n",
       "x.conf:1: 'ssh_accept_unknown_host_keys' must be"},
      {"db = d\njust words\n", "x.conf:2: expected 'key = value' or '[section]'"},
      {"db = d\n[machine.a\n", "x.conf:2: malformed section header"},
      {"db = d\n = 3\n", "x.conf:2: expected 'key = value'"},
      {"[machine.a]\nlocation = /r\n", "x.conf: missing key 'db'"},
      {"db = d\n", "x.conf: no [machine.NAME] section"},
  };
  for (const Case& c : cases) {
    INFO("config:\n" << c.text);
    CHECK_THAT(ErrorOf(c.text), Catch::Contains(c.error));
  }
}

TEST_CASE("a config starting with a UTF-8 byte-order mark parses", "[nutchfs]") {
  auto c = ClusterConfig::Parse(std::string("\xEF\xBB\xBF") + kGood, "/etc/nutch/x.conf");
  REQUIRE(c);
  CHECK(c->db == "crawl");
  CHECK(c->machines.size() == 2);
}

TEST_CASE("a missing config file is NotFound naming it", "[nutchfs]") {
  auto c = ClusterConfig::Load("/nonexistent/cluster.conf");
  REQUIRE_FALSE(c);
  CHECK(c.error().IsNotFound());
  CHECK_THAT(c.error().message(), Catch::Contains("/nonexistent/cluster.conf"));
}

TEST_CASE("the example configs in config/ load", "[nutchfs]") {
  for (const char* name : {"local-3.conf", "nfs-3.conf", "ssh-3.conf"}) {
    INFO(name);
    auto c = ClusterConfig::Load(std::string(PROJECT_SOURCE_DIR) + "/config/" + name);
    if (!c) FAIL(c.error().ToString());
    CHECK(c->machines.size() == 3);
    CHECK(c->FindGroup("exports")->machines.size() == 3);
    CHECK(c->file.Find("writers")->value == "3");
  }
}

TEST_CASE("locations print in the form they parse from", "[nutchfs]") {
  for (const char* text : {"/a/b", "/", "u@h:22:/r", "h.example.org:2200:/x/y", "10.0.0.2:22:/r"}) {
    auto loc = Location::Parse(text);
    REQUIRE(loc);
    CHECK(loc->ToString() == text);
    CHECK(*Location::Parse(loc->ToString()) == *loc);
  }
  CHECK(Location::Parse("h:/r")->port == 22);
  CHECK(Location::Parse("h:/r")->user.empty());
}
