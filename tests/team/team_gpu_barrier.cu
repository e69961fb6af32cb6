// Device barrier forms: litmus over many rounds (see team_gpu_kernels.h).
#include "team_gpu_kernels.h"

#include <gshmem/gshmemx.h>

using gshmem::memory_order;
using gshmem::thread_scope;

namespace team_gpu {
namespace {

__device__ void barrier_in_form(int form, bool with_quiet) {
  switch (form) {
    case form_thread: with_quiet ? gshmemx_barrier_all_thread() : gshmemx_sync_all_thread(); break;
    case form_warp: with_quiet ? gshmemx_barrier_all_warp() : gshmemx_sync_all_warp(); break;
    default: with_quiet ? gshmemx_barrier_all_block() : gshmemx_sync_all_block(); break;
  }
}

__global__ void barrier_litmus(uint64_t *slots, long rounds, int form_mode, bool with_quiet,
                               unsigned long long *violations) {
  const int me = gshmem_my_pe(), n = gshmem_n_pes();
  const int tid = (int)threadIdx.x;
  unsigned long long bad = 0;
  for (long r = 1; r <= rounds; ++r) {
    uint64_t *buf = slots + (r & 1) * n;
    const int form = form_mode == form_mixed ? (int)((r + me) % 3) : form_mode;
    // The group that calls the barrier makes the stores it must publish.
    const int group = form == form_thread ? 1 : form == form_warp ? 32 : (int)blockDim.x;
    if (tid < group) {
      for (int pe = tid; pe < n; pe += group) gshmem_uint64_p(buf + me, (uint64_t)r, pe);
      if (form != form_block) barrier_in_form(form, with_quiet);
    }
    if (form == form_block) barrier_in_form(form, with_quiet);
    __syncthreads();  // hands the caller's acquire to the whole block
    for (int src = tid; src < n; src += (int)blockDim.x) {
      const uint64_t v = gshmem::detail::atomic_load<memory_order::relaxed, thread_scope::system>(buf + src);
      if (v != (uint64_t)r) ++bad;
    }
  }
  atomicAdd(violations, bad);
}

}  // namespace

cudaError_t launch_barrier_litmus(uint64_t *slots, long rounds, barrier_form form, bool with_quiet, int threads,
                                  unsigned long long *violations) {
  barrier_litmus<<<1, threads>>>(slots, rounds, (int)form, with_quiet, violations);
  return cudaGetLastError();
}

}  // namespace team_gpu
