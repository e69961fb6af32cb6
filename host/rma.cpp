// Host-initiated RMA and atomics: the host halves of the routines of
// <gshmem/update.h> (see <gshmem/detail/update_host.h>).
//
// A P2P peer's heap is mapped into this process, so a put or get is one
// cudaMemcpyAsync between the caller's buffer and the peer's mapped address,
// and an atomic is a one-thread kernel (device/rma_kernels.cu) doing what
// the device routine does. A remote peer's (docs/remote.md) is a one-thread
// kernel that queues the request for the proxy and waits until it is
// complete (host/remote_ops.h), on the same stream. Everything goes on one stream per PE, created at
// init with cudaStreamNonBlocking: it never waits for the legacy default
// stream, where a user kernel may spin until a host put lands.
//
// Ordering: the stream runs a PE's host operations one at a time in issue
// order (a copy or kernel starts after the previous one completed), which
// is stronger than gshmem_fence asks. Blocking forms synchronize the
// stream; gshmem_quiet (host) synchronizes it; the _nbi forms and the
// non-fetching atomics do neither.
#include <gshmem/detail/state.h>
#include <gshmem/detail/update_host.h>
#include <gshmem/runtime.h>

#include <cuda_runtime_api.h>

#include <cstdint>
#include <mutex>

#include "../src/heap.h"
#include "../src/log.h"
#include "../src/rma_internal.h"
#include "remote_ops.h"
#include "rma_validate.h"
#include "stream_validate.h"

namespace gshmemi {
namespace rma {
namespace {

using stream::HeapRange;
using stream::Verdict;

// Set by init and cleared by finalize, which run while no other routine
// runs (the collective rule of <gshmem/runtime.h>); read by every routine
// after gshmemx_initialized() returned 1, whose atomic flag orders the reads.
struct HostRma {
  int device = -1;
  cudaStream_t stream = nullptr;
  unsigned long long *fetched = nullptr;  // device slot a fetched value passes through
};
HostRma host_rma;
// One fetched value at a time passes through the slot.
std::mutex fetch_mutex;

// Makes the PE's device current for a launch (kernels must go to the
// current device's streams), restoring the caller's device afterwards.
class DeviceScope {
 public:
  explicit DeviceScope(int device) {
    if (cudaGetDevice(&previous_) == cudaSuccess && previous_ != device && cudaSetDevice(device) == cudaSuccess)
      restore_ = true;
  }
  ~DeviceScope() {
    if (restore_) cudaSetDevice(previous_);
  }
  DeviceScope(const DeviceScope &) = delete;
  DeviceScope &operator=(const DeviceScope &) = delete;

 private:
  int previous_ = -1;
  bool restore_ = false;
};

struct Context {
  const gshmemi_device_state_t *state = nullptr;
  HeapRange user_heap;
};

bool report(const char *routine, int pe, Verdict v) {
  if (v.ok()) return true;
  GSHMEMI_ERROR(v.code, "%s (target PE %d): %s", routine, pe, v.problem);
  return false;
}

bool report_cuda(const char *routine, int pe, const char *what, cudaError_t err) {
  if (err == cudaSuccess) return true;
  GSHMEMI_ERROR(GSHMEMX_ERROR_CUDA, "%s (target PE %d): %s failed: %s", routine, pe, what, cudaGetErrorString(err));
  return false;
}

// Init state, then the target PE. Every routine starts here.
bool begin(const char *routine, int pe, Context *ctx) {
  set_last_error(GSHMEM_SUCCESS);
  if (!report(routine, pe, stream::check_initialized(gshmemx_initialized() != 0 && host_rma.stream != nullptr)))
    return false;
  ctx->state = gshmemi_host_state();
  if (ctx->state->heap_size > GSHMEMI_INTERNAL_REGION_BYTES) {
    ctx->user_heap.base = reinterpret_cast<std::uintptr_t>(ctx->state->heap_base) + GSHMEMI_INTERNAL_REGION_BYTES;
    ctx->user_heap.size = ctx->state->heap_size - GSHMEMI_INTERNAL_REGION_BYTES;
  }
  ctx->user_heap.registered = &registered_range;
  return report(routine, pe, stream::check_target(*ctx->state, pe));
}

// The address of symmetric `local` (this PE's heap) as PE `pe`'s copy, mapped here.
template <class P>
P *peer_address(const Context &ctx, P *local, int pe) {
  const char *c = reinterpret_cast<const char *>(local);
  return reinterpret_cast<P *>(ctx.state->peer_base[pe] + (c - ctx.state->heap_base));
}

// Enqueues `launch` (a copy or a kernel, named `what`) on the host RMA
// stream with the PE's device current; a blocking routine then waits for it.
template <class Launch>
void issue(const char *routine, int pe, const char *what, bool blocking, Launch launch) {
  DeviceScope scope(host_rma.device);
  if (!report_cuda(routine, pe, what, launch(host_rma.stream))) return;
  if (blocking) report_cuda(routine, pe, "cudaStreamSynchronize", cudaStreamSynchronize(host_rma.stream));
}

}  // namespace

cudaError_t strided_copy_async(void *dst, const void *src, std::ptrdiff_t dst_pitch, std::ptrdiff_t src_pitch,
                               std::size_t elem_bytes, std::size_t nelems, cudaStream_t stream) {
  if (nelems == 0) return cudaSuccess;
  const std::ptrdiff_t width = (std::ptrdiff_t)elem_bytes;
  if (dst_pitch >= width && src_pitch >= width) {
    const cudaError_t err = cudaMemcpy2DAsync(dst, (size_t)dst_pitch, src, (size_t)src_pitch, elem_bytes, nelems,
                                              cudaMemcpyDefault, stream);
    if (err != cudaErrorInvalidPitchValue && err != cudaErrorInvalidValue) return err;
    (void)cudaGetLastError();  // a pitch the 2D copy refuses: element by element below
  }
  for (std::size_t i = 0; i < nelems; ++i) {
    const cudaError_t err = cudaMemcpyAsync(static_cast<char *>(dst) + (std::ptrdiff_t)i * dst_pitch,
                                            static_cast<const char *>(src) + (std::ptrdiff_t)i * src_pitch,
                                            elem_bytes, cudaMemcpyDefault, stream);
    if (err != cudaSuccess) return err;
  }
  return cudaSuccess;
}

}  // namespace rma
}  // namespace gshmemi

