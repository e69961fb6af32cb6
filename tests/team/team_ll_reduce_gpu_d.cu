// The LL reductions' stress kernels (team_ll_reduce_gpu.cuh), part d:
// the double and float cases (four parts compile side by side).
#include "team_ll_reduce_gpu.cuh"

LL_REDUCE_STRESS_CASES_D(LL_REDUCE_LAUNCH)
