#include "DecapsulateMetadata.hh"

#include "lib/block_spec.hh"

#include <string_view>

#include "lib/bytes.hh"
#include "lib/config.hh"
#include "lib/headers.hh"
#include "lib/nsh.hh"

namespace obi {

using namespace blocks;

DecapsulateMetadataElement::DecapsulateMetadataElement(const ElementArgs& args) : counts_(args.workers) {
  ConfigReader c(args);
}

DecapsulateMetadataElement::Outcome DecapsulateMetadataElement::decapsulate(Packet& p, bool& full) {
  full = false;
  const auto eth = hdr::ethernet(p);
  if (!eth || eth.type() != nsh::kEtherType) return kPlain;
  if (p.len < nsh::kEthLen + nsh::kBaseLen) return kMalformed;
  const uint8_t* h = p.data + nsh::kEthLen;
  const uint32_t nsh_len = (h[1] & 0x3fu) * 4;
  const uint8_t md_type = h[2] & 0x0f;
  if ((h[0] >> 6) != 0 || nsh_len < nsh::kBaseLen || h[3] != nsh::kNextEthernet) return kMalformed;
  if (nsh::kEthLen + nsh_len + nsh::kEthLen > p.len) return kMalformed;  // inner frame needs its Ethernet header
  if (md_type == 1 && nsh_len != 24) return kMalformed;                  // fixed-length context (RFC 8300 2.4)
  if (md_type != 1 && md_type != nsh::kMdType2) return kMalformed;

  // Check every TLV before writing any metadata, so a malformed header leaves none behind.
  for (int pass = 0; pass < 2 && md_type == nsh::kMdType2; ++pass) {
    uint32_t off = nsh::kBaseLen;
    while (off < nsh_len) {
      if (off + 4 > nsh_len) return kMalformed;
      const uint8_t* t = h + off;
      const uint32_t vlen = t[3] & 0x7fu;
      if (off + 4 + nsh::padded(vlen) > nsh_len) return kMalformed;
      off += 4 + nsh::padded(vlen);
      if (load_be16(t) != nsh::kMetaClass) continue;
      if (t[2] != nsh::kTypeInteger && t[2] != nsh::kTypeString) return kMalformed;
      const uint8_t* v = t + 4;
      const uint32_t klen = vlen ? v[0] : 0;
      if (klen == 0 || klen > kMetaKeyMax || 1 + klen > vlen) return kMalformed;
      const uint32_t rest = vlen - 1 - klen;
      if (t[2] == nsh::kTypeInteger ? rest != 8 : rest > kMetaTextMax) return kMalformed;
      if (pass == 0) continue;
      const std::string_view key(reinterpret_cast<const char*>(v + 1), klen);
      const uint8_t* x = v + 1 + klen;
      MetaValue value = t[2] == nsh::kTypeInteger
                            ? MetaValue::of(static_cast<int64_t>(uint64_t(load_be32(x)) << 32 | load_be32(x + 4)))
                            : MetaValue::of(std::string_view(reinterpret_cast<const char*>(x), rest));
      if (!p.values.set(key, value)) full = true;
    }
  }
  p.pull_front(nsh::kEthLen + nsh_len);
  return kDecapsulated;
}

void DecapsulateMetadataElement::push(uint16_t, Batch& batch, Context& ctx, const Outputs& out) {
  uint32_t kept = 0, done = 0, full = 0;
  for (uint32_t i = 0; i < batch.n; ++i) {
    Packet* p = batch.pkts[i];
    bool f = false;
    Outcome o = decapsulate(*p, f);
    if (o == kMalformed) {
      ctx.drop(p);
      continue;
    }
    done += o == kDecapsulated;
    full += f;
    batch.pkts[kept++] = p;
  }
  counts_.add(ctx.worker, kMalformedCount, batch.n - kept);
  counts_.add(ctx.worker, kCount, done);
  counts_.add(ctx.worker, kFull, full);
  batch.n = kept;
  out.emit(0, batch, ctx);
}

nlohmann::json DecapsulateMetadataElement::read(std::string_view h) const {
  if (h == "count") return counts_.get(kCount);
  if (h == "malformed") return counts_.get(kMalformedCount);
  if (h == "full") return counts_.get(kFull);
  return Element::read(h);
}

void DecapsulateMetadataElement::write(std::string_view h, const nlohmann::json& v) {
  if (h == "reset_counts") counts_.reset();
  else Element::write(h, v);
}

OBI_REGISTER_BLOCK(DecapsulateMetadata, DecapsulateMetadataElement);

}  // namespace obi
