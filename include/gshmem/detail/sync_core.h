// Building blocks of the wait/test families: comparison, element access,
// diagnostics (invalid cmp, timeout), the timeout watchdog and the rotation
// cursor of the _any routines. Everything here compiles for the device (nvcc)
// and the host (any C++17 compiler): the CPU test suite runs the very same
// code with host threads playing the remote PEs.
#pragma once

#include <gshmem/detail/config.h>
#include <gshmem/detail/device_report.h>
#include <gshmem/detail/ordering.h>
#include <gshmem/detail/state.h>
#include <gshmem/types.h>

#include <stddef.h>
#include <stdint.h>
#include <type_traits>
#if !GSHMEM_IN_DEVICE_CODE
#include <atomic>
#include <cstdio>
#endif

#if defined(__CUDACC__)
#  define GSHMEMI_UNROLL _Pragma("unroll")
#  define GSHMEMI_NO_UNROLL _Pragma("unroll 1")
#elif defined(__clang__)
#  define GSHMEMI_UNROLL _Pragma("unroll")
#  define GSHMEMI_NO_UNROLL _Pragma("unroll 1")
#elif defined(__GNUC__)
#  define GSHMEMI_UNROLL _Pragma("GCC unroll 16")
#  define GSHMEMI_NO_UNROLL _Pragma("GCC unroll 1")
#else
#  define GSHMEMI_UNROLL
#  define GSHMEMI_NO_UNROLL
#endif

