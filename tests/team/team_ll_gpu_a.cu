// The LL stress test's kernels (team_ll_gpu.cuh), part 1: the signed and
// floating types of the table.
#include "team_ll_gpu.cuh"

TEAM_LL_LAUNCH(half, __half)
TEAM_LL_LAUNCH(bfloat16, __nv_bfloat16)
TEAM_LL_LAUNCH(float, float)
TEAM_LL_LAUNCH(double, double)
TEAM_LL_LAUNCH(char, char)
TEAM_LL_LAUNCH(schar, signed char)
TEAM_LL_LAUNCH(short, short)
TEAM_LL_LAUNCH(int, int)
TEAM_LL_LAUNCH(long, long)
TEAM_LL_LAUNCH(longlong, long long)
TEAM_LL_LAUNCH(ptrdiff, ptrdiff_t)
