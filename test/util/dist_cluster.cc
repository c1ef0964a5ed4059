#include "test/util/dist_cluster.h"

#include <catch2/catch.hpp>
#include <fstream>
#include <regex>

#include "distwriter/dist_reader.h"
#include "distwriter/dist_verify.h"
#include "distwriter/round_store.h"
#include "test/util/call_writer.h"
#include "test/util/model_db.h"

namespace testutil {
namespace {

void WriteText(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  INFO("writing " << path);
  REQUIRE(out.good());
}

uint64_t NumberField(const std::string& line, const std::string& name) {
  std::smatch m;
  INFO("field " << name << " in report: " << line);
  REQUIRE(std::regex_search(line, m, std::regex("\"" + name + "\":([0-9]+)")));
  return std::stoull(m[1].str());
}

}  // namespace

RunReport ParseRunReport(const std::string& line) {
  RunReport r;
  r.writer = static_cast<int>(NumberField(line, "writer"));
  r.version = NumberField(line, "version");
  r.calls = NumberField(line, "calls");
  r.pages = NumberField(line, "pages");
  r.links = NumberField(line, "links");
  const bool yes = line.find("\"already_applied\":true") != std::string::npos;
  const bool no = line.find("\"already_applied\":false") != std::string::npos;
  INFO("already_applied in report: " << line);
  REQUIRE(yes != no);
  r.already_applied = yes;
  return r;
}

DistCluster::DistCluster(std::string distwriter_binary, int k, int timeout_ms)
    : binary_(std::move(distwriter_binary)), k_(k), config_(tmp_.File("cluster.conf")) {
  ProcessResult r = RunProcess({binary_, "init-local", "--writers", std::to_string(k), "--root",
                                tmp_.path(), "--out", config_},
                               {}, NextPrefix("init-local"));
  INFO("distwriter init-local: " << r.Describe());
  REQUIRE(r.exit_code == 0);
  SetTimeoutMs(timeout_ms);
  SetGlobal("distwriter", binary_);
}

std::string DistCluster::GroupDirAt(int writer, int machine) const {
  return tmp_.path() + "/m" + std::to_string(machine) + "/webdb/w" + std::to_string(writer);
}

std::string DistCluster::MetaDir(int writer) const {
  return tmp_.path() + "/m" + std::to_string(writer) + "/webdb/meta";
}

void DistCluster::SetTimeoutMs(int ms) { SetGlobal("timeout_ms", std::to_string(ms)); }

void DistCluster::SetGlobal(const std::string& key, const std::string& value) {
  const std::string text = ReadFileOrEmpty(config_);
  const std::regex line("(^|\n)" + key + " = [^\n]*");
  const std::string set = "$1" + key + " = " + value;
  INFO("config " << config_ << ":\n" << text);
  if (std::regex_search(text, line)) {
    WriteText(config_, std::regex_replace(text, line, set));
    return;
  }
  // A new key goes right after the "timeout_ms" line, in the global section.
  const std::regex timeout("(^|\n)(timeout_ms = [^\n]*)");
  REQUIRE(std::regex_search(text, timeout));
  WriteText(config_, std::regex_replace(text, timeout, "$1$2\n" + key + " = " + value));
}

void DistCluster::Create(const std::vector<std::string>& sample_urls) {
  std::vector<std::string> argv = {binary_, "create", "--config", config_};
  if (!sample_urls.empty()) {
    std::string text;
    for (const std::string& url : sample_urls) text += url + "\n";
    WriteText(tmp_.File("sample.txt"), text);
    argv.insert(argv.end(), {"--sample", tmp_.File("sample.txt")});
  }
  ProcessResult r = RunProcess(argv, {}, NextPrefix("create"));
  INFO("distwriter create: " << r.Describe());
  REQUIRE(r.exit_code == 0);
}

std::string DistCluster::WriteCallFile(int writer, const Session& slice) {
  const std::string path = NextPrefix("calls-w" + std::to_string(writer)) + ".jsonl";
  testutil::WriteCallFile(path, slice);
  return path;
}

std::unique_ptr<Subprocess> DistCluster::StartWriter(int writer, const std::string& call_file,
                                                     const std::vector<std::string>& env,
                                                     const std::vector<std::string>& flags) {
  std::vector<std::string> argv = {
      binary_, "run", "--config", config_, "--writer", std::to_string(writer), "--quiet"};
  argv.insert(argv.end(), flags.begin(), flags.end());
  argv.push_back(call_file);
  return Subprocess::Start(argv, env, NextPrefix("run-w" + std::to_string(writer)));
}

std::vector<RunReport> DistCluster::RunRound(const std::vector<Session>& slices,
                                             const std::vector<std::string>& flags) {
  REQUIRE(slices.size() == static_cast<size_t>(k_));
  std::vector<std::unique_ptr<Subprocess>> writers;
  for (int i = 0; i < k_; ++i)
    writers.push_back(StartWriter(i, WriteCallFile(i, slices[i]), {}, flags));
  std::vector<ProcessResult> results;
  std::string all;
  for (int i = 0; i < k_; ++i) {
    results.push_back(writers[i]->Wait());
    all += "writer " + std::to_string(i) + " of " + std::to_string(k_) + ": " +
           results.back().Describe() + "\n";
  }
  std::vector<RunReport> reports;
  for (int i = 0; i < k_; ++i) {
    INFO(all);
    REQUIRE(results[i].exit_code == 0);
    reports.push_back(ParseRunReport(results[i].out));
    REQUIRE(reports.back().writer == i);
  }
  return reports;
}

distwriter::DistConfig DistCluster::LoadConfig() const {
  auto config = distwriter::DistConfig::Load(config_);
  INFO("config " << config_ << ": " << (config ? "" : config.error().ToString()));
  REQUIRE(config.has_value());
  return *config;
}

distwriter::RoundManifest DistCluster::Committed(int writer) const {
  const distwriter::DistConfig config = LoadConfig();
  auto fs = nutchfs::NutchFs::Open(config.cluster, config.writer_machines[writer]);
  REQUIRE(fs);
  auto round = distwriter::RoundStore(**fs, config, tmp_.path()).ReadInstalled();
  INFO("round manifest installed at writer " << writer << ": "
                                             << (round ? "" : round.error().ToString()));
  REQUIRE(round.has_value());
  return *round;
}

DbDump DistCluster::Dump() const { return DumpDistDb(config_); }

std::string DistCluster::VerifyFindings() const {
  const distwriter::DistConfig config = LoadConfig();
  auto env = nutchfs::NewLocalEnv();
  std::string findings;
  webdb::VerifyOptions options;
  options.memory_budget = size_t{1} << 20;
  options.tmp_env = env.get();
  options.tmp_dir = tmp_.File("verify-scratch");
  options.on_finding = [&](const webdb::Finding& f) { findings += f.ToString() + "\n"; };
  auto summary = distwriter::VerifyDistDb(config, options);
  INFO("VerifyDistDb " << config_ << ": " << (summary ? "" : summary.error().ToString()));
  REQUIRE(summary.has_value());
  return findings;
}

DbDump DumpDistDb(const std::string& config) {
  auto reader = distwriter::OpenDistReader(config);
  INFO("OpenDistReader " << config << ": " << (reader ? "" : reader.error().ToString()));
  REQUIRE(reader.has_value());
  auto dump = DumpDb(**reader);
  INFO("dumping the distributed db: " << (dump ? "" : dump.error().ToString()));
  REQUIRE(dump.has_value());
  return *dump;
}

void CheckDistDbMatchesSingle(const std::string& config, const std::vector<Session>& sessions) {
  ModelDb single;
  for (const Session& s : sessions) REQUIRE(single.Apply(s).ok());
  auto expected = single.Dump();
  REQUIRE(expected.has_value());
  CHECK(CompareDumps(*expected, DumpDistDb(config)) == "");
}

std::string DistCluster::NextPrefix(const std::string& what) {
  return tmp_.File(std::to_string(counter_++) + "-" + what);
}

}  // namespace testutil
