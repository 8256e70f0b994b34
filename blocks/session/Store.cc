#include "Store.hh"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <map>
#include <mutex>

#include "lib/block_spec.hh"
#include "lib/bytes.hh"
#include "lib/config.hh"
#include "lib/ip_fixup.hh"

namespace obi {

using namespace blocks;

std::shared_ptr<PacketStore> PacketStore::get(const std::string& key, unsigned workers) {
  static std::mutex mu;
  static std::map<std::string, std::weak_ptr<PacketStore>, std::less<>> stores;
  std::lock_guard lock(mu);
  for (auto it = stores.begin(); it != stores.end();) it = it->second.expired() ? stores.erase(it) : std::next(it);
  std::shared_ptr<PacketStore> s = stores[key].lock();
  if (!s || s->tables_.size() != workers) {
    s = std::make_shared<PacketStore>(workers);
    stores[key] = s;
  }
  return s;
}

PacketStore::PacketStore(unsigned workers) : tables_(workers ? workers : 1) {
  for (Table& t : tables_) {
    t.records.reset(new Record[kRecords]);
    t.bytes.reset(new uint8_t[size_t(kRecords) * kMaxFrame]);
  }
}

PacketStore::Record* PacketStore::find(unsigned worker, const blocks::FlowKey& flow, uint64_t now) {
  Record* records = tables_[worker].records.get();
  const uint64_t h = flow.hash();
  for (unsigned i = 0; i < kProbe; ++i) {
    Record& r = records[(h + i) & (kRecords - 1)];
    if (r.used && r.flow == flow) {
      if (expired(r, now)) {
        r.used = false;
        return nullptr;
      }
      r.last_ns = now;
      return &r;
    }
  }
  return nullptr;
}

PacketStore::Record* PacketStore::slot(unsigned worker, const blocks::FlowKey& flow, uint64_t now) {
  Record* records = tables_[worker].records.get();
  const uint64_t h = flow.hash();
  Record* free_slot = nullptr;
  Record* oldest = nullptr;
  for (unsigned i = 0; i < kProbe; ++i) {
    Record& r = records[(h + i) & (kRecords - 1)];
    if (r.used && r.flow == flow) return &r;
    if (!free_slot && (!r.used || expired(r, now))) free_slot = &r;
    if (!oldest || r.last_ns < oldest->last_ns) oldest = &r;
  }
  return free_slot ? free_slot : oldest;
}

uint8_t* PacketStore::bytes(unsigned worker, const Record& r) {
  const size_t index = static_cast<size_t>(&r - tables_[worker].records.get());
  return tables_[worker].bytes.get() + index * kMaxFrame;
}

namespace {

uint64_t seconds_ns(const ConfigReader& c, std::string_view field, bool positive) {
  const double s = c.required_number(field);
  if (!std::isfinite(s) || s < 0 || (positive && s <= 0) || s > 1e9)
    c.fail(field, positive ? "must be a positive number of seconds" : "must be a number of seconds >= 0");
  return static_cast<uint64_t>(s * 1e9);
}

}  // namespace

StoreElement::StoreElement(const ElementArgs& args) : counts_(args.workers) {
  ConfigReader c(args);
  const std::string key = c.required_string("key");
  if (key.empty()) c.fail("key", "must not be empty");
  soft_ns_ = seconds_ns(c, "soft_timeout", false);
  hard_ns_ = seconds_ns(c, "hard_timeout", true);
  const int64_t size = c.integer("packet_size", 64, INT32_MIN, INT32_MAX);
  packet_size_ = size < 0 || size > int64_t(kMaxFrame) ? kMaxFrame : static_cast<uint32_t>(size);
  c.integer("buffer_size", 1, INT32_MIN, INT32_MAX);
  c.integer("buffer_timeout", 0, 0, INT32_MAX);
  store_ = PacketStore::get(key, args.workers);
}

void StoreElement::push(uint16_t, Batch& batch, Context& ctx, const Outputs& out) {
  uint64_t stored = 0, bytes = 0;
  for (uint32_t i = 0; i < batch.n; ++i) {
    Packet& p = *batch.pkts[i];
    blocks::FlowKey flow;
    bool reversed;
    if (!blocks::flow_key(p, flow, reversed)) continue;
    const Headers& h = p.headers();
    // Up to the end of the IP packet: Ethernet padding is not part of what is stored.
    const uint32_t end = std::min(p.len, blocks::ip_packet_end(p, h));
    const uint32_t n = std::min(end, packet_size_);
    PacketStore::Record& r = *store_->slot(ctx.worker, flow, ctx.now_ns);
    std::memcpy(store_->bytes(ctx.worker, r), p.data, n);
    r.flow = flow;
    r.used = true;
    r.stored_ns = r.last_ns = ctx.now_ns;
    r.soft_ns = soft_ns_;
    r.hard_ns = hard_ns_;
    r.len = n;
    r.l3 = h.l3;
    r.l4 = h.l4;
    r.payload = h.payload;
    r.ip_proto = h.ip_proto;
    r.values = p.values;
    ++stored;
    bytes += n;
  }
  counts_.add(ctx.worker, kCount, stored);
  counts_.add(ctx.worker, kBytes, bytes);
  out.emit(0, batch, ctx);
}

nlohmann::json StoreElement::read(std::string_view h) const {
  if (h == "count") return counts_.get(kCount);
  if (h == "bytes") return counts_.get(kBytes);
  return Element::read(h);
}

void StoreElement::write(std::string_view h, const nlohmann::json& v) {
  if (h == "reset") counts_.reset();
  else Element::write(h, v);
}

OBI_REGISTER_BLOCK(Store, StoreElement);

}  // namespace obi
