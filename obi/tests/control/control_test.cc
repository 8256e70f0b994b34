// The OBI control plane over real HTTP: an in-process obi::Instance (REST server, control
// worker, client) talking to the test controller on loopback, with the real engine and
// blocks behind it.
#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "control/controller_endpoint.hh"
#include "control/instance.hh"
#include "engine/runtime.hh"
#include "test_signing.hh"

namespace fs = std::filesystem;
using nlohmann::json;
using TestController = obi::control::ControllerEndpoint;
using namespace std::chrono_literals;

namespace {

std::string pcap_path() {
  return (fs::path(OPENBOX_ROOT) / ".." / "shared" / "data" / "fw-4560.trace.pcap").lexically_normal().string();
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// FromDump -> HeaderClassifier: TCP -> Alert -> Discard, everything else -> Discard.
json sample_graph(bool active) {
  return json::parse(R"({
    "blocks": [
      {"type": "FromDump", "name": "in", "config": {"filename": ")" +
                     pcap_path() + R"(", "active": )" + (active ? "true" : "false") + R"(}},
      {"type": "HeaderClassifier", "name": "hc", "config": {"match": [
          {"eth_type": "0x0800", "ip_proto": 6}, {}]}},
      {"type": "Alert", "name": "al", "config": {"alerts": [{"message": "tcp seen", "severity": 3, "app_id": "t"}]}},
      {"type": "Discard", "name": "d1"},
      {"type": "Discard", "name": "d2"}],
    "connectors": [
      {"src": "in", "src_port": 0, "dst": "hc", "dst_port": 0},
      {"src": "hc", "src_port": 0, "dst": "al", "dst_port": 0},
      {"src": "al", "src_port": 0, "dst": "d1", "dst_port": 0},
      {"src": "hc", "src_port": 1, "dst": "d2", "dst_port": 0}]})");
}

class ControlTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ctl_ = std::make_unique<TestController>();
    obi::InstanceOptions o;
    o.dpid = 42;
    o.listen = "127.0.0.1:0";
    o.controller = ctl_->url();
    o.workers = 1;
    o.quiet = std::getenv("OBI_TEST_VERBOSE") == nullptr;
    o.max_body_bytes = 1 << 20;
    o.hello_retry_max_ms = 200;
    o.module_trust = obi::testing_signing::trusted_pub();  // modules signed with the test key load
    obi_ = std::make_unique<obi::Instance>(o);
    obi_->start();
    ASSERT_TRUE(ctl_->wait_type("Hello").has_value()) << "no Hello";
  }
  void TearDown() override {
    if (obi_) obi_->stop();
    if (ctl_) {
      EXPECT_TRUE(ctl_->violations().empty()) << "OBI sent invalid messages: " << ctl_->violations().front();
    }
  }

  httplib::Result post(const std::string& path, const std::string& body) {
    httplib::Client cli("127.0.0.1", obi_->port());
    cli.set_read_timeout(10s);
    return cli.Post(("/message/" + path).c_str(), body, "application/json");
  }
  // Post a valid request, expect 200, and return the controller-side answer with its xid.
  json request(json m) {
    m["xid"] = next_xid_++;
    auto res = post(m["type"].get<std::string>(), m.dump());
    EXPECT_TRUE(res && res->status == 200) << m["type"] << ": " << (res ? res->body : "no answer");
    auto got = ctl_->wait_xid(m["xid"].get<uint64_t>());
    EXPECT_TRUE(got.has_value()) << "no answer to " << m.dump().substr(0, 200);
    return got.value_or(json());
  }

  uint64_t next_xid_ = 1'000'000;
  std::unique_ptr<TestController> ctl_;
  std::unique_ptr<obi::Instance> obi_;
};

}  // namespace

TEST_F(ControlTest, control_HelloCarriesIdentityAndCapabilities) {
  json hello = *ctl_->wait_type("Hello");
  EXPECT_EQ(hello["dpid"], 42);
  EXPECT_EQ(hello["version"], "1.1.0");
  EXPECT_EQ(hello["source_addr"], "127.0.0.1");
  EXPECT_EQ(hello["source_port"], obi_->port());
  const json& caps = hello["capabilities"];
  EXPECT_EQ(caps["complex_match"], json::array({"full"}));
  for (const auto& b : obi::Runtime::supported_blocks()) EXPECT_TRUE(caps["processing_blocks"].contains(b)) << b;
  EXPECT_TRUE(caps["processing_blocks"].contains("HeaderClassifier"));
  EXPECT_NE(std::find(caps["match_fields"].begin(), caps["match_fields"].end(), "IPV6_SRC"),
            caps["match_fields"].end());
  EXPECT_NE(std::find(caps["proto_messages"].begin(), caps["proto_messages"].end(), "AddCustomModuleRequest"),
            caps["proto_messages"].end());
  // KeepAlive starts right after the Hello was accepted.
  auto ka = ctl_->wait_type("KeepAlive");
  ASSERT_TRUE(ka);
  EXPECT_EQ((*ka)["dpid"], 42);
  EXPECT_TRUE(obi_->connected());
}

