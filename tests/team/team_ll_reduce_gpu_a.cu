// The LL reductions' stress kernels (team_ll_reduce_gpu.cuh), part a:
// the int and long long cases (four parts compile side by side).
#include "team_ll_reduce_gpu.cuh"

LL_REDUCE_STRESS_CASES_A(LL_REDUCE_LAUNCH)
