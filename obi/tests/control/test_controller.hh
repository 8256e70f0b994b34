// A protocol-faithful test controller: a real HTTP server on a loopback port that accepts
// POST /message/<Type>, decodes every body with the protocol codec (a malformed message
// from the OBI is answered 400 and recorded as a violation) and records what it received.
#pragma once

#include <httplib.h>

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "openbox/messages.hh"

namespace obi::testing {

class TestController {
 public:
  using json = nlohmann::json;

  explicit TestController(int port = 0) {
    server_.Post(R"(/message/([^/]*))", [this](const httplib::Request& req, httplib::Response& res) {
      openbox::MessageType t;
      std::string path = req.matches[1];
      std::lock_guard<std::mutex> lock(mu_);
      try {
        if (!openbox::parse_message_type(path, t)) throw std::runtime_error("unknown path " + path);
        openbox::decode(req.body, t);
        messages_.push_back(json::parse(req.body));
        res.status = 200;
      } catch (const std::exception& e) {
        violations_.push_back(path + ": " + e.what() + ": " + req.body.substr(0, 200));
        res.status = 400;
      }
      cv_.notify_all();
    });
    port_ = port == 0 ? server_.bind_to_any_port("127.0.0.1") : (server_.bind_to_port("127.0.0.1", port) ? port : -1);
    if (port_ <= 0) throw std::runtime_error("test controller cannot bind");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
  }
  ~TestController() { stop(); }

  void stop() {
    server_.stop();
    if (thread_.joinable()) thread_.join();
  }
  int port() const { return port_; }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }

  std::vector<json> messages() {
    std::lock_guard<std::mutex> lock(mu_);
    return messages_;
  }
  std::vector<std::string> violations() {
    std::lock_guard<std::mutex> lock(mu_);
    return violations_;
  }
  size_t count(const std::string& type) {
    std::lock_guard<std::mutex> lock(mu_);
    size_t n = 0;
    for (const auto& m : messages_) n += m["type"] == type;
    return n;
  }

  // The first message (at index >= from) satisfying pred, waiting up to `timeout`.
  std::optional<json> wait_for(const std::function<bool(const json&)>& pred,
                               std::chrono::milliseconds timeout = std::chrono::milliseconds(5000),
                               size_t from = 0) {
    std::unique_lock<std::mutex> lock(mu_);
    std::optional<json> found;
    cv_.wait_for(lock, timeout, [&] {
      for (size_t i = from; i < messages_.size(); ++i)
        if (pred(messages_[i])) { found = messages_[i]; return true; }
      return false;
    });
    return found;
  }
  std::optional<json> wait_type(const std::string& type, std::chrono::milliseconds timeout = std::chrono::milliseconds(5000)) {
    return wait_for([&](const json& m) { return m["type"] == type; }, timeout);
  }
  std::optional<json> wait_xid(uint64_t xid, std::chrono::milliseconds timeout = std::chrono::milliseconds(10000)) {
    return wait_for([&](const json& m) { const auto& t = m["type"];
      return m["xid"] == xid && t != "KeepAlive" && t != "Hello" && t != "Alert" && t != "Log"; }, timeout);
  }

 private:
  httplib::Server server_;
  int port_ = -1;
  std::thread thread_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<json> messages_;
  std::vector<std::string> violations_;
};

}  // namespace obi::testing