TEST_F(ControlTest, control_ConnectionSetupSequence) {
  // spec 3.5: SetParameters, Barrier, SetProcessingGraph, Barrier.
  json p = request({{"type", "SetParametersRequest"}, {"parameters", {{"keepalive_interval", 0.2}}}});
  EXPECT_EQ(p["type"], "SetParametersResponse");
  ASSERT_EQ(post("BarrierRequest", json{{"type", "BarrierRequest"}, {"xid", 5}}.dump())->status, 200);
  json g = sample_graph(false);
  g["type"] = "SetProcessingGraphRequest";
  const double sent_at = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  json r = request(g);
  const double answered_at = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  EXPECT_EQ(r["type"], "SetProcessingGraphResponse") << r.dump();
  EXPECT_FALSE(r.contains("blocks"));
  // The extension "timing": request received -> the workers run the graph, and its parts.
  ASSERT_TRUE(r.contains("timing")) << r.dump();
  const json& t = r["timing"];
  for (const char* k : {"live_ms", "parse_ms", "parse_cpu_ms", "queued_ms", "compile_ms", "compile_cpu_ms",
                        "activate_ms", "switch_ms", "live_at"})
    ASSERT_TRUE(t.contains(k) && t[k].is_number() && t[k].get<double>() >= 0) << k << " in " << t.dump();
  // a thread's CPU time within a span is at most the span (plus clock granularity)
  EXPECT_LE(t["parse_cpu_ms"].get<double>(), t["parse_ms"].get<double>() + 0.05) << t.dump();
  EXPECT_LE(t["compile_cpu_ms"].get<double>(), t["compile_ms"].get<double>() + 0.05) << t.dump();
  EXPECT_GE(t["live_ms"].get<double>() + 0.01, t["parse_ms"].get<double>() + t["queued_ms"].get<double>() +
                                                   t["compile_ms"].get<double>() + t["switch_ms"].get<double>());
  EXPECT_LE(t["live_ms"].get<double>(), (answered_at - sent_at) * 1000 + 0.01);
  EXPECT_GE(t["live_at"].get<double>(), sent_at - 0.001);
  EXPECT_LE(t["live_at"].get<double>(), answered_at + 0.001);
  // keepalive_interval took effect: several KeepAlives within a second.
  size_t before = ctl_->count("KeepAlive");
  std::this_thread::sleep_for(1s);
  EXPECT_GE(ctl_->count("KeepAlive"), before + 3);
}

// The metrics_subscription extension end to end: the OBI attaches the subscribed handles
// and its GlobalStats to its KeepAlives, once per the subscription's interval; a bad
// subscription is refused with an Error naming the field, and null ends it.
TEST_F(ControlTest, control_MetricsSubscriptionOnKeepAlive) {
  json g = sample_graph(true);
  g["type"] = "SetProcessingGraphRequest";
  ASSERT_EQ(request(g)["type"], "SetProcessingGraphResponse");
  json bad =
      request({{"type", "SetParametersRequest"},
               {"parameters", {{"metrics_subscription", {{"interval", 1}, {"reads", {{{"block_id", "hc"}}}}}}}}});
  EXPECT_EQ(bad["type"], "Error");
  EXPECT_EQ(bad["error_type"], "BAD_REQUEST");
  EXPECT_EQ(bad["error_subtype"], "ILLEGAL_ARGUMENT");
  EXPECT_NE(bad["message"].get<std::string>().find("metrics_subscription.reads[0].read_handles is missing"),
            std::string::npos)
      << bad.dump();
  EXPECT_EQ(ctl_->wait_for([](const json& m) { return m["type"] == "KeepAlive" && m.contains("metrics"); }, 1500ms),
            std::nullopt)
      << "metrics without a subscription";

  const size_t from = ctl_->size();
  json ok = request({{"type", "SetParametersRequest"},
                     {"parameters",
                      {{"keepalive_interval", 0.2},
                       {"metrics_subscription",
                        {{"id", 9},
                         {"interval", 1},
                         {"reads",
                          {{{"block_id", "hc"}, {"read_handles", {"count", "byte_count"}}},
                           {{"block_id", "nope"}, {"read_handles", {"count"}}}}}}}}}});
  ASSERT_EQ(ok["type"], "SetParametersResponse") << ok.dump();
  auto has_metrics = [](const json& m) { return m["type"] == "KeepAlive" && m.contains("metrics"); };
  auto first = ctl_->wait_received(has_metrics, 3000ms, from);
  ASSERT_TRUE(first);
  const json& mt = first->message["metrics"];
  EXPECT_EQ(mt["subscription"], 9);
  EXPECT_TRUE(mt["stats"].contains("packets_in")) << mt.dump();
  ASSERT_TRUE(mt["reads"]["hc"]["count"].is_array()) << mt.dump();
  EXPECT_EQ(mt["reads"]["hc"]["count"].size(), 2u);
  EXPECT_TRUE(mt["reads"]["hc"]["byte_count"].is_array());
  ASSERT_EQ(mt["errors"].size(), 1u);
  EXPECT_EQ(mt["errors"][0]["block_id"], "nope");
  EXPECT_EQ(mt["omitted"], 0);
  // the figures are the ones a ReadRequest answers (the trace has finished by now)
  std::this_thread::sleep_for(1500ms);
  json cnt = request({{"type", "ReadRequest"}, {"block_id", "hc"}, {"read_handle", "count"}});
  auto later = ctl_->wait_received(has_metrics, 3000ms, ctl_->size());
  ASSERT_TRUE(later);
  EXPECT_EQ(later->message["metrics"]["reads"]["hc"]["count"], cnt["result"]);
  // once per interval (1 s) although KeepAlives go every 0.2 s
  const size_t before = ctl_->size();
  std::this_thread::sleep_for(2500ms);
  size_t kas = 0, with = 0;
  auto all = ctl_->messages();
  for (size_t i = before; i < all.size(); ++i) {
    if (all[i]["type"] != "KeepAlive") continue;
    ++kas;
    with += all[i].contains("metrics");
  }
  EXPECT_GE(kas, 8u);
  EXPECT_GE(with, 2u);
  EXPECT_LE(with, 3u);
  // null ends it
  request({{"type", "SetParametersRequest"}, {"parameters", {{"metrics_subscription", nullptr}}}});
  std::this_thread::sleep_for(300ms);
  EXPECT_EQ(ctl_->wait_for(has_metrics, 1500ms, ctl_->size()), std::nullopt);
}

