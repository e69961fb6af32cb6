// NVSHMEM's extension names (nvshmemx_) for what gshmem implements; see
// <nvshmem.h> in this folder for how the mapping works and what it covers.
// Here: signal_op, the warp/block RMA forms (put/get [_nbi], put_signal
// [_nbi] per type, putmem/getmem [_nbi], putmem_signal [_nbi]), the on-stream waits, signal_op, quiet and barrier,
// and buffer registration (buffer_register_symmetric / _unregister_symmetric).
#pragma once

#include "nvshmem.h"

#include <gshmem/stream.h>

/* ----------------------------------------------------------------- host */
#define GSHMEMI_NV_STREAM_WAITS(T, TYPE)                                                               \
  static inline void nvshmemx_##T##_wait_until_on_stream(TYPE *ivar, int cmp, TYPE value, cudaStream_t s) { \
    gshmemx_##T##_wait_until_on_stream(ivar, cmp, value, s);                                          \
  }                                                                                                    \
  static inline void nvshmemx_##T##_wait_until_all_on_stream(TYPE *ivars, size_t nelems, const int *status, \
                                                             int cmp, TYPE value, cudaStream_t s) {   \
    gshmemx_##T##_wait_until_all_on_stream(ivars, nelems, status, cmp, value, s);                     \
  }                                                                                                    \
  /* NVSHMEM declares cmp_values without const; it is only read. */                                    \
  static inline void nvshmemx_##T##_wait_until_all_vector_on_stream(                                  \
      TYPE *ivars, size_t nelems, const int *status, int cmp, TYPE *cmp_values, cudaStream_t s) {      \
    gshmemx_##T##_wait_until_all_vector_on_stream(ivars, nelems, status, cmp, cmp_values, s);         \
  }
GSHMEM_FOR_EACH_SYNC_TYPE(GSHMEMI_NV_STREAM_WAITS)
#undef GSHMEMI_NV_STREAM_WAITS

static inline void nvshmemx_signal_wait_until_on_stream(uint64_t *sig_addr, int cmp, uint64_t value,
                                                        cudaStream_t stream) {
  gshmemx_signal_wait_until_on_stream(sig_addr, cmp, value, stream);
}
static inline void nvshmemx_signal_op_on_stream(uint64_t *sig_addr, uint64_t signal, int sig_op, int pe,
                                                cudaStream_t stream) {
  gshmemx_signal_op_on_stream(sig_addr, signal, sig_op, pe, stream);
}
static inline void nvshmemx_quiet_on_stream(cudaStream_t stream) { gshmemx_quiet_on_stream(stream); }
static inline void nvshmemx_barrier_all_on_stream(cudaStream_t stream) { gshmemx_barrier_all_on_stream(stream); }

/* ============================================================ host RMA on a stream
 * nvshmemx_TYPENAME_{p,g,put,put_nbi,get,get_nbi,put_signal_nbi}_on_stream,
 * nvshmemx_{putmem,getmem}[_nbi]_on_stream, nvshmemx_putmem_signal_nbi_on_stream,
 * nvshmemx_sync_all_on_stream (<gshmem/stream.h>); below them the sized
 * (put8/16/32/64/128 ...) and strided (iput/iget) forms. */
#define GSHMEMI_NV_STREAM_RMA(T, TYPE)                                                                   \
  static inline void nvshmemx_##T##_p_on_stream(TYPE *dest, const TYPE value, int pe, cudaStream_t s) { \
    gshmemx_##T##_p_on_stream(dest, value, pe, s);                                                       \
  }                                                                                                      \
  static inline TYPE nvshmemx_##T##_g_on_stream(const TYPE *source, int pe, cudaStream_t s) {           \
    return gshmemx_##T##_g_on_stream(source, pe, s);                                                     \
  }                                                                                                      \
  static inline void nvshmemx_##T##_put_on_stream(TYPE *dest, const TYPE *source, size_t n, int pe,     \
                                                  cudaStream_t s) {                                      \
    gshmemx_##T##_put_on_stream(dest, source, n, pe, s);                                                 \
  }                                                                                                      \
  static inline void nvshmemx_##T##_put_nbi_on_stream(TYPE *dest, const TYPE *source, size_t n, int pe, \
                                                      cudaStream_t s) {                                  \
    gshmemx_##T##_put_nbi_on_stream(dest, source, n, pe, s);                                             \
  }                                                                                                      \
  static inline void nvshmemx_##T##_get_on_stream(TYPE *dest, const TYPE *source, size_t n, int pe,     \
                                                  cudaStream_t s) {                                      \
    gshmemx_##T##_get_on_stream(dest, source, n, pe, s);                                                 \
  }                                                                                                      \
  static inline void nvshmemx_##T##_get_nbi_on_stream(TYPE *dest, const TYPE *source, size_t n, int pe, \
                                                      cudaStream_t s) {                                  \
    gshmemx_##T##_get_nbi_on_stream(dest, source, n, pe, s);                                             \
  }                                                                                                      \
  static inline void nvshmemx_##T##_put_signal_on_stream(TYPE *dest, const TYPE *source, size_t n,      \
                                                         uint64_t *sig_addr, uint64_t signal,            \
                                                         int sig_op, int pe, cudaStream_t s) {           \
    gshmemx_##T##_put_signal_on_stream(dest, source, n, sig_addr, signal, sig_op, pe, s);                \
  }                                                                                                      \
  static inline void nvshmemx_##T##_put_signal_nbi_on_stream(TYPE *dest, const TYPE *source, size_t n,  \
                                                             uint64_t *sig_addr, uint64_t signal,        \
                                                             int sig_op, int pe, cudaStream_t s) {       \
    gshmemx_##T##_put_signal_nbi_on_stream(dest, source, n, sig_addr, signal, sig_op, pe, s);            \
  }
GSHMEM_FOR_EACH_RMA_TYPE(GSHMEMI_NV_STREAM_RMA)
#undef GSHMEMI_NV_STREAM_RMA

static inline void nvshmemx_putmem_on_stream(void *dest, const void *source, size_t bytes, int pe, cudaStream_t s) {
  gshmemx_putmem_on_stream(dest, source, bytes, pe, s);
}
static inline void nvshmemx_putmem_nbi_on_stream(void *dest, const void *source, size_t bytes, int pe,
                                                 cudaStream_t s) {
  gshmemx_putmem_nbi_on_stream(dest, source, bytes, pe, s);
}
static inline void nvshmemx_getmem_on_stream(void *dest, const void *source, size_t bytes, int pe, cudaStream_t s) {
  gshmemx_getmem_on_stream(dest, source, bytes, pe, s);
}
static inline void nvshmemx_getmem_nbi_on_stream(void *dest, const void *source, size_t bytes, int pe,
                                                 cudaStream_t s) {
  gshmemx_getmem_nbi_on_stream(dest, source, bytes, pe, s);
}
static inline void nvshmemx_putmem_signal_on_stream(void *dest, const void *source, size_t bytes, uint64_t *sig_addr,
                                                    uint64_t signal, int sig_op, int pe, cudaStream_t s) {
  gshmemx_putmem_signal_on_stream(dest, source, bytes, sig_addr, signal, sig_op, pe, s);
}
static inline void nvshmemx_putmem_signal_nbi_on_stream(void *dest, const void *source, size_t bytes,
                                                        uint64_t *sig_addr, uint64_t signal, int sig_op, int pe,
                                                        cudaStream_t s) {
  gshmemx_putmem_signal_nbi_on_stream(dest, source, bytes, sig_addr, signal, sig_op, pe, s);
}
/* Sized and strided forms on a stream (<gshmem/stream.h>). */
#define GSHMEMI_NV_STREAM_SIZED(SIZE, BYTES)                                                             \
  static inline void nvshmemx_put##SIZE##_on_stream(void *dest, const void *source, size_t nelems, int pe, \
                                                    cudaStream_t s) {                                    \
    gshmemx_put##SIZE##_on_stream(dest, source, nelems, pe, s);                                          \
  }                                                                                                      \
  static inline void nvshmemx_put##SIZE##_nbi_on_stream(void *dest, const void *source, size_t nelems,   \
                                                        int pe, cudaStream_t s) {                        \
    gshmemx_put##SIZE##_nbi_on_stream(dest, source, nelems, pe, s);                                      \
  }                                                                                                      \
  static inline void nvshmemx_get##SIZE##_on_stream(void *dest, const void *source, size_t nelems, int pe, \
                                                    cudaStream_t s) {                                    \
    gshmemx_get##SIZE##_on_stream(dest, source, nelems, pe, s);                                          \
  }                                                                                                      \
  static inline void nvshmemx_get##SIZE##_nbi_on_stream(void *dest, const void *source, size_t nelems,   \
                                                        int pe, cudaStream_t s) {                        \
    gshmemx_get##SIZE##_nbi_on_stream(dest, source, nelems, pe, s);                                      \
  }                                                                                                      \
  static inline void nvshmemx_put##SIZE##_signal_on_stream(void *dest, const void *source, size_t nelems, \
                                                           uint64_t *sig_addr, uint64_t signal,          \
                                                           int sig_op, int pe, cudaStream_t s) {         \
    gshmemx_put##SIZE##_signal_on_stream(dest, source, nelems, sig_addr, signal, sig_op, pe, s);          \
  }                                                                                                      \
  static inline void nvshmemx_put##SIZE##_signal_nbi_on_stream(void *dest, const void *source,           \
                                                               size_t nelems, uint64_t *sig_addr,        \
                                                               uint64_t signal, int sig_op, int pe,      \
                                                               cudaStream_t s) {                         \
    gshmemx_put##SIZE##_signal_nbi_on_stream(dest, source, nelems, sig_addr, signal, sig_op, pe, s);      \
  }                                                                                                      \
  static inline void nvshmemx_iput##SIZE##_on_stream(void *dest, const void *source, ptrdiff_t dst,      \
                                                     ptrdiff_t sst, size_t nelems, int pe, cudaStream_t s) { \
    gshmemx_iput##SIZE##_on_stream(dest, source, dst, sst, nelems, pe, s);                               \
  }                                                                                                      \
  static inline void nvshmemx_iget##SIZE##_on_stream(void *dest, const void *source, ptrdiff_t dst,      \
                                                     ptrdiff_t sst, size_t nelems, int pe, cudaStream_t s) { \
    gshmemx_iget##SIZE##_on_stream(dest, source, dst, sst, nelems, pe, s);                               \
  }
