// NVSHMEM names for the part of NVSHMEM that gshmem implements.
//
// Linking the CMake target gshmem::nvshmem puts this folder on the include
// path, so that a program written for NVSHMEM finds <nvshmem.h> and
// <nvshmemx.h> here (as NVSHMEM's does, <nvshmem.h> includes <nvshmemx.h>). Each NVSHMEM name is an inline forward to the gshmem
// routine of the same meaning and ordering (the compiler inlines it: no
// extra cost), generated from gshmem's type tables (include/gshmem/types.h),
// so every type gshmem supports has its NVSHMEM name. Device routines need
// no -rdc.
//
// What is here (status of the port): initialization and the heap (host),
// my_pe / n_pes / ptr, p / g / put / get [_nbi], putmem / getmem [_nbi],
// the sized putSIZE / getSIZE [_nbi], the strided iput / iget (per type and
// sized) and the standard atomics (host and device),
// put_signal / putmem_signal [_nbi], signal_fetch, the standard atomics,
// fence / quiet, and the whole point-to-point synchronization family
// (wait_until, test, _all / _any / _some [_vector], signal_wait_until).
// Device-side collectives (sections at the end of this file and of
// <nvshmemx.h>): barrier_all / sync_all (one thread; warp / block forms);
// teams (WORLD, SHARED, NODE, SAME_MYPE_NODE, split_strided, destroy, my_pe / n_pes / translate_pe,
// team_sync and barrier on host, device and stream); collective launch
// (<nvshmemx.h>); max/min/sum/prod reductions, fcollect, broadcast, alltoall
// and their *mem forms (host, device, warp, block, on stream); registration of a program's own buffers
// (<nvshmemx.h>); max/min/sum/prod/and/or/xor reductions, reducescatter
// and fcollect (host, device, warp, block, on stream); registration of a program's own buffers
// (nvshmemx_buffer_register_symmetric / _unregister_symmetric, <nvshmemx.h>).
// NVSHMEM routines gshmem does not provide are not declared: a call to one
// fails to compile and the compiler's message names it. Conversely, only
// names NVSHMEM (3.5.1 or 3.8.0) declares are here, so a program that compiles
// against these headers compiles against NVSHMEM's: gshmem's own additions
// (ptrdiff reductions and reducescatters, float compare_swap, OpenSHMEM's
// deprecated _wait)
// keep their gshmem_ names only.
#pragma once

#include <gshmem/gshmem.h>
#include <gshmem/gshmemx.h>

/* NVSHMEM's <nvshmem.h> brings in the CUDA driver and runtime API headers;
 * programs use their names (CUresult, cuMemCreate, ...) without including
 * them, so this header does the same. Types only: nothing here links libcuda. */
#include <cuda.h>
#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define NVSHMEM_CMP_EQ GSHMEM_CMP_EQ
#define NVSHMEM_CMP_NE GSHMEM_CMP_NE
#define NVSHMEM_CMP_GT GSHMEM_CMP_GT
#define NVSHMEM_CMP_GE GSHMEM_CMP_GE
#define NVSHMEM_CMP_LT GSHMEM_CMP_LT
#define NVSHMEM_CMP_LE GSHMEM_CMP_LE
#define NVSHMEM_SIGNAL_SET GSHMEM_SIGNAL_SET
#define NVSHMEM_SIGNAL_ADD GSHMEM_SIGNAL_ADD
/* NVSHMEM's enumeration types of these constants, as int: the constants
 * are macros here, so a variable of either type takes them as with NVSHMEM. */
typedef int nvshmemx_cmp_type_t;
typedef int nvshmemx_signal_op_t;

#if defined(__CUDACC__)
#define GSHMEMI_NV_HD static inline __host__ __device__
#define GSHMEMI_NV_DEVICE static __device__ __forceinline__
#else
#define GSHMEMI_NV_HD static inline
#endif

/* ------------------------------------------------------------------- host
 * nvshmem_init returns nothing. NVSHMEM's, when init fails, prints and ends
 * the process; gshmem never ends the process on an error, so here a failed
 * init prints ONE line to stderr, "nvshmem_init: gshmem_init failed: <gshmem's
 * error string> (GSHMEMX_ERROR code <n>); the program continues
 * uninitialized ...", after gshmem's own log line (which names the PE where
 * the job got that far, and the detail), and returns. The program then runs
 * uninitialized: nvshmemx_init_status() reports
 * NVSHMEM_STATUS_NOT_INITIALIZED, gshmemx_get_last_error() the code, and
 * every later call reports use before init as it would without the init
 * (nvshmem_malloc returns NULL, nvshmem_my_pe -1). Called again once
 * initialized, it does nothing, as NVSHMEM's. */
