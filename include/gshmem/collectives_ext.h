// Warp, block and on-stream forms of the small collectives (gshmem
// extensions). Part of <gshmem/gshmemx.h>. Semantics, ordering and rules:
// <gshmem/collectives.h>.
//
// gshmemx_TYPENAME_OP_reduce_warp / _block,
//   gshmemx_TYPENAME_OP_reducescatter_warp / _block,
//   gshmemx_TYPENAME_fcollect_warp / _block: called by all 32 lanes of a converged warp / every thread of the
//   block together, with the same arguments; the members share the elements.
//   Every member returns the same status.
// gshmemx_TYPENAME_OP_reduce_on_stream, gshmemx_TYPENAME_OP_reducescatter_on_stream,
//   gshmemx_TYPENAME_fcollect_on_stream:
//   one block on `stream` runs the block form; work enqueued after it sees
//   dest complete, and the stream's earlier work is what source holds. Each
//   member enqueues on one of its streams; members' collectives on a team come
//   in the same order and do not overlap on a PE. Returns 0 once enqueued, or
//   an error code with nothing enqueued (logged, gshmemx_get_last_error):
//   invalid team or NULL buffers with a count > 0 (INVALID_VALUE), overlapping
//   dest and source (INVALID_VALUE), a reducescatter count whose source
//   cannot fit the address space (INVALID_VALUE), a source outside the
//   symmetric heap (NOT_SYMMETRIC), before init, launch failure.
#pragma once

#include <gshmem/collectives.h>

#include <cuda_runtime_api.h>

#if defined(__CUDACC__)
#define GSHMEMI_COLLECTIVE_GROUP_WARP gshmem::detail::warp_group g;
#define GSHMEMI_COLLECTIVE_GROUP_BLOCK              \
  __shared__ gshmem::detail::block_scratch scratch; \
  gshmem::detail::block_group g(&scratch);
#define GSHMEMI_DEFINE_GROUP_REDUCE_OP(NAME, TYPE, OP, GROUP, GROUP_DECL)                                   \
  GSHMEM_DEVICE int gshmemx_##NAME##_##OP##_reduce_##GROUP(gshmem_team_t team, TYPE *dest, const TYPE *source, \
                                                           size_t nreduce) {                                  \
    GROUP_DECL return gshmem::detail::team_reduce<gshmem::detail::reduce_##OP>(                               \
        g, team, dest, source, nreduce, "gshmemx_" #NAME "_" #OP "_reduce_" #GROUP);                          \
  }
#define GSHMEMI_DEFINE_WARP_REDUCE_OP(NAME, TYPE, OP) \
  GSHMEMI_DEFINE_GROUP_REDUCE_OP(NAME, TYPE, OP, warp, GSHMEMI_COLLECTIVE_GROUP_WARP)
#define GSHMEMI_DEFINE_BLOCK_REDUCE_OP(NAME, TYPE, OP) \
  GSHMEMI_DEFINE_GROUP_REDUCE_OP(NAME, TYPE, OP, block, GSHMEMI_COLLECTIVE_GROUP_BLOCK)
