// The C++ interface to remote atomics: operations on a symmetric object at a
// PE with an explicit memory order and thread scope.
//
//   gshmem::atomic_fetch_add<gshmem::memory_order::relaxed>(&counter, 1ull, pe);
//   gshmem::atomic_store<gshmem::memory_order::release>(&flag, 1, pe);
//   T v = gshmem::atomic_load<gshmem::memory_order::acquire,
//                             gshmem::thread_scope::system>(&x, pe);
//
// Defaults: seq_cst, system. Orders: relaxed, consume (as acquire), acquire,
// release, acq_rel, seq_cst; loads cannot be release/acq_rel, stores cannot
// be consume/acquire/acq_rel, fences cannot be relaxed: with order and scope
// as template arguments that is a compile-time error (static_assert); the
// overloads that take them as trailing run-time arguments print one
// diagnostic line and trap (check first on the host with
// gshmemx_validate_order). The ordering guarantee of each operation is
// exactly its order at its scope, as in the C++/CUDA memory model, towards
// every thread within the scope (system: all PEs and the host).
//
// Sizes: load, store, exchange and compare_exchange take trivially copyable
// objects of 1, 2, 4, 8 or 16 bytes, each single-copy atomic as a whole (16:
// the sm_90 128-bit atomic instructions, so a 16-byte load or store costs a
// round trip like a read-modify-write); add and sub take a 4- or 8-byte
// integer or float/double (floating: atom.add.f32/.f64); and, or, xor a 4- or
// 8-byte integer; max, min, nanmax, nanmin a 4- or 8-byte integer or
// float/double (floating: a compare-and-swap loop on the bit pattern that
// keeps the requested order even when the value does not change). Device only.
//
// A remote peer (docs/remote.md): 4- and 8-byte objects through the proxy,
// with the order mapped as detail/remote_amo.h says; 1-, 2- and 16-byte
// objects have no remote form (a diagnostic line and a trap).
#pragma once

#include <gshmem/detail/config.h>
#include <gshmem/detail/ordering.h>
#include <gshmem/detail/remote_amo.h>
#include <gshmem/detail/update_access.h>
#include <gshmem/detail/update_amo.h>
#include <gshmem/detail/update_order.h>
#include <gshmem/detail/type_traits.h>

#include <type_traits>

