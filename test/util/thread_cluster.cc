#include "test/util/thread_cluster.h"

#include <catch2/catch.hpp>
#include <thread>

#include "distwriter/create.h"
#include "distwriter/dist_reader.h"
#include "test/util/call_writer.h"

namespace testutil {
namespace {

constexpr char kCallDir[] = "/calls";

std::string ConfigText(int k, int timeout_ms, const std::string& extra) {
  std::string text = "db = webdb\nwriters = " + std::to_string(k) +
                     "\ntimeout_ms = " + std::to_string(timeout_ms) + "\n" + extra + "\n";
  for (int i = 0; i < k; ++i) {
    const std::string n = std::to_string(i);
    text += "[machine.m" + n + "]\nlocation = " + ThreadCluster::Root(i) + "\n[writer." + n +
            "]\nmachine = m" + n + "\n";
  }
  return text;
}

}  // namespace

ThreadCluster::ThreadCluster(int k, int timeout_ms, const std::string& extra_config)
    : timeout_ms_(timeout_ms), extra_config_(extra_config) {
  auto config = distwriter::DistConfig::Parse(ConfigText(k, timeout_ms, extra_config),
                                              "thread-cluster.conf");
  INFO((config ? "" : config.error().ToString()));
  REQUIRE(config);
  config_ = std::move(*config);
}

ThreadCluster ThreadCluster::WithTimeout(int timeout_ms) const {
  return ThreadCluster(k(), timeout_ms, extra_config_);
}

std::string ThreadCluster::Root(int machine) { return "/m" + std::to_string(machine); }

void ThreadCluster::Prepare(nutchfs::Env& env) {
  REQUIRE(nutchfs::CreateDirsDurably(env, "/tmp").ok());
  REQUIRE(nutchfs::CreateDirsDurably(env, kCallDir).ok());
}

nutchfs::Status ThreadCluster::Create(nutchfs::Env& env) const {
  return distwriter::CreateDistDb(config_, "", webdb::kDefaultKeep, &env);
}

std::vector<std::string> ThreadCluster::WriteCalls(nutchfs::Env& env, const std::string& round,
                                                   const std::vector<Session>& slices) {
  std::vector<std::string> paths;
  for (size_t i = 0; i < slices.size(); ++i) {
    paths.push_back(std::string(kCallDir) + "/" + round + "-w" + std::to_string(i) + ".jsonl");
    REQUIRE(nutchfs::WriteFileAtomically(env, paths.back(), CallFileText(slices[i])).ok());
  }
  return paths;
}

std::vector<nutchfs::Result<distwriter::RoundReport>> ThreadCluster::Run(
    nutchfs::Env& env, const std::vector<std::string>& call_files, size_t memory_budget,
    webdb::LayerPolicy layers, webdb::SeekPolicy seeks) const {
  return RunEach(env, memory_budget, [&](int i, distwriter::RunOptions& options) {
    options.call_files = {call_files[i]};
    options.layers = layers;
    options.seeks = seeks;
  });
}

std::vector<nutchfs::Result<distwriter::RoundReport>> ThreadCluster::Rank(
    nutchfs::Env& env, const webdb::RankOptions& rank, size_t memory_budget) const {
  return RunEach(env, memory_budget,
                 [&](int, distwriter::RunOptions& options) { options.rank = rank; });
}

std::vector<nutchfs::Result<distwriter::RoundReport>> ThreadCluster::RunEach(
    nutchfs::Env& env, size_t memory_budget,
    const std::function<void(int, distwriter::RunOptions&)>& set) const {
  std::vector<nutchfs::Result<distwriter::RoundReport>> results(k());
  std::vector<std::thread> threads;
  for (int i = 0; i < k(); ++i) {
    threads.emplace_back([&, i] {
      distwriter::RunOptions options;
      options.writer = i;
      options.memory_budget = memory_budget;
      options.env = &env;
      set(i, options);
      results[i] = distwriter::RunRound(config_, options);
    });
  }
  for (std::thread& t : threads) t.join();
  return results;
}

nutchfs::Result<DbDump> ThreadCluster::Dump(nutchfs::Env& env) const {
  NUTCHFS_ASSIGN_OR_RETURN(auto reader, distwriter::OpenDistReader(config_, &env));
  return DumpDb(*reader);
}

}  // namespace testutil
