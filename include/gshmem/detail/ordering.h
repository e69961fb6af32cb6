// The ordering layer: the only place in gshmem where memory accesses get
// their order and scope.
//
// Every access with semantics (polls, flag stores, remote atomics, fences)
// goes through these functions. They map (memory_order x thread_scope) onto
// one PTX instruction with the matching qualifiers (ld.acquire.sys,
// st.release.sys, atom.add.relaxed.sys, fence.acq_rel.sys, ...): through
// cuda::atomic_ref, or, for the accesses it lacks or makes too costly,
// through the inline PTX below, whose qualifiers all come from one table
// (GSHMEMI_PTX_SCOPE and the GSHMEMI_PTX_*_SEM macros) that follows the
// same mapping. The same functions compile for the host, where they become
// the host compiler's atomics: that is how the CPU test suite runs the
// device algorithms with host threads playing the remote PEs.
//
// Order and scope are template parameters; an order an operation cannot have
// (a release load, an acquire store) is rejected at compile time.
//
// Besides the order the hardware keeps, an access has an order the
// COMPILER keeps (compiler_order): `pinned` (the default) keeps every other
// memory access of the thread on its side of the access (asm volatile with
// a "memory" clobber, as libcu++ does); `movable`, for relaxed accesses
// only, lets the compiler move the thread's ordinary loads and stores
// across it and issue independent accesses back to back (asm volatile
// without the clobber). See "compiler order" below for what each promises.
#pragma once

#include <gshmem/detail/config.h>

#include <cuda/atomic>
#include <cstring>
#include <type_traits>
#if !GSHMEM_IN_DEVICE_CODE
#include <chrono>
#endif

