// Internal interface between the team routines (host/team.cpp), the kernels
// behind them (device/team_kernels.cu) and the runtime's init/finalize.
// Not installed.
#pragma once

#include <gshmem/detail/config.h>
#include <gshmem/detail/team_sync.h>

#include <gshmem/types.h>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <mutex>

// gshmemi_team_init: loads the team kernels (never lazily behind a spinning
//   peer), creates the runtime's team stream and writes the predefined
//   teams' descriptors (world, shared, node, same_mype_node) into this PE's
//   team table. Call it after the heap exists (its internal region zeroed)
//   and before the last barrier of gshmem_init. Returns GSHMEM_SUCCESS or an error code (logged).
// gshmemi_team_finalize: forgets every team and releases the team stream.
GSHMEM_EXTERN_C int gshmemi_team_init(void);
GSHMEM_EXTERN_C void gshmemi_team_finalize(void);

namespace gshmemi {
namespace team {

// One block of kTeamThreads threads (a warp) on `stream`: the team sync
// (with_quiet: barrier) of `team`, as the device forms run it. `signature`:
// 0, or a collective's call signature when the sync is that collective's
// entry (team_sync.h: sync_team checks it against the other members').
constexpr unsigned kTeamThreads = 32;
cudaError_t launch_team_sync(int team, bool with_quiet, cudaStream_t stream, unsigned signature = 0);

// Team creation's agreement over the parent team (slot `parent`): each
// member publishes `free_mask` (its free team slots), syncs the parent, ANDs
// every member's mask, zeroes this PE's area of the lowest common free slot,
// syncs the parent again, and writes that slot (or -1) to *slot_out (device
// memory).
cudaError_t launch_team_agree(int parent, unsigned long long free_mask, int *slot_out, cudaStream_t stream);

// Team creation from a unique id (gshmemx_team_init): one warp on `stream`
// finds the other npes - 1 members by their records in every PE's heap,
// agrees on a slot free on every member (lowest common bit of the members'
// free_mask) and writes the outcome to *out (device memory). The
// protocol and why it is race-free: device/team_kernels.cu.
enum uniqueid_status : int {
  kUniqueidOk = 0,
  kUniqueidUnknown = 1,        // the creator (other_pe) made fewer ids (other_value) than the id's count
  kUniqueidDuplicateIndex = 2, // other_pe claims this PE's index or another member's (other_value)
  kUniqueidNpesMismatch = 3,   // other_pe passed npes other_value
  kUniqueidTimeout = 4,        // GSHMEM_WAIT_TIMEOUT passed; other_value members were found
  kUniqueidPeerLost = 5,       // other_pe's process ended
};
struct uniqueid_result {
  int slot;   // the agreed slot, or -1: none free on every member
  int status; // uniqueid_status
  int other_pe;
  int other_value;
  int members[GSHMEMI_MAX_PES];  // world PE of team rank k, k < npes
};
cudaError_t launch_uniqueid_agree(unsigned long long id, int index, int npes, unsigned long long free_mask,
                                  uniqueid_result *out, cudaStream_t stream);

// Loads every kernel of device/team_kernels.cu now (cudaFuncGetAttributes).
cudaError_t preload_team_kernels();

// For the collectives (host/collectives.cpp): the descriptor of `team` on
// this PE (false: invalid handle here), and the runtime's team stream with
// the lock that serializes its users (host team syncs, host collectives).
bool find_team(int team, gshmem::detail::team_desc *out);
std::recursive_mutex &team_stream_mutex();
cudaStream_t team_stream();

// The small collectives' kernels (device/collective_kernels.cu): one block
// of kCollectiveThreads threads runs the block form on `stream`.
constexpr unsigned kCollectiveThreads = 256;
#define GSHMEMI_DECLARE_REDUCE_LAUNCHER(NAME, TYPE, OP)                                           \
  cudaError_t launch_##NAME##_##OP##_reduce(int team, TYPE *dest, const TYPE *source, size_t n, \
                                            cudaStream_t stream);
#define GSHMEMI_DECLARE_COLLECTIVE_LAUNCHERS(NAME, TYPE)                                          \
  GSHMEM_FOR_EACH_REDUCE_OP(GSHMEMI_DECLARE_REDUCE_LAUNCHER, NAME, TYPE)                          \
  cudaError_t launch_##NAME##_fcollect(int team, TYPE *dest, const TYPE *source, size_t nelems,   \
                                       cudaStream_t stream);
GSHMEM_FOR_EACH_REDUCE_TYPE(GSHMEMI_DECLARE_COLLECTIVE_LAUNCHERS)
#undef GSHMEMI_DECLARE_COLLECTIVE_LAUNCHERS
#undef GSHMEMI_DECLARE_REDUCE_LAUNCHER
cudaError_t preload_collective_kernels();

// broadcast, alltoall and the byte forms of fcollect (also
// device/collective_kernels.cu): one kernel each over bytes serves every
// type; one block of kCollectiveThreads threads runs the block form.
cudaError_t launch_broadcast_bytes(int team, void *dest, const void *source, size_t nbytes, int root,
                                   cudaStream_t stream);
cudaError_t launch_alltoall_bytes(int team, void *dest, const void *source, size_t block_bytes, cudaStream_t stream);
cudaError_t launch_fcollect_bytes(int team, void *dest, const void *source, size_t nbytes, cudaStream_t stream);
cudaError_t preload_data_collective_kernels();
// The and/or/xor reductions and the reducescatters
// (device/reduction_kernels.cu), as above: one block of kCollectiveThreads.
#define GSHMEMI_REDUCTION_X(NAME, TYPE, OP, KIND)                                       \
  cudaError_t launch_##NAME##_##OP##_##KIND(int team, TYPE *dest, const TYPE *source, size_t n,      \
                                            cudaStream_t stream);
GSHMEMI_FOR_EACH_BITWISE_REDUCTION_AND_REDUCESCATTER
#undef GSHMEMI_REDUCTION_X
cudaError_t preload_reduction_kernels();

}  // namespace team
}  // namespace gshmemi
