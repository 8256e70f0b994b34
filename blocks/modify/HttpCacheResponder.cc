#include "HttpCacheResponder.hh"

#include "lib/block_spec.hh"

#include <algorithm>
#include <cstring>
#include <utility>

#include "engine/pool.hh"
#include "lib/bytes.hh"
#include "lib/config.hh"
#include "lib/headers.hh"
#include "openbox/messages.hh"

namespace obi {

using namespace blocks;
using nlohmann::json;

namespace {

constexpr uint8_t kFin = 0x01, kSyn = 0x02, kRst = 0x04, kPsh = 0x08, kAck = 0x10;
constexpr uint32_t kHeaderBytes = 40;  // IPv4 + TCP, both without options
constexpr uint32_t kMaxL2 = 64;        // Ethernet + up to 12 VLAN tags

char lower(char c) { return c >= 'A' && c <= 'Z' ? char(c - 'A' + 'a') : c; }

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (lower(a[i]) != lower(b[i])) return false;
  return true;
}

bool printable_token(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return c > ' ' && c <= '~'; });
}

// Sum of big-endian 16-bit words (an odd last byte is padded with zero), unfolded.
uint32_t word_sum(const uint8_t* p, size_t n, uint32_t s = 0) {
  size_t i = 0;
  for (; i + 1 < n; i += 2) s += uint32_t(p[i]) << 8 | p[i + 1];
  if (n & 1) s += uint32_t(p[n - 1]) << 8;
  return s;
}

uint16_t fold(uint64_t s) {
  while (s >> 16) s = (s & 0xffff) + (s >> 16);
  return static_cast<uint16_t>(s);
}

// "www.Example.com:8080" -> "www.Example.com"; "[::1]:80" -> "[::1]".
std::string_view strip_port(std::string_view h) {
  if (!h.empty() && h[0] == '[') {
    size_t e = h.find(']');
    return e == std::string_view::npos ? h : h.substr(0, e + 1);
  }
  size_t c = h.find(':');
  return c == std::string_view::npos ? h : h.substr(0, c);
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// A whole GET request head: its target split into host (from an absolute-form target or
// the Host header) and path. False for anything else, without reading past `n`.
bool parse_get(const uint8_t* data, uint32_t n, std::string_view& host, std::string_view& path) {
  std::string_view s(reinterpret_cast<const char*>(data), n);
  if (s.size() < 18 || s.substr(0, 4) != "GET ") return false;
  size_t sp = s.find(' ', 4);
  if (sp == std::string_view::npos || sp == 4) return false;
  std::string_view target = s.substr(4, sp - 4);
  if (!printable_token(target)) return false;
  std::string_view version = s.substr(sp + 1, 10);
  if (version.size() < 10 || version.substr(0, 7) != "HTTP/1." || version[7] < '0' || version[7] > '9' ||
      version.substr(8) != "\r\n")
    return false;
  std::string_view from_target;
  if (target.size() > 7 && iequals(target.substr(0, 7), "http://")) {
    std::string_view rest = target.substr(7);
    size_t slash = rest.find('/');
    from_target = rest.substr(0, slash);
    target = slash == std::string_view::npos ? std::string_view("/") : rest.substr(slash);
    if (from_target.empty()) return false;
  } else if (target[0] != '/') {
    return false;
  }
  std::string_view header_host;
  size_t pos = sp + 11;
  for (;;) {
    size_t eol = s.find("\r\n", pos);
    if (eol == std::string_view::npos) return false;  // head continues in a later segment
    if (eol == pos) {                                 // the empty line ends the head
      if (eol + 2 != s.size()) return false;          // a body or a pipelined request follows
      break;
    }
    std::string_view line = s.substr(pos, eol - pos);
    size_t colon = line.find(':');
    if (colon != std::string_view::npos && iequals(line.substr(0, colon), "host"))
      header_host = trim(line.substr(colon + 1));
    pos = eol + 2;
  }
  host = strip_port(from_target.empty() ? header_host : from_target);
  path = target;
  return true;
}

std::string response_head(const std::string& content_type, size_t body_len) {
  return "HTTP/1.1 200 OK\r\nContent-Type: " + content_type + "\r\nContent-Length: " + std::to_string(body_len) +
         "\r\nConnection: close\r\nX-Cache: HIT\r\n\r\n";
}

}  // namespace

