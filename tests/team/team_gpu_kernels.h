// Host-callable launchers of the GPU tests of the device barrier forms,
// teams, collective launch and the small collectives. The kernels live in
// ordinary .cu files compiled without -rdc (one per family); the Catch2
// checks are in test_team_gpu.cpp, compiled by the host compiler only (see
// tests/update/update_gpu_kernels.h for why). Every launcher returns the
// launch status and does not synchronize.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

namespace team_gpu {

// Which barrier forms a litmus round uses.
// form_warpgroup (team litmus only): the first 128 threads, the team
// barrier's warpgroup form (gshmemx_team_barrier_warpgroup, also for the
// sync rounds: there is no warpgroup sync).
enum barrier_form { form_thread = 0, form_warp = 1, form_block = 2, form_mixed = 3, form_warpgroup = 4 };

// Barrier litmus (team_gpu_barrier.cu), one block of `threads` threads per PE.
// Round r (1..rounds): the calling group (one thread, warp 0, or the whole
// block) stores r into slot [me] of buffer r % 2 on every PE (relaxed
// stores), passes a device barrier (with_quiet: barrier_all, else sync_all)
// in the given form, then every thread checks that every slot of its local
// buffer r % 2 holds exactly r. form_mixed: PE p uses form (r + p) % 3 in
// round r, so PEs pass the same barrier with different forms. `slots` is
// symmetric, 2 * n_pes elements, zeroed. Mismatches go to *violations.
cudaError_t launch_barrier_litmus(uint64_t *slots, long rounds, barrier_form form, bool with_quiet, int threads,
                                  unsigned long long *violations);

// Team queries on the device (team_gpu_teams.cu), one thread: out[0] =
// gshmem_team_my_pe(team), out[1] = gshmem_team_n_pes(team), out[2] =
// gshmem_team_sync(GSHMEM_TEAM_INVALID) (must be -1, nothing waited for),
// out[3 + i] = gshmem_team_translate_pe(team, i, GSHMEM_TEAM_WORLD) for
// i < kQueryRanks (-1 past the team's size), out[3 + kQueryRanks] =
// gshmem_team_translate_pe(GSHMEM_TEAM_WORLD, gshmem_my_pe(), team).
constexpr int kQueryRanks = 8;
cudaError_t launch_team_queries(int team, int *out);

// nvshmemx_double2_maxloc_reduce_block's native form on `team`, one block of
// 128 threads: dest[i] = the (value, location) pair of largest value (the
// smallest location on ties) over the members' source[i]; *rc its status.
cudaError_t launch_maxloc_reduce(int team, double2 *dest, const double2 *source, size_t n, int *rc);

// The barrier litmus on a team (one block of `threads` per member): round r,
// the calling group stores r into slot [my team rank] of buffer r % 2 on every
// member (world PEs from gshmem_team_translate_pe), then syncs the team
// (with_quiet: gshmemx_team_barrier*, else gshmem_team_sync /
// gshmemx_team_sync_*) in the given form; every thread checks that every slot
// of its buffer holds r. `slots`: symmetric, 2 * team size, zeroed.
cudaError_t launch_team_litmus(int team, uint64_t *slots, long rounds, barrier_form form, bool with_quiet,
                               int threads, unsigned long long *violations);

// On-stream rounds: one thread stores r into slot [my team rank] of buffer
// r % 2 on every member, then gshmem_quiet; the check kernel compares every
// slot of the local buffer with r and counts mismatches.
cudaError_t launch_team_store_round(int team, uint64_t *slots, uint64_t r, cudaStream_t stream);
cudaError_t launch_team_check_round(int team, uint64_t *slots, uint64_t r, unsigned long long *violations,
                                    cudaStream_t stream);

// Collective launch (team_gpu_launch.cu): the address of a kernel
//   grid_rendezvous(unsigned long long *arrived, unsigned long long *late,
//                   long long timeout_ns, int sync_peers)
// whose blocks wait for each other: thread 0 of every block adds 1 to
// *arrived, then spins until all blocks of the grid have arrived; a block
// still waiting after timeout_ns adds 1 to *late and gives up (blocks that
// are not co-resident never all arrive). With sync_peers, block 0 then
// passes a device barrier with the other PEs (gshmemx_barrier_all_thread).
const void *grid_rendezvous_kernel();

// Small collectives (team_gpu_collectives_{a,b,c}.cu): the types tested on the GPU
// (several sizes and signedness; the host checks every operator of the table).
#define TEAM_GPU_COLLECTIVE_TYPES(X)                                                                       \
  X(int, int) X(long, long) X(float, float) X(double, double) X(uint8, uint8_t) X(uint64, uint64_t) X(short, short) \
  X(half, __half) X(bfloat16, __nv_bfloat16)

// One block of 128 threads calls gshmem_TYPENAME_OP_reduce (form_thread:
// thread 0), gshmemx_TYPENAME_OP_reduce_warp (warp 0) or _block, with
// op 0..3 = sum, prod, max, min; or the fcollect of that form. *rc receives
// the status the call returned (thread 0's).
#define TEAM_GPU_DECLARE_COLLECTIVES(NAME, TYPE)                                                     \
  cudaError_t launch_reduce_##NAME(int team, int op, barrier_form form, TYPE *dest, const TYPE *source, \
                                   size_t n, int *rc);                                               \
  cudaError_t launch_fcollect_##NAME(int team, barrier_form form, TYPE *dest, const TYPE *source, size_t n, \
                                     int *rc);
