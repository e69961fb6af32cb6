// And/or/xor and sum/prod/max/min reductions and reducescatter of some
// types (team_gpu_reductions.cuh), part c: six parts share the types out so
// that they compile side by side (each type x operator x form inlines a
// whole reduction: its LL, two-sync and remote forms).
#define TEAM_GPU_PART_BITWISE_TYPES(X) X(uint64, uint64_t)
#define TEAM_GPU_PART_ARITH_TYPES(X) 
#include "team_gpu_reductions.cuh"
