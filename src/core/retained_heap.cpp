#include "core/retained_heap.hpp"

#include <climits>

#if defined(__GLIBC__) && !defined(__SANITIZE_ADDRESS__)
#include <malloc.h>
#define FVPROXY_GLIBC_HEAP 1
#endif

namespace fvproxy {

#ifdef FVPROXY_GLIBC_HEAP
namespace {
int retained_heap_depth = 0; // guards alive (the set-up constructs them on the main thread only)
} // namespace
#endif

RetainedHeap::RetainedHeap() {
#ifdef FVPROXY_GLIBC_HEAP
  if (retained_heap_depth++ > 0) return;
  mallopt(M_MMAP_MAX, 0);                // every block from the heap, none mapped alone
  mallopt(M_TRIM_THRESHOLD, INT_MAX);    // the heap's free top kept
  mallopt(M_TOP_PAD, 256 * 1024 * 1024); // grown in large steps
#endif
}

RetainedHeap::~RetainedHeap() {
#ifdef FVPROXY_GLIBC_HEAP
  if (--retained_heap_depth > 0) return;
  // glibc's documented defaults (mallopt(3)), then the kept memory back to the system.
  mallopt(M_MMAP_MAX, 65536);
  mallopt(M_TRIM_THRESHOLD, 128 * 1024);
  mallopt(M_TOP_PAD, 128 * 1024);
  malloc_trim(0);
#endif
}

} // namespace fvproxy
