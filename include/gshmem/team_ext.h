// Team extensions (gshmemx_): warp and block forms of the team sync, the
// team barrier (quiet + sync) in every form, and the on-stream team
// synchronizations. Part of <gshmem/gshmemx.h>. Rules of <gshmem/team.h>.
#pragma once

#include <gshmem/team.h>

#include <cuda_runtime_api.h>

#if defined(__CUDACC__)
/* gshmemx_team_sync_warp / _block: gshmem_team_sync called by all 32 lanes
 * of a converged warp / every thread of the block together (ordering: every
 * store the group made before the call). gshmemx_team_barrier[_warp|_block]:
 * gshmem_quiet by the group, then the team sync: the group's earlier puts,
 * atomics and signals are complete and visible to every member when any
 * member returns. All return 0, or -1 (every member of the group, one
 * diagnostic line) for an invalid handle. The one-thread barrier is the
 * host+device gshmemx_team_barrier below. */
#define GSHMEMI_DEFINE_TEAM_SYNC_GROUP(SUFFIX, GROUP_DECL)                                          \
  GSHMEM_DEVICE int gshmemx_team_sync##SUFFIX(gshmem_team_t team) {                                \
    GROUP_DECL return gshmem::detail::sync_team_handle<false>(g, team, "gshmemx_team_sync" #SUFFIX); \
  }                                                                                                 \
  GSHMEM_DEVICE int gshmemx_team_barrier##SUFFIX(gshmem_team_t team) {                             \
    GROUP_DECL return gshmem::detail::sync_team_handle<true>(g, team, "gshmemx_team_barrier" #SUFFIX); \
  }
#define GSHMEMI_TEAM_GROUP_WARP gshmem::detail::warp_group g;
#define GSHMEMI_TEAM_GROUP_BLOCK                    \
  __shared__ gshmem::detail::block_scratch scratch; \
  gshmem::detail::block_group g(&scratch);
GSHMEMI_DEFINE_TEAM_SYNC_GROUP(_warp, GSHMEMI_TEAM_GROUP_WARP)
GSHMEMI_DEFINE_TEAM_SYNC_GROUP(_block, GSHMEMI_TEAM_GROUP_BLOCK)
#undef GSHMEMI_DEFINE_TEAM_SYNC_GROUP
/* gshmemx_team_barrier_warpgroup: the team barrier called by every thread
 * of a warpgroup, four consecutive warps (linear thread indices 128 w ..
 * 128 w + 127; the block's last one may be shorter). The warpgroup meets at
 * a named barrier (idea from NVSHMEM's warpgroup scope: one hardware
 * barrier per warpgroup, here number 1 + w, leaving barrier 0 to
 * __syncthreads), its first warp runs gshmemx_team_barrier_warp, and the
 * warpgroup meets again: the warpgroup's earlier puts, atomics and signals
 * are complete and visible to every member when any member returns. One
 * warpgroup per team and PE at a time, as the other forms; named barriers
 * 1 to 8 must not be in use by the kernel meanwhile. Returns 0, or -1 (every
 * thread of the warpgroup; one diagnostic line) for an invalid handle. */
GSHMEM_DEVICE void gshmemi_warpgroup_sync(unsigned wg) {
  const unsigned threads = blockDim.x * blockDim.y * blockDim.z - wg * 128u;
  const unsigned count = threads >= 128u ? 128u : (threads + 31u) & ~31u;
  asm volatile("bar.sync %0, %1;" : : "r"(1u + wg), "r"(count) : "memory");
}
GSHMEM_DEVICE int gshmemx_team_barrier_warpgroup(gshmem_team_t team) {
  const unsigned tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  const unsigned wg = tid / 128u;
  gshmemi_warpgroup_sync(wg);
  int rc = 0;
  if (tid % 128u < 32u) {
    gshmem::detail::warp_group g;
    rc = gshmem::detail::sync_team_handle<true>(g, team, "gshmemx_team_barrier_warpgroup");
  }
  gshmemi_warpgroup_sync(wg);
  if (tid % 128u >= 32u) {
    gshmem::detail::team_desc d;
    rc = gshmem::detail::device_team(team, &d) ? 0 : -1;
  }
  return rc;
}
#endif  // __CUDACC__

/* Team barrier, one thread (device) or the host: quiet, then the team sync.
 * Host: gshmemi_host_team_barrier (waits for this PE's device work first). */
GSHMEM_HD int gshmemx_team_barrier(gshmem_team_t team) {
#if GSHMEM_IN_DEVICE_CODE
  gshmem::detail::single_group g;
  return gshmem::detail::sync_team_handle<true>(g, team, "gshmemx_team_barrier");
#else
  return gshmemi_host_team_barrier(team);
#endif
}

