// One-thread FIFO HTTP sender for messages to the controller (and the log server).
#include "control/sender.hh"

#include <httplib.h>

#include <cstdio>
#include <memory>

#include "control/tls.hh"

namespace obi::control {

Poster::Poster(const Tls* tls) : tls_(tls) {}
Poster::~Poster() = default;

bool Poster::post(const std::string& base, const nlohmann::json& message, int timeout_ms) {
  const bool https = base.rfind("https://", 0) == 0;
  if (!https || base != base_) cli_.reset();   // plain HTTP: a new connection every time
  if (!cli_) {
    cli_ = std::make_unique<httplib::Client>(base);
    base_ = base;
    if (https) {
      // Verification is the context's own (chain to the CA, then the controller's name),
      // so it fails the handshake itself; httplib's host-name check is not the identity
      // that matters here.
      if (!tls_ || !cli_->ssl_context() || !tls_->setup_client(*cli_->ssl_context())) {
        cli_.reset();
        return false;
      }
      cli_->enable_server_certificate_verification(false);
      cli_->set_keep_alive(true);
    }
    cli_->set_tcp_nodelay(true);   // headers and body are two writes: do not hold the body back
  }
  cli_->set_connection_timeout(std::chrono::milliseconds(std::min(timeout_ms, 1000)));
  cli_->set_read_timeout(std::chrono::milliseconds(timeout_ms));
  cli_->set_write_timeout(std::chrono::milliseconds(timeout_ms));
  const std::string type = message.value("type", "Unknown");
  auto res = cli_->Post(("/message/" + type).c_str(), message.dump(), "application/json");
  const bool ok = res && res->status >= 200 && res->status < 300;
  if (!res) cli_.reset();   // a broken connection is not reused
  return ok;
}

bool post_message(const std::string& base, const nlohmann::json& message, int timeout_ms, const Tls* tls) {
  return Poster(tls).post(base, message, timeout_ms);
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
  Poster poster(tls_.get());
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
    bool ok = poster.post(base, item.first);
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
