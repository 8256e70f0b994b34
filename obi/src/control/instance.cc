// Instance lifecycle and the REST server: POST /message/<Type> is decoded at once; a valid
// down message is answered 200 and queued for the control worker, anything else gets
// HTTP 400 with the Error as body, and the same Error is sent to the controller. With TLS
// the server is an httplib::SSLServer that requires a client certificate chaining to the
// CA at handshake; a request whose certificate is not the controller's is answered 403
// with a FORBIDDEN/NOT_PERMITTED Error before its body is read (and never reaches the
// controller or the graph).
#include "control/instance_impl.hh"
#include "control/tls.hh"
#include "engine/worker.hh"

#include <signal.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <stdexcept>

namespace obi {
namespace {

using json = nlohmann::json;
using openbox::ErrorSubtype;
using openbox::MessageType;
using openbox::ProtocolError;

bool is_down_message(MessageType t) {
  switch (t) {
    case MessageType::ListCapabilitiesRequest:
    case MessageType::SetParametersRequest:
    case MessageType::GetParametersRequest:
    case MessageType::GlobalStatsRequest:
    case MessageType::GlobalStatsReset:
    case MessageType::ReadRequest:
    case MessageType::WriteRequest:
    case MessageType::SetProcessingGraphRequest:
    case MessageType::BarrierRequest:
    case MessageType::AddCustomModuleRequest:
    case MessageType::RemoveCustomModuleRequest:
    case MessageType::Error: return true;
    default: return false;
  }
}

// "http://host:port/anything" -> "http://host:port"; without a scheme, https:// with TLS
// and http:// without. A scheme that does not match the TLS setting is refused.
std::string base_of(const std::string& url, bool tls) {
  size_t scheme = url.find("://");
  size_t start = scheme == std::string::npos ? 0 : scheme + 3;
  size_t slash = url.find('/', start);
  std::string base = slash == std::string::npos ? url : url.substr(0, slash);
  if (scheme == std::string::npos) return (tls ? "https://" : "http://") + base;
  const std::string s = url.substr(0, scheme);
  if (s == "https" && !tls)
    throw std::runtime_error("controller URL " + url + " needs TLS certificates (--pki DIR or --cert/--key/--ca)");
  if (s == "http" && tls)
    throw std::runtime_error("controller URL " + url + " is plain HTTP while TLS is on: use https:// (or --insecure)");
  if (s != "http" && s != "https") throw std::runtime_error("controller URL " + url + ": scheme must be http or https");
  return base;
}

std::unique_ptr<httplib::Server> make_server(const std::shared_ptr<const control::Tls>& tls) {
  if (!tls) return std::make_unique<httplib::Server>();
  auto server = std::make_unique<httplib::SSLServer>([&tls](SSL_CTX& ctx) { return tls->setup_server(ctx); });
  if (!server->is_valid()) throw std::runtime_error("cannot set up the TLS server with " + tls->files().cert);
  return server;
}

void split_listen(const std::string& listen, std::string& host, int& port) {
  size_t colon = listen.rfind(':');
  if (colon == std::string::npos) throw std::runtime_error("--listen must be HOST:PORT, got \"" + listen + "\"");
  host = listen.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  try {
    size_t used = 0;
    port = std::stoi(listen.substr(colon + 1), &used);
    if (used != listen.size() - colon - 1 || port < 0 || port > 65535) throw std::out_of_range("port");
  } catch (const std::exception&) {
    throw std::runtime_error("--listen has a bad port: \"" + listen + "\"");
  }
  if (host.empty()) host = "0.0.0.0";
}

RuntimeOptions runtime_options(const InstanceOptions& o) {
  RuntimeOptions r;
  r.workers = o.workers;
  r.devices = o.devices;
  r.eal_args = o.eal_args;
  r.busy_poll = o.busy_poll;
  r.limits = o.limits;
  return r;
}

}  // namespace

Instance::Impl::Impl(InstanceOptions o)
    : opt(std::move(o)),
      controller_base(base_of(opt.controller, opt.tls != nullptr)),
      rt(runtime_options(opt)),
      modules(control::ModulePolicy::load(opt.module_trust, opt.allow_unsigned_modules)),
      sender(controller_base, opt.tls, opt.quiet, {opt.send_queue_messages, opt.send_queue_bytes}),
      server(make_server(opt.tls)) {
  split_listen(opt.listen, listen_host, listen_port);
}

bool Instance::Impl::authorised(const httplib::Request& req, httplib::Response& res) {
  if (!opt.tls) return true;
  const std::string why = control::controller_identity_error(req.ssl);
  if (why.empty()) return true;
  const ProtocolError e(ErrorSubtype::NOT_PERMITTED, "only the controller may send messages to this OBI: " + why);
  res.status = 403;
  res.set_content(openbox::encode(openbox::make_error(0, e)).dump(), "application/json");
  res.set_header("Connection", "close");
  // One line per second at most: a peer cannot flood the log.
  const auto now = Clock::now().time_since_epoch().count();
  auto last = last_refusal_log.load();
  if (!opt.quiet && now - last >= std::chrono::duration_cast<Clock::duration>(std::chrono::seconds(1)).count() &&
      last_refusal_log.compare_exchange_strong(last, now))
    std::fprintf(stderr, "obi: refused %s %s from %s: %s\n", req.method.c_str(), req.path.c_str(),
                 req.remote_addr.c_str(), why.c_str());
  return false;
}

bool Instance::Impl::sleep_for(Clock::duration d) {
  std::unique_lock<std::mutex> lock(stop_mu);
  return !stop_cv.wait_for(lock, d, [&] { return stop_requested; });
}

void Instance::Impl::reject(const ProtocolError& e, uint64_t xid, httplib::Response& res) {
  nlohmann::json err = openbox::encode(openbox::make_error(xid, e));
  res.status = 400;
  res.set_content(err.dump(), "application/json");
  sender.send(std::move(err));
}

void Instance::Impl::handle_post(const httplib::Request& req, httplib::Response& res) {
  const std::string url_type = req.matches.size() > 1 ? std::string(req.matches[1]) : "";
  MessageType ut;
  const bool known = openbox::parse_message_type(url_type, ut);
  const Clock::time_point received = Clock::now();
  const uint64_t cpu0 = thread_cpu_ns();
  try {
    // Parsed once, in one pass that refuses nesting over kMaxJsonDepth as it goes (nlohmann's
    // DOM is freed and walked recursively, so no deeper tree is ever built), and validated by
    // the codec; a graph's blocks and connectors are read without a tree of the whole body,
    // and its block configurations are moved into the message, not copied.
    openbox::Message m = openbox::decode(req.body, known ? std::optional<MessageType>(ut) : std::nullopt);
    if (!known) throw ProtocolError(ErrorSubtype::BAD_TYPE, "unknown message type \"" + url_type + "\" in the URL");
    const MessageType t = openbox::type_of(m);
    if (!is_down_message(t))
      throw ProtocolError(ErrorSubtype::UNSUPPORTED_MESSAGE,
                          std::string(openbox::to_string(t)) + " is not a message an OBI accepts");
    res.status = 200;
    if (t == MessageType::Error) {
      const auto& e = std::get<openbox::Error>(m);
      if (!opt.quiet)
        std::fprintf(stderr, "obi: controller reports %s/%s (xid %llu): %s\n",
                     std::string(openbox::to_string(e.error_type)).c_str(),
                     std::string(openbox::to_string(e.error_subtype)).c_str(), static_cast<unsigned long long>(e.xid),
                     e.message.value_or("").c_str());
      return;
    }
    Work w;
    w.received = received;
    w.parse_ms = std::chrono::duration<double, std::milli>(Clock::now() - received).count();
    w.parse_cpu_ms = (thread_cpu_ns() - cpu0) / 1e6;
    if (auto* g = std::get_if<openbox::SetProcessingGraphRequest>(&m)) w.graph = obi::graph_of(*g);
    w.msg = std::move(m);
    {
      std::lock_guard<std::mutex> lock(q_mu);
      queue.push_back(std::move(w));
    }
    q_cv.notify_one();
  } catch (const ProtocolError& e) {
    reject(e, openbox::salvage_xid(req.body), res);
  } catch (const std::exception& e) {
    reject(ProtocolError(ErrorSubtype::INTERNAL_ERROR, e.what()), openbox::salvage_xid(req.body), res);
  }
}

Instance::Instance(InstanceOptions options) : impl_(std::make_unique<Impl>(std::move(options))) {}

Instance::~Instance() { stop(); }

Runtime& Instance::runtime() { return impl_->rt; }
uint16_t Instance::port() const { return static_cast<uint16_t>(impl_->listen_port); }
bool Instance::connected() const { return impl_->connected.load(); }

void Instance::start() {
  Impl& m = *impl_;
  if (m.running.exchange(true)) return;
  m.server->set_payload_max_length(m.opt.max_body_bytes);
  m.server->set_tcp_nodelay(true);  // the 200 goes out at once, not after the peer's ACK
  // The listening socket is this OBI's alone: SO_REUSEADDR (restart over TIME_WAIT) but
  // not httplib's default SO_REUSEPORT, with which a second process could bind the same
  // address and take the controller's requests.
  m.server->set_socket_options([](int sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
  });
  // Slow or idle clients hold a connection thread for at most one timeout per read or
  // write, or one keep-alive wait; the pool is fixed, so many connections never exhaust
  // threads. A kept connection serves up to 1000 requests before it is closed.
  const auto timeout = std::chrono::milliseconds(m.opt.http_timeout_ms);
  m.server->set_read_timeout(timeout);
  m.server->set_write_timeout(timeout);
  m.server->set_keep_alive_timeout(std::max<time_t>(1, (m.opt.http_keepalive_ms + 999) / 1000));
  m.server->set_keep_alive_max_count(1000);
  const unsigned threads = std::max(1u, m.opt.http_threads);
  m.server->new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
  m.server->Post(R"(/message/([^/]*))",
                 [&m](const httplib::Request& req, httplib::Response& res) { m.handle_post(req, res); });
  // A client that is not the controller (TLS), or a Content-Length over the limit, is
  // answered before the body is read, and the connection is closed (its body is never read).
  m.server->set_pre_routing_handler([&m](const httplib::Request& req, httplib::Response& res) {
    if (!m.authorised(req, res)) return httplib::Server::HandlerResponse::Handled;
    const std::string len = req.get_header_value("Content-Length");
    if (len.empty() || len.find_first_not_of("0123456789") != std::string::npos)
      return httplib::Server::HandlerResponse::Unhandled;
    if (len.size() < 20 && std::stoull(len) <= m.opt.max_body_bytes) return httplib::Server::HandlerResponse::Unhandled;
    m.reject(ProtocolError(ErrorSubtype::ILLEGAL_ARGUMENT,
                           "message body larger than " + std::to_string(m.opt.max_body_bytes) + " bytes"),
             0, res);
    res.set_header("Connection", "close");
    return httplib::Server::HandlerResponse::Handled;
  });
  // httplib answers an oversized body without a length with 413 before any handler runs:
  // turn it into the protocol's answer.
  m.server->set_error_handler([&m](const httplib::Request& req, httplib::Response& res) {
    if (res.status == 413) {
      m.reject(ProtocolError(ErrorSubtype::ILLEGAL_ARGUMENT,
                             "message body larger than " + std::to_string(m.opt.max_body_bytes) + " bytes"),
               0, res);
    }
  });
  m.server->set_exception_handler([&m](const httplib::Request& req, httplib::Response& res, std::exception_ptr) {
    m.reject(ProtocolError(ErrorSubtype::INTERNAL_ERROR, "internal error while receiving a message"),
             openbox::salvage_xid(req.body), res);
  });
  if (m.listen_port == 0) {
    m.listen_port = m.server->bind_to_any_port(m.listen_host.c_str());
    if (m.listen_port <= 0) {
      m.running = false;
      throw std::runtime_error("cannot listen on " + m.opt.listen);
    }
  } else if (!m.server->bind_to_port(m.listen_host.c_str(), m.listen_port)) {
    const int err = errno;
    m.running = false;
    throw std::runtime_error("cannot listen on " + m.opt.listen + ": " +
                             (err == EADDRINUSE ? std::string("address already in use")
                              : err             ? std::strerror(err)
                                                : std::string("bind failed")));
  }
  {
    std::lock_guard<std::mutex> lock(m.stop_mu);
    m.stop_requested = false;
  }
  m.q_stop = false;
  m.g_stop = false;
  m.refresh_capabilities();
  m.rt.start();
  m.sender.start();
  m.server_thread = std::thread([&m] { m.server->listen_after_bind(); });
  m.worker_thread = std::thread([&m] { m.worker_loop(); });
  m.graph_thread = std::thread([&m] { m.graph_loop(); });
  m.client_thread = std::thread([&m] { m.client_loop(); });
  m.events_thread = std::thread([&m] { m.events_loop(); });
  if (!m.opt.quiet)
    std::fprintf(stderr, "obi: dpid %llu listening on %s://%s:%d, controller %s\n",
                 static_cast<unsigned long long>(m.opt.dpid), m.opt.tls ? "https" : "http", m.listen_host.c_str(),
                 m.listen_port, m.controller_base.c_str());
}

void Instance::stop() {
  Impl& m = *impl_;
  if (!m.running.exchange(false)) return;
  m.server->stop();
  if (m.server_thread.joinable()) m.server_thread.join();
  {
    std::lock_guard<std::mutex> lock(m.stop_mu);
    m.stop_requested = true;
  }
  m.stop_cv.notify_all();
  {
    std::lock_guard<std::mutex> lock(m.q_mu);
    m.q_stop = true;
  }
  m.q_cv.notify_all();
  {
    std::lock_guard<std::mutex> lock(m.g_mu);
    m.g_stop = true;
  }
  m.g_cv.notify_all();
  for (std::thread* t : {&m.worker_thread, &m.graph_thread, &m.client_thread, &m.events_thread})
    if (t->joinable()) t->join();
  m.sender.stop();
  m.rt.stop();
  m.connected = false;
}

int run_instance(const InstanceOptions& options) {
  // Signals are taken by sigwait below, never by the service threads. A parent may have
  // left them ignored (background jobs of a shell, test runners); an ignored signal is
  // discarded even when blocked, so restore the default first.
  signal(SIGINT, SIG_DFL);
  signal(SIGTERM, SIG_DFL);
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  std::unique_ptr<Instance> inst;
  try {
    inst = std::make_unique<Instance>(options);
    inst->start();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "obi: %s\n", e.what());
    return 1;
  }
  if (!options.tls)
    std::fprintf(stderr,
                 "obi: WARNING: plain HTTP: messages to and from the controller are neither encrypted "
                 "nor authenticated (--pki DIR or --cert/--key/--ca for mutual TLS)\n");
  int sig = 0;
  sigwait(&set, &sig);
  if (!options.quiet) std::fprintf(stderr, "obi: signal %d, stopping\n", sig);
  inst->stop();
  return 0;
}

}  // namespace obi
