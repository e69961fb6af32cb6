// The small collectives over a team, OpenSHMEM names: max, min, sum, prod,
// and, or and xor reductions, reducescatter and fcollect, host and device.
// Part of <gshmem/gshmem.h>; the warp/block and on-stream forms are in
// <gshmem/collectives_ext.h>. Algorithm and rules:
// <gshmem/detail/team_collectives.h>.
//
// gshmem_TYPENAME_OP_reduce(team, dest, source, nreduce), OP in sum, prod,
//   max, min, TYPENAME in GSHMEM_FOR_EACH_REDUCE_TYPE, or OP in and, or, xor,
//   TYPENAME in GSHMEM_FOR_EACH_REDUCE_BITWISE_TYPE: dest[i] = OP over the
//   team's members (in rank order) of source[i] on that member, i < nreduce.
//   source is symmetric; dest == source is allowed (in place), any other
//   overlap is not. Integer sum/prod wrap in the type.
// gshmem_TYPENAME_OP_reducescatter(team, dest, source, nreduce), every OP
//   and TYPENAME of the reductions (NVSHMEM's reducescatter): source holds
//   n_pes(team) * nreduce elements; on the member of team rank k, dest[i] =
//   OP over the members (in rank order) of source[k * nreduce + i], i <
//   nreduce. dest (nreduce elements) may not overlap source at all.
// gshmem_TYPENAME_fcollect(team, dest, source, nelems): dest[r * nelems + i]
//   = source[i] on team rank r, for every member r (dest holds
//   n_pes(team) * nelems elements, and does not overlap source).
// Collective over the team: every member calls, with the same team, counts
// and symmetric addresses; one collective (or sync) per team and PE at a
// time. Return 0, or -1 (device: a diagnostic line; host: an error code) for
// an invalid team or overlapping buffers (reducescatter: also a count whose
// source cannot fit the address space), with nothing done.
// ORDERING: every store the caller made to its source before the call is
// read by every member (the call starts with a team sync); dest is complete
// for the caller when the call returns; no member's source is read after any
// member returned (the call ends with a team sync). The same with remote
// members (docs/remote.md), whose sources are fetched through the proxy.
// Device: called by ONE thread (warp/block forms: <gshmem/collectives_ext.h>).
// Host: runs the block form on a stream of the runtime and waits for it;
// device work that writes source must be complete before the call (e.g.
// cudaDeviceSynchronize), and dest is complete on return.
#pragma once

#include <gshmem/detail/config.h>
#include <gshmem/detail/team_collectives.h>
#include <gshmem/team.h>
#include <gshmem/types.h>

#include <stddef.h>

GSHMEM_BEGIN_EXTERN_C
/* Host halves of the host+device inline functions below. */
#define GSHMEMI_DECLARE_HOST_REDUCE_OP(NAME, TYPE, OP)                                                 \
  GSHMEM_API int gshmemi_host_##NAME##_##OP##_reduce(gshmem_team_t team, TYPE *dest, const TYPE *source, \
                                                     size_t nreduce);
#define GSHMEMI_DECLARE_HOST_COLLECTIVES(NAME, TYPE)                                                   \
  GSHMEM_FOR_EACH_REDUCE_OP(GSHMEMI_DECLARE_HOST_REDUCE_OP, NAME, TYPE)                                \
  GSHMEM_API int gshmemi_host_##NAME##_fcollect(gshmem_team_t team, TYPE *dest, const TYPE *source, size_t nelems);
GSHMEM_FOR_EACH_REDUCE_TYPE(GSHMEMI_DECLARE_HOST_COLLECTIVES)
#undef GSHMEMI_DECLARE_HOST_COLLECTIVES
#undef GSHMEMI_DECLARE_HOST_REDUCE_OP
GSHMEM_END_EXTERN_C

#if GSHMEM_IN_DEVICE_CODE
#define GSHMEMI_COLLECTIVE_BODY(DEVICE_CALL, HOST_CALL) \
  gshmem::detail::single_group g;                       \
  return DEVICE_CALL;
#else
#define GSHMEMI_COLLECTIVE_BODY(DEVICE_CALL, HOST_CALL) return HOST_CALL;
#endif

