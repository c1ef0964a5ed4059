#include "webdb/calls/call_parser.h"

#include <simdjson.h>

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>

#include "webdb/calls/call_fields.h"
#include "webdb/calls/plain_call_scanner.h"

namespace webdb {
namespace {

namespace sj = simdjson::ondemand;

static_assert(CallParser::kPadding >= simdjson::SIMDJSON_PADDING);

Status Bad(std::string msg) { return Status::InvalidArgument(std::move(msg)); }

// "page.url", "link.from", "op", ...: how errors name a field.
struct FieldName {
  std::string_view object;  // empty at the top level
  std::string_view key;

  std::string str() const {
    return object.empty() ? std::string(key) : std::string(object) + "." + std::string(key);
  }
};

Status JsonError(std::string_view where, simdjson::error_code e) {
  std::string msg = "invalid JSON";
  if (!where.empty()) msg += " in " + std::string(where);
  return Bad(msg + ": " + simdjson::error_message(e));
}

// What a user wrote, shortened for an error message.
std::string Quote(std::string_view text) {
  constexpr size_t kMax = 40;
  if (text.size() <= kMax) return "\"" + std::string(text) + "\"";
  return "\"" + std::string(text.substr(0, kMax)) + "...\"";
}

const char* TypeName(sj::json_type t) {
  switch (t) {
    case sj::json_type::array: return "an array";
    case sj::json_type::object: return "an object";
    case sj::json_type::number: return "a number";
    case sj::json_type::string: return "a string";
    case sj::json_type::boolean: return "a bool";
    case sj::json_type::null: return "null";
  }
  return "?";
}

// OK if v has type want; else "FIELD: expected WHAT, got TYPE".
Status ExpectType(sj::value& v, sj::json_type want, const FieldName& f, std::string_view what) {
  sj::json_type t;
  if (auto e = v.type().get(t)) return JsonError(f.str(), e);
  if (t != want) return Bad(f.str() + ": expected " + std::string(what) + ", got " + TypeName(t));
  return Status::OK();
}

// The number token as written (simdjson includes trailing white space).
std::string_view NumberToken(sj::value& v) {
  std::string_view raw = v.raw_json_token();
  while (!raw.empty() && (raw.back() == ' ' || raw.back() == '\t' || raw.back() == '\r' ||
                          raw.back() == '\n')) {
    raw.remove_suffix(1);
  }
  return raw;
}

Result<int64_t> GetInt(sj::value& v, const FieldName& f, int64_t lo, int64_t hi) {
  NUTCHFS_RETURN_IF_ERROR(ExpectType(v, sj::json_type::number, f, "an integer"));
  std::string_view raw = NumberToken(v);
  int64_t x = 0;
  simdjson::error_code e = v.get_int64().get(x);
  auto out_of_range = [&] {
    return Bad(f.str() + ": " + std::string(raw) + " is out of range " + std::to_string(lo) +
               ".." + std::to_string(hi));
  };
  if (e == simdjson::INCORRECT_TYPE) {
    double d;
    if (auto e2 = v.get_double().get(d)) return Err(JsonError(f.str(), e2));
    if (raw.find_first_of(".eE") != std::string_view::npos) {
      return Err(Bad(f.str() + ": expected an integer, got " + std::string(raw)));
    }
    return Err(out_of_range());
  }
  if (e) return Err(JsonError(f.str(), e));
  if (x < lo || x > hi) return Err(out_of_range());
  return x;
}

// A float32 rounded directly from the decimal text (no detour through double, which
// could round twice), finite.
Result<float> GetFloat(sj::value& v, const FieldName& f) {
  NUTCHFS_RETURN_IF_ERROR(ExpectType(v, sj::json_type::number, f, "a number"));
  std::string_view raw = NumberToken(v);
  double d;
  if (v.get_double().get(d)) {
    return Err(Bad(f.str() + ": " + std::string(raw) +
                   " is not a valid JSON number within float32 range"));
  }
  float x;
  auto [end, ec] = std::from_chars(raw.data(), raw.data() + raw.size(), x);
  if (ec == std::errc::result_out_of_range && std::fabs(d) < 1) {
    x = static_cast<float>(d);  // underflow: the nearest subnormal or zero
  } else if (ec == std::errc::result_out_of_range || !std::isfinite(x)) {
    return Err(Bad(f.str() + ": " + std::string(raw) + " is out of float32 range"));
  } else if (ec != std::errc() || end != raw.data() + raw.size()) {
    return Err(Bad(f.str() + ": " + std::string(raw) + " is not a valid number"));
  }
  return x;
}

Result<std::string_view> GetString(sj::value& v, const FieldName& f) {
  NUTCHFS_RETURN_IF_ERROR(ExpectType(v, sj::json_type::string, f, "a string"));
  std::string_view s;
  if (auto e = v.get_string().get(s)) return Err(JsonError(f.str(), e));
  return s;
}

Result<std::string> GetUrl(sj::value& v, const FieldName& f) {
  NUTCHFS_ASSIGN_OR_RETURN(std::string_view s, GetString(v, f));
  Status st = ValidateUrl(s);
  if (!st.ok()) return Err(Bad(f.str() + ": " + st.message()));
  return std::string(s);
}

Result<Md5> GetMd5(sj::value& v, const FieldName& f) {
  NUTCHFS_ASSIGN_OR_RETURN(std::string_view s, GetString(v, f));
  auto md5 = ParseMd5Hex(s);
  if (!md5) return Err(Bad(f.str() + ": expected 32 lowercase hex digits, got " + Quote(s)));
  return *md5;
}

Result<bool> GetBool(sj::value& v, const FieldName& f) {
  NUTCHFS_RETURN_IF_ERROR(ExpectType(v, sj::json_type::boolean, f, "a bool"));
  bool b;
  if (auto e = v.get_bool().get(b)) return Err(JsonError(f.str(), e));
  return b;
}

// Stores a parsed value into its field.
template <typename T, typename U>
Status Assign(Result<U> r, T* out) {
  if (!r) return std::move(r).error();
  *out = static_cast<T>(std::move(*r));
  return Status::OK();
}

// The fields of one JSON object (webdb/calls/call_fields.h), each allowed once; `seen` has
// bit i for field i.
template <size_t N>
struct FieldTable {
  std::string_view object;
  const std::string_view (&names)[N];
};

constexpr FieldTable<8> kPageFields{"page", kPageFieldNames};
constexpr FieldTable<5> kLinkFields{"link", kLinkFieldNames};
constexpr FieldTable<4> kCallFields{"", kCallFieldNames};

// Calls fn(index, value, name) for every field of object v, rejecting unknown and
// repeated fields; returns the set of fields seen.
template <size_t N, typename Fn>
Result<uint32_t> ForEachField(sj::value& v, const FieldTable<N>& table, Fn&& fn) {
  FieldName whole{"", table.object.empty() ? std::string_view("call") : table.object};
  NUTCHFS_RETURN_IF_ERROR(ExpectType(v, sj::json_type::object, whole, "an object"));
  sj::object obj;
  if (auto e = v.get_object().get(obj)) return Err(JsonError(table.object, e));
  uint32_t seen = 0;
  for (auto field : obj) {
    std::string_view key;
    if (auto e = field.unescaped_key().get(key)) return Err(JsonError(table.object, e));
    size_t i = 0;
    while (i < N && table.names[i] != key) ++i;
    if (i == N || (seen & (1u << i))) {
      std::string where = table.object.empty() ? "" : std::string(table.object) + ": ";
      return Err(Bad(where + (i == N ? "unknown field " : "duplicate field ") + Quote(key)));
    }
    seen |= 1u << i;
    sj::value fv;
    if (auto e = field.value().get(fv)) return Err(JsonError(table.object, e));
    NUTCHFS_RETURN_IF_ERROR(fn(i, fv, FieldName{table.object, table.names[i]}));
  }
  return seen;
}

Status SetPageField(size_t i, sj::value& v, const FieldName& f, Page* p) {
  constexpr int64_t kInt64Min = std::numeric_limits<int64_t>::min();
  constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();
  switch (i) {
    case kPageUrl: return Assign(GetUrl(v, f), &p->url);
    case kPageMd5: return Assign(GetMd5(v, f), &p->md5);
    case kNextFetch: return Assign(GetInt(v, f, kInt64Min, kInt64Max), &p->next_fetch);
    case kRetries: return Assign(GetInt(v, f, 0, kMaxRetries), &p->retries);
    case kFetchInterval: return Assign(GetInt(v, f, 0, kMaxFetchInterval), &p->fetch_interval);
    case kNumOutlinks: return Assign(GetInt(v, f, 0, kMaxNumOutlinks), &p->num_outlinks);
    case kScore: return Assign(GetFloat(v, f), &p->score);
    case kNextScore: return Assign(GetFloat(v, f), &p->next_score);
  }
  return Status::OK();
}

Status SetLinkField(size_t i, sj::value& v, const FieldName& f, Link* l) {
  constexpr int64_t kInt64Min = std::numeric_limits<int64_t>::min();
  constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();
  switch (i) {
    case kLinkFrom: return Assign(GetMd5(v, f), &l->from);
    case kLinkUrl: return Assign(GetUrl(v, f), &l->url);
    case kAnchor: {
      NUTCHFS_ASSIGN_OR_RETURN(std::string_view s, GetString(v, f));
      if (s.size() > kMaxAnchorLength) {
        return Bad(f.str() + ": " + std::to_string(s.size()) + " bytes, more than 65535");
      }
      l->anchor.assign(s);
      break;
    }
    case kDomainId: return Assign(GetInt(v, f, kInt64Min, kInt64Max), &l->domain_id);
    case kTargetHasOutlink: {
      NUTCHFS_ASSIGN_OR_RETURN(bool ignored, GetBool(v, f));
      static_cast<void>(ignored);  // maintained by the db, never taken from input
      break;
    }
  }
  return Status::OK();
}

Result<Page> ParsePage(sj::value& v) {
  Page page;
  auto set = [&](size_t i, sj::value& fv, const FieldName& f) {
    return SetPageField(i, fv, f, &page);
  };
  NUTCHFS_ASSIGN_OR_RETURN(uint32_t seen, ForEachField(v, kPageFields, set));
  if (!(seen & (1u << kPageUrl))) return Err(Bad("page: missing field \"url\""));
  if (!(seen & (1u << kPageMd5))) page.md5 = Md5Of(page.url);
  return page;
}

Result<Link> ParseLink(sj::value& v) {
  Link link;
  auto set = [&](size_t i, sj::value& fv, const FieldName& f) {
    return SetLinkField(i, fv, f, &link);
  };
  NUTCHFS_ASSIGN_OR_RETURN(uint32_t seen, ForEachField(v, kLinkFields, set));
  for (LinkField required : {kLinkFrom, kLinkUrl}) {
    if (!(seen & (1u << required))) {
      return Err(Bad("link: missing field " + Quote(kLinkFields.names[required])));
    }
  }
  return link;
}

Result<Call::Op> ParseOp(sj::value& v, const FieldName& f) {
  NUTCHFS_ASSIGN_OR_RETURN(std::string_view name, GetString(v, f));
  for (Call::Op op : {Call::Op::kAddPage, Call::Op::kAddPageWithScore,
                      Call::Op::kAddPageIfNotPresent, Call::Op::kDeletePage, Call::Op::kAddLink}) {
    if (name == CallOpName(op)) return op;
  }
  return Err(Bad("unknown op " + Quote(name) +
                 " (expected addPage, addPageWithScore, addPageIfNotPresent, deletePage or "
                 "addLink)"));
}

// Checks that the fields present are the ones op takes.
Status CheckShape(Call::Op op, uint32_t seen) {
  const auto [required, allowed] = ShapeOf(op);
  for (CallField f : {kCallPage, kCallLink, kCallUrl}) {
    if ((required & (1u << f)) && !(seen & (1u << f))) {
      return Bad("missing field " + Quote(kCallFields.names[f]) + " (required by " +
                 CallOpName(op) + ")");
    }
    if (!(allowed & (1u << f)) && (seen & (1u << f))) {
      return Bad("field " + Quote(kCallFields.names[f]) + " is not allowed with " +
                 CallOpName(op));
    }
  }
  return Status::OK();
}

Status SetCallField(size_t i, sj::value& v, const FieldName& f, Call* call) {
  switch (i) {
    case kOp: return Assign(ParseOp(v, f), &call->op);
    case kCallPage: return Assign(ParsePage(v), &call->page);
    case kCallLink: return Assign(ParseLink(v), &call->link);
    case kCallUrl: return Assign(GetUrl(v, f), &call->url);
  }
  return Status::OK();
}

// Bytes simdjson would reject with advice about its own API: said plainly instead.
Status CheckLineBytes(std::string_view line) {
  if (line.starts_with("\xEF\xBB\xBF")) {
    return Bad("the line starts with a UTF-8 byte-order mark (EF BB BF); save the file without it");
  }
  for (size_t i = 0; i < line.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(line[i]);
    if (c >= 0x20 || c == '\t' || c == '\r') continue;
    char what[32];
    std::snprintf(what, sizeof(what), c == 0 ? "NUL byte" : "control character 0x%02X", c);
    char escape[8];
    std::snprintf(escape, sizeof(escape), "\\u%04x", c);
    return Bad(std::string(what) + " at column " + std::to_string(i + 1) +
               ": not allowed in JSON (inside a string, write it as " + escape + ")");
  }
  return Status::OK();
}

// What a line that is no JSON object holds, by its first character, for the message.
std::string_view NotAnObject(std::string_view text) {
  if (text.starts_with('[')) return "an array";
  if (text.starts_with('"')) return "a string";
  if (!text.empty() && (text[0] == '-' || (text[0] >= '0' && text[0] <= '9'))) return "a number";
  for (std::string_view word : {"true", "false", "null"}) {
    if (text.starts_with(word) && text.find_first_not_of(" \t\r", word.size()) == text.npos) {
      return word;
    }
  }
  return "text that is not JSON";
}

// The offset just past the object that starts at line[first], found by matching braces
// and brackets outside strings; npos if the line ends first. simdjson never sees an
// object left open (its on-demand parser read past its structural index on the fuzzed
// line `{"op":`), nor text after one.
size_t ObjectEnd(std::string_view line, size_t first) {
  size_t depth = 0;
  bool in_string = false;
  for (size_t i = first; i < line.size(); ++i) {
    const char c = line[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      ++depth;
    } else if ((c == '}' || c == ']') && --depth == 0) {
      return i + 1;
    }
  }
  return std::string_view::npos;
}

}  // namespace

struct CallParser::Rep {
  sj::parser parser;
};

CallParser::CallParser() : rep_(std::make_unique<Rep>()) {}
CallParser::~CallParser() = default;

Status CallParser::Parse(std::string_view line, Call* call) {
  if (ScanPlainCall(line, call)) return Status::OK();
  NUTCHFS_ASSIGN_OR_RETURN(*call, ParseJson(line));
  return Status::OK();
}

Result<Call> CallParser::ParseJson(std::string_view line) {
  NUTCHFS_RETURN_IF_ERROR(CheckLineBytes(line));
  const size_t first = line.find_first_not_of(" \t\r");
  const std::string_view text = line.substr(std::min(first, line.size()));
  if (!text.starts_with('{')) {
    return Err(Bad("a call is one JSON object {...} a line; found " +
                   std::string(NotAnObject(text))));
  }
  const size_t end = ObjectEnd(line, first);
  if (end == std::string_view::npos) return Err(Bad("invalid JSON: the object is not closed"));
  if (const size_t after = line.find_first_not_of(" \t\r", end); after != line.npos) {
    return Err(Bad("unexpected text after the JSON object, at column " +
                   std::to_string(after + 1)));
  }
  sj::document doc;
  if (auto e = rep_->parser.iterate(line.data(), line.size(), line.size() + kPadding).get(doc)) {
    return Err(JsonError("", e));
  }
  sj::value root;
  if (auto e = doc.get_value().get(root)) return Err(JsonError("", e));
  Call call;
  auto set = [&](size_t i, sj::value& fv, const FieldName& f) {
    return SetCallField(i, fv, f, &call);
  };
  NUTCHFS_ASSIGN_OR_RETURN(uint32_t seen, ForEachField(root, kCallFields, set));
  if (doc.current_location().error() != simdjson::OUT_OF_BOUNDS) {
    return Err(Bad("unexpected text after the JSON object"));
  }
  if (!(seen & (1u << kOp))) return Err(Bad("missing field \"op\""));
  NUTCHFS_RETURN_IF_ERROR(CheckShape(call.op, seen));
  return call;
}

}  // namespace webdb
