// The OBI's allocator: obi_engine links mimalloc so that it serves malloc and operator new
// in the whole process (obi/CMakeLists.txt). A link order that let glibc's malloc win
// would build and run, only slower on every graph swap; this test is what notices.
#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>
#include <string>

#ifdef OBI_MIMALLOC  // every build but the fuzzers' (which build no tests)
#include <mimalloc.h>

TEST(Allocator, MallocAndNewComeFromMimalloc) {
  void* small = std::malloc(48);
  void* large = std::malloc(1 << 20);
  auto node = std::make_unique<std::string>(100, 'x');  // operator new, and the string's buffer
  EXPECT_TRUE(mi_is_in_heap_region(small));
  EXPECT_TRUE(mi_is_in_heap_region(large));
  EXPECT_TRUE(mi_is_in_heap_region(node.get()));
  EXPECT_TRUE(mi_is_in_heap_region(node->data()));
  std::free(small);
  std::free(large);
}
#endif
