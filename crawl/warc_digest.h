// The digests a WARC record may carry, WARC-Block-Digest and WARC-Payload-Digest, checked
// against its bytes: which records and which part of them, the algorithms and encodings
// accepted, and the errors are in docs/FORMAT.md, "Record digests".
// Plain functions; thread-safe.
#ifndef CRAWL_WARC_DIGEST_H_
#define CRAWL_WARC_DIGEST_H_

#include <optional>
#include <string>
#include <string_view>

#include "crawl/warc_reader.h"

namespace crawl {

// OK when every digest of record that is checked matches; Corruption naming the header,
// its value and the digest computed otherwise (no file context: the caller adds it).
Status CheckWarcDigests(const WarcRecord& record);

// The bytes an RFC 4648 base32 text (any case, "=" padding optional) encodes; nullopt if
// it is not base32.
std::optional<std::string> DecodeBase32(std::string_view text);

// bytes in base32, upper case, padded: what wget writes after "sha1:".
std::string EncodeBase32(std::string_view bytes);

}  // namespace crawl

#endif  // CRAWL_WARC_DIGEST_H_
