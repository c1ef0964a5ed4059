// Registrable domains (libpsl's built-in public-suffix list) and the 64-bit domain id
// the crawl tools store in Link.domainID: the first 8 bytes of the MD5 of the
// registrable domain, as a little-endian int64 (docs/CRAWL.md, "Links").
//
// Free functions; thread-safe (libpsl's built-in context is immutable).
#ifndef CRAWL_DOMAIN_H_
#define CRAWL_DOMAIN_H_

#include <cstdint>
#include <string>
#include <string_view>

namespace crawl {

// The registrable domain (eTLD+1) of host, lower case; the host itself when it has none
// (an IP address, a public suffix, a single label). A ":port" suffix is ignored.
std::string RegistrableDomain(std::string_view host);

// The domain id of a normalized URL's host.
int64_t DomainIdOfUrl(std::string_view normalized_url);

}  // namespace crawl

#endif  // CRAWL_DOMAIN_H_
