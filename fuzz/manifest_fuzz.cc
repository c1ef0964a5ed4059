// Fuzzes a db version's manifest and CURRENT (webdb/db/manifest.h). The input is CURRENT's
// bytes, a NUL, then the manifest text, whose crc line is repaired so that mutations
// reach the parser behind it.
// Properties: no crash; errors are Status values; a decoded manifest encodes to text
// that decodes to the same manifest; ReadCurrentManifest returns that manifest when
// CURRENT names it.
#include <cstdint>
#include <string>

#include "fuzz/fuzz_util.h"
#include "webdb/db/manifest.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto parts = fuzzutil::SplitAtNul(fuzzutil::AsView(data, size), 2);
  std::string text(parts[1]);
  fuzzutil::RepairTextCrc(&text);

  auto m = webdb::Manifest::Decode(text, "/db/MANIFEST");
  if (m) {
    const std::string again_text = m->Encode();
    auto again = webdb::Manifest::Decode(again_text, "/db/MANIFEST");
    FUZZ_CHECK_MSG(again.has_value() && *again == *m, again_text);
    FUZZ_CHECK(again->Encode() == again_text);
  } else {
    FUZZ_CHECK_MSG(m.error().IsCorruption(), m.error().ToString());
  }

  // CURRENT names the manifest file; put the text there when the name is usable.
  const std::string current(parts[0]);
  auto env = fuzzutil::EnvWithFile("/db/CURRENT", current);
  if (current.ends_with('\n')) {
    const std::string path = "/db/" + current.substr(0, current.size() - 1);
    auto file = env->NewWritableFile(path);
    if (file) (void)((*file)->Append(text).ok() && (*file)->Close().ok());
  }
  auto read = webdb::ReadCurrentManifest(*env, "/db");
  if (read) FUZZ_CHECK(m.has_value() && *read == *m);
  return 0;
}