GSHMEM_FOR_EACH_RMA_SIZE(GSHMEMI_NV_STREAM_SIZED)
#undef GSHMEMI_NV_STREAM_SIZED
#define GSHMEMI_NV_STREAM_STRIDED(T, TYPE)                                                               \
  static inline void nvshmemx_##T##_iput_on_stream(TYPE *dest, const TYPE *source, ptrdiff_t dst,        \
                                                   ptrdiff_t sst, size_t nelems, int pe, cudaStream_t s) { \
    gshmemx_##T##_iput_on_stream(dest, source, dst, sst, nelems, pe, s);                                 \
  }                                                                                                      \
  static inline void nvshmemx_##T##_iget_on_stream(TYPE *dest, const TYPE *source, ptrdiff_t dst,        \
                                                   ptrdiff_t sst, size_t nelems, int pe, cudaStream_t s) { \
    gshmemx_##T##_iget_on_stream(dest, source, dst, sst, nelems, pe, s);                                 \
  }
GSHMEM_FOR_EACH_RMA_TYPE(GSHMEMI_NV_STREAM_STRIDED)
#undef GSHMEMI_NV_STREAM_STRIDED
/* ======================================================= end host RMA on a stream */

/* ============================================================ init with attributes
 * NVSHMEM's flag names take gshmem's values; nvshmemx_init_attr returns
 * gshmem's status (0 on success) instead of exiting. NVSHMEMX_INIT_WITH_SHMEM
 * bootstraps over the program's OpenSHMEM library (shmem_init first; see
 * GSHMEMX_INIT_WITH_SHMEM in <gshmem/runtime.h>). Not here:
 * NVSHMEMX_INIT_THREAD_PES. */
#define NVSHMEMX_INIT_WITH_MPI_COMM GSHMEMX_INIT_WITH_MPI_COMM
#define NVSHMEMX_INIT_WITH_UNIQUEID GSHMEMX_INIT_WITH_UNIQUEID
#define NVSHMEMX_INIT_WITH_SHMEM GSHMEMX_INIT_WITH_SHMEM
static inline int nvshmemx_init_attr(unsigned int flags, nvshmemx_init_attr_t *attr) {
  return gshmemx_init_attr(flags, attr);
}
static inline int nvshmemx_get_uniqueid(nvshmemx_uniqueid_t *id) { return gshmemx_get_uniqueid(id); }
static inline int nvshmemx_set_attr_uniqueid_args(const int myrank, const int nranks,
                                                  const nvshmemx_uniqueid_t *id, nvshmemx_init_attr_t *attr) {
  return gshmemx_set_attr_uniqueid_args(myrank, nranks, id, attr);
}
static inline int nvshmemx_set_attr_mpi_comm_args(void *mpi_comm, nvshmemx_init_attr_t *attr) {
  return gshmemx_set_attr_mpi_comm_args(mpi_comm, attr);
}
/* NVSHMEM's host-library init and finalize (for a program that does not
 * link NVSHMEM's device library): gshmem's device routines are inline in
 * the headers, so there is one library and these are nvshmemx_init_attr and
 * nvshmem_finalize. */
static inline int nvshmemx_hostlib_init_attr(unsigned int flags, nvshmemx_init_attr_t *attr) {
  return gshmemx_init_attr(flags, attr);
}
static inline void nvshmemx_hostlib_finalize(void) { gshmem_finalize(); }
/* ======================================================= end init with attributes */

/* ============================================================ registered buffers
 * A program's own CUDA VMM allocation made symmetric (see
 * gshmemx_buffer_register_symmetric in <gshmem/runtime.h> for the rules:
 * collective, one whole allocation of this PE's GPU exportable as a POSIX
 * file descriptor, the same size on every PE, flags 0). The unregister
 * returns gshmem's status (0 on success). */
static inline void *nvshmemx_buffer_register_symmetric(void *buf_ptr, size_t size, int flags) {
  return gshmemx_buffer_register_symmetric(buf_ptr, size, flags);
}
static inline int nvshmemx_buffer_unregister_symmetric(void *mmap_ptr, size_t size) {
  return gshmemx_buffer_unregister_symmetric(mmap_ptr, size);
}
/* Local buffers for RMA (gshmemx_buffer_register in <gshmem/runtime.h>):
 * gshmem's transports need no registration of a local source or
 * destination, so these only record and check the ranges (0 on success). */
static inline int nvshmemx_buffer_register(void *addr, size_t length) { return gshmemx_buffer_register(addr, length); }
static inline int nvshmemx_buffer_unregister(void *addr) { return gshmemx_buffer_unregister(addr); }
static inline void nvshmemx_buffer_unregister_all(void) { gshmemx_buffer_unregister_all(); }
/* ======================================================= end registered buffers */

#if defined(__CUDACC__)
/* --------------------------------------------------------------- device */
/* Device only: NVSHMEM 3.5.1 declares a host form but its library defines
 * none (a host call fails to link there; here it fails to compile). */
GSHMEMI_NV_DEVICE void nvshmemx_signal_op(uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) {
  gshmemx_signal_op(sig_addr, signal, sig_op, pe);
}

#define GSHMEMI_NV_COOP_RMA(T, TYPE, GROUP)                                                                 \
  GSHMEMI_NV_DEVICE void nvshmemx_##T##_put_##GROUP(TYPE *dest, const TYPE *source, size_t n, int pe) {     \
    gshmemx_##T##_put_##GROUP(dest, source, n, pe);                                                         \
  }                                                                                                         \
  GSHMEMI_NV_DEVICE void nvshmemx_##T##_put_nbi_##GROUP(TYPE *dest, const TYPE *source, size_t n, int pe) { \
    gshmemx_##T##_put_nbi_##GROUP(dest, source, n, pe);                                                     \
  }                                                                                                         \
  GSHMEMI_NV_DEVICE void nvshmemx_##T##_get_##GROUP(TYPE *dest, const TYPE *source, size_t n, int pe) {     \
    gshmemx_##T##_get_##GROUP(dest, source, n, pe);                                                         \
  }                                                                                                         \
  GSHMEMI_NV_DEVICE void nvshmemx_##T##_get_nbi_##GROUP(TYPE *dest, const TYPE *source, size_t n, int pe) { \
    gshmemx_##T##_get_nbi_##GROUP(dest, source, n, pe);                                                     \
  }                                                                                                         \
  GSHMEMI_NV_DEVICE void nvshmemx_##T##_put_signal_##GROUP(TYPE *dest, const TYPE *source, size_t n,        \
                                                           uint64_t *sig_addr, uint64_t signal, int sig_op, \
                                                           int pe) {                                        \
    gshmemx_##T##_put_signal_##GROUP(dest, source, n, sig_addr, signal, sig_op, pe);                        \
  }                                                                                                         \
  GSHMEMI_NV_DEVICE void nvshmemx_##T##_put_signal_nbi_##GROUP(TYPE *dest, const TYPE *source, size_t n,    \
                                                               uint64_t *sig_addr, uint64_t signal,         \
                                                               int sig_op, int pe) {                        \
    gshmemx_##T##_put_signal_nbi_##GROUP(dest, source, n, sig_addr, signal, sig_op, pe);                    \
  }
#define GSHMEMI_NV_COOP_RMA_GROUPS(T, TYPE) \
  GSHMEMI_NV_COOP_RMA(T, TYPE, warp)        \
  GSHMEMI_NV_COOP_RMA(T, TYPE, block)
GSHMEM_FOR_EACH_RMA_TYPE(GSHMEMI_NV_COOP_RMA_GROUPS)
#undef GSHMEMI_NV_COOP_RMA_GROUPS
#undef GSHMEMI_NV_COOP_RMA

