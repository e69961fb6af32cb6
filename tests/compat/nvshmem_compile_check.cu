// A program written for NVSHMEM, compiled against gshmem's compatibility
// headers (include/gshmem/compat) without -rdc. Case 0 must compile; the
// other cases call an NVSHMEM routine gshmem does not provide and must fail
// with a diagnostic that names it (tests/compat/CMakeLists.txt).
#include <nvshmem.h>
#include <nvshmemx.h>

#if GSHMEM_CHECK_CASE == 0
__global__ void k(int *flag, long *data, uint64_t *sig, size_t *idx, int *st, long *cv) {
  int pe = nvshmem_my_pe(), peer = (pe + 1) % nvshmem_n_pes();
  nvshmem_int_p(flag, 1, peer);
  nvshmem_long_put_nbi(data, data + 8, 8, peer);
  nvshmem_quiet();
  nvshmem_int_wait_until(flag, NVSHMEM_CMP_EQ, 1);
  size_t a = nvshmem_long_wait_until_any(data, 8, NULL, NVSHMEM_CMP_GE, 1);
  size_t s = nvshmem_long_test_some_vector(data, 8, idx, st, NVSHMEM_CMP_GE, cv);
  nvshmem_long_wait_until_all(data, 8, NULL, NVSHMEM_CMP_GE, 0);
  uint64_t v = nvshmem_signal_wait_until(sig, NVSHMEM_CMP_GE, 1);
  nvshmemx_signal_op(sig, v + a + s, NVSHMEM_SIGNAL_ADD, peer);
  nvshmem_long_put_signal(data, data + 8, 8, sig, 1, NVSHMEM_SIGNAL_SET, peer);
  long old = nvshmem_long_atomic_fetch_add(data, 1, peer);
  nvshmem_ulong_atomic_or((unsigned long *)data, (unsigned long)old, peer);
  nvshmemx_long_put_block(data, data + 8, 8, peer);
  nvshmemx_putmem_signal_warp(data, data + 8, 64, sig, 1, NVSHMEM_SIGNAL_ADD, peer);
  nvshmem_fence();
}
int main() {
  nvshmem_init();
  int *flag = (int *)nvshmem_malloc(sizeof(int));
  cudaStream_t s; cudaStreamCreate(&s);
  nvshmemx_int_wait_until_on_stream(flag, NVSHMEM_CMP_EQ, 1, s);
  nvshmemx_barrier_all_on_stream(s);
  nvshmem_barrier_all();
  nvshmem_free(flag);
  nvshmem_finalize();
}

#elif GSHMEM_CHECK_CASE == 1
// A collective gshmem does not provide.
__global__ void k(int *dest, const int *source) { nvshmem_int_and_reduce(NVSHMEM_TEAM_WORLD, dest, source, 1); }
#elif GSHMEM_CHECK_CASE == 2
// A collective gshmem does not provide.
__global__ void k(int *dest, const int *source) { nvshmem_int_alltoall(NVSHMEM_TEAM_WORLD, dest, source, 1); }
#endif
