#include "io/afpacket.hh"

#include <arpa/inet.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "engine/pool.hh"
#include "io/offload.hh"

#ifndef PACKET_IGNORE_OUTGOING
#define PACKET_IGNORE_OUTGOING 23
#endif

namespace obi::io {
namespace {

// single writer: no locked instruction on the worker's path
void bump(std::atomic<uint64_t>& c) { c.store(c.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed); }

[[noreturn]] void sys_fail(const std::string& what) { throw std::runtime_error(what + ": " + std::strerror(errno)); }

}  // namespace

int interface_index(const std::string& ifname) {
  unsigned idx = if_nametoindex(ifname.c_str());
  if (idx == 0) throw std::runtime_error("no network interface named '" + ifname + "'");
  return static_cast<int>(idx);
}

AfPacketRx::~AfPacketRx() { close(); }

void AfPacketRx::open(const std::string& ifname, bool promisc, int fanout_group, RxRing kind) {
  int ifindex = interface_index(ifname);
  fd_ = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, htons(ETH_P_ALL));
  if (fd_ < 0) sys_fail("AF_PACKET socket on " + ifname);
  try {
    int one = 1;
    // before the ring: each frame then carries a virtio_net_hdr saying which checksum and
    // segmentation work its sender left to the device (veth, virtio, ...)
    if (setsockopt(fd_, SOL_PACKET, PACKET_VNET_HDR, &one, sizeof one) < 0) sys_fail("PACKET_VNET_HDR on " + ifname);
    ring_kind_ = kind;
    if (kind == RxRing::kFrame) {
      // one frame per slot, handed over as soon as the kernel wrote it: 2048 slots of
      // 16 KiB (32 MiB, as the block ring); a frame that does not fit a slot (a super-frame
      // over 16 KiB) is cut by the kernel and counted in drops
      int v = TPACKET_V2;
      if (setsockopt(fd_, SOL_PACKET, PACKET_VERSION, &v, sizeof v) < 0) sys_fail("TPACKET_V2 on " + ifname);
      tpacket_req req{};
      frame_size_ = 1u << 14;
      frame_nr_ = 2048;
      req.tp_block_size = 1u << 17;
      req.tp_block_nr = frame_nr_ / (req.tp_block_size / frame_size_);
      req.tp_frame_size = frame_size_;
      req.tp_frame_nr = frame_nr_;
      if (setsockopt(fd_, SOL_PACKET, PACKET_RX_RING, &req, sizeof req) < 0) sys_fail("RX ring on " + ifname);
      ring_size_ = std::size_t(frame_size_) * frame_nr_;
    } else {
      int v = TPACKET_V3;
      if (setsockopt(fd_, SOL_PACKET, PACKET_VERSION, &v, sizeof v) < 0) sys_fail("TPACKET_V3 on " + ifname);
      tpacket_req3 req{};
      // 256 blocks of 32 KiB: a block is handed over at the latest 1 ms after its first
      // frame, so at low rates each block holds few frames and the ring's depth in time is
      // about one block per ms; 256 of them bridge a worker that is off the CPU for a
      // quarter of a second (a busy machine, graph swaps) where 8 blocks of 1 MiB overflowed
      // after 8 ms. A block holds the largest frame: a 64 KiB TCP/UDP super-frame that a
      // veth or virtio sender left unsegmented (32 MiB in all).
      block_size_ = 1u << 17;
      block_nr_ = 256;
      req.tp_block_size = block_size_;
      req.tp_block_nr = block_nr_;
      req.tp_frame_size = 2048;
      req.tp_frame_nr = block_size_ / 2048 * block_nr_;
      req.tp_retire_blk_tov = 1;  // ms: hand a partly filled block over quickly
      if (setsockopt(fd_, SOL_PACKET, PACKET_RX_RING, &req, sizeof req) < 0) sys_fail("RX ring on " + ifname);
      ring_size_ = std::size_t(block_size_) * block_nr_;
    }
    void* m = mmap(nullptr, ring_size_, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_LOCKED, fd_, 0);
    if (m == MAP_FAILED) m = mmap(nullptr, ring_size_, PROT_READ | PROT_WRITE, MAP_SHARED, fd_, 0);
    if (m == MAP_FAILED) sys_fail("mapping the RX ring of " + ifname);
    ring_ = static_cast<uint8_t*>(m);
    setsockopt(fd_, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof one);  // best effort (Linux >= 4.20)
    sockaddr_ll sll{};
    sll.sll_family = AF_PACKET;
    sll.sll_protocol = htons(ETH_P_ALL);
    sll.sll_ifindex = ifindex;
    if (bind(fd_, reinterpret_cast<sockaddr*>(&sll), sizeof sll) < 0) sys_fail("binding to " + ifname);
    ifindex_ = ifindex;
    promisc_ = false;
    if (promisc) set_promisc(true);
    if (fanout_group >= 0) {
      int arg = (fanout_group & 0xffff) | (PACKET_FANOUT_HASH << 16);
      if (setsockopt(fd_, SOL_PACKET, PACKET_FANOUT, &arg, sizeof arg) < 0) sys_fail("fanout group on " + ifname);
    }
  } catch (...) {
    close();
    throw;
  }
  block_ = 0;
  left_ = 0;
  next_ = nullptr;
}

