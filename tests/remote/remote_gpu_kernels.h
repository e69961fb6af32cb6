// Launchers of the remote-peer GPU tests' kernels (remote_gpu_kernels.cu);
// the Catch2 checks are in remote_gpu_test.cpp. Each returns the launch
// status and does not synchronize.
#pragma once

#include <cuda_runtime.h>
#include <stdint.h>

namespace remote_gpu {

// Layout of the RMA test's symmetric `dst` (ints) and of `got` (device
// memory, not symmetric), per form.
constexpr int kP = 0, kPut = 8, kPutNbi = 32, kPutmem = 48, kPutShared = 64, kPutWarp = 80, kPutBlock = 160,
              kDstInts = 320;
constexpr int kG = 0, kGet = 8, kGetNbi = 24, kGetShared = 40, kGetWarp = 80, kGetBlock = 160, kGotInts = 320;
constexpr int kMsgInts = 16, kWarpInts = 64, kBlockInts = 128, kBlockThreads = 64;
constexpr int kSrcInts = 160;

// Every thread form from thread 0, the warp forms from warp 0, the block
// forms from the 64-thread block; then gshmem_quiet.
cudaError_t launch_rma(int *dst, const int *src, int *got, int target);

// Atomic slots of the target (long long), each touched by one PE.
enum { A_FETCH, A_SET, A_SWAP, A_CAS_OK, A_CAS_NO, A_FINC, A_INC, A_FADD, A_ADD, A_FAND, A_AND, A_FOR, A_OR,
       A_FXOR, A_XOR, A_CONTENDED, A_SLOTS };
constexpr int kContendBlocks = 4, kContendThreads = 64;
// One thread per form; then every thread of 4 blocks fetch-adds 1 on the
// contended slot (old values into `olds`, kContendBlocks * kContendThreads).
cudaError_t launch_amo(long long *slots, long long *fetched, long long *olds, int target);

// Message passing, `rounds` rounds with the peer: round r puts a message of
// kMsgInts (even r: put_signal; odd r: put_nbi, fence, signal_op), waits
// for the peer's round r message (signal_wait_until) and checks it, then
// acknowledges (signal_op ADD) and waits for the peer's acknowledgement.
// Violations (a message seen after its signal but not whole) go to
// *violations. One thread.
cudaError_t launch_litmus(int *msg, const int *src_sym, uint64_t *sig, uint64_t *ack, long long rounds, int me,
                          int target, unsigned long long *violations);

// Device barrier: each of `rounds` rounds p's the round to the peer's
// slot, then gshmem_barrier_all (one 32-thread block); after it the slot
// must hold the peer's round. Violations to *violations.
cudaError_t launch_barrier(int *slot, int rounds, int target, unsigned long long *violations);

// A burst the proxy coalesces: for each of `rounds` rounds a 256-thread
// block p's kBurstWords 8-byte values burst_value(i, round) to the peer's
// dst[i] (thread t the elements t, t + 256, ...), then thread 0 p's
// 2 * round + 1 and then 2 * round + 2 to dst[kBurstWords] (the later p
// must be what stays), and quiets. rounds * (kBurstWords + 2) put requests.
constexpr int kBurstWords = 1024, kBurstThreads = 256;
__host__ __device__ inline unsigned long long burst_value(int i, int round) {
  return ((unsigned long long)(round + 1) << 32) | (unsigned long long)i;
}
cudaError_t launch_p_burst(unsigned long long *dst, int rounds, int target);

// A warp's p's in the patterns the aggregation into runs (remote.h,
// remote_issue_p) must tell apart. One 256-thread block; thread t owns
// elements t, t + 256, ... of kPatternElems and p's pattern_value(i) to the
// peer's dst[pattern_index(mode, i)] (T of 8, 4, 2 or 1 bytes), then thread
// 0 quiets after a __syncthreads. Modes:
//   0 consecutive (each warp one run a pass), 1 reversed within each warp
//   (out of line: no run), 2 pairs swapped (no run), 3 only even threads
//   (targets 2 apart: no run), 4 the upper half of each warp's lanes
//   kPatternElems further on (two runs), 5 the two halves from two branches
//   (one run, or two where the warp diverges).
// dst holds 2 * kPatternElems elements.
constexpr int kPatternThreads = 256, kPatternElems = 1024, kPatternModes = 6;
__host__ __device__ inline int pattern_index(int mode, int i) {
  const int lane = i % 32, warp0 = i - lane;
  switch (mode) {
    case 1: return warp0 + 31 - lane;
    case 2: return i ^ 1;
    case 4: return lane < 16 ? i : i + kPatternElems;
    default: return i;
  }
}
__host__ __device__ inline bool pattern_active(int mode, int i) { return mode != 3 || i % 2 == 0; }
__host__ __device__ inline unsigned long long pattern_value(int i, int width) {
  const unsigned long long v = 0x0123456789abcdefull ^ ((unsigned long long)(i + 1) * 0x9e3779b97f4a7c15ull);
  return width == 8 ? v : v & ((1ull << (8 * width)) - 1);
}
cudaError_t launch_p_pattern(void *dst, int width, int mode, int target);

// Extended and C++ atomics and g_weak on the peer's slots (the target
// initialized them: see remote_gpu_test.cpp), one thread; results into
// `fetched` (doubles, X_FETCHED slots). Then kXamoBlocks x kXamoThreads
// threads each add 1.0f to the peer's floats[X_F_CONTENDED] with
// gshmemx_float_atomic_fetch_add (a compare-and-swap loop through the proxy),
// old values into `olds`.
enum { X_I_SUB, X_I_FMAX, X_I_MIN, X_I_FNANMAX, X_I_LOAD_ACQ, X_I_STORE_REL, X_I_CAS_OK, X_I_CAS_NO, X_I_SLOTS };
enum { X_F_FADD, X_F_FMAX_NAN, X_F_NANMIN, X_F_XCHG, X_F_CONTENDED, X_F_SLOTS };
enum { X_D_FSUB, X_D_FMAX_ZERO, X_D_SLOTS };
enum { X_L_ADD, X_L_SUB, X_L_SLOTS };
enum { XF_SUB, XF_FMAX, XF_FNANMAX, XF_LOAD_ACQ, XF_CAS_OK, XF_CAS_OK_EXPECTED, XF_CAS_NO, XF_CAS_NO_EXPECTED,
       XF_G_WEAK, XF_FADD, XF_FMAX_NAN, XF_XCHG, XF_DSUB, XF_DMAX_ZERO, XF_SLOTS };
constexpr int kXamoBlocks = 4, kXamoThreads = 32;
cudaError_t launch_xamo(int *ints, float *floats, double *doubles, long long *lls, double *fetched, float *olds,
                        int target);

// Message passing with the C++ interface, `rounds` rounds, one thread per
// PE: put_nbi of kMsgInts, then gshmem::atomic_store<release>(flag, r) on
// the peer; wait for the peer's flag to reach r (local poll), check its
// message, then gshmem::atomic_fetch_add<release>(ack, 1) on the peer and
// wait for the peer's acknowledgement. Violations to *violations.
cudaError_t launch_cxx_litmus(int *msg, int *src, unsigned long long *flag, unsigned long long *ack, long long rounds,
                              int target, unsigned long long *violations);

// On `stream`: one thread fills `src` (device memory, n ints) with `value`
// and put_nbi's it into symmetric `dst` on the peer, with no quiet: the
// requests are left queued for quiet_on_stream / barrier_all_on_stream.
cudaError_t launch_put_nbi_unquieted(int *dst, int *src, int n, int value, int target, cudaStream_t stream);

// On `stream`: the number of data[0..n) that are not `expected` into *wrong.
cudaError_t launch_count_wrong(const int *data, int n, int expected, unsigned long long *wrong, cudaStream_t stream);

}  // namespace remote_gpu
