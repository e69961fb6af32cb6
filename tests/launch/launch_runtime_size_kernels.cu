// The collectives with a size the compiler cannot see (read from the
// arena, as a program's would be): every path a call may take at run time
// (the LL protocol, pushed and pulled copies, the remote path) is compiled
// in, and the kernel must still hold 1024 threads (launch_registers) and no
// call (launch_no_calls: a 64-bit division by a run-time value is one). With
// sizes known at compile time (launch_kernels.cu) the compiler drops the
// paths a size rules out. One call a kernel (LAUNCH_KERNEL_ONCE says why);
// two loops that declare their 1024 threads. One PE: every collective is a
// copy of the source.
#include <gshmem/gshmem.h>
#include <gshmem/gshmemx.h>

#include "launch_cases.h"

using namespace launch_test;

// Thread, warp and block forms of each data collective, a reduction and a
// reducescatter, double elements.
LAUNCH_KERNEL_ONCE(rt_thread_double_broadcast, check_copy) {
  if (tid() == 0) gshmem_double_broadcast(GSHMEM_TEAM_WORLD, a->dst, a->src, a->rt_elems, 0);
}
LAUNCH_KERNEL_ONCE(rt_warp_double_broadcast, check_copy) {
  if (warp() == 0) gshmemx_double_broadcast_warp(GSHMEM_TEAM_WORLD, a->dst, a->src, a->rt_elems, 0);
}
LAUNCH_KERNEL_ONCE(rt_block_double_broadcast, check_copy) {
  gshmemx_double_broadcast_block(GSHMEM_TEAM_WORLD, a->dst, a->src, a->rt_elems, 0);
}
LAUNCH_KERNEL_ONCE(rt_thread_double_fcollect, check_copy) {
  if (tid() == 0) gshmem_double_fcollect(GSHMEM_TEAM_WORLD, a->dst, a->src, a->rt_elems);
}
LAUNCH_KERNEL_ONCE(rt_warp_double_fcollect, check_copy) {
  if (warp() == 0) gshmemx_double_fcollect_warp(GSHMEM_TEAM_WORLD, a->dst, a->src, a->rt_elems);
}
LAUNCH_KERNEL_ONCE(rt_block_double_fcollect, check_copy) {
  gshmemx_double_fcollect_block(GSHMEM_TEAM_WORLD, a->dst, a->src, a->rt_elems);
}
LAUNCH_KERNEL_ONCE(rt_thread_double_alltoall, check_copy) {
  if (tid() == 0) gshmem_double_alltoall(GSHMEM_TEAM_WORLD, a->dst, a->src, a->rt_elems);
}
LAUNCH_KERNEL_ONCE(rt_warp_double_alltoall, check_copy) {
  if (warp() == 0) gshmemx_double_alltoall_warp(GSHMEM_TEAM_WORLD, a->dst, a->src, a->rt_elems);
}
LAUNCH_KERNEL_ONCE(rt_block_double_alltoall, check_copy) {
  gshmemx_double_alltoall_block(GSHMEM_TEAM_WORLD, a->dst, a->src, a->rt_elems);
}
LAUNCH_KERNEL_ONCE(rt_thread_double_sum_reduce, check_copy) {
  if (tid() == 0) gshmem_double_sum_reduce(GSHMEM_TEAM_WORLD, a->dst, a->src, a->rt_elems);
}
LAUNCH_KERNEL_ONCE(rt_warp_double_sum_reduce, check_copy) {
  if (warp() == 0) gshmemx_double_sum_reduce_warp(GSHMEM_TEAM_WORLD, a->dst, a->src, a->rt_elems);
}
LAUNCH_KERNEL_ONCE(rt_block_double_sum_reduce, check_copy) {
  gshmemx_double_sum_reduce_block(GSHMEM_TEAM_WORLD, a->dst, a->src, a->rt_elems);
}
LAUNCH_KERNEL_ONCE(rt_thread_double_sum_reducescatter, check_copy) {
  if (tid() == 0) gshmem_double_sum_reducescatter(GSHMEM_TEAM_WORLD, a->dst, a->src, a->rt_elems);
}
LAUNCH_KERNEL_ONCE(rt_warp_double_sum_reducescatter, check_copy) {
  if (warp() == 0) gshmemx_double_sum_reducescatter_warp(GSHMEM_TEAM_WORLD, a->dst, a->src, a->rt_elems);
}
LAUNCH_KERNEL_ONCE(rt_block_double_sum_reducescatter, check_copy) {
  gshmemx_double_sum_reducescatter_block(GSHMEM_TEAM_WORLD, a->dst, a->src, a->rt_elems);
}
// One-thread reductions of the narrower element widths over the same bytes
// (with one PE, still a copy): their LL fold holds more elements a round
// trip than the 8-byte one (ll_fold_one_thread), and 4-byte elements were
// the ones at the 64-register limit when it was written.
LAUNCH_KERNEL_ONCE(rt_thread_int_sum_reduce, check_copy) {
  if (tid() == 0) gshmem_int_sum_reduce(GSHMEM_TEAM_WORLD, (int *)a->dst, (const int *)a->src, a->rt_elems * 2);
}
LAUNCH_KERNEL_ONCE(rt_thread_short_sum_reducescatter, check_copy) {
  if (tid() == 0)
    gshmem_short_sum_reducescatter(GSHMEM_TEAM_WORLD, (short *)a->dst, (const short *)a->src, a->rt_elems * 4);
}
LAUNCH_KERNEL_ONCE(rt_thread_uint8_xor_reduce, check_copy) {
  if (tid() == 0)
    gshmem_uint8_xor_reduce(GSHMEM_TEAM_WORLD, (uint8_t *)a->dst, (const uint8_t *)a->src, a->rt_elems * 8);
}
// The byte forms (one element size less to fold away).
LAUNCH_KERNEL_ONCE(rt_warp_fcollectmem, check_copy) {
  if (warp() == 0) gshmemx_fcollectmem_warp(GSHMEM_TEAM_WORLD, a->dst, a->src, a->rt_elems * sizeof(double));
}
LAUNCH_KERNEL_ONCE(rt_warp_broadcastmem, check_copy) {
  if (warp() == 0) gshmemx_broadcastmem_warp(GSHMEM_TEAM_WORLD, a->dst, a->src, a->rt_elems * sizeof(double), 0);
}
LAUNCH_KERNEL_ONCE(rt_block_alltoallmem, check_copy) {
  gshmemx_alltoallmem_block(GSHMEM_TEAM_WORLD, a->dst, a->src, a->rt_elems * sizeof(double));
}
// In a loop, as a benchmark calls them: with __launch_bounds__(1024).
LAUNCH_KERNEL_BOUNDED(rt_loop_thread_double_sum_reduce, check_copy) {
  if (tid() == 0) gshmem_double_sum_reduce(GSHMEM_TEAM_WORLD, a->dst, a->src, a->rt_elems);
}
LAUNCH_KERNEL_BOUNDED(rt_loop_block_double_fcollect, check_copy) {
  gshmemx_double_fcollect_block(GSHMEM_TEAM_WORLD, a->dst, a->src, a->rt_elems);
}