TEST_F(ControlTest, control_EveryRequestType) {
  json g = sample_graph(false);
  g["type"] = "SetProcessingGraphRequest";
  g["report_back"] = true;
  json r = request(g);
  ASSERT_EQ(r["type"], "SetProcessingGraphResponse") << r.dump();
  ASSERT_TRUE(r.contains("blocks"));
  EXPECT_EQ(r["blocks"].size(), 5u);
  EXPECT_EQ(r["connectors"].size(), 4u);

  json caps = request({{"type", "ListCapabilitiesRequest"}});
  EXPECT_EQ(caps["type"], "ListCapabilitiesResponse");
  EXPECT_EQ(caps["capabilities"]["complex_match"], json::array({"full"}));

  json all = request({{"type", "GetParametersRequest"}});
  EXPECT_EQ(all["parameters"]["keepalive_interval"], 10);
  EXPECT_EQ(all["parameters"].size(), 10u);  // the spec's nine and metrics_subscription
  request(
      {{"type", "SetParametersRequest"}, {"parameters", {{"alert_messages_buffer_size", 7}, {"log_server_port", 9}}}});
  json some = request({{"type", "GetParametersRequest"}, {"parameters", {"alert_messages_buffer_size"}}});
  EXPECT_EQ(some["parameters"], json({{"alert_messages_buffer_size", 7}}));
  json bad =
      request({{"type", "SetParametersRequest"}, {"parameters", {{"alert_messages_buffer_size", 9}, {"colour", 1}}}});
  EXPECT_EQ(bad["type"], "Error");
  EXPECT_EQ(bad["error_subtype"], "ILLEGAL_ARGUMENT");
  json unchanged = request({{"type", "GetParametersRequest"}, {"parameters", {"alert_messages_buffer_size"}}});
  EXPECT_EQ(unchanged["parameters"]["alert_messages_buffer_size"], 7) << "a rejected SetParameters changed state";
  json badtype = request({{"type", "SetParametersRequest"}, {"parameters", {{"keepalive_interval", "soon"}}}});
  EXPECT_EQ(badtype["error_subtype"], "ILLEGAL_ARGUMENT");

  // Read / Write: the source is inactive, so nothing has been classified yet.
  json rd = request({{"type", "ReadRequest"}, {"block_id", "in"}, {"read_handle", "active"}});
  EXPECT_EQ(rd["type"], "ReadResponse");
  EXPECT_EQ(rd["block_id"], "in");
  EXPECT_EQ(rd["result"], false);
  json wr = request({{"type", "WriteRequest"}, {"block_id", "in"}, {"write_handle", "active"}, {"value", true}});
  EXPECT_EQ(wr["type"], "WriteResponse");
  EXPECT_EQ(wr["write_handle"], "active");
  EXPECT_EQ(request({{"type", "ReadRequest"}, {"block_id", "in"}, {"read_handle", "active"}})["result"], true);
  json nob = request({{"type", "ReadRequest"}, {"block_id", "nope"}, {"read_handle", "count"}});
  EXPECT_EQ(nob["type"], "Error");
  EXPECT_EQ(nob["error_subtype"], "ILLEGAL_ARGUMENT");

  // Packets flow: the classifier counts and the Alert block reaches us in Alert messages.
  auto alert = ctl_->wait_type("Alert", 10s);
  ASSERT_TRUE(alert) << "no Alert message";
  EXPECT_EQ((*alert)["origin_dpid"], 42);
  ASSERT_FALSE((*alert)["messages"].empty());
  EXPECT_LE((*alert)["messages"].size(), 7u) << "alert_messages_buffer_size not obeyed";
  EXPECT_EQ((*alert)["messages"][0]["origin_block"], "al");
  EXPECT_EQ((*alert)["messages"][0]["app_id"], "t");
  EXPECT_EQ((*alert)["messages"][0]["severity"], 3);
  json cnt = request({{"type", "ReadRequest"}, {"block_id", "hc"}, {"read_handle", "count"}});
  ASSERT_TRUE(cnt["result"].is_array()) << cnt.dump();
  EXPECT_GT(cnt["result"][0].get<uint64_t>(), 0u);

  std::this_thread::sleep_for(300ms);  // a load sample or two
  json st = request({{"type", "GlobalStatsRequest"}});
  ASSERT_EQ(st["type"], "GlobalStatsResponse");
  for (const char* k :
       {"current_load", "avg_load", "avg_minutes", "uptime", "cpus", "memory_rss", "memory_vms", "memory_usage"})
    EXPECT_TRUE(st["stats"].contains(k)) << k;
  EXPECT_EQ(st["stats"]["cpus"], 1);
  EXPECT_GT(st["stats"]["memory_rss"].get<double>(), 1e6);
  EXPECT_GE(st["stats"]["current_load"].get<double>(), 0.0);
  EXPECT_LE(st["stats"]["current_load"].get<double>(), 1.0);
  EXPECT_GT(st["stats"]["memory_usage"].get<double>(), 0.0);
  EXPECT_LT(st["stats"]["memory_usage"].get<double>(), 100.0);
  EXPECT_GT(st["stats"]["packets_in"].get<uint64_t>(), 0u);
  ASSERT_EQ(post("GlobalStatsReset", json{{"type", "GlobalStatsReset"}, {"xid", 77}}.dump())->status, 200);
  json st2 = request({{"type", "GlobalStatsRequest"}});
  EXPECT_EQ(st2["stats"]["packets_in"], 0) << "GlobalStatsReset did not reset the counters";
}

