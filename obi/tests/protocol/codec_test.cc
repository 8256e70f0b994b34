// Unit checks of the C++ codec beyond the shared vectors: error names, header-match
// corner cases (IPv6 text, prefixes, nested lists), base64 and the validation order.
#include <gtest/gtest.h>

#include "openbox/header_match.hh"
#include "openbox/messages.hh"

using nlohmann::json;
using namespace openbox;

namespace {

json canon(const char* field, const json& v) { return to_canonical(parse_field_value(field, v)); }

ErrorSubtype subtype_of(const std::string& body) {
  try {
    decode(body);
  } catch (const ProtocolError& e) {
    return e.subtype();
  }
  return ErrorSubtype::INTERNAL_ERROR;  // "accepted"
}

}  // namespace

TEST(protocol_errors, RoundTripAllSubtypes) {
  for (int i = 0; i <= static_cast<int>(ErrorSubtype::INTERNAL_ERROR); ++i) {
    auto s = static_cast<ErrorSubtype>(i);
    ErrorSubtype back;
    ASSERT_TRUE(parse_error_subtype(to_string(s), back));
    EXPECT_EQ(back, s);
  }
  ErrorType t;
  EXPECT_TRUE(parse_error_type("FORBIDDEN", t));
  EXPECT_EQ(t, ErrorType::FORBIDDEN);
  EXPECT_FALSE(parse_error_type("BAD_TYPE", t));
  EXPECT_EQ(type_of(ErrorSubtype::ADD_MODULE_FAILED), ErrorType::INTERNAL_ERROR);
}

TEST(protocol_header_match, MasksRangesLists) {
  EXPECT_EQ(canon("ipv4_src", "10.0.0.1%255.0.0.0"),
            json::parse(R"({"field":"IPV4_SRC","terms":[{"value":"0xa000000","mask":"0xff000000"}]})"));
  EXPECT_EQ(canon("ipv4_dst", "192.168.1.7/24"),
            json::parse(R"({"field":"IPV4_DST","terms":[{"value":"0xc0a80100","mask":"0xffffff00"}]})"));
  EXPECT_EQ(canon("TCP_DST", "[80,8080,[16384:]]"),
            json::parse(R"({"field":"TCP_DST","terms":[{"value":"0x50","mask":"0xffff"},
              {"value":"0x1f90","mask":"0xffff"},{"min":"0x4000","max":"0xffff"}]})"));
  EXPECT_EQ(canon("tcp_src", "80%0x00ff"),
            json::parse(R"({"field":"TCP_SRC","terms":[{"value":"0x50","mask":"0xff"}]})"));
  EXPECT_EQ(canon("eth_type", 2048),
            json::parse(R"({"field":"ETH_TYPE","terms":[{"value":"0x800","mask":"0xffff"}]})"));
  EXPECT_EQ(canon("udp_dst", "[ : 1023 ]"),
            json::parse(R"({"field":"UDP_DST","terms":[{"min":"0x0","max":"0x3ff"}]})"));
  EXPECT_EQ(canon("ipv4_proto", "6")["field"], "IP_PROTO");
}

TEST(protocol_header_match, MacAndIpv6) {
  EXPECT_EQ(canon("eth_dst", "00:11:22:AA:bb:cc")["terms"][0]["value"], "0x1122aabbcc");
  EXPECT_EQ(canon("eth_src", "00-11-22-33-44-55")["terms"][0]["mask"], "0xffffffffffff");
  EXPECT_THROW(canon("eth_dst", "[00:00:00:00:00:01:00:00:00:00:00:09]"), ProtocolError);  // no MAC ranges
  EXPECT_EQ(canon("eth_dst", "[00:00:00:00:00:01, 00-00-00-00-00-09]")["terms"][1]["value"], "0x9");
  EXPECT_EQ(canon("ipv6_src", "::1")["terms"][0]["value"], "0x1");
  EXPECT_EQ(
      canon("ipv6_src", "2001:db8::/32")["terms"][0],
      json::parse(R"({"value":"0x20010db8000000000000000000000000","mask":"0xffffffff000000000000000000000000"})"));
  EXPECT_EQ(canon("ipv6_dst", "::ffff:10.0.0.1")["terms"][0]["value"], "0xffff0a000001");
  EXPECT_EQ(canon("ipv6_dst", "[::1 , ::9]")["terms"][1]["value"], "0x9");
  EXPECT_THROW(canon("ipv4_src", "10.0.0.01"), ProtocolError);
}

