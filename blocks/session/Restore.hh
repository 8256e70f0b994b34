// Restore (spec 5.26, modifier): puts the bytes Store kept under `key` for the packet's
// session (its bidirectional IP 5-tuple, see Store.hh) back into the packet: from `offset`,
// or from the start of `protocol`, the packet's content is replaced by the stored
// packet's content from the same point on (the packet takes the stored packet's length
// from there), and the stored key-value metadata is set on the packet. After a restore
// that begins inside the IP packet, the IPv4 total length / IPv6 payload length, the
// UDP length and the IPv4, TCP and UDP checksums are recomputed; a restore from the IP
// header on (`protocol` "eth" or "ip", or an offset up to the IP header) takes the stored
// headers as they are. Reading a record counts as an access for Store's soft_timeout.
//
// Output 0: restored. Output 1: not restored (no live record for the session, a frame
// without an IP header, the protocol absent from the packet or from the stored bytes,
// or a result longer than the packet's buffer).
//
// Why: undo a rewrite with the packet as it was, or answer a session with what an earlier
// packet of it carried.
//
// Ports:   1 input, 2 outputs.
// Config keys, handles and port counts: blocks/catalogue/Restore.json.
// Example: {"name": "back", "type": "Restore", "config": {"key": "req", "protocol": "payload"}}
#pragma once

#include <cstdint>
#include <memory>

#include "Store.hh"
#include "lib/block_spec.hh"

namespace obi {

class RestoreElement final : public Element {
 public:
  explicit RestoreElement(const ElementArgs& args);

  uint16_t output_count() const override { return spec::Restore::kOutputs.count; }
  void push(uint16_t input, Batch& batch, Context& ctx, const Outputs& out) override;
  nlohmann::json read(std::string_view handle) const override;
  void write(std::string_view handle, const nlohmann::json& value) override;

 private:
  enum class From : uint8_t { kOffset, kEth, kIp, kL4, kPayload };
  enum { kCount, kBytes };
  // Restores p; the bytes restored, or -1 when it is not restored.
  int64_t restore(Packet& p, Context& ctx);
  std::shared_ptr<PacketStore> store_;
  From from_ = From::kOffset;
  uint8_t l4_proto_ = 0;  // kL4 for "tcp" / "udp": the protocol both packets must have
  uint32_t offset_ = 0;
  blocks::Counts<2> counts_;
};

}  // namespace obi
