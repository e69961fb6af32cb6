// Host on-stream routines (<gshmem/stream.h>): argument checks, the choice
// between a stream memory operation and a kernel, and the enqueue.
//
// Stream memory operations come from the driver through
// cudaGetDriverEntryPoint (libgshmem does not link libcuda).
//
// Ordering of a memop wait: the updater's release store/atomic makes its
// earlier writes reach this GPU's memory before the flag does; the wait
// completes only after the flag is in memory, and work after it on the stream
// starts later, reading from the same memory. Where the platform supports it
// (CU_DEVICE_ATTRIBUTE_CAN_FLUSH_REMOTE_WRITES) the wait also carries
// CU_STREAM_WAIT_VALUE_FLUSH, which makes writes that reached the device
// before the wait visible to downstream work even if the device reordered
// them internally. The pipeline litmus of tests/stream checks this ordering.
//
// Ordering of a memop signal (SET): cuStreamWriteValue64 without
// CU_STREAM_WRITE_VALUE_NO_MEMORY_BARRIER issues a system-wide memory fence
// scoped to the stream before the write: a release of the stream's earlier work.
#include <gshmem/detail/state.h>
#include <gshmem/runtime.h>
#include <gshmem/stream.h>

#include <cuda.h>
#include <unistd.h>
#include <cuda_runtime_api.h>

#include <atomic>
#include <string>
#include <cstddef>
#include <cstring>
#include <deque>
#include <mutex>
#include <type_traits>

#include "../src/cuda_util.h"
#include "../src/env.h"
#include "../src/heap.h"
#include "../src/log.h"
#include "../src/rma_internal.h"
#include "../src/stream_internal.h"
#include "remote_ops.h"
#include "rma_validate.h"
#include "stream_mapping.h"
#include "stream_validate.h"

