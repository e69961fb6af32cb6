// And/or/xor and sum/prod/max/min reductions and reducescatter of some
// types (team_gpu_reductions.cuh), part a: five parts share the types out
// so that they compile side by side.
#define TEAM_GPU_PART_BITWISE_TYPES(X) X(uint8, uint8_t)
#define TEAM_GPU_PART_ARITH_TYPES(X) X(int8, int8_t)
#include "team_gpu_reductions.cuh"
