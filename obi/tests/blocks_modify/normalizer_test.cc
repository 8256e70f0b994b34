// HtmlNormalizer and JsNormalizer: the canonical forms of crafted bodies, the HTTP
// segments they apply to (lengths and checksums valid after the body shrank) and the ones
// they leave alone, and bodies of random bytes that never grow.
#include <gtest/gtest.h>

#include <random>
#include <type_traits>

#include "checks.hh"
#include "modify/HtmlNormalizer.hh"
#include "modify/JsNormalizer.hh"

using namespace obi;
using namespace obi::testing;
using namespace modtest;
using nlohmann::json;

namespace {

template <typename E>
std::string normalized(const json& config, std::string text) {
  auto e = make_element(std::is_same_v<E, HtmlNormalizerElement> ? "HtmlNormalizer" : "JsNormalizer", config);
  const uint32_t n = dynamic_cast<E&>(*e).normalize(text.data(), static_cast<uint32_t>(text.size()));
  EXPECT_LE(n, text.size());
  text.resize(n);
  return text;
}
std::string html(std::string text, const json& config = json::object()) {
  return normalized<HtmlNormalizerElement>(config, std::move(text));
}
std::string js(std::string text, const json& config = json::object()) {
  return normalized<JsNormalizerElement>(config, std::move(text));
}

Bytes http_response(const std::string& type, const std::string& body, const std::string& extra = "") {
  return with_checksums(tcp4("198.51.100.5", "192.0.2.10", 80, 40000,
                             "HTTP/1.1 200 OK\r\nContent-Type: " + type + "\r\nContent-Length: " +
                                 std::to_string(body.size()) + "\r\n" + extra + "\r\n" + body));
}

std::string tcp_payload(const Bytes& b) {
  Offsets o = offsets(b);
  const size_t at = o.l4 + size_t(b[o.l4 + 12] >> 4) * 4;
  return std::string(b.begin() + at, b.begin() + o.l3 + be16(b, o.l3 + 2));
}

}  // namespace

TEST(HtmlNormalizer, CanonicalForm) {
  EXPECT_EQ(html("<P CLASS=\"A\">Hello&nbsp;&lt;script&gt;  &#x41;&#66;\n\n<!-- hidden --> <SCRIPT SRC='X.JS'>"),
            "<p class=\"A\">Hello <script> AB <script src='X.JS'>");
  EXPECT_EQ(html("&amp;lt; &lt &ltx &#60 &#x3C; &apos; &bogus; & &#; &#x;"), "&lt; < <x < < ' &bogus; & &#; &#x;");
  EXPECT_EQ(html("&#0;|&#x1F600;|&#99999999999;|&#xD800;|&#233;"),
            "\xef\xbf\xbd|\xf0\x9f\x98\x80|\xef\xbf\xbd|\xef\xbf\xbd|\xc3\xa9");
  EXPECT_EQ(html("<A HREF=X&amp;Y TITLE = 'Q&quot;'>T</A>"), "<a href=X&Y title = 'Q\"'>T</a>");
  EXPECT_EQ(html("a<!-- never closed <b>"), "a");
  EXPECT_EQ(html("1 < 2 <3"), "1 < 2 <3");  // not tags
  const std::string raw = "<P CLASS=A>x&lt;  <!-- c -->\n";
  EXPECT_EQ(html(raw, {{"decode_entities", false},
                       {"remove_comments", false},
                       {"lowercase_tags", false},
                       {"collapse_whitespace", false}}),
            raw);
  EXPECT_EQ(html(raw, {{"decode_entities", false}, {"lowercase_tags", false}}), "<P CLASS=A>x&lt; ");
}

