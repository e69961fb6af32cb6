// The LL stress test's kernels (team_ll_gpu.cuh), part 3: the byte forms.
#include "team_ll_gpu.cuh"

cudaError_t launch_ll_stress_mem(const ll_stress_args &a, ll_stress_result *out, cudaStream_t s) {
  team_ll::ll_stress_kernel<team_ll::caller_mem><<<1, 128, 0, s>>>(a, out);
  return cudaGetLastError();
}