using namespace gshmemi;
using namespace gshmemi::rma;

void gshmemi_host_putmem(void *dest, const void *source, size_t nbytes, int pe, int blocking, const char *routine) {
  Context ctx;
  if (!begin(routine, pe, &ctx)) return;
  if (!report(routine, pe, check_remote(dest, nbytes, 1, ctx.user_heap, "dest")) ||
      !report(routine, pe, check_local(source, nbytes, "source")))
    return;
  if (nbytes == 0) return;
  if (stream::is_remote_target(*ctx.state, pe)) {
    issue(routine, pe, "remote put kernel launch", blocking != 0, [&](cudaStream_t s) {
      return remote_ops::launch_put(dest, source, nbytes, pe, nullptr, 0, 0, s);
    });
    return;
  }
  issue(routine, pe, "cudaMemcpyAsync", blocking != 0, [&](cudaStream_t s) {
    return cudaMemcpyAsync(peer_address(ctx, dest, pe), source, nbytes, cudaMemcpyDefault, s);
  });
}

void gshmemi_host_getmem(void *dest, const void *source, size_t nbytes, int pe, int blocking, const char *routine) {
  Context ctx;
  if (!begin(routine, pe, &ctx)) return;
  if (!report(routine, pe, check_remote(source, nbytes, 1, ctx.user_heap, "source")) ||
      !report(routine, pe, check_local(dest, nbytes, "dest")))
    return;
  if (nbytes == 0) return;
  if (stream::is_remote_target(*ctx.state, pe)) {
    issue(routine, pe, "remote get kernel launch", blocking != 0,
          [&](cudaStream_t s) { return remote_ops::launch_get(dest, source, nbytes, pe, s); });
    return;
  }
  issue(routine, pe, "cudaMemcpyAsync", blocking != 0, [&](cudaStream_t s) {
    return cudaMemcpyAsync(dest, peer_address(ctx, source, pe), nbytes, cudaMemcpyDefault, s);
  });
}

void gshmemi_host_iputmem(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t elem_bytes,
                          size_t nelems, int pe, int blocking, const char *routine) {
  Context ctx;
  if (!begin(routine, pe, &ctx)) return;
  if (!report(routine, pe, check_remote_strided(dest, dst, elem_bytes, nelems, ctx.user_heap, "dest")) ||
      !report(routine, pe, check_local(source, nelems, "source")))
    return;
  if (nelems == 0) return;
  const ptrdiff_t dst_pitch = dst * (ptrdiff_t)elem_bytes, src_pitch = sst * (ptrdiff_t)elem_bytes;
  if (stream::is_remote_target(*ctx.state, pe)) {
    // One request per element (correct, slow), in element order on the stream.
    issue(routine, pe, "remote put kernel launch", blocking != 0, [&](cudaStream_t s) {
      for (size_t i = 0; i < nelems; ++i) {
        const cudaError_t err = remote_ops::launch_put(static_cast<char *>(dest) + (ptrdiff_t)i * dst_pitch,
                                                       static_cast<const char *>(source) + (ptrdiff_t)i * src_pitch,
                                                       elem_bytes, pe, nullptr, 0, 0, s);
        if (err != cudaSuccess) return err;
      }
      return cudaSuccess;
    });
    return;
  }
  issue(routine, pe, "strided copy", blocking != 0, [&](cudaStream_t s) {
    return strided_copy_async(peer_address(ctx, dest, pe), source, dst_pitch, src_pitch, elem_bytes, nelems, s);
  });
}

