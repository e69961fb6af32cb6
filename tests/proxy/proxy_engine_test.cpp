// The proxy (src/proxy/proxy.h) over a fake transport that records every
// call: the order it hands requests over in, the fences it adds (P2-P4),
// completion only after quiet (P5), inline data kept until quiet, results
// of get and atomics, coalescing of puts, and what happens when the
// transport fails.
#include <gshmem/detail/proxy_queue.h>
#include <gshmem/types.h>

#include <atomic>
#include <algorithm>
#include <chrono>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "catch.hpp"
#include "proxy/proxy.h"

namespace gd = gshmem::detail;
using gshmemi::HostProxyQueue;
using gshmemi::Proxy;

namespace {

struct Call {
  std::string what;  // "put", "get", "amo", "signal", "fence", "quiet"
  int pe = -1;
  unsigned long long remote = 0;
  unsigned long long value = 0;  // signal value, amo operand, put/get bytes
  int op = 0;
};

// The transport: records calls; put data is read at quiet (as a network
// would read it any time before completion); get data and fetched values
// are written at quiet.
struct Fake {
  const gd::proxy_queue *queue = nullptr;
  std::vector<Call> calls;
  std::vector<std::pair<const void *, size_t>> pending_puts;
  std::vector<const void *> put_sources;  // every put's source, in order (never cleared)
  std::vector<std::pair<int, unsigned long long>> pending_put_targets;  // PE and offset of each
  std::vector<std::string> data_at_quiet;  // what each pending put's source held at quiet
  std::map<int, std::vector<unsigned char>> memory;  // each PE's symmetric space, puts applied at quiet
  std::vector<std::pair<void *, size_t>> pending_gets;
  std::vector<std::pair<void *, int>> pending_fetches;
  std::vector<unsigned long long> completed_at_quiet;
  int fail_put_to = -1;  // put to this PE returns PEER_LOST
  int progress_calls = 0;
  int progress_result = 0;  // what progress returns
  int failed_peer = 0;   // what peer_failed answers
  std::chrono::microseconds put_delay{0}, quiet_delay{0};  // how long put and quiet take
  std::chrono::steady_clock::time_point busy_until{};      // until then, progress reports an event

  static Fake &of(void *c) { return *static_cast<Fake *>(c); }
  static int put(void *c, int pe, uint64_t remote, const void *local, size_t bytes) {
    Fake &f = of(c);
    std::this_thread::sleep_for(f.put_delay);
    f.calls.push_back({"put", pe, remote, bytes, 0});
    if (pe == f.fail_put_to) {
      f.failed_peer = pe + 1;
      return GSHMEMX_ERROR_PEER_LOST;
    }
    f.pending_puts.push_back({local, bytes});
    f.put_sources.push_back(local);
    f.pending_put_targets.push_back({pe, remote});
    return 0;
  }
  static int get(void *c, int pe, void *local, uint64_t remote, size_t bytes) {
    of(c).calls.push_back({"get", pe, remote, bytes, 0});
    of(c).pending_gets.push_back({local, bytes});
    return 0;
  }
  static int amo(void *c, int pe, uint64_t remote, int op, int width, uint64_t operand, uint64_t compare,
                 void *fetched) {
    of(c).calls.push_back({"amo", pe, remote, operand + compare, op * 100 + width});
    if (fetched) of(c).pending_fetches.push_back({fetched, width});
    return 0;
  }
  static int signal(void *c, int pe, uint64_t remote, int sig_op, uint64_t value) {
    of(c).calls.push_back({"signal", pe, remote, value, sig_op});
    return 0;
  }
  static int fence(void *c, int pe) {
    of(c).calls.push_back({"fence", pe, 0, 0, 0});
    return 0;
  }
  static int quiet(void *c) {
    Fake &f = of(c);
    std::this_thread::sleep_for(f.quiet_delay);
    f.calls.push_back({"quiet", -1, 0, 0, 0});
    f.completed_at_quiet.push_back(
        gd::atomic_load<gshmem::memory_order::acquire, gshmem::thread_scope::system>(f.queue->completed));
    for (size_t i = 0; i < f.pending_puts.size(); ++i) {
      const auto &p = f.pending_puts[i];
      f.data_at_quiet.emplace_back(static_cast<const char *>(p.first), p.second);
      // Applied in the order handed over (where puts to one PE overlap,
      // the proxy hands them over in ticket order).
      std::vector<unsigned char> &m = f.memory[f.pending_put_targets[i].first];
      const size_t at = (size_t)f.pending_put_targets[i].second;
      if (m.size() < at + p.second) m.resize(at + p.second, 0);
      std::memcpy(m.data() + at, p.first, p.second);
    }
    for (auto &g : f.pending_gets) std::memset(g.first, 0xab, g.second);
    for (auto &x : f.pending_fetches) {
      if (x.second == 8) {
        const unsigned long long v = 0x1122334455667788ull;
        std::memcpy(x.first, &v, 8);
      } else {
        const unsigned v = 0x55667788u;
        std::memcpy(x.first, &v, 4);
      }
    }
    f.pending_puts.clear();
    f.pending_put_targets.clear();
    f.pending_gets.clear();
    f.pending_fetches.clear();
    return 0;
  }
  static int peer_failed(void *c) { return of(c).failed_peer; }
  // device_source: PEs listed here would rather take data from the queue's
  // value copies. signal_from records the address it was given.
  std::vector<int> device_source_pes;
  std::vector<const void *> signal_value_sources;
  static int device_source(void *c, int pe, uint64_t, size_t) {
    const std::vector<int> &v = of(c).device_source_pes;
    return std::find(v.begin(), v.end(), pe) != v.end() ? 1 : 0;
  }
  static int signal_from(void *c, int pe, uint64_t remote, int sig_op, uint64_t value, const void *value_device) {
    of(c).signal_value_sources.push_back(value_device);
    return signal(c, pe, remote, sig_op, value);
  }
  static int progress(void *c) {
    Fake &f = of(c);
    ++f.progress_calls;
    if (f.progress_result == 0 && std::chrono::steady_clock::now() < f.busy_until) return 1;  // served a peer
    return f.progress_result;
  }

  gshmemi_transport_ops_t ops() {
    gshmemi_transport_ops_t t{};
    t.abi_version = GSHMEMI_TRANSPORT_ABI_VERSION;
    t.name = "fake";
    t.context = this;
    t.put = &put;
    t.get = &get;
    t.amo = &amo;
    t.signal = &signal;
    t.fence = &fence;
    t.quiet = &quiet;
    t.peer_failed = &peer_failed;
    t.progress = &progress;
    return t;
  }

