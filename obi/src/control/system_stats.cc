// /proc/self/statm and /proc/meminfo readers.
#include "control/system_stats.hh"

#include <unistd.h>

#include <cstdio>
#include <cstring>

namespace obi::control {

MemoryFigures read_memory() {
  MemoryFigures m;
  const uint64_t page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  if (FILE* f = std::fopen("/proc/self/statm", "r")) {
    unsigned long long size = 0, resident = 0;
    if (std::fscanf(f, "%llu %llu", &size, &resident) == 2) {
      m.vms = size * page;
      m.rss = resident * page;
    }
    std::fclose(f);
  }
  if (FILE* f = std::fopen("/proc/meminfo", "r")) {
    char line[256];
    while (std::fgets(line, sizeof line, f)) {
      unsigned long long kb = 0;
      if (std::sscanf(line, "MemTotal: %llu kB", &kb) == 1 && kb > 0) {
        m.usage = 100.0 * static_cast<double>(m.rss) / (static_cast<double>(kb) * 1024.0);
        break;
      }
    }
    std::fclose(f);
  }
  return m;
}

}  // namespace obi::control
