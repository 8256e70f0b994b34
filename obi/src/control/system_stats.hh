// Process figures for GlobalStatsResponse (spec 4.2.3), read from /proc:
// resident and virtual memory of this process and its share of the machine's memory.
#pragma once

#include <cstdint>

namespace obi::control {

struct MemoryFigures {
  uint64_t rss = 0;  // bytes
  uint64_t vms = 0;  // bytes
  double usage = 0;  // rss as a percentage of MemTotal, 0..100
};

MemoryFigures read_memory();

}  // namespace obi::control