namespace gshmem {

// ---------------------------------------------------------- host diagnostics
//
// A wait/test routine that cannot go on (invalid cmp, a wait past the
// timeout) prints one line and traps. On the GPU that is printf + __trap().
// On the host the line goes to the handler installed here (stderr if none);
// if the handler returns, the process traps too. A handler may throw: the
// CPU tests install one that throws to observe the diagnostic.
enum class sync_failure { invalid_cmp, timeout, peer_lost };

struct sync_diagnostic {
  sync_failure kind;
  const char *routine;     // e.g. "gshmem_int_wait_until"
  int pe;                  // the calling PE
  int cmp;                 // the comparison operator passed in
  const void *address;     // the element reported (timeout), else the first argument
  size_t index;            // its index in the array (0 for single-element routines)
  size_t nelems;           // array length (1 for single-element routines)
  char expected[48];       // timeout, peer_lost: "<CMP> <value>", e.g. "GE 5"
  char seen[32];           // timeout, peer_lost: the last value seen at `address`
  int lost_pe;             // peer_lost: the PE whose process ended (else -1)
  char line[384];          // the full diagnostic line, as printed
};

#if !GSHMEM_IN_DEVICE_CODE
using sync_diagnostic_handler = void (*)(const sync_diagnostic &);

namespace detail {
inline std::atomic<sync_diagnostic_handler> &sync_handler_slot() {
  static std::atomic<sync_diagnostic_handler> slot{nullptr};
  return slot;
}
}  // namespace detail

// Installs `handler` for host-side wait/test failures; returns the previous
// one. nullptr restores the default (print to stderr, then trap).
inline sync_diagnostic_handler set_sync_diagnostic_handler(sync_diagnostic_handler handler) {
  return detail::sync_handler_slot().exchange(handler);
}
#endif

namespace detail {

// Who is waiting and for how long it may wait: the PE number goes into
// diagnostics; timeout_ns > 0 arms the watchdog. The public routines take it
// from the runtime state; tests may pass their own.
struct wait_context {
  int pe;
  unsigned long long timeout_ns;
};

// 1 + the PE whose process ended, or 0 while all peers live (or nobody
// watches): the word the runtime's liveness monitor raises (src/liveness.h).
GSHMEM_HD int peer_lost_word() {
  const int *word = gshmemi_state().peer_lost_word;
  return word ? atomic_load<memory_order::relaxed, thread_scope::system>(word) : 0;
}

// ---------------------------------------------------------------- comparison

GSHMEM_HD constexpr bool is_valid_cmp(int cmp) { return cmp >= GSHMEMI_CMP_FIRST && cmp <= GSHMEMI_CMP_LAST; }

GSHMEM_HD constexpr const char *cmp_name(int cmp) {
  return cmp == GSHMEM_CMP_EQ   ? "EQ"
         : cmp == GSHMEM_CMP_NE ? "NE"
         : cmp == GSHMEM_CMP_GT ? "GT"
         : cmp == GSHMEM_CMP_GE ? "GE"
         : cmp == GSHMEM_CMP_LT ? "LT"
         : cmp == GSHMEM_CMP_LE ? "LE"
                                : "??";
}

// `a <cmp> b` in T itself: both operands have the same type, so the usual
// conversions never mix signed and unsigned and the extremes compare exactly.
// An invalid cmp compares false; the routines reject it before they poll.
template <class T>
GSHMEM_HD bool compare(int cmp, T a, T b) {
  switch (cmp) {
    case GSHMEM_CMP_EQ: return a == b;
    case GSHMEM_CMP_NE: return a != b;
    case GSHMEM_CMP_GT: return a > b;
    case GSHMEM_CMP_GE: return a >= b;
    case GSHMEM_CMP_LT: return a < b;
    case GSHMEM_CMP_LE: return a <= b;
    default: return false;
  }
}

// The same comparison as a branch-free test for the scan loops: the outcome
// for each of a < b, a == b, a > b, decoded once per call from cmp, so the
// per-element cost is two compares and selects instead of a switch.
struct comparison {
  bool if_less, if_equal, if_greater;
  GSHMEM_HD explicit comparison(int cmp)
      : if_less(cmp == GSHMEM_CMP_NE || cmp == GSHMEM_CMP_LT || cmp == GSHMEM_CMP_LE),
        if_equal(cmp == GSHMEM_CMP_EQ || cmp == GSHMEM_CMP_GE || cmp == GSHMEM_CMP_LE),
        if_greater(cmp == GSHMEM_CMP_NE || cmp == GSHMEM_CMP_GT || cmp == GSHMEM_CMP_GE) {}
  template <class T>
  GSHMEM_HD bool operator()(T a, T b) const {
    return a < b ? if_less : (b < a ? if_greater : if_equal);
  }
  // The same for a batch at once, from two masks: bit j of `at_least` /
  // `at_most` tells whether element j compared >= / <= its value. Written
  // as the outcome of "equal", flipped where "less" (~at_least) or
  // "greater" (~at_most) differs from it, so that a mask the comparison
  // does not need is not an operand at all: with the comparison known at
  // compile time (the usual call, after inlining) ptxas drops the other
  // mask's compares, one 64-bit compare per element (GE: at_least; GT:
  // ~at_most), and packs the predicates into the mask (P2R) as a
  // hand-written batch does; with a run-time comparison both masks, four
  // compares per 8-byte element. (Built from `less` and `greater` and
  // combined the same way, the batches got the one compare but ptxas
  // negated and merged the mask with a select and a LOP3 per element: a
  // one-thread _any batch of 16 took about 20 instructions more, sm_90.)
  template <class Mask>
  GSHMEM_HD Mask holding(Mask at_least, Mask at_most) const {
    return (if_equal ? ~(Mask)0 : (Mask)0) ^ (if_less != if_equal ? ~at_least : (Mask)0) ^
           (if_greater != if_equal ? ~at_most : (Mask)0);
  }
};

// ------------------------------------------------------------ element access
//
// Single-element polls are ld.acquire.sys: on the GPUs this targets an
// acquire poll costs the same as a relaxed one, and no fence is needed after
// it succeeds. Array scans load a batch of elements with relaxed (strong,
// system-scope) loads so that many are in flight, and order a success with
// either one acquire reload of the element reported (_any) or one
// acquire fence (_all, _some): a strong load followed in program order by a
// fence is an acquire pattern in the PTX and C++ models.

template <class T>
GSHMEM_HD T poll_acquire(const T *p) {
  return atomic_load<memory_order::acquire, thread_scope::system>(p);
}
template <class T>
GSHMEM_HD T poll_relaxed(const T *p) {
  return atomic_load<memory_order::relaxed, thread_scope::system>(p);
}
GSHMEM_HD void acquire_fence() { atomic_fence<memory_order::acquire, thread_scope::system>(); }

// The comparison value of element i: one value for all, or one per element.
template <class T>
struct same_value {
  using value_type = T;
  T value;
  GSHMEM_HD T operator()(size_t) const { return value; }
};
template <class T>
struct per_element_value {
  using value_type = T;
  const T *values;
  GSHMEM_HD T operator()(size_t i) const { return values[i]; }
};

GSHMEM_HD bool is_included(const int *status, size_t i) { return status == nullptr || status[i] == 0; }

// ------------------------------------------------------------- diagnostics

GSHMEM_HD void sync_trap() {
#if GSHMEM_IN_DEVICE_CODE
  __trap();
#else
  __builtin_trap();
#endif
}

#if !GSHMEM_IN_DEVICE_CODE
template <class T>
inline void format_value(char *out, size_t size, T v) {
  if (std::is_signed<T>::value) std::snprintf(out, size, "%lld", (long long)v);
  else std::snprintf(out, size, "%llu", (unsigned long long)v);
}

inline void deliver_diagnostic(const sync_diagnostic &d) {
  if (sync_diagnostic_handler h = sync_handler_slot().load()) {
    h(d);  // may throw
  } else {
    std::fputs(d.line, stderr);
    std::fputc('\n', stderr);
    std::fflush(stderr);
  }
  sync_trap();
}
#endif

// Prints "PE, routine, cmp value" and traps. Never returns normally (a host
// handler may throw).
GSHMEM_HD void fail_invalid_cmp(const wait_context &ctx, const char *routine, int cmp, const void *address) {
#if GSHMEM_IN_DEVICE_CODE
  device_failure f;
  f.kind = GSHMEMI_FAIL_INVALID_CMP;
  f.i0 = cmp;
  (void)address;
  record_device_failure(gshmemi_state().report, ctx.pe, routine, f);
  sync_trap();
#else
  sync_diagnostic d{};
  d.kind = sync_failure::invalid_cmp;
  d.lost_pe = -1;
  d.routine = routine;
  d.pe = ctx.pe;
  d.cmp = cmp;
  d.address = address;
  std::snprintf(d.line, sizeof d.line,
                "gshmem: PE %d: %s: invalid cmp %d (valid: 0 .. 5: EQ=0 NE=1 GT=2 LE=3 LT=4 GE=5)", ctx.pe,
                routine, cmp);
  deliver_diagnostic(d);
#endif
}

// Prints PE, routine, address, expected (cmp + value) and the value last
// seen there, then traps. When the runtime found a peer gone (the watchdog
// ends the wait for that too), the line says which PE is gone instead of
// "timed out".
template <class T>
GSHMEM_HD void fail_timeout(const wait_context &ctx, const char *routine, const T *address, size_t index,
                            size_t nelems, int cmp, T expected, T seen) {
  const int lost = peer_lost_word() - 1;
#if GSHMEM_IN_DEVICE_CODE
  // Values in their own signedness (a uint64 at or past 2^63 is not shown
  // negative): the host formats them (device_report.h).
  device_failure f;
  f.kind = lost >= 0 ? GSHMEMI_FAIL_WAIT_PEER_LOST : GSHMEMI_FAIL_WAIT_TIMEOUT;
  f.i0 = cmp;
  f.i1 = lost;
  f.is_signed = std::is_signed<T>::value;
  f.u0 = (unsigned long long)(const void *)address;
  f.u1 = index;
  f.u2 = nelems;
  f.u3 = (unsigned long long)expected;
  f.u4 = (unsigned long long)seen;
  f.u5 = ctx.timeout_ns;
  record_device_failure(gshmemi_state().report, ctx.pe, routine, f);
  sync_trap();
#else
  sync_diagnostic d{};
  d.kind = lost >= 0 ? sync_failure::peer_lost : sync_failure::timeout;
  d.routine = routine;
  d.pe = ctx.pe;
  d.cmp = cmp;
  d.address = address;
  d.index = index;
  d.nelems = nelems;
  d.lost_pe = lost;
  char value[32];
  format_value(value, sizeof value, expected);
  std::snprintf(d.expected, sizeof d.expected, "%s %s", cmp_name(cmp), value);
  format_value(d.seen, sizeof d.seen, seen);
  if (lost >= 0)
    std::snprintf(d.line, sizeof d.line,
                  "gshmem: PE %d: %s: PE %d is gone (its process ended); stopping the wait at %p [element %llu "
                  "of %llu] for %s, last seen %s",
                  ctx.pe, routine, lost, (const void *)address, (unsigned long long)index,
                  (unsigned long long)nelems, d.expected, d.seen);
  else
    std::snprintf(d.line, sizeof d.line,
                  "gshmem: PE %d: %s: wait timed out (%llu ns) at %p [element %llu of %llu]: expected %s, "
                  "last seen %s",
                  ctx.pe, routine, ctx.timeout_ns, (const void *)address, (unsigned long long)index,
                  (unsigned long long)nelems, d.expected, d.seen);
  deliver_diagnostic(d);
#endif
}

// Reports a timed-out array wait: names the first included element that is
// still unsatisfied (or the first included one if all look satisfied now).
template <class T, class Expect>
GSHMEM_HD void fail_array_timeout(const wait_context &ctx, const char *routine, const T *ivars, size_t nelems,
                                  const int *status, int cmp, const Expect &expect) {
  size_t pick = nelems;
  for (size_t i = 0; i < nelems; ++i) {
    if (!is_included(status, i)) continue;
    if (pick == nelems) pick = i;
    if (!compare(cmp, poll_relaxed(ivars + i), expect(i))) { pick = i; break; }
  }
  if (pick == nelems) pick = 0;
  fail_timeout(ctx, routine, ivars + pick, pick, nelems, cmp, expect(pick), poll_relaxed(ivars + pick));
}

// --------------------------------------------------------------- watchdog
//
// The slow path of every wait: it bounds the wait by GSHMEM_WAIT_TIMEOUT
// and ends it when the runtime found a peer's process gone. Only an armed
// watchdog (one per waiting group: its leader) does anything; it counts
// polls and once per ~1024 reads the peer-loss word (mapped host memory
// the runtime raises, see src/liveness.h) and, with a timeout, the clock.
// A wait satisfied on its first pass never ticks, so the fast path pays
// nothing; a spinning wait pays one add and compare per pass, and one
// system-scope load per ~1024 polls. The clock (%globaltimer, slow) is first
// read at the first check, so the timeout runs from about then.

// Polls between two checks of the watchdog (peer-loss word, clock).
constexpr unsigned kPollsPerWatchdogCheck = 1024;

struct start_on_first_tick_t {};
constexpr start_on_first_tick_t start_on_first_tick{};

struct watchdog {
  unsigned long long timeout_ns;
  unsigned long long start_ns;  // 0: not started yet
  unsigned polls;
  bool armed;

