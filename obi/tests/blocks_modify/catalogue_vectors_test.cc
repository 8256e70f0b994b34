// The catalogue against the OBI's block registry, and the shared config vectors against
// the OBI: every config the Java API writes (blocks/catalogue/vectors/api-configs.json)
// and every case of the generic config check (vectors/config-check.json) gets the same
// answer here as in the controller, both from the catalogue check and from the block's
// own factory.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "catalogue/catalogue.hh"
#include "engine/testing.hh"
#include "openbox/error.hh"

using namespace obi;
using nlohmann::json;

namespace {

json vectors(const char* file) {
  std::ifstream f(std::filesystem::path(OPENBOX_ROOT) / "blocks" / "catalogue" / "vectors" / file);
  return json::parse(f);
}

// The factories of sources and sinks open what they name (a pcap file to read, a network
// interface): the vectors name ones this machine need not have, so the factory gets a
// trace and an interface that exist here instead (the catalogue check sees the vector
// as written).
json on_this_machine(const std::string& type, json config) {
  if (type == "FromDump" && config.contains("filename") && config["filename"].is_string())
    config["filename"] = std::string(OPENBOX_ROOT) + "/../shared/data/pcap/zeek-testmyids.pcap";
  if ((type == "FromDevice" || type == "ToDevice") && config.contains("devname") && config["devname"].is_string())
    config["devname"] = "lo";
  return config;
}

// "valid", or the error subtype the catalogue check and then the block's factory give.
std::string obi_verdict(const json& block) {
  const std::string type = block.value("type", "");
  const std::string name = block.value("name", "");
  const json config = block.contains("config") ? block["config"] : json::object();
  try {
    const BlockDescriptor* d = Catalogue::builtin().find(type);
    if (!d) return "UNSUPPORTED_BLOCK";
    Catalogue::builtin().check_config(*d, name, config);
    if (d->obi) obi::testing::make_element(type, on_this_machine(type, config), name);
    return "valid";
  } catch (const openbox::ProtocolError& e) {
    return std::string(openbox::to_string(e.subtype())) + ": " + e.what();
  }
}

}  // namespace

TEST(CatalogueRegistry, ObiFieldMatchesTheBlockRegistry) {
  std::set<std::string> described;
  for (const BlockDescriptor& d : Catalogue::builtin().all()) {
    described.insert(d.name);
    EXPECT_EQ(d.obi, find_element(d.name) != nullptr)
        << d.name << ": \"obi\" in blocks/catalogue/" << d.name << ".json disagrees with the block registry";
  }
  for (const std::string& t : registered_elements())
    EXPECT_TRUE(described.count(t)) << "registered block " << t << " has no catalogue descriptor";
}

TEST(ConfigVectors, EveryConfigTheJavaApiWritesIsAccepted) {
  json v = vectors("api-configs.json");
  ASSERT_GE(v.size(), 30u);
  std::set<std::string> covered;
  for (const json& c : v) {
    EXPECT_EQ(obi_verdict(c["block"]), "valid") << c["description"];
    covered.insert(c["block"]["type"].get<std::string>());
  }
  for (const BlockDescriptor& d : Catalogue::builtin().all()) {
    if (d.obi) {
      EXPECT_TRUE(covered.count(d.name)) << "api-configs.json has no vector for " << d.name;
    }
  }
}

TEST(ConfigVectors, ConfigCheckCasesGetTheSameAnswer) {
  json v = vectors("config-check.json");
  ASSERT_GE(v.size(), 10u);
  for (const json& c : v) {
    std::string got = obi_verdict(c["block"]);
    std::string want = c["expect"].get<std::string>();
    EXPECT_EQ(got.substr(0, got.find(':')), want) << c["description"] << ": " << got;
  }
}
