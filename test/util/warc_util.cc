#include "test/util/warc_util.h"

#include <brotli/encode.h>
#include <openssl/sha.h>
#include <zlib.h>
#include <zstd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>

#include "crawl/warc_digest.h"

namespace testutil {

std::string WarcRecordText(std::string_view type, std::string_view uri, std::string_view block,
                           std::string_view date, std::string_view version) {
  std::string r(version);
  r += "\r\nWARC-Type: ";
  r += type;
  r += "\r\n";
  if (!uri.empty()) {
    r += "WARC-Target-URI: ";
    r += uri;
    r += "\r\n";
  }
  r += "WARC-Date: ";
  r += date;
  r += "\r\nWARC-Record-ID: <urn:uuid:00000000-0000-0000-0000-000000000000>\r\n";
  if (type == "response") r += "Content-Type: application/http;msgtype=response\r\n";
  r += "Content-Length: " + std::to_string(block.size()) + "\r\n\r\n";
  r += block;
  r += "\r\n\r\n";
  return r;
}

std::string HttpText(int status, std::string_view headers, std::string_view body) {
  std::string r = "HTTP/1.1 " + std::to_string(status) + " Reason\r\n";
  r += headers;
  r += "\r\n";
  r += body;
  return r;
}

std::string HtmlResponseRecord(std::string_view uri, std::string_view html,
                               std::string_view date) {
  std::string headers = "Content-Type: text/html; charset=utf-8\r\nContent-Length: " +
                        std::to_string(html.size()) + "\r\n";
  return WarcRecordText("response", uri, HttpText(200, headers, html), date);
}

namespace {
std::string Compress(std::string_view data, int window_bits) {
  z_stream z{};
  REQUIRE(deflateInit2(&z, Z_BEST_SPEED, Z_DEFLATED, window_bits, 8, Z_DEFAULT_STRATEGY) == Z_OK);
  std::string out(deflateBound(&z, data.size()) + 32, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  z.avail_in = static_cast<uInt>(data.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  REQUIRE(deflate(&z, Z_FINISH) == Z_STREAM_END);
  out.resize(out.size() - z.avail_out);
  deflateEnd(&z);
  return out;
}
}  // namespace

std::string Gzip(std::string_view data) { return Compress(data, 16 + MAX_WBITS); }

std::string Deflate(std::string_view data, bool raw) {
  return Compress(data, raw ? -MAX_WBITS : MAX_WBITS);
}

std::string Chunked(std::string_view body, size_t chunk) {
  std::string out;
  char size[32];
  while (!body.empty()) {
    size_t n = std::min(chunk, body.size());
    std::snprintf(size, sizeof(size), "%zx\r\n", n);
    out += size;
    out += body.substr(0, n);
    out += "\r\n";
    body.remove_prefix(n);
  }
  return out + "0\r\n\r\n";
}

void WriteFile(const std::string& path, std::string_view data) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(data.data(), static_cast<std::streamsize>(data.size()));
  f.close();
  REQUIRE(f.good());
}

std::string Brotli(std::string_view data) {
  std::string out(BrotliEncoderMaxCompressedSize(data.size()) + 16, '\0');
  size_t size = out.size();
  REQUIRE(BrotliEncoderCompress(BROTLI_DEFAULT_QUALITY, BROTLI_DEFAULT_WINDOW, BROTLI_MODE_TEXT,
                                data.size(), reinterpret_cast<const uint8_t*>(data.data()), &size,
                                reinterpret_cast<uint8_t*>(out.data())));
  out.resize(size);
  return out;
}

std::string Zstd(std::string_view data) {
  std::string out(ZSTD_compressBound(data.size()), '\0');
  size_t size = ZSTD_compress(out.data(), out.size(), data.data(), data.size(), 3);
  REQUIRE_FALSE(ZSTD_isError(size));
  out.resize(size);
  return out;
}

std::string WithWarcHeader(std::string_view record, std::string_view name, std::string_view value) {
  const size_t eol = record.find("\r\n") + 2;
  return std::string(record.substr(0, eol)) + std::string(name) + ": " + std::string(value) +
         "\r\n" + std::string(record.substr(eol));
}

std::string Sha1Digest(std::string_view data) {
  unsigned char md[SHA_DIGEST_LENGTH];
  SHA1(reinterpret_cast<const unsigned char*>(data.data()), data.size(), md);
  return "sha1:" + crawl::EncodeBase32(std::string_view(reinterpret_cast<char*>(md), sizeof(md)));
}

}  // namespace testutil
