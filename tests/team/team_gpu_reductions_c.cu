// A share of the reduction kernels' types (team_gpu_reductions.cuh says why
// they are spread over three sources); together the three cover
// TEAM_GPU_BITWISE_TYPES and TEAM_GPU_ARITH_TYPES of team_gpu_kernels.h.
#define TEAM_GPU_PART_BITWISE_TYPES(X) 
#define TEAM_GPU_PART_ARITH_TYPES(X) X(double, double) X(int8, int8_t) X(half, __half) X(bfloat16, __nv_bfloat16)
#include "team_gpu_reductions.cuh"
