// The fields of a call line (webdb/calls/call_file.h) for both of its readers, CallParser and
// the plain-form scanner (webdb/calls/plain_call_scanner.h): names, ranges, and which fields
// each op takes. Field i of a list is bit i of a set of fields seen. Constants only.
#ifndef WEBDB_CALLS_CALL_FIELDS_H_
#define WEBDB_CALLS_CALL_FIELDS_H_

#include <cstdint>
#include <limits>
#include <string_view>

#include "webdb/calls/call_file.h"

namespace webdb {

inline constexpr std::string_view kPageFieldNames[] = {
    "url", "md5", "nextFetch", "retries", "fetchInterval", "numOutlinks", "score", "nextScore"};
enum PageField { kPageUrl, kPageMd5, kNextFetch, kRetries, kFetchInterval, kNumOutlinks, kScore,
                 kNextScore };

inline constexpr std::string_view kLinkFieldNames[] = {"from", "url", "anchor", "domainID",
                                                       "targetHasOutlink"};
enum LinkField { kLinkFrom, kLinkUrl, kAnchor, kDomainId, kTargetHasOutlink };

inline constexpr std::string_view kCallFieldNames[] = {"op", "page", "link", "url"};
enum CallField { kOp, kCallPage, kCallLink, kCallUrl };

// Ranges of the integer fields.
inline constexpr int64_t kMaxRetries = 255;
inline constexpr int64_t kMaxFetchInterval = 255;
inline constexpr int64_t kMaxNumOutlinks = std::numeric_limits<int32_t>::max();

// Which of page, link and url (as CallField bits) an op requires, and which it allows.
struct CallShape {
  uint32_t required = 0;
  uint32_t allowed = 0;
};
constexpr CallShape ShapeOf(Call::Op op) {
  constexpr uint32_t kPage = 1u << kCallPage, kLink = 1u << kCallLink, kUrl = 1u << kCallUrl;
  switch (op) {
    case Call::Op::kAddPage:
    case Call::Op::kAddPageWithScore: return {kPage, kPage};
    case Call::Op::kAddPageIfNotPresent: return {kPage, kPage | kLink};
    case Call::Op::kDeletePage: return {kUrl, kUrl};
    case Call::Op::kAddLink: return {kLink, kLink};
  }
  return {};
}

}  // namespace webdb

#endif  // WEBDB_CALLS_CALL_FIELDS_H_