TEST_F(ControlTest, control_BarrierOrderingAndTransactions) {
  json g = sample_graph(false);
  g["type"] = "SetProcessingGraphRequest";
  g["xid"] = 500;
  json b = {{"type", "BarrierRequest"}, {"xid", 501}};
  json rd = {{"type", "ReadRequest"}, {"xid", 502}, {"block_id", "hc"}, {"read_handle", "count"}};
  ASSERT_EQ(post("SetProcessingGraphRequest", g.dump())->status, 200);
  ASSERT_EQ(post("BarrierRequest", b.dump())->status, 200);
  ASSERT_EQ(post("ReadRequest", rd.dump())->status, 200);
  auto r2 = ctl_->wait_xid(502);
  ASSERT_TRUE(r2);
  EXPECT_EQ((*r2)["type"], "ReadResponse") << "the read ran before the graph was set: " << r2->dump();
  // the graph response came first
  auto msgs = ctl_->messages();
  int pos500 = -1, pos502 = -1;
  for (size_t i = 0; i < msgs.size(); ++i) {
    if (msgs[i]["xid"] == 500 && msgs[i]["type"] == "SetProcessingGraphResponse") pos500 = static_cast<int>(i);
    if (msgs[i]["xid"] == 502 && msgs[i]["type"] == "ReadResponse") pos502 = static_cast<int>(i);
  }
  EXPECT_GE(pos500, 0);
  EXPECT_LT(pos500, pos502);

  // A graph the engine rejects: Error with the request's xid, old graph untouched.
  json broken = sample_graph(false);
  broken["type"] = "SetProcessingGraphRequest";
  broken["blocks"][1]["type"] = "NoSuchBlock";
  json e = request(broken);
  EXPECT_EQ(e["type"], "Error");
  EXPECT_EQ(e["error_subtype"], "UNSUPPORTED_BLOCK") << e.dump();
  json cyc = sample_graph(false);
  cyc["type"] = "SetProcessingGraphRequest";
  cyc["connectors"].push_back({{"src", "d1"}, {"src_port", 0}, {"dst", "hc"}, {"dst_port", 0}});
  EXPECT_EQ(request(cyc)["type"], "Error");
  json still = request({{"type", "ReadRequest"}, {"block_id", "hc"}, {"read_handle", "count"}});
  EXPECT_EQ(still["type"], "ReadResponse") << "a failed SetProcessingGraph replaced the running graph";
  json missing_mod = sample_graph(false);
  missing_mod["type"] = "SetProcessingGraphRequest";
  missing_mod["required_modules"] = {"not_installed"};
  json mm = request(missing_mod);
  EXPECT_EQ(mm["error_subtype"], "ILLEGAL_STATE");
}

