// A small program in NVSHMEM's style: each PE puts a value to the next PE
// and signals it; the next PE waits for the signal and checks the value.
#include <nvshmem.h>
#include <nvshmemx.h>

#include <cstdio>

__global__ void ring(long *value, uint64_t *signal, int *ok) {
  const int me = nvshmem_my_pe(), n = nvshmem_n_pes();
  const long mine = 100 + me;
  nvshmem_long_put_signal(value, &mine, 1, signal, 1, NVSHMEM_SIGNAL_SET, (me + 1) % n);
  nvshmem_signal_wait_until(signal, NVSHMEM_CMP_EQ, 1);
  *ok = *value == 100 + (me + n - 1) % n;
}

int main() {
  nvshmem_init();
  if (nvshmem_my_pe() < 0) {
    std::printf("nvshmem_consumer: init failed (no GPU?)\n");
    return 0;
  }
  long *value = static_cast<long *>(nvshmem_calloc(1, sizeof(long)));
  uint64_t *signal = static_cast<uint64_t *>(nvshmem_calloc(1, sizeof(uint64_t)));
  int *ok = nullptr;
  cudaMallocManaged(&ok, sizeof(int));
  nvshmem_barrier_all();
  ring<<<1, 1>>>(value, signal, ok);
  cudaDeviceSynchronize();
  std::printf("PE %d: %s\n", nvshmem_my_pe(), *ok ? "ok" : "WRONG");
  nvshmem_barrier_all();
  nvshmem_free(signal);
  nvshmem_free(value);
  nvshmem_finalize();
  return *ok ? 0 : 1;
}
