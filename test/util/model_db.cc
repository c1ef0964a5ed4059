#include "test/util/model_db.h"

#include <catch2/catch.hpp>

#include "webdb/inspect/verify.h"

namespace testutil {

ModelDb::ModelDb(webdb::WriterOptions options)
    : env_(nutchfs::NewLocalEnv()), dir_(tmp_.File("db")), options_(std::move(options)) {
  webdb::Status s = webdb::Writer::Create(*env_, dir_);
  INFO("Writer::Create " << dir_ << ": " << s.ToString());
  REQUIRE(s.ok());
}

webdb::Status ModelDb::Apply(const Session& session) { return Apply(session, options_); }

webdb::Status ModelDb::Apply(const Session& session, const webdb::WriterOptions& options) {
  webdb::Status s = RunSession(*env_, dir_, session, options);
  if (s.ok()) model_.Apply(session);
  return s;
}

webdb::Result<std::unique_ptr<webdb::Reader>> ModelDb::OpenReader() {
  return webdb::Reader::Open(*env_, dir_);
}

webdb::Result<DbDump> ModelDb::Dump() {
  NUTCHFS_ASSIGN_OR_RETURN(auto reader, OpenReader());
  return DumpDb(*reader);
}

std::string ModelDb::Check() {
  auto dump = Dump();
  if (!dump) return "reading the db failed: " + dump.error().ToString();
  std::string diff = CompareDumps(model_.ToDump(), *dump);
  if (!diff.empty()) return "db differs from the model: " + diff;
  diff = CheckInvariants(*dump);
  if (!diff.empty()) return "db breaks an invariant: " + diff;
  return Verify();
}

std::string ModelDb::Verify() {
  std::string findings;
  webdb::VerifyOptions options;
  options.memory_budget = 256 << 10;  // small: the verify sorts spill
  options.tmp_env = env_.get();
  options.tmp_dir = tmp_.File("verify");
  options.on_finding = [&](const webdb::Finding& f) { findings += f.ToString() + "; "; };
  auto summary = webdb::VerifyDb(*env_, dir_, options);
  if (!summary) return "verify failed: " + summary.error().ToString();
  if (!findings.empty()) return "verify found: " + findings;
  return "";
}

}  // namespace testutil
