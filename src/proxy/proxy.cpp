// The proxy thread: see proxy.h for what it promises.
#include "proxy/proxy.h"

#include "proxy/elapsed.h"

#include <gshmem/types.h>

#include <sys/prctl.h>

#include <algorithm>
#include <chrono>
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
      inline_stage_((size_t)batch_, 0) {
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

int Proxy::execute(const gd::proxy_request &r) {
  if (r.op == gd::proxy_op_nop) return GSHMEM_SUCCESS;
  if (r.op == gd::proxy_op_fence) return any_outstanding_total_ ? fence_all() : GSHMEM_SUCCESS;
  if (r.pe < 0 || r.pe >= n_pes_) return GSHMEMX_ERROR_INVALID_PE;
  const size_t pe = (size_t)r.pe;
  int rc = GSHMEM_SUCCESS;
  switch (r.op) {
    case gd::proxy_op_put:
    case gd::proxy_op_put_signal:
      rc = t_.put(t_.context, r.pe, r.remote, reinterpret_cast<const void *>((uintptr_t)r.local), (size_t)r.bytes);
      if (rc == GSHMEM_SUCCESS && r.op == gd::proxy_op_put_signal) {
        rc = fence_pe(r.pe);  // P2
        if (rc == GSHMEM_SUCCESS) rc = t_.signal(t_.context, r.pe, r.aux, (int)r.sub_op, r.value);
        any_outstanding_[pe] = 1;
        any_outstanding_total_ = true;
        issued_since_quiet_ = true;
        return rc;
      }
      data_outstanding_[pe] = 1;
      break;
    case gd::proxy_op_put_inline:
      if (r.bytes == 0 || r.bytes > sizeof(r.value)) return GSHMEMX_ERROR_INVALID_VALUE;
      // The value's first `bytes` bytes (little-endian: the low ones),
      // from a copy that lives until the quiet ending this batch (a put's
      // source must stay until then; the request itself does not).
      inline_stage_[inline_used_] = r.value;
      rc = t_.put(t_.context, r.pe, r.remote, &inline_stage_[inline_used_++], (size_t)r.bytes);
      data_outstanding_[pe] = 1;
      break;
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
      if (rc == GSHMEM_SUCCESS) rc = t_.signal(t_.context, r.pe, r.remote, (int)r.sub_op, r.value);
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
  const unsigned long long n = gd::proxy_consume(q_, &next_, batch_, [&](const gd::proxy_request &r, unsigned long long) {
    if (error() == 0) {
      int rc;
      {
        const ScopedElapsed timer(issue_ns_);
        rc = execute(r);
      }
      if (rc != GSHMEM_SUCCESS) fail(rc, r.pe);
    }
    return true;
  });
  consumed_.store(next_, std::memory_order_release);
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
