// Message codec: validation in the README's order (JSON, type, xid, version, blocks,
// connectors, header matches, payload matches, module content, everything else),
// typed decoding and encoding.
#include "openbox/messages.hh"

#include <array>
#include <set>
#include <unordered_set>

#include "openbox/header_match.hh"
#include "openbox/json_body.hh"

namespace openbox {
namespace {

using json = nlohmann::json;

constexpr std::array<std::string_view, static_cast<size_t>(MessageType::kCount)> kNames{"Hello",
                                                                                        "KeepAlive",
                                                                                        "ListCapabilitiesRequest",
                                                                                        "ListCapabilitiesResponse",
                                                                                        "SetParametersRequest",
                                                                                        "SetParametersResponse",
                                                                                        "GetParametersRequest",
                                                                                        "GetParametersResponse",
                                                                                        "GlobalStatsRequest",
                                                                                        "GlobalStatsResponse",
                                                                                        "GlobalStatsReset",
                                                                                        "ReadRequest",
                                                                                        "ReadResponse",
                                                                                        "WriteRequest",
                                                                                        "WriteResponse",
                                                                                        "SetProcessingGraphRequest",
                                                                                        "SetProcessingGraphResponse",
                                                                                        "BarrierRequest",
                                                                                        "Error",
                                                                                        "Alert",
                                                                                        "Log",
                                                                                        "AddCustomModuleRequest",
                                                                                        "AddCustomModuleResponse",
                                                                                        "RemoveCustomModuleRequest",
                                                                                        "RemoveCustomModuleResponse"};

[[noreturn]] void fail(ErrorSubtype s, const std::string& why) { throw ProtocolError(s, why); }

constexpr uint64_t kIdLimit = (uint64_t{1} << 63) - 1;  // dpid, origin_dpid, entry id (inclusive)

bool is_uint(const json& v) { return v.is_number_unsigned() || (v.is_number_integer() && v.get<int64_t>() >= 0); }

std::string kind(const json& v) {
  if (v.is_null()) return "null";
  if (v.is_boolean()) return "a boolean";
  if (v.is_number_integer()) return "an integer";
  if (v.is_number()) return "a number";
  if (v.is_string()) return "a string";
  if (v.is_array()) return "an array";
  return "an object";
}

// --- checks 4..10: the structured parts, before the generic field check ---

void check_version(const json& body) {
  auto it = body.find("version");
  if (it == body.end() || !it->is_string()) return;  // left to check 11
  const std::string& v = it->get_ref<const std::string&>();
  // MAJOR.MINOR[.PATCH], each a run of digits
  int parts = 0;
  size_t i = 0;
  bool ok = true;
  while (ok) {
    size_t start = i;
    while (i < v.size() && v[i] >= '0' && v[i] <= '9') ++i;
    if (i == start || i - start > 9) {
      ok = false;
      break;
    }
    ++parts;
    if (i == v.size()) break;
    if (v[i] != '.' || parts == 3) {
      ok = false;
      break;
    }
    ++i;
  }
  if (!ok || parts < 2) fail(ErrorSubtype::BAD_VERSION, "Hello.version \"" + v + "\" is not MAJOR.MINOR[.PATCH]");
  if (std::stoul(v.substr(0, v.find('.'))) != 1)
    fail(ErrorSubtype::UNSUPPORTED_VERSION, "OpenBox version " + v + " is not supported (major version 1 only)");
}

// A block whose header / payload matches checks 8 and 9 read (a HeaderClassifier or
// HeaderPayloadClassifier with a config), found by check_blocks.
struct MatchBlock {
  const std::string* type;
  const std::string* name;
  const json* config;
  std::size_t index;  // in "blocks"
};

// Blocks whose config holds header matches (checks 8) and payload matches (check 9).
bool holds_matches(const std::string& type) { return type == "HeaderClassifier" || type == "HeaderPayloadClassifier"; }

std::vector<MatchBlock> check_blocks(const json& body) {
  std::vector<MatchBlock> match_blocks;
  auto it = body.find("blocks");
  if (it == body.end() || !it->is_array()) return match_blocks;
  std::unordered_set<std::string_view> names;  // views of the tree's strings
  names.reserve(it->size());
  size_t i = 0;
  for (const auto& b : *it) {
    // built only for an error: a graph has thousands of blocks
    auto where = [i] { return "blocks[" + std::to_string(i) + "]"; };
    ++i;
    if (!b.is_object()) fail(ErrorSubtype::BAD_BLOCK, where() + " is " + kind(b) + ", not an object");
    for (const char* f : {"type", "name"}) {
      auto v = b.find(f);
      if (v == b.end()) fail(ErrorSubtype::BAD_BLOCK, where() + " has no \"" + f + "\"");
      if (!v->is_string()) fail(ErrorSubtype::BAD_BLOCK, where() + "." + f + " is " + kind(*v) + ", not a string");
      if (v->get_ref<const std::string&>().empty()) fail(ErrorSubtype::BAD_BLOCK, where() + "." + f + " is empty");
    }
    const std::string& name = b["name"].get_ref<const std::string&>();
    auto c = b.find("config");
    if (c != b.end() && !c->is_object())
      fail(ErrorSubtype::BAD_BLOCK, "block \"" + name + "\": config is " + kind(*c) + ", not an object");
    if (!names.insert(name).second) fail(ErrorSubtype::BAD_BLOCK, "block name \"" + name + "\" used twice");
    const std::string& type = b["type"].get_ref<const std::string&>();
    if (c != b.end() && holds_matches(type)) match_blocks.push_back({&type, &name, &*c, i - 1});
  }
  return match_blocks;
}

void check_connectors(const json& body) {
  auto it = body.find("connectors");
  if (it == body.end() || !it->is_array()) return;
  size_t i = 0;
  for (const auto& c : *it) {
    auto where = [i] { return "connectors[" + std::to_string(i) + "]"; };  // for an error only
    ++i;
    if (!c.is_object()) fail(ErrorSubtype::BAD_CONNECTOR, where() + " is " + kind(c) + ", not an object");
    for (const char* f : {"src", "dst"}) {
      auto v = c.find(f);
      if (v == c.end()) fail(ErrorSubtype::BAD_CONNECTOR, where() + " has no \"" + f + "\"");
      if (!v->is_string()) fail(ErrorSubtype::BAD_CONNECTOR, where() + "." + f + " is " + kind(*v) + ", not a string");
      if (v->get_ref<const std::string&>().empty()) fail(ErrorSubtype::BAD_CONNECTOR, where() + "." + f + " is empty");
    }
    for (const char* f : {"src_port", "dst_port"}) {
      auto v = c.find(f);
      if (v == c.end()) fail(ErrorSubtype::BAD_CONNECTOR, where() + " has no \"" + f + "\"");
      if (!v->is_number_integer())
        fail(ErrorSubtype::BAD_CONNECTOR, where() + "." + f + " is " + kind(*v) + ", not an integer");
      if (!is_uint(*v)) fail(ErrorSubtype::BAD_CONNECTOR, where() + "." + f + " is negative");
      if (v->get<uint64_t>() >= kPortLimit) fail(ErrorSubtype::BAD_CONNECTOR, where() + "." + f + " is too large");
    }
  }
}

// Blocks that passed check 6, of the given type, with their config, in block order.
template <typename F>
void for_blocks_of(const std::vector<MatchBlock>& blocks, std::string_view type, F f) {
  for (const MatchBlock& b : blocks)
    if (*b.type == type) f(b);
}

// `where` names the match in an error; it is only built then (a graph has thousands).
template <typename Where>
HeaderMatch parse_match_in(const json& m, Where where) {
  try {
    return parse_header_match(m);
  } catch (const ProtocolError& e) {
    fail(ErrorSubtype::BAD_HEADER_MATCH, where() + ": " + e.what());
  }
}

std::string match_at(const std::string& block, std::size_t i) {
  return "block \"" + block + "\" match[" + std::to_string(i) + "]";
}

// A HeaderClassifier's match list as check 8 read it, by block index (Block::match).
using ReadMatches = std::vector<std::pair<std::size_t, SharedHeaderMatches>>;

void check_header_matches(const std::vector<MatchBlock>& blocks, ReadMatches& read) {
  for_blocks_of(blocks, "HeaderClassifier", [&read](const MatchBlock& b) {
    const std::string& name = *b.name;
    const json& config = *b.config;
    auto m = config.find("match");
    if (m == config.end()) return;  // a missing argument is a catalogue (BAD_BLOCK) matter
    if (!m->is_array()) fail(ErrorSubtype::BAD_HEADER_MATCH, "block \"" + name + "\": match is not an array");
    std::vector<HeaderMatch> rules;
    rules.reserve(m->size());
    for (size_t i = 0; i < m->size(); ++i) rules.push_back(parse_match_in((*m)[i], [&] { return match_at(name, i); }));
    read.emplace_back(b.index, std::make_shared<const std::vector<HeaderMatch>>(std::move(rules)));
  });
  for_blocks_of(blocks, "HeaderPayloadClassifier", [](const MatchBlock& b) {
    const std::string& name = *b.name;
    const json& config = *b.config;
    auto m = config.find("match");
    if (m == config.end()) return;
    if (!m->is_array()) fail(ErrorSubtype::BAD_HEADER_MATCH, "block \"" + name + "\": match is not an array");
    for (size_t i = 0; i < m->size(); ++i) {
      const json& entry = (*m)[i];
      if (!entry.is_object()) fail(ErrorSubtype::BAD_HEADER_MATCH, match_at(name, i) + " is not an object");
      auto hm = entry.find("header_match");
      if (hm != entry.end()) parse_match_in(*hm, [&] { return match_at(name, i) + ".header_match"; });
    }
  });
}

void check_payload_matches(const std::vector<MatchBlock>& blocks) {
  for_blocks_of(blocks, "HeaderPayloadClassifier", [](const MatchBlock& b) {
    const std::string& name = *b.name;
    const json& config = *b.config;
    auto m = config.find("match");
    if (m == config.end()) return;
    for (size_t i = 0; i < m->size(); ++i) {
      const std::string where = match_at(name, i) + ".payload_match";
      auto pm = (*m)[i].find("payload_match");
      if (pm == (*m)[i].end()) continue;
      if (!pm->is_array()) fail(ErrorSubtype::BAD_PAYLOAD_MATCH, where + " is not an array");
      for (size_t k = 0; k < pm->size(); ++k) {
        const json& p = (*pm)[k];
        const std::string w = where + "[" + std::to_string(k) + "]";
        if (!p.is_object()) fail(ErrorSubtype::BAD_PAYLOAD_MATCH, w + " is not an object");
        auto pat = p.find("pattern");
        if (pat == p.end() || !pat->is_string())
          fail(ErrorSubtype::BAD_PAYLOAD_MATCH, w + " needs a string \"pattern\"");
        auto r = p.find("is_regex");
        if (r != p.end() && !r->is_boolean()) fail(ErrorSubtype::BAD_PAYLOAD_MATCH, w + ".is_regex is not a boolean");
        auto from = p.find("from"), to = p.find("to");
        auto offset_ok = [](const json& v) {
          return v.is_number_integer() && is_uint(v) && v.get<uint64_t>() < kPortLimit;
        };
        if (from != p.end() && !offset_ok(*from))
          fail(ErrorSubtype::BAD_PAYLOAD_MATCH, w + ".from is not an integer in [0, 2^31)");
        if (to != p.end() && !offset_ok(*to))
          fail(ErrorSubtype::BAD_PAYLOAD_MATCH, w + ".to is not an integer in [0, 2^31)");
        if (from != p.end() && to != p.end() && from->get<uint64_t>() > to->get<uint64_t>())
          fail(ErrorSubtype::BAD_PAYLOAD_MATCH, w + ": from > to");
      }
    }
  });
}

void check_module_content(const json& body) {
  auto it = body.find("module_content");
  if (it == body.end() || !it->is_string()) return;
  std::string bytes;
  if (!base64_decode(it->get_ref<const std::string&>(), bytes))
    fail(ErrorSubtype::BAD_FILE, "module_content is not valid base64");
}

// Checks 8 and 9; the HeaderClassifier lists check 8 read go to `read`.
void check_matches(const std::vector<MatchBlock>& blocks, ReadMatches& read) {
  check_header_matches(blocks, read);
  check_payload_matches(blocks);
}

// The lists check 8 read go to the decoded blocks (by index: the same order).
void put_read_matches(std::vector<Block>& blocks, ReadMatches& read) {
  for (auto& [i, rules] : read)
    if (i < blocks.size()) blocks[i].match = std::move(rules);
}

// --- check 11: typed field access ---

class Fields {
 public:
  Fields(const json& j, std::string where) : j_(j), where_(std::move(where)) {}

