// One-way exchanges as an application writes them: gshmem_uint64_p (or a
// signal, or a remote atomic add) to the peer, then a wait on the local
// flag. Compiled twice by tests/launch/CMakeLists.txt, with
// GSHMEM_DEVICE_REMOTE 0 and 1, for the SASS check in check_p2p_only.cmake.
#include <gshmem/gshmem.h>
#include <gshmem/gshmemx.h>

__global__ void p2p_only_pingpong(uint64_t *flag, int peer, uint64_t iters) {
  for (uint64_t i = 1; i <= iters; ++i) {
    gshmem_uint64_p(flag, i, peer);
    gshmem_uint64_wait_until(flag, GSHMEM_CMP_GE, i);
  }
}

__global__ void p2p_only_signal_pingpong(uint64_t *sig, int peer, uint64_t iters) {
  for (uint64_t i = 1; i <= iters; ++i) {
    gshmemx_signal_op(sig, i, GSHMEM_SIGNAL_SET, peer);
    (void)gshmem_signal_wait_until(sig, GSHMEM_CMP_EQ, i);
  }
}

__global__ void p2p_only_atomic_pingpong(uint64_t *flag, int peer, uint64_t iters) {
  for (uint64_t i = 1; i <= iters; ++i) {
    gshmem_uint64_atomic_add(flag, 1, peer);
    gshmem_uint64_wait_until(flag, GSHMEM_CMP_GE, i);
  }
}
