// Teams (OpenSHMEM 1.5 teams): handles, the predefined teams, PE numbering
// within a team, creation by strided split, and team synchronization. Part
// of <gshmem/gshmem.h>; the warp/block, barrier and on-stream forms are in
// <gshmem/team_ext.h> (<gshmem/gshmemx.h>).
//
// A team handle is the same small integer on every member (the runtime
// agrees on it when the team is created), valid on its members only: a PE
// that is not in a new team gets GSHMEM_TEAM_INVALID. Device code reads the
// team descriptors from device memory (no -rdc needed); a kernel sees the
// teams that existed when it was launched. At most GSHMEMX_MAX_TEAMS teams
// exist at once on a PE, the four predefined ones included.
//
// Synchronization on a team follows the rules of the device barrier
// (<gshmem/detail/team_sync.h>): every member calls, in the same order as the
// other members' calls on that team, and one caller per team and PE at a
// time (one thread, warp or block; not two blocks or two streams at once).
#pragma once

#include <gshmem/detail/config.h>
#include <gshmem/detail/state.h>
#include <gshmem/detail/team_sync.h>

typedef int gshmem_team_t;

/* The predefined teams exist from gshmem_init to gshmem_finalize on every
 * PE and cannot be destroyed. Their handles have NVSHMEM's numbers (INVALID
 * -1, WORLD 0, SHARED 1, NODE 2, SAME_MYPE_NODE 3), so a program that stores
 * or passes the number gets the same team. A gshmem job runs on one node
 * and every PE maps every other PE's memory, hence the members below. */
#define GSHMEM_TEAM_INVALID (-1)
#define GSHMEM_TEAM_WORLD GSHMEMI_TEAM_WORLD   /* 0: every PE of the job */
#define GSHMEM_TEAM_SHARED GSHMEMI_TEAM_SHARED /* 1: the PEs whose memory this PE can map (OpenSHMEM's
                                                    shared-memory team): every PE of the job */
#define GSHMEMX_TEAM_NODE GSHMEMI_TEAM_NODE    /* 2: the PEs of this node: every PE of the job */
#define GSHMEMX_TEAM_SAME_MYPE_NODE GSHMEMI_TEAM_SAME_MYPE_NODE /* 3: one PE per node, the one with this
                                                                   PE's node-local rank: this PE alone */
#define GSHMEMX_MAX_TEAMS GSHMEMI_MAX_TEAMS

/* A team's unique id (gshmemx_team_get_uniqueid, <gshmem/team_ext.h>): 64
 * bits, passed between PEs by the program (over MPI, a file, ...). 0 is no
 * id. */
typedef unsigned long long gshmemx_team_uniqueid_t;
#define GSHMEMX_TEAM_UNIQUEID_INVALID 0ull

/* Team options (OpenSHMEM). num_contexts is accepted and ignored: gshmem has
 * no contexts. uniqueid (a gshmem extension, NVSHMEM's field): the id a
 * team made from a unique id was made from; read by nvshmemx_team_init
 * (<gshmem/compat/nvshmemx.h>), ignored by the splits. */
typedef struct gshmem_team_config {
  int num_contexts;
  gshmemx_team_uniqueid_t uniqueid;
} gshmem_team_config_t;
#define GSHMEM_TEAM_NUM_CONTEXTS (1L << 0)
#define GSHMEMX_TEAM_UNIQUEID (1L << 1)

GSHMEM_BEGIN_EXTERN_C

/* Creates a team of the parent's ranks start, start + stride, ...,
 * start + (size - 1) * stride (stride >= 1, all ranks inside the parent).
 * Collective over the parent team: every member calls with the same
 * arguments, one host thread per PE; it runs two syncs of the parent team on
 * the device (so device work on the parent team must not overlap it). On a
 * member of the new team *new_team is its handle; on the other PEs of the
 * parent, GSHMEM_TEAM_INVALID. Returns 0, or a GSHMEMX_ERROR_* code on every
 * member alike (invalid arguments: INVALID_VALUE; no team slot free on every
 * member: OUT_OF_MEMORY), logged with the cause; *new_team is then
 * GSHMEM_TEAM_INVALID. config and config_mask are accepted and ignored. */
GSHMEM_API int gshmem_team_split_strided(gshmem_team_t parent_team, int start, int stride, int size,
                                         const gshmem_team_config_t *config, long config_mask,
                                         gshmem_team_t *new_team);
/* Splits the parent team into a grid (OpenSHMEM 1.5 shmem_team_split_2d):
 * its ranks in rows of xrange (an xrange beyond the parent's size is the
 * size: one row; the last row is shorter where xrange does not divide the
 * size). *xaxis_team is this PE's row (parent ranks r - r % xrange ..., in
 * order), *yaxis_team its column (parent ranks r % xrange + k xrange, in
 * order): every member of the parent gets both. Collective over the parent
 * team as gshmem_team_split_strided (same arguments on every member; two
 * team creations, so two slots, each agreed over the parent); built on the
 * same creation. Returns 0, or an error code on every member alike
 * (INVALID_VALUE: xrange < 1, a NULL handle pointer, an invalid parent;
 * OUT_OF_MEMORY: no slot), logged, with both handles GSHMEM_TEAM_INVALID.
 * The configs and masks are accepted and ignored. */
