// The wait/test algorithms, written once over an execution group (one
// thread, a warp, a block; see sync_group.h) and a comparison-value policy
// (one value, or one per element). The same code is compiled for the GPU and,
// for the CPU test suite, for the host.
//
// Scanning: each member loads a batch of G::kScanBatch elements
// (G::kAllScanBatch for _all with one comparison value; stride = group
// size, so a warp's loads coalesce) with relaxed system-scope loads
// into registers, all in flight at once, and only then compares. A success is ordered by one
// acquire reload (_any) or one acquire fence per member that loaded (_all,
// _some).
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
GSHMEM_HD constexpr bool is_one_thread() {
  return std::is_same<typename std::remove_cv<G>::type, single_group>::value;
}

// The timeout report of the block scans, kept out of line: inlined, its
// loop and printf made ptxas preserve the scan's state across the call and
// spill in the kernels that wait. Arguments by value so that nothing of
// the caller has to live in local memory for it.
#if defined(__CUDACC__)
#  define GSHMEMI_SYNC_COLD __host__ __device__ __noinline__
#else
#  define GSHMEMI_SYNC_COLD inline
#endif
template <class T, class Expect>
GSHMEMI_SYNC_COLD void report_array_timeout(wait_context ctx, const char *routine, const T *ivars, size_t nelems,
                                            const int *status, int cmp, Expect expect) {
  fail_array_timeout(ctx, routine, ivars, nelems, status, cmp, expect);
}

// Loads in flight per member and batch: G::kScanBatch (see sync_group.h).
// One thread needs many to hide the load latency; a warp or block already
// has many in flight across its members and must keep registers low enough
// for 1024-thread blocks (<= 64 per thread).
// Per-element comparison values take registers too: with them, one thread
// keeps at most 16 loads in flight so that it fits in 64 registers (the
// one-thread _any on at most 32 elements loads them all in one batch: see
// scan_any).
template <class G, class Expect>
GSHMEM_HD constexpr unsigned scan_batch_of() {
  return std::is_same<Expect, per_element_value<typename Expect::value_type>>::value && G::kScanBatch > 16
             ? 16u
             : G::kScanBatch;
}

// The batch of the _all scans: G::kAllScanBatch with one comparison value
// (see sync_group.h), else that of the other scans.
template <class G, class Expect>
GSHMEM_HD constexpr unsigned all_scan_batch_of() {
  return std::is_same<Expect, same_value<typename Expect::value_type>>::value ? G::kAllScanBatch
                                                                              : scan_batch_of<G, Expect>();
}

struct batch_masks {
  unsigned satisfied;  // bit j: element j of the batch is included and satisfied
  unsigned included;   // bit j: element j exists and is not excluded by status
};

