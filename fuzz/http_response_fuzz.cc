// Fuzzes the parsing of HTTP responses stored in WARC records (crawl/http_response.h)
// and content decoding.
// Properties: no crash; errors are Corruption; a parsed status is three digits, 100..999;
// the media type is lower case, trimmed, without parameters; the body decodes the same
// when gzip-compressed, zlib-wrapped or raw-deflated by zlib.
#include <cstdint>
#include <string>

#include "crawl/http_response.h"
#include "fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view block = fuzzutil::AsView(data, size);
  auto response = crawl::ParseHttpResponse(block);
  if (!response) {
    FUZZ_CHECK_MSG(response.error().IsCorruption(), response.error().ToString());
  } else {
    FUZZ_CHECK(response->status >= 100 && response->status <= 999);
    const std::string type = response->MediaType();
    FUZZ_CHECK(type.find(';') == std::string::npos);
    for (char c : type) FUZZ_CHECK(!(c >= 'A' && c <= 'Z'));
    FUZZ_CHECK(type.empty() || (type.front() != ' ' && type.back() != ' '));
    FUZZ_CHECK(response->IsHtml() == (type == "text/html" || type == "application/xhtml+xml"));
    for (const auto& [name, value] : response->headers) {
      FUZZ_CHECK(name.find(':') == std::string::npos);
    }
  }

  // The bytes as a body in each content coding.
  for (auto [coding, bits] :
       {std::pair{"gzip", 16 + 15}, {"x-gzip", 16 + 15}, {"deflate", 15}, {"deflate", -15}}) {
    auto decoded = crawl::DecodeContent(coding, fuzzutil::Compress(block, bits));
    FUZZ_CHECK_MSG(decoded.has_value(), decoded ? "" : decoded.error().ToString());
    FUZZ_CHECK(*decoded == block);
  }
  auto identity = crawl::DecodeContent(" Identity ", block);
  FUZZ_CHECK(identity.has_value() && *identity == block);
  auto raw = crawl::DecodeContent("gzip", block);
  if (!raw) FUZZ_CHECK_MSG(raw.error().IsCorruption(), raw.error().ToString());
  return 0;
}
