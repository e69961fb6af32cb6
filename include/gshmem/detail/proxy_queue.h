// The request queue from GPU threads (producers) to the runtime's proxy
// thread (the one consumer) that carries out operations on remote peers:
// peers reached through a network transport instead of a mapped heap (see
// docs/remote.md). Compiles for the device and the host, like the other
// detail headers: kernels issue requests, and the CPU test suite runs the
// very same producer code with host threads.
//
// ---------------------------------------------------------------- the design
//
// A ring of `capacity` (a power of two) fixed-size request slots, three
// 64-bit counters and one sequence word per slot:
//   tail       the next ticket. A producer takes tickets with ONE fetch_add
//              (relaxed): no lock, any number of threads, warps and blocks
//              at once; a warp or block may take n consecutive tickets with
//              one fetch_add by one thread.
//   head       written by the consumer only: every ticket below it has been
//              consumed and its slot may be reused.
//   completed  written by the consumer only: every ticket below it has been
//              carried out (the transport reported it complete).
//   slot.seq   ticket + 1 once the request of `ticket` is in the slot.
// A producer with ticket t
//   1. waits while t - head >= capacity (the slot still holds the request
//      of t - capacity): back-pressure. Nothing is dropped or overwritten;
//      the producer waits for the consumer. head is read with acquire, so
//      the consumer's reads of the old request happen before the new
//      request is written;
//   2. writes the request into slot t % capacity (plain stores: the slot
//      is the producer's alone until it publishes);
//   3. publishes it with a release store of seq = t + 1.
// The consumer, at ticket h, waits for slot h % capacity to hold seq == h + 1
// (acquire: the request's fields are then visible), copies the request out,
// and after a batch stores head (release). Stale slots need no clearing:
// the value a slot keeps from an earlier lap (h + 1 - k * capacity) never
// equals h + 1. That is the per-slot sequence of D. Vyukov's bounded MPMC
// queue, with the free-slot test done against `head` instead of the slot's
// own word, so that a producer's common case reads a counter it can keep in
// fast memory (head_seen below) rather than a word in host memory.
//
// head_seen (optional) is a lower bound of head that producers keep where
// they read it cheaply (device memory, when the ring is in host memory): a
// producer tests its ticket against it first and reads the real head only
// when that test fails, then raises head_seen (fetch_max, release). The
// release/acquire pair on head_seen carries the consumer's "slot consumed"
// through to later producers that never read head themselves.
//
// A run (proxy_op_put_run) takes k consecutive tickets with one fetch_add
// and publishes only the first one's slot; the consumer, having read it,
// goes on at the ticket after the run. The other k - 1 slots keep what an
// earlier lap left (a seq that never equals their ticket + 1) and are
// reused as any slot once head passes them. A producer of a run publishes
// only once the slot of its LAST ticket is free (then all of them are,
// head being one counter), so a run never waits on a request behind it.
//
// One ring for every block of the PE, not one per block: one ticket order
// for all gives Q3 below across blocks (a signal issued after a grid-wide
// barrier is consumed after every block's puts), which per-block rings
// would lose; and the one contended access, a fetch_add on a device-memory
// counter, costs far less than what the proxy spends per request, so it is
// not the limit. Past one proxy thread, the way to scale is several rings,
// each taking every request for its set of target PEs (per-PE order is all
// that fence and signal need), each with its own consumer.
//
// No deadlock: let u be the smallest ticket not yet published. Every ticket
// below u is published, so the consumer reaches u, having consumed
// u - capacity: u's slot is free and its producer proceeds. (Producers must
// be able to make progress independently, which GPUs since Volta give
// spinning threads of one warp.) A ticket that was reserved and never
// published stops the consumer there; the wait functions below therefore
// give up only when the job is failing anyway (a lost peer, a timeout), and
// a queue whose producer gave up is not used again.
//
// ----------------------------------------------------------------- ordering
//
// The guarantee this queue gives, exactly:
//   (Q1) The consumer consumes requests in ticket order, one after another.
//   (Q2) Ticket order extends each thread's program order: a request a thread
//        issues after another has the larger ticket (one thread's successive
//        fetch_adds on tail read successive values).
//   (Q3) Ticket order extends happens-before between producers: if thread A
//        issued request a, then A's later release is acquired by thread B
//        (a __syncthreads, a flag, a barrier), and then B issues b, then
//        ticket(a) < ticket(b) (coherence of tail). So a block that issues
//        puts, synchronizes, and lets one thread issue a signal has the
//        signal consumed after every put.
//   (Q4) When completed >= n (acquire load), every request with a ticket
//        below n was carried out, and what the consumer wrote for those
//        requests (get data, fetched values) is visible to the reader.
// Q1-Q3 order the hand-over to the proxy only. What the proxy then promises
// about delivery at the target (a put_signal's data before its signal; a
// fence between two requests) is the proxy's rule, written in src/proxy/
// proxy.h; quiet is: read tail (proxy_quiet_target), then wait until
// completed reaches it (proxy_wait_completed). That covers every request
// the calling thread issued before, and every request of other threads that
// happens before the call (Q3), and maybe some later ones.
//
// ------------------------------------------------------------------- memory
//
// The queue is a view of memory someone else allocated (src/proxy/): a CPU
// test uses ordinary host memory; the runtime puts the slots, head and
// completed in mapped pinned host memory (written by the GPU over PCIe, read
// by the proxy locally) and tail and head_seen in device memory (only GPU
// threads update them, so no atomics cross PCIe). Every access is at system
// scope, through the ordering layer (ordering.h), because the consumer is a
// host thread. On the GPU, tail and head_seen are updated with global-space
// atomics (ordering.h): they may be in device or mapped host memory, never
// in shared or local memory.
#pragma once

