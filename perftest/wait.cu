// gshmem_perf_wait: scaling of the wait/test families with the number of
// ivars n, by issuer width (thread, warp, block), for several producer
// patterns.
//
// Round i (1-based), PE 0 the producer, PE 1 the waiter:
//   _all:       PE 0 stores i into all n ivars on PE 1; PE 1 waits until all >= i.
//   _any/_some: PE 0 stores i into one ivar on PE 1; PE 1 waits until one is
//               >= its comparison value (only that one is), then checks the
//               index it got back against the one the producer set.
//   then PE 1 acknowledges with one store and PE 0 waits for it.
// Producer patterns (--producer; the first of each family is the default):
//   _all:       block     256 threads, thread t stores t, t+256, ...
//               p_block   the same elements, each set with gshmem_uint64_p (the
//                         API's p, as an NVSHMEM-style program writes them)
//               in_order  one thread stores 0, 1, ..., n-1
//               reverse   one thread stores n-1, ..., 1, 0
//               random    one thread stores a fixed pseudo-random permutation
//   _any/_some: next      element (i-1) % n, where a round-robin _any cursor
//                         looks next (the most favourable case)
//               random    element perm[(i-1) % n], perm a fixed pseudo-random
//                         permutation (NVSHMEM's figures use a random producer)
// The permutation of each n is built once on the host from a fixed seed, the
// same on both PEs. Rows of a default pattern are named after the form
// ("wait_until_all"), the others carry the pattern ("wait_until_all[random]").
// The one-thread _any with one value runs twice: as the C names are by
// default (16 loads of 8 bytes in flight), and with the wide scan that
// GSHMEM_WAIT_SCAN_LOADS=32 or gshmem::wait_until_any<T, 32> chooses (32 in
// flight), in rows "wait_until_any_wide" and "test_any_wide" (one thread
// only; "wait_until_any_wide[random]" with the random producer).
// Every pattern runs for the wait forms; the test and _vector forms run with
// the default pattern only. Quick mode runs the other patterns at n 1024 and
// 8192 and the thread and block widths only (unless -b / -t choose).
//
// One more _all row, "wait_until_all[one_kernel]" (n 1024 and 8192, one
// waiting thread), is written the way NVSHMEM-style programs are, in one
// kernel of 256 threads launched on both PEs: on PE 0 each thread calls
// gshmem_uint64_p(ivars + j, i, 1) for j = t, t+256, ..., then
// __syncthreads(), then thread 0 calls gshmem_signal_wait_until(ack, GE, i),
// then __syncthreads(); on PE 1 thread 0 calls
// gshmem_uint64_wait_until_all(ivars, n, NULL, GE, i), then
// gshmemx_signal_op(ack, i, SET, 0). No hand-written floor: its unit is the
// one-pass row below (scripts/summarize.py gives it in passes).
//
// The _vector forms compare against per-element values that PE 1 advances
// after acknowledging (off the critical path). test forms are polled in a
// loop. Reported: round trip per iteration. Floor: a hand-written scan with
// the same width, 16 independent ld.relaxed.sys loads in flight per thread
// (one thread: 32; the one-thread _any with one value: raw_any_one_thread,
// 32 in flight from a rotating start) and one acquire (fence or reload)
// when it succeeds, against the same producer pattern.
#include "perf_common.cuh"

#include <array>
#include <numeric>
#include <random>
#include <sstream>

using namespace gshmem_perf;
using perf_timing::permutation;

