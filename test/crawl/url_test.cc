#include "crawl/url.h"

#include <catch2/catch.hpp>

#include <string>
#include <utility>
#include <vector>

namespace crawl {
namespace {

using Case = std::pair<const char*, const char*>;
constexpr const char* kBase = "http://a/b/c/d;p?q";

std::string Resolve(const char* ref) {
  auto r = ResolveReference(kBase, ref);
  REQUIRE(r);
  return *r;
}

std::string Norm(std::string_view url) {
  auto r = NormalizeUrl(url);
  INFO(url);
  REQUIRE(r);
  return *r;
}

TEST_CASE("RFC 3986 5.4.1 normal examples", "[url]") {
  const std::vector<Case> cases = {
      {"g:h", "g:h"},
      {"g", "http://a/b/c/g"},
      {"./g", "http://a/b/c/g"},
      {"g/", "http://a/b/c/g/"},
      {"/g", "http://a/g"},
      {"//g", "http://g"},
      {"?y", "http://a/b/c/d;p?y"},
      {"g?y", "http://a/b/c/g?y"},
      {"#s", "http://a/b/c/d;p?q#s"},
      {"g#s", "http://a/b/c/g#s"},
      {"g?y#s", "http://a/b/c/g?y#s"},
      {";x", "http://a/b/c/;x"},
      {"g;x", "http://a/b/c/g;x"},
      {"g;x?y#s", "http://a/b/c/g;x?y#s"},
      {"", "http://a/b/c/d;p?q"},
      {".", "http://a/b/c/"},
      {"./", "http://a/b/c/"},
      {"..", "http://a/b/"},
      {"../", "http://a/b/"},
      {"../g", "http://a/b/g"},
      {"../..", "http://a/"},
      {"../../", "http://a/"},
      {"../../g", "http://a/g"},
  };
  for (const auto& [ref, want] : cases) {
    INFO(ref);
    CHECK(Resolve(ref) == want);
  }
}

TEST_CASE("RFC 3986 5.4.2 abnormal examples", "[url]") {
  const std::vector<Case> cases = {
      {"../../../g", "http://a/g"},
      {"../../../../g", "http://a/g"},
      {"/./g", "http://a/g"},
      {"/../g", "http://a/g"},
      {"g.", "http://a/b/c/g."},
      {".g", "http://a/b/c/.g"},
      {"g..", "http://a/b/c/g.."},
      {"..g", "http://a/b/c/..g"},
      {"./../g", "http://a/b/g"},
      {"./g/.", "http://a/b/c/g/"},
      {"g/./h", "http://a/b/c/g/h"},
      {"g/../h", "http://a/b/c/h"},
      {"g;x=1/./y", "http://a/b/c/g;x=1/y"},
      {"g;x=1/../y", "http://a/b/c/y"},
      {"g?y/./x", "http://a/b/c/g?y/./x"},
      {"g?y/../x", "http://a/b/c/g?y/../x"},
      {"g#s/./x", "http://a/b/c/g#s/./x"},
      {"g#s/../x", "http://a/b/c/g#s/../x"},
      {"http:g", "http:g"},  // strict parsers
  };
  for (const auto& [ref, want] : cases) {
    INFO(ref);
    CHECK(Resolve(ref) == want);
  }
}

TEST_CASE("ResolveUrl normalizes and drops the fragment", "[url]") {
  CHECK(*ResolveUrl(kBase, "g?y#s") == "http://a/b/c/g?y");
  CHECK(*ResolveUrl(kBase, "#s") == "http://a/b/c/d;p?q");
  CHECK(*ResolveUrl(kBase, "  \n../g\t ") == "http://a/b/g");
  CHECK(*ResolveUrl("http://x.example/a/", "HTTP://Y.Example:80") == "http://y.example/");
  CHECK(!ResolveUrl(kBase, "g:h"));
  CHECK(!ResolveUrl(kBase, "mailto:a@b.example"));
  CHECK(!ResolveUrl(kBase, "javascript:void(0)"));
}

std::string Syntax(std::string_view uri) {
  auto r = NormalizeSyntax(uri);
  INFO(uri);
  REQUIRE(r);
  return *r;
}

// The examples of RFC 3986 section 6.2.2, verbatim. Those of a scheme other than http(s)
// go through NormalizeSyntax, the scheme-independent part of NormalizeUrl (which
// accepts only crawl URLs); each is also checked through NormalizeUrl with the scheme
// replaced by http, where the crawl rules change nothing else.
TEST_CASE("RFC 3986 6.2.2 syntax normalization, verbatim", "[url]") {
  // 6.2.2: "example://a/./b/../b/%63/%7bfoo%7d" is equivalent to "example://a/b/c/%7Bfoo%7D".
  CHECK(Syntax("example://a/./b/../b/%63/%7bfoo%7d") == "example://a/b/c/%7Bfoo%7D");
  CHECK(Norm("http://a/./b/../b/%63/%7bfoo%7d") == "http://a/b/c/%7Bfoo%7D");
  // 6.2.2.1: "HTTP://www.EXAMPLE.com/" is equivalent to "http://www.example.com/".
  CHECK(Syntax("HTTP://www.EXAMPLE.com/") == "http://www.example.com/");
  CHECK(Norm("HTTP://www.EXAMPLE.com/") == "http://www.example.com/");
  // 6.2.2.1: "%3a" and "%3A" are equivalent; upper case is the normal form.
  CHECK(Syntax("example://a/%3a") == "example://a/%3A");
  CHECK(Norm("http://example.com/a%3ab") == "http://example.com/a%3Ab");
  // 6.2.2.2: percent-encoded unreserved characters (ALPHA, DIGIT, "-", ".", "_", "~")
  // are decoded; the section gives no URI of its own.
  CHECK(Norm("http://example.com/%7Esmith/home.html") == "http://example.com/~smith/home.html");
  CHECK(Norm("http://example.com/%41%2D%5F%2E%39") == "http://example.com/A-_.9");
  CHECK(Norm("http://example.com/a%2Fb") == "http://example.com/a%2Fb");  // reserved kept
  // 6.2.2.3 refers to the remove_dot_segments examples of 5.2.4, verbatim:
  // "/a/b/c/./../../g" -> "/a/g" and "mid/content=5/../6" -> "mid/6".
  CHECK(Syntax("example://h/a/b/c/./../../g") == "example://h/a/g");
  CHECK(Norm("http://h/a/b/c/./../../g") == "http://h/a/g");
  // "mid/content=5/../6" is a relative path: it normalizes as a reference's path.
  CHECK(Syntax("mid/content=5/../6") == "mid/6");
  CHECK(Norm("http://h/mid/content=5/../6") == "http://h/mid/6");
}

// RFC 3986 section 6.2.3, verbatim.
TEST_CASE("RFC 3986 6.2.3 scheme-based normalization, verbatim", "[url]") {
  // "http://example.com", "http://example.com/", "http://example.com:/" and
  // "http://example.com:80/" are equivalent; the normal form is the second.
  for (const char* url : {"http://example.com", "http://example.com/", "http://example.com:/",
                          "http://example.com:80/"}) {
    CHECK(Norm(url) == "http://example.com/");
  }
  // "mailto:Joe@Example.COM" and "mailto:Joe@example.com": equivalent only by the rules of
  // mailto, which is not a crawl scheme: NormalizeUrl refuses it, and NormalizeSyntax
  // (scheme-independent) must leave the path alone.
  CHECK(!NormalizeUrl("mailto:Joe@Example.COM"));
  CHECK(Syntax("mailto:Joe@Example.COM") == "mailto:Joe@Example.COM");
  // "http://example.com/data" and "http://example.com/data/": equivalent only when the
  // server says so (6.2.4); normalization keeps them apart.
  CHECK(Norm("http://example.com/data") == "http://example.com/data");
  CHECK(Norm("http://example.com/data/") == "http://example.com/data/");
  // The same for https and its port; other ports stay.
  CHECK(Norm("https://example.com:443") == "https://example.com/");
  CHECK(Norm("https://example.com:80/") == "https://example.com:80/");
  CHECK(Norm("http://example.com:443/") == "http://example.com:443/");
  CHECK(Norm("http://example.com:8080") == "http://example.com:8080/");
  CHECK(Norm("http://example.com:0080/x") == "http://example.com/x");
}

TEST_CASE("fragments, queries and user info", "[url]") {
  CHECK(Norm("http://a.example/x#frag") == "http://a.example/x");
  CHECK(Norm("http://a.example/x?#frag") == "http://a.example/x?");
  CHECK(Norm("http://a.example/x?b=1&a=2") == "http://a.example/x?b=1&a=2");
}

// Issue 36, item 9: the user info named a second page for the same resource.
TEST_CASE("user info is removed: it names no resource", "[url]") {
  CHECK(Norm("http://user:pw@A.example/") == "http://a.example/");
  CHECK(Norm("http://@h.example/") == "http://h.example/");
  CHECK(Norm("http://:@h.example/x") == "http://h.example/x");
  CHECK(Norm("https://www.example.com@evil.example/") == "https://evil.example/");
  auto linked = ResolveUrl("http://a.example/", "//u@b.example/p");
  REQUIRE(linked);
  CHECK(*linked == "http://b.example/p");
}

// Issue 36, item 9: no crawler can fetch these; they were stored as pages.
TEST_CASE("ports outside 1..65535 are refused", "[url]") {
  for (const char* url : {"http://h.example:0/", "http://h.example:000/", "http://h.example:65536/",
                          "http://h.example:99999/", "http://h.example:18446744073709551617/",
                          "http://h.example:000000000000000000000065536/"}) {
    INFO(url);
    auto r = NormalizeUrl(url);
    REQUIRE_FALSE(r);
    CHECK_THAT(r.error().message(), Catch::Contains("port") && Catch::Contains("1..65535"));
  }
  CHECK(Norm("http://h.example:65535/") == "http://h.example:65535/");
  CHECK(Norm("http://h.example:1/") == "http://h.example:1/");
  CHECK(Norm("http://h.example:00081/") == "http://h.example:81/");
}

// Issue 36, item 9: a host that ends in a number is an IPv4 address, as browsers read it
// (the WHATWG URL standard's IPv4 parser): written in dotted decimal, refused if it is
// not one.
TEST_CASE("numeric hosts are IPv4 addresses or refused", "[url]") {
  for (const char* url : {"http://256.1.1.1/", "http://1.2.3.256/", "http://1.2.3.4.5/",
                          "http://4294967296/", "http://0x100.1.1.1/", "http://1.2.3.09/",
                          "http://a.b.99999999999/", "http://1..2.3/"}) {
    INFO(url);
    auto r = NormalizeUrl(url);
    REQUIRE_FALSE(r);
    CHECK_THAT(r.error().message(), Catch::Contains("IPv4"));
  }
  CHECK(Norm("http://127.1/") == "http://127.0.0.1/");
  CHECK(Norm("http://0x7f.0.0.1/") == "http://127.0.0.1/");
  CHECK(Norm("http://0177.0.0.1/") == "http://127.0.0.1/");
  CHECK(Norm("http://2130706433/") == "http://127.0.0.1/");
  CHECK(Norm("http://1.2.3.4./") == "http://1.2.3.4/");
  CHECK(Norm("http://%31.2.3.4/") == "http://1.2.3.4/");
  CHECK(Norm("http://255.255.255.255/") == "http://255.255.255.255/");
  CHECK(Norm("http://1.2.3.a/") == "http://1.2.3.a/");
  CHECK(Norm("http://1a.example/") == "http://1a.example/");
}

// Issue 36, item 9: an IPvFuture literal names no host a crawler can reach.
TEST_CASE("IPvFuture hosts are refused", "[url]") {
  for (const char* url : {"http://[v1.fe]/", "http://[V7.a:b]/x"}) {
    INFO(url);
    auto r = NormalizeUrl(url);
    REQUIRE_FALSE(r);
    CHECK_THAT(r.error().message(), Catch::Contains("IPvFuture"));
  }
}

TEST_CASE("IDN hosts become punycode", "[url]") {
  CHECK(Norm("http://B\xc3\xbc" "cher.example/") == "http://xn--bcher-kva.example/");
  CHECK(Norm("http://b%C3%BCcher.example/") == "http://xn--bcher-kva.example/");
  CHECK(Norm("http://xn--bcher-kva.example/") == "http://xn--bcher-kva.example/");
  CHECK(Norm("http://\xe4\xbe\x8b\xe3\x81\x88.\xe3\x83\x86\xe3\x82\xb9\xe3\x83\x88/") ==
        "http://xn--r8jz45g.xn--zckzah/");
}

TEST_CASE("percent-encoding of bytes a URI may not hold", "[url]") {
  CHECK(Norm("http://a.example/a b") == "http://a.example/a%20b");
  CHECK(Norm("http://a.example/caf\xc3\xa9") == "http://a.example/caf%C3%A9");
  CHECK(Norm("http://a.example/100%") == "http://a.example/100%25");
  CHECK(Norm("http://a.example/%zz") == "http://a.example/%25zz");
  CHECK(Norm("http://a.example/a|b") == "http://a.example/a%7Cb");
  CHECK(Norm("http://a.example/%e2%82%ac") == "http://a.example/%E2%82%AC");
}

TEST_CASE("IP hosts", "[url]") {
  CHECK(Norm("http://127.0.0.1:80/x") == "http://127.0.0.1/x");
  CHECK(Norm("http://[::1]:8080/") == "http://[::1]:8080/");
  CHECK(Norm("http://[FE80::1]/") == "http://[fe80::1]/");
}

// Regression (url_fuzz): uriparser writes all eight groups of an IPv6 host when it
// recomposes a resolved reference, so a link and a seed to the same page gave two urls.
TEST_CASE("an IPv6 host has one spelling, in a seed and in a link", "[url]") {
  const char kFuzzInput[] = "https://user:pw@[2001:DB8::1]:443/";
  const std::string once = Norm(kFuzzInput);
  CHECK(once == "https://[2001:db8::1]/");
  for (const char* base : {kFuzzInput, "http://h/a/b?q"}) {
    auto linked = ResolveUrl(base, once);
    REQUIRE(linked);
    CHECK(*linked == once);
  }
  CHECK(Norm("http://[2001:0DB8:0000:0000:0000:0000:0000:0001]/") == "http://[2001:db8::1]/");
  CHECK(Norm("http://[0:0:0:0:0:ffff:7f00:1]/") == "http://[::ffff:127.0.0.1]/");
}

// Regression (url_fuzz): an href whose host was percent-encoded NULs reached libidn2 as
// a C string cut at the NUL, so the link became "https:///", a url without a host.
TEST_CASE("a host of escaped NUL bytes is refused, not cut short", "[url]") {
  const char kFuzzInput[] = "https:////o!-ther.exa\0//\0\0`0\0\t\xf6\x8dr&ple";
  const std::string input(kFuzzInput, sizeof(kFuzzInput) - 1);
  const size_t nul = input.find('\0');
  auto linked = ResolveUrl(input.substr(0, nul), input.substr(nul + 1));
  CHECK_FALSE(linked);
  if (linked) FAIL(*linked);
  CHECK_FALSE(NormalizeUrl("http://a%00b.example/"));
  CHECK_FALSE(NormalizeUrl("http://%00%C3%A9/"));
  CHECK_FALSE(NormalizeUrl("http://%00/"));
}

TEST_CASE("not crawl URLs", "[url]") {
  CHECK(!NormalizeUrl("relative/path"));
  CHECK(!NormalizeUrl("ftp://a.example/"));
  CHECK(!NormalizeUrl("http:///nohost"));
  CHECK(!NormalizeUrl("http://exa mple.com/"));
  CHECK(!NormalizeUrl(""));
}

TEST_CASE("normalization is idempotent", "[url]") {
  for (const char* url : {"HTTP://a/./b/../b/%63/%7bfoo%7d", "http://b\xc3\xbc" "cher.example:80",
                          "http://a.example/a b?q=%7e#x", "https://A:443/%2f/../x/"}) {
    std::string once = Norm(url);
    CHECK(Norm(once) == once);
  }
}

// Regression: an href whose normalized form was over 65535 bytes (escaping triples a
// byte) became a link the db refuses, and `webdb update` failed on that one page.
TEST_CASE("a URL over the db's 65535 bytes once normalized is not a crawl URL", "[url]") {
  const std::string head = "http://a.example/";
  CHECK(Norm(head + std::string(65535 - head.size(), 'x')).size() == 65535);
  auto escaped = NormalizeUrl(head + std::string(21840, ' '));
  REQUIRE_FALSE(escaped);
  CHECK(escaped.error().IsInvalidArgument());
  CHECK_THAT(escaped.error().message(), Catch::Contains("65537 bytes once normalized"));
  CHECK_FALSE(ResolveUrl("http://a.example/", std::string(70000, 'y')));
}

TEST_CASE("HostOfUrl", "[url]") {
  CHECK(HostOfUrl("http://a.example/x") == "a.example");
  CHECK(HostOfUrl("http://u@a.example:81/x") == "a.example:81");
  CHECK(HostOfUrl("https://a.example?x") == "a.example");
}

}  // namespace
}  // namespace crawl
