// GPU tests of the remote updates, run with 2 and 4 PEs (one GPU each):
// every RMA and atomic routine for every type of the type table reaches the
// right PE with the right value; contention on one counter; a CAS spin lock;
// put_signal and fence litmus tests; device barrier stress. The kernels are
// in update_gpu_*.cu (see update_gpu_kernels.h); iteration counts in
// update_test_config.h.
#include "catch.hpp"
#include "test_support.h"
#include "update_gpu_kernels.h"
#include "update_test_config.h"

#include <gshmem/runtime.h>
#include <gshmem/update.h>  // gshmem_barrier_all (host side)

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

using namespace update_test;
using namespace update_gpu;

namespace {

template <class T>
using rma_launcher = cudaError_t (*)(T *, const T *, T *, uint64_t *, int);

void cuda_ok(cudaError_t e, const char *what) {
  INFO(what << ": " << cudaGetErrorString(e));
  CHECK(e == cudaSuccess);
}

template <class T>
std::vector<T> to_host(const T *dev, size_t n) {
  std::vector<T> h(n);
  cuda_ok(cudaMemcpy(h.data(), dev, n * sizeof(T), cudaMemcpyDeviceToHost), "cudaMemcpy D2H");
  return h;
}

// ------------------------------------------------------------ RMA x type
template <class T>
void check_rma_type(const char *name, rma_launcher<T> thread_forms, rma_launcher<T> coop_forms) {
  const int me = gshmem_my_pe(), n = gshmem_n_pes();
  const int target = (me + 1) % n, source = (me + n - 1) % n;
  const size_t src_len = kBlockElems + 16;
  T *dst = (T *)gshmem_calloc(kRmaSlots, sizeof(T));
  T *src = (T *)gshmem_malloc(src_len * sizeof(T));
  uint64_t *sig = (uint64_t *)gshmem_calloc(kSigs, sizeof(uint64_t));
  T *got = nullptr;
  cuda_ok(cudaMalloc(&got, kGotElems * sizeof(T)), "cudaMalloc");
  std::vector<T> h(src_len);
  for (size_t k = 0; k < src_len; ++k) h[k] = pattern<T>(me, (int)k);
  cuda_ok(cudaMemcpy(src, h.data(), src_len * sizeof(T), cudaMemcpyHostToDevice), "cudaMemcpy H2D");
  gshmem_barrier_all();
  cuda_ok(thread_forms(dst, src, got, sig, target), "launch (thread forms)");
  cuda_ok(coop_forms(dst, src, got, sig, target), "launch (warp/block forms)");
  cuda_ok(cudaDeviceSynchronize(), "kernel");
  gshmem_barrier_all();

  INFO("type " << name << ", PE " << me);
  auto d = to_host(dst, kRmaSlots);
  auto g = to_host(got, kGotElems);
  auto s = to_host(sig, kSigs);
  auto w = [&](int k) { return pattern<T>(source, k); };  // what the writer had at src[k]
  auto r = [&](int k) { return pattern<T>(target, k); };  // what the target has at src[k]
  bool ok = d[kP] == w(0);
  for (int k = 0; k < kMsg; ++k)
    ok = ok && d[kPut + k] == w(k) && d[kPutNbi + k] == w(1 + k) && d[kPutmem + k] == w(2 + k) &&
         d[kPutSig + k] == w(3 + k);
  for (int k = 0; k < kWarpElems; ++k) ok = ok && d[kPutWarp + k] == w(4 + k);
  for (int k = 0; k < kBlockElems; ++k) ok = ok && d[kPutBlock + k] == w(5 + k) && d[kPutSigBlock + k] == w(6 + k);
  CHECK(ok);
  CHECK(s[0] == 7);
  CHECK(s[1] == 5);
  CHECK(s[2] == 1);
  bool got_ok = g[0] == r(0) && g[kGotWeakG] == r(3);
  for (int k = 0; k < kMsg; ++k)
    got_ok = got_ok && g[1 + k] == r(k) && g[1 + kMsg + k] == r(1 + k) && g[1 + 2 * kMsg + k] == r(2 + k);
  for (int k = 0; k < kWarpElems; ++k) got_ok = got_ok && g[100 + k] == r(4 + k);
  for (int k = 0; k < kBlockElems; ++k) got_ok = got_ok && g[200 + k] == r(5 + k);
  for (int k = 0; k < 10; ++k) got_ok = got_ok && g[1200 + k] == r(6 + k);
  CHECK(got_ok);
  cudaFree(got);
  gshmem_free(sig);
  gshmem_free(src);
  gshmem_free(dst);
}

// ------------------------------------------- per-queue-pair forms x type
// NVSHMEM's nvshmemx_qp_* names do what the plain forms do (same layout,
// same reference), with handles from nvshmemx_qp_create (its library half,
// gshmemi_qp_create), which refuses bad arguments on the host.
void check_qp_forms() {
  int *none = nullptr;
  CHECK(gshmemi_qp_create(0, &none) == GSHMEMX_ERROR_INVALID_VALUE);
  CHECK(gshmemi_qp_create(-3, &none) == GSHMEMX_ERROR_INVALID_VALUE);
  CHECK(none == nullptr);
  CHECK(gshmemi_qp_create(1, nullptr) == GSHMEMX_ERROR_INVALID_VALUE);
  int *a = nullptr, *b = nullptr;
  REQUIRE(gshmemi_qp_create(2, &a) == GSHMEM_SUCCESS);
  REQUIRE(gshmemi_qp_create(3, &b) == GSHMEM_SUCCESS);
  REQUIRE(a != nullptr);
  REQUIRE(b != nullptr);
  std::vector<int> all = {a[0], a[1], b[0], b[1], b[2]};
  for (size_t i = 0; i < all.size(); ++i) {
    CHECK(all[i] >= GSHMEMI_QP_FIRST);  // past NVSHMEMX_QP_HOST (0) and NVSHMEMX_QP_DEFAULT (1)
    for (size_t j = 0; j < i; ++j) CHECK(all[i] != all[j]);
  }
  set_rma_qp_handles(a[1], b[2]);
#define RUN_RMA_QP(NAME, TYPE) \
  check_rma_type<TYPE>(#NAME " (qp forms)", launch_rma_qp_thread_##NAME, launch_rma_qp_coop_##NAME);
  GSHMEM_FOR_EACH_RMA_TYPE(RUN_RMA_QP)
#undef RUN_RMA_QP
  // nvshmemx_qp_signal_op: ADD twice, then SET, on the next PE's word.
  const int me = gshmem_my_pe(), n = gshmem_n_pes();
  uint64_t *sig = (uint64_t *)gshmem_calloc(2, sizeof(uint64_t));
  gshmem_barrier_all();
  cuda_ok(launch_qp_signal_op(sig, 3, GSHMEM_SIGNAL_ADD, (me + 1) % n), "launch (qp signal)");
  cuda_ok(launch_qp_signal_op(sig, 4, GSHMEM_SIGNAL_ADD, (me + 1) % n), "launch (qp signal)");
  cuda_ok(launch_qp_signal_op(sig + 1, 9, GSHMEM_SIGNAL_SET, (me + 1) % n), "launch (qp signal)");
  cuda_ok(cudaDeviceSynchronize(), "qp signal kernels");
  gshmem_barrier_all();
  auto s = to_host(sig, 2);
  CHECK(s[0] == 7);
  CHECK(s[1] == 9);
  gshmem_free(sig);
}

// -------------------------------------------------------- atomics x type
template <class T, bool bitwise, bool floating>
void check_amo_type(const char *name, cudaError_t (*launch)(T *, T *, int)) {
  const int me = gshmem_my_pe(), n = gshmem_n_pes();
  const int target = (me + 1) % n;
  T *dst = (T *)gshmem_malloc(A_SLOTS * sizeof(T));
  T *out = nullptr;
  cuda_ok(cudaMalloc(&out, A_SLOTS * sizeof(T)), "cudaMalloc");
  // Every slot starts at 10 + me (the owner), except the NaN checks.
  std::vector<T> init(A_SLOTS);
  for (int k = 0; k < A_SLOTS; ++k) init[k] = (T)(10 + me);
  init[A_CAS_OK] = (T)10;
  if constexpr (floating) init[A_FNANMAX] = std::numeric_limits<T>::quiet_NaN();
  cuda_ok(cudaMemcpy(dst, init.data(), A_SLOTS * sizeof(T), cudaMemcpyHostToDevice), "H2D");
  cuda_ok(cudaMemset(out, 0, A_SLOTS * sizeof(T)), "memset");
  gshmem_barrier_all();
  cuda_ok(launch(dst, out, target), "launch");
  cuda_ok(cudaDeviceSynchronize(), "kernel");
  gshmem_barrier_all();
  auto d = to_host(dst, A_SLOTS);
  auto o = to_host(out, A_SLOTS);
  INFO("type " << name << ", PE " << me << (bitwise ? " (bitwise)" : ""));
  const T t0 = (T)(10 + target);  // what the target's slots held (returned values)
  const T mine = (T)(10 + me);    // what my slots held (written by my left neighbour)
  if constexpr (bitwise) {
    CHECK(o[A_FAND] == t0);
    CHECK(d[A_FAND] == (T)(mine & (T)6));
    CHECK(d[A_AND] == (T)(mine & (T)3));
    CHECK(o[A_FOR] == t0);
    CHECK(d[A_FOR] == (T)(mine | (T)16));
    CHECK(d[A_OR] == (T)(mine | (T)32));
    CHECK(o[A_FXOR] == t0);
    CHECK(d[A_FXOR] == (T)(mine ^ (T)15));
    CHECK(d[A_XOR] == (T)(mine ^ (T)1));
  } else {
    CHECK(o[A_FETCH] == t0);
    CHECK(d[A_SET] == (T)42);
    CHECK(o[A_SWAP] == t0);
    CHECK(d[A_SWAP] == (T)43);
    CHECK(o[A_CAS_OK] == (T)10);
    CHECK(d[A_CAS_OK] == (T)44);
    CHECK(o[A_CAS_NO] == t0);
    CHECK(d[A_CAS_NO] == mine);
    CHECK(o[A_FSUB] == t0);
    CHECK(d[A_FSUB] == (T)(mine - (T)3));
    CHECK(d[A_SUB] == (T)(mine - (T)4));
    CHECK(o[A_FMAX] == t0);
    CHECK(d[A_FMAX] == (T)50);
    CHECK(d[A_MAX] == mine);
    CHECK(o[A_FMIN] == t0);
    CHECK(d[A_FMIN] == (T)2);
    CHECK(d[A_MIN] == mine);
    CHECK(o[A_CXX] == t0);
    CHECK(d[A_CXX] == (T)46);
    if constexpr (!floating) {
      CHECK(o[A_FINC] == t0);
      CHECK(d[A_FINC] == (T)(mine + 1));
      CHECK(d[A_INC] == (T)(mine + 1));
      CHECK(o[A_FADD] == t0);
      CHECK(d[A_FADD] == (T)(mine + 5));
      CHECK(d[A_ADD] == (T)(mine + 6));
    } else {
      CHECK(std::isnan((double)o[A_FNANMAX]));
      CHECK(d[A_FNANMAX] == (T)7);          // nanmax(NaN, 7) stores 7
      CHECK(d[A_NANMAX] == mine);           // nanmax(a, NaN) leaves a
      CHECK(o[A_FNANMIN] == t0);
      CHECK(d[A_FNANMIN] == (T)0);
      CHECK(std::signbit(d[A_FNANMIN]));  // nanmin(10, -0.0) stores -0.0
      CHECK(d[A_NANMIN] == (T)-1);
      CHECK(o[A_FADDF] == t0);                  // native floating add
      CHECK(d[A_FADDF] == mine + (T)0.5);
      CHECK(d[A_ADDF] == mine - (T)1.5);
      CHECK(std::isnan((double)d[A_MAXNAN]));  // max propagates NaN
      CHECK(std::isnan((double)d[A_MINNAN]));
    }
  }
  cudaFree(out);
  gshmem_free(dst);
}

void check_contention() {
  const int me = gshmem_my_pe(), n = gshmem_n_pes();
  unsigned long long *counter = (unsigned long long *)gshmem_calloc(1, sizeof(unsigned long long));
  unsigned long long *fmax = nullptr;
  cuda_ok(cudaMalloc(&fmax, sizeof(*fmax)), "cudaMalloc");
  cuda_ok(cudaMemset(fmax, 0, sizeof(*fmax)), "memset");
  const int blocks = 40, threads = 250;  // 10^4 threads
  const long per_thread = contention_adds_per_pe() / (blocks * threads);
  gshmem_barrier_all();
  cuda_ok(launch_contention(counter, fmax, blocks, threads, per_thread), "launch");
  cuda_ok(cudaDeviceSynchronize(), "contention kernel");
  gshmem_barrier_all();
  const unsigned long long expected = (unsigned long long)n * blocks * threads * per_thread;
  if (me == 0) {
    INFO("contention: counter on PE 0");
    CHECK(to_host(counter, 1)[0] == expected);
  }
  CHECK(to_host(fmax, 1)[0] < expected);
  cudaFree(fmax);
  gshmem_free(counter);
}

void check_lock() {
  const int me = gshmem_my_pe(), n = gshmem_n_pes();
  unsigned long long *lock = (unsigned long long *)gshmem_calloc(2, sizeof(unsigned long long));
  unsigned long long *count = lock + 1;
  const int blocks = 4;  // contending threads per PE, in separate blocks
  gshmem_barrier_all();
  cuda_ok(launch_lock(lock, count, blocks, lock_rounds_per_pe() / blocks), "launch");
  cuda_ok(cudaDeviceSynchronize(), "lock kernel");
  gshmem_barrier_all();
  if (me == 0) {
    auto h = to_host(lock, 2);
    CHECK(h[0] == 0);
    CHECK(h[1] == (unsigned long long)n * blocks * (lock_rounds_per_pe() / blocks));
  }
  gshmem_free(lock);
}

void check_litmus() {
  const int me = gshmem_my_pe(), n = gshmem_n_pes();
  const int target = (me + 1) % n;
  uint64_t *sym = (uint64_t *)gshmem_calloc(4096, sizeof(uint64_t));
  uint64_t *msg = sym, *sig = sym + 64, *wide_sig = sym + 72, *a = sym + 80, *b = sym + 96, *wide_msg = sym + 1024;
  uint64_t *staging = nullptr;
  unsigned long long *violations = nullptr;
  cuda_ok(cudaMalloc(&staging, 2048 * sizeof(uint64_t)), "cudaMalloc");
  cuda_ok(cudaMalloc(&violations, 2 * sizeof(unsigned long long)), "cudaMalloc");
  cuda_ok(cudaMemset(violations, 0, 2 * sizeof(unsigned long long)), "memset");
  gshmem_barrier_all();
  cuda_ok(launch_put_signal_litmus(msg, sig, wide_msg, wide_sig, staging, violations, litmus_iterations(), target),
          "launch");
  cuda_ok(cudaDeviceSynchronize(), "put_signal litmus");
  gshmem_barrier_all();
  cuda_ok(launch_fence_litmus(a, b, staging + 1100, violations + 1, litmus_iterations(), target), "launch");
  cuda_ok(cudaDeviceSynchronize(), "fence litmus");
  gshmem_barrier_all();
  auto v = to_host(violations, 2);
  INFO("PE " << me);
  CHECK(v[0] == 0);  // data before signal
  CHECK(v[1] == 0);  // two puts to one peer in order across a fence
  auto s = to_host(sym, 128);
  CHECK(s[64] == (uint64_t)litmus_iterations());
  CHECK(s[96] == (uint64_t)litmus_iterations());
  cudaFree(violations);
  cudaFree(staging);
  gshmem_free(sym);
}

void check_barrier() {
  unsigned long long *counter = (unsigned long long *)gshmem_calloc(1, sizeof(unsigned long long));
  unsigned long long *violations = nullptr;
  cuda_ok(cudaMalloc(&violations, sizeof(*violations)), "cudaMalloc");
  cuda_ok(cudaMemset(violations, 0, sizeof(*violations)), "memset");
  gshmem_barrier_all();
  cuda_ok(launch_barrier_stress(counter, violations, barrier_iterations()), "launch");
  cuda_ok(cudaDeviceSynchronize(), "barrier stress");
  gshmem_barrier_all();
  INFO("PE " << gshmem_my_pe());
  CHECK(to_host(violations, 1)[0] == 0);
  CHECK(to_host(counter, 1)[0] == (unsigned long long)barrier_iterations());
  cudaFree(violations);
  gshmem_free(counter);
}

// ------------------------------------------- cooperative forms x block shape
// The warp group of the update forms ranks lanes by their linear index: in a
// 16x2 block, two lanes sharing threadIdx.x would otherwise copy the same
// half of the data, apply bulk atomics twice and signal twice.
void check_coop_shapes() {
  const int me = gshmem_my_pe(), n = gshmem_n_pes();
  const int target = (me + 1) % n, source = (me + n - 1) % n;
  constexpr unsigned kMaxWarps = 4;
  shape_areas a{};
  a.bytes = (unsigned char *)gshmem_malloc(2 * kMaxWarps * 4096);
  a.adds = (unsigned long long *)gshmem_malloc(2 * kMaxWarps * 64 * sizeof(unsigned long long));
  a.sigs = (uint64_t *)gshmem_malloc((kMaxWarps + 1) * sizeof(uint64_t));
  a.data = (uint64_t *)gshmem_malloc((kMaxWarps * 16 + 16) * sizeof(uint64_t));
  unsigned char *src = nullptr;
  cuda_ok(cudaMalloc(&src, 2 * kMaxWarps * 4096), "cudaMalloc");
  a.src = src;
  std::vector<unsigned char> pattern(2 * kMaxWarps * 4096);
  auto byte_of = [](int pe, size_t k) { return (unsigned char)(pe * 37 + k * 13 + (k >> 8)); };
  for (size_t k = 0; k < pattern.size(); ++k) pattern[k] = byte_of(me, k);
  cuda_ok(cudaMemcpy(src, pattern.data(), pattern.size(), cudaMemcpyHostToDevice), "H2D");
  const dim3 shapes[] = {dim3(32), dim3(16, 2), dim3(8, 4), dim3(4, 4, 2), dim3(64, 2), dim3(2, 8, 8)};
  for (const dim3 &shape : shapes) {
    const unsigned warps = shape.x * shape.y * shape.z / 32;
    INFO("block " << shape.x << "x" << shape.y << "x" << shape.z << ", PE " << me);
    cuda_ok(cudaMemset(a.bytes, 0, 2 * kMaxWarps * 4096), "memset");
    cuda_ok(cudaMemset(a.adds, 0, 2 * kMaxWarps * 64 * sizeof(unsigned long long)), "memset");
    cuda_ok(cudaMemset(a.sigs, 0, (kMaxWarps + 1) * sizeof(uint64_t)), "memset");
    cuda_ok(cudaMemset(a.data, 0, (kMaxWarps * 16 + 16) * sizeof(uint64_t)), "memset");
    cuda_ok(cudaDeviceSynchronize(), "memset");
    gshmem_barrier_all();
    cuda_ok(launch_coop_shapes(a, shape, target), "launch");
    cuda_ok(cudaDeviceSynchronize(), "coop shapes kernel");
    gshmem_barrier_all();
    auto bytes = to_host(a.bytes, 2 * warps * 4096);
    size_t wrong_bytes = 0;
    for (size_t k = 0; k < bytes.size(); ++k) wrong_bytes += bytes[k] != byte_of(source, k);
    CHECK(wrong_bytes == 0);
    auto adds = to_host(a.adds, 2 * warps * 64);
    size_t not_once = 0;
    for (auto v : adds) not_once += v != 1;
    CHECK(not_once == 0);  // every counter incremented exactly once
    auto sigs = to_host(a.sigs, warps + 1);
    for (unsigned w = 0; w <= warps; ++w) CHECK(sigs[w] == 1);  // one SIGNAL_ADD per group
    auto data = to_host(a.data, warps * 16 + 16);
    std::vector<uint64_t> expect_words(warps * 16 + 16);
    std::vector<unsigned char> source_bytes(2 * kMaxWarps * 4096);
    for (size_t k = 0; k < source_bytes.size(); ++k) source_bytes[k] = byte_of(source, k);
    std::memcpy(expect_words.data(), source_bytes.data(), warps * 16 * sizeof(uint64_t));
    std::memcpy(expect_words.data() + warps * 16, source_bytes.data() + warps * 16 * sizeof(uint64_t),
                16 * sizeof(uint64_t));
    CHECK(data == expect_words);
  }
  cudaFree(src);
  gshmem_free(a.data);
  gshmem_free(a.sigs);
  gshmem_free(a.adds);
  gshmem_free(a.bytes);
}

// -------------------------------------------------- 16-byte atomic objects
// PE p writes {k, k} to PE p+1's cell (store, exchange, compare-exchange in
// turn) while readers there load it: no load may see halves of two writes.
void check_wide_atomics() {
  const int me = gshmem_my_pe(), n = gshmem_n_pes();
  const int target = (me + 1) % n;
  const long iterations = wide_iterations();
  unsigned long long *cell = (unsigned long long *)gshmem_calloc(2, sizeof(unsigned long long));
  unsigned long long *torn = nullptr;
  cuda_ok(cudaMalloc(&torn, 2 * sizeof(unsigned long long)), "cudaMalloc");
  cuda_ok(cudaMemset(torn, 0, 2 * sizeof(unsigned long long)), "memset");
  cudaStream_t readers, writer;
  cuda_ok(cudaStreamCreateWithFlags(&readers, cudaStreamNonBlocking), "stream");
  cuda_ok(cudaStreamCreateWithFlags(&writer, cudaStreamNonBlocking), "stream");
  cuda_ok(cudaDeviceSynchronize(), "sync");
  gshmem_barrier_all();
  // Readers first (they spin until the last value lands), then the writer.
  cuda_ok(launch_wide_readers_on(cell, iterations, 2, torn, readers), "launch readers");
  cuda_ok(launch_wide_writer_on(cell, iterations, target, writer), "launch writer");
  cuda_ok(cudaDeviceSynchronize(), "wide atomics kernels");
  gshmem_barrier_all();
  auto t = to_host(torn, 2);
  INFO("PE " << me << ": " << t[1] << " 16-byte loads");
  CHECK(t[0] == 0);
  CHECK(t[1] >= (unsigned long long)2 * 128);
  auto c = to_host(cell, 2);
  CHECK(c[0] == (unsigned long long)iterations);
  CHECK(c[1] == (unsigned long long)iterations);
  cudaStreamDestroy(readers);
  cudaStreamDestroy(writer);
  cudaFree(torn);
  gshmem_free(cell);
}

// ------------------------------------------------------- __half bulk add
// Counters on the next PE; fetched values stay here. Half-precision holds
// the integers up to 2048 exactly, so sums and old values are exact.
float half_bits_to_float(unsigned short h) {
  const unsigned sign = (h >> 15) & 1, exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
  float v = exponent == 0 ? std::ldexp((float)mantissa, -24) : std::ldexp((float)(mantissa | 0x400), (int)exponent - 25);
  return sign ? -v : v;
}

void check_half_bulk_add() {
  const int me = gshmem_my_pe(), n = gshmem_n_pes();
  const int target = (me + 1) % n;
  const int per_counter = 2 * kHalfCalls * 4;
  unsigned short *counters = (unsigned short *)gshmem_calloc(64, sizeof(unsigned short));
  unsigned short *fetched = nullptr;
  cuda_ok(cudaMalloc(&fetched, 2 * kHalfCalls * 256 * sizeof(unsigned short)), "cudaMalloc");
  cuda_ok(cudaDeviceSynchronize(), "sync");
  gshmem_barrier_all();
  cuda_ok(launch_half_bulk_add(counters, fetched, target), "launch half bulk add");
  cuda_ok(cudaDeviceSynchronize(), "half bulk add kernel");
  gshmem_barrier_all();
  INFO("PE " << me);
  auto sums = to_host(counters, 64);
  size_t wrong_sums = 0;
  for (auto h : sums) wrong_sums += half_bits_to_float(h) != (float)per_counter;
  CHECK(wrong_sums == 0);
  auto old = to_host(fetched, 2 * kHalfCalls * 256);
  std::vector<std::vector<int>> seen(64, std::vector<int>(per_counter, 0));
  size_t out_of_range = 0;
  for (size_t k = 0; k < old.size(); ++k) {
    const float v = half_bits_to_float(old[k]);
    const int i = (int)v;
    if (v != (float)i || i < 0 || i >= per_counter) ++out_of_range;
    else ++seen[k % 256 % 64][i];
  }
  CHECK(out_of_range == 0);
  size_t not_once = 0;
  for (auto &counter : seen)
    for (int times : counter) not_once += times != 1;
  CHECK(not_once == 0);  // each old value 0 .. per_counter - 1 fetched exactly once per counter
  cudaFree(fetched);
  gshmem_free(counters);
}

// Whether PE `pe` is reached through the proxy (no mapped address).
bool peer_is_remote(int pe) {
  void *probe = gshmem_malloc(8);
  const bool remote = gshmem_ptr(probe, pe) == nullptr;
  gshmem_free(probe);
  return remote;
}

}  // namespace

// One test case for the whole run: init and finalize are collective, so every
// PE must walk the same sequence (checks use CHECK, never REQUIRE, after init).
TEST_CASE("remote updates on GPUs", "[update][gpu]") {
  REQUIRE(gshmem_init() == GSHMEM_SUCCESS);
  REQUIRE(gshmem_n_pes() >= 2);
#define RUN_RMA(NAME, TYPE) check_rma_type<TYPE>(#NAME, launch_rma_thread_##NAME, launch_rma_coop_##NAME);
  GSHMEM_FOR_EACH_RMA_TYPE(RUN_RMA)
#undef RUN_RMA
  check_qp_forms();
#define RUN_AMO(NAME, TYPE) check_amo_type<TYPE, false, false>(#NAME, launch_amo_##NAME);
  GSHMEM_FOR_EACH_AMO_TYPE(RUN_AMO)
#undef RUN_AMO
#define RUN_AMO_BITWISE(NAME, TYPE) check_amo_type<TYPE, true, false>(#NAME, launch_amo_bitwise_##NAME);
  GSHMEM_FOR_EACH_AMO_BITWISE_TYPE(RUN_AMO_BITWISE)
#undef RUN_AMO_BITWISE
#define RUN_AMO_FLOAT(NAME, TYPE) check_amo_type<TYPE, false, true>(#NAME, launch_amo_float_##NAME);
  GSHMEM_FOR_EACH_AMO_FLOAT_TYPE(RUN_AMO_FLOAT)
#undef RUN_AMO_FLOAT
  check_contention();
  check_lock();
  check_litmus();
  check_barrier();
  check_coop_shapes();
  // Every peer remote (GSHMEM_REMOTE_PEERS=all, docs/remote.md): 16-byte and
  // 16-bit atomics have no remote form (the transport has no such
  // operations); they end in a diagnostic and a trap, so they run only
  // where the next PE is P2P.
  const bool next_is_remote = peer_is_remote((gshmem_my_pe() + 1) % gshmem_n_pes());
  if (next_is_remote) {
    WARN("PE " << gshmem_my_pe() << ": the next PE is remote; the 16-byte atomics and the __half bulk add "
         "(no remote form) are left out");
  } else {
    check_wide_atomics();
    check_half_bulk_add();
  }
  gshmem_finalize();
}