namespace {

enum Family { kAll, kAny, kSome };
enum Mode { kWait, kTest };

const char *family_name(Family f) { return f == kAll ? "all" : f == kAny ? "any" : "some"; }

// --- producer patterns: which ivars PE 0 stores each round, and in which order.
enum Producer { kBlock, kPBlock, kInOrder, kReverse, kRandom, kNext };

struct ProducerPattern {
  Producer id;
  const char *name;     // option value and row-name suffix
  bool all;             // a pattern of the _all family (else of _any/_some)
  bool is_default;      // the family's default: its rows keep the plain name
  const char *what;     // one line for the help text and the section titles
};

// The one table: option parsing, help text, row names and the loops use it.
constexpr ProducerPattern kProducers[] = {
    {kBlock, "block", true, true, "256 threads, thread t stores t, t+256, ..."},
    {kPBlock, "p_block", true, false, "256 threads, thread t calls gshmem_uint64_p on t, t+256, ..."},
    {kInOrder, "in_order", true, false, "one thread stores 0, 1, ..., n-1"},
    {kReverse, "reverse", true, false, "one thread stores n-1, ..., 1, 0"},
    {kRandom, "random", true, false, "one thread stores a fixed random permutation"},
    {kNext, "next", false, true, "element (i-1) % n (a round-robin cursor's next)"},
    {kRandom, "random", false, false, "element perm[(i-1) % n], a fixed random permutation"},
};
constexpr size_t kNumProducers = sizeof kProducers / sizeof kProducers[0];

// "wait_until_all" for a default pattern, "wait_until_all[random]" otherwise.
std::string row_name(const std::string &form, const ProducerPattern &p) {
  return p.is_default ? form : form + "[" + p.name + "]";
}

// The k-th element a one-thread pattern stores (k < n): for _all the k-th
// store of a round, for _any/_some the element of round k+1.
__device__ __forceinline__ size_t produced_element(Producer p, const uint32_t *perm, size_t n,
                                                   size_t k) {
  switch (p) {
    case kReverse: return n - 1 - k;
    case kRandom: return perm[k];
    default: return k;  // in_order, next
  }
}

// The responder's block: the API is called by the first `width` threads; at
// least 256 threads exist so that advancing the comparison values is cheap.
constexpr int kHelperThreads = 256;
constexpr int kUpdaterThreads = 256;

struct WaitArgs {
  uint64_t *ivars;     // symmetric, n elements (local on PE 1)
  uint64_t *cmpv;      // local comparison values for the vector forms
  size_t *indices;     // local, n entries (some)
  uint64_t *ack;       // symmetric
  uint64_t *peer_ack;  // PE 0's ack as mapped here
  unsigned long long *errors;  // local counter of wrong answers
  const uint32_t *perm;  // local, the permutation of 0..n-1 (random pattern)
  size_t n;
  int width;
  Family family;
  Producer producer;   // to know which element each round sets (_any/_some)
  Mode mode;
  bool vector;
  bool raw;
};

// --- the raw floor scan: returns, per thread group, whether the condition holds.
// Each thread covers elements t, t+width, ... in batches of kFloorBatch
// independent relaxed loads (the best raw technique), then one acquire.
constexpr int kFloorBatch = 16;

// The one-thread floor, written for throughput alone: 32 independent relaxed
// loads in flight, compares after, and the same early exits as the library
// (_any stops at the first batch holding a satisfied element, _all at the
// first batch holding an unsatisfied one). Results go where raw_scan's
// generic path puts them.
__device__ void raw_scan_one_thread(const WaitArgs &a, uint64_t target, bool *all_ok, bool *saw,
                                    unsigned long long *first, int *count) {
  constexpr size_t kB = 32;
  for (size_t base = 0; base < a.n; base += kB) {
    uint64_t v[kB];
    const bool full = base + kB <= a.n;
    if (full) {
#pragma unroll
      for (size_t k = 0; k < kB; ++k) v[k] = raw_load_relaxed(a.ivars + base + k);
    } else {
#pragma unroll
      for (size_t k = 0; k < kB; ++k) v[k] = base + k < a.n ? raw_load_relaxed(a.ivars + base + k) : ~0ull;
    }
    bool batch_all = true, batch_any = false;
#pragma unroll
    for (size_t k = 0; k < kB; ++k) {
      const size_t j = base + k;
      if (!full && j >= a.n) continue;
      const bool ok = v[k] >= (a.vector ? a.cmpv[j] : target);
      batch_all &= ok;
      if (ok && !batch_any && a.family == kAny) *first = j;
      if (ok && a.family == kSome) a.indices[(*count)++] = j;
      batch_any |= ok;
    }
    *saw |= batch_any;
    if (a.family == kAll && !batch_all) {
      *all_ok = false;
      return;
    }
    if (a.family == kAny && batch_any) return;
  }
}

// The one-thread _any floor with one comparison value: the fastest correct
// scan measured for a random producer, 32 relaxed loads in flight per
// batch (the tree before the 64-register rule held 32 and ran 1.83 / 11.5
// / 78.1 us at n = 32 / 1024 / 8192 on an H200, below the generic floor
// above). Aligned batches of 32, the last one ending at n, from the batch
// after the last element found (as the library's rotating cursor); a
// branch between the loads and the compares keeps all 32 in flight (ptxas
// otherwise interleaves the compares of the first loads with the issue of
// the later ones, SASS sm_90). The caller orders the success with one
// acquire reload.
__device__ unsigned long long g_floor_any_next;  // the floor's cursor (one waiter at a time)

__device__ bool raw_any_one_thread(const WaitArgs &a, uint64_t target, unsigned long long *first) {
  constexpr size_t kB = 32;
  const size_t n = a.n;
  const size_t nb = (n + kB - 1) / kB;
  const size_t next = g_floor_any_next < n ? (size_t)g_floor_any_next : 0;
  size_t k = next / kB;
  for (size_t v = 0; v < nb; ++v) {
    const size_t base = n < kB ? 0 : (k + 1 == nb ? n - kB : k * kB);
    uint64_t val[kB];
    if (n >= kB) {
#pragma unroll
      for (size_t j = 0; j < kB; ++j) val[j] = raw_load_relaxed(a.ivars + base + j);
    } else {
#pragma unroll
      for (size_t j = 0; j < kB; ++j) val[j] = j < n ? raw_load_relaxed(a.ivars + j) : 0;
    }
    k = k + 1 == nb ? 0 : k + 1;
    if (target == 0) return true;  // never (rounds count from 1): the branch that keeps the batch in flight
    unsigned hits = 0;
#pragma unroll
    for (size_t j = 0; j < kB; ++j) hits |= (unsigned)(val[j] >= target) << j;
    if (n < kB) hits &= (1u << n) - 1u;
    if (hits) {
      *first = base + (unsigned)__ffs(hits) - 1u;
      g_floor_any_next = *first + 1;
      return true;
    }
  }
  return false;
}

__device__ bool raw_scan(const WaitArgs &a, uint64_t target, size_t *found, int *count_out) {
  const unsigned t = threadIdx.x;
  __shared__ int s_any;
  __shared__ unsigned long long s_first;
  __shared__ int s_count;
  __syncthreads();  // everyone has read the previous call's results
  if (t == 0) {
    s_any = 0;
    s_first = ~0ull;
    s_count = 0;
  }
  __syncthreads();
  bool all_ok = true;
  bool saw = false;  // this thread's relaxed loads saw a satisfied element
  if (a.width == 1) {
    if (t == 0) {
      unsigned long long first = ~0ull;
      int count = 0;
      if (a.family == kAny && !a.vector) saw = raw_any_one_thread(a, target, &first);
      else raw_scan_one_thread(a, target, &all_ok, &saw, &first, &count);
      if (saw) {
        s_any = 1;
        s_first = first;
        s_count = count;
      }
    }
  } else if (t < (unsigned)a.width) {
    constexpr int kB = kFloorBatch;
    for (size_t base = t; base < a.n; base += kB * (size_t)a.width) {
      uint64_t v[kB];
      if (base + (size_t)(kB - 1) * a.width < a.n) {
        // Straight-line: kB independent relaxed loads in flight.
        const uint64_t *q = a.ivars + base;
#pragma unroll
        for (int k = 0; k < kB; ++k) v[k] = raw_load_relaxed(q + (size_t)k * a.width);
      } else {
#pragma unroll
        for (int k = 0; k < kB; ++k) {
          size_t j = base + (size_t)k * a.width;
          v[k] = j < a.n ? raw_load_relaxed(&a.ivars[j]) : ~0ull;
        }
      }
#pragma unroll
      for (int k = 0; k < kB; ++k) {
        size_t j = base + (size_t)k * a.width;
        if (j >= a.n) continue;
        uint64_t want = a.vector ? a.cmpv[j] : target;
        bool ok = v[k] >= want;
        if (a.family == kAll) {
          all_ok &= ok;
        } else if (ok) {
          if (a.family == kAny) {
            atomicMin(&s_first, (unsigned long long)j);
          } else {
            int slot = atomicAdd(&s_count, 1);
            a.indices[slot] = j;
          }
          saw = true;
          s_any = 1;
        }
      }
    }
  }
  // One acquire per success, as the library does: a fence after the relaxed
  // loads that saw the values (all, some), or one acquire reload of the
  // element returned (any).
  if (a.family == kAll) {
    bool done = __syncthreads_and(all_ok);
    if (done) raw_fence_acquire();
    return done;
  }
  if (saw && a.family == kSome) raw_fence_acquire();
  __syncthreads();
  if (a.family == kAny && s_any && t == 0) (void)raw_load_acquire(&a.ivars[s_first]);
  bool result = s_any != 0;
  if (a.family == kAny) *found = (size_t)s_first;
  else *count_out = s_count;
  return result;
}

// Issuer kinds: each waiter kernel instance compiles only its own forms.
enum Kind { kThreadKind, kWarpKind, kBlockKind };
template <int K, class Thread, class Warp, class Block>
__device__ __forceinline__ auto perf_coop(Thread thread, Warp warp, Block block) {
  if constexpr (K == kThreadKind) return thread();
  else if constexpr (K == kWarpKind) return warp();
  else return block();
}

// --- one call of the gshmem routine under test, by the calling group.
// Returns whether the condition was found satisfied (always true for wait).
// Wide: the one-thread _any with one comparison value takes the wide scan
// (32 loads of 8 bytes in flight, the C++ template argument that
// GSHMEM_WAIT_SCAN_LOADS=32 makes the C names' default); its own kernel
// instance, so the default rows' kernels are compiled as before.
template <int Kind, bool Wide = false>
__device__ bool api_call(const WaitArgs &a, uint64_t target, size_t *found, int *count_out) {
  const unsigned t = threadIdx.x;
  const int w = a.width;
  const uint64_t *cv = a.cmpv;
  uint64_t *iv = a.ivars;
  const int GE = GSHMEM_CMP_GE;
  size_t r = 0;        // any: index; some: count; all: 1 when satisfied
  bool ok = false;
  bool caller = t < (unsigned)w;
  if (caller) {
#define PERF_COOP(base, ...)                                                           \
  perf_coop<Kind>([&] { return gshmem_uint64_##base(__VA_ARGS__); },                    \
                  [&] { return gshmemx_uint64_##base##_warp(__VA_ARGS__); },            \
                  [&] { return gshmemx_uint64_##base##_block(__VA_ARGS__); })
#define PERF_COOP_VOID(base, ...) PERF_COOP(base, __VA_ARGS__)
    if (a.mode == kWait) {
      ok = true;
      switch (a.family) {
        case kAll:
          if (a.vector) PERF_COOP_VOID(wait_until_all_vector, iv, a.n, nullptr, GE, cv);
          else PERF_COOP_VOID(wait_until_all, iv, a.n, nullptr, GE, target);
          r = 1;
          break;
        case kAny:
          if constexpr (Wide) r = gshmem::wait_until_any<uint64_t, 32>(iv, a.n, nullptr, GE, target);
          else
            r = a.vector ? PERF_COOP(wait_until_any_vector, iv, a.n, nullptr, GE, cv)
                         : PERF_COOP(wait_until_any, iv, a.n, nullptr, GE, target);
          break;
        default:
          r = a.vector ? PERF_COOP(wait_until_some_vector, iv, a.n, a.indices, nullptr, GE, cv)
                       : PERF_COOP(wait_until_some, iv, a.n, a.indices, nullptr, GE, target);
          break;
      }
    } else {
      switch (a.family) {
        case kAll:
          r = a.vector ? PERF_COOP(test_all_vector, iv, a.n, nullptr, GE, cv)
                       : PERF_COOP(test_all, iv, a.n, nullptr, GE, target);
          ok = r != 0;
          break;
        case kAny:
          if constexpr (Wide) r = gshmem::test_any<uint64_t, 32>(iv, a.n, nullptr, GE, target);
          else
            r = a.vector ? PERF_COOP(test_any_vector, iv, a.n, nullptr, GE, cv)
                         : PERF_COOP(test_any, iv, a.n, nullptr, GE, target);
          ok = r != SIZE_MAX;
          break;
        default:
          r = a.vector ? PERF_COOP(test_some_vector, iv, a.n, a.indices, nullptr, GE, cv)
                       : PERF_COOP(test_some, iv, a.n, a.indices, nullptr, GE, target);
          ok = r != 0;
          break;
      }
    }
#undef PERF_COOP
#undef PERF_COOP_VOID
  }
  __shared__ int s_ok;
  __shared__ unsigned long long s_r;
  __syncthreads();  // everyone has read the previous call's results
  if (t == 0) {
    s_ok = ok;
    s_r = r;
  }
  __syncthreads();
  if (a.family == kAny) *found = (size_t)s_r;
  if (a.family == kSome) *count_out = (int)s_r;
  return s_ok != 0;
}

// One instance per launch width so that register limits fit the launch:
// 1024-thread blocks allow at most 64 registers per thread.
template <int Kind, int MaxThreads, bool Wide = false>
__global__ void __launch_bounds__(MaxThreads) waiter_kernel(WaitArgs a, uint64_t iters) {
  const unsigned t = threadIdx.x;
  for (uint64_t i = 1; i <= iters; ++i) {
    size_t found = 0;
    int count = 0;
    while (true) {
      bool ok = a.raw ? raw_scan(a, i, &found, &count) : api_call<Kind, Wide>(a, i, &found, &count);
      if (ok) break;
    }
    if (t == 0) raw_store_relaxed(a.peer_ack, i);
    // Check the answer and advance the comparison values (after the ack, so
    // off the critical path as far as the other PE is concerned).
    const size_t expect = produced_element(a.producer, a.perm, a.n, (size_t)((i - 1) % a.n));
    if (t == 0) {
      if (a.family == kAny && found != expect) atomicAdd(a.errors, 1ull);
      if (a.family == kSome && (count != 1 || a.indices[0] != expect)) atomicAdd(a.errors, 1ull);
    }
    if (a.vector) {
      if (a.family == kAll) {
        for (size_t j = t; j < a.n; j += blockDim.x) a.cmpv[j] = i + 1;
      } else if (t == 0) {
        a.cmpv[expect] += a.n;
      }
    }
    __syncthreads();
  }
}

// One pass: wait_until_all (or the raw scan) on an array that already
// satisfies it, `iters` times. Every call reads every element once and
// succeeds, so the time per call is the cost of one full scan: the unit in
// which the _all round trips above can be read ("passes").
template <int Kind, int MaxThreads>
__global__ void __launch_bounds__(MaxThreads) one_pass_kernel(WaitArgs a, uint64_t iters) {
  for (uint64_t i = 1; i <= iters; ++i) {
    size_t found = 0;
    int count = 0;
    const bool ok = a.raw ? raw_scan(a, 1, &found, &count) : api_call<Kind>(a, 1, &found, &count);
    if (!ok && threadIdx.x == 0) atomicAdd(a.errors, 1ull);  // cannot happen: every element is satisfied
    __syncthreads();
  }
}

// ---- one pass of the one-thread _any over an array with nothing satisfied
// (PE 0 alone, its own ivars, all zero; GE 1 holds nowhere; the 1 is a
// kernel argument, as a round's value is): the time of a
// full pass, which a random producer waits about half of. The library's two
// scans (default, wide) beside hand-written passes: linear batches of 16 and
// 32 relaxed loads, one or two elements a load (32, two a load, is the
// floor: the fastest correct batch measured), and a two-stage pipeline of
// two half batches in which the loads of the next half are issued before
// the current half is compared, so that the compares and the next step's
// address arithmetic overlap the loads in flight (2 x 8 fits the registers
// of the 16-load default). The "2 a load" passes read the same batches
// with 16-byte loads (each element still a single-copy-atomic relaxed
// load): the same registers in flight, half the load instructions.
enum AnyPass {
  kPassDefault, kPassWide, kPassLinear16, kPassLinear32, kPassPipe8, kPassPipe16, kPassLinear16x2, kPassLinear32x2,
  kAnyPasses
};
const char *any_pass_name(int v) {
  static const char *const names[kAnyPasses] = {
      "test_any:one_pass",        "test_any_wide:one_pass",          "raw_floor:any_pass linear 16",
      "raw_floor:any_pass linear 32", "raw_floor:any_pass pipelined 2x8", "raw_floor:any_pass pipelined 2x16",
      "raw_floor:any_pass linear 16, 2 a load", "raw_floor:any_pass linear 32, 2 a load"};
  return names[v];
}

// A linear pass in batches of B loads of PerLoad elements each (1: 8-byte
// loads; 2: 16-byte loads, the library's atomic_load16: ld.relaxed.sys.v2,
// single-copy atomic per 8-byte half).
template <size_t B, size_t PerLoad = 1>
__device__ size_t any_pass_linear(const uint64_t *iv, size_t n, uint64_t target) {
  static_assert(PerLoad == 1 || PerLoad == 2, "one or two elements a load");
  for (size_t base = 0; base + B <= n; base += B) {
    uint64_t v[B];
#pragma unroll
    for (size_t j = 0; j < B; j += PerLoad) {
      if constexpr (PerLoad == 2) {
        const gd::wide16 w = gd::atomic_load16<memory_order::relaxed, thread_scope::system>(
            reinterpret_cast<const gd::wide16 *>(iv + base + j));
        v[j] = w.lo;
        v[j + 1] = w.hi;
      } else {
        v[j] = raw_load_relaxed(iv + base + j);
      }
    }
    if (target == 0) return base;  // never (target >= 1): keeps the batch in flight
    unsigned hits = 0;
#pragma unroll
    for (size_t j = 0; j < B; ++j) hits |= (unsigned)(v[j] >= target) << j;
    if (hits) return base + (unsigned)__ffs(hits) - 1u;
  }
  return SIZE_MAX;
}

template <size_t H>
__device__ size_t any_pass_pipelined(const uint64_t *iv, size_t n, uint64_t target) {
  uint64_t a[H], b[H];
#pragma unroll
  for (size_t j = 0; j < H; ++j) a[j] = raw_load_relaxed(iv + j);
  for (size_t base = 0; base + 2 * H <= n; base += 2 * H) {
#pragma unroll
    for (size_t j = 0; j < H; ++j) b[j] = raw_load_relaxed(iv + base + H + j);
    const size_t next = base + 4 * H <= n ? base + 2 * H : 0;  // the last step loads a half it drops
    unsigned hits = 0;
#pragma unroll
    for (size_t j = 0; j < H; ++j) hits |= (unsigned)(a[j] >= target) << j;
    if (hits) return base + (unsigned)__ffs(hits) - 1u;
#pragma unroll
    for (size_t j = 0; j < H; ++j) a[j] = raw_load_relaxed(iv + next + j);
    hits = 0;
#pragma unroll
    for (size_t j = 0; j < H; ++j) hits |= (unsigned)(b[j] >= target) << j;
    if (hits) return base + H + (unsigned)__ffs(hits) - 1u;
  }
  return SIZE_MAX;
}

template <int V>
__global__ void any_pass_kernel(uint64_t *iv, size_t n, uint64_t target, uint64_t iters,
                                unsigned long long *errors) {
  if (threadIdx.x != 0) return;
  for (uint64_t i = 0; i < iters; ++i) {
    size_t r;
    if constexpr (V == kPassDefault) r = gshmem_uint64_test_any(iv, n, nullptr, GSHMEM_CMP_GE, target);
    else if constexpr (V == kPassWide) r = gshmem::test_any<uint64_t, 32>(iv, n, nullptr, GSHMEM_CMP_GE, target);
    else if constexpr (V == kPassLinear16) r = any_pass_linear<16>(iv, n, target);
    else if constexpr (V == kPassLinear32) r = any_pass_linear<32>(iv, n, target);
    else if constexpr (V == kPassPipe8) r = any_pass_pipelined<8>(iv, n, target);
    else if constexpr (V == kPassPipe16) r = any_pass_pipelined<16>(iv, n, target);
    else if constexpr (V == kPassLinear16x2) r = any_pass_linear<16, 2>(iv, n, target);
    else r = any_pass_linear<32, 2>(iv, n, target);
    if (r != SIZE_MAX) atomicAdd(errors, 1ull);  // cannot happen: nothing is satisfied
  }
}
using AnyPassKernel = void (*)(uint64_t *, size_t, uint64_t, uint64_t, unsigned long long *);
constexpr AnyPassKernel kAnyPassKernels[kAnyPasses] = {
    any_pass_kernel<kPassDefault>,  any_pass_kernel<kPassWide>,  any_pass_kernel<kPassLinear16>,
    any_pass_kernel<kPassLinear32>, any_pass_kernel<kPassPipe8>, any_pass_kernel<kPassPipe16>,
    any_pass_kernel<kPassLinear16x2>, any_pass_kernel<kPassLinear32x2>};

// Launches one of a kernel's three width instances (thread, warp, block),
// each compiled with the register budget of its launch.
using WaitKernel = void (*)(WaitArgs, uint64_t);
void launch_for_width(int width, int block, cudaStream_t stream, WaitKernel thread_kernel,
                      WaitKernel warp_kernel, WaitKernel block_kernel, const WaitArgs &a,
                      uint64_t iters) {
  const WaitKernel kernel = width == 1 ? thread_kernel : width == 32 ? warp_kernel : block_kernel;
  kernel<<<1, block, 0, stream>>>(a, iters);
}

// One thread stores v into all n elements in the pattern's order: the
// indices of a batch are loaded first (the random pattern's table lookups
// then overlap), then the batch's stores are issued back to back.
__device__ void store_all_one_thread(uint64_t *peer_ivars, size_t n, Producer p,
                                     const uint32_t *perm, uint64_t v) {
  constexpr size_t kB = 32;
  for (size_t base = 0; base < n; base += kB) {
    size_t idx[kB];
#pragma unroll
    for (size_t k = 0; k < kB; ++k)
      idx[k] = base + k < n ? produced_element(p, perm, n, base + k) : n;
#pragma unroll
    for (size_t k = 0; k < kB; ++k)
      if (idx[k] < n) raw_store_relaxed(&peer_ivars[idx[k]], v);
  }
}

// PE 0, the producer: round i stores i into PE 1's ivars by pattern p (the
// floor and the API are measured against the same one), then waits for the ack.
__global__ void __launch_bounds__(kUpdaterThreads)
    updater_kernel(uint64_t *peer_ivars, uint64_t *sym_ivars, size_t n, bool all, Producer p,
                   const uint32_t *perm, uint64_t *ack, uint64_t iters) {
  const unsigned t = threadIdx.x;
  // _any/_some: the element of the coming round, looked up while the
  // previous round's ack is awaited (off the critical path).
  size_t next = all || t != 0 ? 0 : produced_element(p, perm, n, 0);
  for (uint64_t i = 1; i <= iters; ++i) {
    if (all && p == kBlock) {
      for (size_t j = t; j < n; j += blockDim.x) raw_store_relaxed(&peer_ivars[j], i);
    } else if (all && p == kPBlock) {
      for (size_t j = t; j < n; j += blockDim.x) gshmem_uint64_p(&sym_ivars[j], i, 1);
    } else if (t == 0 && all) {
      store_all_one_thread(peer_ivars, n, p, perm, i);
    } else if (t == 0) {
      raw_store_relaxed(&peer_ivars[next], i);
      next = produced_element(p, perm, n, (size_t)(i % n));
    }
    if (t == 0) raw_wait_ge(ack, i);
    __syncthreads();
  }
}

// The _all exchange as an NVSHMEM-style program writes it (file header):
// the same kernel on both PEs, 256 threads, the library's names only.
__global__ void __launch_bounds__(kUpdaterThreads)
    one_kernel_all(uint64_t *ivars, uint64_t *ack, size_t n, int pe, uint64_t iters) {
  for (uint64_t i = 1; i <= iters; ++i) {
    if (pe == 0) {
      for (size_t j = threadIdx.x; j < n; j += blockDim.x) gshmem_uint64_p(ivars + j, i, 1);
      __syncthreads();
      if (threadIdx.x == 0) (void)gshmem_signal_wait_until(ack, GSHMEM_CMP_GE, i);
      __syncthreads();
    } else if (threadIdx.x == 0) {
      gshmem_uint64_wait_until_all(ivars, n, nullptr, GSHMEM_CMP_GE, i);
      gshmemx_signal_op(ack, i, GSHMEM_SIGNAL_SET, 0);
    }
  }
}

// _all: every element expects 1 first; _any/_some: the element set in round
// k+1 expects k+1 first (the waiter adds n each time it is set).
__global__ void init_cmpv(uint64_t *cmpv, size_t n, bool all, Producer p, const uint32_t *perm) {
  for (size_t k = blockIdx.x * blockDim.x + threadIdx.x; k < n; k += gridDim.x * blockDim.x) {
    if (all) cmpv[k] = 1;
    else cmpv[produced_element(p, perm, n, k)] = k + 1;
  }
}

// A rough per-iteration cost, only to size the loops (same on every PE). One
// thread storing all n ivars takes far longer than 256 threads.
double estimate_ns(Family f, Producer p, int width, size_t n) {
  double per_elem = width == 1 ? 12.0 : width == 32 ? 1.5 : 0.25;
  double update = f == kAll ? double(n) * (p == kBlock || p == kPBlock ? 0.3 : 20.0) : 0;
  return 4000 + per_elem * double(n) + update;
}

using Selection = std::array<bool, kNumProducers>;

// The help text of --producer, from the table.
std::string producer_usage() {
  const char *indent = "                          ";
  std::string u = "      --producer LIST   producer patterns to run, comma list (default: all):\n";
  std::string defaults;
  for (const ProducerPattern &p : kProducers) {
    char line[160];
    std::snprintf(line, sizeof line, "%s%-9s %s: %s\n", indent, p.name,
                  p.all ? "_all" : "_any/_some", p.what);
    u += line;
    if (p.is_default)
      defaults += std::string(defaults.empty() ? "" : ", ") + p.name +
                  (p.all ? " (_all)" : " (_any/_some)");
  }
  return u + indent + "default   the defaults: " + defaults + "\n";
}

// Takes --producer LIST (or --producer=LIST), this binary's own option, out
// of argv before the shared parser sees it. A name selects the pattern in
// every family that has one of that name; "default" selects each family's
// default. Without the option every pattern is selected.
bool take_producer_option(int &argc, char **argv, Selection &selected, std::string &error) {
  selected.fill(true);
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i], list;
    if (arg == "--producer") {
      if (i + 1 >= argc) {
        error = "option --producer needs a value";
        return false;
      }
      list = argv[++i];
    } else if (arg.rfind("--producer=", 0) == 0) {
      list = arg.substr(arg.find('=') + 1);
    } else {
      argv[kept++] = argv[i];
      continue;
    }
    selected.fill(false);  // the last --producer wins
    std::stringstream ss(list);
    std::string item;
    bool any_item = false;
    while (std::getline(ss, item, ',')) {
      bool known = false;
      for (size_t k = 0; k < kNumProducers; ++k) {
        if (item == kProducers[k].name || (item == "default" && kProducers[k].is_default)) {
          selected[k] = true;
          known = true;
        }
      }
      if (!known) {
        error = "unknown producer pattern '" + item + "'";
        return false;
      }
      any_item = true;
    }
    if (!any_item) {
      error = "--producer needs a comma list of patterns";
      return false;
    }
  }
  argc = kept;
  argv[argc] = nullptr;
  return true;
}

}  // namespace

int main(int argc, char **argv) {
  const char *program = "gshmem_perf_wait";
  Selection selected;
  std::string error;
  if (!take_producer_option(argc, argv, selected, error)) {
    std::fprintf(stderr, "%s: %s\n%s%s", program, error.c_str(), usage(program).c_str(),
                 producer_usage().c_str());
    return 1;
  }
  Context ctx;
  int exit_code = 0;
  if (!perf_begin(argc, argv, program, 2, ctx, &exit_code)) {
    if (ctx.opt.help) std::printf("%s", producer_usage().c_str());
    return exit_code;
  }
  Reporter rep(program, ctx.opt, ctx.pe == 0);
  ctx.rep = &rep;
  const bool quick = ctx.opt.quick;
  Range ns = ctx.opt.range_set ? ctx.opt.range : Range{1, 32768, quick ? 32u : 4u};
  std::vector<uint64_t> n_values = ns.values();
  if (quick && !ctx.opt.range_set) n_values = {1, 32, 1024, 8192};
  std::vector<int> widths = ctx.opt.threads.empty() ? std::vector<int>{1, 32, 1024} : ctx.opt.threads;
  const size_t max_n = *std::max_element(n_values.begin(), n_values.end());
  if (max_n > UINT32_MAX) {
    std::fprintf(stderr, "PE %d: n above %u is not supported\n", ctx.pe, UINT32_MAX);
    return 1;
  }

  uint64_t *ivars = (uint64_t *)gshmem_malloc(max_n * sizeof(uint64_t));
  uint64_t *ack = (uint64_t *)gshmem_malloc(sizeof(uint64_t));
  if (!ivars || !ack) {
    std::fprintf(stderr, "PE %d: gshmem_malloc failed\n", ctx.pe);
    return 1;
  }
  uint64_t *cmpv = nullptr;
  size_t *indices = nullptr;
  unsigned long long *errors = nullptr;
  PERF_CUDA(cudaMalloc(&cmpv, max_n * sizeof(uint64_t)));
  PERF_CUDA(cudaMalloc(&indices, max_n * sizeof(size_t)));
  PERF_CUDA(cudaMalloc(&errors, sizeof(unsigned long long)));
  PERF_CUDA(cudaMemset(errors, 0, sizeof(unsigned long long)));

  // The random pattern's permutation of every n, built once and kept in
  // device memory on every PE: the producer stores by it, the waiter checks
  // the index it got back against it.
  std::vector<size_t> perm_offset;  // per entry of n_values
  std::vector<uint32_t> host_perms;
  for (uint64_t n : n_values) {
    perm_offset.push_back(host_perms.size());
    std::vector<uint32_t> p = permutation(n);
    host_perms.insert(host_perms.end(), p.begin(), p.end());
  }
  uint32_t *perms = nullptr;
  PERF_CUDA(cudaMalloc(&perms, host_perms.size() * sizeof(uint32_t)));
  PERF_CUDA(cudaMemcpy(perms, host_perms.data(), host_perms.size() * sizeof(uint32_t),
                       cudaMemcpyHostToDevice));

  const bool active = ctx.pe < 2;
  uint64_t *peer_ivars = ctx.pe == 0 ? (uint64_t *)gshmem_ptr(ivars, 1) : nullptr;
  uint64_t *peer_ack = ctx.pe == 1 ? (uint64_t *)gshmem_ptr(ack, 0) : nullptr;
  if ((ctx.pe == 0 && !peer_ivars) || (ctx.pe == 1 && !peer_ack)) {
    std::fprintf(stderr, "PE %d: peer not reachable by load/store (gshmem_ptr NULL)\n", ctx.pe);
    return 1;
  }

  const uint64_t max_iters = ctx.opt.iterations(20000, 2000);
  const double budget = quick ? 8e6 : 30e6;
  bool any_errors = false;

  for (Family fam : {kAny, kAll, kSome}) {
    for (bool vec : {false, true}) {
      for (Mode mode : {kWait, kTest}) {
       for (bool wide : {false, true}) {
        // The wide scan: the one-thread _any with one value only.
        if (wide && (fam != kAny || vec)) continue;
        const std::string form = std::string(mode == kWait ? "wait_until_" : "test_") +
                                 family_name(fam) + (vec ? "_vector" : "") + (wide ? "_wide" : "");
        const bool wait_form = mode == kWait && !vec;
        // Quick mode: no _some vector or test forms.
        if (quick && !wait_form && fam == kSome) continue;
        for (size_t pi = 0; pi < kNumProducers; ++pi) {
          const ProducerPattern &prod = kProducers[pi];
          if (prod.all != (fam == kAll) || !selected[pi]) continue;
          // The test and _vector forms run with the default pattern only.
          if (!prod.is_default && !wait_form) continue;
          // Quick mode: the other patterns at two n and two widths only.
          const bool trim = quick && !prod.is_default;
          const std::string name = row_name(form, prod);
          bool titled = false;
          for (int width : widths) {
            if (wide && width != 1) continue;
            // Quick mode: the vector and test forms without the warp width.
            if (quick && !wait_form && width == 32) continue;
            if (trim && ctx.opt.threads.empty() && width != 1 && width != 1024) continue;
            for (size_t ni = 0; ni < n_values.size(); ++ni) {
              const uint64_t n = n_values[ni];
              if (trim && !ctx.opt.range_set && n != 1024 && n != 8192) continue;
              if (!titled) {
                rep.section(name + ": round trip (us) vs n; producer " + prod.name + ": " +
                            prod.what + "; floor: hand-written scan, same width and producer");
                titled = true;
              }
              const uint32_t *perm = perms + perm_offset[ni];
              uint64_t iters = iters_for(estimate_ns(fam, prod.id, width, n), budget, max_iters);
              uint64_t warm = std::max<uint64_t>(2, iters / 20);
              // Block forms need every thread of the block to call.
              int block = width <= 32 ? kHelperThreads : width;
              // The floor and the API run against the same producer.
              auto run = [&](bool raw) {
                WaitArgs a{ivars, cmpv, indices, ack, peer_ack, errors, perm, (size_t)n, width,
                           fam, prod.id, mode, vec, raw};
                auto reset = [&] {
                  PERF_CUDA(cudaMemsetAsync(ivars, 0, n * sizeof(uint64_t), ctx.stream));
                  PERF_CUDA(cudaMemsetAsync(ack, 0, sizeof(uint64_t), ctx.stream));
                  init_cmpv<<<64, 256, 0, ctx.stream>>>(cmpv, n, fam == kAll, prod.id, perm);
                };
                return time_loop(ctx, iters, warm, reset, [&](uint64_t it) {
                  if (!active) return;
                  if (ctx.pe == 0)
                    updater_kernel<<<1, kUpdaterThreads, 0, ctx.stream>>>(
                        peer_ivars, ivars, n, fam == kAll, prod.id, perm, ack, it);
                  else
                    launch_for_width(width, block, ctx.stream,
                                     wide ? waiter_kernel<kThreadKind, kHelperThreads, true>
                                          : waiter_kernel<kThreadKind, kHelperThreads>,
                                     waiter_kernel<kWarpKind, kHelperThreads>, waiter_kernel<kBlockKind, 1024>,
                                     a, it);
                });
              };
              std::vector<double> floor_ns = run(true);
              Stats f = us_stats(floor_ns);
              std::vector<double> v = run(false);
              add_row(ctx, name, "n", n, width, "round_trip", us_stats(v), &f, iters);
            }
          }
        }
       }
      }
    }
  }
  // ---- _all as an NVSHMEM-style program writes it (one kernel, both PEs).
  if (std::find(widths.begin(), widths.end(), 1) != widths.end()) {
    rep.section("wait_until_all[one_kernel]: round trip (us) vs n; one 256-thread kernel on both PEs: "
                "PE 0's threads p every element then thread 0 awaits the ack signal, PE 1's thread 0 "
                "calls wait_until_all then signal_op (the unit: one pass, below)");
    for (uint64_t n : n_values) {
      if (n != 1024 && n != 8192) continue;
      const uint64_t iters = iters_for(estimate_ns(kAll, kPBlock, 1, n), budget, max_iters);
      auto reset = [&] {
        PERF_CUDA(cudaMemsetAsync(ivars, 0, n * sizeof(uint64_t), ctx.stream));
        PERF_CUDA(cudaMemsetAsync(ack, 0, sizeof(uint64_t), ctx.stream));
      };
      std::vector<double> v = time_loop(ctx, iters, std::max<uint64_t>(2, iters / 20), reset, [&](uint64_t it) {
        if (active) one_kernel_all<<<1, kUpdaterThreads, 0, ctx.stream>>>(ivars, ack, n, ctx.pe, it);
      });
      add_row(ctx, "wait_until_all[one_kernel]", "n", n, 1, "round_trip", us_stats(v), nullptr, iters);
    }
  }

  // ---- one pass over an already satisfied array (PE 0 alone, on its own
  // copy of ivars; PE 0 is the PE that reports): the unit of the _all
  // figures above.
  rep.section("wait_until_all: one pass (us per call) on an array already satisfied; floor: hand-written scan");
  for (int width : widths) {
    for (uint64_t n : n_values) {
      if (quick && ctx.opt.range_set == false && n < 1024) continue;
      const uint64_t iters = iters_for(estimate_ns(kAll, kBlock, width, n) - 4000, budget, max_iters);
      const int block = width <= 32 ? kHelperThreads : width;
      auto run = [&](bool raw) {
        WaitArgs a{ivars, cmpv, indices, ack, peer_ack, errors, perms, (size_t)n, width,
                   kAll, kBlock, kWait, false, raw};
        auto reset = [&] {  // 0x7f.. in every byte: >= 1 (the comparison) everywhere
          PERF_CUDA(cudaMemsetAsync(ivars, 0x7f, n * sizeof(uint64_t), ctx.stream));
        };
        return time_loop(ctx, iters, std::max<uint64_t>(2, iters / 20), reset, [&](uint64_t it) {
          if (ctx.pe != 0) return;
          launch_for_width(width, block, ctx.stream, one_pass_kernel<kThreadKind, kHelperThreads>,
                           one_pass_kernel<kWarpKind, kHelperThreads>, one_pass_kernel<kBlockKind, 1024>, a, it);
        });
      };
      std::vector<double> floor_ns = run(true);
      Stats f = us_stats(floor_ns);
      std::vector<double> v = run(false);
      add_row(ctx, "wait_until_all:one_pass", "n", n, width, "scan", us_stats(v), &f, iters);
    }
  }

  // ---- one pass of the one-thread _any (see any_pass_kernel); the floor
  // column is the linear batch of 32, two elements a load (the fastest
  // correct pass measured: 2 x H200, n=1024, 10.0-10.1 us against 11.0 for
  // one element a load). ivars is a symmetric allocation: 16-byte aligned.
  if (std::find(widths.begin(), widths.end(), 1) != widths.end()) {
    rep.section("test_any: one pass (us per call), one thread, nothing satisfied; floor: linear batches of 32 "
                "relaxed loads, two elements a load; raw_floor rows: other hand-written passes");
    for (uint64_t n : n_values) {
      // The hand-written passes read whole batches of 32 (and pipelined
      // halves): other n would leave them a tail unread, an unfair floor.
      if (n < 64 || n % 32 != 0 || (quick && !ctx.opt.range_set && n != 1024 && n != 8192)) continue;
      const uint64_t iters = iters_for(25.0 * double(n), budget, max_iters);  // about 0.3 us per 16 elements
      auto reset = [&] { PERF_CUDA(cudaMemsetAsync(ivars, 0, n * sizeof(uint64_t), ctx.stream)); };
      auto run = [&](int v) {
        return time_loop(ctx, iters, std::max<uint64_t>(2, iters / 20), reset, [&](uint64_t it) {
          if (ctx.pe == 0) kAnyPassKernels[v]<<<1, 32, 0, ctx.stream>>>(ivars, (size_t)n, 1, it, errors);  // GE 1: none
        });
      };
      Stats f = us_stats(run(kPassLinear32x2));
      for (int v = 0; v < kAnyPasses; ++v) {
        if (v == kPassLinear32x2) {
          add_row(ctx, any_pass_name(v), "n", n, 1, "scan", f, nullptr, iters);
          continue;
        }
        const bool library = v == kPassDefault || v == kPassWide;
        add_row(ctx, any_pass_name(v), "n", n, 1, "scan", us_stats(run(v)), library ? &f : nullptr, iters);
      }
    }
  }

  unsigned long long host_errors = 0;
  PERF_CUDA(cudaMemcpy(&host_errors, errors, sizeof host_errors, cudaMemcpyDeviceToHost));
  // PE 1 counts wrong _any/_some answers, PE 0 failed one-pass scans.
  if (host_errors) {
    std::fprintf(stderr, "PE %d: VALIDATION FAILED: %llu wrong results (%s)\n", ctx.pe, host_errors,
                 ctx.pe == 0 ? "one-pass scans with another answer than expected" : "_any/_some indices");
    any_errors = true;
  }
  cudaFree(perms);
  cudaFree(errors);
  cudaFree(indices);
  cudaFree(cmpv);
  gshmem_free(ack);
  gshmem_free(ivars);
  int rc = perf_end(ctx);
  return any_errors ? 3 : rc;
}
