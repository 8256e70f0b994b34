#include "FromDevice.hh"

#include "lib/block_spec.hh"

#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <unistd.h>

#include "engine/pool.hh"
#include "io/dpdk.hh"
#include "lib/config.hh"

namespace obi::blocks {

using openbox::ErrorSubtype;
using openbox::ProtocolError;

FromDevice::FromDevice(const ElementArgs& a) : workers_(a.workers), meter_(1, a.workers) {
  ConfigReader c(a);
  devname_ = c.required_string("devname");
  if (devname_.empty()) c.where("devname").expected("an interface name or dpdk:<port>", devname_);
  promisc_ = c.boolean("promisc", false);
  if (a.config.is_object() && a.config.contains("rx_ring")) {
    const nlohmann::json& rr = a.config["rx_ring"];
    if (!rr.is_string() || (rr != "block" && rr != "frame")) c.where("rx_ring").expected("\"block\" or \"frame\"", rr);
    ring_ = rr == "frame" ? io::RxRing::kFrame : io::RxRing::kBlock;
  }
  if (devname_.rfind("dpdk:", 0) == 0) {
    if (!io::parse_dpdk_devname(devname_, port_)) c.where("devname").expected("dpdk:<port>", devname_);
    dpdk_ = true;
  } else {
    try {
      io::interface_index(devname_);
    } catch (const std::exception& e) {
      c.fail("devname", e.what());
    }
  }
}

FromDevice::~FromDevice() { deactivate(); }

void FromDevice::activate() {
  if (active_.load()) return;
  if (dpdk_) {
    queues_ = io::dpdk_port(port_, workers_, name()).queues;
  } else if (!adopted_.empty()) {
    const bool before = adopted_.front()->promisc();
    try {
      for (auto& r : adopted_) r->set_promisc(promisc_);
    } catch (const std::exception& e) {
      for (auto& r : adopted_) {
        try {
          r->set_promisc(before);
        } catch (const std::exception&) {}
      }
      throw ProtocolError(ErrorSubtype::BAD_BLOCK, block_label(name(), type()) + ": " + e.what());
    }
    restore_promisc_ = before ? 1 : 0;
    predecessor_drop_base_ = predecessor_->drop_base_;
    predecessor_->handed_over_ = true;
    predecessor_ = nullptr;
    rx_ = std::move(adopted_);
    adopted_.clear();
    drop_base_ = predecessor_drop_base_;  // drops are the rings': they go on counting
  } else {
    static std::atomic<int> next_group{0};
    int group = (getpid() * 31 + next_group.fetch_add(1)) & 0xffff;
    try {
      for (unsigned w = 0; w < workers_; ++w) {
        rx_.push_back(std::make_shared<io::AfPacketRx>());
        rx_.back()->open(devname_, promisc_, workers_ > 1 ? group : -1, ring_);
      }
    } catch (const std::exception& e) {
      rx_.clear();
      throw ProtocolError(ErrorSubtype::BAD_BLOCK, block_label(name(), type()) + ": " + e.what());
    }
  }
  active_.store(true);
}

void FromDevice::deactivate() {
  adopted_.clear();
  predecessor_ = nullptr;
  if (!active_.exchange(false)) return;
  // Undone before it ran (a later block of its graph failed to activate): the predecessor
  // still runs on the rings, with its own promisc.
  if (restore_promisc_ >= 0 && !handed_over_) {
    for (auto& r : rx_) {
      if (r.use_count() < 2) continue;
      try {
        r->set_promisc(restore_promisc_ == 1);
      } catch (const std::exception&) {}
    }
  }
  rx_.clear();  // sockets shared with a successor stay open; DPDK ports stay configured
}

void FromDevice::take_over(Element& previous) {
  auto* old = dynamic_cast<FromDevice*>(&previous);
  if (!old || dpdk_ || old->dpdk_ || old->devname_ != devname_ || old->workers_ != workers_ || old->ring_ != ring_)
    return;
  if (!old->active_.load() || old->rx_.size() != workers_) return;
  adopted_ = old->rx_;  // each worker polls ring w in the old graph, then in this one
  predecessor_ = old;
}

bool FromDevice::poll(Batch& batch, Context& ctx) {
  if (!active_.load(std::memory_order_relaxed)) return true;
  if (dpdk_) {
    if (ctx.worker >= queues_) return true;
    rte_mbuf* m[kBatchSize];
    uint32_t want = std::min<uint32_t>(kBatchSize - batch.n, ctx.pool->available());
    uint16_t n = want ? rte_eth_rx_burst(port_, static_cast<uint16_t>(ctx.worker), m, static_cast<uint16_t>(want)) : 0;
    for (uint16_t i = 0; i < n; ++i) {
      uint32_t len = rte_pktmbuf_pkt_len(m[i]);
      Packet* p = len <= kMaxFrame ? ctx.pool->alloc() : nullptr;
      if (p) {
        const void* d = rte_pktmbuf_read(m[i], 0, len, p->data);
        if (d != p->data) std::memcpy(p->data, d, len);
        p->len = len;
        p->timestamp_ns = ctx.now_ns + uint64_t(ctx.wall_offset_ns);  // arrival, wall time
        p->flow_hash = flow_hash(*p);
        batch.add(p);
      }
      rte_pktmbuf_free(m[i]);
    }
  } else {
    rx_[ctx.worker]->poll(batch, ctx);
  }
  if (batch.n) meter_.add(ctx.worker, 0, batch.n, batch.bytes(), ctx.now_ns);
  return true;
}

nlohmann::json FromDevice::read(std::string_view handle) const {
  nlohmann::json out;
  if (meter_.read_scalar_handle(handle, out)) return out;
  if (handle == "drops") {
    uint64_t d = 0;
    if (dpdk_ && io::dpdk_ready() && active_.load()) {
      rte_eth_stats st{};
      if (rte_eth_stats_get(port_, &st) == 0) d = st.imissed + st.rx_nombuf;
    } else {
      for (const auto& r : rx_) d += r->drops();
    }
    return d - std::min(d, drop_base_);
  }
  if (handle == "offloads") {
    uint64_t n = 0;
    for (const auto& r : rx_) n += r->offloads_finished();
    return n;
  }
  return Element::read(handle);
}

void FromDevice::write(std::string_view handle, const nlohmann::json& value) {
  if (handle == "reset_counts") {
    meter_.reset_all();
    drop_base_ = read("drops").get<uint64_t>() + drop_base_;
    return;
  }
  Element::write(handle, value);
}

OBI_REGISTER_BLOCK(FromDevice, FromDevice);

}  // namespace obi::blocks
