// The LL reductions' stress kernels (team_ll_reduce_gpu.cuh), part b:
// the short and uint8 cases (four parts compile side by side).
#include "team_ll_reduce_gpu.cuh"

LL_REDUCE_STRESS_CASES_B(LL_REDUCE_LAUNCH)
