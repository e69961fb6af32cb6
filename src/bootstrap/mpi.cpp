// The MPI bootstrap plugin (libgshmem_bootstrap_mpi.so).
//
// Uses MPI_COMM_WORLD (initializing MPI if the program has not) or the
// communicator the program passed with GSHMEMX_INIT_WITH_MPI_COMM. Either way
// it works on a duplicate, so its messages never match the program's.
//
// Collectives are nonblocking (MPI_Iallgather, MPI_Ibarrier) driven by
// MPI_Test, so that a wait for a peer whose process ended (the runtime's
// liveness monitor says so through peer_lost) returns
// GSHMEMX_ERROR_PEER_LOST instead of blocking forever. Data travels through
// buffers the plugin owns: a collective abandoned that way may still be
// written into by MPI later, never into the caller's memory.
#include <mpi.h>
#include <sched.h>

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <vector>

#include "../bootstrap_plugin.h"

namespace {

struct MpiContext {
  MPI_Comm comm = MPI_COMM_NULL;
  int size = 1;
  void (*report)(int, const char *) = nullptr;
  int (*peer_lost)(void) = nullptr;
  std::vector<unsigned char> send, recv;  // staging buffers of the collectives
  bool abandoned = false;  // a collective was left pending: comm and buffers are unusable
};

// The liveness callback of the last open, for the exit handler (MPI_Finalize
// waits for every rank, so it is skipped once a peer is gone).
int (*g_peer_lost)(void) = nullptr;

void say(void (*report)(int, const char *), const char *what, int mpi_error) {
  char text[MPI_MAX_ERROR_STRING + 200];
  char mpi_text[MPI_MAX_ERROR_STRING] = "";
  int len = 0;
  if (mpi_error != MPI_SUCCESS) MPI_Error_string(mpi_error, mpi_text, &len);
  std::snprintf(text, sizeof(text), "MPI bootstrap: %s%s%s", what, len ? ": " : "", mpi_text);
  if (report) report(1, text); else std::fprintf(stderr, "gshmem: %s\n", text);
}

// Drives `request` to completion with MPI_Test; stops early (the request is
// left pending, the context marked abandoned) once the runtime reports a
// lost peer. Spins first, then yields the core between tests.
int finish(MpiContext *ctx, MPI_Request *request, const char *what) {
  for (unsigned spins = 0;; ++spins) {
    int done = 0;
    const int rc = MPI_Test(request, &done, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS) {
      say(ctx->report, what, rc);
      return GSHMEMX_ERROR_BOOTSTRAP;
    }
    if (done) return GSHMEM_SUCCESS;
    if (ctx->peer_lost && ctx->peer_lost()) {
      ctx->abandoned = true;
      return GSHMEMX_ERROR_PEER_LOST;
    }
    if (spins > 4096) sched_yield();
  }
}

int mpi_allgather(void *context, const void *in, void *out, size_t bytes) {
  auto *ctx = static_cast<MpiContext *>(context);
  if (ctx->abandoned || (ctx->peer_lost && ctx->peer_lost())) return GSHMEMX_ERROR_PEER_LOST;
  if (bytes > static_cast<size_t>(INT_MAX) / static_cast<size_t>(ctx->size)) {
    say(ctx->report, "allgather of more than INT_MAX bytes in all", MPI_SUCCESS);
    return GSHMEMX_ERROR_INVALID_VALUE;
  }
  const int count = static_cast<int>(bytes);
  try {
    ctx->send.assign(static_cast<const unsigned char *>(in), static_cast<const unsigned char *>(in) + bytes);
    ctx->recv.resize(bytes * static_cast<size_t>(ctx->size));
  } catch (...) {
    return GSHMEMX_ERROR_OUT_OF_MEMORY;
  }
  MPI_Request request;
  int rc = MPI_Iallgather(ctx->send.data(), count, MPI_BYTE, ctx->recv.data(), count, MPI_BYTE, ctx->comm,
                          &request);
  if (rc != MPI_SUCCESS) {
    say(ctx->report, "MPI_Iallgather failed", rc);
    return GSHMEMX_ERROR_BOOTSTRAP;
  }
  rc = finish(ctx, &request, "MPI_Iallgather failed");
  if (rc == GSHMEM_SUCCESS && bytes) std::memcpy(out, ctx->recv.data(), ctx->recv.size());
  return rc;
}

int mpi_barrier(void *context) {
  auto *ctx = static_cast<MpiContext *>(context);
  if (ctx->abandoned || (ctx->peer_lost && ctx->peer_lost())) return GSHMEMX_ERROR_PEER_LOST;
  MPI_Request request;
  const int rc = MPI_Ibarrier(ctx->comm, &request);
  if (rc != MPI_SUCCESS) {
    say(ctx->report, "MPI_Ibarrier failed", rc);
    return GSHMEMX_ERROR_BOOTSTRAP;
  }
  return finish(ctx, &request, "MPI_Ibarrier failed");
}

void mpi_abort(void *context, int code, const char *why) {
  auto *ctx = static_cast<MpiContext *>(context);
  say(ctx->report, why ? why : "abort", MPI_SUCCESS);
  // `code` is the job's exit status (mpirun passes it on).
  MPI_Abort(ctx->comm != MPI_COMM_NULL ? ctx->comm : MPI_COMM_WORLD, code);
  std::abort();  // MPI_Abort does not return; this is for broken MPIs
}

// Registered once, when gshmem itself started MPI. MPI programs that
// initialized MPI themselves keep ownership of MPI_Finalize.
void finalize_mpi_at_exit() {
  if (g_peer_lost && g_peer_lost()) return;  // MPI_Finalize would wait for the lost rank
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (initialized && !finalized) MPI_Finalize();
}

int mpi_close(void *context) {
  auto *ctx = static_cast<MpiContext *>(context);
  int status = GSHMEM_SUCCESS;
  int finalized = 0;
  MPI_Finalized(&finalized);
  // An abandoned communicator still has a collective pending: freeing it
  // could wait for the lost rank, so it (and its buffers) are left as they are.
  if (!finalized && !ctx->abandoned) {
    if (ctx->comm != MPI_COMM_NULL) MPI_Comm_free(&ctx->comm);
  }
  if (ctx->abandoned) return status;
  // MPI started by gshmem is finalized at process exit (see finalize_mpi_at_exit),
  // not here: MPI cannot restart, and a program may call gshmem_init again.
  delete ctx;
  return status;
}

}  // namespace

