// NutchFs with machines reached over SFTP: real sshd servers on simulated hosts
// (test/util/test_hosts.h). The test process is machine "a" (a local root); h0 and h1
// are ssh locations. The last case runs the `nutchfs` command on the hosts themselves.
#include <catch2/catch.hpp>
#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>

#include "nutchfs/nutchfs.h"
#include "test/util/test_hosts.h"

using nutchfs::NutchFile;
using nutchfs::NutchFs;

namespace {

const std::string kNutchfs = PROJECT_BINARY_DIR "/tools/nutchfs";

// Machines a (local), h0 and h1 (ssh); groups g1 (h1), both (h0, h1), mine (a, h1).
std::string ConfigText(const testutil::TestHosts& hosts) {
  std::string text = "db = crawl\nretries = 1\nssh_identity = " + hosts.client_key() +
                     "\nssh_known_hosts = " + hosts.known_hosts() + "\n";
  text += "[machine.a]\nlocation = " + hosts.dir() + "/a\n";
  for (int i = 0; i < 2; ++i) {
    text += "[machine.h" + std::to_string(i) + "]\nlocation = root@" + hosts.host(i).address +
            ":22:" + hosts.host(i).root + "/nutch\n";
  }
  text += "[group.g1]\nmachines = h1\n[group.both]\nmachines = h0, h1\n";
  text += "[group.mine]\nmachines = a, h1\n";
  return text;
}

std::unique_ptr<NutchFs> OpenFs(const testutil::TestHosts& hosts, const std::string& machine) {
  auto config = nutchfs::ClusterConfig::Parse(ConfigText(hosts), hosts.dir() + "/cluster.conf");
  REQUIRE(config);
  auto fs = NutchFs::Open(std::move(*config), machine);
  REQUIRE(fs);
  return std::move(*fs);
}

std::string ReadLocal(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

NutchFile File(const std::string& group, const std::string& name) {
  return NutchFile{"crawl", group, name};
}

}  // namespace

TEST_CASE("NutchFs publishes, waits, lists and reads over sftp", "[ssh]") {
  testutil::TestHosts hosts(2);
  auto fs = OpenFs(hosts, "a");
  const std::string work = hosts.dir() + "/work";
  REQUIRE(nutchfs::WriteFileAtomically(fs->local_env(), work, std::string(300000, 'q')).ok());

  nutchfs::Status waited;
  std::thread waiter(
      [&] { waited = fs->WaitFor(File("g1", "r/from-a"), "machine a", std::chrono::seconds(30)); });
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  auto info = fs->Put(work, File("g1", "r/from-a"));
  waiter.join();
  REQUIRE(info);
  CHECK(waited.ok());
  CHECK(ReadLocal(hosts.host(1).root + "/nutch/crawl/g1/r/from-a") == std::string(300000, 'q'));
  CHECK(*fs->Stat(File("g1", "r/from-a")) == *info);

  REQUIRE(fs->Put(work, File("both", "CURRENT")));
  CHECK(ReadLocal(hosts.host(0).root + "/nutch/crawl/both/CURRENT").size() == 300000);
  CHECK(ReadLocal(hosts.host(1).root + "/nutch/crawl/both/CURRENT").size() == 300000);
  REQUIRE(fs->Put(work, File("mine", "x")));
  CHECK(ReadLocal(hosts.dir() + "/a/crawl/mine/x").size() == 300000);

  CHECK(*fs->List("crawl", "g1") == std::vector<std::string>{"r/from-a"});
  REQUIRE(fs->Get(File("both", "CURRENT"), hosts.dir() + "/copy"));
  CHECK(ReadLocal(hosts.dir() + "/copy").size() == 300000);
  REQUIRE(fs->Rename(File("both", "CURRENT"), File("both", "OLD")).ok());
  CHECK(*fs->List("crawl", "both") == std::vector<std::string>{"OLD"});
  REQUIRE(fs->Delete(File("both", "OLD")).ok());
  CHECK(fs->List("crawl", "both")->empty());

  nutchfs::Status late =
      fs->WaitFor(File("g1", "never"), "machine h0", std::chrono::milliseconds(100));
  CHECK(late.IsTimeout());
  CHECK_THAT(late.message(), Catch::Contains("at machine h1") && Catch::Contains("machine h0"));
}

TEST_CASE("NutchFs locks on an sftp home machine", "[ssh]") {
  testutil::TestHosts hosts(2);
  auto a = OpenFs(hosts, "a");
  auto other = OpenFs(hosts, "");
  const NutchFile lock = File("g1", "update");
  auto held = a->Lock(lock);
  REQUIRE(held);
  auto refused = other->Lock(lock);
  REQUIRE_FALSE(refused);
  CHECK(refused.error().IsBusy());
  CHECK_THAT(refused.error().message(), Catch::Contains("machine h1"));
  auto locks = other->ListLocks("crawl", "g1");
  REQUIRE(locks);
  REQUIRE(locks->size() == 1);
  CHECK(locks->front().machine == "h1");
  CHECK(locks->front().owner->machine == "a");
  REQUIRE(a->Unlock(*held).ok());
  CHECK(other->ListLocks("crawl", "g1")->empty());
  CHECK(other->Lock(lock));
}

TEST_CASE("nutchfs commands on two hosts exchange a file over sftp", "[ssh]") {
  testutil::TestHosts hosts(2);
  const std::string conf = hosts.dir() + "/cluster.conf";
  {
    std::ofstream out(conf);
    out << ConfigText(hosts);
  }
  const std::string work = hosts.host(0).root + "/work";
  auto made = hosts.Exec(0, "echo from-h0 > " + testutil::ShellQuote(work));
  REQUIRE(made.exit_code == 0);
  auto put = hosts.Exec(
      0, kNutchfs + " put --config " + conf + " --machine h0 " + work + " g1 edits/from-0");
  INFO(put.output);
  REQUIRE(put.exit_code == 0);
  auto ls = hosts.Exec(1, kNutchfs + " ls --config " + conf + " --machine h1 g1");
  INFO(ls.output);
  CHECK(ls.exit_code == 0);
  CHECK_THAT(ls.output, Catch::Contains("edits/from-0"));
  auto missing = hosts.Exec(
      0, kNutchfs + " get --config " + conf + " --machine h0 g1 nope " + hosts.host(0).root + "/x");
  CHECK(missing.exit_code == 1);
}
