// Small text helpers every module uses on its inputs (config files, HTTP and WARC headers,
// url lists): trimming and ASCII case-insensitive comparison. Plain functions on views;
// thread-safe.
#ifndef NUTCHFS_STRINGS_H_
#define NUTCHFS_STRINGS_H_

#include <string_view>

namespace nutchfs {

// Spaces and tabs: the blanks of header lines and "key = value" lines.
inline constexpr std::string_view kBlanks = " \t";

// s without the characters of `chars` at either end.
std::string_view Trim(std::string_view s, std::string_view chars = kBlanks);

// Whether a and b are equal but for the case of ASCII letters.
bool EqualsNoCase(std::string_view a, std::string_view b);

}  // namespace nutchfs

#endif  // NUTCHFS_STRINGS_H_
