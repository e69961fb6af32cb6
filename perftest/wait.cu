// gshmem_perf_wait: scaling of the wait/test families with the number of
// ivars n, by issuer width (thread, warp, block).
//
// Round i (1-based), PE 0 the updater, PE 1 the waiter:
//   _all:       PE 0 stores i into all n ivars on PE 1; PE 1 waits until all >= i.
//   _any/_some: PE 0 stores i into ivar (i-1) % n on PE 1; PE 1 waits until one
//               is >= its comparison value (only that one is), then checks the
//               index it got back.
//   then PE 1 acknowledges with one store and PE 0 waits for it.
// The _vector forms compare against per-element values that PE 1 advances
// after acknowledging (off the critical path). test forms are polled in a
// loop. Reported: round trip per iteration. Floor: a hand-written scan with
// the same width, 16 independent ld.relaxed.sys loads in flight per thread
// and one acquire (fence or reload) when it succeeds.
#include "perf_common.cuh"

using namespace gshmem_perf;

namespace {

enum Family { kAll, kAny, kSome };
enum Mode { kWait, kTest };

const char *family_name(Family f) { return f == kAll ? "all" : f == kAny ? "any" : "some"; }

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
  size_t n;
  int width;
  Family family;
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
      raw_scan_one_thread(a, target, &all_ok, &saw, &first, &count);
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
template <int Kind>
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
template <int Kind, int MaxThreads>
__global__ void __launch_bounds__(MaxThreads) waiter_kernel(WaitArgs a, uint64_t iters) {
  const unsigned t = threadIdx.x;
  for (uint64_t i = 1; i <= iters; ++i) {
    size_t found = 0;
    int count = 0;
    while (true) {
      bool ok = a.raw ? raw_scan(a, i, &found, &count) : api_call<Kind>(a, i, &found, &count);
      if (ok) break;
    }
    if (t == 0) raw_store_relaxed(a.peer_ack, i);
    // Check the answer and advance the comparison values (after the ack, so
    // off the critical path as far as the other PE is concerned).
    const size_t expect = (size_t)((i - 1) % a.n);
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

__global__ void __launch_bounds__(kUpdaterThreads) updater_kernel(uint64_t *peer_ivars, size_t n, bool all, uint64_t *ack,
                               uint64_t iters) {
  const unsigned t = threadIdx.x;
  for (uint64_t i = 1; i <= iters; ++i) {
    if (all) {
      for (size_t j = t; j < n; j += blockDim.x) raw_store_relaxed(&peer_ivars[j], i);
    } else if (t == 0) {
      raw_store_relaxed(&peer_ivars[(i - 1) % n], i);
    }
    if (t == 0) raw_wait_ge(ack, i);
    __syncthreads();
  }
}

__global__ void init_cmpv(uint64_t *cmpv, size_t n, bool all) {
  for (size_t j = blockIdx.x * blockDim.x + threadIdx.x; j < n; j += gridDim.x * blockDim.x)
    cmpv[j] = all ? 1 : j + 1;
}

// A rough per-iteration cost, only to size the loops (same on every PE).
double estimate_ns(Family f, int width, size_t n) {
  double per_elem = width == 1 ? 12.0 : width == 32 ? 1.5 : 0.25;
  double update = f == kAll ? double(n) * 0.3 : 0;
  return 4000 + per_elem * double(n) + update;
}

}  // namespace

int main(int argc, char **argv) {
  Context ctx;
  int exit_code = 0;
  if (!perf_begin(argc, argv, "gshmem_perf_wait", 2, ctx, &exit_code)) return exit_code;
  Reporter rep("gshmem_perf_wait", ctx.opt, ctx.pe == 0);
  ctx.rep = &rep;
  const bool quick = ctx.opt.quick;
  Range ns = ctx.opt.range_set ? ctx.opt.range : Range{1, 32768, quick ? 32u : 4u};
  std::vector<uint64_t> n_values = ns.values();
  if (quick && !ctx.opt.range_set) n_values = {1, 32, 1024, 8192};
  std::vector<int> widths = ctx.opt.threads.empty() ? std::vector<int>{1, 32, 1024} : ctx.opt.threads;
  const size_t max_n = *std::max_element(n_values.begin(), n_values.end());

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
        std::string base = std::string(mode == kWait ? "wait_until_" : "test_") + family_name(fam) +
                           (vec ? "_vector" : "");
        // Quick mode: the vector and test forms at one width only.
        if (quick && (vec || mode == kTest) && fam == kSome) continue;
        rep.section(base + ": round trip (us) vs n; floor: hand-written scan, same width");
        for (int width : widths) {
          if (quick && (vec || mode == kTest) && width == 32) continue;
          for (uint64_t n : n_values) {
            if (n > max_n) break;
            uint64_t iters = iters_for(estimate_ns(fam, width, n), budget, max_iters);
            uint64_t warm = std::max<uint64_t>(2, iters / 20);
            // Block forms need every thread of the block to call.
            int block = width <= 32 ? kHelperThreads : width;
            auto run = [&](bool raw) {
              WaitArgs a{ivars, cmpv, indices, ack, peer_ack, errors, (size_t)n, width,
                         fam, mode, vec, raw};
              auto reset = [&] {
                PERF_CUDA(cudaMemsetAsync(ivars, 0, n * sizeof(uint64_t), ctx.stream));
                PERF_CUDA(cudaMemsetAsync(ack, 0, sizeof(uint64_t), ctx.stream));
                init_cmpv<<<64, 256, 0, ctx.stream>>>(cmpv, n, fam == kAll);
              };
              return time_loop(ctx, iters, warm, reset, [&](uint64_t it) {
                if (!active) return;
                if (ctx.pe == 0)
                  updater_kernel<<<1, kUpdaterThreads, 0, ctx.stream>>>(peer_ivars, n, fam == kAll,
                                                                        ack, it);
                else
                if (width == 1)
                  waiter_kernel<kThreadKind, kHelperThreads><<<1, block, 0, ctx.stream>>>(a, it);
                else if (width == 32)
                  waiter_kernel<kWarpKind, kHelperThreads><<<1, block, 0, ctx.stream>>>(a, it);
                else
                  waiter_kernel<kBlockKind, 1024><<<1, block, 0, ctx.stream>>>(a, it);
              });
            };
            std::vector<double> floor_ns = run(true);
            Stats f = us_stats(floor_ns);
            std::vector<double> v = run(false);
            add_row(ctx, base, "n", n, width, "round_trip", us_stats(v), &f, iters);
          }
        }
      }
    }
  }
  unsigned long long host_errors = 0;
  PERF_CUDA(cudaMemcpy(&host_errors, errors, sizeof host_errors, cudaMemcpyDeviceToHost));
  if (ctx.pe == 1 && host_errors) {
    std::fprintf(stderr, "PE 1: VALIDATION FAILED: %llu wrong index results from _any/_some\n",
                 host_errors);
    any_errors = true;
  }
  cudaFree(errors);
  cudaFree(indices);
  cudaFree(cmpv);
  gshmem_free(ack);
  gshmem_free(ivars);
  int rc = perf_end(ctx);
  return any_errors ? 3 : rc;
}