#define GSHMEMI_DEFINE_GROUP_FCOLLECT(NAME, TYPE, GROUP, GROUP_DECL)                                          \
  GSHMEM_DEVICE int gshmemx_##NAME##_fcollect_##GROUP(gshmem_team_t team, TYPE *dest, const TYPE *source,      \
                                                      size_t nelems) {                                        \
    GROUP_DECL return gshmem::detail::team_fcollect(g, team, dest, source, nelems,                            \
                                                    "gshmemx_" #NAME "_fcollect_" #GROUP);                     \
  }
#define GSHMEMI_DEFINE_GROUP_COLLECTIVES(NAME, TYPE)                                                          \
  GSHMEM_FOR_EACH_REDUCE_OP(GSHMEMI_DEFINE_WARP_REDUCE_OP, NAME, TYPE)                                         \
  GSHMEM_FOR_EACH_REDUCE_OP(GSHMEMI_DEFINE_BLOCK_REDUCE_OP, NAME, TYPE)                                        \
  GSHMEMI_DEFINE_GROUP_FCOLLECT(NAME, TYPE, warp, GSHMEMI_COLLECTIVE_GROUP_WARP)                              \
  GSHMEMI_DEFINE_GROUP_FCOLLECT(NAME, TYPE, block, GSHMEMI_COLLECTIVE_GROUP_BLOCK)
GSHMEM_FOR_EACH_REDUCE_TYPE(GSHMEMI_DEFINE_GROUP_COLLECTIVES)
#undef GSHMEMI_DEFINE_GROUP_COLLECTIVES
/* The maxloc reduction of (value, location) pairs, block form (NVSHMEM's
 * nvshmemx_double2_maxloc_reduce_block): dest[i].x is the largest source[i].x
 * of the members, dest[i].y its location (.y; the smallest of those with
 * that value). Called, ordered and checked as the block reductions above. */
GSHMEM_DEVICE int gshmemx_double2_maxloc_reduce_block(gshmem_team_t team, double2 *dest, const double2 *source,
                                                      size_t nreduce) {
  GSHMEMI_COLLECTIVE_GROUP_BLOCK
  return gshmem::detail::team_reduce<gshmem::detail::reduce_maxloc>(g, team, dest, source, nreduce,
                                                                     "gshmemx_double2_maxloc_reduce_block");
}
#undef GSHMEMI_DEFINE_GROUP_FCOLLECT
#undef GSHMEMI_DEFINE_BLOCK_REDUCE_OP
#undef GSHMEMI_DEFINE_WARP_REDUCE_OP
#undef GSHMEMI_DEFINE_GROUP_REDUCE_OP
#undef GSHMEMI_COLLECTIVE_GROUP_BLOCK
#undef GSHMEMI_COLLECTIVE_GROUP_WARP
#endif  // __CUDACC__

GSHMEM_BEGIN_EXTERN_C
#define GSHMEMI_DECLARE_STREAM_REDUCE_OP(NAME, TYPE, OP)                                                    \
  GSHMEM_API int gshmemx_##NAME##_##OP##_reduce_on_stream(gshmem_team_t team, TYPE *dest, const TYPE *source, \
                                                          size_t nreduce, cudaStream_t stream);
#define GSHMEMI_DECLARE_STREAM_COLLECTIVES(NAME, TYPE)                                                      \
  GSHMEM_FOR_EACH_REDUCE_OP(GSHMEMI_DECLARE_STREAM_REDUCE_OP, NAME, TYPE)                                    \
  GSHMEM_API int gshmemx_##NAME##_fcollect_on_stream(gshmem_team_t team, TYPE *dest, const TYPE *source,      \
                                                     size_t nelems, cudaStream_t stream);
GSHMEM_FOR_EACH_REDUCE_TYPE(GSHMEMI_DECLARE_STREAM_COLLECTIVES)
#undef GSHMEMI_DECLARE_STREAM_COLLECTIVES
#undef GSHMEMI_DECLARE_STREAM_REDUCE_OP
GSHMEM_END_EXTERN_C

// ------------------------------------------------ broadcast, alltoall, *mem
// gshmemx_TYPENAME_broadcast_warp / _block, gshmemx_TYPENAME_alltoall_warp /
//   _block, gshmemx_broadcastmem_warp / _block, gshmemx_alltoallmem_warp /
//   _block, gshmemx_fcollectmem_warp / _block: the group forms (called as the
//   reductions' above) of <gshmem/collectives.h>'s broadcast, alltoall and
//   *mem routines; same semantics, rules and ordering.
// gshmemx_TYPENAME_broadcast_on_stream, gshmemx_TYPENAME_alltoall_on_stream,
//   gshmemx_broadcastmem_on_stream, gshmemx_alltoallmem_on_stream,
//   gshmemx_fcollectmem_on_stream: one block on `stream` runs the block form,
//   as fcollect_on_stream. Returns 0 once enqueued, or an error code with
//   nothing enqueued (logged, gshmemx_get_last_error): invalid team, PE_root
//   outside the team, NULL buffers with a count > 0, a count whose bytes
//   overflow, overlapping buffers (INVALID_VALUE); the symmetric buffer
//   (broadcast: source, alltoall: dest, fcollect: source) not inside the
//   symmetric heap or a registered buffer for all its bytes (NOT_SYMMETRIC);
//   before init; launch failure.
#if defined(__CUDACC__)
#define GSHMEMI_DATA_GROUP_WARP gshmem::detail::warp_group g;
#define GSHMEMI_DATA_GROUP_BLOCK                    \
  __shared__ gshmem::detail::block_scratch scratch; \
  gshmem::detail::block_group g(&scratch);
