// Device-side failure reports without printf.
//
// A device routine that cannot return a status (an invalid comparison,
// signal operation, memory order or team; an address that is not symmetric;
// a wait that timed out or whose peer's process ended) records what went
// wrong in a slot of mapped host memory and then traps (or, for the team
// checks that return -1, goes on). The runtime's reporter thread prints
// each recorded slot on the host, once, as one line prefixed like every
// other gshmem line ("gshmem: PE 3: gshmem_uint64_wait_until: wait timed out
// ..."), and again at finalize or exit whatever it has not printed yet
// (src/device_report.h).
//
// Why not printf: a kernel that contains any call (printf, or a function
// kept out of line) gets convergence barriers (BSSY/BSYNC) and YIELD
// instructions around its loops, the poll loop of a wait included (SASS,
// sm_90). On one H100 a p + wait_until ping-pong between two blocks cost
// 333 ns one-way with gshmem's printf diagnostics against 243 ns for the
// same exchange written by hand; the same checks reporting through a
// record and a trap cost 2-25 ns. Writing a record needs no call: plain
// stores, one system-scope atomic and fence, inlined into the cold path.
#pragma once

#include <gshmem/detail/config.h>
#include <gshmem/detail/state.h>

/* Slots of the mapped report area; failures past them are only counted. */
#define GSHMEMI_DEVICE_REPORT_SLOTS 4
#define GSHMEMI_DEVICE_REPORT_TEXT 96

/* What a slot reports, and what its fields hold (the host formats the line,
 * src/device_report.cpp, with the texts device printf used to print). */
enum gshmemi_device_failure {
  GSHMEMI_FAIL_NONE = 0,
  GSHMEMI_FAIL_INVALID_CMP = 1,     /* i0 cmp */
  GSHMEMI_FAIL_WAIT_TIMEOUT = 2,    /* i0 cmp; u0 address, u1 index, u2 nelems, u3 expected, u4 seen,
                                       u5 timeout ns; is_signed */
  GSHMEMI_FAIL_WAIT_PEER_LOST = 3,  /* as WAIT_TIMEOUT, i1 the PE that is gone */
  GSHMEMI_FAIL_INVALID_SIG_OP = 4,  /* i0 sig_op */
  GSHMEMI_FAIL_INVALID_ORDER = 5,   /* i0 order, i1 scope, i2 operation; text: why */
  GSHMEMI_FAIL_NOT_SYMMETRIC = 6,   /* u0 address; i0 target PE, i1 n_pes */
  GSHMEMI_FAIL_TEAM_PEER_LOST = 7,  /* i0 the PE that is gone, i1 the PE waited for; u0 address */
  GSHMEMI_FAIL_TEAM_TIMEOUT = 8,    /* i1 the PE waited for; u0 address, u3 expected (>=), u4 seen */
  GSHMEMI_FAIL_INVALID_TEAM = 9,    /* i0 team */
  GSHMEMI_FAIL_OVERLAP = 10,        /* u0 dest, u1 source; i0 1: the routine allows no overlap, equal included */
  GSHMEMI_FAIL_REMOTE_LOST = 11,    /* i0 the PE that is gone (-1: unknown), i1 the target PE: a request
                                       to a remote peer cannot complete (docs/remote.md) */
  GSHMEMI_FAIL_REMOTE_UNSUPPORTED = 12, /* u0 address; i0 target PE: the routine has no remote form */
  GSHMEMI_FAIL_COUNT_TOO_LARGE = 13, /* u0 count, u1 element bytes, i0 team size: the buffer of count x team
                                        size elements cannot fit the address space */
  GSHMEMI_FAIL_INVALID_ROOT = 14,   /* i0 PE_root, i1 the team's size */
  GSHMEMI_FAIL_COLLECTIVE_MISMATCH = 15, /* i0 the member PE that disagrees, i1 the team; u0 this PE's call
                                            signature, u1 the member's, u2 the team's sync epoch
                                            (team_sync.h: collective_signature) */
  GSHMEMI_FAIL_INVALID_ARGUMENT = 16, /* text: what is wrong; u0 the address concerned, u1 a size; i0 the
                                         target PE. Reported by a routine that returns an error value
                                         (no trap): update_counted.h */
  GSHMEMI_FAIL_COLLECTIVE_FORM = 17, /* i0 the member PE found in a team sync, i1 the team; u0 the LL line
                                        waited for, u1 the member's announced sync, u2 this PE's (both mod 2^32)
                                        (team_ll.h: ll_check_peer) */
  GSHMEMI_FAIL_KIND_COUNT = 18
};

