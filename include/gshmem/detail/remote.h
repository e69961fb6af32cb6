// The device routines' remote branch: requests to the proxy thread for
// peers that the heap does not map (docs/remote.md). Device only.
//
// A routine translates its target with on_peer (update_access.h), which
// calls its remote branch for a remote peer; on that cold branch it builds
// one proxy_request and hands it to remote_issue, the one enqueue path for
// every request kind. Everything is inline (no call in any kernel: a CALL
// puts YIELD and convergence barriers into every poll loop); the warp and
// block forms enqueue from one rank after a group sync, so the code is
// there once per routine.
//
// Ordering (proxy_queue.h Q1-Q4, src/proxy/proxy.h P1-P5):
//   - requests are carried out in queue (ticket) order per target; a
//     signal or put_signal's signal reaches the target after the data handed
//     over before it to that PE (P2, P3);
//   - fence: a fence request (P4: everything before it, to every PE, is
//     delivered before anything after it);
//   - quiet: waits until `completed` covers every ticket taken before
//     (this thread's, and other threads' that happen before: Q2, Q3);
//   - blocking put, get, g and fetching atomics wait for their own ticket
//     (their source reusable, data or value in place); p, put_nbi and the
//     non-fetching atomics return once queued (complete at quiet).
// Waits end with one diagnostic line and a trap when the runtime raised the
// abort word (a lost peer, or the proxy's transport failed): never a hang.
#pragma once

#include <gshmem/detail/config.h>
#include <gshmem/detail/device_report.h>
#include <gshmem/detail/ordering.h>
#include <gshmem/detail/proxy_queue.h>
#include <gshmem/detail/state.h>
#include <gshmem/detail/transport_amo.h>

#include <stddef.h>
#include <string.h>

