#include "webdb/table/record.h"

#include <openssl/evp.h>

#include <cstring>

#include <fmt/format.h>

#include "webdb/util/coding.h"

namespace webdb {
namespace {

constexpr size_t kMaxShown = 200;

std::string Printable(std::string_view bytes) {
  std::string out;
  for (char c : bytes) {
    if (out.size() >= kMaxShown) return out + "...";
    auto u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u < 0x7f && u != '\\') {
      out.push_back(c);
    } else {
      out += fmt::format("\\x{:02x}", u);
    }
  }
  return out;
}

std::string Md5Part(std::string_view key) {
  if (key.size() < 16) return Printable(key);
  return Md5Hex(Md5FromBytes(key.substr(0, 16)));
}

constexpr size_t kPageFieldsSize = 8 + 1 + 1 + 4 + 4 + 4;

void EncodePageFields(const Page& p, std::string* out) {
  PutFixed64(out, static_cast<uint64_t>(p.next_fetch));
  out->push_back(static_cast<char>(p.retries));
  out->push_back(static_cast<char>(p.fetch_interval));
  PutFixed32(out, static_cast<uint32_t>(p.num_outlinks));
  uint32_t bits;
  std::memcpy(&bits, &p.score, 4);
  PutFixed32(out, bits);
  std::memcpy(&bits, &p.next_score, 4);
  PutFixed32(out, bits);
}

Status DecodePageFields(std::string_view v, Page* p) {
  if (v.size() != kPageFieldsSize) {
    return Status::Corruption("page value has " + std::to_string(v.size()) + " bytes, expected " +
                              std::to_string(kPageFieldsSize));
  }
  const char* d = v.data();
  p->next_fetch = static_cast<int64_t>(DecodeFixed64(d));
  p->retries = static_cast<uint8_t>(d[8]);
  p->fetch_interval = static_cast<uint8_t>(d[9]);
  p->num_outlinks = static_cast<int32_t>(DecodeFixed32(d + 10));
  uint32_t bits = DecodeFixed32(d + 14);
  std::memcpy(&p->score, &bits, 4);
  bits = DecodeFixed32(d + 18);
  std::memcpy(&p->next_score, &bits, 4);
  if (p->num_outlinks < 0) return Status::Corruption("page has negative numOutlinks");
  return Status::OK();
}

Status DecodeLinkFields(std::string_view v, Link* l) {
  uint64_t domain;
  std::string_view anchor;
  if (v.empty() || !GetVarint64(&v, &domain) || !GetLengthPrefixed(&v, &anchor) ||
      v.size() != 1 || static_cast<uint8_t>(v[0]) > 1) {
    return Status::Corruption("malformed link value");
  }
  l->domain_id = static_cast<int64_t>(domain);
  l->anchor.assign(anchor);
  l->target_has_outlink = v[0] == 1;
  return Status::OK();
}

Status CheckKeyUrl(std::string_view url) {
  Status s = ValidateUrl(url);
  if (!s.ok()) return Status::Corruption("bad url in key: " + s.message());
  return Status::OK();
}

// Whether some byte is < 0x20 or 0x7f, sixteen bytes a step (every url of a call is
// checked, some twice); the caller finds which one.
bool HasControlByte(std::string_view s) {
  auto flagged = [](Bytes16 v) -> Bytes16 { return (v < 0x20) | (v == 0x7f); };
  Bytes16 any = {};
  size_t i = 0;
  for (; i + 16 <= s.size(); i += 16) any |= flagged(LoadBytes16(s.data() + i));
  char tail[16];
  std::memset(tail, 'a', sizeof tail);  // padding that is never flagged
  std::memcpy(tail, s.data() + i, s.size() - i);
  return AnyLane(any | flagged(LoadBytes16(tail)));
}

Result<Page> DecodePageByUrlFields(std::string_view key, std::string_view value) {
  NUTCHFS_RETURN_IF_ERROR(CheckKeyUrl(key));
  if (value.size() < 16) return Err(Status::Corruption("pagesByURL value too short"));
  Page p;
  p.url.assign(key);
  p.md5 = Md5FromBytes(value.substr(0, 16));
  NUTCHFS_RETURN_IF_ERROR(DecodePageFields(value.substr(16), &p));
  return p;
}

Result<Page> DecodePageByMd5Fields(std::string_view key, std::string_view value) {
  if (key.size() < 17) return Err(Status::Corruption("pagesByMD5 key too short"));
  NUTCHFS_RETURN_IF_ERROR(CheckKeyUrl(key.substr(16)));
  Page p;
  p.md5 = Md5FromBytes(key.substr(0, 16));
  p.url.assign(key.substr(16));
  NUTCHFS_RETURN_IF_ERROR(DecodePageFields(value, &p));
  return p;
}

Result<Link> DecodeLinkByMd5Fields(std::string_view key, std::string_view value) {
  if (key.size() < 17) return Err(Status::Corruption("linksByMD5 key too short"));
  NUTCHFS_RETURN_IF_ERROR(CheckKeyUrl(key.substr(16)));
  Link l;
  l.from = Md5FromBytes(key.substr(0, 16));
  l.url.assign(key.substr(16));
  NUTCHFS_RETURN_IF_ERROR(DecodeLinkFields(value, &l));
  return l;
}

Result<Link> DecodeLinkByUrlFields(std::string_view key, std::string_view value) {
  if (key.size() < 18 || key[key.size() - 17] != '\0') {
    return Err(Status::Corruption("malformed linksByURL key"));
  }
  NUTCHFS_RETURN_IF_ERROR(CheckKeyUrl(key.substr(0, key.size() - 17)));
  Link l;
  l.url.assign(key.substr(0, key.size() - 17));
  l.from = Md5FromBytes(key.substr(key.size() - 16));
  NUTCHFS_RETURN_IF_ERROR(DecodeLinkFields(value, &l));
  return l;
}

// r, its error (if any) prefixed with "<table> key <printable key>".
template <typename T>
Result<T> OfRow(TableId t, std::string_view key, Result<T> r) {
  if (!r) return Err(RowError(t, key, r.error()));
  return r;
}

}  // namespace