TEST(protocol_header_match, Errors) {
  for (auto [f, v] : std::vector<std::pair<const char*, json>>{{"tcp_dst", "65536"},
                                                               {"tcp_dst", "[]"},
                                                               {"tcp_dst", "[90:80]"},
                                                               {"tcp_dst", -1},
                                                               {"tcp_dst", 1.5},
                                                               {"ipv4_src", 167772161},
                                                               {"ipv4_src", "10.0.0.256"},
                                                               {"ipv4_src", "10.0.0.1/33"},
                                                               {"eth_dst", "00:11:22:33:44"},
                                                               {"ipv6_src", "1::2::3"},
                                                               {"no_such", "1"},
                                                               {"vlan_vid", "0x1000"},
                                                               {"tcp_dst", "8 0"},
                                                               {"tcp_dst", "  "},
                                                               {"ipv4_src", "10.0.0.0 /8"},
                                                               {"tcp_dst", "[80:90]%0xff"},
                                                               {"tcp_dst", "[80:90,100]"},
                                                               {"tcp_dst", "[80,]"},
                                                               {"tcp_dst", "80%"},
                                                               {"tcp_dst", true}}) {
    EXPECT_THROW(parse_field_value(f, v), ProtocolError) << f << " " << v.dump();
  }
}

TEST(protocol_header_match, Prerequisites) {
  EXPECT_NO_THROW(parse_header_match(json::parse(R"({"eth_type":"0x0800","ip_proto":6,"tcp_dst":80})")));
  EXPECT_NO_THROW(parse_header_match(json::parse(R"({"eth_type":"[0x800,0x86dd]","ip_proto":17,"udp_dst":53})")));
  EXPECT_NO_THROW(parse_header_match(json::object()));
  EXPECT_THROW(parse_header_match(json::parse(R"({"ip_proto":6,"tcp_dst":80})")), ProtocolError);
  EXPECT_THROW(parse_header_match(json::parse(R"({"eth_type":"0x0800","tcp_dst":80})")), ProtocolError);
  EXPECT_THROW(parse_header_match(json::parse(R"({"eth_type":"0x0800","ip_proto":"[6:17]","tcp_dst":80})")),
               ProtocolError);
  EXPECT_THROW(parse_header_match(json::parse(R"({"eth_type":"0x86dd","ipv4_src":"1.2.3.4"})")), ProtocolError);
  EXPECT_THROW(parse_header_match(json::parse(R"({"eth_type":2048,"ETH_TYPE":2048})")), ProtocolError);
  EXPECT_THROW(parse_header_match(json::parse(R"({"vlan_pcp":3})")), ProtocolError);
}

TEST(protocol_base64, RoundTripAndRejects) {
  std::string all;
  for (int i = 0; i < 256; ++i) all.push_back(static_cast<char>(i));
  for (size_t n : {0, 1, 2, 3, 4, 5, 255, 256}) {
    std::string back;
    if (n == 0) continue;  // empty is not a file (check 10)
    ASSERT_TRUE(base64_decode(base64_encode(all.substr(0, n)), back));
    EXPECT_EQ(back, all.substr(0, n));
  }
  std::string out;
  EXPECT_EQ(base64_encode("hello"), "aGVsbG8=");
  EXPECT_TRUE(base64_decode("aGVsbG8=", out));
  EXPECT_EQ(out, "hello");
  EXPECT_FALSE(base64_decode("aGVsbG8", out));  // unpadded
  EXPECT_FALSE(base64_decode("", out));
  EXPECT_FALSE(base64_decode("aG=sbG8=", out));
  EXPECT_FALSE(base64_decode("aGVs*G8=", out));
  EXPECT_FALSE(base64_decode("a", out));
}

