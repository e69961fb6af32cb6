// Device-side producers of the proxy queue, compiled into the CPU test binary
// so that every build checks the header compiles for the GPU (its host
// side runs in proxy_queue_test.cpp). The kernels are the two issue shapes
// the device API will use: one thread, one request; and a warp that takes
// its lanes' tickets with one fetch_add. A GPU test can launch them as they
// are, with the queue in mapped host memory and a host thread consuming.
#include <gshmem/detail/proxy_queue.h>
#include <gshmem/types.h>

namespace gd = gshmem::detail;

__global__ void proxy_queue_thread_producer(gd::proxy_queue q, int pe, unsigned long long per_thread) {
  const unsigned id = blockIdx.x * blockDim.x + threadIdx.x;
  for (unsigned long long i = 0; i < per_thread; ++i) {
    gd::proxy_request r{};
    r.op = gd::proxy_op_put_inline;
    r.pe = pe;
    r.bytes = 8;
    r.remote = (id * per_thread + i) * 8;
    r.value = ((unsigned long long)id << 32) | i;
    r.flags = id;
    gd::proxy_issue(q, r);
  }
  // quiet: everything this thread issued (and more) carried out.
  gd::proxy_wait_completed(q, gd::proxy_quiet_target(q));
}

__global__ void proxy_queue_warp_producer(gd::proxy_queue q, int pe) {
  const unsigned mask = __activemask();
  const int lane = threadIdx.x & 31;
  const int leader = __ffs(mask) - 1;
  const unsigned long long n = (unsigned long long)__popc(mask);
  unsigned long long base = 0;
  if (lane == leader) base = gd::proxy_reserve(q, n);
  base = __shfl_sync(mask, base, leader);
  const unsigned long long ticket = base + (unsigned long long)__popc(mask & ((1u << lane) - 1));
  gd::proxy_request r{};
  r.op = gd::proxy_op_signal;
  r.pe = pe;
  r.remote = 64;
  r.value = 1;
  r.sub_op = GSHMEM_SIGNAL_ADD;
  r.flags = blockIdx.x * blockDim.x + threadIdx.x;
  if (gd::proxy_wait_slot(q, ticket)) gd::proxy_publish(q, ticket, r);
}
