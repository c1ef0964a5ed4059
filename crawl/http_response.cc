#include "crawl/http_response.h"

#include <brotli/decode.h>
#include <zlib.h>
#include <zstd.h>

#include <charconv>
#include <memory>

#include "nutchfs/strings.h"

namespace crawl {

namespace {

using nutchfs::EqualsNoCase;
using nutchfs::Trim;

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

// Takes one line off *text; lines end in CRLF or a bare LF. False at the end.
bool NextLine(std::string_view* text, std::string_view* line) {
  if (text->empty()) return false;
  size_t eol = text->find('\n');
  *line = text->substr(0, eol);
  text->remove_prefix(eol == std::string_view::npos ? text->size() : eol + 1);
  if (!line->empty() && line->back() == '\r') line->remove_suffix(1);
  return true;
}

Status TooLarge() {
  return Status::Corruption("body decodes to more than " + std::to_string(kMaxDecodedBody >> 20) +
                            " MiB");
}

// window_bits as for inflateInit2: 16+15 gzip, 15 zlib, -15 raw deflate.
Result<std::string> Inflate(std::string_view in, int window_bits) {
  z_stream z{};
  if (inflateInit2(&z, window_bits) != Z_OK) {
    return nutchfs::Err(Status::IOError("cannot initialize zlib"));
  }
  std::string out;
  char buf[1 << 15];
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  z.avail_in = static_cast<uInt>(in.size());
  int rc = Z_OK;
  while (z.avail_in > 0 || rc == Z_OK) {
    z.next_out = reinterpret_cast<Bytef*>(buf);
    z.avail_out = sizeof(buf);
    rc = inflate(&z, Z_NO_FLUSH);
    out.append(buf, sizeof(buf) - z.avail_out);
    if (out.size() > kMaxDecodedBody) {
      inflateEnd(&z);
      return nutchfs::Err(TooLarge());
    }
    if (rc == Z_STREAM_END) {
      if (z.avail_in == 0 || window_bits != 16 + MAX_WBITS) break;
      inflateReset(&z);  // another gzip member
      rc = Z_OK;
    } else if (rc != Z_OK) {
      break;
    }
  }
  std::string msg = z.msg ? z.msg : "truncated stream";
  inflateEnd(&z);
  if (rc != Z_STREAM_END) return nutchfs::Err(Status::Corruption("body does not decode: " + msg));
  return out;
}

Result<std::string> Unbrotli(std::string_view in) {
  std::unique_ptr<BrotliDecoderState, decltype(&BrotliDecoderDestroyInstance)> state(
      BrotliDecoderCreateInstance(nullptr, nullptr, nullptr), BrotliDecoderDestroyInstance);
  if (!state) return nutchfs::Err(Status::IOError("cannot initialize brotli"));
  size_t avail_in = in.size();
  const uint8_t* next_in = reinterpret_cast<const uint8_t*>(in.data());
  std::string out;
  uint8_t buf[1 << 15];
  BrotliDecoderResult rc;
  do {
    size_t avail_out = sizeof(buf);
    uint8_t* next_out = buf;
    rc = BrotliDecoderDecompressStream(state.get(), &avail_in, &next_in, &avail_out, &next_out,
                                       nullptr);
    out.append(reinterpret_cast<char*>(buf), sizeof(buf) - avail_out);
    if (out.size() > kMaxDecodedBody) return nutchfs::Err(TooLarge());
  } while (rc == BROTLI_DECODER_RESULT_NEEDS_MORE_OUTPUT);
  if (rc == BROTLI_DECODER_RESULT_SUCCESS && avail_in == 0) return out;
  std::string why = rc == BROTLI_DECODER_RESULT_NEEDS_MORE_INPUT ? "truncated stream"
                    : rc == BROTLI_DECODER_RESULT_SUCCESS
                        ? "bytes after the end of the stream"
                        : BrotliDecoderErrorString(BrotliDecoderGetErrorCode(state.get()));
  return nutchfs::Err(Status::Corruption("body does not decode (br): " + why));
}

// Any number of concatenated zstd frames.
Result<std::string> Unzstd(std::string_view in) {
  std::unique_ptr<ZSTD_DCtx, decltype(&ZSTD_freeDCtx)> ctx(ZSTD_createDCtx(), ZSTD_freeDCtx);
  if (!ctx) return nutchfs::Err(Status::IOError("cannot initialize zstd"));
  ZSTD_inBuffer input{in.data(), in.size(), 0};
  std::string out;
  char buf[1 << 15];
  size_t rc = 0;
  while (input.pos < input.size || rc > 0) {
    ZSTD_outBuffer output{buf, sizeof(buf), 0};
    const size_t before = input.pos;
    rc = ZSTD_decompressStream(ctx.get(), &output, &input);
    if (ZSTD_isError(rc)) {
      return nutchfs::Err(
          Status::Corruption(std::string("body does not decode (zstd): ") + ZSTD_getErrorName(rc)));
    }
    out.append(buf, output.pos);
    if (out.size() > kMaxDecodedBody) return nutchfs::Err(TooLarge());
    // No input taken and no output made: the frame needs bytes the body does not have.
    if (rc > 0 && input.pos == before && output.pos == 0) {
      return nutchfs::Err(Status::Corruption("body does not decode (zstd): truncated stream"));
    }
  }
  return out;
}

}  // namespace

std::string_view HttpResponse::Header(std::string_view name) const {
  for (const auto& [key, value] : headers) {
    if (EqualsNoCase(key, name)) return value;
  }
  return {};
}

std::string HttpResponse::MediaType() const {
  std::string_view type = Header("Content-Type");
  return Lower(Trim(type.substr(0, type.find(';'))));
}

bool HttpResponse::IsHtml() const {
  std::string type = MediaType();
  return type == "text/html" || type == "application/xhtml+xml";
}

Result<std::string> DecodeContent(std::string_view encoding, std::string_view body) {
  std::string enc = Lower(Trim(encoding));
  if (enc.empty() || enc == "identity") return std::string(body);
  if (enc == "gzip" || enc == "x-gzip") return Inflate(body, 16 + MAX_WBITS);
  if (enc == "deflate") {
    auto zlib = Inflate(body, MAX_WBITS);
    return zlib ? zlib : Inflate(body, -MAX_WBITS);
  }
  if (enc == "br") return Unbrotli(body);
  if (enc == "zstd") return Unzstd(body);
  return nutchfs::Err(Status::Corruption("unsupported Content-Encoding '" + enc + "'"));
}

Result<std::string> Dechunk(std::string_view body) {
  std::string out;
  std::string_view line;
  while (true) {
    if (!NextLine(&body, &line)) return nutchfs::Err(Status::Corruption("truncated chunked body"));
    std::string_view size_text = Trim(line.substr(0, line.find(';')));
    uint64_t size = 0;
    auto [p, ec] = std::from_chars(size_text.data(), size_text.data() + size_text.size(), size, 16);
    if (size_text.empty() || ec != std::errc() || p != size_text.data() + size_text.size()) {
      return nutchfs::Err(
          Status::Corruption("bad chunk size '" + std::string(line.substr(0, 40)) + "'"));
    }
    if (size == 0) return out;  // trailer fields, if any, are ignored
    if (size > body.size()) return nutchfs::Err(Status::Corruption("truncated chunk"));
    out.append(body.substr(0, size));
    body.remove_prefix(size);
    if (!NextLine(&body, &line) || !line.empty()) {
      return nutchfs::Err(Status::Corruption("chunk not followed by CRLF"));
    }
  }
}

Result<HttpResponse> ParseHttpResponse(std::string_view block) {
  HttpResponse response;
  std::string_view line;
  // HTTP/1.x SP 3DIGIT [SP reason]: a fourth digit is no status this reader may guess.
  const bool read = NextLine(&block, &line);
  auto digit = [&line](size_t i) { return line[i] >= '0' && line[i] <= '9'; };
  if (!read || line.size() < 12 || line.substr(0, 7) != "HTTP/1." || !digit(7) ||
      line[8] != ' ' || !digit(9) || !digit(10) || !digit(11) || line[9] == '0' ||
      (line.size() > 12 && line[12] != ' ')) {
    return nutchfs::Err(Status::Corruption("bad HTTP status line '" +
                                           std::string(line.substr(0, 60)) + "'"));
  }
  response.status = (line[9] - '0') * 100 + (line[10] - '0') * 10 + (line[11] - '0');
  while (true) {
    if (!NextLine(&block, &line)) return nutchfs::Err(Status::Corruption("truncated HTTP header"));
    if (line.empty()) break;
    if ((line.front() == ' ' || line.front() == '\t') && !response.headers.empty()) {
      response.headers.back().second += " ";
      response.headers.back().second += Trim(line);
      continue;
    }
    size_t colon = line.find(':');
    if (colon == std::string_view::npos || colon == 0) {
      return nutchfs::Err(Status::Corruption("bad HTTP header line '" +
                                             std::string(line.substr(0, 60)) + "'"));
    }
    response.headers.emplace_back(std::string(Trim(line.substr(0, colon))),
                                  std::string(Trim(line.substr(colon + 1))));
  }
  std::string body;
  if (Lower(response.Header("Transfer-Encoding")).find("chunked") != std::string::npos) {
    NUTCHFS_ASSIGN_OR_RETURN(body, Dechunk(block));
  } else {
    body = std::string(block);
  }
  NUTCHFS_ASSIGN_OR_RETURN(response.body, DecodeContent(response.Header("Content-Encoding"), body));
  return response;
}

}  // namespace crawl
