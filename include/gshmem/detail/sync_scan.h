// The wait/test algorithms, written once over an execution group (one
// thread, a warp, a block; see sync_group.h) and a comparison-value policy
// (one value, or one per element). The same code is compiled for the GPU and,
// for the CPU test suite, for the host.
//
// Scanning: each member loads a batch of elements (scan_batch_of; stride =
// group size, so a warp's loads coalesce) with relaxed system-scope loads
// into registers, all in flight at once, and only then compares. A success
// is ordered by one acquire reload (_any) or one acquire fence per member
// that loaded (_all, _some). Every routine is sized to leave a kernel that
// inlines it (in a loop) launchable with 1024 threads: 64 registers.
// One thread (single_group) polls a one-element array with acquire loads
// like a single-element wait (no reload, fence or cursor); a block polls an
// _all array of at most 32 elements with its first warp alone, one acquire
// load per lane (scan_all_lead_warp).
#pragma once

#include <gshmem/detail/sync_group.h>

#include <type_traits>

namespace gshmem {
namespace detail {

constexpr size_t kNone = (size_t)-1;  // SIZE_MAX

// True for the one-thread group: its scans take the one-element acquire-poll
// path and, for an array of at most one batch, the whole-array batch.
template <class G>
struct is_single_group : std::false_type {};
template <unsigned L>
struct is_single_group<single_group_of<L>> : std::true_type {};
template <class G>
GSHMEM_HD constexpr bool is_one_thread() {
  return is_single_group<typename std::remove_cv<G>::type>::value;
}

// The timeout report of the array scans: the scan's arguments in one record
// that the watchdog's rare report reads. Inlined: the report neither prints
// nor returns (device_report.h: it records and traps), so ptxas keeps no
// scan state alive across it. (Kept out of line while it called printf,
// and then every kernel with an array wait held a CALL: YIELD and
// convergence barriers in its poll loops; tests/launch launch_no_calls.)
template <class T, class Expect>
struct array_wait_report {
  wait_context ctx;
  const char *routine;
  const T *ivars;
  size_t nelems;
  const int *status;
  int cmp;
  Expect expect;
};
template <class T, class Expect>
GSHMEM_HD void report_array_timeout(const array_wait_report<T, Expect> *r) {
  fail_array_timeout(r->ctx, r->routine, r->ivars, r->nelems, r->status, r->cmp, r->expect);
}
#define GSHMEMI_ARRAY_WAIT_REPORT \
  const array_wait_report<T, Expect> report{ctx, routine, ivars, nelems, status, cmp, expect}

// Loads in flight per member and batch (see sync_group.h). A warp or block
// has many in flight across its members and takes its group's fixed
// numbers. One thread has only its own, and the budget is registers: every
// routine inlined into a kernel must leave it launchable with 1024 threads
// (64 registers per thread) without __launch_bounds__ (tests/launch checks
// every form, inlined into a loop). One thread polls, with one comparison
// value, G::kOneValueScanRegisters (32) registers' worth of elements per
// batch (_all, _some; the _any scans below one wide batch take 24): 16
// loads in flight for 8-byte elements, 32 for elements of 4 bytes or less
// (a batch mask has 32 bits); with per-element comparison values, which
// are loaded beside them, G::kScanRegisters / 2 (12): 6 and 12, except in
// the _all scans (all_scan_batch_of). The
// trade-off: a pass over n elements costs about n / batch load latencies
// (the time of a batch hardly depends on its size), so an 8-byte
// one-thread pass takes about twice the load latencies of the former 32 in
// flight (which needed about 170 registers and __launch_bounds__ beyond 384
// threads); with 12 it took 8/3 times (_some 2.4-2.6x the former time on
// a random producer, 2 x H100). (How
// many of a batch's loads ptxas really issues before it compares the first
// is its own scheduling choice; with these batches the SASS issues whole
// batches.) A warp form scans 8 to 11 elements per lane, n / (32 * 11)
// latencies per pass: for arrays of thousands of elements one warp is the
// fast choice.
// One thread: the elements of T that `regs` registers of polled values
// hold, 1 to 32 (a batch mask has 32 bits).
template <class T>
GSHMEM_HD constexpr unsigned one_thread_batch_of(unsigned regs) {
  const unsigned n = regs / (sizeof(T) <= 4 ? 1u : (unsigned)(sizeof(T) / 4));
  return n > 32u ? 32u : (n < 1u ? 1u : n);
}

template <class G, class Expect, bool OneValueWide = true>
GSHMEM_HD constexpr unsigned scan_batch_of() {
  using T = typename Expect::value_type;
  constexpr bool per_element = std::is_same<Expect, per_element_value<T>>::value;
  if constexpr (G::kScanRegisters > 0) {
    return one_thread_batch_of<T>(per_element     ? G::kScanRegisters / 2
                                  : OneValueWide ? G::kOneValueScanRegisters
                                                 : G::kScanRegisters);
  } else {
    return per_element && G::kScanBatch > 16 ? 16u : G::kScanBatch;
  }
}

// The batch of the _all scans: G::kAllScanBatch with one comparison value
// (see sync_group.h), else that of the other scans, except for one thread
// with per-element comparison values: G::kScanRegisters (24) rather than
// half of it, 12 loads of 8 bytes beside their 12 comparison values. The
// _all loop keeps little else (the tested one-thread _all_vector kernels:
// 40 and 48 registers, sm_90, nvcc 13.0), and a pass is half the batches:
// 2 x H200, one thread, n=1024: test_all_vector 56.6 -> 32.5 us (2d334cc
// 27.6), wait_until_all_vector 57.5 -> 32.9 (27.5); n=8192 435 -> 242
// (203) and 444 -> 246 (204); n=32 4.05 -> 3.50 and 3.81 -> 3.40. The
// _any and _some vector scans keep 6: with 12 the in-order n=32 rows took 12-16% longer
// (their first batch finds the element, and a larger one takes longer),
// while n=8192 ran 1.4x faster.
template <class G, class Expect>
GSHMEM_HD constexpr unsigned all_scan_batch_of() {
  using T = typename Expect::value_type;
  constexpr bool per_element = std::is_same<Expect, per_element_value<T>>::value;
  if constexpr (G::kScanRegisters > 0) {
    return per_element ? one_thread_batch_of<T>(G::kScanRegisters) : scan_batch_of<G, Expect>();
  } else
    return std::is_same<Expect, same_value<typename Expect::value_type>>::value ? G::kAllScanBatch
                                                                                : scan_batch_of<G, Expect>();
}

// What a batch reports: the elements the scan is looking for (_all: those
// included and not satisfied; _any and _some: those included and
// satisfied).
enum class batch_want { unsatisfied, satisfied };

struct batch_result {
  unsigned hits;  // bit j: element j of the batch is one the scan wants
  bool loaded;    // the batch had an element in range (status aside)
};

// Loads the member's batch, elements i = first + j*stride (j < B, i <
// limit), with relaxed system-scope loads, all B issued before any is
// compared; returns the elements wanted (batch_want).
//
// Registers: the batch's values are the only per-element state live at
// once. The whole batch inside the array (the common case) is
// straight-line code: one base address, B loads at constant offsets, no
// per-element bound and no branch between the loads. Only a batch at the
// end of its range is predicated per element, from the same base. An
// element's status entry is read only once its comparison is known, and
// only for the outcome the scan wants, so status values never sit beside
// the polled ones. There is no wrap-around here: the _any scans split their
// rotated order into two linear ranges (see scan_any), since a per-element
// wrapped address made the old wrapping batch the register peak.
template <unsigned B, batch_want Want, class T, class Expect>
GSHMEM_HD batch_result scan_batch(const T *ivars, size_t limit, const int *status, const comparison &holds,
                                  const Expect &expect, size_t first, size_t stride) {
  static_assert(B >= 1 && B <= 32, "a batch mask has 32 bits");
  constexpr bool kWantSatisfied = Want == batch_want::satisfied;
  constexpr unsigned kAll = B == 32 ? ~0u : (1u << B) - 1u;
  // Element j is in range when j * stride < ahead: one subtraction per
  // batch, then a compare with a constant per element (stride is a
  // constant for one thread and a warp).
  const size_t ahead = first < limit ? limit - first : 0;
  const bool whole = (size_t)(B - 1) * stride < ahead;
  const T *q = ivars + first;
  // The elements in range and included, as a mask, before any poll: the
  // status values die before the polled ones are loaded.
  unsigned included = kAll;
  if (!whole) {
    included = 0;
    GSHMEMI_UNROLL
    for (unsigned j = 0; j < B; ++j)
      if ((size_t)j * stride < ahead) included |= 1u << j;
  }
  if (status != nullptr) {
    const int *st = status + first;
    const unsigned in_range = included;
    GSHMEMI_UNROLL
    for (unsigned j = 0; j < B; ++j)
      if ((in_range >> j & 1u) && st[(size_t)j * stride] != 0) included &= ~(1u << j);
  }
  T value[B];
  if (whole) {
    GSHMEMI_UNROLL
    for (unsigned j = 0; j < B; ++j) value[j] = poll_relaxed(q + (size_t)j * stride);
  } else {
    GSHMEMI_UNROLL
    for (unsigned j = 0; j < B; ++j) value[j] = (size_t)j * stride < ahead ? poll_relaxed(q + (size_t)j * stride) : T{};
  }
  // Two masks, >= and <= (comparison::holding: one of them with the
  // comparison known at compile time); out-of-range elements are dropped
  // by `included`. One comparison value needs no bound (`included` drops
  // what lies out of range): guarding it per element put two uniform
  // compares and selects per element into every batch's comparison, whole
  // or not (sm_90).
  constexpr bool kPerElement = std::is_same<Expect, per_element_value<T>>::value;
  unsigned at_least = 0, at_most = 0;
  GSHMEMI_UNROLL
  for (unsigned j = 0; j < B; ++j) {
    const size_t i = first + (size_t)j * stride;
    const T want = !kPerElement || whole || (size_t)j * stride < ahead ? expect(i) : T{};  // per-element: in range only
    at_least |= (unsigned)!(value[j] < want) << j;
    at_most |= (unsigned)!(want < value[j]) << j;
  }
  const unsigned satisfied = holds.holding(at_least, at_most);
  return batch_result{(kWantSatisfied ? satisfied : ~satisfied) & included, ahead != 0};
}

// Whether any of the n elements is included (status NULL: n > 0), on every
// member: the empty-set test of _any and _some, made only when a whole
// pass found nothing (the batches read status only for satisfied
// elements). Each member reads its share.
template <class G>
GSHMEM_HD bool any_included(G &g, const int *status, size_t n) {
  bool mine = false;
  if (status == nullptr) {
    mine = n > 0;
  } else {
    for (size_t i = g.rank(); i < n; i += g.size())
      if (status[i] == 0) {
        mine = true;
        break;
      }
  }
  return g.any(mine);
}

template <class G>
GSHMEM_HD void check_cmp(G &g, const wait_context &ctx, const char *routine, int cmp, const void *address) {
  if (is_valid_cmp(cmp)) return;
  // One line per group: the leader prints; everyone traps.
  if (g.is_leader()) fail_invalid_cmp(ctx, routine, cmp, address);
  g.sync();
  sync_trap();
}

// ------------------------------------------------------------ single element

// Polls *ivar with acquire loads until `*ivar <cmp> cmp_value`; returns the
// satisfying value. No fence follows: the acquire poll that succeeded orders
// every later access of the caller.
//
// The polls run in batches of kPollsPerWatchdogCheck with nothing in the
// loop but the acquire load, the comparison and a down-counter that does
// not depend on the load; the watchdog (timer, peer-loss word, diagnostics)
// runs between batches, so it still looks once per 1024 polls. A poll that
// succeeds leaves the loop at once, by the branch that follows its
// comparison: load, compare, branch, as in a hand-written poll. (Testing
// "satisfied or batch done" in one loop condition put the counter's compare
// and a second test of the comparison after a successful poll, on the path
// to the caller's next access; with the watchdog's test inside the poll
// loop, every failed poll also paid a second taken branch and a
// convergence region around the watchdog's call to printf; SASS sm_90.)
// The first poll comes before any clock or runtime-state read.
// Not unrolled: an unrolled copy adds a convergence exit per poll and
// multiplies the code for nothing the load latency does not hide.
template <class T>
GSHMEM_HD T wait_one(const wait_context &ctx, const char *routine, T *ivar, int cmp, T cmp_value) {
  single_group g;
  check_cmp(g, ctx, routine, cmp, ivar);
  watchdog wd(true, ctx.timeout_ns, start_on_first_tick);
  for (;;) {
    T v{};
    GSHMEMI_NO_UNROLL
    for (unsigned left = kPollsPerWatchdogCheck; left != 0; --left) {
      v = poll_acquire(ivar);
      if (compare(cmp, v, cmp_value)) return v;
    }
    if (wd.expired(kPollsPerWatchdogCheck)) fail_timeout(ctx, routine, ivar, 0, 1, cmp, cmp_value, v);
  }
}

template <class T>
GSHMEM_HD int test_one(const wait_context &ctx, const char *routine, T *ivar, int cmp, T cmp_value) {
  single_group g;
  check_cmp(g, ctx, routine, cmp, ivar);
  return compare(cmp, poll_acquire(ivar), cmp_value) ? 1 : 0;
}

// ------------------------------------------------------------------- _all
//
// Small arrays in a block (G::kLeadWarpAll > 0: nelems <= 32 and no more
// than the block has threads). The general block scan spends, per poll, a
// block vote (and a second barrier for the position when it fails) and an
// acquire fence in every warp whose members saw nothing unsatisfied,
// elements or not: on sm_90 a system-scope fence is MEMBAR.SYS, so a block
// of 32 warps waiting on one element paid 31 of them on every failed poll.
// Here warp 0 polls alone, lane i element i, with ld.acquire.sys and warp
// votes; the other warps wait at the one barrier that publishes the
// outcome. Per call: no fence, no shared memory, one block barrier.
//
// Ordering: a lane that saw its element satisfied read it with an acquire
// load, so it has acquired already (no fence follows), and it reaches the
// block barrier after that load in program order. In the PTX memory model a
// bar{.cta}.sync or bar{.cta}.red synchronizes with the bar{.cta}.sync and
// bar{.cta}.red of the other threads on the same barrier, and base
// causality order is transitive through program order and
// synchronizes-with; so the writes the updating PE released before the
// value that lane acquired are ordered before every later access of every
// thread of the block, the ORDERING GUARANTEE of <gshmem/sync_ext.h>.
// (A lane's relaxed load followed by another lane's fence would not do: an
// acquire pattern needs its strong read and its fence in one thread.)
//
// Same acceptance rule as scan_all: elements are accepted in index order; a
// poll re-reads every included element from the first one not seen
// satisfied on, the ones below it stay accepted. Same watchdog (lane 0, the
// block's leader). A test makes one poll. The comparison values are read
// once per call.
#if defined(__CUDACC__)
template <bool Wait, class G, class T, class Expect>
__device__ bool scan_all_lead_warp(G &g, const wait_context &ctx, const char *routine, T *ivars, size_t nelems,
                                   const int *status, int cmp, const Expect &expect) {
  GSHMEMI_ARRAY_WAIT_REPORT;
  bool satisfied = true;
  if (g.rank() < 32u) {  // warp 0, whole: every thread of the block calls, and they are converged
    const unsigned lane = g.rank();
    const unsigned lanes = g.lead_warp_lanes();
    const comparison holds(cmp);
    const bool mine = lane < nelems && is_included(status, lane);
    const T want = mine ? expect(lane) : T{};
    watchdog wd(Wait && g.is_leader(), ctx.timeout_ns, start_on_first_tick);
    unsigned lo = 0;  // lanes below lo hold accepted elements
    for (;;) {
      const bool unsatisfied = mine && lane >= lo && !holds(poll_acquire(ivars + lane), want);
      const unsigned pending = __ballot_sync(lanes, unsatisfied);
      if (pending == 0) break;
      if (!Wait) {
        satisfied = false;
        break;
      }
      lo = lowest_bit(pending);
      if (wd.expired(1)) report_array_timeout(&report);
    }
  }
  // The one block barrier: it publishes the outcome and hands the lanes'
  // acquires on to every thread.
  if constexpr (Wait) {
    g.sync();
    return true;
  } else {
    return !g.any(!satisfied);
  }
}
#endif

//
// A pass scans from `lo`, the first position not yet known satisfied, and
// stops at the first batch step holding an unsatisfied element; the next
// pass starts there. Elements are thus accepted in order, each once it has
// been seen satisfied (the OpenSHMEM reading of wait_until_all).
// Returns true when all included elements were seen satisfied.
template <bool Wait, class G, class T, class Expect>
GSHMEM_HD bool scan_all(G &g, const wait_context &ctx, const char *routine, T *ivars, size_t nelems,
                        const int *status, int cmp, const Expect &expect) {
  nelems = gshmemi_opaque(nelems);  // see config.h: no setup hoisted into the caller's loop
  GSHMEMI_ARRAY_WAIT_REPORT;
  check_cmp(g, ctx, routine, cmp, ivars);
#if defined(__CUDACC__)
  if constexpr (G::kLeadWarpAll > 0) {
    if (nelems <= G::kLeadWarpAll && nelems <= g.size())  // the same on every member
      return scan_all_lead_warp<Wait>(g, ctx, routine, ivars, nelems, status, cmp, expect);
  }
#endif
  watchdog wd(Wait && g.is_leader(), ctx.timeout_ns, start_on_first_tick);
  if constexpr (is_one_thread<G>()) {
    // One thread, one included element: an acquire poll both finds and
    // orders the success (no relaxed batch, no fence).
    if (nelems == 1 && is_included(status, 0)) {
      for (;;) {
        if (compare(cmp, poll_acquire(ivars), expect(0))) return true;
        if (!Wait) return false;
        if (wd.expired(1)) report_array_timeout(&report);
      }
    }
  }
  constexpr unsigned B = all_scan_batch_of<G, Expect>();
  const size_t step = (size_t)g.size() * B;
  const comparison holds(cmp);
  size_t lo = 0;
  bool loaded = false;  // this member has loaded an element in this call
  for (;;) {
    bool complete = true;
    unsigned steps = 0;
    for (size_t base = lo; base < nelems; base += step) {
      ++steps;
      const batch_result r = scan_batch<B, batch_want::unsatisfied>(ivars, nelems, status, holds, expect,
                                                                     base + g.rank(), g.size());
      const unsigned unsatisfied = r.hits;
      loaded |= r.loaded;
      // Block: on the pass's last step, a member that loaded elements and
      // saw all of them satisfied (this pass and, before `lo`, earlier
      // ones) acquires now, before the vote. If the vote finds nothing
      // unsatisfied, every member that read an element has fenced after its
      // own loads and the vote's barrier hands the ordering to the whole
      // block: no barrier follows. A member that loaded nothing has nothing
      // to acquire (the barrier orders it after the others' fences) and
      // skips the fence, which on sm_90 is a MEMBAR.SYS per warp. (A member
      // whose elements are all excluded by status fences all the same: the
      // batch does not read status for satisfied elements.) A failed vote
      // wastes the fence of the satisfied members, only on last steps.
      if (G::kAcquireBeforeAgreement && loaded && unsatisfied == 0 && base + step >= nelems) acquire_fence();
      if (g.any(unsatisfied != 0)) {
        unsigned long long mine =
            unsatisfied ? base + g.rank() + (size_t)lowest_bit(unsatisfied) * g.size() : ~0ull;
        lo = (size_t)g.min(mine);
        complete = false;
        break;
      }
    }
    if (complete) {
      // Each member fences after its own relaxed loads (the acquire pattern
      // must be in the thread that read), then the barrier hands the
      // ordering to the whole group. Done already in the last vote when the
      // group acquires before agreeing and the pass had a step.
      if (!(G::kAcquireBeforeAgreement && steps > 0)) {
        acquire_fence();
        g.sync();
      }
      return true;
    }
    if (!Wait) return false;
    if (wd.expired(steps * B)) report_array_timeout(&report);
  }
}

// The _any scans' rotation: a pass starts just after the element returned
// last, where a producer that fills slots in order writes next, one round
// trip after the scan began (the answer's acknowledgement, then its write:
// 1.3-1.5 us on 2 x H100 over NVLink, 4-5 steps of a one-thread batch; tens
// of microseconds through a remote peer's proxy). So some steps re-read the
// first batch (from the start on) instead of advancing: every 4th step
// through step 16, which finds a write of the NVLink round trip within 4
// steps of its arrival, then every 16th, which finds a later one within 16
// steps. Every element is still read at least once per pass. (Every 4th
// step throughout, as before, made a pass over a large array 4/3 as many
// steps, and a random producer waits about half a pass: one thread, 1024
// elements of 8 bytes, 16 loads a batch: 86 steps a pass, now 72; 8192
// elements: 683, now 550. Re-reads at doubling steps after 16 made it 71
// and 522, but left a late write waiting up to a whole pass.)
//
// The re-reads serve a producer that fills slots in order; for one that
// does not (a random one) they only lengthen the pass. So the wide scan
// makes them only where the caller's cursor carries the in-order hint
// (any_cursor: its last result lay in the first batch read), or where the
// caller has no history on the array; without the hint a pass reads each
// batch once, in rotation order. One thread, 1024 elements of 8 bytes, 16
// loads a batch: 72 steps with the hint, 65 without. Random-slot round
// trip, 2 x H200, three rounds in one call against 2d334cc's 12.28-12.33
// us: 13.25-13.44 with every re-read made, 11.65-11.76 without the hint's
// re-reads (13.1-13.4 in an earlier call when only those after step 16
// were dropped). The price: an in-order write that follows a result found
// away from the start (a producer that changed its order, or several
// producers) may wait up to a pass once; the result it gives sets the
// hint again.
//
// The schedule is defined once, as the step of the next re-read after
// `step` (~0u: none); the wide scan's plain visits run up to it.
GSHMEM_HD constexpr unsigned any_next_reread(unsigned step, bool in_order = true) {
  return !in_order ? ~0u : step < 16 ? (step | 3u) + 1u : (step | 15u) + 1u;
}
GSHMEM_HD constexpr bool any_rechecks_first_batch(unsigned step, bool in_order = true) {
  return step != 0 && any_next_reread(step - 1u, in_order) == step;
}

// ------------------------------------------------------------------- _any
//
// Scans from the rotation cursor `start`, wrapping around: elements start
// .. nelems-1, then 0 .. start-1, each of the two ranges in batches (a
// batch never crosses the wrap point, so it is a plain linear batch).
// Every satisfied element found is confirmed by the member that loaded it
// with an acquire reload (which also orders the success); if the value
// changed meanwhile, the next candidate is tried. Within a batch the lowest
// element is the first in scan order. Returns the element index, or kNone
// when no element is included (or, for a test, none is satisfied). The
// empty-set test reads status only when a whole pass found nothing.
//
// One thread and warp: the group first agrees on the lowest candidate, then
// its owner confirms it and the group agrees on the outcome. Block
// (kAcquireBeforeAgreement, where each agreement is a block barrier): every
// member confirms its own lowest candidate first, then one min() agrees on
// the lowest confirmed element and, through its barrier, passes the
// winner's acquire to every member.
template <bool Wait, class G, class T, class Expect>
GSHMEM_HD size_t scan_any_confirm_first(G &g, const wait_context &ctx, const char *routine, T *ivars,
                                        size_t nelems, const int *status, int cmp, const Expect &expect) {
  GSHMEMI_ARRAY_WAIT_REPORT;
  constexpr unsigned long long kNothing = ~0ull;  // min() key: nothing confirmed
  watchdog wd(Wait && g.is_leader(), ctx.timeout_ns, start_on_first_tick);
  constexpr unsigned B = scan_batch_of<G, Expect>();
  const size_t step = (size_t)g.size() * B;
  const comparison holds(cmp);
  // Every member must use the same start: take the leader's reading.
  const any_cursor cursor(ivars, any_caller_id());
  const size_t start = (size_t)g.broadcast(g.is_leader() ? (unsigned long long)cursor.load(nelems) : 0ull);
  bool nonempty = status == nullptr;  // nelems > 0 here
  for (;;) {
    unsigned steps = 0;
    for (unsigned range = 0; range < 2; ++range) {
      const size_t end = range == 0 ? nelems : start;
      for (size_t base = range == 0 ? start : 0; base < end; base += step) {
        ++steps;
        const batch_result r =
            scan_batch<B, batch_want::satisfied>(ivars, end, status, holds, expect, base + g.rank(), g.size());
        unsigned long long mine = kNothing;
        for (unsigned candidates = r.hits; candidates; candidates &= candidates - 1) {
          const size_t index = base + g.rank() + (size_t)lowest_bit(candidates) * g.size();
          if (compare(cmp, poll_acquire(ivars + index), expect(index))) {
            mine = index;
            break;
          }
        }
        // The member owning the winner acquired before this barrier.
        const unsigned long long first = g.min(mine);
        if (first != kNothing) {
          if (g.is_leader()) cursor.store((size_t)first + 1);
          return (size_t)first;
        }
      }
    }
    if (!Wait) return kNone;
    if (!nonempty) {
      if (!any_included(g, status, nelems)) return kNone;  // empty set (the same on every member)
      nonempty = true;
    }
    if (wd.expired(steps * B)) report_array_timeout(&report);
  }
}

// One thread, one comparison value, at least one wide batch: the _any scan
// with the most loads in flight that one thread can afford, the batch of
// wide_any_batch_of (8-byte elements: G::kWideAnyRegisters / 2, 4 bytes or
// less: 32). The time of a pass is about (n / batch) load latencies: the
// per-batch time does not depend on the batch (sm_90: about 0.29 us per
// batch for 12 and for 32 loads of 8 bytes), so only the number of loads in
// flight counts, and each 8-byte load holds two registers until it returns
// (a 16-byte load holds four for two elements: no gain). The registers come
// from the state kept beside the batch: the array is cut into aligned
// batches k = 0 .. nb-1, batch k at element k * W, the last one ending at
// nelems (it overlaps its neighbour, whose elements it drops), so every
// batch is W loads from one base at constant offsets, with no per-element
// bound; the position is one batch counter, everything else is read once
// per batch outside the loads.
//
// Order, as the two-range scan: the batch holding `start` first (its
// elements from start on), the batches after it, those before it, then the
// elements of the first batch below start; the steps that
// any_rechecks_first_batch names re-read the first batch (elements from
// start on) instead of advancing.
// Within a batch candidates go in index order; each is confirmed with an
// acquire reload (which orders the success), status is read only for
// satisfied elements, and the empty-set test runs only when a pass found
// nothing.
template <class G, class T>
GSHMEM_HD constexpr unsigned wide_any_batch_of() {
  if constexpr (G::kWideAnyRegisters > 0) {
    constexpr unsigned per_value = sizeof(T) <= 4 ? 1u : (unsigned)(sizeof(T) / 4);
    constexpr unsigned n = G::kWideAnyRegisters / per_value;
    return n > 64u ? 64u : n;
  } else {
    return 0;
  }
}

// The visits of one pass of the wide _any scans, in their order (above):
// next() gives each visit's batch (its first element) and the bits of the
// elements it looks at; `keep` is 0 only for the last visit, the first
// batch's part below start, when start is that batch's first element.
// Mask: 32 bits, or 64 for the wide choice's 64 elements of 4 bytes or less.
template <unsigned W>
struct wide_any_visits {
  using Mask = typename std::conditional<(W > 32), unsigned long long, unsigned>::type;
  static constexpr Mask kAllBits = W == 8 * sizeof(Mask) ? ~(Mask)0 : ((Mask)1 << W) - 1u;
  // start_word: the first element of a pass, and in its top bit the
  // in-order hint (re-reads of the first batch: any_rechecks_first_batch).
  // One word for both: a flag of its own cost the scan with 32 loads, a
  // run-time comparison and a status array 14 of its loads in flight
  // (SASS sm_90, launch_scan_sass_wide).
  static_assert(sizeof(size_t) == sizeof(unsigned long long), "start_word keeps the cursor's bit 63");
  static constexpr size_t kInOrderBit = (size_t)any_cursor::kInOrder;  // the cursor's own bit
  size_t nelems, start_word;
  size_t nb;        // batches; nelems >= W
  size_t ks;        // the batch holding start (< nb)
  size_t v = 0;     // visit v = 0 .. nb: batch (ks + v) mod nb; visit nb is ks
                    // again, for its elements below start
  unsigned steps = 0;  // visits so far this pass, re-reads included
  unsigned plain = 0;  // visits ahead that are plain: the batch after the
                       // last one, whole, on a step without a re-read
  GSHMEM_HD wide_any_visits(size_t n, size_t first, bool in_order_hint = true)
      : nelems(n), start_word(first | (in_order_hint ? kInOrderBit : 0)), nb((n + W - 1) / W), ks(first / W) {}
  GSHMEM_HD size_t start() const { return start_word & ~kInOrderBit; }
  GSHMEM_HD bool in_order() const { return (start_word & kInOrderBit) != 0; }
  GSHMEM_HD void restart() {
    v = 0;
    steps = 0;
    plain = 0;
  }
  // False when the pass has no visit left. `base` must hold the previous
  // visit's base (the caller's variable, untouched between calls).
  //
  // Most visits are plain, and take three additions: the next batch
  // follows the one before it. The full choice below, about 80
  // instructions (sm_90), ran before every batch and stood between two
  // batches' loads, since a batch's addresses wait for it: a one-thread pass
  // over 1024 elements took 29.2 us where 64 hand-written batches of 16
  // loads took 17.2 (2 x H200); 24.5 with this. It runs only where a visit
  // is not plain:
  // the first, a re-read and the one after it, the last batch, the batch of
  // start, and about one step in 16.
  GSHMEM_HD bool next(size_t &base, Mask &keep) {
    if (plain != 0) {
      --plain;
      ++steps;
      ++v;
      base += W;
      keep = kAllBits;
      return true;
    }
    if (v > nb) return false;
    ++steps;
    size_t k = ks + v;
    bool low_part = v == nb;  // the first batch's elements below start
    const bool reread = v != 0 && any_rechecks_first_batch(steps, in_order());
    if (reread) {
      k = ks;  // re-read the first batch; v does not advance
      low_part = false;
    } else {
      if (k >= nb) k -= nb;
      ++v;
    }
    const bool last = k + 1 == nb;
    if (!reread && !last && !low_part) {
      // The visits after this one stay plain up to the batch before the
      // next that needs the full choice (start's batch, or the last one) and
      // the step before the next re-read (any_rechecks_first_batch).
      const size_t ahead = (k < ks ? ks : nb - 1) - k - 1;
      const unsigned until_reread = any_next_reread(steps, in_order()) - steps - 1u;
      plain = ahead < until_reread ? (unsigned)ahead : until_reread;
    }
    base = last ? nelems - W : k * W;
    // The last batch drops the elements of the batch before it; the first
    // batch splits at start.
    keep = last ? kAllBits << (unsigned)(k * W - base) : kAllBits;
    if (k == ks) {
      const unsigned from = (unsigned)(start() - base);  // start - base < W
      const Mask at_or_after = kAllBits << from;
      keep &= low_part ? ~at_or_after : at_or_after;
    }
    return true;
  }
};

template <bool Wait, class G, class T>
GSHMEM_HD size_t scan_any_wide(const wait_context &ctx, const char *routine, T *ivars, size_t nelems,
                               const int *status, int cmp, const same_value<T> &expect) {
  using Expect = same_value<T>;
  GSHMEMI_ARRAY_WAIT_REPORT;
  constexpr unsigned W = wide_any_batch_of<G, T>();
  using Visits = wide_any_visits<W>;
  using Mask = typename Visits::Mask;
  watchdog wd(Wait, ctx.timeout_ns, start_on_first_tick);
  const comparison holds(cmp);
  const T want = expect.value;
  // The cursor is built again to store the result rather than kept in
  // registers through the wait.
  Visits visits = [&] {
    const any_cursor cursor(ivars, any_caller_id());
    const any_cursor_entry reading = cursor.load_raw();
    return Visits(nelems, cursor.start(reading, nelems), cursor.in_order(reading));
  }();
  bool nonempty = status == nullptr;
  for (;;) {
    visits.restart();
    size_t base;
    Mask keep;
    while (visits.next(base, keep)) {
      const T *q = ivars + base;
      T value[W];
      GSHMEMI_UNROLL
      for (unsigned j = 0; j < W; ++j) value[j] = poll_relaxed(q + j);
      // A visit with nothing to look at ends here. The branch also keeps
      // the whole batch in flight: ptxas moves no strong load across it, so
      // all W values are pending at it; without it ptxas interleaved the
      // compares of the first loads with the issue of the later ones to
      // hold fewer registers (12 of a batch of 24 in flight, SASS sm_90).
      if (keep == 0) continue;
      // 8-byte elements: the two masks of comparison::holding. 4 bytes or
      // less: the comparison per element (one compare with it known at
      // compile time, as with the masks); the masks' form made the launch
      // test's 4-byte kernel 66 registers (tests/launch, sm_90), and this
      // one costs a run-time comparison more compares (262 ISETP in that
      // kernel against 158).
      Mask hits = 0;
      if constexpr (sizeof(T) > 4) {
        Mask at_least = 0, at_most = 0;
        GSHMEMI_UNROLL
        for (unsigned j = 0; j < W; ++j) {
          at_least |= (Mask)!(value[j] < want) << j;
          at_most |= (Mask)!(want < value[j]) << j;
        }
        hits = holds.holding(at_least, at_most);
      } else {
        GSHMEMI_UNROLL
        for (unsigned j = 0; j < W; ++j) hits |= (Mask)holds(value[j], want) << j;
      }
      for (Mask candidates = hits & keep & Visits::kAllBits; candidates; candidates &= candidates - 1) {
        const size_t i = base + lowest_bit(candidates);
        if (is_included(status, i) && compare(cmp, poll_acquire(ivars + i), want)) {
          // In order: found in the first batch read (from start on).
          const size_t first = visits.start();
          const size_t from_start = i >= first ? i - first : i + nelems - first;
          any_cursor(gshmemi_opaque(ivars), any_caller_id()).store(i + 1, from_start < W);
          return i;
        }
      }
    }
    if (!Wait) return kNone;
    if (!nonempty) {
      single_group g;
      if (!any_included(g, status, nelems)) return kNone;  // empty set
      nonempty = true;
    }
    if (wd.expired(visits.steps * W)) report_array_timeout(&report);
  }
}

template <bool Wait, class G, class T, class Expect>
GSHMEM_HD size_t scan_any(G &g, const wait_context &ctx, const char *routine, T *ivars, size_t nelems,
                          const int *status, int cmp, const Expect &expect) {
  nelems = gshmemi_opaque(nelems);  // see config.h: no setup hoisted into the caller's loop
  check_cmp(g, ctx, routine, cmp, ivars);
  if (nelems == 0) return kNone;
  if constexpr (G::kAcquireBeforeAgreement) {
    return scan_any_confirm_first<Wait>(g, ctx, routine, ivars, nelems, status, cmp, expect);
  } else {
    GSHMEMI_ARRAY_WAIT_REPORT;
    watchdog wd(Wait && g.is_leader(), ctx.timeout_ns, start_on_first_tick);
    // One thread, one comparison value: only arrays below one wide batch
    // come here, and kScanRegisters' batch (12 loads of 8 bytes, 24 of 4)
    // covers them in one or two passes' steps, as before;
    // kOneValueScanRegisters' would put a YIELD of the candidate loop into
    // its batch and registers into tests/launch's one-thread _any kernels
    // (62-64 already) for at most one step.
    constexpr unsigned B = scan_batch_of<G, Expect, false>();
    const comparison holds(cmp);
    bool nonempty = status == nullptr;  // nelems > 0 here
    if constexpr (is_one_thread<G>() && std::is_same<Expect, same_value<T>>::value) {
      if (nelems >= wide_any_batch_of<G, T>())
        return scan_any_wide<Wait, G>(ctx, routine, ivars, nelems, status, cmp, expect);
    }
    if constexpr (is_one_thread<G>()) {
      if (nelems == 1) {
        if (!is_included(status, 0)) return kNone;  // empty set
        // One element: an acquire poll both finds and orders the success;
        // there is nothing to rotate, so the cursor is neither read nor written.
        for (;;) {
          if (compare(cmp, poll_acquire(ivars), expect(0))) return 0;
          if (!Wait) return kNone;
          if (wd.expired(1)) report_array_timeout(&report);
        }
      }
    }
    // One thread and an array of at most one batch: the whole array is one
    // batch loaded from index 0 (one load latency per pass, where the two
    // ranges would take two), and the rotation is applied to the candidate
    // mask instead: the pick is the lowest candidate at or after the start,
    // else the lowest one (the order of a scan from the start). There the
    // batch's addresses do not depend on the start, so the batch loads need
    // not wait for the cursor's. Otherwise the batches follow the two ranges
    // and the pick is the lowest candidate of a batch.
    const bool one_batch = is_one_thread<G>() && nelems <= B;
    const size_t step = (size_t)g.size() * B;
    // Every member must use the same start: take the leader's reading. The
    // cursor (a hash of the array and the caller) is built again to store
    // the result rather than kept in registers through the wait.
    const size_t start =
        (size_t)g.min(g.is_leader() ? (unsigned long long)any_cursor(ivars, any_caller_id()).load(nelems) : ~0ull);
    for (;;) {
      unsigned steps = 0;
      // Some steps re-read the first batch from the start instead of
      // advancing (any_rechecks_first_batch).
      const size_t from_start = one_batch ? 0 : start;  // the first element of a pass
      for (unsigned range = 0; range < (one_batch ? 1u : 2u); ++range) {
        const size_t end = range == 0 ? nelems : start;
        for (size_t next = range == 0 ? from_start : 0; next < end;) {
          ++steps;
          size_t base = next, limit = end;
          if (next != from_start && any_rechecks_first_batch(steps)) {
            base = from_start;
            limit = nelems;
          } else {
            next += step;
          }
          const batch_result r =
              scan_batch<B, batch_want::satisfied>(ivars, limit, status, holds, expect, base + g.rank(), g.size());
          unsigned candidates = r.hits;
          // Candidates below bit `from` come after the others.
          const unsigned from = one_batch ? (unsigned)start : 0u;  // start < nelems <= 32
          while (g.any(candidates != 0)) {
            const unsigned later = candidates & (~0u << from);
            const unsigned pick = candidates ? lowest_bit(later ? later : candidates) : 0u;
            const unsigned long long mine = candidates ? base + g.rank() + (size_t)pick * g.size() : ~0ull;
            const size_t winner = (size_t)g.min(mine);
            bool confirmed = false;
            if (mine == winner) {
              confirmed = compare(cmp, poll_acquire(ivars + winner), expect(winner));
              candidates &= ~(1u << pick);
            }
            if (g.min(confirmed ? 0ull : 1ull) == 0ull) {
              g.sync();  // the confirming member acquired; the barrier passes it on
              if (g.is_leader()) any_cursor(gshmemi_opaque(ivars), any_caller_id()).store(winner + 1);
              return winner;
            }
          }
        }
      }
      if (!Wait) return kNone;
      if (!nonempty) {
        if (!any_included(g, status, nelems)) return kNone;  // empty set
        nonempty = true;
      }
      if (wd.expired(steps * B)) report_array_timeout(&report);
    }
  }
}

// ------------------------------------------------------------------ _some
//
// One full pass tests every element; every satisfied included element found
// goes to `indices` (unique; order unspecified for groups). A wait repeats
// passes until one finds at least one. Returns the count (0: empty set, or
// a test that found none).
template <bool Wait, class G, class T, class Expect>
GSHMEM_HD size_t scan_some(G &g, const wait_context &ctx, const char *routine, T *ivars, size_t nelems,
                           size_t *indices, const int *status, int cmp, const Expect &expect) {
  nelems = gshmemi_opaque(nelems);  // see config.h: no setup hoisted into the caller's loop
  GSHMEMI_ARRAY_WAIT_REPORT;
  check_cmp(g, ctx, routine, cmp, ivars);
  watchdog wd(Wait && g.is_leader(), ctx.timeout_ns, start_on_first_tick);
  if constexpr (is_one_thread<G>()) {
    // One thread, one included element: an acquire poll (see scan_all).
    if (nelems == 1 && is_included(status, 0)) {
      for (;;) {
        if (compare(cmp, poll_acquire(ivars), expect(0))) {
          indices[0] = 0;
          return 1;
        }
        if (!Wait) return 0;
        if (wd.expired(1)) report_array_timeout(&report);
      }
    }
  }
  constexpr unsigned B = scan_batch_of<G, Expect>();
  const size_t step = (size_t)g.size() * B;
  const comparison holds(cmp);
  bool nonempty = status == nullptr && nelems > 0;
  for (;;) {
    g.reset_claims();
    bool found_any = false;
    unsigned steps = 0;
    for (size_t base = 0; base < nelems; base += step) {
      ++steps;
      const batch_result r =
          scan_batch<B, batch_want::satisfied>(ivars, nelems, status, holds, expect, base + g.rank(), g.size());
      unsigned found = r.hits;
      size_t slot = g.claim(bit_count(found));
      found_any |= found != 0;
      while (found) {
        indices[slot++] = base + g.rank() + (size_t)lowest_bit(found) * g.size();
        found &= found - 1;
      }
    }
    size_t total = g.claimed();
    if (total) {
      if (found_any) acquire_fence();  // members that reported acquire what they saw
      g.sync();
      return total;
    }
    if (!Wait) return 0;
    if (!nonempty) {
      if (!any_included(g, status, nelems)) return 0;  // empty set
      nonempty = true;
    }
    if (wd.expired(steps * B)) report_array_timeout(&report);
  }
}

}  // namespace detail
}  // namespace gshmem

#undef GSHMEMI_ARRAY_WAIT_REPORT
