// producer_consumer_any: a consumer takes items in whatever order they come.
//
// PE 0 produces N items for PE 1, in a scrambled order: for item i it puts
// the value into data[i], fences, then sets ready[i] = 1. One thread of PE 1
// calls wait_until_any on `ready`, with a status mask that excludes the items
// it already took, until it has taken all N; each index it gets is checked
// (ready, not taken before, data as produced). At the end every item is
// excluded and wait_until_any must return SIZE_MAX at once (the empty set).
//   mpirun -np 2 ./producer_consumer_any
#include <gshmem/gshmem.h>

#include <cstdint>
#include <cstdio>

namespace {
constexpr size_t kItems = 1024;
constexpr size_t kStride = 389;  // odd, so i -> i * kStride % kItems visits every item once

__host__ __device__ uint64_t item_value(size_t i) { return 0x5eed0000ull + i * i; }

__global__ void produce(uint64_t *data, uint64_t *ready, int consumer) {
  for (size_t k = 0; k < kItems; ++k) {
    const size_t i = k * kStride % kItems;
    gshmem_uint64_p(&data[i], item_value(i), consumer);
    gshmem_fence();  // data[i] reaches the consumer before ready[i]
    gshmem_uint64_p(&ready[i], 1, consumer);
  }
}

__global__ void consume(uint64_t *data, uint64_t *ready, int *taken, unsigned long long *errors) {
  unsigned long long bad = 0;
  for (size_t k = 0; k < kItems; ++k) {
    // taken[] is the status mask: non-zero entries are left out of the wait.
    const size_t i = gshmem_uint64_wait_until_any(ready, kItems, taken, GSHMEM_CMP_EQ, 1);
    if (i >= kItems || taken[i]) { ++bad; break; }
    taken[i] = 1;
    bad += data[i] != item_value(i);  // visible: the wait's success is an acquire
  }
  // Nothing left to wait for: the empty set gives SIZE_MAX, without waiting.
  bad += gshmem_uint64_wait_until_any(ready, kItems, taken, GSHMEM_CMP_EQ, 1) != SIZE_MAX;
  *errors = bad;
}
}  // namespace

int main() {
  if (gshmem_init() != GSHMEM_SUCCESS) return 1;
  const int me = gshmem_my_pe(), n = gshmem_n_pes();
  if (n < 2) {
    std::fprintf(stderr, "producer_consumer_any: needs 2 PEs (mpirun -np 2), has %d\n", n);
    gshmem_finalize();
    return 1;
  }
  uint64_t *data = static_cast<uint64_t *>(gshmem_calloc(kItems, sizeof(uint64_t)));
  uint64_t *ready = static_cast<uint64_t *>(gshmem_calloc(kItems, sizeof(uint64_t)));
  int *taken = nullptr;
  unsigned long long *errors = nullptr;
  cudaMalloc(&taken, kItems * sizeof(int));
  cudaMemset(taken, 0, kItems * sizeof(int));
  cudaMalloc(&errors, sizeof *errors);
  cudaMemset(errors, 0, sizeof *errors);

  if (me == 0) produce<<<1, 1>>>(data, ready, /*consumer=*/1);
  if (me == 1) consume<<<1, 1>>>(data, ready, taken, errors);
  unsigned long long bad = 0;
  const cudaError_t err = cudaMemcpy(&bad, errors, sizeof bad, cudaMemcpyDeviceToHost);
  const bool ok = err == cudaSuccess && bad == 0;
  if (me == 0) std::printf("PE 0: produced %zu items for PE 1 in scrambled order: %s\n", kItems, ok ? "OK" : "FAILED");
  if (me == 1)
    std::printf("PE 1: took %zu items with wait_until_any, each once, data as produced (%llu errors): %s\n", kItems,
                bad, ok ? "OK" : "FAILED");
  gshmem_barrier_all();
  cudaFree(errors);
  cudaFree(taken);
  gshmem_free(ready);
  gshmem_free(data);
  gshmem_finalize();
  return ok ? 0 : 1;
}
