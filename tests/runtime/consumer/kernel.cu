#include <gshmem/gshmem.h>

__global__ void store_my_pe(int *out) { *out = gshmem_my_pe() * 1000 + gshmem_n_pes(); }

// -1 if the launch or copy failed.
int my_pe_seen_by_device() {
  int *d = nullptr, h = -1;
  if (cudaMalloc(&d, sizeof(int)) != cudaSuccess) return -1;
  store_my_pe<<<1, 1>>>(d);
  if (cudaMemcpy(&h, d, sizeof(int), cudaMemcpyDeviceToHost) != cudaSuccess) h = -1;
  cudaFree(d);
  return h;
}
