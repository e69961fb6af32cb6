// nvshmem_pingpong: a program written for NVSHMEM, built unchanged against
// gshmem (CMake target gshmem::nvshmem; no -rdc). Only NVSHMEM names appear.
//
// PE 0 and PE 1 play ping-pong for kRounds rounds: the pinging PE writes the
// round number with nvshmem_int_p, fences, and raises the peer's signal with
// nvshmemx_signal_op; the peer waits with nvshmem_signal_wait_until, checks
// the value and answers the same way. The host then synchronizes the PEs with
// nvshmemx_barrier_all_on_stream and checks the last values on both sides.
//   mpirun -np 2 ./nvshmem_pingpong
#include <nvshmem.h>
#include <nvshmemx.h>

#include <cstdio>

#define kRounds 1000

__global__ void pingpong(int *value, uint64_t *signal, int *errors) {
  const int me = nvshmem_my_pe(), peer = 1 - me;
  for (int round = 1; round <= kRounds; ++round) {
    if (me == 0) {
      nvshmem_int_p(value, round, peer);
      nvshmem_fence();  // the value before the signal
      nvshmemx_signal_op(signal, (uint64_t)round, NVSHMEM_SIGNAL_SET, peer);
      nvshmem_signal_wait_until(signal, NVSHMEM_CMP_EQ, (uint64_t)round);
      if (*value != -round) ++*errors;
    } else {
      nvshmem_signal_wait_until(signal, NVSHMEM_CMP_EQ, (uint64_t)round);
      if (*value != round) ++*errors;
      nvshmem_int_p(value, -round, peer);
      nvshmem_fence();
      nvshmemx_signal_op(signal, (uint64_t)round, NVSHMEM_SIGNAL_SET, peer);
    }
  }
}

int main() {
  nvshmem_init();
  if (nvshmemx_init_status() != NVSHMEM_STATUS_IS_INITIALIZED) return 1;
  const int me = nvshmem_my_pe(), npes = nvshmem_n_pes();
  if (npes != 2) {
    if (me == 0) fprintf(stderr, "nvshmem_pingpong: run with 2 PEs (mpirun -np 2), not %d\n", npes);
    nvshmem_finalize();
    return 1;
  }
  int *value = (int *)nvshmem_malloc(sizeof(int));
  uint64_t *signal = (uint64_t *)nvshmem_calloc(1, sizeof(uint64_t));
  int *errors;
  cudaMalloc(&errors, sizeof(int));
  cudaMemset(errors, 0, sizeof(int));
  cudaStream_t stream;
  cudaStreamCreate(&stream);
  nvshmemx_barrier_all_on_stream(stream);  // both PEs' memory is ready
  pingpong<<<1, 1, 0, stream>>>(value, signal, errors);
  nvshmemx_barrier_all_on_stream(stream);
  int host_errors = -1, last = 0;
  cudaMemcpyAsync(&host_errors, errors, sizeof(int), cudaMemcpyDeviceToHost, stream);
  cudaMemcpyAsync(&last, value, sizeof(int), cudaMemcpyDeviceToHost, stream);
  const cudaError_t err = cudaStreamSynchronize(stream);
  const int expected_last = me == 0 ? -kRounds : kRounds;
  const int ok = err == cudaSuccess && host_errors == 0 && last == expected_last;
  printf("PE %d: %d ping-pong rounds, %d wrong values, last value %d: %s\n", me, kRounds, host_errors, last,
         ok ? "OK" : "FAILED");
  cudaFree(errors);
  cudaStreamDestroy(stream);
  nvshmem_free(signal);
  nvshmem_free(value);
  nvshmem_finalize();
  return ok ? 0 : 1;
}
