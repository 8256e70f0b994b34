// parse_json_body: the one-pass, depth-bounded parse the REST server runs on every body,
// against the two steps it replaces (check_json_depth, then nlohmann::json::parse).
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <thread>
#include <vector>

#include "openbox/json_body.hh"
#include "openbox/messages.hh"

using nlohmann::json;
using namespace openbox;

namespace {

std::string nest(std::size_t depth, const std::string& inner = "1") {
  return std::string(depth, '[') + inner + std::string(depth, ']');
}

// The answer of the reference: depth scan first, then nlohmann's parser.
struct Outcome {
  bool ok = false;
  json tree;
  ErrorSubtype subtype = ErrorSubtype::INTERNAL_ERROR;
  std::string message;
};

Outcome reference(const std::string& body) {
  Outcome o;
  try {
    check_json_depth(body);
    if (body.find('\0') != std::string::npos)  // nlohmann would stop reading there
      throw ProtocolError(ErrorSubtype::ILLEGAL_ARGUMENT, "body is not valid JSON");
    o.tree = json::parse(body, nullptr, false);
    if (o.tree.is_discarded()) throw ProtocolError(ErrorSubtype::ILLEGAL_ARGUMENT, "body is not valid JSON");
    o.ok = true;
  } catch (const ProtocolError& e) {
    o.subtype = e.subtype();
    o.message = e.what();
  }
  return o;
}

Outcome one_pass(const std::string& body) {
  Outcome o;
  try {
    o.tree = parse_json_body(body);
    o.ok = true;
  } catch (const ProtocolError& e) {
    o.subtype = e.subtype();
    o.message = e.what();
  }
  return o;
}

void expect_same(const std::string& body) {
  const Outcome a = reference(body), b = one_pass(body);
  ASSERT_EQ(a.ok, b.ok) << body.substr(0, 200);
  if (a.ok) {
    EXPECT_TRUE(same_json(a.tree, b.tree)) << body.substr(0, 200);
    EXPECT_TRUE(same_json(a.tree, parse_json_body_reference(body))) << body.substr(0, 200);
    json fast;
    if (parse_json_body_fast(body, kMaxJsonDepth, fast)) {
      EXPECT_TRUE(same_json(a.tree, fast)) << body.substr(0, 200);
    }
  } else {
    EXPECT_EQ(a.subtype, b.subtype) << body.substr(0, 200);
    EXPECT_EQ(a.message, b.message) << body.substr(0, 200);
  }
}

}  // namespace

TEST(json_body, BuildsTheTreeNlohmannBuilds) {
  for (const char* body :
       {R"({"type":"KeepAlive","xid":7,"dpid":1})", "[]", "{}", "0", "-12", "1.5e300", "18446744073709551615",
        "-9223372036854775808", "\"a\\u00e9\\ud83d\\ude00\"", "null", "true",
        R"([1,[2,[3,{"a":[4,{"b":null}]}]],"x",{}])", R"({"a":1,"a":2,"b":{"a":3}})", " \n\t{ \"k\" : [ ] } "}) {
    SCOPED_TRACE(body);
    expect_same(body);
  }
  EXPECT_EQ(parse_json_body(R"({"a":1,"a":2})"), json::parse(R"({"a":2})"));  // the last key wins, as in json::parse
}

