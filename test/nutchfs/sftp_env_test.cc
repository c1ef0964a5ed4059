// The SFTP Env against real sshd servers on simulated hosts (test/util/test_hosts.h):
// the shared Env behaviour, large files, several threads, host-key checks, and an sshd
// killed in the middle of a write.
#include "nutchfs/sftp_env.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

#include "test/util/env_behaviour.h"
#include "test/util/test_hosts.h"

namespace {

using Catch::Contains;
using nutchfs::Env;
using nutchfs::Status;

std::string Pattern(size_t n, uint64_t seed) {
  std::string out(n, '\0');
  uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
  for (size_t i = 0; i < n; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    out[i] = static_cast<char>(x);
  }
  return out;
}

std::string ReadLocal(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

bool LocalExists(const std::string& path) { return std::ifstream(path).good(); }

std::unique_ptr<Env> Connect(const nutchfs::SftpOptions& options) {
  auto env = nutchfs::NewSftpEnv(options);
  INFO((env ? "" : env.error().ToString()));
  REQUIRE(env);
  return std::move(*env);
}

// Appends data in pieces of varying sizes, then syncs and closes.
Status WriteInPieces(Env& env, const std::string& path, std::string_view data) {
  NUTCHFS_ASSIGN_OR_RETURN(auto file, env.NewWritableFile(path));
  const size_t sizes[] = {1, 4095, 65536, 1 << 20, (3 << 20) + 7, 130000};
  for (size_t i = 0, pos = 0; pos < data.size(); ++i) {
    const size_t n = std::min(sizes[i % 6], data.size() - pos);
    NUTCHFS_RETURN_IF_ERROR(file->Append(data.substr(pos, n)));
    pos += n;
  }
  NUTCHFS_RETURN_IF_ERROR(file->Sync());
  return file->Close();
}

// No Catch2 assertions: also called from other threads.
nutchfs::Result<std::string> ReadSequentially(Env& env, const std::string& path, size_t piece) {
  NUTCHFS_ASSIGN_OR_RETURN(auto file, env.NewSequentialFile(path));
  std::string out, scratch(piece, '\0');
  for (;;) {
    NUTCHFS_ASSIGN_OR_RETURN(std::string_view chunk, file->Read(piece, scratch.data()));
    if (chunk.empty()) return out;
    out.append(chunk);
  }
}

std::string Name(const testutil::TestHosts& hosts, int i) {
  return "root@" + hosts.host(i).address + ":22";
}

}  // namespace

TEST_CASE("sftp env shows the Env behaviour", "[ssh]") {
  testutil::TestHosts hosts(2);
  auto env = Connect(hosts.SftpOptionsFor(1));
  const std::string base = hosts.host(1).root + "/base";
  REQUIRE(env->CreateDirs(base).ok());
  testutil::CheckEnvBehaviour(*env, base);
  CHECK_FALSE(env->capabilities().local_paths);
  CHECK_FALSE(env->capabilities().inotify);

  // The files really are on host 1, and errors name the server and the path.
  REQUIRE(nutchfs::WriteFileAtomically(*env, base + "/marker", "on h1").ok());
  CHECK(ReadLocal(base + "/marker") == "on h1");
  auto missing = env->GetFileSize(base + "/nope");
  REQUIRE_FALSE(missing);
  CHECK(missing.error().IsNotFound());
  CHECK_THAT(missing.error().message(), Contains(Name(hosts, 1)) && Contains(base + "/nope"));
  CHECK_THAT(env->RemoveFile(base + "/nope").message(), Contains(Name(hosts, 1)));
}

TEST_CASE("sftp env round-trips a 64 MiB file", "[ssh]") {
  testutil::TestHosts hosts(1);
  auto env = Connect(hosts.SftpOptionsFor(0));
  const std::string path = hosts.host(0).root + "/big";
  const std::string data = Pattern((64 << 20) + 12345, 1);
  REQUIRE(WriteInPieces(*env, path, data).ok());
  CHECK(*env->GetFileSize(path) == data.size());
  CHECK(ReadLocal(path) == data);
  auto read = ReadSequentially(*env, path, 100000);
  REQUIRE(read);
  CHECK(*read == data);

  auto file = env->NewRandomAccessFile(path);
  REQUIRE(file);
  CHECK((*file)->size() == data.size());
  std::string scratch(5 << 20, '\0');
  const std::pair<uint64_t, size_t> ranges[] = {
      {0, 1}, {131071, 2}, {1000003, 5 << 20}, {data.size() - 100, 1 << 20}, {data.size(), 10}};
  for (auto [offset, n] : ranges) {
    auto got = (*file)->Read(offset, n, scratch.data());
    REQUIRE(got);
    CHECK(*got == std::string_view(data).substr(offset, n));
  }
}

TEST_CASE("sftp env serves several threads at once", "[ssh]") {
  testutil::TestHosts hosts(1);
  auto env = Connect(hosts.SftpOptionsFor(0));
  const std::string root = hosts.host(0).root;
  std::vector<std::thread> threads;
  std::vector<Status> results(4);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      const std::string data = Pattern(4 << 20, 10 + t);
      const std::string path = root + "/t" + std::to_string(t);
      results[t] = WriteInPieces(*env, path, data);
      if (!results[t].ok()) return;
      auto read = ReadSequentially(*env, path, 70000);
      if (!read) {
        results[t] = read.error();
      } else if (*read != data) {
        results[t] = Status::Corruption(path + " read back differently");
      }
    });
  }
  for (auto& t : threads) t.join();
  for (const Status& s : results) CHECK(s.ToString() == "OK");
}