// Loads the member's batch of logical positions p = first + j*stride
// (j < B, p < nelems); position p is element (start + p) mod nelems, with
// start < nelems. All B relaxed loads are issued before any is compared.
//
// The common case (the whole batch inside the array and not crossing the
// wrap point) is straight-line code: one base address, B loads at constant
// offsets, no per-element bounds or wrap arithmetic and no branches between
// the loads, so they all stay in flight together. Only a batch at the end or
// across the wrap takes the checked path.
//
// Wrap = false (the _all and _some scans, whose start is always 0): position
// p is element p, so the checked path needs no wrap arithmetic either; its
// loads are predicated on p < nelems and addressed from the one base, like
// the straight-line ones. The wrapping checked path keeps an address per
// element, which made it the register peak of the warp scans (64 registers
// for a warp _all with a run-time cmp and status array; 43 without wrap).
template <unsigned B, bool Wrap, class T, class Expect>
GSHMEM_HD batch_masks scan_batch(const T *ivars, size_t nelems, const int *status, int cmp,
                                 const Expect &expect, size_t start, size_t first, size_t stride) {
  static_assert(B >= 1 && B <= 32, "a batch mask has 32 bits");
  const comparison holds(cmp);
  T value[B];
  batch_masks m{0u, 0u};
  const size_t last = first + (size_t)(B - 1) * stride;
  size_t i0 = start + first;
  if (Wrap && i0 >= nelems) i0 -= nelems;
  if (last < nelems && i0 + (size_t)(B - 1) * stride < nelems) {
    const T *q = ivars + i0;
    GSHMEMI_UNROLL
    for (unsigned j = 0; j < B; ++j) value[j] = poll_relaxed(q + (size_t)j * stride);
    GSHMEMI_UNROLL
    for (unsigned j = 0; j < B; ++j) {
      const size_t i = i0 + (size_t)j * stride;
      if (is_included(status, i)) {
        m.included |= 1u << j;
        if (holds(value[j], expect(i))) m.satisfied |= 1u << j;
      }
    }
    return m;
  }
  if constexpr (!Wrap) {
    GSHMEMI_UNROLL
    for (unsigned j = 0; j < B; ++j) {
      const size_t i = first + (size_t)j * stride;
      value[j] = i < nelems ? poll_relaxed(ivars + i) : T{};
    }
    GSHMEMI_UNROLL
    for (unsigned j = 0; j < B; ++j) {
      const size_t i = first + (size_t)j * stride;
      if (i < nelems && is_included(status, i)) {
        m.included |= 1u << j;
        if (holds(value[j], expect(i))) m.satisfied |= 1u << j;
      }
    }
  } else {
    GSHMEMI_UNROLL
    for (unsigned j = 0; j < B; ++j) {
      size_t p = first + j * stride;
      size_t i = start + p;
      if (i >= nelems) i -= nelems;
      value[j] = p < nelems ? poll_relaxed(ivars + i) : T{};
    }
    GSHMEMI_UNROLL
    for (unsigned j = 0; j < B; ++j) {
      size_t p = first + j * stride;
      size_t i = start + p;  // recomputed rather than kept: registers are scarce here
      if (i >= nelems) i -= nelems;
      if (p < nelems && is_included(status, i)) {
        m.included |= 1u << j;
        if (holds(value[j], expect(i))) m.satisfied |= 1u << j;
      }
    }
  }
  return m;
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
template <class T>
GSHMEM_HD T wait_one(const wait_context &ctx, const char *routine, T *ivar, int cmp, T cmp_value) {
  single_group g;
  check_cmp(g, ctx, routine, cmp, ivar);
  T v = poll_acquire(ivar);
  if (compare(cmp, v, cmp_value)) return v;
  watchdog wd(true, ctx.timeout_ns, start_on_first_tick);
  for (;;) {
    v = poll_acquire(ivar);
    if (compare(cmp, v, cmp_value)) return v;
    if (wd.expired(1)) fail_timeout(ctx, routine, ivar, 0, 1, cmp, cmp_value, v);
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
      if (wd.expired(1)) report_array_timeout(ctx, routine, ivars, nelems, status, cmp, expect);
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
        if (wd.expired(1)) fail_array_timeout(ctx, routine, ivars, nelems, status, cmp, expect);
      }
    }
  }
  constexpr unsigned B = all_scan_batch_of<G, Expect>();
  const size_t step = (size_t)g.size() * B;
  size_t lo = 0;
  bool loaded = false;  // this member has loaded an included element in this call
  for (;;) {
    bool complete = true;
    unsigned steps = 0;
    for (size_t base = lo; base < nelems; base += step) {
      ++steps;
      batch_masks m = scan_batch<B, false>(ivars, nelems, status, cmp, expect, 0, base + g.rank(), g.size());
      unsigned unsatisfied = m.included & ~m.satisfied;
      loaded |= m.included != 0;
      // Block: on the pass's last step, a member that loaded elements and
      // saw all of them satisfied (this pass and, before `lo`, earlier
      // ones) acquires now, before the vote. If the vote finds nothing
      // unsatisfied, every member that read an element has fenced after its
      // own loads and the vote's barrier hands the ordering to the whole
      // block: no barrier follows. A member that loaded nothing has nothing
      // to acquire (the barrier orders it after the others' fences) and
      // skips the fence, which on sm_90 is a MEMBAR.SYS per warp. A failed
      // vote wastes the fence of the satisfied members, only on last steps.
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
    if (wd.expired(steps * B)) fail_array_timeout(ctx, routine, ivars, nelems, status, cmp, expect);
  }
}

