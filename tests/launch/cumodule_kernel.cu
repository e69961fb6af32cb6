// The module of cumodule_gpu_test.cpp, compiled by nvcc into a cubin that the
// test loads through the driver API: once with gshmem's device code and
// GSHMEMI_STATE_EXPORTED (the module's own state, exported under the name
// gshmemx_cumodule_init looks up), once without gshmem (no state).
#include <stdint.h>

#if !defined(CUMODULE_TEST_NO_GSHMEM)
#include <gshmem/gshmem.h>

// What the module's copy of the state says: initialized, my_pe, n_pes, and
// where gshmem_ptr puts `symmetric` on PE 0.
extern "C" __global__ void read_state(long long *out, const void *symmetric) {
  out[0] = gshmemi_state().initialized;
  out[1] = gshmem_my_pe();
  out[2] = gshmem_n_pes();
  out[3] = (long long)(uintptr_t)gshmem_ptr(symmetric, 0);
}
#else
extern "C" __global__ void read_state(long long *out, const void *) { out[0] = 42; }
#endif
