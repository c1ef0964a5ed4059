// URL normalization and reference resolution: the one place where the crawl tools turn
// the URLs they read (seed files, WARC target URIs, hrefs, Location headers) into the
// byte strings stored in the db. See docs/CRAWL.md, "URLs".
//
// NormalizeUrl is RFC 3986 section 6.2.2 syntax normalization (lower-case scheme and
// host, upper-case percent-escapes, unreserved characters decoded, dot segments
// removed) plus: the user info and the default port removed, an empty path written "/",
// an IDN host converted to punycode (IDNA2008 / UTS #46 via libidn2), a host ending in
// a number read as an IPv4 address (WHATWG), the fragment dropped. Ports outside
// 1..65535, numeric hosts that are no IPv4 address and IPvFuture hosts are refused. Bytes
// that may not appear in a URI (non-ASCII, space, quotes, ...) are percent-encoded
// first, so text copied from HTML is accepted. Only absolute http and https URLs with
// a host, at most 65535 bytes once normalized (what the db accepts, webdb::ValidateUrl),
// are crawl URLs; anything else is InvalidArgument.
//
// Free functions on values; thread-safe.
#ifndef CRAWL_URL_H_
#define CRAWL_URL_H_

#include <string>
#include <string_view>

#include "nutchfs/status.h"

namespace crawl {

using nutchfs::Err;
using nutchfs::Result;
using nutchfs::Status;

// The normalized form of an absolute http(s) URL.
Result<std::string> NormalizeUrl(std::string_view url);

// The scheme-independent part of NormalizeUrl, for a URI of any scheme: bytes a URI may
// not hold percent-encoded, then RFC 3986 section 6.2.2 (case, percent-encoding, dot
// segments); nothing of section 6.2.3 and the crawl rules (ports, empty path, IDN,
// fragment). For tests and for callers that want the bare syntax normalization.
Result<std::string> NormalizeSyntax(std::string_view uri);

// RFC 3986 section 5.2 (strict): the target URI of reference ref against the absolute
// base, recomposed per section 5.3, fragment kept, nothing normalized. For tests and
// for callers that want the raw resolution.
Result<std::string> ResolveReference(std::string_view base, std::string_view ref);

// ResolveReference followed by NormalizeUrl: what a link in a page at base points to.
// Leading and trailing ASCII white space of ref is ignored and tabs and newlines inside
// it are removed (as browsers do with href attributes).
Result<std::string> ResolveUrl(std::string_view base, std::string_view ref);

// The host[:port] of a normalized URL (the authority without user info, which urls
// stored before user info was removed may hold).
std::string_view HostOfUrl(std::string_view normalized_url);

}  // namespace crawl

#endif  // CRAWL_URL_H_
