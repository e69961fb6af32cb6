// ring_put_signal: a ring of PEs passing 1 MiB messages, with flow control.
//
// In round r every PE sends a message to the next PE with one block-wide
// put_signal (the data, then the signal `arrived` = r), waits until its own
// `arrived` reaches r, checks the message from the previous PE, and tells
// that PE with `consumed` = r that its buffer may be overwritten. A PE sends
// round r+1 only after the next PE consumed round r. Checks every element of
// every round.
//   mpirun -np 2 ./ring_put_signal [rounds]
#include <gshmem/gshmem.h>
#include <gshmem/gshmemx.h>

#include <cstdio>
#include <cstdlib>

namespace {
constexpr size_t kElems = (1 << 20) / sizeof(int);  // 1 MiB per message

__host__ __device__ int payload(int round, int pe, size_t i) { return round * 1000003 + pe * 7919 + int(i % 4096); }

__global__ void ring(int *inbox, int *outbox, uint64_t *arrived, uint64_t *consumed, int rounds,
                     unsigned long long *wrong) {
  const int me = gshmem_my_pe(), n = gshmem_n_pes();
  const int next = (me + 1) % n, prev = (me + n - 1) % n;
  for (int r = 1; r <= rounds; ++r) {
    for (size_t i = threadIdx.x; i < kElems; i += blockDim.x) outbox[i] = payload(r, me, i);
    // The next PE must have checked round r-1 before its inbox is overwritten.
    if (threadIdx.x == 0 && r > 1) gshmem_signal_wait_until(consumed, GSHMEM_CMP_GE, r - 1);
    __syncthreads();
    // Every thread of the block copies a share; the signal follows the whole
    // message (release at system scope).
    gshmemx_putmem_signal_block(inbox, outbox, kElems * sizeof(int), arrived, r, GSHMEM_SIGNAL_SET, next);
    // Acquire by one thread, then the block barrier: every thread's later
    // reads see the message the signal was released after.
    if (threadIdx.x == 0) gshmem_signal_wait_until(arrived, GSHMEM_CMP_GE, r);
    __syncthreads();
    unsigned long long bad = 0;
    for (size_t i = threadIdx.x; i < kElems; i += blockDim.x) bad += inbox[i] != payload(r, prev, i);
    if (bad) atomicAdd(wrong, bad);
    __syncthreads();
    if (threadIdx.x == 0) {
      // Our reads of the inbox are done (barrier above); the fence orders them
      // before the signal that lets the previous PE overwrite it.
      gshmem_fence();
      gshmemx_signal_op(consumed, r, GSHMEM_SIGNAL_SET, prev);
    }
  }
}
}  // namespace

int main(int argc, char **argv) {
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 100;
  if (gshmem_init() != GSHMEM_SUCCESS) return 1;
  const int me = gshmem_my_pe(), n = gshmem_n_pes();
  int *inbox = static_cast<int *>(gshmem_malloc(kElems * sizeof(int)));
  uint64_t *signals = static_cast<uint64_t *>(gshmem_calloc(2, sizeof(uint64_t)));  // arrived, consumed
  int *outbox = nullptr;
  unsigned long long *wrong = nullptr;
  cudaMalloc(&outbox, kElems * sizeof(int));
  cudaMalloc(&wrong, sizeof *wrong);
  cudaMemset(wrong, 0, sizeof *wrong);
  if (!inbox || !signals || !outbox || !wrong) {
    std::fprintf(stderr, "PE %d: allocation failed\n", me);
    return 1;
  }

  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  cudaEventRecord(start);
  ring<<<1, 512>>>(inbox, outbox, &signals[0], &signals[1], rounds, wrong);
  cudaEventRecord(stop);
  const cudaError_t err = cudaEventSynchronize(stop);
  float ms = 0;
  cudaEventElapsedTime(&ms, start, stop);
  unsigned long long bad = ~0ull;
  cudaMemcpy(&bad, wrong, sizeof bad, cudaMemcpyDeviceToHost);
  const bool ok = err == cudaSuccess && bad == 0;
  std::printf("PE %d of %d: %d rounds of %zu KiB from PE %d: %llu wrong elements, %.1f us a round: %s\n", me, n,
              rounds, kElems * sizeof(int) / 1024, (me + n - 1) % n, bad, 1000.0 * ms / rounds, ok ? "OK" : "FAILED");
  gshmem_barrier_all();
  cudaFree(wrong);
  cudaFree(outbox);
  gshmem_free(signals);
  gshmem_free(inbox);
  gshmem_finalize();
  return ok ? 0 : 1;
}