#if defined(__CUDACC__)
namespace gshmem {

namespace detail {

template <memory_order O> using order_c = std::integral_constant<memory_order, O>;
template <thread_scope S> using scope_c = std::integral_constant<thread_scope, S>;

GSHMEM_DEVICE void trap_invalid_order(int op, memory_order o, thread_scope s, const char* routine,
                                      const char* why) {
#if GSHMEM_IN_DEVICE_CODE
  device_failure f;
  f.kind = GSHMEMI_FAIL_INVALID_ORDER;
  f.i0 = (int)o;
  f.i1 = (int)s;
  f.i2 = op;
  f.text = why;
  fail_device(routine, f);
#endif
}

// Calls f(order_c<O>, scope_c<S>) for the run-time (o, s). Instantiates only
// valid combinations (an invalid one, already trapped on, maps to seq_cst).
template <int Op, memory_order O, class F>
GSHMEM_DEVICE decltype(auto) dispatch_scope(thread_scope s, F& f) {
  constexpr memory_order V = op_order_valid(Op, (int)O) ? O : memory_order::seq_cst;
  switch (s) {
    case thread_scope::thread: return f(order_c<V>{}, scope_c<thread_scope::thread>{});
    case thread_scope::block: return f(order_c<V>{}, scope_c<thread_scope::block>{});
    case thread_scope::device: return f(order_c<V>{}, scope_c<thread_scope::device>{});
    default: return f(order_c<V>{}, scope_c<thread_scope::system>{});
  }
}

// An invalid (o, s) for operation Op: one diagnostic line and a trap.
template <int Op>
GSHMEM_DEVICE void check_order(memory_order o, thread_scope s, const char* routine) {
  if (const char* why = order_error_message(Op, (int)o, (int)s)) trap_invalid_order(Op, o, s, routine, why);
}

template <int Op, class F>
GSHMEM_DEVICE decltype(auto) dispatch_order(memory_order o, thread_scope s, const char* routine, F f) {
  check_order<Op>(o, s, routine);
  switch (o) {
    case memory_order::relaxed: return dispatch_scope<Op, memory_order::relaxed>(s, f);
    case memory_order::consume: return dispatch_scope<Op, memory_order::acquire>(s, f);
    case memory_order::acquire: return dispatch_scope<Op, memory_order::acquire>(s, f);
    case memory_order::release: return dispatch_scope<Op, memory_order::release>(s, f);
    case memory_order::acq_rel: return dispatch_scope<Op, memory_order::acq_rel>(s, f);
    default: return dispatch_scope<Op, memory_order::seq_cst>(s, f);
  }
}
}  // namespace detail

// ------------------------------------------------------------- load / store

// Loads *source as it is on PE `pe`, with order O at scope S.
template <memory_order O = memory_order::seq_cst, thread_scope S = thread_scope::system, class T>
GSHMEM_DEVICE T atomic_load(const T* source, int pe) {
  static_assert(detail::is_load_order(O), "a load cannot have release or acq_rel order");
  return detail::atomic_on_peer(
      source, pe, "gshmem::atomic_load", [](const T* target) { return detail::load_object<O, S>(target); },
      [&](auto) { return detail::remote_load(source, pe, O, "gshmem::atomic_load"); });
}

// Stores v into *dest on PE `pe`, with order O at scope S.
template <memory_order O = memory_order::seq_cst, thread_scope S = thread_scope::system, class T>
GSHMEM_DEVICE void atomic_store(T* dest, detail::nondeduced_t<T> v, int pe) {
  static_assert(detail::is_store_order(O), "a store cannot have consume, acquire or acq_rel order");
  detail::atomic_on_peer(
      dest, pe, "gshmem::atomic_store", [&](T* target) { detail::store_object<O, S>(target, v); },
      [&](auto) { detail::remote_store<T>(dest, v, pe, O, "gshmem::atomic_store"); });
}

// --------------------------------------------------- exchange / compare-exchange

// Replaces *dest on PE `pe` by v; returns the previous value. Order O at scope S.
template <memory_order O = memory_order::seq_cst, thread_scope S = thread_scope::system, class T>
GSHMEM_DEVICE T atomic_exchange(T* dest, detail::nondeduced_t<T> v, int pe) {
  return detail::atomic_on_peer(
      dest, pe, "gshmem::atomic_exchange", [&](T* target) { return detail::addr_exchange<O, S>(target, v); },
      [&](auto) { return detail::remote_exchange<T>(dest, v, pe, O, "gshmem::atomic_exchange"); });
}

// If *dest on PE `pe` has the bit pattern of `expected`, stores `desired` and
// returns true (order O); otherwise copies the value found into `expected`
// and returns false (order O without its release part).
template <memory_order O = memory_order::seq_cst, thread_scope S = thread_scope::system, class T>
GSHMEM_DEVICE bool atomic_compare_exchange(T* dest, T& expected, detail::nondeduced_t<T> desired, int pe) {
  return detail::atomic_on_peer(
      dest, pe, "gshmem::atomic_compare_exchange",
      [&](T* target) { return detail::addr_compare_exchange<O, S>(target, expected, desired); },
      [&](auto) {
        return detail::remote_compare_exchange<T>(dest, expected, desired, pe, O, "gshmem::atomic_compare_exchange");
      });
}

// ------------------------------------------------------------- arithmetic
// atomic_fetch_<op>(dest, v, pe): *dest = op(*dest, v) on PE `pe`, returns the
// old value; atomic_<op>: the same without the result (add/and/or/xor become
// a single `red` for relaxed and release). Order O at scope S. max/min on
// floating point propagate NaN (numpy.maximum) and order -0.0 < +0.0;
// nanmax/nanmin treat NaN as missing (fmax/fmin; see update_arith.h).
#define GSHMEMI_CXX_FETCH_OP(op)                                                               \
  template <memory_order O = memory_order::seq_cst, thread_scope S = thread_scope::system,    \
            class T>                                                                           \
  GSHMEM_DEVICE T atomic_fetch_##op(T* dest, detail::nondeduced_t<T> v, int pe) {              \
    return detail::checked_fetch_##op<O, S, T>(dest, v, pe, "gshmem::atomic_fetch_" #op);         \
  }
