// RMA on a stream, 2 PEs (one GPU each), under mpirun: puts and gets
// ordered with on-stream waits and signals, with no host synchronization
// between them. Only CHECK (never REQUIRE) between collective calls.
#include <gshmem/gshmemx.h>

#include <cstdint>
#include <cstdlib>
#include <vector>

#include "catch.hpp"
#include "gpu_test_support.h"

namespace {



// Stream work after a wait: counts words of `data` that are not `expected`.
__global__ void count_wrong(const unsigned long long *data, size_t n, unsigned long long expected,
                            unsigned long long *wrong) {
  unsigned long long c = 0;
  for (size_t i = 0; i < n; ++i) c += data[i] != expected;
  *wrong = c;
}

__global__ void fill(unsigned long long *data, size_t n, unsigned long long v) {
  for (size_t i = threadIdx.x; i < n; i += blockDim.x) data[i] = v;
}

bool ensure_init() {
  return gshmem_test::init_once(
      {reinterpret_cast<const void *>(&count_wrong), reinterpret_cast<const void *>(&fill)});
}

// A host rendezvous that does not wait for this PE's device work.
void barrier() { gshmemi_host_sync_all(); }

}  // namespace

TEST_CASE("put_on_stream waits for the stream's earlier work, and a signal after it announces the data") {
  REQUIRE(ensure_init());
  const int me = gshmem_my_pe();
  REQUIRE(gshmem_n_pes() == 2);
  const int peer = 1 - me;
  const size_t kWords = 1 << 18;  // 2 MiB
  unsigned long long *data = static_cast<unsigned long long *>(gshmem_calloc(kWords, 8));
  uint64_t *sig = static_cast<uint64_t *>(gshmem_calloc(1, sizeof(uint64_t)));
  uint64_t *go = static_cast<uint64_t *>(gshmem_calloc(1, sizeof(uint64_t)));
  unsigned long long *src = nullptr, *wrong = nullptr;
  GSHMEM_TEST_CUDA(cudaMalloc(&src, kWords * 8));
  GSHMEM_TEST_CUDA(cudaMalloc(&wrong, 2 * sizeof(*wrong)));
  REQUIRE((data && sig && go));
  cudaStream_t s;
  GSHMEM_TEST_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  GSHMEM_TEST_CUDA(cudaDeviceSynchronize());
  barrier();

  for (uint64_t round = 1; round <= 8; ++round) {
    const int form = static_cast<int>(round % 4);  // typed put, put_nbi, putmem, putmem_nbi
    INFO("round " << round << " form " << form);
    if (me == 0) {
      // Held back by a wait only PE 1 can release: the put must not run before it.
      fill<<<1, 256, 0, s>>>(src, kWords, round);
      gshmemx_uint64_wait_until_on_stream(go, GSHMEM_CMP_GE, round, s);
      switch (form) {
        case 0: gshmemx_ulonglong_put_on_stream(data, src, kWords, peer, s); break;
        case 1: gshmemx_ulonglong_put_nbi_on_stream(data, src, kWords, peer, s); break;
        case 2: gshmemx_putmem_on_stream(data, src, kWords * 8, peer, s); break;
        default: gshmemx_putmem_nbi_on_stream(data, src, kWords * 8, peer, s); break;
      }
      gshmemx_signal_op_on_stream(sig, round, GSHMEM_SIGNAL_SET, peer, s);
      CHECK(gshmemx_get_last_error() == GSHMEM_SUCCESS);
      CHECK(cudaStreamQuery(s) == cudaErrorNotReady);  // nothing waited on the host
    }
    barrier();
    if (me == 1) {
      // PE 0's put is still held: its data has not arrived.
      GSHMEM_TEST_CUDA(cudaMemsetAsync(wrong, 0xff, 2 * sizeof(*wrong), s));
      count_wrong<<<1, 1, 0, s>>>(data, kWords, round - 1, wrong);
      gshmemx_uint64_p_on_stream(go, round, peer, s);  // releases PE 0's stream
      gshmemx_signal_wait_until_on_stream(sig, GSHMEM_CMP_EQ, round, s);
      count_wrong<<<1, 1, 0, s>>>(data, kWords, round, wrong + 1);
      GSHMEM_TEST_CUDA(cudaStreamSynchronize(s));
      unsigned long long w[2] = {1, 1};
      GSHMEM_TEST_CUDA(cudaMemcpy(w, wrong, sizeof(w), cudaMemcpyDeviceToHost));
      CHECK(w[0] == 0);  // before the release: the previous round's data
      CHECK(w[1] == 0);  // after the signal: this round's
      CHECK(gshmemx_get_last_error() == GSHMEM_SUCCESS);
    }
    if (me == 0) GSHMEM_TEST_CUDA(cudaStreamSynchronize(s));
    barrier();
  }
  GSHMEM_TEST_CUDA(cudaStreamDestroy(s));
  GSHMEM_TEST_CUDA(cudaFree(wrong));
  GSHMEM_TEST_CUDA(cudaFree(src));
  gshmem_barrier_all();
  gshmem_free(go);
  gshmem_free(sig);
  gshmem_free(data);
}

