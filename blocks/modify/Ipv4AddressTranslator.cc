#include "Ipv4AddressTranslator.hh"

#include "lib/block_spec.hh"

#include <algorithm>

#include "lib/bytes.hh"
#include "lib/checksum.hh"
#include "lib/config.hh"
#include "lib/headers.hh"

namespace obi {

using namespace blocks;

namespace {

constexpr uint64_t kSecond = 1'000'000'000ull;
constexpr uint32_t kMaxPortProbes = 4096;
constexpr uint32_t kReapBudget = 1024;

uint64_t next_random(uint64_t& s) {  // xorshift64*
  s ^= s >> 12;
  s ^= s << 25;
  s ^= s >> 27;
  return s * 0x2545f4914f6cdd1dULL;
}

void rewrite(Packet& p, const Headers& h, const FlowKey& from, const FlowKey& to) {
  // handle_packet checked: IPv4 with a TCP or UDP header, not a fragment
  const hdr::Ipv4 ip = hdr::ipv4(p, h);
  ChecksumDelta ipd, l4d;
  if (from.sa != to.sa) {
    ipd.dword(from.sa, to.sa);
    l4d.dword(from.sa, to.sa);
    ip.set_src(to.sa);
  }
  if (from.da != to.da) {
    ipd.dword(from.da, to.da);
    l4d.dword(from.da, to.da);
    ip.set_dst(to.da);
  }
  if (!ipd.empty()) ipd.apply_at(ip.data() + hdr::Ipv4::kChecksum);
  if (auto t = hdr::tcp(p, h)) {
    if (from.sp != to.sp) {
      l4d.word(from.sp, to.sp);
      t.set_src_port(to.sp);
    }
    if (from.dp != to.dp) {
      l4d.word(from.dp, to.dp);
      t.set_dst_port(to.dp);
    }
    if (!l4d.empty()) l4d.apply_at(t.checksum_bytes());
  } else if (auto u = hdr::udp(p, h)) {
    if (from.sp != to.sp) {
      l4d.word(from.sp, to.sp);
      u.set_src_port(to.sp);
    }
    if (from.dp != to.dp) {
      l4d.word(from.dp, to.dp);
      u.set_dst_port(to.dp);
    }
    if (!l4d.empty()) l4d.apply_udp_at(u.checksum_bytes());
  }
}

}  // namespace

Ipv4AddressTranslatorElement::Ipv4AddressTranslatorElement(const ElementArgs& args)
    : workers_(std::max(1u, args.workers)), w_(std::max(1u, args.workers)) {
  ConfigReader c(args);
  const nlohmann::json& list = c.require("input_spec");
  if (!list.is_array() || list.empty() || list.size() > 64)
    c.where("input_spec").expected("an array of 1..64 input spec strings", list);
  uint16_t max_out = 0;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const Where at = c.where("input_spec").at(i);
    std::string text = parse_string(list[i], at), error;
    InputSpec s;
    if (!parse_input_spec(text, s, error)) at.fail(error + " in '" + text + "'");
    max_out = std::max(max_out, s.max_output());
    specs_.push_back(s);
  }
  outputs_ = static_cast<uint16_t>(max_out + 1);

  constexpr int64_t kYear = 366ll * 86400;
  auto secs = [&](const char* f, int64_t def, int64_t min) {
    return static_cast<uint64_t>(c.integer(f, def, min, 10 * kYear)) * kSecond;
  };
  tcp_timeout_ = secs("tcp_timeout", 86400, 1);
  tcp_done_timeout_ = secs("tcp_done_timeout", 240, 1);
  tcp_nodata_timeout_ = secs("tcp_nodata_timeout", 300, 1);
  tcp_guarantee_ = secs("tcp_guarantee", 5, 0);
  udp_timeout_ = secs("udp_timeout", 300, 1);
  udp_streaming_timeout_ = c.has("udp_streaming_timeout") ? secs("udp_streaming_timeout", 0, 1) : udp_timeout_;
  udp_guarantee_ = secs("udp_guarantee", 5, 0);
  reap_interval_ = secs("reap_interval", 900, 1);
  configured_capacity_ = static_cast<uint32_t>(c.integer("mapping_capacity", 65536, 1, 1 << 24));
  capacity_.store(configured_capacity_);
  uint32_t per_worker = (configured_capacity_ + workers_ - 1) / workers_;
  worker_limit_.store(per_worker);
  for (unsigned i = 0; i < workers_; ++i) {
    Worker& w = w_[i];
    w.table.init(per_worker);
    w.cursor.reset(new uint32_t[specs_.size()]());
    w.rng ^= (i + 1) * 0xbf58476d1ce4e5b9ULL;
  }
}