TEST_F(ControlTest, control_EveryInvalidVectorGivesItsError) {
  const fs::path dir = fs::path(OPENBOX_ROOT) / "protocol" / "vectors" / "messages";
  ASSERT_TRUE(fs::exists(dir));
  size_t posted = 0;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (!e.is_regular_file() || e.path().extension() != ".json") continue;
    json vec = json::parse(slurp(e.path()));
    if (vec["expect"] == "valid") continue;
    const std::string path = e.path().parent_path().filename().string();
    const std::string body = vec.contains("raw") ? vec["raw"].get<std::string>() : vec["message"].dump();
    auto res = post(path, body);
    const std::string where = fs::relative(e.path(), dir).string();
    ASSERT_TRUE(res) << where;
    EXPECT_EQ(res->status, 400) << where;
    json err = json::parse(res->body, nullptr, false);
    EXPECT_EQ(err["type"], "Error") << where;
    EXPECT_EQ(err["error_type"], vec["expect"]["error_type"]) << where << ": " << res->body;
    EXPECT_EQ(err["error_subtype"], vec["expect"]["error_subtype"]) << where << ": " << res->body;
    ++posted;
  }
  EXPECT_GT(posted, 0u);
  // Each rejection was also sent to the controller as an Error message.
  auto all_errors = [&] { return ctl_->count("Error") >= posted; };
  for (int i = 0; i < 100 && !all_errors(); ++i) std::this_thread::sleep_for(50ms);
  EXPECT_EQ(ctl_->count("Error"), posted);
  std::printf("control: %zu invalid vectors posted over HTTP\n", posted);
}

TEST_F(ControlTest, control_MalformedTransportCases) {
  auto res = post("KeepAlive", std::string(2 << 20, ' '));  // over the 1 MiB limit of this instance
  // Refused from its Content-Length, before the body is read: a client still sending may
  // see the 400 or a reset; the Error reaches the controller either way.
  if (res) {
    EXPECT_EQ(res->status, 400);
    EXPECT_EQ(json::parse(res->body, nullptr, false)["error_subtype"], "ILLEGAL_ARGUMENT") << res->body;
  }
  EXPECT_TRUE(
      ctl_->wait_for([](const json& m) { return m["type"] == "Error" && m["error_subtype"] == "ILLEGAL_ARGUMENT"; }));
  res = post("NoSuchMessage", R"({"type": "KeepAlive", "xid": 3, "dpid": 1})");
  EXPECT_EQ(res->status, 400);
  EXPECT_EQ(json::parse(res->body)["error_subtype"], "BAD_TYPE");
  EXPECT_EQ(json::parse(res->body)["xid"], 3);
  res = post("Hello", R"({"type": "Hello", "xid": 4, "dpid": 1, "version": "1.1.0", "capabilities": {}})");
  EXPECT_EQ(res->status, 400);
  EXPECT_EQ(json::parse(res->body)["error_subtype"], "UNSUPPORTED_MESSAGE");
  res = post("BarrierRequest", "");
  EXPECT_EQ(res->status, 400);
  // still alive and answering
  EXPECT_EQ(request({{"type", "ListCapabilitiesRequest"}})["type"], "ListCapabilitiesResponse");
}

TEST_F(ControlTest, control_ControllerRestartLeadsToNewHello) {
  request({{"type", "SetParametersRequest"}, {"parameters", {{"keepalive_interval", 0.1}}}});
  const int port = ctl_->port();
  // The controller sees the Hello before the OBI has read its answer.
  for (int i = 0; i < 100 && !obi_->connected(); ++i) std::this_thread::sleep_for(10ms);
  ASSERT_TRUE(obi_->connected());
  ctl_->stop();
  for (int i = 0; i < 100 && obi_->connected(); ++i) std::this_thread::sleep_for(50ms);
  EXPECT_FALSE(obi_->connected()) << "the OBI did not notice the controller going away";
  ctl_ = std::make_unique<TestController>(port);
  auto hello = ctl_->wait_type("Hello", 10s);
  ASSERT_TRUE(hello) << "no Hello after the controller came back";
  EXPECT_EQ((*hello)["dpid"], 42);
  EXPECT_TRUE(ctl_->wait_type("KeepAlive", 5s));
  // Responses reach the new controller too (the sender's kept connection went with the old).
  EXPECT_EQ(request({{"type", "GlobalStatsRequest"}})["type"], "GlobalStatsResponse");
}

