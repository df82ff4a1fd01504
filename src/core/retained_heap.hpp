#pragma once
// While a mesh is built (docs/performance.md#the-heap-during-set-up): glibc keeps the memory the
// build frees (no block unmapped, the heap's top not given back) and hands it out again, instead of
// unmapping each large array when it is freed and faulting the next one in page by page. The mesh
// build allocates and frees arrays of the mesh's size many times (a piece, its faces, its order, the
// local mesh cut out of it); their page faults were 10-15 % of a build in parts on the 2-core VM.
// When the outermost guard ends, glibc's defaults come back and the kept memory is given back to the
// system (malloc_trim). Elsewhere (other C libraries, AddressSanitizer builds) it does nothing.
namespace fvproxy {

class RetainedHeap {
public:
  RetainedHeap();
  ~RetainedHeap();
  RetainedHeap(const RetainedHeap&) = delete;
  RetainedHeap& operator=(const RetainedHeap&) = delete;
};

} // namespace fvproxy
