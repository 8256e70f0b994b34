// A chain of real blocks for tests of blocks that work in pairs (transactions, Store and
// Restore): output 0 of each block feeds the next one; every other output, and every
// output of the last block, ends in a capture (as in ElementHarness), so a test sees
// where each packet left and pool().available() tells whether a packet leaked.
#pragma once

#include <memory>
#include <utility>
#include <vector>

#include "engine/testing.hh"

namespace modtest {

class Pipeline {
 public:
  struct Exit {
    std::vector<obi::testing::Bytes> frames;
    std::vector<obi::Packet> meta;
  };

  // blocks: (type, config) in order.
  explicit Pipeline(const std::vector<std::pair<std::string, nlohmann::json>>& blocks, uint32_t pool_packets = 256)
      : pool_(pool_packets), events_(1, 64) {
    ctx_.pool = &pool_;
    ctx_.events = &events_;
    for (size_t i = 0; i < blocks.size(); ++i)
      elements_.push_back(obi::testing::make_element(blocks[i].first, blocks[i].second, "b" + std::to_string(i)));
    nodes_.resize(elements_.size());
    links_.resize(elements_.size());
    exits_.resize(elements_.size());
    for (size_t i = 0; i < elements_.size(); ++i) {
      const uint16_t n = elements_[i]->output_count();
      links_[i].resize(n);
      exits_[i].resize(n);
      for (uint16_t o = 0; o < n; ++o) {
        if (o == 0 && i + 1 < elements_.size()) {
          links_[i][o].node = &nodes_[i + 1];
          continue;
        }
        captures_.push_back(std::make_unique<obi::testing::CaptureElement>(&exits_[i][o].frames, &exits_[i][o].meta));
        capture_nodes_.push_back(std::make_unique<obi::Node>());
        capture_nodes_.back()->element = captures_.back().get();
        links_[i][o].node = capture_nodes_.back().get();
      }
      nodes_[i].element = elements_[i].get();
      nodes_[i].outputs.links = links_[i].data();
      nodes_[i].outputs.count = n;
    }
  }

  // Pushes the packets into the first block as one batch; clears earlier exits.
  void push(const std::vector<obi::Packet*>& packets) {
    for (auto& e : exits_)
      for (Exit& x : e) {
        x.frames.clear();
        x.meta.clear();
      }
    obi::Batch b;
    for (obi::Packet* p : packets) b.add(p);
    ++ctx_.depth;
    elements_[0]->push(0, b, ctx_, nodes_[0].outputs);
    --ctx_.depth;
  }
  void push(const std::vector<obi::testing::Bytes>& frames) {
    std::vector<obi::Packet*> ps;
    for (const auto& f : frames) ps.push_back(obi::testing::make_packet(pool_, f));
    push(ps);
  }

  // What left output `output` of block `block`.
  const Exit& exit(size_t block, uint16_t output) const { return exits_[block][output]; }
  obi::Element& element(size_t i) { return *elements_[i]; }
  obi::PacketPool& pool() { return pool_; }
  obi::Context& ctx() { return ctx_; }

 private:
  obi::PacketPool pool_;
  obi::RingEventSink events_;
  obi::Context ctx_;
  std::vector<std::unique_ptr<obi::Element>> elements_;
  std::vector<obi::Node> nodes_;
  std::vector<std::vector<obi::Link>> links_;
  std::vector<std::vector<Exit>> exits_;
  std::vector<std::unique_ptr<obi::testing::CaptureElement>> captures_;
  std::vector<std::unique_ptr<obi::Node>> capture_nodes_;
};

}  // namespace modtest
