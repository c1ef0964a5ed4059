#include "crawl/text_encoding.h"

#include <iconv.h>

#include <array>
#include <cerrno>

#include "crawl/html_char_ref.h"

namespace crawl {
namespace {

using Kind = Encoding::Kind;

struct Entry {
  Encoding encoding;
  std::string_view labels;  // the standard's labels, space-separated, lower case
};

// The WHATWG Encoding Standard's encodings and labels (section 4.2, "Names and labels").
constexpr std::array<Entry, 40> kEntries = {{
    {{"UTF-8", nullptr, Kind::kUtf8},
     "unicode-1-1-utf-8 unicode11utf8 unicode20utf8 utf-8 utf8 x-unicode20utf8"},
    {{"IBM866", "IBM866", Kind::kSingleByte}, "866 cp866 csibm866 ibm866"},
    {{"ISO-8859-2", "ISO-8859-2", Kind::kSingleByte},
     "csisolatin2 iso-8859-2 iso-ir-101 iso8859-2 iso88592 iso_8859-2 iso_8859-2:1987 l2 "
     "latin2"},
    {{"ISO-8859-3", "ISO-8859-3", Kind::kSingleByte},
     "csisolatin3 iso-8859-3 iso-ir-109 iso8859-3 iso88593 iso_8859-3 iso_8859-3:1988 l3 "
     "latin3"},
    {{"ISO-8859-4", "ISO-8859-4", Kind::kSingleByte},
     "csisolatin4 iso-8859-4 iso-ir-110 iso8859-4 iso88594 iso_8859-4 iso_8859-4:1988 l4 "
     "latin4"},
    {{"ISO-8859-5", "ISO-8859-5", Kind::kSingleByte},
     "csisolatincyrillic cyrillic iso-8859-5 iso-ir-144 iso8859-5 iso88595 iso_8859-5 "
     "iso_8859-5:1988"},
    {{"ISO-8859-6", "ISO-8859-6", Kind::kSingleByte},
     "arabic asmo-708 csiso88596e csiso88596i csisolatinarabic ecma-114 iso-8859-6 "
     "iso-8859-6-e iso-8859-6-i iso-ir-127 iso8859-6 iso88596 iso_8859-6 iso_8859-6:1987"},
    {{"ISO-8859-7", "ISO-8859-7", Kind::kSingleByte},
     "csisolatingreek ecma-118 elot_928 greek greek8 iso-8859-7 iso-ir-126 iso8859-7 "
     "iso88597 iso_8859-7 iso_8859-7:1987 sun_eu_greek"},
    {{"ISO-8859-8", "ISO-8859-8", Kind::kSingleByte},
     "csiso88598e csisolatinhebrew hebrew iso-8859-8 iso-8859-8-e iso-ir-138 iso8859-8 "
     "iso88598 iso_8859-8 iso_8859-8:1988 visual"},
    {{"ISO-8859-8-I", "ISO-8859-8", Kind::kSingleByte}, "csiso88598i iso-8859-8-i logical"},
    {{"ISO-8859-10", "ISO-8859-10", Kind::kSingleByte},
     "csisolatin6 iso-8859-10 iso-ir-157 iso8859-10 iso885910 l6 latin6"},
    {{"ISO-8859-13", "ISO-8859-13", Kind::kSingleByte}, "iso-8859-13 iso8859-13 iso885913"},
    {{"ISO-8859-14", "ISO-8859-14", Kind::kSingleByte}, "iso-8859-14 iso8859-14 iso885914"},
    {{"ISO-8859-15", "ISO-8859-15", Kind::kSingleByte},
     "csisolatin9 iso-8859-15 iso8859-15 iso885915 iso_8859-15 l9"},
    {{"ISO-8859-16", "ISO-8859-16", Kind::kSingleByte}, "iso-8859-16"},
    {{"KOI8-R", "KOI8-R", Kind::kSingleByte}, "cskoi8r koi koi8 koi8-r koi8_r"},
    {{"KOI8-U", "KOI8-U", Kind::kSingleByte}, "koi8-ru koi8-u"},
    {{"macintosh", "MACINTOSH", Kind::kSingleByte}, "csmacintosh mac macintosh x-mac-roman"},
    {{"windows-874", "CP874", Kind::kSingleByte},
     "dos-874 iso-8859-11 iso8859-11 iso885911 tis-620 windows-874"},
    {{"windows-1250", "CP1250", Kind::kSingleByte}, "cp1250 windows-1250 x-cp1250"},
    {{"windows-1251", "CP1251", Kind::kSingleByte}, "cp1251 windows-1251 x-cp1251"},
    {{"windows-1252", "CP1252", Kind::kSingleByte},
     "ansi_x3.4-1968 ascii cp1252 cp819 csisolatin1 ibm819 iso-8859-1 iso-ir-100 iso8859-1 "
     "iso88591 iso_8859-1 iso_8859-1:1987 l1 latin1 us-ascii windows-1252 x-cp1252"},
    {{"windows-1253", "CP1253", Kind::kSingleByte}, "cp1253 windows-1253 x-cp1253"},
    {{"windows-1254", "CP1254", Kind::kSingleByte},
     "cp1254 csisolatin5 iso-8859-9 iso-ir-148 iso8859-9 iso88599 iso_8859-9 "
     "iso_8859-9:1989 l5 latin5 windows-1254 x-cp1254"},
    {{"windows-1255", "CP1255", Kind::kSingleByte}, "cp1255 windows-1255 x-cp1255"},
    {{"windows-1256", "CP1256", Kind::kSingleByte}, "cp1256 windows-1256 x-cp1256"},
    {{"windows-1257", "CP1257", Kind::kSingleByte}, "cp1257 windows-1257 x-cp1257"},
    {{"windows-1258", "CP1258", Kind::kSingleByte}, "cp1258 windows-1258 x-cp1258"},
    {{"x-mac-cyrillic", "MAC-CYRILLIC", Kind::kSingleByte}, "x-mac-cyrillic x-mac-ukrainian"},
    {{"GBK", "GB18030", Kind::kMultiByte},
     "chinese csgb2312 csiso58gb231280 gb2312 gb_2312 gb_2312-80 gbk iso-ir-58 x-gbk"},
    {{"gb18030", "GB18030", Kind::kMultiByte}, "gb18030"},
    {{"Big5", "BIG5-HKSCS", Kind::kMultiByte}, "big5 big5-hkscs cn-big5 csbig5 x-x-big5"},
    {{"EUC-JP", "EUC-JP-MS", Kind::kMultiByte}, "cseucpkdfmtjapanese euc-jp x-euc-jp"},
    {{"ISO-2022-JP", "ISO-2022-JP", Kind::kEscapes}, "csiso2022jp iso-2022-jp"},
    {{"Shift_JIS", "CP932", Kind::kMultiByte},
     "csshiftjis ms932 ms_kanji shift-jis shift_jis sjis windows-31j x-sjis"},
    {{"EUC-KR", "CP949", Kind::kMultiByte},
     "cseuckr csksc56011987 euc-kr iso-ir-149 korean ks_c_5601-1987 ks_c_5601-1989 ksc5601 "
     "ksc_5601 windows-949"},
    {{"replacement", nullptr, Kind::kReplacement},
     "csiso2022kr hz-gb-2312 iso-2022-cn iso-2022-cn-ext iso-2022-kr replacement"},
    {{"UTF-16BE", "UTF-16BE", Kind::kUtf16}, "unicodefffe utf-16be"},
    {{"UTF-16LE", "UTF-16LE", Kind::kUtf16},
     "csunicode iso-10646-ucs-2 ucs-2 unicode unicodefeff utf-16 utf-16le"},
    {{"x-user-defined", nullptr, Kind::kUserDefined}, "x-user-defined"},
}};

constexpr std::string_view kReplacementChar = "\xEF\xBF\xBD";

bool IsAsciiSpace(char c) { return c == '\t' || c == '\n' || c == '\f' || c == '\r' || c == ' '; }

bool EqualsLowered(std::string_view lower, std::string_view text) {
  if (lower.size() != text.size()) return false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (c != lower[i]) return false;
  }
  return true;
}

// What iconv makes of a byte it cannot decode at the start of rest; returns the bytes
// to skip. UTF-16 skips a code unit, so that the text after it keeps its alignment.
size_t Undecodable(const Encoding& e, std::string_view rest, std::string* out) {
  const unsigned char c = static_cast<unsigned char>(rest[0]);
  if (e.kind == Kind::kSingleByte && c >= 0x80 && c <= 0x9F) {
    AppendUtf8(c, out);  // the standard's indexes map unassigned 0x80-0x9F to C1
    return 1;
  }
  out->append(kReplacementChar);
  return e.kind == Kind::kUtf16 ? std::min<size_t>(2, rest.size()) : 1;
}

std::string DecodeWithIconv(const Encoding& e, std::string_view bytes) {
  std::string out;
  iconv_t cd = iconv_open("UTF-8", e.iconv_name);
  if (cd == reinterpret_cast<iconv_t>(-1)) {
    // glibc without its gconv modules: every non-ASCII byte unreadable, ASCII kept.
    for (char c : bytes) {
      if (static_cast<unsigned char>(c) < 0x80) {
        out.push_back(c);
      } else {
        out.append(kReplacementChar);
      }
    }
    return out;
  }
  out.resize(bytes.size() * 2 + 16);
  size_t used = 0;
  char* in = const_cast<char*>(bytes.data());  // iconv's signature; it does not write
  size_t in_left = bytes.size();
  while (true) {
    char* to = out.data() + used;
    size_t to_left = out.size() - used;
    // A null input flushes the state of a stateful encoding at the end.
    size_t r = in_left > 0 ? iconv(cd, &in, &in_left, &to, &to_left)
                           : iconv(cd, nullptr, nullptr, &to, &to_left);
    const int err = errno;
    used = out.size() - to_left;
    if (r != static_cast<size_t>(-1)) {
      if (in_left == 0) break;
      continue;
    }
    if (err == E2BIG) {
      out.resize(out.size() * 2);
    } else if (err == EILSEQ) {
      out.resize(used);
      const size_t skip = Undecodable(e, std::string_view(in, in_left), &out);
      used = out.size();
      out.resize(used + in_left * 2 + 16);
      in += skip;
      in_left -= skip;
    } else {  // EINVAL: a sequence cut off by the end of the input
      out.resize(used);
      out.append(kReplacementChar);
      used = out.size();
      break;
    }
  }
  out.resize(used);
  iconv_close(cd);
  return out;
}

}  // namespace

