// On-stream routines on 2 PEs (one GPU each), run under mpirun.
//
// PE 1 plays the updater, PE 0 the stream that waits; host barriers keep the
// two sides in step between cases. Work after each wait is a kernel that
// checks what the updater wrote before its release.
//
// Rules that keep this test from hanging (each was a hang once):
// - Every test kernel is loaded right after init (preload_test_kernels):
//   under CUDA lazy loading, a kernel's first launch synchronizes the context,
//   so launching one behind a pending stream wait blocks the host until the
//   wait completes, and the host never reaches the barrier that lets the peer
//   release it.
// - No CUDA call before init without first selecting the GPU the runtime
//   would choose: a context made on device 0 makes gshmem_init keep device 0
//   ("chosen by the program") on every PE, and both PEs share one GPU.
// - Only CHECK (never REQUIRE) in code that one PE runs alone: a REQUIRE
//   failing there leaves that PE's test case early and the PEs' collective
//   calls (barrier, malloc, free) stop matching.
// - A progress line on stderr (unbuffered) at every step, and
//   GSHMEM_WAIT_TIMEOUT set by CTest, so a stuck wait names itself.
#include <gshmem/detail/ordering.h>
#include <gshmem/runtime.h>
#include <gshmem/stream.h>
#include <gshmem/team_ext.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <set>
#include <thread>
#include <vector>

#include "catch.hpp"
#include "gpu_test_support.h"