static inline void nvshmem_init(void) {
  if (gshmemx_initialized()) return;
  const int status = gshmem_init();
  if (status != GSHMEM_SUCCESS)
    fprintf(stderr,
            "nvshmem_init: gshmem_init failed: %s (GSHMEMX_ERROR code %d); the program continues uninitialized "
            "(nvshmemx_init_status() is NVSHMEM_STATUS_NOT_INITIALIZED, later calls report use before init)\n",
            gshmemx_error_string(status), status);
}
static inline void nvshmem_finalize(void) { gshmem_finalize(); }
/* Thread levels (NVSHMEM's values and type). gshmem's host routines may be
 * called from several host threads at once, collectives by one thread per
 * PE at a time in the same order on every PE (docs/api.md, "Threads"): the
 * OpenSHMEM rules of NVSHMEM_THREAD_MULTIPLE, the level provided whatever
 * is requested. nvshmem_init_thread initializes as nvshmem_init and returns
 * gshmem's status (0 on success; NVSHMEM's ends the process on failure);
 * a requested level outside SINGLE .. MULTIPLE is refused with a message
 * and GSHMEMX_ERROR_INVALID_VALUE, nothing initialized. provided may be NULL. */
typedef enum {
  NVSHMEM_THREAD_SINGLE = 0,
  NVSHMEM_THREAD_FUNNELED,
  NVSHMEM_THREAD_SERIALIZED,
  NVSHMEM_THREAD_MULTIPLE,
  NVSHMEM_THREAD_TYPE_SENTINEL = 2147483647
} nvshmemx_thread_support_t;
static inline int nvshmem_init_thread(int requested, int *provided) {
  if (requested < NVSHMEM_THREAD_SINGLE || requested > NVSHMEM_THREAD_MULTIPLE) {
    fprintf(stderr, "nvshmem_init_thread: requested thread level %d is not one of NVSHMEM_THREAD_SINGLE (0) .. "
                    "NVSHMEM_THREAD_MULTIPLE (3); not initialized\n", requested);
    return GSHMEMX_ERROR_INVALID_VALUE;
  }
  const int status = gshmemx_initialized() ? GSHMEM_SUCCESS : gshmem_init();
  if (status == GSHMEM_SUCCESS && provided) *provided = NVSHMEM_THREAD_MULTIPLE;
  return status;
}
static inline void nvshmem_query_thread(int *provided) {
  if (provided) *provided = NVSHMEM_THREAD_MULTIPLE;
}
static inline void *nvshmem_malloc(size_t size) { return gshmem_malloc(size); }
static inline void *nvshmem_calloc(size_t count, size_t size) { return gshmem_calloc(count, size); }
static inline void nvshmem_free(void *ptr) { gshmem_free(ptr); }
static inline void *nvshmem_align(size_t alignment, size_t size) { return gshmem_align(alignment, size); }

/* ------------------------------------------------------ host and device */
GSHMEMI_NV_HD int nvshmem_my_pe(void) { return gshmem_my_pe(); }
GSHMEMI_NV_HD int nvshmem_n_pes(void) { return gshmem_n_pes(); }
GSHMEMI_NV_HD void *nvshmem_ptr(const void *dest, int pe) { return gshmem_ptr(dest, pe); }
/* The multicast address of ptr for a team: NULL, gshmem having no
 * multicast objects (NVSHMEM's own result where multicast is not
 * supported); programs then use nvshmem_ptr or RMA. */
GSHMEMI_NV_HD void *nvshmemx_mc_ptr(int team, const void *ptr) {
  (void)team, (void)ptr;
  return NULL;
}
GSHMEMI_NV_HD void nvshmem_quiet(void) { gshmem_quiet(); }
GSHMEMI_NV_HD void nvshmem_fence(void) { gshmem_fence(); }

#if defined(__CUDACC__)
/* ----------------------------------------------------------------- device */

/* Point-to-point synchronization, every type of GSHMEM_FOR_EACH_SYNC_TYPE. */
#define GSHMEMI_NV_SYNC_ARRAY(T, TYPE, KIND, ALL_RET)                                                     \
  GSHMEMI_NV_DEVICE ALL_RET nvshmem_##T##_##KIND##_all(TYPE *ivars, size_t n, const int *status, int cmp,  \
                                                       TYPE value) {                                       \
    return gshmem_##T##_##KIND##_all(ivars, n, status, cmp, value);                                       \
  }                                                                                                        \
  GSHMEMI_NV_DEVICE ALL_RET nvshmem_##T##_##KIND##_all_vector(TYPE *ivars, size_t n, const int *status,    \
                                                              int cmp, TYPE *values) {                     \
    return gshmem_##T##_##KIND##_all_vector(ivars, n, status, cmp, values);                               \
  }                                                                                                        \
  GSHMEMI_NV_DEVICE size_t nvshmem_##T##_##KIND##_any(TYPE *ivars, size_t n, const int *status, int cmp,   \
                                                      TYPE value) {                                        \
    return gshmem_##T##_##KIND##_any(ivars, n, status, cmp, value);                                       \
  }                                                                                                        \
  GSHMEMI_NV_DEVICE size_t nvshmem_##T##_##KIND##_any_vector(TYPE *ivars, size_t n, const int *status,     \
                                                             int cmp, TYPE *values) {                      \
    return gshmem_##T##_##KIND##_any_vector(ivars, n, status, cmp, values);                               \
  }                                                                                                        \
  GSHMEMI_NV_DEVICE size_t nvshmem_##T##_##KIND##_some(TYPE *ivars, size_t n, size_t *indices,             \
                                                       const int *status, int cmp, TYPE value) {           \
    return gshmem_##T##_##KIND##_some(ivars, n, indices, status, cmp, value);                             \
  }                                                                                                        \
  GSHMEMI_NV_DEVICE size_t nvshmem_##T##_##KIND##_some_vector(TYPE *ivars, size_t n, size_t *indices,      \
                                                              const int *status, int cmp, TYPE *values) {  \
    return gshmem_##T##_##KIND##_some_vector(ivars, n, indices, status, cmp, values);                     \
  }
