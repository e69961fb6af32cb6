// Kernels behind the on-stream and host forms of fcollect, broadcast and
// alltoall (host/collectives.cpp; the reductions' are in
// reduction_kernels.cuh): one block runs the block form of
// <gshmem/detail/team_collectives.h>, or, with enough data and every member
// mapped, the wide form (wide_collectives.cuh: entry sync, a grid for the
// data, last sync). Every kernel here is loaded at init
// (preload_collective_kernels), never at first launch.
#include <gshmem/detail/team_collectives.h>
#include <gshmem/types.h>

#include "../src/team_internal.h"
#include "kernel_loader.h"
#include "wide_collectives.cuh"

namespace gshmemi {
namespace team {
namespace {

namespace gd = gshmem::detail;

template <class T>
__global__ void __launch_bounds__(kCollectiveThreads) fcollect_kernel(int team, T *dest, const T *source,
                                                                      size_t nelems) {
  __shared__ gd::block_scratch scratch;
  gd::block_group g(&scratch);
  (void)gd::team_fcollect(g, team, dest, source, nelems, "gshmemx_fcollect_on_stream");
}

}  // namespace

#define GSHMEMI_DEFINE_COLLECTIVE_LAUNCHERS(NAME, TYPE)                                                \
  cudaError_t launch_##NAME##_fcollect(int team, TYPE *dest, const TYPE *source, size_t nelems,         \
                                       cudaStream_t stream) {                                          \
    if (nelems * sizeof(TYPE) * wide::team_size(team) >= wide::kMinBytes)                              \
      return launch_fcollect_bytes(team, dest, source, nelems * sizeof(TYPE), stream); /* wide form */ \
    fcollect_kernel<TYPE><<<1, kCollectiveThreads, 0, stream>>>(team, dest, source, nelems);           \
    return cudaGetLastError();                                                                         \
  }
GSHMEM_FOR_EACH_REDUCE_TYPE(GSHMEMI_DEFINE_COLLECTIVE_LAUNCHERS)
#undef GSHMEMI_DEFINE_COLLECTIVE_LAUNCHERS

cudaError_t preload_collective_kernels() {
  KernelLoader loader;
#define GSHMEMI_PRELOAD_COLLECTIVES(NAME, TYPE) loader.load(&fcollect_kernel<TYPE>);
  GSHMEM_FOR_EACH_REDUCE_TYPE(GSHMEMI_PRELOAD_COLLECTIVES)
#undef GSHMEMI_PRELOAD_COLLECTIVES
  return loader.result();
}


// ------------------------------------------------ broadcast, alltoall, *mem
namespace {

__global__ void __launch_bounds__(kCollectiveThreads) broadcast_bytes_kernel(int team, void *dest, const void *source,
                                                                              size_t nbytes, int root) {
  __shared__ gd::block_scratch scratch;
  gd::block_group g(&scratch);
  (void)gd::team_broadcast_bytes(g, team, dest, source, nbytes, root, "gshmemx_broadcast_on_stream");
}

__global__ void __launch_bounds__(kCollectiveThreads) alltoall_bytes_kernel(int team, void *dest, const void *source,
                                                                             size_t block_bytes) {
  __shared__ gd::block_scratch scratch;
  gd::block_group g(&scratch);
  (void)gd::team_alltoall_bytes(g, team, dest, source, block_bytes, "gshmemx_alltoall_on_stream");
}

// The wide forms' data phases (wide_collectives.cuh: phase_kernel runs
// them on a grid).
struct broadcast_phase {
  static constexpr const char *routine = "gshmemx_broadcast_on_stream";
  void *dest;
  const void *source;
  size_t nbytes;
  int root;
  __device__ void run(const gd::team_desc &d) const {
    if (d.my_rank == root && dest == source) return;
    const int pe = gd::team_member_pe(d, root);
    (void)gd::peer_address(static_cast<const char *>(source) + (nbytes - 1), pe, routine);
    gd::copy_bytes<false, true>(dest, gd::peer_address(source, pe, routine), nbytes, gd::group_grid{});
  }
};

struct fcollect_phase {
  static constexpr const char *routine = "gshmemx_fcollect_on_stream";
  void *dest;
  const void *source;
  size_t nbytes;
  __device__ void run(const gd::team_desc &d) const {
    for (int r = 0; r < d.size; ++r) {
      const int pe = gd::team_member_pe(d, r);
      (void)gd::peer_address(static_cast<const char *>(source) + (nbytes - 1), pe, routine);
      gd::copy_bytes<false, true>(static_cast<char *>(dest) + (size_t)r * nbytes,
                                  gd::peer_address(source, pe, routine), nbytes, gd::group_grid{});
    }
  }
};

struct alltoall_phase {
  static constexpr const char *routine = "gshmemx_alltoall_on_stream";
  void *dest;
  const void *source;
  size_t block_bytes;
  __device__ void run(const gd::team_desc &d) const {
    char *const my_block = static_cast<char *>(dest) + (size_t)d.my_rank * block_bytes;
    for (int k = 0; k < d.size; ++k) {
      const int r = gd::alltoall_peer(d.my_rank, k, d.size);
      const int pe = gd::team_member_pe(d, r);
      (void)gd::peer_address(my_block + (block_bytes - 1), pe, routine);
      gd::copy_bytes<true, false>(gd::peer_address(my_block, pe, routine),
                                  static_cast<const char *>(source) + (size_t)r * block_bytes, block_bytes,
                                  gd::group_grid{});
    }
  }
};

}  // namespace

cudaError_t launch_broadcast_bytes(int team, void *dest, const void *source, size_t nbytes, int root,
                                   cudaStream_t stream) {
  cudaError_t err;
  if (wide::try_data(team, nbytes, gd::broadcast_signature(root, nbytes), broadcast_phase{dest, source, nbytes, root},
                     stream, &err))
    return err;
  broadcast_bytes_kernel<<<1, kCollectiveThreads, 0, stream>>>(team, dest, source, nbytes, root);
  return cudaGetLastError();
}

cudaError_t launch_alltoall_bytes(int team, void *dest, const void *source, size_t block_bytes, cudaStream_t stream) {
  cudaError_t err;
  if (wide::try_data(team, block_bytes * wide::team_size(team), gd::alltoall_signature(block_bytes),
                     alltoall_phase{dest, source, block_bytes}, stream, &err))
    return err;
  alltoall_bytes_kernel<<<1, kCollectiveThreads, 0, stream>>>(team, dest, source, block_bytes);
  return cudaGetLastError();
}

cudaError_t launch_fcollect_bytes(int team, void *dest, const void *source, size_t nbytes, cudaStream_t stream) {
  cudaError_t err;
  if (wide::try_data(team, nbytes * wide::team_size(team), gd::fcollect_signature(nbytes),
                     fcollect_phase{dest, source, nbytes}, stream, &err))
    return err;
  fcollect_kernel<unsigned char><<<1, kCollectiveThreads, 0, stream>>>(
      team, static_cast<unsigned char *>(dest), static_cast<const unsigned char *>(source), nbytes);
  return cudaGetLastError();
}

cudaError_t preload_data_collective_kernels() {
  KernelLoader loader;
  loader.load(&broadcast_bytes_kernel);
  loader.load(&alltoall_bytes_kernel);
  loader.load(&wide::phase_kernel<broadcast_phase>);
  loader.load(&wide::phase_kernel<alltoall_phase>);
  loader.load(&wide::phase_kernel<fcollect_phase>);
  // fcollectmem's kernel is uchar's fcollect, loaded by preload_collective_kernels.
  return loader.result();
}

}  // namespace team
}  // namespace gshmemi
