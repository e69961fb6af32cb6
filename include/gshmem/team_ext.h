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
/* On-stream team synchronization: a small kernel on `stream` runs the device
 * team sync (gshmemx_team_barrier_on_stream: the barrier, whose quiet also
 * completes the stream's earlier updates). The stream's later work starts
 * after every member's stream reached the same sync, and observes every heap
 * write that any member's stream made before it. Members' calls on a team
 * come in the same order and do not overlap on a PE (one stream at a time per
 * team), and share the team's state with the device forms. The epoch is read
 * and advanced on the GPU, so captured graphs replay correctly. Returns 0 once
 * enqueued, or an error code (invalid team: GSHMEMX_ERROR_INVALID_VALUE; not
 * initialized; launch failure) with nothing enqueued, logged and recorded for
 * gshmemx_get_last_error(). */
GSHMEM_API int gshmemx_team_sync_on_stream(gshmem_team_t team, cudaStream_t stream);
GSHMEM_API int gshmemx_team_barrier_on_stream(gshmem_team_t team, cudaStream_t stream);
/* gshmemx_team_sync_on_stream on GSHMEM_TEAM_WORLD (shares the world team's
 * state with the device barrier_all / sync_all; gshmemx_barrier_all_on_stream
 * keeps its own). */
GSHMEM_API void gshmemx_sync_all_on_stream(cudaStream_t stream);
GSHMEM_END_EXTERN_C
