// Internal interface between the on-stream host routines (host/stream.cpp)
// and the kernels behind them (device/stream_kernels.cu). Not installed.
#pragma once

#include <gshmem/detail/config.h>
#include <gshmem/detail/state.h>
#include <gshmem/detail/team_sync.h>
#include <gshmem/types.h>

#include <cuda_runtime_api.h>
#include <cstddef>
#include <cstdint>

// Hooks for the runtime's init. Both return GSHMEM_SUCCESS or an error code
// (already logged).
//
// gshmemi_stream_preload_kernels: forces every kernel the on-stream routines
//   launch to be loaded now (cudaFuncGetAttributes), so no launch ever waits
//   for a lazy module load while a peer's kernel spins (a deadlock under
//   CUDA_MODULE_LOADING=LAZY). Needs the PE's device current.
// gshmemi_stream_init: preloads the kernels, zeroes this PE's on-stream
//   internal area (GSHMEMI_INTERNAL_STREAM_OFFSET of the heap: the counters
//   of barrier_all_on_stream) and records the heap's device. Call it after
//   the heap exists and before the last barrier of gshmem_init, so no peer
//   can arrive at a barrier before the counters are zero.
GSHMEM_EXTERN_C int gshmemi_stream_preload_kernels(void);
GSHMEM_EXTERN_C int gshmemi_stream_init(void);
// Called by the runtime's liveness monitor (any thread) once a peer is gone:
// if this process ever enqueued an on-stream memory-operation wait (which no
// device code watches), launches a kernel on `device` that prints one line
// and traps, so that every stream of the context fails instead of waiting
// forever. Kernel-path on-stream waits and device waits end by themselves.
GSHMEM_EXTERN_C void gshmemi_stream_end_device_work(int device, int lost_pe);

// The largest team whose on-stream syncs and barriers this PE would run as
// stream memory operations (64-bit waits and writes): 0 where its device
// cannot (or GSHMEM_STREAM_OPS=kernels), 2 by default (a memop sync writes
// and waits once per other member, a kernel's cost hardly grows with them:
// host/stream.cpp), GSHMEMI_MAX_PES with GSHMEM_STREAM_OPS=memops. Init
// takes the smallest over all PEs, so that every PE takes the same protocol
// for the same call (and resets the host's counts of it).
GSHMEM_EXTERN_C int gshmemi_stream_memop_sync_members(void);
GSHMEM_EXTERN_C void gshmemi_stream_enable_memop_sync(int max_members);

namespace gshmemi {
namespace stream {

enum class SetKind : int { all = 0, any = 1, some = 2 };

// Layout of the on-stream internal area of each PE's heap. Counters only
// grow, so replays of a captured graph need no reset.
// Two protocols for the on-stream barriers and syncs, each with its own
// counters (a call takes one of them on every PE; see
// sync_on_stream in host/team.cpp, and memop_sync in host/stream.cpp):
//  - kernel: the epoch lives on the GPU, so a captured graph replays it right
//    (the team syncs' epochs, in the team areas: <gshmem/detail/team_sync.h>;
//    barrier_all_on_stream's kernel is the world team's barrier);
//  - stream memory operations: counted by the host when the call is made
//    (outside stream capture only), one count per team slot and pair of PEs.
struct InternalArea {
  // [slot][j]: the memop syncs on team slot `slot` that world PE j and this
  // PE took part in together, as j counted them (written by j).
  unsigned long long memop_sync_arrivals[GSHMEMI_MAX_TEAMS][GSHMEMI_MAX_PES];
};
static_assert(sizeof(InternalArea) <= GSHMEMI_INTERNAL_STREAM_BYTES, "the on-stream internal area is too small");

// The on-stream team sync and barrier as stream memory operations
// (host/stream.cpp), for gshmemx_team_{sync,barrier}_on_stream and
// gshmemx_sync_all_on_stream (team `team`, its descriptor `d` on this PE).
// Returns false where the call must take the kernel (the protocol is off,
// the stream is being captured, or the job has remote members); true when
// it took the call, with *rc GSHMEM_SUCCESS or the error (logged).
bool enqueue_memop_team_sync(const char *fn, int team, const gshmem::detail::team_desc &d, cudaStream_t stream,
                             int *rc);

// Launchers, one per TYPENAME (kernels are templates instantiated per type in
// device/stream_kernels.cu). `values` NULL means the scalar cmp_value.
#define GSHMEMI_DECLARE_STREAM_LAUNCHERS(TYPENAME, TYPE)                                         \
  cudaError_t launch_wait_until_##TYPENAME(TYPE *ivar, int cmp, TYPE value, cudaStream_t stream); \
  cudaError_t launch_wait_set_##TYPENAME(SetKind kind, TYPE *ivars, size_t nelems,                \
                                         const int *status, int cmp, TYPE value,                  \
                                         const TYPE *values, size_t *indices, size_t *out,        \
                                         cudaStream_t stream);
GSHMEM_FOR_EACH_SYNC_TYPE(GSHMEMI_DECLARE_STREAM_LAUNCHERS)
#undef GSHMEMI_DECLARE_STREAM_LAUNCHERS

// sig_op SET: release store; ADD: release atomic add; target may be a peer address.
cudaError_t launch_signal(std::uint64_t *target, std::uint64_t value, int sig_op, cudaStream_t stream);
cudaError_t launch_quiet(cudaStream_t stream);
cudaError_t launch_end_device_work(int my_pe, int lost_pe, cudaStream_t stream);
// Synchronous: zeroes this PE's internal area (at init, before any peer uses it).
cudaError_t zero_internal_area(void *area);

}  // namespace stream
}  // namespace gshmemi