  GSHMEM_HD watchdog(bool armed_, unsigned long long timeout, start_on_first_tick_t)
      : timeout_ns(timeout), start_ns(0), polls(0), armed(armed_) {}
  // Counts `n` more polls; true once the wait must end: a peer is gone, or
  // it has lasted longer than the timeout. The caller then reports through
  // fail_timeout / fail_array_timeout, which tell the two apart.
  GSHMEM_HD bool expired(unsigned n) {
    if (!armed) return false;
    polls += n;
    if (polls < kPollsPerWatchdogCheck) return false;
    polls = 0;
    if (peer_lost_word() != 0) return true;
    if (timeout_ns == 0) return false;
    if (start_ns == 0) {
      start_ns = now_ns() | 1ull;  // never 0 once started
      return false;
    }
    return now_ns() - start_ns > timeout_ns;
  }
};

// --------------------------------------------------------- rotation cursor
//
// _any rotates where its scan starts so that a series of calls by one caller
// returns every element that stays satisfied (OpenSHMEM's liveness rule),
// whatever other arrays and callers exist:
//   - A caller is (array address, calling thread or group): on the GPU the
//     block and the leader's thread index, on the host the thread. Its cursor
//     is an entry {tag, next} of a table indexed by a hash of both; `tag` is
//     that hash in full. On the GPU one table per translation unit (static
//     __device__, no -rdc needed), on the host one per program.
//   - When the entry's tag is the caller's, the scan starts at `next`, just
//     after the index this caller last returned: strict round-robin, every
//     satisfied element within nelems calls (and an in-order producer's next
//     update is where the scan looks first).
//   - When another caller took the entry (a hash collision, or an entry
//     reused), the scan starts at a pseudo-random position drawn from a
//     cycle counter. Each such call returns a given satisfied element with
//     probability at least 1/nelems, so no element can starve, however calls
//     on colliding arrays interleave.
// Entry fields are separate relaxed accesses: a torn read only changes where
// a scan starts, never which index is correct.
constexpr unsigned kAnyCursorSlots = 1024;

struct any_cursor_entry {
  unsigned long long tag;
  unsigned long long next;
};

#if defined(__CUDACC__)
static __device__ any_cursor_entry gshmemi_any_cursor_device[kAnyCursorSlots];
#endif
inline any_cursor_entry any_cursor_host[kAnyCursorSlots];

GSHMEM_HD_CONSTEXPR unsigned long long mix64(unsigned long long h) {  // splitmix64 finalizer
  h ^= h >> 30;
  h *= 0xBF58476D1CE4E5B9ull;
  h ^= h >> 27;
  h *= 0x94D049BB133111EBull;
  return h ^ (h >> 31);
}

// Who is calling: the leader thread's position in the grid, or the host thread.
GSHMEM_HD unsigned long long any_caller_id() {
#if GSHMEM_IN_DEVICE_CODE
  const unsigned long long block = blockIdx.x + (unsigned long long)gridDim.x * (blockIdx.y + (unsigned long long)gridDim.y * blockIdx.z);
  const unsigned thread = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  return (block << 11) ^ thread;
#else
  static thread_local const char marker = 0;  // one address per host thread
  return (unsigned long long)(uintptr_t)&marker;
#endif
}

// The cursor of one caller on one array.
struct any_cursor {
  unsigned long long tag;  // never 0, so a zeroed entry belongs to nobody
  any_cursor_entry *entry;

