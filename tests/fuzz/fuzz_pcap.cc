// libFuzzer target: the pcap reader and the FromDump block on arbitrary file contents.
// The input becomes a pcap file (an in-memory file, opened by path as FromDump opens a
// trace); FromDump is built on it and polled until it is exhausted, every packet it
// produces has its headers parsed and is freed. A bad file must be refused with a
// ProtocolError (BAD_BLOCK); anything else that goes wrong is a finding.
//
//   build and run: tests/fuzz/run.sh   (seeds: the small pcaps of ../shared/data/pcap)
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "engine/element.hh"
#include "engine/pool.hh"

namespace {

struct File {
  int fd = memfd_create("fuzz.pcap", 0);
  std::string path = "/proc/self/fd/" + std::to_string(fd);
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static File file;
  static obi::PacketPool pool(256);
  if (file.fd < 0) std::abort();
  if (ftruncate(file.fd, 0) != 0 || pwrite(file.fd, data, size, 0) != static_cast<ssize_t>(size)) std::abort();
  const nlohmann::json config = {{"filename", file.path}};
  const obi::ElementArgs args{"in", "FromDump", config, 1};
  std::unique_ptr<obi::Element> e;
  try {
    e = obi::find_element("FromDump")(args);
  } catch (const openbox::ProtocolError&) {
    return 0;
  }
  obi::Context ctx;
  ctx.pool = &pool;
  for (int round = 0; round < 4096; ++round) {  // 4096 batches: far more than any input holds
    obi::Batch b;
    const bool more = e->poll(b, ctx);
    for (uint32_t i = 0; i < b.n; ++i) {
      obi::Packet* p = b.pkts[i];
      const obi::Headers& h = p->headers();
      if ((h.l3 != obi::kNoOffset && h.l3 > p->len) || (h.payload != obi::kNoOffset && h.payload > p->len))
        std::abort();
      (void)p->payload_len();
    }
    ctx.drop(b);
    if (!more) break;
  }
  if (pool.available() != pool.capacity()) std::abort();  // every packet came back
  return 0;
}