namespace gshmemi {
namespace stream {
namespace {

// ------------------------------------------------------------ driver access

using WaitValue32Fn = CUresult (*)(CUstream, CUdeviceptr, cuuint32_t, unsigned int);
using WaitValue64Fn = CUresult (*)(CUstream, CUdeviceptr, cuuint64_t, unsigned int);
using WriteValue64Fn = CUresult (*)(CUstream, CUdeviceptr, cuuint64_t, unsigned int);
using DeviceGetFn = CUresult (*)(CUdevice *, int);
using DeviceGetAttributeFn = CUresult (*)(int *, CUdevice_attribute, CUdevice);

struct DriverApi {
  WaitValue32Fn wait32 = nullptr;
  WaitValue64Fn wait64 = nullptr;
  WriteValue64Fn write64 = nullptr;
  DeviceGetFn device_get = nullptr;
  DeviceGetAttributeFn device_attribute = nullptr;
};

void *driver_symbol(const char *name) {
  void *fn = gshmemi::driver_entry_point(name);
  if (!fn) GSHMEMI_INFO("driver entry point %s not available: on-stream waits use kernels", name);
  return fn;
}

const DriverApi &driver() {
  static DriverApi api;
  static std::once_flag once;
  std::call_once(once, [] {
    api.wait32 = reinterpret_cast<WaitValue32Fn>(driver_symbol("cuStreamWaitValue32"));
    api.wait64 = reinterpret_cast<WaitValue64Fn>(driver_symbol("cuStreamWaitValue64"));
    api.write64 = reinterpret_cast<WriteValue64Fn>(driver_symbol("cuStreamWriteValue64"));
    api.device_get = reinterpret_cast<DeviceGetFn>(driver_symbol("cuDeviceGet"));
    api.device_attribute = reinterpret_cast<DeviceGetAttributeFn>(driver_symbol("cuDeviceGetAttribute"));
  });
  return api;
}

// What the heap's device supports; found once per heap (init).
struct DeviceCaps {
  const char *heap_base = nullptr;  // the heap these were found for
  int device = -1;
  MemopSupport wait;
  bool write64 = false;
  bool flush_remote_writes = false;
  // GSHMEM_STREAM_OPS=auto: while the stream is being captured, signal_op
  // and the waits run as kernels rather than memops (measured: docs/python.md).
  bool kernels_when_capturing = false;
  // GSHMEM_STREAM_OPS=memops: the on-stream syncs of teams of any size as
  // memops (otherwise of 2 members at most: gshmemi_stream_memop_sync_members).
  bool memop_sync_any_size = false;
};

// Every routine reads the caps: the hot path is one acquire load of
// `caps_published` (immutable once published); the mutex only serializes
// finding them. A re-init (new heap) publishes a new record; old records stay
// alive (one per init) so a reader never sees freed memory.
std::mutex caps_mutex;
DeviceCaps caps_cache;                                   // guarded by caps_mutex
std::atomic<const DeviceCaps *> caps_published{nullptr};
std::deque<DeviceCaps> caps_records;                     // guarded by caps_mutex

void publish_caps_locked() {
  caps_records.push_back(caps_cache);
  caps_published.store(&caps_records.back(), std::memory_order_release);
}

int device_attribute(const DriverApi &api, CUdevice dev, CUdevice_attribute attr) {
  int value = 0;
  if (!api.device_attribute || api.device_attribute(&value, attr, dev) != CUDA_SUCCESS) return 0;
  return value;
}

int find_caps(const char *heap_base, DeviceCaps *out) {
  DeviceCaps caps;
  caps.heap_base = heap_base;
  cudaPointerAttributes attr{};
  GSHMEMI_CUDA_CHECK(cudaPointerGetAttributes(&attr, heap_base));
  caps.device = attr.device;
  const DriverApi &api = driver();
  CUdevice dev = 0;
  const bool have_dev = api.device_get && api.device_get(&dev, caps.device) == CUDA_SUCCESS;
  // Since CUDA 12 stream memops are always available; 64-bit ones and NOR are per device.
  caps.wait.wait32 = have_dev && api.wait32;
  caps.wait.wait64 = have_dev && api.wait64 && device_attribute(api, dev, CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS);
  caps.wait.nor = have_dev && device_attribute(api, dev, CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_WAIT_VALUE_NOR);
  caps.write64 = have_dev && api.write64 && device_attribute(api, dev, CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS);
  caps.flush_remote_writes = have_dev && device_attribute(api, dev, CU_DEVICE_ATTRIBUTE_CAN_FLUSH_REMOTE_WRITES);
  // GSHMEM_STREAM_OPS=kernels: no stream memory operation at all, every
  // wait, signal and barrier a kernel (the paths taken where the device
  // lacks a memop).
  StreamOps ops = StreamOps::automatic;
  if (!parse_stream_ops(env().STREAM_OPS.c_str(), &ops))
    return GSHMEMI_ERROR(GSHMEMX_ERROR_ENVIRONMENT, "GSHMEM_STREAM_OPS='%s': expected auto, memops or kernels",
                         env().STREAM_OPS.c_str());
  if (ops == StreamOps::kernels) {
    caps.wait.wait32 = caps.wait.wait64 = caps.wait.nor = false;
    caps.write64 = false;
  }
  caps.kernels_when_capturing = ops == StreamOps::automatic;
  caps.memop_sync_any_size = ops == StreamOps::memops;
  GSHMEMI_INFO("on-stream: device %d memops wait32=%d wait64=%d nor=%d write64=%d flush=%d", caps.device,
               caps.wait.wait32, caps.wait.wait64, caps.wait.nor, caps.write64, caps.flush_remote_writes);
  *out = caps;
  return GSHMEM_SUCCESS;
}

int current_caps(const char *heap_base, const DeviceCaps **out) {
  const DeviceCaps *caps = caps_published.load(std::memory_order_acquire);
  if (caps && caps->heap_base == heap_base) {
    *out = caps;
    return GSHMEM_SUCCESS;
  }
  std::lock_guard<std::mutex> lock(caps_mutex);
  if (caps_cache.heap_base != heap_base) {
    GSHMEMI_CHECK(find_caps(heap_base, &caps_cache));
    publish_caps_locked();
  }
  *out = caps_published.load(std::memory_order_acquire);
  return GSHMEM_SUCCESS;
}

// ------------------------------------------------------------ common checks

struct Context {
  const gshmemi_device_state_t *state = nullptr;
  HeapRange user_heap;
  DeviceCaps caps;  // a copy: a few words, cheaper than keeping the record pinned
  cudaStream_t stream = nullptr;
  // Whether `stream` is being captured: asked only where the answer picks
  // the path (GSHMEM_STREAM_OPS=auto, and a memop is the choice outside
  // capture), at most once a call: cudaStreamIsCapturing costs a few tenths
  // of a microsecond of host time, which a kernel's launch need not pay
  // (measured: the set waits' enqueue, bench_ab against the tree before auto).
  mutable int capturing = -1;  // -1: not asked yet
};

// Whether ctx's stream is being captured (asked once a call; a stream the
// query refuses counts as not captured: the enqueue that follows reports it).
bool capturing(const Context &ctx) {
  if (ctx.capturing < 0) {
    cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
    if (cudaStreamIsCapturing(ctx.stream, &status) != cudaSuccess) (void)cudaGetLastError();
    ctx.capturing = status != cudaStreamCaptureStatusNone ? 1 : 0;
  }
  return ctx.capturing == 1;
}

// True when GSHMEM_STREAM_OPS=auto and ctx's stream is being captured.
bool kernels_for_capture(const Context &ctx) { return ctx.caps.kernels_when_capturing && capturing(ctx); }

bool report(const char *fn, Verdict v) {
  if (v.ok()) return true;
  GSHMEMI_ERROR(v.code, "%s: %s", fn, v.problem);
  return false;
}

bool report_cuda(const char *fn, const char *what, cudaError_t err) {
  if (err == cudaSuccess) return true;
  GSHMEMI_ERROR(GSHMEMX_ERROR_CUDA, "%s: %s failed: %s", fn, what, cudaGetErrorString(err));
  return false;
}

bool report_driver(const char *fn, const char *what, CUresult res) {
  if (res == CUDA_SUCCESS) return true;
  GSHMEMI_ERROR(GSHMEMX_ERROR_CUDA, "%s: %s failed: CUresult %d", fn, what, (int)res);
  return false;
}

// The last stream this host thread checked against the heap's device. A
// created stream keeps its device for life, so a routine called again on
// the same stream skips the two runtime queries (about a quarter of a
// memop wait's host cost). The special handles (0, cudaStreamLegacy,
// cudaStreamPerThread) follow the current device and are checked on every
// call. A destroyed stream whose handle comes back for a stream of another
// device is not caught here; the launch on it then fails and is reported.
struct CheckedStream {
  cudaStream_t stream = nullptr;
  const DeviceCaps *caps = nullptr;  // the heap record it was checked against
};
thread_local CheckedStream last_checked_stream;

bool is_special_stream(cudaStream_t s) {
  return s == nullptr || s == cudaStreamLegacy || s == cudaStreamPerThread;
}

// Init, then the stream's device. Every routine starts here.
bool begin(const char *fn, cudaStream_t stream, Context *ctx) {
  if (!report(fn, check_initialized(gshmemx_initialized() != 0))) return false;
  ctx->state = gshmemi_host_state();
  if (ctx->state->heap_size > GSHMEMI_INTERNAL_REGION_BYTES) {
    ctx->user_heap.base = reinterpret_cast<std::uintptr_t>(ctx->state->heap_base) + GSHMEMI_INTERNAL_REGION_BYTES;
    ctx->user_heap.size = ctx->state->heap_size - GSHMEMI_INTERNAL_REGION_BYTES;
  }
  ctx->user_heap.registered = &registered_range;
  const DeviceCaps *caps = nullptr;
  if (current_caps(ctx->state->heap_base, &caps) != GSHMEM_SUCCESS) return false;
  ctx->caps = *caps;
  ctx->stream = stream;
  if (!is_special_stream(stream) && last_checked_stream.stream == stream && last_checked_stream.caps == caps)
    return true;
#if CUDART_VERSION >= 12080
  // While a stream is being captured, queries such as cudaStreamGetDevice are
  // refused (global capture mode) and would invalidate the capture; a graph
  // is checked against its device when it is instantiated and launched.
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  if (cudaStreamIsCapturing(stream, &capture) != cudaSuccess) {
    (void)cudaGetLastError();
    capture = cudaStreamCaptureStatusNone;
  }
  if (capture == cudaStreamCaptureStatusNone) {
    int stream_device = -1;
    if (!report_cuda(fn, "cudaStreamGetDevice", cudaStreamGetDevice(stream, &stream_device))) return false;
    if (!report(fn, check_stream_device(stream_device, ctx->caps.device))) return false;
    if (!is_special_stream(stream)) last_checked_stream = CheckedStream{stream, caps};
  }
#else
  (void)stream;  // older runtimes cannot name a stream's device; a foreign stream fails at launch
#endif
  return true;
}

// ------------------------------------------------------------ waits

template <class T>
using WaitUntilLauncher = cudaError_t (*)(T *, int, T, cudaStream_t);
template <class T>
using WaitSetLauncher = cudaError_t (*)(SetKind, T *, size_t, const int *, int, T, const T *, size_t *, size_t *,
                                        cudaStream_t);

template <class T>
std::uint64_t bits_of(T v) {
  return static_cast<std::uint64_t>(static_cast<std::make_unsigned_t<T>>(v));
}

// Set once any memop wait was enqueued (see gshmemi_stream_end_device_work).
std::atomic<bool> memop_waits_enqueued{false};

void note_memop_wait() {
  if (!memop_waits_enqueued.load(std::memory_order_relaxed)) memop_waits_enqueued.store(true);
}

bool enqueue_memop_wait(const char *fn, const void *addr, const WaitMapping &m, const DeviceCaps &caps,
                        cudaStream_t stream) {
  note_memop_wait();
  const DriverApi &api = driver();
  unsigned flags = static_cast<unsigned>(m.condition);
  if (caps.flush_remote_writes) flags |= CU_STREAM_WAIT_VALUE_FLUSH;
  const CUdeviceptr p = reinterpret_cast<CUdeviceptr>(addr);
  if (m.width_bits == 32)
    return report_driver(fn, "cuStreamWaitValue32", api.wait32(stream, p, static_cast<cuuint32_t>(m.operand), flags));
  return report_driver(fn, "cuStreamWaitValue64", api.wait64(stream, p, m.operand, flags));
}

template <class T>
void wait_until_impl(const char *fn, T *ivar, int cmp, T value, cudaStream_t stream, WaitUntilLauncher<T> launch) {
  Context ctx;
  if (!begin(fn, stream, &ctx)) return;
  if (!report(fn, check_cmp(cmp)) || !report(fn, check_ivar(ivar, sizeof(T), ctx.user_heap))) return;
  const WaitMapping m = map_wait(cmp, sizeof(T), std::is_signed<T>::value, bits_of(value), ctx.caps.wait);
  switch (m.plan) {
    case WaitPlan::no_wait: return;  // every value satisfies it: nothing to wait for
    case WaitPlan::memop:
      if (kernels_for_capture(ctx)) break;  // GSHMEM_STREAM_OPS=auto in a graph: the kernel
      enqueue_memop_wait(fn, ivar, m, ctx.caps, stream);
      return;
    case WaitPlan::never_true:
      GSHMEMI_WARN("%s: no value satisfies cmp %d with this cmp_value: the stream waits until GSHMEM_WAIT_TIMEOUT", fn, cmp);
      break;
    case WaitPlan::invalid_cmp: return;  // rejected above
    case WaitPlan::kernel: break;
  }
  report_cuda(fn, "wait kernel launch", launch(ivar, cmp, value, stream));
}

template <class T>
void wait_set_impl(const char *fn, SetKind kind, T *ivars, size_t nelems, const int *status, int cmp, T value,
                   const T *values, bool vector, size_t *indices, size_t *out, cudaStream_t stream,
                   WaitSetLauncher<T> launch) {
  Context ctx;
  if (!begin(fn, stream, &ctx)) return;
  if (!report(fn, check_cmp(cmp)) || !report(fn, check_ivars(ivars, nelems, sizeof(T), ctx.user_heap))) return;
  if (!report(fn, check_device_array(status, status ? nelems : 0, alignof(int), "", "status is misaligned"))) return;
  if (vector && !report(fn, check_device_array(values, nelems, alignof(T), "cmp_values is NULL with nelems > 0",
                                               "cmp_values is misaligned")))
    return;
  if (kind == SetKind::some &&
      !report(fn, check_device_array(indices, nelems, alignof(size_t), "indices is NULL with nelems > 0",
                                     "indices is misaligned")))
    return;
  if (kind != SetKind::all &&
      !report(fn, check_device_array(out, 1, alignof(size_t),
                                     kind == SetKind::any ? "result is NULL" : "nresult is NULL",
                                     kind == SetKind::any ? "result is misaligned" : "nresult is misaligned")))
    return;
  if (kind == SetKind::all && nelems == 0) return;  // empty set: satisfied at once, nothing to write
  report_cuda(fn, "wait kernel launch",
              launch(kind, ivars, nelems, status, cmp, value, vector ? values : nullptr, indices, out, stream));
}

// ------------------------------------------------------------ updates

// The address of symmetric `local` (this PE's heap) as PE `pe`'s copy, mapped here.
template <class P>
P *peer_address(const Context &ctx, P *local, int pe) {
  const char *c = reinterpret_cast<const char *>(local);
  return reinterpret_cast<P *>(ctx.state->peer_base[pe] + (c - ctx.state->heap_base));
}

bool check_signal_args(const char *fn, const Context &ctx, std::uint64_t *sig_addr, int sig_op, int pe) {
  return report(fn, check_sig_op(sig_op)) &&
         report(fn, check_ivar(sig_addr, sizeof(std::uint64_t), ctx.user_heap)) &&
         report(fn, check_target(*ctx.state, pe));
}

// after_copy: put_signal's signal, behind its data copy; there the memop
// stays in graphs too (measured faster than a kernel after the copy).
void enqueue_signal(const char *fn, const Context &ctx, std::uint64_t *sig_addr, std::uint64_t signal, int sig_op,
                    int pe, cudaStream_t stream, bool after_copy = false) {
  if (is_remote_target(*ctx.state, pe)) {
    report_cuda(fn, "remote signal kernel launch",
                remote_ops::launch_put(sig_addr, nullptr, 0, pe, sig_addr, signal, sig_op, stream));
    return;
  }
  std::uint64_t *target = peer_address(ctx, sig_addr, pe);
  if (sig_op == GSHMEM_SIGNAL_SET && ctx.caps.write64 && (after_copy || !kernels_for_capture(ctx))) {
    // Default flags: a stream-scoped system fence precedes the write (release).
    report_driver(fn, "cuStreamWriteValue64",
                  driver().write64(stream, reinterpret_cast<CUdeviceptr>(target), signal, CU_STREAM_WRITE_VALUE_DEFAULT));
    return;
  }
  report_cuda(fn, "signal kernel launch", launch_signal(target, signal, sig_op, stream));
}

void put_signal_impl(const char *fn, void *dest, const void *source, size_t nelems, size_t elem_size,
                     std::uint64_t *sig_addr, std::uint64_t signal, int sig_op, int pe, cudaStream_t stream) {
  Context ctx;
  if (!begin(fn, stream, &ctx)) return;
  if (!check_signal_args(fn, ctx, sig_addr, sig_op, pe)) return;
  if (!report(fn, check_symmetric_array(dest, nelems, elem_size, elem_size, ctx.user_heap, "dest is NULL with nelems > 0",
                                        "dest[0..nelems) is not inside the symmetric heap",
                                        "dest is not aligned to its type's size")))
    return;
  if (!report(fn, check_device_array(source, nelems, 1, "source is NULL with nelems > 0", ""))) return;
  if (is_remote_target(*ctx.state, pe)) {  // one request: the data, then the signal (docs/remote.md, P2)
    report_cuda(fn, "remote put kernel launch",
                remote_ops::launch_put(dest, source, nelems * elem_size, pe, sig_addr, signal, sig_op, stream));
    return;
  }
  if (nelems > 0 &&
      !report_cuda(fn, "cudaMemcpyAsync",
                   cudaMemcpyAsync(peer_address(ctx, dest, pe), source, nelems * elem_size, cudaMemcpyDefault, stream)))
    return;
  enqueue_signal(fn, ctx, sig_addr, signal, sig_op, pe, stream, true);
}

// ------------------------------------------------------------ RMA

bool report_pe(const char *fn, int pe, Verdict v) {
  if (v.ok()) return true;
  GSHMEMI_ERROR(v.code, "%s (target PE %d): %s", fn, pe, v.problem);
  return false;
}

bool check_target_pe(const char *fn, const Context &ctx, int pe) {
  return report_pe(fn, pe, check_target(*ctx.state, pe));
}

// `remote`: nelems objects in the symmetric heap (the peer's copy moves).
bool check_remote_array(const char *fn, const Context &ctx, int pe, const void *remote, size_t nelems,
                        size_t elem_size, bool is_dest) {
  return report_pe(fn, pe,
                   check_symmetric_array(remote, nelems, elem_size, elem_size, ctx.user_heap,
                                         is_dest ? "dest is NULL with nelems > 0" : "source is NULL with nelems > 0",
                                         is_dest ? "dest[0..nelems) is not inside the symmetric heap"
                                                 : "source[0..nelems) is not inside the symmetric heap",
                                         is_dest ? "dest is not aligned to its type's size"
                                                 : "source is not aligned to its type's size"));
}

void put_impl(const char *fn, void *dest, const void *source, size_t nelems, size_t elem_size, int pe,
              cudaStream_t stream) {
  Context ctx;
  if (!begin(fn, stream, &ctx) || !check_target_pe(fn, ctx, pe) ||
      !check_remote_array(fn, ctx, pe, dest, nelems, elem_size, true) ||
      !report_pe(fn, pe, check_device_array(source, nelems, 1, "source is NULL with nelems > 0", "")))
    return;
  if (nelems == 0) return;
  if (is_remote_target(*ctx.state, pe)) {
    report_cuda(fn, "remote put kernel launch",
                remote_ops::launch_put(dest, source, nelems * elem_size, pe, nullptr, 0, 0, stream));
    return;
  }
  report_cuda(fn, "cudaMemcpyAsync",
              cudaMemcpyAsync(peer_address(ctx, dest, pe), source, nelems * elem_size, cudaMemcpyDefault, stream));
}

void get_impl(const char *fn, void *dest, const void *source, size_t nelems, size_t elem_size, int pe,
              cudaStream_t stream) {
  Context ctx;
  if (!begin(fn, stream, &ctx) || !check_target_pe(fn, ctx, pe) ||
      !check_remote_array(fn, ctx, pe, source, nelems, elem_size, false) ||
      !report_pe(fn, pe, check_device_array(dest, nelems, 1, "dest is NULL with nelems > 0", "")))
    return;
  if (nelems == 0) return;
  if (is_remote_target(*ctx.state, pe)) {
    report_cuda(fn, "remote get kernel launch", remote_ops::launch_get(dest, source, nelems * elem_size, pe, stream));
    return;
  }
  report_cuda(fn, "cudaMemcpyAsync",
              cudaMemcpyAsync(dest, peer_address(ctx, source, pe), nelems * elem_size, cudaMemcpyDefault, stream));
}

// Strided: the symmetric side's span checked as the host iput / iget do
// (rma_validate.h), then one strided copy, or one request per element for
// a remote peer.
void iput_impl(const char *fn, void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems,
               size_t elem_size, int pe, cudaStream_t stream) {
  Context ctx;
  if (!begin(fn, stream, &ctx) || !check_target_pe(fn, ctx, pe) ||
      !report_pe(fn, pe, gshmemi::rma::check_remote_strided(dest, dst, elem_size, nelems, ctx.user_heap, "dest")) ||
      !report_pe(fn, pe, check_device_array(source, nelems, 1, "source is NULL with nelems > 0", "")))
    return;
  if (nelems == 0) return;
  const ptrdiff_t dst_pitch = dst * (ptrdiff_t)elem_size, src_pitch = sst * (ptrdiff_t)elem_size;
  if (is_remote_target(*ctx.state, pe)) {
    for (size_t i = 0; i < nelems; ++i)
      if (!report_cuda(fn, "remote put kernel launch",
                       remote_ops::launch_put(static_cast<char *>(dest) + (ptrdiff_t)i * dst_pitch,
                                              static_cast<const char *>(source) + (ptrdiff_t)i * src_pitch, elem_size,
                                              pe, nullptr, 0, 0, stream)))
        return;
    return;
  }
  report_cuda(fn, "strided copy",
              gshmemi::rma::strided_copy_async(peer_address(ctx, dest, pe), source, dst_pitch, src_pitch, elem_size,
                                               nelems, stream));
}

void iget_impl(const char *fn, void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems,
               size_t elem_size, int pe, cudaStream_t stream) {
  Context ctx;
  if (!begin(fn, stream, &ctx) || !check_target_pe(fn, ctx, pe) ||
      !report_pe(fn, pe, gshmemi::rma::check_remote_strided(source, sst, elem_size, nelems, ctx.user_heap, "source")) ||
      !report_pe(fn, pe, check_device_array(dest, nelems, 1, "dest is NULL with nelems > 0", "")))
    return;
  if (nelems == 0) return;
  const ptrdiff_t dst_pitch = dst * (ptrdiff_t)elem_size, src_pitch = sst * (ptrdiff_t)elem_size;
  if (is_remote_target(*ctx.state, pe)) {
    for (size_t i = 0; i < nelems; ++i)
      if (!report_cuda(fn, "remote get kernel launch",
                       remote_ops::launch_get(static_cast<char *>(dest) + (ptrdiff_t)i * dst_pitch,
                                              static_cast<const char *>(source) + (ptrdiff_t)i * src_pitch, elem_size,
                                              pe, stream)))
        return;
    return;
  }
  report_cuda(fn, "strided copy",
              gshmemi::rma::strided_copy_async(dest, peer_address(ctx, source, pe), dst_pitch, src_pitch, elem_size,
                                               nelems, stream));
}

template <class T>
void p_impl(const char *fn, T *dest, T value, int pe, cudaStream_t stream) {
  Context ctx;
  if (!begin(fn, stream, &ctx) || !check_target_pe(fn, ctx, pe) || !check_remote_array(fn, ctx, pe, dest, 1, sizeof(T), true))
    return;
  if (is_remote_target(*ctx.state, pe)) {
    // The value is in this call's frame (host memory): launch_put reads it now and it travels inline.
    report_cuda(fn, "remote put kernel launch", remote_ops::launch_put(dest, &value, sizeof(T), pe, nullptr, 0, 0, stream));
    return;
  }
  std::uint64_t bits = 0;
  std::memcpy(&bits, &value, sizeof(T));  // the low bytes on little-endian hosts
  report_cuda(fn, "store kernel launch", gshmemi::rma::launch_store(peer_address(ctx, dest, pe), sizeof(T), bits, stream));
}

template <class T>
T g_impl(const char *fn, const T *source, int pe, cudaStream_t stream) {
  T value;
  std::memset(&value, 0, sizeof(T));
  Context ctx;
  if (!begin(fn, stream, &ctx) || !check_target_pe(fn, ctx, pe) ||
      !check_remote_array(fn, ctx, pe, source, 1, sizeof(T), false))
    return value;
  T fetched;
  const bool remote = is_remote_target(*ctx.state, pe);
  const cudaError_t issued =
      remote ? remote_ops::launch_get(&fetched, source, sizeof(T), pe, stream)  // the proxy writes `fetched`
             : cudaMemcpyAsync(&fetched, peer_address(ctx, source, pe), sizeof(T), cudaMemcpyDefault, stream);
  if (!report_cuda(fn, remote ? "remote get kernel launch" : "cudaMemcpyAsync", issued) ||
      !report_cuda(fn, "cudaStreamSynchronize", cudaStreamSynchronize(stream)))
    return value;
  return fetched;
}

}  // namespace
}  // namespace stream
}  // namespace gshmemi

