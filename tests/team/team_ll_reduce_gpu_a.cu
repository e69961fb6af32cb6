// The LL reductions' stress kernels (team_ll_reduce_gpu.cuh), part 1: the
// integer cases.
#include "team_ll_reduce_gpu.cuh"

LL_REDUCE_STRESS_CASES_A(LL_REDUCE_LAUNCH)
