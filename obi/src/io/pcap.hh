// pcap files: a memory-mapped reader (classic pcap, micro- or nanosecond timestamps,
// either byte order) and a buffered writer (microsecond, little-endian, LINKTYPE_ETHERNET).
// pcapng is not supported; the reader says so.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

namespace obi::io {

struct PcapRecord {
  const uint8_t* data = nullptr;
  uint32_t caplen = 0;
  uint32_t origlen = 0;
  uint64_t ts_ns = 0;
};

class PcapReader {
 public:
  // Maps the file and checks its header; throws std::runtime_error with the reason.
  explicit PcapReader(const std::string& path);
  ~PcapReader();
  PcapReader(const PcapReader&) = delete;
  PcapReader& operator=(const PcapReader&) = delete;

  // Offset of the first record; records are read by offset so that several workers can
  // walk the same mapping independently.
  uint64_t begin() const { return 24; }
  uint64_t end() const { return size_; }
  // Reads the record at `off` and advances it; false at the end or on a truncated record.
  bool next(uint64_t& off, PcapRecord& r) const {
    if (off + 16 > size_) return false;
    const uint8_t* h = base_ + off;
    uint32_t sec = rd32(h), frac = rd32(h + 4), cap = rd32(h + 8), orig = rd32(h + 12);
    if (cap > size_ - off - 16) return false;
    r.data = h + 16;
    r.caplen = cap;
    r.origlen = orig;
    r.ts_ns = uint64_t(sec) * 1000000000ull + (nanos_ ? frac : uint64_t(frac) * 1000ull);
    off += 16 + uint64_t(cap);
    return true;
  }
  uint32_t linktype() const { return linktype_; }
  uint32_t snaplen() const { return snaplen_; }
  const std::string& path() const { return path_; }

 private:
  uint32_t rd32(const uint8_t* p) const {
    uint32_t v;
    __builtin_memcpy(&v, p, 4);
    return swapped_ ? __builtin_bswap32(v) : v;
  }
  std::string path_;
  const uint8_t* base_ = nullptr;
  uint64_t size_ = 0;
  bool swapped_ = false, nanos_ = false;
  uint32_t linktype_ = 1, snaplen_ = 0;
};

class PcapWriter {
 public:
  // Creates/truncates the file and writes the header; throws std::runtime_error.
  explicit PcapWriter(const std::string& path, uint32_t snaplen = 65535);
  ~PcapWriter();
  PcapWriter(const PcapWriter&) = delete;
  PcapWriter& operator=(const PcapWriter&) = delete;
  void write(const uint8_t* data, uint32_t len, uint64_t ts_ns);
  void flush();

 private:
  FILE* f_ = nullptr;
  std::string path_;
};

}  // namespace obi::io
