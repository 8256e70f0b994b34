// iogen: traffic generator and sink of the forwarding benchmark over real I/O (bench/io.py).
//
//   iogen send --dev IF --pcap P [--seconds S] [--rate PPS] [--stamp] [--mode ring|sendmmsg]
//   iogen sink --dev IF [--seconds S] [--warmup S]
//   iogen memif [--tx SOCK --pcap P] [--rx SOCK] [--server] [--lcore N] [--seconds S]
//               [--rate PPS] [--stamp] [--warmup S] [--verify]
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
// memif: a DPDK process (EAL without hugepages, on lcore N, default 0) with DPDK net_memif
//   ports: --tx SOCK sends P's frames (one mbuf per frame, built once; each burst of 32
//   takes a reference on them, so the generator copies nothing itself: memif copies each
//   frame into its shared ring), --rx SOCK receives and counts what arrives, in the same
//   thread (send a burst, drain the receive port, busy polling). Either alone makes a pure
//   generator or a pure sink. SOCK is the memif control socket (an abstract socket name);
//   the ports are memif clients, servers with --server. Waits up to 10 s for the peers to
//   connect, then runs S seconds (default 5), or until SIGINT/SIGTERM for a pure sink.
//   --rate paces the sending (the receive port is polled between bursts); --stamp writes
//   the trailer above (CLOCK_MONOTONIC) and the latency of each stamped frame is its
//   receive time (rx burst returned) minus its stamp; --warmup as for sink. --verify adds
//   an order-independent digest of the frames' bytes sent and received. Prints one JSON
//   line: {"sent", "sent_bytes", "tx_bursts", "tx_full", "received", "received_bytes", "seconds",
//   "mpps", "rx_mpps", "cpu_s", ...latency fields as sink..., "sent_digest",
//   "received_digest"} (tx_bursts: send attempts; tx_full: those the peer's ring did
//   not take whole, i.e. the generator waiting for its peer; cpu_s: CPU
//   time of the sending/receiving loop, after the set-up).
//
// send/sink need CAP_NET_RAW (run them in the namespace of IF). Bounded: all stop after S
// seconds.
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

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "engine/replay.hh"
#include "io/afpacket.hh"

