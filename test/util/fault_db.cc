#include "test/util/fault_db.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <thread>

namespace testutil {

namespace fs = std::filesystem;
using std::chrono::milliseconds;

GenOptions FaultSessions(size_t min_calls, size_t max_calls) {
  GenOptions o;
  o.hostile_bytes = false;
  o.universe_urls = 80;
  o.min_calls = min_calls;
  o.max_calls = max_calls;
  return o;
}

FaultDb::FaultDb(const std::string& binary, int k, uint64_t seed, int timeout_ms, GenOptions gen)
    : cluster_(binary, k, timeout_ms), gen_(seed, gen), cuts_(seed) {
  cluster_.Create();
}

FaultDb::Round FaultDb::Prepare(Session session) {
  Round r{std::move(session), {}, {}};
  r.slices = SplitSession(r.session, static_cast<size_t>(cluster_.k()), cuts_);
  for (int i = 0; i < cluster_.k(); ++i) r.files.push_back(cluster_.WriteCallFile(i, r.slices[i]));
  return r;
}

std::unique_ptr<Subprocess> FaultDb::Start(int writer, const Round& r, std::vector<std::string> env,
                                           std::vector<std::string> flags) {
  return cluster_.StartWriter(writer, r.files[writer], env, flags);
}

void FaultDb::ModelApplies(const Session& session) {
  REQUIRE(single_.Apply(session).ok());
  ++version_;
}

void FaultDb::ExpectAppliedForReaders(const Round& r) {
  ModelApplies(r.session);
  ExpectUnchanged();
  REQUIRE(cluster_.Committed(0).version == version_);
}

void FaultDb::ExpectApplied(const Round& r) {
  ExpectAppliedForReaders(r);
  ExpectEveryMachineCurrent();
}

void FaultDb::ExpectUnchanged() {
  auto expected = single_.Dump();
  REQUIRE(expected.has_value());
  REQUIRE(CompareDumps(*expected, cluster_.Dump()) == "");
  REQUIRE(single_.Check() == "");
}

void FaultDb::ExpectEveryMachineCurrent() {
  for (int i = 0; i < cluster_.k(); ++i) {
    CAPTURE(i);
    REQUIRE(cluster_.Committed(i).version == version_);
  }
}

ProcessResult ExpectSuccess(Subprocess& p, int writer) {
  ProcessResult r = p.Wait();
  INFO("writer " << writer << ": " << r.Describe());
  REQUIRE(r.exit_code == 0);
  return r;
}

void ExpectAllSucceed(std::vector<std::unique_ptr<Subprocess>>& writers) {
  for (size_t i = 0; i < writers.size(); ++i) {
    if (writers[i]) ExpectSuccess(*writers[i], static_cast<int>(i));
  }
}

void RunAll(FaultDb& db, const FaultDb::Round& r, const std::vector<std::string>& flags) {
  std::vector<std::unique_ptr<Subprocess>> writers;
  for (int i = 0; i < db.cluster().k(); ++i) writers.push_back(db.Start(i, r, {}, flags));
  ExpectAllSucceed(writers);
  db.ExpectApplied(r);
}

void AwaitFile(const std::string& path, milliseconds deadline) {
  const auto end = std::chrono::steady_clock::now() + deadline;
  while (!fs::exists(path)) {
    INFO("waiting for " << path);
    REQUIRE(std::chrono::steady_clock::now() < end);
    std::this_thread::sleep_for(milliseconds(2));
  }
}

std::string AwaitRoundDir(const std::string& group_dir, uint64_t round) {
  AwaitFile(group_dir + "/rounds");
  const std::string prefix = std::to_string(round) + "-";
  const auto end = std::chrono::steady_clock::now() + milliseconds(30000);
  while (true) {
    for (const auto& e : fs::directory_iterator(group_dir + "/rounds")) {
      if (e.path().filename().string().starts_with(prefix)) return e.path().string();
    }
    INFO("waiting for round " << round << " in " << group_dir);
    REQUIRE(std::chrono::steady_clock::now() < end);
    std::this_thread::sleep_for(milliseconds(2));
  }
}

}  // namespace testutil