GSHMEM_BEGIN_EXTERN_C
/* Teams from a unique id, without a parent team (NVSHMEM 3.5's
 * nvshmemx_team_get_uniqueid / nvshmemx_team_init).
 *
 * gshmemx_team_get_uniqueid: makes an id no PE of the job made before (it
 * names this PE and a count of its ids). Not collective: one future member
 * (index 0 by convention) calls it and hands the id to the others itself
 * (MPI, ...). Returns 0, or an error code (not initialized; a NULL
 * uniqueid: INVALID_VALUE), logged. Local; orders nothing.
 *
 * gshmemx_team_init: makes the team of the npes PEs that call it with
 * `uniqueid`, each with its own pe_idx_in_team in 0 .. npes - 1, which is
 * its rank in the new team. Collective over those npes PEs only (the other
 * PEs take no part and may be busy elsewhere, in another team's creation
 * too), one host thread per PE; every member passes the same uniqueid and
 * npes. The members find each other through their heaps (a small kernel on
 * the runtime's team stream, device/team_kernels.cu) and agree on a team
 * slot free on every member; the call returns when every member has
 * arrived. It orders no RMA or memory operation (sync the team for that).
 * On success *team is the new team's handle, a team like any other: every
 * team routine takes it, gshmem_team_destroy releases it. gshmem's teams
 * are strided: the members' world PEs taken in index order must be
 * start + k * stride (stride >= 1); other orders are refused. An id makes
 * one team: a second gshmemx_team_init with it on a PE is refused.
 * Returns 0, or an error code with *team GSHMEM_TEAM_INVALID, logged with
 * the cause and this PE: INVALID_VALUE for a NULL team, npes < 1 or beyond
 * the job, pe_idx_in_team outside 0 .. npes - 1, an id that is not one (or
 * that its creator never made, or reused on this PE), members not strided;
 * SYMMETRY for members disagreeing on npes or claiming the same index
 * (reported by the members that see it; the others may wait) and when the
 * members did not all arrive within GSHMEM_WAIT_TIMEOUT (without it set,
 * the call waits for them); OUT_OF_MEMORY: no team slot free on every
 * member; PEER_LOST: a member's process ended; NOT_INITIALIZED. */
GSHMEM_API int gshmemx_team_get_uniqueid(gshmemx_team_uniqueid_t *uniqueid);
GSHMEM_API int gshmemx_team_init(gshmem_team_t *team, gshmemx_team_uniqueid_t uniqueid, int npes,
                                 int pe_idx_in_team);

/* On-stream team synchronization (gshmemx_team_barrier_on_stream: the
 * barrier, whose quiet also completes the stream's earlier updates). The
 * stream's later work starts after every member's stream reached the same
 * sync, and observes every heap write that any member's stream made before
 * it. Members' calls on a team come in the same order and do not overlap on a
 * PE (one stream at a time per team).
 * On a team of 2 members, outside stream capture, the call is stream memory
 * operations: a write of a count to the other member (after a system fence
 * scoped to the stream) and a wait for the other's; the counts are the
 * host's, kept per team and pair of PEs, and an on-stream sync meets the
 * other member's on-stream syncs and barriers (gshmemx_barrier_all_on_stream
 * included, for the world team). Otherwise (a larger team, or in capture) it
 * is a small kernel running the device team sync, whose epoch is read and
 * advanced on the GPU (so every replay synchronizes) and shared with the
 * device forms. A given call is captured on every member or on none.
 * GSHMEM_STREAM_OPS=memops takes the memops at every team size;
 * GSHMEM_STREAM_OPS=kernels, a device without 64-bit stream memory
 * operations on some PE, or a job with remote PEs makes every call the
 * kernel; only the kernel reports a wait past GSHMEM_WAIT_TIMEOUT (a memop
 * wait ends when a member's process ends). Returns 0 once enqueued, or an
 * error code (invalid team: GSHMEMX_ERROR_INVALID_VALUE; not initialized;
 * stream of another device; launch failure) with nothing enqueued, logged and
 * recorded for gshmemx_get_last_error(). */
GSHMEM_API int gshmemx_team_sync_on_stream(gshmem_team_t team, cudaStream_t stream);
GSHMEM_API int gshmemx_team_barrier_on_stream(gshmem_team_t team, cudaStream_t stream);
/* gshmemx_team_sync_on_stream on GSHMEM_TEAM_WORLD. */
GSHMEM_API void gshmemx_sync_all_on_stream(cudaStream_t stream);
GSHMEM_END_EXTERN_C
