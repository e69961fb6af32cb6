// What the runtime learned at init that other parts of the library need.
// Internal: not API.
#pragma once

namespace gshmemi {

// How many PEs of this node run on this PE's GPU, this PE included: 1 unless
// GSHMEM_ALLOW_GPU_SHARING let several share it (0 outside init..finalize).
// A PE that shares its GPU with k - 1 others may count on 1/k of it for work
// that must be resident while the others' is (gshmemx_collective_launch).
int pes_sharing_this_gpu();

// Releases the queue-pair handle arrays and forgets the registered local
// buffers (src/local_records.cpp); gshmem_finalize calls it. Without
// release_memory (a peer is gone: freeing pinned memory may wait for device
// work that never ends) the arrays stay until the process exits.
void local_records_finalize(bool release_memory);

}  // namespace gshmemi
