// The OBI's side of the connection to the controller (spec 3.3, 3.5): Hello with
// exponential back-off until the controller answers 200, then KeepAlive every
// keepalive_interval; a KeepAlive that fails three times in a row sends the OBI back to
// Hello. With a metrics_subscription (control/metrics_subscription.hh) the first KeepAlive
// of each of its intervals carries the subscribed figures. A second thread drains alerts and logs from the engine and sends them in
// buffered Alert / Log messages (size and timeout from the parameters), and samples
// the engine load for GlobalStats.
#include <unistd.h>

#include <cstdio>

#include "control/instance_impl.hh"

namespace obi {
namespace {

using json = nlohmann::json;
using std::chrono::milliseconds;

std::string advertised_host(const std::string& host) {
  if (host != "0.0.0.0" && host != "::" && !host.empty()) return host;
  char name[256] = {0};
  if (::gethostname(name, sizeof name - 1) == 0 && name[0]) return name;
  return "127.0.0.1";
}

openbox::EventEntry to_entry(const Event& e, bool alert) {
  openbox::EventEntry en;
  en.id = e.id;
  en.timestamp = e.timestamp;
  en.message = e.message;
  en.severity = e.severity < 1 ? 1 : (e.severity > 5 ? 5 : e.severity);
  if (!e.packet.empty()) en.packet = openbox::base64_encode(e.packet);
  en.origin_block = e.origin_block;
  if (alert && !e.app_id.empty()) en.app_id = e.app_id;
  if (alert) e.fields.add_to(en, e.packet_timestamp);
  return en;
}

}  // namespace

json Instance::Impl::hello() {
  openbox::Hello h;
  h.xid = new_xid();
  h.dpid = opt.dpid;
  h.version = "1.1.0";
  h.capabilities = capabilities();
  h.source_addr = advertised_host(listen_host);
  h.source_port = static_cast<uint16_t>(listen_port);
  return openbox::encode(h);
}

void Instance::Impl::client_loop() {
  const milliseconds first_backoff(100);
  milliseconds backoff = first_backoff;
  Clock::time_point last_keepalive = Clock::now();
  bool keepalive_due = true;
  // metrics: the subscription last attached for (held, so compared by identity) and when it is due next
  std::shared_ptr<const control::MetricsSubscription> metrics_for;
  Clock::time_point metrics_due = Clock::now();
  control::Poster poster(opt.tls.get());  // with TLS: one connection for Hello and KeepAlives
  while (true) {
    if (!connected) {
      if (poster.post(controller_base, hello(), 2000)) {
        connected = true;
        backoff = first_backoff;
        keepalive_due = true;  // KeepAlive starts at once (spec 3.3)
        metrics_for = nullptr;
        if (!opt.quiet) std::fprintf(stderr, "obi: connected to controller %s\n", controller_base.c_str());
        continue;
      }
      if (!sleep_for(backoff)) return;
      backoff = std::min(backoff * 2, milliseconds(opt.hello_retry_max_ms));
      continue;
    }
    // The interval is read every round, so a new keepalive_interval applies at once.
    const control::ParameterValues values = params.values();
    const auto interval =
        std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(values.keepalive_interval));
    if (keepalive_due || Clock::now() >= last_keepalive + interval) {
      openbox::KeepAlive k;
      k.dpid = opt.dpid;
      const auto& sub = values.metrics_subscription;
      if (sub && (sub != metrics_for || Clock::now() >= metrics_due)) {
        // a new subscription is answered at once, then once per its interval
        k.metrics = control::collect_metrics(
            *sub, global_stats(), [this](const std::string& b, const std::string& h) { return rt.read(b, h); });
        metrics_for = sub;
        metrics_due =
            Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(sub->interval));
      }
      bool ok = false;
      for (int attempt = 0; attempt < 3 && !ok; ++attempt) {
        if (attempt > 0 && !sleep_for(milliseconds(200))) return;
        k.xid = new_xid();
        ok = poster.post(controller_base, openbox::encode(k), 2000);
      }
      if (!ok) {
        connected = false;
        if (!opt.quiet)
          std::fprintf(stderr, "obi: controller %s stopped answering; sending Hello again\n", controller_base.c_str());
        continue;
      }
      last_keepalive = Clock::now();
      keepalive_due = false;
    }
    // Short naps so a new keepalive_interval takes effect soon.
    auto wait = std::min<Clock::duration>(last_keepalive + interval - Clock::now(), milliseconds(50));
    if (!sleep_for(std::max(wait, Clock::duration(milliseconds(1))))) return;
  }
}

void Instance::Impl::events_loop() {
  struct Pending {
    std::deque<openbox::EventEntry> entries;
    Clock::time_point oldest;
  } alerts, logs;
  constexpr size_t kMaxPending = 100000;  // while the controller is away; oldest dropped first
  std::vector<Event> drained;
  Clock::time_point next_sample = Clock::now();

  auto flush = [&](Pending& p, bool alert, size_t size, uint32_t timeout_ms, bool force) {
    while (!p.entries.empty() &&
           (force || p.entries.size() >= size || Clock::now() - p.oldest >= milliseconds(timeout_ms))) {
      std::vector<openbox::EventEntry> batch;
      while (!p.entries.empty() && batch.size() < size) {
        batch.push_back(std::move(p.entries.front()));
        p.entries.pop_front();
      }
      std::string base;
      json out;
      if (alert) {
        openbox::Alert a;
        a.xid = new_xid();
        a.origin_dpid = opt.dpid;
        a.messages = std::move(batch);
        out = openbox::encode(a);
      } else {
        openbox::Log l;
        l.xid = new_xid();
        l.origin_dpid = opt.dpid;
        l.messages = std::move(batch);
        out = openbox::encode(l);
        const auto v = params.values();
        if (!v.log_server_address.empty() && v.log_server_port != 0)
          base = "http://" + v.log_server_address + ":" + std::to_string(v.log_server_port);
      }
      sender.send(std::move(out), base);
      p.oldest = Clock::now();
    }
  };

  while (sleep_for(milliseconds(10))) {
    drained.clear();
    rt.drain_events(drained, 4096);
    const Clock::time_point now = Clock::now();
    for (const Event& e : drained) {
      Pending& p = e.alert ? alerts : logs;
      if (p.entries.empty()) p.oldest = now;
      p.entries.push_back(to_entry(e, e.alert));
      if (p.entries.size() > kMaxPending) {
        p.entries.pop_front();
        events_dropped_offline.fetch_add(1, std::memory_order_relaxed);
      }
    }
    const auto v = params.values();
    if (connected) {
      flush(alerts, true, v.alert_messages_buffer_size, v.alert_messages_buffer_timeout, false);
      flush(logs, false, v.log_messages_buffer_size, v.log_messages_buffer_timeout, false);
    }
    if (now >= next_sample) {
      RuntimeStats s = rt.stats();
      std::lock_guard<std::mutex> lock(stats_mu);
      last_stats = s;
      load_samples.push_back(s.current_load);
      while (load_samples.size() > static_cast<size_t>(kAvgMinutes * 60 * 4)) load_samples.pop_front();
      next_sample = now + milliseconds(250);
    }
  }
  if (connected) {
    const auto v = params.values();
    flush(alerts, true, v.alert_messages_buffer_size, 0, true);
    flush(logs, false, v.log_messages_buffer_size, 0, true);
  }
}

}  // namespace obi
