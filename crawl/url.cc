#include "crawl/url.h"

#include <arpa/inet.h>
#include <fmt/format.h>
#include <idn2.h>
#include <uriparser/Uri.h>

#include <charconv>
#include <cstdlib>
#include <memory>
#include <optional>
#include <vector>

#include "webdb/table/record.h"

namespace crawl {
namespace {

bool IsHex(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return c - 'A' + 10;
}

char ToLower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

// Percent-encodes the bytes a URI may not contain, and a '%' that starts no escape.
std::string EscapeInvalid(std::string_view in) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(in[i]);
    bool bad = c <= 0x20 || c >= 0x7f || c == '"' || c == '<' || c == '>' || c == '\\' ||
               c == '^' || c == '`' || c == '{' || c == '|' || c == '}';
    if (c == '%') bad = !(i + 2 < in.size() && IsHex(in[i + 1]) && IsHex(in[i + 2]));
    if (!bad) {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
  return out;
}

std::string_view Text(const UriTextRangeA& r) {
  if (r.first == nullptr) return {};
  return {r.first, static_cast<size_t>(r.afterLast - r.first)};
}

// Owns a parsed UriUriA and the text it points into.
class ParsedUri {
 public:
  ParsedUri() = default;
  ~ParsedUri() {
    if (parsed_) uriFreeUriMembersA(&uri_);
  }
  ParsedUri(const ParsedUri&) = delete;
  ParsedUri& operator=(const ParsedUri&) = delete;

  Status Parse(std::string_view text) {
    text_ = EscapeInvalid(text);
    const char* error_pos = nullptr;
    int rc = uriParseSingleUriExA(&uri_, text_.data(), text_.data() + text_.size(), &error_pos);
    if (rc != URI_SUCCESS) {
      size_t at = error_pos ? static_cast<size_t>(error_pos - text_.data()) : 0;
      return Status::InvalidArgument("invalid URL '" + std::string(text) + "' at byte " +
                                     std::to_string(at));
    }
    parsed_ = true;
    return Status::OK();
  }
  UriUriA* get() { return &uri_; }

 private:
  std::string text_;
  UriUriA uri_{};
  bool parsed_ = false;
};

Result<std::string> ToString(const UriUriA* uri) {
  int chars = 0;
  if (uriToStringCharsRequiredA(uri, &chars) != URI_SUCCESS) {
    return Err(Status::InvalidArgument("URL cannot be recomposed"));
  }
  std::string out(static_cast<size_t>(chars) + 1, '\0');
  if (uriToStringA(out.data(), uri, chars + 1, nullptr) != URI_SUCCESS) {
    return Err(Status::InvalidArgument("URL cannot be recomposed"));
  }
  out.resize(static_cast<size_t>(chars));
  return out;
}

bool IsHostChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_' ||
         c == '~';
}

// A registered name: percent-decoded, IDN to punycode, lower case.
Result<std::string> NormalizeRegName(std::string_view text) {
  std::string host;
  bool ascii = true;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '%' && i + 2 < text.size() && IsHex(text[i + 1]) && IsHex(text[i + 2])) {
      c = static_cast<char>(HexValue(text[i + 1]) * 16 + HexValue(text[i + 2]));
      i += 2;
    }
    if (static_cast<unsigned char>(c) >= 0x80) ascii = false;
    // libidn2 takes a C string: a NUL would cut the host short (to nothing, even).
    if (c == '\0') return Err(Status::InvalidArgument("host name holds a NUL byte"));
    host.push_back(c);
  }
  if (!ascii) {
    char* out = nullptr;
    int rc = idn2_to_ascii_8z(host.c_str(), &out, IDN2_NFC_INPUT | IDN2_NONTRANSITIONAL);
    if (rc != IDN2_OK) {
      return Err(Status::InvalidArgument("invalid international host name '" + host +
                                         "': " + idn2_strerror(rc)));
    }
    host = out;
    idn2_free(out);
  }
  for (char& c : host) {
    c = ToLower(c);
    if (!IsHostChar(c)) {
      return Err(Status::InvalidArgument("invalid character in host name '" + host + "'"));
    }
  }
  if (host.empty()) return Err(Status::InvalidArgument("URL has no host"));
  return host;
}