#define GSHMEMI_DEFINE_GROUP_DATA_COLLECTIVES(NAME, TYPE, GROUP, GROUP_DECL)                                     \
  GSHMEM_DEVICE int gshmemx_##NAME##_broadcast_##GROUP(gshmem_team_t team, TYPE *dest, const TYPE *source,         \
                                                       size_t nelems, int PE_root) {                               \
    GROUP_DECL return gshmem::detail::team_broadcast(g, team, dest, source, nelems, PE_root,                       \
                                                     "gshmemx_" #NAME "_broadcast_" #GROUP);                       \
  }                                                                                                                \
  GSHMEM_DEVICE int gshmemx_##NAME##_alltoall_##GROUP(gshmem_team_t team, TYPE *dest, const TYPE *source,          \
                                                      size_t nelems) {                                             \
    GROUP_DECL return gshmem::detail::team_alltoall(g, team, dest, source, nelems,                                 \
                                                    "gshmemx_" #NAME "_alltoall_" #GROUP);                         \
  }
#define GSHMEMI_DEFINE_WARP_BLOCK_DATA_COLLECTIVES(NAME, TYPE)                            \
  GSHMEMI_DEFINE_GROUP_DATA_COLLECTIVES(NAME, TYPE, warp, GSHMEMI_DATA_GROUP_WARP)        \
  GSHMEMI_DEFINE_GROUP_DATA_COLLECTIVES(NAME, TYPE, block, GSHMEMI_DATA_GROUP_BLOCK)
GSHMEM_FOR_EACH_RMA_TYPE(GSHMEMI_DEFINE_WARP_BLOCK_DATA_COLLECTIVES)
#undef GSHMEMI_DEFINE_WARP_BLOCK_DATA_COLLECTIVES
#undef GSHMEMI_DEFINE_GROUP_DATA_COLLECTIVES
#define GSHMEMI_DEFINE_GROUP_MEM_COLLECTIVES(GROUP, GROUP_DECL)                                                    \
  GSHMEM_DEVICE int gshmemx_broadcastmem_##GROUP(gshmem_team_t team, void *dest, const void *source, size_t nelems, \
                                                 int PE_root) {                                                    \
    GROUP_DECL return gshmem::detail::team_broadcast_bytes(g, team, dest, source, nelems, PE_root,                 \
                                                           "gshmemx_broadcastmem_" #GROUP);                        \
  }                                                                                                                \
  GSHMEM_DEVICE int gshmemx_alltoallmem_##GROUP(gshmem_team_t team, void *dest, const void *source, size_t nelems) { \
    GROUP_DECL return gshmem::detail::team_alltoall_bytes(g, team, dest, source, nelems,                           \
                                                          "gshmemx_alltoallmem_" #GROUP);                          \
  }                                                                                                                \
  GSHMEM_DEVICE int gshmemx_fcollectmem_##GROUP(gshmem_team_t team, void *dest, const void *source, size_t nelems) { \
    GROUP_DECL return gshmem::detail::team_fcollect(g, team, static_cast<unsigned char *>(dest),                   \
                                                    static_cast<const unsigned char *>(source), nelems,            \
                                                    "gshmemx_fcollectmem_" #GROUP);                                \
  }
GSHMEMI_DEFINE_GROUP_MEM_COLLECTIVES(warp, GSHMEMI_DATA_GROUP_WARP)
GSHMEMI_DEFINE_GROUP_MEM_COLLECTIVES(block, GSHMEMI_DATA_GROUP_BLOCK)
#undef GSHMEMI_DEFINE_GROUP_MEM_COLLECTIVES
#undef GSHMEMI_DATA_GROUP_BLOCK
#undef GSHMEMI_DATA_GROUP_WARP
#endif  // __CUDACC__

GSHMEM_BEGIN_EXTERN_C
#define GSHMEMI_DECLARE_STREAM_DATA_COLLECTIVES(NAME, TYPE)                                                  \
  GSHMEM_API int gshmemx_##NAME##_broadcast_on_stream(gshmem_team_t team, TYPE *dest, const TYPE *source,    \
                                                      size_t nelems, int PE_root, cudaStream_t stream);      \
  GSHMEM_API int gshmemx_##NAME##_alltoall_on_stream(gshmem_team_t team, TYPE *dest, const TYPE *source,     \
                                                     size_t nelems, cudaStream_t stream);
