#include "DecIpTtl.hh"

#include "modify/bytes.hh"
#include "modify/checksum.hh"
#include "modify/config.hh"

namespace obi {

using namespace modify;

DecIpTtlElement::DecIpTtlElement(const ElementArgs& args)
    : meters_{RateMeter(args.workers), RateMeter(args.workers)} {
  ConfigReader c(args);
  c.only({"active"});
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
  if (h == "active") return active_.load();
  nlohmann::json a = nlohmann::json::array(), v;
  for (const RateMeter& m : meters_) {
    if (!m.read(h, v)) return Element::read(h);
    a.push_back(v);
  }
  return a;
}

void DecIpTtlElement::write(std::string_view h, const nlohmann::json& v) {
  if (h == "active") active_.store(parse_bool(v, handle_where(*this, h)));
  else if (h == "reset_counts") { meters_[0].reset(); meters_[1].reset(); }
  else Element::write(h, v);
}

OBI_REGISTER_ELEMENT(DecIpTtl, DecIpTtlElement);

}  // namespace obi
