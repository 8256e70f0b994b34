// One-thread FIFO HTTP sender for messages to the controller (and the log server).
#include "control/sender.hh"

#include <httplib.h>

#include <cstdio>

#include "control/tls.hh"

namespace obi::control {

bool post_message(const std::string& base, const nlohmann::json& message, int timeout_ms, const Tls* tls) {
  httplib::Client cli(base);
  if (base.rfind("https://", 0) == 0) {
    // Verification is the context's own (chain to the CA, then the controller's name),
    // so it fails the handshake itself; httplib's host-name check is not the identity
    // that matters here.
    if (!tls || !cli.ssl_context() || !tls->setup_client(*cli.ssl_context())) return false;
    cli.enable_server_certificate_verification(false);
  }
  cli.set_connection_timeout(std::chrono::milliseconds(std::min(timeout_ms, 1000)));
  cli.set_read_timeout(std::chrono::milliseconds(timeout_ms));
  cli.set_write_timeout(std::chrono::milliseconds(timeout_ms));
  cli.set_tcp_nodelay(true);   // headers and body are two writes: do not hold the body back
  const std::string type = message.value("type", "Unknown");
  auto res = cli.Post(("/message/" + type).c_str(), message.dump(), "application/json");
  return res && res->status >= 200 && res->status < 300;
}

Sender::Sender(std::string controller_base, std::shared_ptr<const Tls> tls, bool quiet)
    : controller_(std::move(controller_base)), tls_(std::move(tls)), quiet_(quiet) {}

Sender::~Sender() { stop(); }

void Sender::start() {
  std::lock_guard<std::mutex> lock(mu_);
  if (thread_.joinable()) return;
  stopping_ = false;
  thread_ = std::thread([this] { run(); });
}

void Sender::stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void Sender::send(nlohmann::json message, std::string base) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    queue_.emplace_back(std::move(message), std::move(base));
  }
  cv_.notify_one();
}

uint64_t Sender::failures() const {
  std::lock_guard<std::mutex> lock(mu_);
  return failures_;
}

void Sender::run() {
  bool failing = false;
  for (;;) {
    std::pair<nlohmann::json, std::string> item;
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;
      item = std::move(queue_.front());
      queue_.pop_front();
    }
    const std::string& base = item.second.empty() ? controller_ : item.second;
    bool ok = post_message(base, item.first, 3000, tls_.get());
    if (!ok) {
      std::lock_guard<std::mutex> lock(mu_);
      ++failures_;
    }
    if (!ok && !failing && !quiet_)
      std::fprintf(stderr, "obi: cannot deliver %s to %s\n", item.first.value("type", "?").c_str(), base.c_str());
    failing = !ok;
  }
}

}  // namespace obi::control
