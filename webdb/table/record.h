// Pages and links, and how they are laid out as keys and values in the four tables.
//
// Every table is ordered by plain bytewise comparison of its keys:
//   pagesByURL  key = url                      value = md5 + PageFields
//   pagesByMD5  key = md5 + url                value = PageFields
//   linksByMD5  key = from + url               value = LinkFields
//   linksByURL  key = url + '\0' + from        value = LinkFields
// A url never contains NUL, so url + '\0' sorts every url before its extensions, which
// makes bytewise order of linksByURL keys equal (url, from) order. See docs/FORMAT.md.
#ifndef WEBDB_TABLE_RECORD_H_
#define WEBDB_TABLE_RECORD_H_

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "nutchfs/status.h"

namespace webdb {

using nutchfs::Err;
using nutchfs::Result;
using nutchfs::Status;

using Md5 = std::array<uint8_t, 16>;

inline std::string_view Md5Bytes(const Md5& md5) {
  return {reinterpret_cast<const char*>(md5.data()), md5.size()};
}
Md5 Md5FromBytes(std::string_view bytes);  // REQUIRES: bytes.size() == 16
Md5 Md5Of(std::string_view data);          // MD5 digest of data
std::string Md5Hex(const Md5& md5);        // 32 lowercase hex digits
Result<Md5> ParseMd5Hex(std::string_view hex);

constexpr size_t kMaxUrlLength = 65535;
constexpr size_t kMaxAnchorLength = 65535;

struct Page {
  std::string url;
  Md5 md5{};
  int64_t next_fetch = 0;
  uint8_t retries = 0;
  uint8_t fetch_interval = 30;
  int32_t num_outlinks = 0;
  float score = 1.0f;
  float next_score = 1.0f;

  // A page at url with every field at its documented default (md5 = MD5 of the url).
  static Page WithDefaults(std::string url);
  bool operator==(const Page&) const = default;
};

struct Link {
  Md5 from{};
  std::string url;
  int64_t domain_id = 0;
  std::string anchor;
  bool target_has_outlink = false;

  bool operator==(const Link&) const = default;
};

// OK if url is 1..65535 bytes with no NUL and no ASCII control character.
Status ValidateUrl(std::string_view url);
Status ValidatePage(const Page& page);
Status ValidateLink(const Link& link);

enum class TableId : uint8_t { kPagesByUrl = 0, kPagesByMd5 = 1, kLinksByMd5 = 2, kLinksByUrl = 3 };
constexpr int kNumTables = 4;
const char* TableName(TableId t);  // "pagesByURL", ...
Result<TableId> ParseTableName(std::string_view name);

// Keys.
std::string PageUrlKey(std::string_view url);
std::string PageMd5Key(const Md5& md5, std::string_view url);
std::string LinkMd5Key(const Md5& from, std::string_view url);
// LinkMd5Key into *key, reusing its memory (the call log builds one per addLink).
void SetLinkMd5Key(const Md5& from, std::string_view url, std::string* key);
std::string LinkUrlKey(std::string_view url, const Md5& from);
// LinkUrlKey into *key, reusing its memory (the link stages build one per edit they emit).
void SetLinkUrlKey(std::string_view url, const Md5& from, std::string* key);

// Values. Encode* append to *out.
void EncodePageByUrlValue(const Page& page, std::string* out);
void EncodePageByMd5Value(const Page& page, std::string* out);
void EncodeLinkValue(const Link& link, std::string* out);

// Decoding a (key, value) row of the named table. Corruption on malformed bytes, naming
// the table and the key ("pagesByURL key http://a.example/: page has negative ...").
Result<Page> DecodePageByUrl(std::string_view key, std::string_view value);
Result<Page> DecodePageByMd5(std::string_view key, std::string_view value);
Result<Link> DecodeLinkByMd5(std::string_view key, std::string_view value);
Result<Link> DecodeLinkByUrl(std::string_view key, std::string_view value);
// Either page table / either link table, chosen by t.
Result<Page> DecodePage(TableId t, std::string_view key, std::string_view value);
Result<Link> DecodeLink(TableId t, std::string_view key, std::string_view value);
// The row of a page in either page table, or of a link in either link table, chosen by t:
// the inverse of DecodePage / DecodeLink. *key is replaced, the value appended to *value.
void EncodePage(TableId t, const Page& page, std::string* key, std::string* value);
void EncodeLink(TableId t, const Link& link, std::string* key, std::string* value);

// "key <printable key>" for a row of table t: md5s in hex, other bytes printable ASCII
// as is and the rest as \xNN, cut after 200 characters.
std::string DescribeKey(TableId t, std::string_view key);
// s with "<table> key <printable key>" before its message: an error about a row of t.
Status RowError(TableId t, std::string_view key, const Status& s);

// The url inside a linksByURL key, and the md5 inside an MD5-table key.
std::string_view UrlOfLinkUrlKey(std::string_view key);
std::string_view Md5OfKey(std::string_view key);  // first 16 bytes

}  // namespace webdb

#endif  // WEBDB_TABLE_RECORD_H_
