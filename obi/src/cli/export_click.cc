// obi export-click: an equivalent Click configuration for a processing graph.
//
// Every block is mapped to Click elements (a compound `elementclass` where one element is
// not enough), and every connector to a Click connection. The mapping:
//   FromDump / ToDump / FromDevice / Discard   the Click element of the same name
//   ToDevice                Queue -> ToDevice (Click's ToDevice pulls)
//   HeaderClassifier        Classifier (Ethernet-only rules) or IPClassifier behind
//                           Classifier(12/0800) + Strip(14) + CheckIPHeader; its `fuse`
//                           key (a lookup-sharing hint that changes no result) is ignored
//   ContentClassifier       Classifier (same offset/value%mask patterns)
//   DecIpTtl                DecIPTTL (inside Strip/CheckIPHeader/Unstrip)
//   Queue / FrontDropQueue  Queue / FrontDropQueue -> Unqueue
//   PpsShaper / BpsShaper   Queue -> RatedUnqueue / BandwidthRatedUnqueue
//   Pps/BpsRateClassifier   Meter / BandwidthMeter
//   VlanEncapsulate / VlanDecapsulate   VLANEncap / VLANDecap
//   Ipv4AddressTranslator   IPRewriter with the same input specs and timeouts
//   NetworkDirectionSwap    EtherMirror / IPMirror
//   NetworkHeaderFieldsRewriter  StoreEtherAddress, StoreData, StoreIPAddress, SetIPDSCP
// Approximations (listed as "approximated" comments): Log and Alert print instead of
// reaching a controller; FlowTracker becomes AggregateIPFlows (a flow id annotation);
// Click's StoreIPAddress also fixes the IP checksum.
// What Click cannot express (regex and payload classifiers, sessions, protocol analysis,
// address ranges, ...) becomes Null, named in a "// not expressible:" line at the top of
// the output and counted on stderr; connectors from its extra ports are commented out.
// Exit status: 0 every block expressed; 3 configuration printed but some blocks are not
// expressible; 2 bad arguments or graph file; 1 other errors.
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>

#include "cli/args.hh"
#include "cli/commands.hh"
#include "lib/rate_config.hh"
#include "openbox/header_match.hh"