TEST_CASE("get_on_stream, p_on_stream, g_on_stream and put_signal_nbi_on_stream") {
  REQUIRE(ensure_init());
  const int me = gshmem_my_pe();
  const int peer = 1 - me;
  const size_t kWords = 4099;
  unsigned long long *data = static_cast<unsigned long long *>(gshmem_calloc(kWords, 8));
  uint64_t *sig = static_cast<uint64_t *>(gshmem_calloc(1, sizeof(uint64_t)));
  int *word = static_cast<int *>(gshmem_calloc(4, sizeof(int)));
  unsigned long long *local = nullptr, *wrong = nullptr;
  GSHMEM_TEST_CUDA(cudaMalloc(&local, kWords * 8));
  GSHMEM_TEST_CUDA(cudaMalloc(&wrong, sizeof(*wrong)));
  REQUIRE((data && sig && word));
  cudaStream_t s;
  GSHMEM_TEST_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  fill<<<1, 256>>>(data, kWords, 100 + me);
  GSHMEM_TEST_CUDA(cudaDeviceSynchronize());
  barrier();

  // get: the peer's words, in stream order before the check.
  GSHMEM_TEST_CUDA(cudaMemsetAsync(local, 0, kWords * 8, s));
  gshmemx_ulonglong_get_on_stream(local, data, kWords, peer, s);
  count_wrong<<<1, 1, 0, s>>>(local, kWords, 100 + peer, wrong);
  GSHMEM_TEST_CUDA(cudaStreamSynchronize(s));
  unsigned long long w = 1;
  GSHMEM_TEST_CUDA(cudaMemcpy(&w, wrong, sizeof(w), cudaMemcpyDeviceToHost));
  CHECK(w == 0);
  GSHMEM_TEST_CUDA(cudaMemsetAsync(local, 0, kWords * 8, s));
  gshmemx_getmem_nbi_on_stream(local, data, 8 * kWords, peer, s);
  count_wrong<<<1, 1, 0, s>>>(local, kWords, 100 + peer, wrong);
  GSHMEM_TEST_CUDA(cudaStreamSynchronize(s));
  GSHMEM_TEST_CUDA(cudaMemcpy(&w, wrong, sizeof(w), cudaMemcpyDeviceToHost));
  CHECK(w == 0);

  // p and g: the value travels with the call; g returns what is there now.
  gshmemx_int_p_on_stream(word + 1, 7000 + me, peer, s);
  GSHMEM_TEST_CUDA(cudaStreamSynchronize(s));
  barrier();
  CHECK(gshmemx_int_g_on_stream(word + 1, peer, s) == 7000 + me);
  int mine = 0;
  GSHMEM_TEST_CUDA(cudaMemcpy(&mine, word + 1, sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(mine == 7000 + peer);
  CHECK(gshmemx_ulonglong_g_on_stream(data + kWords - 1, peer, s) == 100ull + peer);

  // put_signal_nbi: PE 0 sends, PE 1's stream waits for the signal and checks.
  barrier();
  if (me == 0) {
    fill<<<1, 256, 0, s>>>(local, kWords, 555);
    gshmemx_ulonglong_put_signal_nbi_on_stream(data, local, kWords, sig, 1, GSHMEM_SIGNAL_ADD, peer, s);
    GSHMEM_TEST_CUDA(cudaStreamSynchronize(s));
  } else {
    gshmemx_signal_wait_until_on_stream(sig, GSHMEM_CMP_GE, 1, s);
    count_wrong<<<1, 1, 0, s>>>(data, kWords, 555, wrong);
    GSHMEM_TEST_CUDA(cudaStreamSynchronize(s));
    GSHMEM_TEST_CUDA(cudaMemcpy(&w, wrong, sizeof(w), cudaMemcpyDeviceToHost));
    CHECK(w == 0);
  }
  CHECK(gshmemx_get_last_error() == GSHMEM_SUCCESS);

  // Bad arguments enqueue nothing and say why.
  gshmemx_putmem_on_stream(data, local, 8, 2, s);
  CHECK(gshmemx_get_last_error() == GSHMEMX_ERROR_INVALID_PE);
  gshmemx_getmem_on_stream(local, local, 8, peer, s);
  CHECK(gshmemx_get_last_error() == GSHMEMX_ERROR_NOT_SYMMETRIC);
  gshmemx_int_p_on_stream(reinterpret_cast<int *>(reinterpret_cast<char *>(word) + 1), 1, peer, s);
  CHECK(gshmemx_get_last_error() == GSHMEMX_ERROR_MISALIGNED);
  CHECK(gshmemx_int_g_on_stream(word, -1, s) == 0);
  CHECK(gshmemx_get_last_error() == GSHMEMX_ERROR_INVALID_PE);

  // sync_all_on_stream: a collective barrier on the streams.
  gshmemx_sync_all_on_stream(s);
  GSHMEM_TEST_CUDA(cudaStreamSynchronize(s));
  barrier();
  GSHMEM_TEST_CUDA(cudaStreamDestroy(s));
  GSHMEM_TEST_CUDA(cudaFree(wrong));
  GSHMEM_TEST_CUDA(cudaFree(local));
  gshmem_barrier_all();
  gshmem_free(word);
  gshmem_free(sig);
  gshmem_free(data);
  gshmem_finalize();
}
