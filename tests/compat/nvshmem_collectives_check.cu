// An NVSHMEM-style program using the device-side collectives, compiled
// against gshmem's compatibility headers without -rdc: the device barrier
// from one thread, teams, reductions (and/or/xor too), reducescatter,
// fcollect, broadcast, alltoall and their byte (*mem) forms, and a
// collective launch. Case 0 must compile; cases 1-2 call a collective gshmem
// does not provide and must fail naming it, case 3 a name NVSHMEM does not
// have (tests/compat/CMakeLists.txt).
#include <nvshmem.h>
#include <nvshmemx.h>

#include <initializer_list>

#if GSHMEM_CHECK_CASE == 0
// Four kernels, by form, not one: every call inlines a whole collective,
// and nvcc's time grows faster than a kernel's length (one kernel with all
// of them took 138 s of one core on a 16-core H200 machine). Five parts,
// each compiled by a test of its own (GSHMEM_CHECK_PART 1-5: the host
// program, then the kernels by form; 0 or unset: all of them), so that
// they compile side by side: together they took 102 s of one core.
#ifndef GSHMEM_CHECK_PART
#define GSHMEM_CHECK_PART 0
#endif
#define GSHMEM_CHECK_PART_IS(k) (GSHMEM_CHECK_PART == 0 || GSHMEM_CHECK_PART == (k))
#define STEP_PARAMS nvshmem_team_t row, float *x, float *sum, double *all, long *m, uint64_t *bits
__global__ void step_thread(STEP_PARAMS) {
#if GSHMEM_CHECK_PART_IS(2)
  (void)x;
  if (threadIdx.x == 0) {
    nvshmem_barrier_all();
    nvshmem_float_sum_reduce(row, sum, x, 16);
    nvshmem_long_max_reduce(NVSHMEM_TEAM_WORLD, m, m, 4);
    nvshmem_uint64_xor_reduce(row, bits, bits, 4);
    nvshmem_float_sum_reducescatter(row, sum, x, 2);
    nvshmem_uint8_and_reducescatter(NVSHMEM_TEAM_WORLD, (uint8_t *)bits, (const uint8_t *)(bits + 4), 1);
    nvshmem_team_sync(row);
    nvshmem_sync_all();
    nvshmem_double_broadcast(row, all, all + 64, 8, 0);
    nvshmem_ptrdiff_alltoall(row, (ptrdiff_t *)m, (const ptrdiff_t *)(m + 2), 1);
    nvshmem_broadcastmem(row, all, all + 64, 8, 0);
    nvshmem_alltoallmem(row, all, all + 64, 8);
    nvshmem_fcollectmem(row, all, all + 64, 8);
  }
#endif
}
__global__ void step_warp(STEP_PARAMS) {
#if GSHMEM_CHECK_PART_IS(3)
  (void)x;
  (void)sum;
  if (threadIdx.x < 32) {
    nvshmemx_double_fcollect_warp(row, all, all + 64, 8);
    nvshmemx_size_or_reduce_warp(row, (size_t *)bits, (const size_t *)bits, 4);
    nvshmemx_long_min_reducescatter_warp(row, m, m + 2, 1);
    nvshmemx_team_sync_warp(row);
    nvshmemx_barrier_all_warp();
    nvshmemx_uint8_broadcast_warp(row, (uint8_t *)all, (const uint8_t *)(all + 64), 8, 1);
    nvshmemx_size_alltoall_warp(row, (size_t *)all, (const size_t *)(all + 64), 2);
    nvshmemx_broadcastmem_warp(row, all, all + 64, 8, 0);
    nvshmemx_alltoallmem_warp(row, all, all + 64, 8);
    nvshmemx_fcollectmem_warp(row, all, all + 64, 8);
  }
#endif
}
__global__ void step_block(STEP_PARAMS) {
#if GSHMEM_CHECK_PART_IS(4)
  nvshmemx_float_min_reduce_block(row, sum, x, 16);
  nvshmemx_int16_and_reduce_block(row, (int16_t *)bits, (const int16_t *)bits, 8);
  nvshmemx_uint_xor_reducescatter_block(row, (unsigned *)bits, (const unsigned *)(bits + 4), 1);
  nvshmemx_barrier_block(NVSHMEMX_TEAM_NODE);
  nvshmemx_float_broadcast_block(row, sum, x, 16, 0);
  nvshmemx_longlong_alltoall_block(row, (long long *)m, (const long long *)(m + 2), 1);
  nvshmemx_broadcastmem_block(row, all, all + 64, 8, 0);
  nvshmemx_alltoallmem_block(row, all, all + 64, 8);
  nvshmemx_fcollectmem_block(row, all, all + 64, 8);
#endif
}
// half and bfloat16 (NVSHMEM's types of <cuda_fp16.h> and <cuda_bf16.h>).
__global__ void step_half(STEP_PARAMS) {
#if GSHMEM_CHECK_PART_IS(5)
  (void)sum;
  (void)m;
  (void)bits;
  half *h = (half *)all;
  __nv_bfloat16 *b = (__nv_bfloat16 *)(all + 32);
  if (threadIdx.x == 0) {
    nvshmem_half_sum_reduce(row, h, h + 16, 8);
    nvshmem_bfloat16_max_reducescatter(row, b, b + 16, 2);
    nvshmem_half_fcollect(row, h, h + 64, 4);
    nvshmem_bfloat16_broadcast(row, b, b + 64, 8, 0);
  }
  if (threadIdx.x < 32) {
    nvshmemx_bfloat16_prod_reduce_warp(row, b, b + 16, 8);
    nvshmemx_half_alltoall_warp(row, h, h + 64, 2);
  }
  nvshmemx_half_min_reducescatter_block(row, h, h + 16, 2);
  nvshmemx_bfloat16_fcollect_block(row, b, b + 64, 4);
  nvshmemx_double2_maxloc_reduce_block(row, (double2 *)all, (const double2 *)(all + 64), 4);
  if (nvshmem_team_my_pe(row) == 0 && threadIdx.x == 0)
    nvshmem_float_p(x, (float)nvshmem_team_translate_pe(row, nvshmem_team_n_pes(row) - 1, NVSHMEM_TEAM_WORLD), 0);
#endif
}
int main() {
#if GSHMEM_CHECK_PART_IS(1)
  nvshmem_init();
  nvshmem_team_t row;
  nvshmem_team_config_t config;
  config.num_contexts = 0;
  nvshmem_team_split_strided(NVSHMEM_TEAM_WORLD, 0, 1, nvshmem_n_pes(), &config, 0, &row);
  float *x = (float *)nvshmem_malloc(64 * sizeof(float)), *sum = x + 16;
  double *all = (double *)nvshmem_malloc(128 * sizeof(double));
  long *m = (long *)nvshmem_malloc(4 * sizeof(long));
  uint64_t *bits = (uint64_t *)nvshmem_malloc(16 * sizeof(uint64_t));
  int grid = 0;
  nvshmemx_collective_launch_query_gridsize((const void *)step_block, dim3(128), NULL, 0, &grid);
  void *args[] = {&row, &x, &sum, &all, &m, &bits};
  for (const void *step : {(const void *)step_thread, (const void *)step_warp, (const void *)step_block,
                           (const void *)step_half})
    nvshmemx_collective_launch(step, dim3(grid), dim3(128), args, 0, 0);
  cudaStream_t s;
  cudaStreamCreate(&s);
  nvshmemx_float_sum_reduce_on_stream(row, sum, x, 16, s);
  nvshmemx_double_fcollect_on_stream(row, all, all + 64, 8, s);
  nvshmemx_double_broadcast_on_stream(row, all, all + 64, 8, 0, s);
  nvshmemx_int64_alltoall_on_stream(row, (int64_t *)all, (const int64_t *)(all + 64), 4, s);
  nvshmemx_broadcastmem_on_stream(row, all, all + 64, 64, 0, s);
  nvshmemx_alltoallmem_on_stream(row, all, all + 64, 64, s);
  nvshmemx_fcollectmem_on_stream(row, all, all + 64, 64, s);
  nvshmem_int_broadcast(row, (int *)m, (const int *)(m + 2), 2, 0);
  nvshmem_char_alltoall(NVSHMEM_TEAM_WORLD, (char *)all, (const char *)(all + 64), 8);
  nvshmem_broadcastmem(row, all, all + 64, 64, 0);
  nvshmem_alltoallmem(row, all, all + 64, 64);
  nvshmem_fcollectmem(row, all, all + 64, 64);
  nvshmemx_barrier_on_stream(row, s);
  nvshmemx_team_sync_on_stream(NVSHMEM_TEAM_WORLD, s);
  nvshmemx_sync_all_on_stream(s);
  nvshmem_long_min_reduce(NVSHMEM_TEAM_WORLD, m, m, 4);
  nvshmemx_uint32_or_reduce_on_stream(row, (uint32_t *)bits, (const uint32_t *)bits, 8, s);
  nvshmemx_double_prod_reducescatter_on_stream(row, all, all + 64, 4, s);
  nvshmem_int64_xor_reducescatter(NVSHMEM_TEAM_WORLD, (int64_t *)bits, (const int64_t *)(bits + 8), 1);
  nvshmemx_half_sum_reduce_on_stream(row, (half *)all, (const half *)(all + 8), 16, s);
  nvshmemx_bfloat16_min_reducescatter_on_stream(row, (__nv_bfloat16 *)all, (const __nv_bfloat16 *)(all + 64), 4, s);
  nvshmemx_half_broadcast_on_stream(row, (half *)all, (const half *)(all + 64), 8, 0, s);
  nvshmem_bfloat16_alltoall(row, (__nv_bfloat16 *)all, (const __nv_bfloat16 *)(all + 64), 2);
  nvshmem_half_prod_reduce(row, (half *)all, (const half *)all, 8);
  nvshmem_free(bits);
  nvshmem_barrier(row);
  nvshmem_team_destroy(row);
  // A team from a unique id: PE 0 makes it and hands it over (here through
  // the heap; programs often use MPI), every PE joins with its own index.
  nvshmemx_team_uniqueid_t *id = (nvshmemx_team_uniqueid_t *)nvshmem_malloc(sizeof(nvshmemx_team_uniqueid_t));
  if (nvshmem_my_pe() == 0) nvshmemx_team_get_uniqueid(id);
  nvshmem_barrier_all();
  nvshmem_team_config_t id_config;
  id_config.num_contexts = 0;
  nvshmem_getmem(&id_config.uniqueid, id, sizeof *id, 0);
  nvshmem_team_t from_id = NVSHMEM_TEAM_INVALID;
  nvshmemx_team_init(&from_id, &id_config, NVSHMEM_TEAM_CONFIG_MASK_UNIQUEID, nvshmem_n_pes(), nvshmem_my_pe());
  nvshmem_team_sync(from_id);
  nvshmem_team_destroy(from_id);
  nvshmem_free(id);
  nvshmem_free(m);
  nvshmem_free(all);
  nvshmem_free(x);
  nvshmem_finalize();
#endif
}

#elif GSHMEM_CHECK_CASE == 1
// gshmem's ptrdiff reducescatter: NVSHMEM has none, so the NVSHMEM names do
// not declare it.
__global__ void k(ptrdiff_t *dest, const ptrdiff_t *source) {
  nvshmem_ptrdiff_sum_reducescatter(NVSHMEM_TEAM_WORLD, dest, source, 1);
}
#endif