TEST_F(ControlTest, control_GraphIsAppliedAsSentWithoutUnknownFields) {
  json g = sample_graph(false);
  const json sent_blocks = g["blocks"], sent_connectors = g["connectors"];
  g["blocks"][1]["comment"] = "fields the protocol does not define are not part of the graph";
  g["connectors"][0]["note"] = 1;
  g["type"] = "SetProcessingGraphRequest";
  g["report_back"] = true;
  json r = request(g);
  ASSERT_EQ(r["type"], "SetProcessingGraphResponse") << r.dump();
  EXPECT_EQ(r["blocks"], sent_blocks);
  EXPECT_EQ(r["connectors"], sent_connectors);
  EXPECT_EQ(request({{"type", "ReadRequest"}, {"block_id", "hc"}, {"read_handle", "no_match"}})["result"], 0);
}

TEST_F(ControlTest, control_CustomModuleAddUseRemove) {
#ifndef OBI_SAMPLE_MODULE
  GTEST_SKIP() << "sample module not built: obi/CMakeLists.txt must include tests/control/module.cmake";
#else
  const std::string so = slurp(OBI_SAMPLE_MODULE);
  ASSERT_GT(so.size(), 1000u);
  const json descriptor = json::parse(R"({"name": "SampleCounter", "class": "static", "spec": "extension",
      "description": "Counts packets.", "config": [], "read_handles": [{"name": "count", "type": "integer"}],
      "write_handles": [], "inputs": 1, "outputs": 1})");
  json add = {{"type", "AddCustomModuleRequest"},
              {"module_name", "sample"},
              {"module_content", openbox::base64_encode(so)},
              {"content_type", "application/octet-stream"},
              {"content_transfer_encoding", "base64"},
              {"translation", json::array({descriptor})}};
  obi::testing_signing::sign_request(add, so);
  json ok = request(add);
  ASSERT_EQ(ok["type"], "AddCustomModuleResponse") << ok.dump();
  EXPECT_EQ(request(add)["error_subtype"], "ILLEGAL_STATE");  // already installed
  json caps = request({{"type", "ListCapabilitiesRequest"}});
  EXPECT_TRUE(caps["capabilities"]["processing_blocks"].contains("SampleCounter"));

  json g = sample_graph(true);
  g["type"] = "SetProcessingGraphRequest";
  g["required_modules"] = {"sample"};
  g["blocks"].push_back({{"type", "SampleCounter"}, {"name", "sc"}});
  g["connectors"][3]["dst"] = "sc";
  g["connectors"].push_back({{"src", "sc"}, {"src_port", 0}, {"dst", "d2"}, {"dst_port", 0}});
  json set = request(g);
  ASSERT_EQ(set["type"], "SetProcessingGraphResponse") << set.dump();
  uint64_t counted = 0;
  for (int i = 0; i < 50 && counted == 0; ++i) {
    std::this_thread::sleep_for(50ms);
    json c = request({{"type", "ReadRequest"}, {"block_id", "sc"}, {"read_handle", "count"}});
    counted = c.value("result", json(0)).get<uint64_t>();
  }
  EXPECT_GT(counted, 0u) << "module element saw no packets";

  json busy = request({{"type", "RemoveCustomModuleRequest"}, {"module_name", "sample"}});
  EXPECT_EQ(busy["error_subtype"], "ILLEGAL_STATE") << busy.dump();
  json plain = sample_graph(false);
  plain["type"] = "SetProcessingGraphRequest";
  ASSERT_EQ(request(plain)["type"], "SetProcessingGraphResponse");
  EXPECT_EQ(request({{"type", "RemoveCustomModuleRequest"}, {"module_name", "sample"}})["type"],
            "RemoveCustomModuleResponse");
  EXPECT_EQ(request(g)["type"], "Error") << "graph with a removed module's block accepted";
  EXPECT_EQ(request({{"type", "RemoveCustomModuleRequest"}, {"module_name", "sample"}})["error_subtype"],
            "ILLEGAL_ARGUMENT");

  json junk = add;
  junk["module_name"] = "junk";
  junk["module_content"] = openbox::base64_encode("this is not a shared object");
  obi::testing_signing::sign_request(junk, "this is not a shared object");
  EXPECT_EQ(request(junk)["error_subtype"], "BAD_FILE");
#endif
}

