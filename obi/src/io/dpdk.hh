// DPDK support: EAL initialisation (once per process) and ethdev ports shared by the
// FromDevice/ToDevice blocks that name them as "dpdk:N".
//
// A port is configured on first use with one RX and one TX queue per worker (RSS spreads
// flows over the RX queues); worker w polls RX queue w and sends on TX queue w, so the
// data path takes no locks. Ports stay started for the life of the process.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

struct rte_mempool;

namespace obi::io {

// Initialises the EAL with `args` (argv[0] is added); throws std::runtime_error on
// failure. Later calls are no-ops (the EAL cannot be initialised twice).
void dpdk_init(const std::vector<std::string>& args);
bool dpdk_ready();

// For libraries that only need DPDK memory (rte_acl), when no --dpdk option initialised
// the EAL: initialises it once with light defaults (no hugepages, no PCI, no shared
// config files so that several processes coexist, one lcore, quiet log), restoring the calling thread's
// CPU affinity afterwards. Returns false with `why` when the EAL is unavailable (the
// first failure is final). Slow (tens of ms): call it off the packet path.
bool dpdk_ensure_light(std::string& why);

// Port `port` configured for `queues` RX/TX queue pairs and started. Throws
// openbox::ProtocolError(BAD_BLOCK) naming `block` when DPDK is not initialised or the
// port does not exist / cannot be configured.
struct DpdkPort {
  uint16_t port = 0;
  uint16_t queues = 1;
  rte_mempool* pool = nullptr;
};
DpdkPort& dpdk_port(uint16_t port, unsigned queues, const std::string& block);

// Parses "dpdk:N"; returns false for other device names.
bool parse_dpdk_devname(const std::string& devname, uint16_t& port);

}  // namespace obi::io
