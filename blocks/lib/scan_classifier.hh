// ScanClassifier: the packet path shared by the classifiers that scan a packet's bytes
// with one Hyperscan database (RegexClassifier, StringClassifier). Output i is the first
// expression i (in list order) found anywhere in the scanned bytes; a packet with none is
// dropped. One scan per packet, stopped once expression 0 has matched. Per-output
// counters (OutputStats handles) and the payload_only handle (read and write) are here;
// a block supplies its database, compiled from its own config.
#pragma once

#include <atomic>
#include <memory>

#include "engine/element.hh"
#include "lib/hs_database.hh"
#include "lib/output_stats.hh"

namespace obi::blocks {

class ScanClassifier : public Element {
 public:
  ScanClassifier(std::unique_ptr<HsDatabase> db, const ElementArgs& args);

  uint16_t output_count() const override { return static_cast<uint16_t>(db_->size()); }
  void push(uint16_t input, Batch& batch, Context& ctx, const Outputs& out) override;
  nlohmann::json read(std::string_view handle) const override;
  void write(std::string_view handle, const nlohmann::json& value) override;

 private:
  std::unique_ptr<HsDatabase> db_;
  std::atomic<bool> payload_only_;
  OutputStats stats_;
};

}  // namespace obi::blocks