TEAM_GPU_COLLECTIVE_TYPES(TEAM_GPU_DECLARE_COLLECTIVES)
#undef TEAM_GPU_DECLARE_COLLECTIVES

// broadcast and alltoall of TEAM_GPU_COLLECTIVE_TYPES, and the byte forms
// (broadcastmem, alltoallmem, fcollectmem): one block of 128 threads calls
// the form (form_thread: thread 0; form_warp: warp 0; form_block: all;
// form_mixed: PE p uses the warp form if p is even, the block form if odd,
// so members pass one collective from different groups) after thread 0 spun `delay_cycles` SM clock cycles (a late member: the others
// must wait for it, not read or write its buffers early). *rc receives
// thread 0's status.
#define TEAM_GPU_DECLARE_DATA_COLLECTIVES(NAME, TYPE)                                                         \
  cudaError_t launch_broadcast_##NAME(int team, barrier_form form, TYPE *dest, const TYPE *source, size_t n, \
                                      int root, long long delay_cycles, int *rc);                               \
  cudaError_t launch_alltoall_##NAME(int team, barrier_form form, TYPE *dest, const TYPE *source, size_t n,  \
                                     long long delay_cycles, int *rc);
TEAM_GPU_COLLECTIVE_TYPES(TEAM_GPU_DECLARE_DATA_COLLECTIVES)
#undef TEAM_GPU_DECLARE_DATA_COLLECTIVES
// which: 0 broadcastmem (root used), 1 alltoallmem, 2 fcollectmem; nbytes
// as the routines' nelems.
cudaError_t launch_mem_collective(int which, int team, barrier_form form, void *dest, const void *source,
                                  size_t nbytes, int root, long long delay_cycles, int *rc);

}  // namespace team_gpu

// And/or/xor reductions and reducescatter (team_gpu_reductions.cu).
namespace team_gpu {

// Operators, numbered for the kernels and the host tables.
enum reduce_op { op_sum = 0, op_prod, op_max, op_min, op_and, op_or, op_xor, op_count };

// The test matrix of the collectives' device forms. Every type x operator
// is compiled in the block form. The thread and warp forms are compiled for
// every type with one operator of each family (sum, and xor for and/or/xor)
// and, for broadcast and alltoall (one byte-moving algorithm behind every
// type), for one type of each element size (every_form_type); their mixed
// runs (PEs in different forms) too. GSHMEM_TEST_FULL_MATRIX=1 (CMake
// option of the same name) compiles the whole cross product. Why: every
// type x operator x form inlines a whole collective (its LL, two-sync and
// remote forms), and the cross product made the team suite's sources the
// build's critical path (146 s for one of them on one core, nvcc 13); a
// form runs the same code whatever the operator (the operator is only the
// fold), and an operator folds the same in every form. A case left out is
// counted and reported by the host test, never silently passed: its kernel
// writes kFormNotCompiled, or the host does not launch it (mixed runs).
#ifndef GSHMEM_TEST_FULL_MATRIX
#define GSHMEM_TEST_FULL_MATRIX 0
#endif
constexpr int kFormNotCompiled = -8;
__host__ __device__ constexpr bool every_form_op(int op) {
  return GSHMEM_TEST_FULL_MATRIX || op == op_sum || op == op_xor;
}
__host__ __device__ constexpr bool same_name(const char *a, const char *b) {
  return *a == *b && (*a == 0 || same_name(a + 1, b + 1));
}
__host__ __device__ constexpr bool every_form_type(const char *name) {
  return GSHMEM_TEST_FULL_MATRIX || same_name(name, "uint8") || same_name(name, "short") ||
         same_name(name, "int") || same_name(name, "double");
}
// 0: gshmem_TYPENAME_OP_reduce and its forms; 1: ..._reducescatter.
enum reduction_kind { kind_reduce = 0, kind_reducescatter = 1 };

// Types with every operator (and/or/xor too) and types with sum/prod/max/min
// only (reducescatter of the arithmetic operators, floating point included).
#define TEAM_GPU_BITWISE_TYPES(X) \
  X(uint8, uint8_t) X(ushort, unsigned short) X(int32, int32_t) X(uint64, uint64_t) X(size, size_t)
#define TEAM_GPU_ARITH_TYPES(X) X(int, int) X(double, double) X(int8, int8_t) X(half, __half) X(bfloat16, __nv_bfloat16)

// One block of 128 threads calls the `kind` routine of operator `op` in
// form `form` (form_thread: thread 0, gshmem_TYPENAME_OP_KIND; form_warp:
// warp 0, gshmemx_..._warp; form_block: gshmemx_..._block). *rc receives
// thread 0's status (-7 for an operator the type does not have).
#define TEAM_GPU_DECLARE_REDUCTIONS(NAME, TYPE)                                                           \
  cudaError_t launch_reduction_##NAME(int team, int op, int kind, barrier_form form, TYPE *dest,         \
                                      const TYPE *source, size_t n, int *rc);
TEAM_GPU_BITWISE_TYPES(TEAM_GPU_DECLARE_REDUCTIONS)
TEAM_GPU_ARITH_TYPES(TEAM_GPU_DECLARE_REDUCTIONS)
#undef TEAM_GPU_DECLARE_REDUCTIONS

}  // namespace team_gpu
