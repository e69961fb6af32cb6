// And/or/xor and sum/prod/max/min reductions and reducescatter of some
// types (team_gpu_reductions.cuh), part d: five parts share the types out
// so that they compile side by side.
#define TEAM_GPU_PART_BITWISE_TYPES(X) X(uint64, uint64_t)
#define TEAM_GPU_PART_ARITH_TYPES(X) X(double, double)
#include "team_gpu_reductions.cuh"
