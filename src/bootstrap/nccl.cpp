// The NCCL bootstrap plugin (libgshmem_bootstrap_nccl.so).
//
// For programs that already use NCCL (e.g. under PyTorch) and have no MPI:
// either the program's ncclComm_t (GSHMEMX_INIT_WITH_NCCL_COMM, never
// destroyed here) or a communicator built from an ncclUniqueId
// (GSHMEMX_INIT_WITH_UNIQUEID, on the current CUDA device). Collectives go
// through device buffers, since NCCL moves only device memory.
//
// A collective waits by polling its stream, so that once the runtime reports
// a lost peer (peer_lost) it returns GSHMEMX_ERROR_PEER_LOST instead of
// waiting for the dead rank forever; a communicator this plugin created is
// then aborted (its kernels end), a program's communicator is left alone.
// Host data goes through pinned buffers the plugin owns, so an abandoned
// collective never writes into the caller's memory.
#include <cuda_runtime.h>
#include <nccl.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <sched.h>

#include "../bootstrap_plugin.h"

namespace {

struct NcclContext {
  ncclComm_t comm = nullptr;
  bool owns_comm = false;
  int rank = 0, size = 1, device = -1;
  cudaStream_t stream = nullptr;
  void *send = nullptr, *recv = nullptr;  // device staging buffers
  void *host_in = nullptr, *host_out = nullptr;  // pinned host staging buffers
  size_t capacity = 0;                    // bytes per rank the buffers hold
  void (*report)(int, const char *) = nullptr;
  int (*peer_lost)(void) = nullptr;
  bool abandoned = false;  // a collective was left pending: nothing here may be reused
};

void say(void (*report)(int, const char *), const char *fmt, const char *detail) {
  char text[512];
  std::snprintf(text, sizeof(text), fmt, detail ? detail : "");
  if (report) report(1, text); else std::fprintf(stderr, "gshmem: %s\n", text);
}

int check_nccl(NcclContext *ctx, ncclResult_t rc, const char *what) {
  if (rc == ncclSuccess) return GSHMEM_SUCCESS;
  char text[256];
  std::snprintf(text, sizeof(text), "NCCL bootstrap: %s failed: %%s", what);
  say(ctx->report, text, ncclGetErrorString(rc));
  return GSHMEMX_ERROR_BOOTSTRAP;
}

int check_cuda(NcclContext *ctx, cudaError_t rc, const char *what) {
  if (rc == cudaSuccess) return GSHMEM_SUCCESS;
  char text[256];
  std::snprintf(text, sizeof(text), "NCCL bootstrap: %s failed: %%s", what);
  say(ctx->report, text, cudaGetErrorString(rc));
  return GSHMEMX_ERROR_CUDA;
}

// Runs `body` with the communicator's device current, then restores the caller's.
template <typename Body>
int on_device(NcclContext *ctx, Body body) {
  int previous = -1;
  cudaGetDevice(&previous);
  if (previous != ctx->device) {
    const int rc = check_cuda(ctx, cudaSetDevice(ctx->device), "cudaSetDevice");
    if (rc) return rc;
  }
  const int rc = body();
  if (previous >= 0 && previous != ctx->device) cudaSetDevice(previous);
  return rc;
}

int reserve(NcclContext *ctx, size_t bytes) {
  if (bytes <= ctx->capacity) return GSHMEM_SUCCESS;
  size_t capacity = ctx->capacity ? ctx->capacity : 256;
  while (capacity < bytes) capacity *= 2;
  cudaFree(ctx->send);
  cudaFree(ctx->recv);
  cudaFreeHost(ctx->host_in);
  cudaFreeHost(ctx->host_out);
  ctx->send = ctx->recv = ctx->host_in = ctx->host_out = nullptr;
  ctx->capacity = 0;
  int rc = check_cuda(ctx, cudaMalloc(&ctx->send, capacity), "cudaMalloc");
  if (!rc) rc = check_cuda(ctx, cudaMalloc(&ctx->recv, capacity * ctx->size), "cudaMalloc");
  if (!rc) rc = check_cuda(ctx, cudaMallocHost(&ctx->host_in, capacity), "cudaMallocHost");
  if (!rc) rc = check_cuda(ctx, cudaMallocHost(&ctx->host_out, capacity * ctx->size), "cudaMallocHost");
  if (!rc) ctx->capacity = capacity;
  return rc;
}

// Waits for the stream like cudaStreamSynchronize, but gives up once the
// runtime reports a lost peer (see the top of this file).
int wait_for_stream(NcclContext *ctx) {
  for (unsigned spins = 0;; ++spins) {
    const cudaError_t rc = cudaStreamQuery(ctx->stream);
    if (rc == cudaSuccess) return GSHMEM_SUCCESS;
    if (rc != cudaErrorNotReady) return check_cuda(ctx, rc, "the bootstrap's stream");
    if (ctx->peer_lost && ctx->peer_lost()) {
      ctx->abandoned = true;
      if (ctx->owns_comm && ctx->comm) {
        ncclCommAbort(ctx->comm);  // ends the kernel waiting for the dead rank
        ctx->comm = nullptr;
      }
      return GSHMEMX_ERROR_PEER_LOST;
    }
    if (spins > 4096) sched_yield();
  }
}

int nccl_allgather(void *context, const void *in, void *out, size_t bytes) {
  auto *ctx = static_cast<NcclContext *>(context);
  if (ctx->abandoned || (ctx->peer_lost && ctx->peer_lost())) return GSHMEMX_ERROR_PEER_LOST;
  if (bytes == 0) return GSHMEM_SUCCESS;
  return on_device(ctx, [&] {
    int rc = reserve(ctx, bytes);
    if (!rc) std::memcpy(ctx->host_in, in, bytes);
    if (!rc) rc = check_cuda(ctx, cudaMemcpyAsync(ctx->send, ctx->host_in, bytes, cudaMemcpyHostToDevice, ctx->stream), "cudaMemcpyAsync");
    if (!rc) rc = check_nccl(ctx, ncclAllGather(ctx->send, ctx->recv, bytes, ncclChar, ctx->comm, ctx->stream), "ncclAllGather");
    if (!rc) rc = check_cuda(ctx, cudaMemcpyAsync(ctx->host_out, ctx->recv, bytes * ctx->size, cudaMemcpyDeviceToHost, ctx->stream), "cudaMemcpyAsync");
    if (!rc) rc = wait_for_stream(ctx);
    if (!rc) std::memcpy(out, ctx->host_out, bytes * ctx->size);
    return rc;
  });
}

int nccl_barrier(void *context) {
  auto *ctx = static_cast<NcclContext *>(context);
  // An allgather completes on a rank only after every rank contributed.
  char token = 1;
  char *all = static_cast<char *>(std::malloc(static_cast<size_t>(ctx->size)));
  if (!all) return GSHMEMX_ERROR_OUT_OF_MEMORY;
  const int rc = nccl_allgather(context, &token, all, 1);
  std::free(all);
  return rc;
}

void nccl_abort(void *context, int code, const char *why) {
  auto *ctx = static_cast<NcclContext *>(context);
  say(ctx->report, "NCCL bootstrap: aborting: %s", why);
  // Aborting the communicator makes peers' pending NCCL calls fail instead of
  // waiting forever; NCCL has no job-wide abort, so this process ends with
  // `code` and the peers end at their next collective.
  if (ctx->comm) ncclCommAbort(ctx->comm);
  std::fflush(nullptr);
  std::_Exit(code);  // the job's exit status, as far as this process goes
}

int nccl_close(void *context) {
  auto *ctx = static_cast<NcclContext *>(context);
  int status = GSHMEM_SUCCESS;
  // After an abandoned collective the stream may never finish (a program's
  // communicator is not aborted), and cudaFree would wait for it: leave
  // everything in place.
  if (ctx->abandoned) return status;
  on_device(ctx, [&] {
    cudaFree(ctx->send);
    cudaFree(ctx->recv);
    cudaFreeHost(ctx->host_in);
    cudaFreeHost(ctx->host_out);
    if (ctx->stream) cudaStreamDestroy(ctx->stream);
    if (ctx->owns_comm && ctx->comm)
      status = check_nccl(ctx, ncclCommDestroy(ctx->comm), "ncclCommDestroy");
    return 0;
  });
  delete ctx;
  return status;
}

}  // namespace