#define GSHMEMI_NV_SYNC(T, TYPE)                                                                   \
  GSHMEMI_NV_DEVICE void nvshmem_##T##_wait_until(TYPE *ivar, int cmp, TYPE value) {               \
    gshmem_##T##_wait_until(ivar, cmp, value);                                                     \
  }                                                                                                \
  GSHMEMI_NV_DEVICE int nvshmem_##T##_test(TYPE *ivar, int cmp, TYPE value) {                      \
    return gshmem_##T##_test(ivar, cmp, value);                                                    \
  }                                                                                                \
  GSHMEMI_NV_SYNC_ARRAY(T, TYPE, wait_until, void)                                                 \
  GSHMEMI_NV_SYNC_ARRAY(T, TYPE, test, int)
GSHMEM_FOR_EACH_SYNC_TYPE(GSHMEMI_NV_SYNC)
#undef GSHMEMI_NV_SYNC
#undef GSHMEMI_NV_SYNC_ARRAY

GSHMEMI_NV_DEVICE uint64_t nvshmem_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t value) {
  return gshmem_signal_wait_until(sig_addr, cmp, value);
}

#endif  // __CUDACC__

/* Host and device, as NVSHMEM's (<gshmem/update.h>). */
GSHMEMI_NV_HD uint64_t nvshmem_signal_fetch(uint64_t *sig_addr) { return gshmem_signal_fetch(sig_addr); }

/* ---------------------------------------------------------- host and device
 * RMA, every type of GSHMEM_FOR_EACH_RMA_TYPE, and the untyped forms; the
 * standard atomics. In host code these are gshmem's host RMA and atomics
 * (<gshmem/update.h>: a copy or a one-thread kernel on the runtime's stream;
 * host nvshmem_quiet completes the _nbi and non-fetching forms). */
#define GSHMEMI_NV_RMA(T, TYPE)                                                                           \
  GSHMEMI_NV_HD void nvshmem_##T##_p(TYPE *dest, const TYPE value, int pe) { gshmem_##T##_p(dest, value, pe); } \
  GSHMEMI_NV_HD TYPE nvshmem_##T##_g(const TYPE *source, int pe) { return gshmemx_##T##_g_weak(source, pe); } \
  GSHMEMI_NV_HD void nvshmem_##T##_put(TYPE *dest, const TYPE *source, size_t n, int pe) {            \
    gshmem_##T##_put(dest, source, n, pe);                                                                \
  }                                                                                                       \
  GSHMEMI_NV_HD void nvshmem_##T##_put_nbi(TYPE *dest, const TYPE *source, size_t n, int pe) {        \
    gshmem_##T##_put_nbi(dest, source, n, pe);                                                            \
  }                                                                                                       \
  GSHMEMI_NV_HD void nvshmem_##T##_get(TYPE *dest, const TYPE *source, size_t n, int pe) {            \
    gshmem_##T##_get(dest, source, n, pe);                                                                \
  }                                                                                                       \
  GSHMEMI_NV_HD void nvshmem_##T##_get_nbi(TYPE *dest, const TYPE *source, size_t n, int pe) {        \
    gshmem_##T##_get_nbi(dest, source, n, pe);                                                            \
  }
GSHMEM_FOR_EACH_RMA_TYPE(GSHMEMI_NV_RMA)
#undef GSHMEMI_NV_RMA

GSHMEMI_NV_HD void nvshmem_putmem(void *dest, const void *source, size_t bytes, int pe) {
  gshmem_putmem(dest, source, bytes, pe);
}
GSHMEMI_NV_HD void nvshmem_putmem_nbi(void *dest, const void *source, size_t bytes, int pe) {
  gshmem_putmem_nbi(dest, source, bytes, pe);
}
GSHMEMI_NV_HD void nvshmem_getmem(void *dest, const void *source, size_t bytes, int pe) {
  gshmem_getmem(dest, source, bytes, pe);
}
GSHMEMI_NV_HD void nvshmem_getmem_nbi(void *dest, const void *source, size_t bytes, int pe) {
  gshmem_getmem_nbi(dest, source, bytes, pe);
}
/* Sized (putSIZE / getSIZE [_nbi]) and strided (TYPENAME_iput / iget,
 * iputSIZE / igetSIZE) RMA, host and device: gshmem's routines of the same
 * names (<gshmem/update.h>), from GSHMEM_FOR_EACH_RMA_SIZE and the RMA
 * table; nelems counts elements of SIZE bits (of TYPE), strides elements. */
