// A fixed memory arena for one z_stream: zlib asks for its state and window through
// zalloc once (deflateReset / inflateReset keep them), and gets them from Bytes set aside
// when the block is built (Bytes of them), so nothing is allocated on the packet path. A request past
// the arena fails (Z_NULL), and zlib reports Z_MEM_ERROR.
#pragma once

#include <zlib.h>

#include <cstddef>
#include <cstdint>
#include <memory>

namespace obi::blocks {

template <size_t Bytes>
class ZlibArena {
 public:
  // Points the stream's allocator at this arena (before deflateInit2 / inflateInit2).
  void attach(z_stream& zs) {
    zs.zalloc = &ZlibArena::alloc;
    zs.zfree = &ZlibArena::release;
    zs.opaque = this;
  }

 private:
  static voidpf alloc(voidpf opaque, uInt items, uInt size) {
    auto* self = static_cast<ZlibArena*>(opaque);
    size_t n = (size_t(items) * size + 15) & ~size_t(15);
    if (self->used_ + n > Bytes) return Z_NULL;
    void* p = self->bytes_.get() + self->used_;
    self->used_ += n;
    return p;
  }
  static void release(voidpf, voidpf) {}

  std::unique_ptr<uint8_t[]> bytes_{new uint8_t[Bytes]};
  size_t used_ = 0;
};

}  // namespace obi::blocks
