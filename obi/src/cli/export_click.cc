// obi export-click: an equivalent Click configuration for a processing graph.
//
// Terminals map to Click's FromDump/ToDump/FromDevice/ToDevice/Discard (ToDevice behind a
// Queue, as Click's pull output requires), queues to Queue/FrontDropQueue + Unqueue,
// VLAN and TTL modifiers to VLANEncap/VLANDecap/DecIPTTL, Log to Print. HeaderClassifier
// becomes Classifier (Ethernet-only rules) or IPClassifier behind Strip/CheckIPHeader
// (IPv4 rules over addresses, protocol, ports, DSCP, ICMP type). What Click cannot
// express (regex and payload classifiers, alerts, rewriters, ranges over addresses, ...)
// is listed at the top of the output and on stderr; such blocks appear as Null with
// their extra outputs left unconnected.
#include <cstdio>
#include <cctype>
#include <map>
#include <set>
#include <sstream>

#include "cli/args.hh"
#include "cli/commands.hh"
#include "openbox/header_match.hh"

namespace obi::cli {
namespace {

using json = nlohmann::json;
using openbox::MatchField;
using openbox::MatchTerm;

const char* kHelp =
    "usage: obi export-click --graph G.json\n"
    "Prints a Click configuration equivalent to the processing graph G.json on stdout; blocks\n"
    "Click cannot express are listed in a comment at the top and on stderr.\n";

struct Unexpressible : std::runtime_error { using std::runtime_error::runtime_error; };

std::string ident(const std::string& name) {   // Click element names: letters, digits, _ /
  std::string out;
  for (char c : name) out += (std::isalnum(static_cast<unsigned char>(c)) || c == '_') ? c : '_';
  if (out.empty() || std::isdigit(static_cast<unsigned char>(out[0]))) out = "b_" + out;
  return out;
}
std::string quote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) { if (c == '"' || c == '\\') out += '\\'; out += c; }
  return out + "\"";
}
std::string ipv4(uint32_t v) {
  return std::to_string(v >> 24) + "." + std::to_string(v >> 16 & 255) + "." + std::to_string(v >> 8 & 255) + "." +
         std::to_string(v & 255);
}
std::string hexbytes(uint64_t v, int bytes) {
  char buf[32];
  std::string s;
  for (int i = bytes - 1; i >= 0; --i) { std::snprintf(buf, sizeof buf, "%02x", unsigned(v >> (8 * i) & 255)); s += buf; }
  return s;
}

