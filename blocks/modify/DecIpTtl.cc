#include "DecIpTtl.hh"

#include "lib/block_spec.hh"

#include "lib/bytes.hh"
#include "lib/checksum.hh"
#include "lib/config.hh"
#include "lib/headers.hh"

namespace obi {

using namespace blocks;

DecIpTtlElement::DecIpTtlElement(const ElementArgs& args) : stats_(spec::DecIpTtl::kOutputs.count, args.workers) {
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
      if (auto ip = hdr::ipv4(*p, h)) {
        const uint8_t ttl = ip.ttl();
        if (ttl <= 1) {
          expired.add(p);
          continue;
        }
        ChecksumDelta d;
        d.word(uint16_t(ttl << 8 | ip.proto()), uint16_t((ttl - 1) << 8 | ip.proto()));
        ip.set_ttl(ttl - 1);
        d.apply_at(ip.data() + hdr::Ipv4::kChecksum);
      } else if (auto ip6 = hdr::ipv6(*p, h)) {
        if (ip6.hop_limit() <= 1) {
          expired.add(p);
          continue;
        }
        ip6.set_hop_limit(ip6.hop_limit() - 1);
      }
      batch.pkts[kept++] = p;
    }
    batch.n = kept;
  }
  if (batch.n) stats_.add(ctx.worker, 0, batch.n, batch.bytes(), ctx.now_ns);
  if (expired.n) stats_.add(ctx.worker, 1, expired.n, expired.bytes(), ctx.now_ns);
  out.emit(0, batch, ctx);
  out.emit(1, expired, ctx);
}

nlohmann::json DecIpTtlElement::read(std::string_view h) const {
  using Read = spec::DecIpTtl::Read;
  auto id = spec::DecIpTtl::read_id(h);
  if (!id) return Element::read(h);
  switch (*id) {
    case Read::kActive: return active_.load();
    case Read::kCount:
    case Read::kByteCount:
    case Read::kRate:
    case Read::kByteRate: {
      nlohmann::json a;
      return stats_.read_handle(h, a) ? a : Element::read(h);
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
    case Write::kResetCounts: stats_.reset_all(); break;
  }
}

OBI_REGISTER_BLOCK(DecIpTtl, DecIpTtlElement);

}  // namespace obi