// ------------------------------------------------------------------- _any
//
// Scans from the rotation cursor, wrapping around. Every satisfied position
// found is confirmed by the member that loaded it with an acquire reload
// (which also orders the success); if the value changed meanwhile, the next
// candidate is tried. Returns the element index, or kNone when no element
// is included (or, for a test, none is satisfied).
//
// One thread and warp: the group first agrees on the lowest candidate, then
// its owner confirms it and the group agrees on the outcome. Block
// (kAcquireBeforeAgreement, where each agreement is a block barrier): every
// member confirms its own lowest candidate first, then one min() agrees on
// the lowest confirmed position, on whether anything was included, and,
// through its barrier, passes the winner's acquire to every member.
template <bool Wait, class G, class T, class Expect>
GSHMEM_HD size_t scan_any_confirm_first(G &g, const wait_context &ctx, const char *routine, T *ivars,
                                        size_t nelems, const int *status, int cmp, const Expect &expect) {
  // min() keys: a confirmed position (< nelems), else one of these.
  constexpr unsigned long long kIncludedOnly = ~0ull - 1;  // included elements, none confirmed
  constexpr unsigned long long kNothing = ~0ull;           // no included element
  watchdog wd(Wait && g.is_leader(), ctx.timeout_ns, start_on_first_tick);
  constexpr unsigned B = scan_batch_of<G, Expect>();
  const size_t step = (size_t)g.size() * B;
  // Every member must use the same start: take the leader's reading.
  const any_cursor cursor(ivars, any_caller_id());
  const size_t start = (size_t)g.broadcast(g.is_leader() ? (unsigned long long)cursor.load(nelems) : 0ull);
  for (;;) {
    bool any_included = false;
    unsigned steps = 0;
    for (size_t base = 0; base < nelems; base += step) {
      ++steps;
      batch_masks m = scan_batch<B, true>(ivars, nelems, status, cmp, expect, start, base + g.rank(), g.size());
      unsigned long long mine = m.included ? kIncludedOnly : kNothing;
      for (unsigned candidates = m.satisfied; candidates; candidates &= candidates - 1) {
        const size_t position = base + g.rank() + (size_t)lowest_bit(candidates) * g.size();
        size_t index = start + position;
        if (index >= nelems) index -= nelems;
        if (compare(cmp, poll_acquire(ivars + index), expect(index))) {
          mine = position;
          break;
        }
      }
      // The member owning the winner acquired before this barrier.
      const unsigned long long first = g.min(mine);
      if (first < kIncludedOnly) {
        size_t index = start + (size_t)first;
        if (index >= nelems) index -= nelems;
        if (g.is_leader()) cursor.store(index + 1);
        return index;
      }
      any_included |= first == kIncludedOnly;
    }
    if (!any_included) return kNone;  // empty set (the same on every member)
    if (!Wait) return kNone;
    if (wd.expired(steps * B)) report_array_timeout(ctx, routine, ivars, nelems, status, cmp, expect);
  }
}

