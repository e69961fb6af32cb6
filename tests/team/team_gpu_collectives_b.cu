// Small collectives on the device (team_gpu_collectives.cuh), part b.
#define TEAM_GPU_PART_COLLECTIVE_TYPES(X) X(double, double) X(uint8, uint8_t) X(uint64, uint64_t)
#include "team_gpu_collectives.cuh"