namespace {

using gshmem_test::launcher_rank;
using gshmem_test::select_default_device;

using gshmem::memory_order;
using gshmem::thread_scope;
namespace gd = gshmem::detail;


void progress(const char *what) {
  std::fprintf(stderr, "[stream_gpu_test PE %d] %s\n", gshmemx_initialized() ? gshmem_my_pe() : launcher_rank(),
               what);
}

void preload_test_kernels();

bool ensure_init() {
  static int rc = [] {
    select_default_device();
    const int r = gshmem_init();
    if (r == GSHMEM_SUCCESS) preload_test_kernels();
    return r;
  }();
  return rc == GSHMEM_SUCCESS;
}

// A host-side rendezvous that does NOT wait for this PE's device work:
// gshmem_barrier_all() synchronizes the device first, which would deadlock
// while this PE's stream holds a wait that only the peer (still on its way to
// the rendezvous) can release. Tests synchronize their own device work
// explicitly before calling this.
void barrier() { gshmemi_host_sync_all(); }

template <class T>
T *peer(T *local, int pe) { return static_cast<T *>(gshmem_ptr(local, pe)); }

template <class T>
__global__ void store_release(T *p, T v) { gd::atomic_store<memory_order::release, thread_scope::system>(p, v); }

template <class T>
__global__ void store_relaxed(T *p, T v) { gd::atomic_store<memory_order::relaxed, thread_scope::system>(p, v); }

// Message passing: payload[0..n) = stamp (relaxed), then a release store of ivar.
template <class T>
__global__ void payload_then_release(unsigned long long *payload, int n, unsigned long long stamp, T *ivar, T value) {
  for (int i = 0; i < n; ++i) gd::atomic_store<memory_order::relaxed, thread_scope::system>(payload + i, stamp);
  gd::atomic_store<memory_order::release, thread_scope::system>(ivar, value);
}

// Stream work after a wait: counts payload words that are not the expected value.
__global__ void check_payload(const unsigned long long *payload, int n, unsigned long long expected,
                              unsigned long long *violations) {
  for (int i = 0; i < n; ++i)
    if (payload[i] != expected) ++*violations;
}

// Updater side of the litmus: iteration i writes payload = i, releases sig = i,
// then waits for the waiter's ack == i.
__global__ void litmus_updater(unsigned long long *payload_at_peer, int n, unsigned long long *sig_at_peer,
                               unsigned long long *ack, unsigned long long iterations) {
  for (unsigned long long i = 1; i <= iterations; ++i) {
    for (int k = 0; k < n; ++k)
      gd::atomic_store<memory_order::relaxed, thread_scope::system>(payload_at_peer + k, i);
    gd::atomic_store<memory_order::release, thread_scope::system>(sig_at_peer, i);
    while (gd::atomic_load<memory_order::acquire, thread_scope::system>(ack) != i) {
    }
  }
}

__global__ void reset_and_count(unsigned long long *word, unsigned long long *count) {
  gd::atomic_store<memory_order::relaxed, thread_scope::system>(word, 0ull);
  ++*count;
}

__global__ void mark(unsigned long long *slot, unsigned long long *ticket) { *slot = ++*ticket; }

// One round of a captured barrier graph: adds 1 to the peer's counter...
__global__ void add_one(unsigned long long *counter_at_peer) {
  (void)gd::atomic_fetch_add<memory_order::relaxed, thread_scope::system>(counter_at_peer, 1ull);
}

// ...and after the barrier, this PE's counter must have reached the replay
// count (the peer's add of this replay came before its barrier).
__global__ void check_replay(const unsigned long long *counter, unsigned long long *replays,
                             unsigned long long *violations) {
  const unsigned long long r = ++*replays;
  if (gd::atomic_load<memory_order::relaxed, thread_scope::system>(counter) < r) ++*violations;
}

// Loads every kernel of this file now (see the top of the file).
void preload_test_kernels() {
  cudaFuncAttributes attr;
  auto load = [&](const void *kernel) { GSHMEM_TEST_CUDA(cudaFuncGetAttributes(&attr, kernel)); };
#define GSHMEM_TEST_LOAD_TYPED(T)                                         \
  load(reinterpret_cast<const void *>(&store_release<T>));                \
  load(reinterpret_cast<const void *>(&store_relaxed<T>));                \
  load(reinterpret_cast<const void *>(&payload_then_release<T>));
  GSHMEM_TEST_LOAD_TYPED(int)
  GSHMEM_TEST_LOAD_TYPED(short)
  GSHMEM_TEST_LOAD_TYPED(uint64_t)
  GSHMEM_TEST_LOAD_TYPED(size_t)
  GSHMEM_TEST_LOAD_TYPED(int64_t)
  GSHMEM_TEST_LOAD_TYPED(unsigned long long)
#undef GSHMEM_TEST_LOAD_TYPED
  load(reinterpret_cast<const void *>(&check_payload));
  load(reinterpret_cast<const void *>(&litmus_updater));
  load(reinterpret_cast<const void *>(&reset_and_count));
  load(reinterpret_cast<const void *>(&mark));
  load(reinterpret_cast<const void *>(&add_one));
  load(reinterpret_cast<const void *>(&check_replay));
}

template <class T>
struct Case { int cmp; T value, initial, final_value; };

// wait_until_on_stream for T over cases that are false at `initial` and true at `final_value`.
template <class T, class WaitFn>
void run_scalar_cases(const char *name, WaitFn wait, const std::vector<Case<T>> &cases) {
  const int me = gshmem_my_pe();
  T *ivar = static_cast<T *>(gshmem_malloc(256));
  unsigned long long *payload = static_cast<unsigned long long *>(gshmem_malloc(64 * sizeof(unsigned long long)));
  unsigned long long *violations;
  GSHMEM_TEST_CUDA(cudaMalloc(&violations, sizeof(*violations)));
  REQUIRE(ivar);
  cudaStream_t s;
  GSHMEM_TEST_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  for (const Case<T> &c : cases) {
    INFO(name << " cmp " << c.cmp << " value " << +c.value << " initial " << +c.initial << " final " << +c.final_value);
    char line[160];
    std::snprintf(line, sizeof line, "  scalar %s cmp %d value %lld", name, c.cmp, (long long)c.value);
    progress(line);
    GSHMEM_TEST_CUDA(cudaMemset(violations, 0, sizeof(*violations)));
    GSHMEM_TEST_CUDA(cudaMemcpy(ivar, &c.initial, sizeof(T), cudaMemcpyHostToDevice));
    GSHMEM_TEST_CUDA(cudaMemset(payload, 0, 64 * sizeof(unsigned long long)));
    GSHMEM_TEST_CUDA(cudaDeviceSynchronize());
    barrier();
    const unsigned long long stamp = 1000 + c.cmp;
    if (me == 0) {
      wait(ivar, c.cmp, c.value, s);
      CHECK(gshmemx_get_last_error() == GSHMEM_SUCCESS);
      check_payload<<<1, 1, 0, s>>>(payload, 64, stamp, violations);
      // The wait must still be pending: nobody has updated ivar.
      CHECK(cudaStreamQuery(s) == cudaErrorNotReady);
    }
    barrier();
    if (me == 1) {
      payload_then_release<T><<<1, 1>>>(peer(payload, 0), 64, stamp, peer(ivar, 0), c.final_value);
      GSHMEM_TEST_CUDA(cudaDeviceSynchronize());
    }
    if (me == 0) {
      GSHMEM_TEST_CUDA(cudaStreamSynchronize(s));
      unsigned long long v = 1;
      GSHMEM_TEST_CUDA(cudaMemcpy(&v, violations, sizeof(v), cudaMemcpyDeviceToHost));
      CHECK(v == 0);
    }
    barrier();
  }
  GSHMEM_TEST_CUDA(cudaStreamDestroy(s));
  GSHMEM_TEST_CUDA(cudaFree(violations));
  gshmem_free(payload);
  gshmem_free(ivar);
}

template <class T>
std::vector<Case<T>> cases_for() {
  using L = std::numeric_limits<T>;
  std::vector<Case<T>> v = {
      {GSHMEM_CMP_EQ, T(5), T(0), T(5)},  {GSHMEM_CMP_NE, T(0), T(0), T(5)},  {GSHMEM_CMP_GE, T(5), T(0), T(5)},
      {GSHMEM_CMP_GT, T(4), T(0), T(5)},  {GSHMEM_CMP_GE, T(4), T(0), T(4)},  {GSHMEM_CMP_GT, T(0), T(0), T(1)},
      {GSHMEM_CMP_LE, T(5), T(10), T(5)}, {GSHMEM_CMP_LT, T(6), T(10), T(5)}, {GSHMEM_CMP_EQ, L::max(), T(0), L::max()},
      {GSHMEM_CMP_NE, L::max(), L::max(), T(0)},
      // Where a naive GEQ mapping is wrong: the top half of the unsigned range / negatives.
      {GSHMEM_CMP_GE, T(1), T(0), T(L::max() - 1)},
      {GSHMEM_CMP_GT, L::min(), L::min(), T(L::min() + 1)},
  };
  if (std::is_signed<T>::value) {
    v.push_back({GSHMEM_CMP_LT, T(0), T(0), T(-3)});
    v.push_back({GSHMEM_CMP_GE, T(0), T(-1), T(0)});
    v.push_back({GSHMEM_CMP_LE, T(-3), T(0), T(-3)});
  }
  return v;
}

}  // namespace

TEST_CASE("every routine refuses to run before init", "[stream][gpu]") {
  if (gshmemx_initialized()) return;  // another case ran first
  progress("case: every routine refuses to run before init");
  select_default_device();  // before the first CUDA object (see the top of the file)
  cudaStream_t s;
  GSHMEM_TEST_CUDA(cudaStreamCreate(&s));
  GSHMEM_TEST_CUDA(cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed));
  uint64_t dummy_host = 0;
  gshmemx_uint64_wait_until_on_stream(&dummy_host, GSHMEM_CMP_EQ, 1, s);
  CHECK(gshmemx_get_last_error() == GSHMEMX_ERROR_NOT_INITIALIZED);
  gshmemx_barrier_all_on_stream(s);
  CHECK(gshmemx_get_last_error() == GSHMEMX_ERROR_NOT_INITIALIZED);
  cudaGraph_t g;
  GSHMEM_TEST_CUDA(cudaStreamEndCapture(s, &g));
  size_t nodes = 99;
  GSHMEM_TEST_CUDA(cudaGraphGetNodes(g, nullptr, &nodes));
  CHECK(nodes == 0);
  cudaGraphDestroy(g);
  cudaStreamDestroy(s);
}

