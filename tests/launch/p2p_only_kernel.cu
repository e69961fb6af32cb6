// A one-way exchange as an application writes it: gshmem_uint64_p to the
// peer, then gshmem_uint64_wait_until on the local flag. Compiled twice by
// tests/launch/CMakeLists.txt, with GSHMEM_DEVICE_REMOTE 0 and 1, for the
// SASS check in check_p2p_only.cmake.
#include <gshmem/gshmem.h>

__global__ void p2p_only_pingpong(uint64_t *flag, int peer, uint64_t iters) {
  for (uint64_t i = 1; i <= iters; ++i) {
    gshmem_uint64_p(flag, i, peer);
    gshmem_uint64_wait_until(flag, GSHMEM_CMP_GE, i);
  }
}
