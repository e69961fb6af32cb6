// Data collectives on the device (team_gpu_data_collectives.cuh), part a:
// broadcast.
#define TEAM_GPU_DATA_PART 0
#include "team_gpu_data_collectives.cuh"