extern "C" __attribute__((visibility("default"))) int gshmemi_bootstrap_plugin_open(
    const gshmemi_bootstrap_open_args_t *args, gshmemi_bootstrap_ops_t *ops) {
  if (!args || !ops || args->abi_version != GSHMEMI_BOOTSTRAP_ABI_VERSION) return GSHMEMX_ERROR_BOOTSTRAP;
  const gshmemx_init_attr_t *attr = args->attr;
  if (!attr) {
    say(args->report, "NCCL bootstrap: %s", "needs GSHMEMX_INIT_WITH_NCCL_COMM or _UNIQUEID and an attr");
    return GSHMEMX_ERROR_INVALID_VALUE;
  }
  auto *ctx = new (std::nothrow) NcclContext;
  if (!ctx) return GSHMEMX_ERROR_OUT_OF_MEMORY;
  ctx->report = args->report;
  ctx->peer_lost = args->peer_lost;
  int rc = GSHMEM_SUCCESS;
  if (args->flags & GSHMEMX_INIT_WITH_NCCL_COMM) {
    ctx->comm = static_cast<ncclComm_t>(attr->nccl_comm);
    rc = check_nccl(ctx, ncclCommUserRank(ctx->comm, &ctx->rank), "ncclCommUserRank");
    if (!rc) rc = check_nccl(ctx, ncclCommCount(ctx->comm, &ctx->size), "ncclCommCount");
    if (!rc) rc = check_nccl(ctx, ncclCommCuDevice(ctx->comm, &ctx->device), "ncclCommCuDevice");
  } else if (args->flags & GSHMEMX_INIT_WITH_UNIQUEID) {
    ncclUniqueId id;
    std::memcpy(&id, attr->nccl_unique_id, sizeof(id));
    rc = check_cuda(ctx, cudaGetDevice(&ctx->device), "cudaGetDevice");
    if (!rc) rc = check_nccl(ctx, ncclCommInitRank(&ctx->comm, attr->nranks, id, attr->rank), "ncclCommInitRank");
    if (!rc) ctx->owns_comm = true;
    ctx->rank = attr->rank;
    ctx->size = attr->nranks;
  } else {
    say(args->report, "NCCL bootstrap: %s", "needs GSHMEMX_INIT_WITH_NCCL_COMM or GSHMEMX_INIT_WITH_UNIQUEID");
    rc = GSHMEMX_ERROR_INVALID_VALUE;
  }
  if (!rc) rc = on_device(ctx, [&] {
    return check_cuda(ctx, cudaStreamCreateWithFlags(&ctx->stream, cudaStreamNonBlocking), "cudaStreamCreate");
  });
  if (rc) {
    if (ctx->owns_comm) ncclCommDestroy(ctx->comm);
    delete ctx;
    return rc;
  }
  ops->abi_version = GSHMEMI_BOOTSTRAP_ABI_VERSION;
  ops->name = "nccl";
  ops->context = ctx;
  ops->rank = ctx->rank;
  ops->size = ctx->size;
  ops->device = ctx->device;
  ops->allgather = &nccl_allgather;
  ops->barrier = &nccl_barrier;
  ops->abort = &nccl_abort;
  ops->close = &nccl_close;
  return GSHMEM_SUCCESS;
}

// For gshmemx_get_uniqueid: a new ncclUniqueId (this process hosts its
// rendezvous). 0, or a GSHMEMX_ERROR_* code after calling report.
extern "C" __attribute__((visibility("default"))) int gshmemi_bootstrap_plugin_get_uniqueid(
    void *out, size_t bytes, void (*report)(int, const char *)) {
  if (!out || bytes < sizeof(ncclUniqueId)) {
    say(report, "NCCL bootstrap: %s", "the unique id buffer is too small for an ncclUniqueId");
    return GSHMEMX_ERROR_INTERNAL;
  }
  ncclUniqueId id;
  const ncclResult_t rc = ncclGetUniqueId(&id);
  if (rc != ncclSuccess) {
    say(report, "NCCL bootstrap: ncclGetUniqueId failed: %s", ncclGetErrorString(rc));
    return GSHMEMX_ERROR_BOOTSTRAP;
  }
  std::memcpy(out, &id, sizeof(id));
  return GSHMEM_SUCCESS;
}
