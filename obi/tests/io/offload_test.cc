// Finishing offloaded frames (io/offload.hh): partial checksums completed and TCP/UDP
// super-frames cut into segments whose headers, lengths and checksums are what the sender's
// NIC would have produced; frames that cannot be finished are refused with a reason.
#include <gtest/gtest.h>

#include <cstring>
#include <numeric>
#include <vector>

#include "io/offload.hh"
#include "lib/bytes.hh"

using namespace obi::io;

namespace {

constexpr uint8_t kNeedsCsum = 1, kGsoTcpV4 = 1, kGsoUdp = 3, kGsoTcpV6 = 4, kGsoUdpL4 = 5;

using obi::load_be16;
using obi::load_be32;
using obi::store_be16;

// Sum of the pseudo header as a sender's stack leaves it in the checksum field (not
// complemented) for CHECKSUM_PARTIAL.
uint16_t pseudo_partial(const std::vector<uint8_t>& f, uint32_t l3, bool v4, uint8_t proto, uint32_t l4_len) {
  uint32_t s = v4 ? csum_add(0, f.data() + l3 + 12, 8) : csum_add(0, f.data() + l3 + 8, 32);
  s += proto + l4_len;
  return static_cast<uint16_t>(~csum_fold(s));
}

// Ethernet + IPv4/IPv6 + TCP/UDP frame with `payload` bytes 0, 1, 2, ... and a partial
// L4 checksum, as a veth sender hands it over.
std::vector<uint8_t> frame(bool v4, bool tcp, uint32_t payload, uint8_t tcp_flags = 0x18) {
  uint32_t l3 = 14, l4 = l3 + (v4 ? 20 : 40), l4h = tcp ? 20 : 8;
  std::vector<uint8_t> f(l4 + l4h + payload, 0);
  store_be16(&f[12], v4 ? 0x0800 : 0x86dd);
  uint8_t proto = tcp ? 6 : 17;
  if (v4) {
    f[l3] = 0x45;
    store_be16(&f[l3 + 2], static_cast<uint16_t>(f.size() - l3));
    store_be16(&f[l3 + 4], 0x1234);
    f[l3 + 8] = 64;
    f[l3 + 9] = proto;
    uint8_t src[4] = {10, 78, 0, 1}, dst[4] = {10, 78, 0, 2};
    std::memcpy(&f[l3 + 12], src, 4);
    std::memcpy(&f[l3 + 16], dst, 4);
    store_be16(&f[l3 + 10], csum_fold(csum_add(0, &f[l3], 20)));
  } else {
    f[l3] = 0x60;
    store_be16(&f[l3 + 4], static_cast<uint16_t>(f.size() - l3 - 40));
    f[l3 + 6] = proto;
    f[l3 + 7] = 64;
    f[l3 + 8] = 0xfd;
    f[l3 + 23] = 1;
    f[l3 + 24] = 0xfd;
    f[l3 + 39] = 2;
  }
  store_be16(&f[l4], 40000);
  store_be16(&f[l4 + 2], 80);
  if (tcp) {
    f[l4 + 4] = 0x10;
    f[l4 + 7] = 0x01;  // seq 0x10000001
    f[l4 + 12] = 5 << 4;
    f[l4 + 13] = tcp_flags;
    store_be16(&f[l4 + 14], 65535);
  } else {
    store_be16(&f[l4 + 4], static_cast<uint16_t>(l4h + payload));
  }
  for (uint32_t i = 0; i < payload; ++i) f[l4 + l4h + i] = static_cast<uint8_t>(i);
  store_be16(&f[l4 + (tcp ? 16 : 6)], pseudo_partial(f, l3, v4, proto, l4h + payload));
  return f;
}

OffloadInfo offload(bool v4, bool tcp, uint8_t gso, uint16_t mss) {
  OffloadInfo o;
  o.needs_csum = true;
  o.csum_start = v4 ? 34 : 54;
  o.csum_offset = tcp ? 16 : 6;
  o.gso_type = gso;
  o.gso_size = mss;
  return o;
}

// A received segment is valid when its IPv4 header and L4 checksums verify to 0 and its
// lengths match the frame.
void expect_valid(const uint8_t* s, uint32_t len, bool v4, bool tcp) {
  uint32_t l3 = 14, l4 = v4 ? 34 : 54;
  uint32_t l4_len = len - l4;
  uint32_t sum;
  if (v4) {
    EXPECT_EQ(load_be16(s + l3 + 2), len - l3);
    EXPECT_EQ(csum_fold(csum_add(0, s + l3, 20)), 0) << "IPv4 header checksum";
    sum = csum_add(0, s + l3 + 12, 8);
  } else {
    EXPECT_EQ(load_be16(s + l3 + 4), len - l3 - 40);
    sum = csum_add(0, s + l3 + 8, 32);
  }
  if (!tcp) {
    EXPECT_EQ(load_be16(s + l4 + 4), l4_len);
  }
  sum += (tcp ? 6 : 17) + l4_len;
  EXPECT_EQ(csum_fold(csum_add(sum, s + l4, l4_len)), 0) << (tcp ? "TCP" : "UDP") << " checksum";
}

}  // namespace

