// Fuzzes the round manifest of a distributed db (distwriter/round_manifest.h), with its
// crc line repaired so that mutations reach the parser behind it.
// Properties: no crash; errors are Corruption naming the file; a decoded manifest has k
// sections and digests and valid breakpoints, yields a usable Partition, and encodes to
// text that decodes to the same manifest.
#include <cstdint>
#include <string>

#include "distwriter/round_manifest.h"
#include "fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(fuzzutil::AsView(data, size));
  fuzzutil::RepairTextCrc(&text);
  auto m = distwriter::RoundManifest::Decode(text, "/meta/ROUND-000001");
  if (!m) {
    FUZZ_CHECK_MSG(m.error().IsCorruption(), m.error().ToString());
    FUZZ_CHECK_MSG(m.error().message().starts_with("/meta/ROUND-000001:"), m.error().ToString());
    return 0;
  }
  FUZZ_CHECK(m->k >= 1);
  FUZZ_CHECK(m->sections.size() == static_cast<size_t>(m->k));
  FUZZ_CHECK(m->digests.size() == static_cast<size_t>(m->k));
  FUZZ_CHECK(distwriter::ValidateBreakpoints(m->breakpoints, m->k).ok() || m->breakpoints.empty());
  (void)m->num_pages();
  (void)m->num_links();
  if (m->k <= 64) {
    // Every key lands in a section; the partition's sections start in order.
    const distwriter::Partition p = m->partition();
    for (int t = 0; t < webdb::kNumTables; ++t) {
      const auto table = static_cast<webdb::TableId>(t);
      for (const std::string& key : {std::string(), std::string(40, '\xff'), text.substr(0, 40)}) {
        const int s = p.SectionOf(table, key);
        FUZZ_CHECK(s >= 0 && s < m->k);
      }
    }
  }
  const std::string again_text = m->Encode();
  auto again = distwriter::RoundManifest::Decode(again_text, "/meta/ROUND-000001");
  FUZZ_CHECK_MSG(again.has_value(), again_text + (again ? "" : again.error().ToString()));
  FUZZ_CHECK_MSG(*again == *m, again_text);
  return 0;
}
