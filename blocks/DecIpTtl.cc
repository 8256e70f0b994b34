#include "DecIpTtl.hh"

#include "common/block_spec.hh"

#include "modify/bytes.hh"
#include "modify/checksum.hh"
#include "modify/config.hh"

namespace obi {

using namespace modify;

DecIpTtlElement::DecIpTtlElement(const ElementArgs& args)
    : meters_{RateMeter(args.workers), RateMeter(args.workers)} {
  ConfigReader c(args);
  active_.store(c.boolean("active", true));
}

void DecIpTtlElement::push(uint16_t, Batch& batch, Context& ctx, const Outputs& out) {
  Batch expired;
  if (active_.load(std::memory_order_relaxed)) {
    uint32_t kept = 0;
    for (uint32_t i = 0; i < batch.n; ++i) {
      Packet* p = batch.pkts[i];
      const Headers& h = p->headers();
      if (h.l3 != kNoOffset) {
        uint8_t* ip = p->data + h.l3;
        if (h.eth_type == kEthIpv4) {
          uint8_t ttl = ip[8];
          if (ttl <= 1) { expired.add(p); continue; }
          ChecksumDelta d;
          d.word(uint16_t(ttl << 8 | ip[9]), uint16_t((ttl - 1) << 8 | ip[9]));
          ip[8] = ttl - 1;
          d.apply_at(ip + 10);
        } else if (h.eth_type == kEthIpv6) {
          if (ip[7] <= 1) { expired.add(p); continue; }
          --ip[7];
        }
      }
      batch.pkts[kept++] = p;
    }
    batch.n = kept;
  }
  if (batch.n) meters_[0].add(ctx.worker, batch.n, batch.bytes(), ctx.now_ns);
  if (expired.n) meters_[1].add(ctx.worker, expired.n, expired.bytes(), ctx.now_ns);
  out.emit(0, batch, ctx);
  out.emit(1, expired, ctx);
}

nlohmann::json DecIpTtlElement::read(std::string_view h) const {
  using Read = spec::DecIpTtl::Read;
  auto id = spec::DecIpTtl::read_id(h);
  if (!id) return Element::read(h);
  switch (*id) {
    case Read::kActive: return active_.load();
    case Read::kCount: case Read::kByteCount: case Read::kRate: case Read::kByteRate: {
      nlohmann::json a = nlohmann::json::array(), v;
      for (const RateMeter& m : meters_) {
        if (!m.read(h, v)) return Element::read(h);
        a.push_back(v);
      }
      return a;
    }
  }
  return Element::read(h);
}

void DecIpTtlElement::write(std::string_view h, const nlohmann::json& v) {
  using Write = spec::DecIpTtl::Write;
  auto id = spec::DecIpTtl::write_id(h);
  if (!id) return Element::write(h, v);
  switch (*id) {
    case Write::kActive: active_.store(parse_bool(v, handle_where(*this, h))); break;
    case Write::kResetCounts: meters_[0].reset(); meters_[1].reset(); break;
  }
}

OBI_REGISTER_BLOCK(DecIpTtl, DecIpTtlElement);

}  // namespace obi
