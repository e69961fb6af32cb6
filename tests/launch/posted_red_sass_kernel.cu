// Routines that end in a no-return add to a peer's word, compiled for the
// SASS check in check_posted_red_sass.cmake: each holds the posted global
// reduction (REDG) and never a generic atomic, whose predicate the thread
// waits for (a round trip to the peer on every call). The syncs also hold
// their release fence, the barrier its sequentially consistent one.
#include <gshmem/gshmem.h>
#include <gshmem/gshmemx.h>

__global__ void posted_red_team_sync_thread(uint64_t iters) {
  for (uint64_t i = 0; i < iters; ++i)
    if (threadIdx.x == 0) gshmem_team_sync(GSHMEM_TEAM_WORLD);
}

__global__ void posted_red_sync_all_warp(uint64_t iters) {
  for (uint64_t i = 0; i < iters; ++i)
    if (threadIdx.x < 32) gshmemx_sync_all_warp();
}

__global__ void posted_red_team_sync_block(uint64_t iters) {
  for (uint64_t i = 0; i < iters; ++i) gshmemx_team_sync_block(GSHMEM_TEAM_WORLD);
}

__global__ void posted_red_barrier_all_thread(uint64_t iters) {
  for (uint64_t i = 0; i < iters; ++i)
    if (threadIdx.x == 0) gshmemx_barrier_all_thread();
}

// put_signal with SIGNAL_ADD: the signal is a release add.
__global__ void posted_red_put_signal_add(char *dest, const char *source, size_t bytes, uint64_t *sig, int pe) {
  if (threadIdx.x == 0) gshmem_putmem_signal(dest, source, bytes, sig, 1, GSHMEM_SIGNAL_ADD, pe);
}

// A counted write: the payload, then a release add of the byte count.
__global__ void posted_red_counted_block(char *dest, const char *source, size_t bytes, uint64_t *counter, int pe) {
  gshmemx_putmem_signal_counted_block(dest, source, bytes, counter, pe);
}
