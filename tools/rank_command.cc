#include "tools/rank_command.h"

#include <fmt/format.h>

#include <chrono>
#include <filesystem>
#include <vector>

#include "distwriter/dist_config.h"
#include "distwriter/dist_reader.h"
#include "distwriter/launch.h"
#include "tools/cli_commands.h"
#include "tools/progress_reporter.h"
#include "tools/step_clock.h"
#include "tools/step_observer.h"
#include "webdb/rank/rank_db.h"

namespace tools {
namespace {

using Clock = std::chrono::steady_clock;

std::string RankJson(const webdb::RankReport& r, const std::vector<webdb::IterationReport>& its,
                     double seconds, const StepClock& steps) {
  std::string out = fmt::format(
      "{{\"version\":{},\"alreadyRanked\":{},\"pages\":{},\"links\":{},\"options\":"
      "{{\"iterations\":{},\"epsilon\":{},\"damping\":{}}}",
      r.version, r.already_ranked, r.pages, r.links, r.info.options.iterations,
      r.info.options.epsilon, r.info.options.damping);
  out += fmt::format(",\"iterations\":{},\"l1\":{},\"seconds\":{:.3f},\"iterationSeconds\":[",
                     r.info.done, r.info.l1, seconds);
  for (size_t i = 0; i < its.size(); ++i) {
    out += fmt::format("{}{:.3f}", i > 0 ? "," : "", its[i].seconds);
  }
  out += "],\"stepSeconds\":{";
  bool first = true;
  for (const auto& [name, s] : steps.Seconds()) {
    out += fmt::format("{}\"{}\":{:.3f}", first ? "" : ",", name, s);
    first = false;
  }
  return out + "}}\n";
}

std::string RankSummary(const webdb::RankReport& r, double seconds) {
  if (r.already_ranked) {
    return fmt::format("webdb: version {} is the result of this rank already: nothing to do\n",
                       r.version);
  }
  if (r.pages == 0) return "webdb: the db has no pages: nothing to rank\n";
  return fmt::format(
      "webdb: ranked {} pages in {} iterations (last L1 change {:.6g}): "
      "version {}, {:.1f} s\n",
      r.pages, r.info.done, r.info.l1, r.version, seconds);
}

// A distributed db's rank: its k writers launched at once, as `distwriter launch --rank`
// does (their report on stderr unless --quiet); the report is read back from the rounds
// installed before and after.
Result<webdb::RankReport> LaunchRank(const Invocation& inv) {
  NUTCHFS_ASSIGN_OR_RETURN(auto config, distwriter::DistConfig::Load(inv.config));
  NUTCHFS_ASSIGN_OR_RETURN(distwriter::RoundManifest before,
                           distwriter::ReadCommittedRound(inv.config, std::nullopt));
  distwriter::LaunchOptions launch;
  launch.config_path = std::filesystem::absolute(inv.config).string();
  launch.distwriter_binary = kDistwriterCommand;
  launch.run_flags = {"--memory", std::to_string(inv.memory_budget), "--quiet"};
  launch.rank = inv.rank;
  NUTCHFS_RETURN_IF_ERROR(distwriter::Launch(config, launch, inv.quiet ? nullptr : stderr));
  NUTCHFS_ASSIGN_OR_RETURN(distwriter::RoundManifest after,
                           distwriter::ReadCommittedRound(inv.config, std::nullopt));
  webdb::RankReport r{after.version, after.version == before.version && after.rank.has_value(),
                      after.num_pages(), after.num_links(), after.rank.value_or(webdb::RankInfo{})};
  return r;
}

}  // namespace

Result<int> RunRank(nutchfs::Env& env, const Invocation& inv, std::FILE* out) {
  const auto start = Clock::now();
  if (!inv.config.empty()) {
    NUTCHFS_ASSIGN_OR_RETURN(webdb::RankReport report, LaunchRank(inv));
    const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    if (inv.json) {
      NUTCHFS_RETURN_IF_ERROR(
          WriteToStream(out, RankJson(report, {}, seconds, StepClock("launch"))));
    }
    if (!inv.quiet) std::fputs(RankSummary(report, seconds).c_str(), stderr);
    return kExitOk;
  }
  ProgressReporter reporter(stderr);
  std::vector<webdb::IterationReport> iterations;
  StepClock steps("open");
  webdb::RankParams params;
  params.dir = inv.db;
  params.options = inv.rank;
  params.memory_budget = inv.memory_budget;
  params.before_step = [&steps, observe = StepObserver()](std::string_view step) {
    steps.Step(step);
    if (observe) observe(step);
  };
  if (!inv.quiet) params.progress = reporter.AsProgressFn();
  params.on_iteration = [&](const webdb::IterationReport& it) {
    iterations.push_back(it);
    if (inv.quiet) return;
    std::fputs(fmt::format("webdb: rank iteration {}: L1 change {:.6g}, {:.3f} s\n", it.iteration,
                           it.l1, it.seconds)
                   .c_str(),
               stderr);
  };
  auto report = webdb::RankDb(env, params);
  if (!report) return Err(WithUnlockHint(env, report.error(), inv.db));
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  if (inv.json) {
    NUTCHFS_RETURN_IF_ERROR(WriteToStream(out, RankJson(*report, iterations, seconds, steps)));
  }
  if (!inv.quiet) {
    std::fputs((RankSummary(*report, seconds) + "webdb: seconds by step: " + steps.Summary() + "\n")
                   .c_str(),
               stderr);
  }
  return kExitOk;
}

}  // namespace tools
