#include "webdb/rank/rank_db.h"

#include <fmt/format.h>

#include "nutchfs/clock.h"
#include "webdb/db/db_session.h"
#include "webdb/db/update.h"
#include "webdb/rank/rank_math.h"

namespace webdb {
namespace {

Result<RankReport> RankLocked(DbSession& session, RankParams& params) {
  const Manifest& current = session.current();
  RankReport report{current.version, false, current.num_pages(), current.num_links(), {}};
  if (current.rank && current.rank->options == params.options) {
    report.already_ranked = true;
    report.info = *current.rank;
    return report;
  }
  params.manifest = ManifestFileName(current.version);
  params.work_dir = session.work_dir();
  params.new_version = current.version + 1;
  // The sorters' pool leaves room for the indexes of the tables the rank holds open.
  NUTCHFS_ASSIGN_OR_RETURN(params.memory_budget,
                           SorterBudget(session.env(), params.dir, current, params.memory_budget));
  LocalRankPlumbing plumbing(session.env(), params.work_dir, params.memory_budget);
  NUTCHFS_ASSIGN_OR_RETURN(RankOutcome outcome, RunRank(session.env(), current, params, plumbing));
  if (!outcome.manifest) return report;  // no pages: nothing to rank
  Manifest& next = *outcome.manifest;
  next.time_ms = nutchfs::NowMs();
  next.restores = 0;
  NUTCHFS_RETURN_IF_ERROR(session.Publish(next, params.before_step));
  report.version = next.version;
  report.info = outcome.info;
  return report;
}

}  // namespace

Result<RankReport> RankDb(nutchfs::Env& env, RankParams params) {
  NUTCHFS_RETURN_IF_ERROR(ValidateRankOptions(params.options));
  NUTCHFS_ASSIGN_OR_RETURN(auto session, DbSession::Open(env, params.dir, "webdb rank"));
  Result<RankReport> report = RankLocked(*session, params);
  Status ended = session->End(report ? Status::OK() : report.error());
  if (!report) {
    return Err(ended.WithContext(
        fmt::format("{}: version {} not published", params.dir, session->current().version + 1)));
  }
  if (!ended.ok()) return Err(ended);
  return report;
}

}  // namespace webdb