#define GSHMEMI_NV_SIZED_RMA(SIZE, BYTES)                                                                  \
  GSHMEMI_NV_HD void nvshmem_put##SIZE(void *dest, const void *source, size_t nelems, int pe) {           \
    gshmem_put##SIZE(dest, source, nelems, pe);                                                            \
  }                                                                                                        \
  GSHMEMI_NV_HD void nvshmem_put##SIZE##_nbi(void *dest, const void *source, size_t nelems, int pe) {     \
    gshmem_put##SIZE##_nbi(dest, source, nelems, pe);                                                      \
  }                                                                                                        \
  GSHMEMI_NV_HD void nvshmem_get##SIZE(void *dest, const void *source, size_t nelems, int pe) {           \
    gshmem_get##SIZE(dest, source, nelems, pe);                                                            \
  }                                                                                                        \
  GSHMEMI_NV_HD void nvshmem_get##SIZE##_nbi(void *dest, const void *source, size_t nelems, int pe) {     \
    gshmem_get##SIZE##_nbi(dest, source, nelems, pe);                                                      \
  }                                                                                                        \
  GSHMEMI_NV_HD void nvshmem_iput##SIZE(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,     \
                                        size_t nelems, int pe) {                                           \
    gshmem_iput##SIZE(dest, source, dst, sst, nelems, pe);                                                 \
  }                                                                                                        \
  GSHMEMI_NV_HD void nvshmem_iget##SIZE(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,     \
                                        size_t nelems, int pe) {                                           \
    gshmem_iget##SIZE(dest, source, dst, sst, nelems, pe);                                                 \
  }
GSHMEM_FOR_EACH_RMA_SIZE(GSHMEMI_NV_SIZED_RMA)
#undef GSHMEMI_NV_SIZED_RMA
#define GSHMEMI_NV_STRIDED_RMA(T, TYPE)                                                                    \
  GSHMEMI_NV_HD void nvshmem_##T##_iput(TYPE *dest, const TYPE *source, ptrdiff_t dst, ptrdiff_t sst,     \
                                        size_t nelems, int pe) {                                           \
    gshmem_##T##_iput(dest, source, dst, sst, nelems, pe);                                                 \
  }                                                                                                        \
  GSHMEMI_NV_HD void nvshmem_##T##_iget(TYPE *dest, const TYPE *source, ptrdiff_t dst, ptrdiff_t sst,     \
                                        size_t nelems, int pe) {                                           \
    gshmem_##T##_iget(dest, source, dst, sst, nelems, pe);                                                 \
  }
GSHMEM_FOR_EACH_RMA_TYPE(GSHMEMI_NV_STRIDED_RMA)
#undef GSHMEMI_NV_STRIDED_RMA

/* Atomics: fetch/set/swap (AMO and float types), compare_swap, inc/add
 * (AMO types: NVSHMEM has no float compare_swap), and/or/xor (bitwise
 * types). */
#define GSHMEMI_NV_AMO_BASIC(T, TYPE)                                                                       \
  GSHMEMI_NV_HD TYPE nvshmem_##T##_atomic_fetch(const TYPE *source, int pe) {                           \
    return gshmem_##T##_atomic_fetch(source, pe);                                                           \
  }                                                                                                         \
  GSHMEMI_NV_HD void nvshmem_##T##_atomic_set(TYPE *dest, TYPE value, int pe) {                         \
    gshmem_##T##_atomic_set(dest, value, pe);                                                               \
  }                                                                                                         \
  GSHMEMI_NV_HD TYPE nvshmem_##T##_atomic_swap(TYPE *dest, TYPE value, int pe) {                        \
    return gshmem_##T##_atomic_swap(dest, value, pe);                                                       \
  }
#define GSHMEMI_NV_AMO_ARITH(T, TYPE)                                                                       \
  GSHMEMI_NV_HD TYPE nvshmem_##T##_atomic_compare_swap(TYPE *dest, TYPE cond, TYPE value, int pe) {     \
    return gshmem_##T##_atomic_compare_swap(dest, cond, value, pe);                                         \
  }                                                                                                         \
  GSHMEMI_NV_HD TYPE nvshmem_##T##_atomic_fetch_inc(TYPE *dest, int pe) {                               \
    return gshmem_##T##_atomic_fetch_inc(dest, pe);                                                         \
  }                                                                                                         \
  GSHMEMI_NV_HD void nvshmem_##T##_atomic_inc(TYPE *dest, int pe) { gshmem_##T##_atomic_inc(dest, pe); } \
  GSHMEMI_NV_HD TYPE nvshmem_##T##_atomic_fetch_add(TYPE *dest, TYPE value, int pe) {                   \
    return gshmem_##T##_atomic_fetch_add(dest, value, pe);                                                  \
  }                                                                                                         \
  GSHMEMI_NV_HD void nvshmem_##T##_atomic_add(TYPE *dest, TYPE value, int pe) {                         \
    gshmem_##T##_atomic_add(dest, value, pe);                                                               \
  }