  // "put 1", "fence 1", "signal 1", "quiet": the calls in order, compactly.
  std::vector<std::string> trace() const {
    std::vector<std::string> out;
    for (const Call &c : calls) out.push_back(c.what == "quiet" ? c.what : c.what + " " + std::to_string(c.pe));
    return out;
  }
};

gd::proxy_request put(int pe, unsigned long long remote, const void *src, unsigned long long bytes) {
  gd::proxy_request r{};
  r.op = gd::proxy_op_put;
  r.pe = pe;
  r.remote = remote;
  r.local = (unsigned long long)(uintptr_t)src;
  r.bytes = bytes;
  return r;
}
gd::proxy_request p(int pe, unsigned long long remote, unsigned long long value, unsigned long long bytes = 8) {
  gd::proxy_request r{};
  r.op = gd::proxy_op_put_inline;
  r.pe = pe;
  r.remote = remote;
  r.value = value;
  r.bytes = bytes;
  return r;
}
gd::proxy_request signal(int pe, unsigned long long remote, unsigned long long value, int sig_op = GSHMEM_SIGNAL_ADD) {
  gd::proxy_request r{};
  r.op = gd::proxy_op_signal;
  r.pe = pe;
  r.remote = remote;
  r.value = value;
  r.sub_op = (unsigned)sig_op;
  return r;
}
gd::proxy_request fence() {
  gd::proxy_request r{};
  r.op = gd::proxy_op_fence;
  r.pe = -1;
  return r;
}

void issue(const gd::proxy_queue &q, const gd::proxy_request &r) { REQUIRE(gd::proxy_issue(q, r)); }

unsigned long long completed(const gd::proxy_queue &q) {
  return gd::atomic_load<gshmem::memory_order::acquire, gshmem::thread_scope::system>(q.completed);
}

using Trace = std::vector<std::string>;

}  // namespace

TEST_CASE("proxy: put_signal is put, fence, signal; completion follows quiet", "[engine]") {
  HostProxyQueue storage(16);
  const gd::proxy_queue &q = storage.view();
  Fake fake;
  fake.queue = &q;
  Proxy proxy(q, fake.ops(), 4);
  const char data[] = "payload";
  gd::proxy_request r = put(2, 4096, data, sizeof data);
  r.op = gd::proxy_op_put_signal;
  r.aux = 64;
  r.value = 7;
  r.sub_op = GSHMEM_SIGNAL_SET;
  issue(q, r);
  CHECK(completed(q) == 0);
  CHECK(proxy.progress() == 1);
  CHECK(fake.trace() == Trace{"put 2", "fence 2", "signal 2", "quiet"});
  CHECK(fake.calls[0].remote == 4096);
  CHECK(fake.calls[0].value == sizeof data);
  CHECK(fake.calls[2].remote == 64);
  CHECK(fake.calls[2].value == 7);
  CHECK(fake.calls[2].op == GSHMEM_SIGNAL_SET);
  REQUIRE(fake.completed_at_quiet.size() == 1);
  CHECK(fake.completed_at_quiet[0] == 0);  // not published before the quiet
  CHECK(completed(q) == 1);                // published after it
  CHECK(proxy.progress() == 0);            // nothing more
  CHECK(proxy.consumed() == 1);
}

TEST_CASE("proxy: an idle pass lets the transport progress; its failure is the proxy's", "[engine]") {
  HostProxyQueue storage(16);
  const gd::proxy_queue &q = storage.view();
  Fake fake;
  fake.queue = &q;
  Proxy proxy(q, fake.ops(), 4);
  int hook_code = 0;
  proxy.set_error_hook([&](int code, int) { hook_code = code; });
  const char data[] = "x";
  issue(q, put(1, 0, data, 1));
  CHECK(proxy.progress() == 1);
  CHECK(fake.progress_calls == 0);  // a pass with work does not call it
  CHECK(proxy.progress() == 0);
  CHECK(fake.progress_calls == 1);  // an idle one does
  fake.progress_result = GSHMEMX_ERROR_PEER_LOST;
  fake.failed_peer = 3;
  CHECK(proxy.progress() == GSHMEMX_ERROR_PEER_LOST);
  CHECK(proxy.error() == GSHMEMX_ERROR_PEER_LOST);
  CHECK(proxy.failed_pe() == 2);
  CHECK(hook_code == GSHMEMX_ERROR_PEER_LOST);
  CHECK(fake.progress_calls == 2);
  CHECK(proxy.progress() == GSHMEMX_ERROR_PEER_LOST);  // recorded; not called again
  CHECK(fake.progress_calls == 2);
}

TEST_CASE("proxy: timings count passes, the transport's time and idle sleeps", "[engine]") {
  using std::chrono::milliseconds;
  HostProxyQueue storage(16);
  const gd::proxy_queue &q = storage.view();
  Fake fake;
  fake.queue = &q;
  fake.put_delay = milliseconds(1);
  fake.quiet_delay = milliseconds(50);
  Proxy proxy(q, fake.ops(), 4);
  const char data[] = "x";
  issue(q, put(1, 0, data, 1));
  issue(q, put(2, 0, data, 1));
  issue(q, fence());
  CHECK(proxy.progress() == 3);
  Proxy::Timings t = proxy.timings();
  CHECK(t.passes == 1);
  CHECK(t.quiets == 1);
  CHECK(t.issue_ns >= 2000000);  // two puts of 1 ms (and a fence)
  CHECK(t.issue_ns < t.quiet_ns);  // the quiet's 50 ms are not in it
  CHECK(t.quiet_ns >= 50000000);
  CHECK(t.idle_sleeps == 0);     // progress() alone never sleeps
  CHECK(proxy.progress() == 0);  // an idle pass is not a pass
  CHECK(proxy.timings().passes == 1);
  issue(q, fence());  // nothing outstanding: consumed, no transport call, no quiet
  CHECK(proxy.progress() == 1);
  t = proxy.timings();
  CHECK(t.passes == 2);
  CHECK(t.quiets == 1);
  CHECK(fake.trace() == Trace{"put 1", "put 2", "fence -1", "quiet"});
}

