// The embedded block catalogue: every descriptor file parses, the spec 3.6.1 required
// blocks are present, config checking and indexed handle names behave.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "catalogue/catalogue.hh"
#include "openbox/error.hh"

namespace obi {
extern const char* const kCatalogueJson;
}

namespace fs = std::filesystem;
using nlohmann::json;
using obi::Catalogue;

TEST(catalogue, EveryEmbeddedDescriptorParses) {
  json all = json::parse(obi::kCatalogueJson);
  ASSERT_TRUE(all.is_array());
  size_t files = 0;
  for (const auto& e : fs::directory_iterator(fs::path(OPENBOX_ROOT) / "blocks" / "catalogue")) {
    const std::string n = e.path().filename().string();
    if (e.path().extension() == ".json" && n.find(".schema.") == std::string::npos) ++files;
  }
  EXPECT_EQ(all.size(), files) << "embedded descriptors vs files in blocks/catalogue";
  std::set<std::string> names;
  for (const auto& d : all) {
    try {
      auto bd = Catalogue::parse(d);
      EXPECT_TRUE(names.insert(bd.name).second) << "duplicate " << bd.name;
    } catch (const openbox::ProtocolError& e) {
      ADD_FAILURE() << e.what();
    }
  }
  EXPECT_EQ(Catalogue::builtin().all().size(), names.size());
  std::printf("catalogue: %zu descriptors\n", names.size());
}

TEST(catalogue, RequiredBlocksPresent) {
  const char* required[] = {"FromDevice",
                            "FromDump",
                            "ToDevice",
                            "ToDump",
                            "Discard",
                            "HeaderClassifier",
                            "RegexClassifier",
                            "RegexMatcher",
                            "HeaderPayloadClassifier",
                            "VlanEncapsulate",
                            "VlanDecapsulate",
                            "DecIpTtl",
                            "Ipv4AddressTranslator",
                            "NetworkHeaderFieldsRewriter",
                            "NetworkDirectionSwap",
                            "Alert",
                            "Log",
                            "Queue",
                            "ProtocolAnalyzer",
                            "SessionClassifier",
                            "SessionStore",
                            "FlowTracker",
                            "GzipDecompressor",
                            "EncapsulateMetadata",
                            "WriteMetadata",
                            "ReadMetadata",
                            "DecapsulateMetadata"};
  for (const char* r : required) {
    const obi::BlockDescriptor* d = Catalogue::builtin().find(r);
    ASSERT_NE(d, nullptr) << r;
    EXPECT_TRUE(d->required) << r << " should be marked required (spec 3.6.1)";
  }
  const auto* hc = Catalogue::builtin().find("HeaderClassifier");
  EXPECT_EQ(hc->block_class, obi::BlockClass::kClassifier);
  EXPECT_EQ(hc->outputs.kind, obi::PortSpec::Kind::kPer);
  EXPECT_EQ(hc->outputs.arg, "match");
}

namespace {
obi::BlockDescriptor sample() {
  return Catalogue::parse(json::parse(R"({
    "name": "Sample", "class": "classifier", "spec": "extension",
    "config": [{"name": "match", "type": "string[]", "required": true},
               {"name": "limit", "type": "integer", "default": 3},
               {"name": "flag", "type": "bool"}, {"name": "what", "type": "any"}],
    "read_handles": [{"name": "count_i", "type": "integer", "indexed": true}, {"name": "total", "type": "integer"}],
    "write_handles": [{"name": "reset", "type": "null"}],
    "inputs": 1, "outputs": {"per": "match", "plus": 1}})"));
}

std::string bad_block(const json& config) {
  try {
    Catalogue::builtin().check_config(sample(), "s1", config);
  } catch (const openbox::ProtocolError& e) {
    EXPECT_EQ(e.subtype(), openbox::ErrorSubtype::BAD_BLOCK);
    return e.what();
  }
  return "";
}
}  // namespace

TEST(catalogue, CheckConfig) {
  EXPECT_EQ(bad_block(json::parse(R"({"match": ["a"], "limit": 4, "flag": true, "what": [1]})")), "");
  EXPECT_NE(bad_block(json::parse(R"({"match": ["a"], "bogus": 1})")).find("bogus"), std::string::npos);
  EXPECT_NE(bad_block(json::parse(R"({"limit": 1})")).find("match"), std::string::npos);
  std::string wrong = bad_block(json::parse(R"({"match": ["a"], "limit": "3"})"));
  EXPECT_NE(wrong.find("limit"), std::string::npos);
  EXPECT_NE(wrong.find("s1"), std::string::npos);
  EXPECT_NE(bad_block(json::parse(R"({"match": [1]})")).find("match"), std::string::npos);
  EXPECT_NE(bad_block(json::parse(R"({"match": ["a"], "limit": 1.5})")), "");
}

TEST(catalogue, IndexedHandles) {
  auto d = sample();
  EXPECT_TRUE(d.has_read_handle("count_0"));
  EXPECT_TRUE(d.has_read_handle("count_12"));
  EXPECT_FALSE(d.has_read_handle("count_i"));
  EXPECT_FALSE(d.has_read_handle("count_"));
  EXPECT_FALSE(d.has_read_handle("count_01"));
  EXPECT_FALSE(d.has_read_handle("count"));
  EXPECT_TRUE(d.has_read_handle("total"));
  EXPECT_FALSE(d.has_read_handle("total_1"));
  EXPECT_TRUE(d.has_write_handle("reset"));
  EXPECT_FALSE(d.has_write_handle("total"));
  EXPECT_EQ(d.outputs.plus, 1);
}

TEST(catalogue, AddReplaceRemove) {
  Catalogue c;
  c.add(sample());
  auto s2 = sample();
  s2.description = "second";
  c.add(s2);
  ASSERT_EQ(c.all().size(), 1u);
  EXPECT_EQ(c.find("Sample")->description, "second");
  c.remove("Sample");
  EXPECT_EQ(c.find("Sample"), nullptr);
  EXPECT_THROW(Catalogue::parse(json::parse(R"({"name": "X", "class": "weird", "inputs": 1, "outputs": 1})")),
               openbox::ProtocolError);
  EXPECT_THROW(
      Catalogue::parse(json::parse(R"({"name": "X", "class": "static", "inputs": 1, "outputs": {"per": "nope"}})")),
      openbox::ProtocolError);
}
