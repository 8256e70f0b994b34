// PpsShaper (spec 5.22, shaper): limits the traffic through it to `rate` packets per
// second.
//
// A token bucket shared by all workers decides when each packet may leave; packets above
// the rate wait in a bounded per-worker FIFO released by the task loop, and are dropped
// (counted in drops) when it overflows. After an idle period up to 1 ms worth of traffic
// (at least one packet) may leave at once. See lib/shaper_core.hh.
// Held packets are never lost: when a graph swap removes the block they are handed on
// downstream at once (a carried-over block keeps them), and so they are when the OBI stops.
//
// Ports:   1 input, 1 output.
// Config keys, handles and port counts: blocks/catalogue/PpsShaper.json.
// A write of rate takes effect at once.
// Example: {"name": "limit", "type": "PpsShaper", "config": {"rate": 10000}}
#pragma once

#include "lib/shaper_core.hh"

namespace obi {

class PpsShaperElement final : public blocks::ShaperCore {
 public:
  explicit PpsShaperElement(const ElementArgs& args) : ShaperCore(args, false) {}
};

}  // namespace obi