TEST_CASE("proxy: the thread polls for the idle spin, then sleeps", "[engine]") {
  using std::chrono::milliseconds;
  HostProxyQueue storage(16);
  const gd::proxy_queue &q = storage.view();
  Fake fake;
  fake.queue = &q;
  Proxy proxy(q, fake.ops(), 4);
  SECTION("no spin: an idle thread sleeps") {
    proxy.set_idle_spin(std::chrono::nanoseconds(0));
    REQUIRE(proxy.start() == 0);
    std::this_thread::sleep_for(milliseconds(50));
    proxy.stop();
    CHECK(proxy.timings().idle_sleeps > 0);
  }
  SECTION("serving peers is work: no sleep while the transport reports events") {
    fake.busy_until = std::chrono::steady_clock::now() + milliseconds(400);
    proxy.set_idle_spin(milliseconds(50));  // no request at all: only the events keep it polling
    REQUIRE(proxy.start() == 0);
    std::this_thread::sleep_for(milliseconds(100));
    const Proxy::Timings busy = proxy.timings();
    std::this_thread::sleep_for(milliseconds(500));  // events stopped at 400 ms, the spin ended at 450
    proxy.stop();
    CHECK(busy.idle_sleeps == 0);
    CHECK(busy.transport_events > 0);
    CHECK(proxy.timings().idle_sleeps > 0);
  }
  SECTION("a long spin: it keeps polling, and serves a request at once") {
    proxy.set_idle_spin(std::chrono::hours(1));
    REQUIRE(proxy.start() == 0);
    std::this_thread::sleep_for(milliseconds(20));
    const char data[] = "x";
    issue(q, put(1, 0, data, 1));
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (completed(q) < 1 && std::chrono::steady_clock::now() < deadline) std::this_thread::yield();
    std::this_thread::sleep_for(milliseconds(20));
    proxy.stop();
    CHECK(completed(q) == 1);
    CHECK(proxy.timings().idle_sleeps == 0);
    CHECK(proxy.timings().passes == 1);
  }
}

TEST_CASE("proxy: fences only where an order is owed", "[engine]") {
  HostProxyQueue storage(16);
  const gd::proxy_queue &q = storage.view();
  Fake fake;
  fake.queue = &q;
  Proxy proxy(q, fake.ops(), 4, /*batch=*/64);
  const char data[8] = {};
  issue(q, put(1, 0, data, 8));
  issue(q, signal(1, 64, 1));   // data to PE 1 outstanding: fence PE 1 first (P3)
  issue(q, signal(2, 64, 1));   // nothing outstanding to PE 2: no fence
  issue(q, put(3, 0, data, 8));
  issue(q, fence());            // something outstanding: one fence for all (P4)
  issue(q, put(3, 8, data, 8));
  issue(q, fence());            // outstanding again
  issue(q, fence());            // nothing since the last fence: none
  CHECK(proxy.progress() == 8);
  CHECK(fake.trace() ==
        Trace{"put 1", "fence 1", "signal 1", "signal 2", "put 3", "fence -1", "put 3", "fence -1", "quiet"});
  CHECK(proxy.fences_issued() == 3);
  CHECK(completed(q) == 8);
  // After a quiet nothing is outstanding: a signal needs no fence.
  issue(q, signal(1, 64, 2));
  CHECK(proxy.progress() == 1);
  CHECK(fake.trace().back() == "quiet");
  CHECK(fake.trace()[fake.trace().size() - 2] == "signal 1");
  CHECK(completed(q) == 9);
}

TEST_CASE("proxy: inline data outlives its slot until the quiet", "[engine]") {
  // Two inline puts in one batch: the second request reuses the proxy's
  // copy of the first unless each has its own staging until quiet.
  HostProxyQueue storage(16);
  const gd::proxy_queue &q = storage.view();
  Fake fake;
  fake.queue = &q;
  Proxy proxy(q, fake.ops(), 2);
  // Ranges apart from each other: not coalesced, three transport puts.
  unsigned long long remote = 8;
  for (unsigned long long v : {0x0102030405060708ull, 0xa1a2a3a4a5a6a7a8ull, 0x00000000000000ffull}) {
    gd::proxy_request r{};
    r.op = gd::proxy_op_put_inline;
    r.pe = 1;
    r.remote = remote;
    r.value = v;
    r.bytes = v == 0xff ? 1 : 8;
    issue(q, r);
    remote += 64;
  }
  CHECK(proxy.progress() == 3);
  REQUIRE(fake.data_at_quiet.size() == 3);
  unsigned long long a = 0, b = 0;
  std::memcpy(&a, fake.data_at_quiet[0].data(), 8);
  std::memcpy(&b, fake.data_at_quiet[1].data(), 8);
  CHECK(a == 0x0102030405060708ull);
  CHECK(b == 0xa1a2a3a4a5a6a7a8ull);
  REQUIRE(fake.data_at_quiet[2].size() == 1);
  CHECK((unsigned char)fake.data_at_quiet[2][0] == 0xff);
}

TEST_CASE("proxy: get data and fetched values are in place once completion says so", "[engine]") {
  HostProxyQueue storage(16);
  const gd::proxy_queue &q = storage.view();
  Fake fake;
  fake.queue = &q;
  Proxy proxy(q, fake.ops(), 2);
  unsigned char buffer[16] = {};
  unsigned long long fetched8 = 0;
  unsigned fetched4 = 0;
  gd::proxy_request g{};
  g.op = gd::proxy_op_get;
  g.pe = 1;
  g.remote = 256;
  g.local = (unsigned long long)(uintptr_t)buffer;
  g.bytes = sizeof buffer;
  issue(q, g);
  gd::proxy_request a{};
  a.op = gd::proxy_op_amo;
  a.pe = 1;
  a.remote = 512;
  a.bytes = 8;
  a.sub_op = GSHMEMI_TRANSPORT_AMO_CSWAP;
  a.value = 5;
  a.aux = 3;
  a.local = (unsigned long long)(uintptr_t)&fetched8;
  issue(q, a);
  a.bytes = 4;
  a.sub_op = GSHMEMI_TRANSPORT_AMO_ADD;
  a.aux = 0;
  a.local = (unsigned long long)(uintptr_t)&fetched4;
  issue(q, a);
  unsigned long long target = gd::proxy_quiet_target(q);
  CHECK(target == 3);
  CHECK_FALSE(gd::proxy_test_completed(q, target));
  CHECK(proxy.progress() == 3);
  REQUIRE(gd::proxy_test_completed(q, target));
  for (unsigned char c : buffer) CHECK(c == 0xab);
  CHECK(fetched8 == 0x1122334455667788ull);
  CHECK(fetched4 == 0x55667788u);
  CHECK(fake.calls[1].op == GSHMEMI_TRANSPORT_AMO_CSWAP * 100 + 8);
  CHECK(fake.calls[1].value == 8);  // operand + compare reached the transport
  CHECK(fake.calls[2].op == GSHMEMI_TRANSPORT_AMO_ADD * 100 + 4);
}