void gshmemi_host_igetmem(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t elem_bytes,
                          size_t nelems, int pe, int blocking, const char *routine) {
  Context ctx;
  if (!begin(routine, pe, &ctx)) return;
  if (!report(routine, pe, check_remote_strided(source, sst, elem_bytes, nelems, ctx.user_heap, "source")) ||
      !report(routine, pe, check_local(dest, nelems, "dest")))
    return;
  if (nelems == 0) return;
  const ptrdiff_t dst_pitch = dst * (ptrdiff_t)elem_bytes, src_pitch = sst * (ptrdiff_t)elem_bytes;
  if (stream::is_remote_target(*ctx.state, pe)) {
    issue(routine, pe, "remote get kernel launch", blocking != 0, [&](cudaStream_t s) {
      for (size_t i = 0; i < nelems; ++i) {
        const cudaError_t err = remote_ops::launch_get(static_cast<char *>(dest) + (ptrdiff_t)i * dst_pitch,
                                                       static_cast<const char *>(source) + (ptrdiff_t)i * src_pitch,
                                                       elem_bytes, pe, s);
        if (err != cudaSuccess) return err;
      }
      return cudaSuccess;
    });
    return;
  }
  issue(routine, pe, "strided copy", blocking != 0, [&](cudaStream_t s) {
    return strided_copy_async(dest, peer_address(ctx, source, pe), dst_pitch, src_pitch, elem_bytes, nelems, s);
  });
}

void gshmemi_host_amo(void *dest, size_t size, int op, uint64_t operand, uint64_t cond, int pe, uint64_t *fetched,
                      const char *routine) {
  if (fetched) *fetched = 0;
  Context ctx;
  if (!begin(routine, pe, &ctx)) return;
  if (!report(routine, pe, check_amo(op, size)) ||
      !report(routine, pe, check_remote(dest, size, size, ctx.user_heap, "dest")))
    return;
  // A remote peer: the same operation as a request to the proxy (host/remote_ops.h).
  const bool remote = stream::is_remote_target(*ctx.state, pe);
  auto launch = [&](unsigned long long *result) {
    return remote ? remote_ops::launch_amo(dest, size, op, operand, cond, pe, result, host_rma.stream)
                  : launch_amo(peer_address(ctx, dest, pe), size, op, operand, cond, result, host_rma.stream);
  };
  DeviceScope scope(host_rma.device);
  if (!fetched) {
    report_cuda(routine, pe, "atomic kernel launch", launch(nullptr));
    return;
  }
  std::lock_guard<std::mutex> lock(fetch_mutex);
  unsigned long long old = 0;
  if (!report_cuda(routine, pe, "atomic kernel launch", launch(host_rma.fetched)) ||
      !report_cuda(routine, pe, "cudaMemcpyAsync",
                   cudaMemcpyAsync(&old, host_rma.fetched, sizeof(old), cudaMemcpyDeviceToHost, host_rma.stream)) ||
      !report_cuda(routine, pe, "cudaStreamSynchronize", cudaStreamSynchronize(host_rma.stream)))
    return;
  *fetched = old;
}

int gshmemi_host_rma_init(void) {
  const gshmemi_device_state_t *state = gshmemi_host_state();
  if (state->heap_base == nullptr)
    return GSHMEMI_ERROR(GSHMEMX_ERROR_INTERNAL, "gshmemi_host_rma_init: the heap does not exist yet");
  GSHMEMI_CUDA_CHECK(gshmemi::rma::preload_kernels());
  GSHMEMI_CUDA_CHECK(gshmemi::remote_ops::preload_kernels());
  int device = -1;
  GSHMEMI_CUDA_CHECK(cudaGetDevice(&device));
  HostRma made;
  made.device = device;
  GSHMEMI_CUDA_CHECK(cudaStreamCreateWithFlags(&made.stream, cudaStreamNonBlocking));
  const cudaError_t err = cudaMalloc(reinterpret_cast<void **>(&made.fetched), sizeof(unsigned long long));
  if (err != cudaSuccess) {
    cudaStreamDestroy(made.stream);
    return GSHMEMI_ERROR(GSHMEMX_ERROR_CUDA, "allocating the host atomics' result slot failed: %s",
                         cudaGetErrorString(err));
  }
  host_rma = made;
  return GSHMEM_SUCCESS;
}

void gshmemi_host_rma_finalize(void) {
  if (!host_rma.stream) return;
  DeviceScope scope(host_rma.device);
  const cudaError_t err = cudaStreamSynchronize(host_rma.stream);
  if (err != cudaSuccess)
    GSHMEMI_ERROR(GSHMEMX_ERROR_CUDA, "host RMA still pending at finalize failed: %s", cudaGetErrorString(err));
  cudaStreamDestroy(host_rma.stream);
  cudaFree(host_rma.fetched);
  host_rma = HostRma{};
}

int gshmemi_host_rma_quiet(void) {
  if (!host_rma.stream) return GSHMEM_SUCCESS;
  const cudaError_t err = cudaStreamSynchronize(host_rma.stream);
  if (err != cudaSuccess)
    return GSHMEMI_ERROR(GSHMEMX_ERROR_CUDA, "gshmem_quiet: completing host RMA failed: %s", cudaGetErrorString(err));
  return GSHMEM_SUCCESS;
}
