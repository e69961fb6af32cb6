// The LL stress test's kernels (team_ll_gpu.cuh), part 2: the unsigned
// and fixed-width types and size_t.
#include "team_ll_gpu.cuh"

GSHMEMI_FOR_EACH_UNSIGNED_OR_FIXED_TYPE(TEAM_LL_LAUNCH)
