#include "io/pcap.hh"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace obi::io {

PcapReader::PcapReader(const std::string& path) : path_(path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw std::runtime_error("cannot open " + path + ": " + std::strerror(errno));
  struct stat st {};
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    throw std::runtime_error(path + " is not a regular file");
  }
  size_ = static_cast<uint64_t>(st.st_size);
  if (size_ < 24) {
    ::close(fd);
    throw std::runtime_error(path + " is too short for a pcap file (" + std::to_string(size_) + " bytes)");
  }
  void* m = mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
  ::close(fd);
  if (m == MAP_FAILED) throw std::runtime_error("cannot map " + path + ": " + std::strerror(errno));
  base_ = static_cast<const uint8_t*>(m);
  madvise(m, size_, MADV_SEQUENTIAL);
  uint32_t magic;
  std::memcpy(&magic, base_, 4);
  switch (magic) {
    case 0xa1b2c3d4: break;
    case 0xd4c3b2a1: swapped_ = true; break;
    case 0xa1b23c4d: nanos_ = true; break;
    case 0x4d3cb2a1: nanos_ = swapped_ = true; break;
    case 0x0a0d0d0a:
      munmap(m, size_);
      throw std::runtime_error(path +
                               " is a pcapng file; only classic pcap is supported (convert with editcap -F pcap)");
    default: munmap(m, size_); throw std::runtime_error(path + " is not a pcap file (bad magic number)");
  }
  snaplen_ = rd32(base_ + 16);
  linktype_ = rd32(base_ + 20) & 0x0fffffff;
  if (linktype_ != 1) {
    munmap(m, size_);
    throw std::runtime_error(path + ": link type " + std::to_string(linktype_) + " is not Ethernet");
  }
}

PcapReader::~PcapReader() {
  if (base_) munmap(const_cast<uint8_t*>(base_), size_);
}

PcapWriter::PcapWriter(const std::string& path, uint32_t snaplen) : path_(path) {
  f_ = std::fopen(path.c_str(), "wb");
  if (!f_) throw std::runtime_error("cannot create " + path + ": " + std::strerror(errno));
  std::setvbuf(f_, nullptr, _IOFBF, 1 << 20);
  uint32_t hdr[6] = {0xa1b2c3d4, 0x00040002, 0, 0, snaplen, 1};  // version 2.4, LINKTYPE_ETHERNET
  std::fwrite(hdr, sizeof hdr, 1, f_);
}

PcapWriter::~PcapWriter() {
  if (f_) std::fclose(f_);
}

void PcapWriter::write(const uint8_t* data, uint32_t len, uint64_t ts_ns) {
  uint32_t rec[4] = {static_cast<uint32_t>(ts_ns / 1000000000ull),
                     static_cast<uint32_t>(ts_ns % 1000000000ull / 1000ull), len, len};
  std::fwrite(rec, sizeof rec, 1, f_);
  std::fwrite(data, 1, len, f_);
}

void PcapWriter::flush() { std::fflush(f_); }

}  // namespace obi::io