TEST(protocol_codec, ValidationOrder) {
  EXPECT_EQ(subtype_of("{\"type\": "), ErrorSubtype::ILLEGAL_ARGUMENT);
  EXPECT_EQ(subtype_of("[1]"), ErrorSubtype::ILLEGAL_ARGUMENT);
  EXPECT_EQ(subtype_of(R"({"xid": 1})"), ErrorSubtype::BAD_TYPE);
  EXPECT_EQ(subtype_of(R"({"type": "Nope", "xid": "x"})"), ErrorSubtype::BAD_TYPE);
  EXPECT_EQ(subtype_of(R"({"type": "Hello", "xid": -1, "version": "x"})"), ErrorSubtype::ILLEGAL_ARGUMENT);
  EXPECT_EQ(subtype_of(R"({"type": "Hello", "xid": 9007199254740992, "dpid": 1, "version": "1.1.0"})"),
            ErrorSubtype::ILLEGAL_ARGUMENT);
  EXPECT_EQ(subtype_of(R"({"type": "Hello", "xid": 1, "version": "one"})"), ErrorSubtype::BAD_VERSION);
  EXPECT_EQ(subtype_of(R"({"type": "Hello", "xid": 1, "version": "2.0"})"), ErrorSubtype::UNSUPPORTED_VERSION);
  EXPECT_EQ(subtype_of(R"({"type": "Hello", "xid": 1, "version": "1.0"})"), ErrorSubtype::ILLEGAL_ARGUMENT);  // no dpid
  EXPECT_EQ(subtype_of(R"({"type": "KeepAlive", "xid": 1, "dpid": 1} x)"), ErrorSubtype::ILLEGAL_ARGUMENT);
  EXPECT_EQ(subtype_of(R"({"type": "KeepAlive", "xid": 1.0, "dpid": 1})"), ErrorSubtype::ILLEGAL_ARGUMENT);
  EXPECT_EQ(subtype_of(R"({"type": "SetProcessingGraphRequest", "xid": 1, "blocks": [{"type": "Discard"}],
      "connectors": [{"src": 1}]})"),
            ErrorSubtype::BAD_BLOCK);
  EXPECT_EQ(subtype_of(R"({"type": "SetProcessingGraphRequest", "xid": 1,
      "blocks": [{"type": "HeaderClassifier", "name": "h", "config": {"match": [{"tcp_dst": 80}]}}],
      "connectors": [{"src": "a", "src_port": -1, "dst": "b", "dst_port": 0}]})"),
            ErrorSubtype::BAD_CONNECTOR);
  EXPECT_EQ(subtype_of(R"({"type": "SetProcessingGraphRequest", "xid": 1,
      "blocks": [{"type": "HeaderClassifier", "name": "h", "config": {"match": [{"tcp_dst": 80}]}}]})"),
            ErrorSubtype::BAD_HEADER_MATCH);
  EXPECT_EQ(subtype_of(R"({"type": "SetProcessingGraphRequest", "xid": 1, "blocks": [{"type": "HeaderPayloadClassifier",
      "name": "h", "config": {"match": [{"header_match": {}, "payload_match": [{"pattern": "a", "from": 5, "to": 1}]}]}}]})"),
            ErrorSubtype::BAD_PAYLOAD_MATCH);
  EXPECT_EQ(subtype_of(R"({"type": "AddCustomModule", "xid": 1, "module_name": "m", "module_content": "@@"})"),
            ErrorSubtype::BAD_FILE);
  EXPECT_EQ(subtype_of(R"({"type": "Error", "xid": 1, "error_type": "BAD_REQUEST", "error_subtype": "NO_ACCESS"})"),
            ErrorSubtype::ILLEGAL_ARGUMENT);
  EXPECT_EQ(subtype_of(R"({"type": "Alert", "xid": 1, "origin_dpid": 1, "messages": [{"id": 1, "timestamp": 1.5,
      "message": "m", "severity": 6, "origin_block": "a"}]})"),
            ErrorSubtype::ILLEGAL_ARGUMENT);
}