TEST_F(ControlTest, control_CustomModuleBuiltForAnotherEngineIsRefused) {
  const std::string so = slurp(OBI_STALE_MODULE);
  ASSERT_GT(so.size(), 1000u);
  const json descriptor = json::parse(R"({"name": "StaleCounter", "class": "static", "spec": "extension",
      "description": "Never loaded.", "config": [], "read_handles": [], "write_handles": [],
      "inputs": 1, "outputs": 1})");
  json add = {{"type", "AddCustomModuleRequest"},
              {"module_name", "stale"},
              {"module_content", openbox::base64_encode(so)},
              {"content_type", "application/octet-stream"},
              {"content_transfer_encoding", "base64"},
              {"translation", json::array({descriptor})}};
  obi::testing_signing::sign_request(add, so);  // a valid signature: the ABI check is what refuses it
  json r = request(add);
  ASSERT_EQ(r["type"], "Error") << r.dump();
  EXPECT_EQ(r["error_subtype"], "ADD_MODULE_FAILED");
  EXPECT_NE(r["message"].get<std::string>().find("engine ABI 0000000000000000"), std::string::npos) << r.dump();
  json caps = request({{"type", "ListCapabilitiesRequest"}});
  EXPECT_FALSE(caps["capabilities"]["processing_blocks"].contains("StaleCounter"));
  // Nothing of the refused module stays installed: the name is free again.
  EXPECT_EQ(request({{"type", "RemoveCustomModuleRequest"}, {"module_name", "stale"}})["error_subtype"],
            "ILLEGAL_ARGUMENT");
}

TEST_F(ControlTest, control_LogMessagesGoToTheLogServerWhenSet) {
  TestController log_server;
  request({{"type", "SetParametersRequest"},
           {"parameters",
            {{"log_server_address", "127.0.0.1"},
             {"log_server_port", log_server.port()},
             {"log_messages_buffer_size", 5},
             {"log_messages_buffer_timeout", 20}}}});
  json g = sample_graph(true);
  g["type"] = "SetProcessingGraphRequest";
  g["blocks"][2] = {
      {"type", "Log"},
      {"name", "lg"},
      {"config", {{"message", "tcp flow"}, {"severity", 2}, {"attach_packet", true}, {"packet_size", 14}}}};
  g["connectors"][1]["dst"] = "lg";
  g["connectors"][2]["src"] = "lg";
  ASSERT_EQ(request(g)["type"], "SetProcessingGraphResponse");
  auto log = log_server.wait_type("Log", 10s);
  ASSERT_TRUE(log) << "no Log message at the log server";
  EXPECT_EQ((*log)["origin_dpid"], 42);
  ASSERT_FALSE((*log)["messages"].empty());
  EXPECT_LE((*log)["messages"].size(), 5u);
  const json& first = (*log)["messages"][0];
  EXPECT_EQ(first["message"], "tcp flow");
  EXPECT_EQ(first["severity"], 2);
  EXPECT_EQ(first["origin_block"], "lg");
  EXPECT_FALSE(first.contains("app_id"));
  std::string pkt;
  ASSERT_TRUE(openbox::base64_decode(first["packet"].get<std::string>(), pkt));
  EXPECT_EQ(pkt.size(), 14u);  // the Ethernet header
  EXPECT_EQ(static_cast<uint8_t>(pkt[12]), 0x08);
  EXPECT_EQ(ctl_->count("Log"), 0u) << "Log messages went to the controller despite a log server";
  EXPECT_TRUE(log_server.violations().empty());
}

// The real executable: `obi --dpid --listen --controller --workers` says Hello, answers
// requests over HTTP and exits 0 on SIGINT.
TEST(control_binary, ObiProcessSaysHelloAndStopsOnSigint) {
  if (!fs::exists(OBI_BINARY)) GTEST_SKIP() << OBI_BINARY << " is not built";
  TestController ctl;
  // A free port for the OBI: bind port 0 with a plain socket and close it again (an
  // httplib::Server left bound would share the port through SO_REUSEPORT and take some of
  // the OBI's connections).
  int port = 0;
  {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    ASSERT_GE(fd, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
    ASSERT_EQ(getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len), 0);
    port = ntohs(a.sin_port);
    close(fd);
  }
  const std::string listen = "127.0.0.1:" + std::to_string(port);
  std::vector<std::string> args{OBI_BINARY, "--dpid",    "9", "--listen", listen,      "--controller",
                                ctl.url(),  "--workers", "1", "--quiet",  "--insecure"};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  ASSERT_EQ(posix_spawn(&pid, OBI_BINARY, nullptr, nullptr, argv.data(), environ), 0);
  // Whatever happens below, the child does not outlive the test.
  struct Reaper {
    pid_t pid;
    bool reaped = false;
    ~Reaper() {
      if (!reaped) {
        kill(pid, SIGKILL);
        waitpid(pid, nullptr, 0);
      }
    }
  } reaper{pid};
  auto hello = ctl.wait_type("Hello", 20s);
  if (hello) {
    EXPECT_EQ((*hello)["dpid"], 9);
    EXPECT_EQ((*hello)["source_port"], port);
    httplib::Client cli("127.0.0.1", port);
    cli.set_read_timeout(20s);
    auto res = cli.Post("/message/ListCapabilitiesRequest", R"({"type": "ListCapabilitiesRequest", "xid": 31})",
                        "application/json");
    ASSERT_TRUE(res);
    EXPECT_EQ(res->status, 200);
    auto caps = ctl.wait_xid(31);
    ASSERT_TRUE(caps);
    EXPECT_EQ((*caps)["type"], "ListCapabilitiesResponse");
  } else {
    ADD_FAILURE() << "the obi process sent no Hello";
  }
  kill(pid, SIGINT);
  int status = 0;
  pid_t done = 0;
  for (int i = 0; i < 200 && done == 0; ++i) {
    done = waitpid(pid, &status, WNOHANG);
    if (done == 0) std::this_thread::sleep_for(50ms);
  }
  if (done == 0) FAIL() << "obi did not stop within 10 s of SIGINT";
  reaper.reaped = true;
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "exit status " << status;
  EXPECT_TRUE(ctl.violations().empty());
}

