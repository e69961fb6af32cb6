// And/or/xor and sum/prod/max/min reductions and reducescatter of some
// types (team_gpu_reductions.cuh), part b: five parts share the types out
// so that they compile side by side.
#define TEAM_GPU_PART_BITWISE_TYPES(X) X(ushort, unsigned short)
#define TEAM_GPU_PART_ARITH_TYPES(X) X(half, __half)
#include "team_gpu_reductions.cuh"
