// The 1024-thread launch rule: every device routine, inlined into a simple
// kernel that declares no __launch_bounds__, must leave the kernel within
// 64 registers per thread, so that the kernel launches with 1024 threads per
// block (65536 registers per SM / 1024). ptxas gives a kernel the registers
// of its largest inlined routine; past 64 the launch fails with "too many
// resources requested for launch" (cudaErrorLaunchOutOfResources).
//
// launch_kernels.cu (gshmem names) and launch_compat_kernels.cu (the NVSHMEM
// names and call shapes of NVIDIA's perftests) define one such kernel per
// routine form. Two tests use them:
//   launch_registers (CPU)  reads every kernel's register count from the
//                           compiled executable (check_registers.cmake)
//   launch_1024_gpu (GPU)   reads cudaFuncGetAttributes for each kernel and
//                           launches it with 1024 threads on one PE (every
//                           remote target is the PE itself), then checks
//                           what the routine did.
// Kernels are registered with LAUNCH_KERNEL(name, check): an extern "C"
// __global__ function (so its name reads the same in the object file and in
// failure messages) taking the symmetric arena, the target PE and a repeat
// count, and a host check of the arena after the kernel.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace launch_test {

constexpr int kThreads = 1024;       // every kernel runs as one block of this size
constexpr int kWarps = kThreads / 32;
constexpr size_t kElems = 4096;      // RMA elements: 4 per thread, 128 per warp
constexpr size_t kPerThread = kElems / kThreads;
constexpr size_t kPerWarp = kElems / kWarps;
constexpr size_t kWait = 4096;       // wait/test array length
constexpr size_t kHit = 1234;        // the one element equal to 2 (the others are 1)
constexpr size_t kVectorHit = 777;   // the one element greater than its comparison value

struct alignas(16) wide {
  unsigned long long lo, hi;
};

// One symmetric allocation holds everything a kernel touches; the host
// writes the initial values (initial_arena) before each kernel.
struct arena {
  double src[kElems];                 // src[i] = i + 0.5
  double dst[kElems];                 // -1
  int isrc[kElems];                   // 3 i + 1
  int idst[kElems];                   // -1
  unsigned char bsrc[kThreads];       // (i * 7 + 3) & 0xff
  unsigned char bdst[kThreads];       // 0
  unsigned long long slot[kThreads];  // i: one atomic target per thread
  double fslot[kThreads];             // i + 0.25
  wide wslot[kThreads];               // {i, ~i}
  unsigned long long values[kThreads];  // operands (and conditions) of the bulk atomics: i + 1
  unsigned long long counter;         // 0: the atomic target all threads share
  uint64_t sig;                       // 0
  int cmp_eq, cmp_ge, cmp_gt;         // comparisons, read at run time
  int rt_order, rt_fence_order;       // run-time orders: relaxed, seq_cst
  int rt_scope;                       // run-time scope: system
  size_t rt_elems;                    // kElems, read at run time (collectives of run-time size)
  long long ivars[kWait];             // 1, but 2 at kHit
  long long cmp_values[kWait];        // equal to ivars, but ivars - 1 at kVectorHit
  int ivars32[kWait];                 // the same values as 4-byte elements
  int cmp_values32[kWait];
  short ivars16[kWait];               // and as 2-byte elements
  int status[kWait];                  // 0: every element included
  size_t indices[kWait];              // ~0
  unsigned long long result[kThreads];  // what each thread got back; ~0 where nothing
};

void initial_arena(arena *a);

using check_fn = std::string (*)(const arena &after);

struct launch_case {
  const char *name;
  const void *kernel;
  check_fn check;
};

// Every registered kernel, in no particular order across files.
std::vector<launch_case> &cases();

struct registrar {
  registrar(const char *name, const void *kernel, check_fn check) { cases().push_back({name, kernel, check}); }
};

// Launches `c` as one block of kThreads threads on the arena, the routine
// once; returns cudaGetLastError() right after the launch (no
// synchronization).
cudaError_t launch(const launch_case &c, arena *device_arena, int pe);

