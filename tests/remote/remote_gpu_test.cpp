// Remote peers on the GPU: 2 PEs with GSHMEM_REMOTE_PEERS=all, so every
// device routine to the other PE goes through the proxy thread and the UCX
// transport (docs/remote.md) although the GPUs could map each other (or the
// PEs share one GPU). Registered in tests/remote/CMakeLists.txt over UCX's
// own choice of transport and over UCX_TLS=self,tcp.
#include <cstdint>
#include <cstdlib>
#include <set>
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

bool init_remote() {
  static bool ok = gshmem_test::init_once({});
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
  GSHMEM_TEST_CUDA(launch_rma(dst, src, got, peer));
  GSHMEM_TEST_CUDA(cudaDeviceSynchronize());
  gshmem_barrier_all();  // the peer's puts into dst are complete (its kernel quieted)
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