using namespace gshmemi::stream;

// ------------------------------------------------------------ C entry points

#define GSHMEMI_DEFINE_STREAM_WAITS(TYPENAME, TYPE)                                                       \
  void gshmemx_##TYPENAME##_wait_until_on_stream(TYPE *ivar, int cmp, TYPE cmp_value, cudaStream_t stream) { \
    wait_until_impl<TYPE>(__func__, ivar, cmp, cmp_value, stream, &launch_wait_until_##TYPENAME);         \
  }                                                                                                       \
  void gshmemx_##TYPENAME##_wait_on_stream(TYPE *ivar, TYPE cmp_value, cudaStream_t stream) {             \
    wait_until_impl<TYPE>(__func__, ivar, GSHMEM_CMP_NE, cmp_value, stream, &launch_wait_until_##TYPENAME); \
  }                                                                                                       \
  void gshmemx_##TYPENAME##_wait_until_all_on_stream(TYPE *ivars, size_t nelems, const int *status,       \
                                                     int cmp, TYPE cmp_value, cudaStream_t stream) {      \
    wait_set_impl<TYPE>(__func__, SetKind::all, ivars, nelems, status, cmp, cmp_value, nullptr, false,    \
                        nullptr, nullptr, stream, &launch_wait_set_##TYPENAME);                           \
  }                                                                                                       \
  void gshmemx_##TYPENAME##_wait_until_all_vector_on_stream(TYPE *ivars, size_t nelems,                  \
                                                            const int *status, int cmp,                  \
                                                            const TYPE *cmp_values, cudaStream_t stream) { \
    wait_set_impl<TYPE>(__func__, SetKind::all, ivars, nelems, status, cmp, static_cast<TYPE>(0), cmp_values, true,     \
                        nullptr, nullptr, stream, &launch_wait_set_##TYPENAME);                           \
  }                                                                                                       \
  void gshmemx_##TYPENAME##_wait_until_any_on_stream(TYPE *ivars, size_t nelems, const int *status,       \
                                                     int cmp, TYPE cmp_value, size_t *result,            \
                                                     cudaStream_t stream) {                              \
    wait_set_impl<TYPE>(__func__, SetKind::any, ivars, nelems, status, cmp, cmp_value, nullptr, false,    \
                        nullptr, result, stream, &launch_wait_set_##TYPENAME);                            \
  }                                                                                                       \
  void gshmemx_##TYPENAME##_wait_until_any_vector_on_stream(TYPE *ivars, size_t nelems,                  \
                                                            const int *status, int cmp,                  \
                                                            const TYPE *cmp_values, size_t *result,      \
                                                            cudaStream_t stream) {                       \
    wait_set_impl<TYPE>(__func__, SetKind::any, ivars, nelems, status, cmp, static_cast<TYPE>(0), cmp_values, true,     \
                        nullptr, result, stream, &launch_wait_set_##TYPENAME);                            \
  }                                                                                                       \
  void gshmemx_##TYPENAME##_wait_until_some_on_stream(TYPE *ivars, size_t nelems, size_t *indices,        \
                                                      const int *status, int cmp, TYPE cmp_value,        \
                                                      size_t *nresult, cudaStream_t stream) {            \
    wait_set_impl<TYPE>(__func__, SetKind::some, ivars, nelems, status, cmp, cmp_value, nullptr, false,   \
                        indices, nresult, stream, &launch_wait_set_##TYPENAME);                           \
  }                                                                                                       \
  void gshmemx_##TYPENAME##_wait_until_some_vector_on_stream(TYPE *ivars, size_t nelems, size_t *indices, \
                                                             const int *status, int cmp,                 \
                                                             const TYPE *cmp_values, size_t *nresult,    \
                                                             cudaStream_t stream) {                      \
    wait_set_impl<TYPE>(__func__, SetKind::some, ivars, nelems, status, cmp, static_cast<TYPE>(0), cmp_values, true,    \
                        indices, nresult, stream, &launch_wait_set_##TYPENAME);                           \
  }
GSHMEM_FOR_EACH_SYNC_TYPE(GSHMEMI_DEFINE_STREAM_WAITS)
#undef GSHMEMI_DEFINE_STREAM_WAITS

void gshmemx_signal_wait_until_on_stream(uint64_t *sig_addr, int cmp, uint64_t cmp_value, cudaStream_t stream) {
  wait_until_impl<uint64_t>(__func__, sig_addr, cmp, cmp_value, stream, &launch_wait_until_uint64);
}

void gshmemx_signal_op_on_stream(uint64_t *sig_addr, uint64_t signal, int sig_op, int pe, cudaStream_t stream) {
  const char *fn = __func__;
  Context ctx;
  if (!begin(fn, stream, &ctx) || !check_signal_args(fn, ctx, sig_addr, sig_op, pe)) return;
  enqueue_signal(fn, ctx, sig_addr, signal, sig_op, pe, stream);
}

#define GSHMEMI_DEFINE_STREAM_PUT_SIGNAL(TYPENAME, TYPE)                                                 \
  void gshmemx_##TYPENAME##_put_signal_on_stream(TYPE *dest, const TYPE *source, size_t nelems,          \
                                                 uint64_t *sig_addr, uint64_t signal, int sig_op, int pe, \
                                                 cudaStream_t stream) {                                  \
    put_signal_impl(__func__, dest, source, nelems, sizeof(TYPE), sig_addr, signal, sig_op, pe, stream);   \
  }
