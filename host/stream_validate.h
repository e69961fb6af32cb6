// Argument checks of the on-stream routines, as pure functions.
//
// Each returns a Verdict: GSHMEM_SUCCESS, or a GSHMEMX_ERROR_* code with a
// short text naming the problem. The routines in stream.cpp run every check
// before enqueuing anything and log the first failure with the routine's
// name; the CPU tests call these directly with a made-up heap range.
#pragma once

#include <gshmem/detail/sync_core.h>
#include <gshmem/runtime.h>
#include <gshmem/types.h>

#include <cstddef>
#include <cstdint>

namespace gshmemi {
namespace stream {

struct Verdict {
  int code = GSHMEM_SUCCESS;
  const char *problem = "";
  bool ok() const { return code == GSHMEM_SUCCESS; }
};

constexpr Verdict fail(int code, const char *problem) { return Verdict{code, problem}; }

// The part of this PE's symmetric heap that user objects may occupy, and
// the registered buffers beyond it (gshmemx_buffer_register_symmetric):
// `registered`, when set, says whether a range lies inside one of them.
struct HeapRange {
  std::uintptr_t base = 0;
  std::uint64_t size = 0;
  bool (*registered)(std::uintptr_t address, std::uint64_t bytes) = nullptr;
};

inline Verdict check_initialized(bool initialized) {
  return initialized ? Verdict{} : fail(GSHMEMX_ERROR_NOT_INITIALIZED, "called before gshmem_init or after gshmem_finalize");
}

inline Verdict check_cmp(int cmp) {
  return gshmem::detail::is_valid_cmp(cmp)
             ? Verdict{}
             : fail(GSHMEMX_ERROR_INVALID_VALUE, "cmp is not one of GSHMEM_CMP_EQ/NE/GT/GE/LT/LE");
}

inline Verdict check_sig_op(int sig_op) {
  return (sig_op == GSHMEM_SIGNAL_SET || sig_op == GSHMEM_SIGNAL_ADD)
             ? Verdict{}
             : fail(GSHMEMX_ERROR_INVALID_VALUE, "sig_op is not GSHMEM_SIGNAL_SET or GSHMEM_SIGNAL_ADD");
}

// [p, p + bytes) inside the heap range or one registered buffer (bytes >
// 0), without overflow.
inline bool in_range(const void *p, std::size_t bytes, HeapRange heap) {
  const std::uintptr_t a = reinterpret_cast<std::uintptr_t>(p);
  if (heap.size != 0 && a >= heap.base) {
    const std::uint64_t offset = a - heap.base;
    if (offset < heap.size && bytes <= heap.size - offset) return true;
  }
  return heap.registered != nullptr && heap.registered(a, bytes);
}

// nelems objects of elem_size bytes at p: NULL only when nelems == 0; then
// every byte in the heap and p aligned to `alignment`.
inline Verdict check_symmetric_array(const void *p, std::size_t nelems, std::size_t elem_size,
                                     std::size_t alignment, HeapRange heap, const char *what_null,
                                     const char *what_outside, const char *what_misaligned) {
  if (nelems == 0) return Verdict{};
  if (p == nullptr) return fail(GSHMEMX_ERROR_INVALID_VALUE, what_null);
  if (elem_size != 0 && nelems > SIZE_MAX / elem_size)
    return fail(GSHMEMX_ERROR_INVALID_VALUE, "nelems * element size overflows");
  if (reinterpret_cast<std::uintptr_t>(p) % alignment != 0)
    return fail(GSHMEMX_ERROR_MISALIGNED, what_misaligned);
  if (!in_range(p, nelems * elem_size, heap)) return fail(GSHMEMX_ERROR_NOT_SYMMETRIC, what_outside);
  return Verdict{};
}

// One wait object (ivar, sig_addr).
inline Verdict check_ivar(const void *ivar, std::size_t size, HeapRange heap) {
  if (ivar == nullptr) return fail(GSHMEMX_ERROR_INVALID_VALUE, "ivar is NULL");
  return check_symmetric_array(ivar, 1, size, size, heap, "ivar is NULL",
                               "ivar is not in the symmetric heap (use gshmem_malloc memory or a registered buffer)",
                               "ivar is not aligned to its type's size");
}

inline Verdict check_ivars(const void *ivars, std::size_t nelems, std::size_t size, HeapRange heap) {
  return check_symmetric_array(ivars, nelems, size, size, heap, "ivars is NULL with nelems > 0",
                               "ivars[0..nelems) is not inside the symmetric heap",
                               "ivars is not aligned to its type's size");
}

// A device-side input/output array (status, cmp_values, indices, result).
inline Verdict check_device_array(const void *p, std::size_t nelems, std::size_t alignment,
                                  const char *what_null, const char *what_misaligned) {
  if (nelems == 0) return Verdict{};
  if (p == nullptr) return fail(GSHMEMX_ERROR_INVALID_VALUE, what_null);
  if (reinterpret_cast<std::uintptr_t>(p) % alignment != 0)
    return fail(GSHMEMX_ERROR_MISALIGNED, what_misaligned);
  return Verdict{};
}

// The stream must belong to the device that holds this PE's heap.
inline Verdict check_stream_device(int stream_device, int heap_device) {
  return stream_device == heap_device
             ? Verdict{}
             : fail(GSHMEMX_ERROR_INVALID_STREAM, "stream belongs to another device than this PE's");
}

// reachable: pe's heap is mapped here; remote: pe is a remote peer
// (docs/remote.md), reached through the proxy (host/remote_ops.h).
inline Verdict check_pe(int pe, int n_pes, bool reachable, bool remote = false) {
  if (pe < 0 || pe >= n_pes) return fail(GSHMEMX_ERROR_INVALID_PE, "pe is out of range [0, n_pes)");
  if (!reachable && !remote) return fail(GSHMEMX_ERROR_INVALID_PE, "pe's heap is not mapped here (not reachable by P2P)");
  return Verdict{};
}

// Whether pe is a remote peer of the job whose state is `state`: in the
// job, its heap not mapped here, and the job has the proxy queue.
inline bool in_job(const gshmemi_device_state_t &state, int pe) {
  return pe >= 0 && pe < state.n_pes && pe < GSHMEMI_MAX_PES;
}
inline bool is_remote_target(const gshmemi_device_state_t &state, int pe) {
  return in_job(state, pe) && state.peer_base[pe] == nullptr && state.proxy.slots != nullptr;
}

// check_pe for a target of the job whose state is `state`.
inline Verdict check_target(const gshmemi_device_state_t &state, int pe) {
  const bool mapped = in_job(state, pe) && state.peer_base[pe] != nullptr;
  return check_pe(pe, state.n_pes, mapped, is_remote_target(state, pe));
}

}  // namespace stream
}  // namespace gshmemi