TEST(Offload, CompletesAPartialChecksumWithoutSegmenting) {
  for (bool tcp : {true, false}) {
    auto f = frame(true, tcp, 300);
    OffloadedFrame of(f.data(), static_cast<uint32_t>(f.size()), offload(true, tcp, 0, 0), 9216);
    ASSERT_TRUE(of.valid()) << of.why_invalid();
    ASSERT_EQ(of.segments(), 1u);
    std::vector<uint8_t> out(9216);
    ASSERT_EQ(of.write_segment(0, out.data()), f.size());
    expect_valid(out.data(), static_cast<uint32_t>(f.size()), true, tcp);
    EXPECT_EQ(0, std::memcmp(out.data(), f.data(), tcp ? 50 : 40)) << "only the checksum changes";
  }
}

TEST(Offload, CutsATcpSuperFrameIntoSegmentsLikeTheNicWould) {
  for (bool v4 : {true, false}) {
    const uint32_t payload = 64000, mss = 1448;
    auto f = frame(v4, true, payload, 0x19 | 0x80);  // FIN, PSH, ACK, CWR
    OffloadedFrame of(f.data(), static_cast<uint32_t>(f.size()), offload(v4, true, v4 ? kGsoTcpV4 : kGsoTcpV6, mss),
                      9216);
    ASSERT_TRUE(of.valid()) << of.why_invalid();
    const uint32_t n = (payload + mss - 1) / mss;
    ASSERT_EQ(of.segments(), n);
    uint32_t l4 = v4 ? 34 : 54;
    std::vector<uint8_t> joined;
    for (uint32_t i = 0; i < n; ++i) {
      std::vector<uint8_t> s(9216);
      uint32_t len = of.write_segment(i, s.data());
      uint32_t want = std::min(mss, payload - i * mss);
      ASSERT_EQ(len, l4 + 20 + want);
      expect_valid(s.data(), len, v4, true);
      EXPECT_EQ(load_be32(&s[l4 + 4]), 0x10000001u + i * mss) << "sequence number of segment " << i;
      uint8_t flags = s[l4 + 13];
      EXPECT_EQ(bool(flags & 0x01), i + 1 == n) << "FIN on the last segment only";
      EXPECT_EQ(bool(flags & 0x08), i + 1 == n) << "PSH on the last segment only";
      EXPECT_EQ(bool(flags & 0x80), i == 0) << "CWR on the first segment only";
      EXPECT_TRUE(flags & 0x10) << "ACK on every segment";
      if (v4) {
        EXPECT_EQ(load_be16(&s[14 + 4]), 0x1234 + i) << "IPv4 id per segment";
      }
      joined.insert(joined.end(), s.begin() + l4 + 20, s.begin() + len);
    }
    ASSERT_EQ(joined.size(), payload);
    EXPECT_TRUE(std::equal(joined.begin(), joined.end(), f.begin() + l4 + 20)) << "payload in order, whole";
  }
}