GSHMEM_FOR_EACH_RMA_TYPE(GSHMEMI_DEFINE_STREAM_PUT_SIGNAL)
#undef GSHMEMI_DEFINE_STREAM_PUT_SIGNAL

void gshmemx_putmem_signal_on_stream(void *dest, const void *source, size_t bytes, uint64_t *sig_addr, uint64_t signal,
                                     int sig_op, int pe, cudaStream_t stream) {
  put_signal_impl(__func__, dest, source, bytes, 1, sig_addr, signal, sig_op, pe, stream);
}

#define GSHMEMI_DEFINE_STREAM_RMA(TYPENAME, TYPE)                                                          \
  void gshmemx_##TYPENAME##_p_on_stream(TYPE *dest, TYPE value, int pe, cudaStream_t stream) {             \
    p_impl<TYPE>(__func__, dest, value, pe, stream);                                                      \
  }                                                                                                       \
  TYPE gshmemx_##TYPENAME##_g_on_stream(const TYPE *source, int pe, cudaStream_t stream) {                \
    return g_impl<TYPE>(__func__, source, pe, stream);                                                    \
  }                                                                                                       \
  void gshmemx_##TYPENAME##_put_on_stream(TYPE *dest, const TYPE *source, size_t nelems, int pe,          \
                                          cudaStream_t stream) {                                          \
    put_impl(__func__, dest, source, nelems, sizeof(TYPE), pe, stream);                                   \
  }                                                                                                       \
  void gshmemx_##TYPENAME##_put_nbi_on_stream(TYPE *dest, const TYPE *source, size_t nelems, int pe,      \
                                              cudaStream_t stream) {                                      \
    put_impl(__func__, dest, source, nelems, sizeof(TYPE), pe, stream);                                   \
  }                                                                                                       \
  void gshmemx_##TYPENAME##_get_on_stream(TYPE *dest, const TYPE *source, size_t nelems, int pe,          \
                                          cudaStream_t stream) {                                          \
    get_impl(__func__, dest, source, nelems, sizeof(TYPE), pe, stream);                                   \
  }                                                                                                       \
  void gshmemx_##TYPENAME##_get_nbi_on_stream(TYPE *dest, const TYPE *source, size_t nelems, int pe,      \
                                              cudaStream_t stream) {                                      \
    get_impl(__func__, dest, source, nelems, sizeof(TYPE), pe, stream);                                   \
  }                                                                                                       \
  void gshmemx_##TYPENAME##_put_signal_nbi_on_stream(TYPE *dest, const TYPE *source, size_t nelems,       \
                                                     uint64_t *sig_addr, uint64_t signal, int sig_op,     \
                                                     int pe, cudaStream_t stream) {                       \
    put_signal_impl(__func__, dest, source, nelems, sizeof(TYPE), sig_addr, signal, sig_op, pe, stream);  \
  }
