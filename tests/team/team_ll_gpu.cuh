// The kernel of the LL collectives' GPU stress test (test_team_ll_gpu.cpp).
// Compiled with GSHMEM_COLLECTIVE_LL=1 (tests/team/CMakeLists.txt): the
// small broadcast, fcollect and alltoall take <gshmem/detail/team_ll.h>.
// One block of 128 threads per PE runs many calls back to back on several
// teams, every form, odd sizes and offsets, and checks every byte of dest
// (and one guard byte on each side) after each call; the pattern depends on
// the call's number, so a stale or torn word shows as a wrong byte.
// Included by team_ll_gpu_{a,b,c}.cu, each instantiating a part of the type
// table (three translation units compile in parallel).
#pragma once

#include <gshmem/gshmemx.h>

#include "team_ll_gpu.h"

namespace team_ll {

static __device__ unsigned char pattern(int call, int from, int to, size_t j) {
  return (unsigned char)(call * 131 + from * 29 + to * 53 + (int)(j * 7) + 1);
}

// The collective `kind` of `form` (0 thread, 1 warp, 2 block), typed.
#define TEAM_LL_CALLER(NAME, TYPE)                                                                            \
  struct caller_##NAME {                                                                                      \
    using T = TYPE;                                                                                           \
    __device__ static int call(int kind, int form, int team, T *d, const T *s, size_t n, int root) {          \
      if (kind == ll_kind_broadcast)                                                                          \
        return form == 0   ? gshmem_##NAME##_broadcast(team, d, s, n, root)                                  \
               : form == 1 ? gshmemx_##NAME##_broadcast_warp(team, d, s, n, root)                            \
                           : gshmemx_##NAME##_broadcast_block(team, d, s, n, root);                          \
      if (kind == ll_kind_fcollect)                                                                           \
        return form == 0   ? gshmem_##NAME##_fcollect(team, d, s, n)                                         \
               : form == 1 ? gshmemx_##NAME##_fcollect_warp(team, d, s, n)                                   \
                           : gshmemx_##NAME##_fcollect_block(team, d, s, n);                                 \
      return form == 0   ? gshmem_##NAME##_alltoall(team, d, s, n)                                           \
             : form == 1 ? gshmemx_##NAME##_alltoall_warp(team, d, s, n)                                     \
                         : gshmemx_##NAME##_alltoall_block(team, d, s, n);                                   \
    }                                                                                                         \
  };

struct caller_mem {
  using T = char;
  __device__ static int call(int kind, int form, int team, char *d, const char *s, size_t n, int root) {
    if (kind == ll_kind_broadcast)
      return form == 0   ? gshmem_broadcastmem(team, d, s, n, root)
             : form == 1 ? gshmemx_broadcastmem_warp(team, d, s, n, root)
                         : gshmemx_broadcastmem_block(team, d, s, n, root);
    if (kind == ll_kind_fcollect)
      return form == 0   ? gshmem_fcollectmem(team, d, s, n)
             : form == 1 ? gshmemx_fcollectmem_warp(team, d, s, n)
                         : gshmemx_fcollectmem_block(team, d, s, n);
    return form == 0   ? gshmem_alltoallmem(team, d, s, n)
           : form == 1 ? gshmemx_alltoallmem_warp(team, d, s, n)
                       : gshmemx_alltoallmem_block(team, d, s, n);
  }
};

static __device__ void record(ll_stress_result *out, int call, int kind, size_t at, unsigned expected, unsigned got) {
  if (atomicAdd(&out->errors, 1ull) == 0) {
    out->call = call;
    out->kind = kind;
    out->offset = (unsigned long long)at;
    out->expected = expected;
    out->got = got;
  }
}