TEST(HtmlNormalizer, RewritesHtmlBodiesOfHttpSegmentsOnly) {
  ElementHarness h("HtmlNormalizer", json::object());
  const std::string body = "<HTML>  <SCRIPT>&#x65;val()</SCRIPT>\r\n<!-- x --></HTML>";
  Result r = h.push({http_response("text/html; charset=utf-8", body), http_response("text/plain", body),
                     http_response("text/html", body, "Content-Encoding: br\r\n"),
                     with_checksums(tcp4("192.0.2.10", "198.51.100.5", 40000, 80, body)),
                     udp4("10.0.0.1", "10.0.0.2", 1, 2, body)});
  ASSERT_EQ(r.out[0].size(), 5u);
  const Bytes& got = r.out[0][0];
  EXPECT_EQ(tcp_payload(got),
            "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n\r\n"
            "<html> <script>eval()</script> </html>");
  EXPECT_TRUE(ipv4_checksum_ok(got));
  EXPECT_TRUE(l4_checksum_ok(got));
  EXPECT_EQ(r.out[0][1], http_response("text/plain", body));
  EXPECT_EQ(r.out[0][2], http_response("text/html", body, "Content-Encoding: br\r\n"));
  EXPECT_EQ(r.out[0][3], with_checksums(tcp4("192.0.2.10", "198.51.100.5", 40000, 80, body)));
  EXPECT_EQ(r.out[0][4], udp4("10.0.0.1", "10.0.0.2", 1, 2, body));
  EXPECT_EQ(h.read("count").get<int>(), 1);

  // A canonical body stays byte for byte, Content-Length included.
  const Bytes canonical = http_response("text/html", "<p>plain</p>");
  r = h.push({canonical});
  EXPECT_EQ(r.out[0][0], canonical);
  EXPECT_EQ(h.read("count").get<int>(), 2);
  h.write("reset_counts", nullptr);
  EXPECT_EQ(h.read("count").get<int>(), 0);
  expect_illegal(h, "reset", nullptr);
  expect_bad_block("HtmlNormalizer", {{"lowercase_tags", "yes"}}, "lowercase_tags");
  EXPECT_EQ(h.pool().available(), h.pool().capacity());
}

TEST(JsNormalizer, CanonicalForm) {
  EXPECT_EQ(js("var a  = \"\\x65\\u0076al\"; // comment\n/* block */eval ( '%41%u0042' ) ;"),
            "var a = \"eval\"; eval ( 'AB' ) ;");
  EXPECT_EQ(js("ev/**/al"), "ev al");
  EXPECT_EQ(js("'a  b' \"\\\\x41\" `t\\u{1F600}\n  x`"), "'a  b' \"\\\\x41\" `t\xf0\x9f\x98\x80\n  x`");
  EXPECT_EQ(js("'\\u{110000}' '\\uD800' '\\u{}' '\\xZZ' '%zz' '100%'"),
            "'\xef\xbf\xbd' '\xef\xbf\xbd' '\\u{}' '\\xZZ' '%zz' '100%'");
  EXPECT_EQ(js("x = '//not a comment'; y = 1 /* open"), "x = '//not a comment'; y = 1 ");
  EXPECT_EQ(js("'unterminated\nz  =  1"), "'unterminated\nz = 1");
  EXPECT_EQ(js("a = 1 // last"), "a = 1 ");
  const std::string raw = "a  = '\\x41' /* c */ // d\n";
  EXPECT_EQ(js(raw, {{"unescape", false}, {"remove_comments", false}, {"collapse_whitespace", false}}), raw);
  EXPECT_EQ(js(raw, {{"remove_comments", false}, {"collapse_whitespace", false}}), "a  = 'A' /* c */ // d\n");
}

TEST(JsNormalizer, RewritesJavaScriptBodiesOfHttpSegmentsOnly) {
  ElementHarness h("JsNormalizer", json::object());
  const std::string body = "window[\"\\x65\\x76\\x61\\x6c\"]( /* x */ 'al\\u0065rt(1)' );";
  Result r = h.push({http_response("application/javascript", body), http_response("text/html", body),
                     http_response("text/ecmascript", body, "Transfer-Encoding: chunked\r\n")});
  ASSERT_EQ(r.out[0].size(), 3u);
  EXPECT_EQ(tcp_payload(r.out[0][0]),
            "HTTP/1.1 200 OK\r\nContent-Type: application/javascript\r\n\r\nwindow[\"eval\"]( 'alert(1)' );");
  EXPECT_TRUE(ipv4_checksum_ok(r.out[0][0]));
  EXPECT_TRUE(l4_checksum_ok(r.out[0][0]));
  EXPECT_EQ(r.out[0][1], http_response("text/html", body));
  EXPECT_EQ(r.out[0][2], http_response("text/ecmascript", body, "Transfer-Encoding: chunked\r\n"));
  EXPECT_EQ(h.read("count").get<int>(), 1);
  expect_bad_block("JsNormalizer", {{"unescape", 1}}, "unescape");
  EXPECT_EQ(h.pool().available(), h.pool().capacity());
}

TEST(Normalizers, RandomBodiesNeverGrow) {
  std::mt19937 rng(11);
  const std::string alphabet = "<>&#;x/*'\"`\\%u{}=! \n\tABab0123456789-";
  for (int i = 0; i < 3000; ++i) {
    std::string t(rng() % 200, '\0');
    for (char& c : t) c = (i % 2) ? alphabet[rng() % alphabet.size()] : static_cast<char>(rng());
    EXPECT_LE(html(t).size(), t.size());
    EXPECT_LE(js(t).size(), t.size());
  }
}