#define GSHMEMI_NV_COOP_MEM(GROUP)                                                                          \
  GSHMEMI_NV_DEVICE void nvshmemx_putmem_##GROUP(void *dest, const void *source, size_t bytes, int pe) {    \
    gshmemx_putmem_##GROUP(dest, source, bytes, pe);                                                        \
  }                                                                                                         \
  GSHMEMI_NV_DEVICE void nvshmemx_putmem_nbi_##GROUP(void *dest, const void *source, size_t bytes, int pe) { \
    gshmemx_putmem_nbi_##GROUP(dest, source, bytes, pe);                                                    \
  }                                                                                                         \
  GSHMEMI_NV_DEVICE void nvshmemx_getmem_##GROUP(void *dest, const void *source, size_t bytes, int pe) {    \
    gshmemx_getmem_##GROUP(dest, source, bytes, pe);                                                        \
  }                                                                                                         \
  GSHMEMI_NV_DEVICE void nvshmemx_getmem_nbi_##GROUP(void *dest, const void *source, size_t bytes, int pe) { \
    gshmemx_getmem_nbi_##GROUP(dest, source, bytes, pe);                                                    \
  }                                                                                                         \
  GSHMEMI_NV_DEVICE void nvshmemx_putmem_signal_##GROUP(void *dest, const void *source, size_t bytes,       \
                                                        uint64_t *sig_addr, uint64_t signal, int sig_op,    \
                                                        int pe) {                                           \
    gshmemx_putmem_signal_##GROUP(dest, source, bytes, sig_addr, signal, sig_op, pe);                       \
  }                                                                                                         \
  GSHMEMI_NV_DEVICE void nvshmemx_putmem_signal_nbi_##GROUP(void *dest, const void *source, size_t bytes,   \
                                                            uint64_t *sig_addr, uint64_t signal,            \
                                                            int sig_op, int pe) {                           \
    gshmemx_putmem_signal_nbi_##GROUP(dest, source, bytes, sig_addr, signal, sig_op, pe);                   \
  }
GSHMEMI_NV_COOP_MEM(warp)
GSHMEMI_NV_COOP_MEM(block)
#undef GSHMEMI_NV_COOP_MEM
#endif  // __CUDACC__

#if defined(__CUDACC__)
/* Sized and strided warp/block forms (<gshmem/update_ext.h>). NVSHMEM
 * 3.5.1 declares the warp/block putSIZE_signal forms for 8, 32, 64 and 128
 * only (its size list there reads 6 for 16), so those come from
 * GSHMEMI_FOR_EACH_RMA_SIZE_BUT_16; gshmem's own names have all five. */
#define GSHMEMI_NV_COOP_SIZED(SIZE, BYTES, GROUP)                                                          \
  GSHMEMI_NV_DEVICE void nvshmemx_put##SIZE##_##GROUP(void *dest, const void *source, size_t nelems, int pe) { \
    gshmemx_put##SIZE##_##GROUP(dest, source, nelems, pe);                                                 \
  }                                                                                                        \
  GSHMEMI_NV_DEVICE void nvshmemx_put##SIZE##_nbi_##GROUP(void *dest, const void *source, size_t nelems,   \
                                                          int pe) {                                        \
    gshmemx_put##SIZE##_nbi_##GROUP(dest, source, nelems, pe);                                             \
  }                                                                                                        \
  GSHMEMI_NV_DEVICE void nvshmemx_get##SIZE##_##GROUP(void *dest, const void *source, size_t nelems, int pe) { \
    gshmemx_get##SIZE##_##GROUP(dest, source, nelems, pe);                                                 \
  }                                                                                                        \
  GSHMEMI_NV_DEVICE void nvshmemx_get##SIZE##_nbi_##GROUP(void *dest, const void *source, size_t nelems,   \
                                                          int pe) {                                        \
    gshmemx_get##SIZE##_nbi_##GROUP(dest, source, nelems, pe);                                             \
  }                                                                                                        \
  GSHMEMI_NV_DEVICE void nvshmemx_iput##SIZE##_##GROUP(void *dest, const void *source, ptrdiff_t dst,      \
                                                       ptrdiff_t sst, size_t nelems, int pe) {             \
    gshmemx_iput##SIZE##_##GROUP(dest, source, dst, sst, nelems, pe);                                      \
  }                                                                                                        \
  GSHMEMI_NV_DEVICE void nvshmemx_iget##SIZE##_##GROUP(void *dest, const void *source, ptrdiff_t dst,      \
                                                       ptrdiff_t sst, size_t nelems, int pe) {             \
    gshmemx_iget##SIZE##_##GROUP(dest, source, dst, sst, nelems, pe);                                      \
  }
#define GSHMEMI_NV_COOP_SIZED_GROUPS(SIZE, BYTES) \
  GSHMEMI_NV_COOP_SIZED(SIZE, BYTES, warp)        \
  GSHMEMI_NV_COOP_SIZED(SIZE, BYTES, block)
GSHMEM_FOR_EACH_RMA_SIZE(GSHMEMI_NV_COOP_SIZED_GROUPS)
#undef GSHMEMI_NV_COOP_SIZED_GROUPS
#undef GSHMEMI_NV_COOP_SIZED
#define GSHMEMI_NV_COOP_SIZED_SIGNAL(SIZE, BYTES, GROUP)                                                   \
  GSHMEMI_NV_DEVICE void nvshmemx_put##SIZE##_signal_##GROUP(void *dest, const void *source, size_t nelems, \
                                                             uint64_t *sig_addr, uint64_t signal,          \
                                                             int sig_op, int pe) {                         \
    gshmemx_put##SIZE##_signal_##GROUP(dest, source, nelems, sig_addr, signal, sig_op, pe);                \
  }                                                                                                        \
  GSHMEMI_NV_DEVICE void nvshmemx_put##SIZE##_signal_nbi_##GROUP(void *dest, const void *source,           \
                                                                 size_t nelems, uint64_t *sig_addr,        \
                                                                 uint64_t signal, int sig_op, int pe) {    \
    gshmemx_put##SIZE##_signal_nbi_##GROUP(dest, source, nelems, sig_addr, signal, sig_op, pe);            \
  }
#define GSHMEMI_NV_COOP_SIZED_SIGNAL_GROUPS(SIZE, BYTES) \
  GSHMEMI_NV_COOP_SIZED_SIGNAL(SIZE, BYTES, warp)        \
  GSHMEMI_NV_COOP_SIZED_SIGNAL(SIZE, BYTES, block)
GSHMEMI_FOR_EACH_RMA_SIZE_BUT_16(GSHMEMI_NV_COOP_SIZED_SIGNAL_GROUPS)
#undef GSHMEMI_NV_COOP_SIZED_SIGNAL_GROUPS
#undef GSHMEMI_NV_COOP_SIZED_SIGNAL
/* nvshmemx_put6_signal_warp / _block / _nbi_warp / _nbi_block: NVSHMEM
 * 3.5.1's names for the 16-bit sized put with signal of a warp or block. Its
 * list of sizes for these forms reads 6 where it means 16, so it declares
 * put6 and no put16; a program written against it calls put6. Here they are
 * gshmem's 16-bit forms (gshmemx_put16_signal_warp, ...), with NVSHMEM's
 * signatures: nelems 2-byte elements, the same ordering as the other sizes. */
GSHMEMI_NV_DEVICE void nvshmemx_put6_signal_warp(void *dest, const void *source, size_t nelems, uint64_t *sig_addr,
                                                 uint64_t signal, int sig_op, int pe) {
  gshmemx_put16_signal_warp(dest, source, nelems, sig_addr, signal, sig_op, pe);
}
GSHMEMI_NV_DEVICE void nvshmemx_put6_signal_block(void *dest, const void *source, size_t nelems, uint64_t *sig_addr,
                                                  uint64_t signal, int sig_op, int pe) {
  gshmemx_put16_signal_block(dest, source, nelems, sig_addr, signal, sig_op, pe);
}
GSHMEMI_NV_DEVICE void nvshmemx_put6_signal_nbi_warp(void *dest, const void *source, size_t nelems,
                                                     uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) {
  gshmemx_put16_signal_nbi_warp(dest, source, nelems, sig_addr, signal, sig_op, pe);
}
GSHMEMI_NV_DEVICE void nvshmemx_put6_signal_nbi_block(void *dest, const void *source, size_t nelems,
                                                      uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) {
  gshmemx_put16_signal_nbi_block(dest, source, nelems, sig_addr, signal, sig_op, pe);
}
#define GSHMEMI_NV_COOP_STRIDED(T, TYPE, GROUP)                                                            \
  GSHMEMI_NV_DEVICE void nvshmemx_##T##_iput_##GROUP(TYPE *dest, const TYPE *source, ptrdiff_t dst,        \
                                                     ptrdiff_t sst, size_t nelems, int pe) {               \
    gshmemx_##T##_iput_##GROUP(dest, source, dst, sst, nelems, pe);                                        \
  }                                                                                                        \
  GSHMEMI_NV_DEVICE void nvshmemx_##T##_iget_##GROUP(TYPE *dest, const TYPE *source, ptrdiff_t dst,        \
                                                     ptrdiff_t sst, size_t nelems, int pe) {               \
    gshmemx_##T##_iget_##GROUP(dest, source, dst, sst, nelems, pe);                                        \
  }
