// The character encoding of an HTML page, determined as browsers determine it (WHATWG
// HTML standard, section 13.2.3, "The input byte stream"), and the page decoded to
// UTF-8 for the tokenizer. In order, the first that answers:
//
//   1. a byte-order mark (UTF-8, UTF-16BE, UTF-16LE), which is then skipped;
//   2. the charset parameter of the HTTP Content-Type;
//   3. the <meta charset> or <meta http-equiv=content-type content="...; charset=">
//      found by the standard's prescan of the first 1024 bytes (a UTF-16 label there
//      means UTF-8, x-user-defined means windows-1252, as the standard says);
//   4. autodetection, which the standard leaves to the browser: a body that is valid
//      UTF-8 is UTF-8 (as Chrome detects it);
//   5. the default, windows-1252 (the standard's default for most locales).
//
// Labels are the Encoding Standard's (crawl/text_encoding.h); an unknown label is
// passed over. Not modelled: a <meta> after the first 1024 bytes (a browser would
// reparse), and the XML declaration of application/xhtml+xml.
//
// Plain functions on values; thread-safe.
#ifndef CRAWL_HTML_CHARSET_H_
#define CRAWL_HTML_CHARSET_H_

#include <string>
#include <string_view>

#include "crawl/text_encoding.h"

namespace crawl {

struct HtmlText {
  enum class Source { kBom, kHttp, kMeta, kDetected, kDefault };
  // The page as UTF-8: a view of the body itself when it needs no decoding (UTF-8, or
  // only ASCII in an encoding that reads ASCII as ASCII), else of the scratch string.
  // A UTF-8 body is passed as it is: the tokenizer reads its invalid sequences as U+FFFD.
  std::string_view text;
  const Encoding* encoding;
  Source source;
};

// Decodes body, an HTML page served with the Content-Type content_type (may be empty).
// The result may point into body or *scratch.
HtmlText DecodeHtml(std::string_view body, std::string_view content_type, std::string* scratch);

// The encoding the charset parameter of a Content-Type value names, or nullptr.
const Encoding* ContentTypeCharset(std::string_view content_type);

// The encoding the standard's <meta> prescan finds in head (its first 1024 bytes are
// read), or nullptr.
const Encoding* PrescanMetaCharset(std::string_view head);

}  // namespace crawl

#endif  // CRAWL_HTML_CHARSET_H_