TEST_CASE("sftp env refuses a changed host key", "[ssh]") {
  testutil::TestHosts hosts(2);
  // known_hosts lists another key for host 0's address.
  const std::string wrong = hosts.dir() + "/wrong_known_hosts";
  std::ofstream(wrong) << hosts.host(0).address << " "
                       << ReadLocal(hosts.host(1).host_key + ".pub");
  nutchfs::SftpOptions options = hosts.SftpOptionsFor(0);
  options.known_hosts_file = wrong;
  for (bool accept_unknown : {false, true}) {
    options.accept_unknown_host_key = accept_unknown;
    auto env = nutchfs::NewSftpEnv(options);
    REQUIRE_FALSE(env);
    CHECK(env.error().IsRefused());
    CHECK_THAT(env.error().message(),
               Contains("CHANGED") && Contains(Name(hosts, 0)) && Contains(wrong));
  }

  // The server's key changes under a live Env: the reconnect is refused.
  auto env = Connect(hosts.SftpOptionsFor(0));
  REQUIRE(env->GetChildren(hosts.host(0).root));
  hosts.StopSshd(0);
  const std::string key = testutil::ShellQuote(hosts.host(0).host_key);
  REQUIRE(
      hosts.Exec(0, "rm -f " + key + " " + key + ".pub && ssh-keygen -q -t ed25519 -N '' -f " + key)
          .exit_code == 0);
  hosts.StartSshd(0);
  auto listed = env->GetChildren(hosts.host(0).root);
  REQUIRE_FALSE(listed);
  CHECK(listed.error().IsRefused());
  CHECK_THAT(listed.error().message(), Contains("CHANGED") && Contains(hosts.known_hosts()));
}

TEST_CASE("sftp env refuses an unknown host key unless told to accept it", "[ssh]") {
  testutil::TestHosts hosts(1);
  nutchfs::SftpOptions options = hosts.SftpOptionsFor(0);
  const std::string empty = hosts.dir() + "/empty_known_hosts";
  std::ofstream(empty).flush();
  for (const std::string& known_hosts : {empty, hosts.dir() + "/absent_known_hosts"}) {
    options.known_hosts_file = known_hosts;
    auto env = nutchfs::NewSftpEnv(options);
    REQUIRE_FALSE(env);
    CHECK(env.error().IsRefused());
    CHECK_THAT(env.error().message(),
               Contains("unknown") && Contains(Name(hosts, 0)) && Contains(known_hosts));
  }
  options.known_hosts_file = empty;
  options.accept_unknown_host_key = true;
  auto env = Connect(options);
  REQUIRE(nutchfs::WriteFileAtomically(*env, hosts.host(0).root + "/f", "accepted").ok());
  CHECK(ReadLocal(hosts.host(0).root + "/f") == "accepted");

  // A key the server does not know is refused too, for good.
  const std::string stranger = hosts.dir() + "/stranger_key";
  REQUIRE(std::system(("ssh-keygen -q -t ed25519 -N '' -f " + stranger).c_str()) == 0);
  options = hosts.SftpOptionsFor(0);
  options.identity_file = stranger;
  auto refused = nutchfs::NewSftpEnv(options);
  REQUIRE_FALSE(refused);
  CHECK(refused.error().IsRefused());
  CHECK_THAT(refused.error().message(), Contains("authentication") && Contains(Name(hosts, 0)));
}