void Ipv4AddressTranslatorElement::push(uint16_t input, Batch& batch, Context& ctx, const Outputs& out) {
  Worker& w = w_[ctx.worker];
  uint16_t port[kBatchSize];
  for (uint32_t i = 0; i < batch.n; ++i) port[i] = handle_packet(*batch.pkts[i], input, w, ctx);
  // Emit per output in arrival order; handle_packet marks dropped packets kDrop.
  bool taken[kBatchSize] = {};
  for (uint32_t i = 0; i < batch.n; ++i) {
    if (taken[i]) continue;
    uint16_t o = port[i];
    Batch b;
    for (uint32_t j = i; j < batch.n; ++j) {
      if (taken[j] || port[j] != o) continue;
      taken[j] = true;
      b.add(batch.pkts[j]);
    }
    if (o == kDrop) ctx.drop(b);
    else out.emit(o, b, ctx);
  }
  batch.n = 0;
}

uint16_t Ipv4AddressTranslatorElement::handle_packet(Packet& p, uint16_t input, Worker& w, Context& ctx) {
  const InputSpec& spec = specs_[input < specs_.size() ? input : 0];
  const Headers& h = p.headers();
  const auto ip = hdr::ipv4(p, h);
  const auto t = hdr::tcp(p, h);
  const auto u = hdr::udp(p, h);
  if (!ip || h.fragment || (!t && !u)) return spec.kind == InputSpec::Kind::kPass ? spec.fout : kDrop;

  FlowKey k{ip.src(), ip.dst(), t ? t.src_port() : u.src_port(), t ? t.dst_port() : u.dst_port(), h.ip_proto};
  unsigned dir = 0;
  uint32_t f = w.table.find(k, ctx.now_ns, dir);
  if (f == NatTable::kNone) {
    switch (spec.kind) {
      case InputSpec::Kind::kDiscard: return kDrop;
      case InputSpec::Kind::kPass: return spec.fout;
      default: break;
    }
    f = install(spec, input, k, w, ctx);
    if (f == NatTable::kNone) {
      w.failures.add(1);
      return kDrop;
    }
    dir = 0;
  }
  NatFlow& fl = w.table.flow(f);
  touch(fl, dir, p, h, ctx.now_ns);
  rewrite(p, h, k, fl.rewrite_to(dir));
  return fl.output(dir);
}

uint32_t Ipv4AddressTranslatorElement::install(const InputSpec& spec, uint16_t input, const FlowKey& k, Worker& w,
                                               Context& ctx) {
  const uint32_t limit = worker_limit_.load(std::memory_order_relaxed);
  const uint64_t now = ctx.now_ns;
  unsigned dir = 0;
  if (spec.kind == InputSpec::Kind::kKeep) {
    FlowKey rev = k.reversed();
    if (rev == k || w.table.find(rev, now, dir) != NatTable::kNone) return NatTable::kNone;
    return w.table.insert(k, k, spec.fout, rev, rev, spec.rout, now, limit);
  }
  FlowKey to = k;
  if (spec.set_saddr) to.sa = spec.saddr;
  if (spec.set_daddr) to.da = spec.daddr;
  if (spec.set_dport) to.dp = spec.dport;
  auto free_port = [&](uint16_t port) {
    FlowKey rev{to.da, to.sa, to.dp, port, k.proto};
    return !(rev == k) && w.table.find(rev, now, dir) == NatTable::kNone;
  };
  if (spec.sport_mode == InputSpec::PortMode::kFixed) {
    to.sp = spec.sport_lo;
    if (!free_port(to.sp)) return NatTable::kNone;
  } else if (spec.sport_mode == InputSpec::PortMode::kRange) {
    // This worker's share of the range: ports congruent to its number modulo workers_.
    const uint32_t W = workers_, me = ctx.worker % W, lo = spec.sport_lo, hi = spec.sport_hi;
    const uint32_t first = lo + (me + W - lo % W) % W;
    if (first > hi) return NatTable::kNone;
    const uint32_t count = (hi - first) / W + 1;
    bool found = false;
    if (spec.pick == InputSpec::Pick::kPreferSource && k.sp >= first && k.sp <= hi && k.sp % W == me &&
        free_port(k.sp)) {
      to.sp = k.sp;
      found = true;
    }
    if (!found) {
      uint32_t start =
          spec.pick == InputSpec::Pick::kSequential ? w.cursor[input] % count : uint32_t(next_random(w.rng) % count);
      uint32_t probes = std::min(count, kMaxPortProbes);
      for (uint32_t t = 0; t < probes; ++t) {
        uint32_t idx = start + t;
        if (idx >= count) idx -= count;
        uint16_t port = static_cast<uint16_t>(first + idx * W);
        if (free_port(port)) {
          to.sp = port;
          found = true;
          if (spec.pick == InputSpec::Pick::kSequential) w.cursor[input] = idx + 1;
          break;
        }
      }
    }
    if (!found) return NatTable::kNone;
  } else if (!free_port(to.sp)) {
    return NatTable::kNone;
  }
  FlowKey rev{to.da, to.sa, to.dp, to.sp, k.proto};
  return w.table.insert(k, to, spec.fout, rev, k.reversed(), spec.rout, now, limit);
}

