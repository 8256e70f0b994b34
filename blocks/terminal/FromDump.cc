#include "FromDump.hh"

#include "lib/block_spec.hh"

#include "engine/pool.hh"
#include "lib/config.hh"

namespace obi::blocks {

using openbox::ErrorSubtype;
using openbox::ProtocolError;

FromDump::FromDump(const ElementArgs& a) : workers_(a.workers), cursor_(a.workers), meter_(1, a.workers) {
  ConfigReader c(a);
  const std::string filename = c.required_string("filename");
  timing_ = c.boolean("timing", false);
  active_.store(c.boolean("active", true));
  try {
    reader_ = std::make_unique<io::PcapReader>(filename);
  } catch (const std::exception& e) {
    c.fail("filename", e.what());
  }
  uint64_t off = reader_->begin();
  io::PcapRecord r;
  if (reader_->next(off, r)) first_ts_ = r.ts_ns;
  for (unsigned w = 0; w < workers_; ++w) cursor_[w].offset = reader_->begin();
}

bool FromDump::poll(Batch& batch, Context& ctx) {
  if (!active_.load(std::memory_order_relaxed)) return true;
  Cursor& c = cursor_[ctx.worker];
  const io::PcapReader& rd = *reader_;
  uint64_t bytes = 0;
  while (batch.n < kBatchSize) {
    uint64_t off = c.offset;
    io::PcapRecord r;
    if (!rd.next(off, r)) break;
    if (timing_) {
      if (c.start_ns == 0) c.start_ns = ctx.now_ns ? ctx.now_ns : 1;
      if (ctx.now_ns < c.start_ns + (r.ts_ns - first_ts_)) break;  // not yet due
    }
    if (r.caplen > kMaxFrame) {
      c.offset = off;
      c.oversize.add(1);
      continue;
    }
    // Hash on the mapped bytes (parsing never writes) so other workers' packets cost no copy.
    Packet view;
    view.data = const_cast<uint8_t*>(r.data);
    view.len = r.caplen;
    uint32_t h = flow_hash(view);
    if (workers_ > 1 && h % workers_ != ctx.worker) {
      c.offset = off;
      continue;
    }
    Packet* p = ctx.pool->alloc();
    if (!p) break;  // pool empty: retry this record next poll
    std::memcpy(p->data, r.data, r.caplen);
    p->len = r.caplen;
    p->flow_hash = h;
    p->timestamp_ns = r.ts_ns;
    p->hdr = view.hdr;
    p->parsed = true;
    batch.add(p);
    bytes += r.caplen;
    c.offset = off;
  }
  if (batch.n) meter_.add(ctx.worker, 0, batch.n, bytes, ctx.now_ns);
  io::PcapRecord r;
  uint64_t off = c.offset;
  return rd.next(off, r);  // the packets in `batch` are still emitted
}

nlohmann::json FromDump::read(std::string_view handle) const {
  nlohmann::json out;
  if (meter_.read_scalar_handle(handle, out)) return out;
  if (handle == "active") return active_.load();
  if (handle == "oversize") {
    uint64_t n = 0;
    cursor_.for_each([&](const Cursor& c) { n += c.oversize.get(); });
    return n;
  }
  return Element::read(handle);
}

void FromDump::write(std::string_view handle, const nlohmann::json& value) {
  if (handle == "reset_counts") {
    meter_.reset_all();
    return;
  }
  if (handle == "active") {
    active_.store(parse_bool(value, handle_where(*this, handle)));
    return;
  }
  Element::write(handle, value);
}

OBI_REGISTER_BLOCK(FromDump, FromDump);

}  // namespace obi::blocks
