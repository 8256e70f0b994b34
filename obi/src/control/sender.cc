// One-thread FIFO HTTP sender for messages to the controller (and the log server), with a
// bounded queue.
#include "control/sender.hh"

#include <httplib.h>

#include <algorithm>
#include <cstdio>
#include <memory>

#include "control/tls.hh"

namespace obi::control {

Poster::Poster(const Tls* tls) : tls_(tls) {}
Poster::~Poster() = default;

bool Poster::post(const std::string& base, const nlohmann::json& message, int timeout_ms) {
  return post(base, message.value("type", "Unknown"), message.dump(), timeout_ms);
}

bool Poster::post(const std::string& base, const std::string& type, const std::string& body, int timeout_ms) {
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
  auto res = cli_->Post(("/message/" + type).c_str(), body, "application/json");
  const bool ok = res && res->status >= 200 && res->status < 300;
  if (!res) cli_.reset();   // a broken connection is not reused
  return ok;
}

bool post_message(const std::string& base, const nlohmann::json& message, int timeout_ms, const Tls* tls) {
  return Poster(tls).post(base, message, timeout_ms);
}

Sender::Sender(std::string controller_base, std::shared_ptr<const Tls> tls, bool quiet, SenderLimits limits)
    : controller_(std::move(controller_base)), tls_(std::move(tls)), quiet_(quiet), limits_(limits) {
  limits_.max_messages = std::max<std::size_t>(1, limits_.max_messages);
}

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
  Item item;
  item.type = message.value("type", "Unknown");
  item.event = item.type == "Alert" || item.type == "Log";
  item.body = message.dump();
  item.base = std::move(base);
  {
    std::lock_guard<std::mutex> lock(mu_);
    bytes_ += item.body.size();
    events_ += item.event;
    queue_.push_back(std::move(item));
    trim();
  }
  cv_.notify_one();
}

void Sender::trim() {
  while (queue_.size() > limits_.max_messages || (bytes_ > limits_.max_bytes && queue_.size() > 1)) {
    auto victim = queue_.begin();
    if (events_ > 0) {
      victim = std::find_if(queue_.begin(), queue_.end(), [](const Item& i) { return i.event; });
      ++events_dropped_;
      --events_;
    } else {
      ++messages_dropped_;
    }
    bytes_ -= victim->body.size();
    queue_.erase(victim);
  }
}

uint64_t Sender::failures() const {
  std::lock_guard<std::mutex> lock(mu_);
  return failures_;
}

uint64_t Sender::events_dropped() const {
  std::lock_guard<std::mutex> lock(mu_);
  return events_dropped_;
}

uint64_t Sender::messages_dropped() const {
  std::lock_guard<std::mutex> lock(mu_);
  return messages_dropped_;
}

std::size_t Sender::queued() const {
  std::lock_guard<std::mutex> lock(mu_);
  return queue_.size();
}

std::size_t Sender::queued_bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return bytes_;
}

void Sender::run() {
  Poster poster(tls_.get());
  bool failing = false;
  for (;;) {
    Item item;
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;
      item = std::move(queue_.front());
      queue_.pop_front();
      bytes_ -= item.body.size();
      events_ -= item.event;
    }
    const std::string& base = item.base.empty() ? controller_ : item.base;
    bool ok = poster.post(base, item.type, item.body);
    if (!ok) {
      std::lock_guard<std::mutex> lock(mu_);
      ++failures_;
    }
    if (!ok && !failing && !quiet_)
      std::fprintf(stderr, "obi: cannot deliver %s to %s\n", item.type.c_str(), base.c_str());
    failing = !ok;
  }
}

}  // namespace obi::control