GSHMEM_FOR_EACH_RMA_TYPE(GSHMEMI_DEFINE_STREAM_RMA)
#undef GSHMEMI_DEFINE_STREAM_RMA

void gshmemx_putmem_on_stream(void *dest, const void *source, size_t bytes, int pe, cudaStream_t stream) {
  put_impl(__func__, dest, source, bytes, 1, pe, stream);
}
void gshmemx_putmem_nbi_on_stream(void *dest, const void *source, size_t bytes, int pe, cudaStream_t stream) {
  put_impl(__func__, dest, source, bytes, 1, pe, stream);
}
void gshmemx_getmem_on_stream(void *dest, const void *source, size_t bytes, int pe, cudaStream_t stream) {
  get_impl(__func__, dest, source, bytes, 1, pe, stream);
}
void gshmemx_getmem_nbi_on_stream(void *dest, const void *source, size_t bytes, int pe, cudaStream_t stream) {
  get_impl(__func__, dest, source, bytes, 1, pe, stream);
}
void gshmemx_putmem_signal_nbi_on_stream(void *dest, const void *source, size_t bytes, uint64_t *sig_addr,
                                         uint64_t signal, int sig_op, int pe, cudaStream_t stream) {
  put_signal_impl(__func__, dest, source, bytes, 1, sig_addr, signal, sig_op, pe, stream);
}

