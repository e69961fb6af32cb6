// The proxy: the runtime thread that drains the request queue kernels write
// (include/gshmem/detail/proxy_queue.h) and carries each request out through
// a remote transport module (src/transport/transport_plugin.h).
//
// What the proxy promises, on top of the queue's hand-over order (Q1-Q4 in
// proxy_queue.h):
//   (P1) Requests are handed to the transport in ticket order.
//   (P2) A put_signal's data is delivered before its signal: the proxy puts,
//        fences that PE, then signals.
//   (P3) A signal request is delivered after every put, inline put and
//        atomic handed over before it to the same PE (the proxy fences that
//        PE first when such data is outstanding). Stronger than the P2P
//        path's signal_op, which orders nothing: a remote signal costs a
//        network round trip anyway, a fence inside the NIC's queue little.
//   (P4) A fence request: everything handed over before it, to every PE, is
//        delivered before anything after it (one transport fence, issued
//        only when something is outstanding).
//   (P5) completed = n is published only after a transport quiet that
//        covers every request below ticket n: quiet's guarantee (Q4) is
//        remote completion, get data and fetched values in local memory.
// Together with Q2/Q3: a signal a thread issues after its puts (put_signal,
// or put; fence; signal_op) reaches the target after the data, as on the
// P2P path.
//
// Coalescing. Within one pass the proxy holds back puts (inline and with a
// source address) per target PE and hands the inline ones over merged, as
// few transport puts as their addresses allow:
//   - held-back puts to a PE are handed over before any other request to
//     that PE (get, atomic, signal, put_signal) and before any fence, so
//     P2-P4 and the order between a put and a later get, atomic or signal
//     to the same PE are as without coalescing; only puts to one PE with
//     no such request between them change order among themselves, which
//     OpenSHMEM allows (puts are unordered until a fence or quiet);
//   - they are sorted by target offset; ranges that touch or overlap form
//     a run. A run of inline puts becomes one put of a staging copy in
//     which overlapping bytes hold the value of the request issued last
//     (the write that comes later in ticket order wins, as it would when
//     the puts were delivered in order). A put with a source is never
//     merged: sources that follow each other in local memory may be two
//     allocations, which one CUDA copy or one registered region need not
//     span. Where such puts overlap each other or inline ones, that run
//     is handed over one request at a time in ticket order, as before;
//   - the pass ends with every held-back put handed over, then its one
//     quiet (P5).
//
// Failure: the first transport error (GSHMEMX_ERROR_PEER_LOST when a
// connection failed) is recorded, reported once through the error hook (the
// runtime raises the device-visible abort word there, as for a peer its
// liveness monitor finds gone), and from then on requests are consumed and
// dropped, never carried out, and completed never moves again: producers
// are never blocked by a dead proxy (back-pressure keeps working), and
// waits on completion end through the abort word, not a hang.
#pragma once

#include <gshmem/detail/config.h>
#include <gshmem/detail/proxy_queue.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

#include "transport/transport_plugin.h"

namespace gshmemi {

// A queue's memory in ordinary host memory: for host-side producers and the
// CPU tests (the runtime's device queue lives in pinned host memory plus
// device memory, see proxy_queue.h). Each counter has a cache line of its own.
class GSHMEM_API HostProxyQueue {
 public:
  // capacity: a power of two (else std::invalid_argument). with_head_seen:
  // give producers the head_seen lower bound.
  explicit HostProxyQueue(unsigned long long capacity, bool with_head_seen = true);
  HostProxyQueue(const HostProxyQueue &) = delete;
  HostProxyQueue &operator=(const HostProxyQueue &) = delete;
  const gshmem::detail::proxy_queue &view() const { return view_; }