TEST_CASE("proxy: bad requests are errors, not guesses", "[engine]") {
  HostProxyQueue storage(16);
  const gd::proxy_queue &q = storage.view();
  Fake fake;
  fake.queue = &q;
  Proxy proxy(q, fake.ops(), 2);
  int hook_code = 0, hook_pe = 0, hook_calls = 0;
  proxy.set_error_hook([&](int code, int pe) {
    hook_code = code;
    hook_pe = pe;
    ++hook_calls;
  });
  const char data[4] = {};
  issue(q, put(5, 0, data, 4));  // PE out of range
  CHECK(proxy.progress() == GSHMEMX_ERROR_INVALID_PE);
  CHECK(proxy.error() == GSHMEMX_ERROR_INVALID_PE);
  CHECK(hook_calls == 1);
  CHECK(hook_code == GSHMEMX_ERROR_INVALID_PE);
  CHECK(hook_pe == 5);
  CHECK(fake.calls.empty());
  CHECK(completed(q) == 0);
}

TEST_CASE("proxy: a lost peer stops execution, keeps producers moving, never fakes completion", "[engine]") {
  HostProxyQueue storage(4);
  const gd::proxy_queue &q = storage.view();
  Fake fake;
  fake.queue = &q;
  fake.fail_put_to = 1;
  Proxy proxy(q, fake.ops(), 3, /*batch=*/2);
  std::atomic<int> hook_calls{0};
  std::atomic<int> hook_code{0}, hook_pe{-2};
  proxy.set_error_hook([&](int code, int pe) {
    hook_code = code;
    hook_pe = pe;
    ++hook_calls;
  });
  const char data[4] = {};
  issue(q, put(2, 0, data, 4));
  issue(q, put(2, 4, data, 4));
  CHECK(proxy.progress() == 2);  // a healthy batch completes
  CHECK(completed(q) == 2);
  issue(q, put(1, 0, data, 4));  // the transport reports PE 1 lost
  issue(q, put(2, 8, data, 4));
  CHECK(proxy.progress() == GSHMEMX_ERROR_PEER_LOST);
  CHECK(hook_calls.load() == 1);
  CHECK(hook_code.load() == GSHMEMX_ERROR_PEER_LOST);
  CHECK(hook_pe.load() == 1);
  CHECK(proxy.failed_pe() == 1);
  const size_t calls_at_failure = fake.calls.size();
  // Producers issue far more than the ring holds: the failed proxy still
  // frees slots (nobody blocks on it), carries nothing out, completes nothing.
  REQUIRE(proxy.start() == 0);
  std::thread producer([&] {
    for (int i = 0; i < 100; ++i) gd::proxy_issue(q, put(2, 0, data, 4));
  });
  producer.join();
  const unsigned long long tail = gd::proxy_quiet_target(q);
  for (int i = 0; i < 1000 && proxy.consumed() < tail; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  proxy.stop();
  CHECK(proxy.consumed() == tail);
  CHECK(tail == 104);
  CHECK(fake.calls.size() == calls_at_failure);
  CHECK(completed(q) == 2);
  CHECK(hook_calls.load() == 1);
}

TEST_CASE("proxy: many producers through the proxy thread, quiet after every signal", "[engine]") {
  HostProxyQueue storage(8);
  const gd::proxy_queue &q = storage.view();
  Fake fake;
  fake.queue = &q;
  Proxy proxy(q, fake.ops(), 4, /*batch=*/16);
  REQUIRE(proxy.start() == 0);
  const int producers = 3, rounds = 200, puts_per_round = 3;
  static const char data[8] = "abcdefg";
  std::vector<int> quiet_early(producers, 0);
  std::vector<std::thread> threads;
  for (int p = 0; p < producers; ++p)
    threads.emplace_back([&, p] {
      for (int round = 0; round < rounds; ++round) {
        for (int k = 0; k < puts_per_round; ++k)
          gd::proxy_issue(q, put(p + 1, (unsigned long long)(round * puts_per_round + k), data, 8));
        gd::proxy_issue(q, signal(p + 1, 1u << 20, (unsigned long long)round));
        const unsigned long long target = gd::proxy_quiet_target(q);
        gd::proxy_wait_completed(q, target);
        quiet_early[p] += proxy.consumed() < target;
      }
    });
  for (auto &t : threads) t.join();
  proxy.stop();
  for (int p = 0; p < producers; ++p) CHECK(quiet_early[p] == 0);
  CHECK(proxy.error() == 0);
  // Per target PE (one per producer): puts in issue order, each signal after
  // its round's puts with a fence between, every signal present once.
  for (int p = 0; p < producers; ++p) {
    INFO("producer " << p);
    unsigned long long next_put = 0;
    int next_signal = 0;
    size_t bad = 0;
    bool fenced = false;
    for (const Call &c : fake.calls) {
      if (c.pe != p + 1 && c.what != "quiet" && !(c.what == "fence" && c.pe == -1)) continue;
      if (c.what == "fence") fenced = true;
      if (c.what == "quiet") fenced = true;  // a quiet orders as much as a fence
      if (c.what == "put") {
        bad += c.remote != next_put++;
        fenced = false;
      }
      if (c.what == "signal") {
        bad += c.value != (unsigned long long)next_signal++;
        bad += next_put != (unsigned long long)(next_signal * puts_per_round);
        bad += !fenced;
      }
    }
    CHECK(bad == 0);
    CHECK(next_put == (unsigned long long)(rounds * puts_per_round));
    CHECK(next_signal == rounds);
  }
  CHECK(completed(q) == (unsigned long long)(producers * rounds * (puts_per_round + 1)));
}

namespace {

// The 8 bytes at `at` in PE pe's memory as the fake transport left it.
unsigned long long word_at(Fake &f, int pe, size_t at) {
  std::vector<unsigned char> &m = f.memory[pe];
  if (m.size() < at + 8) m.resize(at + 8, 0);
  unsigned long long v = 0;
  std::memcpy(&v, m.data() + at, 8);
  return v;
}

size_t count_of(const Trace &t, const std::string &what) { return (size_t)std::count(t.begin(), t.end(), what); }

}  // namespace

TEST_CASE("proxy: a block's 1024 contiguous p's in one pass are one transport put", "[engine]") {
  // 256 threads each p 4 values, thread t's k-th to element k * 256 + t, as
  // a block's loop does. A warp's 32 lanes take consecutive tickets in lane
  // order; warps interleave in any order (here shuffled), each thread's own
  // p's stay in its program order.
  HostProxyQueue storage(1024);
  const gd::proxy_queue &q = storage.view();
  Fake fake;
  fake.queue = &q;
  Proxy proxy(q, fake.ops(), 2, /*batch=*/1024);
  const unsigned long long base = 4096;
  std::vector<std::pair<int, int>> warp_rounds;  // (warp, round)
  for (int k = 0; k < 4; ++k)
    for (int w = 0; w < 8; ++w) warp_rounds.push_back({w, k});
  std::mt19937 rng(12345);
  std::shuffle(warp_rounds.begin(), warp_rounds.end(), rng);
  // Keep each warp's rounds in order (program order of its threads).
  std::vector<int> next_round(8, 0);
  for (auto &wr : warp_rounds) wr.second = next_round[(size_t)wr.first]++;
  for (const auto &wr : warp_rounds)
    for (int lane = 0; lane < 32; ++lane) {
      const unsigned long long i = (unsigned long long)wr.second * 256 + (unsigned long long)(wr.first * 32 + lane);
      issue(q, p(1, base + 8 * i, 0x5a00000000000000ull + i));
    }
  CHECK(proxy.progress() == 1024);
  CHECK(fake.trace() == Trace{"put 1", "quiet"});
  REQUIRE(!fake.calls.empty());
  CHECK(fake.calls[0].remote == base);
  CHECK(fake.calls[0].value == 8192);
  size_t wrong = 0;
  for (unsigned long long i = 0; i < 1024; ++i) wrong += word_at(fake, 1, (size_t)(base + 8 * i)) != 0x5a00000000000000ull + i;
  CHECK(wrong == 0);
  CHECK(word_at(fake, 1, (size_t)base - 8) == 0);  // nothing outside the range
  CHECK(word_at(fake, 1, (size_t)base + 8192) == 0);
  CHECK(completed(q) == 1024);
  const Proxy::Timings t = proxy.timings();
  CHECK(t.transport_puts == 1);
  CHECK(t.puts_coalesced == 1023);
  CHECK(t.passes == 1);
  CHECK(t.quiets == 1);
}

TEST_CASE("proxy: coalescing merges only what touches, per PE", "[engine]") {
  HostProxyQueue storage(64);
  const gd::proxy_queue &q = storage.view();
  Fake fake;
  fake.queue = &q;
  Proxy proxy(q, fake.ops(), 4);
  issue(q, p(1, 0, 0x11));
  issue(q, p(2, 8, 0x21));   // another PE: its own put
  issue(q, p(1, 24, 0x13));  // a gap of 8 bytes after 0..8: a run of its own
  issue(q, p(1, 8, 0x12));   // joins 0..8 (descending order is fine)
  issue(q, p(3, 0, 0x31, 4));
  issue(q, p(3, 4, 0x32, 4));  // 4-byte values, contiguous: one put of 8
  issue(q, p(2, 16, 0x22));
  CHECK(proxy.progress() == 7);
  const Trace t = fake.trace();
  CHECK(count_of(t, "put 1") == 2);
  CHECK(count_of(t, "put 2") == 1);
  CHECK(count_of(t, "put 3") == 1);
  CHECK(t.back() == "quiet");
  std::map<std::pair<int, unsigned long long>, unsigned long long> sizes;  // (pe, offset) -> bytes of each put
  for (const Call &c : fake.calls)
    if (c.what == "put") sizes[{c.pe, c.remote}] = c.value;
  CHECK(sizes == std::map<std::pair<int, unsigned long long>, unsigned long long>{
                     {{1, 0}, 16}, {{1, 24}, 8}, {{2, 8}, 16}, {{3, 0}, 8}});
  CHECK(word_at(fake, 1, 0) == 0x11);
  CHECK(word_at(fake, 1, 8) == 0x12);
  CHECK(word_at(fake, 1, 16) == 0);
  CHECK(word_at(fake, 1, 24) == 0x13);
  CHECK(word_at(fake, 2, 8) == 0x21);
  CHECK(word_at(fake, 2, 16) == 0x22);
  CHECK(word_at(fake, 3, 0) == 0x0000003200000031ull);
  CHECK(proxy.timings().transport_puts == 4);
  CHECK(proxy.timings().puts_coalesced == 3);
}

TEST_CASE("proxy: where coalesced puts overlap, the later request wins", "[engine]") {
  HostProxyQueue storage(64);
  const gd::proxy_queue &q = storage.view();
  Fake fake;
  fake.queue = &q;
  Proxy proxy(q, fake.ops(), 2);
  SECTION("the same word twice") {
    issue(q, p(1, 64, 0x1111111111111111ull));
    issue(q, p(1, 64, 0x2222222222222222ull));
    CHECK(proxy.progress() == 2);
    CHECK(fake.trace() == Trace{"put 1", "quiet"});
    CHECK(word_at(fake, 1, 64) == 0x2222222222222222ull);
  }
  SECTION("the later request at a lower offset, partly overlapping") {
    issue(q, p(1, 4, 0xaaaaaaaaaaaaaaaaull));  // bytes 4..12
    issue(q, p(1, 3, 0xbb, 1));                // byte 3
    issue(q, p(1, 0, 0xccccccccccccccccull));   // bytes 0..8: covers 3 and 4..8
    issue(q, p(1, 10, 0xdd, 1));               // byte 10
    CHECK(proxy.progress() == 4);
    CHECK(fake.trace() == Trace{"put 1", "quiet"});
    CHECK(fake.calls[0].remote == 0);
    CHECK(fake.calls[0].value == 12);
    CHECK(word_at(fake, 1, 0) == 0xccccccccccccccccull);
    CHECK(word_at(fake, 1, 8) == 0x00000000aaddaaaaull);
  }
  SECTION("puts with sources that overlap go one by one, in ticket order") {
    const unsigned long long a = 0x0101010101010101ull, b = 0x0202020202020202ull;
    issue(q, put(1, 16, &a, 8));
    issue(q, put(1, 12, &b, 8));
    issue(q, p(1, 20, 0x03, 1));  // overlaps b: inline and source mixed, ticket order too
    CHECK(proxy.progress() == 3);
    CHECK(fake.trace() == Trace{"put 1", "put 1", "put 1", "quiet"});
    CHECK(fake.calls[0].remote == 16);
    CHECK(fake.calls[1].remote == 12);
    CHECK(fake.calls[2].remote == 20);
    CHECK(word_at(fake, 1, 16) == 0x0101010302020202ull);
    CHECK(proxy.timings().puts_coalesced == 0);
  }
}

TEST_CASE("proxy: puts with sources stay one put each; inline ones around them merge", "[engine]") {
  // Sources that follow each other in memory may be two allocations (one
  // CUDA copy need not span them): never merged.
  HostProxyQueue storage(64);
  const gd::proxy_queue &q = storage.view();
  Fake fake;
  fake.queue = &q;
  Proxy proxy(q, fake.ops(), 2);
  unsigned long long src[4] = {1, 2, 3, 4};
  issue(q, put(1, 808, &src[1], 8));
  issue(q, put(1, 800, &src[0], 8));
  issue(q, p(1, 824, 7));
  issue(q, put(1, 816, &src[2], 8));
  issue(q, p(1, 832, 8));  // touches the inline put at 824: merged with it
  CHECK(proxy.progress() == 5);
  CHECK(fake.trace() == Trace{"put 1", "put 1", "put 1", "put 1", "quiet"});
  std::vector<std::pair<unsigned long long, unsigned long long>> puts;  // (offset, bytes), as handed over
  for (const Call &c : fake.calls)
    if (c.what == "put") puts.push_back({c.remote, c.value});
  CHECK(puts == std::vector<std::pair<unsigned long long, unsigned long long>>{{800, 8}, {808, 8}, {816, 8}, {824, 16}});
  for (int i = 0; i < 3; ++i) CHECK(word_at(fake, 1, (size_t)(800 + 8 * i)) == (unsigned long long)(i + 1));
  CHECK(word_at(fake, 1, 824) == 7);
  CHECK(word_at(fake, 1, 832) == 8);
  CHECK(proxy.timings().puts_coalesced == 1);
}

TEST_CASE("proxy: other requests to the PE, and fences, end a run; data stays before signals", "[engine]") {
  HostProxyQueue storage(64);
  const gd::proxy_queue &q = storage.view();
  Fake fake;
  fake.queue = &q;
  Proxy proxy(q, fake.ops(), 4);
  SECTION("signal_op (P3)") {
    issue(q, p(1, 0, 1));
    issue(q, p(1, 8, 2));
    issue(q, signal(1, 256, 1));
    issue(q, p(1, 16, 3));  // after the signal: not merged with the puts before it
    issue(q, p(1, 24, 4));
    CHECK(proxy.progress() == 5);
    CHECK(fake.trace() == Trace{"put 1", "fence 1", "signal 1", "put 1", "quiet"});
    CHECK(fake.calls[0].value == 16);
    CHECK(fake.calls[3].remote == 16);
    CHECK(fake.calls[3].value == 16);
  }
  SECTION("put_signal (P2, P3)") {
    issue(q, p(1, 0, 1));
    issue(q, p(1, 8, 2));
    const char data[8] = "abcdefg";
    gd::proxy_request r = put(1, 16, data, 8);  // contiguous with the p's, yet not merged: it signals
    r.op = gd::proxy_op_put_signal;
    r.aux = 256;
    r.value = 1;
    r.sub_op = GSHMEM_SIGNAL_SET;
    issue(q, r);
    CHECK(proxy.progress() == 3);
    CHECK(fake.trace() == Trace{"put 1", "put 1", "fence 1", "signal 1", "quiet"});
    CHECK(fake.calls[0].remote == 0);
    CHECK(fake.calls[0].value == 16);
    CHECK(fake.calls[1].remote == 16);
  }
  SECTION("fence (P4): every PE's held puts before it") {
    issue(q, p(1, 0, 1));
    issue(q, p(2, 0, 1));
    issue(q, fence());
    issue(q, p(1, 8, 2));
    issue(q, p(2, 8, 2));
    CHECK(proxy.progress() == 5);
    CHECK(fake.trace() == Trace{"put 1", "put 2", "fence -1", "put 1", "put 2", "quiet"});
  }
  SECTION("get and atomic to the PE come after its earlier puts") {
    unsigned long long got = 0;
    gd::proxy_request g{};
    g.op = gd::proxy_op_get;
    g.pe = 1;
    g.remote = 0;
    g.local = (unsigned long long)(uintptr_t)&got;
    g.bytes = 8;
    gd::proxy_request a{};
    a.op = gd::proxy_op_amo;
    a.pe = 1;
    a.remote = 8;
    a.bytes = 8;
    a.sub_op = GSHMEMI_TRANSPORT_AMO_ADD;
    a.value = 1;
    issue(q, p(1, 0, 1));
    issue(q, g);
    issue(q, p(1, 8, 2));
    issue(q, a);
    issue(q, p(1, 16, 3));
    CHECK(proxy.progress() == 5);
    CHECK(fake.trace() == Trace{"put 1", "get 1", "put 1", "amo 1", "put 1", "quiet"});
  }
  SECTION("a signal to another PE does not end the run") {
    issue(q, p(1, 0, 1));
    issue(q, signal(2, 256, 1));
    issue(q, p(1, 8, 2));
    CHECK(proxy.progress() == 3);
    CHECK(fake.trace() == Trace{"signal 2", "put 1", "quiet"});
    CHECK(fake.calls[1].value == 16);
  }
}

// A queue whose value copies live in host memory (standing in for the
// device copy: the proxy only hands their addresses on), and a transport
// that asks for device sources for PE 1.
struct DeviceSourceRig {
  explicit DeviceSourceRig(unsigned long long capacity)
      : storage(capacity), q(storage.view()), values(2 * capacity, 0) {
    q.values = values.data();
    fake.queue = &q;
    fake.device_source_pes = {1};
    ops = fake.ops();
    ops.device_source = &Fake::device_source;
    ops.signal_from = &Fake::signal_from;
  }
  HostProxyQueue storage;
  gd::proxy_queue q;
  std::vector<unsigned long long> values;
  Fake fake;
  gshmemi_transport_ops_t ops{};
};

TEST_CASE("proxy: inline values go from their device copies where the transport asks for them", "[engine]") {
  DeviceSourceRig rig(8);
  gd::proxy_queue &q = rig.q;
  std::vector<unsigned long long> &values = rig.values;
  Fake &fake = rig.fake;
  Proxy proxy(q, rig.ops, 4);
  // Three passes: the tickets' copies move through both laps of values.
  for (unsigned long long round = 0; round < 3; ++round) {
    const unsigned long long first = round * 6;
    fake.calls.clear();
    fake.pending_puts.clear();
    fake.signal_value_sources.clear();
    fake.memory.clear();
    issue(q, p(1, 16, 0x1111 + round));  // tickets first..first+2: one run, copies back to back
    issue(q, p(1, 24, 0x2222 + round));
    issue(q, p(1, 32, 0x33 + round, 4));  // 4 bytes: the low ones of its copy
    issue(q, p(2, 0, 0x4444 + round));    // a PE without device sources: staged in host memory
    issue(q, p(2, 8, 0x5555 + round));
    issue(q, signal(1, 128, 9 + round, GSHMEM_SIGNAL_SET));
    CHECK(proxy.progress() == 6);
    CHECK(fake.trace() == Trace{"put 1", "fence 1", "signal 1", "put 2", "quiet"});
    const unsigned long long *copy = &values[first & (2 * q.capacity - 1)];
    CHECK(copy[0] == 0x1111 + round);  // what the producers wrote
    REQUIRE(fake.data_at_quiet.size() >= 2);
    const std::string &run = fake.data_at_quiet[fake.data_at_quiet.size() - 2];
    CHECK(run.size() == 20);
    CHECK(fake.calls[0].value == 20);
    // The device-source run was read from the copies of its tickets.
    unsigned long long got[3] = {0, 0, 0};
    std::memcpy(got, run.data(), run.size());
    CHECK(got[0] == 0x1111 + round);
    CHECK(got[1] == 0x2222 + round);
    CHECK((got[2] & 0xffffffffull) == 0x33 + round);
    REQUIRE(fake.memory[2].size() >= 16);
    unsigned long long staged[2];
    std::memcpy(staged, fake.memory[2].data(), 16);
    CHECK(staged[0] == 0x4444 + round);
    CHECK(staged[1] == 0x5555 + round);
    REQUIRE(fake.signal_value_sources.size() == 1);
    const unsigned long long signal_ticket = first + 5;
    CHECK(fake.signal_value_sources[0] == &values[signal_ticket & (2 * q.capacity - 1)]);
    CHECK(*static_cast<const unsigned long long *>(fake.signal_value_sources[0]) == 9 + round);
  }
}

TEST_CASE("proxy: a stretch whose device copies would take many puts goes staged, as one", "[engine]") {
  DeviceSourceRig rig(16);
  gd::proxy_queue &q = rig.q;
  std::vector<unsigned long long> &values = rig.values;
  Fake &fake = rig.fake;
  Proxy proxy(q, rig.ops, 4);
  // Six words written last to first: sorted by target, each copy lies
  // before the previous one's, six pieces (more than the proxy sends
  // one-sided one by one).
  for (int k = 5; k >= 0; --k) issue(q, p(1, 8 * (unsigned long long)k, 0x100 + (unsigned long long)k));
  CHECK(proxy.progress() == 6);
  CHECK(fake.trace() == Trace{"put 1", "quiet"});
  CHECK(fake.calls[0].value == 48);
  REQUIRE(fake.data_at_quiet.size() == 1);
  unsigned long long got[6];
  std::memcpy(got, fake.data_at_quiet[0].data(), 48);
  for (int k = 0; k < 6; ++k) CHECK(got[k] == 0x100 + (unsigned long long)k);
  // Not read from the value copies: a host staging copy.
  const auto in_copies = [&](const void *ptr) {
    return ptr >= (const void *)values.data() && ptr < (const void *)(values.data() + values.size());
  };
  REQUIRE(fake.put_sources.size() == 1);
  CHECK_FALSE(in_copies(fake.put_sources[0]));
  // Four pieces or fewer still go one-sided from the copies: two warps'
  // worth in reverse order of two words each.
  fake.calls.clear();
  fake.data_at_quiet.clear();
  issue(q, p(1, 16, 0x202));
  issue(q, p(1, 24, 0x203));
  issue(q, p(1, 0, 0x200));
  issue(q, p(1, 8, 0x201));
  CHECK(proxy.progress() == 4);
  CHECK(fake.trace() == Trace{"put 1", "put 1", "quiet"});
  CHECK(fake.calls[0].value == 16);
  CHECK(fake.calls[1].value == 16);
  REQUIRE(fake.put_sources.size() == 3);
  CHECK(in_copies(fake.put_sources[1]));
  CHECK(in_copies(fake.put_sources[2]));
}

// A warp's run of p's as the device routines hand it over (remote.h,
// remote_issue_p): k tickets with one reservation, the values packed into
// the device copies and their host mirror from the first ticket's word on,
// then only the first ticket's slot published. Returns the first ticket.
unsigned long long issue_run(const gd::proxy_queue &q, int pe, unsigned long long remote, unsigned width,
                             const std::vector<unsigned long long> &vals) {
  const unsigned long long k = vals.size();
  const unsigned long long first = gd::proxy_reserve(q, k);
  const unsigned long long ring = 2 * q.capacity - 1;
  REQUIRE((first & ring) + k <= ring + 1);  // the device routines never let a run wrap around
  REQUIRE(gd::proxy_wait_slot(q, first + k - 1));
  for (unsigned long long i = 0; i < k; ++i) {
    const unsigned long long at = (first & ring) * 8 + i * width;
    std::memcpy(reinterpret_cast<char *>(q.values) + at, &vals[i], width);
    std::memcpy(reinterpret_cast<char *>(q.host_values) + at, &vals[i], width);
  }
  gd::proxy_request r{};
  r.op = gd::proxy_op_put_run;
  r.pe = pe;
  r.bytes = k * width;
  r.remote = remote;
  r.aux = k;
  r.sub_op = width;
  gd::proxy_publish_run(q, first, r);
  return first;
}

// DeviceSourceRig with the host mirror of the value copies.
struct RunRig : DeviceSourceRig {
  explicit RunRig(unsigned long long capacity) : DeviceSourceRig(capacity), host_values(2 * capacity, 0) {
    q.host_values = host_values.data();
  }
  std::vector<unsigned long long> host_values;
};

TEST_CASE("proxy: a warp's run of p's is one request over several tickets", "[engine]") {
  RunRig rig(32);  // a round takes at most 21 tickets, fillers included
  gd::proxy_queue &q = rig.q;
  Fake &fake = rig.fake;
  Proxy proxy(q, rig.ops, 4);
  const auto in_copies = [&](const void *ptr) {
    return ptr >= (const void *)rig.values.data() && ptr < (const void *)(rig.values.data() + rig.values.size());
  };
  // Rounds of 11 tickets and more walk the runs through both laps of the copies.
  for (unsigned long long round = 0; round < 12; ++round) {
    fake.calls.clear();
    fake.memory.clear();
    fake.data_at_quiet.clear();
    const size_t sources_before = fake.put_sources.size();
    const unsigned long long before = proxy.consumed();
    const Proxy::Timings t0 = proxy.timings();
    // PE 2 takes no device sources: staged from the host mirror, merged
    // with the lone p that follows the run's targets.
    std::vector<unsigned long long> words;
    for (unsigned long long i = 0; i < 5; ++i) words.push_back(0xa000 + 16 * round + i);
    const unsigned long long ring = 2 * q.capacity - 1;
    // A run never wraps around the ring (the device routines issue its p's
    // one by one then): fill up to the end with lone p's to a far target.
    while (((gd::proxy_quiet_target(q)) & ring) + 5 > ring + 1) issue(q, p(3, 4096, 7));
    issue_run(q, 2, 64, 8, words);
    issue(q, p(2, 104, 0xb000 + round));
    // PE 1 takes device sources: two runs whose copies and targets follow
    // each other go as one put from the copies; a run of 4-byte values,
    // packed, as one put of 12 bytes.
    while (((gd::proxy_quiet_target(q)) & ring) + 7 > ring + 1) issue(q, p(3, 4096, 7));
    issue_run(q, 1, 0, 8, {1 + round, 2 + round});
    issue_run(q, 1, 16, 8, {3 + round, 4 + round});
    issue_run(q, 1, 256, 4, {0x11, 0x22, 0x33});
    const unsigned long long tickets = gd::proxy_quiet_target(q) - before;
    long long consumed = 0;
    while (proxy.consumed() - before < tickets) {
      const long long n = proxy.progress();
      REQUIRE(n >= 0);
      consumed += n;
    }
    CHECK((unsigned long long)consumed == tickets);  // every p counts, the run's skipped tickets included
    const Proxy::Timings t1 = proxy.timings();
    CHECK(t1.runs - t0.runs == 4);
    REQUIRE(fake.memory[2].size() >= 112);
    unsigned long long got[6];
    std::memcpy(got, fake.memory[2].data() + 64, 48);
    for (unsigned long long i = 0; i < 5; ++i) CHECK(got[i] == 0xa000 + 16 * round + i);
    CHECK(got[5] == 0xb000 + round);
    REQUIRE(fake.memory[1].size() >= 268);
    unsigned long long four[4];
    std::memcpy(four, fake.memory[1].data(), 32);
    CHECK(four[0] == 1 + round);
    CHECK(four[1] == 2 + round);
    CHECK(four[2] == 3 + round);
    CHECK(four[3] == 4 + round);
    unsigned int packed[3];
    std::memcpy(packed, fake.memory[1].data() + 256, 12);
    CHECK(packed[0] == 0x11);
    CHECK(packed[1] == 0x22);
    CHECK(packed[2] == 0x33);
    // PE 1's puts: the two runs as one put of 32 bytes, the 4-byte run as
    // one of 12, both read from the copies.
    std::vector<unsigned long long> pe1_sizes;
    for (const Call &c : fake.calls)
      if (c.what == "put" && c.pe == 1) pe1_sizes.push_back(c.value);
    std::sort(pe1_sizes.begin(), pe1_sizes.end());
    CHECK(pe1_sizes == std::vector<unsigned long long>{12, 32});
    size_t from_copies = 0;
    for (size_t i = sources_before; i < fake.put_sources.size(); ++i) from_copies += in_copies(fake.put_sources[i]);
    CHECK(from_copies == 2);
  }
}

TEST_CASE("proxy queue: a run is consumed whole, and past a pass's limit only as its first request",
          "[engine]") {
  RunRig rig(16);
  gd::proxy_queue &q = rig.q;
  const unsigned long long first = issue_run(q, 1, 0, 8, {1, 2, 3, 4});
  issue(q, p(1, 32, 5));
  std::vector<unsigned long long> seen;
  unsigned long long next = 0;
  const auto take = [&](const gd::proxy_request &, unsigned long long ticket) {
    seen.push_back(ticket);
    return true;
  };
  // Limit 2: the run (4 tickets) is the first request, so it is taken.
  CHECK(gd::proxy_consume(q, &next, 2, take) == 4);
  CHECK(seen == std::vector<unsigned long long>{first});
  CHECK(next == first + 4);
  CHECK(gd::proxy_consume(q, &next, 2, take) == 1);
  CHECK(seen == std::vector<unsigned long long>{first, first + 4});
  // A run that would pass the limit after another request waits for the
  // next call.
  issue(q, p(1, 64, 6));
  const unsigned long long second = issue_run(q, 1, 72, 8, {7, 8, 9});
  CHECK(gd::proxy_consume(q, &next, 3, take) == 1);
  CHECK(gd::proxy_consume(q, &next, 3, take) == 3);
  CHECK(seen.back() == second);
  CHECK(next == second + 3);
  CHECK(gd::atomic_load<gshmem::memory_order::acquire, gshmem::thread_scope::system>(q.head) == next);
}

TEST_CASE("proxy: a malformed run fails the pass with INVALID_VALUE", "[engine]") {
  RunRig rig(16);
  gd::proxy_queue &q = rig.q;
  Proxy proxy(q, rig.ops, 4);
  gd::proxy_request r{};
  r.op = gd::proxy_op_put_run;
  r.pe = 1;
  r.bytes = 24;  // not aux * sub_op
  r.aux = 2;
  r.sub_op = 8;
  const unsigned long long first = gd::proxy_reserve(q, 2);
  REQUIRE(gd::proxy_wait_slot(q, first + 1));
  gd::proxy_publish_run(q, first, r);
  CHECK(proxy.progress() == GSHMEMX_ERROR_INVALID_VALUE);
  CHECK(proxy.error() == GSHMEMX_ERROR_INVALID_VALUE);
  CHECK(proxy.failed_pe() == 1);
}

TEST_CASE("proxy: a failing coalesced put names its PE and ends the pass", "[engine]") {
  HostProxyQueue storage(64);
  const gd::proxy_queue &q = storage.view();
  Fake fake;
  fake.queue = &q;
  fake.fail_put_to = 2;
  Proxy proxy(q, fake.ops(), 4);
  int hook_pe = -1, hook_calls = 0;
  proxy.set_error_hook([&](int, int pe) {
    hook_pe = pe;
    ++hook_calls;
  });
  issue(q, p(2, 0, 1));
  issue(q, p(2, 8, 2));
  issue(q, p(3, 0, 1));  // held after PE 2's: dropped
  CHECK(proxy.progress() == GSHMEMX_ERROR_PEER_LOST);
  CHECK(hook_calls == 1);
  CHECK(hook_pe == 2);
  CHECK(fake.trace() == Trace{"put 2"});
  CHECK(completed(q) == 0);
}
