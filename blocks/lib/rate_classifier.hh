// RateSplitter: the shared core of BpsRateClassifier and PpsRateClassifier. It keeps an
// EWMA of the arrival rate of the stream (packets or bytes per second, per worker,
// summed over workers) and picks output i such that threshold[i-1] <= rate < threshold[i].
#pragma once

#include <vector>

#include "engine/element.hh"
#include "lib/output_stats.hh"

namespace obi::blocks {

class RateSplitterElement : public Element {
 public:
  // thresholds: strictly increasing; bytes: measure bytes (else packets) per second.
  RateSplitterElement(const ElementArgs& args, std::vector<double> thresholds, bool bytes);

  uint16_t output_count() const override { return static_cast<uint16_t>(thresholds_.size() + 1); }
  void push(uint16_t input, Batch& batch, Context& ctx, const Outputs& out) override;
  nlohmann::json read(std::string_view handle) const override;
  void write(std::string_view handle, const nlohmann::json& value) override;

  static constexpr double kTauSeconds = 0.25;  // reacts within about a second

 private:
  std::vector<double> thresholds_;
  bool bytes_;
  PerWorker<EwmaRate> input_rate_;
  OutputStats stats_;
};

}  // namespace obi::blocks