  [[noreturn]] void bad(const std::string& f, const std::string& why) const {
    fail(ErrorSubtype::ILLEGAL_ARGUMENT, where_ + "." + f + " " + why);
  }
  const json* opt(const char* f) const {
    auto it = j_.find(f);
    return it == j_.end() ? nullptr : &*it;
  }
  const json& req(const char* f) const {
    const json* v = opt(f);
    if (!v) fail(ErrorSubtype::ILLEGAL_ARGUMENT, where_ + ": required field \"" + f + "\" is missing");
    return *v;
  }
  std::string str(const char* f) const { return as_str(f, req(f)); }
  std::optional<std::string> opt_str(const char* f) const {
    const json* v = opt(f);
    return v ? std::optional<std::string>(as_str(f, *v)) : std::nullopt;
  }
  uint64_t uint(const char* f, uint64_t limit = UINT64_MAX) const { return as_uint(f, req(f), limit); }
  std::optional<uint64_t> opt_uint(const char* f, uint64_t limit = UINT64_MAX) const {
    const json* v = opt(f);
    return v ? std::optional<uint64_t>(as_uint(f, *v, limit)) : std::nullopt;
  }
  double number(const char* f) const {
    const json& v = req(f);
    if (!v.is_number()) bad(f, "is " + kind(v) + ", not a number");
    return v.get<double>();
  }
  json object(const char* f) const { return as_object(f, req(f)); }
  std::optional<json> opt_object(const char* f) const {
    const json* v = opt(f);
    return v ? std::optional<json>(as_object(f, *v)) : std::nullopt;
  }
  std::optional<bool> opt_bool(const char* f) const {
    const json* v = opt(f);
    if (!v) return std::nullopt;
    if (!v->is_boolean()) bad(f, "is " + kind(*v) + ", not a boolean");
    return v->get<bool>();
  }
  std::vector<std::string> strings(const char* f, const json& v) const {
    if (!v.is_array()) bad(f, "is " + kind(v) + ", not an array of strings");
    std::vector<std::string> out;
    for (const auto& e : v) {
      if (!e.is_string()) bad(f, "has an element that is " + kind(e) + ", not a string");
      out.push_back(e.get<std::string>());
    }
    return out;
  }
  const json& array(const char* f, const json& v) const {
    if (!v.is_array()) bad(f, "is " + kind(v) + ", not an array");
    return v;
  }
  const std::string& where() const { return where_; }