namespace gshmem {

// Memory orders of the C++ model. consume is accepted and treated as acquire.
enum class memory_order : int { relaxed, consume, acquire, release, acq_rel, seq_cst };

// Scopes of the CUDA model: the set of threads an ordering or atomicity
// guarantee covers. system covers peer GPUs and the host.
enum class thread_scope : int { thread, block, device, system };

namespace detail {

// -------------------------------------------------------------- compiler order
//
// pinned   asm volatile with a "memory" clobber (libcu++'s form, and this
//          file's inline PTX). The compiler issues the access exactly where
//          the program has it: no load or store of the thread moves across
//          it, values in memory are re-read after it. Required of every
//          access that orders something (acquire, release, seq_cst, fences)
//          and of polls, and kept by the C++ API's atomics.
// movable  relaxed order at system scope only: a C++ volatile access
//          (ld.volatile / st.volatile, which PTX gives exactly the
//          semantics of ld/st.relaxed.sys; on sm_90 the same
//          LDG/STG.E.STRONG.SYS) and, for the no-return updates, CUDA's
//          system-scope atomics (atom.sys, relaxed, which ptxas turns into
//          RED). The compiler sees them as memory accesses: every one is
//          performed (never merged, never hoisted out of a loop, so a loop
//          that calls one loads again on each pass), they keep their order
//          among themselves and with every asm volatile (fences, pinned
//          accesses: a movable load followed by a fence is still an acquire
//          pattern, a fence followed by a movable store a release pattern),
//          and with every ordinary access that may alias them. But ordinary
//          accesses to other memory may move across them, and a load need
//          not wait for the ordinary stores before it, so independent
//          relaxed loads can be in flight together. (Inline asm cannot do
//          this: nvcc treats every asm volatile as reading and writing all
//          memory, with or without the "memory" clobber, and a non-volatile
//          asm load may be hoisted out of a polling loop.) For the routines
//          that promise no ordering until a fence, quiet or barrier: the
//          data accesses of p, g, put and get, atomic_fetch/set, the
//          non-fetching OpenSHMEM atomics and signal_op.
enum class compiler_order : int { pinned, movable };

GSHMEM_HD_CONSTEXPR bool is_load_order(memory_order o) {
  return o == memory_order::relaxed || o == memory_order::consume ||
         o == memory_order::acquire || o == memory_order::seq_cst;
}
GSHMEM_HD_CONSTEXPR bool is_store_order(memory_order o) {
  return o == memory_order::relaxed || o == memory_order::release ||
         o == memory_order::seq_cst;
}
GSHMEM_HD_CONSTEXPR bool is_fence_order(memory_order o) { return o != memory_order::relaxed; }

GSHMEM_HD_CONSTEXPR cuda::memory_order to_cuda(memory_order o) {
  switch (o) {
    case memory_order::relaxed: return cuda::memory_order_relaxed;
    case memory_order::consume: return cuda::memory_order_acquire;
    case memory_order::acquire: return cuda::memory_order_acquire;
    case memory_order::release: return cuda::memory_order_release;
    case memory_order::acq_rel: return cuda::memory_order_acq_rel;
    default: return cuda::memory_order_seq_cst;
  }
}

// The order a compare-exchange uses when the comparison fails (no store
// happens, so release parts are dropped).
GSHMEM_HD_CONSTEXPR memory_order failure_order(memory_order o) {
  return o == memory_order::acq_rel   ? memory_order::acquire
         : o == memory_order::release ? memory_order::relaxed
                                      : o;
}

template <thread_scope S> struct cuda_scope;
template <> struct cuda_scope<thread_scope::thread> { static constexpr cuda::thread_scope value = cuda::thread_scope_thread; };
template <> struct cuda_scope<thread_scope::block>  { static constexpr cuda::thread_scope value = cuda::thread_scope_block; };
template <> struct cuda_scope<thread_scope::device> { static constexpr cuda::thread_scope value = cuda::thread_scope_device; };
template <> struct cuda_scope<thread_scope::system> { static constexpr cuda::thread_scope value = cuda::thread_scope_system; };

template <class T, thread_scope S>
GSHMEM_HD cuda::atomic_ref<T, cuda_scope<S>::value> ref(const T* p) {
  static_assert(std::is_trivially_copyable<T>::value, "atomic access needs a trivially copyable type");
  return cuda::atomic_ref<T, cuda_scope<S>::value>(*const_cast<T*>(p));
}

// --------------------------------------------------- the PTX of order x scope
//
// The qualifiers of every access this file writes as inline PTX, in one
// place (cuda::atomic_ref applies the same mapping to the others):
//   scope   system -> .sys, device -> .gpu, block and thread -> .cta
//   load    relaxed -> .relaxed; consume, acquire -> .acquire;
//           seq_cst -> fence.sc, then .acquire
//   store   relaxed -> .relaxed; release -> .release;
//           seq_cst -> fence.sc, then .release
//   RMW     relaxed, release, acq_rel -> the same; consume, acquire ->
//           .acquire; seq_cst -> fence.sc, then .acquire
//   red     relaxed, release (the only orders `red` has)
//   fence   release -> fence.release, consume and acquire -> fence.acquire
//           (both where the toolkit has them: GSHMEMI_SPLIT_FENCES; else
//           .acq_rel, as libcu++); acq_rel -> .acq_rel; seq_cst -> .sc
//   clobber "memory" for compiler_order::pinned; none for movable (only
//           the 16-byte accesses: the other movable accesses are no inline
//           PTX, see compiler order)
//   movable relaxed at system scope: ld/st.volatile (= .relaxed.sys) of
//           1, 2, 4 or 8 bytes, atom.sys (relaxed) for red, and the
//           16-byte ld/st.relaxed.sys.v2 without the clobber
// The macros expand MAC(sem, scope, clobber) for the template parameters O
// (order), S (scope) and C (compiler order) of the function they are used
// in; MAC pastes the strings into its asm statement.
#if GSHMEM_IN_DEVICE_CODE
#define GSHMEMI_PTX_CLOBBER_pinned "memory"
#define GSHMEMI_PTX_CLOBBER_movable
#define GSHMEMI_PTX_SCOPE(MAC, sem, clobber)                                                 \
  if constexpr (S == thread_scope::system) MAC(sem, "sys", clobber);                        \
  else if constexpr (S == thread_scope::device) MAC(sem, "gpu", clobber);                   \
  else MAC(sem, "cta", clobber);
#define GSHMEMI_PTX_CLOBBER(MAC, sem)                                                        \
  if constexpr (C == compiler_order::movable) { GSHMEMI_PTX_SCOPE(MAC, sem, movable) }     \
  else { GSHMEMI_PTX_SCOPE(MAC, sem, pinned) }
#define GSHMEMI_PTX_LOAD_SEM(MAC)                                                            \
  if constexpr (O == memory_order::seq_cst) atomic_fence<memory_order::seq_cst, S>();       \
  if constexpr (O == memory_order::relaxed) { GSHMEMI_PTX_CLOBBER(MAC, "relaxed") }         \
  else { GSHMEMI_PTX_CLOBBER(MAC, "acquire") }
#define GSHMEMI_PTX_STORE_SEM(MAC)                                                           \
  if constexpr (O == memory_order::seq_cst) atomic_fence<memory_order::seq_cst, S>();       \
  if constexpr (O == memory_order::relaxed) { GSHMEMI_PTX_CLOBBER(MAC, "relaxed") }         \
  else { GSHMEMI_PTX_CLOBBER(MAC, "release") }
#define GSHMEMI_PTX_RMW_SEM(MAC)                                                             \
  if constexpr (O == memory_order::seq_cst) atomic_fence<memory_order::seq_cst, S>();       \
  if constexpr (O == memory_order::relaxed) { GSHMEMI_PTX_CLOBBER(MAC, "relaxed") }         \
  else if constexpr (O == memory_order::release) { GSHMEMI_PTX_CLOBBER(MAC, "release") }    \
  else if constexpr (O == memory_order::acq_rel) { GSHMEMI_PTX_CLOBBER(MAC, "acq_rel") }    \
  else { GSHMEMI_PTX_CLOBBER(MAC, "acquire") }
#define GSHMEMI_PTX_RED_SEM(MAC)                                                             \
  if constexpr (O == memory_order::release) { GSHMEMI_PTX_CLOBBER(MAC, "release") }         \
  else { GSHMEMI_PTX_CLOBBER(MAC, "relaxed") }
#endif

// --------------------------------------------------------------------- fences

// Release and acquire fences have instructions of their own from PTX ISA 8.6
// on sm_90 (CUDA 12.8): fence.release, which is the MEMBAR alone, and
// fence.acquire, which is the L1 invalidation alone (CCTL.IVALL, no MEMBAR).
// libcu++ gives both orders fence.acq_rel, the MEMBAR and the invalidation.
// (sm_90, nvcc 13.0 SASS; a one-thread team sync of 2 H200s over NVLink,
// whose fences were release then acquire: 1.70 us against 1.74 with
// fence.acq_rel.) Older toolkits and GPUs keep libcu++'s mapping.
#if GSHMEM_IN_DEVICE_CODE && __CUDA_ARCH__ >= 900 && \
    (__CUDACC_VER_MAJOR__ > 12 || (__CUDACC_VER_MAJOR__ == 12 && __CUDACC_VER_MINOR__ >= 8))
#define GSHMEMI_SPLIT_FENCES 1
#define GSHMEMI_FENCE_ASM(sem, scope, clobber) asm volatile("fence." sem "." scope ";" ::: GSHMEMI_PTX_CLOBBER_##clobber)
#else
#define GSHMEMI_SPLIT_FENCES 0
#endif

template <memory_order O = memory_order::seq_cst, thread_scope S = thread_scope::system>
GSHMEM_HD void atomic_fence() {
  static_assert(is_fence_order(O), "a relaxed fence orders nothing");
#if GSHMEMI_SPLIT_FENCES
  if constexpr (O == memory_order::release) {
    GSHMEMI_PTX_SCOPE(GSHMEMI_FENCE_ASM, "release", pinned)
    return;
  } else if constexpr (O == memory_order::acquire || O == memory_order::consume) {
    GSHMEMI_PTX_SCOPE(GSHMEMI_FENCE_ASM, "acquire", pinned)
    return;
  }
#endif
  cuda::atomic_thread_fence(to_cuda(O), cuda_scope<S>::value);
}

// ---------------------------------------------------------------- loads/stores
//
// Pinned: cuda::atomic_ref (one ld/st with the order's qualifiers, asm
// volatile with a "memory" clobber). Movable (relaxed, system scope): a C++
// volatile access of the same width (see compiler order). Bytes: see
// "1-byte loads/stores" below.

template <memory_order O, thread_scope S, compiler_order C>
GSHMEM_HD_CONSTEXPR bool compiler_order_valid() {
  return C == compiler_order::pinned || (O == memory_order::relaxed && S == thread_scope::system);
}
#define GSHMEMI_CHECK_COMPILER_ORDER                                                          \
  static_assert(compiler_order_valid<O, S, C>(),                                              \
                "a movable access is relaxed at system scope (ld/st.volatile)")

// The unsigned type of 1, 2, 4 or 8 bytes.
template <class T>
using word_of_t = typename std::conditional<
    sizeof(T) == 8, unsigned long long,
    typename std::conditional<sizeof(T) == 4, unsigned int,
                              typename std::conditional<sizeof(T) == 2, unsigned short, unsigned char>::type>::type>::type;

#if GSHMEM_IN_DEVICE_CODE
template <class T>
__device__ __forceinline__ T movable_load(const T* p) {
  static_assert(sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8, "1, 2, 4 or 8 bytes");
  using W = word_of_t<T>;
  const W w = *reinterpret_cast<const volatile W*>(p);  // ld.volatile = ld.relaxed.sys
  T out;
  memcpy(&out, &w, sizeof(T));
  return out;
}
template <class T>
__device__ __forceinline__ void movable_store(T* p, T v) {
  static_assert(sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8, "1, 2, 4 or 8 bytes");
  using W = word_of_t<T>;
  W w;
  memcpy(&w, &v, sizeof(T));
  *reinterpret_cast<volatile W*>(p) = w;  // st.volatile = st.relaxed.sys
}
#endif

template <memory_order O = memory_order::seq_cst, thread_scope S = thread_scope::system,
          compiler_order C = compiler_order::pinned, class T>
GSHMEM_HD T atomic_load(const T* p) {
  static_assert(is_load_order(O), "a load cannot have release or acq_rel order");
  GSHMEMI_CHECK_COMPILER_ORDER;
#if GSHMEM_IN_DEVICE_CODE
  if constexpr (C == compiler_order::movable) return movable_load(p);
#endif
  return ref<T, S>(p).load(to_cuda(O));
}

template <memory_order O = memory_order::seq_cst, thread_scope S = thread_scope::system,
          compiler_order C = compiler_order::pinned, class T>
GSHMEM_HD void atomic_store(T* p, T v) {
  static_assert(is_store_order(O), "a store cannot have acquire, consume or acq_rel order");
  GSHMEMI_CHECK_COMPILER_ORDER;
#if GSHMEM_IN_DEVICE_CODE
  if constexpr (C == compiler_order::movable) {
    movable_store(p, v);
    return;
  }
#endif
  ref<T, S>(p).store(v, to_cuda(O));
}

// ------------------------------------------------------------ read-modify-write
// Always pinned: a read-modify-write returns a value the caller acts on.

template <memory_order O = memory_order::seq_cst, thread_scope S = thread_scope::system, class T>
GSHMEM_HD T atomic_exchange(T* p, T v) {
  return ref<T, S>(p).exchange(v, to_cuda(O));
}

// On failure `expected` receives the value found. Returns true on success.
template <memory_order O = memory_order::seq_cst, thread_scope S = thread_scope::system, class T>
GSHMEM_HD bool atomic_compare_exchange(T* p, T& expected, T desired) {
  return ref<T, S>(p).compare_exchange_strong(expected, desired, to_cuda(O),
                                              to_cuda(failure_order(O)));
}

#define GSHMEMI_DEFINE_FETCH_OP(op)                                                         \
  template <memory_order O = memory_order::seq_cst, thread_scope S = thread_scope::system, \
            class T>                                                                        \
  GSHMEM_HD T atomic_fetch_##op(T* p, T v) {                                                \
    static_assert(std::is_integral<T>::value, "fetch_" #op " needs an integral type");      \
    return ref<T, S>(p).fetch_##op(v, to_cuda(O));                                          \
  }
GSHMEMI_DEFINE_FETCH_OP(add)
GSHMEMI_DEFINE_FETCH_OP(sub)
GSHMEMI_DEFINE_FETCH_OP(and)
GSHMEMI_DEFINE_FETCH_OP(or)
GSHMEMI_DEFINE_FETCH_OP(xor)
GSHMEMI_DEFINE_FETCH_OP(max)
GSHMEMI_DEFINE_FETCH_OP(min)
#undef GSHMEMI_DEFINE_FETCH_OP

// ------------------------------------------------- no-return updates (red)
//
// A read-modify-write whose old value nobody reads. On the GPU this is one
// `red.<sem>.<scope>.global.<op>` instruction (REDG): the issuing thread does
// not wait for the old value to travel back over NVLink, so it costs a store,
// not a round trip. The .global state space is what makes it so: a generic
// `red` is, on sm_90 (nvcc 13.0), an ATOM whose predicate the thread waits
// for (its shared-memory fallback), a round trip to a peer (a one-thread
// team sync of 2 H200s took 0.45 us longer). So the target must be global
// memory (the symmetric heap, a peer's mapping, mapped host memory), which
// every caller's is. Orders: relaxed and release (the only ones `red` has); any other
// order falls back to the fetching form, whose result is dropped. Movable
// (relaxed, system scope): CUDA's atomicAdd/And/Or/Xor_system, whose
// result is unused (atom.sys, relaxed; ptxas emits RED for it).

enum class reduce_op : int { add, and_, or_, xor_ };

namespace reduce_detail {
template <class T>
using uint_of = typename std::conditional<sizeof(T) == 4, unsigned int, unsigned long long>::type;
}  // namespace reduce_detail

#if GSHMEM_IN_DEVICE_CODE
#define GSHMEMI_RED_ASM(sem, scope, clobber, op, cons)                                        \
  asm volatile("red." sem "." scope ".global." op " [%0], %1;" ::"l"(p), cons(u) : GSHMEMI_PTX_CLOBBER_##clobber)
#define GSHMEMI_RED_ADD32(sem, scope, clobber) GSHMEMI_RED_ASM(sem, scope, clobber, "add.u32", "r")
#define GSHMEMI_RED_AND32(sem, scope, clobber) GSHMEMI_RED_ASM(sem, scope, clobber, "and.b32", "r")
#define GSHMEMI_RED_OR32(sem, scope, clobber) GSHMEMI_RED_ASM(sem, scope, clobber, "or.b32", "r")
#define GSHMEMI_RED_XOR32(sem, scope, clobber) GSHMEMI_RED_ASM(sem, scope, clobber, "xor.b32", "r")
#define GSHMEMI_RED_ADD64(sem, scope, clobber) GSHMEMI_RED_ASM(sem, scope, clobber, "add.u64", "l")
#define GSHMEMI_RED_AND64(sem, scope, clobber) GSHMEMI_RED_ASM(sem, scope, clobber, "and.b64", "l")
#define GSHMEMI_RED_OR64(sem, scope, clobber) GSHMEMI_RED_ASM(sem, scope, clobber, "or.b64", "l")
#define GSHMEMI_RED_XOR64(sem, scope, clobber) GSHMEMI_RED_ASM(sem, scope, clobber, "xor.b64", "l")
#endif

template <reduce_op Op, memory_order O = memory_order::relaxed, thread_scope S = thread_scope::system,
          compiler_order C = compiler_order::pinned, class T>
GSHMEM_HD void atomic_reduce(T* p, T v) {
  static_assert(std::is_integral<T>::value && (sizeof(T) == 4 || sizeof(T) == 8),
                "atomic_reduce needs a 4- or 8-byte integral type");
  GSHMEMI_CHECK_COMPILER_ORDER;
#if GSHMEM_IN_DEVICE_CODE
  if constexpr (C == compiler_order::movable) {
    using U = reduce_detail::uint_of<T>;
    U* q = reinterpret_cast<U*>(p);  // two's complement: signed and unsigned add are the same bits
    if constexpr (Op == reduce_op::add) (void)atomicAdd_system(q, (U)v);
    else if constexpr (Op == reduce_op::and_) (void)atomicAnd_system(q, (U)v);
    else if constexpr (Op == reduce_op::or_) (void)atomicOr_system(q, (U)v);
    else (void)atomicXor_system(q, (U)v);
    return;
  }
  if constexpr (O == memory_order::relaxed || O == memory_order::release) {
    using U = reduce_detail::uint_of<T>;
    U u = (U)v;  // two's complement: signed and unsigned add are the same bits
    if constexpr (sizeof(T) == 4) {
      if constexpr (Op == reduce_op::add) { GSHMEMI_PTX_RED_SEM(GSHMEMI_RED_ADD32) }
      else if constexpr (Op == reduce_op::and_) { GSHMEMI_PTX_RED_SEM(GSHMEMI_RED_AND32) }
      else if constexpr (Op == reduce_op::or_) { GSHMEMI_PTX_RED_SEM(GSHMEMI_RED_OR32) }
      else { GSHMEMI_PTX_RED_SEM(GSHMEMI_RED_XOR32) }
    } else {
      if constexpr (Op == reduce_op::add) { GSHMEMI_PTX_RED_SEM(GSHMEMI_RED_ADD64) }
      else if constexpr (Op == reduce_op::and_) { GSHMEMI_PTX_RED_SEM(GSHMEMI_RED_AND64) }
      else if constexpr (Op == reduce_op::or_) { GSHMEMI_PTX_RED_SEM(GSHMEMI_RED_OR64) }
      else { GSHMEMI_PTX_RED_SEM(GSHMEMI_RED_XOR64) }
    }
    return;
  }
#endif
  if constexpr (Op == reduce_op::add) (void)atomic_fetch_add<O, S>(p, v);
  else if constexpr (Op == reduce_op::and_) (void)atomic_fetch_and<O, S>(p, v);
  else if constexpr (Op == reduce_op::or_) (void)atomic_fetch_or<O, S>(p, v);
  else (void)atomic_fetch_xor<O, S>(p, v);
}
#if GSHMEM_IN_DEVICE_CODE
#undef GSHMEMI_RED_XOR64
#undef GSHMEMI_RED_OR64
#undef GSHMEMI_RED_AND64
#undef GSHMEMI_RED_ADD64
#undef GSHMEMI_RED_XOR32
#undef GSHMEMI_RED_OR32
#undef GSHMEMI_RED_AND32
#undef GSHMEMI_RED_ADD32
#undef GSHMEMI_RED_ASM
#endif

// ---------------------------- read-modify-writes and loads on global memory
//
// For 8-byte counters known to lie in global memory (the request queue's
// tail and head_seen, proxy_queue.h): atom / red with the .global state
// space. A generic 64-bit atom may address shared memory, and for that case
// ptxas emits a second path (a state-space test and a compare-and-swap
// loop) into every kernel that inlines it; that loop, on the cold remote
// branch of every routine, is one of the loops that give the kernels'
// other loops YIELDs and convergence barriers (SASS sm_90). Host: the
// generic forms.
#if GSHMEM_IN_DEVICE_CODE
#define GSHMEMI_GLOBAL_FETCH_ADD64(sem, scope, clobber)                                        \
  asm volatile("atom." sem "." scope ".global.add.u64 %0, [%1], %2;"                            \
               : "=l"(old) : "l"(p), "l"(v) : GSHMEMI_PTX_CLOBBER_##clobber)
#define GSHMEMI_GLOBAL_RED_MAX64(sem, scope, clobber)                                          \
  asm volatile("red." sem "." scope ".global.max.u64 [%0], %1;" ::"l"(p), "l"(v) : GSHMEMI_PTX_CLOBBER_##clobber)
#define GSHMEMI_GLOBAL_LD64(sem, scope, clobber)                                                \
  asm volatile("ld." sem "." scope ".global.u64 %0, [%1];" : "=l"(r) : "l"(p) : GSHMEMI_PTX_CLOBBER_##clobber)
#endif

template <memory_order O, thread_scope S>
GSHMEM_HD unsigned long long atomic_fetch_add_global(unsigned long long* p, unsigned long long v) {
#if GSHMEM_IN_DEVICE_CODE
  constexpr compiler_order C = compiler_order::pinned;
  unsigned long long old;
  GSHMEMI_PTX_RMW_SEM(GSHMEMI_GLOBAL_FETCH_ADD64)
  return old;
#else
  return atomic_fetch_add<O, S>(p, v);
#endif
}

// max without the old value: relaxed or release (red's orders).
template <memory_order O, thread_scope S>
GSHMEM_HD void atomic_reduce_max_global(unsigned long long* p, unsigned long long v) {
  static_assert(O == memory_order::relaxed || O == memory_order::release, "red is relaxed or release");
#if GSHMEM_IN_DEVICE_CODE
  constexpr compiler_order C = compiler_order::pinned;
  GSHMEMI_PTX_RED_SEM(GSHMEMI_GLOBAL_RED_MAX64)
#else
  (void)atomic_fetch_max<O, S>(p, v);
#endif
}
// A load of an 8-byte word known to lie in global memory: `ld` with the
// .global state space (LDG in SASS) instead of the generic `ld` (LD), which
// resolves the state space of its address first. Used by the latency
// benchmark's floors (perftest/perf_common.cuh), which measure whether the
// state space of a poll matters; pinned. Host: the generic form.
template <memory_order O, thread_scope S>
GSHMEM_HD unsigned long long atomic_load_global(const unsigned long long* p) {
  static_assert(is_load_order(O), "a load cannot have release or acq_rel order");
#if GSHMEM_IN_DEVICE_CODE
  constexpr compiler_order C = compiler_order::pinned;
  unsigned long long r;
  GSHMEMI_PTX_LOAD_SEM(GSHMEMI_GLOBAL_LD64)
  return r;
#else
  return atomic_load<O, S>(p);
#endif
}
#if GSHMEM_IN_DEVICE_CODE
#undef GSHMEMI_GLOBAL_LD64
#undef GSHMEMI_GLOBAL_RED_MAX64
#undef GSHMEMI_GLOBAL_FETCH_ADD64
#endif

// ------------------------------------------------------- 16-byte loads/stores
//
// Bulk copies move 16-byte units as one vector access
// (`ld.<sem>.<scope>.v2.b64`, `st.<sem>.<scope>.v2.b64`). The order applies to
// the access as a whole; the PTX memory model promises single-copy atomicity
// per 8-byte half only, so a racing reader may see halves from two writes:
// these are for copies, never for a 16-byte atomic object (see
// atomic_load128 below). C++ has no access of this width, so a movable one
// is the same inline PTX without the "memory" clobber, which nvcc keeps in
// place like a pinned access (see compiler order); that costs a copy
// nothing, since its loop issues all its loads before its stores.
// On the host the halves are two 8-byte atomics (the same guarantee).

struct alignas(16) wide16 { unsigned long long lo, hi; };

#if GSHMEM_IN_DEVICE_CODE
#define GSHMEMI_LD16_ASM(sem, scope, clobber)                                                          \
  asm volatile("ld." sem "." scope ".v2.b64 {%0, %1}, [%2];" : "=l"(r.lo), "=l"(r.hi) : "l"(p)         \
               : GSHMEMI_PTX_CLOBBER_##clobber)
#define GSHMEMI_ST16_ASM(sem, scope, clobber)                                                          \
  asm volatile("st." sem "." scope ".v2.b64 [%0], {%1, %2};" ::"l"(p), "l"(v.lo), "l"(v.hi)            \
               : GSHMEMI_PTX_CLOBBER_##clobber)
#endif

template <memory_order O = memory_order::seq_cst, thread_scope S = thread_scope::system,
          compiler_order C = compiler_order::pinned>
GSHMEM_HD wide16 atomic_load16(const wide16* p) {
  static_assert(is_load_order(O), "a load cannot have release or acq_rel order");
  GSHMEMI_CHECK_COMPILER_ORDER;
#if GSHMEM_IN_DEVICE_CODE
  wide16 r;
  GSHMEMI_PTX_LOAD_SEM(GSHMEMI_LD16_ASM)
  return r;
#else
  wide16 r;
  r.lo = atomic_load<O, S>(&p->lo);
  r.hi = atomic_load<O, S>(&p->hi);
  return r;
#endif
}

template <memory_order O = memory_order::seq_cst, thread_scope S = thread_scope::system,
          compiler_order C = compiler_order::pinned>
GSHMEM_HD void atomic_store16(wide16* p, wide16 v) {
  static_assert(is_store_order(O), "a store cannot have acquire, consume or acq_rel order");
  GSHMEMI_CHECK_COMPILER_ORDER;
#if GSHMEM_IN_DEVICE_CODE
  GSHMEMI_PTX_STORE_SEM(GSHMEMI_ST16_ASM)
#else
  atomic_store<O, S>(&p->lo, v.lo);
  atomic_store<O, S>(&p->hi, v.hi);
#endif
}
#if GSHMEM_IN_DEVICE_CODE
#undef GSHMEMI_ST16_ASM
#undef GSHMEMI_LD16_ASM
#endif

// ---------------------------------------------- 16-byte single-copy atomics
//
// Load, store, exchange and compare-exchange of a 16-byte object (aligned to
// 16) as one indivisible access: a racing reader sees one write's value in
// full, never halves of two. On the GPU (sm_90 and later) they are the
// 128-bit atomic instructions: `atom.<sem>.<scope>.cas.b128` and
// `atom.<sem>.<scope>.exch.b128`. A load is a compare-and-swap of {0, 0}
// with {0, 0} (it writes only the value already there), a store is an
// exchange whose result is dropped: each costs a round trip, unlike the
// vector accesses above, which is why bulk copies keep those. Orders: the
// read-modify-write row of the table above. Always pinned.
// On the host they take one of 64 spin locks chosen by address, so host
// threads (the CPU tests) get the same indivisibility among themselves.

#if GSHMEM_IN_DEVICE_CODE
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
#define GSHMEMI_HAVE_ATOM128 1
#define GSHMEMI_CAS128_ASM(sem, scope, clobber)                                                       \
  asm volatile("{\n\t.reg .b128 d, b, c;\n\tmov.b128 b, {%2, %3};\n\tmov.b128 c, {%4, %5};\n\t"     \
               "atom." sem "." scope ".cas.b128 d, [%6], b, c;\n\tmov.b128 {%0, %1}, d;\n\t}"        \
               : "=l"(r.lo), "=l"(r.hi)                                                          \
               : "l"(expected.lo), "l"(expected.hi), "l"(desired.lo), "l"(desired.hi), "l"(p)    \
               : GSHMEMI_PTX_CLOBBER_##clobber)
#define GSHMEMI_EXCH128_ASM(sem, scope, clobber)                                                      \
  asm volatile("{\n\t.reg .b128 d, b;\n\tmov.b128 b, {%2, %3};\n\t"                             \
               "atom." sem "." scope ".exch.b128 d, [%4], b;\n\tmov.b128 {%0, %1}, d;\n\t}"          \
               : "=l"(r.lo), "=l"(r.hi)                                                          \
               : "l"(v.lo), "l"(v.hi), "l"(p)                                                    \
               : GSHMEMI_PTX_CLOBBER_##clobber)
// Half-precision add, `atom.<sem>.<scope>.add.noftz.f16` (sm_70+), on the
// bit pattern so that this header needs no <cuda_fp16.h>. Device only.
#define GSHMEMI_ADD_F16_ASM(sem, scope, clobber)                                                      \
  asm volatile("atom." sem "." scope ".add.noftz.f16 %0, [%1], %2;"                             \
               : "=h"(r)                                                                         \
               : "l"(p), "h"(v)                                                                  \
               : GSHMEMI_PTX_CLOBBER_##clobber)
#endif
#else
inline int wide_host_locks[64];
struct wide_host_guard {
  int* lock;
  explicit wide_host_guard(const void* p)
      : lock(&wide_host_locks[((unsigned long long)(uintptr_t)p >> 4) % 64]) {
    while (__atomic_exchange_n(lock, 1, __ATOMIC_ACQUIRE)) {
      while (__atomic_load_n(lock, __ATOMIC_RELAXED)) {}
    }
  }
  ~wide_host_guard() { __atomic_store_n(lock, 0, __ATOMIC_RELEASE); }
};
#endif

#if defined(__CUDACC__)
template <memory_order O = memory_order::seq_cst, thread_scope S = thread_scope::system>
__device__ unsigned short atomic_fetch_add_f16_bits(unsigned short* p, unsigned short v) {
#if GSHMEM_IN_DEVICE_CODE && GSHMEMI_HAVE_ATOM128
  constexpr compiler_order C = compiler_order::pinned;
  unsigned short r;
  GSHMEMI_PTX_RMW_SEM(GSHMEMI_ADD_F16_ASM)
  return r;
#elif GSHMEM_IN_DEVICE_CODE
  static_assert(O != O, "gshmem builds its half-precision atomics for sm_90 or later");
  return v;
#else
  (void)p;  // the host pass of a device function: never runs
  return v;
#endif
}
#endif

// If *p has the bits of `expected`, stores `desired`; returns the bits found.
template <memory_order O = memory_order::seq_cst, thread_scope S = thread_scope::system>
GSHMEM_HD wide16 atomic_compare_exchange128(wide16* p, wide16 expected, wide16 desired) {
#if GSHMEM_IN_DEVICE_CODE
#if GSHMEMI_HAVE_ATOM128
  constexpr compiler_order C = compiler_order::pinned;
  wide16 r;
  GSHMEMI_PTX_RMW_SEM(GSHMEMI_CAS128_ASM)
  return r;
#else
  static_assert(O != O, "16-byte atomics need sm_90 or later");
  return expected;
#endif
#else
  wide_host_guard guard(p);
  wide16 r = *p;
  if (r.lo == expected.lo && r.hi == expected.hi) *p = desired;
  return r;
#endif
}

template <memory_order O = memory_order::seq_cst, thread_scope S = thread_scope::system>
GSHMEM_HD wide16 atomic_exchange128(wide16* p, wide16 v) {
#if GSHMEM_IN_DEVICE_CODE
#if GSHMEMI_HAVE_ATOM128
  constexpr compiler_order C = compiler_order::pinned;
  wide16 r;
  GSHMEMI_PTX_RMW_SEM(GSHMEMI_EXCH128_ASM)
  return r;
#else
  static_assert(O != O, "16-byte atomics need sm_90 or later");
  return v;
#endif
#else
  wide_host_guard guard(p);
  wide16 r = *p;
  *p = v;
  return r;
#endif
}

template <memory_order O = memory_order::seq_cst, thread_scope S = thread_scope::system>
GSHMEM_HD wide16 atomic_load128(const wide16* p) {
  static_assert(is_load_order(O), "a load cannot have release or acq_rel order");
  constexpr memory_order RMW = O == memory_order::consume ? memory_order::acquire : O;
  return atomic_compare_exchange128<RMW, S>(const_cast<wide16*>(p), wide16{0, 0}, wide16{0, 0});
}

template <memory_order O = memory_order::seq_cst, thread_scope S = thread_scope::system>
GSHMEM_HD void atomic_store128(wide16* p, wide16 v) {
  static_assert(is_store_order(O), "a store cannot have acquire, consume or acq_rel order");
  (void)atomic_exchange128<O, S>(p, v);
}
#if GSHMEM_IN_DEVICE_CODE && GSHMEMI_HAVE_ATOM128
#undef GSHMEMI_ADD_F16_ASM
#undef GSHMEMI_EXCH128_ASM
#undef GSHMEMI_CAS128_ASM
#endif

// --------------------------------------------------------- 1-byte loads/stores
//
// cuda::atomic_ref stores a byte with a compare-and-swap loop on the
// enclosing word (two round trips over NVLink). PTX has byte-wide strong
// accesses (`st.relaxed.sys.b8`), so these are single instructions: inline
// PTX when pinned, a volatile byte access when movable.

#if GSHMEM_IN_DEVICE_CODE
#define GSHMEMI_LD8_ASM(sem, scope, clobber)                                                  \
  asm volatile("ld." sem "." scope ".b8 %0, [%1];" : "=r"(w) : "l"(p) : GSHMEMI_PTX_CLOBBER_##clobber)
#define GSHMEMI_ST8_ASM(sem, scope, clobber)                                                  \
  asm volatile("st." sem "." scope ".b8 [%0], %1;" ::"l"(p), "r"(w) : GSHMEMI_PTX_CLOBBER_##clobber)
#endif

template <memory_order O = memory_order::seq_cst, thread_scope S = thread_scope::system,
          compiler_order C = compiler_order::pinned>
GSHMEM_HD unsigned char atomic_load8(const unsigned char* p) {
  static_assert(is_load_order(O), "a load cannot have release or acq_rel order");
  GSHMEMI_CHECK_COMPILER_ORDER;
#if GSHMEM_IN_DEVICE_CODE
  if constexpr (C == compiler_order::movable) {
    return movable_load(p);
  } else {
    unsigned int w;
    GSHMEMI_PTX_LOAD_SEM(GSHMEMI_LD8_ASM)
    return (unsigned char)w;
  }
#else
  return atomic_load<O, S>(p);
#endif
}

template <memory_order O = memory_order::seq_cst, thread_scope S = thread_scope::system,
          compiler_order C = compiler_order::pinned>
GSHMEM_HD void atomic_store8(unsigned char* p, unsigned char v) {
  static_assert(is_store_order(O), "a store cannot have acquire, consume or acq_rel order");
  GSHMEMI_CHECK_COMPILER_ORDER;
#if GSHMEM_IN_DEVICE_CODE
  if constexpr (C == compiler_order::movable) {
    movable_store(p, v);
  } else {
    const unsigned int w = v;
    GSHMEMI_PTX_STORE_SEM(GSHMEMI_ST8_ASM)
  }
#else
  atomic_store<O, S>(p, v);
#endif
}
#if GSHMEM_IN_DEVICE_CODE
#undef GSHMEMI_ST8_ASM
#undef GSHMEMI_LD8_ASM
#endif

// --------------------------------------------------------- 2-byte atomics
//
// The 16-bit accesses of the half-precision atomics (fetch, set, swap):
// single instructions, `ld/st.<sem>.<scope>.b16` and
// `atom.<sem>.<scope>.cas.b16` (sm_70+), where cuda::atomic_ref would
// build a 2-byte store and exchange from compare-and-swap loops on the
// enclosing word. Device only: the host has no use for them.
#if defined(__CUDACC__)
#if GSHMEM_IN_DEVICE_CODE
#define GSHMEMI_LD_B16_ASM(sem, scope, clobber)                                               \
  asm volatile("ld." sem "." scope ".b16 %0, [%1];" : "=h"(r) : "l"(p) : GSHMEMI_PTX_CLOBBER_##clobber)
#define GSHMEMI_ST_B16_ASM(sem, scope, clobber)                                               \
  asm volatile("st." sem "." scope ".b16 [%0], %1;" ::"l"(p), "h"(v) : GSHMEMI_PTX_CLOBBER_##clobber)
#define GSHMEMI_CAS_B16_ASM(sem, scope, clobber)                                              \
  asm volatile("atom." sem "." scope ".cas.b16 %0, [%1], %2, %3;"                           \
               : "=h"(r)                                                                      \
               : "l"(p), "h"(expected), "h"(desired)                                          \
               : GSHMEMI_PTX_CLOBBER_##clobber)
#endif
template <memory_order O = memory_order::seq_cst, thread_scope S = thread_scope::system>
__device__ unsigned short atomic_load_b16(const unsigned short* p) {
  static_assert(is_load_order(O), "a load cannot have release or acq_rel order");
  unsigned short r = 0;
#if GSHMEM_IN_DEVICE_CODE
  constexpr compiler_order C = compiler_order::pinned;
  GSHMEMI_PTX_LOAD_SEM(GSHMEMI_LD_B16_ASM)
#else
  (void)p;  // the host pass of a device function: never runs
#endif
  return r;
}
template <memory_order O = memory_order::seq_cst, thread_scope S = thread_scope::system>
__device__ void atomic_store_b16(unsigned short* p, unsigned short v) {
  static_assert(is_store_order(O), "a store cannot have acquire, consume or acq_rel order");
#if GSHMEM_IN_DEVICE_CODE
  constexpr compiler_order C = compiler_order::pinned;
  GSHMEMI_PTX_STORE_SEM(GSHMEMI_ST_B16_ASM)
#else
  (void)p, (void)v;
#endif
}
// Returns the value found; the store happened when it equals `expected`.
template <memory_order O = memory_order::seq_cst, thread_scope S = thread_scope::system>
__device__ unsigned short atomic_compare_exchange_b16(unsigned short* p, unsigned short expected,
                                                      unsigned short desired) {
  unsigned short r = expected;
#if GSHMEM_IN_DEVICE_CODE
  constexpr compiler_order C = compiler_order::pinned;
  GSHMEMI_PTX_RMW_SEM(GSHMEMI_CAS_B16_ASM)
#else
  (void)p, (void)desired;
#endif
  return r;
}
// Exchange of 2 bytes: PTX has no atom.exch.b16, so a compare-and-swap loop
// (one round trip when nobody else writes the element meanwhile).
template <memory_order O = memory_order::seq_cst, thread_scope S = thread_scope::system>
__device__ unsigned short atomic_exchange_b16(unsigned short* p, unsigned short v) {
  unsigned short seen = atomic_load_b16<memory_order::relaxed, S>(p);
  for (;;) {
    const unsigned short found = atomic_compare_exchange_b16<O, S>(p, seen, v);
    if (found == seen) return found;
    seen = found;
  }
}
#if GSHMEM_IN_DEVICE_CODE
#undef GSHMEMI_CAS_B16_ASM
#undef GSHMEMI_ST_B16_ASM
#undef GSHMEMI_LD_B16_ASM
#endif
#endif  // __CUDACC__

// ------------------------------------------------ floating-point bit access
//
// Float and double atomics that the GPU lacks (max, min, nan forms) are built
// from compare-and-swap on the bit pattern; these give the integer twin.
template <class T>
using float_bits_t = typename std::conditional<sizeof(T) == 4, unsigned int, unsigned long long>::type;

// ------------------------------------------------------------------ clocks

// Nanoseconds from a clock that all threads of the calling processor share
// (%globaltimer on the GPU, steady_clock on the host). Used for timeouts only.
GSHMEM_HD unsigned long long now_ns() {
#if GSHMEM_IN_DEVICE_CODE
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)::"memory");
  return t;
#else
  return (unsigned long long)std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch()).count();
#endif
}

#if GSHMEM_IN_DEVICE_CODE
#ifdef GSHMEMI_FENCE_ASM
#undef GSHMEMI_FENCE_ASM
#endif
#undef GSHMEMI_PTX_RED_SEM
#undef GSHMEMI_PTX_RMW_SEM
#undef GSHMEMI_PTX_STORE_SEM
#undef GSHMEMI_PTX_LOAD_SEM
#undef GSHMEMI_PTX_CLOBBER
#undef GSHMEMI_PTX_SCOPE
#undef GSHMEMI_PTX_CLOBBER_movable
#undef GSHMEMI_PTX_CLOBBER_pinned
#endif
#undef GSHMEMI_CHECK_COMPILER_ORDER

}  // namespace detail
}  // namespace gshmem