namespace gshmem {
namespace detail {

#if defined(__CUDACC__)

// True when this job has remote peers (the queue exists). One constant
// load: what fence, quiet and the barrier pay on an all-P2P job.
// Always false where the routines' remote branch is compiled out
// (GSHMEM_DEVICE_REMOTE=0, config.h).
GSHMEM_DEVICE bool remote_enabled() { return GSHMEM_DEVICE_REMOTE && gshmemi_state().proxy.slots != nullptr; }

GSHMEM_DEVICE proxy_queue remote_queue() {
  const gshmemi_device_state_t& s = gshmemi_state();
  proxy_queue q;
  q.slots = static_cast<proxy_request*>(s.proxy.slots);
  q.capacity = s.proxy.capacity;
  q.tail = s.proxy.tail;
  q.head = s.proxy.head;
  q.head_seen = s.proxy.head_seen;
  q.completed = s.proxy.completed;
  q.values = s.proxy.values;
  q.host_values = s.proxy.host_values;
  return q;
}

// Symmetric offset of a local symmetric address (the same on every PE).
GSHMEM_DEVICE unsigned long long remote_offset(const void* sym) {
  return (unsigned long long)((const char*)sym - (const char*)gshmemi_state().heap_base);
}

// The wait policy of remote requests: back off, and give up (one
// diagnostic line, then a trap) once the abort word is raised.
struct remote_keep_waiting {
  const char* routine;
  int pe;
  GSHMEM_DEVICE bool operator()() const {
#if GSHMEM_IN_DEVICE_CODE
    __nanosleep(64);
    const int* word = gshmemi_state().peer_lost_word;
    const int lost = word ? atomic_load<memory_order::relaxed, thread_scope::system>(word) : 0;
    if (__builtin_expect(lost != 0, 0)) {
      device_failure f;
      f.kind = GSHMEMI_FAIL_REMOTE_LOST;
      f.i0 = lost - 1;
      f.i1 = pe;
      fail_device(routine, f);
      return false;
    }
#endif
    return true;
  }
};

// Queues one request; returns its ticket. With Wait, returns once the proxy
// carried it out (completed covers it: acquire, so get data and fetched
// values are visible). Wait is a template parameter so that every lane
// that calls at one call site waits alike: the waits below are warp votes
// over the lanes that call together, which must all take part in them (a
// caller whose lanes may differ calls two call sites, see remote_put).
//
// The lanes of a warp that call it together also wait together: each lane
// publishes its request as soon as its own slot is free, and all leave the
// loop when all have published (and, with Wait, when all their requests
// are carried out). No lane waits for another lane's slot before it
// publishes, so no request waits on one that cannot be published. Why not
// each lane on its own: a loop whose exit depends on a value that differs
// between lanes (here the ticket, from an atomic) and on a load makes
// ptxas treat the kernel as one that may spin on a lock, and it then puts
// YIELD and convergence barriers into every loop of the kernel: into the
// P2P poll of a wait_until beside a p whose remote branch is never taken.
// The vote makes the exit the same for all lanes. Measured on 2 x H100
// (gshmem_perf_latency): one-way p + wait_until 1.11-1.17 of the raw
// floor with per-lane loops here, 1.00-1.02 without them.
template <bool Wait>
GSHMEM_DEVICE unsigned long long remote_issue(const proxy_request& r, const char* routine) {
  const proxy_queue q = remote_queue();
  const remote_keep_waiting keep{routine, r.pe};
  const unsigned lanes = __activemask();
  const unsigned long long ticket = proxy_reserve(q, 1);
  bool published = false;
  for (;;) {
    if (!published && proxy_slot_free(q, ticket)) {
      proxy_publish(q, ticket, r);
      published = true;
    }
    if (__all_sync(lanes, published)) break;
    if (!keep()) return ticket;  // keep ends the kernel when it gives up
  }
  if constexpr (Wait) {
    while (!__all_sync(lanes, proxy_test_completed(q, ticket + 1)))
      if (!keep()) break;
  }
  return ticket;
}

// Stores the low `width` (1, 2, 4 or 8) bytes of v at `at` (aligned to width).
GSHMEM_DEVICE void remote_store_packed(void* at, unsigned long long v, unsigned long long width) {
  switch (width) {
    case 1: *static_cast<unsigned char*>(at) = (unsigned char)v; break;
    case 2: *static_cast<unsigned short*>(at) = (unsigned short)v; break;
    case 4: *static_cast<unsigned int*>(at) = (unsigned int)v; break;
    default: *static_cast<unsigned long long*>(at) = v; break;
  }
}

// Queues an inline put without signal (a p, or a put of up to 8 bytes),
// from the lanes of a warp that call together; returns once queued.
//
// Warp aggregation (the idea of cooperative groups' coalesced atomics,
// applied to queue requests): lanes with the same target PE and width
// whose targets follow each other in lane order (among those lanes, each
// at the one below's target + width: a warp's p's to consecutive elements,
// the common loop `for (i = tid; i < n; i += blockDim.x) p(dest + i, ...)`)
// hand over ONE request, put_run, for all of them. The group takes its k tickets with
// one fetch_add; once every one of its slots is free, each lane stores its
// value, packed (lane i at byte i * width from the first ticket's word),
// into the device copies and their host mirror; after a warp barrier the
// group's first lane publishes the run in the first ticket's slot. The
// other tickets' slots stay unwritten: the consumer skips them
// (proxy_request_tickets). Every other lane issues a put_inline of its own
// (a run of one): lanes out of line with their neighbours, alone, on a
// queue without the host mirror, in a run larger than half the queue (its
// tickets could share a slot), or in one whose tickets would wrap around
// the copies' ring (its values would not lie in one piece; these lanes
// publish the run's tickets one each).
//
// As in remote_issue, no lane waits for a request that cannot be published:
// each run and each single request publishes as soon as its own slots are
// free; every vote and barrier names the whole set of calling lanes, and
// the loop ends for all of them at once.
GSHMEM_DEVICE void remote_issue_p(const proxy_request& r, const char* routine) {
  const proxy_queue q = remote_queue();
  const remote_keep_waiting keep{routine, r.pe};
  const unsigned lanes = __activemask();
  unsigned lane;
  asm("mov.u32 %0, %%laneid;" : "=r"(lane));
  const unsigned below = (1u << lane) - 1u;
  const unsigned long long width = r.bytes;
  const unsigned long long key = ((unsigned long long)(unsigned)r.pe << 8) | width;
  const unsigned mine = 1u << lane;
  // The lanes with this lane's PE and width, and the one of them just
  // below this lane: a lane whose target does not follow that lane's
  // starts a run; the run goes up to the next start.
  const unsigned group = __match_any_sync(lanes, key);
  const int previous = 31 - __clz(group & below);  // -1: none
  const unsigned long long previous_remote = __shfl_sync(lanes, r.remote, previous < 0 ? (int)lane : previous);
  const bool starts = previous < 0 || r.remote != previous_remote + width;
  const unsigned starts_mask = __ballot_sync(lanes, starts) & group;
  const unsigned lead = 31u - (unsigned)__clz(starts_mask & (below | mine));
  const unsigned later_starts = starts_mask & ~(below | mine);
  const unsigned up_to = later_starts != 0 ? (1u << (__ffs(later_starts) - 1)) - 1u : ~0u;
  const unsigned segment = group & ~((1u << lead) - 1u) & up_to;
  const bool packable = width == 1 || width == 2 || width == 4 || width == 8;
  const unsigned segment_size = (unsigned)__popc(segment);
  const bool runnable = q.host_values != nullptr && packable && segment_size > 1 &&
                        (unsigned long long)segment_size <= q.capacity / 2;
  const unsigned run = runnable ? segment : mine;
  const unsigned k = (unsigned)__popc(run);
  const unsigned rank = (unsigned)__popc(run & below);
  const int first_lane = __ffs(run) - 1;
  const unsigned long long base = __shfl_sync(lanes, r.remote, first_lane);
  unsigned long long first = 0;
  if (rank == 0) first = proxy_reserve(q, k);
  first = __shfl_sync(lanes, first, first_lane);
  const unsigned long long ring = 2 * q.capacity - 1;
  const bool as_run = k > 1 && (first & ring) + k <= ring + 1;
  const unsigned long long ticket = first + rank;
  bool done = false;
  for (;;) {
    const bool free = !done && proxy_slot_free(q, ticket);
    const unsigned free_lanes = __ballot_sync(lanes, free);
    const bool go = as_run ? (free_lanes & run) == run : free;
    if (go && as_run) {
      const unsigned long long at = (first & ring) * 8 + rank * width;
      remote_store_packed(reinterpret_cast<char*>(q.values) + at, r.value, width);
      remote_store_packed(reinterpret_cast<char*>(q.host_values) + at, r.value, width);
    }
    __syncwarp(lanes);  // the run's values stored before its first lane publishes
    if (go) {
      if (!as_run) {
        proxy_publish(q, ticket, r);
      } else if (rank == 0) {
        proxy_request run_request = r;
        run_request.op = proxy_op_put_run;
        run_request.bytes = k * width;
        run_request.remote = base;
        run_request.aux = k;
        run_request.sub_op = (unsigned)width;
        proxy_publish_run(q, first, run_request);
      }
      done = true;
    }
    if (__all_sync(lanes, done)) break;
    if (!keep()) return;  // keep ends the kernel when it gives up
  }
}

GSHMEM_DEVICE proxy_request remote_request(unsigned op, int pe, unsigned long long bytes, unsigned long long remote) {
  proxy_request r;
  r.seq = 0;
  r.op = op;
  r.pe = pe;
  r.bytes = bytes;
  r.remote = remote;
  r.local = 0;
  r.value = 0;
  r.aux = 0;
  r.sub_op = 0;
  r.flags = 0;
  return r;
}

// A group's remote request: the group syncs (its ranks' source data written
// before rank 0 hands it over), rank 0 issues it, the group syncs again (a
// get's data then visible to every rank). The code is there once per call.
template <class Group, class Issue>
GSHMEM_DEVICE void remote_by_first_rank(const Group& g, Issue&& issue) {
  g.sync();
  if (g.rank() == 0) issue();
  g.sync();
}

// quiet's remote half: waits until every request taken so far is carried out.
GSHMEM_DEVICE void remote_quiet(const char* routine) {
  const proxy_queue q = remote_queue();
  (void)proxy_wait_completed(q, proxy_quiet_target(q), remote_keep_waiting{routine, -1});
}

// fence's remote half: a fence request (non-blocking).
GSHMEM_DEVICE void remote_fence(const char* routine) {
  (void)remote_issue<false>(remote_request(proxy_op_fence, -1, 0, 0), routine);
}

// This hardware thread's result word: where the proxy writes a fetched
// value or a small get's data. A thread that waits for its result stays
// resident on its (SM, warp slot, lane), so no other thread uses the word
// meanwhile.
GSHMEM_DEVICE unsigned long long* remote_result_word() {
  const gshmemi_device_state_t& s = gshmemi_state();
  unsigned sm, warp, lane;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
  asm volatile("mov.u32 %0, %%warpid;" : "=r"(warp));
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
  const unsigned long long index =
      (unsigned long long)(sm % (unsigned)s.proxy.result_sms) * s.proxy.results_per_sm + warp * 32u + lane;
  return s.proxy.results + index;
}

// Reads `bytes` (1..8) of this thread's result word into dst.
GSHMEM_DEVICE void remote_read_result(void* dst, const unsigned long long* word, size_t bytes) {
  const unsigned long long v = atomic_load<memory_order::relaxed, thread_scope::system>(word);
  memcpy(dst, &v, bytes);
}

// A put of n bytes from local `source` to symmetric `dest` on remote `pe`.
// A source the proxy can read (global memory) travels as one request; one
// it cannot (shared or local memory) as inline requests of 8 bytes. Blocking:
// waits until the proxy carried it out (the source reusable), else returns
// once queued. With a signal (sig_addr != NULL), the signal follows the
// data (put_signal: P2, or P3 after inline pieces).
GSHMEM_DEVICE void remote_put(void* dest, const void* source, size_t n, int pe, bool blocking, uint64_t* sig_addr,
                              uint64_t signal, int sig_op, const char* routine) {
  const unsigned long long remote = remote_offset(dest);
  if (n > 8 && !__isGlobal(source)) {
    // Shared or local memory: the bytes travel inside the requests.
    for (size_t at = 0; at < n; at += 8) {
      const size_t piece = n - at < 8 ? n - at : 8;
      proxy_request r = remote_request(proxy_op_put_inline, pe, piece, remote + at);
      memcpy(&r.value, (const char*)source + at, piece);
      (void)remote_issue<false>(r, routine);
    }
    n = 0;
  }
  proxy_request r = remote_request(proxy_op_nop, pe, n, remote);
  if (n > 0 && n <= 8) {
    r.op = proxy_op_put_inline;
    memcpy(&r.value, source, n);
    if (sig_addr == nullptr) {
      remote_issue_p(r, routine);  // the data is in the request: nothing to wait for
      return;
    }
    (void)remote_issue<false>(r, routine);
    n = 0;
  }
  if (sig_addr != nullptr) {
    r.op = n > 0 ? proxy_op_put_signal : proxy_op_signal;
    r.local = (unsigned long long)source;
    r.value = signal;
    r.sub_op = (unsigned)sig_op;
    if (n > 0) r.aux = remote_offset(sig_addr);
    else r.remote = remote_offset(sig_addr);
  } else if (n > 0) {
    r.op = proxy_op_put;
    r.local = (unsigned long long)source;
  } else {
    return;
  }
  // Lanes may differ here (their sizes and sources pick r.op): one call
  // site each way, so that those that wait vote only among themselves.
  if (blocking && r.op != proxy_op_signal) (void)remote_issue<true>(r, routine);
  else (void)remote_issue<false>(r, routine);
}

// A get of n bytes from symmetric `source` on remote `pe` into local
// `dest`; returns with the data in dest. A dest the proxy can write (global
// memory) takes one request; otherwise pieces of 8 bytes through this
// thread's result word.
GSHMEM_DEVICE void remote_get(void* dest, const void* source, size_t n, int pe, const char* routine) {
  const unsigned long long remote = remote_offset(source);
  if (__isGlobal(dest)) {
    proxy_request r = remote_request(proxy_op_get, pe, n, remote);
    r.local = (unsigned long long)dest;
    (void)remote_issue<true>(r, routine);
    return;
  }
  unsigned long long* word = remote_result_word();
  for (size_t at = 0; at < n; at += 8) {
    const size_t piece = n - at < 8 ? n - at : 8;
    proxy_request r = remote_request(proxy_op_get, pe, piece, remote + at);
    r.local = (unsigned long long)word;
    (void)remote_issue<true>(r, routine);
    remote_read_result((char*)dest + at, word, piece);
  }
}

// A remote atomic GSHMEMI_TRANSPORT_AMO_* (detail/transport_amo.h) on a 4-
// or 8-byte object; with fetch, waits and returns the old value (else
// returns T() once queued).
template <class T>
GSHMEM_DEVICE T remote_amo(T* dest, int pe, unsigned op, T operand, T compare, bool fetch, const char* routine) {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "remote atomics take 4- or 8-byte objects");
  proxy_request r = remote_request(proxy_op_amo, pe, sizeof(T), remote_offset(dest));
  r.sub_op = op;
  memcpy(&r.value, &operand, sizeof(T));
  memcpy(&r.aux, &compare, sizeof(T));
  T out;
  memset(&out, 0, sizeof(T));
  if (!fetch) {
    (void)remote_issue<false>(r, routine);
    return out;
  }
  unsigned long long* word = remote_result_word();
  r.local = (unsigned long long)word;
  (void)remote_issue<true>(r, routine);
  remote_read_result(&out, word, sizeof(T));
  return out;
}

// A signal on remote `pe` (signal_op; barrier announcements): delivered
// after the data this PE handed over before it to that PE (P3).
GSHMEM_DEVICE void remote_signal(uint64_t* sig_addr, uint64_t value, int sig_op, int pe, const char* routine) {
  proxy_request r = remote_request(proxy_op_signal, pe, 8, remote_offset(sig_addr));
  r.value = value;
  r.sub_op = (unsigned)sig_op;
  (void)remote_issue<false>(r, routine);
}

#endif  // __CUDACC__

}  // namespace detail
}  // namespace gshmem