 private:
  std::string as_str(const char* f, const json& v) const {
    if (!v.is_string()) bad(f, "is " + kind(v) + ", not a string");
    return v.get<std::string>();
  }
  uint64_t as_uint(const char* f, const json& v, uint64_t limit) const {
    if (!v.is_number_integer()) bad(f, "is " + kind(v) + ", not an integer");
    if (!is_uint(v)) bad(f, "is negative");
    uint64_t x = v.get<uint64_t>();
    if (x > limit) bad(f, "is out of range (at most " + std::to_string(limit) + ")");
    return x;
  }
  json as_object(const char* f, const json& v) const {
    if (!v.is_object()) bad(f, "is " + kind(v) + ", not an object");
    return v;
  }

  const json& j_;
  std::string where_;
};

// A string of the tree: copied, or moved out of a tree the decoder owns (decode_json(json&&),
// whose graph has thousands of block and connector names).
std::string take_string(const json& v) { return v.get<std::string>(); }
std::string take_string(json& v) { return std::move(v.get_ref<std::string&>()); }

// J: const json, or json when the decoder owns the tree. Checks 6 and 7 passed.
template <typename J>
std::vector<Block> read_blocks(const Fields& f, J& v) {
  f.array("blocks", v);
  std::vector<Block> out;
  out.reserve(v.size());
  for (auto& b : v) {
    Block blk{take_string(*b.find("type")), take_string(*b.find("name")), std::nullopt, nullptr};
    if (auto c = b.find("config"); c != b.end()) blk.config = *c;
    out.push_back(std::move(blk));
  }
  return out;
}

template <typename J>
std::vector<Connector> read_connectors(const Fields& f, J& v) {
  f.array("connectors", v);
  std::vector<Connector> out;
  out.reserve(v.size());
  for (auto& c : v)
    out.push_back({take_string(*c.find("src")), c.find("src_port")->template get<uint64_t>(),
                   take_string(*c.find("dst")), c.find("dst_port")->template get<uint64_t>()});
  return out;
}

template <typename J>
J& field(J& body, const Fields& f, const char* name) {
  f.req(name);  // its error when missing
  return *body.find(name);
}

template <typename J>
SetProcessingGraphRequest read_graph_request(J& body, uint64_t xid) {
  Fields f(body, "SetProcessingGraphRequest");
  SetProcessingGraphRequest m;
  m.xid = xid;
  if (const json* r = f.opt("required_modules")) m.required_modules = f.strings("required_modules", *r);
  m.blocks = read_blocks(f, field(body, f, "blocks"));
  m.connectors = read_connectors(f, field(body, f, "connectors"));
  m.report_back = f.opt_bool("report_back");
  return m;
}

template <typename J>
SetProcessingGraphResponse read_graph_response(J& body, uint64_t xid) {
  Fields f(body, "SetProcessingGraphResponse");
  SetProcessingGraphResponse m;
  m.xid = xid;
  if (f.opt("blocks")) m.blocks = read_blocks(f, field(body, f, "blocks"));
  if (f.opt("connectors")) m.connectors = read_connectors(f, field(body, f, "connectors"));
  return m;
}

void check_capabilities(const Fields& f, const json& caps) {
  auto cm = caps.find("complex_match");
  if (cm == caps.end()) return;
  static const std::set<std::string> kAllowed{"full", "lists", "ranges", "basic"};
  if (!cm->is_array() || cm->size() != 1 || !(*cm)[0].is_string() || !kAllowed.count((*cm)[0].get<std::string>()))
    f.bad("capabilities.complex_match", "must be an array with exactly one of full, lists, ranges, basic");
}

std::vector<EventEntry> read_entries(const Fields& f, bool alert) {
  std::vector<EventEntry> out;
  const json& arr = f.array("messages", f.req("messages"));
  for (size_t i = 0; i < arr.size(); ++i) {
    const json& e = arr[i];
    const std::string where = f.where() + ".messages[" + std::to_string(i) + "]";
    if (!e.is_object()) fail(ErrorSubtype::ILLEGAL_ARGUMENT, where + " is " + kind(e) + ", not an object");
    Fields ef(e, where);
    EventEntry en;
    en.id = ef.uint("id", kIdLimit);
    en.timestamp = ef.number("timestamp");
    if (en.timestamp < 0) ef.bad("timestamp", "is negative");
    en.message = ef.str("message");
    uint64_t sev = ef.uint("severity");
    if (sev < 1 || sev > 5) ef.bad("severity", "must be 1..5");
    en.severity = static_cast<int>(sev);
    en.packet = ef.opt_str("packet");
    en.origin_block = ef.opt_str("origin_block");
    if (alert) {
      en.app_id = ef.opt_str("app_id");
      if (ef.opt("packet_timestamp")) {
        en.packet_timestamp = ef.number("packet_timestamp");
        if (*en.packet_timestamp < 0) ef.bad("packet_timestamp", "is negative");
      }
      en.eth_src = ef.opt_str("eth_src");
      en.eth_dst = ef.opt_str("eth_dst");
      en.src_ip = ef.opt_str("src_ip");
      en.dst_ip = ef.opt_str("dst_ip");
      auto u16 = [&ef](const char* f) -> std::optional<uint16_t> {
        auto v = ef.opt_uint(f, 0xffff);
        return v ? std::optional<uint16_t>(static_cast<uint16_t>(*v)) : std::nullopt;
      };
      auto u8 = [&ef](const char* f) -> std::optional<uint8_t> {
        auto v = ef.opt_uint(f, 0xff);
        return v ? std::optional<uint8_t>(static_cast<uint8_t>(*v)) : std::nullopt;
      };
      en.eth_type = u16("eth_type");
      en.src_port = u16("src_port");
      en.dst_port = u16("dst_port");
      en.ip_proto = u8("ip_proto");
      en.icmp_type = u8("icmp_type");
      en.icmp_code = u8("icmp_code");
    }
    out.push_back(std::move(en));
  }
  return out;
}

Message decode_fields(MessageType t, const json& body, uint64_t xid) {
  Fields f(body, std::string(kNames[static_cast<size_t>(t)]));
  switch (t) {
    case MessageType::Hello: {
      Hello m;
      m.xid = xid;
      m.dpid = f.uint("dpid", kIdLimit);
      m.version = f.str("version");
      m.capabilities = f.object("capabilities");
      check_capabilities(f, *m.capabilities);
      m.source_addr = f.opt_str("source_addr");
      if (auto p = f.opt_uint("source_port", 65535)) {
        if (*p == 0) f.bad("source_port", "must be 1..65535");
        m.source_port = static_cast<uint16_t>(*p);
      }
      return m;
    }
    case MessageType::KeepAlive: {
      KeepAlive m;
      m.xid = xid;
      m.dpid = f.uint("dpid", kIdLimit);
      m.metrics = f.opt_object("metrics");
      return m;
    }
    case MessageType::ListCapabilitiesRequest: {
      ListCapabilitiesRequest m;
      m.xid = xid;
      return m;
    }
    case MessageType::ListCapabilitiesResponse: {
      ListCapabilitiesResponse m;
      m.xid = xid;
      m.capabilities = f.object("capabilities");
      check_capabilities(f, m.capabilities);
      return m;
    }
    case MessageType::SetParametersRequest: {
      SetParametersRequest m;
      m.xid = xid;
      m.parameters = f.object("parameters");
      return m;
    }
    case MessageType::SetParametersResponse: {
      SetParametersResponse m;
      m.xid = xid;
      return m;
    }
    case MessageType::GetParametersRequest: {
      GetParametersRequest m;
      m.xid = xid;
      if (const json* p = f.opt("parameters")) m.parameters = f.strings("parameters", *p);
      return m;
    }
    case MessageType::GetParametersResponse: {
      GetParametersResponse m;
      m.xid = xid;
      m.parameters = f.object("parameters");
      return m;
    }
    case MessageType::GlobalStatsRequest: {
      GlobalStatsRequest m;
      m.xid = xid;
      return m;
    }
    case MessageType::GlobalStatsResponse: {
      GlobalStatsResponse m;
      m.xid = xid;
      m.stats = f.object("stats");
      return m;
    }
    case MessageType::GlobalStatsReset: {
      GlobalStatsReset m;
      m.xid = xid;
      return m;
    }
    case MessageType::ReadRequest: {
      ReadRequest m;
      m.xid = xid;
      m.block_id = f.str("block_id");
      m.read_handle = f.str("read_handle");
      return m;
    }
    case MessageType::ReadResponse: {
      ReadResponse m;
      m.xid = xid;
      m.block_id = f.str("block_id");
      m.read_handle = f.str("read_handle");
      m.result = f.req("result");
      return m;
    }
    case MessageType::WriteRequest: {
      WriteRequest m;
      m.xid = xid;
      m.block_id = f.str("block_id");
      m.write_handle = f.str("write_handle");
      m.value = f.req("value");
      return m;
    }
    case MessageType::WriteResponse: {
      WriteResponse m;
      m.xid = xid;
      m.block_id = f.str("block_id");
      // write_handle, or the spec's read_handle as an alias
      m.write_handle = f.opt("write_handle") || !f.opt("read_handle") ? f.str("write_handle") : f.str("read_handle");
      return m;
    }
    case MessageType::SetProcessingGraphRequest: return read_graph_request(body, xid);
    case MessageType::SetProcessingGraphResponse: return read_graph_response(body, xid);
    case MessageType::BarrierRequest: {
      BarrierRequest m;
      m.xid = xid;
      return m;
    }
    case MessageType::Error: {
      Error m;
      m.xid = xid;
      std::string type = f.str("error_type"), sub = f.str("error_subtype");
      if (!parse_error_type(type, m.error_type)) f.bad("error_type", "\"" + type + "\" is not a spec 3.4 error type");
      if (!parse_error_subtype(sub, m.error_subtype))
        f.bad("error_subtype", "\"" + sub + "\" is not a spec 3.4 error subtype");
      if (type_of(m.error_subtype) != m.error_type) f.bad("error_subtype", sub + " does not belong to " + type);
      m.message = f.opt_str("message");
      m.extended_message = f.opt_str("extended_message");
      return m;
    }
    case MessageType::Alert: {
      Alert m;
      m.xid = xid;
      m.origin_dpid = f.uint("origin_dpid", kIdLimit);
      m.messages = read_entries(f, true);
      return m;
    }
    case MessageType::Log: {
      Log m;
      m.xid = xid;
      m.origin_dpid = f.uint("origin_dpid", kIdLimit);
      m.messages = read_entries(f, false);
      return m;
    }
    case MessageType::AddCustomModuleRequest: {
      AddCustomModuleRequest m;
      m.xid = xid;
      m.module_name = f.str("module_name");
      m.module_content = f.str("module_content");
      m.content_type = f.opt_str("content_type");
      m.content_transfer_encoding = f.opt_str("content_transfer_encoding");
      if (m.content_transfer_encoding && *m.content_transfer_encoding != "base64")
        f.bad("content_transfer_encoding", "must be \"base64\"");
      if (const json* tr = f.opt("translation")) m.translation = *tr;
      m.module_version = f.opt_str("module_version");
      m.signature = f.opt_str("signature");
      m.key_id = f.opt_str("key_id");
      return m;
    }
    case MessageType::AddCustomModuleResponse: {
      AddCustomModuleResponse m;
      m.xid = xid;
      return m;
    }
    case MessageType::RemoveCustomModuleRequest: {
      RemoveCustomModuleRequest m;
      m.xid = xid;
      m.module_name = f.str("module_name");
      return m;
    }
    case MessageType::RemoveCustomModuleResponse: {
      RemoveCustomModuleResponse m;
      m.xid = xid;
      return m;
    }
    case MessageType::kCount: break;
  }
  fail(ErrorSubtype::BAD_TYPE, "unknown message type");
}

json encode_block(const Block& b) {
  json j = {{"type", b.type}, {"name", b.name}};
  if (b.config) j["config"] = *b.config;
  return j;
}

json encode_connector(const Connector& c) {
  return {{"src", c.src}, {"src_port", c.src_port}, {"dst", c.dst}, {"dst_port", c.dst_port}};
}

json encode_entries(const std::vector<EventEntry>& es) {
  json arr = json::array();
  for (const auto& e : es) {
    json j = {{"id", e.id}, {"message", e.message}, {"severity", e.severity}};
    // whole seconds stay integers on the wire
    if (e.timestamp == static_cast<double>(static_cast<int64_t>(e.timestamp)) && e.timestamp >= 0 && e.timestamp < 9e15)
      j["timestamp"] = static_cast<int64_t>(e.timestamp);
    else j["timestamp"] = e.timestamp;
    if (e.packet) j["packet"] = *e.packet;
    if (e.origin_block) j["origin_block"] = *e.origin_block;
    if (e.app_id) j["app_id"] = *e.app_id;
    if (e.packet_timestamp) j["packet_timestamp"] = *e.packet_timestamp;
    if (e.eth_src) j["eth_src"] = *e.eth_src;
    if (e.eth_dst) j["eth_dst"] = *e.eth_dst;
    if (e.eth_type) j["eth_type"] = *e.eth_type;
    if (e.src_ip) j["src_ip"] = *e.src_ip;
    if (e.dst_ip) j["dst_ip"] = *e.dst_ip;
    if (e.ip_proto) j["ip_proto"] = *e.ip_proto;
    if (e.src_port) j["src_port"] = *e.src_port;
    if (e.dst_port) j["dst_port"] = *e.dst_port;
    if (e.icmp_type) j["icmp_type"] = *e.icmp_type;
    if (e.icmp_code) j["icmp_code"] = *e.icmp_code;
    arr.push_back(std::move(j));
  }
  return arr;
}

template <typename T>
void put(json& j, const char* name, const std::optional<T>& v) {
  if (v) j[name] = *v;
}

struct Encoder {
  json& j;
  void operator()(const Hello& m) {
    j["dpid"] = m.dpid;
    j["version"] = m.version;
    put(j, "capabilities", m.capabilities);
    put(j, "source_addr", m.source_addr);
    put(j, "source_port", m.source_port);
  }
  void operator()(const KeepAlive& m) {
    j["dpid"] = m.dpid;
    if (m.metrics) j["metrics"] = *m.metrics;
  }
  void operator()(const ListCapabilitiesRequest&) {}
  void operator()(const ListCapabilitiesResponse& m) { j["capabilities"] = m.capabilities; }
  void operator()(const SetParametersRequest& m) { j["parameters"] = m.parameters; }
  void operator()(const SetParametersResponse&) {}
  void operator()(const GetParametersRequest& m) { put(j, "parameters", m.parameters); }
  void operator()(const GetParametersResponse& m) { j["parameters"] = m.parameters; }
  void operator()(const GlobalStatsRequest&) {}
  void operator()(const GlobalStatsResponse& m) { j["stats"] = m.stats; }
  void operator()(const GlobalStatsReset&) {}
  void operator()(const ReadRequest& m) {
    j["block_id"] = m.block_id;
    j["read_handle"] = m.read_handle;
  }
  void operator()(const ReadResponse& m) {
    j["block_id"] = m.block_id;
    j["read_handle"] = m.read_handle;
    j["result"] = m.result;
  }
  void operator()(const WriteRequest& m) {
    j["block_id"] = m.block_id;
    j["write_handle"] = m.write_handle;
    j["value"] = m.value;
  }
  void operator()(const WriteResponse& m) {
    j["block_id"] = m.block_id;
    j["write_handle"] = m.write_handle;
  }
  void operator()(const SetProcessingGraphRequest& m) {
    put(j, "required_modules", m.required_modules);
    j["blocks"] = json::array();
    for (const auto& b : m.blocks) j["blocks"].push_back(encode_block(b));
    j["connectors"] = json::array();
    for (const auto& c : m.connectors) j["connectors"].push_back(encode_connector(c));
    put(j, "report_back", m.report_back);
  }
  void operator()(const SetProcessingGraphResponse& m) {
    if (m.blocks) {
      j["blocks"] = json::array();
      for (const auto& b : *m.blocks) j["blocks"].push_back(encode_block(b));
    }
    if (m.connectors) {
      j["connectors"] = json::array();
      for (const auto& c : *m.connectors) j["connectors"].push_back(encode_connector(c));
    }
  }
  void operator()(const BarrierRequest&) {}
  void operator()(const Error& m) {
    j["error_type"] = std::string(to_string(m.error_type));
    j["error_subtype"] = std::string(to_string(m.error_subtype));
    put(j, "message", m.message);
    put(j, "extended_message", m.extended_message);
  }
  void operator()(const Alert& m) {
    j["origin_dpid"] = m.origin_dpid;
    j["messages"] = encode_entries(m.messages);
  }
  void operator()(const Log& m) {
    j["origin_dpid"] = m.origin_dpid;
    j["messages"] = encode_entries(m.messages);
  }
  void operator()(const AddCustomModuleRequest& m) {
    j["module_name"] = m.module_name;
    j["module_content"] = m.module_content;
    put(j, "content_type", m.content_type);
    put(j, "content_transfer_encoding", m.content_transfer_encoding);
    put(j, "translation", m.translation);
    put(j, "module_version", m.module_version);
    put(j, "signature", m.signature);
    put(j, "key_id", m.key_id);
  }
  void operator()(const AddCustomModuleResponse&) {}
  void operator()(const RemoveCustomModuleRequest& m) { j["module_name"] = m.module_name; }
  void operator()(const RemoveCustomModuleResponse&) {}
};

constexpr std::string_view kB64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

}  // namespace

std::string_view to_string(MessageType t) {
  size_t i = static_cast<size_t>(t);
  return i < kNames.size() ? kNames[i] : std::string_view("Unknown");
}

bool parse_message_type(std::string_view name, MessageType& out) {
  if (name == "AddCustomModule") {
    out = MessageType::AddCustomModuleRequest;
    return true;
  }
  if (name == "RemoveCustomModule") {
    out = MessageType::RemoveCustomModuleRequest;
    return true;
  }
  for (size_t i = 0; i < kNames.size(); ++i)
    if (kNames[i] == name) {
      out = static_cast<MessageType>(i);
      return true;
    }
  return false;
}

std::size_t json_depth(std::string_view text, std::size_t stop_above) {
  std::size_t depth = 0, deepest = 0;
  bool in_string = false, escaped = false;
  for (char c : text) {
    if (in_string) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > deepest && (deepest = depth) > stop_above) return deepest;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return deepest;
}

void check_json_depth(std::string_view body, std::size_t max_depth) {
  if (json_depth(body, max_depth) > max_depth)
    fail(ErrorSubtype::ILLEGAL_ARGUMENT,
         "body nests arrays/objects deeper than " + std::to_string(max_depth) + " levels");
}

Message decode(std::string_view body, std::optional<MessageType> expected) {
  SetProcessingGraphRequest graph;
  if (decode_graph_request_fast(body, expected, kMaxJsonDepth, graph)) return graph;
  return decode_json(parse_json_body(body), expected);
}

void check_block_matches(std::vector<Block>& blocks) {
  std::vector<MatchBlock> match_blocks;
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    const Block& b = blocks[i];
    if (b.config && holds_matches(b.type)) match_blocks.push_back({&b.type, &b.name, &*b.config, i});
  }
  ReadMatches read;
  check_matches(match_blocks, read);
  put_read_matches(blocks, read);
}