TEST_CASE("sftp env: sshd killed mid-write fails the file, then the env reconnects",
          "[ssh][fault]") {
  testutil::TestHosts hosts(1);
  auto env = Connect(hosts.SftpOptionsFor(0));
  const std::string root = hosts.host(0).root;
  const std::string data = Pattern(16 << 20, 7);
  const std::string before = Pattern(3 << 20, 8);
  REQUIRE(WriteInPieces(*env, root + "/before", before).ok());
  REQUIRE(WriteInPieces(*env, root + "/swapped", before).ok());
  auto reader = env->NewSequentialFile(root + "/before");
  auto reader2 = env->NewSequentialFile(root + "/swapped");
  REQUIRE(reader);
  REQUIRE(reader2);
  std::string scratch(4 << 20, '\0');
  REQUIRE((*reader)->Read(1000, scratch.data()));
  REQUIRE((*reader2)->Read(1000, scratch.data()));

  // Publication protocol: write a temporary name, then rename; the crash comes first.
  const std::string final_path = root + "/published";
  const std::string tmp = final_path + ".tmp";
  auto file = env->NewWritableFile(tmp);
  REQUIRE(file);
  REQUIRE((*file)->Append(std::string_view(data).substr(0, 8 << 20)).ok());
  hosts.StopSshd(0);
  Status s = (*file)->Append(std::string_view(data).substr(8 << 20));
  if (s.ok()) s = (*file)->Sync();
  if (s.ok()) s = (*file)->Close();
  REQUIRE_FALSE(s.ok());
  CHECK(s.IsIOError());
  CHECK_THAT(s.message(), Contains(Name(hosts, 0)) && Contains(tmp));
  CHECK_FALSE((*file)->Close().ok());
  CHECK_FALSE(LocalExists(final_path));
  CHECK(LocalExists(tmp));

  // While sshd is down, a new Env gives up with a message naming the server.
  nutchfs::SftpOptions quick = hosts.SftpOptionsFor(0);
  quick.max_retries = 1;
  auto down = nutchfs::NewSftpEnv(quick);
  REQUIRE_FALSE(down);
  CHECK(down.error().IsIOError());
  CHECK_THAT(down.error().message(), Contains(Name(hosts, 0)));

  // Meanwhile "swapped" is replaced by a new version.
  std::ofstream(root + "/swapped.new") << "new version";
  REQUIRE(std::rename((root + "/swapped.new").c_str(), (root + "/swapped").c_str()) == 0);

  // After a restart the same Env reconnects for its next operation.
  hosts.StartSshd(0);
  CHECK(env->FileExists(tmp));
  REQUIRE(WriteInPieces(*env, tmp, data).ok());
  REQUIRE(env->RenameFile(tmp, final_path).ok());
  CHECK(ReadLocal(final_path) == data);
  // Readers opened before the crash reopen their file on the new connection (reading
  // past their 2 MiB read-ahead) and go on where they were, unless it was replaced.
  auto rest = (*reader)->Read(scratch.size(), scratch.data());
  REQUIRE(rest);
  CHECK(*rest == std::string_view(before).substr(1000));
  auto replaced = (*reader2)->Read(scratch.size(), scratch.data());
  REQUIRE_FALSE(replaced);
  CHECK(replaced.error().IsIOError());
  CHECK_THAT(replaced.error().message(), Contains("replaced") && Contains(root + "/swapped"));
}

TEST_CASE("sftp env rides out a 3-second sshd outage with its default retries",
          "[ssh][fault]") {
  testutil::TestHosts hosts(1);
  auto env = Connect(hosts.SftpOptionsFor(0));
  const std::string root = hosts.host(0).root;
  REQUIRE(env->GetChildren(root));
  hosts.StopSshd(0);
  std::thread restart([&] {
    std::this_thread::sleep_for(std::chrono::seconds(3));
    hosts.StartSshd(0);
  });
  // Started while sshd is down; succeeds once it is back, within the retry window.
  Status s = nutchfs::WriteFileAtomically(*env, root + "/after-outage", "still here");
  restart.join();
  REQUIRE(s.ToString() == "OK");
  CHECK(ReadLocal(root + "/after-outage") == "still here");
}

TEST_CASE("sftp env gives up on a cut link within its timeouts, then recovers", "[ssh][fault]") {
  testutil::TestHosts hosts(1);
  nutchfs::SftpOptions options = hosts.SftpOptionsFor(0);
  options.io_timeout_ms = 1000;
  options.connect_timeout_ms = 2000;
  options.max_retries = 0;
  auto env = Connect(options);
  const std::string root = hosts.host(0).root;
  auto file = env->NewWritableFile(root + "/part");
  REQUIRE(file);
  REQUIRE((*file)->Append(Pattern(1 << 20, 3)).ok());

  const std::string dir = testutil::ShellQuote(hosts.dir());
  hosts.Script("link " + dir + " h0 down");
  const auto start = std::chrono::steady_clock::now();
  Status s = (*file)->Append(Pattern(4 << 20, 4));
  if (s.ok()) s = (*file)->Close();
  CHECK(s.IsIOError());
  CHECK_THAT(s.message(), Contains(Name(hosts, 0)) && Contains(root + "/part"));
  auto listed = env->GetChildren(root);
  REQUIRE_FALSE(listed);
  CHECK(listed.error().IsIOError());
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(10));

  hosts.Script("link " + dir + " h0 up");
  auto healed = env->GetChildren(root);
  REQUIRE(healed);
  CHECK(*healed == std::vector<std::string>{"part"});
}
