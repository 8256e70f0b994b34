// The web cache graph run by the obi executable on a crafted pcap:
//   FromDump -> HeaderPayloadClassifier (tcp/80 "GET " at offset 0 | rest)
//            -> HttpCacheResponder [0] -> ToDump back.pcap, [1] -> ToDump out.pcap
// back.pcap must hold exactly the responses, out.pcap every other packet unchanged.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "frames.hh"
#include "io/pcap.hh"

namespace fs = std::filesystem;
using json = nlohmann::json;
using namespace webtest;
using obi::testing::udp4;

namespace {

std::string run(const std::string& args, int& code) {
  std::string cmd = std::string(OBI_BINARY) + " " + args + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  std::string text;
  std::array<char, 4096> buf;
  while (size_t n = fread(buf.data(), 1, buf.size(), p)) text.append(buf.data(), n);
  int st = pclose(p);
  code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return text;
}

std::vector<Bytes> read_pcap(const std::string& path) {
  obi::io::PcapReader r(path);
  std::vector<Bytes> out;
  uint64_t off = r.begin();
  obi::io::PcapRecord rec;
  while (r.next(off, rec)) out.emplace_back(rec.data, rec.data + rec.caplen);
  return out;
}

}  // namespace

TEST(WebCacheEndToEnd, ObiRunAnswersCachedGetsAndPassesTheRest) {
  fs::path dir = fs::temp_directory_path() / ("obi_webcache_" + std::to_string(getpid()));
  fs::create_directories(dir);
  std::string body;
  while (body.size() < 3000) body += "<p>cached paragraph " + std::to_string(body.size()) + "</p>\n";

  Request hit;  // small object: one segment
  hit.target = "/index.html";
  hit.seq = 4242;
  hit.ack = 9000;
  Request big = hit;  // 3000-byte object at mss 1200: three segments
  big.target = "/big.html";
  big.seq = 77;
  Request miss = hit;
  miss.target = "/not-cached.html";
  Request post = hit;
  post.method = "POST";
  std::vector<Bytes> in = {request(hit), request(miss), udp4("10.0.0.1", "10.0.0.2", 5000, 53, "dns?"), request(big),
                           request(post)};
  {
    obi::io::PcapWriter w((dir / "in.pcap").string());
    for (size_t i = 0; i < in.size(); ++i) w.write(in[i].data(), uint32_t(in[i].size()), (i + 1) * 1000000ull);
  }

  json http_rule = {{"header_match", {{"ETH_TYPE", "0x0800"}, {"IP_PROTO", 6}, {"TCP_DST", 80}}},
                    {"payload_match", {{{"pattern", "GET "}, {"is_regex", false}, {"from", 0}, {"to", 0}}}}};
  json graph = {
      {"blocks",
       {{{"type", "FromDump"}, {"name", "in"}, {"config", {{"filename", (dir / "in.pcap").string()}}}},
        {{"type", "HeaderPayloadClassifier"},
         {"name", "http"},
         {"config", {{"match", {http_rule, {{"header_match", json::object()}, {"payload_match", json::array()}}}}}}},
        {{"type", "HttpCacheResponder"},
         {"name", "cache"},
         {"config",
          {{"mss", 1200},
           {"entries",
            {{{"host", "www.example.com"},
              {"path", "/index.html"},
              {"content_type", "text/html"},
              {"body", b64("<html>hi</html>")}},
             {{"path", "/big.html"}, {"content_type", "text/html"}, {"body", b64(body)}}}}}}},
        {{"type", "ToDump"}, {"name", "back"}, {"config", {{"filename", (dir / "back.pcap").string()}}}},
        {{"type", "ToDump"}, {"name", "out"}, {"config", {{"filename", (dir / "out.pcap").string()}}}}}},
      {"connectors",
       {{{"src", "in"}, {"src_port", 0}, {"dst", "http"}, {"dst_port", 0}},
        {{"src", "http"}, {"src_port", 0}, {"dst", "cache"}, {"dst_port", 0}},
        {{"src", "http"}, {"src_port", 1}, {"dst", "out"}, {"dst_port", 0}},
        {{"src", "cache"}, {"src_port", 0}, {"dst", "back"}, {"dst_port", 0}},
        {{"src", "cache"}, {"src_port", 1}, {"dst", "out"}, {"dst_port", 0}}}}};
  std::ofstream(dir / "graph.json") << graph.dump(2);

  int code = -1;
  std::string text = run("run --graph " + (dir / "graph.json").string() + " --workers 1", code);
  ASSERT_EQ(code, 0) << text;
  EXPECT_NE(text.find("packets in 5 "), std::string::npos) << text;
  EXPECT_NE(text.find("HttpCacheResponder"), std::string::npos) << text;
  EXPECT_NE(text.find("count=2"), std::string::npos) << "two requests answered\n" << text;

  std::vector<Bytes> back = read_pcap((dir / "back.pcap").string());
  ASSERT_EQ(back.size(), 4u) << "one segment for /index.html, three for /big.html";
  Segment s = check_segment(in[0], back[0]);
  EXPECT_EQ(s.seq, 9000u);
  EXPECT_EQ(s.ack, 4242u + head(hit).size());
  EXPECT_EQ(s.flags, 0x19);
  EXPECT_EQ(s.payload, response_text("text/html", "<html>hi</html>"));
  std::string all;
  for (size_t i = 1; i < 4; ++i) {
    Segment b = check_segment(in[3], back[i]);
    EXPECT_EQ(b.seq, uint32_t(9000u + all.size()));
    EXPECT_EQ(b.ack, 77u + head(big).size());
    EXPECT_EQ(b.flags, i == 3 ? 0x19 : 0x18);
    all += b.payload;
  }
  EXPECT_EQ(all, response_text("text/html", body));

  std::vector<Bytes> out = read_pcap((dir / "out.pcap").string());
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0], in[1]) << "the miss, unchanged";
  EXPECT_EQ(out[1], in[2]) << "UDP, unchanged";
  EXPECT_EQ(out[2], in[4]) << "POST, unchanged";
  fs::remove_all(dir);
}
