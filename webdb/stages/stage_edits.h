// The edits that flow into and between the five merge stages: their kinds, their value
// layouts and their order numbers. See docs/DESIGN.md for the whole pipeline.
//
//   stage 1 pagesByURL  <- calls          key url            kinds kAddPage..kDeletePage
//   stage 2 pagesByMD5  <- stage 1        key md5+url        kPut / kRemove
//   stage 3 linksByMD5  <- calls, stage 1 key from+url       kPut
//   stage 4 linksByURL  <- stage 3        key url+0+from     kPut / kRemove
//   stage 5 linksByMD5  <- stage 4        key from+url       kRemove / kSetFlag
//
// Order numbers make every tie deterministic. Calls get (writer << 40 | call index), so
// all of writer 0's calls come before writer 1's (the spec's distributed order). Links
// carried by inserted addPageIfNotPresent calls come after every addLink call, in url
// order of their page: (1 << 63 | url section << 40 | index within the section).
// Pure functions; thread-safe.
#ifndef WEBDB_STAGES_STAGE_EDITS_H_
#define WEBDB_STAGES_STAGE_EDITS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "webdb/table/record.h"

namespace webdb {

// Kinds of stage 1 edits, valued by rank: among calls for one url the lowest kind wins,
// then the earliest order.
enum PageOp : uint8_t { kAddPage = 0, kAddPageWithScore = 1, kAddPageIfNotPresent = 2, kDeletePage = 3 };

// Kinds of the edits between stages.
enum EditKind : uint8_t { kPut = 0, kRemove = 1, kSetFlag = 2 };

constexpr int kOrderIndexBits = 40;
constexpr uint64_t kMaxCallsPerWriter = uint64_t{1} << kOrderIndexBits;
constexpr uint64_t kInsertedLinkOrderBit = uint64_t{1} << 63;

inline uint64_t CallOrder(uint64_t writer, uint64_t index) {
  return writer << kOrderIndexBits | index;
}
inline uint64_t InsertedLinkOrder(uint64_t url_section, uint64_t index) {
  return kInsertedLinkOrderBit | url_section << kOrderIndexBits | index;
}

// Stage 1 edit value: the page (as a pagesByURL value) and, for addPageIfNotPresent
// with a link, the link (from, url, fields). Empty for kDeletePage.
void EncodePageCall(const Page& page, const Link* link, std::string* out);
struct PageCall {
  Page page;
  std::optional<Link> link;
};
Result<PageCall> DecodePageCall(std::string_view url, std::string_view value);

// The numOutlinks > 0 status of a page, read from a pagesByURL value.
Result<bool> HasOutlinks(std::string_view pages_by_url_value);

}  // namespace webdb

#endif  // WEBDB_STAGES_STAGE_EDITS_H_