namespace {
// Steps 1..10 of decode_json: the checks before the fields are read; the message's type
// and xid.
std::pair<MessageType, uint64_t> check_message(const json& body, std::optional<MessageType> expected,
                                               ReadMatches& read);

// The match lists check 8 read go to the decoded message's blocks.
void keep_read_matches(Message& m, ReadMatches& read) {
  if (auto* r = std::get_if<SetProcessingGraphRequest>(&m)) put_read_matches(r->blocks, read);
  if (auto* r = std::get_if<SetProcessingGraphResponse>(&m); r && r->blocks) put_read_matches(*r->blocks, read);
}
}  // namespace

Message decode_json(const json& body, std::optional<MessageType> expected) {
  ReadMatches read;
  const auto [t, xid] = check_message(body, expected, read);
  Message m = decode_fields(t, body, xid);
  keep_read_matches(m, read);
  return m;
}

Message decode_json(json&& body, std::optional<MessageType> expected) {
  ReadMatches read;
  const auto [t, xid] = check_message(body, expected, read);
  if (t != MessageType::SetProcessingGraphRequest && t != MessageType::SetProcessingGraphResponse)
    return decode_fields(t, body, xid);
  // check_blocks has made sure every block is an object and every config an object: take
  // the configs out, read the (now small) fields, and put them into the decoded blocks,
  // which are in the same order.
  std::vector<std::optional<json>> configs;
  auto bs = body.find("blocks");
  if (bs != body.end() && bs->is_array()) {
    configs.resize(bs->size());
    for (std::size_t i = 0; i < bs->size(); ++i) {
      json& b = (*bs)[i];
      auto c = b.find("config");
      if (c == b.end()) continue;
      configs[i] = std::move(*c);
      b.erase(c);
    }
  }
  // The blocks' and connectors' strings are moved out of the tree, not copied.
  Message m = t == MessageType::SetProcessingGraphRequest ? Message(read_graph_request(body, xid))
                                                          : Message(read_graph_response(body, xid));
  auto put_back = [&configs](std::vector<Block>& blocks) {
    for (std::size_t i = 0; i < blocks.size() && i < configs.size(); ++i)
      if (configs[i]) blocks[i].config = std::move(*configs[i]);
  };
  if (auto* r = std::get_if<SetProcessingGraphRequest>(&m)) put_back(r->blocks);
  if (auto* r = std::get_if<SetProcessingGraphResponse>(&m); r && r->blocks) put_back(*r->blocks);
  keep_read_matches(m, read);
  return m;
}

