// Small collectives on the device (team_gpu_collectives.cuh), part a.
#define TEAM_GPU_PART_COLLECTIVE_TYPES(X) X(int, int) X(long, long) X(float, float)
#include "team_gpu_collectives.cuh"
