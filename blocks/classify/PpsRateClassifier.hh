// PpsRateClassifier (spec 5.24): classifies the packet stream by its arrival rate in
// packets per second (EWMA, time constant 0.25 s, summed over workers).
//
// Ports: 1 input; n+1 outputs for n rates: output 0 while the rate is below rate[0],
// output i while rate[i-1] <= rate < rate[i], output n at or above rate[n-1].
// Config:
//   rate: array of increasing numbers (packets per second; numeric strings accepted).
// Config keys, handles and port counts: blocks/catalogue/PpsRateClassifier.json.
// Example: {"type": "PpsRateClassifier", "name": "pps", "config": {"rate": [1000, 100000]}}
#pragma once

#include "lib/rate_classifier.hh"

namespace obi::blocks {

class PpsRateClassifierElement final : public RateSplitterElement {
 public:
  explicit PpsRateClassifierElement(const ElementArgs& args);
};

}  // namespace obi::blocks
