// ControllerEndpoint: the controller's side of the OpenBox protocol as a small real HTTP
// server on a loopback port, for the control-plane tests and the control benchmark. It
// accepts POST /message/<Type>, decodes every body with the protocol codec (a malformed
// message from the OBI is answered 400 and recorded as a violation) and records what it
// received, with the time the message arrived and the time its 200 answer was produced.
//
//   obi::control::ControllerEndpoint ctl;                 // any free port on 127.0.0.1
//   run an OBI with --controller ctl.url() ...
//   auto hello = ctl.wait_type("Hello");
//   auto answer = ctl.wait_xid(7);                         // the response to request xid 7
//
// With a TLS setup (e.g. obi::control::Tls::setup_server of the controller's certificate)
// it is an httplib::SSLServer and url() is https://: the OBI's client must present a
// certificate from the CA.
//
// Header-only so that test and benchmark binaries need not link the OBI's control library.
#pragma once

#include <httplib.h>

#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "openbox/messages.hh"

namespace obi::control {

class ControllerEndpoint {
 public:
  using json = nlohmann::json;
  using Clock = std::chrono::steady_clock;

  struct Received {
    json message;
    Clock::time_point arrived;   // the handler saw the whole request
    Clock::time_point answered;  // the handler returned its 200 (the write follows)
  };

  using TlsSetup = std::function<bool(SSL_CTX&)>;

  explicit ControllerEndpoint(int port = 0, const TlsSetup& tls = nullptr)
      : server_(tls ? std::unique_ptr<httplib::Server>(std::make_unique<httplib::SSLServer>(tls))
                    : std::make_unique<httplib::Server>()),
        tls_(static_cast<bool>(tls)) {
    if (!server_->is_valid()) throw std::runtime_error("controller endpoint: TLS setup failed");
    server_->set_tcp_nodelay(true);
    server_->Post(R"(/message/([^/]*))", [this](const httplib::Request& req, httplib::Response& res) {
      const Clock::time_point arrived = Clock::now();
      openbox::MessageType t;
      std::string path = req.matches[1];
      std::lock_guard<std::mutex> lock(mu_);
      try {
        if (!openbox::parse_message_type(path, t)) throw std::runtime_error("unknown path " + path);
        openbox::decode(req.body, t);
        messages_.push_back({json::parse(req.body), arrived, Clock::now()});
        res.status = 200;
      } catch (const std::exception& e) {
        violations_.push_back(path + ": " + e.what() + ": " + req.body.substr(0, 200));
        res.status = 400;
      }
      cv_.notify_all();
    });
    port_ = port == 0 ? server_->bind_to_any_port("127.0.0.1") : (server_->bind_to_port("127.0.0.1", port) ? port : -1);
    if (port_ <= 0) throw std::runtime_error("controller endpoint cannot bind 127.0.0.1:" + std::to_string(port));
    thread_ = std::thread([this] { server_->listen_after_bind(); });
  }
  ~ControllerEndpoint() { stop(); }
  ControllerEndpoint(const ControllerEndpoint&) = delete;
  ControllerEndpoint& operator=(const ControllerEndpoint&) = delete;

  void stop() {
    server_->stop();
    if (thread_.joinable()) thread_.join();
  }
  int port() const { return port_; }
  std::string url() const { return (tls_ ? "https://127.0.0.1:" : "http://127.0.0.1:") + std::to_string(port_); }

  std::vector<json> messages() {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<json> out;
    out.reserve(messages_.size());
    for (const auto& r : messages_) out.push_back(r.message);
    return out;
  }
  std::vector<Received> received() {
    std::lock_guard<std::mutex> lock(mu_);
    return messages_;
  }
  size_t size() {
    std::lock_guard<std::mutex> lock(mu_);
    return messages_.size();
  }
  std::vector<std::string> violations() {
    std::lock_guard<std::mutex> lock(mu_);
    return violations_;
  }
  size_t count(const std::string& type) {
    std::lock_guard<std::mutex> lock(mu_);
    size_t n = 0;
    for (const auto& r : messages_) n += r.message["type"] == type;
    return n;
  }

  // The first message (at index >= from) satisfying pred, waiting up to `timeout`.
  std::optional<Received> wait_received(const std::function<bool(const json&)>& pred,
                                        std::chrono::milliseconds timeout = std::chrono::milliseconds(5000),
                                        size_t from = 0) {
    std::unique_lock<std::mutex> lock(mu_);
    std::optional<Received> found;
    size_t scanned = from;  // messages are only appended: scan each one once
    cv_.wait_for(lock, timeout, [&] {
      for (; scanned < messages_.size(); ++scanned)
        if (pred(messages_[scanned].message)) {
          found = messages_[scanned];
          return true;
        }
      return false;
    });
    return found;
  }
  std::optional<json> wait_for(const std::function<bool(const json&)>& pred,
                               std::chrono::milliseconds timeout = std::chrono::milliseconds(5000), size_t from = 0) {
    auto r = wait_received(pred, timeout, from);
    return r ? std::optional<json>(r->message) : std::nullopt;
  }
  std::optional<json> wait_type(const std::string& type,
                                std::chrono::milliseconds timeout = std::chrono::milliseconds(5000)) {
    return wait_for([&](const json& m) { return m["type"] == type; }, timeout);
  }
  // The answer to a request: the first message with this xid that is not one the OBI
  // sends on its own (Hello, KeepAlive, Alert, Log number their xids independently).
  static bool answers(const json& m, uint64_t xid) {
    const auto& t = m["type"];
    return m["xid"] == xid && t != "KeepAlive" && t != "Hello" && t != "Alert" && t != "Log";
  }
  std::optional<json> wait_xid(uint64_t xid, std::chrono::milliseconds timeout = std::chrono::milliseconds(10000)) {
    return wait_for([&](const json& m) { return answers(m, xid); }, timeout);
  }
  std::optional<Received> wait_xid_received(uint64_t xid, size_t from = 0,
                                            std::chrono::milliseconds timeout = std::chrono::milliseconds(10000)) {
    return wait_received([&](const json& m) { return answers(m, xid); }, timeout, from);
  }

 private:
  std::unique_ptr<httplib::Server> server_;
  bool tls_;
  int port_ = -1;
  std::thread thread_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<Received> messages_;
  std::vector<std::string> violations_;
};

}  // namespace obi::control
