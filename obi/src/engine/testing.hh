// Helpers for block and engine tests: craft frames, run one element on batches and see
// what leaves each output port.
//
//   using namespace obi::testing;
//   ElementHarness h("HeaderClassifier", {{"match", ...}});
//   auto r = h.push({udp4("10.0.0.1", "10.0.0.2", 1000, 53, "payload")});
//   EXPECT_EQ(r.out[1].size(), 1u);   // one frame left output 1
//   EXPECT_EQ(r.dropped, 0u);
//
// The element is built through the registered factory (as a graph would build it); every
// output port is connected to a capture element that copies the frame and returns the
// packet to the pool, so pool().available() tells whether the element leaked packets.
#pragma once

#include <arpa/inet.h>

#include <cstdio>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/element.hh"
#include "engine/events.hh"
#include "engine/pool.hh"

namespace obi::testing {

using Bytes = std::vector<uint8_t>;

// ---------------------------------------------------------------- frame builder
struct Frame {
  std::string src_mac = "02:00:00:00:00:01", dst_mac = "02:00:00:00:00:02";
  std::vector<uint16_t> vlans;  // TCIs, outer first (TPID 0x8100)
  uint16_t eth_type = 0;        // 0: from the IP version
  bool ipv6 = false;
  std::string src_ip = "10.0.0.1", dst_ip = "10.0.0.2";
  uint8_t proto = 17;  // 6 TCP, 17 UDP, 132 SCTP, 1 ICMP, 58 ICMPv6, other: raw
  uint8_t ttl = 64, tos = 0;
  uint16_t src_port = 1234, dst_port = 80;
  uint8_t tcp_flags = 0x02;  // SYN
  uint8_t icmp_type = 8, icmp_code = 0;
  std::string payload;
};

inline void put16(Bytes& b, uint16_t v) {
  b.push_back(v >> 8);
  b.push_back(v & 0xff);
}
inline void put32(Bytes& b, uint32_t v) {
  put16(b, v >> 16);
  put16(b, v & 0xffff);
}

inline void put_mac(Bytes& b, const std::string& mac) {
  unsigned m[6] = {0};
  if (std::sscanf(mac.c_str(), "%x:%x:%x:%x:%x:%x", &m[0], &m[1], &m[2], &m[3], &m[4], &m[5]) != 6)
    throw std::invalid_argument("bad MAC " + mac);
  for (unsigned x : m) b.push_back(static_cast<uint8_t>(x));
}

inline uint16_t ip_checksum(const uint8_t* p, size_t n) {
  uint32_t s = 0;
  for (size_t i = 0; i + 1 < n; i += 2) s += uint32_t(p[i]) << 8 | p[i + 1];
  if (n & 1) s += uint32_t(p[n - 1]) << 8;
  while (s >> 16) s = (s & 0xffff) + (s >> 16);
  return static_cast<uint16_t>(~s);
}

inline Bytes build(const Frame& f) {
  Bytes b;
  put_mac(b, f.dst_mac);
  put_mac(b, f.src_mac);
  for (uint16_t tci : f.vlans) {
    put16(b, 0x8100);
    put16(b, tci);
  }
  put16(b, f.eth_type ? f.eth_type : (f.ipv6 ? 0x86dd : 0x0800));
  Bytes l4;
  switch (f.proto) {
    case 6:
      put16(l4, f.src_port);
      put16(l4, f.dst_port);
      put32(l4, 1);
      put32(l4, 0);
      l4.push_back(5 << 4);
      l4.push_back(f.tcp_flags);
      put16(l4, 65535);
      put16(l4, 0);
      put16(l4, 0);
      break;
    case 17:
      put16(l4, f.src_port);
      put16(l4, f.dst_port);
      put16(l4, static_cast<uint16_t>(8 + f.payload.size()));
      put16(l4, 0);
      break;
    case 132:
      put16(l4, f.src_port);
      put16(l4, f.dst_port);
      put32(l4, 0);
      put32(l4, 0);
      break;
    case 1:
    case 58:
      l4.push_back(f.icmp_type);
      l4.push_back(f.icmp_code);
      put16(l4, 0);
      put32(l4, 0);
      break;
    default: break;
  }
  l4.insert(l4.end(), f.payload.begin(), f.payload.end());
  if (!f.ipv6) {
    Bytes ip;
    in_addr s{}, d{};
    if (inet_pton(AF_INET, f.src_ip.c_str(), &s) != 1 || inet_pton(AF_INET, f.dst_ip.c_str(), &d) != 1)
      throw std::invalid_argument("bad IPv4 address " + f.src_ip + " / " + f.dst_ip);
    ip.push_back(0x45);
    ip.push_back(f.tos);
    put16(ip, static_cast<uint16_t>(20 + l4.size()));
    put16(ip, 0);
    put16(ip, 0x4000);
    ip.push_back(f.ttl);
    ip.push_back(f.proto);
    put16(ip, 0);
    put32(ip, ntohl(s.s_addr));
    put32(ip, ntohl(d.s_addr));
    uint16_t c = ip_checksum(ip.data(), ip.size());
    ip[10] = c >> 8;
    ip[11] = c & 0xff;
    b.insert(b.end(), ip.begin(), ip.end());
  } else {
    in6_addr s{}, d{};
    if (inet_pton(AF_INET6, f.src_ip.c_str(), &s) != 1 || inet_pton(AF_INET6, f.dst_ip.c_str(), &d) != 1)
      throw std::invalid_argument("bad IPv6 address " + f.src_ip + " / " + f.dst_ip);
    put32(b, 0x60000000u | uint32_t(f.tos) << 20);
    put16(b, static_cast<uint16_t>(l4.size()));
    b.push_back(f.proto);
    b.push_back(f.ttl);
    b.insert(b.end(), s.s6_addr, s.s6_addr + 16);
    b.insert(b.end(), d.s6_addr, d.s6_addr + 16);
  }
  b.insert(b.end(), l4.begin(), l4.end());
  while (b.size() < 60) b.push_back(0);  // Ethernet minimum (without FCS)
  return b;
}

inline Bytes udp4(std::string src, std::string dst, uint16_t sport, uint16_t dport, std::string payload = "") {
  Frame f;
  f.src_ip = std::move(src);
  f.dst_ip = std::move(dst);
  f.proto = 17;
  f.src_port = sport;
  f.dst_port = dport;
  f.payload = std::move(payload);
  return build(f);
}
inline Bytes tcp4(std::string src, std::string dst, uint16_t sport, uint16_t dport, std::string payload = "",
                  uint8_t flags = 0x18) {
  Frame f;
  f.src_ip = std::move(src);
  f.dst_ip = std::move(dst);
  f.proto = 6;
  f.src_port = sport;
  f.dst_port = dport;
  f.payload = std::move(payload);
  f.tcp_flags = flags;
  return build(f);
}

// A packet from `pool` holding `bytes`; throws when the pool is empty.
inline Packet* make_packet(PacketPool& pool, const Bytes& bytes) {
  Packet* p = pool.alloc_copy(bytes.data(), static_cast<uint32_t>(bytes.size()));
  if (!p) throw std::runtime_error("test packet pool exhausted");
  p->flow_hash = flow_hash(*p);
  return p;
}

// Builds an element of a registered type; throws std::runtime_error if the type has no
// factory and lets the factory's openbox::ProtocolError through.
inline std::unique_ptr<Element> make_element(const std::string& type, const nlohmann::json& config,
                                             const std::string& name = "b", unsigned workers = 1) {
  ElementFactory f = find_element(type);
  if (!f) throw std::runtime_error("no element registered for block type " + type);
  ElementArgs args{name, type, config, workers};
  return f(args);
}

// ---------------------------------------------------------------- capture + harness
class CaptureElement final : public Element {
 public:
  explicit CaptureElement(std::vector<Bytes>* sink, std::vector<Packet>* meta) : sink_(sink), meta_(meta) {}
  uint16_t output_count() const override { return 0; }
  void push(uint16_t, Batch& batch, Context& ctx, const Outputs&) override {
    for (uint32_t i = 0; i < batch.n; ++i) {
      Packet* p = batch.pkts[i];
      sink_->emplace_back(p->data, p->data + p->len);
      meta_->push_back(*p);  // metadata only; data pointers are stale after free
      ctx.pool->free(p);
    }
    batch.n = 0;
  }

