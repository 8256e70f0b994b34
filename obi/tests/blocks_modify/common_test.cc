// The shared helpers (RFC 1624 update, config parsers), the catalogue contract (every
// descriptor handle answers) and robustness on random frames for all blocks of this area.
#include <gtest/gtest.h>

#include <fstream>
#include <random>

#include "checks.hh"
#include "lib/checksum.hh"
#include "lib/config.hh"

using namespace obi;
using namespace obi::testing;
using namespace modtest;
using nlohmann::json;

TEST(Checksum, Rfc1624Example) {
  // RFC 1624 section 4: HC = 0xdd2f, m = 0x5555 -> m' = 0x3285 gives HC' = 0x0000.
  blocks::ChecksumDelta d;
  d.word(0x5555, 0x3285);
  EXPECT_EQ(d.apply(0xdd2f), 0x0000);
}

TEST(Checksum, IncrementalEqualsRecomputeOnRandomHeaders) {
  std::mt19937 rng(7);
  for (int i = 0; i < 2000; ++i) {
    uint8_t hdr[20];
    for (auto& b : hdr) b = uint8_t(rng());
    hdr[10] = hdr[11] = 0;
    uint16_t c = ip_checksum(hdr, 20);
    hdr[10] = uint8_t(c >> 8);
    hdr[11] = uint8_t(c);
    unsigned w = (rng() % 10) * 2;
    if (w == 10) w = 12;
    uint16_t old_word = uint16_t(hdr[w] << 8 | hdr[w + 1]), new_word = uint16_t(rng());
    blocks::ChecksumDelta d;
    d.word(old_word, new_word);
    hdr[w] = uint8_t(new_word >> 8);
    hdr[w + 1] = uint8_t(new_word);
    d.apply_at(hdr + 10);
    uint8_t copy[20];
    std::memcpy(copy, hdr, 20);
    copy[10] = copy[11] = 0;
    uint16_t want = ip_checksum(copy, 20);
    // 0x0000 and 0xffff are the same one's-complement value; a verifier sums to -0 either way
    if (!(want == 0xffff && (hdr[10] << 8 | hdr[11]) == 0)) {
      ASSERT_EQ(uint16_t(hdr[10] << 8 | hdr[11]), want) << i;
    }
  }
}

TEST(Checksum, HelperDetectsCorruption) {
  Bytes b = with_checksums(tcp4("1.2.3.4", "5.6.7.8", 10, 20, "abc"));
  EXPECT_TRUE(ipv4_checksum_ok(b));
  EXPECT_TRUE(l4_checksum_ok(b));
  Bytes c = b;
  c[offsets(c).l4 + 21] ^= 0x40;  // a payload byte
  EXPECT_FALSE(l4_checksum_ok(c));
  c[offsets(c).l3 + 8] ^= 1;
  EXPECT_FALSE(ipv4_checksum_ok(c));
}

TEST(ConfigParsers, ValuesAndErrors) {
  blocks::Where w{openbox::ErrorSubtype::BAD_BLOCK, "block 'x' (T)", "f"};
  EXPECT_EQ(blocks::parse_integer(json("0x8100"), w, 0, 0xffff), 0x8100);
  EXPECT_EQ(blocks::parse_integer(json(12.0), w, 0, 100), 12);
  EXPECT_THROW(blocks::parse_integer(json(12.5), w, 0, 100), openbox::ProtocolError);
  EXPECT_THROW(blocks::parse_integer(json("12a"), w, 0, 100), openbox::ProtocolError);
  EXPECT_THROW(blocks::parse_integer(json(101), w, 0, 100), openbox::ProtocolError);
  EXPECT_EQ(blocks::parse_mac(json("00:1B:2c:3d:4e:5f"), w), 0x001b2c3d4e5full);
  EXPECT_THROW(blocks::parse_mac(json("00:1b:2c:3d:4e"), w), openbox::ProtocolError);
  EXPECT_THROW(blocks::parse_mac(json("00:1b:2c:3d:4e:5f:00"), w), openbox::ProtocolError);
  EXPECT_EQ(blocks::parse_ipv4(json("192.168.0.255"), w), 0xc0a800ffu);
  EXPECT_THROW(blocks::parse_ipv4(json("192.168.0"), w), openbox::ProtocolError);
  EXPECT_THROW(blocks::parse_ipv4(json("1.2.3.4 "), w), openbox::ProtocolError);
  EXPECT_EQ(blocks::format_mac(0x0a0b0c0d0e0full), "0a:0b:0c:0d:0e:0f");
  EXPECT_EQ(blocks::format_ipv4(0x01020304u), "1.2.3.4");
  try {
    blocks::parse_bool(json(3), w);
    FAIL();
  } catch (const openbox::ProtocolError& e) {
    EXPECT_EQ(e.subtype(), openbox::ErrorSubtype::BAD_BLOCK);
    EXPECT_EQ(std::string(e.what()).rfind("block 'x' (T): field 'f': ", 0), 0u) << e.what();
  }
}

