// Each PE sends a number to the next PE; a signal says it has arrived.
#include <gshmem/gshmem.h>
#include <cstdio>

__global__ void send_to_next(int *inbox, uint64_t *arrived) {
  const int me = gshmem_my_pe(), next = (me + 1) % gshmem_n_pes();
  const int value = 100 + me;
  // The data first, then the signal (release): whoever sees the signal sees the data.
  gshmem_int_put_signal(inbox, &value, 1, arrived, 1, GSHMEM_SIGNAL_SET, next);
  gshmem_signal_wait_until(arrived, GSHMEM_CMP_EQ, 1);  // acquire: my inbox is filled
}

int main() {
  if (gshmem_init() != GSHMEM_SUCCESS) return 1;  // under mpirun: one PE per process and GPU
  const int me = gshmem_my_pe(), n = gshmem_n_pes(), prev = (me + n - 1) % n;
  int *inbox = (int *)gshmem_malloc(sizeof(int));  // symmetric: exists on every PE
  uint64_t *arrived = (uint64_t *)gshmem_calloc(1, sizeof(uint64_t));
  send_to_next<<<1, 1>>>(inbox, arrived);
  int got = -1;
  cudaMemcpy(&got, inbox, sizeof got, cudaMemcpyDeviceToHost);  // waits for the kernel
  const bool ok = got == 100 + prev;
  printf("PE %d of %d: got %d from PE %d: %s\n", me, n, got, prev, ok ? "OK" : "WRONG");
  gshmem_free(arrived);
  gshmem_free(inbox);
  gshmem_finalize();
  return ok ? 0 : 1;
}
