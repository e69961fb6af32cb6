// Device failure reports, host half: see device_report.h.
#include "device_report.h"

#include <gshmem/detail/sync_core.h>
#include <gshmem/detail/team_sync.h>
#include <gshmem/types.h>

#include <cuda_runtime.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <thread>

#include "log.h"

namespace gshmemi {
namespace {

std::string printf_string(const char *format, ...) __attribute__((format(printf, 1, 2)));
std::string printf_string(const char *format, ...) {
  char line[640];
  va_list ap;
  va_start(ap, format);
  std::vsnprintf(line, sizeof line, format, ap);
  va_end(ap);
  return line;
}

// A slot's field as the device wrote it (bounded: a slot is never trusted
// to hold its terminating NUL).
std::string bounded(const char *text, size_t size) { return std::string(text, strnlen(text, size)); }

std::string value_text(const gshmemi_device_report_slot_t &s, unsigned long long v) {
  return s.is_signed ? printf_string("%lld", (long long)v) : printf_string("%llu", v);
}

}  // namespace

std::string format_device_report(const gshmemi_device_report_slot_t &s) {
  const std::string routine = bounded(s.routine, sizeof s.routine);
  const std::string head = printf_string("gshmem: PE %d: %s: ", s.pe, routine.c_str());
  const void *u0 = reinterpret_cast<const void *>(s.u0), *u1 = reinterpret_cast<const void *>(s.u1);
  const char *cmp = gshmem::detail::cmp_name(s.i0);
  switch (s.kind) {
    case GSHMEMI_FAIL_INVALID_CMP:
      return head + printf_string("invalid cmp %d (valid: 0 .. 5: EQ=0 NE=1 GT=2 LE=3 LT=4 GE=5)", s.i0);
    case GSHMEMI_FAIL_WAIT_TIMEOUT:
      return head + printf_string("wait timed out (%llu ns) at %p [element %llu of %llu]: expected %s %s, last seen %s",
                                  s.u5, u0, s.u1, s.u2, cmp, value_text(s, s.u3).c_str(), value_text(s, s.u4).c_str());
    case GSHMEMI_FAIL_WAIT_PEER_LOST:
      return head + printf_string("PE %d is gone (its process ended); stopping the wait at %p [element %llu of %llu] "
                                  "for %s %s, last seen %s",
                                  s.i1, u0, s.u1, s.u2, cmp, value_text(s, s.u3).c_str(), value_text(s, s.u4).c_str());
    case GSHMEMI_FAIL_INVALID_SIG_OP:
      return head + printf_string("invalid sig_op %d (GSHMEM_SIGNAL_SET %d or GSHMEM_SIGNAL_ADD %d)", s.i0,
                                  GSHMEM_SIGNAL_SET, GSHMEM_SIGNAL_ADD);
    case GSHMEMI_FAIL_INVALID_ORDER:
      return head + printf_string("invalid memory order %d / thread scope %d for operation %d: %s", s.i0, s.i1, s.i2,
                                  bounded(s.text, sizeof s.text).c_str());
    case GSHMEMI_FAIL_NOT_SYMMETRIC:
      return head + printf_string("address %p is not symmetric (heap or registered buffer) or PE %d is not reachable "
                                  "(n_pes %d)",
                                  u0, s.i0, s.i1);
    case GSHMEMI_FAIL_TEAM_PEER_LOST:
      return head + printf_string("PE %d is gone (its process ended); stopping the wait for PE %d at %p", s.i0, s.i1,
                                  u0);
    case GSHMEMI_FAIL_TEAM_TIMEOUT:
      return head + printf_string("timed out waiting for PE %d at %p: expected >= %llu, found %llu", s.i1, u0, s.u3,
                                  s.u4);
    case GSHMEMI_FAIL_INVALID_TEAM:
      return head + printf_string("team %d is not a valid team handle on this PE", s.i0);
    case GSHMEMI_FAIL_OVERLAP:
      if (s.i0 == 1)
        return head + printf_string("dest %p and source %p overlap (this routine allows no overlap)", u0, u1);
      return head + printf_string("dest %p and source %p overlap without being equal", u0, u1);
    case GSHMEMI_FAIL_COUNT_TOO_LARGE:
      return head + printf_string("count %llu of %llu-byte elements times the team's %d members does not fit the "
                                  "address space", s.u0, s.u1, s.i0);
    case GSHMEMI_FAIL_INVALID_ROOT:
      return head + printf_string("PE_root %d is not a rank of the team (team size %d: 0 .. %d)", s.i0, s.i1, s.i1 - 1);
    case GSHMEMI_FAIL_COLLECTIVE_MISMATCH: {
      namespace gd = gshmem::detail;
      const unsigned mine = (unsigned)s.u0, theirs = (unsigned)s.u1;
      const char *what = gd::signature_difference(mine, theirs);
      return head + printf_string("PE %d, a member of team %d, passed %s to the same collective call (the team's "
                                  "sync %llu): here %s, root %u, size fold 0x%02x; PE %d: %s, root %u, size fold "
                                  "0x%02x (roots mod 128). Every member must call the same collective with the "
                                  "same root and size",
                                  s.i0, s.i1, what ? what : "the same arguments", s.u2,
                                  gd::collective_kind_name(gd::signature_kind(mine)), gd::signature_root(mine),
                                  gd::signature_size(mine), s.i0, gd::collective_kind_name(gd::signature_kind(theirs)),
                                  gd::signature_root(theirs), gd::signature_size(theirs));
    }
    case GSHMEMI_FAIL_COLLECTIVE_FORM:
      return head + printf_string("waits for PE %d's lines (LL protocol, team %d, line %p) while PE %d is in a team "
                                  "sync (its sync %llu, this PE's %llu): that member took the two-sync path for "
                                  "this call. Members must call a collective all from one thread or all from a "
                                  "group (warp, block, host, stream) once a one-thread call moves more than "
                                  "GSHMEM_COLLECTIVE_LL_THREAD_BYTES; or the members called different collectives",
                                  s.i0, s.i1, u0, s.i0, s.u1, s.u2);
    case GSHMEMI_FAIL_INVALID_ARGUMENT:
      return head + printf_string("%s (address %p, %llu bytes, target PE %d); returned GSHMEMX_ERROR_INVALID_VALUE",
                                  bounded(s.text, sizeof s.text).c_str(), u0, s.u1, s.i0);
    case GSHMEMI_FAIL_REMOTE_LOST:
      if (s.i0 >= 0)
        return head + printf_string("a request to remote PE %d cannot complete: PE %d is gone or the transport "
                                    "failed (GSHMEMX_ERROR_PEER_LOST; see the proxy's line)", s.i1, s.i0);
      return head + printf_string("a request to remote PE %d cannot complete: the transport failed "
                                  "(GSHMEMX_ERROR_PEER_LOST; see the proxy's line)", s.i1);
    case GSHMEMI_FAIL_REMOTE_UNSUPPORTED:
      return head + printf_string("PE %d is a remote peer (GSHMEM_REMOTE_PEERS, docs/remote.md) and this routine "
                                  "has no remote form, or its kernel was compiled with GSHMEM_DEVICE_REMOTE=0 "
                                  "(address %p)", s.i0, u0);
    default:
      return head + printf_string("a device failure of unknown kind %u", s.kind);
  }
}

int print_device_reports(const gshmemi_device_report_t *area, bool *printed, unsigned *further_printed,
                         std::FILE *out) {
  static std::mutex lock;
  std::lock_guard<std::mutex> guard(lock);
  if (area == nullptr) return 0;
  if (out == nullptr) out = stderr;
  int lines = 0;
  for (int k = 0; k < GSHMEMI_DEVICE_REPORT_SLOTS; ++k) {
    if (printed[k] || __atomic_load_n(&area->slot[k].ready, __ATOMIC_ACQUIRE) == 0) continue;
    const std::string line = format_device_report(area->slot[k]);
    std::fprintf(out, "%s\n", line.c_str());
    printed[k] = true;
    ++lines;
  }
  const unsigned claimed = __atomic_load_n(&area->claimed, __ATOMIC_ACQUIRE);
  const unsigned further = claimed > GSHMEMI_DEVICE_REPORT_SLOTS ? claimed - GSHMEMI_DEVICE_REPORT_SLOTS : 0;
  if (further > *further_printed) {
    std::fprintf(out, "gshmem: %u more device failure report(s) found no free slot (only the first %d are kept)\n",
                 further, GSHMEMI_DEVICE_REPORT_SLOTS);
    *further_printed = further;
    ++lines;
  }
  if (lines) std::fflush(out);
  return lines;
}

namespace {

struct Reporter {
  std::mutex mutex;
  std::condition_variable wake;
  bool stopping = false;
  gshmemi_device_report_t *host = nullptr;  // mapped area (host address)
  bool printed[GSHMEMI_DEVICE_REPORT_SLOTS] = {};
  unsigned further_printed = 0;
  std::thread thread;
};

Reporter &reporter() {
  static Reporter *r = new Reporter;  // never destroyed: the exit hook may run after static destructors
  return *r;
}

void print_pending() {
  Reporter &r = reporter();
  gshmemi_device_report_t *area = __atomic_load_n(&r.host, __ATOMIC_ACQUIRE);
  if (area) print_device_reports(area, r.printed, &r.further_printed);
}

void at_exit() { print_pending(); }

}  // namespace

int device_reports_open(gshmemi_device_report_t **device_area) {
  Reporter &r = reporter();
  static std::once_flag exit_hook;
  std::call_once(exit_hook, [] { std::atexit(at_exit); });
  void *p = nullptr, *d = nullptr;
  cudaError_t rc = cudaHostAlloc(&p, sizeof(gshmemi_device_report_t), cudaHostAllocMapped | cudaHostAllocPortable);
  if (rc != cudaSuccess)
    return GSHMEMI_ERROR(GSHMEMX_ERROR_CUDA, "allocating the device report area: %s", cudaGetErrorString(rc));
  std::memset(p, 0, sizeof(gshmemi_device_report_t));
  rc = cudaHostGetDevicePointer(&d, p, 0);
  if (rc != cudaSuccess) {
    cudaFreeHost(p);
    return GSHMEMI_ERROR(GSHMEMX_ERROR_CUDA, "mapping the device report area: %s", cudaGetErrorString(rc));
  }
  {
    std::lock_guard<std::mutex> guard(r.mutex);
    std::memset(r.printed, 0, sizeof r.printed);
    r.further_printed = 0;
    r.stopping = false;
  }
  __atomic_store_n(&r.host, static_cast<gshmemi_device_report_t *>(p), __ATOMIC_RELEASE);
  try {
    r.thread = std::thread([&r] {
      std::unique_lock<std::mutex> guard(r.mutex);
      while (!r.stopping) {
        r.wake.wait_for(guard, std::chrono::milliseconds(20));
        guard.unlock();
        print_pending();
        guard.lock();
      }
    });
  } catch (const std::exception &) {
    // No thread: the reports still come out at finalize and at exit.
    GSHMEMI_WARN("no thread for device failure reports: they are printed at gshmem_finalize or exit only");
  }
  *device_area = static_cast<gshmemi_device_report_t *>(d);
  return GSHMEM_SUCCESS;
}

void device_reports_close(bool release_memory) {
  Reporter &r = reporter();
  {
    std::lock_guard<std::mutex> guard(r.mutex);
    r.stopping = true;
  }
  r.wake.notify_all();
  if (r.thread.joinable()) r.thread.join();
  print_pending();
  gshmemi_device_report_t *area = __atomic_exchange_n(&r.host, nullptr, __ATOMIC_ACQ_REL);
  // A kernel that trapped leaves the context unusable (cudaFreeHost would
  // fail or wait): then the area stays mapped until the process exits.
  if (area && release_memory) {
    cudaFreeHost(area);
    (void)cudaGetLastError();
  }
}

}  // namespace gshmemi
