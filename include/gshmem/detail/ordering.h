// The ordering layer: the only place in gshmem where memory accesses get
// their order and scope.
//
// Every access with semantics (polls, flag stores, remote atomics, fences)
// goes through these functions. They map (memory_order x thread_scope) onto
// cuda::atomic_ref, which lowers to exactly one PTX instruction with the
// matching qualifiers (ld.acquire.sys, st.release.sys, atom.add.relaxed.sys,
// fence.acq_rel.sys, ...). The same functions compile for the host, where
// they become the host compiler's atomics: that is how the CPU test suite
// runs the device algorithms with host threads playing the remote PEs.
//
// Order and scope are template parameters; an order an operation cannot have
// (a release load, an acquire store) is rejected at compile time.
#pragma once

#include <gshmem/detail/config.h>

#include <cuda/atomic>
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

// ---------------------------------------------------------------- loads/stores

template <memory_order O = memory_order::seq_cst, thread_scope S = thread_scope::system, class T>
GSHMEM_HD T atomic_load(const T* p) {
  static_assert(is_load_order(O), "a load cannot have release or acq_rel order");
  return ref<T, S>(p).load(to_cuda(O));
}

template <memory_order O = memory_order::seq_cst, thread_scope S = thread_scope::system, class T>
GSHMEM_HD void atomic_store(T* p, T v) {
  static_assert(is_store_order(O), "a store cannot have acquire, consume or acq_rel order");
  ref<T, S>(p).store(v, to_cuda(O));
}

// ------------------------------------------------------------ read-modify-write

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

// --------------------------------------------------------------------- fences

template <memory_order O = memory_order::seq_cst, thread_scope S = thread_scope::system>
GSHMEM_HD void atomic_fence() {
  static_assert(is_fence_order(O), "a relaxed fence orders nothing");
  cuda::atomic_thread_fence(to_cuda(O), cuda_scope<S>::value);
}

// ------------------------------------------------- no-return updates (red)
//
// A read-modify-write whose old value nobody reads. On the GPU this is one
// `red.<sem>.<scope>.<op>` instruction: the issuing thread does not wait for
// the old value to travel back over NVLink, so it costs a store, not a round
// trip. Orders: relaxed and release (the only ones `red` has); any other
// order falls back to the fetching form, whose result is dropped.

enum class reduce_op : int { add, and_, or_, xor_ };

namespace reduce_detail {
template <class T>
using uint_of = typename std::conditional<sizeof(T) == 4, unsigned int, unsigned long long>::type;
}  // namespace reduce_detail

#if GSHMEM_IN_DEVICE_CODE
#define GSHMEMI_RED_ASM(sem, scope, op, w, cons)                                             \
  asm volatile("red." sem "." scope "." op "." w " [%0], %1;" ::"l"(p), cons(u) : "memory")
#define GSHMEMI_RED_SCOPES(sem, op, w, cons)                                                  \
  if constexpr (S == thread_scope::system) GSHMEMI_RED_ASM(sem, "sys", op, w, cons);          \
  else if constexpr (S == thread_scope::device) GSHMEMI_RED_ASM(sem, "gpu", op, w, cons);     \
  else GSHMEMI_RED_ASM(sem, "cta", op, w, cons);
#define GSHMEMI_RED_SEMS(op, w, cons)                                                         \
  if constexpr (O == memory_order::release) { GSHMEMI_RED_SCOPES("release", op, w, cons) }    \
  else { GSHMEMI_RED_SCOPES("relaxed", op, w, cons) }
#endif

template <reduce_op Op, memory_order O = memory_order::relaxed,
          thread_scope S = thread_scope::system, class T>