#define GSHMEMI_DEFINE_STREAM_SIZED(SIZE, BYTES)                                                            \
  void gshmemx_put##SIZE##_on_stream(void *dest, const void *source, size_t nelems, int pe, cudaStream_t stream) { \
    put_impl(__func__, dest, source, nelems * BYTES, 1, pe, stream);                                          \
  }                                                                                                           \
  void gshmemx_put##SIZE##_nbi_on_stream(void *dest, const void *source, size_t nelems, int pe,               \
                                         cudaStream_t stream) {                                               \
    put_impl(__func__, dest, source, nelems * BYTES, 1, pe, stream);                                          \
  }                                                                                                           \
  void gshmemx_get##SIZE##_on_stream(void *dest, const void *source, size_t nelems, int pe, cudaStream_t stream) { \
    get_impl(__func__, dest, source, nelems * BYTES, 1, pe, stream);                                          \
  }                                                                                                           \
  void gshmemx_get##SIZE##_nbi_on_stream(void *dest, const void *source, size_t nelems, int pe,               \
                                         cudaStream_t stream) {                                               \
    get_impl(__func__, dest, source, nelems * BYTES, 1, pe, stream);                                          \
  }                                                                                                           \
  void gshmemx_put##SIZE##_signal_on_stream(void *dest, const void *source, size_t nelems, uint64_t *sig_addr, \
                                            uint64_t signal, int sig_op, int pe, cudaStream_t stream) {       \
    put_signal_impl(__func__, dest, source, nelems * BYTES, 1, sig_addr, signal, sig_op, pe, stream);         \
  }                                                                                                           \
  void gshmemx_put##SIZE##_signal_nbi_on_stream(void *dest, const void *source, size_t nelems,                \
                                                uint64_t *sig_addr, uint64_t signal, int sig_op, int pe,      \
                                                cudaStream_t stream) {                                        \
    put_signal_impl(__func__, dest, source, nelems * BYTES, 1, sig_addr, signal, sig_op, pe, stream);         \
  }                                                                                                           \
  void gshmemx_iput##SIZE##_on_stream(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,           \
                                      size_t nelems, int pe, cudaStream_t stream) {                           \
    iput_impl(__func__, dest, source, dst, sst, nelems, BYTES, pe, stream);                                   \
  }                                                                                                           \
  void gshmemx_iget##SIZE##_on_stream(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,           \
                                      size_t nelems, int pe, cudaStream_t stream) {                           \
    iget_impl(__func__, dest, source, dst, sst, nelems, BYTES, pe, stream);                                   \
  }