#define GSHMEMI_NV_AMO_BITWISE_OP(T, TYPE, op)                                                              \
  GSHMEMI_NV_HD TYPE nvshmem_##T##_atomic_fetch_##op(TYPE *dest, TYPE value, int pe) {                  \
    return gshmem_##T##_atomic_fetch_##op(dest, value, pe);                                                 \
  }                                                                                                         \
  GSHMEMI_NV_HD void nvshmem_##T##_atomic_##op(TYPE *dest, TYPE value, int pe) {                        \
    gshmem_##T##_atomic_##op(dest, value, pe);                                                              \
  }
#define GSHMEMI_NV_AMO_BITWISE(T, TYPE)       \
  GSHMEMI_NV_AMO_BITWISE_OP(T, TYPE, and)     \
  GSHMEMI_NV_AMO_BITWISE_OP(T, TYPE, or)      \
  GSHMEMI_NV_AMO_BITWISE_OP(T, TYPE, xor)
GSHMEM_FOR_EACH_AMO_TYPE(GSHMEMI_NV_AMO_BASIC)
GSHMEM_FOR_EACH_AMO_FLOAT_TYPE(GSHMEMI_NV_AMO_BASIC)
GSHMEM_FOR_EACH_AMO_TYPE(GSHMEMI_NV_AMO_ARITH)
GSHMEM_FOR_EACH_AMO_BITWISE_TYPE(GSHMEMI_NV_AMO_BITWISE)
#undef GSHMEMI_NV_AMO_BITWISE
#undef GSHMEMI_NV_AMO_BITWISE_OP
#undef GSHMEMI_NV_AMO_ARITH
#undef GSHMEMI_NV_AMO_BASIC

#if defined(__CUDACC__)
/* ------------------------------------------------- device: put with signal */
#define GSHMEMI_NV_PUT_SIGNAL(T, TYPE)                                                                    \
  GSHMEMI_NV_DEVICE void nvshmem_##T##_put_signal(TYPE *dest, const TYPE *source, size_t n,               \
                                                  uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) { \
    gshmem_##T##_put_signal(dest, source, n, sig_addr, signal, sig_op, pe);                               \
  }                                                                                                       \
  GSHMEMI_NV_DEVICE void nvshmem_##T##_put_signal_nbi(TYPE *dest, const TYPE *source, size_t n,           \
                                                      uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) { \
    gshmem_##T##_put_signal_nbi(dest, source, n, sig_addr, signal, sig_op, pe);                           \
  }
GSHMEM_FOR_EACH_RMA_TYPE(GSHMEMI_NV_PUT_SIGNAL)
#undef GSHMEMI_NV_PUT_SIGNAL

#define GSHMEMI_NV_SIZED_PUT_SIGNAL(SIZE, BYTES)                                                          \
  GSHMEMI_NV_DEVICE void nvshmem_put##SIZE##_signal(void *dest, const void *source, size_t nelems,         \
                                                    uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) { \
    gshmem_put##SIZE##_signal(dest, source, nelems, sig_addr, signal, sig_op, pe);                         \
  }                                                                                                        \
  GSHMEMI_NV_DEVICE void nvshmem_put##SIZE##_signal_nbi(void *dest, const void *source, size_t nelems,     \
                                                        uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) { \
    gshmem_put##SIZE##_signal_nbi(dest, source, nelems, sig_addr, signal, sig_op, pe);                     \
  }
GSHMEM_FOR_EACH_RMA_SIZE(GSHMEMI_NV_SIZED_PUT_SIGNAL)
#undef GSHMEMI_NV_SIZED_PUT_SIGNAL

GSHMEMI_NV_DEVICE void nvshmem_putmem_signal(void *dest, const void *source, size_t bytes, uint64_t *sig_addr,
                                             uint64_t signal, int sig_op, int pe) {
  gshmem_putmem_signal(dest, source, bytes, sig_addr, signal, sig_op, pe);
}
GSHMEMI_NV_DEVICE void nvshmem_putmem_signal_nbi(void *dest, const void *source, size_t bytes, uint64_t *sig_addr,
                                                 uint64_t signal, int sig_op, int pe) {
  gshmem_putmem_signal_nbi(dest, source, bytes, sig_addr, signal, sig_op, pe);
}

#endif  // __CUDACC__

/* ======================================================= init, status, exit, info (host)
 * NVSHMEM's init attributes and unique ids are gshmem's (<gshmem/runtime.h>):
 * programs set them with nvshmemx_set_attr_* (<nvshmemx.h>) or the
 * mpi_comm field, as with NVSHMEM. nvshmem_global_exit is host only here:
 * NVSHMEM's device form ends the job through its host proxy thread, which
 * gshmem does not have (docs/nvshmem.md). */
