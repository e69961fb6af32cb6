// stream_pipeline: PE 0 feeds PE 1 through a CUDA stream, then through a
// CUDA graph of the same steps.
//
// One round, all enqueued by the host with no host synchronization:
//   PE 0: fill kernel -> put_signal_on_stream(data -> PE 1, `full` = 1)
//         -> signal_wait_until_on_stream(`empty` == 1) -> reset `empty`
//   PE 1: signal_wait_until_on_stream(`full` == 1) -> reset `full`
//         -> check kernel -> signal_op_on_stream(`empty` = 1 at PE 0)
// Each PE's kernels count rounds in device memory, so every round carries
// new data. The round is run kRounds times on the stream, then captured once
// into a graph that is replayed kRounds times. PE 1 checks every element of
// every round.
//   mpirun -np 2 ./stream_pipeline
#include <gshmem/gshmem.h>
#include <gshmem/gshmemx.h>

#include <cstdio>

namespace {
constexpr size_t kElems = 1 << 16;
constexpr int kRounds = 200;

__host__ __device__ float payload(unsigned round, size_t i) { return float(round) * 0.5f + float(i % 1000); }

__global__ void fill(float *buf, unsigned *round) {
  const unsigned r = *round + 1;
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < kElems; i += gridDim.x * blockDim.x) buf[i] = payload(r, i);
  __syncthreads();
  if (blockIdx.x == 0 && threadIdx.x == 0) *round = r;  // one block: the counter moves after every store
}

__global__ void check(const float *inbox, unsigned *round, unsigned long long *wrong) {
  const unsigned r = *round + 1;
  unsigned long long bad = 0;
  for (size_t i = threadIdx.x; i < kElems; i += blockDim.x) bad += inbox[i] != payload(r, i);
  if (bad) atomicAdd(wrong, bad);
  __syncthreads();
  if (threadIdx.x == 0) *round = r;
}

struct Pipeline {
  int me;
  float *inbox, *staging;          // inbox: symmetric; staging: PE 0's source buffer
  uint64_t *full, *empty;          // signals, symmetric
  unsigned *round;                 // rounds this PE's kernels have seen
  unsigned long long *wrong;

  // Stream order does all the ordering: each step starts after the one before.
  void enqueue_round(cudaStream_t s) const {
    if (me == 0) {
      fill<<<1, 1024, 0, s>>>(staging, round);
      gshmemx_float_put_signal_on_stream(inbox, staging, kElems, full, 1, GSHMEM_SIGNAL_SET, 1, s);
      gshmemx_signal_wait_until_on_stream(empty, GSHMEM_CMP_EQ, 1, s);
      gshmemx_signal_op_on_stream(empty, 0, GSHMEM_SIGNAL_SET, 0, s);  // re-arm before the next round
    } else if (me == 1) {
      gshmemx_signal_wait_until_on_stream(full, GSHMEM_CMP_EQ, 1, s);
      gshmemx_signal_op_on_stream(full, 0, GSHMEM_SIGNAL_SET, 1, s);  // re-armed before PE 0 may refill
      check<<<1, 1024, 0, s>>>(inbox, round, wrong);
      gshmemx_signal_op_on_stream(empty, 1, GSHMEM_SIGNAL_SET, 0, s);  // after the check: inbox reusable
    }
  }
};
}  // namespace

int main() {
  if (gshmem_init() != GSHMEM_SUCCESS) return 1;
  const int me = gshmem_my_pe(), n = gshmem_n_pes();
  if (n < 2) {
    std::fprintf(stderr, "stream_pipeline: needs 2 PEs (mpirun -np 2), has %d\n", n);
    gshmem_finalize();
    return 1;
  }
  Pipeline p{me};
  p.inbox = static_cast<float *>(gshmem_malloc(kElems * sizeof(float)));
  uint64_t *signals = static_cast<uint64_t *>(gshmem_calloc(2, sizeof(uint64_t)));
  p.full = &signals[0];
  p.empty = &signals[1];
  cudaMalloc(&p.staging, kElems * sizeof(float));
  cudaMalloc(&p.round, sizeof *p.round);
  cudaMalloc(&p.wrong, sizeof *p.wrong);
  cudaMemset(p.round, 0, sizeof *p.round);
  cudaMemset(p.wrong, 0, sizeof *p.wrong);
  cudaDeviceSynchronize();
  cudaStream_t stream;
  cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);

  // 1. Enqueued round by round.
  for (int r = 0; r < kRounds; ++r) p.enqueue_round(stream);
  // 2. One round captured into a graph, replayed.
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal);
  p.enqueue_round(stream);
  cudaStreamEndCapture(stream, &graph);
  const cudaError_t inst = cudaGraphInstantiate(&exec, graph, 0);
  for (int r = 0; r < kRounds && inst == cudaSuccess; ++r) cudaGraphLaunch(exec, stream);
  const cudaError_t err = cudaStreamSynchronize(stream);

  unsigned rounds = 0;
  unsigned long long bad = ~0ull;
  cudaMemcpy(&rounds, p.round, sizeof rounds, cudaMemcpyDeviceToHost);
  cudaMemcpy(&bad, p.wrong, sizeof bad, cudaMemcpyDeviceToHost);
  // PEs past 1 take no part: nothing is enqueued for them.
  const unsigned expected_rounds = me < 2 ? 2u * kRounds : 0u;
  const bool ok = inst == cudaSuccess && err == cudaSuccess && rounds == expected_rounds && bad == 0;
  std::printf("PE %d: %u rounds (%d on the stream, %d graph replays)%s: %s\n", me, rounds, kRounds, kRounds,
              me == 1 ? (bad == 0 ? ", every element as sent" : ", WRONG elements") : "", ok ? "OK" : "FAILED");
  if (inst != cudaSuccess || err != cudaSuccess)
    std::printf("PE %d: CUDA error: %s\n", me, cudaGetErrorString(inst != cudaSuccess ? inst : err));
  gshmem_barrier_all();
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  cudaStreamDestroy(stream);
  cudaFree(p.wrong);
  cudaFree(p.round);
  cudaFree(p.staging);
  gshmem_free(signals);
  gshmem_free(p.inbox);
  gshmem_finalize();
  return ok ? 0 : 1;
}
