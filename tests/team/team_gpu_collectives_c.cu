// Small collectives on the device (team_gpu_collectives.cuh), part c.
#define TEAM_GPU_PART_COLLECTIVE_TYPES(X) X(short, short) X(half, __half) X(bfloat16, __nv_bfloat16)
#include "team_gpu_collectives.cuh"
