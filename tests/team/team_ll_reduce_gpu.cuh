// The LL reductions' GPU stress kernels (test_team_ll_gpu.cpp), included by
// team_ll_reduce_gpu_{a,b}.cu (four cases each, compiled in parallel): reduce and
// reducescatter back to back on several teams, thread, warp and block forms,
// in place and not, odd sizes and element offsets on both sides of the LL
// threshold, for a few types that cover every element width and the 16-bit
// floats (half, bfloat16) and operators of each kind (sum, max, xor). Every
// contribution is a small integer, so every result is exact in every type
// and each PE computes the expected value itself.
#pragma once

#include <gshmem/gshmemx.h>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "team_ll_gpu.h"

namespace team_ll {

static __device__ void record(ll_stress_result *out, int call, int kind, size_t at, int expected, int got) {
  if (atomicAdd(&out->errors, 1ull) == 0) {
    out->call = call;
    out->kind = kind;
    out->offset = (unsigned long long)at;
    out->expected = (unsigned)expected;
    out->got = (unsigned)got;
  }
}

// One type and operator: conversions from and to int, the operator on ints,
// and the six device calls.
#define LL_REDUCE_CALLER(NAME, TYPE, OP, OF, TO, COMBINE)                                                   \
  struct reduce_##NAME##_##OP {                                                                             \
    using T = TYPE;                                                                                         \
    __device__ static T of(int v) { return OF; }                                                            \
    __device__ static int to_int(T x) { return TO; }                                                        \
    __device__ static int combine(int a, int b) { return COMBINE; }                                         \
    __device__ static int call(bool scatter, int form, int team, T *d, const T *s, size_t n) {              \
      if (!scatter)                                                                                         \
        return form == 0   ? gshmem_##NAME##_##OP##_reduce(team, d, s, n)                                  \
               : form == 1 ? gshmemx_##NAME##_##OP##_reduce_warp(team, d, s, n)                            \
                           : gshmemx_##NAME##_##OP##_reduce_block(team, d, s, n);                          \
      return form == 0   ? gshmem_##NAME##_##OP##_reducescatter(team, d, s, n)                             \
             : form == 1 ? gshmemx_##NAME##_##OP##_reducescatter_warp(team, d, s, n)                       \
                         : gshmemx_##NAME##_##OP##_reducescatter_block(team, d, s, n);                     \
    }                                                                                                       \
  };

LL_REDUCE_CALLER(int, int, sum, (int)v, (int)x, a + b)
LL_REDUCE_CALLER(longlong, long long, max, (long long)v << 33 | v, (int)(x & 0xffff), a > b ? a : b)
LL_REDUCE_CALLER(short, short, sum, (short)v, (int)x, a + b)
LL_REDUCE_CALLER(uint8, uint8_t, xor, (uint8_t)v, (int)x, a ^ b)
LL_REDUCE_CALLER(half, __half, sum, __float2half((float)v), (int)__half2float(x), a + b)
LL_REDUCE_CALLER(bfloat16, __nv_bfloat16, sum, __float2bfloat16((float)v), (int)__bfloat162float(x), a + b)
LL_REDUCE_CALLER(double, double, sum, (double)v, (int)x, a + b)
LL_REDUCE_CALLER(float, float, max, (float)v, (int)x, a > b ? a : b)

// Call c: team teams[c % nteams]; reduce or reducescatter alternating
// (c / nteams) % 2 (or only_kind: 0 reduce, 1 reducescatter); form
// (c / 6) % 3 (or only_form; 3: a warp on even PEs, a block on odd ones,
// in one call); nelems from the table; a reduce in place
// every fourth call; source and dest at element offsets c % 3 and
// (c + 1) % 3, with a guard element on each side of dest.
template <class C>
__global__ void ll_reduce_stress_kernel(ll_stress_args a, ll_stress_result *out) {
  using T = typename C::T;
  __shared__ int rc_shared;
  const T guard = C::of(99);
  for (int c = 0; c < a.calls; ++c) {
    const int team = a.teams[c % a.nteams];
    const int members = gshmem_team_n_pes(team), me = gshmem_team_my_pe(team);
    const bool scatter = a.only_kind >= 0 ? a.only_kind == 1 : (c / a.nteams) % 2 == 1;
    const int form = a.only_form == 3   ? 1 + gshmem_my_pe() % 2  // mixed: a warp on even PEs, a block on odd
                     : a.only_form >= 0 ? a.only_form
                                        : (c / 6) % 3;
    const size_t n = a.nelems[(c * 7 + a.salt) % a.n_nelems];
    const bool in_place = !scatter && c % 4 == 1;
    T *const src = reinterpret_cast<T *>(a.src + 16) + c % 3;
    T *const dst = in_place ? src : reinterpret_cast<T *>(a.dst + 16) + (c + 1) % 3;
    const size_t src_n = scatter ? n * members : n;
    for (size_t j = threadIdx.x; j < src_n; j += blockDim.x) src[j] = C::of(ll_contribution(c, me, j));
    if (!in_place)
      for (size_t j = threadIdx.x; j < n + 2; j += blockDim.x) dst[(ptrdiff_t)j - 1] = guard;
    __syncthreads();
    int rc = 0;
    if (form == 0) {
      if (threadIdx.x == 0) rc = C::call(scatter, 0, team, dst, src, n);
    } else if (form == 1) {
      if (threadIdx.x < 32) rc = C::call(scatter, 1, team, dst, src, n);
    } else {
      rc = C::call(scatter, 2, team, dst, src, n);
    }
    if (threadIdx.x == 0) rc_shared = rc;
    __syncthreads();
    const int kind = scatter ? 1 : 0;
    if (threadIdx.x == 0 && rc_shared != 0) record(out, c, kind, ~0ull, 0, rc_shared);
    for (size_t i = threadIdx.x; i < n; i += blockDim.x) {
      const size_t j = scatter ? (size_t)me * n + i : i;
      int want = ll_contribution(c, 0, j);
      for (int r = 1; r < members; ++r) want = C::combine(want, ll_contribution(c, r, j));
      const int got = C::to_int(dst[i]);
      if (got != want) record(out, c, kind, i, want, got);
    }
    if (threadIdx.x == 0 && !in_place) {
      if (C::to_int(dst[-1]) != 99) record(out, c, kind, ~1ull, 99, C::to_int(dst[-1]));
      if (C::to_int(dst[n]) != 99) record(out, c, kind, n, 99, C::to_int(dst[n]));
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) out->calls_done = (unsigned long long)a.calls;
}

}  // namespace team_ll

#define LL_REDUCE_LAUNCH(NAME, OP)                                                                              \
  cudaError_t launch_ll_reduce_stress_##NAME##_##OP(const ll_stress_args &a, ll_stress_result *out,             \
                                                    cudaStream_t s) {                                           \
    team_ll::ll_reduce_stress_kernel<team_ll::reduce_##NAME##_##OP><<<1, 128, 0, s>>>(a, out);                 \
    return cudaGetLastError();                                                                                  \
  }
