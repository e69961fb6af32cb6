// The floor under the remote path's one-sided RMA on one node: what a host
// thread (the proxy's situation) pays for an 8-byte CUDA copy into a peer
// GPU's memory, by source kind, and the round trip of a host store that a
// kernel on the other GPU polls and acknowledges into host memory (the
// proxy's pickup of a request, both ways). No gshmem, no MPI: one process,
// GPUs 0 and 1 with peer access. docs/remote.md ("The floor of a
// host-driven copy") reads these numbers.
//   gshmem_perf_copy_floor [iterations]   (default 2000; medians printed)
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

bool ok(cudaError_t e, const char *what) {
  if (e == cudaSuccess) return true;
  std::fprintf(stderr, "gshmem_perf_copy_floor: %s failed: %s\n", what, cudaGetErrorString(e));
  return false;
}
#define COPY_FLOOR_CHECK(call) \
  do {                         \
    if (!ok((call), #call)) return 1; \
  } while (0)

using Clock = std::chrono::steady_clock;
double us_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::micro>(b - a).count();
}
double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Waits for flag >= i (acquire, system scope), then acks i (release).
__global__ void echo(const unsigned long long *flag, unsigned long long *ack, int iters) {
  for (int i = 1; i <= iters; ++i) {
    unsigned long long v;
    do {
      asm volatile("ld.acquire.sys.global.u64 %0, [%1];" : "=l"(v) : "l"(flag) : "memory");
    } while (v < (unsigned long long)i);
    asm volatile("st.release.sys.global.u64 [%0], %1;" ::"l"(ack), "l"((unsigned long long)i) : "memory");
  }
}

}  // namespace

int main(int argc, char **argv) {
  const int iters = argc > 1 ? std::max(10, std::atoi(argv[1])) : 2000;
  int gpus = 0;
  if (cudaGetDeviceCount(&gpus) != cudaSuccess) gpus = 0;  // no driver, no device: nothing to time
  if (gpus < 2) {
    std::printf("gshmem_perf_copy_floor: skipped: needs 2 GPUs, this machine has %d\n", gpus);
    return 0;
  }
  int can = 0;
  COPY_FLOOR_CHECK(cudaDeviceCanAccessPeer(&can, 0, 1));
  if (!can) {
    std::printf("gshmem_perf_copy_floor: skipped: GPU 0 cannot access GPU 1's memory\n");
    return 0;
  }
  unsigned long long *peer_word = nullptr, *local_word = nullptr, *pinned = nullptr;
  COPY_FLOOR_CHECK(cudaSetDevice(1));
  COPY_FLOOR_CHECK(cudaMalloc(&peer_word, 64));
  COPY_FLOOR_CHECK(cudaMemset(peer_word, 0, 64));
  COPY_FLOOR_CHECK(cudaSetDevice(0));
  COPY_FLOOR_CHECK(cudaDeviceEnablePeerAccess(1, 0));
  COPY_FLOOR_CHECK(cudaMalloc(&local_word, 64));
  COPY_FLOOR_CHECK(cudaHostAlloc(&pinned, 4096, cudaHostAllocPortable | cudaHostAllocMapped));
  std::vector<unsigned long long> pageable(8, 0);
  cudaStream_t stream;
  COPY_FLOOR_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

  std::printf("| 8-byte copy to GPU 1's memory, from a host thread | issue (us) | issue to complete (us) |\n");
  std::printf("|---|---|---|\n");
  struct Source {
    const char *name;
    const void *address;
  } sources[] = {{"GPU 0's memory (peer copy)", local_word},
                 {"pinned host memory", pinned},
                 {"pageable host memory", pageable.data()}};
  for (const Source &s : sources) {
    std::vector<double> issue, total;
    for (int i = 0; i < iters; ++i) {
      const Clock::time_point t0 = Clock::now();
      COPY_FLOOR_CHECK(cudaMemcpyAsync(peer_word, s.address, 8, cudaMemcpyDefault, stream));
      const Clock::time_point t1 = Clock::now();
      cudaError_t q;
      while ((q = cudaStreamQuery(stream)) == cudaErrorNotReady) {
      }
      COPY_FLOOR_CHECK(q);
      issue.push_back(us_between(t0, t1));
      total.push_back(us_between(t0, Clock::now()));
    }
    std::printf("| %s | %.2f | %.2f |\n", s.name, median(issue), median(total));
  }

  // Round trips through a kernel on GPU 1 that polls a word and acks into
  // pinned host memory: the word written by a copy from pinned memory, or
  // stored by the host into mapped host memory.
  std::printf("\n| round trip, host -> kernel on GPU 1 -> host | median (us) |\n|---|---|\n");
  volatile unsigned long long *ack = pinned + 256;
  unsigned long long *host_flag = pinned + 128;
  for (int mode = 0; mode < 2; ++mode) {
    *ack = 0;
    *(volatile unsigned long long *)host_flag = 0;
    COPY_FLOOR_CHECK(cudaSetDevice(1));
    COPY_FLOOR_CHECK(cudaMemset(peer_word, 0, 8));
    COPY_FLOOR_CHECK(cudaDeviceSynchronize());
    cudaStream_t s1;
    COPY_FLOOR_CHECK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
    echo<<<1, 1, 0, s1>>>(mode == 0 ? peer_word : host_flag, (unsigned long long *)ack, iters);
    COPY_FLOOR_CHECK(cudaGetLastError());
    COPY_FLOOR_CHECK(cudaSetDevice(0));
    std::vector<double> rt;
    for (int i = 1; i <= iters; ++i) {
      const Clock::time_point t0 = Clock::now();
      if (mode == 0) {
        pinned[0] = (unsigned long long)i;
        COPY_FLOOR_CHECK(cudaMemcpyAsync(peer_word, pinned, 8, cudaMemcpyDefault, stream));
      } else {
        *(volatile unsigned long long *)host_flag = (unsigned long long)i;
      }
      while (*ack < (unsigned long long)i) {
      }
      rt.push_back(us_between(t0, Clock::now()));
    }
    COPY_FLOOR_CHECK(cudaSetDevice(1));
    COPY_FLOOR_CHECK(cudaDeviceSynchronize());
    COPY_FLOOR_CHECK(cudaStreamDestroy(s1));
    COPY_FLOOR_CHECK(cudaSetDevice(0));
    COPY_FLOOR_CHECK(cudaStreamSynchronize(stream));
    std::printf("| %s | %.2f |\n",
                mode == 0 ? "a copy from pinned host memory into GPU 1's word, polled there"
                          : "a host store into mapped host memory, polled by GPU 1",
                median(rt));
  }
  return 0;
}
