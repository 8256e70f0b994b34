// obi check: builds every block of a graph file exactly as a SetProcessingGraph would (the
// catalogue's config check, then the block's own factory: header-match parsing, real
// Hyperscan compiles), without running it, and reports every block that fails with the
// protocol's Error type/subtype and message.
//
//   obi check --graph G.json [--json]
//
// Blocks that open devices or files (FromDevice, ToDevice, FromDump, ToDump) get the
// catalogue check only: what they open depends on the OBI they run on. In a classifier whose
// rule N fails, rule N is set aside and the block is built again, so every failing rule is
// reported (at most kMaxPerBlock per block). Exit code: 0 no problem, 1 problems, 2 bad usage.
#include <cstdio>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "catalogue/catalogue.hh"
#include "cli/args.hh"
#include "cli/commands.hh"
#include "engine/element.hh"
#include "openbox/error.hh"

namespace obi::cli {
namespace {

using openbox::ErrorSubtype;
using openbox::ProtocolError;

constexpr int kMaxPerBlock = 100;

const char* kCheckHelp =
    "usage: obi check --graph G.json [--json]\n"
    "Builds every block of the graph as SetProcessingGraph would (catalogue check, header\n"
    "matches, Hyperscan compile) without running it, and lists each failing block with the\n"
    "protocol's Error type/subtype. Exit code 0 when every block builds, 1 otherwise.\n"
    "  --graph G.json   graph file (a SetProcessingGraphRequest body without type/xid)\n"
    "  --json           print a JSON report {ok, blocks, errors: [{block, type, subtype, message, rule}]}\n";

struct Problem {
  std::string block;
  ErrorSubtype subtype;
  std::string message;
  int rule = -1;  // classifier rule index when the message names one
};

const std::set<std::string> kIoBlocks = {"FromDevice", "ToDevice", "FromDump", "ToDump"};

// The rule index a block's error names ("field 'match[12].payload_match[0]': ..." or
// "... rule 12 ..."), or -1.
int rule_of(const std::string& message) {
  static const std::regex kRule(R"((?:\bmatch\[(\d+)\])|(?:\brule (\d+)\b))");
  std::smatch m;
  if (!std::regex_search(message, m, kRule)) return -1;
  const std::string index = m[1].matched ? m[1].str() : m[2].str();
  try {
    return std::stoi(index);
  } catch (const std::exception&) {
    return -1;
  }
}

// Builds one block with its factory; on a failing rule of a "match" list, sets that rule
// aside (no header constraint, no payload pattern) and builds again.
void build_block(const std::string& name, const std::string& type, nlohmann::json config, std::vector<Problem>& out) {
  ElementFactory factory = find_element(type);
  for (int found = 0; found < kMaxPerBlock; ++found) {
    try {
      ElementArgs args{name, type, config, 1};
      factory(args);
      return;
    } catch (const ProtocolError& e) {
      int rule = rule_of(e.what());
      out.push_back({name, e.subtype(), e.what(), rule});
      auto match = config.find("match");
      if (rule < 0 || match == config.end() || !match->is_array() || rule >= static_cast<int>(match->size()) ||
          !(*match)[rule].is_object())
        return;
      nlohmann::json& r = (*match)[rule];
      if (r.value("header_match", nlohmann::json::object()).empty() &&
          r.value("payload_match", nlohmann::json::array()).empty())
        return;  // already set aside: the error is not the rule's own
      r["header_match"] = nlohmann::json::object();
      r["payload_match"] = nlohmann::json::array();
    } catch (const std::exception& e) {
      out.push_back({name, ErrorSubtype::BAD_BLOCK, "block '" + name + "' (" + type + "): " + e.what(), -1});
      return;
    }
  }
  out.push_back({name, ErrorSubtype::BAD_BLOCK,
                 "block '" + name + "': more than " + std::to_string(kMaxPerBlock) + " failing rules; stopped", -1});
}

std::vector<Problem> check_graph(const nlohmann::json& graph, std::size_t& blocks_checked) {
  std::vector<Problem> out;
  blocks_checked = 0;
  if (!graph.is_object() || !graph.contains("blocks") || !graph["blocks"].is_array()) {
    out.push_back({"", ErrorSubtype::BAD_GRAPH, "the graph needs a 'blocks' array", -1});
    return out;
  }
  const Catalogue& cat = Catalogue::builtin();
  std::set<std::string> names;
  const nlohmann::json& blocks = graph["blocks"];
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    const nlohmann::json& b = blocks[i];
    std::string where = "block #" + std::to_string(i);
    std::string name;
    try {
      if (!b.is_object()) throw ProtocolError(ErrorSubtype::BAD_BLOCK, where + ": a block must be an object");
      if (!b.contains("name") || !b["name"].is_string() || b["name"].get<std::string>().empty())
        throw ProtocolError(ErrorSubtype::BAD_BLOCK, where + ": missing or empty string field 'name'");
      name = b["name"].get<std::string>();
      if (!b.contains("type") || !b["type"].is_string() || b["type"].get<std::string>().empty())
        throw ProtocolError(ErrorSubtype::BAD_BLOCK, "block '" + name + "': missing or empty string field 'type'");
      std::string type = b["type"].get<std::string>();
      nlohmann::json config = b.contains("config") && !b["config"].is_null() ? b["config"] : nlohmann::json::object();
      if (!config.is_object())
        throw ProtocolError(ErrorSubtype::BAD_BLOCK, "block '" + name + "': 'config' must be an object");
      if (!names.insert(name).second)
        throw ProtocolError(ErrorSubtype::BAD_BLOCK, "duplicate block name '" + name + "'");
      const BlockDescriptor* d = cat.find(type);
      if (!d)
        throw ProtocolError(ErrorSubtype::UNSUPPORTED_BLOCK, "block '" + name + "': unknown block type '" + type + "'");
      if (!find_element(type))
        throw ProtocolError(ErrorSubtype::UNSUPPORTED_BLOCK,
                            "block '" + name + "': block type '" + type + "' is not implemented by this OBI");
      cat.check_config(*d, name, config);
      ++blocks_checked;
      if (kIoBlocks.count(type)) continue;
      build_block(name, type, std::move(config), out);
    } catch (const ProtocolError& e) {
      out.push_back({name, e.subtype(), e.what(), -1});
    }
  }
  return out;
}

}  // namespace

