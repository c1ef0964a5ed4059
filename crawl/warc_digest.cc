#include "crawl/warc_digest.h"

#include <openssl/evp.h>

#include <cctype>
#include <cstdint>

#include "crawl/http_response.h"
#include "nutchfs/strings.h"

namespace crawl {
namespace {

constexpr std::string_view kBase32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

struct Algorithm {
  const char* label;  // as we print it
  const EVP_MD* (*md)();
};

// The algorithm a digest names; nullptr for one that is not checked.
const Algorithm* FindAlgorithm(std::string_view name) {
  static const Algorithm kSha1{"sha1", EVP_sha1};
  static const Algorithm kSha256{"sha256", EVP_sha256};
  using nutchfs::EqualsNoCase;
  if (EqualsNoCase(name, "sha1") || EqualsNoCase(name, "sha-1")) return &kSha1;
  if (EqualsNoCase(name, "sha256") || EqualsNoCase(name, "sha-256")) return &kSha256;
  return nullptr;
}

std::string Digest(const Algorithm& algorithm, std::string_view bytes) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  EVP_Digest(bytes.data(), bytes.size(), md, &size, algorithm.md(), nullptr);
  return std::string(reinterpret_cast<char*>(md), size);
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::optional<std::string> DecodeHex(std::string_view text) {
  if (text.size() % 2 != 0) return std::nullopt;
  std::string out;
  for (size_t i = 0; i < text.size(); i += 2) {
    const int hi = HexValue(text[i]), lo = HexValue(text[i + 1]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out.push_back(static_cast<char>(hi * 16 + lo));
  }
  return out;
}

// The digest a value of size `size` encodes, base32 or hex; nullopt if it is neither.
std::optional<std::string> DecodeDigestValue(std::string_view value, size_t size) {
  if (auto bytes = DecodeBase32(value); bytes && bytes->size() == size) return bytes;
  if (auto bytes = DecodeHex(value); bytes && bytes->size() == size) return bytes;
  return std::nullopt;
}

// Checks the digest in header `name` (value "algorithm:value") against bytes, `what`
// of the record. OK if the header is absent or names an algorithm that is not checked.
Status CheckDigest(std::string_view name, std::string_view header, std::string_view bytes,
                   std::string_view what) {
  if (header.empty()) return Status::OK();
  const size_t colon = header.find(':');
  const Algorithm* algorithm =
      colon == std::string_view::npos ? nullptr : FindAlgorithm(header.substr(0, colon));
  if (algorithm == nullptr) return Status::OK();
  const std::string actual = Digest(*algorithm, bytes);
  auto expected = DecodeDigestValue(header.substr(colon + 1), actual.size());
  if (!expected) {
    return Status::Corruption("malformed " + std::string(name) + " '" + std::string(header) +
                              "': expected base32 or hex of a " + algorithm->label + " digest");
  }
  if (actual == *expected) return Status::OK();
  return Status::Corruption(std::string(name) + " " + std::string(header) + " does not match " +
                            std::string(what) + " (" + algorithm->label + ":" +
                            EncodeBase32(actual) + ")");
}

// The HTTP message body of an application/http block, nullopt when there is no empty
// line ending its header.
std::optional<std::string_view> HttpBody(std::string_view block) {
  size_t end = block.find("\r\n\r\n");
  if (end != std::string_view::npos) return block.substr(end + 4);
  end = block.find("\n\n");
  if (end != std::string_view::npos) return block.substr(end + 2);
  return std::nullopt;
}

}  // namespace

std::optional<std::string> DecodeBase32(std::string_view text) {
  while (!text.empty() && text.back() == '=') text.remove_suffix(1);
  std::string out;
  uint32_t bits = 0;
  int count = 0;
  for (char c : text) {
    size_t v = kBase32.find(static_cast<char>(std::toupper(static_cast<unsigned char>(c))));
    if (v == std::string_view::npos) return std::nullopt;
    bits = (bits << 5) | static_cast<uint32_t>(v);
    count += 5;
    if (count >= 8) {
      count -= 8;
      out.push_back(static_cast<char>((bits >> count) & 0xff));
    }
  }
  return out;
}

std::string EncodeBase32(std::string_view bytes) {
  std::string out;
  uint32_t bits = 0;
  int count = 0;
  for (unsigned char b : bytes) {
    bits = (bits << 8) | b;
    count += 8;
    while (count >= 5) {
      count -= 5;
      out.push_back(kBase32[(bits >> count) & 31]);
    }
  }
  if (count > 0) out.push_back(kBase32[(bits << (5 - count)) & 31]);
  while (out.size() % 8 != 0) out.push_back('=');
  return out;
}

Status CheckWarcDigests(const WarcRecord& record) {
  NUTCHFS_RETURN_IF_ERROR(CheckDigest("WARC-Block-Digest", record.Header("WARC-Block-Digest"),
                                      record.block, "the block"));
  std::string_view payload_digest = record.Header("WARC-Payload-Digest");
  if (payload_digest.empty()) return Status::OK();
  const std::string_view type = record.type();
  if (type == "resource") {
    return CheckDigest("WARC-Payload-Digest", payload_digest, record.block, "the payload");
  }
  const std::string_view content_type = record.Header("Content-Type");
  const bool http = nutchfs::EqualsNoCase(
      nutchfs::Trim(content_type.substr(0, content_type.find(';'))), "application/http");
  if ((type != "response" && type != "request") || !http) return Status::OK();
  auto body = HttpBody(record.block);
  if (!body) return Status::OK();  // no payload: the HTTP parse names what is wrong
  // As received, or de-chunked: writers differ (docs/FORMAT.md).
  Status as_received = CheckDigest("WARC-Payload-Digest", payload_digest, *body, "the payload");
  if (as_received.ok()) return as_received;
  auto dechunked = Dechunk(*body);
  if (!dechunked) return as_received;
  Status s = CheckDigest("WARC-Payload-Digest", payload_digest, *dechunked, "the payload");
  return s.ok() ? s : as_received;
}

}  // namespace crawl
