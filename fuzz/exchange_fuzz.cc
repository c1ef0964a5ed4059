// Fuzzes what a distributed writer takes from its peers at the start of a round: a stage
// 0 file (distwriter/stage_zero.h; an edit file, its checksums repaired so that mutations
// reach the records), and the url breakpoints chosen from the samples
// (Partition::ChooseBreakpoints), which the round manifest then records. The other
// exchanged files are edit files and section manifests: fuzz/edit_file_fuzz.cc and
// fuzz/manifest_fuzz.cc.
// Properties: no crash; errors are Corruption; an accepted file holds a 32-hex-digit
// digest and valid urls, and writes back to a file read as the same; breakpoints chosen
// from the sample for any writer count are valid, and a round manifest holding them
// decodes to the same manifest.
#include <cstdint>
#include <string>

#include "distwriter/dist_config.h"
#include "distwriter/partition.h"
#include "distwriter/round_manifest.h"
#include "distwriter/stage_zero.h"
#include "fuzz/fuzz_util.h"
#include "webdb/sort/edit_file.h"

namespace {

void CheckBreakpoints(const std::vector<std::string>& urls, int k) {
  auto breakpoints = distwriter::Partition::ChooseBreakpoints(urls, k);
  if (!breakpoints) {
    FUZZ_CHECK_MSG(breakpoints.error().IsInvalidArgument(), breakpoints.error().ToString());
    return;
  }
  distwriter::Status valid = distwriter::ValidateBreakpoints(*breakpoints, k);
  FUZZ_CHECK_MSG(valid.ok(), valid.ToString());
  distwriter::RoundManifest m;
  m.version = 2;
  m.k = k;
  m.digests.assign(k, "");
  m.sections.assign(k, webdb::Manifest{});
  for (webdb::Manifest& section : m.sections) {
    section.version = 1;
    for (int t = 0; t < webdb::kNumTables; ++t) {
      const auto id = static_cast<webdb::TableId>(t);
      section.tables[t] = {webdb::TableFile{webdb::TableFileName(id, 1)}};
    }
  }
  m.breakpoints = *breakpoints;
  auto again = distwriter::RoundManifest::Decode(m.Encode(), "/meta/ROUND-000002");
  FUZZ_CHECK_MSG(again.has_value(), again ? "" : again.error().ToString());
  FUZZ_CHECK(*again == m);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string bytes(fuzzutil::AsView(data, size));
  fuzzutil::RepairEditFileChecksums(&bytes);
  auto env = fuzzutil::EnvWithFile("/w/in/stage0", bytes);
  auto opened = webdb::OpenEditFile(*env, "/w/in/stage0");
  if (!opened) {
    FUZZ_CHECK_MSG(opened.error().IsCorruption(), opened.error().ToString());
    return 0;
  }
  auto got = distwriter::ReadStageZero(**opened, "/w/in/stage0");
  if (!got) {
    FUZZ_CHECK_MSG(got.error().IsCorruption(), got.error().ToString());
    return 0;
  }
  FUZZ_CHECK(got->digest.size() == 32);
  for (const std::string& url : got->urls) FUZZ_CHECK(webdb::ValidateUrl(url).ok());

  FUZZ_CHECK(env->CreateDirs("/w/out").ok());
  auto out = webdb::EditFileWriter::Create(*env, "/w/out/stage0", false);
  FUZZ_CHECK(out.has_value() && distwriter::WriteStageZero(**out, *got).ok());
  auto reopened = webdb::OpenEditFile(*env, "/w/out/stage0");
  FUZZ_CHECK(reopened.has_value());
  auto again = distwriter::ReadStageZero(**reopened, "/w/out/stage0");
  FUZZ_CHECK(again.has_value() && *again == *got);

  for (int k : {2, 3, 7, 97, distwriter::kMaxWriters}) CheckBreakpoints(got->urls, k);
  return 0;
}
