// Logging, error recording and error strings.
#include "log.h"

#include <atomic>
#include <cstdarg>
#include <cstdio>
#include <cstring>

#include "env.h"

namespace gshmemi {

namespace {

std::atomic<int> log_pe{-1};
// Per host thread, like cudaGetLastError: a thread reads what its own calls recorded.
thread_local int last_error = GSHMEM_SUCCESS;

const char *level_name(LogLevel level) {
  switch (level) {
    case LogLevel::WARN: return "WARN";
    case LogLevel::INFO: return "INFO";
    case LogLevel::TRACE: return "TRACE";
    default: return "NONE";
  }
}

const char *basename_of(const char *path) {
  const char *slash = std::strrchr(path, '/');
  return slash ? slash + 1 : path;
}

void vlog(LogLevel level, const char *file, int line, const char *fmt, va_list args) {
  char message[1024];
  std::vsnprintf(message, sizeof(message), fmt, args);
  char pe[16];
  const int p = log_pe.load(std::memory_order_relaxed);
  if (p >= 0) std::snprintf(pe, sizeof(pe), "%d", p); else std::snprintf(pe, sizeof(pe), "?");
  // One fprintf per line so that lines of concurrent threads do not interleave.
  std::fprintf(stderr, "gshmem[PE %s] %s %s:%d %s\n", pe, level_name(level), basename_of(file),
               line, message);
  std::fflush(stderr);
}

}  // namespace

bool log_enabled(LogLevel level) {
  return level != LogLevel::NONE && static_cast<int>(level) <= static_cast<int>(env().DEBUG);
}

void log(LogLevel level, const char *file, int line, const char *fmt, ...) {
  if (!log_enabled(level)) return;
  va_list args;
  va_start(args, fmt);
  vlog(level, file, line, fmt, args);
  va_end(args);
}

int report_error(int code, const char *file, int line, const char *fmt, ...) {
  last_error = code;
  if (log_enabled(LogLevel::WARN)) {
    va_list args;
    va_start(args, fmt);
    vlog(LogLevel::WARN, file, line, fmt, args);
    va_end(args);
  }
  return code;
}

void set_last_error(int code) { last_error = code; }

void set_log_pe(int pe) { log_pe.store(pe, std::memory_order_relaxed); }

}  // namespace gshmemi

extern "C" int gshmemx_get_last_error(void) {
  return gshmemi::last_error;
}

extern "C" const char *gshmemx_error_string(int code) {
  switch (code) {
    case GSHMEM_SUCCESS: return "success";
    case GSHMEMX_ERROR_INTERNAL: return "internal error in gshmem (please report it)";
    case GSHMEMX_ERROR_INVALID_VALUE: return "invalid argument";
    case GSHMEMX_ERROR_NOT_INITIALIZED: return "gshmem is not initialized (call gshmem_init first)";
    case GSHMEMX_ERROR_ALREADY_INITIALIZED: return "gshmem is already initialized";
    case GSHMEMX_ERROR_NO_DEVICE: return "no usable CUDA device or driver";
    case GSHMEMX_ERROR_TOO_FEW_DEVICES:
      return "more PEs on a node than GPUs (set GSHMEM_ALLOW_GPU_SHARING=1 to share)";
    case GSHMEMX_ERROR_BOOTSTRAP: return "bootstrap failed (launcher, MPI, NCCL or peer exchange)";
    case GSHMEMX_ERROR_OUT_OF_MEMORY: return "out of memory (symmetric heap or device)";
    case GSHMEMX_ERROR_SYMMETRY: return "PEs disagree on a collective call";
    case GSHMEMX_ERROR_CUDA: return "a CUDA call failed";
    case GSHMEMX_ERROR_ENVIRONMENT: return "a GSHMEM_* environment variable has a bad value";
    case GSHMEMX_ERROR_NOT_SUPPORTED: return "not supported here";
    case GSHMEMX_ERROR_NOT_SYMMETRIC: return "address is not in the symmetric heap";
    case GSHMEMX_ERROR_MISALIGNED: return "address is misaligned for its type";
    case GSHMEMX_ERROR_INVALID_STREAM: return "stream belongs to another device";
    case GSHMEMX_ERROR_INVALID_PE: return "PE out of range or not reachable";
    case GSHMEMX_ERROR_PEER_LOST: return "a peer PE's process ended (the job cannot go on)";
    default: return "unknown gshmem error code";
  }
}
