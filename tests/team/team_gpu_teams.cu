// Teams on the device: queries, the team sync litmus in every form, and the
// store/check kernels of the on-stream rounds (see team_gpu_kernels.h).
#include "team_gpu_kernels.h"

#include <gshmem/gshmemx.h>

using gshmem::memory_order;
using gshmem::thread_scope;

namespace team_gpu {
namespace {

__global__ void team_queries(int team, int *out) {
  out[0] = gshmem_team_my_pe(team);
  out[1] = gshmem_team_n_pes(team);
  out[2] = gshmem_team_sync(GSHMEM_TEAM_INVALID);
  for (int i = 0; i < kQueryRanks; ++i) out[3 + i] = gshmem_team_translate_pe(team, i, GSHMEM_TEAM_WORLD);
  out[3 + kQueryRanks] = gshmem_team_translate_pe(GSHMEM_TEAM_WORLD, gshmem_my_pe(), team);
}

__device__ int team_sync_in_form(int team, int form, bool with_quiet) {
  switch (form) {
    case form_thread: return with_quiet ? gshmemx_team_barrier(team) : gshmem_team_sync(team);
    case form_warp: return with_quiet ? gshmemx_team_barrier_warp(team) : gshmemx_team_sync_warp(team);
    case form_warpgroup: return gshmemx_team_barrier_warpgroup(team);
    default: return with_quiet ? gshmemx_team_barrier_block(team) : gshmemx_team_sync_block(team);
  }
}

__global__ void team_litmus(int team, uint64_t *slots, long rounds, int form_mode, bool with_quiet,
                            unsigned long long *violations) {
  const int me = gshmem_team_my_pe(team), n = gshmem_team_n_pes(team);
  const int tid = (int)threadIdx.x;
  unsigned long long bad = 0;
  for (long r = 1; r <= rounds; ++r) {
    uint64_t *buf = slots + (r & 1) * n;
    const int form = form_mode == form_mixed ? (int)((r + me) % 3) : form_mode;
    const int group = form == form_thread      ? 1
                      : form == form_warp      ? 32
                      : form == form_warpgroup ? 128
                                               : (int)blockDim.x;
    int rc = 0;
    if (tid < group) {
      for (int rank = tid; rank < n; rank += group)
        gshmem_uint64_p(buf + me, (uint64_t)r, gshmem_team_translate_pe(team, rank, GSHMEM_TEAM_WORLD));
      if (form != form_block) rc = team_sync_in_form(team, form, with_quiet);
    }
    if (form == form_block) rc = team_sync_in_form(team, form, with_quiet);
    if (rc != 0) ++bad;
    __syncthreads();
    for (int src = tid; src < n; src += (int)blockDim.x)
      if (gshmem::detail::atomic_load<memory_order::relaxed, thread_scope::system>(buf + src) != (uint64_t)r) ++bad;
  }
  atomicAdd(violations, bad);
}

__global__ void maxloc_reduce(int team, double2 *dest, const double2 *source, size_t n, int *rc) {
  const int status = gshmemx_double2_maxloc_reduce_block(team, dest, source, n);
  if (threadIdx.x == 0) *rc = status;
}

__global__ void team_store_round(int team, uint64_t *slots, uint64_t r) {
  const int me = gshmem_team_my_pe(team), n = gshmem_team_n_pes(team);
  uint64_t *buf = slots + (r & 1) * n;
  for (int rank = 0; rank < n; ++rank)
    gshmem_uint64_p(buf + me, r, gshmem_team_translate_pe(team, rank, GSHMEM_TEAM_WORLD));
  gshmem_quiet();
}

__global__ void team_check_round(int team, uint64_t *slots, uint64_t r, unsigned long long *violations) {
  const int n = gshmem_team_n_pes(team);
  const uint64_t *buf = slots + (r & 1) * n;
  unsigned long long bad = 0;
  for (int src = 0; src < n; ++src)
    if (gshmem::detail::atomic_load<memory_order::relaxed, thread_scope::system>(buf + src) != r) ++bad;
  if (bad) atomicAdd(violations, bad);
}

}  // namespace

cudaError_t launch_team_queries(int team, int *out) {
  team_queries<<<1, 1>>>(team, out);
  return cudaGetLastError();
}

cudaError_t launch_maxloc_reduce(int team, double2 *dest, const double2 *source, size_t n, int *rc) {
  maxloc_reduce<<<1, 128>>>(team, dest, source, n, rc);
  return cudaGetLastError();
}

cudaError_t launch_team_litmus(int team, uint64_t *slots, long rounds, barrier_form form, bool with_quiet,
                               int threads, unsigned long long *violations) {
  team_litmus<<<1, threads>>>(team, slots, rounds, (int)form, with_quiet, violations);
  return cudaGetLastError();
}

cudaError_t launch_team_store_round(int team, uint64_t *slots, uint64_t r, cudaStream_t stream) {
  team_store_round<<<1, 1, 0, stream>>>(team, slots, r);
  return cudaGetLastError();
}

cudaError_t launch_team_check_round(int team, uint64_t *slots, uint64_t r, unsigned long long *violations,
                                    cudaStream_t stream) {
  team_check_round<<<1, 1, 0, stream>>>(team, slots, r, violations);
  return cudaGetLastError();
}

}  // namespace team_gpu
