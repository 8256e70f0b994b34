// The bounded send queue (control/sender.hh) against a real HTTP controller that stops
// answering: its handler holds the first message until the test lets it go, so every
// later message waits in the queue. Memory stays within the limits, the oldest alerts and
// logs go first (counted), responses are kept while there are alerts to drop, and what
// is kept arrives in order once the controller answers again.
#include <gtest/gtest.h>

#include <httplib.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "control/sender.hh"

using nlohmann::json;
using namespace std::chrono_literals;

namespace {

class StalledController {
 public:
  StalledController() {
    server_.Post(R"(/message/([^/]*))", [this](const httplib::Request& req, httplib::Response& res) {
      std::unique_lock<std::mutex> lock(mu_);
      received_.push_back(json::parse(req.body));
      cv_.notify_all();
      cv_.wait(lock, [&] { return open_; });
      res.status = 200;
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
  }
  ~StalledController() {
    open();
    server_.stop();
    thread_.join();
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  void open() {
    std::lock_guard<std::mutex> lock(mu_);
    open_ = true;
    cv_.notify_all();
  }
  // Waits until n messages have arrived; returns them.
  std::vector<json> wait(size_t n, std::chrono::milliseconds timeout = 10s) {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait_for(lock, timeout, [&] { return received_.size() >= n; });
    return received_;
  }

 private:
  httplib::Server server_;
  int port_ = -1;
  std::thread thread_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool open_ = false;
  std::vector<json> received_;
};

json alert(int id, size_t text = 16) {
  return {{"type", "Alert"}, {"xid", id}, {"dpid", 1}, {"message", std::string(text, 'a')}};
}

}  // namespace

TEST(Sender, control_SendQueueDropsOldestAlertsFirstAndKeepsResponses) {
  StalledController ctl;
  obi::control::Sender s(ctl.url(), nullptr, true, {8, std::size_t{1} << 20});
  s.start();
  s.send(alert(0));
  ASSERT_EQ(ctl.wait(1).size(), 1u);   // the sender now waits for the stalled controller
  for (int i = 1; i <= 50; ++i) s.send(alert(i));
  s.send({{"type", "SetProcessingGraphResponse"}, {"xid", 7}});
  for (int i = 51; i <= 100; ++i) {
    s.send(alert(i));
    EXPECT_LE(s.queued(), 8u);
  }
  EXPECT_EQ(s.queued(), 8u);
  EXPECT_EQ(s.events_dropped(), 93u);   // 100 queued alerts, 7 kept beside the response
  EXPECT_EQ(s.messages_dropped(), 0u);

  ctl.open();
  std::vector<json> got = ctl.wait(9);
  ASSERT_EQ(got.size(), 9u);
  EXPECT_EQ(got[0]["xid"], 0);
  EXPECT_EQ(got[1]["type"], "SetProcessingGraphResponse");
  for (int k = 0; k < 7; ++k) EXPECT_EQ(got[2 + k]["xid"], 94 + k) << "the newest alerts are kept, in order";
  s.stop();
  EXPECT_EQ(s.queued(), 0u);
}

TEST(Sender, control_SendQueueBytesAreBounded) {
  StalledController ctl;
  const size_t limit = 64 * 1024;
  obi::control::Sender s(ctl.url(), nullptr, true, {100000, limit});
  s.start();
  s.send(alert(0));
  ASSERT_EQ(ctl.wait(1).size(), 1u);
  for (int i = 1; i <= 2000; ++i) {   // ~2 MB of alerts behind a controller that does not answer
    s.send(alert(i, 1000));
    ASSERT_LE(s.queued_bytes(), limit);
  }
  EXPECT_GE(s.queued(), 50u);
  EXPECT_EQ(s.events_dropped() + s.queued(), 2000u);
  // With nothing but responses queued, the oldest response goes (and is counted).
  obi::control::Sender r(ctl.url(), nullptr, true, {4, limit});
  r.start();
  for (int i = 0; i < 10; ++i) r.send({{"type", "ReadResponse"}, {"xid", i}});
  EXPECT_LE(r.queued(), 4u);
  EXPECT_GE(r.messages_dropped(), 5u);   // one may be on its way already
  EXPECT_EQ(r.events_dropped(), 0u);
  ctl.open();
}
