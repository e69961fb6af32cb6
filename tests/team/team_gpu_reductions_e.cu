// And/or/xor and sum/prod/max/min reductions and reducescatter of some
// types (team_gpu_reductions.cuh), part e: five parts share the types out
// so that they compile side by side.
#define TEAM_GPU_PART_BITWISE_TYPES(X) X(size, size_t)
#define TEAM_GPU_PART_ARITH_TYPES(X) X(bfloat16, __nv_bfloat16)
#include "team_gpu_reductions.cuh"
