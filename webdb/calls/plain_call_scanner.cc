#include "webdb/calls/plain_call_scanner.h"

#include <simdjson.h>

#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>

#include "webdb/calls/call_fields.h"
#include "webdb/util/coding.h"

namespace webdb {
namespace {

// Reads tokens front to back; every method returns false (and may leave the position
// anywhere) when the text is not what it wants, and the caller gives up on the line.
class Scanner {
 public:
  explicit Scanner(std::string_view text) : p_(text.data()), end_(text.data() + text.size()) {}

  bool AtEnd() {
    SkipSpace();
    return p_ == end_;
  }
  bool Consume(char c) {
    SkipSpace();
    if (p_ == end_ || *p_ != c) return false;
    ++p_;
    return true;
  }
  // A string without escapes or bytes below 0x20: a view of its bytes.
  bool String(std::string_view* out) {
    if (!Consume('"')) return false;
    const char* start = p_;
    SkipPlainBytes();
    for (; p_ < end_; ++p_) {
      const unsigned char c = static_cast<unsigned char>(*p_);
      if (c == '"') break;
      if (c == '\\' || c < 0x20) return false;
    }
    if (p_ == end_) return false;
    *out = std::string_view(start, static_cast<size_t>(p_ - start));
    ++p_;
    return true;
  }
  // 0 or -?[1-9][0-9]{0,18} that fits in int64_t, within lo..hi, then a delimiter.
  bool Int(int64_t lo, int64_t hi, int64_t* out) {
    SkipSpace();
    const bool negative = p_ < end_ && *p_ == '-';
    if (negative) ++p_;
    if (p_ == end_ || *p_ < '0' || *p_ > '9' || (*p_ == '0' && negative)) return false;
    uint64_t magnitude = 0;  // 19 digits always fit
    if (*p_ == '0') {
      ++p_;
    } else {
      for (int digits = 0; p_ < end_ && *p_ >= '0' && *p_ <= '9'; ++p_) {
        if (++digits > 19) return false;
        magnitude = magnitude * 10 + static_cast<uint64_t>(*p_ - '0');
      }
    }
    const uint64_t limit = uint64_t{std::numeric_limits<int64_t>::max()} + (negative ? 1 : 0);
    if (magnitude > limit) return false;
    const int64_t v =
        negative ? static_cast<int64_t>(0 - magnitude) : static_cast<int64_t>(magnitude);
    if (v < lo || v > hi || !BeforeDelimiter()) return false;
    *out = v;
    return true;
  }
  // A JSON number of at most 64 bytes that rounds to a finite float without over- or
  // underflow, then a delimiter.
  bool Float(float* out) {
    SkipSpace();
    const char* start = p_;
    if (p_ < end_ && *p_ == '-') ++p_;
    if (p_ < end_ && *p_ == '0') {
      ++p_;
    } else if (!Digits()) {
      return false;
    }
    if (p_ < end_ && *p_ == '.' && (++p_, !Digits())) return false;
    if (p_ < end_ && (*p_ == 'e' || *p_ == 'E')) {
      ++p_;
      if (p_ < end_ && (*p_ == '+' || *p_ == '-')) ++p_;
      if (!Digits()) return false;
    }
    if (p_ - start > 64 || !BeforeDelimiter()) return false;
    float x;
    auto [end, ec] = std::from_chars(start, p_, x);
    if (ec != std::errc() || end != p_ || !std::isfinite(x)) return false;
    *out = x;
    return true;
  }
  bool Bool() {
    SkipSpace();
    for (std::string_view word : {std::string_view("true"), std::string_view("false")}) {
      if (std::string_view(p_, static_cast<size_t>(end_ - p_)).starts_with(word)) {
        p_ += word.size();
        return BeforeDelimiter();
      }
    }
    return false;
  }

 private:
  // Moves sixteen bytes a step (webdb/util/coding.h, Bytes16) over bytes that
  // are not '"', '\' or below 0x20 (the bytes where a string ends or the scanner gives
  // up), up to the first such byte, or to fewer than sixteen bytes before the end.
  void SkipPlainBytes() {
    while (end_ - p_ >= 16) {
      const Bytes16 v = LoadBytes16(p_);
      const size_t special = FirstSetLane((v < 0x20) | (v == '"') | (v == '\\'));
      p_ += special;
      if (special < 16) return;
    }
  }
  void SkipSpace() {
    // Every byte above ' ' ends it at once, so the common case is one comparison.
    while (p_ < end_ && static_cast<unsigned char>(*p_) <= ' ' &&
           (*p_ == ' ' || *p_ == '\t' || *p_ == '\r')) {
      ++p_;
    }
  }
  // One or more digits.
  bool Digits() {
    const char* start = p_;
    while (p_ < end_ && *p_ >= '0' && *p_ <= '9') ++p_;
    return p_ > start;
  }
  bool BeforeDelimiter() {
    SkipSpace();
    return p_ < end_ && (*p_ == ',' || *p_ == '}');
  }

