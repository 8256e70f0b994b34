// Linux AF_PACKET sockets for FromDevice / ToDevice.
//
// AfPacketRx: one socket per worker with a memory-mapped receive ring, of one of two kinds:
//   RxRing::kBlock (default): TPACKET_V3, 256 blocks of 128 KiB (32 MiB) packed with
//     frames; the kernel hands a block over when it is full or 1 ms (its shortest timer)
//     after its first frame, so a frame at a low rate waits up to 1 ms; deep (hundreds of
//     thousands of small frames) and the cheapest per frame at high rates.
//   RxRing::kFrame: TPACKET_V2, 2048 slots of 16 KiB (32 MiB), one frame each, handed over
//     as soon as the kernel has written it: no timer wait, but only 2048 frames of depth
//     (2 ms at 1 Mpps) and a frame over 16 KiB (a veth/virtio super-frame with GSO on)
//     is cut and counted in drops.
// The sockets of one FromDevice join a
// PACKET_FANOUT group in hash mode, so the kernel gives each worker whole flows.
// Outgoing frames of the host are ignored (PACKET_IGNORE_OUTGOING), so a ToDevice on the
// same interface does not loop back into the graph.
// A FromDevice rebuilt at a swap on the same interface shares its predecessor's
// AfPacketRx objects (shared_ptr), so frames already in a ring are read by the new graph.
// Frames the sender left for the device to finish (partial checksums, GSO super-frames
// from veth/virtio with offloads on) are finished on receipt (io/offload.hh), so blocks
// see and ToDevice sends complete frames of at most kMaxFrame bytes.
// AfPacketTx: one socket per worker with a memory-mapped TPACKET_V2 transmit ring (512
// slots of 16 KiB, so a jumbo frame fits): a batch is copied into free slots and handed to
// the kernel with one sendto, which copies the first 128 bytes of each frame (a
// virtio_net_hdr's hdr_len says how many) and attaches the rest from the ring's pages
// rather than copying it again (PACKET_QDISC_BYPASS: straight to the driver). The kernel
// checks no frame length on such a ring, so frames longer than the device's MTU (+ 18)
// are refused here (the MTU is read again every 1024 calls and before refusing). A socket whose ring
// cannot be set up (or opened with Mode::kSendmmsg) sends a batch per sendmmsg call.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

#include "engine/element.hh"

namespace obi::io {

// Interface index; throws std::runtime_error naming the interface when it does not exist.
int interface_index(const std::string& ifname);

enum class RxRing { kBlock, kFrame };

class AfPacketRx {
 public:
  AfPacketRx() = default;
  ~AfPacketRx();
  AfPacketRx(const AfPacketRx&) = delete;
  AfPacketRx& operator=(const AfPacketRx&) = delete;

  // Throws std::runtime_error with the reason (interface missing, no permission, ...).
  void open(const std::string& ifname, bool promisc, int fanout_group, RxRing kind = RxRing::kBlock);
  void close();
  bool is_open() const { return fd_ >= 0; }
  // Turns promiscuous mode of this socket on or off (control thread; the ring and the
  // frames in it stay). Throws std::runtime_error with the reason.
  void set_promisc(bool on);
  bool promisc() const { return promisc_; }

  // Copies up to kBatchSize - batch.n frames into packets from ctx.pool.
  void poll(Batch& batch, Context& ctx);
  // Frames lost since open: dropped by the kernel (ring full) or not finishable (cut by the
  // ring, unsupported offload); reads and accumulates the socket's statistics, so call it
  // from one thread only.
  uint64_t drops();
  // Frames whose checksum or segmentation was finished here (worker thread's count).
  uint64_t offloads_finished() const { return finished_.load(std::memory_order_relaxed); }
  RxRing kind() const { return ring_kind_; }

 private:
  bool take(const uint8_t* frame, uint32_t snaplen, uint32_t len, uint64_t ts, Batch& batch, Context& ctx);

  int fd_ = -1;
  int ifindex_ = 0;
  bool promisc_ = false;
  uint8_t* ring_ = nullptr;
  std::size_t ring_size_ = 0;
  uint32_t block_size_ = 0, block_nr_ = 0;
  RxRing ring_kind_ = RxRing::kBlock;
  uint32_t frame_size_ = 0, frame_nr_ = 0;  // kFrame: slot size and count
  uint32_t block_ = 0;                      // current block (kFrame: current slot)
  uint32_t left_ = 0;                       // packets left in the current block (0: not started)
  uint8_t* next_ = nullptr;                 // next packet header in the current block
  uint64_t drops_ = 0;
  uint32_t segment_ = 0;  // next segment of the current frame (a super-frame spans polls)
  // written by the worker only, read by the control thread
  std::atomic<uint64_t> unfinished_{0};  // frames dropped because they could not be finished
  std::atomic<uint64_t> finished_{0};
};

class AfPacketTx {
 public:
  AfPacketTx() = default;
  ~AfPacketTx();
  AfPacketTx(const AfPacketTx&) = delete;
  AfPacketTx& operator=(const AfPacketTx&) = delete;

  enum class Mode { kRing, kSendmmsg };
  // Throws std::runtime_error with the reason (interface missing, no permission, ...).
  void open(const std::string& ifname, Mode mode = Mode::kRing);
  void close();
  bool is_open() const { return fd_ >= 0; }
  bool ring() const { return ring_ != nullptr; }
  // Sends the first n packets of the batch (all when n is above batch.n; does not free
  // them); returns how many the kernel took: those are then batch.pkts[0, taken), in their
  // order; frames longer than the device's MTU allows are moved behind them, not sent.
  uint32_t send(Batch& batch, uint32_t n = kBatchSize);
  // sendto / sendmmsg calls made (worker thread's count; read for syscalls per packet)
  uint64_t calls() const { return calls_.load(std::memory_order_relaxed); }

 private:
  uint32_t send_ring(Batch& batch, uint32_t n);
  // Reads the device's MTU again; whether a frame of len bytes fits it (control of length
  // on the ring: the kernel does none there).
  bool refresh_mtu(uint32_t len);
  uint32_t send_mmsg(const Batch& batch, uint32_t n);

  int fd_ = -1;
  int ifindex_ = 0;
  uint8_t* ring_ = nullptr;
  std::size_t ring_size_ = 0;
  uint32_t slot_size_ = 0, slots_ = 0;
  uint32_t head_ = 0;               // next slot to fill
  bool vnet_ = false;               // slots start with a virtio_net_hdr (PACKET_VNET_HDR)
  uint32_t max_frame_ = kMaxFrame;  // longest frame the device takes (its MTU + 18)
  // frame bytes the kernel copies into an outgoing buffer's head (headers of the usual
  // stacks; all of a small frame), the rest it attaches from the ring's pages
  static constexpr uint32_t kCopiedHead = 128;
  std::atomic<uint64_t> calls_{0};
};

}  // namespace obi::io
