// Counted writes: a put whose completion is announced by adding the number
// of bytes delivered to a 64-bit counter on the target, so that many
// producers (threads, warps, blocks, PEs) writing disjoint regions can share
// one counter, and the receiver waits for the sum of what it expects.
// The public names are in <gshmem/update_ext.h> (gshmemx_putmem_signal_
// counted*, gshmemx_signal_counted_*); NVSHMEM 3.8's in the compatibility
// layer. NVSHMEM offers them through its CUDA fabric transport only; here
// they are a put followed by a release add, on every GPU gshmem runs on.
//
// PTX mapping:
//   payload ............ st.relaxed.sys (as put; 16-byte vectors where aligned)
//   group's share ...... the group's barrier (bar.sync / bar.warp.sync)
//   counter ............ red.release.sys.global.add.u64 of the byte count, by one rank
//   load ............... ld.acquire.sys.b64
//   wait ............... ld.acquire.sys.b64 poll until (v - expected) mod 2^64 < 2^63
//   reset .............. st.relaxed.sys.b64 of 0 (device)
//   remote peer ........ one put_signal request, op ADD, signal = byte count
//                        (the proxy delivers the data before the add: P2, P3
//                        in detail/remote.h)
//
// ORDERING with several producers on one counter (the argument the stress
// test tests/update/test_counted_gpu.cu checks):
//  1. Within one producer: every rank of the group stores its share of the
//     payload, then the group synchronizes; the barrier orders those stores
//     (morally strong at CTA scope) before rank 0's later operations, and
//     the release add by rank 0 at system scope is cumulative: every store
//     that precedes it in rank 0's causality order, the other ranks' through
//     the barrier included, is visible to any thread that synchronizes with
//     the add. This is put_signal's argument (update_signal.h).
//  2. Across producers: the counter is only ever changed by atomic adds
//     (and by a reset that the program orders before the epoch starts).
//     In the PTX memory model each release add heads a release sequence
//     that contains every later read-modify-write of the counter in its
//     coherence order, whoever issues it. The receiver's acquire load
//     reads the value written by some add R; for every add A before R in the
//     counter's coherence order (and for R), R is in A's release sequence,
//     so the load synchronizes with A, and A's producer's payload is
//     visible to the receiver's later reads.
//  3. The value R wrote is the reset value plus the byte counts of exactly
//     the adds up to R. When the receiver sees the sum it expects, and no
//     producer adds bytes of a later epoch before the receiver has seen this
//     one (the program's flow control, e.g. an acknowledgement the producers
//     wait for), every add of the epoch is among them: every byte of every
//     region is visible.
//  4. The compare is modulo 2^64 on the difference: reached when
//     (value - expected) mod 2^64 < 2^63, NVSHMEM 3.8's rule, so a counter
//     that wraps past 2^64 keeps working as long as the receiver's
//     expectation never lags the counter by 2^63 bytes or more.
// Nothing orders two producers' payloads with each other: regions must be
// disjoint (overlapping regions leave the overlap's bytes unspecified).
#pragma once

#include <gshmem/detail/config.h>
#include <gshmem/detail/device_report.h>
#include <gshmem/detail/ordering.h>
#include <gshmem/detail/state.h>
#include <gshmem/detail/sync_scan.h>
#include <gshmem/detail/update_signal.h>
#include <gshmem/types.h>

#include <stddef.h>
#include <stdint.h>

