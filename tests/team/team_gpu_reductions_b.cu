// A share of the reduction kernels' types (team_gpu_reductions.cuh says why
// they are spread over three sources); together the three cover
// TEAM_GPU_BITWISE_TYPES and TEAM_GPU_ARITH_TYPES of team_gpu_kernels.h.
#define TEAM_GPU_PART_BITWISE_TYPES(X) X(uint64, uint64_t) X(size, size_t)
#define TEAM_GPU_PART_ARITH_TYPES(X) X(int, int)
#include "team_gpu_reductions.cuh"