namespace {

constexpr uint32_t kMagic = 0x0b1e57a4;
constexpr uint32_t kTrailer = 16;  // magic, sequence number, send time (ns)

std::atomic<bool> g_stop{false};
void on_signal(int) { g_stop.store(true); }

uint64_t now_ns(clockid_t c) {
  timespec ts;
  clock_gettime(c, &ts);
  return uint64_t(ts.tv_sec) * 1000000000ull + uint64_t(ts.tv_nsec);
}

[[noreturn]] void usage(const std::string& why) {
  std::fprintf(
      stderr,
      "iogen: %s\nusage: iogen send --dev IF --pcap P [--seconds S] [--rate PPS] [--stamp] [--mode ring|sendmmsg]\n"
      "       iogen sink --dev IF [--seconds S] [--warmup S]\n"
      "       iogen memif [--tx SOCK --pcap P] [--rx SOCK] [--server] [--lcore N] [--seconds S]\n"
      "                   [--rate PPS] [--stamp] [--warmup S] [--verify]\n",
      why.c_str());
  std::exit(2);
}

struct Options {
  std::string cmd, dev, pcap, mode = "ring", tx, rx;
  double seconds = 5, warmup = 0, rate = 0, lcore = 0;
  bool stamp = false, server = false, verify = false;
};

double number(const std::string& flag, const char* v, double lo, double hi) {
  char* end = nullptr;
  double d = std::strtod(v, &end);
  if (!end || *end || !(d >= lo && d <= hi))
    usage(flag + " must be a number in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
  return d;
}

Options parse(int argc, char** argv) {
  Options o;
  if (argc < 2) usage("needs a command");
  o.cmd = argv[1];
  if (o.cmd != "send" && o.cmd != "sink" && o.cmd != "memif") usage("unknown command '" + o.cmd + "'");
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
    else if (a == "--tx") o.tx = val();
    else if (a == "--rx") o.rx = val();
    else if (a == "--server") o.server = true;
    else if (a == "--verify") o.verify = true;
    else if (a == "--lcore") o.lcore = number(a, val(), 0, 1023);
    else usage("unknown argument '" + a + "'");
  }
  if (o.cmd == "memif") {
    if (o.tx.empty() && o.rx.empty()) usage("memif needs --tx SOCK, --rx SOCK or both");
    if (!o.tx.empty() && o.pcap.empty()) usage("memif --tx needs --pcap");
    for (const std::string* sock : {&o.tx, &o.rx})
      if (sock->find_first_of(", =") != std::string::npos) usage("memif socket names take no blanks, commas or '='");
    return o;
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
  if (o.mode == "ring" && !tx.ring())
    std::fprintf(stderr, "iogen: the kernel refused a TX ring on %s: sendmmsg\n", o.dev.c_str());

  const uint64_t t0 = now_ns(CLOCK_MONOTONIC), end = t0 + uint64_t(o.seconds * 1e9);
  uint64_t sent = 0, refused = 0, now = t0;
  uint32_t seq = 0;
  std::size_t next = 0;
  obi::Batch batch;
  // paced: small batches (at most 1/50 ms of the rate) so frames leave close to their time
  const uint32_t pace_batch =
      o.rate > 0 ? std::clamp<uint32_t>(uint32_t(o.rate / 50000), 1, obi::kBatchSize) : obi::kBatchSize;
  while (!g_stop.load(std::memory_order_relaxed) && (now = now_ns(CLOCK_MONOTONIC)) < end) {
    uint32_t want = obi::kBatchSize;
    if (o.rate > 0) {
      uint64_t due = uint64_t(double(now - t0) * 1e-9 * o.rate) + 1;
      uint64_t done = sent + refused;
      if (due <= done) {  // ahead of the rate: wait for the next frame's time
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
  double cpu =
      double(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) + double(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
  std::printf(
      "{\"sent\": %llu, \"refused\": %llu, \"seconds\": %.3f, \"mpps\": %.4f, \"send_calls\": %llu, \"mode\": \"%s\", "
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
  [[noreturn]] static void fail(const std::string& what) {
    throw std::runtime_error(what + ": " + std::strerror(errno));
  }
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
  lat.reserve(1u << 22);  // bounded: at most 4 Mi latencies kept (the rest counted only)
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
  double p50 = percentile(lat, 0.50), p90 = percentile(lat, 0.90), p99 = percentile(lat, 0.99),
         p999 = percentile(lat, 0.999);
  std::printf(
      "{\"received\": %llu, \"stamped\": %llu, \"timed\": %zu, \"p50_us\": %.1f, \"p90_us\": %.1f, \"p99_us\": %.1f, "
      "\"p999_us\": %.1f, \"max_us\": %.1f, \"lost_seq\": %llu, \"ring_drops\": %llu}\n",
      (unsigned long long)received, (unsigned long long)stamped, timed, p50, p90, p99, p999, mx,
      (unsigned long long)lost, (unsigned long long)rx.drops());
  return 0;
}

// --- memif: DPDK ports ---------------------------------------------------------------

uint64_t fnv1a(const uint8_t* d, uint32_t n) {
  uint64_t h = 1469598103934665603ull;
  for (uint32_t i = 0; i < n; ++i) h = (h ^ d[i]) * 1099511628211ull;
  return h;
}

// The frame's bytes (an mbuf of one or more segments) into a flat buffer.
const uint8_t* frame_bytes(const rte_mbuf* m, std::vector<uint8_t>& scratch) {
  uint32_t len = rte_pktmbuf_pkt_len(m);
  if (scratch.size() < len) scratch.resize(len);
  return static_cast<const uint8_t*>(rte_pktmbuf_read(m, 0, len, scratch.data()));
}

uint16_t memif_port(const std::string& vdev, rte_mempool* rx_pool) {
  uint16_t port = 0;
  if (rte_eth_dev_get_port_by_name(vdev.c_str(), &port) != 0) throw std::runtime_error("no DPDK port " + vdev);
  rte_eth_conf conf{};
  int rc = rte_eth_dev_configure(port, 1, 1, &conf);
  if (rc == 0) rc = rte_eth_rx_queue_setup(port, 0, 1024, 0, nullptr, rx_pool);
  if (rc == 0) rc = rte_eth_tx_queue_setup(port, 0, 1024, 0, nullptr);
  if (rc == 0) rc = rte_eth_dev_start(port);
  if (rc != 0) throw std::runtime_error(vdev + ": " + rte_strerror(-rc));
  return port;
}

int memif(const Options& o) {
  const bool tx_on = !o.tx.empty(), rx_on = !o.rx.empty();
  const char* role = o.server ? "server" : "client";
  std::vector<std::string> eal{"iogen",
                               "--no-huge",
                               "-m",
                               "512",
                               "--no-pci",
                               "--no-shconf",
                               "--no-telemetry",
                               "--file-prefix",
                               "iogen" + std::to_string(getpid()),
                               "-l",
                               std::to_string(int(o.lcore)),
                               "--log-level",
                               "*:error"};
  if (tx_on) eal.push_back("--vdev=net_memif_tx,id=0,role=" + std::string(role) + ",socket=" + o.tx);
  if (rx_on) eal.push_back("--vdev=net_memif_rx,id=0,role=" + std::string(role) + ",socket=" + o.rx);
  std::vector<char*> argv;
  for (auto& a : eal) argv.push_back(a.data());
  argv.push_back(nullptr);
  if (rte_eal_init(int(eal.size()), argv.data()) < 0)
    throw std::runtime_error(std::string("DPDK EAL initialisation failed: ") + rte_strerror(rte_errno));
  rte_mempool* rx_pool = rte_pktmbuf_pool_create("iogen_rx", 8191, 256, 0, RTE_MBUF_DEFAULT_BUF_SIZE, 0);
  if (!rx_pool) throw std::runtime_error(std::string("receive mbuf pool: ") + rte_strerror(rte_errno));

  // one mbuf per frame of the trace, built once (trailer room included)
  const uint32_t extra = o.stamp ? kTrailer : 0;
  std::vector<rte_mbuf*> frames;
  if (tx_on) {
    auto trace = obi::Trace::load(o.pcap);
    if (trace->records.empty()) usage("no frames in " + o.pcap);
    uint32_t longest = 0;
    for (const auto& r : trace->records) longest = std::max<uint32_t>(longest, r.len);
    if (longest + extra > 9000) throw std::runtime_error(o.pcap + ": frames over 9000 bytes are not sent over memif");
    rte_mempool* tx_pool = rte_pktmbuf_pool_create("iogen_tx", unsigned(trace->records.size()), 0, 0,
                                                   uint16_t(RTE_PKTMBUF_HEADROOM + longest + extra), 0);
    if (!tx_pool) throw std::runtime_error(std::string("trace mbuf pool: ") + rte_strerror(rte_errno));
    for (const auto& r : trace->records) {
      rte_mbuf* m = rte_pktmbuf_alloc(tx_pool);
      char* d = m ? rte_pktmbuf_append(m, uint16_t(r.len + extra)) : nullptr;
      if (!d) throw std::runtime_error("trace mbuf pool exhausted");
      std::memcpy(d, trace->bytes.data() + r.offset, r.len);
      std::memset(d + r.len, 0, extra);
      frames.push_back(m);
    }
  }
  const uint16_t txp = tx_on ? memif_port("net_memif_tx", rx_pool) : 0;
  const uint16_t rxp = rx_on ? memif_port("net_memif_rx", rx_pool) : 0;
  // the peers connect over the control sockets
  for (int i = 0;; ++i) {
    rte_eth_link l1{}, l2{};
    if (tx_on) rte_eth_link_get_nowait(txp, &l1);
    if (rx_on) rte_eth_link_get_nowait(rxp, &l2);
    if ((!tx_on || l1.link_status) && (!rx_on || l2.link_status)) break;
    if (g_stop.load() || i == 1000)
      throw std::runtime_error("memif peer did not connect within 10 s (socket " +
                               std::string(tx_on && !l1.link_status ? o.tx : o.rx) + ")");
    usleep(10000);
  }

  std::vector<uint64_t> lat;
  lat.reserve(1u << 22);  // bounded: at most 4 Mi latencies kept (the rest counted only)
  std::vector<uint8_t> scratch;
  uint64_t sent = 0, sent_bytes = 0, tx_full = 0, tx_bursts = 0, received = 0, received_bytes = 0, stamped = 0;
  uint64_t sent_digest = 0, received_digest = 0, seq_lo = UINT64_MAX, seq_hi = 0, seq_seen = 0;
  uint32_t seq = 0;
  std::size_t next = 0;
  auto cpu_seconds = [] {
    rusage ru{};
    getrusage(RUSAGE_SELF, &ru);
    return double(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) + double(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
  };
  const double cpu0 = cpu_seconds();
  const uint64_t t0 = now_ns(CLOCK_MONOTONIC), end = t0 + uint64_t(o.seconds * 1e9);
  const uint64_t timed_from = t0 + uint64_t(o.warmup * 1e9);
  uint64_t now = t0, tx_end = t0, idle_since = 0;
  const uint32_t pace_batch =
      o.rate > 0 ? std::clamp<uint32_t>(uint32_t(o.rate / 50000), 1, obi::kBatchSize) : obi::kBatchSize;
  bool sending = tx_on;
  auto receive = [&]() -> uint16_t {
    rte_mbuf* m[obi::kBatchSize];
    uint16_t n = rte_eth_rx_burst(rxp, 0, m, obi::kBatchSize);
    if (!n) return 0;
    const uint64_t at = now_ns(CLOCK_MONOTONIC);
    for (uint16_t i = 0; i < n; ++i) {
      const uint32_t len = rte_pktmbuf_pkt_len(m[i]);
      received_bytes += len;
      if (o.verify) received_digest += fnv1a(frame_bytes(m[i], scratch), len);
      if (!o.stamp || len < 14 + kTrailer) continue;
      uint8_t tr[kTrailer];
      const auto* t = static_cast<const uint8_t*>(rte_pktmbuf_read(m[i], len - kTrailer, kTrailer, tr));
      uint32_t magic, sq;
      uint64_t when;
      std::memcpy(&magic, t, 4);
      if (magic != kMagic) continue;
      std::memcpy(&sq, t + 4, 4);
      std::memcpy(&when, t + 8, 8);
      ++stamped;
      if (when < timed_from) continue;
      seq_lo = std::min<uint64_t>(seq_lo, sq);
      seq_hi = std::max<uint64_t>(seq_hi, sq);
      ++seq_seen;
      if (lat.size() < lat.capacity()) lat.push_back(at > when ? at - when : 0);
    }
    received += n;
    rte_pktmbuf_free_bulk(m, n);
    return n;
  };
  while (!g_stop.load(std::memory_order_relaxed)) {
    now = now_ns(CLOCK_MONOTONIC);
    if (sending && now >= end) {
      sending = false;
      tx_end = now;
      idle_since = now;
    }
    if (!sending && (!rx_on || (!tx_on && now >= end))) break;
    if (!sending && tx_on && now - idle_since > 200000000ull) break;  // frames still in flight: 200 ms of quiet
    if (sending) {
      uint32_t want = obi::kBatchSize;
      if (o.rate > 0) {
        uint64_t due = uint64_t(double(now - t0) * 1e-9 * o.rate) + 1;
        if (due <= sent) {  // ahead of the rate
          if (rx_on) {
            receive();
            continue;
          }
          uint64_t at = t0 + uint64_t(double(sent) / o.rate * 1e9);
          if (at > now + 50000) {
            timespec ts{0, long(at - now - 50000)};
            nanosleep(&ts, nullptr);
          }
          continue;
        }
        want = uint32_t(std::min<uint64_t>(due - sent, pace_batch));
      }
      rte_mbuf* burst[obi::kBatchSize];
      const uint64_t stamp = o.stamp ? now_ns(CLOCK_MONOTONIC) : 0;
      for (uint32_t i = 0; i < want; ++i) {
        rte_mbuf* m = frames[(next + i) % frames.size()];
        if (o.stamp) {
          uint8_t* t = rte_pktmbuf_mtod_offset(m, uint8_t*, rte_pktmbuf_pkt_len(m) - kTrailer);
          uint32_t sq = seq + i;
          std::memcpy(t, &kMagic, 4);
          std::memcpy(t + 4, &sq, 4);
          std::memcpy(t + 8, &stamp, 8);
        }
        rte_mbuf_refcnt_update(m, 1);  // memif copies the frame and drops this reference
        burst[i] = m;
      }
      uint16_t n = rte_eth_tx_burst(txp, 0, burst, uint16_t(want));
      ++tx_bursts;
      for (uint32_t i = n; i < want; ++i) rte_mbuf_refcnt_update(burst[i], -1);
      if (n < want) ++tx_full;
      for (uint16_t i = 0; i < n; ++i) {
        sent_bytes += rte_pktmbuf_pkt_len(burst[i]);
        if (o.verify) sent_digest += fnv1a(rte_pktmbuf_mtod(burst[i], const uint8_t*), rte_pktmbuf_pkt_len(burst[i]));
      }
      sent += n;
      seq += n;
      next = (next + n) % frames.size();
    }
    if (rx_on && receive() && !sending) idle_since = now_ns(CLOCK_MONOTONIC);
  }
  if (sending) tx_end = now_ns(CLOCK_MONOTONIC);
  const double secs = double((tx_on ? tx_end : now_ns(CLOCK_MONOTONIC)) - t0) * 1e-9;
  const double cpu = cpu_seconds() - cpu0;
  std::size_t timed = lat.size();
  uint64_t lost = seq_seen ? (seq_hi - seq_lo + 1) - std::min(seq_hi - seq_lo + 1, seq_seen) : 0;
  double mx = lat.empty() ? 0 : double(*std::max_element(lat.begin(), lat.end())) / 1000.0;
  double p50 = percentile(lat, 0.50), p90 = percentile(lat, 0.90), p99 = percentile(lat, 0.99),
         p999 = percentile(lat, 0.999);
  std::printf(
      "{\"sent\": %llu, \"sent_bytes\": %llu, \"tx_bursts\": %llu, \"tx_full\": %llu, \"received\": %llu, \"received_bytes\": %llu, "
      "\"seconds\": %.3f, \"mpps\": %.4f, \"rx_mpps\": %.4f, \"cpu_s\": %.3f, \"stamped\": %llu, \"timed\": %zu, "
      "\"p50_us\": %.1f, \"p90_us\": %.1f, \"p99_us\": %.1f, \"p999_us\": %.1f, \"max_us\": %.1f, \"lost_seq\": %llu, "
      "\"sent_digest\": \"%016llx\", \"received_digest\": \"%016llx\"}\n",
      (unsigned long long)sent, (unsigned long long)sent_bytes, (unsigned long long)tx_bursts,
      (unsigned long long)tx_full, (unsigned long long)received, (unsigned long long)received_bytes, secs,
      double(sent) / secs / 1e6, double(received) / secs / 1e6, cpu, (unsigned long long)stamped, timed, p50, p90, p99,
      p999, mx, (unsigned long long)lost, (unsigned long long)sent_digest, (unsigned long long)received_digest);
  std::fflush(stdout);
  if (tx_on) {
    rte_eth_dev_stop(txp);
    rte_eth_dev_close(txp);
  }
  if (rx_on) {
    rte_eth_dev_stop(rxp);
    rte_eth_dev_close(rxp);
  }
  rte_eal_cleanup();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options o = parse(argc, argv);
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  try {
    return o.cmd == "send" ? send(o) : o.cmd == "sink" ? sink(o) : memif(o);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "iogen: %s\n", e.what());
    return 1;
  }
}