typedef gshmemx_init_attr_t nvshmemx_init_attr_t;
typedef gshmemx_uniqueid_t nvshmemx_uniqueid_t;
#define NVSHMEMX_INIT_ATTR_INITIALIZER GSHMEMX_INIT_ATTR_INITIALIZER
#define NVSHMEMX_UNIQUEID_INITIALIZER GSHMEMX_UNIQUEID_INITIALIZER

/* NVSHMEM's values. gshmem has no bootstrapped-but-not-initialized state
 * and no multi-process-per-GPU modes: nvshmemx_init_status() returns
 * NVSHMEM_STATUS_IS_INITIALIZED or NVSHMEM_STATUS_NOT_INITIALIZED. */
#define NVSHMEM_STATUS_NOT_INITIALIZED 0
#define NVSHMEM_STATUS_IS_BOOTSTRAPPED 1
#define NVSHMEM_STATUS_IS_INITIALIZED  2
#define NVSHMEM_STATUS_LIMITED_MPG     3
#define NVSHMEM_STATUS_FULL_MPG        4
#define NVSHMEM_STATUS_INVALID         2147483647
typedef int nvshmemx_init_status_t;
static inline int nvshmemx_init_status(void) {
  return gshmemx_initialized() ? NVSHMEM_STATUS_IS_INITIALIZED : NVSHMEM_STATUS_NOT_INITIALIZED;
}

static inline void nvshmem_global_exit(int status) { gshmem_global_exit(status); }

#define NVSHMEM_MAJOR_VERSION GSHMEM_MAJOR_VERSION
#define NVSHMEM_MINOR_VERSION GSHMEM_MINOR_VERSION
#define NVSHMEM_MAX_NAME_LEN GSHMEM_MAX_NAME_LEN
#define NVSHMEM_VENDOR_STRING GSHMEM_VENDOR_STRING
GSHMEMI_NV_HD void nvshmem_info_get_version(int *major, int *minor) { gshmem_info_get_version(major, minor); }
GSHMEMI_NV_HD void nvshmem_info_get_name(char *name) { gshmem_info_get_name(name); }
/* NVSHMEM's vendor version, at compile time and at run time, is the NVSHMEM
 * release whose API these headers follow (3.8.0; 3.5.1's names, which 3.8
 * dropped a few of, are kept too): programs test it to pick
 * between API generations (#if NVSHMEM_VENDOR_MAJOR_VERSION >= 3), and an
 * undefined macro would silently read as 0. The library behind the names is
 * named by nvshmem_info_get_name ("gshmem <version>") and GSHMEM_VERSION_*. */
#define NVSHMEM_VENDOR_MAJOR_VERSION 3
#define NVSHMEM_VENDOR_MINOR_VERSION 8
#define NVSHMEM_VENDOR_PATCH_VERSION 0
#define NVSHMEM_VENDOR_VERSION \
  ((NVSHMEM_VENDOR_MAJOR_VERSION)*10000 + (NVSHMEM_VENDOR_MINOR_VERSION)*100 + (NVSHMEM_VENDOR_PATCH_VERSION))
GSHMEMI_NV_HD void nvshmemx_vendor_get_version_info(int *major, int *minor, int *patch) {
  *major = NVSHMEM_VENDOR_MAJOR_VERSION;
  *minor = NVSHMEM_VENDOR_MINOR_VERSION;
  *patch = NVSHMEM_VENDOR_PATCH_VERSION;
}
/* =================================================== end init, status, exit, info */

/* ============================================================ barriers
 * nvshmem_barrier_all / nvshmem_sync_all: host and device. In device code
 * NVSHMEM's forms are called by one thread: they map to gshmem's one-thread
 * barrier (gshmemx_barrier_all_thread / gshmemx_sync_all_thread); one caller
 * per PE at a time, as NVSHMEM requires. On the host, gshmem's host barrier. */
GSHMEMI_NV_HD void nvshmem_barrier_all(void) {
#if GSHMEM_IN_DEVICE_CODE
  gshmemx_barrier_all_thread();
#else
  gshmemi_host_barrier_all();
#endif
}
GSHMEMI_NV_HD void nvshmem_sync_all(void) {
#if GSHMEM_IN_DEVICE_CODE
  gshmemx_sync_all_thread();
#else
  gshmemi_host_sync_all();
#endif
}

/* =============================================================== teams
 * Handles are gshmem's (<gshmem/team.h>), with NVSHMEM's numbers (INVALID
 * -1, WORLD 0, SHARED 1, NODE 2, SAME_MYPE_NODE 3). On gshmem's single node
 * the shared and node teams hold every PE and SAME_MYPE_NODE this PE alone.
 * nvshmem_team_config_t is accepted and ignored (gshmem has no contexts).
 * nvshmem_team_sync / nvshmem_barrier: host and device; in device code
 * called by one thread (warp/block forms in <nvshmemx.h>). */