GSHMEM_FOR_EACH_RMA_SIZE(GSHMEMI_DEFINE_STREAM_SIZED)
#undef GSHMEMI_DEFINE_STREAM_SIZED
#define GSHMEMI_DEFINE_STREAM_STRIDED(TYPENAME, TYPE)                                                        \
  void gshmemx_##TYPENAME##_iput_on_stream(TYPE *dest, const TYPE *source, ptrdiff_t dst, ptrdiff_t sst,     \
                                           size_t nelems, int pe, cudaStream_t stream) {                     \
    iput_impl(__func__, dest, source, dst, sst, nelems, sizeof(TYPE), pe, stream);                           \
  }                                                                                                           \
  void gshmemx_##TYPENAME##_iget_on_stream(TYPE *dest, const TYPE *source, ptrdiff_t dst, ptrdiff_t sst,     \
                                           size_t nelems, int pe, cudaStream_t stream) {                     \
    iget_impl(__func__, dest, source, dst, sst, nelems, sizeof(TYPE), pe, stream);                           \
  }
GSHMEM_FOR_EACH_RMA_TYPE(GSHMEMI_DEFINE_STREAM_STRIDED)
#undef GSHMEMI_DEFINE_STREAM_STRIDED

void gshmemx_quiet_on_stream(cudaStream_t stream) {
  Context ctx;
  if (!begin(__func__, stream, &ctx)) return;
  report_cuda(__func__, "quiet kernel launch", launch_quiet(stream));
}

namespace {

// The memop sync protocol: the largest team it serves (0: off; the smallest
// that any PE allows, set at init), and the host's counts:
// memop_sync_count[slot][pe], the memop syncs on team slot `slot` that this
// PE and world PE `pe` took part in together (reset at init). A count belongs to a pair of PEs, not to a team: a slot freed and
// taken by a team of other members leaves the counts of the pairs it does not
// hold as they were, and a pair in both teams keeps counting, so both PEs of
// a pair always agree on it without a reset.
std::atomic<int> memop_sync_max_members{0};
std::atomic<unsigned long long> memop_sync_count[GSHMEMI_MAX_TEAMS][GSHMEMI_MAX_PES];

// One on-stream team sync or barrier as stream memory operations (outside
// capture). For every other member j: write this pair's new count into j's
// memop_sync_arrivals[slot][me] (default flags: a stream-scoped system fence
// precedes each write, so the stream's earlier work, its updates to any
// heap included, is complete and visible to a member that sees the count);
// then wait until every member's count here reached this PE's. GEQ compares
// cyclically, which is exact for counters that differ by less than 2^63.
// The fence is what a barrier's quiet needs for the stream's own updates,
// so the barrier and the sync are the same operations here.
// The writes, then the waits, one cuStreamWriteValue64 / cuStreamWaitValue64
// each. Not one cuStreamBatchMemOp: on 2 x H200 (2 PEs, gshmem_perf_barrier's
// raw floors, the same job) a batch of the same two operations took 6.7 us a
// sync on the GPU against 4.3 for the separate calls, and 5.7 against 3.7
// back to back, although the host enqueued it in 0.9 us against 1.7.
bool enqueue_memop_sync(const char *fn, const Context &ctx, int slot, const gshmem::detail::team_desc &d,
                        cudaStream_t stream) {
  note_memop_wait();
  const int me = ctx.state->my_pe;
  const std::size_t arrivals = GSHMEMI_INTERNAL_STREAM_OFFSET + offsetof(InternalArea, memop_sync_arrivals);
  auto arrival = [&](const char *base, int pe) {
    return reinterpret_cast<CUdeviceptr>(base + arrivals +
                                         (static_cast<std::size_t>(slot) * GSHMEMI_MAX_PES + pe) *
                                             sizeof(unsigned long long));
  };
  unsigned wait_flags = CU_STREAM_WAIT_VALUE_GEQ;
  if (ctx.caps.flush_remote_writes) wait_flags |= CU_STREAM_WAIT_VALUE_FLUSH;
  const DriverApi &api = driver();
  for (int r = 0; r < d.size; ++r) {
    const int pe = gshmem::detail::team_member_pe(d, r);
    if (pe == me) continue;
    const unsigned long long count = memop_sync_count[slot][pe].fetch_add(1, std::memory_order_relaxed) + 1;
    if (!report_driver(fn, "cuStreamWriteValue64",
                       api.write64(stream, arrival(ctx.state->peer_base[pe], me), count, CU_STREAM_WRITE_VALUE_DEFAULT)))
      return false;
  }
  for (int r = 0; r < d.size; ++r) {
    const int pe = gshmem::detail::team_member_pe(d, r);
    if (pe == me) continue;
    const unsigned long long count = memop_sync_count[slot][pe].load(std::memory_order_relaxed);
    if (!report_driver(fn, "cuStreamWaitValue64",
                       api.wait64(stream, arrival(ctx.state->heap_base, pe), count, wait_flags)))
      return false;
  }
  return true;
}

// The on-stream sync of team slot `slot` (descriptor d) as stream memory
// operations, where the call takes them: false when it takes the kernel
// instead; true when it took them, with *ok false if that failed (reported).
// Teams larger than the agreed size (2 members by default) take the kernel:
// a memop sync writes and waits once per other member, and its cost grew
// with them where a kernel's hardly did (4 PEs sharing one H200 under MPS,
// NVIDIA's sync_on_stream and barrier_on_stream, the same job: 24.8-25.7 us
// a sync as memops, 7.6-7.7 as the team sync kernel, NVSHMEM's 8.2-8.5; at 2
// PEs 3.7-4.0 against 4.8-5.4; 2 x H200 over NVLink, 2 PEs: 3.89 against
// 5.31). Over 4 GPUs' NVLink not measured yet: GSHMEM_STREAM_OPS=memops
// keeps memops at every size, to compare.
// Every PE makes the same choice for the same collective call: the size
// limit is the same on every PE (init), and so is the team's size; capture
// is a property of the program's structure, the same on every PE for the
// same call (documented in <gshmem/stream.h>), and a captured sync needs the
// kernel, whose epoch lives on the GPU (a graph would replay the memops'
// values as they were captured); a job with remote peers takes the kernel
// on every PE (it reaches them through the proxy; the memops write into
// mapped heaps only, and the proxy exists on every PE of such a job).
bool memop_sync(const char *fn, const Context &ctx, int slot, const gshmem::detail::team_desc &d, cudaStream_t stream,
                bool *ok) {
  *ok = true;
  if (d.size > memop_sync_max_members.load(std::memory_order_relaxed) || ctx.state->proxy.slots != nullptr ||
      capturing(ctx))
    return false;
  for (int r = 0; r < d.size; ++r)
    if (!report(fn, check_target(*ctx.state, gshmem::detail::team_member_pe(d, r)))) {
      *ok = false;
      return true;
    }
  *ok = enqueue_memop_sync(fn, ctx, slot, d, stream);
  return true;
}

}  // namespace

