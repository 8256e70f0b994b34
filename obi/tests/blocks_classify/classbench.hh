// ClassBench rule sets and pcap frames for classifier tests and benchmarks.
//
// classbench_rules() turns each filter line into a header-match JSON object the way a
// 5-tuple firewall would: IPv4 src/dst prefixes, protocol value/mask, and port ranges
// as TCP_* / UDP_* fields for TCP and UDP rules only (ports of other protocols are not
// matched, as in Click's IPClassifier); the flags column is ignored, so expected results
// come from column 1 of the .firstmatch files.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace obi::classbench {

inline std::string data_dir() {
#ifdef OPENBOX_ROOT
  return std::string(OPENBOX_ROOT) + "/../shared/data";
#else
  return "/work/shared/data";
#endif
}

inline std::vector<nlohmann::json> classbench_rules(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open " + path);
  std::vector<nlohmann::json> rules;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] != '@') continue;
    unsigned s[4], d[4], slen, dlen, sp_lo, sp_hi, dp_lo, dp_hi, proto, pmask;
    if (std::sscanf(line.c_str() + 1, "%u.%u.%u.%u/%u %u.%u.%u.%u/%u %u : %u %u : %u %x/%x", &s[0], &s[1], &s[2], &s[3],
                    &slen, &d[0], &d[1], &d[2], &d[3], &dlen, &sp_lo, &sp_hi, &dp_lo, &dp_hi, &proto, &pmask) != 16)
      throw std::runtime_error("bad ClassBench line: " + line);
    nlohmann::json r = {{"ETH_TYPE", "0x0800"}};
    auto ip = [](unsigned* a, unsigned len) {
      return std::to_string(a[0]) + "." + std::to_string(a[1]) + "." + std::to_string(a[2]) + "." +
             std::to_string(a[3]) + "/" + std::to_string(len);
    };
    if (slen) r["IPV4_SRC"] = ip(s, slen);
    if (dlen) r["IPV4_DST"] = ip(d, dlen);
    if (pmask)
      r["IP_PROTO"] = pmask == 0xff ? std::to_string(proto) : std::to_string(proto) + "%" + std::to_string(pmask);
    if (pmask == 0xff && (proto == 6 || proto == 17)) {
      std::string p = proto == 6 ? "TCP" : "UDP";
      auto range = [](unsigned lo, unsigned hi) {
        return lo == hi
                   ? std::to_string(lo)
                   : std::string("[").append(std::to_string(lo)).append(":").append(std::to_string(hi)).append("]");
      };
      if (!(sp_lo == 0 && sp_hi == 65535)) r[p + "_SRC"] = range(sp_lo, sp_hi);
      if (!(dp_lo == 0 && dp_hi == 65535)) r[p + "_DST"] = range(dp_lo, dp_hi);
    }
    rules.push_back(std::move(r));
  }
  return rules;
}

// Column 1 of a .firstmatch file (0-based rule index per trace line).
inline std::vector<int> firstmatch(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open " + path);
  std::vector<int> v;
  int a, b;
  while (in >> a >> b) v.push_back(a);
  return v;
}

// Frames of a classic libpcap file (either byte order of the magic).
inline std::vector<std::vector<uint8_t>> pcap_frames(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open " + path);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string f = ss.str();
  if (f.size() < 24) throw std::runtime_error("short pcap " + path);
  uint32_t magic;
  std::memcpy(&magic, f.data(), 4);
  bool swap = magic == 0xd4c3b2a1 || magic == 0x4d3cb2a1;
  if (!swap && magic != 0xa1b2c3d4 && magic != 0xa1b23c4d) throw std::runtime_error("not a pcap file " + path);
  auto rd = [&](size_t off) {
    uint32_t v;
    std::memcpy(&v, f.data() + off, 4);
    return swap ? __builtin_bswap32(v) : v;
  };
  std::vector<std::vector<uint8_t>> out;
  size_t off = 24;
  while (off + 16 <= f.size()) {
    uint32_t caplen = rd(off + 8);
    off += 16;
    if (off + caplen > f.size()) break;
    out.emplace_back(f.begin() + off, f.begin() + off + caplen);
    off += caplen;
  }
  return out;
}

}  // namespace obi::classbench
