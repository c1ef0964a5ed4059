// ModelDb: a real single-machine WebDB in a temporary directory side by side with the
// in-memory Model, fed the same sessions, so a test can compare the two after each one.
//
// Owns the temporary directory (removed on destruction), the local Env and the Model.
// Not thread-safe.
#ifndef TEST_UTIL_MODEL_DB_H_
#define TEST_UTIL_MODEL_DB_H_

#include <memory>
#include <string>

#include "nutchfs/env.h"
#include "test/util/db_dump.h"
#include "test/util/model.h"
#include "test/util/session.h"
#include "test/util/temp_dir.h"
#include "webdb/db/options.h"
#include "webdb/db/reader.h"

namespace testutil {

class ModelDb {
 public:
  // Creates an empty db; fails the running Catch2 test if it cannot.
  explicit ModelDb(webdb::WriterOptions options = {});

  ModelDb(const ModelDb&) = delete;
  ModelDb& operator=(const ModelDb&) = delete;

  // Applies the session to the real db (Open, calls, Close) and, if that succeeded, to
  // the model. Returns the writer's status.
  webdb::Status Apply(const Session& session);
  // Same, with other writer options for this session only.
  webdb::Status Apply(const Session& session, const webdb::WriterOptions& options);

  // A Reader on the db's current version.
  webdb::Result<std::unique_ptr<webdb::Reader>> OpenReader();
  // The real db's content.
  webdb::Result<DbDump> Dump();
  // Empty when the real db equals the model in all four tables and both counts and the
  // spec's invariants hold on it and webdb::VerifyDb finds nothing; otherwise what
  // differs first.
  std::string Check();
  // Empty when webdb::VerifyDb finds nothing, else the findings.
  std::string Verify();

  const Model& model() const { return model_; }
  nutchfs::Env& env() { return *env_; }
  const std::string& dir() const { return dir_; }
  webdb::WriterOptions& options() { return options_; }

 private:
  TempDir tmp_;
  std::unique_ptr<nutchfs::Env> env_;
  std::string dir_;
  webdb::WriterOptions options_;
  Model model_;
};

}  // namespace testutil

#endif  // TEST_UTIL_MODEL_DB_H_