Md5 Md5FromBytes(std::string_view bytes) {
  Md5 m;
  std::memcpy(m.data(), bytes.data(), 16);
  return m;
}

Md5 Md5Of(std::string_view data) {
  Md5 m;
  unsigned int len = 0;
  EVP_Digest(data.data(), data.size(), m.data(), &len, EVP_md5(), nullptr);
  return m;
}

std::string Md5Hex(const Md5& md5) {
  static const char kHex[] = "0123456789abcdef";
  std::string s(32, '0');
  for (int i = 0; i < 16; ++i) {
    s[2 * i] = kHex[md5[i] >> 4];
    s[2 * i + 1] = kHex[md5[i] & 15];
  }
  return s;
}

Result<Md5> ParseMd5Hex(std::string_view hex) {
  if (hex.size() != 32) return Err(Status::InvalidArgument("md5 must be 32 lowercase hex digits"));
  // Each lane's nibble; bad gets all ones in a lane that is not a lowercase hex digit.
  Bytes16 bad = {};
  auto nibbles = [&bad](Bytes16 v) -> Bytes16 {
    const Bytes16 digit = (v >= '0') & (v <= '9');
    const Bytes16 letter = (v >= 'a') & (v <= 'f');
    bad |= ~(digit | letter);
    return v - ((digit & '0') | (letter & ('a' - 10)));
  };
  const Bytes16 a = nibbles(LoadBytes16(hex.data())), b = nibbles(LoadBytes16(hex.data() + 16));
  if (AnyLane(bad)) return Err(Status::InvalidArgument("md5 must be 32 lowercase hex digits"));
  const Bytes16 high =
      __builtin_shufflevector(a, b, 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
  const Bytes16 low =
      __builtin_shufflevector(a, b, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
  const Bytes16 bytes = (high << 4) | low;
  Md5 m;
  std::memcpy(m.data(), &bytes, 16);
  return m;
}

Page Page::WithDefaults(std::string url) {
  Page p;
  p.md5 = Md5Of(url);
  p.url = std::move(url);
  return p;
}

Status ValidateUrl(std::string_view url) {
  if (url.empty()) return Status::InvalidArgument("url is empty");
  if (url.size() > kMaxUrlLength) {
    return Status::InvalidArgument("url is " + std::to_string(url.size()) +
                                   " bytes, more than 65535");
  }
  if (!HasControlByte(url)) return Status::OK();
  for (size_t i = 0; i < url.size(); ++i) {
    auto c = static_cast<uint8_t>(url[i]);
    if (c < 0x20 || c == 0x7f) {
      return Status::InvalidArgument(fmt::format("url has control byte 0x{:02x} at offset {}", c, i));
    }
  }
  return Status::OK();
}

Status ValidatePage(const Page& page) {
  NUTCHFS_RETURN_IF_ERROR(ValidateUrl(page.url));
  if (page.num_outlinks < 0) return Status::InvalidArgument("numOutlinks is negative");
  return Status::OK();
}

Status ValidateLink(const Link& link) {
  NUTCHFS_RETURN_IF_ERROR(ValidateUrl(link.url));
  if (link.anchor.size() > kMaxAnchorLength) {
    return Status::InvalidArgument("anchor is more than 65535 bytes");
  }
  return Status::OK();
}

const char* TableName(TableId t) {
  switch (t) {
    case TableId::kPagesByUrl: return "pagesByURL";
    case TableId::kPagesByMd5: return "pagesByMD5";
    case TableId::kLinksByMd5: return "linksByMD5";
    case TableId::kLinksByUrl: return "linksByURL";
  }
  return "?";
}

Result<TableId> ParseTableName(std::string_view name) {
  for (int i = 0; i < kNumTables; ++i) {
    auto t = static_cast<TableId>(i);
    if (name == TableName(t)) return t;
  }
  return Err(Status::InvalidArgument(
      "unknown table '" + std::string(name) +
      "' (expected pagesByURL, pagesByMD5, linksByURL or linksByMD5)"));
}

std::string PageUrlKey(std::string_view url) { return std::string(url); }

std::string PageMd5Key(const Md5& md5, std::string_view url) {
  std::string k(Md5Bytes(md5));
  k.append(url);
  return k;
}

std::string LinkMd5Key(const Md5& from, std::string_view url) { return PageMd5Key(from, url); }

void SetLinkMd5Key(const Md5& from, std::string_view url, std::string* key) {
  key->assign(Md5Bytes(from));
  key->append(url);
}

std::string LinkUrlKey(std::string_view url, const Md5& from) {
  std::string k;
  SetLinkUrlKey(url, from, &k);
  return k;
}

void SetLinkUrlKey(std::string_view url, const Md5& from, std::string* key) {
  key->assign(url);
  key->push_back('\0');
  key->append(Md5Bytes(from));
}

void EncodePageByUrlValue(const Page& page, std::string* out) {
  out->append(Md5Bytes(page.md5));
  EncodePageFields(page, out);
}

void EncodePageByMd5Value(const Page& page, std::string* out) { EncodePageFields(page, out); }

void EncodeLinkValue(const Link& link, std::string* out) {
  PutVarint64(out, static_cast<uint64_t>(link.domain_id));
  PutLengthPrefixed(out, link.anchor);
  out->push_back(link.target_has_outlink ? 1 : 0);
}

Result<Page> DecodePageByUrl(std::string_view key, std::string_view value) {
  return OfRow(TableId::kPagesByUrl, key, DecodePageByUrlFields(key, value));
}

Result<Page> DecodePageByMd5(std::string_view key, std::string_view value) {
  return OfRow(TableId::kPagesByMd5, key, DecodePageByMd5Fields(key, value));
}

Result<Link> DecodeLinkByMd5(std::string_view key, std::string_view value) {
  return OfRow(TableId::kLinksByMd5, key, DecodeLinkByMd5Fields(key, value));
}

Result<Link> DecodeLinkByUrl(std::string_view key, std::string_view value) {
  return OfRow(TableId::kLinksByUrl, key, DecodeLinkByUrlFields(key, value));
}

Result<Page> DecodePage(TableId t, std::string_view key, std::string_view value) {
  return t == TableId::kPagesByUrl ? DecodePageByUrl(key, value) : DecodePageByMd5(key, value);
}

Result<Link> DecodeLink(TableId t, std::string_view key, std::string_view value) {
  return t == TableId::kLinksByMd5 ? DecodeLinkByMd5(key, value) : DecodeLinkByUrl(key, value);
}

void EncodePage(TableId t, const Page& page, std::string* key, std::string* value) {
  if (t == TableId::kPagesByUrl) {
    *key = PageUrlKey(page.url);
    EncodePageByUrlValue(page, value);
  } else {
    *key = PageMd5Key(page.md5, page.url);
    EncodePageByMd5Value(page, value);
  }
}

void EncodeLink(TableId t, const Link& link, std::string* key, std::string* value) {
  *key = t == TableId::kLinksByMd5 ? LinkMd5Key(link.from, link.url)
                                   : LinkUrlKey(link.url, link.from);
  EncodeLinkValue(link, value);
}

std::string_view UrlOfLinkUrlKey(std::string_view key) { return key.substr(0, key.size() - 17); }

std::string_view Md5OfKey(std::string_view key) { return key.substr(0, 16); }

Status RowError(TableId t, std::string_view key, const Status& s) {
  return s.WithContext(std::string(TableName(t)) + " " + DescribeKey(t, key));
}

std::string DescribeKey(TableId t, std::string_view key) {
  switch (t) {
    case TableId::kPagesByUrl:
      return "key " + Printable(key);
    case TableId::kPagesByMd5:
    case TableId::kLinksByMd5:
      return "key " + Md5Part(key) + " " + Printable(key.size() < 16 ? "" : key.substr(16));
    case TableId::kLinksByUrl: {
      if (key.size() < 17) return "key " + Printable(key);
      return "key " + Printable(key.substr(0, key.size() - 17)) + " from " +
             Md5Part(key.substr(key.size() - 16));
    }
  }
  return "key " + Printable(key);
}

}  // namespace webdb
