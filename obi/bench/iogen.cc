// iogen: traffic generator and sink of the forwarding benchmark over real I/O (bench/io.py).
//
//   iogen send --dev IF --pcap P [--seconds S] [--rate PPS] [--stamp] [--mode ring|sendmmsg]
//   iogen sink --dev IF [--seconds S] [--warmup S]
//
// send: replays the frames of P (preloaded in memory, in order, over and over) out of IF
//   through the OBI's own transmit path (io::AfPacketTx: TPACKET_V2 ring, one sendto per
//   batch of 32; --mode sendmmsg: one sendmmsg per batch) for S seconds (default 5), as
//   fast as it can or at PPS frames per second (--rate, paced in small batches).
//   --stamp appends a 16-byte trailer to every frame after its last byte (the IP header's
//   length is not changed, so classifiers see the same packet): a magic number, a
//   sequence number and the send time (CLOCK_REALTIME, ns, taken just before the batch's
//   sendto). Prints one JSON line: {"sent", "refused", "seconds", "mpps", "send_calls",
//   "mode", "cpu_s"} (cpu_s: its user + system CPU time, the trace's loading included).
// sink: reads IF through a TPACKET_V3 receive ring (poll() when idle, so it costs little
//   CPU at low rates) for S seconds (default 5) or until SIGINT/SIGTERM. For each stamped
//   frame the latency is the kernel's receive time stamp of the frame at IF minus the
//   stamp, so the sink's own wake-up delay is not in the figure. Frames in the first
//   --warmup seconds (default 0) are counted but not timed. Prints one JSON line:
//   {"received", "stamped", "timed", "p50_us", "p90_us", "p99_us", "p999_us", "max_us",
//   "lost_seq"} (lost_seq: sequence numbers missing between the first and last seen).
//
// Needs CAP_NET_RAW (run it in the namespace of IF). Bounded: both stop after S seconds.
#include <arpa/inet.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/replay.hh"
#include "io/afpacket.hh"