TEST(json_body, TheFastPathReadsNumbersAndStringsAsNlohmannDoes) {
  // number kinds: non-negative integers unsigned, negative ones signed, the rest floating
  // point; -0 is a signed integer to nlohmann, so a body that may hold it takes the reference
  for (const char* body :
       {"0", "7", "-7", "-0", "[-0]", "{\"a\": -0}", "[1,\n -0 ]", "-0.0", "-0e1", "0.0", "1E2", "1e-2",
        "18446744073709551615", "18446744073709551616", "-9223372036854775808", "-9223372036854775809",
        "[\"alert-0\", \"x:-0\", 3]", "\"-0\"", R"({"a\"b":"\u0000\n\\","c":"\ud83d\ude00"})", R"({"b":1,"a":2,"b":3})",
        "1E-400", "4.9e-324", "[1e999]",
        // both refuse: lone surrogates, overlong or surrogate UTF-8, a raw control
        "\"\\ud800\"", "\"\\udc00\\u0041\"", "\"\xed\xa0\x80\"", "\"\xc0\xaf\"", "\"\xf4\x90\x80\x80\"", "\"\x1f\""}) {
    SCOPED_TRACE(body);
    expect_same(body);
  }
  json out;
  EXPECT_FALSE(parse_json_body_fast("[-0]", kMaxJsonDepth, out));
  EXPECT_FALSE(parse_json_body_fast("18446744073709551616", kMaxJsonDepth, out));  // beyond 64 bits
  EXPECT_FALSE(parse_json_body_fast("{", kMaxJsonDepth, out));
  EXPECT_FALSE(parse_json_body_fast(nest(kMaxJsonDepth + 1), kMaxJsonDepth, out));
  EXPECT_FALSE(parse_json_body_fast(nest(4), 3, out));
  EXPECT_TRUE(out.is_null());  // refused bodies leave it alone
  // names such as "firewall.alert-0" do not keep a graph from the fast path
  ASSERT_TRUE(parse_json_body_fast(R"({"blocks":[{"name":"fw.alert-0"}],"n":[-1, 0, 2.5]})", kMaxJsonDepth, out));
  EXPECT_TRUE(same_json(out, json::parse(R"({"blocks":[{"name":"fw.alert-0"}],"n":[-1, 0, 2.5]})")));
  EXPECT_TRUE(out["n"][1].is_number_unsigned());
  EXPECT_TRUE(out["n"][0].is_number_integer() && !out["n"][0].is_number_unsigned());
  EXPECT_TRUE(parse_json_body_fast(nest(3), 3, out));
  // same_json tells number kinds apart where == does not
  EXPECT_EQ(json(0u), json(0));
  EXPECT_FALSE(same_json(json(0u), json(0)));
  EXPECT_FALSE(same_json(json::parse(R"({"a":[1]})"), json::parse(R"({"a":[-0]})")));
}

TEST(json_body, RefusesNestingOverTheBoundWhileParsing) {
  EXPECT_EQ(parse_json_body(nest(kMaxJsonDepth)), json::parse(nest(kMaxJsonDepth)));
  for (const std::string& body :
       {nest(kMaxJsonDepth + 1), nest(100000), std::string(1000000, '['), "{\"a\":" + nest(kMaxJsonDepth) + "}"}) {
    try {
      parse_json_body(body);
      ADD_FAILURE() << "accepted a body " << json_depth(body, SIZE_MAX) << " deep";
    } catch (const ProtocolError& e) {
      EXPECT_EQ(e.subtype(), ErrorSubtype::ILLEGAL_ARGUMENT);
      EXPECT_EQ(std::string(e.what()), "body nests arrays/objects deeper than 64 levels");
    }
    expect_same(body);
  }
  // A smaller bound is honoured too.
  EXPECT_NO_THROW(parse_json_body(nest(3), 3));
  EXPECT_THROW(parse_json_body(nest(4), 3), ProtocolError);
}

TEST(json_body, AnswersInvalidJsonAsTheTwoStepsDid) {
  // Invalid JSON: "not valid JSON", unless the body also nests too deep anywhere (even after
  // the error), which was checked first.
  for (const std::string& body :
       {std::string(""), std::string("{"), std::string("{\"a\":}"), std::string("[1,]"), std::string("nul"),
        std::string("{} {}"), std::string("\"\\x\""), std::string("\"\xff\""), std::string("1e999"),
        std::string("[1 2]"), "x" + nest(kMaxJsonDepth + 1), "[1,}" + nest(kMaxJsonDepth + 1),
        nest(kMaxJsonDepth, "1,") + "]", "[\"]" + nest(kMaxJsonDepth + 1) + "\"x"}) {
    SCOPED_TRACE(body.substr(0, 80));
    expect_same(body);
    EXPECT_THROW(parse_json_body(body), ProtocolError);
  }
}