GSHMEM_FOR_EACH_RMA_TYPE(GSHMEMI_DECLARE_STREAM_DATA_COLLECTIVES)
#undef GSHMEMI_DECLARE_STREAM_DATA_COLLECTIVES
GSHMEM_API int gshmemx_broadcastmem_on_stream(gshmem_team_t team, void *dest, const void *source, size_t nelems,
                                              int PE_root, cudaStream_t stream);
GSHMEM_API int gshmemx_alltoallmem_on_stream(gshmem_team_t team, void *dest, const void *source, size_t nelems,
                                             cudaStream_t stream);
GSHMEM_API int gshmemx_fcollectmem_on_stream(gshmem_team_t team, void *dest, const void *source, size_t nelems,
                                             cudaStream_t stream);
GSHMEM_END_EXTERN_C

/* ---- and/or/xor reductions and reducescatter (every reduction operator):
 * warp, block and on-stream forms; the lists as in <gshmem/collectives.h>. */
#if defined(__CUDACC__)
#define GSHMEMI_REDUCTION_GROUP_WARP gshmem::detail::warp_group g;
#define GSHMEMI_REDUCTION_GROUP_BLOCK               \
  __shared__ gshmem::detail::block_scratch scratch; \
  gshmem::detail::block_group g(&scratch);
// KIND: reduce or reducescatter (team_KIND is the algorithm).
#define GSHMEMI_DEFINE_GROUP_REDUCTION(NAME, TYPE, OP, KIND, GROUP, GROUP_DECL)                              \
  GSHMEM_DEVICE int gshmemx_##NAME##_##OP##_##KIND##_##GROUP(gshmem_team_t team, TYPE *dest, const TYPE *source, \
                                                             size_t nreduce) {                                \
    GROUP_DECL return gshmem::detail::team_##KIND<gshmem::detail::reduce_##OP>(                               \
        g, team, dest, source, nreduce, "gshmemx_" #NAME "_" #OP "_" #KIND "_" #GROUP);                       \
  }
#define GSHMEMI_REDUCTION_X(NAME, TYPE, OP, KIND)                                            \
  GSHMEMI_DEFINE_GROUP_REDUCTION(NAME, TYPE, OP, KIND, warp, GSHMEMI_REDUCTION_GROUP_WARP) \
  GSHMEMI_DEFINE_GROUP_REDUCTION(NAME, TYPE, OP, KIND, block, GSHMEMI_REDUCTION_GROUP_BLOCK)
GSHMEMI_FOR_EACH_BITWISE_REDUCTION_AND_REDUCESCATTER
#undef GSHMEMI_REDUCTION_X
#undef GSHMEMI_DEFINE_GROUP_REDUCTION
#undef GSHMEMI_REDUCTION_GROUP_BLOCK
#undef GSHMEMI_REDUCTION_GROUP_WARP
#endif  // __CUDACC__

GSHMEM_BEGIN_EXTERN_C
#define GSHMEMI_REDUCTION_X(NAME, TYPE, OP, KIND)                                                   \
  GSHMEM_API int gshmemx_##NAME##_##OP##_##KIND##_on_stream(gshmem_team_t team, TYPE *dest, const TYPE *source, \
                                                            size_t nreduce, cudaStream_t stream);
GSHMEMI_FOR_EACH_BITWISE_REDUCTION_AND_REDUCESCATTER
#undef GSHMEMI_REDUCTION_X
GSHMEM_END_EXTERN_C