GSHMEMI_CXX_FETCH_OP(add)
GSHMEMI_CXX_FETCH_OP(sub)
GSHMEMI_CXX_FETCH_OP(and)
GSHMEMI_CXX_FETCH_OP(or)
GSHMEMI_CXX_FETCH_OP(xor)
GSHMEMI_CXX_FETCH_OP(max)
GSHMEMI_CXX_FETCH_OP(min)
GSHMEMI_CXX_FETCH_OP(nanmax)
GSHMEMI_CXX_FETCH_OP(nanmin)
#undef GSHMEMI_CXX_FETCH_OP

#define GSHMEMI_CXX_REDUCE_OP(op)                                                               \
  template <memory_order O = memory_order::seq_cst, thread_scope S = thread_scope::system,     \
            class T>                                                                            \
  GSHMEM_DEVICE void atomic_##op(T* dest, detail::nondeduced_t<T> v, int pe) {                  \
    detail::on_peer(                                                                              \
        dest, pe, "gshmem::atomic_" #op, [&](T* target) { detail::addr_##op<O, S>(target, v); },  \
        [&] { (void)detail::remote_fetch_##op<T>(dest, v, pe, false, O, "gshmem::atomic_" #op); }); \
  }
GSHMEMI_CXX_REDUCE_OP(add)
GSHMEMI_CXX_REDUCE_OP(and)
GSHMEMI_CXX_REDUCE_OP(or)
GSHMEMI_CXX_REDUCE_OP(xor)
#undef GSHMEMI_CXX_REDUCE_OP

#define GSHMEMI_CXX_DROP_RESULT_OP(op)                                                          \
  template <memory_order O = memory_order::seq_cst, thread_scope S = thread_scope::system,     \
            class T>                                                                            \
  GSHMEM_DEVICE void atomic_##op(T* dest, detail::nondeduced_t<T> v, int pe) {                  \
    detail::on_peer(                                                                              \
        dest, pe, "gshmem::atomic_" #op,                                                          \
        [&](T* target) { (void)detail::addr_fetch_##op<O, S>(target, v); },                       \
        [&] { (void)detail::remote_fetch_##op<T>(dest, v, pe, false, O, "gshmem::atomic_" #op); }); \
  }
GSHMEMI_CXX_DROP_RESULT_OP(sub)
GSHMEMI_CXX_DROP_RESULT_OP(max)
GSHMEMI_CXX_DROP_RESULT_OP(min)
GSHMEMI_CXX_DROP_RESULT_OP(nanmax)
GSHMEMI_CXX_DROP_RESULT_OP(nanmin)
#undef GSHMEMI_CXX_DROP_RESULT_OP

// ------------------------------------------------------------------ fence

// A fence of order O at scope S for the calling thread (fence.<sem>.<scope>;
// seq_cst -> fence.sc, the others -> fence.acq_rel).
template <memory_order O = memory_order::seq_cst, thread_scope S = thread_scope::system>
GSHMEM_DEVICE void atomic_fence() {
  static_assert(detail::is_fence_order(O), "a fence cannot have relaxed order");
  detail::atomic_fence<O, S>();
}

// ---------------------------------------------- run-time order and scope
// The same operations with order and scope as values. An invalid pair prints
// one line (PE, routine, order, scope, reason) and traps.

// Each translates its target once; a remote peer's branch (order checked,
// then the remote form with the order as a value) stays outside the dispatch
// over orders and scopes, which holds only the P2P access.
template <class T>
GSHMEM_DEVICE T atomic_load(const T* source, int pe, memory_order o, thread_scope s = thread_scope::system) {
  const char* routine = "gshmem::atomic_load";
  return detail::atomic_on_peer(
      source, pe, routine,
      [&](const T* target) {
        return detail::dispatch_order<GSHMEMX_OP_LOAD>(o, s, routine, [&](auto oc, auto sc) {
          return detail::load_object<decltype(oc)::value, decltype(sc)::value>(target);
        });
      },
      [&](auto) {
        detail::check_order<GSHMEMX_OP_LOAD>(o, s, routine);
        return detail::remote_load(source, pe, o, routine);
      });
}

template <class T>
GSHMEM_DEVICE void atomic_store(T* dest, detail::nondeduced_t<T> v, int pe, memory_order o,
                                thread_scope s = thread_scope::system) {
  const char* routine = "gshmem::atomic_store";
  detail::atomic_on_peer(
      dest, pe, routine,
      [&](T* target) {
        detail::dispatch_order<GSHMEMX_OP_STORE>(o, s, routine, [&](auto oc, auto sc) {
          detail::store_object<decltype(oc)::value, decltype(sc)::value>(target, v);
        });
      },
      [&](auto) {
        detail::check_order<GSHMEMX_OP_STORE>(o, s, routine);
        detail::remote_store<T>(dest, v, pe, o, routine);
      });
}

template <class T>
GSHMEM_DEVICE T atomic_exchange(T* dest, detail::nondeduced_t<T> v, int pe, memory_order o,
                                thread_scope s = thread_scope::system) {
  const char* routine = "gshmem::atomic_exchange";
  return detail::atomic_on_peer(
      dest, pe, routine,
      [&](T* target) {
        return detail::dispatch_order<GSHMEMX_OP_EXCHANGE>(o, s, routine, [&](auto oc, auto sc) {
          return detail::addr_exchange<decltype(oc)::value, decltype(sc)::value>(target, v);
        });
      },
      [&](auto) {
        detail::check_order<GSHMEMX_OP_EXCHANGE>(o, s, routine);
        return detail::remote_exchange<T>(dest, v, pe, o, routine);
      });
}

template <class T>
GSHMEM_DEVICE bool atomic_compare_exchange(T* dest, T& expected, detail::nondeduced_t<T> desired, int pe,
                                           memory_order o, thread_scope s = thread_scope::system) {
  const char* routine = "gshmem::atomic_compare_exchange";
  return detail::atomic_on_peer(
      dest, pe, routine,
      [&](T* target) {
        return detail::dispatch_order<GSHMEMX_OP_COMPARE_EXCHANGE>(o, s, routine, [&](auto oc, auto sc) {
          return detail::addr_compare_exchange<decltype(oc)::value, decltype(sc)::value>(target, expected, desired);
        });
      },
      [&](auto) {
        detail::check_order<GSHMEMX_OP_COMPARE_EXCHANGE>(o, s, routine);
        return detail::remote_compare_exchange<T>(dest, expected, desired, pe, o, routine);
      });
}

#define GSHMEMI_CXX_RT_FETCH_OP(op, OPCODE)                                                       \
  template <class T>                                                                               \
  GSHMEM_DEVICE T atomic_fetch_##op(T* dest, detail::nondeduced_t<T> v, int pe, memory_order o,    \
                                    thread_scope s = thread_scope::system) {                      \
    const char* routine = "gshmem::atomic_fetch_" #op;                                            \
    return detail::on_peer(                                                                        \
        dest, pe, routine,                                                                         \
        [&](T* target) {                                                                           \
          return detail::dispatch_order<OPCODE>(o, s, routine, [&](auto oc, auto sc) {            \
            return detail::addr_fetch_##op<decltype(oc)::value, decltype(sc)::value>(target, v);  \
          });                                                                                      \
        },                                                                                         \
        [&] {                                                                                      \
          detail::check_order<OPCODE>(o, s, routine);                                              \
          return detail::remote_fetch_##op<T>(dest, v, pe, true, o, routine);                      \
        });                                                                                        \
  }
GSHMEMI_CXX_RT_FETCH_OP(add, GSHMEMX_OP_FETCH_ADD)
GSHMEMI_CXX_RT_FETCH_OP(sub, GSHMEMX_OP_FETCH_SUB)
GSHMEMI_CXX_RT_FETCH_OP(and, GSHMEMX_OP_FETCH_AND)
GSHMEMI_CXX_RT_FETCH_OP(or, GSHMEMX_OP_FETCH_OR)
GSHMEMI_CXX_RT_FETCH_OP(xor, GSHMEMX_OP_FETCH_XOR)
GSHMEMI_CXX_RT_FETCH_OP(max, GSHMEMX_OP_FETCH_MAX)
GSHMEMI_CXX_RT_FETCH_OP(min, GSHMEMX_OP_FETCH_MIN)
GSHMEMI_CXX_RT_FETCH_OP(nanmax, GSHMEMX_OP_FETCH_NANMAX)
GSHMEMI_CXX_RT_FETCH_OP(nanmin, GSHMEMX_OP_FETCH_NANMIN)
#undef GSHMEMI_CXX_RT_FETCH_OP

GSHMEM_DEVICE void atomic_fence(memory_order o, thread_scope s = thread_scope::system) {
  detail::dispatch_order<GSHMEMX_OP_FENCE>(o, s, "gshmem::atomic_fence", [&](auto oc, auto sc) {
    atomic_fence<decltype(oc)::value, decltype(sc)::value>();
  });
}

}  // namespace gshmem
#endif  // __CUDACC__