 private:
  struct alignas(64) Counter {
    unsigned long long value = 0;
  };
  std::unique_ptr<gshmem::detail::proxy_request[]> slots_;
  std::unique_ptr<Counter[]> counters_;  // tail, head, head_seen, completed
  gshmem::detail::proxy_queue view_{};
};

class GSHMEM_API Proxy {
 public:
  // Drains `queue` into `transport` (both outlive the proxy). n_pes bounds
  // the target PEs (a request for another PE is an error); batch: the most
  // requests consumed between two quiets (and the window in which puts are
  // coalesced).
  Proxy(const gshmem::detail::proxy_queue &queue, const gshmemi_transport_ops_t &transport, int n_pes,
        unsigned long long batch = 64);
  ~Proxy();  // stop()
  Proxy(const Proxy &) = delete;
  Proxy &operator=(const Proxy &) = delete;

  // Called once, on the draining thread, with the first error and the PE it
  // concerns (-1 if none). Set before start().
  void set_error_hook(std::function<void(int code, int pe)> hook) { hook_ = std::move(hook); }

  // Runs progress() on a thread of its own until stop(). 0, or
  // GSHMEMX_ERROR_INTERNAL when no thread could be started.
  int start();
  // Ends the thread after it drained what is published (idempotent). The
  // runtime stops producers first: a ticket reserved and never published
  // is not waited for.
  void stop();

  // One pass on the calling thread (instead of start()): consumes up to
  // `batch` published requests (copied out, their slots freed at once),
  // carries them out (puts coalesced), quiets the transport if
  // anything was issued, publishes completion. Returns how many requests
  // were consumed, or the recorded error (negative) once one occurred
  // (requests are still consumed then, and dropped).
  long long progress();

  int error() const { return error_.load(std::memory_order_acquire); }
  int failed_pe() const { return failed_pe_.load(std::memory_order_acquire); }
  // Requests consumed so far (the consumer's head).
  unsigned long long consumed() const { return consumed_.load(std::memory_order_acquire); }
  // Transport fences the proxy issued (P2-P4), for tests.
  unsigned long long fences_issued() const { return fences_.load(std::memory_order_relaxed); }

  // Where the draining thread's time went, cumulative since construction
  // (steady_clock; any thread may read, each field on its own: a reader
  // racing a pass may see one field of that pass and not another).
  struct Timings {
    unsigned long long passes = 0;       // passes that consumed at least one request
    unsigned long long issue_ns = 0;     // carrying requests out (the transport's calls, and the work around them)
    unsigned long long quiets = 0;       // transport quiets (one per pass that issued anything)
    unsigned long long quiet_ns = 0;     // in them: until the pass's requests were complete at their targets
    unsigned long long idle_sleeps = 0;  // sleeps of the idle loop (start() only)
    unsigned long long transport_events = 0;  // what idle passes' transport progress handled (peers served)
    unsigned long long transport_puts = 0;    // puts handed to the transport (a put_signal's included)
    unsigned long long puts_coalesced = 0;    // inline puts (p's) and put requests carried inside another's
                                              // transport put (a warp's run of p's counts each p)
    unsigned long long runs = 0;              // put_run requests (a warp's run of p's in one request)
  };
  Timings timings() const;

  // How long start()'s thread keeps polling (yielding the core between
  // polls) after the last request, or the last pass in which the transport
  // handled something (a peer's message), before it sleeps between polls
  // (20 us a sleep). A sleeping proxy answers its own kernels and the transport's
  // messages from peers late. Set before start(); default 1 ms.
  void set_idle_spin(std::chrono::nanoseconds spin) { idle_spin_ = spin; }

  // The thread shares its CPU(s) with a thread that does not yield them (an
  // application thread spinning in cudaStreamSynchronize): a yield would
  // hand the core over for a whole time slice (milliseconds). Then, while
  // work came recently, it sleeps kSharedPoll between polls (with a timer
  // slack of a microsecond: the scheduler wakes a sleeper that used little
  // CPU ahead of a spinning thread), never yields. Set before start().
  void set_shared_cpu(bool shared) { shared_cpu_ = shared; }
  static constexpr std::chrono::microseconds kSharedPoll{5};

  // How long a pass that took a warp's run of p's keeps collecting more
  // requests after the last one came (progress()).
  static constexpr std::chrono::microseconds kBurstGap{2};

