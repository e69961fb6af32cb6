// Remote peers on the GPU: 2 PEs with GSHMEM_REMOTE_PEERS=all, so every
// device routine to the other PE goes through the proxy thread and the UCX
// transport (docs/remote.md) although the GPUs could map each other (or the
// PEs share one GPU). Registered in tests/remote/CMakeLists.txt over UCX's
// own choice of transport and over UCX_TLS=self,tcp.
#include <cmath>
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "catch.hpp"
#include "gpu_test_support.h"
#include "remote_gpu_kernels.h"
#include "test_support.h"

#include <gshmem/gshmem.h>
#include <gshmem/gshmemx.h>

using namespace remote_gpu;

namespace {

template <class T>
std::vector<T> to_host(const T *dev, size_t n) {
  std::vector<T> h(n);
  GSHMEM_TEST_CUDA(cudaMemcpy(h.data(), dev, n * sizeof(T), cudaMemcpyDeviceToHost));
  return h;
}

int src_value(int pe, int k) { return pe * 10000 + k; }

long long litmus_rounds() {
  const char *text = std::getenv("GSHMEM_TEST_REMOTE_LITMUS_ROUNDS");
  const long long n = text ? std::atoll(text) : 100000;
  return (long long)gshmem_test::scaled_iterations((unsigned long long)(n > 0 ? n : 1));
}

// GSHMEM_TEST_EXPECT_PATH (the RMA-mode and message-mode variants):
// "one_sided" or "messages", the path puts and gets on the heap must take;
// unset: either.
std::string expected_path() {
  const char *text = std::getenv("GSHMEM_TEST_EXPECT_PATH");
  return text ? text : "";
}

// The proxy queue's capacity this run (GSHMEM_PROXY_QUEUE_CAPACITY, default 4096).
unsigned long long queue_capacity() {
  const char *text = std::getenv("GSHMEM_PROXY_QUEUE_CAPACITY");
  return text ? std::strtoull(text, nullptr, 10) : 4096;
}

bool init_remote() {
  static bool ok = gshmem_test::init_once({});
  static bool checked = false;
  if (ok && !checked) {
    checked = true;
    // The RMA-mode variant needs a UCX that maps CUDA memory (every PE
    // agrees on a region's path, so every PE skips alike).
    gshmemx_remote_stats_t s{};
    if (expected_path() == "one_sided" && gshmemx_remote_stats(&s) == GSHMEM_SUCCESS && s.gpu_regions_one_sided == 0) {
      std::printf("SKIPPED: RMA mode expected, but the transport reaches the heap with messages: the process's UCX "
                  "cannot register CUDA memory (see the module's INFO line, GSHMEM_DEBUG=INFO; "
                  "scripts/ucx_cuda_prefix.sh)\n");
      std::fflush(stdout);
      gshmem_finalize();
      std::exit(gshmem_test::kSkipExitCode);
    }
  }
  return ok;
}

}  // namespace

