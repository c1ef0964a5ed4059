// The character encodings of the WHATWG Encoding Standard (the ones browsers decode web
// pages with), found by their labels, and decoding bytes in one of them to UTF-8 with
// glibc's iconv. docs/CRAWL.md, "Character encodings", says why iconv and where its
// tables differ from the standard's.
//
// Each standard encoding is decoded by the iconv converter closest to it: windows-1252
// by CP1252, Shift_JIS by CP932 (ASCII as ASCII, unlike iconv's SHIFT_JIS, which reads
// 0x5C as a yen sign), EUC-JP by EUC-JP-MS, EUC-KR by CP949, GBK by GB18030, Big5 by
// BIG5-HKSCS. Every byte sequence that does not decode becomes one U+FFFD, except that a
// single-byte encoding reads an unassigned byte 0x80-0x9F as the C1 control of that
// number, as the standard's indexes do. The standard's "replacement" encoding (labels
// such as iso-2022-kr) decodes any input to one U+FFFD; x-user-defined maps 0x80-0xFF
// to U+F780-U+F7FF.
//
// The table is immutable; every function is thread-safe.
#ifndef CRAWL_TEXT_ENCODING_H_
#define CRAWL_TEXT_ENCODING_H_

#include <string>
#include <string_view>

namespace crawl {

struct Encoding {
  enum class Kind {
    kUtf8,         // decoded by the HTML tokenizer itself
    kUtf16,        // UTF-16LE or UTF-16BE: two bytes a code unit
    kSingleByte,   // one byte a character; ASCII as ASCII
    kMultiByte,    // ASCII as ASCII, other characters in two or more bytes
    kEscapes,      // ISO-2022-JP: ASCII as ASCII until an escape sequence (0x1B)
    kReplacement,  // the standard's "replacement": any input is one U+FFFD
    kUserDefined,  // x-user-defined
  };
  std::string_view name;   // the standard's name: "windows-1252", "Shift_JIS"
  const char* iconv_name;  // glibc's; nullptr for the kinds decoded here
  Kind kind;

  // Whether text of ASCII bytes only is itself in this encoding: such text needs no
  // decoding.
  bool AsciiCompatible() const {
    return kind != Kind::kUtf16 && kind != Kind::kReplacement;
  }
};

// The encoding of a label ("latin1", " Shift-JIS ", "UTF8"): ASCII white space around it
// and ASCII case ignored, as the standard's "get an encoding". nullptr if none.
const Encoding* EncodingForLabel(std::string_view label);

// bytes, in encoding, as UTF-8 (kUtf8: bytes unchanged).
std::string DecodeToUtf8(const Encoding& encoding, std::string_view bytes);

}  // namespace crawl

#endif  // CRAWL_TEXT_ENCODING_H_