#define GSHMEMI_NV_COOP_STRIDED_GROUPS(T, TYPE) \
  GSHMEMI_NV_COOP_STRIDED(T, TYPE, warp)        \
  GSHMEMI_NV_COOP_STRIDED(T, TYPE, block)
GSHMEM_FOR_EACH_RMA_TYPE(GSHMEMI_NV_COOP_STRIDED_GROUPS)
#undef GSHMEMI_NV_COOP_STRIDED_GROUPS
#undef GSHMEMI_NV_COOP_STRIDED
#endif  // __CUDACC__

/* ============================================================ queue pairs
 * NVSHMEM 3.5's per-queue-pair forms (nvshmemx_qp_*): the RMA, put-with-
 * signal, signal, quiet and fence routines with an extra handle that picks
 * one of the network queue pairs NVSHMEM's transports keep per peer. Over
 * gshmem's transports (NVLink P2P, the proxy's one queue) there is no queue
 * pair to pick, so each form is the plain form of the same name without
 * qp_ (the nvshmem_ / nvshmemx_ routine above, generated from the same
 * type table): the same operation, the same ordering guarantee, whatever
 * the handle. quiet and fence with handles complete or order all of the
 * calling thread's (warp's, block's) operations, to every PE: more than
 * they promise for the named queue pairs and PE, never less.
 * Handles: nvshmemx_qp_create(num_qps, &array) returns distinct handles
 * (from 2 up, past NVSHMEMX_QP_HOST and NVSHMEMX_QP_DEFAULT) in an array
 * that host and device code can read, released at finalize; NVSHMEMX_QP_
 * DEFAULT is accepted too, as in NVSHMEM. Bad arguments to nvshmemx_qp_create
 * (num_qps < 1, a NULL array pointer, before init) are refused there, on
 * the host, with a message naming the PE and a nonzero status. The device
 * forms do not check the handle: it selects nothing here, and a test in
 * every inlined call would cost each kernel registers and a branch. */
typedef int nvshmemx_qp_handle_t;
typedef enum {
  NVSHMEMX_QP_HOST = 0,
  NVSHMEMX_QP_DEFAULT = 1,
  NVSHMEMX_QP_ANY = 2147483647,
  NVSHMEMX_QP_ALL = 2147483647
} nvshmemx_qp_handle_index_t;
/* PE numbers with a meaning of their own (NVSHMEM's values): quiet and
 * fence with handles accept them as the PE. */
typedef enum { NVSHMEM_PE_INVALID = -1, NVSHMEMX_PE_ANY = (1 << 15), NVSHMEMX_PE_ALL = (1 << 15) } nvshmem_pe_index_t;
static inline int nvshmemx_qp_create(int num_qps, nvshmemx_qp_handle_t **out_qp_array) {
  return gshmemi_qp_create(num_qps, out_qp_array);
}
#if defined(__CUDACC__)
#define GSHMEMI_NV_QP_GROUP(T, TYPE, GROUP)                                                                 \
  GSHMEMI_NV_DEVICE void nvshmemx_qp_##T##_put_##GROUP(TYPE *dest, const TYPE *source, size_t n, int pe,   \
                                                       nvshmemx_qp_handle_t qp) {                          \
    (void)qp;                                                                                               \
    nvshmemx_##T##_put_##GROUP(dest, source, n, pe);                                                        \
  }                                                                                                         \
  GSHMEMI_NV_DEVICE void nvshmemx_qp_##T##_get_##GROUP(TYPE *dest, const TYPE *source, size_t n, int pe,   \
                                                       nvshmemx_qp_handle_t qp) {                          \
    (void)qp;                                                                                               \
    nvshmemx_##T##_get_##GROUP(dest, source, n, pe);                                                        \
  }                                                                                                         \
  GSHMEMI_NV_DEVICE void nvshmemx_qp_##T##_put_nbi_##GROUP(TYPE *dest, const TYPE *source, size_t n, int pe, \
                                                           nvshmemx_qp_handle_t qp) {                      \
    (void)qp;                                                                                               \
    nvshmemx_##T##_put_nbi_##GROUP(dest, source, n, pe);                                                    \
  }                                                                                                         \
  GSHMEMI_NV_DEVICE void nvshmemx_qp_##T##_get_nbi_##GROUP(TYPE *dest, const TYPE *source, size_t n, int pe, \
                                                           nvshmemx_qp_handle_t qp) {                      \
    (void)qp;                                                                                               \
    nvshmemx_##T##_get_nbi_##GROUP(dest, source, n, pe);                                                    \
  }                                                                                                         \
  GSHMEMI_NV_DEVICE void nvshmemx_qp_##T##_put_signal_##GROUP(TYPE *dest, const TYPE *source, size_t n,    \
                                                              uint64_t *sig_addr, uint64_t signal,         \
                                                              int sig_op, int pe, nvshmemx_qp_handle_t qp) { \
    (void)qp;                                                                                               \
    nvshmemx_##T##_put_signal_##GROUP(dest, source, n, sig_addr, signal, sig_op, pe);                       \
  }                                                                                                         \
  GSHMEMI_NV_DEVICE void nvshmemx_qp_##T##_put_signal_nbi_##GROUP(TYPE *dest, const TYPE *source, size_t n, \
                                                                  uint64_t *sig_addr, uint64_t signal,     \
                                                                  int sig_op, int pe,                      \
                                                                  nvshmemx_qp_handle_t qp) {               \
    (void)qp;                                                                                               \
    nvshmemx_##T##_put_signal_nbi_##GROUP(dest, source, n, sig_addr, signal, sig_op, pe);                   \
  }
#define GSHMEMI_NV_QP(T, TYPE)                                                                              \
  GSHMEMI_NV_DEVICE void nvshmemx_qp_##T##_p(TYPE *dest, const TYPE value, int pe, nvshmemx_qp_handle_t qp) { \
    (void)qp;                                                                                               \
    nvshmem_##T##_p(dest, value, pe);                                                                       \
  }                                                                                                         \
  GSHMEMI_NV_DEVICE TYPE nvshmemx_qp_##T##_g(const TYPE *source, int pe, nvshmemx_qp_handle_t qp) {         \
    (void)qp;                                                                                               \
    return nvshmem_##T##_g(source, pe);                                                                     \
  }                                                                                                         \
  GSHMEMI_NV_DEVICE void nvshmemx_qp_##T##_put(TYPE *dest, const TYPE *source, size_t n, int pe,            \
                                               nvshmemx_qp_handle_t qp) {                                  \
    (void)qp;                                                                                               \
    nvshmem_##T##_put(dest, source, n, pe);                                                                 \
  }                                                                                                         \
  GSHMEMI_NV_DEVICE void nvshmemx_qp_##T##_get(TYPE *dest, const TYPE *source, size_t n, int pe,            \
                                               nvshmemx_qp_handle_t qp) {                                  \
    (void)qp;                                                                                               \
    nvshmem_##T##_get(dest, source, n, pe);                                                                 \
  }                                                                                                         \
  GSHMEMI_NV_DEVICE void nvshmemx_qp_##T##_put_nbi(TYPE *dest, const TYPE *source, size_t n, int pe,        \
                                                   nvshmemx_qp_handle_t qp) {                              \
    (void)qp;                                                                                               \
    nvshmem_##T##_put_nbi(dest, source, n, pe);                                                             \
  }                                                                                                         \
  GSHMEMI_NV_DEVICE void nvshmemx_qp_##T##_get_nbi(TYPE *dest, const TYPE *source, size_t n, int pe,        \
                                                   nvshmemx_qp_handle_t qp) {                              \
    (void)qp;                                                                                               \
    nvshmem_##T##_get_nbi(dest, source, n, pe);                                                             \
  }                                                                                                         \
  GSHMEMI_NV_DEVICE void nvshmemx_qp_##T##_put_signal(TYPE *dest, const TYPE *source, size_t n,             \
                                                      uint64_t *sig_addr, uint64_t signal, int sig_op,     \
                                                      int pe, nvshmemx_qp_handle_t qp) {                   \
    (void)qp;                                                                                               \
    nvshmem_##T##_put_signal(dest, source, n, sig_addr, signal, sig_op, pe);                                \
  }                                                                                                         \
  GSHMEMI_NV_DEVICE void nvshmemx_qp_##T##_put_signal_nbi(TYPE *dest, const TYPE *source, size_t n,         \
                                                          uint64_t *sig_addr, uint64_t signal, int sig_op, \
                                                          int pe, nvshmemx_qp_handle_t qp) {               \
    (void)qp;                                                                                               \
    nvshmem_##T##_put_signal_nbi(dest, source, n, sig_addr, signal, sig_op, pe);                            \
  }                                                                                                         \
  GSHMEMI_NV_QP_GROUP(T, TYPE, warp)                                                                        \
  GSHMEMI_NV_QP_GROUP(T, TYPE, block)
