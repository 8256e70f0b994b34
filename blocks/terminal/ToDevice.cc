#include "ToDevice.hh"

#include "lib/block_spec.hh"

#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "engine/pool.hh"
#include "io/dpdk.hh"
#include "lib/config.hh"

namespace obi::blocks {

using openbox::ErrorSubtype;
using openbox::ProtocolError;

ToDevice::ToDevice(const ElementArgs& a) : workers_(a.workers), sent_(a.workers), dropped_(a.workers) {
  ConfigReader c(a);
  devname_ = c.required_string("devname");
  if (devname_.empty()) c.where("devname").expected("an interface name or dpdk:<port>", devname_);
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

ToDevice::~ToDevice() { deactivate(); }

void ToDevice::activate() {
  if (active_.load()) return;
  if (dpdk_) {
    io::DpdkPort& p = io::dpdk_port(port_, workers_, name());
    queues_ = p.queues;
    mbufs_ = p.pool;
  } else {
    try {
      for (unsigned w = 0; w < workers_; ++w) {
        tx_.push_back(std::make_unique<io::AfPacketTx>());
        tx_.back()->open(devname_);
      }
    } catch (const std::exception& e) {
      tx_.clear();
      throw ProtocolError(ErrorSubtype::BAD_BLOCK, block_label(name(), type()) + ": " + e.what());
    }
  }
  active_.store(true);
}

void ToDevice::deactivate() {
  if (!active_.exchange(false)) return;
  tx_.clear();
}

void ToDevice::push(uint16_t, Batch& batch, Context& ctx, const Outputs&) {
  if (!active_.load(std::memory_order_relaxed) || (dpdk_ && ctx.worker >= queues_)) {
    dropped_[ctx.worker].add(batch.n);
    ctx.drop(batch);
    return;
  }
  uint32_t sent = 0;
  uint64_t bytes = 0;
  if (dpdk_) {
    rte_mbuf* m[kBatchSize];
    rte_mempool* mp = mbufs_;
    uint32_t n = 0;
    if (rte_pktmbuf_alloc_bulk(mp, m, batch.n) == 0) {
      for (; n < batch.n; ++n) {
        char* d = rte_pktmbuf_append(m[n], static_cast<uint16_t>(batch.pkts[n]->len));
        if (!d) break;
        std::memcpy(d, batch.pkts[n]->data, batch.pkts[n]->len);
      }
      for (uint32_t i = n; i < batch.n; ++i) rte_pktmbuf_free(m[i]);
      sent = rte_eth_tx_burst(port_, static_cast<uint16_t>(ctx.worker), m, static_cast<uint16_t>(n));
      for (uint32_t i = sent; i < n; ++i) rte_pktmbuf_free(m[i]);
    }
  } else {
    sent = tx_[ctx.worker]->send(batch);
  }
  for (uint32_t i = 0; i < sent; ++i) bytes += batch.pkts[i]->len;
  sent_[ctx.worker].add(sent);
  ctx.count_out(sent, bytes);
  for (uint32_t i = 0; i < sent; ++i) ctx.pool->free(batch.pkts[i]);
  // Frames the device refused are dropped (and counted as such).
  dropped_[ctx.worker].add(batch.n - sent);
  for (uint32_t i = sent; i < batch.n; ++i) ctx.drop(batch.pkts[i]);
  batch.n = 0;
}

nlohmann::json ToDevice::read(std::string_view handle) const {
  uint64_t n = 0;
  if (handle == "count") {
    sent_.for_each([&](const Counter& c) { n += c.get(); });
    return n;
  }
  if (handle == "drops") {
    dropped_.for_each([&](const Counter& c) { n += c.get(); });
    return n;
  }
  if (handle == "send_calls") {
    for (const auto& t : tx_) n += t->calls();
    return n;
  }
  return Element::read(handle);
}

OBI_REGISTER_BLOCK(ToDevice, ToDevice);

}  // namespace obi::blocks
