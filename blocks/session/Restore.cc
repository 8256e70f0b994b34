#include "Restore.hh"

#include <cstring>

#include "lib/bytes.hh"
#include "lib/config.hh"
#include "lib/ip_fixup.hh"

namespace obi {

using namespace blocks;

RestoreElement::RestoreElement(const ElementArgs& args) : counts_(args.workers) {
  ConfigReader c(args);
  const std::string key = c.required_string("key");
  if (key.empty()) c.fail("key", "must not be empty");
  if (c.has("offset") == c.has("protocol"))
    c.fail(c.has("offset") ? "protocol" : "offset", "exactly one of offset and protocol must be given");
  if (c.has("offset")) {
    offset_ = static_cast<uint32_t>(c.integer("offset", 0, 0, kMaxFrame));
  } else {
    const std::string p = c.required_string("protocol");
    if (p == "eth") from_ = From::kEth;
    else if (p == "ip") from_ = From::kIp;
    else if (p == "l4") from_ = From::kL4;
    else if (p == "tcp") {
      from_ = From::kL4;
      l4_proto_ = kIpProtoTcp;
    } else if (p == "udp") {
      from_ = From::kL4;
      l4_proto_ = 17;
    } else if (p == "payload") from_ = From::kPayload;
    else c.fail("protocol", "'" + p.substr(0, 40) + "' is not eth, ip, tcp, udp, l4 or payload");
  }
  store_ = PacketStore::get(key, args.workers);
}

int64_t RestoreElement::restore(Packet& p, Context& ctx) {
  blocks::FlowKey flow;
  bool reversed;
  if (!blocks::flow_key(p, flow, reversed)) return -1;
  const Headers& h = p.headers();
  uint32_t at = offset_, from = offset_;
  const PacketStore::Record* r = nullptr;
  auto record = [&]() { return r ? r : (r = store_->find(ctx.worker, flow, ctx.now_ns)); };
  switch (from_) {
    case From::kOffset:
    case From::kEth: break;
    case From::kIp:
      if (!record()) return -1;
      at = h.l3;
      from = r->l3;
      break;
    case From::kL4:
      if (!record() || (l4_proto_ && (h.ip_proto != l4_proto_ || r->ip_proto != l4_proto_))) return -1;
      if (h.fragment) return -1;
      at = h.l4;
      from = r->l4;
      break;
    case From::kPayload:
      if (!record()) return -1;
      at = h.payload;
      from = r->payload;
      break;
  }
  if (!record() || at == kNoOffset || from == kNoOffset || at > p.len || from > r->len) return -1;
  const uint32_t n = r->len - from;
  const uint32_t room = p.buf_size - static_cast<uint32_t>(p.data - p.buf);
  if (at + n > kMaxFrame || at + n > room) return -1;
  const bool inside_ip = h.l3 != kNoOffset && at > h.l3;
  std::memcpy(p.data + at, store_->bytes(ctx.worker, *r) + from, n);
  p.len = at + n;
  p.invalidate_headers();
  for (unsigned i = 0; i < r->values.n; ++i) p.values.set(r->values.entries[i].name(), r->values.entries[i].value);
  if (inside_ip) fix_lengths_and_checksums(p, p.headers());
  return n;
}

void RestoreElement::push(uint16_t, Batch& batch, Context& ctx, const Outputs& out) {
  Batch missed;
  uint32_t kept = 0;
  uint64_t bytes = 0;
  for (uint32_t i = 0; i < batch.n; ++i) {
    Packet* p = batch.pkts[i];
    const int64_t n = restore(*p, ctx);
    if (n < 0) {
      missed.add(p);
      continue;
    }
    bytes += static_cast<uint64_t>(n);
    batch.pkts[kept++] = p;
  }
  batch.n = kept;
  counts_.add(ctx.worker, kCount, kept);
  counts_.add(ctx.worker, kBytes, bytes);
  out.emit(0, batch, ctx);
  out.emit(1, missed, ctx);
}

nlohmann::json RestoreElement::read(std::string_view h) const {
  if (h == "count") return counts_.get(kCount);
  if (h == "bytes") return counts_.get(kBytes);
  return Element::read(h);
}

void RestoreElement::write(std::string_view h, const nlohmann::json& v) {
  if (h == "reset") counts_.reset();
  else Element::write(h, v);
}

OBI_REGISTER_BLOCK(Restore, RestoreElement);

}  // namespace obi