GSHMEM_FOR_EACH_RMA_TYPE(GSHMEMI_NV_QP)
#undef GSHMEMI_NV_QP
#undef GSHMEMI_NV_QP_GROUP
GSHMEMI_NV_DEVICE void nvshmemx_qp_signal_op(uint64_t *sig_addr, uint64_t signal, int sig_op, int pe,
                                             nvshmemx_qp_handle_t qp) {
  (void)qp;
  nvshmemx_signal_op(sig_addr, signal, sig_op, pe);
}
/* quiet / fence for a PE and a list of queue pairs: all of the caller's
 * operations (gshmem_quiet / gshmem_fence). The warp and block forms are
 * called by every thread of the warp or block: the group synchronizes
 * (which orders every member's earlier stores before what one member does
 * next), one member completes or orders them, and the group synchronizes
 * again, so none returns before that; as the put warp/block forms end. */
GSHMEMI_NV_DEVICE void nvshmemx_qp_quiet(int pe, nvshmemx_qp_handle_t *qp_handle, int num_qps) {
  (void)pe, (void)qp_handle, (void)num_qps;
  nvshmem_quiet();
}
GSHMEMI_NV_DEVICE void nvshmemx_qp_fence(int pe, nvshmemx_qp_handle_t *qp_handle, int num_qps) {
  (void)pe, (void)qp_handle, (void)num_qps;
  nvshmem_fence();
}
#if defined(__cplusplus)
/* One member of group g runs quiet (or fence) for the whole group, between
 * two group synchronizations. */
template <bool Quiet, class Group>
GSHMEM_DEVICE void gshmemi_nv_qp_group_complete(Group g) {
  g.sync();
  if (g.rank() == 0) {
    if (Quiet) nvshmem_quiet();
    else nvshmem_fence();
  }
  g.sync();
}
#endif
GSHMEMI_NV_DEVICE void nvshmemx_qp_quiet_warp(int pe, nvshmemx_qp_handle_t *qp_handle, int num_qps) {
  (void)pe, (void)qp_handle, (void)num_qps;
  gshmemi_nv_qp_group_complete<true>(gshmem::detail::group_warp{});
}
GSHMEMI_NV_DEVICE void nvshmemx_qp_fence_warp(int pe, nvshmemx_qp_handle_t *qp_handle, int num_qps) {
  (void)pe, (void)qp_handle, (void)num_qps;
  gshmemi_nv_qp_group_complete<false>(gshmem::detail::group_warp{});
}
GSHMEMI_NV_DEVICE void nvshmemx_qp_quiet_block(int pe, nvshmemx_qp_handle_t *qp_handle, int num_qps) {
  (void)pe, (void)qp_handle, (void)num_qps;
  gshmemi_nv_qp_group_complete<true>(gshmem::detail::group_block{});
}
GSHMEMI_NV_DEVICE void nvshmemx_qp_fence_block(int pe, nvshmemx_qp_handle_t *qp_handle, int num_qps) {
  (void)pe, (void)qp_handle, (void)num_qps;
  gshmemi_nv_qp_group_complete<false>(gshmem::detail::group_block{});
}
#endif  // __CUDACC__
/* ======================================================= end queue pairs */

/* ============================================================ barriers
 * Warp and block forms of the device barrier (<nvshmem.h> maps the
 * one-thread nvshmem_barrier_all / nvshmem_sync_all). */
#if defined(__CUDACC__)
GSHMEMI_NV_DEVICE void nvshmemx_barrier_all_warp(void) { gshmemx_barrier_all_warp(); }
GSHMEMI_NV_DEVICE void nvshmemx_barrier_all_block(void) { gshmemx_barrier_all_block(); }
GSHMEMI_NV_DEVICE void nvshmemx_sync_all_warp(void) { gshmemx_sync_all_warp(); }
GSHMEMI_NV_DEVICE void nvshmemx_sync_all_block(void) { gshmemx_sync_all_block(); }
#endif  // __CUDACC__

/* =============================================================== teams */
/* Teams from a unique id (gshmemx_team_get_uniqueid / gshmemx_team_init,
 * <gshmem/team_ext.h>): one future member makes the id and hands it to the
 * others; each of the npes members calls nvshmemx_team_init with the id in
 * config->uniqueid (as NVSHMEM reads it; config_mask is ignored) and its own
 * pe_idx_in_team. Collective over those members only. A NULL config is
 * refused (NVSHMEM refuses it too): no id. Returns 0 or gshmem's error code,
 * logged; the members' world PEs in index order must be strided. */
typedef gshmemx_team_uniqueid_t nvshmemx_team_uniqueid_t;
#define NVSHMEM_TEAM_CONFIG_MASK_UNIQUEID GSHMEMX_TEAM_UNIQUEID
static inline int nvshmemx_team_get_uniqueid(nvshmemx_team_uniqueid_t *uniqueid) {
  return gshmemx_team_get_uniqueid(uniqueid);
}
static inline int nvshmemx_team_init(nvshmem_team_t *team, nvshmem_team_config_t *config, long config_mask, int npes,
                                     int pe_idx_in_team) {
  (void)config_mask;
  return gshmemx_team_init(team, config ? config->uniqueid : GSHMEMX_TEAM_UNIQUEID_INVALID, npes, pe_idx_in_team);
}
static inline int nvshmemx_team_sync_on_stream(nvshmem_team_t team, cudaStream_t stream) {
  return gshmemx_team_sync_on_stream(team, stream);
}
static inline int nvshmemx_barrier_on_stream(nvshmem_team_t team, cudaStream_t stream) {
  return gshmemx_team_barrier_on_stream(team, stream);
}
static inline void nvshmemx_sync_all_on_stream(cudaStream_t stream) { gshmemx_sync_all_on_stream(stream); }
#if defined(__CUDACC__)
GSHMEMI_NV_DEVICE int nvshmemx_team_sync_warp(nvshmem_team_t team) { return gshmemx_team_sync_warp(team); }
GSHMEMI_NV_DEVICE int nvshmemx_team_sync_block(nvshmem_team_t team) { return gshmemx_team_sync_block(team); }
GSHMEMI_NV_DEVICE int nvshmemx_barrier_warp(nvshmem_team_t team) { return gshmemx_team_barrier_warp(team); }
GSHMEMI_NV_DEVICE int nvshmemx_barrier_block(nvshmem_team_t team) { return gshmemx_team_barrier_block(team); }
GSHMEMI_NV_DEVICE int nvshmemx_barrier_warpgroup(nvshmem_team_t team) { return gshmemx_team_barrier_warpgroup(team); }
#endif  // __CUDACC__

/* ==================================================== collective launch */
#include <cuda.h>  /* CUmodule */
static inline int nvshmemx_collective_launch(const void *func, dim3 grid, dim3 block, void **args, size_t shmem,
                                             cudaStream_t stream) {
  return gshmemx_collective_launch(func, grid, block, args, shmem, stream);
}
static inline int nvshmemx_collective_launch_query_gridsize(const void *func, dim3 block, void **args,
                                                            size_t shmem, int *gridsize) {
  return gshmemx_collective_launch_query_gridsize(func, block, args, shmem, gridsize);
}
static inline int nvshmemx_cumodule_init(CUmodule module) { return gshmemx_cumodule_init((void *)module); }
static inline int nvshmemx_cumodule_finalize(CUmodule module) { return gshmemx_cumodule_finalize((void *)module); }
#if CUDA_VERSION >= 12000 /* CUlibrary, as NVSHMEM's own declaration */
static inline int nvshmemx_culibrary_init(CUlibrary library) { return gshmemx_culibrary_init((void *)library); }
static inline int nvshmemx_culibrary_finalize(CUlibrary library) { return gshmemx_culibrary_finalize((void *)library); }
#endif

/* =================================================== small collectives */
#define GSHMEMI_NV_STREAM_REDUCE_OP(T, TYPE, OP)                                                          \
  static inline int nvshmemx_##T##_##OP##_reduce_on_stream(nvshmem_team_t team, TYPE *dest,              \
                                                           const TYPE *source, size_t nreduce,           \
                                                           cudaStream_t stream) {                        \
    return gshmemx_##T##_##OP##_reduce_on_stream(team, dest, source, nreduce, stream);                    \
  }
#define GSHMEMI_NV_STREAM_REDUCTIONS(T, TYPE) GSHMEM_FOR_EACH_REDUCE_OP(GSHMEMI_NV_STREAM_REDUCE_OP, T, TYPE)
#define GSHMEMI_NV_STREAM_FCOLLECT(T, TYPE)                                                               \
  static inline int nvshmemx_##T##_fcollect_on_stream(nvshmem_team_t team, TYPE *dest, const TYPE *source, \
                                                      size_t n, cudaStream_t stream) {                    \
    return gshmemx_##T##_fcollect_on_stream(team, dest, source, n, stream);                               \
  }