#include <gshmem/detail/config.h>
#include <gshmem/detail/ordering.h>

#include <stddef.h>
#include <stdint.h>
#if !GSHMEM_IN_DEVICE_CODE
#include <thread>
#endif

namespace gshmem {
namespace detail {

// What a request asks the proxy to do. Field use per operation: see
// proxy_request.
enum proxy_op : unsigned int {
  proxy_op_nop = 0,        // nothing (consumed and completed like any other)
  proxy_op_put = 1,        // bytes from local address `local` to `remote` on `pe`
  proxy_op_put_inline = 2, // `bytes` (1..8) bytes of `value` to `remote` on `pe` (p)
  proxy_op_get = 3,        // bytes from `remote` on `pe` to local address `local`
  proxy_op_amo = 4,        // atomic `sub_op` of width `bytes` on `remote`; operand `value`,
                           // compare `aux` (compare-swap); `local`: where the old value goes, or 0
  proxy_op_signal = 5,     // signal `sub_op` (GSHMEM_SIGNAL_SET/ADD) of `value` on `remote`
  proxy_op_put_signal = 6, // put (as proxy_op_put), then signal `sub_op` of `value` on `aux`:
                           // the data is delivered before the signal
  proxy_op_fence = 7,      // this PE's earlier requests to each PE are delivered before its
                           // later ones (pe is -1)
  proxy_op_put_run = 8,    // a run of `aux` inline puts of `sub_op` (1, 2, 4 or 8) bytes each to
                           // consecutive targets from `remote` on `pe` (`bytes` = aux * sub_op in
                           // all), issued together by the lanes of a warp: it takes `aux`
                           // consecutive tickets, of which only the first has its slot written
                           // (proxy_publish_run); the values lie packed in the device copies and
                           // in their host mirror from the first ticket's word on
  proxy_op_count = 9
};

// One request: 64 bytes, one slot. `remote` (and `aux` for put_signal) are
// byte offsets in the target PE's symmetric space (address - heap_base), the
// same on every PE; `local` is an address in this process.
struct alignas(64) proxy_request {
  unsigned long long seq;    // ticket + 1 once published (written last, release)
  unsigned int op;           // proxy_op
  int pe;                    // target PE (-1 for fence)
  unsigned long long bytes;  // data bytes (put, get, put_inline), operand width (amo)
  unsigned long long remote; // target offset
  unsigned long long local;  // local address (put source, get destination, amo result) or 0
  unsigned long long value;  // inline data (put_inline), operand (amo), signal value
  unsigned long long aux;    // compare value (amo compare-swap), signal offset (put_signal)
  unsigned int sub_op;       // amo operation / signal operation
  unsigned int flags;        // producer-defined (tests use it for the producer's id)
};
static_assert(sizeof(proxy_request) == 64, "one request is one 64-byte slot");

// A view of one queue. Copyable; the memory belongs to whoever made it.
struct proxy_queue {
  proxy_request *slots;          // capacity slots, zeroed before first use
  unsigned long long capacity;   // a power of two
  unsigned long long *tail;      // next ticket (producers)
  unsigned long long *head;      // tickets below it consumed, slots free (consumer)
  unsigned long long *head_seen; // a lower bound of head kept by producers; may be NULL
  unsigned long long *completed; // tickets below it carried out (consumer)
  // May be NULL. 2 * capacity words of device memory: the producer of
  // ticket t also stores its request's `value` at values[t % (2 * capacity)]
  // before publishing, so that the consumer can hand an inline value (p,
  // a signal's value) to a transport that copies from GPU memory (the
  // proxy's device sources, src/proxy/proxy.h). Two laps: the producer
  // of t + capacity writes the other half, and the one of t + 2 * capacity
  // waits (back-pressure) until t + capacity was consumed, which is a later
  // pass of the consumer than t's, begun after t's pass was complete.
  unsigned long long *values;
  // May be NULL (then producers issue no put_run). 2 * capacity words in
  // memory the consumer reads cheaply (mapped pinned host memory), indexed
  // as `values`: a put_run's packed values, for a transport that copies
  // from host memory (staging). The same two-lap argument holds.
  unsigned long long *host_values;
};

// How many tickets request `r` takes: a put_run its `aux`, any other 1.
GSHMEM_HD_CONSTEXPR unsigned long long proxy_request_tickets(const proxy_request &r) {
  return r.op == proxy_op_put_run && r.aux > 1 ? r.aux : 1;
}

GSHMEM_HD_CONSTEXPR bool proxy_capacity_valid(unsigned long long c) { return c != 0 && (c & (c - 1)) == 0; }

// ------------------------------------------------------------------ waiting
//
// Every wait below takes a functor `keep_waiting()`, called after each
// unsuccessful look: it may back off, and returns false to give up (the
// runtime's gives up when a peer is lost or GSHMEM_WAIT_TIMEOUT passes). The
// default spins with a short sleep forever.
struct proxy_spin {
  GSHMEM_HD bool operator()() const {
#if GSHMEM_IN_DEVICE_CODE
    __nanosleep(64);
#else
    std::this_thread::yield();
#endif
    return true;
  }
};

// ---------------------------------------------------------------- producers

// Takes n consecutive tickets (n >= 1) and returns the first. One relaxed
// fetch_add: it orders nothing; publication (release) does.
GSHMEM_HD unsigned long long proxy_reserve(const proxy_queue &q, unsigned long long n = 1) {
  return atomic_fetch_add_global<memory_order::relaxed, thread_scope::system>(q.tail, n);
}

// One look at back-pressure: whether the slot of `ticket` is free now
// (acquire: the consumer is done with its previous request). The lower
// bound head_seen answers most looks without reading head across PCIe; a
// look at head raises it.
GSHMEM_HD bool proxy_slot_free(const proxy_queue &q, unsigned long long ticket) {
  if (q.head_seen != nullptr) {
    const unsigned long long seen = atomic_load<memory_order::acquire, thread_scope::system>(q.head_seen);
    if (ticket - seen < q.capacity) return true;
  }
  const unsigned long long h = atomic_load<memory_order::acquire, thread_scope::system>(q.head);
  if (ticket - h >= q.capacity) return false;
  if (q.head_seen != nullptr) atomic_reduce_max_global<memory_order::release, thread_scope::system>(q.head_seen, h);
  return true;
}

// Waits until the slot of `ticket` is free. True when it is; false when
// keep_waiting gave up (the ticket then stays unpublished).
template <class Wait = proxy_spin>
GSHMEM_HD bool proxy_wait_slot(const proxy_queue &q, unsigned long long ticket, Wait keep_waiting = Wait()) {
  while (!proxy_slot_free(q, ticket))
    if (!keep_waiting()) return false;
  return true;
}

// The fields of `r` but seq, into the slot of `ticket` (plain stores: the
// slot is the producer's alone until it publishes). Returns the slot.
GSHMEM_HD proxy_request *proxy_write_slot(const proxy_queue &q, unsigned long long ticket, const proxy_request &r) {
  proxy_request *s = &q.slots[ticket & (q.capacity - 1)];
  s->op = r.op;
  s->pe = r.pe;
  s->bytes = r.bytes;
  s->remote = r.remote;
  s->local = r.local;
  s->value = r.value;
  s->aux = r.aux;
  s->sub_op = r.sub_op;
  s->flags = r.flags;
  return s;
}

// Writes `r` (its seq ignored) into the slot of `ticket` and publishes it.
// Call only after proxy_wait_slot returned true for that ticket.
GSHMEM_HD void proxy_publish(const proxy_queue &q, unsigned long long ticket, const proxy_request &r) {
  proxy_request *s = proxy_write_slot(q, ticket, r);
  if (q.values != nullptr) q.values[ticket & (2 * q.capacity - 1)] = r.value;
  // Release as a fence, then a relaxed (volatile) store of seq: the same
  // instructions as a release store (MEMBAR.ALL.SYS, then a strong store;
  // SASS sm_90), and the same release pattern in the PTX model. But ptxas
  // reads an atomic whose result feeds a strong store (the ticket's
  // fetch_add, then st.release or st.relaxed of the slot's seq) as a lock
  // being taken and released, and then puts YIELD and a convergence
  // barrier into every poll loop of the kernel: into the P2P poll of a
  // kernel whose routines merely hold this code on their cold remote
  // branch. A volatile store (ld/st.volatile: relaxed, system scope) does
  // not set that off.
  atomic_fence<memory_order::release, thread_scope::system>();
  atomic_store<memory_order::relaxed, thread_scope::system, compiler_order::movable>(&s->seq, ticket + 1);
}

// Publishes the put_run `r` (its seq ignored) whose first ticket is
// `first`: the slot of `first` only, and no value copy (the lanes stored
// their values, packed, in values and host_values from word `first` on, and
// synchronized with the publishing thread, before). Call only after the
// slot of first + r.aux - 1 was seen free (then every slot of the run is).
GSHMEM_HD void proxy_publish_run(const proxy_queue &q, unsigned long long first, const proxy_request &r) {
  proxy_request *s = proxy_write_slot(q, first, r);
  // As proxy_publish: a release fence (cumulative: it also releases the
  // other lanes' value stores, ordered before it by their warp barrier),
  // then the relaxed store of seq.
  atomic_fence<memory_order::release, thread_scope::system>();
  atomic_store<memory_order::relaxed, thread_scope::system, compiler_order::movable>(&s->seq, first + 1);
}

// Issues one request: reserve, wait for the slot, publish. Returns true and
// the ticket in *ticket_out (may be NULL); false when keep_waiting gave up.
template <class Wait = proxy_spin>
GSHMEM_HD bool proxy_issue(const proxy_queue &q, const proxy_request &r, unsigned long long *ticket_out = nullptr,
                           Wait keep_waiting = Wait()) {
  const unsigned long long t = proxy_reserve(q, 1);
  if (ticket_out != nullptr) *ticket_out = t;
  if (!proxy_wait_slot(q, t, keep_waiting)) return false;
  proxy_publish(q, t, r);
  return true;
}

// The count quiet waits for: every ticket taken so far (by this thread, and
// by others before this call in happens-before order: Q2, Q3).
GSHMEM_HD unsigned long long proxy_quiet_target(const proxy_queue &q) {
  return atomic_load<memory_order::relaxed, thread_scope::system>(q.tail);
}

// Whether every ticket below `target` was carried out (acquire: their
// results are visible after a true answer).
GSHMEM_HD bool proxy_test_completed(const proxy_queue &q, unsigned long long target) {
  return atomic_load<memory_order::acquire, thread_scope::system>(q.completed) >= target;
}

// Waits until every ticket below `target` was carried out. True, or false
// when keep_waiting gave up. Quiet is proxy_wait_completed(q,
// proxy_quiet_target(q)); a blocking operation waits for its own ticket + 1.
template <class Wait = proxy_spin>
GSHMEM_HD bool proxy_wait_completed(const proxy_queue &q, unsigned long long target, Wait keep_waiting = Wait()) {
  while (!proxy_test_completed(q, target))
    if (!keep_waiting()) return false;
  return true;
}

// ----------------------------------------------------------------- consumer
//
// One consumer thread per queue; it keeps its own copy of head (`next`).

// Whether the request of ticket `next` is published; if so, copies it to *out.
GSHMEM_HD bool proxy_peek(const proxy_queue &q, unsigned long long next, proxy_request *out) {
  const proxy_request *s = &q.slots[next & (q.capacity - 1)];
  if (atomic_load<memory_order::acquire, thread_scope::system>(&s->seq) != next + 1) return false;
  *out = *s;
  return true;
}

// Frees every slot below `new_head` for producers (after the requests were
// copied out).
GSHMEM_HD void proxy_release_slots(const proxy_queue &q, unsigned long long new_head) {
  atomic_store<memory_order::release, thread_scope::system>(q.head, new_head);
}

// Tells producers that every ticket below `n` was carried out.
GSHMEM_HD void proxy_publish_completed(const proxy_queue &q, unsigned long long n) {
  atomic_store<memory_order::release, thread_scope::system>(q.completed, n);
}

// Consumes published requests from ticket *next on, in ticket order, up to
// `max` tickets (a put_run takes several: proxy_request_tickets; one that
// would go past max is left for the next call, unless it is the first),
// calling handle(request, ticket) for each after copying it out of its
// slot; then frees their slots (one release store of head) and advances
// *next past them. Returns how many tickets were consumed (0 when the next
// one is not published yet). handle returns false to stop after that
// request (it still counts as consumed).
template <class Handle>
GSHMEM_HD unsigned long long proxy_consume(const proxy_queue &q, unsigned long long *next, unsigned long long max,
                                           Handle &&handle) {
  unsigned long long n = 0;
  proxy_request r;
  while (n < max && proxy_peek(q, *next + n, &r)) {
    const unsigned long long tickets = proxy_request_tickets(r);
    if (n != 0 && n + tickets > max) break;
    const unsigned long long ticket = *next + n;
    n += tickets;
    if (!handle(r, ticket)) break;
  }
  if (n != 0) {
    *next += n;
    proxy_release_slots(q, *next);
  }
  return n;
}

}  // namespace detail
}  // namespace gshmem