namespace obi::cli {
namespace {

using json = nlohmann::json;
using openbox::MatchField;
using openbox::MatchTerm;

const char* kHelp =
    "usage: obi export-click --graph G.json\n"
    "Prints a Click configuration equivalent to the processing graph G.json on stdout; blocks\n"
    "Click cannot express are listed in a comment at the top and counted on stderr.\n"
    "Exit status: 0 every block expressed, 3 some blocks not expressible (the rest is still\n"
    "printed), 2 bad arguments or graph file, 1 other errors.\n";

struct Unexpressible : std::runtime_error {
  using std::runtime_error::runtime_error;
};

std::string ident(const std::string& name) {  // Click element names: letters, digits, _ /
  std::string out;
  for (char c : name) out += (std::isalnum(static_cast<unsigned char>(c)) || c == '_') ? c : '_';
  if (out.empty() || std::isdigit(static_cast<unsigned char>(out[0]))) out = "b_" + out;
  return out;
}
std::string quote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}
std::string ipv4(uint32_t v) {
  return std::to_string(v >> 24) + "." + std::to_string(v >> 16 & 255) + "." + std::to_string(v >> 8 & 255) + "." +
         std::to_string(v & 255);
}
std::string hexbytes(uint64_t v, int bytes) {
  char buf[32];
  std::string s;
  for (int i = bytes - 1; i >= 0; --i) {
    std::snprintf(buf, sizeof buf, "%02x", unsigned(v >> (8 * i) & 255));
    s += buf;
  }
  return s;
}

// One field of an IPv4 rule as an IPClassifier expression.
std::string ip_field(const openbox::FieldMatch& f) {
  std::vector<std::string> alts;
  for (const MatchTerm& t : f.terms) {
    uint64_t v = static_cast<uint64_t>(t.value), m = static_cast<uint64_t>(t.mask);
    bool exact_range = t.kind == MatchTerm::Kind::kRange;
    switch (f.field) {
      case MatchField::IPV4_SRC:
      case MatchField::IPV4_DST: {
        const char* dir = f.field == MatchField::IPV4_SRC ? "src" : "dst";
        if (exact_range) {
          if (t.min != t.max) throw Unexpressible("address ranges");
          alts.push_back(std::string(dir) + " host " + ipv4(uint32_t(t.min)));
        } else {
          alts.push_back(std::string(dir) + " net " + ipv4(uint32_t(v)) + " mask " + ipv4(uint32_t(m)));
        }
        break;
      }
      case MatchField::IP_PROTO:
        if (exact_range || m != 0xff) throw Unexpressible("masked or ranged IP_PROTO");
        alts.push_back("ip proto " + std::to_string(v));
        break;
      case MatchField::IP_DSCP:
        if (exact_range || m != 0x3f) throw Unexpressible("masked or ranged IP_DSCP");
        alts.push_back("ip dscp " + std::to_string(v));
        break;
      case MatchField::ICMPV4_TYPE:
        if (exact_range || m != 0xff) throw Unexpressible("masked or ranged ICMPV4_TYPE");
        alts.push_back("icmp type " + std::to_string(v));
        break;
      case MatchField::TCP_SRC:
      case MatchField::TCP_DST:
      case MatchField::UDP_SRC:
      case MatchField::UDP_DST: {
        bool src = f.field == MatchField::TCP_SRC || f.field == MatchField::UDP_SRC;
        std::string p = std::string(src ? "src " : "dst ") +
                        (f.field == MatchField::TCP_SRC || f.field == MatchField::TCP_DST ? "tcp" : "udp") + " port";
        if (exact_range) {
          alts.push_back(t.min == t.max ? p + " " + std::to_string(uint64_t(t.min))
                                        : "(" + p + " >= " + std::to_string(uint64_t(t.min)) + " and " + p +
                                              " <= " + std::to_string(uint64_t(t.max)) + ")");
        } else if (m == 0xffff) {
          alts.push_back(p + " " + std::to_string(v));
        } else if (m == 0) {
          alts.push_back("true");
        } else {
          throw Unexpressible("masked ports");
        }
        break;
      }
      case MatchField::ETH_TYPE:
        if (!exact_range && v == 0x0800 && m == 0xffff) {
          alts.push_back("true");
          break;
        }
        throw Unexpressible("ETH_TYPE other than 0x0800 mixed with IPv4 fields");
      default: throw Unexpressible("field " + std::string(openbox::field_info(f.field).name));
    }
  }
  if (alts.size() == 1) return alts[0];
  std::string s = "(";
  for (std::size_t i = 0; i < alts.size(); ++i) s += (i ? " or " : "") + alts[i];
  return s + ")";
}

// An Ethernet-only rule (ETH_TYPE / ETH_SRC / ETH_DST, masked) as a Classifier pattern;
// throws when the rule needs anything else.
std::string eth_rule(const openbox::HeaderMatch& h) {
  std::vector<std::string> parts;
  for (const auto& f : h.fields) {
    if (f.terms.size() != 1 || f.terms[0].kind != MatchTerm::Kind::kMasked) throw Unexpressible("lists or ranges");
    uint64_t v = uint64_t(f.terms[0].value), m = uint64_t(f.terms[0].mask);
    if (f.field == MatchField::ETH_TYPE) parts.push_back("12/" + hexbytes(v, 2) + "%" + hexbytes(m, 2));
    else if (f.field == MatchField::ETH_DST) parts.push_back("0/" + hexbytes(v, 6) + "%" + hexbytes(m, 6));
    else if (f.field == MatchField::ETH_SRC) parts.push_back("6/" + hexbytes(v, 6) + "%" + hexbytes(m, 6));
    else throw Unexpressible("not Ethernet-only");
  }
  if (parts.empty()) return "-";
  std::string s;
  for (const auto& p : parts) s += (s.empty() ? "" : " ") + p;
  return s;
}

// Element class for a HeaderClassifier with n outputs.
std::string header_classifier(const std::string& cls, const json& config) {
  std::vector<openbox::HeaderMatch> rules;
  for (const json& m : config.at("match")) rules.push_back(openbox::parse_header_match(m));
  std::ostringstream o;
  try {  // Ethernet-only rules: a plain Classifier
    std::vector<std::string> pats;
    for (const auto& r : rules) pats.push_back(eth_rule(r));
    o << "elementclass " << cls << " { input -> c :: Classifier(";
    for (std::size_t i = 0; i < pats.size(); ++i) o << (i ? ", " : "") << pats[i];
    o << "); ";
    for (std::size_t i = 0; i < pats.size(); ++i) o << "c[" << i << "] -> [" << i << "]output; ";
    o << "}\n";
    return o.str();
  } catch (const Unexpressible&) {}
  std::vector<std::string> exprs;
  int catch_all = -1;
  for (std::size_t i = 0; i < rules.size(); ++i) {
    const auto& r = rules[i];
    std::vector<std::string> parts;
    bool ip = false;
    for (const auto& f : r.fields) {
      if (f.field == MatchField::ETH_TYPE) {
        ip = true;
      }
      std::string e = ip_field(f);
      if (e != "true") parts.push_back(e);
    }
    if (r.fields.empty()) {
      exprs.push_back("-");
      if (catch_all < 0) catch_all = int(i);
      continue;
    }
    if (!ip) throw Unexpressible("rule " + std::to_string(i) + " has no ETH_TYPE");
    std::string e;
    for (const auto& p : parts) e += (e.empty() ? "" : " and ") + p;
    exprs.push_back(e.empty() ? "-" : e);
  }
  o.str("");
  o << "elementclass " << cls << " {\n  input -> e :: Classifier(12/0800, -);\n"
    << "  e[0] -> Strip(14) -> CheckIPHeader -> c :: IPClassifier(";
  for (std::size_t i = 0; i < exprs.size(); ++i) o << (i ? ",\n      " : "") << exprs[i];
  o << ");\n";
  for (std::size_t i = 0; i < exprs.size(); ++i) o << "  c[" << i << "] -> Unstrip(14) -> [" << i << "]output;\n";
  if (catch_all >= 0)
    o << "  e[1] -> [" << catch_all << "]output;   // non-IPv4 frames match only the catch-all rule\n";
  else o << "  e[1] -> Discard;\n";
  o << "}\n";
  return o.str();
}

// A number as Click reads it (integers without a fraction).
std::string num(double v) {
  char buf[64];
  if (v == static_cast<double>(static_cast<int64_t>(v))) std::snprintf(buf, sizeof buf, "%lld", (long long)v);
  else std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}
std::string hex_byte_string(uint64_t v, int bytes) { return "\\<" + hexbytes(v, bytes) + ">"; }

// The Click form of one block.
struct Mapped {
  std::string classes;  // elementclass definitions it needs
  std::string decl;     // declaration(s); the last declared element is `id`
  std::string input;    // element that connectors into the block lead to (default id)
  int inputs = 1, outputs = 1;
  std::string approx;  // non-empty: how the Click form differs
};

int config_int(const json& cfg, const char* key, int def) {
  auto it = cfg.find(key);
  return it != cfg.end() && it->is_number() ? it->get<int>() : def;
}
double config_number(const json& cfg, const char* key, double def) {
  auto it = cfg.find(key);
  return it != cfg.end() && it->is_number() ? it->get<double>() : def;
}
bool config_bool(const json& cfg, const char* key, bool def) {
  auto it = cfg.find(key);
  return it != cfg.end() && it->is_boolean() ? it->get<bool>() : def;
}
std::vector<std::string> config_strings(const json& cfg, const char* key) {
  std::vector<std::string> out;
  auto it = cfg.find(key);
  if (it == cfg.end() || !it->is_array()) throw Unexpressible(std::string("config '") + key + "' is not a list");
  for (const json& v : *it) {
    if (v.is_string()) out.push_back(v.get<std::string>());
    else if (v.is_number()) out.push_back(num(v.get<double>()));
    else throw Unexpressible(std::string("config '") + key + "' has a non-string entry");
  }
  return out;
}

// "input -> c :: Classifier(12/0800, -); c[0] -> Strip(14) -> MarkIPHeader -> BODY ->
// Unstrip(14) -> output; c[1] -> output;": BODY sees IPv4 packets with their IP header
// annotation, other frames pass unchanged (as the OpenBox blocks do).
std::string ipv4_only(const std::string& cls, const std::string& body) {
  return "elementclass " + cls +
         " {\n  input -> c :: Classifier(12/0800, -);\n  c[0] -> Strip(14) -> MarkIPHeader -> " + body +
         " -> Unstrip(14) -> output;\n  c[1] -> output;\n}\n";
}

// Outputs of an Ipv4AddressTranslator: the largest output its input specs name, plus one.
int rewriter_outputs(const std::vector<std::string>& specs) {
  int outs = 0;
  for (const std::string& spec : specs) {
    std::istringstream in(spec);
    std::vector<std::string> w;
    for (std::string t; in >> t;) w.push_back(t);
    if (w.empty()) throw Unexpressible("empty input_spec");
    std::size_t first = w[0] == "pass" ? 1 : w[0] == "keep" ? 1 : w[0] == "pattern" ? 5 : w.size();
    if (w[0] != "discard" && first >= w.size()) throw Unexpressible("input_spec '" + spec + "'");
    for (std::size_t k = first; k < w.size(); ++k) outs = std::max(outs, std::stoi(w[k]) + 1);
  }
  return outs;
}

Mapped map_block(const std::string& type, const std::string& id, const json& cfg) {
  Mapped m;
  std::ostringstream d;
  if (type == "FromDump") {
    d << id << " :: FromDump(" << quote(cfg.value("filename", "")) << ", TIMING "
      << (config_bool(cfg, "timing", false) ? "true" : "false") << ", ACTIVE "
      << (config_bool(cfg, "active", true) ? "true" : "false") << ");\n";
    m.inputs = 0;
  } else if (type == "FromDevice") {
    d << id << " :: FromDevice(" << cfg.value("devname", "") << ", SNIFFER "
      << (config_bool(cfg, "sniffer", true) ? "true" : "false") << ", PROMISC "
      << (config_bool(cfg, "promisc", false) ? "true" : "false") << ");\n";
    m.inputs = 0;
  } else if (type == "ToDump") {
    d << id << " :: ToDump(" << quote(cfg.value("filename", "")) << ");\n";
    m.outputs = 0;
  } else if (type == "ToDevice") {
    d << id << "_q :: Queue -> " << id << " :: ToDevice(" << cfg.value("devname", "") << ");\n";
    m.input = id + "_q";
    m.outputs = 0;
  } else if (type == "Discard") {
    d << id << " :: Discard;\n";
    m.outputs = 0;
  } else if (type == "Queue" || type == "FrontDropQueue") {
    d << id << "_q :: " << type << "(" << config_int(cfg, "capacity", 1000) << ") -> " << id << " :: Unqueue;\n";
    m.input = id + "_q";
  } else if (type == "PpsShaper" || type == "BpsShaper") {
    // Click shapes in pull: a FIFO of `capacity` packets emptied at the rate.
    double rate = config_number(cfg, "rate", 0);
    d << id << "_q :: Queue(" << config_int(cfg, "capacity", 1000) << ") -> " << id << " :: "
      << (type == "PpsShaper" ? "RatedUnqueue(" + num(rate) + ")" : "BandwidthRatedUnqueue(" + num(rate) + "Bps)")
      << ";\n";
    m.input = id + "_q";
  } else if (type == "PpsRateClassifier" || type == "BpsRateClassifier") {
    std::vector<std::string> rates = config_strings(cfg, "rate");
    std::string args;
    for (const std::string& r : rates) {
      std::string v = r;
      if (type == "BpsRateClassifier") {
        double bps;
        std::string why;
        if (!obi::blocks::parse_bandwidth(r, bps, why)) throw Unexpressible("rate '" + r + "': " + why);
        v = num(bps) + "Bps";
      }
      args += (args.empty() ? "" : ", ") + v;
    }
    d << id << " :: " << (type == "PpsRateClassifier" ? "Meter(" : "BandwidthMeter(") << args << ");\n";
    m.outputs = static_cast<int>(rates.size()) + 1;
    m.approx = "Click's meters average the rate differently (EWMA parameters)";
  } else if (type == "VlanDecapsulate") {
    d << id << " :: VLANDecap;\n";
  } else if (type == "VlanEncapsulate") {
    int tci = (config_int(cfg, "vlan_pcp", 0) & 7) << 13 | (config_int(cfg, "vlan_dei", 0) & 1) << 12 |
              (config_int(cfg, "vlan_vid", 0) & 0xfff);
    d << id << " :: VLANEncap(VLAN_TCI " << tci << ", ETHERTYPE 0x"
      << hexbytes(uint64_t(config_int(cfg, "ethertype", 0x8100)), 2) << ");\n";
  } else if (type == "DecIpTtl") {
    m.outputs = 2;
    if (!config_bool(cfg, "active", true)) {
      d << id << " :: Null;   // inactive: every packet on output 0\n";
      m.outputs = 1;
    } else {
      m.classes = "elementclass OBDecIpTtl_" + id +
                  " {\n  input -> c :: Classifier(12/0800, 12/86dd, -);\n"
                  "  c[0] -> Strip(14) -> MarkIPHeader -> d4 :: DecIPTTL -> Unstrip(14) -> [0]output;\n"
                  "  d4[1] -> Unstrip(14) -> [1]output;\n"
                  "  c[1] -> Strip(14) -> MarkIP6Header -> d6 :: DecIP6HLIM -> Unstrip(14) -> [0]output;\n"
                  "  d6[1] -> Unstrip(14) -> [1]output;\n"
                  "  c[2] -> [0]output;\n}\n";
      d << id << " :: OBDecIpTtl_" << id << ";\n";
    }
  } else if (type == "Log") {
    d << id << " :: Print(" << quote("LOG " + cfg.value("message", "")) << ");\n";
    m.approx = "prints the message instead of sending a log to the controller";
  } else if (type == "Alert") {
    std::string msg;
    if (auto a = cfg.find("alerts"); a != cfg.end() && a->is_array())
      for (const json& x : *a)
        msg += (msg.empty() ? "" : " | ") + (x.is_object() ? x.value("message", "") : std::string());
    d << id << " :: Print(" << quote("ALERT " + msg) << ");\n";
    m.approx = "prints the alert instead of sending it to the controller";
  } else if (type == "HeaderClassifier") {
    m.classes = header_classifier("OBHeaderClassifier_" + id, cfg);
    d << id << " :: OBHeaderClassifier_" << id << ";\n";
    m.outputs = static_cast<int>(cfg.at("match").size());
  } else if (type == "ContentClassifier") {
    std::vector<std::string> pats = config_strings(cfg, "pattern");
    d << id << " :: Classifier(";
    for (std::size_t k = 0; k < pats.size(); ++k) d << (k ? ", " : "") << pats[k];
    d << ");\n";
    m.outputs = static_cast<int>(pats.size());
  } else if (type == "Ipv4AddressTranslator") {
    std::vector<std::string> specs = config_strings(cfg, "input_spec");
    m.inputs = static_cast<int>(specs.size());
    m.outputs = rewriter_outputs(specs);
    static const std::pair<const char*, const char*> kKeys[] = {{"tcp_timeout", "TCP_TIMEOUT"},
                                                                {"tcp_done_timeout", "TCP_DONE_TIMEOUT"},
                                                                {"tcp_nodata_timeout", "TCP_NODATA_TIMEOUT"},
                                                                {"tcp_guarantee", "TCP_GUARANTEE"},
                                                                {"udp_timeout", "UDP_TIMEOUT"},
                                                                {"udp_streaming_timeout", "UDP_STREAMING_TIMEOUT"},
                                                                {"udp_guarantee", "UDP_GUARANTEE"},
                                                                {"reap_interval", "REAP_INTERVAL"},
                                                                {"mapping_capacity", "MAPPING_CAPACITY"}};
    std::string args;
    for (const std::string& sp : specs) args += (args.empty() ? "" : ",\n      ") + sp;
    for (const auto& [k, click] : kKeys)
      if (cfg.contains(k) && cfg[k].is_number())
        args += std::string(",\n      ") + click + " " + num(cfg[k].get<double>());
    std::ostringstream c;
    c << "elementclass OBRewriter_" << id << " {\n  rw :: IPRewriter(" << args << ");\n";
    for (int k = 0; k < m.inputs; ++k) c << "  input[" << k << "] -> Strip(14) -> CheckIPHeader -> [" << k << "]rw;\n";
    for (int k = 0; k < m.outputs; ++k) c << "  rw[" << k << "] -> Unstrip(14) -> [" << k << "]output;\n";
    c << "}\n";
    m.classes = c.str();
    d << id << " :: OBRewriter_" << id << ";\n";
  } else if (type == "NetworkDirectionSwap") {
    bool eth = config_bool(cfg, "ethernet", false), ip4 = config_bool(cfg, "ipv4", false);
    bool tcp = config_bool(cfg, "tcp", false), udp = config_bool(cfg, "udp", false);
    if (config_bool(cfg, "ipv6", false)) throw Unexpressible("Click has no IPv6 address mirror");
    if ((ip4 || tcp || udp) && !(ip4 && tcp && udp))
      throw Unexpressible("IPMirror swaps IPv4 addresses and TCP/UDP ports together, not separately");
    std::string chain = eth ? "EtherMirror" : "";
    if (ip4) {
      m.classes = ipv4_only("OBIpMirror_" + id, "IPMirror");
      chain += std::string(eth ? " -> " : "") + "OBIpMirror_" + id;
    }
    if (chain.empty()) chain = "Null";
    if (chain.find(" -> ") != std::string::npos) {
      d << id << "_e :: EtherMirror -> " << id << " :: OBIpMirror_" << id << ";\n";
      m.input = id + "_e";
    } else {
      d << id << " :: " << chain << ";\n";
    }
  } else if (type == "NetworkHeaderFieldsRewriter") {
    std::vector<std::string> eth, ip;
    bool approx_eth = false;
    for (auto it = cfg.begin(); it != cfg.end(); ++it) {
      const std::string& k = it.key();
      const json& v = it.value();
      if (k == "eth_dst" || k == "eth_src") {
        eth.push_back("StoreEtherAddress(" + v.get<std::string>() + ", " + (k == "eth_dst" ? "dst" : "src") + ")");
      } else if (k == "eth_type") {
        eth.push_back("StoreData(12, " + hex_byte_string(uint64_t(v.get<int64_t>()), 2) + ")");
        approx_eth = true;
      } else if (k == "ipv4_src" || k == "ipv4_dst") {
        ip.push_back("StoreIPAddress(" + v.get<std::string>() + ", " + (k == "ipv4_src" ? "src" : "dst") + ")");
      } else if (k == "ipv4_dscp") {
        ip.push_back("SetIPDSCP(" + std::to_string(v.get<int>()) + ")");
      } else if (k == "ipv4_ttl") {
        ip.push_back("StoreData(8, " + hex_byte_string(uint64_t(v.get<int>()), 1) + ")");
      } else if (k == "ipv4_proto") {
        ip.push_back("StoreData(9, " + hex_byte_string(uint64_t(v.get<int>()), 1) + ")");
      } else {
        throw Unexpressible("no Click element sets '" + k + "' (its offset depends on the IP header length)");
      }
    }
    std::string chain;
    for (const auto& e : eth) chain += (chain.empty() ? "" : " -> ") + e;
    if (!ip.empty()) {
      std::string body;
      for (const auto& e : ip) body += (body.empty() ? "" : " -> ") + e;
      m.classes = ipv4_only("OBSetIp_" + id, body);
      chain += (chain.empty() ? "" : " -> ") + std::string("OBSetIp_") + id;
    }
    if (chain.empty()) chain = "Null";
    m.classes += "elementclass OBRewrite_" + id + " { input -> " + chain + " -> output; }\n";
    d << id << " :: OBRewrite_" << id << ";\n";
    m.approx = "Click's StoreIPAddress and SetIPDSCP also update the IP checksum";
    if (approx_eth) m.approx += "; eth_type is stored at offset 12 even behind a VLAN tag";
  } else if (type == "FlowTracker") {
    m.classes = ipv4_only("OBFlows_" + id, "AggregateIPFlows");
    d << id << " :: OBFlows_" << id << ";\n";
    m.approx = "AggregateIPFlows sets Click's AGGREGATE annotation, not OpenBox flow metadata";
  } else {
    throw Unexpressible("no Click element does what " + type + " does");
  }
  m.decl = d.str();
  if (m.input.empty()) m.input = id;
  return m;
}

}  // namespace

