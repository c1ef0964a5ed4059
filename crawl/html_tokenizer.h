// An HTML tokenizer after the WHATWG HTML standard, section 13.2.5 ("Tokenization"):
// start tags with their attributes, end tags and character data, front to back, with no
// tree built. It is what link extraction needs, at a fraction of a full parser's cost;
// test/crawl/link_extractor_test.cc checks that the links it finds are gumbo's (a full
// HTML5 parser) on every page of the Boost documentation and on tricky cases.
//
// Tokenization proper is the standard's: tag and attribute names in ASCII lower case,
// quoted and unquoted values, the first of duplicated attributes kept, character
// references decoded (crawl/html_char_ref.h), comments, DOCTYPEs and bogus comments
// skipped, a tag cut off by the end of the input dropped, CR LF and CR read as LF, NUL
// as U+FFFD in names and values and dropped from text, invalid UTF-8 sequences as
// U+FFFD in what is handed out. The two tokenizer states that the standard lets the tree
// builder choose are chosen here the way the tree builder does for HTML content:
// `title` and `textarea` hold RCDATA, `style`, `xmp`, `iframe`, `noembed` and `noframes`
// RAWTEXT, `script` script data (with its escape states), `plaintext` the rest of the
// input; inside `svg` and `math` (until their end tag or an HTML element that breaks out
// of foreign content) none of these apply and `<![CDATA[...]]>` is character data.
// Not modelled: HTML integration points inside svg/math, and scripting (`noscript`
// content is markup, as gumbo has it).
//
// The sink is called synchronously; not thread-safe per sink.
#ifndef CRAWL_HTML_TOKENIZER_H_
#define CRAWL_HTML_TOKENIZER_H_

#include <string>
#include <string_view>
#include <vector>

namespace crawl {

struct HtmlAttribute {
  std::string name;   // ASCII lower case
  std::string value;  // references decoded
};

class HtmlTokenSink {
 public:
  virtual ~HtmlTokenSink() = default;
  // Whether StartTag of the element called name (lower case) wants the attributes;
  // when not, it gets none (and decoding them is saved).
  virtual bool WantsAttributes(std::string_view name) = 0;
  virtual void StartTag(std::string_view name, const std::vector<HtmlAttribute>& attributes) = 0;
  virtual void EndTag(std::string_view name) = 0;
  // Whether Text is wanted at this point (asked before each run of character data).
  virtual bool WantsText() = 0;
  // Character data, references decoded where the state decodes them; one run may come in
  // several calls.
  virtual void Text(std::string_view text) = 0;
};

// Tokenizes the whole of html into sink.
void TokenizeHtml(std::string_view html, HtmlTokenSink& sink);

}  // namespace crawl

#endif  // CRAWL_HTML_TOKENIZER_H_