namespace {
std::pair<MessageType, uint64_t> check_message(const json& body, std::optional<MessageType> expected,
                                               ReadMatches& read) {
  // 1
  if (!body.is_object()) fail(ErrorSubtype::ILLEGAL_ARGUMENT, "body is " + kind(body) + ", not a JSON object");
  // 2
  auto ti = body.find("type");
  if (ti == body.end()) fail(ErrorSubtype::BAD_TYPE, "message has no \"type\"");
  if (!ti->is_string()) fail(ErrorSubtype::BAD_TYPE, "message type is " + kind(*ti) + ", not a string");
  MessageType t;
  const std::string& tname = ti->get_ref<const std::string&>();
  if (!parse_message_type(tname, t)) fail(ErrorSubtype::BAD_TYPE, "unknown message type \"" + tname + "\"");
  if (expected && *expected != t)
    fail(ErrorSubtype::BAD_TYPE, "message of type " + tname + " posted as " + std::string(to_string(*expected)));
  // 3
  auto xi = body.find("xid");
  if (xi == body.end()) fail(ErrorSubtype::ILLEGAL_ARGUMENT, tname + ": required field \"xid\" is missing");
  if (!xi->is_number_integer())
    fail(ErrorSubtype::ILLEGAL_ARGUMENT, tname + ".xid is " + kind(*xi) + ", not an integer");
  if (!is_uint(*xi) || xi->get<uint64_t>() >= kXidLimit)
    fail(ErrorSubtype::ILLEGAL_ARGUMENT, tname + ".xid is out of range [0, 2^53)");
  const uint64_t xid = xi->get<uint64_t>();
  // 4, 5
  if (t == MessageType::Hello) check_version(body);
  // 6..9
  if (t == MessageType::SetProcessingGraphRequest || t == MessageType::SetProcessingGraphResponse) {
    const std::vector<MatchBlock> match_blocks = check_blocks(body);
    check_connectors(body);
    check_matches(match_blocks, read);
  }
  // 10
  if (t == MessageType::AddCustomModuleRequest) check_module_content(body);
  return {t, xid};
}
}  // namespace

