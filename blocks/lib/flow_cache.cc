// FlowCache: the table's geometry and storage (the lookups are inline in the header).
#include "lib/flow_cache.hh"

#include <cstdlib>
#include <new>

namespace obi::blocks {

void FlowCache::FreeAligned::operator()(uint8_t* p) const { std::free(p); }

FlowCache::FlowCache(unsigned key_stride, unsigned results, uint32_t entries)
    : stride_(key_stride), results_(results ? results : 1) {
  if (entries > kMaxEntries) entries = kMaxEntries;
  uint32_t buckets = 1;
  while (buckets * kWays < entries) buckets <<= 1;
  mask_ = buckets - 1;
  entry_bytes_ = (stride_ + 8 + results_ * 4 + 31) & ~31u;
  bucket_bytes_ = kWays * entry_bytes_;
  const size_t bytes = static_cast<size_t>(buckets) * bucket_bytes_;
  void* p = std::aligned_alloc(64, (bytes + 63) & ~size_t(63));
  if (!p) throw std::bad_alloc();
  std::memset(p, 0, bytes);  // every tag without kValid: empty
  table_.reset(static_cast<uint8_t*>(p));
}

}  // namespace obi::blocks
