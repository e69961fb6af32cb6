// The symmetric heap on GPUs, through the public API only: every PE writes a
// pattern into a gshmem_malloc'ed buffer, then a kernel on every PE reads
// every peer's pattern through gshmem_ptr. Built as an ordinary .cu without
// relocatable device code (checked below and in CMake).
#if defined(__CUDACC_RDC__)
#error "heap_gpu_test must be compiled without -rdc"
#endif

#include <gshmem/gshmem.h>

#include <cstdint>
#include <cstdlib>
#include <vector>

#include "catch.hpp"
#include "test_support.h"

namespace {

constexpr std::size_t kWords = 1 << 16;

__host__ __device__ std::uint64_t pattern(int pe, std::size_t index) {
  return (std::uint64_t(pe + 1) << 40) ^ (index * 0x9E3779B97F4A7C15ull);
}

__global__ void fill(std::uint64_t *buffer, int pe, std::size_t words) {
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < words; i += gridDim.x * blockDim.x)
    buffer[i] = pattern(pe, i);
}

// Counts words of every PE's buffer (read through gshmem_ptr) that differ
// from that PE's pattern; unreachable peers are counted in *null_peers.
__global__ void check_peers(const std::uint64_t *buffer, std::size_t words, unsigned long long *mismatches,
                            int *null_peers) {
  for (int pe = 0; pe < gshmem_n_pes(); ++pe) {
    const std::uint64_t *peer = static_cast<const std::uint64_t *>(gshmem_ptr(buffer, pe));
    if (peer == nullptr) {
      if (blockIdx.x == 0 && threadIdx.x == 0) atomicAdd(null_peers, 1);
      continue;
    }
    for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < words; i += gridDim.x * blockDim.x)
      if (peer[i] != pattern(pe, i)) atomicAdd(mismatches, 1ull);
  }
}

// gshmem_ptr's NULL cases, evaluated on the device.
__global__ void device_null_cases(const void *symmetric, const void *foreign, int *results) {
  results[0] = gshmem_ptr(symmetric, -1) == nullptr;
  results[1] = gshmem_ptr(symmetric, gshmem_n_pes()) == nullptr;
  results[2] = gshmem_ptr(foreign, gshmem_my_pe()) == nullptr;
  results[3] = gshmem_ptr(symmetric, gshmem_my_pe()) == symmetric;
}

struct Runtime {
  Runtime() { rc = gshmem_init(); }
  ~Runtime() { if (rc == 0) gshmem_finalize(); }
  int rc;
};

}  // namespace

// One init for the whole binary: the three parts run in order under it.
static void patterns_through_gshmem_ptr() {
  const int me = gshmem_my_pe(), n = gshmem_n_pes();
  REQUIRE(n >= 2);
  auto *buffer = static_cast<std::uint64_t *>(gshmem_malloc(kWords * sizeof(std::uint64_t)));
  REQUIRE(buffer != nullptr);
  fill<<<64, 256>>>(buffer, me, kWords);
  GSHMEM_TEST_CUDA(cudaGetLastError());
  gshmem_barrier_all();  // waits for the fill on every PE

  unsigned long long *mismatches = nullptr;
  int *null_peers = nullptr;
  GSHMEM_TEST_CUDA(cudaMallocManaged(&mismatches, sizeof *mismatches));
  GSHMEM_TEST_CUDA(cudaMallocManaged(&null_peers, sizeof *null_peers));
  *mismatches = 0;
  *null_peers = 0;
  check_peers<<<64, 256>>>(buffer, kWords, mismatches, null_peers);
  GSHMEM_TEST_CUDA(cudaDeviceSynchronize());
  CHECK(*null_peers == 0);  // one node, P2P: every peer is reachable
  CHECK(*mismatches == 0);

  // The host view agrees with the device's: every peer mapped.
  for (int pe = 0; pe < n; ++pe) CHECK(gshmem_ptr(buffer, pe) != nullptr);
  CHECK(gshmem_ptr(buffer, me) == buffer);
  GSHMEM_TEST_CUDA(cudaFree(mismatches));
  GSHMEM_TEST_CUDA(cudaFree(null_peers));
  gshmem_barrier_all();  // nobody still reads buffer
  gshmem_free(buffer);
  CHECK(gshmemx_heap_bytes_in_use() == 0);
}