int check(const std::vector<std::string>& argv) {
  for (const auto& a : argv)
    if (a == "--help" || a == "-h") {
      std::fputs(kCheckHelp, stdout);
      return 0;
    }
  Args args(argv, {"graph"}, {"json"});
  nlohmann::json graph = load_graph_file(args.required("graph"));
  std::size_t blocks = 0;
  std::vector<Problem> problems = check_graph(graph, blocks);
  if (args.has("json")) {
    nlohmann::json report = {{"ok", problems.empty()}, {"blocks", blocks}, {"errors", nlohmann::json::array()}};
    for (const Problem& p : problems) {
      nlohmann::json e = {{"block", p.block},
                          {"type", std::string(openbox::to_string(openbox::type_of(p.subtype)))},
                          {"subtype", std::string(openbox::to_string(p.subtype))},
                          {"message", p.message}};
      if (p.rule >= 0) e["rule"] = p.rule;
      report["errors"].push_back(std::move(e));
    }
    std::printf("%s\n", report.dump().c_str());
  } else {
    for (const Problem& p : problems)
      std::printf("%s/%s: %s\n", std::string(openbox::to_string(openbox::type_of(p.subtype))).c_str(),
                  std::string(openbox::to_string(p.subtype)).c_str(), p.message.c_str());
    std::fprintf(stderr, "%zu block(s) checked, %zu problem(s)\n", blocks, problems.size());
  }
  return problems.empty() ? 0 : 1;
}

}  // namespace obi::cli