HttpCacheResponderElement::HttpCacheResponderElement(const ElementArgs& args) : counts_(args.workers) {
  ConfigReader c(args);
  mss_ = static_cast<uint32_t>(c.integer("mss", 1460, 64, 9000));
  ttl_ = static_cast<uint8_t>(c.integer("ttl", 64, 1, 255));
  const json& list = c.require("entries");
  if (!list.is_array() || list.empty()) c.where("entries").expected("a non-empty array of cached objects", list);
  for (size_t i = 0; i < list.size(); ++i) {
    const json& o = list[i];
    const Where at = c.where("entries").at(i);
    if (!o.is_object()) at.expected("an object {host, path, content_type, body}", o);
    for (auto it = o.begin(); it != o.end(); ++it)
      if (it.key() != "host" && it.key() != "path" && it.key() != "content_type" && it.key() != "body")
        at.key(it.key()).fail("unknown field (known: host, path, content_type, body)");
    auto text = [&](const char* key, bool required, std::string def) {
      auto it = o.find(key);
      if (it == o.end() || it->is_null()) {
        if (required) at.key(key).fail("required, missing");
        return def;
      }
      if (!it->is_string()) at.key(key).expected("a string", *it);
      return it->get<std::string>();
    };
    Entry e;
    e.host = text("host", false, "");
    std::transform(e.host.begin(), e.host.end(), e.host.begin(), lower);
    if (!printable_token(e.host) || e.host.find(':') != std::string::npos)
      at.key("host").expected("a host name without port, spaces or control characters", e.host);
    e.path = text("path", true, "");
    if (e.path.empty() || e.path[0] != '/' || !printable_token(e.path))
      at.key("path").expected("a path starting with '/', printable ASCII without spaces", e.path);
    std::string type = text("content_type", false, "application/octet-stream");
    if (type.empty() || !std::all_of(type.begin(), type.end(), [](char ch) { return ch >= ' ' && ch <= '~'; }))
      at.key("content_type").expected("non-empty printable ASCII", type);
    std::string body, encoded = text("body", true, "");
    if (!encoded.empty() && !openbox::base64_decode(encoded, body))
      at.key("body").fail("expected base64 text, got text that does not decode");
    std::string head = response_head(type, body.size());
    if (head.size() + body.size() > kMaxResponse)
      at.key("body").fail("expected a response of at most " + std::to_string(kMaxResponse) + " bytes, the one for '" +
                          e.path + "' has " + std::to_string(head.size() + body.size()));
    e.response.assign(head.begin(), head.end());
    e.response.insert(e.response.end(), body.begin(), body.end());
    for (size_t off = 0; off < e.response.size(); off += mss_)
      e.chunk_sums.push_back(word_sum(e.response.data() + off, std::min<size_t>(mss_, e.response.size() - off)));
    by_path_[e.path].push_back(static_cast<uint32_t>(entries_.size()));
    entries_.push_back(std::move(e));
  }
  for (unsigned w = 0; w < counts_.size(); ++w) counts_[w].hits = std::make_unique<Counter[]>(entries_.size());
  base_hits_ = std::make_unique<std::atomic<uint64_t>[]>(entries_.size());
}

int HttpCacheResponderElement::lookup(std::string_view host, std::string_view path) const {
  auto it = by_path_.find(path);
  if (it == by_path_.end()) return -1;
  for (uint32_t i : it->second)
    if (entries_[i].host.empty() || iequals(entries_[i].host, host)) return static_cast<int>(i);
  return -1;
}