GSHMEM_HD void atomic_reduce(T* p, T v) {
  static_assert(std::is_integral<T>::value && (sizeof(T) == 4 || sizeof(T) == 8),
                "atomic_reduce needs a 4- or 8-byte integral type");
#if GSHMEM_IN_DEVICE_CODE
  if constexpr (O == memory_order::relaxed || O == memory_order::release) {
    using U = reduce_detail::uint_of<T>;
    U u = (U)v;  // two's complement: signed and unsigned add are the same bits
    if constexpr (sizeof(T) == 4) {
      if constexpr (Op == reduce_op::add) { GSHMEMI_RED_SEMS("add", "u32", "r") }
      else if constexpr (Op == reduce_op::and_) { GSHMEMI_RED_SEMS("and", "b32", "r") }
      else if constexpr (Op == reduce_op::or_) { GSHMEMI_RED_SEMS("or", "b32", "r") }
      else { GSHMEMI_RED_SEMS("xor", "b32", "r") }
    } else {
      if constexpr (Op == reduce_op::add) { GSHMEMI_RED_SEMS("add", "u64", "l") }
      else if constexpr (Op == reduce_op::and_) { GSHMEMI_RED_SEMS("and", "b64", "l") }
      else if constexpr (Op == reduce_op::or_) { GSHMEMI_RED_SEMS("or", "b64", "l") }
      else { GSHMEMI_RED_SEMS("xor", "b64", "l") }
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
#undef GSHMEMI_RED_SEMS
#undef GSHMEMI_RED_SCOPES
#undef GSHMEMI_RED_ASM
#endif

// ------------------------------------------------------- 16-byte loads/stores
//
// Bulk copies move 16-byte units as one vector access
// (`ld.<sem>.<scope>.v2.b64`, `st.<sem>.<scope>.v2.b64`). The order applies to
// the access as a whole; the PTX memory model promises single-copy atomicity
// per 8-byte half only, so a racing reader may see halves from two writes:
// these are for copies, never for a 16-byte atomic object (see
// atomic_load128 below).
// seq_cst follows the PTX mapping of C++: `fence.sc` before the access.
// On the host the halves are two 8-byte atomics (the same guarantee).

struct alignas(16) wide16 { unsigned long long lo, hi; };

#if GSHMEM_IN_DEVICE_CODE
#define GSHMEMI_LD16_ASM(sem, scope)                                                          \
  asm volatile("ld." sem "." scope ".v2.b64 {%0, %1}, [%2];" : "=l"(r.lo), "=l"(r.hi) : "l"(p) \
               : "memory")
#define GSHMEMI_ST16_ASM(sem, scope)                                                          \
  asm volatile("st." sem "." scope ".v2.b64 [%0], {%1, %2};" ::"l"(p), "l"(v.lo), "l"(v.hi)   \
               : "memory")
#define GSHMEMI_WIDE_SCOPES(MAC, sem)                                                         \
  if constexpr (S == thread_scope::system) MAC(sem, "sys");                                   \
  else if constexpr (S == thread_scope::device) MAC(sem, "gpu");                              \
  else MAC(sem, "cta");
#endif

template <memory_order O = memory_order::seq_cst, thread_scope S = thread_scope::system>
GSHMEM_HD wide16 atomic_load16(const wide16* p) {
  static_assert(is_load_order(O), "a load cannot have release or acq_rel order");
#if GSHMEM_IN_DEVICE_CODE
  wide16 r;
  if constexpr (O == memory_order::seq_cst) atomic_fence<memory_order::seq_cst, S>();
  if constexpr (O == memory_order::relaxed) { GSHMEMI_WIDE_SCOPES(GSHMEMI_LD16_ASM, "relaxed") }
  else { GSHMEMI_WIDE_SCOPES(GSHMEMI_LD16_ASM, "acquire") }
  return r;
#else
  wide16 r;
  r.lo = atomic_load<O, S>(&p->lo);
  r.hi = atomic_load<O, S>(&p->hi);
  return r;
#endif
}

template <memory_order O = memory_order::seq_cst, thread_scope S = thread_scope::system>
GSHMEM_HD void atomic_store16(wide16* p, wide16 v) {
  static_assert(is_store_order(O), "a store cannot have acquire, consume or acq_rel order");
#if GSHMEM_IN_DEVICE_CODE
  if constexpr (O == memory_order::seq_cst) atomic_fence<memory_order::seq_cst, S>();
  if constexpr (O == memory_order::relaxed) { GSHMEMI_WIDE_SCOPES(GSHMEMI_ST16_ASM, "relaxed") }
  else { GSHMEMI_WIDE_SCOPES(GSHMEMI_ST16_ASM, "release") }
#else
  atomic_store<O, S>(&p->lo, v.lo);
  atomic_store<O, S>(&p->hi, v.hi);
#endif
}
#if GSHMEM_IN_DEVICE_CODE
#undef GSHMEMI_WIDE_SCOPES
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
// vector accesses above, which is why bulk copies keep those. seq_cst is
// `fence.sc` then the acquire form (the PTX mapping of C++ read-modify-writes).
// On the host they take one of 64 spin locks chosen by address, so host
// threads (the CPU tests) get the same indivisibility among themselves.

#if GSHMEM_IN_DEVICE_CODE
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
#define GSHMEMI_HAVE_ATOM128 1
#define GSHMEMI_CAS128_ASM(sem, scope)                                                         \
  asm volatile("{\n\t.reg .b128 d, b, c;\n\tmov.b128 b, {%2, %3};\n\tmov.b128 c, {%4, %5};\n\t"     \
               "atom." sem "." scope ".cas.b128 d, [%6], b, c;\n\tmov.b128 {%0, %1}, d;\n\t}"        \
               : "=l"(r.lo), "=l"(r.hi)                                                          \
               : "l"(expected.lo), "l"(expected.hi), "l"(desired.lo), "l"(desired.hi), "l"(p)    \
               : "memory")
#define GSHMEMI_EXCH128_ASM(sem, scope)                                                        \
  asm volatile("{\n\t.reg .b128 d, b;\n\tmov.b128 b, {%2, %3};\n\t"                             \
               "atom." sem "." scope ".exch.b128 d, [%4], b;\n\tmov.b128 {%0, %1}, d;\n\t}"          \
               : "=l"(r.lo), "=l"(r.hi)                                                          \
               : "l"(v.lo), "l"(v.hi), "l"(p)                                                    \
               : "memory")
#define GSHMEMI_ATOM128_SCOPES(MAC, sem)                                                       \
  if constexpr (S == thread_scope::system) MAC(sem, "sys");                                   \
  else if constexpr (S == thread_scope::device) MAC(sem, "gpu");                              \
  else MAC(sem, "cta");
#define GSHMEMI_ATOM128_SEMS(MAC)                                                              \
  if constexpr (O == memory_order::seq_cst) atomic_fence<memory_order::seq_cst, S>();          \
  if constexpr (O == memory_order::relaxed) { GSHMEMI_ATOM128_SCOPES(MAC, "relaxed") }        \
  else if constexpr (O == memory_order::release) { GSHMEMI_ATOM128_SCOPES(MAC, "release") }   \
  else if constexpr (O == memory_order::acq_rel) { GSHMEMI_ATOM128_SCOPES(MAC, "acq_rel") }   \
  else { GSHMEMI_ATOM128_SCOPES(MAC, "acquire") }
// Half-precision add, `atom.<sem>.<scope>.add.noftz.f16` (sm_70+), on the
// bit pattern so that this header needs no <cuda_fp16.h>. Device only.
#define GSHMEMI_ADD_F16_ASM(sem, scope)                                                        \
  asm volatile("atom." sem "." scope ".add.noftz.f16 %0, [%1], %2;"                             \
               : "=h"(r)                                                                         \
               : "l"(p), "h"(v)                                                                  \
               : "memory")
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
  unsigned short r;
  GSHMEMI_ATOM128_SEMS(GSHMEMI_ADD_F16_ASM)
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
  wide16 r;
  GSHMEMI_ATOM128_SEMS(GSHMEMI_CAS128_ASM)
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
  wide16 r;
  GSHMEMI_ATOM128_SEMS(GSHMEMI_EXCH128_ASM)
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
#undef GSHMEMI_ATOM128_SEMS
#undef GSHMEMI_ATOM128_SCOPES
#undef GSHMEMI_EXCH128_ASM
#undef GSHMEMI_CAS128_ASM
#endif

// --------------------------------------------------------- 1-byte loads/stores
//
// cuda::atomic_ref stores a byte with a compare-and-swap loop on the
// enclosing word (two round trips over NVLink). PTX has byte-wide strong
// accesses (`st.relaxed.sys.b8`), so these are single instructions.

#if GSHMEM_IN_DEVICE_CODE
#define GSHMEMI_LD8_ASM(sem, scope)                                                           \
  asm volatile("ld." sem "." scope ".b8 %0, [%1];" : "=r"(r) : "l"(p) : "memory")
#define GSHMEMI_ST8_ASM(sem, scope)                                                           \
  asm volatile("st." sem "." scope ".b8 [%0], %1;" ::"l"(p), "r"(w) : "memory")
#define GSHMEMI_BYTE_SCOPES(MAC, sem)                                                         \
  if constexpr (S == thread_scope::system) MAC(sem, "sys");                                   \
  else if constexpr (S == thread_scope::device) MAC(sem, "gpu");                              \
  else MAC(sem, "cta");
#endif

template <memory_order O = memory_order::seq_cst, thread_scope S = thread_scope::system>
GSHMEM_HD unsigned char atomic_load8(const unsigned char* p) {
  static_assert(is_load_order(O), "a load cannot have release or acq_rel order");
#if GSHMEM_IN_DEVICE_CODE
  unsigned int r;
  if constexpr (O == memory_order::seq_cst) atomic_fence<memory_order::seq_cst, S>();
  if constexpr (O == memory_order::relaxed) { GSHMEMI_BYTE_SCOPES(GSHMEMI_LD8_ASM, "relaxed") }
  else { GSHMEMI_BYTE_SCOPES(GSHMEMI_LD8_ASM, "acquire") }
  return (unsigned char)r;
#else
  return atomic_load<O, S>(p);
#endif
}

template <memory_order O = memory_order::seq_cst, thread_scope S = thread_scope::system>
GSHMEM_HD void atomic_store8(unsigned char* p, unsigned char v) {
  static_assert(is_store_order(O), "a store cannot have acquire, consume or acq_rel order");
#if GSHMEM_IN_DEVICE_CODE
  unsigned int w = v;
  if constexpr (O == memory_order::seq_cst) atomic_fence<memory_order::seq_cst, S>();
  if constexpr (O == memory_order::relaxed) { GSHMEMI_BYTE_SCOPES(GSHMEMI_ST8_ASM, "relaxed") }
  else { GSHMEMI_BYTE_SCOPES(GSHMEMI_ST8_ASM, "release") }
#else
  atomic_store<O, S>(p, v);
#endif
}
#if GSHMEM_IN_DEVICE_CODE
#undef GSHMEMI_BYTE_SCOPES
#undef GSHMEMI_ST8_ASM
#undef GSHMEMI_LD8_ASM
#endif

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

}  // namespace detail
}  // namespace gshmem
