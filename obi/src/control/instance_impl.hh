// Private state of obi::Instance, shared by instance.cc (lifecycle, REST server),
// executor.cc (message execution) and client.cc (Hello, KeepAlive, events).
#pragma once

#include <httplib.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <optional>
#include <thread>

#include "control/custom_modules.hh"
#include "control/instance.hh"
#include "control/parameters.hh"
#include "control/sender.hh"
#include "engine/graph.hh"
#include "engine/runtime.hh"
#include "openbox/messages.hh"

namespace obi {

using Clock = std::chrono::steady_clock;

struct Instance::Impl {
  explicit Impl(InstanceOptions o);

  InstanceOptions opt;
  std::string controller_base;  // scheme://host:port of the controller
  std::string listen_host;
  int listen_port = 0;
  Runtime rt;
  control::Parameters params;
  control::CustomModules modules;
  control::Sender sender;
  std::unique_ptr<httplib::Server> server;  // an httplib::SSLServer with opt.tls
  const Clock::time_point started = Clock::now();
  std::atomic<Clock::rep> last_refusal_log{0};

  std::atomic<bool> running{false};
  std::atomic<bool> connected{false};
  std::atomic<uint64_t> next_xid{1};
  // Alerts / logs dropped while held for a controller that was away (over the hold limit)
  std::atomic<uint64_t> events_dropped_offline{0};
  uint64_t new_xid() { return next_xid.fetch_add(1); }

  // stop signalling for the sleeping loops
  std::mutex stop_mu;
  std::condition_variable stop_cv;
  bool stop_requested = false;
  // Sleep up to `d`; false once stop was requested.
  bool sleep_for(Clock::duration d);

  // control worker queue. A SetProcessingGraphRequest also carries its graph as the
  // engine takes it (obi::graph_of), moved out of the decoded message, so the worker
  // neither re-encodes the message nor copies the (large) block configurations again.
  struct Work {
    openbox::Message msg;
    GraphSpec graph;
    Clock::time_point received;  // the handler got the request (its body read)
    double parse_ms = 0;         // JSON parse + decode of the body
    double parse_cpu_ms = 0;     // the same, CPU time of the handler's thread
  };
  std::mutex q_mu;
  std::condition_variable q_cv;
  std::deque<Work> queue;
  bool q_stop = false;

  // Graph installation. A SetProcessingGraphRequest compiles on graph_thread, so the control
  // worker keeps answering what does not depend on the new graph (ReadRequest, stats,
  // parameters, capabilities) while Hyperscan databases build; a message that does
  // (BarrierRequest, WriteRequest, the next graph, modules) waits for the graph first. A
  // compile that outlasts opt.graph_budget_ms is answered with an Error at the budget and
  // its result is discarded (the running graph stays); it stops at the next block.
  struct GraphJob {
    uint64_t xid = 0;
    bool report_back = false;
    GraphSpec graph;
    Clock::time_point received;
    double parse_ms = 0, parse_cpu_ms = 0;
    Clock::time_point deadline;
    bool started = false;
    bool answered = false;    // an Error went out at the budget: never publish
    bool committing = false;  // passed its last check: being published
  };
  std::mutex g_mu;
  std::condition_variable g_cv;
  std::optional<GraphJob> g_job;  // set until graph_thread is done with it
  bool g_stop = false;
  Clock::time_point graph_deadline();  // of the running job, if it can still expire
  void expire_graph_locked();          // g_mu held
  void wait_graph_done();
  void graph_loop();

  // capabilities, recomputed by the control worker when the block set changes
  std::mutex caps_mu;
  nlohmann::json caps;
  void refresh_capabilities();
  nlohmann::json capabilities();

  // load figures sampled by the events thread
  std::mutex stats_mu;
  RuntimeStats last_stats, baseline;
  std::deque<double> load_samples;
  static constexpr double kAvgMinutes = 1;
  nlohmann::json global_stats();
  void reset_stats();

  std::thread server_thread, worker_thread, client_thread, events_thread, graph_thread;

  // instance.cc
  void handle_post(const httplib::Request& req, httplib::Response& res);
  void reject(const openbox::ProtocolError& e, uint64_t xid, httplib::Response& res);
  // With TLS: false (and `res` a 403 with the protocol's Error) when the client is not the
  // controller.
  bool authorised(const httplib::Request& req, httplib::Response& res);
  // executor.cc
  void worker_loop();
  void execute(Work& w);
  // client.cc
  nlohmann::json hello();
  void client_loop();
  void events_loop();
};

}  // namespace obi
