// Location: where a machine's NutchFS root is, as written in the cluster
// config: either a local directory "/root" (a local disk or an NFS mount) or
// "[user@]host[:port]:/root" reached over SSH/SFTP. A plain value.
#ifndef NUTCHFS_LOCATION_H_
#define NUTCHFS_LOCATION_H_

#include <string>
#include <string_view>

#include "nutchfs/status.h"

namespace nutchfs {

struct Location {
  enum class Scheme { kLocal, kSsh };

  Scheme scheme = Scheme::kLocal;
  std::string user;  // kSsh only; empty: the current user
  std::string host;  // kSsh only
  int port = 22;     // kSsh only
  std::string root;  // absolute, without a trailing '/' (except "/" itself)

  // "/root" or "user@host:port:/root", the form Parse accepts.
  std::string ToString() const;

  // Parses a location. Hosts are names or IPv4 addresses (letters, digits, '.',
  // '-', '_'); ports 1..65535; the root must be absolute with no empty, "." or
  // ".." component.
  static Result<Location> Parse(std::string_view text);

  friend bool operator==(const Location &, const Location &) = default;
};

}  // namespace nutchfs

#endif  // NUTCHFS_LOCATION_H_
