// Execution groups for the wait/test algorithms: who scans which elements
// and how the group agrees on a result.
//
//   single_group   one thread (host or device): the standard gshmem_ routines
//   warp_group     the 32 lanes of a full, converged warp (gshmemx_*_warp)
//   block_group    every thread of the block (gshmemx_*_block)
//
// Operations (all collective: every member calls them in the same order):
//   kScanRegisters one thread (the only member with nothing else in
//                 flight): registers of polled values per scan step, 24
//                 (12 loads of 8-byte elements, 24 of elements of 4 bytes
//                 or less; half as many with per-element comparison values,
//                 which take registers beside them), the most that keeps
//                 every one-thread form within 64 registers, with margin,
//                 when inlined into a kernel's loop, so that the kernel
//                 launches with 1024 threads without __launch_bounds__
//                 (tests/launch). A pass over n elements costs about
//                 n / batch load latencies. Used for per-element
//                 comparison values (half of it: 6 loads of 8 bytes).
//   kOneValueScanRegisters one thread, one comparison value (_all, _some,
//                 and _any below one wide batch): 32, 16 loads of 8 bytes
//                 (one 128-byte line), 32 of 4 bytes or less, as the default
//                 _any scan. The tested kernels: _some and _all 48 registers,
//                 with a status array and a run-time cmp 48 and 52 (sm_90,
//                 nvcc 13.0); 40 (20 loads) made them 56-62. With 24 (12
//                 loads) _some ran 2.4-2.6x slower than the tree with 32 in
//                 flight on a random producer (n = 512..8192, 2 x H100): its
//                 time per batch did not change, its batches did.
//                 0 for the groups, which use:
//   kWideAnyRegisters one thread: registers of polled values per batch of
//                 the _any scans with one comparison value (scan_any_wide in
//                 sync_scan.h), twice the loads of 8 bytes in flight that
//                 GSHMEM_WAIT_SCAN_LOADS chooses (below). By default 32: 16
//                 loads of 8-byte elements (one 128-byte line), 32 of 4
//                 bytes or less. Those scans keep less beside the batch; 17
//                 loads of 8 bytes made the tested kernel exactly 64
//                 registers, 20 made it 70 (sm_90, nvcc 13.0), 16 gives 56.
//                 The wide choice, 64: 32 loads of 8 bytes, 64 of 4 bytes or
//                 less, for kernels whose blocks can afford the registers
//                 (docs/performance.md). 0 for the groups.
//   kScanBatch    loads each member keeps in flight per scan step: 8 per
//                 lane for a warp and 4 per thread for a block, whose
//                 members already have many loads in flight together, so
//                 that the group forms stay within 64 registers and are
//                 usable from 1024-thread blocks
//   kAllScanBatch the same for the _all scans with one comparison value,
//                 whose loop keeps less state: 11 per lane for a warp (a
//                 one-pass scan of n elements costs about n / (32 * batch)
//                 load latencies). 12 made a warp _all with a run-time cmp,
//                 length and status array, called in a kernel's loop,
//                 exactly 64 registers (sm_90, nvcc 13.0); 11 gives 56
//   rank(), size(), is_leader()
//   any(b)        true on every member if b is true on any member
//   min(x)        the minimum of x over the group, on every member
//   broadcast(x)  the leader's x, on every member
//   sync()        a barrier that orders memory among the members
//   reset_claims(), claim(c), claimed()
//                 hand out unique output slots: claim(c) reserves c
//                 consecutive slots and returns the first; claimed() is the
//                 total reserved since reset_claims(), on every member.
//   kAcquireBeforeAgreement
//                 true where agreeing costs a barrier (block): the scans then
//                 let the observing members acquire before the agreement,
//                 whose barrier also hands the ordering on (see sync_scan.h);
//                 false keeps the acquire-after-agreement order.
//   kLeadWarpAll  the largest array (at most 32 elements) whose _all routines
//                 the group's first warp polls alone, with acquire loads and
//                 warp votes, the group meeting once at the end
//                 (scan_all_lead_warp in sync_scan.h); 0: never. Only the
//                 block sets it: there each agreement is a block barrier.
//   lead_warp_lanes()
//                 (groups with kLeadWarpAll > 0) the lanes of the first warp
//                 that exist, for that warp's votes
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

