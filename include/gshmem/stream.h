// Host on-stream forms: waits, signals, puts, quiet and barrier as
// stream-ordered work (part of <gshmem/gshmemx.h>).
//
// Every routine here enqueues work on `stream` and returns at once; none
// blocks the host. All are capturable in CUDA graphs and replay correctly.
//
// Ordering guarantee of every wait (scalar, _all, _any, _some, vector,
// signal): work enqueued on the stream after the wait starts only after the
// condition held, and observes every write the updater made before its
// update (the update being a release store / release atomic / signal_op /
// put_signal of gshmem, from any PE). Waits are served by one CUDA stream
// memory operation where the comparison maps onto one exactly (EQ; NE 0;
// some GE/LE bounds; see host/stream_mapping.h), else by a small wait kernel
// that polls with acquire loads at system scope. `_any`/`_some` write their
// result (`*result`, `indices[]`, `*nresult`) to device-accessible memory
// when the wait completes, in stream order; `status` and `cmp_values` are
// read at execution time. Semantics of the sets (status, empty sets, SIZE_MAX)
// are those of the device routines of <gshmem/sync.h>.
//
// Errors: arguments are checked before anything is enqueued (invalid cmp or
// sig_op, NULL ivars with nelems > 0, an address outside the symmetric heap,
// a misaligned address, a stream of another device, a bad pe, use before
// init). A failing call enqueues nothing, logs the cause and records the code
// for gshmemx_get_last_error() (per host thread).
//
// Threads: every routine of this header may be called from several host
// threads at once, on the same or on different streams (the common case is
// one stream per thread); calls on one stream from several threads are
// enqueued in the order the calls happen. Not while init or finalize runs.
// Tested by tests/stream "eight host threads".
#pragma once

#include <gshmem/detail/config.h>
#include <gshmem/types.h>

#include <cuda_runtime_api.h>
#include <stddef.h>
#include <stdint.h>

GSHMEM_BEGIN_EXTERN_C

#define GSHMEMI_DECLARE_STREAM_WAITS(TYPENAME, TYPE)                                              \
  GSHMEM_API void gshmemx_##TYPENAME##_wait_until_on_stream(TYPE *ivar, int cmp, TYPE cmp_value,  \
                                                            cudaStream_t stream);                 \
  GSHMEM_API void gshmemx_##TYPENAME##_wait_on_stream(TYPE *ivar, TYPE cmp_value,                 \
                                                      cudaStream_t stream);                       \
  GSHMEM_API void gshmemx_##TYPENAME##_wait_until_all_on_stream(                                  \
      TYPE *ivars, size_t nelems, const int *status, int cmp, TYPE cmp_value, cudaStream_t stream); \
  GSHMEM_API void gshmemx_##TYPENAME##_wait_until_all_vector_on_stream(                           \
      TYPE *ivars, size_t nelems, const int *status, int cmp, const TYPE *cmp_values,             \
      cudaStream_t stream);                                                                       \
  GSHMEM_API void gshmemx_##TYPENAME##_wait_until_any_on_stream(                                  \
      TYPE *ivars, size_t nelems, const int *status, int cmp, TYPE cmp_value, size_t *result,     \
      cudaStream_t stream);                                                                       \
  GSHMEM_API void gshmemx_##TYPENAME##_wait_until_any_vector_on_stream(                           \
      TYPE *ivars, size_t nelems, const int *status, int cmp, const TYPE *cmp_values,             \
      size_t *result, cudaStream_t stream);                                                       \
  GSHMEM_API void gshmemx_##TYPENAME##_wait_until_some_on_stream(                                 \
      TYPE *ivars, size_t nelems, size_t *indices, const int *status, int cmp, TYPE cmp_value,    \
      size_t *nresult, cudaStream_t stream);                                                      \
  GSHMEM_API void gshmemx_##TYPENAME##_wait_until_some_vector_on_stream(                          \
      TYPE *ivars, size_t nelems, size_t *indices, const int *status, int cmp,                    \
      const TYPE *cmp_values, size_t *nresult, cudaStream_t stream);