// A module whose signature fails is never written executable nor dlopen()ed: the marker
// module's constructor (run by dlopen) leaves no file, the Error names the reason, and the
// running graph goes on. The same module correctly signed is loaded and leaves the marker,
// so the marker does show a load.
TEST_F(ControlTest, control_RefusedModuleIsNeverLoaded) {
  namespace ts = obi::testing_signing;
  const fs::path marker = fs::temp_directory_path() / ("obi-marker-" + std::to_string(::getpid()));
  fs::remove(marker);
  ::setenv("OBI_TEST_MODULE_MARKER", marker.c_str(), 1);
  const std::string so = slurp(OBI_MARKER_MODULE);
  ASSERT_GT(so.size(), 1000u);

  json g = sample_graph(true);
  g["type"] = "SetProcessingGraphRequest";
  ASSERT_EQ(request(g)["type"], "SetProcessingGraphResponse");
  auto read_hc = [&] { return request({{"type", "ReadRequest"}, {"block_id", "hc"}, {"read_handle", "count"}}); };
  json before = read_hc();
  ASSERT_EQ(before["type"], "ReadResponse") << before.dump();

  json add = {{"type", "AddCustomModuleRequest"},
              {"module_name", "marker"},
              {"module_content", openbox::base64_encode(so)},
              {"content_type", "application/octet-stream"},
              {"content_transfer_encoding", "base64"}};
  auto refused = [&](const json& m, const std::string& reason) {
    json r = request(m);
    EXPECT_EQ(r["type"], "Error") << r.dump();
    EXPECT_EQ(r["error_type"], "INTERNAL_ERROR") << r.dump();
    EXPECT_EQ(r["error_subtype"], "ADD_MODULE_FAILED") << r.dump();
    EXPECT_NE(r.value("message", "").find(reason), std::string::npos) << r.dump();
    EXPECT_FALSE(fs::exists(marker)) << "the refused module was loaded (" << reason << ")";
  };
  refused(add, "it is not signed");
  json tampered = add;
  ts::sign_request(tampered, so);
  std::string bytes = so;
  bytes[bytes.size() - 1] ^= 1;  // a byte changed after signing
  tampered["module_content"] = openbox::base64_encode(bytes);
  refused(tampered, "does not match its name, version and content");
  json renamed = add;
  ts::sign_request(renamed, so);
  renamed["module_name"] = "marker2";
  refused(renamed, "custom module \"marker2\" refused");
  json unknown = add;
  ts::sign_request(unknown, so);
  unknown["key_id"] = ts::vector()["untrusted_key_id"];
  refused(unknown, "which this OBI does not trust");

  // the running graph was not touched: same graph, still answering
  json after = read_hc();
  EXPECT_EQ(after["type"], "ReadResponse") << after.dump();
  ASSERT_TRUE(after["result"].is_array() && before["result"].is_array()) << after.dump();
  EXPECT_GE(after["result"][0].get<uint64_t>(), before["result"][0].get<uint64_t>());
  json caps = request({{"type", "ListCapabilitiesRequest"}});
  EXPECT_TRUE(caps["capabilities"]["processing_blocks"].contains("HeaderClassifier"));

  json good = add;
  ts::sign_request(good, so);
  json ok = request(good);
  EXPECT_EQ(ok["type"], "AddCustomModuleResponse") << ok.dump();
  EXPECT_TRUE(fs::exists(marker)) << "the accepted module's constructor did not run";
  fs::remove(marker);
  ::unsetenv("OBI_TEST_MODULE_MARKER");
}
