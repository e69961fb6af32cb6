// The proxy thread: see proxy.h for what it promises.
#include "proxy/proxy.h"

#include "proxy/elapsed.h"

#include <gshmem/types.h>

#include <sys/prctl.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <stdexcept>

namespace gshmemi {

namespace gd = gshmem::detail;

HostProxyQueue::HostProxyQueue(unsigned long long capacity, bool with_head_seen) {
  if (!gd::proxy_capacity_valid(capacity)) throw std::invalid_argument("proxy queue capacity must be a power of two");
  slots_.reset(new gd::proxy_request[capacity]());
  counters_.reset(new Counter[4]());
  view_.slots = slots_.get();
  view_.capacity = capacity;
  view_.tail = &counters_[0].value;
  view_.head = &counters_[1].value;
  view_.head_seen = with_head_seen ? &counters_[2].value : nullptr;
  view_.completed = &counters_[3].value;
}

Proxy::Proxy(const gd::proxy_queue &queue, const gshmemi_transport_ops_t &transport, int n_pes,
             unsigned long long batch)
    : q_(queue),
      t_(transport),
      n_pes_(n_pes),
      batch_(batch == 0 ? 1 : batch),
      data_outstanding_((size_t)(n_pes > 0 ? n_pes : 0), 0),
      any_outstanding_((size_t)(n_pes > 0 ? n_pes : 0), 0),
      held_((size_t)(n_pes > 0 ? n_pes : 0)) {
  next_ = gd::atomic_load<gshmem::memory_order::acquire, gshmem::thread_scope::system>(q_.head);
  consumed_.store(next_, std::memory_order_release);
}

Proxy::~Proxy() { stop(); }

int Proxy::start() {
  try {
    thread_ = std::thread([this] { run(); });
  } catch (...) {
    return GSHMEMX_ERROR_INTERNAL;
  }
  return GSHMEM_SUCCESS;
}

void Proxy::stop() {
  stopping_.store(true, std::memory_order_release);
  if (thread_.joinable()) thread_.join();
}

void Proxy::run() {
  using clock = std::chrono::steady_clock;
  // A short sleep ends close to when it was asked for (this thread only).
  if (shared_cpu_) (void)prctl(PR_SET_TIMERSLACK, 1000ul, 0ul, 0ul, 0ul);
  clock::time_point last_work = clock::now();
  for (;;) {
    const bool stopping = stopping_.load(std::memory_order_acquire);
    const unsigned long long before = next_;
    const unsigned long long events_before = transport_events_.load(std::memory_order_relaxed);
    (void)progress();  // an error is recorded (and reported) by progress itself
    if (next_ != before) {
      last_work = clock::now();
      continue;
    }
    if (stopping) return;  // drained what was published before stop()
    // Serving peers is work too: a PE whose kernels issue nothing may be
    // the target of a peer's puts, gets and atomics, which (carried in
    // software) complete only when this thread progresses the transport.
    if (transport_events_.load(std::memory_order_relaxed) != events_before) last_work = clock::now();
    // Nothing published: poll again at once while work came recently (a
    // kernel or a peer is likely waiting on us; the core is yielded between
    // polls), then sleep between polls so that an idle job costs no core.
    if (clock::now() - last_work < idle_spin_) {
      if (shared_cpu_)
        std::this_thread::sleep_for(kSharedPoll);
      else
        std::this_thread::yield();
    } else {
      idle_sleeps_.fetch_add(1, std::memory_order_relaxed);
      std::this_thread::sleep_for(std::chrono::microseconds(20));
    }
  }
}

Proxy::Timings Proxy::timings() const {
  Timings t;
  t.passes = passes_.load(std::memory_order_relaxed);
  t.issue_ns = issue_ns_.load(std::memory_order_relaxed);
  t.quiets = quiets_.load(std::memory_order_relaxed);
  t.quiet_ns = quiet_ns_.load(std::memory_order_relaxed);
  t.idle_sleeps = idle_sleeps_.load(std::memory_order_relaxed);
  t.transport_events = transport_events_.load(std::memory_order_relaxed);
  t.transport_puts = transport_puts_.load(std::memory_order_relaxed);
  t.puts_coalesced = puts_coalesced_.load(std::memory_order_relaxed);
  t.runs = runs_.load(std::memory_order_relaxed);
  return t;
}

void Proxy::fail(int code, int pe) {
  int none = 0;
  if (!error_.compare_exchange_strong(none, code, std::memory_order_acq_rel)) return;
  if (code == GSHMEMX_ERROR_PEER_LOST && t_.peer_failed != nullptr) {
    const int lost = t_.peer_failed(t_.context);
    if (lost > 0) pe = lost - 1;
  }
  failed_pe_.store(pe, std::memory_order_release);
  if (hook_) hook_(code, pe);
}

int Proxy::fence_pe(int pe) {
  const int rc = t_.fence(t_.context, pe);
  fences_.fetch_add(1, std::memory_order_relaxed);
  data_outstanding_[(size_t)pe] = 0;
  any_outstanding_[(size_t)pe] = 0;
  return rc;
}

int Proxy::fence_all() {
  const int rc = t_.fence(t_.context, -1);
  fences_.fetch_add(1, std::memory_order_relaxed);
  std::fill(data_outstanding_.begin(), data_outstanding_.end(), 0);
  std::fill(any_outstanding_.begin(), any_outstanding_.end(), 0);
  any_outstanding_total_ = false;
  return rc;
}

int Proxy::transport_put(int pe, unsigned long long remote, const void *local, unsigned long long bytes) {
  const int rc = t_.put(t_.context, pe, remote, local, (size_t)bytes);
  transport_puts_.fetch_add(1, std::memory_order_relaxed);
  data_outstanding_[(size_t)pe] = 1;
  any_outstanding_[(size_t)pe] = 1;
  any_outstanding_total_ = true;
  issued_since_quiet_ = true;
  if (rc != GSHMEM_SUCCESS) fail(rc, pe);
  return rc;
}

unsigned long long Proxy::device_value(unsigned long long ticket) const {
  if (q_.values == nullptr) return 0;
  return (unsigned long long)(uintptr_t)(q_.values + (ticket & (2 * q_.capacity - 1)));
}

bool Proxy::wants_device_source(int pe, unsigned long long remote, unsigned long long bytes) const {
  return q_.values != nullptr && t_.device_source != nullptr &&
         t_.device_source(t_.context, pe, remote, (size_t)bytes) == 1;
}

int Proxy::signal(int pe, unsigned long long remote, unsigned int sig_op, unsigned long long value,
                  unsigned long long ticket) {
  if (t_.signal_from != nullptr && q_.values != nullptr)
    return t_.signal_from(t_.context, pe, remote, (int)sig_op, value,
                          reinterpret_cast<const void *>((uintptr_t)device_value(ticket)));
  return t_.signal(t_.context, pe, remote, (int)sig_op, value);
}

int Proxy::put_one_staged(int pe, const HeldPut &h) { return put_staged(pe, &h, &h + 1, h.remote, h.remote + h.bytes); }

int Proxy::put_one(int pe, const HeldPut &h) {
  if (h.is_inline && h.device_value != 0)
    return transport_put(pe, h.remote, reinterpret_cast<const void *>((uintptr_t)h.device_value), h.bytes);
  if (!h.is_inline) return transport_put(pe, h.remote, reinterpret_cast<const void *>((uintptr_t)h.local), h.bytes);
  return put_staged(pe, &h, &h + 1, h.remote, h.remote + h.bytes);
}

// Inline puts [first, last) to pe that cover the target range [start, end)
// together: their bytes (host_data: the low bytes of a request's value,
// little-endian, or a run's packed values) copied into one staging copy of the
// range, in the order given (a later one overwrites an earlier one where
// they overlap), and handed over as one put. The copy lives until the quiet
// ending this pass (a put's source must stay until then; the request itself
// does not).
int Proxy::put_staged(int pe, const HeldPut *first, const HeldPut *last, unsigned long long start,
                      unsigned long long end) {
  unsigned char *dst = &inline_stage_[inline_used_];
  for (const HeldPut *h = first; h != last; ++h) std::memcpy(dst + (h->remote - start), h->host_data, (size_t)h->bytes);
  inline_used_ += (size_t)(end - start);
  puts_coalesced_.fetch_add((unsigned long long)(last - first - 1), std::memory_order_relaxed);
  return transport_put(pe, start, dst, end - start);
}

// [first, last): puts to pe sorted by target offset whose ranges touch or
// overlap (one contiguous target range); `overlap`: some of them overlap.
int Proxy::put_run(int pe, HeldPut *first, HeldPut *last, bool overlap) {
  const size_t count = (size_t)(last - first);
  if (count == 1) return put_one(pe, *first);
  const auto by_order = [](const HeldPut &x, const HeldPut &y) { return x.order < y.order; };
  if (overlap) {
    bool all_inline = true;
    unsigned long long end = 0;
    for (HeldPut *h = first; h != last; ++h) {
      all_inline = all_inline && h->is_inline;
      end = std::max(end, h->remote + h->bytes);
    }
    run_scratch_.assign(first, last);
    std::sort(run_scratch_.begin(), run_scratch_.end(), by_order);
    if (!all_inline) {
      // Overlapping writes from sources the proxy cannot read: one at a
      // time, in ticket order, as without coalescing.
      for (const HeldPut &h : run_scratch_) {
        const int rc = put_one(pe, h);
        if (rc != GSHMEM_SUCCESS) return rc;
      }
      return GSHMEM_SUCCESS;
    }
    // Written in ticket order: where requests overlap, the one issued last
    // wins. The range is no longer than the requests' bytes together.
    return put_staged(pe, run_scratch_.data(), run_scratch_.data() + count, first->remote, end);
  }
  // No overlap: each range starts where the one before ends. Consecutive
  // inline values go into one staging copy and one put. A put with a
  // source goes alone: sources that follow each other in local memory may
  // still be two allocations, which one CUDA copy or one registered region
  // need not span.
  // Inline values with device copies (device_source) go as one put from
  // there where those copies lie back to back as the targets do (8-byte
  // values of consecutive tickets, or runs of p's that end where the next
  // begins: consecutive warps' p's to consecutive words). A
  // stretch of inline puts whose copies would take more than
  // kMaxDevicePieces puts goes as one put of a host staging copy instead:
  // each one-sided put costs the transport a copy of its own (5.5 us each
  // through UCX's cuda_ipc on 2 x H100), more than one put that the
  // transport may have to emulate (a 1024-word burst: 32 pieces, 277 us a
  // round, against 157 us staged).
  constexpr size_t kMaxDevicePieces = 4;
  for (HeldPut *a = first; a != last;) {
    HeldPut *b = a + 1;
    unsigned long long bytes = a->bytes;
    if (!a->is_inline) {
      const int rc = put_one(pe, *a);
      if (rc != GSHMEM_SUCCESS) return rc;
      a = b;
      continue;
    }
    // The stretch of inline puts [a, b), and the device pieces it needs.
    bool all_device = a->device_value != 0;
    size_t pieces = 1;
    for (; b != last && b->is_inline; ++b) {
      bytes += b->bytes;
      all_device = all_device && b->device_value != 0;
      if (b->device_value != (b - 1)->device_value + (b - 1)->bytes) ++pieces;
    }
    if (!all_device || pieces > kMaxDevicePieces) {
      const int rc = b - a == 1 ? put_one_staged(pe, *a) : put_staged(pe, a, b, a->remote, a->remote + bytes);
      if (rc != GSHMEM_SUCCESS) return rc;
      a = b;
      continue;
    }
    for (HeldPut *c = a; c != b;) {
      HeldPut *d = c + 1;
      unsigned long long run = c->bytes;
      while (d != b && d->device_value == (d - 1)->device_value + (d - 1)->bytes) run += (d++)->bytes;
      puts_coalesced_.fetch_add((unsigned long long)(d - c - 1), std::memory_order_relaxed);
      const int rc = transport_put(pe, c->remote, reinterpret_cast<const void *>((uintptr_t)c->device_value), run);
      if (rc != GSHMEM_SUCCESS) return rc;
      c = d;
    }
    a = b;
  }
  return GSHMEM_SUCCESS;
}

int Proxy::flush_pe(int pe) {
  std::vector<HeldPut> &v = held_[(size_t)pe];
  if (v.empty()) return GSHMEM_SUCCESS;
  int rc = GSHMEM_SUCCESS;
  if (v.size() == 1) {
    rc = put_one(pe, v[0]);
  } else {
    std::sort(v.begin(), v.end(), [](const HeldPut &x, const HeldPut &y) {
      return x.remote != y.remote ? x.remote < y.remote : x.order < y.order;
    });
    for (size_t i = 0; i < v.size() && rc == GSHMEM_SUCCESS;) {
      size_t j = i + 1;
      unsigned long long end = v[i].remote + v[i].bytes;
      bool overlap = false;
      for (; j < v.size() && v[j].remote <= end; ++j) {
        overlap = overlap || v[j].remote < end;
        end = std::max(end, v[j].remote + v[j].bytes);
      }
      rc = put_run(pe, &v[i], v.data() + j, overlap);
      i = j;
    }
  }
  v.clear();
  return rc;
}

int Proxy::flush_all() {
  int rc = GSHMEM_SUCCESS;
  for (int pe : held_pes_)
    if (rc == GSHMEM_SUCCESS) rc = flush_pe(pe);
  drop_held();
  return rc;
}

void Proxy::drop_held() {
  for (int pe : held_pes_) held_[(size_t)pe].clear();
  held_pes_.clear();
}

int Proxy::execute(const gd::proxy_request &r, unsigned long long ticket) {
  if (r.op == gd::proxy_op_nop) return GSHMEM_SUCCESS;
  if (r.op == gd::proxy_op_fence) {
    const int rc = flush_all();  // what the fence orders must be handed over first
    if (rc != GSHMEM_SUCCESS) return rc;
    return any_outstanding_total_ ? fence_all() : GSHMEM_SUCCESS;
  }
  if (r.pe < 0 || r.pe >= n_pes_) return GSHMEMX_ERROR_INVALID_PE;
  const size_t pe = (size_t)r.pe;
  if ((r.op == gd::proxy_op_put && r.bytes != 0) || r.op == gd::proxy_op_put_inline || r.op == gd::proxy_op_put_run) {
    if (r.op == gd::proxy_op_put_inline && (r.bytes == 0 || r.bytes > sizeof(r.value)))
      return GSHMEMX_ERROR_INVALID_VALUE;
    const unsigned char *host_data = reinterpret_cast<const unsigned char *>(&r.value);
    if (r.op == gd::proxy_op_put_run) {
      // A warp's run of p's: aux values of sub_op bytes, packed in the
      // queue's value copies from this ticket's word on (proxy_queue.h).
      const bool width_ok = r.sub_op == 1 || r.sub_op == 2 || r.sub_op == 4 || r.sub_op == 8;
      if (!width_ok || r.aux < 2 || r.bytes != r.aux * r.sub_op || q_.host_values == nullptr ||
          (ticket & (2 * q_.capacity - 1)) + r.aux > 2 * q_.capacity)
        return GSHMEMX_ERROR_INVALID_VALUE;
      host_data = reinterpret_cast<const unsigned char *>(q_.host_values + (ticket & (2 * q_.capacity - 1)));
      runs_.fetch_add(1, std::memory_order_relaxed);
      puts_coalesced_.fetch_add(r.aux - 1, std::memory_order_relaxed);
    }
    // Held back until the next request to this PE, the next fence, or the
    // end of the pass (coalescing: proxy.h).
    if (held_[pe].empty()) held_pes_.push_back(r.pe);
    const bool is_inline = r.op != gd::proxy_op_put;
    held_[pe].push_back(HeldPut{r.remote, r.bytes, is_inline ? 0 : r.local, ticket, is_inline, host_data,
                                is_inline && wants_device_source(r.pe, r.remote, r.bytes) ? device_value(ticket) : 0});
    return GSHMEM_SUCCESS;
  }
  // Any other request to this PE: the puts held back for it go first, so
  // that it is ordered after them as without coalescing.
  int rc = flush_pe(r.pe);
  if (rc != GSHMEM_SUCCESS) return rc;
  switch (r.op) {
    case gd::proxy_op_put:  // of 0 bytes
    case gd::proxy_op_put_signal:
      rc = transport_put(r.pe, r.remote, reinterpret_cast<const void *>((uintptr_t)r.local), r.bytes);
      if (rc == GSHMEM_SUCCESS && r.op == gd::proxy_op_put_signal) {
        rc = fence_pe(r.pe);  // P2
        if (rc == GSHMEM_SUCCESS) rc = signal(r.pe, r.aux, r.sub_op, r.value, ticket);
        any_outstanding_[pe] = 1;
        any_outstanding_total_ = true;
        issued_since_quiet_ = true;
        return rc;
      }
      return rc;
    case gd::proxy_op_get:
      rc = t_.get(t_.context, r.pe, reinterpret_cast<void *>((uintptr_t)r.local), r.remote, (size_t)r.bytes);
      break;
    case gd::proxy_op_amo:
      if (r.bytes != 4 && r.bytes != 8) return GSHMEMX_ERROR_INVALID_VALUE;
      rc = t_.amo(t_.context, r.pe, r.remote, (int)r.sub_op, (int)r.bytes, r.value, r.aux,
                  reinterpret_cast<void *>((uintptr_t)r.local));
      data_outstanding_[pe] = 1;
      break;
    case gd::proxy_op_signal:
      if (data_outstanding_[pe]) rc = fence_pe(r.pe);  // P3
      if (rc == GSHMEM_SUCCESS) rc = signal(r.pe, r.remote, r.sub_op, r.value, ticket);
      break;
    default:
      return GSHMEMX_ERROR_INVALID_VALUE;
  }
  any_outstanding_[pe] = 1;
  any_outstanding_total_ = true;
  issued_since_quiet_ = true;
  return rc;
}

long long Proxy::progress() {
  // Copy the published requests out, freeing their slots for producers at
  // once (one release store of head), then carry them out.
  pass_.clear();
  pass_tickets_.clear();
  bool saw_run = false;
  const auto take = [&](const gd::proxy_request &r, unsigned long long ticket) {
    pass_.push_back(r);
    pass_tickets_.push_back(ticket);
    saw_run = saw_run || r.op == gd::proxy_op_put_run;
    return true;
  };
  unsigned long long n = gd::proxy_consume(q_, &next_, batch_, take);
  // A warp's run of p's is most often one of a burst (a block's loop of
  // p's, one run per warp and iteration): collect the burst into this pass
  // while its runs keep coming (each within kBurstGap of the one before),
  // so that it is handed over merged and completes with one quiet instead
  // of one per pass. A pass without runs (a lone p, a signal) does not wait.
  if (saw_run) {
    using clock = std::chrono::steady_clock;
    clock::time_point last = clock::now();
    while (n < batch_ && clock::now() - last < kBurstGap) {
      const unsigned long long more = gd::proxy_consume(q_, &next_, batch_ - n, take);
      if (more != 0) {
        n += more;
        last = clock::now();
      }
    }
  }
  consumed_.store(next_, std::memory_order_release);
  if (n != 0 && error() == 0) {
    const ScopedElapsed timer(issue_ns_);
    // Inline puts' staging for this pass: 8 bytes per ticket at most (a
    // run's bytes are at most 8 per ticket it took). Nothing staged is
    // outstanding here (the last pass ended with a quiet, or staged
    // nothing), so it may move.
    if (inline_used_ == 0 && inline_stage_.size() < 8 * n) inline_stage_.resize(8 * n);
    for (size_t i = 0; i < pass_.size(); ++i) {
      const gd::proxy_request &r = pass_[i];
      const int rc = execute(r, pass_tickets_[i]);
      if (rc != GSHMEM_SUCCESS) {
        fail(rc, r.pe);  // no effect when a transport call already failed (and reported its PE)
        break;
      }
    }
    if (error() == 0) (void)flush_all();  // a failure is recorded by transport_put
    drop_held();
  }
  if (error() != 0) return error();
  if (n == 0) {
    // Idle: let the transport serve what peers need from this PE.
    if (t_.progress) {
      const int rc = t_.progress(t_.context);
      if (rc < 0) {
        fail(rc, -1);
        return error();
      }
      if (rc > 0) transport_events_.fetch_add((unsigned long long)rc, std::memory_order_relaxed);
    }
    return 0;
  }
  passes_.fetch_add(1, std::memory_order_relaxed);
  if (issued_since_quiet_) {
    int rc;
    {
      const ScopedElapsed timer(quiet_ns_, &quiets_);
      rc = t_.quiet(t_.context);
    }
    if (rc != GSHMEM_SUCCESS) {
      fail(rc, -1);
      return error();
    }
    issued_since_quiet_ = false;
    inline_used_ = 0;
    // Quiet completes everything: no fence is needed for what came before.
    std::fill(data_outstanding_.begin(), data_outstanding_.end(), 0);
    std::fill(any_outstanding_.begin(), any_outstanding_.end(), 0);
    any_outstanding_total_ = false;
  }
  gd::proxy_publish_completed(q_, next_);  // P5
  return (long long)n;
}

}  // namespace gshmemi
