// What the runtime learned at init that other parts of the library need.
// Internal: not API.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

namespace gshmemi {

// How many PEs of this node run on this PE's GPU, this PE included: 1 unless
// GSHMEM_ALLOW_GPU_SHARING let several share it (0 outside init..finalize).
// A PE that shares its GPU with k - 1 others may count on 1/k of it for work
// that must be resident while the others' is (gshmemx_collective_launch).
int pes_sharing_this_gpu();

// The GPU's side of a cooperative launch of `kernel` with `threads` per
// block and `shmem` bytes of dynamic shared memory: its device, whether it
// takes cooperative launches, and how many such blocks an SM holds.
// host/launch.cpp (gshmemx_collective_launch and the wide collectives).
struct CooperativeFit {
  int device = -1;
  bool cooperative = false;
  int per_sm = 0;
  int sms = 0;
};
// The CUDA status of the queries (a failure is cleared, not left sticky).
cudaError_t query_cooperative_fit(const void *kernel, int threads, size_t shmem, CooperativeFit *fit);
// How many blocks of that fit this PE may count on being resident at once:
// the GPU's capacity divided among the PEs that share it (their cooperative
// kernels run at the same time, each needs its whole grid resident).
long long blocks_for_this_pe(const CooperativeFit &fit);

// Releases the queue-pair handle arrays and forgets the registered local
// buffers (src/local_records.cpp); gshmem_finalize calls it. Without
// release_memory (a peer is gone: freeing pinned memory may wait for device
// work that never ends) the arrays stay until the process exits.
void local_records_finalize(bool release_memory);

}  // namespace gshmemi