void Ipv4AddressTranslatorElement::touch(NatFlow& f, unsigned dir, Packet& p, const Headers& h, uint64_t now) const {
  if (f.packets != UINT32_MAX) ++f.packets;
  f.state |= dir == 0 ? NatFlow::kSeen0 : NatFlow::kSeen1;
  uint64_t timeout, guarantee;
  if (h.ip_proto == kIpProtoTcp) {
    const hdr::Tcp t = hdr::tcp(p, h);
    const hdr::Ipv4 ip = hdr::ipv4(p, h);
    if (t.flags() & (hdr::Tcp::kFin | hdr::Tcp::kRst)) f.state |= NatFlow::kDone;
    // Payload length from the IP total length: Ethernet padding is not data.
    int data = int(ip.total_len()) - int(ip.header_len()) - int(t.header_len());
    if (data > 0) f.state |= dir == 0 ? NatFlow::kData0 : NatFlow::kData1;
    if (f.state & NatFlow::kDone) timeout = tcp_done_timeout_;
    else if ((f.state & (NatFlow::kData0 | NatFlow::kData1)) == (NatFlow::kData0 | NatFlow::kData1))
      timeout = tcp_timeout_;
    else timeout = tcp_nodata_timeout_;
    guarantee = tcp_guarantee_;
  } else {
    bool both = (f.state & (NatFlow::kSeen0 | NatFlow::kSeen1)) == (NatFlow::kSeen0 | NatFlow::kSeen1);
    timeout = both && f.packets >= 3 ? udp_streaming_timeout_ : udp_timeout_;
    guarantee = udp_guarantee_;
  }
  f.expiry_ns = now + timeout;
  f.guarantee_ns = now + guarantee;
}

void Ipv4AddressTranslatorElement::run_task(Context& ctx, const Outputs&) {
  Worker& w = w_[ctx.worker];
  if (!w.reaping) {
    if (w.next_reap == 0) w.next_reap = ctx.now_ns + reap_interval_;
    if (ctx.now_ns < w.next_reap) return;
    w.reaping = true;
  }
  if (w.table.reap(ctx.now_ns, kReapBudget)) {
    w.reaping = false;
    w.next_reap = ctx.now_ns + reap_interval_;
  }
}

nlohmann::json Ipv4AddressTranslatorElement::read(std::string_view h) const {
  uint64_t sum = 0;
  if (h == "mappings_count" || h == "length") {
    w_.for_each([&](const Worker& w) { sum += w.table.count(); });
    return sum;
  }
  if (h == "mapping_failures") {
    w_.for_each([&](const Worker& w) { sum += w.failures.get(); });
    return sum;
  }
  if (h == "capacity") return std::to_string(capacity_.load()) + " 0";
  if (h == "tcp_mappings" || h == "udp_mappings") {
    std::string s;
    uint8_t proto = h == "tcp_mappings" ? kIpProtoTcp : kIpProtoUdp;
    w_.for_each([&](const Worker& w) { s += w.table.describe(proto); });
    return s;
  }
  return Element::read(h);
}

void Ipv4AddressTranslatorElement::write(std::string_view h, const nlohmann::json& v) {
  if (h != "capacity") return Element::write(h, v);
  Where where = handle_where(*this, h);
  int64_t cap = parse_integer(v, where, 1, configured_capacity_);
  capacity_.store(static_cast<uint32_t>(cap));
  worker_limit_.store(static_cast<uint32_t>((cap + workers_ - 1) / workers_));
}

OBI_REGISTER_BLOCK(Ipv4AddressTranslator, Ipv4AddressTranslatorElement);

}  // namespace obi