GSHMEM_FOR_EACH_SYNC_TYPE(GSHMEMI_DECLARE_STREAM_WAITS)
#undef GSHMEMI_DECLARE_STREAM_WAITS

/* gshmemx_uint64_wait_until_on_stream on a signal word (a uint64_t in the heap). */
GSHMEM_API void gshmemx_signal_wait_until_on_stream(uint64_t *sig_addr, int cmp, uint64_t cmp_value,
                                                    cudaStream_t stream);

/* Updates sig_addr at PE `pe` (SET: store, ADD: atomic add) once the
 * stream's earlier work is complete. Release: a PE that observes the new
 * value (by any gshmem wait) also observes every write the stream's earlier
 * work made. */
GSHMEM_API void gshmemx_signal_op_on_stream(uint64_t *sig_addr, uint64_t signal, int sig_op, int pe,
                                            cudaStream_t stream);

/* Copies nelems elements from `source` (device-accessible) to the symmetric
 * `dest` at PE `pe`, then updates the signal as signal_op_on_stream does: a
 * PE observing the signal observes the whole payload. */
#define GSHMEMI_DECLARE_STREAM_PUT_SIGNAL(TYPENAME, TYPE)                                          \
  GSHMEM_API void gshmemx_##TYPENAME##_put_signal_on_stream(                                       \
      TYPE *dest, const TYPE *source, size_t nelems, uint64_t *sig_addr, uint64_t signal,          \
      int sig_op, int pe, cudaStream_t stream);
GSHMEM_FOR_EACH_RMA_TYPE(GSHMEMI_DECLARE_STREAM_PUT_SIGNAL)
#undef GSHMEMI_DECLARE_STREAM_PUT_SIGNAL
GSHMEM_API void gshmemx_putmem_signal_on_stream(void *dest, const void *source, size_t bytes,
                                                uint64_t *sig_addr, uint64_t signal, int sig_op,
                                                int pe, cudaStream_t stream);
/* A counted write on a stream (gshmemx_putmem_signal_counted, <gshmem/
 * update_ext.h>): putmem_signal_on_stream with the byte count added to
 * *counter on PE pe (GSHMEM_SIGNAL_ADD, release after the payload). Waits
 * for it on the device with gshmemx_signal_counted_wait_until. */
static inline void gshmemx_putmem_signal_counted_on_stream(void *dest, const void *source, size_t bytes,
                                                           uint64_t *counter, int pe, cudaStream_t stream) {
  gshmemx_putmem_signal_on_stream(dest, source, bytes, counter, (uint64_t)bytes, GSHMEM_SIGNAL_ADD, pe, stream);
}

/* ------------------------------------------------------- RMA on a stream
 * Stream-ordered puts and gets; none blocks the host (except g, which
 * returns a value). `source` of a put and `dest` of a get are this side's
 * buffers (device memory, or host memory the copy engine can reach); the
 * other side is a symmetric address. Each is one copy (p: a one-thread
 * store kernel carrying the value) enqueued on `stream`: it starts after the
 * stream's earlier work is complete, and the stream's later work starts
 * after it is complete (the data is in the peer's memory, or in `dest`).
 * Remote PEs are not told: follow a put with gshmemx_signal_op_on_stream
 * (release: a PE that observes the signal observes the data), or use the
 * put_signal forms. The _nbi forms are the same operations (NVSHMEM's names;
 * stream order already completes each before the stream's next work).
 * gshmemx_TYPENAME_g_on_stream waits for the stream's earlier work, then
 * reads one element and returns it (synchronizes the stream; not
 * capturable). Errors as for the routines above (pe and addresses are
 * checked before anything is enqueued; g returns 0). A remote peer
 * (docs/remote.md): the copy is a one-thread kernel that queues the request
 * for the proxy and ends once it is complete, so the same stream order
 * holds. */