// One field of an IPv4 rule as an IPClassifier expression.
std::string ip_field(const openbox::FieldMatch& f) {
  std::vector<std::string> alts;
  for (const MatchTerm& t : f.terms) {
    uint64_t v = static_cast<uint64_t>(t.value), m = static_cast<uint64_t>(t.mask);
    bool exact_range = t.kind == MatchTerm::Kind::kRange;
    switch (f.field) {
      case MatchField::IPV4_SRC: case MatchField::IPV4_DST: {
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
      case MatchField::TCP_SRC: case MatchField::TCP_DST: case MatchField::UDP_SRC: case MatchField::UDP_DST: {
        bool src = f.field == MatchField::TCP_SRC || f.field == MatchField::UDP_SRC;
        std::string p = std::string(src ? "src " : "dst ") +
                        (f.field == MatchField::TCP_SRC || f.field == MatchField::TCP_DST ? "tcp" : "udp") + " port";
        if (exact_range) {
          alts.push_back(t.min == t.max ? p + " " + std::to_string(uint64_t(t.min))
                                        : "(" + p + " >= " + std::to_string(uint64_t(t.min)) + " and " + p + " <= " +
                                              std::to_string(uint64_t(t.max)) + ")");
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
        if (!exact_range && v == 0x0800 && m == 0xffff) { alts.push_back("true"); break; }
        throw Unexpressible("ETH_TYPE other than 0x0800 mixed with IPv4 fields");
      default:
        throw Unexpressible("field " + std::string(openbox::field_info(f.field).name));
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
  try {   // Ethernet-only rules: a plain Classifier
    std::vector<std::string> pats;
    for (const auto& r : rules) pats.push_back(eth_rule(r));
    o << "elementclass " << cls << " { input -> c :: Classifier(";
    for (std::size_t i = 0; i < pats.size(); ++i) o << (i ? ", " : "") << pats[i];
    o << "); ";
    for (std::size_t i = 0; i < pats.size(); ++i) o << "c[" << i << "] -> [" << i << "]output; ";
    o << "}\n";
    return o.str();
  } catch (const Unexpressible&) {
  }
  std::vector<std::string> exprs;
  int catch_all = -1;
  for (std::size_t i = 0; i < rules.size(); ++i) {
    const auto& r = rules[i];
    std::vector<std::string> parts;
    bool ip = false;
    for (const auto& f : r.fields) {
      if (f.field == MatchField::ETH_TYPE) { ip = true; }
      std::string e = ip_field(f);
      if (e != "true") parts.push_back(e);
    }
    if (r.fields.empty()) { exprs.push_back("-"); if (catch_all < 0) catch_all = int(i); continue; }
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
  if (catch_all >= 0) o << "  e[1] -> [" << catch_all << "]output;   // non-IPv4 frames match only the catch-all rule\n";
  else o << "  e[1] -> Discard;\n";
  o << "}\n";
  return o.str();
}

}  // namespace

int export_click(const std::vector<std::string>& argv) {
  for (const auto& a : argv)
    if (a == "--help" || a == "-h") { std::fputs(kHelp, stdout); return 0; }
  Args args(argv, {"graph"}, {});
  json graph = load_graph_file(args.required("graph"));
  if (!graph.is_object() || !graph.contains("blocks") || !graph["blocks"].is_array())
    throw UsageError("graph file has no 'blocks' array");
  std::ostringstream classes, decls, wires;
  std::vector<std::string> missing;
  std::map<std::string, std::string> in_name;   // where connectors into a block go
  std::set<std::string> partial;                // blocks emitted as Null
  for (const json& b : graph["blocks"]) {
    std::string name = b.value("name", ""), type = b.value("type", "");
    json cfg = b.contains("config") && b["config"].is_object() ? b["config"] : json::object();
    std::string id = ident(name);
    in_name[name] = id;
    try {
      if (type == "FromDump") {
        decls << id << " :: FromDump(" << quote(cfg.value("filename", "")) << ", TIMING " << (cfg.value("timing", false) ? "true" : "false")
              << ", ACTIVE " << (cfg.value("active", true) ? "true" : "false") << ");\n";
      } else if (type == "ToDump") {
        decls << id << " :: ToDump(" << quote(cfg.value("filename", "")) << ");\n";
      } else if (type == "FromDevice") {
        decls << id << " :: FromDevice(" << cfg.value("devname", "") << ", SNIFFER " << (cfg.value("sniffer", true) ? "true" : "false")
              << ", PROMISC " << (cfg.value("promisc", false) ? "true" : "false") << ");\n";
      } else if (type == "ToDevice") {
        decls << id << "_q :: Queue -> " << id << " :: ToDevice(" << cfg.value("devname", "") << ");\n";
        in_name[name] = id + "_q";
      } else if (type == "Discard") {
        decls << id << " :: Discard;\n";
      } else if (type == "Queue" || type == "FrontDropQueue") {
        decls << id << "_q :: " << type << "(" << cfg.value("capacity", 1000) << ") -> " << id << " :: Unqueue;\n";
        in_name[name] = id + "_q";
      } else if (type == "VlanDecapsulate") {
        decls << id << " :: VLANDecap;\n";
      } else if (type == "VlanEncapsulate") {
        decls << id << " :: VLANEncap(VLAN_ID " << cfg.value("vlan_vid", 0) << ", VLAN_PCP " << cfg.value("vlan_pcp", 0) << ");\n";
      } else if (type == "DecIpTtl") {
        classes << "elementclass OBDecIpTtl_" << id << " { input -> Strip(14) -> CheckIPHeader -> d :: DecIPTTL -> Unstrip(14) -> [0]output; "
                << "d[1] -> Unstrip(14) -> [1]output; }\n";
        decls << id << " :: OBDecIpTtl_" << id << ";\n";
      } else if (type == "Log") {
        decls << id << " :: Print(" << quote(cfg.value("message", "")) << ");\n";
      } else if (type == "HeaderClassifier") {
        classes << header_classifier("OBHeaderClassifier_" + id, cfg);
        decls << id << " :: OBHeaderClassifier_" << id << ";\n";
      } else {
        throw Unexpressible("no Click element does what " + type + " does");
      }
    } catch (const Unexpressible& e) {
      missing.push_back(name + " (" + type + "): " + e.what());
      decls << id << " :: Null;   // NOT EXPRESSIBLE: " << type << "\n";
      partial.insert(name);
    } catch (const std::exception& e) {
      missing.push_back(name + " (" + type + "): " + e.what());
      decls << id << " :: Null;   // NOT EXPRESSIBLE: " << type << "\n";
      partial.insert(name);
    }
  }
  if (graph.contains("connectors") && graph["connectors"].is_array()) {
    for (const json& c : graph["connectors"]) {
      std::string s = c.value("src", ""), d = c.value("dst", "");
      int sp = c.value("src_port", 0), dp = c.value("dst_port", 0);
      std::string line = ident(s) + " [" + std::to_string(sp) + "] -> [" + std::to_string(dp) + "] " +
                         (in_name.count(d) ? in_name[d] : ident(d)) + ";";
      if ((partial.count(s) && sp > 0) || (partial.count(d) && dp > 0)) wires << "// " << line << "   (port of an inexpressible block)\n";
      else wires << line << "\n";
    }
  }
  std::printf("// Click configuration exported from an OpenBox processing graph.\n");
  if (missing.empty()) std::printf("// Every block is expressed.\n");
  for (const auto& m : missing) std::printf("// not expressible: %s\n", m.c_str());
  std::printf("\n%s\n%s\n%s", classes.str().c_str(), decls.str().c_str(), wires.str().c_str());
  if (!missing.empty())
    std::fprintf(stderr, "obi export-click: %zu block(s) not expressible in Click (listed at the top)\n", missing.size());
  return 0;
}

}  // namespace obi::cli