namespace {

// A minimal valid config per block type of this area.
const std::vector<std::pair<std::string, json>>& area_blocks() {
  static const std::vector<std::pair<std::string, json>> v = {
      {"VlanEncapsulate", {{"vlan_vid", 3}}},
      {"VlanDecapsulate", json::object()},
      {"DecIpTtl", json::object()},
      {"Ipv4AddressTranslator",
       {{"input_spec", {"pattern 192.0.2.1 1024-2047 - - 0 1", "keep 1 0", "pass 2"}}, {"mapping_capacity", 64}}},
      {"NetworkHeaderFieldsRewriter",
       {{"ipv4_dst", "10.0.0.9"}, {"tcp_dst", 81}, {"udp_src", 9}, {"eth_src", "02:00:00:00:00:05"}}},
      {"NetworkDirectionSwap", {{"ethernet", true}, {"ipv4", true}, {"ipv6", true}, {"tcp", true}, {"udp", true}}},
      {"Alert", {{"alerts", {{{"message", "a"}}}}, {"attach_packet", true}}},
      {"Log", {{"message", "l"}, {"attach_packet", true}, {"packet_size", -1}}},
      {"Queue", {{"capacity", 10}}},
      {"FrontDropQueue", {{"capacity", 10}}},
      {"BpsShaper", {{"rate", 1e6}}},
      {"PpsShaper", {{"rate", 1e4}}},
      {"RandomEarlyDetectionQueue", {{"capacity", 10}, {"min_thresh", 2}, {"max_thresh", 5}, {"max_p", 0.1}}},
      {"WriteMetadata", {{"values", {{"app", "ips"}, {"mark", 3}}}}},
      {"EncapsulateMetadata", {{"spi", 7}}},
      {"DecapsulateMetadata", json::object()},
      {"GzipDecompressor", json::object()},
      {"GzipCompressor", {{"min_size", 0}}},
  };
  return v;
}

json sample_value(const std::string& handle, const std::string& type) {
  if (type == "null") return nullptr;
  if (type == "bool") return true;
  if (handle == "eth_src" || handle == "eth_dst") return "02:00:00:00:00:07";
  if (handle == "ipv4_src" || handle == "ipv4_dst") return "10.1.2.3";
  if (type == "number" && handle == "rate") return 12345.0;
  if (handle == "ethertype") return 0x88a8;
  return 1;
}

}  // namespace

TEST(Catalogue, EveryDescriptorHandleIsImplemented) {
  for (const auto& [type, config] : area_blocks()) {
    std::ifstream f(std::string(OPENBOX_ROOT) + "/blocks/catalogue/" + type + ".json");
    ASSERT_TRUE(f.good()) << type;
    json d = json::parse(f);
    ElementHarness h(type, config, "blk");
    for (const json& r : d["read_handles"]) {
      std::string name = r["name"];
      EXPECT_NO_THROW(h.read(name)) << type << "." << name;
    }
    for (const json& wh : d["write_handles"]) {
      std::string name = wh["name"];
      try {
        h.write(name, sample_value(name, wh["type"]));
      } catch (const openbox::ProtocolError& e) {
        ADD_FAILURE() << type << "." << name << ": " << e.what();
      }
    }
    // the port counts agree with the descriptor where it fixes them
    if (d["inputs"].is_number()) {
      EXPECT_EQ(h.element().input_count(), d["inputs"].get<int>()) << type;
    }
    if (d["outputs"].is_number()) {
      EXPECT_EQ(h.element().output_count(), d["outputs"].get<int>()) << type;
    }
    EXPECT_NE(find_element(type), nullptr);
  }
}

TEST(Robustness, RandomAndTruncatedFramesNeverCrashOrLeak) {
  std::mt19937 rng(2024);
  std::vector<Bytes> frames;
  Frame base;
  base.vlans = {7};
  std::vector<Bytes> seeds = {with_checksums(tcp4("10.0.0.1", "10.0.0.2", 1000, 80, "hello")),
                              with_checksums(udp4("10.0.0.1", "10.0.0.2", 1000, 53, "q")), build(base)};
  Frame v6;
  v6.ipv6 = true;
  v6.src_ip = "2001:db8::1";
  v6.dst_ip = "2001:db8::2";
  v6.proto = 6;
  seeds.push_back(build(v6));
  for (const Bytes& s : seeds)
    for (size_t len = 0; len <= s.size(); ++len) frames.emplace_back(s.begin(), s.begin() + len);
  for (int i = 0; i < 300; ++i) {
    Bytes b = seeds[rng() % seeds.size()];
    for (int k = 0; k < 4; ++k) b[rng() % b.size()] = uint8_t(rng());
    frames.push_back(b);
  }
  for (const auto& [type, config] : area_blocks()) {
    ElementHarness h(type, config, "blk");
    for (uint16_t in = 0; in < h.element().input_count(); ++in) {
      h.set_now(uint64_t(in + 1) * 1'000'000'000ull);
      Result r = h.push(frames, in);
      size_t done = r.total() + r.dropped;
      for (int t = 0; t < 2000 && h.element().has_task(); ++t) {
        h.set_now(uint64_t(in + 1) * 1'000'000'000ull + uint64_t(t + 1) * 10'000'000ull);
        Result q = h.run_task();
        done += q.total() + q.dropped;
      }
      std::string held = type.find("Queue") != std::string::npos || type.find("Shaper") != std::string::npos
                             ? h.read("length").dump()
                             : "0";
      EXPECT_EQ(done + std::stoul(held), frames.size()) << type << " input " << in;
    }
    h.drain_events();
    bool holds = type.find("Queue") != std::string::npos || type.find("Shaper") != std::string::npos;
    uint64_t held = holds ? h.read("length").get<uint64_t>() : 0;
    EXPECT_EQ(h.pool().available() + held, h.pool().capacity()) << type;
  }
}
