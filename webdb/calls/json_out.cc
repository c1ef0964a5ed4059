#include "webdb/calls/json_out.h"

#include <charconv>
#include <cmath>

#include "webdb/util/coding.h"

namespace webdb {
namespace {

void AppendEscapedByte(uint8_t c, std::string* out) {
  static const char kHex[] = "0123456789abcdef";
  const char esc[6] = {'\\', 'u', '0', '0', kHex[c >> 4], kHex[c & 15]};
  out->append(esc, 6);
}

bool IsContinuation(uint8_t c) { return (c & 0xc0) == 0x80; }

// Length of the well-formed UTF-8 sequence (Unicode table 3-7) starting s[0], whose
// lead byte is >= 0x80; 0 if the bytes there are not one.
size_t Utf8SequenceLength(std::string_view s) {
  auto b = [&](size_t i) { return static_cast<uint8_t>(s[i]); };
  uint8_t c = b(0);
  size_t len;
  uint8_t lo = 0x80, hi = 0xbf;  // allowed range of the second byte
  if (c >= 0xc2 && c <= 0xdf) {
    len = 2;
  } else if (c >= 0xe0 && c <= 0xef) {
    len = 3;
    if (c == 0xe0) lo = 0xa0;  // no overlong forms
    if (c == 0xed) hi = 0x9f;  // no surrogates
  } else if (c >= 0xf0 && c <= 0xf4) {
    len = 4;
    if (c == 0xf0) lo = 0x90;  // no overlong forms
    if (c == 0xf4) hi = 0x8f;  // nothing above U+10FFFF
  } else {
    return 0;
  }
  if (s.size() < len || b(1) < lo || b(1) > hi) return 0;
  for (size_t i = 2; i < len; ++i) {
    if (!IsContinuation(b(i))) return 0;
  }
  return len;
}

// Printable ASCII other than '"' and '\': copied as is.
bool IsPlain(uint8_t c) { return c >= 0x20 && c < 0x80 && c != '"' && c != '\\'; }

// The end of the run of plain bytes of s starting at i: sixteen bytes a step
// (webdb/util/coding.h, Bytes16), then byte by byte.
size_t PlainRunEnd(std::string_view s, size_t i) {
  for (; i + 16 <= s.size(); i += 16) {
    const Bytes16 v = LoadBytes16(s.data() + i);
    const size_t special = FirstSetLane((v < 0x20) | (v >= 0x80) | (v == '"') | (v == '\\'));
    if (special < 16) return i + special;
  }
  while (i < s.size() && IsPlain(static_cast<uint8_t>(s[i]))) ++i;
  return i;
}

template <typename Int>
void AppendInt(Int v, std::string* out) {
  char buf[24];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), v);
  out->append(buf, end);
}

void AppendMd5(const Md5& md5, std::string* out) {
  out->push_back('"');
  out->append(Md5Hex(md5));
  out->push_back('"');
}

}  // namespace

void AppendJsonString(std::string_view s, std::string* out) {
  out->push_back('"');
  size_t i = 0;
  while (i < s.size()) {
    const size_t run = PlainRunEnd(s, i);
    out->append(s.data() + i, run - i);
    i = run;
    if (i == s.size()) break;
    auto c = static_cast<uint8_t>(s[i]);
    if (c == '"' || c == '\\') {
      out->push_back('\\');
      out->push_back(static_cast<char>(c));
      ++i;
    } else if (size_t len = c >= 0x80 ? Utf8SequenceLength(s.substr(i)) : 0; len > 0) {
      out->append(s.data() + i, len);
      i += len;
    } else {
      AppendEscapedByte(c, out);  // a control byte or a byte outside valid UTF-8
      ++i;
    }
  }
  out->push_back('"');
}

void AppendJsonFloat(float value, std::string* out) {
  if (!std::isfinite(value)) {
    out->append("null");
    return;
  }
  char buf[32];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), value);
  out->append(buf, end);
}

void AppendPageJson(const Page& page, std::string* out) {
  out->append("{\"url\":");
  AppendJsonString(page.url, out);
  out->append(",\"md5\":");
  AppendMd5(page.md5, out);
  out->append(",\"nextFetch\":");
  AppendInt(page.next_fetch, out);
  out->append(",\"retries\":");
  AppendInt(static_cast<unsigned>(page.retries), out);
  out->append(",\"fetchInterval\":");
  AppendInt(static_cast<unsigned>(page.fetch_interval), out);
  out->append(",\"numOutlinks\":");
  AppendInt(page.num_outlinks, out);
  out->append(",\"score\":");
  AppendJsonFloat(page.score, out);
  out->append(",\"nextScore\":");
  AppendJsonFloat(page.next_score, out);
  out->push_back('}');
}

void AppendLinkJson(const Link& link, std::string* out) {
  out->append("{\"from\":");
  AppendMd5(link.from, out);
  out->append(",\"url\":");
  AppendJsonString(link.url, out);
  out->append(",\"domainID\":");
  AppendInt(link.domain_id, out);
  out->append(",\"anchor\":");
  AppendJsonString(link.anchor, out);
  out->append(link.target_has_outlink ? ",\"targetHasOutlink\":true}"
                                      : ",\"targetHasOutlink\":false}");
}

void AppendStatsJson(const DbStats& stats, std::string* out) {
  out->append("{\"pages\":");
  AppendInt(stats.pages, out);
  out->append(",\"links\":");
  AppendInt(stats.links, out);
  out->push_back('}');
}

void AppendCallJson(const Call& call, std::string* out) {
  out->append("{\"op\":\"");
  out->append(CallOpName(call.op));
  out->push_back('"');
  if (call.op == Call::Op::kDeletePage) {
    out->append(",\"url\":");
    AppendJsonString(call.url, out);
  } else if (call.op != Call::Op::kAddLink) {
    out->append(",\"page\":");
    AppendPageJson(call.page, out);
  }
  if (call.link && (call.op == Call::Op::kAddLink || call.op == Call::Op::kAddPageIfNotPresent)) {
    out->append(",\"link\":");
    AppendLinkJson(*call.link, out);
  }
  out->push_back('}');
}

}  // namespace webdb