json encode(const Message& m) {
  json j = json::object();
  j["type"] = std::string(to_string(type_of(m)));
  j["xid"] = xid_of(m);
  std::visit(Encoder{j}, m);
  return j;
}

std::string encode_string(const Message& m) { return encode(m).dump(); }

Error make_error(uint64_t xid, const ProtocolError& e) { return make_error(xid, e.subtype(), e.what()); }

Error make_error(uint64_t xid, ErrorSubtype subtype, std::string message) {
  Error err;
  err.xid = xid;
  err.error_type = type_of(subtype);
  err.error_subtype = subtype;
  err.message = std::move(message);
  return err;
}

uint64_t salvage_xid(std::string_view body) {
  if (json_depth(body) > kMaxJsonDepth) return 0;
  json j = json::parse(body.begin(), body.end(), nullptr, false);
  if (j.is_discarded() || !j.is_object()) return 0;
  auto xi = j.find("xid");
  if (xi == j.end() || !is_uint(*xi)) return 0;
  uint64_t x = xi->get<uint64_t>();
  return x < kXidLimit ? x : 0;
}

std::string base64_encode(std::string_view bytes) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 3 <= bytes.size(); i += 3) {
    uint32_t v = (uint8_t(bytes[i]) << 16) | (uint8_t(bytes[i + 1]) << 8) | uint8_t(bytes[i + 2]);
    out += kB64[v >> 18];
    out += kB64[(v >> 12) & 63];
    out += kB64[(v >> 6) & 63];
    out += kB64[v & 63];
  }
  if (size_t rest = bytes.size() - i) {
    uint32_t v = uint8_t(bytes[i]) << 16;
    if (rest == 2) v |= uint8_t(bytes[i + 1]) << 8;
    out += kB64[v >> 18];
    out += kB64[(v >> 12) & 63];
    out += rest == 2 ? kB64[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

bool base64_decode(std::string_view text, std::string& out) {
  // README check 10: non-empty, length a multiple of 4, '=' only as the last one or two
  // characters, standard alphabet, no whitespace.
  out.clear();
  if (text.empty() || text.size() % 4 != 0) return false;
  size_t n = text.size();
  if (text[n - 1] == '=') --n;
  if (text[n - 1] == '=') --n;
  uint32_t acc = 0;
  int bits = 0;
  for (size_t i = 0; i < n; ++i) {
    char c = text[i];
    int d;
    if (c >= 'A' && c <= 'Z') d = c - 'A';
    else if (c >= 'a' && c <= 'z') d = c - 'a' + 26;
    else if (c >= '0' && c <= '9') d = c - '0' + 52;
    else if (c == '+') d = 62;
    else if (c == '/') d = 63;
    else return false;
    acc = (acc << 6) | static_cast<uint32_t>(d);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((acc >> bits) & 0xff));
    }
  }
  return true;
}

}  // namespace openbox
