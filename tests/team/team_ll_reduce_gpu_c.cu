// The LL reductions' stress kernels (team_ll_reduce_gpu.cuh), part c:
// the half and bfloat16 cases (four parts compile side by side).
#include "team_ll_reduce_gpu.cuh"

LL_REDUCE_STRESS_CASES_C(LL_REDUCE_LAUNCH)