static void null_cases() {
  void *symmetric = gshmem_malloc(4096);
  REQUIRE(symmetric != nullptr);
  void *foreign = nullptr;
  GSHMEM_TEST_CUDA(cudaMalloc(&foreign, 4096));
  int local = 0;
  CHECK(gshmem_ptr(foreign, gshmem_my_pe()) == nullptr);
  CHECK(gshmem_ptr(&local, gshmem_my_pe()) == nullptr);
  CHECK(gshmem_ptr(symmetric, -1) == nullptr);
  CHECK(gshmem_ptr(symmetric, gshmem_n_pes()) == nullptr);
  CHECK(gshmem_ptr(symmetric, gshmem_n_pes() + 1000) == nullptr);

  int *results = nullptr;
  GSHMEM_TEST_CUDA(cudaMallocManaged(&results, 4 * sizeof(int)));
  for (int i = 0; i < 4; ++i) results[i] = 0;
  device_null_cases<<<1, 1>>>(symmetric, foreign, results);
  GSHMEM_TEST_CUDA(cudaDeviceSynchronize());
  for (int i = 0; i < 4; ++i) {
    INFO("device case " << i);
    CHECK(results[i] == 1);
  }
  GSHMEM_TEST_CUDA(cudaFree(results));
  GSHMEM_TEST_CUDA(cudaFree(foreign));
  gshmem_free(symmetric);
}

static void cycles_do_not_leak() {
  REQUIRE(gshmemx_heap_bytes_in_use() == 0);
  std::vector<void *> live;
  std::uint32_t seed = 2024;  // the same on every PE: the calls must be collective
  for (int i = 0; i < 1000; ++i) {
    seed = seed * 1664525u + 1013904223u;
    std::size_t size = 1 + (seed >> 8) % (256 * 1024);
    void *p = (seed >> 4) % 4 == 0 ? gshmem_calloc(size / 8 + 1, 8) : gshmem_malloc(size);
    REQUIRE(p != nullptr);
    CHECK(reinterpret_cast<std::uintptr_t>(p) % 256 == 0);
    live.push_back(p);
    if (live.size() > 8 || (seed >> 20) % 2 == 0) {
      std::size_t pick = (seed >> 12) % live.size();
      gshmem_free(live[pick]);
      live.erase(live.begin() + static_cast<std::ptrdiff_t>(pick));
    }
  }
  CHECK(gshmemx_heap_bytes_in_use() > 0);
  for (void *p : live) gshmem_free(p);
  CHECK(gshmemx_heap_bytes_in_use() == 0);
  // Zero size: NULL without error.
  CHECK(gshmem_malloc(0) == nullptr);
  // Huge: NULL on every PE, heap unchanged.
  CHECK(gshmem_malloc(SIZE_MAX) == nullptr);
  CHECK(gshmem_calloc(SIZE_MAX / 2, 4) == nullptr);
  CHECK(gshmemx_heap_bytes_in_use() == 0);
}