template <bool Wait, class G, class T, class Expect>
GSHMEM_HD size_t scan_any(G &g, const wait_context &ctx, const char *routine, T *ivars, size_t nelems,
                          const int *status, int cmp, const Expect &expect) {
  check_cmp(g, ctx, routine, cmp, ivars);
  if (nelems == 0) return kNone;
  if constexpr (G::kAcquireBeforeAgreement) {
    return scan_any_confirm_first<Wait>(g, ctx, routine, ivars, nelems, status, cmp, expect);
  } else {
    watchdog wd(Wait && g.is_leader(), ctx.timeout_ns, start_on_first_tick);
    constexpr unsigned B = scan_batch_of<G, Expect>();
    if constexpr (is_one_thread<G>()) {
      if (nelems == 1) {
        if (!is_included(status, 0)) return kNone;  // empty set
        // One element: an acquire poll both finds and orders the success;
        // there is nothing to rotate, so the cursor is neither read nor written.
        for (;;) {
          if (compare(cmp, poll_acquire(ivars), expect(0))) return 0;
          if (!Wait) return kNone;
          if (wd.expired(1)) fail_array_timeout(ctx, routine, ivars, nelems, status, cmp, expect);
        }
      }
      // The whole array in one batch of up to G::kScanBatch (32) loads,
      // with per-element comparison values too (their scans otherwise keep
      // 16 in flight): one step per poll instead of two at 17..32 elements.
      constexpr unsigned W = G::kScanBatch;
      if (nelems <= W) {
        // The whole array is one batch: load it from index 0, with the
        // cursor load issued first but used only after the batch loads, so
        // its latency hides behind theirs. The rotation is applied to the
        // masks instead: the pick is the lowest candidate at or after the
        // start, else the lowest one (the same order as a scan from start).
        const any_cursor cursor(ivars, any_caller_id());
        const any_cursor_entry reading = cursor.load_raw();
        unsigned start = ~0u;
        for (;;) {
          batch_masks m = scan_batch<W, false>(ivars, nelems, status, cmp, expect, 0, 0, 1);
          if (!m.included) return kNone;  // empty set
          if (start == ~0u) start = (unsigned)cursor.start(reading, nelems);
          for (unsigned candidates = m.satisfied; candidates;) {
            const unsigned from_start = candidates & (~0u << start);  // start < nelems <= 32
            const unsigned index = lowest_bit(from_start ? from_start : candidates);
            if (compare(cmp, poll_acquire(ivars + index), expect(index))) {
              cursor.store((size_t)index + 1);
              return index;
            }
            candidates &= ~(1u << index);
          }
          if (!Wait) return kNone;
          if (wd.expired(W)) fail_array_timeout(ctx, routine, ivars, nelems, status, cmp, expect);
        }
      }
    }
    const size_t step = (size_t)g.size() * B;
    // Every member must use the same start: take the leader's reading.
    const any_cursor cursor(ivars, any_caller_id());
    const size_t start = (size_t)g.min(g.is_leader() ? (unsigned long long)cursor.load(nelems) : ~0ull);
    for (;;) {
      bool any_included = false;
      unsigned steps = 0;
      // Every kRecheckEvery-th step re-reads the step at the start instead of
      // advancing: the start is just after the last element returned, where
      // a producer filling slots in order lands next, so such an update is
      // found within a few steps rather than after a whole pass. Every
      // element is still read at least once per pass.
      constexpr unsigned kRecheckEvery = 4;
      for (size_t next = 0; next < nelems;) {
        ++steps;
        size_t base = next;
        if (next != 0 && steps % kRecheckEvery == 0) {
          base = 0;
        } else {
          next += step;
        }
        batch_masks m = scan_batch<B, true>(ivars, nelems, status, cmp, expect, start, base + g.rank(), g.size());
        any_included |= m.included != 0;
        unsigned candidates = m.satisfied;
        while (g.any(candidates != 0)) {
          unsigned long long mine =
              candidates ? base + g.rank() + (size_t)lowest_bit(candidates) * g.size() : ~0ull;
          size_t winner = (size_t)g.min(mine);
          size_t index = start + winner;
          if (index >= nelems) index -= nelems;
          bool confirmed = false;
          if (mine == winner) {
            confirmed = compare(cmp, poll_acquire(ivars + index), expect(index));
            candidates &= candidates - 1;
          }
          if (g.min(confirmed ? 0ull : 1ull) == 0ull) {
            g.sync();  // the confirming member acquired; the barrier passes it on
            if (g.is_leader()) cursor.store(index + 1);
            return index;
          }
        }
      }
      if (!g.any(any_included)) return kNone;  // empty set
      if (!Wait) return kNone;
      if (wd.expired(steps * B)) fail_array_timeout(ctx, routine, ivars, nelems, status, cmp, expect);
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
        if (wd.expired(1)) fail_array_timeout(ctx, routine, ivars, nelems, status, cmp, expect);
      }
    }
  }
  constexpr unsigned B = scan_batch_of<G, Expect>();
  const size_t step = (size_t)g.size() * B;
  for (;;) {
    g.reset_claims();
    bool any_included = false;
    bool found_any = false;
    unsigned steps = 0;
    for (size_t base = 0; base < nelems; base += step) {
      ++steps;
      batch_masks m = scan_batch<B, false>(ivars, nelems, status, cmp, expect, 0, base + g.rank(), g.size());
      any_included |= m.included != 0;
      unsigned found = m.satisfied;
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
    if (!g.any(any_included)) return 0;  // empty set
    if (!Wait) return 0;
    if (wd.expired(steps * B)) fail_array_timeout(ctx, routine, ivars, nelems, status, cmp, expect);
  }
}

}  // namespace detail
}  // namespace gshmem