/* As in <nvshmem.h>: NVSHMEM has no ptrdiff reductions. */
GSHMEMI_FOR_EACH_RMA_TYPE_BUT_PTRDIFF(GSHMEMI_NV_STREAM_REDUCTIONS)
GSHMEM_FOR_EACH_REDUCE_TYPE(GSHMEMI_NV_STREAM_FCOLLECT)
#undef GSHMEMI_NV_STREAM_FCOLLECT
#undef GSHMEMI_NV_STREAM_REDUCTIONS
#undef GSHMEMI_NV_STREAM_REDUCE_OP
#if defined(__CUDACC__)
#define GSHMEMI_NV_GROUP_REDUCE_OP(T, TYPE, OP)                                                           \
  GSHMEMI_NV_DEVICE int nvshmemx_##T##_##OP##_reduce_warp(nvshmem_team_t team, TYPE *dest, const TYPE *source, \
                                                          size_t nreduce) {                               \
    return gshmemx_##T##_##OP##_reduce_warp(team, dest, source, nreduce);                                 \
  }                                                                                                       \
  GSHMEMI_NV_DEVICE int nvshmemx_##T##_##OP##_reduce_block(nvshmem_team_t team, TYPE *dest, const TYPE *source, \
                                                           size_t nreduce) {                              \
    return gshmemx_##T##_##OP##_reduce_block(team, dest, source, nreduce);                                \
  }
#define GSHMEMI_NV_GROUP_REDUCTIONS(T, TYPE) GSHMEM_FOR_EACH_REDUCE_OP(GSHMEMI_NV_GROUP_REDUCE_OP, T, TYPE)
#define GSHMEMI_NV_GROUP_FCOLLECT(T, TYPE)                                                                \
  GSHMEMI_NV_DEVICE int nvshmemx_##T##_fcollect_warp(nvshmem_team_t team, TYPE *dest, const TYPE *source,  \
                                                     size_t n) {                                          \
    return gshmemx_##T##_fcollect_warp(team, dest, source, n);                                            \
  }                                                                                                       \
  GSHMEMI_NV_DEVICE int nvshmemx_##T##_fcollect_block(nvshmem_team_t team, TYPE *dest, const TYPE *source, \
                                                      size_t n) {                                         \
    return gshmemx_##T##_fcollect_block(team, dest, source, n);                                           \
  }
GSHMEMI_FOR_EACH_RMA_TYPE_BUT_PTRDIFF(GSHMEMI_NV_GROUP_REDUCTIONS)
GSHMEM_FOR_EACH_REDUCE_TYPE(GSHMEMI_NV_GROUP_FCOLLECT)
GSHMEMI_NV_DEVICE int nvshmemx_double2_maxloc_reduce_block(nvshmem_team_t team, double2 *dest, const double2 *src,
                                                           size_t nreduce) {
  return gshmemx_double2_maxloc_reduce_block(team, dest, src, nreduce);
}
#undef GSHMEMI_NV_GROUP_FCOLLECT
#undef GSHMEMI_NV_GROUP_REDUCTIONS
#undef GSHMEMI_NV_GROUP_REDUCE_OP
#endif  // __CUDACC__

/* ========================================= broadcast, alltoall, *mem
 * On a stream, and by a warp or a block (<gshmem/collectives_ext.h>), for
 * every type of GSHMEM_FOR_EACH_RMA_TYPE (no half, bfloat16). NVSHMEM 3.5.1
 * declares nvshmemx_broadcastmem_warp/_block without PE_root but defines
 * them with it; these take it, as the definitions do. */
#define GSHMEMI_NV_STREAM_DATA_COLLECTIVES(T, TYPE)                                                       \
  static inline int nvshmemx_##T##_broadcast_on_stream(nvshmem_team_t team, TYPE *dest, const TYPE *source, \
                                                       size_t n, int PE_root, cudaStream_t stream) {      \
    return gshmemx_##T##_broadcast_on_stream(team, dest, source, n, PE_root, stream);                     \
  }                                                                                                       \
  static inline int nvshmemx_##T##_alltoall_on_stream(nvshmem_team_t team, TYPE *dest, const TYPE *source, \
                                                      size_t n, cudaStream_t stream) {                    \
    return gshmemx_##T##_alltoall_on_stream(team, dest, source, n, stream);                               \
  }
GSHMEM_FOR_EACH_RMA_TYPE(GSHMEMI_NV_STREAM_DATA_COLLECTIVES)
#undef GSHMEMI_NV_STREAM_DATA_COLLECTIVES
static inline int nvshmemx_broadcastmem_on_stream(nvshmem_team_t team, void *dest, const void *source, size_t nelems,
                                                  int PE_root, cudaStream_t stream) {
  return gshmemx_broadcastmem_on_stream(team, dest, source, nelems, PE_root, stream);
}
static inline int nvshmemx_alltoallmem_on_stream(nvshmem_team_t team, void *dest, const void *source, size_t nelems,
                                                 cudaStream_t stream) {
  return gshmemx_alltoallmem_on_stream(team, dest, source, nelems, stream);
}
static inline int nvshmemx_fcollectmem_on_stream(nvshmem_team_t team, void *dest, const void *source, size_t nelems,
                                                 cudaStream_t stream) {
  return gshmemx_fcollectmem_on_stream(team, dest, source, nelems, stream);
}
#if defined(__CUDACC__)
#define GSHMEMI_NV_GROUP_DATA_COLLECTIVES_OF(T, TYPE, GROUP)                                               \
  GSHMEMI_NV_DEVICE int nvshmemx_##T##_broadcast_##GROUP(nvshmem_team_t team, TYPE *dest, const TYPE *source, \
                                                         size_t n, int PE_root) {                          \
    return gshmemx_##T##_broadcast_##GROUP(team, dest, source, n, PE_root);                                \
  }                                                                                                        \
  GSHMEMI_NV_DEVICE int nvshmemx_##T##_alltoall_##GROUP(nvshmem_team_t team, TYPE *dest, const TYPE *source,  \
                                                        size_t n) {                                        \
    return gshmemx_##T##_alltoall_##GROUP(team, dest, source, n);                                          \
  }
#define GSHMEMI_NV_GROUP_DATA_COLLECTIVES(T, TYPE)   \
  GSHMEMI_NV_GROUP_DATA_COLLECTIVES_OF(T, TYPE, warp) \
  GSHMEMI_NV_GROUP_DATA_COLLECTIVES_OF(T, TYPE, block)
GSHMEM_FOR_EACH_RMA_TYPE(GSHMEMI_NV_GROUP_DATA_COLLECTIVES)
#undef GSHMEMI_NV_GROUP_DATA_COLLECTIVES
#undef GSHMEMI_NV_GROUP_DATA_COLLECTIVES_OF
#define GSHMEMI_NV_GROUP_MEM_COLLECTIVES(GROUP)                                                            \
  GSHMEMI_NV_DEVICE int nvshmemx_broadcastmem_##GROUP(nvshmem_team_t team, void *dest, const void *source, \
                                                      size_t nelems, int PE_root) {                        \
    return gshmemx_broadcastmem_##GROUP(team, dest, source, nelems, PE_root);                              \
  }                                                                                                        \
  GSHMEMI_NV_DEVICE int nvshmemx_alltoallmem_##GROUP(nvshmem_team_t team, void *dest, const void *source,  \
                                                     size_t nelems) {                                      \
    return gshmemx_alltoallmem_##GROUP(team, dest, source, nelems);                                        \
  }                                                                                                        \
  GSHMEMI_NV_DEVICE int nvshmemx_fcollectmem_##GROUP(nvshmem_team_t team, void *dest, const void *source,  \
                                                     size_t nelems) {                                      \
    return gshmemx_fcollectmem_##GROUP(team, dest, source, nelems);                                        \
  }
GSHMEMI_NV_GROUP_MEM_COLLECTIVES(warp)
GSHMEMI_NV_GROUP_MEM_COLLECTIVES(block)
#undef GSHMEMI_NV_GROUP_MEM_COLLECTIVES
#endif  // __CUDACC__
/* and/or/xor reductions and reducescatter: on-stream, warp and block forms
 * (the lists as in <nvshmem.h>; no half or bfloat16). */
#define GSHMEMI_NV_STREAM_REDUCTION(T, TYPE, OP, KIND)                                                    \
  static inline int nvshmemx_##T##_##OP##_##KIND##_on_stream(nvshmem_team_t team, TYPE *dest,            \
                                                             const TYPE *source, size_t nreduce,         \
                                                             cudaStream_t stream) {                      \
    return gshmemx_##T##_##OP##_##KIND##_on_stream(team, dest, source, nreduce, stream);                  \
  }
