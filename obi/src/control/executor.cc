// The control worker: executes the controller's messages one at a time, in arrival
// order, and sends each result (or an Error with the request's xid) to the controller.
// Every handler either completes or throws before changing state (spec 3.2). A graph
// compiles on the graph thread (graph_loop), which answers it; meanwhile the worker goes
// on with messages that only read (ReadRequest, stats, parameters, capabilities), and a
// message that depends on the graph (BarrierRequest, WriteRequest, the next graph, modules)
// waits until the graph is answered. A compile over the budget is answered with an Error
// when the budget ends; its result is never installed.
#include <cmath>
#include <cstdio>

#include "control/instance_impl.hh"
#include "control/system_stats.hh"
#include "openbox/header_match.hh"

namespace obi {
namespace {

using json = nlohmann::json;
using openbox::ErrorSubtype;
using openbox::ProtocolError;

double round3(double v) { return std::round(v * 1000) / 1000; }

// Where the time of an installed graph went, milliseconds from the moment the OBI had the
// request: the extension field "timing" of its SetProcessingGraphResponse (a controller
// ignores fields it does not know). live_ms: until every worker ran the new graph;
// live_at: that moment, Unix time in seconds.
json swap_timing(const SwapTiming& st, Clock::time_point received, double parse_ms, double parse_cpu_ms,
                 double queued_ms) {
  const double live_ms = std::chrono::duration<double, std::milli>(st.live_at - received).count();
  const double live_at = std::chrono::duration<double>(st.live_wall.time_since_epoch()).count();
  return json{{"live_ms", round3(live_ms)},
              {"parse_ms", round3(parse_ms)},
              {"parse_cpu_ms", round3(parse_cpu_ms)},
              {"queued_ms", round3(queued_ms)},
              {"compile_ms", round3(st.compile_ms)},
              {"compile_cpu_ms", round3(st.compile_cpu_ms)},
              {"activate_ms", round3(st.activate_ms)},
              {"switch_ms", round3(st.switch_ms)},
              {"live_at", std::round(live_at * 1e6) / 1e6}};
}

}  // namespace

void Instance::Impl::refresh_capabilities() {
  json blocks = json::object();
  for (const auto& b : Runtime::supported_blocks()) blocks[b] = json::array({b});
  json fields = json::array();
  for (size_t i = 0; i < static_cast<size_t>(openbox::MatchField::kCount); ++i) {
    const auto& info = openbox::field_info(static_cast<openbox::MatchField>(i));
    if (!info.required) fields.push_back(std::string(info.name));
  }
  json c = {{"processing_blocks", blocks},
            {"match_fields", fields},
            {"complex_match", json::array({"full"})},
            {"proto_messages", json::array({"AddCustomModuleRequest", "RemoveCustomModuleRequest"})}};
  std::lock_guard<std::mutex> lock(caps_mu);
  caps = std::move(c);
}

json Instance::Impl::capabilities() {
  std::lock_guard<std::mutex> lock(caps_mu);
  return caps;
}

json Instance::Impl::global_stats() {
  RuntimeStats s, base;
  double avg = 0, current = 0;
  {
    std::lock_guard<std::mutex> lock(stats_mu);
    s = last_stats;
    base = baseline;
    for (double l : load_samples) avg += l;
    if (!load_samples.empty()) avg /= static_cast<double>(load_samples.size());
    current = s.current_load;
  }
  control::MemoryFigures mem = control::read_memory();
  const double uptime = std::chrono::duration<double>(Clock::now() - started).count();
  auto since = [](uint64_t now, uint64_t b) { return now >= b ? now - b : 0; };
  return {{"current_load", current},
          {"avg_load", avg},
          {"avg_minutes", kAvgMinutes},
          {"uptime", uptime},
          {"cpus", rt.workers()},
          {"memory_rss", mem.rss},
          {"memory_vms", mem.vms},
          {"memory_usage", mem.usage},
          {"packets_in", since(s.packets_in, base.packets_in)},
          {"bytes_in", since(s.bytes_in, base.bytes_in)},
          {"packets_out", since(s.packets_out, base.packets_out)},
          {"bytes_out", since(s.bytes_out, base.bytes_out)},
          {"packets_dropped", since(s.packets_dropped, base.packets_dropped)},
          {"events_dropped", since(s.events_dropped, base.events_dropped)},
          {"events_unsent", sender.events_dropped()},                 // dropped from the full send queue
          {"events_retried", sender.events_retried()},                // sent again after a failed send
          {"events_dropped_offline", events_dropped_offline.load()},  // over the hold limit
          {"messages_unsent", sender.messages_dropped()},
          {"send_queue", sender.queued()}};
}

void Instance::Impl::reset_stats() {
  std::lock_guard<std::mutex> lock(stats_mu);
  baseline = last_stats;
  load_samples.clear();
}

void Instance::Impl::worker_loop() {
  for (;;) {
    Work w;
    {
      // Wakes at a compiling graph's budget too, to answer it with an Error then.
      const Clock::time_point deadline = graph_deadline();
      std::unique_lock<std::mutex> lock(q_mu);
      q_cv.wait_until(lock, deadline, [&] { return q_stop || !queue.empty(); });
      if (q_stop) return;
      if (queue.empty()) {
        lock.unlock();
        std::lock_guard<std::mutex> g(g_mu);
        expire_graph_locked();
        continue;
      }
      w = std::move(queue.front());
      queue.pop_front();
    }
    const uint64_t xid = openbox::xid_of(w.msg);
    try {
      execute(w);  // w (for a graph, two large trees) is freed after the reply is queued
    } catch (const ProtocolError& e) {
      sender.send(openbox::encode(openbox::make_error(xid, e)));
    } catch (const std::exception& e) {
      sender.send(openbox::encode(openbox::make_error(xid, ErrorSubtype::INTERNAL_ERROR, e.what())));
    }
  }
}

Clock::time_point Instance::Impl::graph_deadline() {
  std::lock_guard<std::mutex> lock(g_mu);
  if (g_job && !g_job->answered && !g_job->committing) return g_job->deadline;
  return Clock::time_point::max();
}

void Instance::Impl::expire_graph_locked() {
  if (!g_job || g_job->answered || g_job->committing || Clock::now() < g_job->deadline) return;
  g_job->answered = true;
  char budget[32];
  std::snprintf(budget, sizeof budget, "%.3g", opt.graph_budget_ms / 1000.0);
  sender.send(openbox::encode(
      openbox::make_error(g_job->xid, ErrorSubtype::BAD_GRAPH,
                          std::string("compiling the graph exceeded the compile budget (--graph-budget-s ") + budget +
                              " s); the running graph is kept")));
  if (!opt.quiet)
    std::fprintf(stderr, "obi: graph (xid %llu) refused: compile budget of %s s exceeded\n",
                 static_cast<unsigned long long>(g_job->xid), budget);
}

// Until no graph is compiling (answering one that outlasts its budget meanwhile).
void Instance::Impl::wait_graph_done() {
  std::unique_lock<std::mutex> lock(g_mu);
  while (g_job && !g_stop) {
    if (!g_job->answered && !g_job->committing) {
      g_cv.wait_until(lock, g_job->deadline);
      expire_graph_locked();
    } else {
      g_cv.wait(lock);
    }
  }
}

void Instance::Impl::graph_loop() {
  for (;;) {
    GraphSpec graph;
    uint64_t xid = 0;
    bool report_back = false;
    Clock::time_point received;
    double parse_ms = 0, parse_cpu_ms = 0;
    {
      std::unique_lock<std::mutex> lock(g_mu);
      g_cv.wait(lock, [&] { return g_stop || (g_job && !g_job->started); });
      if (g_stop) return;
      g_job->started = true;
      graph = std::move(g_job->graph);
      received = g_job->received;
      parse_ms = g_job->parse_ms;
      parse_cpu_ms = g_job->parse_cpu_ms;
      xid = g_job->xid;
      report_back = g_job->report_back;
    }
    GraphHooks hooks;
    hooks.cancelled = [this] {
      std::lock_guard<std::mutex> lock(g_mu);
      return g_stop || g_job->answered;
    };
    hooks.commit = [this] {
      std::lock_guard<std::mutex> lock(g_mu);
      if (g_stop || g_job->answered) return false;
      g_job->committing = true;
      return true;
    };
    std::optional<json> reply;
    try {
      const double queued_ms = std::chrono::duration<double, std::milli>(Clock::now() - received).count() - parse_ms;
      rt.set_graph(std::move(graph), hooks);
      if (report_back) {
        json g = rt.graph();
        reply = json{{"type", "SetProcessingGraphResponse"},
                     {"xid", xid},
                     {"blocks", g.value("blocks", json::array())},
                     {"connectors", g.value("connectors", json::array())}};
      } else {
        openbox::SetProcessingGraphResponse out;
        out.xid = xid;
        reply = openbox::encode(out);
      }
      (*reply)["timing"] = swap_timing(rt.last_swap(), received, parse_ms, parse_cpu_ms, queued_ms);
      if (!opt.quiet) {
        const json& t = (*reply)["timing"];
        std::fprintf(stderr,
                     "obi: graph (xid %llu) live at %.6f, %.1f ms after its request: parse %.1f, "
                     "queued %.1f, compile %.1f, activate %.1f, switch %.1f ms\n",
                     static_cast<unsigned long long>(xid), t["live_at"].get<double>(), t["live_ms"].get<double>(),
                     parse_ms, queued_ms, t["compile_ms"].get<double>(), t["activate_ms"].get<double>(),
                     t["switch_ms"].get<double>());
      }
    } catch (const ProtocolError& e) {
      reply = openbox::encode(openbox::make_error(xid, e));
    } catch (const std::exception& e) {
      reply = openbox::encode(openbox::make_error(xid, ErrorSubtype::INTERNAL_ERROR, e.what()));
    }
    {
      std::lock_guard<std::mutex> lock(g_mu);
      if (!g_job->answered) sender.send(std::move(*reply));
      g_job->answered = true;  // no budget Error after this answer
    }
    // The replaced graph is freed once the swap is answered, before the job ends, so a
    // message that waits for the graph (a module's removal) also waits for this.
    rt.release_retired();
    std::lock_guard<std::mutex> lock(g_mu);
    // Answered before the next message that waits for the graph runs (g_job is reset last).
    g_job.reset();
    g_cv.notify_all();
  }
}

void Instance::Impl::execute(Work& w) {
  const openbox::Message& msg = w.msg;
  const uint64_t xid = openbox::xid_of(msg);
  auto reply = [&](openbox::Message out) { sender.send(openbox::encode(out)); };

  const bool needs_graph =
      !(std::holds_alternative<openbox::ReadRequest>(msg) || std::holds_alternative<openbox::GlobalStatsRequest>(msg) ||
        std::holds_alternative<openbox::GlobalStatsReset>(msg) ||
        std::holds_alternative<openbox::SetParametersRequest>(msg) ||
        std::holds_alternative<openbox::GetParametersRequest>(msg) ||
        std::holds_alternative<openbox::ListCapabilitiesRequest>(msg));
  if (needs_graph) wait_graph_done();

  if (auto* r = std::get_if<openbox::SetProcessingGraphRequest>(&msg)) {
    if (r->required_modules)
      for (const auto& mod : *r->required_modules)
        if (!modules.has(mod))
          throw ProtocolError(ErrorSubtype::ILLEGAL_STATE, "required module \"" + mod + "\" is not installed");
    // Compiled on graph_thread, which answers; the next messages run meanwhile.
    std::lock_guard<std::mutex> lock(g_mu);
    if (g_stop) return;
    g_job.emplace();
    g_job->xid = xid;
    g_job->report_back = r->report_back.value_or(false);
    g_job->graph = std::move(w.graph);
    g_job->received = w.received;
    g_job->parse_ms = w.parse_ms;
    g_job->parse_cpu_ms = w.parse_cpu_ms;
    g_job->deadline = Clock::now() + std::chrono::milliseconds(opt.graph_budget_ms);
    g_cv.notify_all();
  } else if (std::holds_alternative<openbox::BarrierRequest>(msg)) {
    // Messages run one at a time in arrival order, so every earlier one is complete.
  } else if (auto* r = std::get_if<openbox::ReadRequest>(&msg)) {
    openbox::ReadResponse out;
    out.xid = xid;
    out.block_id = r->block_id;
    out.read_handle = r->read_handle;
    out.result = rt.read(r->block_id, r->read_handle);
    reply(out);
  } else if (auto* r = std::get_if<openbox::WriteRequest>(&msg)) {
    rt.write(r->block_id, r->write_handle, r->value);
    openbox::WriteResponse out;
    out.xid = xid;
    out.block_id = r->block_id;
    out.write_handle = r->write_handle;
    reply(out);
  } else if (std::holds_alternative<openbox::GlobalStatsRequest>(msg)) {
    openbox::GlobalStatsResponse out;
    out.xid = xid;
    out.stats = global_stats();
    reply(out);
  } else if (std::holds_alternative<openbox::GlobalStatsReset>(msg)) {
    reset_stats();
  } else if (auto* r = std::get_if<openbox::SetParametersRequest>(&msg)) {
    params.set(r->parameters);
    openbox::SetParametersResponse out;
    out.xid = xid;
    reply(out);
  } else if (auto* r = std::get_if<openbox::GetParametersRequest>(&msg)) {
    openbox::GetParametersResponse out;
    out.xid = xid;
    out.parameters = params.get(r->parameters.value_or(std::vector<std::string>{}));
    reply(out);
  } else if (std::holds_alternative<openbox::ListCapabilitiesRequest>(msg)) {
    openbox::ListCapabilitiesResponse out;
    out.xid = xid;
    out.capabilities = capabilities();
    reply(out);
  } else if (auto* r = std::get_if<openbox::AddCustomModuleRequest>(&msg)) {
    std::string bytes;
    if (!openbox::base64_decode(r->module_content, bytes))
      throw ProtocolError(ErrorSubtype::BAD_FILE, "module_content is not valid base64");
    modules.add(r->module_name, bytes, r->translation.value_or(json()), {r->module_version, r->signature, r->key_id});
    refresh_capabilities();
    openbox::AddCustomModuleResponse out;
    out.xid = xid;
    reply(out);
  } else if (auto* r = std::get_if<openbox::RemoveCustomModuleRequest>(&msg)) {
    modules.remove(r->module_name, rt.graph());
    refresh_capabilities();
    openbox::RemoveCustomModuleResponse out;
    out.xid = xid;
    reply(out);
  } else {
    throw ProtocolError(ErrorSubtype::UNSUPPORTED_MESSAGE,
                        std::string(openbox::to_string(openbox::type_of(msg))) + " is not executed by an OBI");
  }
}

}  // namespace obi
