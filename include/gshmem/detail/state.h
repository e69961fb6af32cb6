// Device-visible runtime state, and how it reaches kernels without -rdc.
//
// Every translation unit that nvcc compiles with <gshmem/gshmem.h> gets its
// own copy of the state in __constant__ memory (internal linkage, so no
// relocatable device code is needed to share one symbol across files). A
// static registrar in that same unit hands the runtime a publisher function
// that copies the state into the unit's copy; the runtime calls every
// registered publisher at init (and at once for units registered later, e.g.
// a library loaded after init) and again at finalize. Device code reads the
// state through gshmemi_state(), which is the constant-cache copy on the GPU
// and the runtime's host copy on the CPU.
#pragma once

#include <gshmem/detail/config.h>
#include <stddef.h>
#include <string.h>

// Most PEs one job can have (the per-PE tables below are sized by it). A
// power of two: device translation wraps an index into peer_base with it.
#define GSHMEMI_MAX_PES 128
#if defined(__cplusplus)
static_assert((GSHMEMI_MAX_PES & (GSHMEMI_MAX_PES - 1)) == 0, "GSHMEMI_MAX_PES must be a power of two");
#endif

// The first bytes of every PE's symmetric heap belong to the runtime; user
// allocations start after them. Sub-areas, each owned by one component:
// The region is a whole number of 2 MiB pages (the VMM granularity), so the
// users' part starts on a page boundary, as the heap does. The team scratch
// is 32 KiB a team slot, so the LL collectives' ring (team_ll.h) carries up
// to 8 KiB of payload a call; the push area is 24 KiB a team slot, where the
// members of a reduction store their sources (team_collectives.h).
#define GSHMEMI_INTERNAL_REGION_BYTES   (4u << 20)
#define GSHMEMI_INTERNAL_SYNC_OFFSET    0u           /* device barrier / sync_all state */
#define GSHMEMI_INTERNAL_SYNC_BYTES     (256u << 10)
#define GSHMEMI_INTERNAL_STREAM_OFFSET  (256u << 10) /* on-stream runtime (host/ and device/) */
#define GSHMEMI_INTERNAL_STREAM_BYTES   (256u << 10)
#define GSHMEMI_INTERNAL_SCRATCH_OFFSET (512u << 10) /* runtime scratch: the teams' (detail/team_sync.h) */
#define GSHMEMI_INTERNAL_SCRATCH_BYTES  (2u << 20)
#define GSHMEMI_INTERNAL_PUSH_OFFSET    (5u << 19)   /* pushed reductions (detail/team_sync.h) */
#define GSHMEMI_INTERNAL_PUSH_BYTES     (3u << 19)

typedef struct gshmemi_device_state {
  int initialized;                     /* 1 between init and finalize */
  int my_pe;
  int n_pes;
  int collective_ll;                   /* 1: small device collectives take the LL protocol
                                          (GSHMEM_COLLECTIVE_LL, agreed by every PE at init; a
                                          one-thread call within collective_ll_thread_bytes) */
  char *heap_base;                     /* this PE's heap (local address) */
  unsigned long long heap_size;        /* bytes per PE, internal region included (the host's copy
                                          follows the heap's growth; device copies keep the size at
                                          init: device code bounds addresses by symmetric_span) */
  unsigned long long symmetric_span;   /* bytes of symmetric addresses from heap_base: the heap's
                                          addresses (up to GSHMEM_MAX_SYMMETRIC_SIZE), then the
                                          window of registered buffers (src/heap.h); heap_size
                                          on the legacy heap. Peer addresses are
                                          peer_base[pe] + (address - heap_base) for every address in
                                          [heap_base, heap_base + symmetric_span) */
  unsigned long long wait_timeout_ns;  /* GSHMEM_WAIT_TIMEOUT in ns; 0 = wait forever */
  const int *peer_lost_word;           /* mapped host word: 1 + a PE whose process ended, 0 while
                                          all live; NULL when no monitor runs (see src/liveness.h) */
  struct gshmemi_device_report *report; /* mapped host memory where device routines record failures
                                          they cannot return (detail/device_report.h); NULL before init */
  char *peer_base[GSHMEMI_MAX_PES];    /* each PE's heap as mapped here; NULL if unreachable and
                                          for every pe >= n_pes (device translation relies on it) */
  /* Remote peers (docs/remote.md): the request queue to the proxy thread
   * (detail/proxy_queue.h). slots is NULL when every peer is P2P; then a pe
   * < n_pes whose peer_base is NULL is unreachable. Otherwise such a PE is
   * remote and device routines queue requests for it. */
  struct gshmemi_device_proxy {
    void *slots;                        /* proxy_request[capacity], mapped pinned host memory */
    unsigned long long capacity;        /* a power of two */
    unsigned long long *tail;           /* device memory */
    unsigned long long *head;           /* mapped pinned host memory (the proxy writes it) */
    unsigned long long *head_seen;      /* device memory */
    unsigned long long *completed;      /* mapped pinned host memory (the proxy writes it) */
    unsigned long long *results;        /* device memory: one word per hardware thread slot, where
                                           the proxy writes fetched values and small get data */
    unsigned long long results_per_sm;  /* words per SM (its most resident threads) */
    unsigned long long result_sms;      /* SM ids covered (larger ids wrap around) */
    unsigned long long *values;         /* device memory, 2 * capacity words: each request's value
                                           (proxy_queue.h), or NULL */
    unsigned long long *host_values;    /* mapped pinned host memory, 2 * capacity words: the values
                                           of a warp's run of p's (proxy_queue.h put_run), or NULL */
  } proxy;
  unsigned long long peer_reach[GSHMEMI_MAX_PES + 1]; /* bytes of symmetric addresses (from heap_base) that
                                          reach PE pe through its mapping: symmetric_span where
                                          peer_base[pe] is mapped, 0 where it is NULL (the runtime
                                          derives it from peer_base: gshmemi_set_peer_reach). Device
                                          translation tests `address - heap_base < peer_reach[pe]`:
                                          one compare against a per-PE entry, which the compiler
                                          keeps in a register across a loop like peer_base[pe].
                                          Appended, like any later field: a unit compiled against
                                          an earlier header copies and reads the prefix it knows.
                                          The other way round does not hold: headers newer than
                                          the library read fields it never wrote, so a program
                                          uses the headers of the library it links (one install).
                                          The last entry, for every pe outside [0, MAX_PES), is 0 */
  unsigned long long collective_ll_thread_bytes; /* with collective_ll: the most a one-thread call may
                                          cost on the LL protocol (ll_thread_cost of detail/team_ll.h,
                                          bytes a member); costlier one-thread calls take the two-sync
                                          path (GSHMEM_COLLECTIVE_LL_THREAD_BYTES, agreed at init) */
} gshmemi_device_state_t;