typedef struct gshmemi_device_report_slot {
  unsigned int ready; /* 1 once every field below is written (after a system-scope fence) */
  unsigned int kind;  /* gshmemi_device_failure */
  int pe;
  int i0, i1, i2;
  int is_signed;
  int reserved;
  unsigned long long u0, u1, u2, u3, u4, u5;
  char routine[64];
  char text[GSHMEMI_DEVICE_REPORT_TEXT];
} gshmemi_device_report_slot_t;

typedef struct gshmemi_device_report {
  unsigned int claimed; /* slots handed out so far (atomic add; past the slots: counted only) */
  unsigned int reserved[15];
  gshmemi_device_report_slot_t slot[GSHMEMI_DEVICE_REPORT_SLOTS];
} gshmemi_device_report_t;

#if defined(__cplusplus)
namespace gshmem {
namespace detail {

// The fields of one report (the per-kind meaning is in the enum above).
struct device_failure {
  unsigned kind = GSHMEMI_FAIL_NONE;
  int i0 = 0, i1 = 0, i2 = 0;
  bool is_signed = false;
  unsigned long long u0 = 0, u1 = 0, u2 = 0, u3 = 0, u4 = 0, u5 = 0;
  const char *text = nullptr;
};

#if defined(__CUDACC__)
// Copies a NUL-terminated string into a slot's field, cut to fit.
GSHMEM_DEVICE void report_copy_string(char *dst, unsigned size, const char *src) {
  unsigned i = 0;
  if (src != nullptr)
    for (; i + 1 < size && src[i] != '\0'; ++i) dst[i] = src[i];
  dst[i] = '\0';
}

// Records `f` for routine `routine` of PE `pe` in `area` (mapped host
// memory; NULL before init: nothing is recorded). Inlined, no call: see
// the top of this file.
GSHMEM_DEVICE void record_device_failure(gshmemi_device_report_t *area, int pe, const char *routine,
                                         const device_failure &f) {
#if GSHMEM_IN_DEVICE_CODE
  if (area == nullptr) return;
  const unsigned k = atomicAdd_system(&area->claimed, 1u);
  if (k >= GSHMEMI_DEVICE_REPORT_SLOTS) {
    // Counted only. The threads that claimed the kept slots may be writing
    // them now (many threads of one kernel can fail at once: a block's
    // polls), and a trap from here would end the kernel under them and lose
    // their records: so sleep first, a few milliseconds, far more than a
    // record takes. Straight-line sleeps: a loop here (polling the slots'
    // ready flags) took user kernels holding a collective past 64 registers.
    __nanosleep(1000000);
    __nanosleep(1000000);
    __nanosleep(1000000);
    __nanosleep(1000000);
    return;
  }
  gshmemi_device_report_slot_t *s = &area->slot[k];
  s->kind = f.kind;
  s->pe = pe;
  s->i0 = f.i0;
  s->i1 = f.i1;
  s->i2 = f.i2;
  s->is_signed = f.is_signed ? 1 : 0;
  s->u0 = f.u0;
  s->u1 = f.u1;
  s->u2 = f.u2;
  s->u3 = f.u3;
  s->u4 = f.u4;
  s->u5 = f.u5;
  report_copy_string(s->routine, sizeof s->routine, routine);
  report_copy_string(s->text, sizeof s->text, f.text);
  __threadfence_system();
  atomicExch_system(&s->ready, 1u);
#else
  (void)area, (void)pe, (void)routine, (void)f;
#endif
}

// Records `f` for `routine` of this PE (the runtime's report area).
GSHMEM_DEVICE void report_device_failure(const char *routine, const device_failure &f) {
  const gshmemi_device_state_t &s = gshmemi_state();
  record_device_failure(s.report, s.my_pe, routine, f);
}

// Records `f`, then traps: the kernel ends with an error that the host
// sees at its next synchronization, and the reporter prints the record.
GSHMEM_DEVICE void fail_device(const char *routine, const device_failure &f) {
  report_device_failure(routine, f);
#if GSHMEM_IN_DEVICE_CODE
  __trap();
#endif
}
#endif

}  // namespace detail
}  // namespace gshmem
#endif
