// The LL reductions' stress kernels (team_ll_reduce_gpu.cuh), part 2: the
// floating cases.
#include "team_ll_reduce_gpu.cuh"

LL_REDUCE_STRESS_CASES_B(LL_REDUCE_LAUNCH)