// ------------------------------------------------------------------ checks
// Each returns "" when the arena is as expected, else what differs
// (launch_cases.cpp).
std::string describe_mismatch(const char *what, size_t index, double got, double want);
std::string check_none(const arena &a);
std::string check_copy(const arena &a);              // dst == src
std::string check_icopy(const arena &a);             // idst == isrc
std::string check_bcopy(const arena &a);             // bdst == bsrc
std::string check_counter_distinct(const arena &a);  // counter == 1024, results 0 .. 1023 once each
std::string check_icopy_sig1(const arena &a);        // idst == isrc and sig == 1
std::string check_icopy_sig_all(const arena &a);     // idst == isrc and sig == 1024
// Per-thread atomics on slot[t] (t before) or fslot[t] (t + 0.25 before):
// the slot after and the result the thread got back (~0: none).
std::string check_amo_fetch(const arena &a);         // slot t, result t
std::string check_amo_set(const arena &a);           // slot 7t
std::string check_amo_swap(const arena &a);          // slot t + 1, result t
std::string check_amo_compare_swap(const arena &a);  // slot t + 5000, result t
std::string check_amo_fetch_inc(const arena &a);     // slot t + 1, result t
std::string check_amo_inc(const arena &a);           // slot t + 1
std::string check_amo_fetch_add(const arena &a);     // slot t + 3, result t
std::string check_amo_add(const arena &a);           // slot t + 3
std::string check_amo_fetch_and(const arena &a);     // slot t & ~1, result t
std::string check_amo_and(const arena &a);
std::string check_amo_fetch_or(const arena &a);      // slot t | 0x100, result t
std::string check_amo_or(const arena &a);
std::string check_amo_fetch_xor(const arena &a);     // slot t ^ 0xff, result t
std::string check_amo_xor(const arena &a);
std::string check_amo_fetch_sub(const arena &a);     // slot t - 1, result t
std::string check_amo_fetch_max(const arena &a);     // slot max(t, 500), result t
std::string check_amo_fetch_min(const arena &a);     // slot min(t, 500), result t
std::string check_amo_bulk_add(const arena &a);      // slot 2t + 1, result t
std::string check_cxx_store(const arena &a);         // slot 2t
std::string check_amo_int_fetch_add(const arena &a);  // isrc[4t] one more, result its old value
std::string check_wslot_exchanged(const arena &a);   // wslot {t + 1, t + 2}, result t
std::string check_amo_double_fetch(const arena &a);  // fslot t + 0.25, result t
std::string check_amo_double_compare_swap(const arena &a);  // fslot -1
std::string check_amo_double_fetch_max(const arena &a);     // fslot max(t + 0.25, 500)
std::string check_amo_double_fetch_nanmin(const arena &a);  // fslot min(t + 0.25, 500)
std::string check_amo_double_fetch_add(const arena &a);     // fslot t + 1.25
template <unsigned long long N> std::string check_counter(const arena &a);
template <unsigned long long N> std::string check_sig(const arena &a);
template <unsigned long long N> std::string check_copy_sig(const arena &a);  // dst == src and sig == N
// result[t] == V for the threads in [0, Threads) and untouched after.
template <unsigned long long V, int Threads = kThreads> std::string check_result(const arena &a);
// A _some routine by one thread (or one group leader): result[0] == 1 and
// indices[0] == Index.
template <size_t Index> std::string check_some(const arena &a);

template <unsigned long long N>
std::string check_counter(const arena &a) {
  return a.counter == N ? "" : describe_mismatch("counter", 0, (double)a.counter, (double)N);
}
template <unsigned long long N>
std::string check_sig(const arena &a) {
  return a.sig == N ? "" : describe_mismatch("sig", 0, (double)a.sig, (double)N);
}
template <unsigned long long N>
std::string check_copy_sig(const arena &a) {
  std::string e = check_copy(a);
  return e.empty() ? check_sig<N>(a) : e;
}
template <unsigned long long V, int Threads>
std::string check_result(const arena &a) {
  for (int t = 0; t < kThreads; ++t) {
    const unsigned long long want = t < Threads ? V : ~0ull;
    if (a.result[t] != want) return describe_mismatch("result", (size_t)t, (double)a.result[t], (double)want);
  }
  return "";
}
template <size_t Index>
std::string check_some(const arena &a) {
  if (a.result[0] != 1) return describe_mismatch("result (count)", 0, (double)a.result[0], 1);
  if (a.indices[0] != Index) return describe_mismatch("indices", 0, (double)a.indices[0], (double)Index);
  return "";
}

#if defined(__CUDACC__)
// The calling thread's index in the kernel's one block, and its warp's.
__device__ __forceinline__ int tid() { return (int)threadIdx.x; }
__device__ __forceinline__ int warp() { return (int)threadIdx.x / 32; }
#endif

}  // namespace launch_test

// A test kernel NAME whose body runs TIMES times (ATTRIBUTES: before its
// name, such as __launch_bounds__), checked by CHECK after the launch.
#define LAUNCH_KERNEL_DEFINE(NAME, CHECK, ATTRIBUTES, TIMES)                                          \
  static __device__ __forceinline__ void NAME##_body(launch_test::arena *a, int pe);                 \
  extern "C" __global__ void ATTRIBUTES NAME(launch_test::arena *a, int pe, int repeat) {             \
    for (int i = 0; i < (TIMES); ++i) NAME##_body(a, pe);                                             \
  }                                                                                                   \
  static const launch_test::registrar NAME##_registrar(#NAME, reinterpret_cast<const void *>(&NAME), \
                                                       CHECK);                                        \
  static __device__ __forceinline__ void NAME##_body(launch_test::arena *a, int pe)

// The routine runs `repeat` times (1 in the GPU test) in a loop of the
// kernel, as in a benchmark: what the compiler hoists out of such a loop
// stays live across it and counts towards the kernel's registers.
#define LAUNCH_KERNEL(NAME, CHECK) LAUNCH_KERNEL_DEFINE(NAME, CHECK, , repeat)

// The routine once, no loop: the collectives of a size known only at run
// time (launch_runtime_size_kernels.cu). In a loop such a call keeps more
// live than 64 registers (72-122 measured, docs/api.md "Registers"); a
// kernel that loops over one with 1024 threads declares them
// (LAUNCH_KERNEL_BOUNDED).
#define LAUNCH_KERNEL_ONCE(NAME, CHECK) LAUNCH_KERNEL_DEFINE(NAME, CHECK, , 1)

// LAUNCH_KERNEL's loop in a kernel that declares its 1024 threads
// (__launch_bounds__): the compiler then fits it in 64 registers, spilling
// what does not fit.
#define LAUNCH_KERNEL_BOUNDED(NAME, CHECK) \
  LAUNCH_KERNEL_DEFINE(NAME, CHECK, __launch_bounds__(launch_test::kThreads), repeat)