GSHMEM_API int gshmem_team_split_2d(gshmem_team_t parent_team, int xrange, const gshmem_team_config_t *xaxis_config,
                                    long xaxis_mask, gshmem_team_t *xaxis_team,
                                    const gshmem_team_config_t *yaxis_config, long yaxis_mask,
                                    gshmem_team_t *yaxis_team);
/* The team's options (OpenSHMEM 1.5 shmem_team_get_config): the fields of
 * config named by config_mask; num_contexts (GSHMEM_TEAM_NUM_CONTEXTS) is 0,
 * gshmem having no contexts. Returns 0, or GSHMEMX_ERROR_INVALID_VALUE for
 * an invalid team or a NULL config (logged). Host only; orders nothing. */
GSHMEM_API int gshmem_team_get_config(gshmem_team_t team, long config_mask, gshmem_team_config_t *config);
/* Releases a team created by a split or from a unique id (gshmemx_team_init), on this PE (collective over its
 * members: each calls it once the team's work is done; none of them may use
 * the handle afterwards). GSHMEM_TEAM_INVALID: nothing to do. A predefined
 * or unknown team is an error (GSHMEMX_ERROR_INVALID_VALUE, logged). */
GSHMEM_API void gshmem_team_destroy(gshmem_team_t team);

/* Host halves of the host+device inline functions below. */
GSHMEM_API int gshmemi_host_team_my_pe(gshmem_team_t team);
GSHMEM_API int gshmemi_host_team_n_pes(gshmem_team_t team);
GSHMEM_API int gshmemi_host_team_translate_pe(gshmem_team_t src_team, int src_pe, gshmem_team_t dest_team);
/* The host team sync runs the device team sync on a stream of the runtime and
 * waits for it; the host team barrier first waits for this PE's device work
 * (cudaDeviceSynchronize), as gshmem_barrier_all does. 0 or an error code. */
GSHMEM_API int gshmemi_host_team_sync(gshmem_team_t team);
GSHMEM_API int gshmemi_host_team_barrier(gshmem_team_t team);

GSHMEM_END_EXTERN_C

/* This PE's number in `team` (0 <= n < gshmem_team_n_pes(team)); -1 for an
 * invalid handle. Host and device. No ordering implied. */
GSHMEM_HD int gshmem_team_my_pe(gshmem_team_t team) {
#if GSHMEM_IN_DEVICE_CODE
  gshmem::detail::team_desc d;
  return gshmem::detail::device_team(team, &d) ? d.my_rank : -1;
#else
  return gshmemi_host_team_my_pe(team);
#endif
}

/* Number of PEs in `team`; -1 for an invalid handle. Host and device. */
GSHMEM_HD int gshmem_team_n_pes(gshmem_team_t team) {
#if GSHMEM_IN_DEVICE_CODE
  gshmem::detail::team_desc d;
  return gshmem::detail::device_team(team, &d) ? d.size : -1;
#else
  return gshmemi_host_team_n_pes(team);
#endif
}

/* The number in dest_team of the PE numbered src_pe in src_team; -1 if that
 * PE is not in dest_team, src_pe is out of range or a handle is invalid.
 * Host and device. */
GSHMEM_HD int gshmem_team_translate_pe(gshmem_team_t src_team, int src_pe, gshmem_team_t dest_team) {
#if GSHMEM_IN_DEVICE_CODE
  gshmem::detail::team_desc from, to;
  if (!gshmem::detail::device_team(src_team, &from) || !gshmem::detail::device_team(dest_team, &to)) return -1;
  return gshmem::detail::team_translate(from, src_pe, to);
#else
  return gshmemi_host_team_translate_pe(src_team, src_pe, dest_team);
#endif
}

/* Synchronizes the members of `team`: returns when every member has entered.
 * Device: called by ONE thread (warp/block forms: gshmemx_team_sync_warp /
 * _block); every store the caller made before the call (local or remote) is
 * visible to every member after it returns there (release announcements,
 * acquire polls at system scope). Returns 0, or -1 with a diagnostic line
 * for a handle that is invalid on this PE (nothing waited for). Host:
 * gshmemi_host_team_sync. */
GSHMEM_HD int gshmem_team_sync(gshmem_team_t team) {
#if GSHMEM_IN_DEVICE_CODE
  gshmem::detail::single_group g;
  return gshmem::detail::sync_team_handle<false>(g, team, "gshmem_team_sync");
#else
  return gshmemi_host_team_sync(team);
#endif
}