namespace {

constexpr uint32_t kMagic = 0x0b1e57a4;
constexpr uint32_t kTrailer = 16;   // magic, sequence number, send time (ns)

std::atomic<bool> g_stop{false};
void on_signal(int) { g_stop.store(true); }

uint64_t now_ns(clockid_t c) {
  timespec ts;
  clock_gettime(c, &ts);
  return uint64_t(ts.tv_sec) * 1000000000ull + uint64_t(ts.tv_nsec);
}

[[noreturn]] void usage(const std::string& why) {
  std::fprintf(stderr, "iogen: %s\nusage: iogen send --dev IF --pcap P [--seconds S] [--rate PPS] [--stamp] [--mode ring|sendmmsg]\n"
                       "       iogen sink --dev IF [--seconds S] [--warmup S]\n", why.c_str());
  std::exit(2);
}

struct Options {
  std::string cmd, dev, pcap, mode = "ring";
  double seconds = 5, warmup = 0, rate = 0;
  bool stamp = false;
};

double number(const std::string& flag, const char* v, double lo, double hi) {
  char* end = nullptr;
  double d = std::strtod(v, &end);
  if (!end || *end || !(d >= lo && d <= hi)) usage(flag + " must be a number in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
  return d;
}

Options parse(int argc, char** argv) {
  Options o;
  if (argc < 2) usage("needs a command");
  o.cmd = argv[1];
  if (o.cmd != "send" && o.cmd != "sink") usage("unknown command '" + o.cmd + "'");
  for (int i = 2; i < argc; ++i) {
    std::string a = argv[i];
    auto val = [&]() -> const char* {
      if (i + 1 >= argc) usage(a + " needs a value");
      return argv[++i];
    };
    if (a == "--dev") o.dev = val();
    else if (a == "--pcap") o.pcap = val();
    else if (a == "--seconds") o.seconds = number(a, val(), 0.1, 3600);
    else if (a == "--warmup") o.warmup = number(a, val(), 0, 3600);
    else if (a == "--rate") o.rate = number(a, val(), 1, 1e9);
    else if (a == "--mode") o.mode = val();
    else if (a == "--stamp") o.stamp = true;
    else usage("unknown argument '" + a + "'");
  }
  if (o.dev.empty()) usage("--dev is required");
  if (o.cmd == "send" && o.pcap.empty()) usage("send needs --pcap");
  if (o.mode != "ring" && o.mode != "sendmmsg") usage("--mode is ring or sendmmsg");
  return o;
}

void put_stamp(obi::Packet* p, uint32_t seq, uint64_t t) {
  uint8_t* s = p->data + p->len - kTrailer;
  std::memcpy(s, &kMagic, 4);
  std::memcpy(s + 4, &seq, 4);
  std::memcpy(s + 8, &t, 8);
}

int send(const Options& o) {
  auto trace = obi::Trace::load(o.pcap);
  if (trace->records.empty()) usage("no frames in " + o.pcap);
  // every frame in a buffer of its own, trailer room included
  const uint32_t extra = o.stamp ? kTrailer : 0;
  std::vector<std::vector<uint8_t>> bufs(trace->records.size());
  std::vector<obi::Packet> pkts(trace->records.size());
  for (std::size_t i = 0; i < trace->records.size(); ++i) {
    const auto& r = trace->records[i];
    bufs[i].assign(trace->bytes.begin() + long(r.offset), trace->bytes.begin() + long(r.offset + r.len));
    bufs[i].resize(r.len + extra, 0);
    pkts[i].data = pkts[i].buf = bufs[i].data();
    pkts[i].len = pkts[i].buf_size = r.len + extra;
  }
  obi::io::AfPacketTx tx;
  tx.open(o.dev, o.mode == "ring" ? obi::io::AfPacketTx::Mode::kRing : obi::io::AfPacketTx::Mode::kSendmmsg);
  if (o.mode == "ring" && !tx.ring()) std::fprintf(stderr, "iogen: the kernel refused a TX ring on %s: sendmmsg\n", o.dev.c_str());

  const uint64_t t0 = now_ns(CLOCK_MONOTONIC), end = t0 + uint64_t(o.seconds * 1e9);
  uint64_t sent = 0, refused = 0, now = t0;
  uint32_t seq = 0;
  std::size_t next = 0;
  obi::Batch batch;
  // paced: small batches (at most 1/50 ms of the rate) so frames leave close to their time
  const uint32_t pace_batch = o.rate > 0 ? std::clamp<uint32_t>(uint32_t(o.rate / 50000), 1, obi::kBatchSize) : obi::kBatchSize;
  while (!g_stop.load(std::memory_order_relaxed) && (now = now_ns(CLOCK_MONOTONIC)) < end) {
    uint32_t want = obi::kBatchSize;
    if (o.rate > 0) {
      uint64_t due = uint64_t(double(now - t0) * 1e-9 * o.rate) + 1;
      uint64_t done = sent + refused;
      if (due <= done) {   // ahead of the rate: wait for the next frame's time
        uint64_t at = t0 + uint64_t(double(done) / o.rate * 1e9);
        if (at > now + 50000) {
          timespec ts{0, long(at - now - 50000)};
          nanosleep(&ts, nullptr);
        }
        continue;
      }
      want = uint32_t(std::min<uint64_t>(due - done, pace_batch));
    }
    batch.n = 0;
    for (uint32_t i = 0; i < want; ++i) {
      batch.add(&pkts[next]);
      next = next + 1 == pkts.size() ? 0 : next + 1;
    }
    if (o.stamp) {
      uint64_t t = now_ns(CLOCK_REALTIME);
      for (uint32_t i = 0; i < batch.n; ++i) put_stamp(batch.pkts[i], seq + i, t);
    }
    uint32_t n = tx.send(batch);
    sent += n;
    refused += batch.n - n;
    seq += batch.n;
  }
  double secs = double(now_ns(CLOCK_MONOTONIC) - t0) * 1e-9;
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  double cpu = double(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) + double(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
  std::printf("{\"sent\": %llu, \"refused\": %llu, \"seconds\": %.3f, \"mpps\": %.4f, \"send_calls\": %llu, \"mode\": \"%s\", "
              "\"cpu_s\": %.3f}\n",
              (unsigned long long)sent, (unsigned long long)refused, secs, double(sent) / secs / 1e6,
              (unsigned long long)tx.calls(), tx.ring() ? "ring" : "sendmmsg", cpu);
  return 0;
}

class RxRing {
 public:
  explicit RxRing(const std::string& dev) {
    int ifindex = obi::io::interface_index(dev);
    fd_ = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, htons(ETH_P_ALL));
    if (fd_ < 0) fail("AF_PACKET socket on " + dev);
    int v = TPACKET_V3;
    if (setsockopt(fd_, SOL_PACKET, PACKET_VERSION, &v, sizeof v) < 0) fail("TPACKET_V3");
    tpacket_req3 req{};
    req.tp_block_size = 1u << 20;
    req.tp_block_nr = 64;
    req.tp_frame_size = 2048;
    req.tp_frame_nr = req.tp_block_size / req.tp_frame_size * req.tp_block_nr;
    req.tp_retire_blk_tov = 1;
    if (setsockopt(fd_, SOL_PACKET, PACKET_RX_RING, &req, sizeof req) < 0) fail("RX ring");
    size_ = std::size_t(req.tp_block_size) * req.tp_block_nr;
    block_size_ = req.tp_block_size;
    blocks_ = req.tp_block_nr;
    void* m = mmap(nullptr, size_, PROT_READ | PROT_WRITE, MAP_SHARED, fd_, 0);
    if (m == MAP_FAILED) fail("mapping the RX ring");
    ring_ = static_cast<uint8_t*>(m);
    sockaddr_ll sll{};
    sll.sll_family = AF_PACKET;
    sll.sll_protocol = htons(ETH_P_ALL);
    sll.sll_ifindex = ifindex;
    if (bind(fd_, reinterpret_cast<sockaddr*>(&sll), sizeof sll) < 0) fail("binding to " + dev);
  }
  ~RxRing() {
    if (ring_) munmap(ring_, size_);
    if (fd_ >= 0) close(fd_);
  }
  // Calls f(frame, len, kernel receive time ns) for every frame of the next ready block;
  // waits up to timeout_ms for one. Returns false when none was ready.
  template <class F>
  bool next_block(int timeout_ms, F&& f) {
    auto* bd = reinterpret_cast<tpacket_block_desc*>(ring_ + std::size_t(block_) * block_size_);
    if (!(__atomic_load_n(&bd->hdr.bh1.block_status, __ATOMIC_ACQUIRE) & TP_STATUS_USER)) {
      pollfd p{fd_, POLLIN | POLLERR, 0};
      ::poll(&p, 1, timeout_ms);
      if (!(__atomic_load_n(&bd->hdr.bh1.block_status, __ATOMIC_ACQUIRE) & TP_STATUS_USER)) return false;
    }
    uint8_t* h = reinterpret_cast<uint8_t*>(bd) + bd->hdr.bh1.offset_to_first_pkt;
    for (uint32_t i = 0; i < bd->hdr.bh1.num_pkts; ++i) {
      auto* th = reinterpret_cast<tpacket3_hdr*>(h);
      f(h + th->tp_mac, th->tp_snaplen, uint64_t(th->tp_sec) * 1000000000ull + th->tp_nsec);
      h += th->tp_next_offset;
    }
    __atomic_store_n(&bd->hdr.bh1.block_status, TP_STATUS_KERNEL, __ATOMIC_RELEASE);
    block_ = (block_ + 1) % blocks_;
    return true;
  }
  uint64_t drops() {
    tpacket_stats_v3 st{};
    socklen_t len = sizeof st;
    if (getsockopt(fd_, SOL_PACKET, PACKET_STATISTICS, &st, &len) == 0) drops_ += st.tp_drops;
    return drops_;
  }

 private:
  [[noreturn]] static void fail(const std::string& what) { throw std::runtime_error(what + ": " + std::strerror(errno)); }
  int fd_ = -1;
  uint8_t* ring_ = nullptr;
  std::size_t size_ = 0;
  uint32_t block_size_ = 0, blocks_ = 0, block_ = 0;
  uint64_t drops_ = 0;
};

double percentile(std::vector<uint64_t>& v, double q) {
  if (v.empty()) return 0;
  std::size_t k = std::min(v.size() - 1, std::size_t(q * double(v.size())));
  std::nth_element(v.begin(), v.begin() + long(k), v.end());
  return double(v[k]) / 1000.0;
}

int sink(const Options& o) {
  RxRing rx(o.dev);
  std::vector<uint64_t> lat;
  lat.reserve(1u << 22);   // bounded: at most 4 Mi latencies kept (the rest counted only)
  const uint64_t t0 = now_ns(CLOCK_MONOTONIC), end = t0 + uint64_t(o.seconds * 1e9);
  const uint64_t timed_from = now_ns(CLOCK_REALTIME) + uint64_t(o.warmup * 1e9);
  uint64_t received = 0, stamped = 0, seq_lo = UINT64_MAX, seq_hi = 0, seq_seen = 0;
  while (!g_stop.load(std::memory_order_relaxed) && now_ns(CLOCK_MONOTONIC) < end) {
    rx.next_block(50, [&](const uint8_t* f, uint32_t len, uint64_t at) {
      ++received;
      if (len < 14 + kTrailer) return;
      uint32_t magic, seq;
      uint64_t t;
      std::memcpy(&magic, f + len - kTrailer, 4);
      if (magic != kMagic) return;
      std::memcpy(&seq, f + len - kTrailer + 4, 4);
      std::memcpy(&t, f + len - kTrailer + 8, 8);
      ++stamped;
      if (t < timed_from) return;
      seq_lo = std::min<uint64_t>(seq_lo, seq);
      seq_hi = std::max<uint64_t>(seq_hi, seq);
      ++seq_seen;
      if (lat.size() < lat.capacity()) lat.push_back(at > t ? at - t : 0);
    });
  }
  std::size_t timed = lat.size();
  uint64_t lost = seq_seen ? (seq_hi - seq_lo + 1) - std::min(seq_hi - seq_lo + 1, seq_seen) : 0;
  double mx = lat.empty() ? 0 : double(*std::max_element(lat.begin(), lat.end())) / 1000.0;
  double p50 = percentile(lat, 0.50), p90 = percentile(lat, 0.90), p99 = percentile(lat, 0.99), p999 = percentile(lat, 0.999);
  std::printf("{\"received\": %llu, \"stamped\": %llu, \"timed\": %zu, \"p50_us\": %.1f, \"p90_us\": %.1f, \"p99_us\": %.1f, "
              "\"p999_us\": %.1f, \"max_us\": %.1f, \"lost_seq\": %llu, \"ring_drops\": %llu}\n",
              (unsigned long long)received, (unsigned long long)stamped, timed, p50, p90, p99, p999, mx,
              (unsigned long long)lost, (unsigned long long)rx.drops());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options o = parse(argc, argv);
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  try {
    return o.cmd == "send" ? send(o) : sink(o);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "iogen: %s\n", e.what());
    return 1;
  }
}