 private:
  std::vector<Bytes>* sink_;
  std::vector<Packet>* meta_;
};

struct Result {
  std::vector<std::vector<Bytes>> out;    // frames per output port, in order
  std::vector<std::vector<Packet>> meta;  // their Packet fields (flow_hash, timestamp, ...)
  uint64_t dropped = 0;                   // ctx.drop() calls during the run
  std::size_t total() const {
    std::size_t n = 0;
    for (auto& o : out) n += o.size();
    return n;
  }
};

class ElementHarness {
 public:
  ElementHarness(const std::string& type, const nlohmann::json& config, const std::string& name = "b",
                 unsigned workers = 1, uint32_t pool_packets = 4096)
      : ElementHarness(make_element(type, config, name, workers), workers, pool_packets) {}

  ElementHarness(std::unique_ptr<Element> e, unsigned workers = 1, uint32_t pool_packets = 4096)
      : element_(std::move(e)), pool_(pool_packets), events_(workers, 1024) {
    ctx_.worker = 0;
    ctx_.pool = &pool_;
    ctx_.events = &events_;
    uint16_t n = element_->output_count();
    sinks_.resize(n);
    metas_.resize(n);
    captures_.reserve(n);
    capture_nodes_.resize(n);
    links_.resize(n);
    for (uint16_t i = 0; i < n; ++i) {
      captures_.push_back(std::make_unique<CaptureElement>(&sinks_[i], &metas_[i]));
      capture_nodes_[i].element = captures_.back().get();
      links_[i].node = &capture_nodes_[i];
    }
    node_.element = element_.get();
    node_.outputs.links = links_.data();
    node_.outputs.count = n;
  }