typedef gshmem_team_t nvshmem_team_t;
typedef nvshmem_team_t nvshmemx_team_t;
typedef gshmem_team_config_t nvshmem_team_config_t;
/* NVSHMEM's initializers, for gshmem's config (no version field: gshmem's
 * config has num_contexts and uniqueid only; no id is 0 here where NVSHMEM
 * uses all ones, so compare with the macro, not a number). */
#define NVSHMEM_TEAM_UNIQUID_INITIALIZER GSHMEMX_TEAM_UNIQUEID_INVALID
#define NVSHMEM_TEAM_CONFIG_INITIALIZER {0, NVSHMEM_TEAM_UNIQUID_INITIALIZER}
#define NVSHMEM_TEAM_INVALID GSHMEM_TEAM_INVALID
#define NVSHMEM_TEAM_WORLD GSHMEM_TEAM_WORLD
#define NVSHMEM_TEAM_SHARED GSHMEM_TEAM_SHARED
#define NVSHMEMX_TEAM_NODE GSHMEMX_TEAM_NODE
#define NVSHMEMX_TEAM_SAME_MYPE_NODE GSHMEMX_TEAM_SAME_MYPE_NODE
#define NVSHMEM_TEAM_CONFIG_MASK_NUM_CONTEXTS GSHMEM_TEAM_NUM_CONTEXTS

static inline int nvshmem_team_split_strided(nvshmem_team_t parent_team, int start, int stride, int size,
                                             const nvshmem_team_config_t *config, long config_mask,
                                             nvshmem_team_t *new_team) {
  return gshmem_team_split_strided(parent_team, start, stride, size, config, config_mask, new_team);
}
static inline int nvshmem_team_split_2d(nvshmem_team_t parent_team, int xrange,
                                        const nvshmem_team_config_t *xaxis_config, long xaxis_mask,
                                        nvshmem_team_t *xaxis_team, const nvshmem_team_config_t *yaxis_config,
                                        long yaxis_mask, nvshmem_team_t *yaxis_team) {
  return gshmem_team_split_2d(parent_team, xrange, xaxis_config, xaxis_mask, xaxis_team, yaxis_config, yaxis_mask,
                              yaxis_team);
}
/* NVSHMEM's form has no mask: every field gshmem knows (num_contexts, 0).
 * An invalid team or NULL config is logged and config left unchanged. */
static inline void nvshmem_team_get_config(nvshmem_team_t team, nvshmem_team_config_t *config) {
  (void)gshmem_team_get_config(team, GSHMEM_TEAM_NUM_CONTEXTS, config);
}
static inline void nvshmem_team_destroy(nvshmem_team_t team) { gshmem_team_destroy(team); }
GSHMEMI_NV_HD int nvshmem_team_my_pe(nvshmem_team_t team) { return gshmem_team_my_pe(team); }
GSHMEMI_NV_HD int nvshmem_team_n_pes(nvshmem_team_t team) { return gshmem_team_n_pes(team); }
GSHMEMI_NV_HD int nvshmem_team_translate_pe(nvshmem_team_t src_team, int src_pe, nvshmem_team_t dest_team) {
  return gshmem_team_translate_pe(src_team, src_pe, dest_team);
}
GSHMEMI_NV_HD int nvshmem_team_sync(nvshmem_team_t team) { return gshmem_team_sync(team); }
GSHMEMI_NV_HD int nvshmem_barrier(nvshmem_team_t team) { return gshmemx_team_barrier(team); }

/* =================================================== small collectives
 * max/min/sum/prod reductions and fcollect over a team, host and device
 * (one thread) (<gshmem/collectives.h>): fcollect for every type of
 * GSHMEM_FOR_EACH_REDUCE_TYPE, the reductions for those NVSHMEM has (all
 * but ptrdiff). */
#define GSHMEMI_NV_REDUCE_OP(T, TYPE, OP)                                                                 \
  GSHMEMI_NV_HD int nvshmem_##T##_##OP##_reduce(nvshmem_team_t team, TYPE *dest, const TYPE *source,     \
                                                size_t nreduce) {                                         \
    return gshmem_##T##_##OP##_reduce(team, dest, source, nreduce);                                       \
  }
#define GSHMEMI_NV_REDUCTIONS(T, TYPE) GSHMEM_FOR_EACH_REDUCE_OP(GSHMEMI_NV_REDUCE_OP, T, TYPE)
#define GSHMEMI_NV_FCOLLECT(T, TYPE)                                                                      \
  GSHMEMI_NV_HD int nvshmem_##T##_fcollect(nvshmem_team_t team, TYPE *dest, const TYPE *source, size_t n) { \
    return gshmem_##T##_fcollect(team, dest, source, n);                                                  \
  }
