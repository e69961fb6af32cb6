// The symmetric heap as the rest of the runtime sees it.
//
// heap_init reserves and backs this PE's heap, exchanges it with the PEs of
// this node (CUDA VMM + POSIX file descriptors over private Unix-domain
// sockets; legacy cudaIpc handles as the fallback) and fills the heap fields
// of the device state. Allocation is collective: the same calls give the same
// offsets on every PE, and a disagreement between PEs is detected.
#pragma once

#include <gshmem/detail/state.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "bootstrap.h"

namespace gshmemi {

struct HeapConfig {
  std::size_t bytes;          // per PE, internal region included
  std::size_t max_bytes;      // what the heap may grow to per PE (VMM path only; <= bytes: no growth)
  bool use_vmm;               // false: legacy cudaIpc path
  std::size_t registration_bytes; // registration window per PE (VMM path only); 0: none
  int device;                 // this PE's CUDA device
  std::vector<int> node_of_pe; // node index of every PE (same node => mappable)
  // 1 for every PE whose heap must not be mapped here (a remote peer by
  // GSHMEM_REMOTE_PEERS=all; symmetric across PEs); empty: none.
  std::vector<unsigned char> unmapped_peers;
};

// Fills state->heap_base, heap_size, symmetric_span and peer_base[]. Collective.
int heap_init(Bootstrap &boot, const HeapConfig &config, gshmemi_device_state_t *state);
// Unmaps peers and releases this PE's heap. Collective.
// collective = false (a peer is gone): releases this PE's side without barriers.
int heap_finalize(Bootstrap &boot, bool collective = true);

// Collective symmetric allocation (src/heap/collective_heap.h): every PE's
// request is compared before any PE's heap changes; PEs that disagree all get
// NULL and a GSHMEMX_ERROR_SYMMETRY report naming the PEs and their calls.
// NULL on failure, with the cause reported through GSHMEMI_ERROR. A zero size
// returns NULL without an error (as OpenSHMEM's shmem_malloc(0)). The
// allgather inside is a barrier: on return every PE has made the call.
// heap_allocate is gshmem_align (alignment must be a power of two).
void *heap_allocate(Bootstrap &boot, std::size_t alignment, std::size_t size);
// gshmem_malloc: 256-byte alignment.
void *heap_malloc(Bootstrap &boot, std::size_t size);
// gshmem_calloc: count*size overflow is an error; the block is zeroed
// (device-synchronized) on every PE before any PE returns.
void *heap_calloc(Bootstrap &boot, std::size_t count, std::size_t size);
// Collective free; reports double free and foreign pointers. NULL is a
// collective no-op (every PE must still call it, like any heap call).
void heap_release(Bootstrap &boot, void *ptr);
// Bytes of heap this PE has now (the initial size plus what growth added;
// the same on every PE). A collective allocation that grows the heap
// changes it: the caller updates the device state's heap_size.
std::size_t heap_mapped_bytes();
// Bytes handed out to users (the internal region not counted).
std::size_t heap_bytes_in_use();
// True if [ptr, ptr+bytes) lies in this PE's heap.
bool heap_contains(const void *ptr, std::size_t bytes);

// Registered buffers (gshmemx_buffer_register_symmetric; the design is in
// src/heap/heap.cpp). Collective, like gshmem_malloc: every PE registers a
// buffer of the same size, which it allocated itself through the CUDA VMM
// API; the result is an address in the registration window of the
// symmetric address space, the same offset on every PE, that aliases the
// buffer. NULL on failure, reported through GSHMEMI_ERROR.
void *heap_register_buffer(Bootstrap &boot, void *buf, std::size_t size, int flags);
// Collective. GSHMEM_SUCCESS, or the reported error code (nothing changed).
int heap_unregister_buffer(Bootstrap &boot, void *ptr, std::size_t size);
// True if [ptr, ptr+bytes) lies inside one buffer registered on this PE
// (bytes == 0 counts as 1). Safe to call from any host thread.
bool registered_contains(const void *ptr, std::size_t bytes);
// registered_contains over an address, as host argument checks take it.
bool registered_range(std::uintptr_t address, std::uint64_t bytes);

}  // namespace gshmemi