  Element& element() { return *element_; }
  PacketPool& pool() { return pool_; }
  Context& ctx() { return ctx_; }
  RingEventSink& events() { return events_; }
  void set_worker(unsigned w) { ctx_.worker = w; }
  void set_now(uint64_t ns) { ctx_.now_ns = ns; }

  // Pushes the frames into `input` in batches of kBatchSize.
  Result push(const std::vector<Bytes>& frames, uint16_t input = 0) {
    begin();
    Batch b;
    for (const Bytes& f : frames) {
      b.add(make_packet(pool_, f));
      if (b.full()) {
        element_->push(input, b, ctx_, node_.outputs);
        b.clear();
      }
    }
    if (b.n) {
      element_->push(input, b, ctx_, node_.outputs);
      b.clear();
    }
    return finish();
  }
  // Pushes already-built packets (e.g. with metadata set by the test) as one batch.
  Result push_batch(Batch& b, uint16_t input = 0) {
    begin();
    element_->push(input, b, ctx_, node_.outputs);
    return finish();
  }
  // Runs the element's task once (queues, shapers).
  Result run_task() {
    begin();
    element_->run_task(ctx_, node_.outputs);
    return finish();
  }
  // Polls a source element once.
  Result poll(bool* more = nullptr) {
    begin();
    Batch b;
    bool m = element_->poll(b, ctx_);
    if (more) *more = m;
    Batch out = b;
    if (out.n) node_.outputs.emit(0, out, ctx_);
    return finish();
  }

  std::vector<Event> drain_events(std::size_t max = 1 << 20) {
    std::vector<Event> out;
    events_.drain(out, max);
    return out;
  }
  nlohmann::json read(std::string_view handle) const { return element_->read(handle); }
  void write(std::string_view handle, const nlohmann::json& v) { element_->write(handle, v); }

 private:
  void begin() {
    for (auto& s : sinks_) s.clear();
    for (auto& m : metas_) m.clear();
    drops_before_ = ctx_.drops;
  }
  Result finish() {
    Result r;
    r.out = sinks_;
    r.meta = metas_;
    r.dropped = ctx_.drops - drops_before_;
    return r;
  }

  std::unique_ptr<Element> element_;
  PacketPool pool_;
  RingEventSink events_;
  Context ctx_;
  std::vector<std::vector<Bytes>> sinks_;
  std::vector<std::vector<Packet>> metas_;
  std::vector<std::unique_ptr<CaptureElement>> captures_;
  std::vector<Node> capture_nodes_;
  std::vector<Link> links_;
  Node node_;
  uint64_t drops_before_ = 0;
};

}  // namespace obi::testing