#define GSHMEMI_DECLARE_STREAM_RMA(TYPENAME, TYPE)                                                          \
  GSHMEM_API void gshmemx_##TYPENAME##_p_on_stream(TYPE *dest, TYPE value, int pe, cudaStream_t stream);   \
  GSHMEM_API TYPE gshmemx_##TYPENAME##_g_on_stream(const TYPE *source, int pe, cudaStream_t stream);       \
  GSHMEM_API void gshmemx_##TYPENAME##_put_on_stream(TYPE *dest, const TYPE *source, size_t nelems, int pe, \
                                                     cudaStream_t stream);                                 \
  GSHMEM_API void gshmemx_##TYPENAME##_put_nbi_on_stream(TYPE *dest, const TYPE *source, size_t nelems,    \
                                                         int pe, cudaStream_t stream);                     \
  GSHMEM_API void gshmemx_##TYPENAME##_get_on_stream(TYPE *dest, const TYPE *source, size_t nelems, int pe, \
                                                     cudaStream_t stream);                                 \
  GSHMEM_API void gshmemx_##TYPENAME##_get_nbi_on_stream(TYPE *dest, const TYPE *source, size_t nelems,    \
                                                         int pe, cudaStream_t stream);                     \
  GSHMEM_API void gshmemx_##TYPENAME##_put_signal_nbi_on_stream(                                            \
      TYPE *dest, const TYPE *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op,      \
      int pe, cudaStream_t stream);
GSHMEM_FOR_EACH_RMA_TYPE(GSHMEMI_DECLARE_STREAM_RMA)
#undef GSHMEMI_DECLARE_STREAM_RMA
GSHMEM_API void gshmemx_putmem_on_stream(void *dest, const void *source, size_t bytes, int pe,
                                         cudaStream_t stream);
GSHMEM_API void gshmemx_putmem_nbi_on_stream(void *dest, const void *source, size_t bytes, int pe,
                                             cudaStream_t stream);
GSHMEM_API void gshmemx_getmem_on_stream(void *dest, const void *source, size_t bytes, int pe,
                                         cudaStream_t stream);
GSHMEM_API void gshmemx_getmem_nbi_on_stream(void *dest, const void *source, size_t bytes, int pe,
                                             cudaStream_t stream);
/* putmem_signal_on_stream (the same operation; NVSHMEM's _nbi name). */
GSHMEM_API void gshmemx_putmem_signal_nbi_on_stream(void *dest, const void *source, size_t bytes,
                                                    uint64_t *sig_addr, uint64_t signal, int sig_op,
                                                    int pe, cudaStream_t stream);

/* Sized forms (putSIZE / getSIZE [_nbi], putSIZE_signal [_nbi], SIZE in
 * GSHMEM_FOR_EACH_RMA_SIZE): the byte forms above with nelems * SIZE / 8
 * bytes (no alignment required); same ordering and errors. */
#define GSHMEMI_DECLARE_STREAM_SIZED(SIZE, BYTES)                                                          \
  GSHMEM_API void gshmemx_put##SIZE##_on_stream(void *dest, const void *source, size_t nelems, int pe,     \
                                                cudaStream_t stream);                                      \
  GSHMEM_API void gshmemx_put##SIZE##_nbi_on_stream(void *dest, const void *source, size_t nelems, int pe, \
                                                    cudaStream_t stream);                                  \
  GSHMEM_API void gshmemx_get##SIZE##_on_stream(void *dest, const void *source, size_t nelems, int pe,     \
                                                cudaStream_t stream);                                      \
  GSHMEM_API void gshmemx_get##SIZE##_nbi_on_stream(void *dest, const void *source, size_t nelems, int pe, \
                                                    cudaStream_t stream);                                  \
  GSHMEM_API void gshmemx_put##SIZE##_signal_on_stream(void *dest, const void *source, size_t nelems,      \
                                                       uint64_t *sig_addr, uint64_t signal, int sig_op,    \
                                                       int pe, cudaStream_t stream);                       \
  GSHMEM_API void gshmemx_put##SIZE##_signal_nbi_on_stream(void *dest, const void *source, size_t nelems,  \
                                                           uint64_t *sig_addr, uint64_t signal, int sig_op, \
                                                           int pe, cudaStream_t stream);