TEST(Offload, CutsAUdpSuperFrameIntoDatagrams) {
  const uint32_t payload = 10000, size = 1400;
  auto f = frame(true, false, payload);
  OffloadedFrame of(f.data(), static_cast<uint32_t>(f.size()), offload(true, false, kGsoUdpL4, size), 9216);
  ASSERT_TRUE(of.valid()) << of.why_invalid();
  ASSERT_EQ(of.segments(), 8u);
  for (uint32_t i = 0; i < of.segments(); ++i) {
    std::vector<uint8_t> s(9216);
    uint32_t len = of.write_segment(i, s.data());
    ASSERT_EQ(len, 42 + std::min(size, payload - i * size));
    expect_valid(s.data(), len, true, false);
    EXPECT_EQ(s[42], static_cast<uint8_t>(i * size)) << "datagram " << i << " starts where the last ended";
  }
}

TEST(Offload, RefusesWhatItCannotFinishWithAReason) {
  std::vector<uint8_t> tcp4 = frame(true, true, 5000);
  auto refused = [&](const std::vector<uint8_t>& f, OffloadInfo o, uint32_t max_len = 9216) {
    OffloadedFrame of(f.data(), static_cast<uint32_t>(f.size()), o, max_len);
    EXPECT_FALSE(of.valid());
    return std::string(of.why_invalid() ? of.why_invalid() : "");
  };
  EXPECT_NE(refused(tcp4, offload(true, true, kGsoUdp, 1400)).find("fragmentation"), std::string::npos);
  EXPECT_NE(refused(tcp4, offload(true, true, kGsoTcpV6, 1400)).find("IP version"), std::string::npos);
  EXPECT_NE(refused(tcp4, offload(true, false, kGsoUdpL4, 1400)).find("transport"), std::string::npos);
  EXPECT_NE(refused(tcp4, offload(true, true, kGsoTcpV4, 0)).find("segment size"), std::string::npos);
  EXPECT_NE(refused(tcp4, offload(true, true, kGsoTcpV4, 9000), 2048).find("packet buffer"), std::string::npos);
  OffloadInfo past = offload(true, true, 0, 0);
  past.csum_start = static_cast<uint16_t>(tcp4.size());
  EXPECT_NE(refused(tcp4, past).find("past the frame"), std::string::npos);
  OffloadInfo wrong_start = offload(true, true, kGsoTcpV4, 1400);
  wrong_start.csum_start = 30;
  EXPECT_NE(refused(tcp4, wrong_start).find("disagree"), std::string::npos);
  std::vector<uint8_t> cut(tcp4.begin(), tcp4.begin() + 40);
  EXPECT_FALSE(OffloadedFrame(cut.data(), 40, offload(true, true, kGsoTcpV4, 1400), 9216).valid());
  std::vector<uint8_t> big(10000, 0);
  EXPECT_FALSE(OffloadedFrame(big.data(), 10000, OffloadInfo{}, 9216).valid()) << "longer than a buffer";
}

TEST(Offload, ReadsTheVirtioNetHeader) {
  // flags, gso_type, hdr_len, gso_size, csum_start, csum_offset (little-endian on x86)
  const uint8_t raw[10] = {kNeedsCsum, kGsoTcpV4 | 0x80, 66, 0, 0xa8, 0x05, 34, 0, 16, 0};
  OffloadInfo o = read_vnet_hdr(raw);
  EXPECT_TRUE(o.needs_csum);
  EXPECT_EQ(o.gso_type, kGsoTcpV4) << "the ECN bit is not part of the type";
  EXPECT_EQ(o.gso_size, 1448);
  EXPECT_EQ(o.csum_start, 34);
  EXPECT_EQ(o.csum_offset, 16);
}