// Call c: team teams[c % nteams], kind (c / nteams) % 3 (or `only_kind`),
// form (c / 9) % 3 (or `only_form`; with three teams every team, kind
// and form meet within 27 calls), nelems from the table, root c mod the
// team's size, source and dest at element offsets c % 3 and (c + 1) % 3
// (the byte form: c % 7 and (c * 3) % 5).
template <class C>
__global__ void ll_stress_kernel(ll_stress_args a, ll_stress_result *out) {
  using T = typename C::T;
  constexpr size_t E = sizeof(T);
  const bool bytes = E == 1;
  __shared__ int rc_shared;
  for (int c = 0; c < a.calls; ++c) {
    const int team = a.teams[c % a.nteams];
    const int members = gshmem_team_n_pes(team), me = gshmem_team_my_pe(team);
    const int kind = a.only_kind >= 0 ? a.only_kind : (c / a.nteams) % 3;
    const int form = a.only_form >= 0 ? a.only_form : (c / 9) % 3;
    const size_t n = a.nelems[(c * 7 + a.salt) % a.n_nelems];
    const int root = c % members;
    const size_t soff = bytes ? (size_t)(c % 7) : (size_t)(c % 3) * E;
    const size_t doff = bytes ? (size_t)((c * 3) % 5) : (size_t)((c + 1) % 3) * E;
    unsigned char *const src = a.src + 8 + soff;  // 8: room for the guard before dest
    unsigned char *const dst = a.dst + 8 + doff;
    const size_t nbytes = n * E;
    const size_t src_bytes = kind == ll_kind_alltoall ? nbytes * members : nbytes;
    const size_t dst_bytes = kind == ll_kind_broadcast ? nbytes : nbytes * members;
    // Source pattern; dest and its two guard bytes to 0xEE.
    for (size_t j = threadIdx.x; j < src_bytes; j += blockDim.x)
      src[j] = kind == ll_kind_alltoall ? pattern(c, me, (int)(j / nbytes), j % nbytes) : pattern(c, me, 0, j);
    for (size_t j = threadIdx.x; j < dst_bytes + 2; j += blockDim.x) dst[j - 1] = 0xEE;
    __syncthreads();
    int rc = 0;
    if (form == 0) {
      if (threadIdx.x == 0) rc = C::call(kind, 0, team, (T *)dst, (const T *)src, n, root);
    } else if (form == 1) {
      if (threadIdx.x < 32) rc = C::call(kind, 1, team, (T *)dst, (const T *)src, n, root);
    } else {
      rc = C::call(kind, 2, team, (T *)dst, (const T *)src, n, root);
    }
    if (threadIdx.x == 0) rc_shared = rc;
    __syncthreads();
    if (threadIdx.x == 0 && rc_shared != 0) record(out, c, kind, ~0ull, 0, (unsigned)rc_shared);
    for (size_t j = threadIdx.x; j < dst_bytes; j += blockDim.x) {
      const size_t block = nbytes ? j / nbytes : 0, k = nbytes ? j % nbytes : 0;
      const unsigned char want = kind == ll_kind_broadcast ? pattern(c, root, 0, j)
                                 : kind == ll_kind_fcollect ? pattern(c, (int)block, 0, k)
                                                            : pattern(c, (int)block, me, k);
      if (dst[j] != want) record(out, c, kind, j, want, dst[j]);
    }
    if (threadIdx.x == 0) {
      if (dst[-1] != 0xEE) record(out, c, kind, ~1ull, 0xEE, dst[-1]);
      if (dst[dst_bytes] != 0xEE) record(out, c, kind, dst_bytes, 0xEE, dst[dst_bytes]);
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) out->calls_done = (unsigned long long)a.calls;
}

}  // namespace team_ll

// One launcher per type: the caller and the kernel's instantiation.
#define TEAM_LL_LAUNCH(NAME, TYPE)                                                                      \
  namespace team_ll {                                                                                   \
  TEAM_LL_CALLER(NAME, TYPE)                                                                            \
  }                                                                                                     \
  cudaError_t launch_ll_stress_##NAME(const ll_stress_args &a, ll_stress_result *out, cudaStream_t s) { \
    team_ll::ll_stress_kernel<team_ll::caller_##NAME><<<1, 128, 0, s>>>(a, out);                        \
    return cudaGetLastError();                                                                          \
  }
