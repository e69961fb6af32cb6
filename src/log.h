// Logging and error reporting for the runtime (host side).
//
// GSHMEM_DEBUG picks the level; every line is "gshmem[PE n] LEVEL file:line msg".
// report_error() logs the cause once at WARN, records the code for
// gshmemx_get_last_error(), and returns it, so a failing call reads:
//   return GSHMEMI_ERROR(GSHMEMX_ERROR_OUT_OF_MEMORY, "heap exhausted: ...");
#pragma once

#include <gshmem/runtime.h>

namespace gshmemi {

enum class LogLevel : int { NONE = 0, WARN = 1, INFO = 2, TRACE = 3 };

bool log_enabled(LogLevel level);
void log(LogLevel level, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
int report_error(int code, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
// Records a status for gshmemx_get_last_error() without logging (for calls
// whose misuse is reported by their return value, like gshmem_my_pe() == -1).
void set_last_error(int code);
// The PE number that prefixes log lines (-1 until the bootstrap knows it).
void set_log_pe(int pe);

}  // namespace gshmemi

#define GSHMEMI_WARN(...)  ::gshmemi::log(::gshmemi::LogLevel::WARN, __FILE__, __LINE__, __VA_ARGS__)
#define GSHMEMI_INFO(...)  ::gshmemi::log(::gshmemi::LogLevel::INFO, __FILE__, __LINE__, __VA_ARGS__)
#define GSHMEMI_TRACE(...) ::gshmemi::log(::gshmemi::LogLevel::TRACE, __FILE__, __LINE__, __VA_ARGS__)
#define GSHMEMI_ERROR(code, ...) ::gshmemi::report_error((code), __FILE__, __LINE__, __VA_ARGS__)

// Propagates a non-zero status, leaving a TRACE breadcrumb of where it passed.
#define GSHMEMI_CHECK(call)                                                   \
  do {                                                                        \
    int gshmemi_rc_ = (call);                                                 \
    if (gshmemi_rc_ != GSHMEM_SUCCESS) {                                      \
      GSHMEMI_TRACE("%s -> %d", #call, gshmemi_rc_);                          \
      return gshmemi_rc_;                                                     \
    }                                                                         \
  } while (0)

// Turns a failed CUDA runtime call into GSHMEMX_ERROR_CUDA, naming the call.
#define GSHMEMI_CUDA_CHECK(call)                                              \
  do {                                                                        \
    cudaError_t gshmemi_err_ = (call);                                        \
    if (gshmemi_err_ != cudaSuccess)                                          \
      return GSHMEMI_ERROR(GSHMEMX_ERROR_CUDA, "%s failed: %s", #call,        \
                           cudaGetErrorString(gshmemi_err_));                 \
  } while (0)