namespace gshmemi {
namespace stream {

bool enqueue_memop_team_sync(const char *fn, int team, const gshmem::detail::team_desc &d, cudaStream_t stream,
                             int *rc) {
  *rc = GSHMEM_SUCCESS;
  Context ctx;
  bool ok = begin(fn, stream, &ctx);
  const bool taken = !ok || memop_sync(fn, ctx, team, d, stream, &ok);
  if (!ok) *rc = gshmemx_get_last_error();
  return taken;
}

}  // namespace stream
}  // namespace gshmemi

int gshmemi_stream_memop_sync_members(void) {
  const DeviceCaps *caps = caps_published.load(std::memory_order_acquire);
  if (!caps || !caps->write64 || !caps->wait.wait64) return 0;
  return caps->memop_sync_any_size ? GSHMEMI_MAX_PES : 2;
}

void gshmemi_stream_enable_memop_sync(int max_members) {
  for (auto &slot : memop_sync_count)
    for (auto &count : slot) count.store(0, std::memory_order_relaxed);
  memop_sync_max_members.store(max_members);
}

// The streams that carry the trapping kernel when a peer is lost (see
// gshmemi_stream_end_device_work), made at init. Streams share a few
// hardware queues, and a blocked memop wait stalls the work queued behind it
// on its queue: one stream may land behind it, so there are several, of the
// highest priority. They are made and used once (a warm-up launch of the
// kernel) while the device is idle at init, not when a wait is already
// blocked: making the first stream of a priority, or the first launch on
// it, may need the device to reach a point that the blocked wait never
// lets it reach. They live as long as the process (the primary context).
namespace {
constexpr int kEmergencyStreams = 16;
struct EmergencyStreams {
  std::mutex mutex;
  int device = -1;
  int count = 0;
  cudaStream_t streams[kEmergencyStreams] = {};
};
EmergencyStreams emergency;

int prepare_emergency_streams(int device) {
  std::lock_guard<std::mutex> lock(emergency.mutex);
  if (emergency.device == device && emergency.count == kEmergencyStreams) return GSHMEM_SUCCESS;
  int least = 0, greatest = 0;
  GSHMEMI_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
  emergency.count = 0;
  emergency.device = device;
  for (int i = 0; i < kEmergencyStreams; ++i) {
    GSHMEMI_CUDA_CHECK(cudaStreamCreateWithPriority(&emergency.streams[i], cudaStreamNonBlocking, greatest));
    ++emergency.count;
    GSHMEMI_CUDA_CHECK(launch_end_device_work(gshmemi_host_state()->my_pe, -1, emergency.streams[i]));
  }
  for (int i = 0; i < kEmergencyStreams; ++i) GSHMEMI_CUDA_CHECK(cudaStreamSynchronize(emergency.streams[i]));
  return GSHMEM_SUCCESS;
}
}  // namespace

void gshmemi_stream_end_device_work(int device, int lost_pe) {
  if (!memop_waits_enqueued.load()) return;
  GSHMEMI_WARN("on-stream waits may be pending on PE %d's signals: ending this PE's device work", lost_pe);
  // This thread (the monitor's) has no device of its own yet.
  if (cudaSetDevice(device) != cudaSuccess) return;
  // The trapping kernel goes to every stream prepared at init (new ones if
  // those are gone), so that one of them reaches the GPU; the first trap
  // ends every stream of the context.
  constexpr int kStreams = kEmergencyStreams;
  cudaStream_t streams[kStreams] = {};
  int launched = 0;
  {
    std::lock_guard<std::mutex> lock(emergency.mutex);
    if (emergency.device == device)
      for (int i = 0; i < emergency.count; ++i)
        if (launch_end_device_work(gshmemi_host_state()->my_pe, lost_pe, emergency.streams[i]) == cudaSuccess)
          streams[launched++] = emergency.streams[i];
  }
  if (launched == 0) {
    int least = 0, greatest = 0;
    (void)cudaDeviceGetStreamPriorityRange(&least, &greatest);
    for (int i = 0; i < kStreams; ++i) {
      cudaStream_t s = nullptr;
      if (cudaStreamCreateWithPriority(&s, cudaStreamNonBlocking, greatest) != cudaSuccess) break;
      if (launch_end_device_work(gshmemi_host_state()->my_pe, lost_pe, s) == cudaSuccess) streams[launched++] = s;
    }
  }
  if (launched == 0) {
    GSHMEMI_WARN("ending the device work after PE %d was lost failed: no kernel could be launched", lost_pe);
    return;
  }
  // Observe the trap from here (a thread blocked in cudaStreamSynchronize on
  // a memop wait may only learn of the failed context once some CUDA call
  // has seen it), without waiting on any one stream: one may never run.
  for (int tries = 0; tries < 2000; ++tries) {
    for (int i = 0; i < launched; ++i) {
      const cudaError_t rc = cudaStreamQuery(streams[i]);
      if (rc != cudaSuccess && rc != cudaErrorNotReady) {
        GSHMEMI_TRACE("device work ended after PE %d was lost: %s", lost_pe, cudaGetErrorString(rc));
        return;
      }
    }
    usleep(1000);
  }
  GSHMEMI_WARN("ending the device work after PE %d was lost: no trap seen within 2 s", lost_pe);
  // The streams are not destroyed: the context is about to fail anyway.
}


int gshmemi_stream_init(void) {
  const gshmemi_device_state_t *state = gshmemi_host_state();
  if (state->heap_base == nullptr || state->heap_size < GSHMEMI_INTERNAL_REGION_BYTES)
    return GSHMEMI_ERROR(GSHMEMX_ERROR_INTERNAL, "gshmemi_stream_init: the heap does not exist yet");
  GSHMEMI_CHECK(gshmemi_stream_preload_kernels());
  int device = -1;
  GSHMEMI_CUDA_CHECK(cudaGetDevice(&device));
  GSHMEMI_CHECK(prepare_emergency_streams(device));
  GSHMEMI_CUDA_CHECK(zero_internal_area(state->heap_base + GSHMEMI_INTERNAL_STREAM_OFFSET));
  std::lock_guard<std::mutex> lock(caps_mutex);
  GSHMEMI_CHECK(find_caps(state->heap_base, &caps_cache));
  publish_caps_locked();
  return GSHMEM_SUCCESS;
}
