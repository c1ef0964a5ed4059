#include "crawl/domain.h"

#include <libpsl.h>

#include "crawl/url.h"
#include "webdb/table/record.h"

namespace crawl {

std::string RegistrableDomain(std::string_view host) {
  if (!host.empty() && host.front() == '[') return std::string(host);  // IPv6
  size_t colon = host.rfind(':');
  if (colon != std::string_view::npos) host = host.substr(0, colon);
  std::string name(host);
  if (name.find_first_not_of("0123456789.") == std::string::npos) return name;  // IPv4
  const char* domain = psl_registrable_domain(psl_builtin(), name.c_str());
  return domain != nullptr ? std::string(domain) : name;
}

int64_t DomainIdOfUrl(std::string_view normalized_url) {
  webdb::Md5 md5 = webdb::Md5Of(RegistrableDomain(HostOfUrl(normalized_url)));
  uint64_t id = 0;
  for (int i = 7; i >= 0; --i) id = id << 8 | md5[i];
  return static_cast<int64_t>(id);
}

}  // namespace crawl
