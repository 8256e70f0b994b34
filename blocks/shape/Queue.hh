// Queue (spec 5.18, shaper): stores packets in a FIFO and releases them from the
// worker's task loop; drops arriving packets while it holds `capacity` packets.
//
// Capacity applies to each worker's queue (a packet stays on the worker that received
// it; with one worker the bound is exact). Each task run releases up to 64 packets, in
// arrival order, in batches. See lib/queue_core.hh.
// Held packets are never lost: when a graph swap removes the block they are handed on
// downstream at once (a carried-over block keeps them), and so they are when the OBI stops.
//
// Ports:   1 input, 1 output.
// Config keys, handles and port counts: blocks/catalogue/Queue.json.
// capacity is at most 1048576.
// Example: {"name": "q", "type": "Queue", "config": {"capacity": 1000}}
#pragma once

#include "lib/queue_core.hh"

namespace obi {

class QueueElement final : public blocks::QueueCore {
 public:
  explicit QueueElement(const ElementArgs& args) : QueueCore(args, false) {}
};

}  // namespace obi