HttpCacheResponderElement::Verdict HttpCacheResponderElement::classify(Packet& p, int& entry, Context& ctx) const {
  const Headers& h = p.headers();
  if (h.eth_type != kEthIpv4 || h.ip_proto != kIpProtoTcp || h.fragment || h.l4 == kNoOffset ||
      h.payload == kNoOffset || h.l3 > kMaxL2)
    return Verdict::kPass;
  const auto ip = hdr::ipv4(p, h);
  const auto tcp = hdr::tcp(p, h);
  if (!ip || !tcp || ip.more_fragments()) return Verdict::kPass;  // first fragment of several
  uint32_t ip_len = ip.total_len();
  if (h.l3 + ip_len > p.len || h.l3 + ip_len < h.payload) return Verdict::kPass;
  uint8_t flags = tcp.flags();
  if (!(flags & kAck) || (flags & (kSyn | kRst))) return Verdict::kPass;
  std::string_view host, path;
  if (!parse_get(p.data + h.payload, h.l3 + ip_len - h.payload, host, path)) return Verdict::kPass;
  entry = lookup(host, path);
  if (entry < 0) return Verdict::kMiss;
  const Entry& e = entries_[entry];
  const uint32_t first = std::min<uint32_t>(mss_, static_cast<uint32_t>(e.response.size()));
  const uint32_t extra = static_cast<uint32_t>(e.chunk_sums.size()) - 1;
  // The request's buffer must hold the first segment, a pool buffer (kMaxFrame after its
  // headroom) each further one, and the pool must have a buffer for every further one.
  if (p.buf == nullptr || static_cast<uint32_t>(p.buf + p.buf_size - p.data) < h.l3 + kHeaderBytes + first ||
      (extra > 0 && (h.l3 + kHeaderBytes + mss_ > kMaxFrame || ctx.pool->available() < extra)))
    return Verdict::kNoBuffer;
  return Verdict::kHit;
}

uint32_t HttpCacheResponderElement::respond(Packet& p, const Entry& e, Batch& resp, Context& ctx, const Outputs& out,
                                            uint64_t& bytes) const {
  const Headers& h = p.headers();
  const uint32_t l2 = h.l3;
  uint8_t* d = p.data;
  const auto rip = hdr::ipv4(p, h);  // classify() checked both
  const auto rtcp = hdr::tcp(p, h);
  // Everything needed from the request, before its bytes are overwritten.
  const uint32_t saddr = rip.src(), daddr = rip.dst();
  const uint16_t sport = rtcp.src_port(), dport = rtcp.dst_port();
  const uint32_t req_seq = rtcp.seq(), req_ack = rtcp.ack();
  const uint32_t req_payload = l2 + rip.total_len() - h.payload;
  const uint32_t ack = req_seq + req_payload + ((rtcp.flags() & kFin) ? 1 : 0);

  // Headers of the first segment, in place; later segments copy them and patch.
  for (int i = 0; i < 6; ++i) std::swap(d[i], d[6 + i]);
  uint8_t* ip = d + l2;
  uint8_t* tcp = ip + 20;
  ip[0] = 0x45;
  ip[1] = 0;
  store_be16(ip + 4, 0);
  store_be16(ip + 6, 0x4000);
  ip[8] = ttl_;
  ip[9] = kIpProtoTcp;
  store_be32(ip + 12, daddr);
  store_be32(ip + 16, saddr);
  store_be16(tcp, dport);
  store_be16(tcp + 2, sport);
  store_be32(tcp + 8, ack);
  tcp[12] = 5 << 4;
  store_be16(tcp + 14, 65535);
  store_be16(tcp + 18, 0);
  // Pseudo-header without the TCP length: addresses and protocol.
  const uint32_t pseudo = (daddr >> 16) + (daddr & 0xffff) + (saddr >> 16) + (saddr & 0xffff) + kIpProtoTcp;

  // Later segments start from a copy of these headers: the first segment may already
  // have left (and its buffer been reused) when a full batch is emitted.
  uint8_t tmpl[kMaxL2 + kHeaderBytes];
  std::memcpy(tmpl, d, l2 + kHeaderBytes);
  const uint32_t flow_hash = p.flow_hash, input = p.input;
  const uint64_t ts = p.timestamp_ns;

  const uint32_t total = static_cast<uint32_t>(e.response.size());
  const uint32_t n = static_cast<uint32_t>(e.chunk_sums.size());
  for (uint32_t k = 0; k < n; ++k) {
    Packet* q = &p;
    if (k > 0) {
      // classify() checked that enough buffers are free; only an element downstream
      // that allocates while a full batch is out could take them (the rest is then lost).
      q = ctx.pool->alloc();
      if (q == nullptr) return k;
      std::memcpy(q->data, tmpl, l2 + kHeaderBytes);
      q->flow_hash = flow_hash;
      q->timestamp_ns = ts;
      q->input = static_cast<uint16_t>(input);
    }
    const uint32_t off = k * mss_;
    const uint32_t len = std::min(mss_, total - off);
    uint8_t* qip = q->data + l2;
    uint8_t* qtcp = qip + 20;
    std::memcpy(qtcp + 20, e.response.data() + off, len);
    store_be16(qip + 2, static_cast<uint16_t>(kHeaderBytes + len));
    store_be16(qip + 10, 0);
    store_be16(qip + 10, static_cast<uint16_t>(~fold(word_sum(qip, 20))));
    store_be32(qtcp + 4, req_ack + off);
    qtcp[13] = kAck | kPsh | (k + 1 == n ? kFin : 0);
    store_be16(qtcp + 16, 0);
    uint64_t sum = uint64_t(pseudo) + 20 + len + word_sum(qtcp, 20) + e.chunk_sums[k];
    store_be16(qtcp + 16, static_cast<uint16_t>(~fold(sum)));
    q->len = l2 + kHeaderBytes + len;
    q->invalidate_headers();
    bytes += q->len;
    resp.add(q);
    if (resp.full()) {
      out.emit(0, resp, ctx);
      resp.clear();
    }
  }
  return n;
}

