#include "ToDump.hh"

#include "lib/block_spec.hh"

#include <chrono>

#include "engine/pool.hh"
#include "lib/config.hh"

namespace obi::blocks {

using openbox::ErrorSubtype;
using openbox::ProtocolError;

ToDump::ToDump(const ElementArgs& a) : rings_(a.workers) {
  ConfigReader c(a);
  filename_ = c.required_string("filename");
  if (filename_.empty()) c.where("filename").expected("a file name", filename_);
  for (auto& r : rings_) r.slots.reset(new Slot[kSlots]);
}

ToDump::~ToDump() { deactivate(); }

void ToDump::activate() {
  if (open_.load()) return;
  try {
    writer_ = std::make_unique<io::PcapWriter>(filename_);
  } catch (const std::exception& e) {
    throw ProtocolError(
        ErrorSubtype::BAD_BLOCK,
        Where{ErrorSubtype::BAD_BLOCK, block_label(name(), type()), "filename"}.str() + ": " + e.what());
  }
  stop_.store(false);
  thread_ = std::thread([this] { writer_main(); });
  open_.store(true);
}

void ToDump::deactivate() {
  if (!open_.exchange(false)) return;
  stop_.store(true);
  if (thread_.joinable()) thread_.join();
  writer_.reset();
}

void ToDump::push(uint16_t, Batch& batch, Context& ctx, const Outputs&) {
  if (!open_.load(std::memory_order_relaxed)) {
    ctx.drop(batch);
    return;
  }
  Ring& r = rings_[ctx.worker];
  uint64_t head = r.head.load(std::memory_order_relaxed);
  uint64_t bytes = 0;
  for (uint32_t i = 0; i < batch.n; ++i) {
    Packet* p = batch.pkts[i];
    while (head - r.tail.load(std::memory_order_acquire) >= kSlots) {
      r.head.store(head, std::memory_order_release);  // let the writer see what we have
      std::this_thread::yield();
    }
    Slot& s = r.slots[head % kSlots];
    s.len = p->len;
    s.ts_ns = p->timestamp_ns;
    std::memcpy(s.data, p->data, p->len);
    ++head;
    bytes += p->len;
    ctx.pool->free(p);
  }
  r.head.store(head, std::memory_order_release);
  ctx.count_out(batch.n, bytes);
  batch.n = 0;
}

bool ToDump::drain_once() {
  bool any = false;
  for (Ring& r : rings_) {
    uint64_t tail = r.tail.load(std::memory_order_relaxed);
    uint64_t head = r.head.load(std::memory_order_acquire);
    for (; tail < head; ++tail) {
      const Slot& s = r.slots[tail % kSlots];
      writer_->write(s.data, s.len, s.ts_ns);
      written_.fetch_add(1, std::memory_order_relaxed);
      any = true;
      // Release slots in small steps so a waiting worker can continue early.
      if ((tail & 31) == 31) r.tail.store(tail + 1, std::memory_order_release);
    }
    r.tail.store(tail, std::memory_order_release);
  }
  return any;
}

void ToDump::writer_main() {
  while (!stop_.load()) {
    if (!drain_once()) {
      writer_->flush();
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
  }
  while (drain_once()) {}
  writer_->flush();
}

nlohmann::json ToDump::read(std::string_view handle) const {
  if (handle == "count") {  // packets accepted (the writer may still be flushing them)
    uint64_t n = 0;
    for (const Ring& r : rings_) n += r.head.load(std::memory_order_acquire);
    return n;
  }
  if (handle == "written") return written_.load();
  return Element::read(handle);
}

OBI_REGISTER_BLOCK(ToDump, ToDump);

}  // namespace obi::blocks