TEST(json_body, RefusesANulByteThatWouldEndTheInput) {
  // nlohmann's lexer ends the input at a NUL outside a string: these would parse as 1 and {}
  using namespace std::string_literals;
  for (const std::string& body : {"1\0\0\0[[[[[]]]]]"s, "{}\0garbage"s, "{\"type\": \"Hello\"}\0"s, "\0"s}) {
    SCOPED_TRACE(json(body).dump());
    try {
      parse_json_body(body);
      ADD_FAILURE() << "accepted";
    } catch (const ProtocolError& e) {
      EXPECT_EQ(e.subtype(), ErrorSubtype::ILLEGAL_ARGUMENT);
      EXPECT_STREQ(e.what(), "body is not valid JSON");
    }
    expect_same(body);
  }
  // nested too deep behind the NUL: the depth answer, as for any invalid body
  try {
    parse_json_body("1\0"s + nest(kMaxJsonDepth + 1));
    ADD_FAILURE() << "accepted";
  } catch (const ProtocolError& e) {
    EXPECT_NE(std::string(e.what()).find("deeper than"), std::string::npos) << e.what();
  }
}

TEST(json_body, MessageVectorsParseAlike) {
  // Every message vector body, valid or not, and a large graph request.
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(OPENBOX_ROOT) / "protocol" / "vectors" / "messages";
  std::size_t n = 0;
  for (const auto& f : fs::recursive_directory_iterator(dir)) {
    if (f.path().extension() != ".json") continue;
    std::ifstream in(f.path());
    std::stringstream ss;
    ss << in.rdbuf();
    SCOPED_TRACE(f.path().string());
    expect_same(ss.str());
    ++n;
  }
  EXPECT_GT(n, 10u);
  json blocks = json::array(), connectors = json::array();
  for (int i = 0; i < 3000; ++i) {
    blocks.push_back({{"type", "Alert"},
                      {"name", "a" + std::to_string(i)},
                      {"config", {{"alerts", {{{"message", "rule " + std::to_string(i)}, {"severity", 3}}}}}}});
    connectors.push_back({{"src", "c"}, {"src_port", i}, {"dst", "a" + std::to_string(i)}, {"dst_port", 0}});
  }
  const std::string big =
      json{{"type", "SetProcessingGraphRequest"}, {"xid", 1}, {"blocks", blocks}, {"connectors", connectors}}.dump();
  expect_same(big);
  json fast;
  EXPECT_TRUE(parse_json_body_fast(big, kMaxJsonDepth, fast));  // a graph takes the fast path
}

// The fast path keeps one parser from body to body: a small body after a large one, a
// tighter depth bound after the default one, a body over the kept size and bodies parsed
// on several threads at once (one gets the kept parser, the others their own) are each
// read exactly as the reference reads them.
TEST(json_body, AKeptParserReadsEachBodyAfresh) {
  auto rules = [](std::size_t n, int salt) {
    json m = json::array();
    for (std::size_t i = 0; i < n; ++i)
      m.push_back({{"IPV4_SRC", "10.0." + std::to_string(i % 250) + "." + std::to_string(salt)}, {"n", i}});
    return json{{"type", "SetProcessingGraphRequest"}, {"xid", salt}, {"match", m}}.dump();
  };
  const std::string large = rules(20000, 1), small = rules(3, 2), huge = rules(300000, 3);
  ASSERT_GT(huge.size(), std::size_t{8} << 20);  // over the kept size
  for (const std::string* b : {&large, &small, &large, &huge, &small}) {
    json fast;
    ASSERT_TRUE(parse_json_body_fast(*b, kMaxJsonDepth, fast));
    EXPECT_TRUE(same_json(fast, parse_json_body_reference(*b)));
  }
  json out;
  EXPECT_TRUE(parse_json_body_fast(nest(3), 3, out));
  EXPECT_FALSE(parse_json_body_fast(nest(4), 3, out));  // the tighter bound, on the kept parser
  EXPECT_TRUE(parse_json_body_fast(nest(kMaxJsonDepth), kMaxJsonDepth, out));

  std::vector<std::thread> threads;
  std::atomic<int> wrong{0};
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      const std::string mine = rules(5000 + 100 * t, 10 + t);
      const json want = parse_json_body_reference(mine);
      for (int i = 0; i < 20; ++i) {
        json got;
        if (!parse_json_body_fast(mine, kMaxJsonDepth, got) || !same_json(got, want)) ++wrong;
      }
    });
  for (std::thread& th : threads) th.join();
  EXPECT_EQ(wrong.load(), 0);
}