int export_click(const std::vector<std::string>& argv) {
  for (const auto& a : argv)
    if (a == "--help" || a == "-h") {
      std::fputs(kHelp, stdout);
      return 0;
    }
  Args args(argv, {"graph"}, {});
  json graph = load_graph_file(args.required("graph"));
  if (!graph.is_object() || !graph.contains("blocks") || !graph["blocks"].is_array())
    throw UsageError("graph file has no 'blocks' array");
  std::ostringstream classes, decls, wires;
  std::vector<std::string> missing, approx;
  struct Ports {
    std::string id, input;
    int inputs, outputs;
    std::vector<bool> in_used, out_used;
  };
  std::map<std::string, Ports> blocks;
  std::vector<std::string> order;
  for (const json& b : graph["blocks"]) {
    if (!b.is_object()) throw UsageError("graph file: a block is not an object");
    std::string name = b.value("name", ""), type = b.value("type", "");
    json cfg = b.contains("config") && b["config"].is_object() ? b["config"] : json::object();
    std::string id = ident(name);
    Mapped m;
    try {
      m = map_block(type, id, cfg);
    } catch (const std::exception& e) {  // Unexpressible, or a config the mapping cannot read
      missing.push_back(name + " (" + type + "): " + e.what());
      m = Mapped{};
      m.decl = id + " :: Null;   // NOT EXPRESSIBLE: " + type + "\n";
      m.input = id;
    }
    if (!m.approx.empty()) approx.push_back(name + " (" + type + "): " + m.approx);
    classes << m.classes;
    decls << m.decl;
    blocks[name] = {id,
                    m.input,
                    m.inputs,
                    m.outputs,
                    std::vector<bool>(std::max(m.inputs, 0)),
                    std::vector<bool>(std::max(m.outputs, 0))};
    order.push_back(name);
  }
  bool any_unused = false;
  if (graph.contains("connectors") && graph["connectors"].is_array()) {
    for (const json& c : graph["connectors"]) {
      if (!c.is_object()) continue;
      std::string s = c.value("src", ""), d = c.value("dst", "");
      int sp = c.value("src_port", 0), dp = c.value("dst_port", 0);
      auto si = blocks.find(s), di = blocks.find(d);
      std::string line = (si != blocks.end() ? si->second.id : ident(s)) + " [" + std::to_string(sp) + "] -> [" +
                         std::to_string(dp) + "] " + (di != blocks.end() ? di->second.input : ident(d)) + ";";
      bool ok = si != blocks.end() && di != blocks.end() && sp >= 0 && sp < si->second.outputs && dp >= 0 &&
                dp < di->second.inputs;
      if (!ok) {
        wires << "// " << line << "   (port without a Click counterpart)\n";
        continue;
      }
      si->second.out_used[sp] = true;
      di->second.in_used[dp] = true;
      wires << line << "\n";
    }
  }
  // Click refuses unconnected ports; the graph drops what leaves an unconnected output.
  std::ostringstream fill;
  for (const std::string& name : order) {
    Ports& p = blocks[name];
    for (int k = 0; k < p.outputs; ++k)
      if (!p.out_used[k]) {
        fill << p.id << " [" << k << "] -> unconnected;\n";
        any_unused = true;
      }
    for (int k = 0; k < p.inputs; ++k)
      if (!p.in_used[k]) fill << "Idle -> [" << k << "] " << p.input << ";\n";
  }
  std::printf("// Click configuration exported from an OpenBox processing graph.\n");
  if (missing.empty()) std::printf("// Every block is expressed.\n");
  for (const auto& m : missing) std::printf("// not expressible: %s\n", m.c_str());
  for (const auto& a : approx) std::printf("// approximated: %s\n", a.c_str());
  std::printf("\n%s\n%s", classes.str().c_str(), decls.str().c_str());
  if (any_unused) std::printf("unconnected :: Discard;   // unconnected outputs drop, as in the graph\n");
  std::printf("\n%s%s", wires.str().c_str(), fill.str().c_str());
  if (!missing.empty()) {
    std::fprintf(stderr, "obi export-click: %zu block(s) not expressible in Click:", missing.size());
    for (std::size_t k = 0; k < missing.size(); ++k)
      std::fprintf(stderr, "%s %s", k ? "," : "", missing[k].substr(0, missing[k].find(':')).c_str());
    std::fprintf(stderr, "\n");
    return 3;
  }
  return 0;
}

}  // namespace obi::cli