  const char* p_;
  const char* const end_;
};

// The index of key in names, or -1.
template <size_t N>
int FieldIndex(std::string_view key, const std::string_view (&names)[N]) {
  for (size_t i = 0; i < N; ++i) {
    if (names[i] == key) return static_cast<int>(i);
  }
  return -1;
}

// Calls field(index) for each field of an object, each name at most once; the set of
// fields seen, or nullopt.
template <size_t N, typename Fn>
std::optional<uint32_t> Fields(Scanner& s, const std::string_view (&names)[N], Fn&& field) {
  if (!s.Consume('{')) return std::nullopt;
  uint32_t seen = 0;
  do {
    std::string_view key;
    if (!s.String(&key) || !s.Consume(':')) return std::nullopt;
    const int i = FieldIndex(key, names);
    if (i < 0 || (seen & (1u << i)) || !field(i)) return std::nullopt;
    seen |= 1u << i;
  } while (s.Consume(','));
  if (!s.Consume('}')) return std::nullopt;
  return seen;
}

bool Url(Scanner& s, std::string* out) {
  std::string_view url;
  if (!s.String(&url) || !ValidateUrl(url).ok()) return false;
  out->assign(url);
  return true;
}

bool Md5Field(Scanner& s, Md5* out) {
  std::string_view hex;
  if (!s.String(&hex)) return false;
  auto md5 = ParseMd5Hex(hex);
  if (!md5) return false;
  *out = *md5;
  return true;
}

template <typename T>
bool IntField(Scanner& s, int64_t lo, int64_t hi, T* out) {
  int64_t v;
  if (!s.Int(lo, hi, &v)) return false;
  *out = static_cast<T>(v);
  return true;
}

constexpr int64_t kInt64Min = std::numeric_limits<int64_t>::min();
constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();

bool ScanPage(Scanner& s, Page* page) {
  auto field = [&](int i) {
    switch (i) {
      case kPageUrl: return Url(s, &page->url);
      case kPageMd5: return Md5Field(s, &page->md5);
      case kNextFetch: return IntField(s, kInt64Min, kInt64Max, &page->next_fetch);
      case kRetries: return IntField(s, 0, kMaxRetries, &page->retries);
      case kFetchInterval: return IntField(s, 0, kMaxFetchInterval, &page->fetch_interval);
      case kNumOutlinks: return IntField(s, 0, kMaxNumOutlinks, &page->num_outlinks);
      case kScore: return s.Float(&page->score);
      default: return s.Float(&page->next_score);
    }
  };
  auto seen = Fields(s, kPageFieldNames, field);
  if (!seen || !(*seen & (1u << kPageUrl))) return false;
  if (!(*seen & (1u << kPageMd5))) page->md5 = Md5Of(page->url);
  return true;
}

bool ScanLink(Scanner& s, Link* link) {
  auto field = [&](int i) {
    switch (i) {
      case kLinkFrom: return Md5Field(s, &link->from);
      case kLinkUrl: return Url(s, &link->url);
      case kAnchor: {
        std::string_view anchor;
        if (!s.String(&anchor) || anchor.size() > kMaxAnchorLength) return false;
        link->anchor.assign(anchor);
        return true;
      }
      case kDomainId: return IntField(s, kInt64Min, kInt64Max, &link->domain_id);
      default: return s.Bool();  // ignored: the db computes it
    }
  };
  auto seen = Fields(s, kLinkFieldNames, field);
  constexpr uint32_t kRequired = 1u << kLinkFrom | 1u << kLinkUrl;
  return seen && (*seen & kRequired) == kRequired;
}

bool ScanOp(Scanner& s, Call::Op* op) {
  std::string_view name;
  if (!s.String(&name)) return false;
  for (Call::Op o : {Call::Op::kAddPage, Call::Op::kAddLink, Call::Op::kAddPageWithScore,
                     Call::Op::kAddPageIfNotPresent, Call::Op::kDeletePage}) {
    if (name == CallOpName(o)) {
      *op = o;
      return true;
    }
  }
  return false;
}

}  // namespace

bool ScanPlainCall(std::string_view line, Call* call) {
  if (!simdjson::validate_utf8(line.data(), line.size())) return false;
  Scanner s(line);
  // Back to the defaults; assigning empty strings keeps their storage.
  call->op = Call::Op::kAddPage;
  call->page = Page();
  call->url.clear();
  auto field = [&](int i) {
    switch (i) {
      case kOp: return ScanOp(s, &call->op);
      case kCallPage: return ScanPage(s, &call->page);
      case kCallLink:
        if (call->link) {
          *call->link = Link();
        } else {
          call->link.emplace();
        }
        return ScanLink(s, &*call->link);
      default: return Url(s, &call->url);
    }
  };
  auto seen = Fields(s, kCallFieldNames, field);
  if (!seen || !s.AtEnd() || !(*seen & (1u << kOp))) return false;
  if (!(*seen & (1u << kCallLink))) call->link.reset();
  const auto [required, allowed] = ShapeOf(call->op);
  const uint32_t fields = *seen & ~(1u << kOp);
  return (fields & required) == required && (fields & ~allowed) == 0;
}

}  // namespace webdb