  // The draining thread (after start()), for its CPU placement.
  std::thread::native_handle_type thread_handle() { return thread_.native_handle(); }

 private:
  // A put held back for coalescing: its request's fields, and its place in
  // the pass (ticket order).
  struct HeldPut {
    unsigned long long remote, bytes;
    unsigned long long local;  // source address (puts with a source)
    unsigned long long order;  // its ticket (ticket order)
    bool is_inline;
    // Inline puts: their bytes in host memory (the request's value as the
    // pass copied it out, or a put_run's values in the queue's host mirror).
    const unsigned char *host_data;
    // Inline puts: the address of the value's device copy (the queue's
    // values) when the transport would rather copy from GPU memory
    // (device_source), else 0.
    unsigned long long device_value;
  };
  int execute(const gshmem::detail::proxy_request &r, unsigned long long ticket);
  // The device copy of the value of the request of `ticket` (the queue's
  // values: a put_run's values start there), or 0 where the queue has none.
  unsigned long long device_value(unsigned long long ticket) const;
  bool wants_device_source(int pe, unsigned long long remote, unsigned long long bytes) const;
  int signal(int pe, unsigned long long remote, unsigned int sig_op, unsigned long long value,
             unsigned long long ticket);
  int transport_put(int pe, unsigned long long remote, const void *local, unsigned long long bytes);
  int put_one(int pe, const HeldPut &h);
  int put_one_staged(int pe, const HeldPut &h);  // an inline put from host staging, its device copy aside
  int put_staged(int pe, const HeldPut *first, const HeldPut *last, unsigned long long start, unsigned long long end);
  int put_run(int pe, HeldPut *first, HeldPut *last, bool overlap);
  int flush_pe(int pe);   // hands over the puts held back for pe
  int flush_all();        // for every PE, in the order they were first held
  void drop_held();
  int fence_pe(int pe);
  int fence_all();
  void fail(int code, int pe);
  void run();

  gshmem::detail::proxy_queue q_;
  gshmemi_transport_ops_t t_;
  int n_pes_;
  unsigned long long batch_;
  unsigned long long next_ = 0;      // the consumer's head (draining thread only)
  bool issued_since_quiet_ = false;  // draining thread only
  // Per target PE, draining thread only: data (put, inline put, atomic)
  // handed over since the last fence covering it, and anything at all.
  std::vector<unsigned char> data_outstanding_, any_outstanding_;
  bool any_outstanding_total_ = false;
  // Inline puts' data until the batch's quiet, draining thread only: each
  // handed-over run of inline puts takes at most the sum of its requests'
  // bytes, so 8 bytes per ticket of a batch always suffice.
  std::vector<unsigned char> inline_stage_;
  size_t inline_used_ = 0;
  // Puts held back for coalescing in this pass, per target PE, and the PEs
  // that have any, in the order their first was held (draining thread only).
  std::vector<std::vector<HeldPut>> held_;
  std::vector<int> held_pes_;
  std::vector<HeldPut> run_scratch_;
  std::vector<gshmem::detail::proxy_request> pass_;  // the requests of this pass, copied out of their slots
  std::vector<unsigned long long> pass_tickets_;     // and their tickets
  std::atomic<unsigned long long> consumed_{0};
  std::atomic<unsigned long long> fences_{0};
  std::atomic<unsigned long long> passes_{0}, issue_ns_{0}, quiets_{0}, quiet_ns_{0}, idle_sleeps_{0};
  std::atomic<unsigned long long> transport_events_{0};
  std::atomic<unsigned long long> transport_puts_{0}, puts_coalesced_{0}, runs_{0};
  std::chrono::nanoseconds idle_spin_{std::chrono::milliseconds(1)};
  bool shared_cpu_ = false;
  std::atomic<int> error_{0};
  std::atomic<int> failed_pe_{-1};
  std::function<void(int, int)> hook_;
  std::atomic<bool> stopping_{false};
  std::thread thread_;
};

}  // namespace gshmemi