void HttpCacheResponderElement::push(uint16_t, Batch& batch, Context& ctx, const Outputs& out) {
  Counts& c = counts_[ctx.worker];
  Batch resp;
  uint32_t kept = 0, answered = 0, segments = 0, misses = 0, no_buffer = 0;
  uint64_t bytes = 0;
  for (uint32_t i = 0; i < batch.n; ++i) {
    Packet* p = batch.pkts[i];
    int entry = -1;
    switch (classify(*p, entry, ctx)) {
      case Verdict::kHit:
        segments += respond(*p, entries_[entry], resp, ctx, out, bytes);
        c.hits[entry].add(1);
        ++answered;
        continue;
      case Verdict::kMiss: ++misses; break;
      case Verdict::kNoBuffer: ++no_buffer; break;
      case Verdict::kPass: break;
    }
    batch.pkts[kept++] = p;
  }
  batch.n = kept;
  if (answered) {
    c.answered.add(answered);
    c.segments.add(segments);
    c.bytes.add(bytes);
  }
  if (misses) c.misses.add(misses);
  if (no_buffer) c.no_buffer.add(no_buffer);
  if (kept) c.passed.add(kept);
  out.emit(0, resp, ctx);
  resp.clear();
  out.emit(1, batch, ctx);
}

uint64_t HttpCacheResponderElement::total(Counter Counts::*field) const {
  uint64_t n = 0;
  counts_.for_each([&](const Counts& c) { n += (c.*field).get(); });
  return n;
}

json HttpCacheResponderElement::read(std::string_view h) const {
  if (h == "count") return total(&Counts::answered) - base_answered_.load();
  if (h == "byte_count") return total(&Counts::bytes) - base_bytes_.load();
  if (h == "segments") return total(&Counts::segments) - base_segments_.load();
  if (h == "misses") return total(&Counts::misses) - base_misses_.load();
  if (h == "passed") return total(&Counts::passed) - base_passed_.load();
  if (h == "no_buffer") return total(&Counts::no_buffer) - base_no_buffer_.load();
  if (h == "hits") {
    json a = json::array();
    for (size_t i = 0; i < entries_.size(); ++i) {
      uint64_t n = 0;
      counts_.for_each([&](const Counts& c) { n += c.hits[i].get(); });
      a.push_back(n - base_hits_[i].load());
    }
    return a;
  }
  return Element::read(h);
}

void HttpCacheResponderElement::write(std::string_view h, const json& v) {
  if (h != "reset_counts") return Element::write(h, v);
  base_answered_.store(total(&Counts::answered));
  base_bytes_.store(total(&Counts::bytes));
  base_segments_.store(total(&Counts::segments));
  base_misses_.store(total(&Counts::misses));
  base_passed_.store(total(&Counts::passed));
  base_no_buffer_.store(total(&Counts::no_buffer));
  for (size_t i = 0; i < entries_.size(); ++i) {
    uint64_t n = 0;
    counts_.for_each([&](const Counts& c) { n += c.hits[i].get(); });
    base_hits_[i].store(n);
  }
}

OBI_REGISTER_BLOCK(HttpCacheResponder, HttpCacheResponderElement);

}  // namespace obi