#define GSHMEMI_DEFINE_REDUCE_OP(NAME, TYPE, OP)                                                       \
  GSHMEM_HD int gshmem_##NAME##_##OP##_reduce(gshmem_team_t team, TYPE *dest, const TYPE *source,     \
                                              size_t nreduce) {                                        \
    GSHMEMI_COLLECTIVE_BODY((gshmem::detail::team_reduce<gshmem::detail::reduce_##OP>(                 \
                                g, team, dest, source, nreduce, "gshmem_" #NAME "_" #OP "_reduce")),  \
                            gshmemi_host_##NAME##_##OP##_reduce(team, dest, source, nreduce))          \
  }
#define GSHMEMI_DEFINE_COLLECTIVES(NAME, TYPE)                                                          \
  GSHMEM_FOR_EACH_REDUCE_OP(GSHMEMI_DEFINE_REDUCE_OP, NAME, TYPE)                                       \
  GSHMEM_HD int gshmem_##NAME##_fcollect(gshmem_team_t team, TYPE *dest, const TYPE *source, size_t nelems) { \
    GSHMEMI_COLLECTIVE_BODY(                                                                            \
        (gshmem::detail::team_fcollect(g, team, dest, source, nelems, "gshmem_" #NAME "_fcollect")),    \
        gshmemi_host_##NAME##_fcollect(team, dest, source, nelems))                                     \
  }
GSHMEM_FOR_EACH_REDUCE_TYPE(GSHMEMI_DEFINE_COLLECTIVES)
#undef GSHMEMI_DEFINE_COLLECTIVES
#undef GSHMEMI_DEFINE_REDUCE_OP
#undef GSHMEMI_COLLECTIVE_BODY

// ------------------------------------------------ broadcast, alltoall, *mem
// gshmem_TYPENAME_broadcast(team, dest, source, nelems, PE_root): dest[i] =
//   source[i] of team rank PE_root, i < nelems, on every member, the root
//   included. PE_root is a team rank (0 .. n_pes(team) - 1). dest == source
//   is allowed (the root's data stays where it is); any other overlap is
//   not. source is symmetric (read on the root).
// gshmem_TYPENAME_alltoall(team, dest, source, nelems): dest[r * nelems + i]
//   on team rank j = source[j * nelems + i] on team rank r, for every pair of
//   members (dest and source hold n_pes(team) * nelems elements each, and do
//   not overlap at all). dest is symmetric (written by the members).
// gshmem_broadcastmem / gshmem_alltoallmem / gshmem_fcollectmem: the same
//   over bytes (nelems counts bytes; any alignment).
// TYPENAME in GSHMEM_FOR_EACH_RMA_TYPE. Collective over the team, like the
// reductions above: every member calls with the same team, nelems, PE_root
// and symmetric addresses (a PE that passes another PE_root or nelems is
// not detected: docs/api.md). Return 0, or -1 (device: a diagnostic line;
// host: an error code) for an invalid team, a PE_root outside the team or
// overlapping buffers, with nothing done. A buffer that runs past the
// symmetric heap: host, an error code (NOT_SYMMETRIC); device, a diagnostic
// line and a trap, as for any other address that is not symmetric.
// ORDERING: as the reductions: every store the caller made to its source
// before the call is read by the members (the call starts with a team
// sync); dest is complete for the caller when the call returns; no member
// reads a source, or writes a dest, after any member returned (the call
// ends with a team sync). Members may be P2P or remote peers: a remote
// member's data moves through the proxy with the same guarantees
// (docs/remote.md, "Collectives over remote members").
GSHMEM_BEGIN_EXTERN_C
#define GSHMEMI_DECLARE_HOST_DATA_COLLECTIVES(NAME, TYPE)                                                  \
  GSHMEM_API int gshmemi_host_##NAME##_broadcast(gshmem_team_t team, TYPE *dest, const TYPE *source,      \
                                                 size_t nelems, int PE_root);                             \
  GSHMEM_API int gshmemi_host_##NAME##_alltoall(gshmem_team_t team, TYPE *dest, const TYPE *source, size_t nelems);
GSHMEM_FOR_EACH_RMA_TYPE(GSHMEMI_DECLARE_HOST_DATA_COLLECTIVES)
#undef GSHMEMI_DECLARE_HOST_DATA_COLLECTIVES
GSHMEM_API int gshmemi_host_broadcastmem(gshmem_team_t team, void *dest, const void *source, size_t nelems,
                                         int PE_root);
GSHMEM_API int gshmemi_host_alltoallmem(gshmem_team_t team, void *dest, const void *source, size_t nelems);
GSHMEM_API int gshmemi_host_fcollectmem(gshmem_team_t team, void *dest, const void *source, size_t nelems);
GSHMEM_END_EXTERN_C

#if GSHMEM_IN_DEVICE_CODE
#define GSHMEMI_DATA_COLLECTIVE_BODY(DEVICE_CALL, HOST_CALL) \
  gshmem::detail::single_group g;                            \
  return DEVICE_CALL;
#else
#define GSHMEMI_DATA_COLLECTIVE_BODY(DEVICE_CALL, HOST_CALL) return HOST_CALL;
#endif

#define GSHMEMI_DEFINE_DATA_COLLECTIVES(NAME, TYPE)                                                          \
  GSHMEM_HD int gshmem_##NAME##_broadcast(gshmem_team_t team, TYPE *dest, const TYPE *source, size_t nelems, \
                                          int PE_root) {                                                     \
    GSHMEMI_DATA_COLLECTIVE_BODY((gshmem::detail::team_broadcast(g, team, dest, source, nelems, PE_root,     \
                                                                 "gshmem_" #NAME "_broadcast")),             \
                                 gshmemi_host_##NAME##_broadcast(team, dest, source, nelems, PE_root))       \
  }                                                                                                          \
  GSHMEM_HD int gshmem_##NAME##_alltoall(gshmem_team_t team, TYPE *dest, const TYPE *source, size_t nelems) { \
    GSHMEMI_DATA_COLLECTIVE_BODY(                                                                            \
        (gshmem::detail::team_alltoall(g, team, dest, source, nelems, "gshmem_" #NAME "_alltoall")),         \
        gshmemi_host_##NAME##_alltoall(team, dest, source, nelems))                                          \
  }
GSHMEM_FOR_EACH_RMA_TYPE(GSHMEMI_DEFINE_DATA_COLLECTIVES)
#undef GSHMEMI_DEFINE_DATA_COLLECTIVES

GSHMEM_HD int gshmem_broadcastmem(gshmem_team_t team, void *dest, const void *source, size_t nelems, int PE_root) {
  GSHMEMI_DATA_COLLECTIVE_BODY(
      (gshmem::detail::team_broadcast_bytes(g, team, dest, source, nelems, PE_root, "gshmem_broadcastmem")),
      gshmemi_host_broadcastmem(team, dest, source, nelems, PE_root))
}
GSHMEM_HD int gshmem_alltoallmem(gshmem_team_t team, void *dest, const void *source, size_t nelems) {
  GSHMEMI_DATA_COLLECTIVE_BODY(
      (gshmem::detail::team_alltoall_bytes(g, team, dest, source, nelems, "gshmem_alltoallmem")),
      gshmemi_host_alltoallmem(team, dest, source, nelems))
}
GSHMEM_HD int gshmem_fcollectmem(gshmem_team_t team, void *dest, const void *source, size_t nelems) {
  GSHMEMI_DATA_COLLECTIVE_BODY((gshmem::detail::team_fcollect(g, team, static_cast<unsigned char *>(dest),
                                                              static_cast<const unsigned char *>(source), nelems,
                                                              "gshmem_fcollectmem")),
                               gshmemi_host_fcollectmem(team, dest, source, nelems))
}
#undef GSHMEMI_DATA_COLLECTIVE_BODY

/* ---- and/or/xor reductions and reducescatter (every reduction operator) ----
 * Semantics, rules and ORDERING: the top of this file; the type and operator
 * lists: <gshmem/types.h> (GSHMEM_FOR_EACH_REDUCE_OP over
 * GSHMEM_FOR_EACH_REDUCE_TYPE, GSHMEM_FOR_EACH_REDUCE_BITWISE_OP over
 * GSHMEM_FOR_EACH_REDUCE_BITWISE_TYPE). */
GSHMEM_BEGIN_EXTERN_C
/* Host halves of the host+device inline functions below. */
#define GSHMEMI_REDUCTION_X(NAME, TYPE, OP, KIND)                                                     \
  GSHMEM_API int gshmemi_host_##NAME##_##OP##_##KIND(gshmem_team_t team, TYPE *dest, const TYPE *source, \
                                                     size_t nreduce);
GSHMEMI_FOR_EACH_BITWISE_REDUCTION_AND_REDUCESCATTER
#undef GSHMEMI_REDUCTION_X
GSHMEM_END_EXTERN_C

#if GSHMEM_IN_DEVICE_CODE
#define GSHMEMI_REDUCTION_BODY(DEVICE_CALL, HOST_CALL) \
  gshmem::detail::single_group g;                      \
  return DEVICE_CALL;
#else
#define GSHMEMI_REDUCTION_BODY(DEVICE_CALL, HOST_CALL) return HOST_CALL;
#endif

#define GSHMEMI_REDUCTION_X(NAME, TYPE, OP, KIND)                                                   \
  GSHMEM_HD int gshmem_##NAME##_##OP##_##KIND(gshmem_team_t team, TYPE *dest, const TYPE *source,     \
                                              size_t nreduce) {                                      \
    GSHMEMI_REDUCTION_BODY((gshmem::detail::team_##KIND<gshmem::detail::reduce_##OP>(                \
                               g, team, dest, source, nreduce, "gshmem_" #NAME "_" #OP "_" #KIND)), \
                           gshmemi_host_##NAME##_##OP##_##KIND(team, dest, source, nreduce))         \
  }
GSHMEMI_FOR_EACH_BITWISE_REDUCTION_AND_REDUCESCATTER
#undef GSHMEMI_REDUCTION_X
#undef GSHMEMI_REDUCTION_BODY