namespace {

// What a body decodes to: the message (encoded, with each block's kept match count) or
// the error. decode() and the two steps it stands for must give the same.
struct Decoded {
  bool ok = false;
  json message;
  std::vector<long> matches;  // per block: rules kept in Block::match, -1 for none
  std::string error;
};

Decoded decoded(const std::function<Message()>& decode_it) {
  Decoded d;
  try {
    Message m = decode_it();
    d.ok = true;
    d.message = encode(m);
    if (auto* g = std::get_if<SetProcessingGraphRequest>(&m))
      for (const Block& b : g->blocks) d.matches.push_back(b.match ? static_cast<long>(b.match->size()) : -1);
  } catch (const ProtocolError& e) {
    d.error = std::string(to_string(e.subtype())) + ": " + e.what();
  }
  return d;
}

void expect_same_decode(const std::string& body, bool fast) {
  SCOPED_TRACE(body.substr(0, 200));
  SetProcessingGraphRequest unused;
  EXPECT_EQ(decode_graph_request_fast(body, std::nullopt, kMaxJsonDepth, unused), fast);
  const Decoded a = decoded([&] { return decode(body); });
  const Decoded b = decoded([&] { return decode_json(parse_json_body(body)); });
  EXPECT_EQ(a.ok, b.ok) << a.error << " / " << b.error;
  EXPECT_TRUE(a.ok || !fast) << a.error;
  EXPECT_TRUE(same_json(a.message, b.message)) << a.message.dump() << "\n" << b.message.dump();
  EXPECT_EQ(a.matches, b.matches);
  EXPECT_EQ(a.error, b.error);
}

json graph_request() {
  return json::parse(R"({"type": "SetProcessingGraphRequest", "xid": 7, "report_back": false,
      "required_modules": ["m1"],
      "blocks": [{"type": "FromDevice", "name": "in", "config": {"devname": "eth0"}},
                 {"type": "HeaderClassifier", "name": "fw",
                  "config": {"match": [{"ETH_TYPE": "0x0800", "IP_PROTO": 6, "IPV4_DST": "10.0.0.0/8", "TCP_DST": "[80:90]"}, {}],
                             "priority": [2, -1.5]}},
                 {"type": "Alert", "name": "a0", "config": {"alerts": [{"message": "rule 0", "severity": 3}]}},
                 {"type": "HeaderPayloadClassifier", "name": "ips",
                  "config": {"match": [{"header_match": {"ETH_TYPE": "0x0800", "IP_PROTO": 6},
                                        "payload_match": [{"pattern": "GET", "from": 0, "to": 3}]}]}},
                 {"type": "Discard", "name": "out"}],
      "connectors": [{"src": "in", "src_port": 0, "dst": "fw", "dst_port": 0},
                     {"src": "fw", "src_port": 0, "dst": "a0", "dst_port": 0},
                     {"src": "a0", "src_port": 0, "dst": "ips", "dst_port": 0},
                     {"src": "ips", "src_port": 0, "dst": "out", "dst_port": 0},
                     {"src": "fw", "src_port": 1, "dst": "out", "dst_port": 0}]})");
}

}  // namespace

