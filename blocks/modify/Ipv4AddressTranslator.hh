// Ipv4AddressTranslator (spec 5.13, modifier): network address/port translation (NAPT)
// of IPv4 TCP and UDP flows, with a mapping table.
//
// A packet whose 5-tuple has a mapping is rewritten to the mapping's tuple (addresses
// and ports; the IPv4 header checksum and the TCP/UDP checksum are patched
// incrementally, a zero UDP checksum stays zero) and sent to the mapping's output.
// Otherwise the INPUTSPEC of its input port decides (one input port per input_spec):
//   "discard"                                 drop it
//   "pass OUT"                                send it to OUT unchanged, install nothing
//   "keep FOUT ROUT"                          install identity mappings: the flow to FOUT,
//                                             its replies to ROUT
//   "pattern SADDR SPORT DADDR DPORT FOUT ROUT"
//       rewrite per the pattern ('-' keeps a field; SPORT 'L-H' picks a free port of the
//       range, the packet's own if free, 'L-H#' sequentially, 'L-H?' at random), send it
//       to FOUT, and map replies back to the original tuple on ROUT.
// A flow that cannot be installed (no free port, table full of flows under guarantee)
// is dropped and counted in mapping_failures. Packets that are not IPv4 TCP/UDP with a
// complete L4 header (other protocols, non-first fragments, truncated frames) go to OUT
// on a "pass OUT" input and are dropped on any other.
//
// Timeouts: TCP flows live tcp_timeout after data was seen both ways, tcp_nodata_timeout
// before that, tcp_done_timeout once a FIN or RST was seen; UDP flows live
// udp_streaming_timeout once they carried >= 3 packets in both directions, udp_timeout
// before. Each packet restarts the timeout and guarantees the flow for *_guarantee
// seconds: when the table is full, an expired flow is evicted first, then one past its
// guarantee; if every flow is guaranteed, the new flow fails. Expired flows are reaped
// every reap_interval seconds by the task loop (and on lookup).
//
// Workers: each worker has its own table (no locks); the packets of a flow always reach
// the same worker because the input spreads flows by a symmetric 5-tuple hash, so both
// directions of an unrewritten ("keep") flow meet the same table. mapping_capacity is
// split evenly over the workers (rounded up), and a pattern's port range is partitioned
// among them (worker w uses the ports p with p % workers == w), so two workers never
// hand out the same port. The reply to a flow whose tuple was rewritten hashes
// differently from the original, so with more than one worker it reaches the owning
// table only if the input steers it there; run NAT graphs with one worker otherwise.
//
// Ports:   one input per input_spec; outputs: the largest output named, plus one.
// Config keys, handles and port counts: blocks/catalogue/Ipv4AddressTranslator.json.
// Read capacity answers "CAPACITY 0"; tcp_mappings / udp_mappings give one line per
// mapping, the relevant output starred; write capacity takes at most the configured
// mapping_capacity.
// Example: {"name": "nat", "type": "Ipv4AddressTranslator", "config": {"input_spec":
//           ["pattern 192.0.2.1 1024-65535 - - 0 1", "drop"], "udp_timeout": 60}}
#pragma once

#include <atomic>
#include <memory>
#include <vector>

#include "engine/element.hh"
#include "lib/nat_spec.hh"
#include "lib/nat_table.hh"

namespace obi {

class Ipv4AddressTranslatorElement final : public Element {
 public:
  explicit Ipv4AddressTranslatorElement(const ElementArgs& args);

  uint16_t input_count() const override { return static_cast<uint16_t>(specs_.size()); }
  uint16_t output_count() const override { return outputs_; }
  void push(uint16_t input, Batch& batch, Context& ctx, const Outputs& out) override;
  bool has_task() const override { return true; }
  void run_task(Context& ctx, const Outputs& out) override;
  nlohmann::json read(std::string_view handle) const override;
  void write(std::string_view handle, const nlohmann::json& value) override;

 private:
  static constexpr uint16_t kDrop = 0xffff;
  struct Worker {
    blocks::NatTable table;
    Counter failures;
    std::unique_ptr<uint32_t[]> cursor;  // next sequential port index per input spec
    uint64_t rng = 0x9e3779b97f4a7c15ULL;
    uint64_t next_reap = 0;
    bool reaping = false;
  };

  uint16_t handle_packet(Packet& p, uint16_t input, Worker& w, Context& ctx);
  uint32_t install(const blocks::InputSpec& spec, uint16_t input, const blocks::FlowKey& k, Worker& w, Context& ctx);
  void touch(blocks::NatFlow& f, unsigned dir, Packet& p, const Headers& h, uint64_t now) const;

  std::vector<blocks::InputSpec> specs_;
  uint16_t outputs_ = 1;
  uint64_t tcp_timeout_, tcp_done_timeout_, tcp_nodata_timeout_, tcp_guarantee_;
  uint64_t udp_timeout_, udp_streaming_timeout_, udp_guarantee_, reap_interval_;
  uint32_t workers_;
  uint32_t configured_capacity_;
  std::atomic<uint32_t> capacity_;      // total, as read and written
  std::atomic<uint32_t> worker_limit_;  // flows per worker table
  PerWorker<Worker> w_;
};

}  // namespace obi
