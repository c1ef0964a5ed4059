// Fuzzes the decoding of one data block of a table file (webdb/table/block.h): the bytes are
// the block contents, as if their crc had been checked.
// Properties: no crash or read outside the block; errors are Corruption naming the file
// and offset; decoded keys strictly increase; CountBlockRecords agrees with the reader;
// Seek finds every decoded key; the records encoded again by BlockBuilder decode to the
// same records.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "fuzz/fuzz_util.h"
#include "webdb/table/block.h"
#include "webdb/table/block_builder.h"
#include "webdb/table/table_format.h"

namespace {

using Records = std::vector<std::pair<std::string, std::string>>;

// Every record of contents, and whether the block decoded to its end.
std::pair<Records, bool> DecodeAll(std::string_view contents, const std::string& path) {
  webdb::BlockReader reader;
  reader.Reset(contents, &path, 4096);
  Records records;
  while (reader.Next()) {
    if (!records.empty()) FUZZ_CHECK(records.back().first < reader.key());
    records.emplace_back(reader.key(), reader.value());
  }
  if (!reader.status().ok()) {
    FUZZ_CHECK_MSG(reader.status().IsCorruption(), reader.status().ToString());
    FUZZ_CHECK_MSG(reader.status().message().starts_with(path + ": malformed record"),
                   reader.status().ToString());
  }
  return {std::move(records), reader.status().ok()};
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view contents = fuzzutil::AsView(data, size);
  const std::string path = "/db/pagesByURL-000001.tbl";
  auto [records, ok] = DecodeAll(contents, path);

  const std::optional<uint64_t> counted = webdb::CountBlockRecords(contents);
  if (ok) FUZZ_CHECK(counted.has_value() && *counted == records.size());
  if (!counted) FUZZ_CHECK(!ok);

  webdb::BlockReader reader;
  reader.Reset(contents, &path, 4096);
  for (const auto& [key, value] : records) {
    FUZZ_CHECK(reader.Seek(key));
    FUZZ_CHECK(reader.key() == key && reader.value() == value);
  }
  if (!ok || records.empty()) return 0;

  webdb::BlockBuilder builder;
  for (const auto& [key, value] : records) builder.Add(key, value);
  std::string_view encoded = builder.Finish();
  encoded.remove_suffix(webdb::kBlockTrailerSize);
  auto [again, again_ok] = DecodeAll(encoded, path);
  FUZZ_CHECK(again_ok && again == records);
  return 0;
}