void AfPacketRx::set_promisc(bool on) {
  if (fd_ < 0 || on == promisc_) return;
  packet_mreq mr{};
  mr.mr_ifindex = ifindex_;
  mr.mr_type = PACKET_MR_PROMISC;
  if (setsockopt(fd_, SOL_PACKET, on ? PACKET_ADD_MEMBERSHIP : PACKET_DROP_MEMBERSHIP, &mr, sizeof mr) < 0) {
    char name[IF_NAMESIZE] = "?";
    if_indextoname(static_cast<unsigned>(ifindex_), name);
    sys_fail(std::string(on ? "promiscuous mode on " : "leaving promiscuous mode on ") + name);
  }
  promisc_ = on;
}

void AfPacketRx::close() {
  if (ring_) munmap(ring_, ring_size_);
  ring_ = nullptr;
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

// One frame of the ring into the batch (offloads finished, a super-frame as its
// segments); false when the frame must stay for the next poll (pool empty, or the batch
// filled before its last segment).
bool AfPacketRx::take(const uint8_t* frame, uint32_t snaplen, uint32_t len, uint64_t ts, Batch& batch, Context& ctx) {
  OffloadInfo info = read_vnet_hdr(frame - kVnetHdrLen);
  if (snaplen < len) {
    bump(unfinished_);  // cut by the ring: cannot be forwarded whole
  } else if (!info.needs_csum && info.gso_type == 0 && len <= kMaxFrame) {
    Packet* p = ctx.pool->alloc();
    if (!p) return false;  // pool empty: keep the frame for the next poll
    std::memcpy(p->data, frame, len);
    p->len = len;
    p->timestamp_ns = ts;
    p->flow_hash = flow_hash(*p);
    batch.add(p);
  } else {
    // finished here: checksum completed, super-frame cut into segments, as many per
    // poll as the batch takes (the frame stays in the ring until its last segment)
    OffloadedFrame f(frame, len, info, kMaxFrame);
    if (!f.valid()) {
      bump(unfinished_);
    } else {
      while (segment_ < f.segments() && batch.n < kBatchSize) {
        Packet* p = ctx.pool->alloc();
        if (!p) return false;
        p->len = f.write_segment(segment_++, p->data);
        p->timestamp_ns = ts;
        p->flow_hash = flow_hash(*p);
        batch.add(p);
      }
      if (segment_ < f.segments()) return false;  // batch full
      bump(finished_);
    }
    segment_ = 0;
  }
  return true;
}

void AfPacketRx::poll(Batch& batch, Context& ctx) {
  if (fd_ < 0) return;
  if (ring_kind_ == RxRing::kFrame) {
    while (batch.n < kBatchSize) {
      auto* h = reinterpret_cast<tpacket2_hdr*>(ring_ + std::size_t(block_) * frame_size_);
      if (!(__atomic_load_n(&h->tp_status, __ATOMIC_ACQUIRE) & TP_STATUS_USER)) return;
      const uint8_t* frame = reinterpret_cast<const uint8_t*>(h) + h->tp_mac;
      if (!take(frame, h->tp_snaplen, h->tp_len, uint64_t(h->tp_sec) * 1000000000ull + h->tp_nsec, batch, ctx)) return;
      __atomic_store_n(&h->tp_status, TP_STATUS_KERNEL, __ATOMIC_RELEASE);
      block_ = block_ + 1 == frame_nr_ ? 0 : block_ + 1;
    }
    return;
  }
  while (batch.n < kBatchSize) {
    auto* bd = reinterpret_cast<tpacket_block_desc*>(ring_ + std::size_t(block_) * block_size_);
    if (left_ == 0) {
      if (!(__atomic_load_n(&bd->hdr.bh1.block_status, __ATOMIC_ACQUIRE) & TP_STATUS_USER)) return;
      left_ = bd->hdr.bh1.num_pkts;
      next_ = reinterpret_cast<uint8_t*>(bd) + bd->hdr.bh1.offset_to_first_pkt;
      if (left_ == 0) {  // empty block retired by timeout
        __atomic_store_n(&bd->hdr.bh1.block_status, TP_STATUS_KERNEL, __ATOMIC_RELEASE);
        block_ = (block_ + 1) % block_nr_;
        continue;
      }
    }
    auto* h = reinterpret_cast<tpacket3_hdr*>(next_);
    if (!take(next_ + h->tp_mac, h->tp_snaplen, h->tp_len, uint64_t(h->tp_sec) * 1000000000ull + h->tp_nsec, batch,
              ctx))
      return;
    next_ += h->tp_next_offset;
    if (--left_ == 0) {
      __atomic_store_n(&bd->hdr.bh1.block_status, TP_STATUS_KERNEL, __ATOMIC_RELEASE);
      block_ = (block_ + 1) % block_nr_;
    }
  }
}

uint64_t AfPacketRx::drops() {
  if (fd_ >= 0) {
    tpacket_stats_v3 st{};
    socklen_t len = sizeof st;
    if (getsockopt(fd_, SOL_PACKET, PACKET_STATISTICS, &st, &len) == 0) drops_ += st.tp_drops;
  }
  return drops_ + unfinished_.load(std::memory_order_relaxed);
}

AfPacketTx::~AfPacketTx() { close(); }

void AfPacketTx::open(const std::string& ifname, Mode mode) {
  ifindex_ = interface_index(ifname);
  fd_ = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);  // protocol 0: send only, receive nothing
  if (fd_ < 0) sys_fail("AF_PACKET socket on " + ifname);
  if (mode == Mode::kRing) {
    // The ring is an optimisation: a kernel or a limit that refuses it leaves sendmmsg.
    int v = TPACKET_V2, one = 1;
    tpacket_req req{};
    req.tp_frame_size = 1u << 14;  // TPACKET2 header (32 bytes) + a jumbo frame
    req.tp_block_size = 1u << 16;
    req.tp_block_nr = 128;
    req.tp_frame_nr = req.tp_block_size / req.tp_frame_size * req.tp_block_nr;
    // A virtio_net_hdr in front of each frame names how many of its bytes the kernel
    // copies into the buffer's head (hdr_len); the rest it attaches from the ring's pages.
    // Without it only the Ethernet header is copied, and a small frame costs a page
    // reference and a pull of its headers at the receiver instead of one short copy.
    vnet_ = setsockopt(fd_, SOL_PACKET, PACKET_VNET_HDR, &one, sizeof one) == 0;
    if (setsockopt(fd_, SOL_PACKET, PACKET_VERSION, &v, sizeof v) == 0 &&
        setsockopt(fd_, SOL_PACKET, PACKET_LOSS, &one, sizeof one) == 0 &&  // skip a refused frame, do not stall
        setsockopt(fd_, SOL_PACKET, PACKET_TX_RING, &req, sizeof req) == 0) {
      std::size_t size = std::size_t(req.tp_block_size) * req.tp_block_nr;
      void* m = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd_, 0);
      if (m != MAP_FAILED) {
        ring_ = static_cast<uint8_t*>(m);
        ring_size_ = size;
        slot_size_ = req.tp_frame_size;
        slots_ = req.tp_frame_nr;
        head_ = 0;
      }
    }
    if (!ring_) {  // start again on a plain socket
      vnet_ = false;
      ::close(fd_);
      fd_ = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
      if (fd_ < 0) sys_fail("AF_PACKET socket on " + ifname);
    }
  }
  sockaddr_ll sll{};
  sll.sll_family = AF_PACKET;
  sll.sll_ifindex = ifindex_;
  if (bind(fd_, reinterpret_cast<sockaddr*>(&sll), sizeof sll) < 0) {
    int e = errno;
    close();
    errno = e;
    sys_fail("binding to " + ifname);
  }
  int one = 1;
  setsockopt(fd_, SOL_PACKET, PACKET_QDISC_BYPASS, &one, sizeof one);  // best effort
  max_frame_ = kMaxFrame;
  refresh_mtu(0);
}