TEST_CASE("scalar waits for representative types", "[stream][gpu]") {
  progress("case: scalar waits for representative types");
  REQUIRE(ensure_init());
  REQUIRE(gshmem_n_pes() == 2);
  progress("init done, test kernels loaded");
  run_scalar_cases<int>("int", gshmemx_int_wait_until_on_stream, cases_for<int>());
  run_scalar_cases<uint64_t>("uint64", gshmemx_uint64_wait_until_on_stream, cases_for<uint64_t>());
  run_scalar_cases<short>("short", gshmemx_short_wait_until_on_stream, cases_for<short>());
  run_scalar_cases<size_t>("size", gshmemx_size_wait_until_on_stream, cases_for<size_t>());
  run_scalar_cases<int64_t>("int64", gshmemx_int64_wait_until_on_stream, cases_for<int64_t>());
  run_scalar_cases<uint64_t>("signal", gshmemx_signal_wait_until_on_stream, cases_for<uint64_t>());
  auto wait_ne = [](int *p, int, int v, cudaStream_t s) { gshmemx_int_wait_on_stream(p, v, s); };
  run_scalar_cases<int>("int_wait", wait_ne, {{GSHMEM_CMP_NE, 0, 0, 7}, {GSHMEM_CMP_NE, 7, 7, -1}});
}

TEST_CASE("pipeline litmus: stream work after the wait sees the payload (1e5 iterations)", "[stream][gpu]") {
  progress("case: pipeline litmus: stream work after the wait sees the payload (1e5 iterations)");
  using gshmem_test::scaled_iterations;
  REQUIRE(ensure_init());
  const int me = gshmem_my_pe();
  const int words = 32;
  const unsigned long long iterations = scaled_iterations(100000);
  auto *payload = static_cast<unsigned long long *>(gshmem_calloc(words, sizeof(unsigned long long)));
  auto *sig = static_cast<uint64_t *>(gshmem_calloc(1, sizeof(uint64_t)));
  auto *ack = static_cast<uint64_t *>(gshmem_calloc(1, sizeof(uint64_t)));
  unsigned long long *violations;
  GSHMEM_TEST_CUDA(cudaMalloc(&violations, sizeof(*violations)));
  GSHMEM_TEST_CUDA(cudaMemset(violations, 0, sizeof(*violations)));
  cudaStream_t s;
  GSHMEM_TEST_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  GSHMEM_TEST_CUDA(cudaDeviceSynchronize());
  barrier();
  if (me == 1) {
    litmus_updater<<<1, 1, 0, s>>>(peer(reinterpret_cast<unsigned long long *>(payload), 0), words,
                                   reinterpret_cast<unsigned long long *>(peer(sig, 0)),
                                   reinterpret_cast<unsigned long long *>(ack), iterations);
    GSHMEM_TEST_CUDA(cudaGetLastError());
  } else {
    for (unsigned long long i = 1; i <= iterations; ++i) {
      gshmemx_signal_wait_until_on_stream(sig, GSHMEM_CMP_EQ, i, s);  // memop EQ
      check_payload<<<1, 1, 0, s>>>(payload, words, i, violations);
      gshmemx_signal_op_on_stream(ack, i, GSHMEM_SIGNAL_SET, 1, s);
    }
    CHECK(gshmemx_get_last_error() == GSHMEM_SUCCESS);
  }
  GSHMEM_TEST_CUDA(cudaStreamSynchronize(s));
  if (me == 0) {
    unsigned long long v = 1;
    GSHMEM_TEST_CUDA(cudaMemcpy(&v, violations, sizeof(v), cudaMemcpyDeviceToHost));
    CHECK(v == 0);
  }
  barrier();
  cudaStreamDestroy(s);
  cudaFree(violations);
  gshmem_free(ack);
  gshmem_free(sig);
  gshmem_free(payload);
}

