// FrontDropQueue (spec 5.19, shaper): a FIFO that, when full, drops its oldest packet
// to make room for the arriving one (fresh packets win over stale ones).
//
// Capacity applies to each worker's queue (a packet stays on the worker that received
// it; with one worker the bound is exact). Each task run releases up to 64 packets, in
// arrival order, in batches. See lib/queue_core.hh.
// Held packets are never lost: when a graph swap removes the block they are handed on
// downstream at once (a carried-over block keeps them), and so they are when the OBI stops.
//
// Ports:   1 input, 1 output.
// Config keys, handles and port counts: blocks/catalogue/FrontDropQueue.json.
// capacity is at most 1048576.
// Example: {"name": "fq", "type": "FrontDropQueue", "config": {"capacity": 256}}
#pragma once

#include "lib/queue_core.hh"

namespace obi {

class FrontDropQueueElement final : public blocks::QueueCore {
 public:
  explicit FrontDropQueueElement(const ElementArgs& args) : QueueCore(args, true) {}
};

}  // namespace obi
