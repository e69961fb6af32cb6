// preload_reduction_kernels(): every reduction kernel loaded at init, never
// at first launch. The kernels themselves are compiled one operator a
// translation unit (reduction_kernels.cuh, reduction_kernels_<op>.cu).
#include <gshmem/types.h>

#include <cuda_runtime_api.h>

#include "../src/team_internal.h"

namespace gshmemi {
namespace team {

#define GSHMEMI_DECLARE_PART(NAME, TYPE, OP) cudaError_t preload_reduction_kernels_##OP();
GSHMEM_FOR_EACH_REDUCE_OP(GSHMEMI_DECLARE_PART, unused, unused)
GSHMEM_FOR_EACH_REDUCE_BITWISE_OP(GSHMEMI_DECLARE_PART, unused, unused)
#undef GSHMEMI_DECLARE_PART

cudaError_t preload_reduction_kernels() {
  cudaError_t err = cudaSuccess;
#define GSHMEMI_LOAD_PART(NAME, TYPE, OP) \
  if (err == cudaSuccess) err = preload_reduction_kernels_##OP();
  GSHMEM_FOR_EACH_REDUCE_OP(GSHMEMI_LOAD_PART, unused, unused)
  GSHMEM_FOR_EACH_REDUCE_BITWISE_OP(GSHMEMI_LOAD_PART, unused, unused)
#undef GSHMEMI_LOAD_PART
  return err;
}

}  // namespace team
}  // namespace gshmemi
