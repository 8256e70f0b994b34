#include "EncapsulateMetadata.hh"

#include "lib/block_spec.hh"

#include <cstring>

#include "lib/bytes.hh"
#include "lib/config.hh"
#include "lib/meta_config.hh"
#include "lib/nsh.hh"

namespace obi {

using namespace blocks;

EncapsulateMetadataElement::EncapsulateMetadataElement(const ElementArgs& args) : counts_(args.workers) {
  ConfigReader c(args);
  spi_ = static_cast<uint32_t>(c.required_integer("spi", 0, 0xffffff));
  si_ = static_cast<uint8_t>(c.integer("si", 255, 0, 255));
  if (c.has("keys")) {
    const nlohmann::json& k = c.get("keys");
    if (!k.is_array()) c.where("keys").expected("an array of metadata keys", k);
    for (size_t i = 0; i < k.size(); ++i) keys_.push_back(parse_meta_key(k[i], c.where("keys").at(i)));
    all_keys_ = false;
  }
}

bool EncapsulateMetadataElement::carried(const MetaEntry& e) const {
  if (all_keys_) return true;
  for (const std::string& k : keys_)
    if (e.name() == k) return true;
  return false;
}

bool EncapsulateMetadataElement::encapsulate(Packet& p) const {
  if (p.len < nsh::kEthLen) return false;
  const MetaStore& m = p.values;
  uint32_t nsh_len = nsh::kBaseLen;
  for (unsigned i = 0; i < m.n; ++i)
    if (carried(m.entries[i])) nsh_len += nsh::tlv_len(m.entries[i]);
  const uint32_t room = nsh::kEthLen + nsh_len;
  if (p.len + room > kMaxFrame || p.len + room > p.buf_size) return false;
  if (static_cast<uint32_t>(p.data - p.buf) < room) {
    // Not enough headroom: move the frame back in its buffer, then push in front.
    std::memmove(p.buf + room, p.data, p.len);
    p.data = p.buf + room;
  }
  uint8_t* inner = p.data;
  uint8_t* o = p.push_front(room);
  std::memcpy(o, inner, 12);  // destination and source MACs
  store_be16(o + hdr::Ethernet::kType, nsh::kEtherType);
  uint8_t* h = o + nsh::kEthLen;
  const uint32_t words = nsh_len / 4;
  h[0] = static_cast<uint8_t>(nsh::kTtl >> 2);  // version 0, O 0, U 0, TTL high bits
  h[1] = static_cast<uint8_t>((nsh::kTtl & 3) << 6 | words);
  h[2] = nsh::kMdType2;
  h[3] = nsh::kNextEthernet;
  store_be32(h + 4, spi_ << 8 | si_);
  uint8_t* t = h + nsh::kBaseLen;
  for (unsigned i = 0; i < m.n; ++i) {
    const MetaEntry& e = m.entries[i];
    if (!carried(e)) continue;
    const bool integer = e.value.kind == MetaValue::kInteger;
    const uint32_t vlen = 1u + e.key_len + (integer ? 8u : e.value.len);
    const uint32_t total = nsh::tlv_len(e);
    std::memset(t, 0, total);
    store_be16(t, nsh::kMetaClass);
    t[2] = integer ? nsh::kTypeInteger : nsh::kTypeString;
    t[3] = static_cast<uint8_t>(vlen);
    t[4] = e.key_len;
    std::memcpy(t + 5, e.key, e.key_len);
    uint8_t* v = t + 5 + e.key_len;
    if (integer) {
      const uint64_t x = static_cast<uint64_t>(e.value.integer);
      store_be32(v, static_cast<uint32_t>(x >> 32));
      store_be32(v + 4, static_cast<uint32_t>(x));
    } else {
      std::memcpy(v, e.value.text, e.value.len);
    }
    t += total;
  }
  return true;
}

void EncapsulateMetadataElement::push(uint16_t, Batch& batch, Context& ctx, const Outputs& out) {
  uint32_t kept = 0;
  for (uint32_t i = 0; i < batch.n; ++i) {
    Packet* p = batch.pkts[i];
    if (encapsulate(*p)) batch.pkts[kept++] = p;
    else ctx.drop(p);
  }
  counts_.add(ctx.worker, kDropped, batch.n - kept);
  counts_.add(ctx.worker, kEncapsulated, kept);
  batch.n = kept;
  out.emit(0, batch, ctx);
}

nlohmann::json EncapsulateMetadataElement::read(std::string_view h) const {
  if (h == "count") return counts_.get(kEncapsulated);
  if (h == "dropped") return counts_.get(kDropped);
  return Element::read(h);
}

void EncapsulateMetadataElement::write(std::string_view h, const nlohmann::json& v) {
  if (h == "reset_counts") counts_.reset();
  else Element::write(h, v);
}

OBI_REGISTER_BLOCK(EncapsulateMetadata, EncapsulateMetadataElement);

}  // namespace obi
