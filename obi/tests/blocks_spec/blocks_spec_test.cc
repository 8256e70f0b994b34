// The blocks and the catalogue agree: the generated tables (obi::spec, from
// blocks/catalogue/*.json) say what the embedded catalogue says, and every block the OBI
// registers is built to its table: it accepts each catalogue config key and no other, has
// the catalogue's port counts, answers each catalogue handle and no other.
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "blocks_spec.hh"
#include "catalogue/catalogue.hh"
#include "engine/element.hh"
#include "openbox/error.hh"

using nlohmann::json;

namespace obi {
namespace {

// A one-packet pcap file (FromDump needs a readable trace).
std::string tiny_pcap() {
  std::string path =
      (std::filesystem::temp_directory_path() / ("blocks_spec_" + std::to_string(::getpid()) + ".pcap")).string();
  std::ofstream f(path, std::ios::binary);
  const uint32_t hdr[6] = {0xa1b2c3d4, 0x00040002, 0, 0, 65535, 1};
  f.write(reinterpret_cast<const char*>(hdr), sizeof hdr);
  const uint32_t rec[4] = {1, 0, 60, 60};
  f.write(reinterpret_cast<const char*>(rec), sizeof rec);
  std::string frame(60, '\0');
  frame[12] = 0x08;  // IPv4 ethertype, zero header: enough for a reader
  f.write(frame.data(), frame.size());
  return path;
}

// A valid config of each block the OBI registers. A block added to the OBI needs one here.
std::map<std::string, json> sample_configs() {
  static const std::string pcap = tiny_pcap();
  return {
      {"Alert", {{"alerts", {{{"message", "m"}}}}}},
      {"BpsRateClassifier", {{"rate", {"1 kbps", "10 kbps"}}}},
      {"BpsShaper", {{"rate", 1000}}},
      {"ContentClassifier", {{"pattern", {"12/0800", "-"}}}},
      {"DecIpTtl", json::object()},
      {"Discard", json::object()},
      {"FlowTracker", json::object()},
      {"FromDevice", {{"devname", "lo"}}},
      {"FromDump", {{"filename", pcap}}},
      {"FrontDropQueue", {{"capacity", 8}}},
      {"HeaderClassifier", {{"match", {{{"ETH_TYPE", "0x0800"}, {"IPV4_PROTO", 6}}, json::object()}}}},
      {"HeaderPayloadClassifier",
       {{"match",
         {{{"header_match", json::object()}, {"payload_match", {{{"pattern", "abc"}, {"is_regex", false}}}}}}}}},
      {"HttpCacheResponder", {{"entries", {{{"path", "/a"}, {"content_type", "text/plain"}, {"body", "aGk="}}}}}},
      {"Ipv4AddressTranslator", {{"input_spec", {"pass 0", "keep 1 0"}}}},
      {"Log", {{"message", "m"}}},
      {"NetworkDirectionSwap", json::object()},
      {"NetworkHeaderFieldsRewriter", {{"ipv4_ttl", 9}}},
      {"PpsRateClassifier", {{"rate", {100, 1000, 5000}}}},
      {"PpsShaper", {{"rate", 1000}}},
      {"ProtocolAnalyzer", {{"protocols", {"tcp", "udp"}}}},
      {"Queue", {{"capacity", 8}}},
      {"RegexClassifier", {{"pattern", {"ab+c", "x"}}}},
      {"RegexMatcher", {{"pattern", {"ab+c"}}}},
      {"SessionClassifier", {{"match", {{{"key", "k"}, {"is_field", false}, {"value", 1}}}}}},
      {"SessionStore", {{"fields", {{"IPV4_SRC", "k"}}}}},
      {"ToDevice", {{"devname", "lo"}}},
      {"ToDump", {{"filename", (std::filesystem::temp_directory_path() / "blocks_spec_out.pcap").string()}}},
      {"VlanDecapsulate", json::object()},
      {"VlanEncapsulate", {{"vlan_vid", 5}}},
      {"DecapsulateMetadata", json::object()},
      {"EncapsulateMetadata", {{"spi", 42}, {"si", 7}, {"keys", {"app"}}}},
      {"GzipCompressor", {{"level", 9}, {"min_size", 512}}},
      {"GzipDecompressor", {{"max_size", 4096}}},
      {"RandomEarlyDetectionQueue", {{"capacity", 1000}, {"min_thresh", 50.0}, {"max_thresh", 500.0}, {"max_p", 0.1}}},
      {"ReadMetadata", {{"key", "app"}, {"values", {"ips", 3}}}},
      {"StringClassifier", {{"strings", {"cmd.exe", "/etc/passwd"}}}},
      {"WriteMetadata", {{"values", {{"app", "ips"}, {"mark", 3}}}}},
      {"SetTimestamp", {{"timestamp", "1700000000.5"}}},
      {"SetTimestampDelta", {{"range", "NOW"}, {"metadata_key", "latency"}}},
      {"Store",
       {{"key", "spec"},
        {"soft_timeout", 5},
        {"hard_timeout", 60},
        {"packet_size", -1},
        {"buffer_size", 1},
        {"buffer_timeout", 0}}},
      {"Restore", {{"key", "spec"}, {"protocol", "payload"}}},
      {"BeginTransaction", {{"name", "t"}}},
      {"CommitTransaction", {{"name", "t"}}},
      {"RollbackTransaction", {{"name", "t"}}},
      {"HtmlNormalizer",
       {{"decode_entities", true},
        {"remove_comments", true},
        {"lowercase_tags", false},
        {"collapse_whitespace", true}}},
      {"JsNormalizer", {{"unescape", true}, {"remove_comments", false}, {"collapse_whitespace", true}}},
  };
}

std::unique_ptr<Element> build(const std::string& type, const json& config) {
  ElementFactory f = find_element(type);
  if (!f) throw std::logic_error("not registered: " + type);
  return f(ElementArgs{"b", type, config, 2});
}

// The name a handle table entry is read under ("count_i" -> "count_0").
std::string concrete(const spec::HandleDecl& h) {
  std::string n(h.name);
  if (h.indexed) n.back() = '0';
  return n;
}

// Per-output counters (blocks/lib/output_stats.hh) answer every form of their family:
// arrays (count, byte_count, rate, byte_rate) and per output (count_i, ...), and take
// reset_counts, reset_all_counts and reset_i alike; a descriptor lists the forms the spec
// names (catalogue/README.md, "Counter families"). A handle of the other form counts as
// listed when the descriptor lists a member of the family.
bool listed_in(std::span<const spec::HandleDecl> table, const std::string& h) {
  if (spec::find_handle(table, h) >= 0) return true;
  static const std::set<std::string> counters = {"count", "byte_count", "rate", "byte_rate"};
  static const std::set<std::string> resets = {"reset_counts", "reset_all_counts", "reset_i"};
  auto base = [](std::string n) {
    size_t u = n.rfind('_');
    if (u != std::string::npos && u + 1 < n.size() &&
        std::all_of(n.begin() + u + 1, n.end(), [](char c) { return std::isdigit(c) || c == 'i'; }))
      n = n.substr(0, u);
    return n;
  };
  auto family = [&](const std::string& n) -> std::string {
    if (resets.count(n) || (n.rfind("reset_", 0) == 0 && base(n) == "reset")) return "reset";
    if (counters.count(base(n))) return base(n);
    return "";
  };
  std::string f = family(h);
  if (f.empty()) return false;
  for (const spec::HandleDecl& t : table)
    if (family(std::string(t.name)) == f) return true;
  return false;
}

bool unknown_handle(const openbox::ProtocolError& e) {
  return std::string(e.what()).find("unknown handle") != std::string::npos;
}

// The catalogue blocks the OBI registers.
std::vector<std::string> registered_catalogue_blocks() {
  std::vector<std::string> out;
  for (const std::string& t : registered_elements())
    if (Catalogue::builtin().find(t)) out.push_back(t);
  return out;
}

TEST(BlocksSpec, GeneratedTablesSayWhatTheCatalogueSays) {
  const Catalogue& cat = Catalogue::builtin();
  size_t n = 0;
  for (const BlockDescriptor& d : cat.all()) {
    SCOPED_TRACE(d.name);
    const spec::BlockDecl* b = spec::find_block(d.name);
    ASSERT_NE(b, nullptr) << "no generated table";
    ++n;
    ASSERT_EQ(b->config.size(), d.config.size());
    for (size_t i = 0; i < d.config.size(); ++i) {
      EXPECT_EQ(b->config[i].name, d.config[i].name);
      EXPECT_EQ(b->config[i].type, d.config[i].type);
      EXPECT_EQ(b->config[i].required, d.config[i].required);
    }
    auto same = [](std::span<const spec::HandleDecl> t, const std::vector<HandleDescriptor>& hs) {
      ASSERT_EQ(t.size(), hs.size());
      for (size_t i = 0; i < hs.size(); ++i) {
        EXPECT_EQ(t[i].name, hs[i].name);
        EXPECT_EQ(t[i].indexed, hs[i].indexed);
      }
    };
    same(b->read, d.read_handles);
    same(b->write, d.write_handles);
    auto same_ports = [](const spec::PortDecl& p, const PortSpec& s) {
      switch (s.kind) {
        case PortSpec::Kind::kFixed:
          EXPECT_EQ(p.kind, spec::PortDecl::kFixed);
          EXPECT_EQ(p.count, s.count);
          break;
        case PortSpec::Kind::kPer:
          EXPECT_EQ(p.kind, spec::PortDecl::kPer);
          EXPECT_EQ(p.arg, s.arg);
          EXPECT_EQ(p.plus, s.plus);
          break;
        case PortSpec::Kind::kFrom:
          EXPECT_EQ(p.kind, spec::PortDecl::kFrom);
          EXPECT_EQ(p.arg, s.arg);
          break;
      }
    };
    same_ports(b->inputs, d.inputs);
    same_ports(b->outputs, d.outputs);
  }
  EXPECT_EQ(n, std::size(spec::kBlocks));
}

TEST(BlocksSpec, HandleIdsResolveIndexedFamilies) {
  EXPECT_EQ(spec::DecIpTtl::read_id("active"), spec::DecIpTtl::Read::kActive);
  EXPECT_EQ(spec::DecIpTtl::write_id("reset_counts"), spec::DecIpTtl::Write::kResetCounts);
  EXPECT_EQ(spec::DecIpTtl::read_id("nope"), std::nullopt);
  EXPECT_EQ(spec::PpsRateClassifier::read_id("count_12"), spec::PpsRateClassifier::Read::kCountI);
  EXPECT_EQ(spec::PpsRateClassifier::read_id("count_"), std::nullopt);
  EXPECT_EQ(spec::PpsRateClassifier::read_id("count_x"), std::nullopt);
  EXPECT_EQ(spec::PpsRateClassifier::write_id("reset_3"), spec::PpsRateClassifier::Write::kResetI);
}

TEST(BlocksSpec, EveryRegisteredCatalogueBlockHasASampleHere) {
  auto samples = sample_configs();
  std::vector<std::string> blocks = registered_catalogue_blocks();
  EXPECT_GE(blocks.size(), 25u);
  for (const std::string& t : blocks) {
    ASSERT_TRUE(spec::find_block(t)) << t;
    EXPECT_TRUE(samples.count(t)) << "add a sample config of " << t << " to sample_configs()";
  }
  for (const std::string& t : registered_elements())
    EXPECT_TRUE(Catalogue::builtin().find(t)) << t << " is registered but has no catalogue descriptor";
}

TEST(BlocksSpec, BlocksAcceptEveryCatalogueKeyAndNoOther) {
  for (auto& [type, config] : sample_configs()) {
    SCOPED_TRACE(type);
    const spec::BlockDecl* b = spec::find_block(type);
    ASSERT_NE(b, nullptr);
    EXPECT_NO_THROW(build(type, config));
    json bad = config;
    bad["no_such_key"] = 1;
    try {
      build(type, bad);
      ADD_FAILURE() << "accepted a key the catalogue does not list";
    } catch (const openbox::ProtocolError& e) {
      EXPECT_EQ(e.subtype(), openbox::ErrorSubtype::BAD_BLOCK);
      EXPECT_NE(std::string(e.what()).find("'no_such_key'"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("block 'b' (" + type + ")"), std::string::npos) << e.what();
    }
    // Each optional key with its catalogue default is taken as it is.
    const BlockDescriptor* d = Catalogue::builtin().find(type);
    for (const ArgDescriptor& a : d->config) {
      if (a.required || a.default_value.is_null() || config.contains(a.name)) continue;
      json with = config;
      with[a.name] = a.default_value;
      EXPECT_NO_THROW(build(type, with)) << a.name << " = " << a.default_value.dump();
    }
  }
}

TEST(BlocksSpec, PortCountsAreTheCatalogues) {
  for (auto& [type, config] : sample_configs()) {
    SCOPED_TRACE(type);
    const spec::BlockDecl* b = spec::find_block(type);
    auto e = build(type, config);
    auto expect = [&](const spec::PortDecl& p, int got) {
      if (p.kind == spec::PortDecl::kFrom) return;  // the block computes it (Ipv4AddressTranslator)
      size_t n = p.kind == spec::PortDecl::kPer ? config.at(std::string(p.arg)).size() : 0;
      EXPECT_EQ(got, p.ports(n));
    };
    expect(b->inputs, e->input_count());
    expect(b->outputs, e->output_count());
  }
}

TEST(BlocksSpec, BlocksAnswerTheCatalogueHandlesAndNoOther) {
  // Every handle name of the whole catalogue is a probe: a block must answer (or refuse the
  // value of) its own, and refuse every other as an unknown handle.
  std::set<std::string> probes = {"no_such_handle", "config", "counts"};
  for (const spec::BlockDecl& b : spec::kBlocks) {
    for (const auto& h : b.read) probes.insert(concrete(h));
    for (const auto& h : b.write) probes.insert(concrete(h));
  }
  for (auto& [type, config] : sample_configs()) {
    SCOPED_TRACE(type);
    const spec::BlockDecl* b = spec::find_block(type);
    auto e = build(type, config);
    for (const std::string& h : probes) {
      bool listed = spec::find_handle(b->read, h) >= 0;  // must answer
      bool allowed = listed_in(b->read, h);              // may answer
      try {
        e->read(h);
        EXPECT_TRUE(allowed) << "answers read handle '" << h << "', which the catalogue does not list";
      } catch (const openbox::ProtocolError& err) {
        if (listed) {
          EXPECT_FALSE(unknown_handle(err)) << "read '" << h << "': " << err.what();
        } else if (!allowed) {
          EXPECT_TRUE(unknown_handle(err)) << "read '" << h << "': " << err.what();
        }
      }
    }
    for (const std::string& h : probes) {
      bool listed = listed_in(b->write, h);
      if (listed) continue;  // writing changes the block; the listed ones are checked below
      try {
        e->write(h, json());
        ADD_FAILURE() << "accepts write handle '" << h << "', which the catalogue does not list";
      } catch (const openbox::ProtocolError& err) {
        EXPECT_TRUE(unknown_handle(err)) << "write '" << h << "': " << err.what();
      }
    }
    for (const spec::HandleDecl& h : b->write) {
      // A value of the wrong kind: the block must know the handle and refuse the value, or
      // take it (reset handles ignore their value).
      try {
        e->write(concrete(h), json::array({"not", "a", "value"}));
      } catch (const openbox::ProtocolError& err) {
        EXPECT_FALSE(unknown_handle(err)) << "write '" << concrete(h) << "': " << err.what();
      }
    }
  }
}

// Every block's file pair, in the folder of its concern (blocks/classify, blocks/modify, ...).
std::map<std::string, std::filesystem::path> block_sources() {
  std::map<std::string, std::filesystem::path> out;
  const std::filesystem::path root = std::filesystem::path(OPENBOX_ROOT) / "blocks";
  for (const auto& e : std::filesystem::recursive_directory_iterator(root)) {
    const std::filesystem::path& p = e.path();
    if (p.extension() == ".cc" && p.parent_path().filename() != "lib") out[p.stem().string()] = p;
  }
  return out;
}

// The handle names a block's source compares against are catalogue handles of that block.
TEST(BlocksSpec, HandleNamesInTheSourcesAreCatalogueHandles) {
  std::regex cmp(R"re(\b(?:h|handle|name) == "([a-z0-9_]+)")re");
  const auto sources = block_sources();
  for (const spec::BlockDecl& b : spec::kBlocks) {
    if (!find_element(std::string(b.type))) continue;  // a catalogue block this OBI does not implement
    auto found = sources.find(std::string(b.type));
    ASSERT_NE(found, sources.end()) << "no source blocks/<concern>/" << b.type << ".cc for a registered block";
    const std::filesystem::path& src = found->second;
    std::ifstream f(src);
    std::stringstream ss;
    ss << f.rdbuf();
    std::string text = ss.str();
    for (auto it = std::sregex_iterator(text.begin(), text.end(), cmp); it != std::sregex_iterator(); ++it) {
      std::string h = (*it)[1];
      EXPECT_TRUE(spec::find_handle(b.read, h) >= 0 || spec::find_handle(b.write, h) >= 0)
          << src.filename() << " compares a handle with \"" << h << "\", which the catalogue does not list";
    }
  }
}

}  // namespace
}  // namespace obi