GSHMEM_FOR_EACH_RMA_SIZE(GSHMEMI_DECLARE_STREAM_SIZED)
#undef GSHMEMI_DECLARE_STREAM_SIZED

/* Strided forms (TYPENAME_iput / iget, iputSIZE / igetSIZE): element i
 * from source[i * sst] to dest[i * dst], strides in elements (zero or
 * negative allowed), nelems == 0 a no-op; the symmetric side's whole span
 * must lie in the symmetric heap. One strided copy (cudaMemcpy2DAsync) on
 * `stream` for positive strides, else one copy per element; a remote peer
 * one request per element. Stream order as the contiguous forms above. */
#define GSHMEMI_DECLARE_STREAM_STRIDED(TYPENAME, TYPE)                                                      \
  GSHMEM_API void gshmemx_##TYPENAME##_iput_on_stream(TYPE *dest, const TYPE *source, ptrdiff_t dst,        \
                                                      ptrdiff_t sst, size_t nelems, int pe, cudaStream_t stream); \
  GSHMEM_API void gshmemx_##TYPENAME##_iget_on_stream(TYPE *dest, const TYPE *source, ptrdiff_t dst,        \
                                                      ptrdiff_t sst, size_t nelems, int pe, cudaStream_t stream);
GSHMEM_FOR_EACH_RMA_TYPE(GSHMEMI_DECLARE_STREAM_STRIDED)
#undef GSHMEMI_DECLARE_STREAM_STRIDED
#define GSHMEMI_DECLARE_STREAM_SIZED_STRIDED(SIZE, BYTES)                                                   \
  GSHMEM_API void gshmemx_iput##SIZE##_on_stream(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, \
                                                 size_t nelems, int pe, cudaStream_t stream);               \
  GSHMEM_API void gshmemx_iget##SIZE##_on_stream(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, \
                                                 size_t nelems, int pe, cudaStream_t stream);
GSHMEM_FOR_EACH_RMA_SIZE(GSHMEMI_DECLARE_STREAM_SIZED_STRIDED)
#undef GSHMEMI_DECLARE_STREAM_SIZED_STRIDED

/* Every update the stream's earlier work made to any PE's heap is complete
 * and visible at system scope before the stream's later work starts. */
GSHMEM_API void gshmemx_quiet_on_stream(cudaStream_t stream);

/* Collective over all PEs, each on one of its streams: the stream's later
 * work starts only after every PE's stream reached its barrier, and then
 * observes every heap write that any PE's stream made before its barrier.
 * Calls must not overlap on one PE (one barrier stream at a time).
 * It is the world team's on-stream barrier of <gshmem/team_ext.h>, and meets
 * gshmemx_sync_all_on_stream and the world team's on-stream syncs and
 * barriers: at 2 PEs, outside stream capture, a few stream memory operations
 * (the counts are the host's, made when the call is made); otherwise the
 * world team's barrier kernel, which keeps its epoch on the GPU (so every
 * replay of a graph synchronizes) and shares it with the device barriers. A
 * given barrier call is captured on every PE or on none: the two kinds do not
 * meet each other. Without 64-bit stream memory operations on some PE's
 * device, every barrier is the kernel. */
GSHMEM_API void gshmemx_barrier_all_on_stream(cudaStream_t stream);
/* gshmemx_sync_all_on_stream: see <gshmem/team_ext.h> (the world team's sync). */

GSHMEM_END_EXTERN_C
