// Data collectives on the device (team_gpu_data_collectives.cuh), part b:
// alltoall.
#define TEAM_GPU_DATA_PART 1
#include "team_gpu_data_collectives.cuh"