// Growth (CUDA VMM heap): allocations past the initial GSHMEM_SYMMETRIC_SIZE
// (1 GiB here) succeed on every PE, the new memory is reachable from every
// peer on the device (gshmem_ptr) and through host RMA (whose argument
// checks follow the grown size), and a freed block's space is reused and
// extended again. The legacy heap cannot grow: there the same request fails
// cleanly and the heap stays usable.
static void grows_past_its_initial_size() {
  const char *legacy_env = std::getenv("GSHMEM_DISABLE_VMM");
  const bool legacy = legacy_env && legacy_env[0] == '1';
  REQUIRE(gshmemx_heap_bytes_in_use() == 0);
  void *small = gshmem_malloc(64u << 20);
  REQUIRE(small != nullptr);
  const std::size_t big_bytes = std::size_t(3) << 29;  // 1.5 GiB
  auto *big = static_cast<std::uint64_t *>(gshmem_malloc(big_bytes));
  if (legacy) {
    CHECK(big == nullptr);
    CHECK(gshmemx_get_last_error() == GSHMEMX_ERROR_OUT_OF_MEMORY);
    void *again = gshmem_malloc(1u << 20);  // the heap still works
    CHECK(again != nullptr);
    gshmem_free(again);
    gshmem_free(small);
    return;
  }
  REQUIRE(big != nullptr);
  CHECK(reinterpret_cast<std::uintptr_t>(big) % 256 == 0);
  const std::size_t words = big_bytes / sizeof(std::uint64_t);
  const int me = gshmem_my_pe(), n = gshmem_n_pes();
  fill<<<264, 512>>>(big, me, words);
  GSHMEM_TEST_CUDA(cudaDeviceSynchronize());
  gshmem_barrier_all();
  unsigned long long *mismatches = nullptr;
  int *null_peers = nullptr;
  GSHMEM_TEST_CUDA(cudaMallocManaged(&mismatches, sizeof *mismatches));
  GSHMEM_TEST_CUDA(cudaMallocManaged(&null_peers, sizeof *null_peers));
  *mismatches = 0;
  *null_peers = 0;
  check_peers<<<264, 512>>>(big, words, mismatches, null_peers);
  GSHMEM_TEST_CUDA(cudaDeviceSynchronize());
  CHECK(*null_peers == 0);
  CHECK(*mismatches == 0);
  // Host RMA into the last word of the grown part, on the next PE.
  std::uint64_t *last = big + words - 1;
  CHECK(gshmem_ptr(last, (me + 1) % n) != nullptr);
  std::uint64_t *marker = nullptr;
  GSHMEM_TEST_CUDA(cudaMalloc(&marker, sizeof *marker));
  const std::uint64_t value = 0xC0FFEE00ull + static_cast<std::uint64_t>(me);
  GSHMEM_TEST_CUDA(cudaMemcpy(marker, &value, sizeof value, cudaMemcpyHostToDevice));
  gshmem_barrier_all();
  gshmem_putmem(last, marker, sizeof value, (me + 1) % n);
  CHECK(gshmemx_get_last_error() == GSHMEM_SUCCESS);
  gshmem_quiet();
  gshmem_barrier_all();
  std::uint64_t got = 0;
  GSHMEM_TEST_CUDA(cudaMemcpy(&got, last, sizeof got, cudaMemcpyDeviceToHost));
  CHECK(got == 0xC0FFEE00ull + static_cast<std::uint64_t>((me + n - 1) % n));
  GSHMEM_TEST_CUDA(cudaFree(marker));
  GSHMEM_TEST_CUDA(cudaFree(mismatches));
  GSHMEM_TEST_CUDA(cudaFree(null_peers));
  // Freed space is reused; a larger request extends the heap again.
  gshmem_free(big);
  void *reuse = gshmem_malloc(big_bytes);
  CHECK(reuse == big);
  void *more = gshmem_malloc(big_bytes);
  CHECK(more != nullptr);
  gshmem_free(more);
  gshmem_free(reuse);
  gshmem_free(small);
  CHECK(gshmemx_heap_bytes_in_use() == 0);
}

TEST_CASE("symmetric heap on GPUs: patterns, gshmem_ptr NULL cases, no leaks", "[heap][gpu]") {
  Runtime runtime;
  REQUIRE(runtime.rc == 0);
  patterns_through_gshmem_ptr();
  null_cases();
  cycles_do_not_leak();
  grows_past_its_initial_size();
}