TEST_CASE("graph of waits and signals replays 1000 times", "[stream][gpu]") {
  progress("case: graph of waits and signals replays 1000 times");
  REQUIRE(ensure_init());
  const int me = gshmem_my_pe(), other = 1 - me;
  auto *sig = static_cast<uint64_t *>(gshmem_calloc(1, sizeof(uint64_t)));
  auto *ack = static_cast<uint64_t *>(gshmem_calloc(1, sizeof(uint64_t)));
  auto *payload = static_cast<unsigned long long *>(gshmem_calloc(16, sizeof(unsigned long long)));
  unsigned long long *count, *violations, *source;
  GSHMEM_TEST_CUDA(cudaMalloc(&count, sizeof(*count)));
  GSHMEM_TEST_CUDA(cudaMalloc(&violations, sizeof(*violations)));
  GSHMEM_TEST_CUDA(cudaMalloc(&source, 16 * sizeof(*source)));
  GSHMEM_TEST_CUDA(cudaMemset(count, 0, sizeof(*count)));
  GSHMEM_TEST_CUDA(cudaMemset(violations, 0, sizeof(*violations)));
  std::vector<unsigned long long> stamp(16, 77);
  GSHMEM_TEST_CUDA(cudaMemcpy(source, stamp.data(), 16 * sizeof(*source), cudaMemcpyHostToDevice));
  cudaStream_t s;
  GSHMEM_TEST_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  cudaGraph_t g;
  GSHMEM_TEST_CUDA(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  if (me == 0) {
    gshmemx_signal_wait_until_on_stream(sig, GSHMEM_CMP_NE, 0, s);                       // memop
    gshmemx_int64_wait_until_on_stream(reinterpret_cast<int64_t *>(sig), GSHMEM_CMP_GT, 0, s);  // kernel
    check_payload<<<1, 1, 0, s>>>(payload, 16, 77, violations);
    GSHMEM_TEST_CUDA(cudaMemsetAsync(payload, 0, 16 * sizeof(*payload), s));
    reset_and_count<<<1, 1, 0, s>>>(reinterpret_cast<unsigned long long *>(sig), count);
    gshmemx_signal_op_on_stream(ack, 1, GSHMEM_SIGNAL_SET, other, s);
  } else {
    gshmemx_putmem_signal_on_stream(payload, source, 16 * sizeof(*source), sig, 1, GSHMEM_SIGNAL_ADD, other, s);
    gshmemx_uint64_wait_until_on_stream(ack, GSHMEM_CMP_EQ, 1, s);
    reset_and_count<<<1, 1, 0, s>>>(reinterpret_cast<unsigned long long *>(ack), count);
  }
  CHECK(gshmemx_get_last_error() == GSHMEM_SUCCESS);
  GSHMEM_TEST_CUDA(cudaStreamEndCapture(s, &g));
  cudaGraphExec_t exec;
  GSHMEM_TEST_CUDA(cudaGraphInstantiate(&exec, g, 0));
  GSHMEM_TEST_CUDA(cudaDeviceSynchronize());
  barrier();
  const unsigned long long replays = gshmem_test::scaled_iterations(1000);
  for (unsigned long long r = 0; r < replays; ++r) GSHMEM_TEST_CUDA(cudaGraphLaunch(exec, s));
  GSHMEM_TEST_CUDA(cudaStreamSynchronize(s));
  unsigned long long n = 0, v = 1;
  GSHMEM_TEST_CUDA(cudaMemcpy(&n, count, sizeof(n), cudaMemcpyDeviceToHost));
  GSHMEM_TEST_CUDA(cudaMemcpy(&v, violations, sizeof(v), cudaMemcpyDeviceToHost));
  CHECK(n == replays);
  CHECK(v == 0);
  barrier();
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(g);
  cudaStreamDestroy(s);
  cudaFree(count); cudaFree(violations); cudaFree(source);
  gshmem_free(payload); gshmem_free(ack); gshmem_free(sig);
}

TEST_CASE("two streams wait on different signals independently", "[stream][gpu]") {
  progress("case: two streams wait on different signals independently");
  REQUIRE(ensure_init());
  const int me = gshmem_my_pe();
  auto *sigs = static_cast<uint64_t *>(gshmem_calloc(4, sizeof(uint64_t)));  // [0] A, [1] B, [2] ackB
  unsigned long long *slots;
  GSHMEM_TEST_CUDA(cudaMalloc(&slots, 3 * sizeof(*slots)));
  GSHMEM_TEST_CUDA(cudaMemset(slots, 0, 3 * sizeof(*slots)));
  cudaStream_t a, b;
  GSHMEM_TEST_CUDA(cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking));
  GSHMEM_TEST_CUDA(cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking));
  GSHMEM_TEST_CUDA(cudaDeviceSynchronize());
  barrier();
  if (me == 0) {
    gshmemx_uint64_wait_until_on_stream(&sigs[0], GSHMEM_CMP_EQ, 1, a);
    mark<<<1, 1, 0, a>>>(&slots[0], &slots[2]);
    gshmemx_uint64_wait_until_on_stream(&sigs[1], GSHMEM_CMP_GE, 3, b);  // kernel wait
    mark<<<1, 1, 0, b>>>(&slots[1], &slots[2]);
    gshmemx_signal_op_on_stream(&sigs[2], 1, GSHMEM_SIGNAL_SET, 1, b);
  } else {
    // B first; A only after PE 0's stream b has passed its wait: a stream a
    // that blocked stream b would deadlock here.
    gshmemx_signal_op_on_stream(&sigs[1], 3, GSHMEM_SIGNAL_ADD, 0, a);
    gshmemx_uint64_wait_until_on_stream(&sigs[2], GSHMEM_CMP_EQ, 1, a);
    gshmemx_signal_op_on_stream(&sigs[0], 1, GSHMEM_SIGNAL_SET, 0, a);
  }
  GSHMEM_TEST_CUDA(cudaDeviceSynchronize());
  if (me == 0) {
    unsigned long long h[3];
    GSHMEM_TEST_CUDA(cudaMemcpy(h, slots, sizeof(h), cudaMemcpyDeviceToHost));
    CHECK(h[1] == 1);  // b finished first
    CHECK(h[0] == 2);
  }
  barrier();
  cudaStreamDestroy(a); cudaStreamDestroy(b);
  cudaFree(slots);
  gshmem_free(sigs);
}

