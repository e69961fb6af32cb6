// Stand-in for the symmetric heap, compiled only while src/heap/ has no
// build rules: init reports that the heap is missing instead of failing to link.
#include "heap.h"
#include "log.h"

namespace gshmemi {

int heap_init(Bootstrap &, const HeapConfig &, gshmemi_device_state_t *) {
  return GSHMEMI_ERROR(GSHMEMX_ERROR_NOT_SUPPORTED, "this build of gshmem has no symmetric heap");
}
int heap_finalize(Bootstrap &) { return GSHMEM_SUCCESS; }
void *heap_allocate(Bootstrap &, std::size_t, std::size_t) {
  GSHMEMI_ERROR(GSHMEMX_ERROR_NOT_SUPPORTED, "this build of gshmem has no symmetric heap");
  return nullptr;
}
void heap_release(Bootstrap &, void *) {}
std::size_t heap_bytes_in_use() { return 0; }
bool heap_contains(const void *, std::size_t) { return false; }

}  // namespace gshmemi