extern "C" __attribute__((visibility("default"))) int gshmemi_bootstrap_plugin_open(
    const gshmemi_bootstrap_open_args_t *args, gshmemi_bootstrap_ops_t *ops) {
  if (!args || !ops || args->abi_version != GSHMEMI_BOOTSTRAP_ABI_VERSION)
    return GSHMEMX_ERROR_BOOTSTRAP;
  const bool user_comm = (args->flags & GSHMEMX_INIT_WITH_MPI_COMM) != 0;
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (finalized) {
    say(args->report, "MPI was already finalized; MPI cannot start again in this process", MPI_SUCCESS);
    return GSHMEMX_ERROR_BOOTSTRAP;
  }
  if (user_comm && !initialized) {
    say(args->report, "GSHMEMX_INIT_WITH_MPI_COMM was given but MPI is not initialized", MPI_SUCCESS);
    return GSHMEMX_ERROR_BOOTSTRAP;
  }
  auto *ctx = new (std::nothrow) MpiContext;
  if (!ctx) return GSHMEMX_ERROR_OUT_OF_MEMORY;
  ctx->report = args->report;
  ctx->peer_lost = args->peer_lost;
  g_peer_lost = args->peer_lost;
  if (!initialized) {
    const int rc = MPI_Init(nullptr, nullptr);
    if (rc != MPI_SUCCESS) {
      say(args->report, "MPI_Init failed", rc);
      delete ctx;
      return GSHMEMX_ERROR_BOOTSTRAP;
    }
    std::atexit(finalize_mpi_at_exit);
  }
  MPI_Comm parent = MPI_COMM_WORLD;
  if (user_comm) {
    if (!args->attr || !args->attr->mpi_comm) {
      say(args->report, "GSHMEMX_INIT_WITH_MPI_COMM needs attr->mpi_comm", MPI_SUCCESS);
      delete ctx;
      return GSHMEMX_ERROR_INVALID_VALUE;
    }
    parent = *static_cast<const MPI_Comm *>(args->attr->mpi_comm);
  }
  int rc = MPI_Comm_dup(parent, &ctx->comm);
  if (rc == MPI_SUCCESS) rc = MPI_Comm_set_errhandler(ctx->comm, MPI_ERRORS_RETURN);
  if (rc == MPI_SUCCESS) rc = MPI_Comm_rank(ctx->comm, &ops->rank);
  if (rc == MPI_SUCCESS) rc = MPI_Comm_size(ctx->comm, &ops->size);
  if (rc == MPI_SUCCESS) ctx->size = ops->size;
  if (rc != MPI_SUCCESS) {
    say(args->report, "setting up the communicator failed", rc);
    mpi_close(ctx);
    return GSHMEMX_ERROR_BOOTSTRAP;
  }
  ops->abi_version = GSHMEMI_BOOTSTRAP_ABI_VERSION;
  ops->name = "mpi";
  ops->context = ctx;
  ops->device = -1;
  ops->allgather = &mpi_allgather;
  ops->barrier = &mpi_barrier;
  ops->abort = &mpi_abort;
  ops->close = &mpi_close;
  return GSHMEM_SUCCESS;
}
