// Collective launch: a kernel whose blocks wait for one another (see
// team_gpu_kernels.h), launched by the tests through gshmemx_collective_launch.
#include "team_gpu_kernels.h"

#include <gshmem/gshmemx.h>

using gshmem::memory_order;
using gshmem::thread_scope;

namespace team_gpu {
namespace {

__global__ void grid_rendezvous(unsigned long long *arrived, unsigned long long *late, long long timeout_ns,
                                int sync_peers) {
  namespace gd = gshmem::detail;
  if (threadIdx.x == 0) {
    const unsigned long long total = (unsigned long long)gridDim.x * gridDim.y * gridDim.z;
    gd::atomic_fetch_add<memory_order::relaxed, thread_scope::device>(arrived, 1ull);
    const unsigned long long start = gd::now_ns();
    while (gd::atomic_load<memory_order::relaxed, thread_scope::device>(arrived) < total) {
      if (gd::now_ns() - start > (unsigned long long)timeout_ns) {
        gd::atomic_fetch_add<memory_order::relaxed, thread_scope::device>(late, 1ull);
        break;
      }
    }
    if (sync_peers && blockIdx.x == 0 && blockIdx.y == 0 && blockIdx.z == 0) gshmemx_barrier_all_thread();
  }
  __syncthreads();
}

}  // namespace

const void *grid_rendezvous_kernel() { return reinterpret_cast<const void *>(&grid_rendezvous); }

}  // namespace team_gpu