// GSHMEM_WAIT_SCAN_LOADS: the loads of 8 bytes (twice as many of 4 bytes or
// less) that the one-thread _any scans with one comparison value keep in
// flight, chosen per translation unit before the first gshmem header:
//   16 (default)  every kernel stays within 64 registers per thread and
//                 launches with 1024 threads (tests/launch)
//   32            about twice as fast a pass over a large array; a kernel
//                 that inlines it in a loop takes 92 to 95 registers (sm_90,
//                 nvcc 13.0; docs/performance.md): blocks of at most 512
//                 threads (672 launch)
// Read here only. The C names gshmem_TYPENAME_wait_until_any and
// gshmem_TYPENAME_test_any follow it; the C++ templates gshmem::wait_until_any
// and gshmem::test_any take it as the default of their second template
// argument, which a call may name (gshmem::wait_until_any<uint64_t, 32>).
// Translation units may choose differently, with or without -rdc: the C
// names are static (each translation unit has its own) and the choice is
// part of the instantiated types, so the two scans are different symbols.
// (An inline function of the program's own that calls them, defined in a
// header that translation units of different choices include, is one
// definition: those translation units must then agree.)
#ifndef GSHMEM_WAIT_SCAN_LOADS
#define GSHMEM_WAIT_SCAN_LOADS 16
#endif
#if GSHMEM_WAIT_SCAN_LOADS != 16 && GSHMEM_WAIT_SCAN_LOADS != 32
#error "GSHMEM_WAIT_SCAN_LOADS must be 16 (the default) or 32"
#endif

// One thread; WideAnyLoads: the loads of 8 bytes in flight of its _any scans
// (GSHMEM_WAIT_SCAN_LOADS). The value is part of the type, so the two
// choices are different instantiations (no two definitions of one symbol).
template <unsigned WideAnyLoads>
struct single_group_of {
  static_assert(WideAnyLoads == 16 || WideAnyLoads == 32,
                "the one-thread _any scans keep 16 (default) or 32 loads of 8 bytes in flight");
  static constexpr unsigned kScanRegisters = 24;
  static constexpr unsigned kOneValueScanRegisters = 32;
  static constexpr unsigned kWideAnyRegisters = 2 * WideAnyLoads;
  static constexpr bool kAcquireBeforeAgreement = false;
  static constexpr unsigned kLeadWarpAll = 0;
  size_t claimed_ = 0;
  GSHMEM_HD unsigned rank() const { return 0; }
  GSHMEM_HD unsigned size() const { return 1; }
  GSHMEM_HD bool is_leader() const { return true; }
  GSHMEM_HD bool any(bool b) { return b; }
  GSHMEM_HD unsigned long long min(unsigned long long x) { return x; }
  GSHMEM_HD unsigned long long broadcast(unsigned long long x) { return x; }
  GSHMEM_HD void sync() {}
  GSHMEM_HD void reset_claims() { claimed_ = 0; }
  GSHMEM_HD size_t claim(size_t c) {
    size_t first = claimed_;
    claimed_ += c;
    return first;
  }
  GSHMEM_HD size_t claimed() { return claimed_; }
};
// The one-thread group of every routine but the _any scans with one
// comparison value, which take any_scan_group: the translation unit's
// choice (the C names) or the caller's (the C++ templates' argument).
using single_group = single_group_of<16>;
using any_scan_group = single_group_of<GSHMEM_WAIT_SCAN_LOADS>;

#if defined(__CUDACC__)

__device__ __forceinline__ unsigned linear_thread_index() {
  return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}

struct warp_group {
  static constexpr unsigned kFull = 0xffffffffu;
  static constexpr unsigned kScanRegisters = 0;
  static constexpr unsigned kOneValueScanRegisters = 0;
  static constexpr unsigned kWideAnyRegisters = 0;
  static constexpr unsigned kScanBatch = 8;
  static constexpr unsigned kAllScanBatch = 11;
  static constexpr bool kAcquireBeforeAgreement = false;
  static constexpr unsigned kLeadWarpAll = 0;
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
  __device__ unsigned long long broadcast(unsigned long long x) { return __shfl_sync(kFull, x, 0); }
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

// 64-bit minimum over the lanes in `mask` (which must all call it together),
// returned to each of them. On sm_80+ two redux.sync instructions (high
// words, then the low words of the lanes holding the minimal high word);
// otherwise a shuffle butterfly over the lanes present.
__device__ __forceinline__ unsigned long long lanes_min(unsigned mask, unsigned long long x) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  const unsigned high = (unsigned)(x >> 32);
  const unsigned min_high = __reduce_min_sync(mask, high);
  const unsigned min_low = __reduce_min_sync(mask, high == min_high ? (unsigned)x : ~0u);
  return ((unsigned long long)min_high << 32) | min_low;
#else
  const unsigned lane = linear_thread_index() & 31u;
  GSHMEMI_UNROLL
  for (int offset = 16; offset > 0; offset >>= 1) {
    // A lane outside `mask` yields an unspecified value: ignore it.
    unsigned long long other = __shfl_xor_sync(mask, x, offset);
    if ((mask >> (lane ^ (unsigned)offset) & 1u) && other < x) x = other;
  }
  return x;
#endif
}