TEST_CASE("_all, _any and _some results", "[stream][gpu]") {
  progress("case: _all, _any and _some results");
  REQUIRE(ensure_init());
  const int me = gshmem_my_pe();
  const size_t n = 64;
  auto *ivars = static_cast<int64_t *>(gshmem_calloc(n, sizeof(int64_t)));
  auto *late = static_cast<int64_t *>(gshmem_calloc(n, sizeof(int64_t)));
  size_t *out, *indices;
  int *status;
  int64_t *values;
  GSHMEM_TEST_CUDA(cudaMalloc(&out, 8 * sizeof(size_t)));
  GSHMEM_TEST_CUDA(cudaMalloc(&indices, n * sizeof(size_t)));
  GSHMEM_TEST_CUDA(cudaMalloc(&status, n * sizeof(int)));
  GSHMEM_TEST_CUDA(cudaMalloc(&values, n * sizeof(int64_t)));
  std::vector<int> st(n, 0);
  st[3] = st[17] = 1;  // exclude two of the set elements
  GSHMEM_TEST_CUDA(cudaMemcpy(status, st.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  std::vector<int64_t> vals(n, 1);
  vals[40] = 2;  // vector: element 40 needs >= 2
  GSHMEM_TEST_CUDA(cudaMemcpy(values, vals.data(), n * sizeof(int64_t), cudaMemcpyHostToDevice));
  cudaStream_t s;
  GSHMEM_TEST_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  GSHMEM_TEST_CUDA(cudaDeviceSynchronize());
  barrier();
  if (me == 1) {
    for (size_t i : {size_t(3), size_t(17), size_t(40), size_t(63)})
      store_release<int64_t><<<1, 1>>>(peer(ivars + i, 0), 1);
    GSHMEM_TEST_CUDA(cudaDeviceSynchronize());
  }
  barrier();
  if (me == 0) {
    gshmemx_int64_wait_until_some_on_stream(ivars, n, indices, nullptr, GSHMEM_CMP_GT, 0, &out[0], s);
    gshmemx_int64_wait_until_any_on_stream(ivars, n, status, GSHMEM_CMP_EQ, 1, &out[1], s);
    gshmemx_int64_wait_until_all_on_stream(ivars, 4, status, GSHMEM_CMP_GE, 0, s);
    gshmemx_int64_wait_until_any_vector_on_stream(ivars, n, status, GSHMEM_CMP_GE, values, &out[2], s);
    gshmemx_int64_wait_until_any_on_stream(ivars, 0, nullptr, GSHMEM_CMP_EQ, 1, &out[3], s);  // empty: SIZE_MAX
    gshmemx_int64_wait_until_some_on_stream(ivars, 0, indices + 8, nullptr, GSHMEM_CMP_EQ, 1, &out[4], s);  // empty: 0
    // One that really waits: PE 1 sets late[9] after this is enqueued.
    gshmemx_int64_wait_until_any_on_stream(late, n, nullptr, GSHMEM_CMP_NE, 0, &out[5], s);
    CHECK(gshmemx_get_last_error() == GSHMEM_SUCCESS);
  }
  barrier();
  if (me == 1) {
    store_release<int64_t><<<1, 1>>>(peer(late + 9, 0), -4);
    GSHMEM_TEST_CUDA(cudaDeviceSynchronize());
  }
  if (me == 0) {
    GSHMEM_TEST_CUDA(cudaStreamSynchronize(s));
    size_t h[6], idx[8];
    GSHMEM_TEST_CUDA(cudaMemcpy(h, out, sizeof(h), cudaMemcpyDeviceToHost));
    GSHMEM_TEST_CUDA(cudaMemcpy(idx, indices, sizeof(idx), cudaMemcpyDeviceToHost));
    CHECK(h[0] == 4);
    CHECK(std::set<size_t>(idx, idx + 4) == std::set<size_t>{3, 17, 40, 63});
    CHECK((h[1] == 40 || h[1] == 63));
    CHECK(h[2] == 63);  // 40 fails its vector value 2; 3 and 17 excluded
    CHECK(h[3] == SIZE_MAX);
    CHECK(h[4] == 0);
    CHECK(h[5] == 9);
  }
  barrier();
  cudaStreamDestroy(s);
  cudaFree(out); cudaFree(indices); cudaFree(status); cudaFree(values);
  gshmem_free(late); gshmem_free(ivars);
}

// Liveness of on-stream _any (OpenSHMEM: a series of calls returns every
// element that stays satisfied): each stream is a caller with its own
// cursor per array. One stream cycles over 512 arrays at the heap's
// 256-byte granularity (even arrays: elements 0 and 1 satisfied; odd: only
// 3), so calls on different arrays alternate and arrays share cursor
// slots; then two streams take turns (ordered by events) on one array.
TEST_CASE("on-stream _any returns every satisfied element when calls alternate", "[stream][gpu]") {
  progress("case: on-stream _any returns every satisfied element when calls alternate");
  REQUIRE(ensure_init());
  const int me = gshmem_my_pe();
  constexpr size_t kPitch = 32;  // int64 elements: 256 bytes
  // rounds stays 64 (each array's satisfied elements must all come back);
  // the array count follows GSHMEM_TEST_ITERATION_DIVISOR, at least one even
  // and one odd array.
  const size_t n_arrays = std::max<size_t>(2, gshmem_test::scaled_iterations(512)), rounds = 64;
  auto *arrays = static_cast<int64_t *>(gshmem_calloc(n_arrays * kPitch, sizeof(int64_t)));
  REQUIRE(arrays != nullptr);
  if (me == 0) {
    std::vector<int64_t> h(n_arrays * kPitch, 0);
    for (size_t a = 0; a < n_arrays; ++a) {
      if (a % 2 == 0) h[a * kPitch] = h[a * kPitch + 1] = 1;
      else h[a * kPitch + 3] = 1;
    }
    GSHMEM_TEST_CUDA(cudaMemcpy(arrays, h.data(), h.size() * sizeof(int64_t), cudaMemcpyHostToDevice));
    size_t *out;
    GSHMEM_TEST_CUDA(cudaMalloc(&out, n_arrays * rounds * sizeof(size_t)));
    cudaStream_t s[2];
    cudaEvent_t turn[2];
    for (int k = 0; k < 2; ++k) {
      GSHMEM_TEST_CUDA(cudaStreamCreateWithFlags(&s[k], cudaStreamNonBlocking));
      GSHMEM_TEST_CUDA(cudaEventCreateWithFlags(&turn[k], cudaEventDisableTiming));
    }
    // One stream, calls on 512 arrays alternating.
    for (size_t r = 0; r < rounds; ++r)
      for (size_t a = 0; a < n_arrays; ++a)
        gshmemx_int64_wait_until_any_on_stream(arrays + a * kPitch, 4, nullptr, GSHMEM_CMP_EQ, 1,
                                               &out[r * n_arrays + a], s[0]);
    CHECK(gshmemx_get_last_error() == GSHMEM_SUCCESS);
    GSHMEM_TEST_CUDA(cudaStreamSynchronize(s[0]));
    {
      int starved = 0, wrong = 0;
      std::vector<size_t> h_out(n_arrays * rounds);
      GSHMEM_TEST_CUDA(cudaMemcpy(h_out.data(), out, h_out.size() * sizeof(size_t), cudaMemcpyDeviceToHost));
      for (size_t a = 0; a < n_arrays; ++a) {
        unsigned got = 0;
        for (size_t r = 0; r < rounds; ++r) {
          const size_t v = h_out[r * n_arrays + a];
          got |= v < 4 ? 1u << v : 1u << 31;
        }
        const unsigned expected = a % 2 == 0 ? 0x3u : 0x8u;
        wrong += (got & ~expected) != 0;
        starved += got != expected && (got & ~expected) == 0;
      }
      CHECK(wrong == 0);    // never an unsatisfied or out-of-range index
      CHECK(starved == 0);  // every satisfied element of every array came back
    }
    // Two streams taking turns on array 0 (elements 0 and 1 satisfied).
    for (size_t c = 0; c < 2 * rounds; ++c) {
      const int k = (int)(c % 2);
      if (c > 0) GSHMEM_TEST_CUDA(cudaStreamWaitEvent(s[k], turn[1 - k], 0));
      gshmemx_int64_wait_until_any_on_stream(arrays, 4, nullptr, GSHMEM_CMP_EQ, 1, &out[c], s[k]);
      GSHMEM_TEST_CUDA(cudaEventRecord(turn[k], s[k]));
    }
    GSHMEM_TEST_CUDA(cudaDeviceSynchronize());
    {
      std::vector<size_t> h_out(2 * rounds);
      GSHMEM_TEST_CUDA(cudaMemcpy(h_out.data(), out, h_out.size() * sizeof(size_t), cudaMemcpyDeviceToHost));
      unsigned got[2] = {0, 0};
      for (size_t c = 0; c < h_out.size(); ++c) got[c % 2] |= h_out[c] < 4 ? 1u << h_out[c] : 1u << 31;
      CHECK(got[0] == 0x3u);  // each stream saw both satisfied elements, nothing else
      CHECK(got[1] == 0x3u);
    }
    for (int k = 0; k < 2; ++k) {
      cudaEventDestroy(turn[k]);
      cudaStreamDestroy(s[k]);
    }
    cudaFree(out);
  }
  barrier();
  gshmem_free(arrays);
}

// Several host threads enqueue at once (stream.h, "Threads"): eight
// threads per PE, each with its own stream, play a ping-pong of kRounds
// rounds entirely on their streams: PE 1 signals flag[t] = 3i, PE 0 waits
// for it (scalar GE and _all over the thread's pair of flags, in turn, then
// _any) and answers ack[t] = 3i, which PE 1 waits for. Every wait here runs
// a kernel (unsigned GE 3i is never 0, a power of two or the maximum, the
// values a stream memop can express), so a lost signal ends in
// GSHMEM_WAIT_TIMEOUT's trap, not a hang (a stream memop wait has no
// timeout). A new host thread starts on device
// 0: each worker first selects the PE's device, as any CUDA program must.
// Checks: no call fails in any thread, every pair finishes with its last
// round's values, and the _any results each thread collected are right.
// Tag [concurrent-kernels]: the eight pairs make progress only if each PE
// runs the waiting kernels of its streams at the same time; a tool that
// serializes kernels (compute-sanitizer) deadlocks them by design, so
// scripts/device_run.sh --sanitize leaves this case out ("~[concurrent-kernels]").
TEST_CASE("eight host threads enqueue on their own streams at once", "[stream][gpu][concurrent-kernels]") {
  progress("case: eight host threads enqueue on their own streams at once");
  REQUIRE(ensure_init());
  const int me = gshmem_my_pe();
  constexpr int kThreads = 8;
  const uint64_t kRounds = gshmem_test::scaled_iterations(300);
  auto *flags = static_cast<uint64_t *>(gshmem_calloc(2 * kThreads, sizeof(uint64_t)));
  auto *acks = static_cast<uint64_t *>(gshmem_calloc(kThreads, sizeof(uint64_t)));
  REQUIRE(flags != nullptr);
  REQUIRE(acks != nullptr);
  size_t *any_out;
  GSHMEM_TEST_CUDA(cudaMalloc(&any_out, kThreads * kRounds * sizeof(size_t)));
  GSHMEM_TEST_CUDA(cudaMemset(any_out, 0xff, kThreads * kRounds * sizeof(size_t)));
  GSHMEM_TEST_CUDA(cudaDeviceSynchronize());
  barrier();
  int errors[kThreads] = {};
  int cuda_errors[kThreads] = {};
  int device = -1;
  GSHMEM_TEST_CUDA(cudaGetDevice(&device));
  auto worker = [&](int t) {
    cudaStream_t s;
    if (cudaSetDevice(device) != cudaSuccess ||
        cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) != cudaSuccess) {
      cuda_errors[t] = 1;
      return;
    }
    uint64_t *flag = flags + 2 * t, *ack = acks + t;
    for (uint64_t round = 1; round <= kRounds; ++round) {
      const uint64_t i = 3 * round;
      if (me == 1) {
        gshmemx_signal_op_on_stream(flag, i, GSHMEM_SIGNAL_SET, 0, s);
        gshmemx_signal_op_on_stream(flag + 1, i, GSHMEM_SIGNAL_SET, 0, s);
        gshmemx_uint64_wait_until_on_stream(ack, GSHMEM_CMP_GE, i, s);
      } else {
        if (round % 2) gshmemx_uint64_wait_until_on_stream(flag, GSHMEM_CMP_GE, i, s);
        else gshmemx_uint64_wait_until_all_on_stream(flag, 2, nullptr, GSHMEM_CMP_GE, i, s);
        // Both flags hold i once the second is set: _any returns 0 or 1.
        gshmemx_uint64_wait_until_any_on_stream(flag, 2, nullptr, GSHMEM_CMP_GE, i,
                                                any_out + t * kRounds + (round - 1), s);
        gshmemx_signal_op_on_stream(ack, i, GSHMEM_SIGNAL_SET, 1, s);
      }
      if (gshmemx_get_last_error() != GSHMEM_SUCCESS) ++errors[t];
    }
    if (cudaStreamSynchronize(s) != cudaSuccess) cuda_errors[t] = 1;
    cudaStreamDestroy(s);
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) threads.emplace_back(worker, t);
  for (auto &th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) {
    INFO("host thread " << t);
    CHECK(errors[t] == 0);
    CHECK(cuda_errors[t] == 0);
  }
  GSHMEM_TEST_CUDA(cudaDeviceSynchronize());
  barrier();
  std::vector<uint64_t> h_flags(2 * kThreads), h_acks(kThreads);
  GSHMEM_TEST_CUDA(cudaMemcpy(h_flags.data(), flags, h_flags.size() * sizeof(uint64_t), cudaMemcpyDeviceToHost));
  GSHMEM_TEST_CUDA(cudaMemcpy(h_acks.data(), acks, h_acks.size() * sizeof(uint64_t), cudaMemcpyDeviceToHost));
  if (me == 0) {
    for (uint64_t v : h_flags) CHECK(v == 3 * kRounds);
    std::vector<size_t> h_any(kThreads * kRounds);
    GSHMEM_TEST_CUDA(cudaMemcpy(h_any.data(), any_out, h_any.size() * sizeof(size_t), cudaMemcpyDeviceToHost));
    size_t wrong = 0;
    for (size_t v : h_any) wrong += v > 1;
    CHECK(wrong == 0);
  } else {
    for (uint64_t v : h_acks) CHECK(v == 3 * kRounds);
  }
  barrier();
  cudaFree(any_out);
  gshmem_free(acks);
  gshmem_free(flags);
}

TEST_CASE("barrier_all_on_stream, the world team's on-stream syncs and barriers, and quiet_on_stream",
          "[stream][gpu]") {
  progress("case: barrier_all_on_stream and quiet_on_stream");
  REQUIRE(ensure_init());
  const int me = gshmem_my_pe(), other = 1 - me;
  auto *box = static_cast<unsigned long long *>(gshmem_calloc(1000, sizeof(unsigned long long)));
  unsigned long long *violations;
  GSHMEM_TEST_CUDA(cudaMalloc(&violations, sizeof(*violations)));
  GSHMEM_TEST_CUDA(cudaMemset(violations, 0, sizeof(*violations)));
  cudaStream_t s;
  GSHMEM_TEST_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  GSHMEM_TEST_CUDA(cudaDeviceSynchronize());
  barrier();
  // Round r: write r into the peer's box[r], barrier, check my own box[r] == r.
  // The world team's on-stream syncs and barriers take turns with
  // barrier_all_on_stream: outside capture they are one protocol and meet.
  const auto world_sync = [&](unsigned long long r) {
    switch (r % 4) {
      case 0: gshmemx_barrier_all_on_stream(s); break;
      case 1: CHECK(gshmemx_team_barrier_on_stream(GSHMEM_TEAM_WORLD, s) == 0); break;
      case 2: CHECK(gshmemx_team_sync_on_stream(GSHMEM_TEAM_WORLD, s) == 0); break;
      default: gshmemx_sync_all_on_stream(s); break;
    }
  };
  const unsigned long long rounds = gshmem_test::scaled_iterations(999);
  for (unsigned long long r = 1; r <= rounds; ++r) {
    store_relaxed<unsigned long long><<<1, 1, 0, s>>>(peer(box + r, other), r);
    gshmemx_quiet_on_stream(s);
    world_sync(r);
    check_payload<<<1, 1, 0, s>>>(box + r, 1, r, violations);
  }
  CHECK(gshmemx_get_last_error() == GSHMEM_SUCCESS);
  GSHMEM_TEST_CUDA(cudaStreamSynchronize(s));
  unsigned long long v = 1;
  GSHMEM_TEST_CUDA(cudaMemcpy(&v, violations, sizeof(v), cudaMemcpyDeviceToHost));
  CHECK(v == 0);

  // In a captured graph the barrier must synchronize on every replay (the
  // kernel protocol), and barriers outside capture before and after it must
  // still meet the peer's (the memop protocol, where the device has it).
  progress("barrier_all_on_stream captured in a graph, replayed");
  unsigned long long *replays;
  GSHMEM_TEST_CUDA(cudaMalloc(&replays, sizeof(*replays)));
  GSHMEM_TEST_CUDA(cudaMemset(replays, 0, sizeof(*replays)));
  GSHMEM_TEST_CUDA(cudaMemset(box, 0, sizeof(*box)));
  GSHMEM_TEST_CUDA(cudaMemset(violations, 0, sizeof(*violations)));
  GSHMEM_TEST_CUDA(cudaDeviceSynchronize());
  barrier();
  cudaGraph_t g;
  GSHMEM_TEST_CUDA(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  add_one<<<1, 1, 0, s>>>(peer(box, other));
  gshmemx_quiet_on_stream(s);
  gshmemx_barrier_all_on_stream(s);
  check_replay<<<1, 1, 0, s>>>(box, replays, violations);
  // The team sync captured too: its kernel must meet the peer's captured one.
  CHECK(gshmemx_team_sync_on_stream(GSHMEM_TEAM_WORLD, s) == 0);
  GSHMEM_TEST_CUDA(cudaStreamEndCapture(s, &g));
  cudaGraphExec_t exec;
  GSHMEM_TEST_CUDA(cudaGraphInstantiate(&exec, g, 0));
  const unsigned long long graph_replays = gshmem_test::scaled_iterations(500);
  gshmemx_barrier_all_on_stream(s);
  for (unsigned long long r = 0; r < graph_replays; ++r) {
    GSHMEM_TEST_CUDA(cudaGraphLaunch(exec, s));
    if (r % 100 == 99) world_sync(r / 100);  // the two protocols interleaved
  }
  gshmemx_barrier_all_on_stream(s);
  CHECK(gshmemx_get_last_error() == GSHMEM_SUCCESS);
  GSHMEM_TEST_CUDA(cudaStreamSynchronize(s));
  unsigned long long counted = 0;
  GSHMEM_TEST_CUDA(cudaMemcpy(&v, violations, sizeof(v), cudaMemcpyDeviceToHost));
  GSHMEM_TEST_CUDA(cudaMemcpy(&counted, box, sizeof(counted), cudaMemcpyDeviceToHost));
  CHECK(v == 0);
  CHECK(counted == graph_replays);
  GSHMEM_TEST_CUDA(cudaGraphExecDestroy(exec));
  GSHMEM_TEST_CUDA(cudaGraphDestroy(g));
  cudaFree(replays);
  barrier();
  cudaStreamDestroy(s);
  cudaFree(violations);
  gshmem_free(box);
}

TEST_CASE("bad input: error code, nothing enqueued", "[stream][gpu]") {
  progress("case: bad input: error code, nothing enqueued");
  REQUIRE(ensure_init());
  int *ivar = static_cast<int *>(gshmem_malloc(64));
  uint64_t *sig = static_cast<uint64_t *>(gshmem_malloc(64));
  int *outside;
  size_t *result;
  GSHMEM_TEST_CUDA(cudaMalloc(&outside, 64));
  GSHMEM_TEST_CUDA(cudaMalloc(&result, 64));
  cudaStream_t s;
  GSHMEM_TEST_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  int my_device = 0, ndev = 0;
  GSHMEM_TEST_CUDA(cudaGetDevice(&my_device));
  GSHMEM_TEST_CUDA(cudaGetDeviceCount(&ndev));

  auto expect_nothing_enqueued = [&](const char *what, int expected, auto &&call) {
    INFO(what);
    GSHMEM_TEST_CUDA(cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed));
    call(s);
    const int code = gshmemx_get_last_error();
    cudaGraph_t g;
    GSHMEM_TEST_CUDA(cudaStreamEndCapture(s, &g));
    size_t nodes = 99;
    GSHMEM_TEST_CUDA(cudaGraphGetNodes(g, nullptr, &nodes));
    cudaGraphDestroy(g);
    CHECK(code == expected);
    CHECK(nodes == 0);
  };
  expect_nothing_enqueued("invalid cmp", GSHMEMX_ERROR_INVALID_VALUE,
                          [&](cudaStream_t st) { gshmemx_int_wait_until_on_stream(ivar, 17, 1, st); });
  expect_nothing_enqueued("invalid cmp (set)", GSHMEMX_ERROR_INVALID_VALUE, [&](cudaStream_t st) {
    gshmemx_int_wait_until_any_on_stream(ivar, 4, nullptr, -1, 1, result, st);
  });
  expect_nothing_enqueued("NULL ivars", GSHMEMX_ERROR_INVALID_VALUE, [&](cudaStream_t st) {
    gshmemx_int_wait_until_all_on_stream(nullptr, 4, nullptr, GSHMEM_CMP_EQ, 1, st);
  });
  expect_nothing_enqueued("outside heap", GSHMEMX_ERROR_NOT_SYMMETRIC,
                          [&](cudaStream_t st) { gshmemx_int_wait_until_on_stream(outside, GSHMEM_CMP_EQ, 1, st); });
  expect_nothing_enqueued("array runs past the heap", GSHMEMX_ERROR_NOT_SYMMETRIC, [&](cudaStream_t st) {
    gshmemx_int_wait_until_some_on_stream(ivar, size_t(1) << 40, reinterpret_cast<size_t *>(result), nullptr,
                                          GSHMEM_CMP_EQ, 1, result, st);
  });
  expect_nothing_enqueued("misaligned", GSHMEMX_ERROR_MISALIGNED, [&](cudaStream_t st) {
    gshmemx_int_wait_until_on_stream(reinterpret_cast<int *>(reinterpret_cast<char *>(ivar) + 1), GSHMEM_CMP_EQ, 1, st);
  });
  expect_nothing_enqueued("NULL result", GSHMEMX_ERROR_INVALID_VALUE, [&](cudaStream_t st) {
    gshmemx_int_wait_until_any_on_stream(ivar, 4, nullptr, GSHMEM_CMP_EQ, 1, nullptr, st);
  });
  expect_nothing_enqueued("NULL cmp_values", GSHMEMX_ERROR_INVALID_VALUE, [&](cudaStream_t st) {
    gshmemx_int_wait_until_all_vector_on_stream(ivar, 4, nullptr, GSHMEM_CMP_EQ, nullptr, st);
  });
  expect_nothing_enqueued("bad sig_op", GSHMEMX_ERROR_INVALID_VALUE,
                          [&](cudaStream_t st) { gshmemx_signal_op_on_stream(sig, 1, 7, 0, st); });
  expect_nothing_enqueued("bad pe", GSHMEMX_ERROR_INVALID_PE,
                          [&](cudaStream_t st) { gshmemx_signal_op_on_stream(sig, 1, GSHMEM_SIGNAL_SET, 2, st); });
  expect_nothing_enqueued("put_signal dest outside", GSHMEMX_ERROR_NOT_SYMMETRIC, [&](cudaStream_t st) {
    gshmemx_int_put_signal_on_stream(outside, outside, 4, sig, 1, GSHMEM_SIGNAL_SET, 0, st);
  });
  if (ndev > 1) {
    // A stream of another device (capture cannot span devices: check nothing ran instead).
    const int other_dev = (my_device + 1) % ndev;
    GSHMEM_TEST_CUDA(cudaSetDevice(other_dev));
    cudaStream_t foreign;
    GSHMEM_TEST_CUDA(cudaStreamCreateWithFlags(&foreign, cudaStreamNonBlocking));
    GSHMEM_TEST_CUDA(cudaSetDevice(my_device));
    gshmemx_int_wait_until_on_stream(ivar, GSHMEM_CMP_EQ, 12345, foreign);  // would never complete
    CHECK(gshmemx_get_last_error() == GSHMEMX_ERROR_INVALID_STREAM);
    CHECK(cudaStreamQuery(foreign) == cudaSuccess);  // nothing pending on it
    GSHMEM_TEST_CUDA(cudaSetDevice(other_dev));
    cudaStreamDestroy(foreign);
    GSHMEM_TEST_CUDA(cudaSetDevice(my_device));
  }
  cudaStreamDestroy(s);
  cudaFree(outside); cudaFree(result);
  gshmem_free(sig); gshmem_free(ivar);
}

TEST_CASE("finalize", "[stream][gpu]") {
  progress("case: finalize");
  REQUIRE(ensure_init());
  barrier();
  gshmem_finalize();
}