#if defined(__CUDACC__)
#define GSHMEMI_NV_GROUP_REDUCTION(T, TYPE, OP, KIND)                                                     \
  GSHMEMI_NV_DEVICE int nvshmemx_##T##_##OP##_##KIND##_warp(nvshmem_team_t team, TYPE *dest,             \
                                                            const TYPE *source, size_t nreduce) {        \
    return gshmemx_##T##_##OP##_##KIND##_warp(team, dest, source, nreduce);                               \
  }                                                                                                       \
  GSHMEMI_NV_DEVICE int nvshmemx_##T##_##OP##_##KIND##_block(nvshmem_team_t team, TYPE *dest,            \
                                                             const TYPE *source, size_t nreduce) {       \
    return gshmemx_##T##_##OP##_##KIND##_block(team, dest, source, nreduce);                              \
  }
#else
#define GSHMEMI_NV_GROUP_REDUCTION(T, TYPE, OP, KIND)
#endif
#define GSHMEMI_NV_EXT_REDUCTION(T, TYPE, OP, KIND) \
  GSHMEMI_NV_STREAM_REDUCTION(T, TYPE, OP, KIND) GSHMEMI_NV_GROUP_REDUCTION(T, TYPE, OP, KIND)
#define GSHMEMI_NV_EXT_BITWISE_REDUCE(T, TYPE, OP) GSHMEMI_NV_EXT_REDUCTION(T, TYPE, OP, reduce)
#define GSHMEMI_NV_EXT_REDUCESCATTER(T, TYPE, OP) GSHMEMI_NV_EXT_REDUCTION(T, TYPE, OP, reducescatter)
#define GSHMEMI_NV_EXT_BITWISE(T, TYPE)                                         \
  GSHMEM_FOR_EACH_REDUCE_BITWISE_OP(GSHMEMI_NV_EXT_BITWISE_REDUCE, T, TYPE)     \
  GSHMEM_FOR_EACH_REDUCE_BITWISE_OP(GSHMEMI_NV_EXT_REDUCESCATTER, T, TYPE)
#define GSHMEMI_NV_EXT_REDUCESCATTERS(T, TYPE) GSHMEM_FOR_EACH_REDUCE_OP(GSHMEMI_NV_EXT_REDUCESCATTER, T, TYPE)
GSHMEM_FOR_EACH_REDUCE_BITWISE_TYPE(GSHMEMI_NV_EXT_BITWISE)
GSHMEMI_FOR_EACH_RMA_TYPE_BUT_PTRDIFF(GSHMEMI_NV_EXT_REDUCESCATTERS)
#undef GSHMEMI_NV_EXT_REDUCESCATTERS
#undef GSHMEMI_NV_EXT_BITWISE
#undef GSHMEMI_NV_EXT_REDUCESCATTER
#undef GSHMEMI_NV_EXT_BITWISE_REDUCE
#undef GSHMEMI_NV_EXT_REDUCTION
#undef GSHMEMI_NV_GROUP_REDUCTION
#undef GSHMEMI_NV_STREAM_REDUCTION

/* ======================================================== status codes
 * NVSHMEM's routines that return a status (collective launch, team and
 * collective calls) return gshmem's codes here: 0 on success, a negative
 * GSHMEMX_ERROR_* otherwise, so a program's `!= NVSHMEMX_SUCCESS` test
 * works. The names of the codes gshmem shares are mapped; a program that
 * compares against a specific error code sees gshmem's value. */
#define NVSHMEMX_SUCCESS GSHMEM_SUCCESS
#define NVSHMEMX_ERROR_INVALID_VALUE GSHMEMX_ERROR_INVALID_VALUE
#define NVSHMEMX_ERROR_OUT_OF_MEMORY GSHMEMX_ERROR_OUT_OF_MEMORY
#define NVSHMEMX_ERROR_NOT_SUPPORTED GSHMEMX_ERROR_NOT_SUPPORTED
#define NVSHMEMX_ERROR_SYMMETRY GSHMEMX_ERROR_SYMMETRY
#define NVSHMEMX_ERROR_INTERNAL GSHMEMX_ERROR_INTERNAL
/* NVSHMEM's helper macro for error messages (its examples and perftests
 * use it): "file:line: message" on stderr. */
#include <stdio.h>
#define NVSHMEMI_ERROR_PRINT(...)                          \
  do {                                                     \
    fprintf(stderr, "%s:%d: ", __FILE__, __LINE__);        \
    fprintf(stderr, __VA_ARGS__);                          \
  } while (0)
/* ==================================================== end status codes */

/* ====================================================== NVSHMEM 3.8's newest
 * point-to-point surface: counted writes, flush, put16_signal of a warp or
 * block, floating-point and half atomics, regions, shared-memory lending,
 * status strings, the collective launch from a CUDA launch configuration,
 * symmetric registration at a preferred address. What is a hint or a no-op
 * here, as it is in NVSHMEM on these GPUs: docs/nvshmem.md. */

/* Counted writes (gshmemx_putmem_signal_counted_*, <gshmem/update_ext.h>;
 * the ordering argument for several producers on one counter in
 * <gshmem/detail/update_counted.h>). NVSHMEM 3.8 declares them only where
 * it was built with its CUDA fabric transport; gshmem provides them on every
 * GPU and through the remote path. */
GSHMEMI_NV_HD void nvshmemx_signal_counted_reset(uint64_t *signal_addr) { gshmemx_signal_counted_reset(signal_addr); }
#if defined(__CUDACC__)
GSHMEMI_NV_DEVICE uint64_t nvshmemx_signal_counted_load(const uint64_t *signal_addr) {
  return gshmemx_signal_counted_load(signal_addr);
}
GSHMEMI_NV_DEVICE void nvshmemx_signal_counted_wait_until(const uint64_t *signal_addr, uint64_t expected) {
  (void)gshmemx_signal_counted_wait_until(signal_addr, expected);
}
/* Every thread of the block, the same arguments. NVSHMEM's argument rules,
 * checked before anything is written: pe a PE of the job; [dest, dest +
 * bytes) and the counter inside the symmetric heap; source device (global
 * or shared) memory; the counter outside the destination range; dest,
 * source and bytes multiples of 16; the counter's heap offset a multiple of
 * 256. A call that breaks one returns NVSHMEMX_ERROR_INVALID_VALUE with one
 * line ("gshmem: PE n: nvshmemx_putmem_signal_counted_nbi_block: what is
 * wrong (address, bytes, target PE)") and writes nothing. Otherwise the
 * block's counted write (_nbi: complete at quiet for a remote peer) and
 * NVSHMEMX_SUCCESS. */
GSHMEMI_NV_DEVICE int nvshmemx_putmem_signal_counted_nbi_block(void *dest, const void *source, size_t bytes,
                                                               uint64_t *signal_addr, int pe) {
  const bool reporter = threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0;
  const int status = gshmem::detail::check_counted_put(dest, source, bytes, signal_addr, pe, reporter,
                                                       "nvshmemx_putmem_signal_counted_nbi_block");
  if (status != GSHMEM_SUCCESS) return status;
  gshmemx_putmem_signal_counted_nbi_block(dest, source, bytes, signal_addr, pe);
  return GSHMEM_SUCCESS;
}
#endif

/* Flush: the sources of earlier non-blocking puts are reusable (device:
 * gshmemx_flush, a no-op on P2P; host and on-stream: quiet, which NVSHMEM
 * 3.8 documents as its conservative network behaviour; it orders and
 * completes more than flush promises, never less). */
GSHMEMI_NV_HD void nvshmemx_flush(void) {
#if GSHMEM_IN_DEVICE_CODE
  gshmemx_flush();
#else
  gshmem_quiet();
#endif
}
static inline void nvshmemx_flush_on_stream(cudaStream_t stream) { gshmemx_quiet_on_stream(stream); }
#if defined(__CUDACC__)
GSHMEMI_NV_DEVICE void nvshmemx_flush_warp(void) { gshmemx_flush_warp(); }
GSHMEMI_NV_DEVICE void nvshmemx_flush_block(void) { gshmemx_flush_block(); }

/* NVSHMEM 3.8 names the 16-bit sized put with signal of a warp or block
 * put16 (3.5.1 read put6, kept above). */
#define GSHMEMI_NV_PUT16_SIGNAL(SUFFIX)                                                                    \
  GSHMEMI_NV_DEVICE void nvshmemx_put16_signal##SUFFIX(void *dest, const void *source, size_t nelems,      \
                                                       uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) { \
    gshmemx_put16_signal##SUFFIX(dest, source, nelems, sig_addr, signal, sig_op, pe);                      \
  }
GSHMEMI_NV_PUT16_SIGNAL(_warp)
GSHMEMI_NV_PUT16_SIGNAL(_block)
GSHMEMI_NV_PUT16_SIGNAL(_nbi_warp)
GSHMEMI_NV_PUT16_SIGNAL(_nbi_block)
#undef GSHMEMI_NV_PUT16_SIGNAL

/* Floating-point atomic add (float, double: atom.add.f32/.f64, relaxed at
 * system scope, remote peers through the proxy as gshmemx_float_atomic_add)
 * and the half-precision atomics (gshmemx_half_atomic_*: 16-bit loads,
 * stores, compare-and-swap and atom.add.noftz.f16; P2P only). Device only:
 * NVSHMEM declares host forms its library does not define. */
