// Fuzzes the WARC reader (crawl/warc_reader.h) on a file in an in-memory Env, stored as
// given and gzip-compressed.
// Properties: no crash; errors are Corruption naming the file and the record offset;
// record offsets increase; the compressed file yields the same records and stops at the
// same place; dates that parse lie near the years 0000..9999 (fields are digits, no sign).
#include <cstdint>
#include <string>
#include <vector>

#include "crawl/warc_reader.h"
#include "fuzz/fuzz_util.h"

namespace {

struct ReadResult {
  std::vector<crawl::WarcRecord> records;
  nutchfs::Status status;
};

ReadResult ReadAll(std::string_view bytes, const std::string& path) {
  auto env = fuzzutil::EnvWithFile(path, bytes);
  ReadResult r;
  auto reader = crawl::WarcReader::Open(*env, path, crawl::WarcReaderOptions{1 << 20});
  if (!reader) {
    r.status = reader.error();
    return r;
  }
  for (;;) {
    auto next = (*reader)->Next();
    if (!next) {
      r.status = next.error();
      FUZZ_CHECK_MSG(r.status.IsCorruption(), r.status.ToString());
      FUZZ_CHECK_MSG(r.status.message().starts_with(path + ": record at offset "),
                     r.status.ToString());
      // The error is sticky.
      auto again = (*reader)->Next();
      FUZZ_CHECK(!again && again.error().ToString() == r.status.ToString());
      return r;
    }
    if (!*next) return r;
    if (!r.records.empty()) FUZZ_CHECK(r.records.back().offset < (*next)->offset);
    r.records.push_back(std::move(**next));
  }
}

bool SameRecords(const std::vector<crawl::WarcRecord>& a, const std::vector<crawl::WarcRecord>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].version != b[i].version || a[i].headers != b[i].headers || a[i].block != b[i].block ||
        a[i].offset != b[i].offset) {
      return false;
    }
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes = fuzzutil::AsView(data, size);
  const ReadResult plain = ReadAll(bytes, "/crawl/in.warc");
  for (const crawl::WarcRecord& r : plain.records) {
    (void)r.type();
    (void)r.target_uri();
    auto date = crawl::ParseWarcDate(r.Header("WARC-Date"));
    // Four digits of year, two of month, day, ...: from before 0000-01-01 by at most a
    // month and a day (fields of 00) to after 9999-12-31 by at most 99 of each field.
    constexpr int64_t kDay = 86400000;
    if (date)
      FUZZ_CHECK(*date >= -62167219200000 - 70 * kDay && *date < 253402300800000 + 3660 * kDay);
  }
  if (bytes.starts_with("\x1f\x8b")) return 0;  // already gzip: read as such above
  const ReadResult gz = ReadAll(fuzzutil::Compress(bytes, 16 + 15), "/crawl/in.warc.gz");
  FUZZ_CHECK(SameRecords(plain.records, gz.records));
  FUZZ_CHECK(plain.status.ok() == gz.status.ok());
  return 0;
}