// Derives peer_reach[] from peer_base[] and symmetric_span. The runtime
// calls it whenever it changes either, before it publishes the state.
static inline void gshmemi_set_peer_reach(gshmemi_device_state_t *state) {
  for (int pe = 0; pe < GSHMEMI_MAX_PES; ++pe)
    state->peer_reach[pe] = state->peer_base[pe] != NULL ? state->symmetric_span : 0ull;
  state->peer_reach[GSHMEMI_MAX_PES] = 0ull;
}

// The name of the state in a module built with GSHMEMI_STATE_EXPORTED (see
// below), as cuModuleGetGlobal looks it up.
#define GSHMEMI_DEVICE_STATE_SYMBOL "gshmemi_device_state"

typedef int (*gshmemi_state_publisher_t)(const gshmemi_device_state_t *state);

GSHMEM_BEGIN_EXTERN_C
/* Registers a translation unit's publisher; publishes at once if initialized. */
GSHMEM_API void gshmemi_register_state_publisher(gshmemi_state_publisher_t publish);
GSHMEM_API void gshmemi_unregister_state_publisher(gshmemi_state_publisher_t publish);
/* The runtime's host copy of the state (zeroed before init). Never NULL. */
GSHMEM_API const gshmemi_device_state_t *gshmemi_host_state(void);
GSHMEM_END_EXTERN_C

#if defined(__CUDACC__)
#include <cuda_runtime.h>

#if defined(GSHMEMI_STATE_EXPORTED)
// Device code for modules that the driver API loads (the Triton bitcode,
// device/triton/): the module's one copy of the state under the unmangled
// name GSHMEMI_DEVICE_STATE_SYMBOL, with external linkage so that it keeps
// that name through linking and shows in the loaded module, where
// gshmemx_cumodule_init (<gshmem/launch.h>) finds it and keeps it published.
// No registrar: such a unit has no host code.
extern "C" {
__constant__ gshmemi_device_state_t gshmemi_device_state;
}
#else
static __constant__ gshmemi_device_state_t gshmemi_device_state;

static int gshmemi_publish_device_state(const gshmemi_device_state_t *state) {
  return (int)cudaMemcpyToSymbol(gshmemi_device_state, state, sizeof(*state));
}

namespace {
struct gshmemi_state_registrar {
  gshmemi_state_registrar() { gshmemi_register_state_publisher(&gshmemi_publish_device_state); }
  ~gshmemi_state_registrar() { gshmemi_unregister_state_publisher(&gshmemi_publish_device_state); }
};
gshmemi_state_registrar gshmemi_state_registrar_instance;
}  // namespace
#endif

GSHMEM_HD const gshmemi_device_state_t &gshmemi_state() {
#if GSHMEM_IN_DEVICE_CODE
  return gshmemi_device_state;
#else
  return *gshmemi_host_state();
#endif
}

// Reads one field of the state as a load the compiler may move, merge and
// hoist out of loops. The state is __constant__ and written only between
// kernel launches, so it is invariant while a kernel runs; an ordinary read
// of it is re-issued after every asm with a "memory" clobber (every poll of
// a wait loop), which puts an indexed constant load between a poll's
// acquire and the store that answers it. `field` must be a field of
// gshmemi_state(). Host: a plain read.
template <class T>
GSHMEM_HD T gshmemi_state_invariant(const T &field) {
  static_assert(sizeof(T) == 8, "state fields of 8 bytes (pointers, sizes)");
#if GSHMEM_IN_DEVICE_CODE
  unsigned long long v;
  asm("ld.const.u64 %0, [%1];" : "=l"(v) : "l"(__cvta_generic_to_constant(&field)));  // no volatile, no clobber
  T out;
  memcpy(&out, &v, sizeof(T));
  return out;
#else
  return field;
#endif
}
#else
inline const gshmemi_device_state_t &gshmemi_state() { return *gshmemi_host_state(); }
#endif
