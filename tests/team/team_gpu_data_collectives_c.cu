// Data collectives on the device (team_gpu_data_collectives.cuh), part c:
// broadcastmem, alltoallmem and fcollectmem.
#define TEAM_GPU_DATA_PART 2
#include "team_gpu_data_collectives.cuh"