GSHMEMI_FOR_EACH_RMA_TYPE_BUT_PTRDIFF(GSHMEMI_NV_REDUCTIONS)
GSHMEM_FOR_EACH_REDUCE_TYPE(GSHMEMI_NV_FCOLLECT)
#undef GSHMEMI_NV_FCOLLECT
#undef GSHMEMI_NV_REDUCTIONS
#undef GSHMEMI_NV_REDUCE_OP

/* ========================================= broadcast, alltoall, *mem
 * (<gshmem/collectives.h>): host and device (one thread), for every type of
 * GSHMEM_FOR_EACH_RMA_TYPE (NVSHMEM's half and bfloat16 forms are not
 * provided), and the byte forms broadcastmem, alltoallmem, fcollectmem. */
#define GSHMEMI_NV_DATA_COLLECTIVES(T, TYPE)                                                              \
  GSHMEMI_NV_HD int nvshmem_##T##_broadcast(nvshmem_team_t team, TYPE *dest, const TYPE *source, size_t n, \
                                            int PE_root) {                                                \
    return gshmem_##T##_broadcast(team, dest, source, n, PE_root);                                        \
  }                                                                                                       \
  GSHMEMI_NV_HD int nvshmem_##T##_alltoall(nvshmem_team_t team, TYPE *dest, const TYPE *source, size_t n) { \
    return gshmem_##T##_alltoall(team, dest, source, n);                                                  \
  }
GSHMEM_FOR_EACH_RMA_TYPE(GSHMEMI_NV_DATA_COLLECTIVES)
#undef GSHMEMI_NV_DATA_COLLECTIVES
GSHMEMI_NV_HD int nvshmem_broadcastmem(nvshmem_team_t team, void *dest, const void *source, size_t nelems,
                                       int PE_root) {
  return gshmem_broadcastmem(team, dest, source, nelems, PE_root);
}
GSHMEMI_NV_HD int nvshmem_alltoallmem(nvshmem_team_t team, void *dest, const void *source, size_t nelems) {
  return gshmem_alltoallmem(team, dest, source, nelems);
}
GSHMEMI_NV_HD int nvshmem_fcollectmem(nvshmem_team_t team, void *dest, const void *source, size_t nelems) {
  return gshmem_fcollectmem(team, dest, source, nelems);
}
/* and/or/xor reductions (every type of GSHMEM_FOR_EACH_REDUCE_BITWISE_TYPE,
 * NVSHMEM's list too) and reducescatter, for every operator and type of the
 * reductions above (<gshmem/collectives.h>). NVSHMEM's half and bfloat16
 * forms are not provided: gshmem has no such type. */
#define GSHMEMI_NV_REDUCTION(T, TYPE, OP, KIND)                                                          \
  GSHMEMI_NV_HD int nvshmem_##T##_##OP##_##KIND(nvshmem_team_t team, TYPE *dest, const TYPE *source,    \
                                                size_t nreduce) {                                        \
    return gshmem_##T##_##OP##_##KIND(team, dest, source, nreduce);                                      \
  }
#define GSHMEMI_NV_BITWISE_REDUCE(T, TYPE, OP) GSHMEMI_NV_REDUCTION(T, TYPE, OP, reduce)
#define GSHMEMI_NV_REDUCESCATTER(T, TYPE, OP) GSHMEMI_NV_REDUCTION(T, TYPE, OP, reducescatter)
#define GSHMEMI_NV_BITWISE(T, TYPE)                                          \
  GSHMEM_FOR_EACH_REDUCE_BITWISE_OP(GSHMEMI_NV_BITWISE_REDUCE, T, TYPE)      \
  GSHMEM_FOR_EACH_REDUCE_BITWISE_OP(GSHMEMI_NV_REDUCESCATTER, T, TYPE)
#define GSHMEMI_NV_REDUCESCATTERS(T, TYPE) GSHMEM_FOR_EACH_REDUCE_OP(GSHMEMI_NV_REDUCESCATTER, T, TYPE)
GSHMEM_FOR_EACH_REDUCE_BITWISE_TYPE(GSHMEMI_NV_BITWISE)
GSHMEMI_FOR_EACH_RMA_TYPE_BUT_PTRDIFF(GSHMEMI_NV_REDUCESCATTERS)
#undef GSHMEMI_NV_REDUCESCATTERS
#undef GSHMEMI_NV_BITWISE
#undef GSHMEMI_NV_REDUCESCATTER
#undef GSHMEMI_NV_BITWISE_REDUCE
#undef GSHMEMI_NV_REDUCTION

/* NVSHMEM's <nvshmem.h> declares the nvshmemx_ names too (nvshmemx_init_attr,
 * the _on_stream and warp/block forms): programs that include only
 * <nvshmem.h> use them, so this header brings in <nvshmemx.h>. Last, after
 * everything <nvshmemx.h> builds on; its own #include "nvshmem.h" is then
 * a no-op (#pragma once), and a program that includes <nvshmemx.h> first
 * gets this whole header before the rest of <nvshmemx.h>. */
#include "nvshmemx.h"
