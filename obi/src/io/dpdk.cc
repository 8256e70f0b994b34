#include "io/dpdk.hh"

#include <pthread.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_log.h>
#include <rte_mbuf.h>
#include <sched.h>

#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>

#include "openbox/error.hh"

namespace obi::io {
namespace {

std::mutex g_mu;
bool g_ready = false;
std::map<uint16_t, DpdkPort> g_ports;
bool g_light_failed = false;
std::string g_light_why;

}  // namespace

void dpdk_init(const std::vector<std::string>& args) {
  std::lock_guard<std::mutex> lock(g_mu);
  if (g_ready) return;
  std::vector<std::string> owned{"obi"};
  owned.insert(owned.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& s : owned) argv.push_back(s.data());
  argv.push_back(nullptr);
  if (rte_eal_init(static_cast<int>(owned.size()), argv.data()) < 0)
    throw std::runtime_error(std::string("DPDK EAL initialisation failed: ") + rte_strerror(rte_errno));
  g_ready = true;
}

bool dpdk_ensure_light(std::string& why) {
  std::lock_guard<std::mutex> lock(g_mu);
  if (g_ready) return true;
  if (g_light_failed) {
    why = g_light_why;
    return false;
  }
  cpu_set_t saved;
  CPU_ZERO(&saved);
  bool have_affinity = pthread_getaffinity_np(pthread_self(), sizeof saved, &saved) == 0;
  int lcore = 0;
  if (have_affinity)
    for (int c = 0; c < CPU_SETSIZE; ++c)
      if (CPU_ISSET(c, &saved)) {
        lcore = c;
        break;
      }
  // -m: memory for rte_malloc (tries of large rule sets); without hugepages it is
  // anonymous memory, committed only when touched.
  std::vector<std::string> owned{"obi", "--no-huge", "-m", "1024", "--no-pci", "--no-shconf", "--no-telemetry", "-l",
                                 std::to_string(lcore), "--log-level=4",
                                 // let rte_acl use AVX-512 where the CPU has it (EAL caps SIMD at 256 bits)
                                 "--force-max-simd-bitwidth=512"};
  std::vector<char*> argv;
  for (auto& s : owned) argv.push_back(s.data());
  argv.push_back(nullptr);
  int rc = rte_eal_init(static_cast<int>(owned.size()), argv.data());
  if (have_affinity) pthread_setaffinity_np(pthread_self(), sizeof saved, &saved);  // EAL pinned this thread
  if (rc < 0) {
    g_light_failed = true;
    g_light_why = std::string("DPDK EAL initialisation failed: ") + rte_strerror(rte_errno);
    why = g_light_why;
    return false;
  }
  g_ready = true;
  return true;
}

bool dpdk_ready() {
  std::lock_guard<std::mutex> lock(g_mu);
  return g_ready;
}

bool parse_dpdk_devname(const std::string& devname, uint16_t& port) {
  if (devname.rfind("dpdk:", 0) != 0 || devname.size() == 5) return false;
  unsigned long v = 0;
  for (std::size_t i = 5; i < devname.size(); ++i) {
    if (devname[i] < '0' || devname[i] > '9') return false;
    v = v * 10 + (devname[i] - '0');
    if (v > 65535) return false;
  }
  port = static_cast<uint16_t>(v);
  return true;
}

DpdkPort& dpdk_port(uint16_t port, unsigned queues, const std::string& block) {
  using openbox::ErrorSubtype;
  using openbox::ProtocolError;
  std::lock_guard<std::mutex> lock(g_mu);
  auto it = g_ports.find(port);
  if (it != g_ports.end()) return it->second;
  auto fail = [&](const std::string& why) {
    throw ProtocolError(ErrorSubtype::BAD_BLOCK,
                        "block '" + block + "': DPDK port " + std::to_string(port) + ": " + why);
  };
  if (!g_ready) fail("DPDK is not initialised (start the OBI with --dpdk 'EAL ARGS')");
  if (!rte_eth_dev_is_valid_port(port))
    fail("no such ethdev port (" + std::to_string(rte_eth_dev_count_avail()) + " available)");
  rte_eth_dev_info info{};
  if (rte_eth_dev_info_get(port, &info) != 0) fail("cannot read device info");
  uint16_t q =
      static_cast<uint16_t>(std::max(1u, std::min<unsigned>(queues, std::min(info.max_rx_queues, info.max_tx_queues))));
  std::string pool_name = "obi_pool_" + std::to_string(port);
  rte_mempool* mp = rte_pktmbuf_pool_create(pool_name.c_str(), 8191, 256, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
                                            rte_eth_dev_socket_id(port) < 0 ? 0 : rte_eth_dev_socket_id(port));
  if (!mp) fail(std::string("cannot create mbuf pool: ") + rte_strerror(rte_errno));
  rte_eth_conf conf{};
  if (q > 1 && info.flow_type_rss_offloads) {
    conf.rxmode.mq_mode = RTE_ETH_MQ_RX_RSS;
    conf.rx_adv_conf.rss_conf.rss_hf =
        (RTE_ETH_RSS_IP | RTE_ETH_RSS_TCP | RTE_ETH_RSS_UDP) & info.flow_type_rss_offloads;
  }
  int rc = rte_eth_dev_configure(port, q, q, &conf);
  if (rc < 0) fail("configure failed: " + std::string(rte_strerror(-rc)));
  int socket = rte_eth_dev_socket_id(port);
  for (uint16_t i = 0; i < q; ++i) {
    if ((rc = rte_eth_rx_queue_setup(port, i, 1024, socket < 0 ? 0 : socket, nullptr, mp)) < 0)
      fail("RX queue setup failed: " + std::string(rte_strerror(-rc)));
    if ((rc = rte_eth_tx_queue_setup(port, i, 1024, socket < 0 ? 0 : socket, nullptr)) < 0)
      fail("TX queue setup failed: " + std::string(rte_strerror(-rc)));
  }
  if ((rc = rte_eth_dev_start(port)) < 0) fail("start failed: " + std::string(rte_strerror(-rc)));
  rte_eth_promiscuous_enable(port);
  DpdkPort& p = g_ports[port];
  p.port = port;
  p.queues = q;
  p.pool = mp;
  return p;
}

}  // namespace obi::io