const Encoding* EncodingForLabel(std::string_view label) {
  while (!label.empty() && IsAsciiSpace(label.front())) label.remove_prefix(1);
  while (!label.empty() && IsAsciiSpace(label.back())) label.remove_suffix(1);
  for (const Entry& entry : kEntries) {
    std::string_view labels = entry.labels;
    while (!labels.empty()) {
      const size_t space = labels.find(' ');
      if (EqualsLowered(labels.substr(0, space), label)) return &entry.encoding;
      labels.remove_prefix(space == std::string_view::npos ? labels.size() : space + 1);
    }
  }
  return nullptr;
}

std::string DecodeToUtf8(const Encoding& encoding, std::string_view bytes) {
  switch (encoding.kind) {
    case Kind::kUtf8:
      return std::string(bytes);
    case Kind::kReplacement:
      return bytes.empty() ? std::string() : std::string(kReplacementChar);
    case Kind::kUserDefined: {
      std::string out;
      for (char c : bytes) {
        const unsigned char b = static_cast<unsigned char>(c);
        if (b < 0x80) {
          out.push_back(c);
        } else {
          AppendUtf8(0xF780 + (b - 0x80), &out);
        }
      }
      return out;
    }
    default:
      return DecodeWithIconv(encoding, bytes);
  }
}

}  // namespace crawl
