#include "nutchfs/location.h"

#include <cctype>

namespace nutchfs {
namespace {

Status Malformed(std::string_view text, std::string_view why) {
  return Status::InvalidArgument("malformed location '" + std::string(text) +
                                 "': " + std::string(why) +
                                 " (expected /local/root or [user@]host[:port]:/root)");
}

bool IsHostChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '_';
}

Result<std::string> ParseRoot(std::string_view text, std::string_view root) {
  if (root.empty() || root.front() != '/') return Err(Malformed(text, "root is not absolute"));
  while (root.size() > 1 && root.back() == '/') root.remove_suffix(1);
  for (unsigned char c : root) {
    if (c < 0x20 || c == 0x7f) return Err(Malformed(text, "root contains a control character"));
  }
  size_t start = 1;
  while (start < root.size()) {
    size_t slash = root.find('/', start);
    if (slash == std::string_view::npos) slash = root.size();
    std::string_view part = root.substr(start, slash - start);
    if (part.empty() || part == "." || part == "..") {
      return Err(Malformed(text, "root has an empty, '.' or '..' component"));
    }
    start = slash + 1;
  }
  return std::string(root);
}

Result<int> ParsePort(std::string_view text, std::string_view digits) {
  if (digits.empty() || digits.size() > 5) return Err(Malformed(text, "bad port"));
  int port = 0;
  for (char c : digits) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return Err(Malformed(text, "bad port"));
    port = port * 10 + (c - '0');
  }
  if (port < 1 || port > 65535) return Err(Malformed(text, "port out of range 1..65535"));
  return port;
}

Result<Location> ParseSsh(std::string_view text) {
  Location loc;
  loc.scheme = Location::Scheme::kSsh;
  std::string_view rest = text;
  size_t at = rest.find('@');
  if (at != std::string_view::npos && at < rest.find(':')) {
    loc.user = std::string(rest.substr(0, at));
    if (loc.user.empty()) return Err(Malformed(text, "empty user"));
    rest.remove_prefix(at + 1);
  }
  size_t colon = rest.find(':');
  if (colon == std::string_view::npos) return Err(Malformed(text, "no ':' before the root"));
  loc.host = std::string(rest.substr(0, colon));
  if (loc.host.empty()) return Err(Malformed(text, "empty host"));
  for (char c : loc.host) {
    if (!IsHostChar(c)) return Err(Malformed(text, "bad character in host"));
  }
  rest.remove_prefix(colon + 1);
  if (!rest.empty() && rest.front() != '/') {
    size_t colon2 = rest.find(':');
    if (colon2 == std::string_view::npos) return Err(Malformed(text, "no ':' before the root"));
    NUTCHFS_ASSIGN_OR_RETURN(loc.port, ParsePort(text, rest.substr(0, colon2)));
    rest.remove_prefix(colon2 + 1);
  }
  NUTCHFS_ASSIGN_OR_RETURN(loc.root, ParseRoot(text, rest));
  return loc;
}

}  // namespace

std::string Location::ToString() const {
  if (scheme == Scheme::kLocal) return root;
  std::string out = user.empty() ? host : user + "@" + host;
  return out + ":" + std::to_string(port) + ":" + root;
}

Result<Location> Location::Parse(std::string_view text) {
  if (text.empty()) return Err(Malformed(text, "empty"));
  if (text.front() == '/') {
    Location loc;
    NUTCHFS_ASSIGN_OR_RETURN(loc.root, ParseRoot(text, text));
    return loc;
  }
  if (text.find(':') == std::string_view::npos) {
    return Err(Malformed(text, "a local root must be an absolute path"));
  }
  return ParseSsh(text);
}

}  // namespace nutchfs
