// Compiled (never run) by the order_compile_* tests: each GSHMEM_CHECK_CASE
// uses the C++ API with one order; the invalid ones must be rejected by the
// API's static_assert, and the valid control must compile, so that a
// failure means the check works and not that the file is broken.
#include <gshmem/runtime.h>
#include <gshmem/update_ext.h>

__global__ void order_case(unsigned long long *x, int pe) {
#if GSHMEM_CHECK_CASE == 0  // control: every valid form
  unsigned long long v = gshmem::atomic_load<gshmem::memory_order::acquire>(x, pe);
  gshmem::atomic_store<gshmem::memory_order::release>(x, v, pe);
  gshmem::atomic_fetch_add<gshmem::memory_order::acq_rel, gshmem::thread_scope::device>(x, 1, pe);
  gshmem::atomic_fence<gshmem::memory_order::acquire>();
#elif GSHMEM_CHECK_CASE == 1  // a release load
  (void)gshmem::atomic_load<gshmem::memory_order::release>(x, pe);
#elif GSHMEM_CHECK_CASE == 2  // an acquire store
  gshmem::atomic_store<gshmem::memory_order::acquire>(x, 1ull, pe);
#elif GSHMEM_CHECK_CASE == 3  // a relaxed fence
  gshmem::atomic_fence<gshmem::memory_order::relaxed>();
#elif GSHMEM_CHECK_CASE == 4  // an acq_rel load
  (void)gshmem::atomic_load<gshmem::memory_order::acq_rel, gshmem::thread_scope::block>(x, pe);
#elif GSHMEM_CHECK_CASE == 5  // exchange of a 32-byte object
  struct alignas(32) wide { unsigned long long a, b, c, d; };
  (void)gshmem::atomic_exchange(reinterpret_cast<wide *>(x), wide{1, 2}, pe);
#endif
}