namespace gshmem {
namespace detail {

// Whether counter value `value` has reached `expected`: the difference,
// modulo 2^64, is below 2^63 (so a value "ahead" by less than half the
// range counts, across a wrap of the counter too).
GSHMEM_HD constexpr bool counted_reached(uint64_t value, uint64_t expected) {
  return (uint64_t)(value - expected) < ((uint64_t)1 << 63);
}

// NVSHMEM 3.8's argument rules for nvshmemx_putmem_signal_counted_nbi_block
// (its counted_device.cuh, read for the rules only): what is wrong, if
// anything, in one verdict the compatibility layer turns into an error
// value and one report line.
enum class counted_problem : int {
  none = 0,
  bad_pe,             // pe outside [0, n_pes)
  dest_outside,       // [dest, dest + bytes) not inside the symmetric heap
  counter_outside,    // [counter, counter + 8) not inside the symmetric heap
  bad_source,         // NULL, not global or shared memory, or wraps the address space
  counter_in_dest,    // the counter lies inside the destination range
  unaligned_data,     // dest, source or bytes not a multiple of 16
  unaligned_counter,  // the counter's heap offset not a multiple of 256
};

GSHMEM_HD constexpr const char* counted_problem_text(counted_problem p) {
  return p == counted_problem::bad_pe            ? "the target PE is not a PE of the job"
         : p == counted_problem::dest_outside    ? "the destination range is not inside the symmetric heap"
         : p == counted_problem::counter_outside ? "the counter is not inside the symmetric heap"
         : p == counted_problem::bad_source      ? "the source is NULL, not device (global or shared) memory, or "
                                                   "wraps the address space"
         : p == counted_problem::counter_in_dest ? "the counter lies inside the destination range"
         : p == counted_problem::unaligned_data  ? "dest, source and the byte count must be multiples of 16"
         : p == counted_problem::unaligned_counter ? "the counter is not 256-byte aligned in the symmetric heap"
                                                   : "no problem";
}

// The verdict for a counted put of `bytes` from `source` to `dest` on PE
// `pe`, counter `counter`, against a heap of `span` symmetric bytes from
// `heap_base` and n_pes PEs; source_is_device: the source is in global or
// shared memory (the caller knows; the host tests pass true). Checks in
// NVSHMEM's order, so the same call gets the same verdict there and here.
GSHMEM_HD counted_problem counted_put_problem(const void* heap_base, unsigned long long span, int n_pes,
                                              const void* dest, const void* source, size_t bytes,
                                              const uint64_t* counter, int pe, bool source_is_device) {
  if (pe < 0 || pe >= n_pes) return counted_problem::bad_pe;
  const uintptr_t base = (uintptr_t)heap_base, d = (uintptr_t)dest, c = (uintptr_t)counter;
  if (dest == nullptr || d < base || d - base >= span || bytes > span - (d - base)) return counted_problem::dest_outside;
  if (counter == nullptr || c < base || c - base >= span || sizeof(uint64_t) > span - (c - base))
    return counted_problem::counter_outside;
  if (source == nullptr || !source_is_device || (uintptr_t)source + bytes < (uintptr_t)source)
    return counted_problem::bad_source;
  if (c >= d && c - d < bytes) return counted_problem::counter_in_dest;
  if ((d & 15u) != 0 || ((uintptr_t)source & 15u) != 0 || (bytes & 15u) != 0) return counted_problem::unaligned_data;
  if (((c - base) & 255u) != 0) return counted_problem::unaligned_counter;
  return counted_problem::none;
}

#if defined(__CUDACC__)
// A counted write by group g: putmem_signal_group with the byte count as an
// ADD signal (see ORDERING above). blocking: for a remote peer, whether the
// call waits until the proxy has carried the request out (the source is
// reusable); P2P stores are complete when issued either way.
template <class Group>
GSHMEM_DEVICE void putmem_signal_counted_group(void* dest, const void* source, size_t nbytes, uint64_t* counter,
                                               int pe, const Group& g, const char* routine, bool blocking) {
  putmem_signal_group(dest, source, nbytes, counter, (uint64_t)nbytes, GSHMEM_SIGNAL_ADD, pe, g, routine, blocking);
}

// NVSHMEM's checks on this PE's state: 0, or GSHMEMX_ERROR_INVALID_VALUE
// with one report line (printed by the runtime on the host, "gshmem: PE n:
// routine: what ...") when `reporter` (one thread of the calling group).
GSHMEM_DEVICE int check_counted_put(const void* dest, const void* source, size_t bytes, const uint64_t* counter,
                                    int pe, bool reporter, const char* routine) {
  const gshmemi_device_state_t& s = gshmemi_state();
  bool device_source = true;
#if GSHMEM_IN_DEVICE_CODE
  device_source = __isGlobal(source) || __isShared(source);
#endif
  const counted_problem p =
      counted_put_problem(s.heap_base, s.symmetric_span, s.n_pes, dest, source, bytes, counter, pe, device_source);
  if (__builtin_expect(p == counted_problem::none, 1)) return GSHMEM_SUCCESS;
  if (reporter) {
    device_failure f;
    f.kind = GSHMEMI_FAIL_INVALID_ARGUMENT;
    f.text = counted_problem_text(p);
    f.u0 = (unsigned long long)(p == counted_problem::counter_outside || p == counted_problem::unaligned_counter ||
                                        p == counted_problem::counter_in_dest
                                    ? (const void*)counter
                                : p == counted_problem::bad_source ? source
                                                                   : dest);
    f.u1 = bytes;
    f.i0 = pe;
    report_device_failure(routine, f);
  }
  return GSHMEMX_ERROR_INVALID_VALUE;
}
#endif

// Polls *counter with acquire loads until counted_reached(value, expected);
// returns that value. The loop is wait_one's (sync_scan.h): the watchdog
// between batches of polls, a timeout or a lost peer reported as a wait
// for "GE expected" (the modular compare is GE within half the range).
GSHMEM_HD uint64_t wait_counted(const wait_context& ctx, const char* routine, const uint64_t* counter,
                                uint64_t expected) {
  watchdog wd(true, ctx.timeout_ns, start_on_first_tick);
  for (;;) {
    uint64_t v = 0;
    GSHMEMI_NO_UNROLL
    for (unsigned left = kPollsPerWatchdogCheck; left != 0; --left) {
      v = poll_acquire(counter);
      if (counted_reached(v, expected)) return v;
    }
    if (wd.expired(kPollsPerWatchdogCheck)) fail_timeout(ctx, routine, counter, 0, 1, GSHMEM_CMP_GE, expected, v);
  }
}

}  // namespace detail
}  // namespace gshmem