// Shared memory a block_group works in; the cooperative entry points declare
// one as a static __shared__ variable (one per entry point, reused by every
// call of it: see block_group for why reuse needs no extra barrier).
struct block_scratch {
  unsigned long long warp_min[2][32];  // min(): one slot per warp, two banks
  unsigned long long broadcast;        // broadcast(): the leader's value
  unsigned long long counter;          // claim()
};

// Barrier budget (each bar.sync / bar.red costs every thread of the block a
// rendezvous, so the hot paths count them):
//   any(b)        1  (__syncthreads_or)
//   min(x)        1  (warp reduction, one shared slot per warp, bar.sync,
//                     warp reduction over the slots)
//   broadcast(x)  1
//   sync()        1
// min() alternates between two banks of slots. A member writes its warp's
// slot of bank k before the barrier and reads bank k after it; the next
// min() to write bank k is two calls later, and between the two lies the
// barrier of the min() in between, which no member passes before every
// member has finished reading bank k. Each routine starts again at bank 0
// and the broadcast slot is rewritten once per routine: every routine passes
// a barrier (broadcast() or any()) before its first min(), and the previous
// routine's last reads of the scratch precede that barrier, so consecutive
// calls sharing one scratch do not race either.
//
// All three reductions end in a block barrier, so besides agreeing on a
// value they order memory among the members (the acquire hand-off described
// at the top of this file): __syncthreads_or and bar.sync have the same
// memory semantics.
struct block_group {
  static constexpr unsigned kScanRegisters = 0;
  static constexpr unsigned kOneValueScanRegisters = 0;
  static constexpr unsigned kWideAnyRegisters = 0;
  static constexpr unsigned kScanBatch = 4;
  static constexpr unsigned kAllScanBatch = 4;
  // Members confirm their own candidates before the group agrees on a
  // winner, and acquire before the last vote of a pass (see scan_any,
  // scan_all): agreement costs a block barrier, so the algorithms fold the
  // acquire hand-off into it instead of adding one.
  static constexpr bool kAcquireBeforeAgreement = true;
  // _all over at most 32 elements: the first warp polls them, the block
  // waits at one barrier (see scan_all_lead_warp).
  static constexpr unsigned kLeadWarpAll = 32;
  block_scratch *s_;
  unsigned rank_;
  unsigned size_;
  unsigned lane_mask_;  // the lanes of this member's warp that exist
  unsigned bank_ = 0;   // min(): the bank the next call writes

  __device__ explicit block_group(block_scratch *s)
      : s_(s), rank_(linear_thread_index()), size_(blockDim.x * blockDim.y * blockDim.z) {
    const unsigned lanes = size_ - (rank_ & ~31u);  // threads from this warp's first on
    lane_mask_ = lanes >= 32u ? 0xffffffffu : (1u << lanes) - 1u;
  }
  __device__ unsigned rank() const { return rank_; }
  __device__ unsigned size() const { return size_; }
  __device__ bool is_leader() const { return rank_ == 0; }
  // The lanes of warp 0 (members 0 .. min(size, 32) - 1).
  __device__ unsigned lead_warp_lanes() const { return size_ >= 32u ? 0xffffffffu : (1u << size_) - 1u; }
  __device__ bool any(bool b) { return __syncthreads_or(b) != 0; }
  __device__ unsigned long long min(unsigned long long x) {
    unsigned long long *slots = s_->warp_min[bank_];
    bank_ ^= 1u;
    x = lanes_min(lane_mask_, x);
    const unsigned lane = rank_ & 31u;
    if (lane == 0) slots[rank_ >> 5] = x;
    __syncthreads();
    // Every warp reduces the per-warp slots itself: no second barrier.
    const unsigned warps = (size_ + 31u) >> 5;
    const unsigned lanes = (unsigned)__popc(lane_mask_);
    unsigned long long v = ~0ull;
    for (unsigned w = lane; w < warps; w += lanes) {
      const unsigned long long slot = slots[w];
      v = slot < v ? slot : v;
    }
    return lanes_min(lane_mask_, v);
  }
  // The leader's x, on every member.
  __device__ unsigned long long broadcast(unsigned long long x) {
    if (rank_ == 0) s_->broadcast = x;
    __syncthreads();
    return s_->broadcast;
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