  GSHMEM_HD any_cursor(const void *ivars, unsigned long long caller) {
    tag = mix64((unsigned long long)(uintptr_t)ivars ^ mix64(caller)) | 1ull;
#if GSHMEM_IN_DEVICE_CODE
    entry = &gshmemi_any_cursor_device[tag >> 54];  // 1024 slots
#else
    entry = &any_cursor_host[tag >> 54];
#endif
  }

  // The raw reading (tag and next) and its reduction to a start in
  // [0, nelems): split so that a caller can issue the loads early and use
  // them only after its own loads are in flight.
  GSHMEM_HD any_cursor_entry load_raw() const {
    any_cursor_entry e;
    e.tag = atomic_load<memory_order::relaxed, thread_scope::device>(&entry->tag);
    e.next = atomic_load<memory_order::relaxed, thread_scope::device>(&entry->next);
    return e;
  }
  // `next` holds the start in its low 63 bits and, in bit 63, the in-order
  // hint: the caller's last result lay in the first batch its scan read
  // (at or just after that call's start), as a producer that fills slots
  // in order makes it (the wide scan's re-reads follow it: scan_any_wide).
  static constexpr unsigned long long kInOrder = 1ull << 63;
  GSHMEM_HD size_t start(const any_cursor_entry &e, size_t nelems) const {
    if (nelems == 0) return 0;
    if (e.tag == tag) {
      // This caller's own cursor, in [0, nelems] unless the caller's last
      // call on this array had more elements: past the end, start over at
      // 0 (no division, which costs registers in every kernel that waits).
      const unsigned long long next = e.next & ~kInOrder;
      return next < nelems ? (size_t)next : 0;
    }
    return random_below(nelems);
  }
  // The in-order hint of a reading; true where the reading is not this
  // caller's (no history: assume the producer that costs most to miss).
  GSHMEM_HD bool in_order(const any_cursor_entry &e) const { return e.tag != tag || (e.next & kInOrder) != 0; }
  GSHMEM_HD size_t load(size_t nelems) const { return start(load_raw(), nelems); }
  GSHMEM_HD void store(size_t next, bool in_order_hint = true) const {
    atomic_store<memory_order::relaxed, thread_scope::device>(
        &entry->next, (unsigned long long)next | (in_order_hint ? kInOrder : 0ull));
    atomic_store<memory_order::relaxed, thread_scope::device>(&entry->tag, tag);
  }