// One part of a WHATWG IPv4 host: decimal, octal after a leading 0, hex after 0x.
std::optional<uint64_t> ParseIpv4Number(std::string_view part) {
  if (part.empty()) return std::nullopt;
  int base = 10;
  if (part.size() >= 2 && part[0] == '0' && (part[1] == 'x' || part[1] == 'X')) {
    base = 16;
    part.remove_prefix(2);
  } else if (part.size() >= 2 && part[0] == '0') {
    base = 8;
    part.remove_prefix(1);
  }
  if (part.empty()) return 0;
  uint64_t value = 0;
  auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), value, base);
  if (ec == std::errc::result_out_of_range) return uint64_t{1} << 32;  // too big, whatever it is
  if (ec != std::errc() || end != part.data() + part.size()) return std::nullopt;
  return value;
}

// The WHATWG URL standard's "ends in a number" check and IPv4 parser, so that a host is
// read as browsers read it: a host whose last label is a number is an address (127.1,
// 0x7f.0.0.1 and 2130706433 are 127.0.0.1), written in dotted decimal; one that is not a
// valid address (256.1.1.1) is refused. Other hosts are returned unchanged.
Result<std::string> NormalizeIpv4(std::string host) {
  std::vector<std::string_view> parts;
  for (std::string_view rest = host;;) {
    size_t dot = rest.find('.');
    parts.push_back(rest.substr(0, dot));
    if (dot == std::string_view::npos) break;
    rest.remove_prefix(dot + 1);
  }
  if (parts.size() > 1 && parts.back().empty()) parts.pop_back();
  std::string_view last = parts.back();
  bool numeric = !last.empty() && last.find_first_not_of("0123456789") == std::string_view::npos;
  if (!numeric && !ParseIpv4Number(last)) return host;
  auto invalid = [&host] {
    return Err(Status::InvalidArgument("host '" + host + "' ends in a number but is not an IPv4 "
                                       "address"));
  };
  if (parts.size() > 4) return invalid();
  uint64_t address = 0;
  for (size_t i = 0; i < parts.size(); ++i) {
    std::optional<uint64_t> n = ParseIpv4Number(parts[i]);
    const int shift = 8 * static_cast<int>(4 - parts.size());
    if (!n) return invalid();
    if (i + 1 < parts.size() ? *n > 255 : *n >= (uint64_t{256} << shift)) return invalid();
    address = i + 1 < parts.size() ? (address << 8) | *n : (address << (8 + shift)) | *n;
  }
  return fmt::format("{}.{}.{}.{}", address >> 24, (address >> 16) & 255, (address >> 8) & 255,
                     address & 255);
}

Result<std::string> NormalizeHost(const UriUriA& uri) {
  std::string_view text = Text(uri.hostText);
  if (uri.hostData.ip4 != nullptr) return NormalizeIpv4(std::string(text));
  if (uri.hostData.ip6 != nullptr) {
    // The RFC 5952 text of the address: one spelling however it was written (uriparser
    // spells out all eight groups when it recomposes a resolved reference).
    char buf[INET6_ADDRSTRLEN];
    if (inet_ntop(AF_INET6, uri.hostData.ip6->data, buf, sizeof(buf)) == nullptr) {
      return Err(Status::InvalidArgument("invalid IPv6 host '" + std::string(text) + "'"));
    }
    return "[" + std::string(buf) + "]";
  }
  if (uri.hostData.ipFuture.first != nullptr) {
    return Err(Status::InvalidArgument("IPvFuture host [" + std::string(text) +
                                       "] names no address a crawler can reach"));
  }
  if (text.empty()) return Err(Status::InvalidArgument("URL has no host"));
  NUTCHFS_ASSIGN_OR_RETURN(std::string host, NormalizeRegName(text));
  return NormalizeIpv4(std::move(host));
}

// The port without leading zeros; empty if none is given. 0 and ports past 65535 name
// nothing a crawler can connect to.
Result<std::string_view> NormalizePort(std::string_view port) {
  if (port.empty()) return port;
  while (port.size() > 1 && port[0] == '0') port.remove_prefix(1);
  int value = 0;
  auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
  if (ec != std::errc() || end != port.data() + port.size() || value < 1 || value > 65535) {
    return Err(Status::InvalidArgument("port " + std::string(port.substr(0, 30)) +
                                       " is not in 1..65535"));
  }
  return port;
}