TEST_CASE("remote: the peer is remote, gshmem_ptr gives NULL", "[remote]") {
  REQUIRE(init_remote());
  const int me = gshmem_my_pe(), n = gshmem_n_pes();
  REQUIRE(n == 2);
  int *x = static_cast<int *>(gshmem_malloc(sizeof(int)));
  REQUIRE(x != nullptr);
  CHECK(gshmem_ptr(x, me) == x);
  CHECK(gshmem_ptr(x, 1 - me) == nullptr);
  // Host RMA reaches the remote peer through the proxy (the host and
  // on-stream suites run whole with every peer remote: tests/remote/CMakeLists.txt).
  GSHMEM_TEST_CUDA(cudaMemset(x, 0, sizeof(int)));
  GSHMEM_TEST_CUDA(cudaDeviceSynchronize());
  gshmem_barrier_all();
  const int v = 5 + me;
  gshmem_int_put(x, &v, 1, 1 - me);
  CHECK(gshmemx_get_last_error() == GSHMEM_SUCCESS);
  gshmem_barrier_all();
  int got = 0;
  GSHMEM_TEST_CUDA(cudaMemcpy(&got, x, sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(got == 5 + (1 - me));
  CHECK(gshmem_int_g(x, 1 - me) == 5 + me);  // what this PE put there
  gshmem_barrier_all();
  gshmem_free(x);
}

TEST_CASE("remote: p, g, put, get in every form", "[remote]") {
  REQUIRE(init_remote());
  const int me = gshmem_my_pe(), peer = 1 - me;
  int *dst = gshmem_test::sym_zeroed<int>(kDstInts);
  int *src = gshmem_test::sym_zeroed<int>(kSrcInts);
  std::vector<int> h(kSrcInts);
  for (int k = 0; k < kSrcInts; ++k) h[k] = src_value(me, k);
  GSHMEM_TEST_CUDA(cudaMemcpy(src, h.data(), kSrcInts * sizeof(int), cudaMemcpyHostToDevice));
  int *got = nullptr;
  GSHMEM_TEST_CUDA(cudaMalloc(&got, kGotInts * sizeof(int)));
  GSHMEM_TEST_CUDA(cudaMemset(got, 0, kGotInts * sizeof(int)));
  gshmem_barrier_all();
  gshmemx_remote_stats_t before{}, after{};
  REQUIRE(gshmemx_remote_stats(&before) == GSHMEM_SUCCESS);
  GSHMEM_TEST_CUDA(launch_rma(dst, src, got, peer));
  GSHMEM_TEST_CUDA(cudaDeviceSynchronize());
  gshmem_barrier_all();  // the peer's puts into dst are complete (its kernel quieted)
  // The proxy counted the kernel's requests and the time it spent on them.
  REQUIRE(gshmemx_remote_stats(&after) == GSHMEM_SUCCESS);
  CHECK(before.active == 1);
  CHECK(after.active == 1);
  CHECK(after.requests >= before.requests + 10);  // p, g, put and get forms, one request each at least
  CHECK(after.passes > before.passes);
  CHECK(after.passes <= after.requests);
  CHECK(after.quiets > before.quiets);
  CHECK(after.quiet_ns > before.quiet_ns);
  CHECK(after.issue_ns > before.issue_ns);
  // The path the puts and gets took (the variants say which they expect).
  const unsigned long long puts1 = after.puts_one_sided - before.puts_one_sided,
                           putsm = after.puts_messages - before.puts_messages,
                           gets1 = after.gets_one_sided - before.gets_one_sided,
                           getsm = after.gets_messages - before.gets_messages;
  WARN("puts " << puts1 << " one-sided / " << putsm << " messages, gets " << gets1 << " / " << getsm
               << "; GPU regions one-sided: " << after.gpu_regions_one_sided << "; messages applied here: "
               << after.messages_applied - before.messages_applied);
  if (expected_path() == "one_sided") {
    CHECK(after.gpu_regions_one_sided > 0);
    CHECK(puts1 > 0);
    CHECK(putsm == 0);
    CHECK(gets1 > 0);
    CHECK(getsm == 0);
  } else if (expected_path() == "messages") {
    CHECK(after.gpu_regions_one_sided == 0);
    CHECK(putsm > 0);
    CHECK(puts1 == 0);
    CHECK(getsm > 0);
    CHECK(gets1 == 0);
    CHECK(after.messages_applied > before.messages_applied);  // the peer's puts and gets, applied here
  }
  // CUDA copies for the transport happen only where UCX cannot register GPU
  // memory (active-message mode): shown, not asserted.
  WARN("CUDA copies and atomic kernels for the transport: " << after.applies - before.applies << ", "
                                                             << (after.apply_ns - before.apply_ns) / 1000 << " us");
  const std::vector<int> d = to_host(dst, kDstInts), g = to_host(got, kGotInts);
  CHECK(d[kP] == 1000 + peer);
  for (int k = 0; k < kMsgInts; ++k) {
    INFO("element " << k);
    CHECK(d[kPut + k] == src_value(peer, k));
    CHECK(d[kPutNbi + k] == src_value(peer, k + 1));
    CHECK(d[kPutmem + k] == src_value(peer, k + 2));
    CHECK(d[kPutShared + k] == 5000 + k);
    CHECK(g[kGet + k] == src_value(peer, k));
    CHECK(g[kGetNbi + k] == src_value(peer, k + 1));
    CHECK(g[kGetShared + k] == src_value(peer, k + 2));
  }
  CHECK(g[kG] == src_value(peer, 3));
  for (int k = 0; k < kWarpInts; ++k) {
    CHECK(d[kPutWarp + k] == src_value(peer, k + 4));
    CHECK(g[kGetWarp + k] == src_value(peer, k + 4));
  }
  for (int k = 0; k < kBlockInts; ++k) {
    CHECK(d[kPutBlock + k] == src_value(peer, k + 5));
    CHECK(g[kGetBlock + k] == src_value(peer, k + 5));
  }
  CHECK(d[kPut + kMsgInts] == 0);  // nothing past a put
  gshmem_barrier_all();
  GSHMEM_TEST_CUDA(cudaFree(got));
  gshmem_free(src);
  gshmem_free(dst);
}

TEST_CASE("remote: the standard atomics, fetching and not", "[remote]") {
  REQUIRE(init_remote());
  const int me = gshmem_my_pe(), peer = 1 - me;
  long long *slots = gshmem_test::sym_zeroed<long long>(A_SLOTS);
  std::vector<long long> init(A_SLOTS, 0);
  init[A_FETCH] = 11;
  init[A_SWAP] = 12;
  init[A_CAS_OK] = 7;
  init[A_CAS_NO] = 9;
  init[A_FINC] = 20;
  init[A_INC] = 21;
  init[A_FADD] = 1;
  init[A_ADD] = 2;
  init[A_FAND] = 0xff;
  init[A_AND] = 0xff;
  init[A_FOR] = 0x1;
  init[A_OR] = 0x1;
  init[A_FXOR] = 0xf0;
  init[A_XOR] = 0x1;
  GSHMEM_TEST_CUDA(cudaMemcpy(slots, init.data(), A_SLOTS * sizeof(long long), cudaMemcpyHostToDevice));
  long long *fetched = nullptr, *olds = nullptr;
  const int contenders = kContendBlocks * kContendThreads;
  GSHMEM_TEST_CUDA(cudaMalloc(&fetched, A_SLOTS * sizeof(long long)));
  GSHMEM_TEST_CUDA(cudaMalloc(&olds, contenders * sizeof(long long)));
  gshmem_barrier_all();
  GSHMEM_TEST_CUDA(launch_amo(slots, fetched, olds, peer));
  GSHMEM_TEST_CUDA(cudaDeviceSynchronize());
  gshmem_barrier_all();
  const std::vector<long long> s = to_host(slots, A_SLOTS), f = to_host(fetched, A_SLOTS);
  CHECK(f[A_FETCH] == 11);
  CHECK(s[A_SET] == 40 + peer);
  CHECK(f[A_SWAP] == 12);
  CHECK(s[A_SWAP] == 50 + peer);
  CHECK(f[A_CAS_OK] == 7);
  CHECK(s[A_CAS_OK] == 60 + peer);
  CHECK(f[A_CAS_NO] == 9);
  CHECK(s[A_CAS_NO] == 9);
  CHECK(f[A_FINC] == 20);
  CHECK(s[A_FINC] == 21);
  CHECK(s[A_INC] == 22);
  CHECK(f[A_FADD] == 1);
  CHECK(s[A_FADD] == 101 + peer);
  CHECK(s[A_ADD] == 202 + peer);
  CHECK(f[A_FAND] == 0xff);
  CHECK(s[A_FAND] == 0xf0);
  CHECK(s[A_AND] == 0x0f);
  CHECK(f[A_FOR] == 0x1);
  CHECK(s[A_FOR] == 0x101);
  CHECK(s[A_OR] == 0x201);
  CHECK(f[A_FXOR] == 0xf0);
  CHECK(s[A_FXOR] == 0x0f);
  CHECK(s[A_XOR] == 0x2);
  // Contended fetch-add: every old value 0 .. contenders-1 exactly once.
  CHECK(s[A_CONTENDED] == contenders);
  const std::vector<long long> o = to_host(olds, contenders);
  std::set<long long> distinct(o.begin(), o.end());
  CHECK(distinct.size() == (size_t)contenders);
  CHECK(*distinct.begin() == 0);
  CHECK(*distinct.rbegin() == contenders - 1);
  gshmem_barrier_all();
  GSHMEM_TEST_CUDA(cudaFree(olds));
  GSHMEM_TEST_CUDA(cudaFree(fetched));
  gshmem_free(slots);
}

TEST_CASE("remote: device barrier_all orders a p before the peer's read", "[remote]") {
  REQUIRE(init_remote());
  const int peer = 1 - gshmem_my_pe();
  int *slot = gshmem_test::sym_zeroed<int>(2);
  unsigned long long *violations = nullptr;
  GSHMEM_TEST_CUDA(cudaMalloc(&violations, sizeof *violations));
  gshmem_barrier_all();
  const int rounds = (int)gshmem_test::scaled_iterations(200);
  GSHMEM_TEST_CUDA(launch_barrier(slot, rounds, peer, violations));
  GSHMEM_TEST_CUDA(cudaDeviceSynchronize());
  CHECK(to_host(violations, 1)[0] == 0);
  gshmem_barrier_all();
  GSHMEM_TEST_CUDA(cudaFree(violations));
  gshmem_free(slot);
}

TEST_CASE("remote: a block's burst of p's arrives whole, coalesced by the proxy", "[remote]") {
  REQUIRE(init_remote());
  const int peer = 1 - gshmem_my_pe();
  const int rounds = 8;
  auto *dst = gshmem_test::sym_zeroed<unsigned long long>(kBurstWords + 1);
  gshmem_barrier_all();
  gshmemx_remote_stats_t before{}, after{};
  REQUIRE(gshmemx_remote_stats(&before) == GSHMEM_SUCCESS);
  GSHMEM_TEST_CUDA(launch_p_burst(dst, rounds, peer));
  GSHMEM_TEST_CUDA(cudaDeviceSynchronize());
  REQUIRE(gshmemx_remote_stats(&after) == GSHMEM_SUCCESS);
  gshmem_barrier_all();  // the peer's burst into dst is complete (its kernel quieted)
  const std::vector<unsigned long long> got = to_host(dst, kBurstWords + 1);
  int wrong = 0;
  for (int i = 0; i < kBurstWords; ++i) wrong += got[(size_t)i] != burst_value(i, rounds - 1);
  CHECK(wrong == 0);
  CHECK(got[kBurstWords] == 2ull * rounds);  // of one thread's two p's to one word, the later
  // Every put request went out in a transport put of its own or inside
  // another's (nothing but this kernel's puts ran on this PE meanwhile).
  const unsigned long long puts = (after.transport_puts - before.transport_puts) +
                                  (after.puts_coalesced - before.puts_coalesced);
  CHECK(puts == (unsigned long long)rounds * (kBurstWords + 2));
  // The proxy's pass lasts a transport quiet (microseconds), while the
  // block queues a p every few nanoseconds: passes see many adjacent p's.
  CHECK(after.puts_coalesced > before.puts_coalesced);
  WARN("burst of " << rounds << " x " << kBurstWords + 2 << " p's: " << after.transport_puts - before.transport_puts
                   << " transport puts in " << after.passes - before.passes << " passes");
  gshmem_barrier_all();
  gshmem_free(dst);
}

TEST_CASE("remote: a warp's p's in every pattern arrive, consecutive ones as one request per warp", "[remote]") {
  REQUIRE(init_remote());
  const int peer = 1 - gshmem_my_pe();
  const size_t elems = 2 * kPatternElems;  // mode 4's upper halves go kPatternElems further on
  for (int width : {8, 4, 2, 1}) {
    for (int mode = 0; mode < kPatternModes; ++mode) {
      CAPTURE(width, mode);
      void *dst = gshmem_malloc(elems * (size_t)width);
      REQUIRE(dst != nullptr);
      GSHMEM_TEST_CUDA(cudaMemset(dst, 0, elems * (size_t)width));
      GSHMEM_TEST_CUDA(cudaDeviceSynchronize());
      gshmem_barrier_all();
      gshmemx_remote_stats_t before{}, after{};
      REQUIRE(gshmemx_remote_stats(&before) == GSHMEM_SUCCESS);
      GSHMEM_TEST_CUDA(launch_p_pattern(dst, width, mode, peer));
      GSHMEM_TEST_CUDA(cudaDeviceSynchronize());
      REQUIRE(gshmemx_remote_stats(&after) == GSHMEM_SUCCESS);
      gshmem_barrier_all();  // the peer's p's into dst are complete (its kernel quieted)
      std::vector<unsigned char> got(elems * (size_t)width);
      GSHMEM_TEST_CUDA(cudaMemcpy(got.data(), dst, got.size(), cudaMemcpyDeviceToHost));
      std::vector<unsigned long long> want(elems, 0);
      for (int t = 0; t < kPatternElems; ++t)
        if (pattern_active(mode, t)) want[(size_t)pattern_index(mode, t)] = pattern_value(t, width);
      int wrong = 0;
      for (size_t i = 0; i < elems; ++i) {
        unsigned long long v = 0;
        std::memcpy(&v, got.data() + i * (size_t)width, (size_t)width);
        wrong += v != want[i];
      }
      CHECK(wrong == 0);
      // Every p is accounted for (in a transport put of its own or carried
      // inside another's), and consecutive lanes went as runs: one request
      // per warp and pass of the loop in mode 0 (32 for 1024 p's), two in
      // mode 4, one or two in mode 5 (where the branches run apart); none
      // where no two lanes' targets are in line.
      const unsigned long long active = mode == 3 ? kPatternElems / 2 : kPatternElems;
      CHECK((after.transport_puts - before.transport_puts) + (after.puts_coalesced - before.puts_coalesced) == active);
      const unsigned long long runs = after.put_runs - before.put_runs;
      // A run whose tickets would wrap around the queue's ring of value
      // copies (2 x capacity words) goes as single requests: one run for
      // each time the kernel's tickets pass the ring's end. A queue of
      // fewer than 64 slots takes no run of 32 (remote_issue_p), and the
      // small-queue variant's 2 slots none at all.
      const unsigned long long warp_passes = kPatternElems / 32;
      CAPTURE(runs, after.transport_puts - before.transport_puts, after.passes - before.passes);
      if (queue_capacity() >= 64) {
        const unsigned long long wraps = active / (2 * queue_capacity()) + 1;
        const unsigned long long expected = (mode == 4 ? 2 : 1) * warp_passes;
        const unsigned long long least = expected > wraps ? expected - wraps : 0;
        const unsigned long long most = (mode == 0 ? 1 : 2) * warp_passes;
        if (mode == 0 || mode == 4 || mode == 5) {
          CHECK(runs >= least);
          CHECK(runs <= most);
        }
      }
      if (queue_capacity() < 4 || mode == 1 || mode == 2 || mode == 3) CHECK(runs == 0);
      gshmem_barrier_all();
      gshmem_free(dst);
    }
  }
}

TEST_CASE("remote: extended atomics, C++ atomics with orders, g_weak", "[remote]") {
  REQUIRE(init_remote());
  const int me = gshmem_my_pe(), peer = 1 - me;
  int *I = gshmem_test::sym_zeroed<int>(X_I_SLOTS);
  float *F = gshmem_test::sym_zeroed<float>(X_F_SLOTS);
  double *D = gshmem_test::sym_zeroed<double>(X_D_SLOTS);
  long long *L = gshmem_test::sym_zeroed<long long>(X_L_SLOTS);
  const std::vector<int> i0 = {100, 5, 5, 7, 11, 0, 3, 8};
  const std::vector<float> f0 = {1.5f, 2.0f, 1.0f, 4.0f, 0.0f};
  const std::vector<double> d0 = {10.0, -0.0};
  const std::vector<long long> l0 = {1, 0};
  GSHMEM_TEST_CUDA(cudaMemcpy(I, i0.data(), X_I_SLOTS * sizeof(int), cudaMemcpyHostToDevice));
  GSHMEM_TEST_CUDA(cudaMemcpy(F, f0.data(), X_F_SLOTS * sizeof(float), cudaMemcpyHostToDevice));
  GSHMEM_TEST_CUDA(cudaMemcpy(D, d0.data(), X_D_SLOTS * sizeof(double), cudaMemcpyHostToDevice));
  GSHMEM_TEST_CUDA(cudaMemcpy(L, l0.data(), X_L_SLOTS * sizeof(long long), cudaMemcpyHostToDevice));
  constexpr int kContenders = kXamoBlocks * kXamoThreads;
  double *fetched = nullptr;
  float *olds = nullptr;
  GSHMEM_TEST_CUDA(cudaMalloc(&fetched, XF_SLOTS * sizeof(double)));
  GSHMEM_TEST_CUDA(cudaMalloc(&olds, kContenders * sizeof(float)));
  GSHMEM_TEST_CUDA(cudaDeviceSynchronize());
  gshmem_barrier_all();
  GSHMEM_TEST_CUDA(launch_xamo(I, F, D, L, fetched, olds, peer));
  GSHMEM_TEST_CUDA(cudaDeviceSynchronize());
  gshmem_barrier_all();  // the peer's kernels quieted: its updates of these slots are done
  const std::vector<int> i = to_host(I, X_I_SLOTS);
  const std::vector<float> f = to_host(F, X_F_SLOTS);
  const std::vector<double> d = to_host(D, X_D_SLOTS), x = to_host(fetched, XF_SLOTS);
  const std::vector<long long> l = to_host(L, X_L_SLOTS);
  const std::vector<float> o = to_host(olds, kContenders);
  // What the peer did to this PE's slots.
  CHECK(i[X_I_SUB] == 70);
  CHECK(i[X_I_FMAX] == 9);
  CHECK(i[X_I_MIN] == 2);
  CHECK(i[X_I_FNANMAX] == 7);
  CHECK(i[X_I_LOAD_ACQ] == 11);
  CHECK(i[X_I_STORE_REL] == 42);
  CHECK(i[X_I_CAS_OK] == 4);
  CHECK(i[X_I_CAS_NO] == 8);
  CHECK(f[X_F_FADD] == 3.75f);
  CHECK(f[X_F_FMAX_NAN] != f[X_F_FMAX_NAN]);  // max propagates NaN
  CHECK(f[X_F_NANMIN] == 0.5f);
  CHECK(f[X_F_XCHG] == 2.5f);
  CHECK(f[X_F_CONTENDED] == (float)kContenders);  // every compare-and-swap loop's add once
  CHECK(d[X_D_FSUB] == 7.5);
  CHECK(d[X_D_FMAX_ZERO] == 0.0);
  CHECK_FALSE(std::signbit(d[X_D_FMAX_ZERO]));  // max(-0.0, +0.0) is +0.0
  CHECK(l[X_L_ADD] == 42);
  CHECK(l[X_L_SUB] == -5);
  // What this PE's fetching forms returned (the peer's initial values).
  CHECK(x[XF_SUB] == 100);
  CHECK(x[XF_FMAX] == 5);
  CHECK(x[XF_FNANMAX] == 7);
  CHECK(x[XF_LOAD_ACQ] == 11);
  CHECK(x[XF_CAS_OK] == 1);
  CHECK(x[XF_CAS_OK_EXPECTED] == 3);
  CHECK(x[XF_CAS_NO] == 0);
  CHECK(x[XF_CAS_NO_EXPECTED] == 8);  // the value found
  CHECK(x[XF_G_WEAK] == 11);
  CHECK(x[XF_FADD] == 1.5);
  CHECK(x[XF_FMAX_NAN] == 2.0);
  CHECK(x[XF_XCHG] == 4.0);
  CHECK(x[XF_DSUB] == 10.0);
  CHECK(x[XF_DMAX_ZERO] == 0.0);
  CHECK(std::signbit(x[XF_DMAX_ZERO]));  // the old value was -0.0
  std::set<float> distinct(o.begin(), o.end());
  CHECK(distinct.size() == (size_t)kContenders);  // every contender saw a different old value
  CHECK(*distinct.begin() == 0.0f);
  CHECK(*distinct.rbegin() == (float)(kContenders - 1));
  gshmem_barrier_all();
  GSHMEM_TEST_CUDA(cudaFree(olds));
  GSHMEM_TEST_CUDA(cudaFree(fetched));
  gshmem_free(L);
  gshmem_free(D);
  gshmem_free(F);
  gshmem_free(I);
}

TEST_CASE("remote: message passing with the C++ interface (put_nbi, atomic_store release)", "[remote][litmus]") {
  REQUIRE(init_remote());
  const int me = gshmem_my_pe(), peer = 1 - me;
  int *msg = gshmem_test::sym_zeroed<int>(kMsgInts);
  int *src = gshmem_test::sym_zeroed<int>(kMsgInts);
  unsigned long long *flag = gshmem_test::sym_zeroed<unsigned long long>(1);
  unsigned long long *ack = gshmem_test::sym_zeroed<unsigned long long>(1);
  unsigned long long *violations = nullptr;
  GSHMEM_TEST_CUDA(cudaMalloc(&violations, sizeof *violations));
  GSHMEM_TEST_CUDA(cudaMemset(violations, 0xff, sizeof *violations));
  const long long rounds = litmus_rounds() / 10 > 0 ? litmus_rounds() / 10 : 1;
  gshmem_barrier_all();
  GSHMEM_TEST_CUDA(launch_cxx_litmus(msg, src, flag, ack, rounds, peer, violations));
  GSHMEM_TEST_CUDA(cudaDeviceSynchronize());
  INFO(rounds << " rounds");
  CHECK(to_host(violations, 1)[0] == 0);
  gshmem_barrier_all();
  GSHMEM_TEST_CUDA(cudaFree(violations));
  gshmem_free(ack);
  gshmem_free(flag);
  gshmem_free(src);
  gshmem_free(msg);
}

TEST_CASE("remote: quiet_on_stream and barrier_all_on_stream complete a kernel's queued put_nbi", "[remote][stream]") {
  REQUIRE(init_remote());
  const int me = gshmem_my_pe(), peer = 1 - me;
  constexpr int kInts = 1024, kRounds = 20;
  int *box = gshmem_test::sym_zeroed<int>(kInts);
  int *src = nullptr;
  unsigned long long *wrong = nullptr;
  GSHMEM_TEST_CUDA(cudaMalloc(&src, kInts * sizeof(int)));
  GSHMEM_TEST_CUDA(cudaMalloc(&wrong, kRounds * sizeof(unsigned long long)));
  GSHMEM_TEST_CUDA(cudaMemset(wrong, 0xff, kRounds * sizeof(unsigned long long)));
  cudaStream_t s;
  GSHMEM_TEST_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  GSHMEM_TEST_CUDA(cudaDeviceSynchronize());
  gshmem_barrier_all();
  // Each round, on one stream and with no host synchronization: put_nbi
  // (left queued), then quiet_on_stream (odd rounds) or nothing, then
  // barrier_all_on_stream, then a check of what the peer put here. The
  // barrier twice: the next round's put must not land before the check.
  for (int r = 0; r < kRounds; ++r) {
    const int value = (r + 1) * 100000 + peer * 10000;  // what the peer writes this round
    GSHMEM_TEST_CUDA(launch_put_nbi_unquieted(box, src, kInts, (r + 1) * 100000 + me * 10000, peer, s));
    if (r % 2 == 1) gshmemx_quiet_on_stream(s);
    gshmemx_barrier_all_on_stream(s);
    GSHMEM_TEST_CUDA(launch_count_wrong(box, kInts, value, wrong + r, s));
    gshmemx_barrier_all_on_stream(s);
    CHECK(gshmemx_get_last_error() == GSHMEM_SUCCESS);
  }
  GSHMEM_TEST_CUDA(cudaStreamSynchronize(s));
  const std::vector<unsigned long long> w = to_host(wrong, kRounds);
  for (int r = 0; r < kRounds; ++r) {
    INFO("round " << r);
    CHECK(w[r] == 0);
  }
  gshmem_barrier_all();
  GSHMEM_TEST_CUDA(cudaStreamDestroy(s));
  GSHMEM_TEST_CUDA(cudaFree(wrong));
  GSHMEM_TEST_CUDA(cudaFree(src));
  gshmem_free(box);
}

TEST_CASE("remote: message-passing litmus (put_signal; put_nbi, fence, signal_op)", "[remote][litmus]") {
  REQUIRE(init_remote());
  const int me = gshmem_my_pe(), peer = 1 - me;
  int *msg = gshmem_test::sym_zeroed<int>(kMsgInts);
  int *src = gshmem_test::sym_zeroed<int>(kMsgInts);
  uint64_t *sig = gshmem_test::sym_zeroed<uint64_t>(1);
  uint64_t *ack = gshmem_test::sym_zeroed<uint64_t>(1);
  unsigned long long *violations = nullptr;
  GSHMEM_TEST_CUDA(cudaMalloc(&violations, sizeof *violations));
  const long long rounds = litmus_rounds();
  gshmem_barrier_all();
  GSHMEM_TEST_CUDA(launch_litmus(msg, src, sig, ack, rounds, me, peer, violations));
  GSHMEM_TEST_CUDA(cudaDeviceSynchronize());
  INFO(rounds << " rounds");
  CHECK(to_host(violations, 1)[0] == 0);
  gshmem_barrier_all();
  GSHMEM_TEST_CUDA(cudaFree(violations));
  gshmem_free(ack);
  gshmem_free(sig);
  gshmem_free(src);
  gshmem_free(msg);
}