  // A pseudo-random index in [0, n) from a fast-moving counter (the SM's
  // cycle counter; on the host a per-thread sequence), mixed with the tag.
  GSHMEM_HD size_t random_below(size_t n) const {
#if GSHMEM_IN_DEVICE_CODE
    const unsigned long long r = mix64((unsigned long long)clock64() ^ tag);
#else
    static thread_local unsigned long long sequence = 0;
    const unsigned long long r = mix64(++sequence ^ tag ^ now_ns());
#endif
    // floor(r * n / 2^64): in [0, n), no division.
#if GSHMEM_IN_DEVICE_CODE
    return (size_t)__umul64hi(r, (unsigned long long)n);
#else
    return (size_t)(((unsigned __int128)r * (unsigned long long)n) >> 64);
#endif
  }
};

// Count-trailing-zeros / population count of a batch mask.
GSHMEM_HD unsigned lowest_bit(unsigned m) {
#if GSHMEM_IN_DEVICE_CODE
  return (unsigned)(__ffs((int)m) - 1);
#else
  return (unsigned)__builtin_ctz(m);
#endif
}
GSHMEM_HD unsigned lowest_bit(unsigned long long m) {
#if GSHMEM_IN_DEVICE_CODE
  return (unsigned)(__ffsll((long long)m) - 1);
#else
  return (unsigned)__builtin_ctzll(m);
#endif
}
GSHMEM_HD unsigned bit_count(unsigned m) {
#if GSHMEM_IN_DEVICE_CODE
  return (unsigned)__popc(m);
#else
  return (unsigned)__builtin_popcount(m);
#endif
}

}  // namespace detail
}  // namespace gshmem
