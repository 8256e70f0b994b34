#include "engine/replay.hh"

#include <stdexcept>

#include "engine/pool.hh"
#include "io/pcap.hh"

namespace obi {

std::shared_ptr<const Trace> Trace::load(const std::string& path) {
  auto t = std::make_shared<Trace>();
  io::PcapReader rd(path);
  uint64_t off = rd.begin();
  io::PcapRecord r;
  while (rd.next(off, r)) {
    if (r.caplen > kMaxFrame || r.caplen == 0) continue;
    Record rec{t->bytes.size(), r.caplen, 0, {}};
    t->bytes.insert(t->bytes.end(), r.data, r.data + r.caplen);
    t->records.push_back(rec);
    t->total_bytes += r.caplen;
  }
  if (t->records.empty()) throw std::runtime_error(path + " holds no packets");
  for (Record& rec : t->records) {
    Packet view;
    view.data = t->bytes.data() + rec.offset;
    view.len = rec.len;
    rec.hash = flow_hash(view);
    rec.hdr = view.hdr;
  }
  return t;
}

ReplaySource::ReplaySource(std::shared_ptr<const Trace> trace, unsigned workers, bool preparsed)
    : trace_(std::move(trace)), share_(workers), preparsed_(preparsed) {
  for (uint32_t i = 0; i < trace_->records.size(); ++i)
    share_[workers > 1 ? trace_->records[i].hash % workers : 0].index.push_back(i);
  // A worker whose share is empty (tiny trace) replays the whole trace rather than idle.
  for (unsigned w = 0; w < workers; ++w)
    if (share_[w].index.empty())
      for (uint32_t i = 0; i < trace_->records.size(); ++i) share_[w].index.push_back(i);
}

bool ReplaySource::poll(Batch& batch, Context& ctx) {
  Share& s = share_[ctx.worker];
  const Trace& t = *trace_;
  const std::size_t n = s.index.size();
  while (batch.n < kBatchSize) {
    Packet* p = ctx.pool->alloc();
    if (!p) break;
    const Trace::Record& r = t.records[s.index[s.next]];
    if (++s.next == n) s.next = 0;
    std::memcpy(p->data, t.bytes.data() + r.offset, r.len);
    p->len = r.len;
    p->timestamp_ns = ctx.now_ns + uint64_t(ctx.wall_offset_ns);  // wall time, as a capture would
    if (preparsed_) {
      p->flow_hash = r.hash;
      p->hdr = r.hdr;
      p->parsed = true;
    } else {
      p->flow_hash = flow_hash(*p);  // parses the headers, as a real source does
    }
    batch.add(p);
  }
  return true;
}

}  // namespace obi