void AfPacketTx::close() {
  if (ring_) munmap(ring_, ring_size_);
  ring_ = nullptr;
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

uint32_t AfPacketTx::send(Batch& batch, uint32_t n) {
  n = std::min(n, batch.n);
  if (fd_ < 0 || n == 0) return 0;
  return ring_ ? send_ring(batch, n) : send_mmsg(batch, n);
}

uint32_t AfPacketTx::send_ring(Batch& batch, uint32_t n) {
  constexpr uint32_t kData = TPACKET_ALIGN(sizeof(tpacket2_hdr));            // where the kernel reads the frame
  if ((calls_.load(std::memory_order_relaxed) & 1023) == 0) refresh_mtu(0);  // follow MTU changes
  uint32_t queued = 0;
  for (int round = 0; round < 4 && queued < n; ++round) {
    uint32_t before = queued;
    while (queued < n) {
      auto* h = reinterpret_cast<tpacket2_hdr*>(ring_ + std::size_t(head_) * slot_size_);
      uint32_t st = __atomic_load_n(&h->tp_status, __ATOMIC_ACQUIRE);
      if (st != TP_STATUS_AVAILABLE && st != TP_STATUS_WRONG_FORMAT) break;  // ring full
      const Packet* p = batch.pkts[queued];
      if (p->len > max_frame_ && !refresh_mtu(p->len)) {
        // longer than the device takes: to the end of the batch, not sent (the kernel
        // checks no length on a ring with virtio_net_hdrs and such a frame holds its slot)
        std::rotate(batch.pkts + queued, batch.pkts + queued + 1, batch.pkts + n);
        --n;
        continue;
      }
      uint8_t* d = reinterpret_cast<uint8_t*>(h) + kData;
      uint32_t room = slot_size_ - kData, vnet = 0;
      if (vnet_) {
        vnet = kVnetHdrLen;
        room -= vnet;
        // no offload asked for; hdr_len (little endian): bytes copied into the head
        uint16_t head = static_cast<uint16_t>(std::min(p->len, kCopiedHead));
        std::memset(d, 0, kVnetHdrLen);
        d[2] = static_cast<uint8_t>(head);
        d[3] = static_cast<uint8_t>(head >> 8);
      }
      uint32_t len = std::min(p->len, room);
      std::memcpy(d + vnet, p->data, len);
      h->tp_len = len + vnet;
      __atomic_store_n(&h->tp_status, TP_STATUS_SEND_REQUEST, __ATOMIC_RELEASE);
      head_ = head_ + 1 == slots_ ? 0 : head_ + 1;
      ++queued;
    }
    if (queued == before && round > 0) break;  // the kernel freed nothing since the last call
    // one call hands every queued slot to the driver (it does not wait: MSG_DONTWAIT)
    long r = sendto(fd_, nullptr, 0, MSG_DONTWAIT, nullptr, 0);
    bump(calls_);
    if (r < 0 && errno != EAGAIN && errno != ENOBUFS && errno != EINTR) {
      // the device refused the call (down, gone): take back the slots the kernel did not
      // start on, so they count as dropped rather than go out later, stale
      while (queued > 0) {
        uint32_t last = head_ == 0 ? slots_ - 1 : head_ - 1;
        auto* h = reinterpret_cast<tpacket2_hdr*>(ring_ + std::size_t(last) * slot_size_);
        uint32_t expected = TP_STATUS_SEND_REQUEST;
        if (!__atomic_compare_exchange_n(&h->tp_status, &expected, uint32_t(TP_STATUS_AVAILABLE), false,
                                         __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
          break;
        head_ = last;
        --queued;
      }
      break;
    }
  }
  return queued;
}

bool AfPacketTx::refresh_mtu(uint32_t len) {
  ifreq ifr{};
  if (if_indextoname(static_cast<unsigned>(ifindex_), ifr.ifr_name) && ioctl(fd_, SIOCGIFMTU, &ifr) == 0)
    max_frame_ = uint32_t(ifr.ifr_mtu) + 18;  // + Ethernet header and one VLAN tag, as veth allows
  return len <= max_frame_;
}

uint32_t AfPacketTx::send_mmsg(const Batch& batch, uint32_t n) {
  mmsghdr msgs[kBatchSize];
  iovec iov[kBatchSize];
  for (uint32_t i = 0; i < n; ++i) {
    iov[i].iov_base = batch.pkts[i]->data;
    iov[i].iov_len = batch.pkts[i]->len;
    msgs[i] = mmsghdr{};
    msgs[i].msg_hdr.msg_iov = &iov[i];
    msgs[i].msg_hdr.msg_iovlen = 1;
  }
  uint32_t sent = 0;
  int tries = 0;
  while (sent < n && tries++ < 4) {
    int r = sendmmsg(fd_, msgs + sent, n - sent, MSG_DONTWAIT);
    bump(calls_);
    if (r > 0) sent += static_cast<uint32_t>(r);
    else if (r < 0 && errno != EAGAIN && errno != ENOBUFS && errno != EINTR) break;
  }
  return sent;
}

}  // namespace obi::io
