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