#define GSHMEMI_NV_FLOAT_ADD(T, TYPE)                                                                      \
  GSHMEMI_NV_DEVICE void nvshmemx_##T##_atomic_add(TYPE *dest, TYPE value, int pe) {                        \
    gshmemx_##T##_atomic_add(dest, value, pe);                                                             \
  }                                                                                                        \
  GSHMEMI_NV_DEVICE TYPE nvshmemx_##T##_atomic_fetch_add(TYPE *dest, TYPE value, int pe) {                  \
    return gshmemx_##T##_atomic_fetch_add(dest, value, pe);                                                \
  }
GSHMEM_FOR_EACH_AMO_FLOAT_TYPE(GSHMEMI_NV_FLOAT_ADD)
GSHMEMI_NV_FLOAT_ADD(half, __half)
#undef GSHMEMI_NV_FLOAT_ADD
GSHMEMI_NV_DEVICE __half nvshmem_half_atomic_fetch(const __half *source, int pe) {
  return gshmemx_half_atomic_fetch(source, pe);
}
GSHMEMI_NV_DEVICE void nvshmem_half_atomic_set(__half *dest, __half value, int pe) {
  gshmemx_half_atomic_set(dest, value, pe);
}
GSHMEMI_NV_DEVICE __half nvshmem_half_atomic_swap(__half *dest, __half value, int pe) {
  return gshmemx_half_atomic_swap(dest, value, pe);
}
#endif  // __CUDACC__

/* Regions (NVSHMEM 3.8): a region groups a block's operations under hints;
 * NVSHMEM's only hint, NVSHMEMX_REGION_HINT_BATCH_RMA, batches RMA for its
 * network transports. Here every operation is issued when called (P2P
 * stores, the proxy's queue), so a region changes nothing: start and stop
 * check their arguments as NVSHMEM does (handle not NULL, hints known,
 * handle from a start) and return; nvshmemx_region_is_active reports 0 (no
 * region changes how operations are carried out). */
typedef uint64_t nvshmemx_region_handle_t;
typedef enum {
  NVSHMEMX_REGION_HINT_NONE = 0,
  NVSHMEMX_REGION_HINT_BATCH_RMA = 1u << 0,
} nvshmemx_region_hint_t;
#define NVSHMEMX_REGION_ATTRS_RESERVED_BYTES 60
#define NVSHMEMX_REGION_ATTRS_INITIALIZER {NVSHMEMX_REGION_HINT_NONE, {0}}
typedef struct nvshmemx_region_attrs {
  uint32_t hints;
  char reserved[NVSHMEMX_REGION_ATTRS_RESERVED_BYTES];
} nvshmemx_region_attrs_t;
/* The handle every region gets here (NVSHMEM's are generations, never 0). */
#define GSHMEMI_NV_REGION_HANDLE 1u
GSHMEMI_NV_HD int gshmemi_nv_region_start(nvshmemx_region_handle_t *handle, const nvshmemx_region_attrs_t *attrs) {
  if (handle == NULL) return GSHMEMX_ERROR_INVALID_VALUE;
  if (attrs != NULL && (attrs->hints & ~(uint32_t)NVSHMEMX_REGION_HINT_BATCH_RMA) != 0) return GSHMEMX_ERROR_INVALID_VALUE;
  *handle = GSHMEMI_NV_REGION_HANDLE;
  return GSHMEM_SUCCESS;
}
GSHMEMI_NV_HD int gshmemi_nv_region_stop(nvshmemx_region_handle_t handle) {
  return handle == GSHMEMI_NV_REGION_HANDLE ? GSHMEM_SUCCESS : GSHMEMX_ERROR_INVALID_VALUE;
}
static inline int nvshmemx_region_start(nvshmemx_region_handle_t *handle, const nvshmemx_region_attrs_t *attrs) {
  return gshmemi_nv_region_start(handle, attrs);
}
static inline int nvshmemx_region_stop(nvshmemx_region_handle_t handle) { return gshmemi_nv_region_stop(handle); }
GSHMEMI_NV_HD int nvshmemx_region_is_active(uint32_t hints, int *active) {
  if (active == NULL || (hints & ~(uint32_t)NVSHMEMX_REGION_HINT_BATCH_RMA) != 0) return GSHMEMX_ERROR_INVALID_VALUE;
  *active = 0;
  return GSHMEM_SUCCESS;
}
#if defined(__CUDACC__)
/* Every thread of the block, the same arguments: each gets the same
 * verdict and handle; the block synchronizes (NVSHMEM's block form). */
GSHMEMI_NV_DEVICE int nvshmemx_region_start_block(nvshmemx_region_handle_t *handle,
                                                  const nvshmemx_region_attrs_t *attrs) {
  const int status = gshmemi_nv_region_start(handle, attrs);
  __syncthreads();
  return status;
}
GSHMEMI_NV_DEVICE int nvshmemx_region_stop_block(nvshmemx_region_handle_t handle) {
  const int status = gshmemi_nv_region_stop(handle);
  __syncthreads();
  return status;
}
#endif

/* Shared-memory lending (NVSHMEM 3.8, for its TMA transfers). gshmem does
 * not use TMA: ask_smem returns NVSHMEM's sizes (so launches sized by it
 * are the same), give_smem and release_smem do nothing, as NVSHMEM's do
 * under its default policy (NVSHMEMX_TMA_DISABLE). */
typedef enum nvshmemx_smem_amount_t {
  NVSHMEMX_SMEM_RECOMMENDED = 0,
  NVSHMEMX_SMEM_MINIMUM = 1,
  NVSHMEMX_SMEM_BARRIERS_ONLY = 2,
  NVSHMEMX_SMEM_AMOUNT_MAX = 0x7fffffff
} nvshmemx_smem_amount_t;
GSHMEMI_NV_HD int nvshmemx_ask_smem(nvshmemx_smem_amount_t flag) {
  /* BARRIERS_ONLY: NVSHMEM 3.8's reserved head of the buffer (TMA barrier
   * region 512 + handle barriers 32 x 16 + counted state 7 x 16 bytes). */
  return flag == NVSHMEMX_SMEM_MINIMUM ? 32768 : flag == NVSHMEMX_SMEM_BARRIERS_ONLY ? 1136 : 65536;
}
#if defined(__CUDACC__)
GSHMEMI_NV_DEVICE void nvshmemx_give_smem(void *smem, size_t size) { (void)smem, (void)size; }
GSHMEMI_NV_DEVICE void nvshmemx_release_smem(void) {}
#endif

/* The name of a status code (host and device): "NVSHMEMX_SUCCESS", the
 * NVSHMEMX_ERROR_* names this header maps, else the name of gshmem's own
 * code (gshmemx_error_string's text is for people; this is the name). */
GSHMEMI_NV_HD const char *nvshmemx_status_string(int status) {
  switch (status) {
    case GSHMEM_SUCCESS: return "NVSHMEMX_SUCCESS";
    case GSHMEMX_ERROR_INVALID_VALUE: return "NVSHMEMX_ERROR_INVALID_VALUE";
    case GSHMEMX_ERROR_OUT_OF_MEMORY: return "NVSHMEMX_ERROR_OUT_OF_MEMORY";
    case GSHMEMX_ERROR_NOT_SUPPORTED: return "NVSHMEMX_ERROR_NOT_SUPPORTED";
    case GSHMEMX_ERROR_SYMMETRY: return "NVSHMEMX_ERROR_SYMMETRY";
    case GSHMEMX_ERROR_INTERNAL: return "NVSHMEMX_ERROR_INTERNAL";
    default: return "NVSHMEMX_ERROR_<unknown>";
  }
}

/* Collective launch from a CUDA launch configuration (gshmemx_collective_
 * launch_config, <gshmem/launch.h>): grid, block, dynamic shared memory,
 * stream and attributes from attr->cuda_config, the cooperative attribute
 * added unless it sets that itself. NVSHMEM launches on its own stream and
 * makes the caller's wait for it; here the launch is on the caller's
 * stream, which orders the same. */
typedef struct nvshmemx_collective_launch_attr {
  cudaLaunchConfig_t cuda_config;
} nvshmemx_collective_launch_attr_t;
static inline int nvshmemx_collective_launch_attr(const nvshmemx_collective_launch_attr_t *attr, const void *func,
                                                  void **args) {
  return gshmemx_collective_launch_config(func, attr ? &attr->cuda_config : NULL, args);
}

/* The preferred address is a hint in NVSHMEM 3.8 (the registration takes
 * another when it is taken); gshmem maps registered buffers inside its
 * own symmetric window, so the hint is not used: nvshmemx_buffer_register_
 * symmetric, the same result and errors. */
static inline void *nvshmemx_buffer_register_symmetric_at_preferred_address(void *buf_ptr, size_t size,
                                                                            void *preferred_addr, int flags) {
  (void)preferred_addr;
  return gshmemx_buffer_register_symmetric(buf_ptr, size, flags);
}
/* ============================================== end NVSHMEM 3.8's newest */
