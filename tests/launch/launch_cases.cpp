// Host side of the 1024-thread launch test: the registry, the initial
// arena, the launch and the checks (see launch_cases.h).
#include "launch_cases.h"

#include <gshmem/types.h>
#include <gshmem/detail/update_order.h>  // GSHMEMX_ORDER_*, GSHMEMX_SCOPE_*

#include <cstdio>
#include <cstring>
#include <vector>

namespace launch_test {

std::vector<launch_case> &cases() {
  static std::vector<launch_case> all;
  return all;
}

void initial_arena(arena *a) {
  std::memset(a, 0, sizeof *a);
  for (size_t i = 0; i < kElems; ++i) {
    a->src[i] = (double)i + 0.5;
    a->dst[i] = -1.0;
    a->isrc[i] = 3 * (int)i + 1;
    a->idst[i] = -1;
  }
  for (int t = 0; t < kThreads; ++t) {
    a->bsrc[t] = (unsigned char)((t * 7 + 3) & 0xff);
    a->bdst[t] = 0;
    a->slot[t] = (unsigned long long)t;
    a->fslot[t] = t + 0.25;
    a->wslot[t] = wide{(unsigned long long)t, ~(unsigned long long)t};
    a->values[t] = (unsigned long long)t + 1;
    a->result[t] = ~0ull;
  }
  a->counter = 0;
  a->sig = 0;
  a->cmp_eq = GSHMEM_CMP_EQ;
  a->cmp_gt = GSHMEM_CMP_GT;
  a->cmp_ge = GSHMEM_CMP_GE;
  a->rt_order = GSHMEMX_ORDER_RELAXED;
  a->rt_fence_order = GSHMEMX_ORDER_SEQ_CST;
  a->rt_scope = GSHMEMX_SCOPE_SYSTEM;
  a->rt_elems = kElems;
  for (size_t i = 0; i < kWait; ++i) {
    a->ivars[i] = i == kHit ? 2 : 1;
    a->cmp_values[i] = a->ivars[i] - (i == kVectorHit ? 1 : 0);
    a->ivars32[i] = (int)a->ivars[i];
    a->cmp_values32[i] = (int)a->cmp_values[i];
    a->ivars16[i] = (short)a->ivars[i];
    a->status[i] = 0;
    a->indices[i] = ~(size_t)0;
  }
}

cudaError_t launch(const launch_case &c, arena *device_arena, int pe) {
  int repeat = 1;
  void *args[] = {&device_arena, &pe, &repeat};
  const cudaError_t e = cudaLaunchKernel(c.kernel, dim3(1), dim3(kThreads), args, 0, nullptr);
  return e != cudaSuccess ? e : cudaGetLastError();
}

std::string describe_mismatch(const char *what, size_t index, double got, double want) {
  char line[160];
  std::snprintf(line, sizeof line, "%s[%zu] is %.17g, expected %.17g", what, index, got, want);
  return line;
}

std::string check_none(const arena &) { return ""; }

std::string check_copy(const arena &a) {
  for (size_t i = 0; i < kElems; ++i)
    if (a.dst[i] != a.src[i]) return describe_mismatch("dst", i, a.dst[i], a.src[i]);
  return "";
}
std::string check_icopy(const arena &a) {
  for (size_t i = 0; i < kElems; ++i)
    if (a.idst[i] != a.isrc[i]) return describe_mismatch("idst", i, a.idst[i], a.isrc[i]);
  return "";
}
std::string check_bcopy(const arena &a) {
  for (int t = 0; t < kThreads; ++t)
    if (a.bdst[t] != a.bsrc[t]) return describe_mismatch("bdst", (size_t)t, a.bdst[t], a.bsrc[t]);
  return "";
}
std::string check_icopy_sig1(const arena &a) {
  const std::string e = check_icopy(a);
  return e.empty() ? check_sig<1>(a) : e;
}
std::string check_icopy_sig_all(const arena &a) {
  const std::string e = check_icopy(a);
  return e.empty() ? check_sig<kThreads>(a) : e;
}
std::string check_counter_distinct(const arena &a) {
  if (a.counter != (unsigned long long)kThreads) return describe_mismatch("counter", 0, (double)a.counter, kThreads);
  std::vector<bool> seen(kThreads, false);
  for (int t = 0; t < kThreads; ++t) {
    const unsigned long long r = a.result[t];
    if (r >= (unsigned long long)kThreads || seen[r])
      return describe_mismatch("result (an old value twice or out of range)", (size_t)t, (double)r, -1);
    seen[r] = true;
  }
  return "";
}

namespace {
constexpr unsigned long long kNone = ~0ull;
}  // namespace

// slot[t] and result[t] after a per-thread atomic, as expressions of t.
#define LAUNCH_SLOT_CHECK(NAME, SLOT, RESULT)                                                         \
  std::string NAME(const arena &a) {                                                                  \
    for (unsigned long long t = 0; t < (unsigned long long)kThreads; ++t) {                           \
      const unsigned long long slot = (SLOT), result = (RESULT);                                      \
      if (a.slot[t] != slot) return describe_mismatch("slot", (size_t)t, (double)a.slot[t], (double)slot); \
      if (a.result[t] != result)                                                                      \
        return describe_mismatch("result", (size_t)t, (double)a.result[t], (double)result);           \
    }                                                                                                 \
    return "";                                                                                        \
  }
#define LAUNCH_FSLOT_CHECK(NAME, SLOT, RESULT)                                                        \
  std::string NAME(const arena &a) {                                                                  \
    for (unsigned long long t = 0; t < (unsigned long long)kThreads; ++t) {                           \
      const double slot = (SLOT);                                                                     \
      const unsigned long long result = (RESULT);                                                     \
      if (a.fslot[t] != slot) return describe_mismatch("fslot", (size_t)t, a.fslot[t], slot);         \
      if (a.result[t] != result)                                                                      \
        return describe_mismatch("result", (size_t)t, (double)a.result[t], (double)result);           \
    }                                                                                                 \
    return "";                                                                                        \
  }
LAUNCH_SLOT_CHECK(check_amo_fetch, t, t)
LAUNCH_SLOT_CHECK(check_amo_set, 7 * t, kNone)
LAUNCH_SLOT_CHECK(check_amo_swap, t + 1, t)
LAUNCH_SLOT_CHECK(check_amo_compare_swap, t + 5000, t)
LAUNCH_SLOT_CHECK(check_amo_fetch_inc, t + 1, t)
LAUNCH_SLOT_CHECK(check_amo_inc, t + 1, kNone)
LAUNCH_SLOT_CHECK(check_amo_fetch_add, t + 3, t)
LAUNCH_SLOT_CHECK(check_amo_add, t + 3, kNone)
LAUNCH_SLOT_CHECK(check_amo_fetch_and, t & ~1ull, t)
LAUNCH_SLOT_CHECK(check_amo_and, t & ~1ull, kNone)
LAUNCH_SLOT_CHECK(check_amo_fetch_or, t | 0x100ull, t)
LAUNCH_SLOT_CHECK(check_amo_or, t | 0x100ull, kNone)
LAUNCH_SLOT_CHECK(check_amo_fetch_xor, t ^ 0xffull, t)
LAUNCH_SLOT_CHECK(check_amo_xor, t ^ 0xffull, kNone)
LAUNCH_SLOT_CHECK(check_amo_fetch_sub, t - 1, t)
LAUNCH_SLOT_CHECK(check_amo_fetch_max, t > 500 ? t : 500, t)
LAUNCH_SLOT_CHECK(check_amo_fetch_min, t < 500 ? t : 500, t)
LAUNCH_SLOT_CHECK(check_amo_bulk_add, t + t + 1, t)
LAUNCH_SLOT_CHECK(check_cxx_store, 2 * t, kNone)
LAUNCH_FSLOT_CHECK(check_amo_double_fetch, t + 0.25, t)
LAUNCH_FSLOT_CHECK(check_amo_double_compare_swap, -1.0, t)
LAUNCH_FSLOT_CHECK(check_amo_double_fetch_max, t + 0.25 > 500.0 ? t + 0.25 : 500.0, t)
LAUNCH_FSLOT_CHECK(check_amo_double_fetch_nanmin, t + 0.25 < 500.0 ? t + 0.25 : 500.0, t)
LAUNCH_FSLOT_CHECK(check_amo_double_fetch_add, t + 1.25, t)
#undef LAUNCH_FSLOT_CHECK
#undef LAUNCH_SLOT_CHECK

std::string check_amo_int_fetch_add(const arena &a) {
  for (int t = 0; t < kThreads; ++t) {
    const size_t i = (size_t)t * kPerThread;
    const int before = 3 * (int)i + 1;
    if (a.isrc[i] != before + 1) return describe_mismatch("isrc", i, a.isrc[i], before + 1);
    if (a.result[t] != (unsigned long long)before)
      return describe_mismatch("result", (size_t)t, (double)a.result[t], before);
  }
  return "";
}
std::string check_wslot_exchanged(const arena &a) {
  for (unsigned long long t = 0; t < (unsigned long long)kThreads; ++t) {
    if (a.wslot[t].lo != t + 1) return describe_mismatch("wslot.lo", (size_t)t, (double)a.wslot[t].lo, (double)(t + 1));
    if (a.wslot[t].hi != t + 2) return describe_mismatch("wslot.hi", (size_t)t, (double)a.wslot[t].hi, (double)(t + 2));
    if (a.result[t] != t) return describe_mismatch("result", (size_t)t, (double)a.result[t], (double)t);
  }
  return "";
}

}  // namespace launch_test