// Recomposes a syntax-normalized http(s) URI with the crawl rules applied. The user info
// is left out: it names no resource (RFC 9110 section 4.2.4: a request never carries
// it), and kept it would make http://@h/ and http://h/ two pages and put credentials in
// the db.
Result<std::string> Recompose(const UriUriA& uri, std::string_view scheme) {
  NUTCHFS_ASSIGN_OR_RETURN(std::string host, NormalizeHost(uri));
  NUTCHFS_ASSIGN_OR_RETURN(std::string_view port, NormalizePort(Text(uri.portText)));
  std::string out(scheme);
  out += "://";
  out += host;
  bool default_port = (scheme == "http" && port == "80") || (scheme == "https" && port == "443");
  if (!port.empty() && !default_port) {
    out += ':';
    out += port;
  }
  if (uri.pathHead == nullptr) out += '/';
  for (const UriPathSegmentA* seg = uri.pathHead; seg != nullptr; seg = seg->next) {
    out += '/';
    out += Text(seg->text);
  }
  if (uri.query.first != nullptr) {
    out += '?';
    out += Text(uri.query);
  }
  return out;
}

std::string StripHrefSpace(std::string_view ref) {
  auto space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f'; };
  while (!ref.empty() && space(ref.front())) ref.remove_prefix(1);
  while (!ref.empty() && space(ref.back())) ref.remove_suffix(1);
  std::string out;
  out.reserve(ref.size());
  for (char c : ref) {
    if (c != '\t' && c != '\n' && c != '\r') out.push_back(c);
  }
  return out;
}

}  // namespace

Result<std::string> NormalizeUrl(std::string_view url) {
  ParsedUri parsed;
  NUTCHFS_RETURN_IF_ERROR(parsed.Parse(url));
  UriUriA* uri = parsed.get();
  std::string scheme;
  for (char c : Text(uri->scheme)) scheme.push_back(ToLower(c));
  if (scheme != "http" && scheme != "https") {
    return Err(Status::InvalidArgument("not an http or https URL: '" + std::string(url) + "'"));
  }
  if (uriNormalizeSyntaxA(uri) != URI_SUCCESS) {
    return Err(Status::InvalidArgument("URL cannot be normalized: '" + std::string(url) + "'"));
  }
  auto out = Recompose(*uri, scheme);
  if (!out) {
    return Err(Status::InvalidArgument(out.error().message() + " in '" + std::string(url) + "'"));
  }
  // Escaping can make a url three times longer; the db takes none over 65535 bytes.
  if (out->size() > webdb::kMaxUrlLength) {
    return Err(Status::InvalidArgument("URL is " + std::to_string(out->size()) +
                                       " bytes once normalized, more than " +
                                       std::to_string(webdb::kMaxUrlLength) + ": '" +
                                       std::string(url.substr(0, 60)) + "...'"));
  }
  return out;
}

Result<std::string> NormalizeSyntax(std::string_view uri) {
  ParsedUri parsed;
  NUTCHFS_RETURN_IF_ERROR(parsed.Parse(uri));
  if (uriNormalizeSyntaxA(parsed.get()) != URI_SUCCESS) {
    return Err(Status::InvalidArgument("URI cannot be normalized: '" + std::string(uri) + "'"));
  }
  return ToString(parsed.get());
}

Result<std::string> ResolveReference(std::string_view base, std::string_view ref) {
  ParsedUri base_uri;
  ParsedUri ref_uri;
  NUTCHFS_RETURN_IF_ERROR(base_uri.Parse(base));
  NUTCHFS_RETURN_IF_ERROR(ref_uri.Parse(ref));
  UriUriA resolved{};
  int rc = uriAddBaseUriExA(&resolved, ref_uri.get(), base_uri.get(), URI_RESOLVE_STRICTLY);
  if (rc != URI_SUCCESS) {
    uriFreeUriMembersA(&resolved);
    return Err(Status::InvalidArgument("cannot resolve '" + std::string(ref) + "' against '" +
                                       std::string(base) + "'"));
  }
  auto out = ToString(&resolved);
  uriFreeUriMembersA(&resolved);
  return out;
}

Result<std::string> ResolveUrl(std::string_view base, std::string_view ref) {
  NUTCHFS_ASSIGN_OR_RETURN(std::string target, ResolveReference(base, StripHrefSpace(ref)));
  return NormalizeUrl(target);
}

std::string_view HostOfUrl(std::string_view url) {
  size_t start = url.find("://");
  start = (start == std::string_view::npos) ? 0 : start + 3;
  size_t end = url.find_first_of("/?#", start);
  std::string_view authority = url.substr(start, end == std::string_view::npos ? end : end - start);
  size_t at = authority.rfind('@');
  return at == std::string_view::npos ? authority : authority.substr(at + 1);
}

}  // namespace crawl
