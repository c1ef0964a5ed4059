// The install rules and the Debian package (CMakeLists.txt): installed into a scratch
// root, by `cmake --install --prefix` and by extracting the .deb that cpack makes, the
// commands run from there, with their man pages, completions and example configs.
#include <catch2/catch.hpp>
#include <filesystem>

#include "test/util/subprocess.h"
#include "test/util/temp_dir.h"

namespace {

// MANROFFOPT: man's text without overstriking for bold. The deadline only guards against
// a hang: cpack strips and looks up the libraries of every binary.
testutil::ProcessResult MustRun(const testutil::TempDir& dir, std::vector<std::string> args) {
  testutil::ProcessResult r =
      testutil::Subprocess::Start(args, {"MANROFFOPT=-P-cbou"}, dir.File("run"))
          ->Wait(std::chrono::minutes(10));
  INFO(args[0] + " " + args[1] + ": " + r.Describe());
  REQUIRE(r.exit_code == 0);
  return r;
}

// The installed tree under prefix works: the commands run (a db is made, written and
// read), `man` formats the man pages, bash completes from the installed completion.
void CheckInstalled(const testutil::TempDir& dir, const std::string& prefix,
                    const std::string& doc) {
  for (const char* program : {"webdb", "distwriter", "nutchfs"}) {
    INFO(program);
    const std::string bin = prefix + "/bin/" + program;
    CHECK_THAT(MustRun(dir, {bin, "--version"}).out, Catch::StartsWith(program));
    const std::string man = prefix + "/share/man/man1/" + program + ".1.gz";
    REQUIRE(std::filesystem::exists(man));
    CHECK_THAT(MustRun(dir, {"/usr/bin/man", "-l", "-Tutf8", man}).out,
               Catch::Contains("EXIT STATUS"));
    const std::string completion = prefix + "/share/bash-completion/completions/" + program;
    REQUIRE(std::filesystem::exists(completion));
    const std::string code = "source " + completion + "; COMP_WORDS=(" + program +
                             " he); COMP_CWORD=1; _" + program + "_complete; echo ${COMPREPLY[@]}";
    CHECK(MustRun(dir, {"/bin/bash", "-c", code}).out == "help\n");
  }
  const std::string webdb = prefix + "/bin/webdb";
  const std::string db = dir.File("db");
  std::filesystem::remove_all(db);
  MustRun(dir, {webdb, "create", db});
  const std::string calls = dir.File("calls.jsonl");
  FILE* f = std::fopen(calls.c_str(), "w");
  REQUIRE(f != nullptr);
  std::fputs("{\"op\":\"addPageIfNotPresent\",\"page\":{\"url\":\"http://a.example/\"}}\n", f);
  REQUIRE(std::fclose(f) == 0);
  MustRun(dir, {webdb, "apply", "-q", db, calls});
  CHECK_THAT(MustRun(dir, {webdb, "stats", "--quick", db}).out,
             Catch::StartsWith("{\"pages\":1,\"links\":0"));
  CHECK(std::filesystem::exists(doc + "/README.md"));
  CHECK(std::filesystem::exists(doc + "/CLI.md"));
  CHECK(std::filesystem::exists(doc + "/examples/local-3.conf"));
}

TEST_CASE("cmake --install puts the commands, man pages, completions and docs under a prefix") {
  testutil::TempDir dir;
  const std::string prefix = dir.File("usr");
  MustRun(dir, {"/usr/bin/cmake", "--install", PROJECT_BINARY_DIR, "--prefix", prefix});
  CheckInstalled(dir, prefix, prefix + "/share/doc/webdb");
}

TEST_CASE("the Debian package holds the installed files and depends on the libraries") {
  testutil::TempDir dir;
  MustRun(dir, {"/usr/bin/cpack", "--config", PROJECT_BINARY_DIR "/CPackConfig.cmake", "-B",
                dir.File("pkg")});
  std::string deb;
  for (const auto& entry : std::filesystem::directory_iterator(dir.File("pkg"))) {
    if (entry.path().extension() == ".deb") deb = entry.path();
  }
  REQUIRE_THAT(deb, Catch::Contains("/webdb_") && Catch::EndsWith("_amd64.deb"));
  const std::string depends = MustRun(dir, {"/usr/bin/dpkg-deb", "-f", deb, "Depends"}).out;
  for (const char* lib : {"libssh", "libsimdjson", "libc6", "libzstd", "libbrotli"}) {
    CHECK_THAT(depends, Catch::Contains(lib));
  }
  MustRun(dir, {"/usr/bin/dpkg-deb", "-x", deb, dir.File("root")});
  CheckInstalled(dir, dir.File("root/usr"), dir.File("root/usr/share/doc/webdb"));
}

}  // namespace
