// BpsRateClassifier (spec 5.23): classifies the packet stream by its arrival rate in
// bytes per second (EWMA, time constant 0.25 s, summed over workers).
//
// Ports: 1 input; n+1 outputs for n rates: output 0 while the rate is below rate[0],
// output i while rate[i-1] <= rate < rate[i], output n at or above rate[n-1].
// Config:
//   rate: array of increasing bandwidths, e.g. ["384 kbps", "10 Mbps", "2 MBps"]
//         (bps = bits, Bps = bytes; k/M/G = 1e3/1e6/1e9; a bare number is bytes/s).
// Config keys, handles and port counts: blocks/catalogue/BpsRateClassifier.json.
// Example: {"type": "BpsRateClassifier", "name": "bw", "config": {"rate": ["1 Mbps", "100 Mbps"]}}
#pragma once

#include "lib/rate_classifier.hh"

namespace obi::blocks {

class BpsRateClassifierElement final : public RateSplitterElement {
 public:
  explicit BpsRateClassifierElement(const ElementArgs& args);
};

}  // namespace obi::blocks
