// Execution groups for the wait/test algorithms: who scans which elements
// and how the group agrees on a result.
//
//   single_group   one thread (host or device): the standard gshmem_ routines
//   warp_group     the 32 lanes of a full, converged warp (gshmemx_*_warp)
//   block_group    every thread of the block (gshmemx_*_block)
//
// Operations (all collective: every member calls them in the same order):
//   kScanBatch    loads each member keeps in flight per scan step: 32 for
//                 one thread (latency-bound: a pass over n elements costs
//                 about n/32 load latencies); 8 per lane for a warp and 4 per
//                 thread for a block, whose members already have many loads
//                 in flight together, so that the group forms stay within
//                 64 registers and are usable from 1024-thread blocks
//   rank(), size(), is_leader()
//   any(b)        true on every member if b is true on any member
//   min(x)        the minimum of x over the group, on every member
//   sync()        a barrier that orders memory among the members
//   reset_claims(), claim(c), claimed()
//                 hand out unique output slots: claim(c) reserves c
//                 consecutive slots and returns the first; claimed() is the
//                 total reserved since reset_claims(), on every member.
//
// Memory ordering across the group: the warp barrier (bar.warp.sync) and the
// block barrier (bar.sync) order memory among their participants, and PTX
// causality order is transitive: a member that acquired (synchronized with a
// remote release at system scope) and then reaches the barrier makes the
// remote writes visible to every member after the barrier. Shuffles and
// votes alone order nothing, so every successful group routine ends with
// sync() after the acquiring member(s) acquired.
#pragma once

#include <gshmem/detail/sync_core.h>

namespace gshmem {
namespace detail {

struct single_group {
  static constexpr unsigned kScanBatch = 32;
  size_t claimed_ = 0;
  GSHMEM_HD unsigned rank() const { return 0; }
  GSHMEM_HD unsigned size() const { return 1; }
  GSHMEM_HD bool is_leader() const { return true; }
  GSHMEM_HD bool any(bool b) { return b; }
  GSHMEM_HD unsigned long long min(unsigned long long x) { return x; }
  GSHMEM_HD void sync() {}
  GSHMEM_HD void reset_claims() { claimed_ = 0; }
  GSHMEM_HD size_t claim(size_t c) {
    size_t first = claimed_;
    claimed_ += c;
    return first;
  }
  GSHMEM_HD size_t claimed() { return claimed_; }
};

#if defined(__CUDACC__)

__device__ __forceinline__ unsigned linear_thread_index() {
  return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}

struct warp_group {
  static constexpr unsigned kFull = 0xffffffffu;
  static constexpr unsigned kScanBatch = 8;
  unsigned lane_;
  size_t claimed_ = 0;

  __device__ warp_group() : lane_(linear_thread_index() & 31u) {}
  __device__ unsigned rank() const { return lane_; }
  __device__ unsigned size() const { return 32; }
  __device__ bool is_leader() const { return lane_ == 0; }
  __device__ bool any(bool b) { return __any_sync(kFull, b) != 0; }
  __device__ unsigned long long min(unsigned long long x) {
    GSHMEMI_UNROLL
    for (int offset = 16; offset > 0; offset >>= 1) {
      unsigned long long other = __shfl_xor_sync(kFull, x, offset);
      x = other < x ? other : x;
    }
    return x;
  }
  __device__ void sync() { __syncwarp(kFull); }
  __device__ void reset_claims() { claimed_ = 0; }
  __device__ size_t claim(size_t c) {
    // Inclusive prefix sum over the lanes; lane 31 holds the warp's total.
    unsigned long long sum = c;
    GSHMEMI_UNROLL
    for (int d = 1; d < 32; d <<= 1) {
      unsigned long long below = __shfl_up_sync(kFull, sum, d);
      if (lane_ >= (unsigned)d) sum += below;
    }
    unsigned long long total = __shfl_sync(kFull, sum, 31);
    size_t first = claimed_ + (size_t)(sum - c);
    claimed_ += (size_t)total;
    return first;
  }
  __device__ size_t claimed() { return claimed_; }
};

// Shared memory a block_group works in; the cooperative entry points declare
// one as a static __shared__ variable.
struct block_scratch {
  unsigned long long value;
  unsigned long long counter;
};

struct block_group {
  static constexpr unsigned kScanBatch = 4;
  block_scratch *s_;
  unsigned rank_;
  unsigned size_;

  __device__ explicit block_group(block_scratch *s)
      : s_(s), rank_(linear_thread_index()), size_(blockDim.x * blockDim.y * blockDim.z) {}
  __device__ unsigned rank() const { return rank_; }
  __device__ unsigned size() const { return size_; }
  __device__ bool is_leader() const { return rank_ == 0; }
  __device__ bool any(bool b) { return __syncthreads_or(b) != 0; }
  __device__ unsigned long long min(unsigned long long x) {
    __syncthreads();  // everyone has read the previous result
    if (rank_ == 0) s_->value = ~0ull;
    __syncthreads();
    if (x != ~0ull)
      (void)atomic_fetch_min<memory_order::relaxed, thread_scope::block>(&s_->value, x);
    __syncthreads();
    return s_->value;
  }
  __device__ void sync() { __syncthreads(); }
  __device__ void reset_claims() {
    __syncthreads();
    if (rank_ == 0) s_->counter = 0;
    __syncthreads();
  }
  __device__ size_t claim(size_t c) {
    if (c == 0) return 0;
    return (size_t)atomic_fetch_add<memory_order::relaxed, thread_scope::block>(&s_->counter,
                                                                                (unsigned long long)c);
  }
  __device__ size_t claimed() {
    __syncthreads();
    size_t total = (size_t)s_->counter;
    __syncthreads();  // nobody resets before everyone has read
    return total;
  }
};

#endif  // __CUDACC__

}  // namespace detail
}  // namespace gshmem