// Decoding checks every header match of a HeaderClassifier (BAD_HEADER_MATCH) and keeps
// the list it read in Block::match, so the OBI does not read the rules twice; nothing of
// it goes on the wire.
TEST(protocol_codec, KeepsTheHeaderClassifierRulesItRead) {
  const json rules = json::parse(R"([{"ETH_TYPE": "0x0800", "IP_PROTO": 6, "TCP_DST": "[80:90]"}, {}])");
  const json in = {{"type", "SetProcessingGraphRequest"},
                   {"xid", 1},
                   {"blocks",
                    {{{"type", "HeaderClassifier"}, {"name", "fw"}, {"config", {{"match", rules}}}},
                     {{"type", "Alert"}, {"name", "a"}, {"config", {{"message", "m"}}}},
                     {{"type", "HeaderClassifier"}, {"name", "no_config"}}}},
                   {"connectors", json::array()}};
  for (const Message& m : {decode(in.dump()), decode_json(in), decode_json(json(in))}) {
    const auto& g = std::get<SetProcessingGraphRequest>(m);
    ASSERT_EQ(g.blocks.size(), 3u);
    ASSERT_TRUE(g.blocks[0].match);
    ASSERT_EQ(g.blocks[0].match->size(), 2u);
    for (size_t i = 0; i < rules.size(); ++i) {
      const HeaderMatch want = parse_header_match(rules[i]);
      const HeaderMatch& got = (*g.blocks[0].match)[i];
      ASSERT_EQ(got.fields.size(), want.fields.size());
      for (size_t f = 0; f < want.fields.size(); ++f)
        EXPECT_EQ(to_canonical(got.fields[f]), to_canonical(want.fields[f]));
    }
    EXPECT_FALSE(g.blocks[1].match);
    EXPECT_FALSE(g.blocks[2].match);
    EXPECT_EQ(encode(m), in);
  }
}

TEST(protocol_codec, RoundTripAndTypedAccess) {
  const json in = json::parse(R"({"type": "SetProcessingGraphRequest", "xid": 42, "report_back": true,
      "blocks": [{"type": "FromDump", "name": "in", "config": {"filename": "a.pcap"}}, {"type": "Discard", "name": "d"}],
      "connectors": [{"src": "in", "src_port": 0, "dst": "d", "dst_port": 0}]})");
  Message m = decode(in.dump(), MessageType::SetProcessingGraphRequest);
  ASSERT_EQ(type_of(m), MessageType::SetProcessingGraphRequest);
  const auto& g = std::get<SetProcessingGraphRequest>(m);
  EXPECT_EQ(g.xid, 42u);
  ASSERT_EQ(g.blocks.size(), 2u);
  EXPECT_FALSE(g.blocks[1].config.has_value());
  EXPECT_EQ(encode(m), in);
  EXPECT_THROW(decode(in.dump(), MessageType::BarrierRequest), ProtocolError);

  Message alias = decode(R"({"type": "WriteResponse", "xid": 3, "block_id": "b", "read_handle": "h"})");
  EXPECT_EQ(encode(alias), json::parse(R"({"type": "WriteResponse", "xid": 3, "block_id": "b", "write_handle": "h"})"));
  EXPECT_EQ(encode(decode(R"({"type": "RemoveCustomModule", "xid": 3, "module_name": "x"})"))["type"],
            "RemoveCustomModuleRequest");
  EXPECT_EQ(salvage_xid(R"({"type": "Bad", "xid": 77})"), 77u);
  EXPECT_EQ(
      encode(make_error(5, ProtocolError(ErrorSubtype::BAD_GRAPH, "cycle"))),
      json::parse(
          R"({"type": "Error", "xid": 5, "error_type": "BAD_REQUEST", "error_subtype": "BAD_GRAPH", "message": "cycle"})"));
}
