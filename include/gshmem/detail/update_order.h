// Which memory orders and scopes each remote operation can have.
//
// One table serves three checks: the static_asserts of the template API
// (compile time), the run-time API on the device (diagnostic + trap) and the
// host function gshmemx_validate_order (an error code and a message).
// Host and device.
#pragma once

#include <gshmem/detail/config.h>
#include <gshmem/detail/ordering.h>
#include <gshmem/runtime.h>

/* Operation codes for gshmemx_validate_order and the run-time C++ forms. */
#define GSHMEMX_OP_LOAD             0
#define GSHMEMX_OP_STORE            1
#define GSHMEMX_OP_EXCHANGE         2
#define GSHMEMX_OP_COMPARE_EXCHANGE 3
#define GSHMEMX_OP_FETCH_ADD        4
#define GSHMEMX_OP_FETCH_SUB        5
#define GSHMEMX_OP_FETCH_AND        6
#define GSHMEMX_OP_FETCH_OR         7
#define GSHMEMX_OP_FETCH_XOR        8
#define GSHMEMX_OP_FETCH_MAX        9
#define GSHMEMX_OP_FETCH_MIN        10
#define GSHMEMX_OP_FETCH_NANMAX     11
#define GSHMEMX_OP_FETCH_NANMIN     12
#define GSHMEMX_OP_FENCE            13
#define GSHMEMX_OP_COUNT            14

/* Memory orders (the values of gshmem::memory_order). */
#define GSHMEMX_ORDER_RELAXED 0
#define GSHMEMX_ORDER_CONSUME 1 /* treated as acquire */
#define GSHMEMX_ORDER_ACQUIRE 2
#define GSHMEMX_ORDER_RELEASE 3
#define GSHMEMX_ORDER_ACQ_REL 4
#define GSHMEMX_ORDER_SEQ_CST 5

/* Thread scopes (the values of gshmem::thread_scope). */
#define GSHMEMX_SCOPE_THREAD 0
#define GSHMEMX_SCOPE_BLOCK  1
#define GSHMEMX_SCOPE_DEVICE 2
#define GSHMEMX_SCOPE_SYSTEM 3

namespace gshmem {
namespace detail {

static_assert((int)memory_order::seq_cst == GSHMEMX_ORDER_SEQ_CST, "order codes follow the enum");
static_assert((int)thread_scope::system == GSHMEMX_SCOPE_SYSTEM, "scope codes follow the enum");

// Loads take relaxed/consume/acquire/seq_cst; stores relaxed/release/seq_cst;
// read-modify-writes any order; fences any order but relaxed. Every scope is
// allowed for every operation (a scope narrower than system on a peer's
// memory is legal but promises nothing about that peer's threads).
GSHMEM_HD constexpr bool op_order_valid(int op, int order) {
  if (order < GSHMEMX_ORDER_RELAXED || order > GSHMEMX_ORDER_SEQ_CST) return false;
  switch (op) {
    case GSHMEMX_OP_LOAD: return is_load_order((memory_order)order);
    case GSHMEMX_OP_STORE: return is_store_order((memory_order)order);
    case GSHMEMX_OP_FENCE: return is_fence_order((memory_order)order);
    default: return op >= 0 && op < GSHMEMX_OP_COUNT;
  }
}

GSHMEM_HD constexpr bool scope_valid(int scope) {
  return scope >= GSHMEMX_SCOPE_THREAD && scope <= GSHMEMX_SCOPE_SYSTEM;
}

// NULL when (op, order, scope) is valid, else why not (a static string).
GSHMEM_HD constexpr const char *order_error_message(int op, int order, int scope) {
  if (op < 0 || op >= GSHMEMX_OP_COUNT) return "unknown operation code";
  if (!scope_valid(scope)) return "unknown thread scope (valid: thread, block, device, system)";
  if (order < GSHMEMX_ORDER_RELAXED || order > GSHMEMX_ORDER_SEQ_CST)
    return "unknown memory order (valid: relaxed, consume, acquire, release, acq_rel, seq_cst)";
  if (op_order_valid(op, order)) return nullptr;
  switch (op) {
    case GSHMEMX_OP_LOAD: return "a load cannot have release or acq_rel order";
    case GSHMEMX_OP_STORE: return "a store cannot have consume, acquire or acq_rel order";
    default: return "a fence cannot have relaxed order";
  }
}

}  // namespace detail
}  // namespace gshmem

/* Checks that operation `op` (GSHMEMX_OP_*) can have memory order `order`
 * (GSHMEMX_ORDER_*) and scope `scope` (GSHMEMX_SCOPE_*). Returns
 * GSHMEM_SUCCESS (0) or GSHMEMX_ERROR_INVALID_VALUE (-2); the reason is
 * gshmemx_validate_order_message(op, order, scope). Host and device; no
 * memory access, no ordering. */
GSHMEM_HD int gshmemx_validate_order(int op, int order, int scope) {
  return gshmem::detail::order_error_message(op, order, scope) ? GSHMEMX_ERROR_INVALID_VALUE
                                                                    : GSHMEM_SUCCESS;
}

/* Why (op, order, scope) is invalid, or NULL when it is valid. Host and device. */
GSHMEM_HD const char *gshmemx_validate_order_message(int op, int order, int scope) {
  return gshmem::detail::order_error_message(op, order, scope);
}
