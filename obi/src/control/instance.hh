// The OBI as a network service: the REST server for POST /message/<Type>, one control
// worker that executes the controller's messages in arrival order (so BarrierRequest holds
// by construction; a graph compiles on a thread of its own, see executor.cc), and the
// client side (Hello with back-off, KeepAlive, buffered Alert and Log messages) that talks
// to the controller.
//
//   obi::InstanceOptions o;  o.dpid = 7;  o.listen = "127.0.0.1:3636";
//   return obi::run_instance(o);      // until SIGINT / SIGTERM
//
// With `tls` set the REST server and every message to the controller use mutual TLS
// (control/tls.hh) and `controller` is an https:// URL; without it both are plain HTTP.
// Tests embed it with obi::Instance (start / stop, port() for listen port 0).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "engine/limits.hh"

namespace obi {

class Runtime;
namespace control {
class Tls;
}

struct InstanceOptions {
  uint64_t dpid = 1;
  std::string listen = "127.0.0.1:3636";             // HOST:PORT (port 0: any free port)
  std::string controller = "http://127.0.0.1:3637";  // base URL of the controller
  std::shared_ptr<const control::Tls> tls;           // null: plain HTTP both ways
  unsigned workers = 0;                              // 0: one per core
  std::vector<std::string> eal_args;                 // DPDK EAL arguments (--dpdk)
  bool busy_poll = false;                            // idle workers never sleep (--busy-poll)
  std::map<std::string, std::string> devices;        // graph device names -> this OBI's devices
                                                     // (--device-map; see obi::DeviceMap)
  // Hard limits of the REST server (untrusted input). A body nesting arrays/objects deeper
  // than openbox::kMaxJsonDepth is refused before it is parsed.
  std::size_t max_body_bytes = std::size_t{64} << 20;  // larger: ILLEGAL_ARGUMENT from the
                                                       // Content-Length, the body is not read
  unsigned http_threads = 32;                          // connections served at once (fixed pool)
  unsigned http_timeout_ms = 5000;                     // per read/write of a request and its answer
  // Wait for the next request on a kept-alive connection (and for the first one on a new
  // connection). Longer than the controller's collection interval (10 s), so its pooled
  // connection (kept 12 s idle) carries every round instead of a new connect per round; an
  // idle connection holds one of the http_threads while it waits.
  unsigned http_keepalive_ms = 15000;
  // A graph whose compile takes longer is refused with an Error (BAD_GRAPH) at this budget,
  // and the running graph stays; below the controller's graph timeout (60 s by default).
  unsigned graph_budget_ms = 50000;
  GraphLimits limits;  // hard caps of a graph (engine/limits.hh)
  // Messages waiting for the controller (control::SenderLimits): over either limit the
  // oldest alerts and logs are dropped (GlobalStats "events_unsent").
  std::size_t send_queue_bytes = std::size_t{64} << 20;
  std::size_t send_queue_messages = 4096;
  // Custom modules (control/custom_modules.hh): trusted signing keys, PEM file or directory
  // (--module-trust; empty: none, custom modules are refused), and the development switch
  // that loads modules without a checked signature (--allow-unsigned-modules).
  std::string module_trust;
  bool allow_unsigned_modules = false;
  // Tuning, mostly for tests.
  unsigned hello_retry_max_ms = 2000;  // back-off cap between Hello attempts
  bool quiet = false;                  // no progress lines on stderr
};

// Runs an OBI until SIGINT or SIGTERM. Returns the process exit code (1 when the
// listen address cannot be bound).
int run_instance(const InstanceOptions& options);

class Instance {
 public:
  explicit Instance(InstanceOptions options);
  ~Instance();
  Instance(const Instance&) = delete;
  Instance& operator=(const Instance&) = delete;

  void start();  // binds the listen address (throws std::runtime_error) and starts
  void stop();
  uint16_t port() const;   // the bound REST port
  bool connected() const;  // the controller has accepted our Hello and answers KeepAlive
  Runtime& runtime();

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace obi