// decode() reads a graph request in the form controllers send without a tree of the whole
// body; the message (block configurations to the number kinds, kept match lists) or the
// error is the one of parse_json_body + decode_json, and every other form takes that path.
TEST(json_body, AGraphRequestDecodesWithoutTheWholeTreeAsWithIt) {
  const json g = graph_request();
  expect_same_decode(g.dump(), true);
  expect_same_decode(g.dump(2), true);  // whitespace
  {
    SetProcessingGraphRequest out;
    ASSERT_TRUE(decode_graph_request_fast(g.dump(), MessageType::SetProcessingGraphRequest, kMaxJsonDepth, out));
    EXPECT_EQ(out.blocks.size(), 5u);
    EXPECT_EQ(out.connectors.size(), 5u);
    ASSERT_TRUE(out.blocks[1].match);
    EXPECT_EQ(out.blocks[1].match->size(), 2u);
    EXPECT_FALSE(out.blocks[3].match);  // kept for HeaderClassifier only, as decode_json does
    EXPECT_FALSE(decode_graph_request_fast(g.dump(), MessageType::BarrierRequest, kMaxJsonDepth, out));
  }
  // Forms left to the tree, decoded or refused as there.
  auto variant = [&g](const std::function<void(json&)>& change) {
    json v = g;
    change(v);
    return v.dump();
  };
  const std::vector<std::string> tree_path = {
      variant([](json& v) {
        v["extension"] = {{"deep", json::array({json::array()})}};
      }),  // ignored field
      variant([](json& v) { v["blocks"][2]["crid"] = 3; }),
      variant([](json& v) { v["connectors"][0]["label"] = "x"; }),
      variant([](json& v) { v["blocks"][1]["config"] = nullptr; }),
      variant([](json& v) { v["blocks"][4]["name"] = "in"; }),  // a name twice
      variant([](json& v) { v["blocks"][4]["name"] = ""; }),
      variant([](json& v) { v["blocks"][1]["config"]["match"][0]["TCP_DST"] = "[90:80]"; }),
      variant([](json& v) { v["blocks"][1]["config"]["match"] = "all"; }),
      variant([](json& v) { v["blocks"][3]["config"]["match"][0]["payload_match"][0]["from"] = 9; }),
      variant([](json& v) { v["connectors"][1]["src_port"] = 1.0; }),
      variant([](json& v) { v["connectors"][1]["src_port"] = -1; }),
      variant([](json& v) { v["connectors"][1]["dst_port"] = uint64_t{1} << 31; }),
      variant([](json& v) { v["connectors"][1].erase("dst_port"); }),
      variant([](json& v) { v["connectors"] = json::object(); }),
      variant([](json& v) { v.erase("connectors"); }),
      variant([](json& v) { v["xid"] = uint64_t{1} << 53; }),
      variant([](json& v) { v["xid"] = -1; }),
      variant([](json& v) { v["report_back"] = 1; }),
      variant([](json& v) { v["required_modules"] = {1}; }),
      variant([](json& v) { v["type"] = "SetProcessingGraphResponse"; }),
      variant([](json& v) { v["blocks"][0] = json::array(); }),
  };
  for (const std::string& body : tree_path) expect_same_decode(body, false);
  // A key twice: the tree keeps the last.
  std::string twice = g.dump();
  twice.replace(twice.find("\"name\":\"a0\""), 11, "\"name\":\"zz\",\"name\":\"a0\"");
  expect_same_decode(twice, false);
  // Configurations as deep as the bound allows (the body's 64 levels), and one level more.
  auto deep_config = [&g](std::size_t levels) {
    json v = g;
    v["blocks"][0]["config"]["deep"] = json::parse(nest(levels));
    return v.dump();
  };
  expect_same_decode(deep_config(kMaxJsonDepth - 4), true);
  expect_same_decode(deep_config(kMaxJsonDepth - 3), false);
}
