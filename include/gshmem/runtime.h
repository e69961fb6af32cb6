// Runtime API: init/finalize, PE queries, symmetric heap, host barrier,
// error codes. Part of <gshmem/gshmem.h>; extensions are in <gshmem/gshmemx.h>.
#pragma once

#include <gshmem/detail/config.h>
#include <gshmem/detail/state.h>
#include <gshmem/version.h>
#include <stddef.h>
#include <stdint.h>

/* ------------------------------------------------------------------ errors
 * Every host routine that can fail returns one of these (0 on success) or,
 * where its signature has no room for a status, records it for
 * gshmemx_get_last_error(). The cause is logged once, with the PE, at WARN
 * level (GSHMEM_DEBUG). The library never exits the process. */
#define GSHMEM_SUCCESS                     0
#define GSHMEMX_ERROR_INTERNAL            -1  /* a bug in gshmem; please report */
#define GSHMEMX_ERROR_INVALID_VALUE       -2  /* an argument out of its domain (invalid cmp, NULL, ...) */
#define GSHMEMX_ERROR_NOT_INITIALIZED     -3  /* called before gshmem_init or after finalize */
#define GSHMEMX_ERROR_ALREADY_INITIALIZED -4  /* gshmem_init called twice without finalize */
#define GSHMEMX_ERROR_NO_DEVICE           -5  /* no usable CUDA device or driver */
#define GSHMEMX_ERROR_TOO_FEW_DEVICES     -6  /* more PEs on a node than GPUs (see GSHMEM_ALLOW_GPU_SHARING) */
#define GSHMEMX_ERROR_BOOTSTRAP           -7  /* launcher / MPI / NCCL / peer exchange failed */
#define GSHMEMX_ERROR_OUT_OF_MEMORY       -8  /* symmetric heap exhausted or device allocation failed */
#define GSHMEMX_ERROR_SYMMETRY            -9  /* PEs disagree on a collective call (size, order) */
#define GSHMEMX_ERROR_CUDA               -10  /* a CUDA call failed */
#define GSHMEMX_ERROR_ENVIRONMENT        -11  /* a GSHMEM_* variable has a bad value */
#define GSHMEMX_ERROR_NOT_SUPPORTED      -12  /* feature not available here */
#define GSHMEMX_ERROR_NOT_SYMMETRIC      -13  /* address is not in the symmetric heap */
#define GSHMEMX_ERROR_MISALIGNED         -14  /* address not aligned for its type */
#define GSHMEMX_ERROR_INVALID_STREAM     -15  /* stream belongs to another device */
#define GSHMEMX_ERROR_INVALID_PE         -16  /* PE out of range or not reachable */
#define GSHMEMX_ERROR_PEER_LOST          -17  /* a peer's process ended: the job cannot go on */

/* ------------------------------------------------------------ init attributes */
#define GSHMEMX_INIT_WITH_MPI_COMM  (1u << 0) /* attr->mpi_comm points to an MPI_Comm */
#define GSHMEMX_INIT_WITH_NCCL_COMM (1u << 1) /* attr->nccl_comm is an ncclComm_t */
#define GSHMEMX_INIT_WITH_UNIQUEID  (1u << 2) /* attr->nccl_unique_id + rank + nranks */
#define GSHMEMX_INIT_SINGLE_PE      (1u << 3) /* no launcher: a job of one PE */
/* Bootstrap over the OpenSHMEM library the program itself linked and
 * initialized: the PEs are OpenSHMEM's (gshmem PE = shmem_my_pe()). Call
 * shmem_init before gshmemx_init_attr and shmem_finalize after
 * gshmem_finalize. attr may be NULL (heap_size is taken from it when given).
 * libgshmem links no OpenSHMEM library: it finds the OpenSHMEM routines in
 * the process at init (GSHMEMX_ERROR_BOOTSTRAP, naming the missing ones,
 * when the program links none). A peer lost inside one of this bootstrap's
 * collectives is left to the OpenSHMEM launcher to end the job. */
#define GSHMEMX_INIT_WITH_SHMEM     (1u << 4)

typedef struct gshmemx_init_attr {
  void *mpi_comm;             /* MPI_Comm* (kept opaque: no MPI header needed here) */
  void *nccl_comm;            /* ncclComm_t */
  const void *nccl_unique_id; /* const ncclUniqueId* */
  int rank;                   /* with GSHMEMX_INIT_WITH_UNIQUEID */
  int nranks;                 /* with GSHMEMX_INIT_WITH_UNIQUEID */
  size_t heap_size;           /* bytes per PE; 0 = GSHMEM_SYMMETRIC_SIZE */
} gshmemx_init_attr_t;

/* Zero-initialized attributes (every field unset). */
#define GSHMEMX_INIT_ATTR_INITIALIZER {NULL, NULL, NULL, 0, 0, 0}

/* ------------------------------------------------------------- unique ids
 * A job without a launcher (or whose launcher gshmem does not know) starts
 * from an id: one process calls gshmemx_get_uniqueid, the program hands the
 * bytes to every other process (MPI_Bcast, a file, a socket: any way), and
 * each calls gshmemx_set_attr_uniqueid_args(rank, nranks, &id, &attr) and
 * gshmemx_init_attr(GSHMEMX_INIT_WITH_UNIQUEID, &attr). The bytes are
 * opaque: copy them unchanged (sizeof(gshmemx_uniqueid_t)).
 * By default (GSHMEM_UNIQUEID_BOOTSTRAP=socket) the id holds the TCP address
 * (IPv4 host:port) of a rendezvous that the process making the id listens
 * on, and a random job tag; that process serves the rendezvous inside its
 * own gshmemx_init_attr (no thread; it may have any rank), the others
 * connect to it. No NCCL or MPI is needed, and PEs may share a GPU
 * (GSHMEM_ALLOW_GPU_SHARING). With GSHMEM_UNIQUEID_BOOTSTRAP=nccl (read
 * where the id is made) the id holds an NCCL unique id and the NCCL module
 * carries the job (one GPU per PE). Version 2: the socket layout was added;
 * the size is unchanged. */
#define GSHMEMX_UNIQUEID_BYTES 128
#define GSHMEMX_UNIQUEID_VERSION 0x67730002 /* 'g' 's' v2: set by gshmemx_get_uniqueid */
typedef struct gshmemx_uniqueid {
  int version;                           /* 0 until gshmemx_get_uniqueid fills it */
  char internal[GSHMEMX_UNIQUEID_BYTES]; /* opaque */
} gshmemx_uniqueid_t;
#define GSHMEMX_UNIQUEID_INITIALIZER {0, {0}}

/* -------------------------------------------------------- OpenSHMEM info */
#define GSHMEM_MAJOR_VERSION 1 /* the OpenSHMEM specification gshmem follows */
#define GSHMEM_MINOR_VERSION 5
#define GSHMEM_MAX_NAME_LEN 256
#define GSHMEM_VENDOR_STRING "gshmem " GSHMEM_VERSION_STRING

GSHMEM_BEGIN_EXTERN_C

/* Initializes the runtime: bootstrap (MPI under mpirun, else single PE),
 * GPU selection, symmetric heap, peer mapping. Collective over all PEs.
 * Returns GSHMEM_SUCCESS or a GSHMEMX_ERROR_* code (logged with its cause). */
GSHMEM_API int gshmem_init(void);
/* gshmem_init with an explicit bootstrap (GSHMEMX_INIT_WITH_*) and options. */
GSHMEM_API int gshmemx_init_attr(unsigned int flags, gshmemx_init_attr_t *attr);
/* Collective. Waits for the device, barriers, unmaps peers, frees the heap. */
GSHMEM_API void gshmem_finalize(void);
/* 1 between a successful init and finalize, else 0. */
GSHMEM_API int gshmemx_initialized(void);

/* Fills *id with a new unique id (see above) for one job. Call it in one
 * process, which must stay alive and take part in that job's init (it hosts
 * the rendezvous). No collective, no GPU; the socket id opens a listening
 * socket (closed once the job has assembled), the NCCL id needs the NCCL
 * module. Returns GSHMEM_SUCCESS, GSHMEMX_ERROR_INVALID_VALUE (id NULL),
 * GSHMEMX_ERROR_ENVIRONMENT (a bad GSHMEM_UNIQUEID_BOOTSTRAP or
 * GSHMEM_BOOTSTRAP_ADDRESS) or GSHMEMX_ERROR_BOOTSTRAP (no listening socket,
 * module missing, or the id could not be made). */
GSHMEM_API int gshmemx_get_uniqueid(gshmemx_uniqueid_t *id);
/* Points attr at `id` (which must outlive init) for rank `rank` of `nranks`.
 * Checks 0 <= rank < nranks and that id came from gshmemx_get_uniqueid (its
 * version); GSHMEM_SUCCESS or GSHMEMX_ERROR_INVALID_VALUE, naming the problem. */
GSHMEM_API int gshmemx_set_attr_uniqueid_args(int rank, int nranks, const gshmemx_uniqueid_t *id,
                                              gshmemx_init_attr_t *attr);
/* attr->mpi_comm = mpi_comm (an MPI_Comm*), for GSHMEMX_INIT_WITH_MPI_COMM.
 * GSHMEM_SUCCESS or GSHMEMX_ERROR_INVALID_VALUE (a NULL argument). */
GSHMEM_API int gshmemx_set_attr_mpi_comm_args(void *mpi_comm, gshmemx_init_attr_t *attr);

/* Ends the whole job: every PE's process exits, with `status` as the exit
 * status where the launcher passes it on (MPI: MPI_Abort(comm, status),
 * which mpirun reports; NCCL bootstrap: the communicator is aborted and this
 * process exits with `status`, and peers fail at their next collective
 * operation; OpenSHMEM bootstrap: shmem_global_exit(status); one PE or
 * before init: this process exits with `status`).
 * Does not wait for device work, other PEs or finalize, and never returns.
 * Host only. */
GSHMEM_API void gshmem_global_exit(int status);

/* Collective symmetric allocation: every PE must make the same calls with the
 * same sizes in the same order; a disagreement is detected and reported with
 * the PEs and sizes involved (the call returns NULL on every PE). Ends with a
 * barrier, so the memory is usable by peers on return. NULL on exhaustion,
 * with requested and free bytes logged. Memory is 256-byte aligned at least. */
GSHMEM_API void *gshmem_malloc(size_t size);
GSHMEM_API void *gshmem_calloc(size_t count, size_t size);
GSHMEM_API void *gshmem_align(size_t alignment, size_t size);
/* Collective. Reports (and ignores) NULL-free mistakes: double free, foreign pointers. */
GSHMEM_API void gshmem_free(void *ptr);

/* Host halves of routines that exist on host and device. The public names
 * (gshmem_barrier_all, gshmem_sync_all, gshmem_quiet, gshmem_fence) are
 * inline host+device functions in <gshmem/update.h> that call these on the
 * host.
 * barrier_all: waits for this PE's device work (cudaDeviceSynchronize), then
 *   for every PE; on return every store any PE's device made to the heap
 *   before its call is visible to all PEs.
 * sync_all: the same, without the promise about device work still running.
 * quiet / fence: complete / order the calling host thread's stores to mapped
 *   peer memory and this PE's host RMA and atomics (<gshmem/update.h>: quiet
 *   waits until every one is complete; fence adds nothing, as they already
 *   run in issue order); neither waits for device work (use gshmem_quiet in
 *   kernels, gshmemx_quiet_on_stream on streams). */
GSHMEM_API void gshmemi_host_barrier_all(void);
GSHMEM_API void gshmemi_host_sync_all(void);
GSHMEM_API void gshmemi_host_quiet(void);
GSHMEM_API void gshmemi_host_fence(void);

/* Registers a buffer the program allocated itself as symmetric memory (as
 * NVSHMEM's nvshmemx_buffer_register_symmetric). Collective over all PEs,
 * like gshmem_malloc: every PE passes a buffer of the same size, one whole
 * allocation it made on its own GPU with the CUDA VMM API (cuMemCreate with
 * CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR among requestedHandleTypes,
 * cuMemAddressReserve, cuMemMap, cuMemSetAccess): buf_ptr the start of its
 * mapping, size the allocation's size (a multiple of its granularity);
 * flags must be 0. Returns an address in gshmem's symmetric address space,
 * the same offset on every PE, that maps the same memory as buf_ptr (a
 * store through either is seen through the other): gshmem_ptr, RMA,
 * atomics, signals, waits and collectives accept it and the addresses in
 * it, on the host, the device and streams, like gshmem_malloc memory. On
 * return every PE has registered its buffer. NULL on every PE when any PE's
 * buffer is refused or the PEs disagree (GSHMEMX_ERROR_INVALID_VALUE: not
 * VMM memory (cudaMalloc), size 0 or not the allocation's, flags, a buffer
 * registered already or gshmem's own memory; GSHMEMX_ERROR_SYMMETRY: the PEs
 * passed different sizes; GSHMEMX_ERROR_OUT_OF_MEMORY: the registration
 * space, GSHMEM_REGISTRATION_SPACE per PE, is full; GSHMEMX_ERROR_NOT_SUPPORTED:
 * the heap runs on cudaIpc handles (GSHMEM_DISABLE_VMM=1 or no VMM) or the
 * space is 0), logged naming the PE and the problem; nothing changes then.
 * The program keeps its own allocation and mapping: it releases them after
 * gshmemx_buffer_unregister_symmetric (or gshmem_finalize, which
 * unregisters what is left). Only PEs of one node reach each other's
 * registered buffers, as with the heap. */
GSHMEM_API void *gshmemx_buffer_register_symmetric(void *buf_ptr, size_t size, int flags);
/* Collective: every PE passes the address gshmemx_buffer_register_symmetric
 * returned and the size it registered. Waits for this PE's device work,
 * then unmaps the symmetric views of the buffer; the program's own mapping
 * stays valid. GSHMEM_SUCCESS, or an error on every PE with nothing changed
 * (GSHMEMX_ERROR_NOT_SYMMETRIC: not a registered address;
 * GSHMEMX_ERROR_INVALID_VALUE: another size; GSHMEMX_ERROR_SYMMETRY: the PEs
 * named different buffers). Afterwards the buffer's symmetric addresses are
 * no longer symmetric: host routines refuse them, while device code cannot
 * tell, as with a freed heap block. */
GSHMEM_API int gshmemx_buffer_unregister_symmetric(void *mmap_ptr, size_t size);

/* Local buffers for RMA (as NVSHMEM's nvshmemx_buffer_register): declares
 * [addr, addr + length), memory of this process that is not symmetric, as a
 * local source or destination of RMA. Not collective; host only. gshmem
 * needs no registration for that: P2P stores and loads reach any memory of
 * this PE's GPU, the host forms copy with cudaMemcpyAsync, and on the
 * remote path the transport reads and writes the local side from the
 * kernel's buffer or the proxy's staging (docs/remote.md). So registering
 * changes nothing for RMA; it records the range, so that the calls are
 * checked as NVSHMEM's are: GSHMEM_SUCCESS, or GSHMEMX_ERROR_INVALID_VALUE
 * (NULL, length 0, a range that wraps or overlaps one registered already;
 * unregister: an address that is not the start of a registered range) or
 * GSHMEMX_ERROR_NOT_INITIALIZED, logged naming the PE, nothing changed.
 * unregister_all forgets every range (and gshmem_finalize does too). The
 * calls order nothing. */
GSHMEM_API int gshmemx_buffer_register(void *addr, size_t length);
GSHMEM_API int gshmemx_buffer_unregister(void *addr);
GSHMEM_API void gshmemx_buffer_unregister_all(void);

/* Queue-pair handles for the per-queue-pair forms of the NVSHMEM
 * compatibility headers (nvshmemx_qp_create, <gshmem/compat/nvshmemx.h>):
 * *out_qp_array receives num_qps distinct handle numbers, from
 * GSHMEMI_QP_FIRST up, in pinned host memory that kernels can read too;
 * gshmem_finalize releases it. GSHMEM_SUCCESS, else (NULL out_qp_array,
 * num_qps < 1, before init, no pinned memory) an error logged naming the PE,
 * *out_qp_array unchanged. Host only; orders nothing. */
#define GSHMEMI_QP_FIRST 2
GSHMEM_API int gshmemi_qp_create(int num_qps, int **out_qp_array);

/* Bytes of symmetric heap handed out to users on this PE (the runtime's
 * internal region not counted); 0 before init. No ordering implied. */
GSHMEM_API size_t gshmemx_heap_bytes_in_use(void);

/* Where this PE's remote path spends its time (docs/remote.md), cumulative
 * since init: the proxy thread's passes over the request queue and its calls
 * into the transport, and the CUDA copies and atomic kernels the transport
 * ran on this PE's GPU memory (a transport without one-sided access to GPU
 * memory applies peers' writes, serves their gets and stages this PE's own
 * put sources and results that way). Take two snapshots and subtract to
 * time a stretch of a program. Times are host steady-clock nanoseconds. */
typedef struct {
  int active;                     /* 1 when this PE runs a proxy (a remote pair exists), else all 0 */
  unsigned long long requests;    /* requests the proxy consumed from kernels and host routines (each p of a
                                     warp's run counts: put_runs) */
  unsigned long long passes;      /* proxy passes that consumed at least one request */
  unsigned long long issue_ns;    /* time carrying requests out: the transport's put / get / atomic / signal /
                                     fence calls and the proxy's work around them */
  unsigned long long quiets;      /* transport quiets: one ends each pass that issued anything */
  unsigned long long quiet_ns;    /* time in them: until the pass's requests were complete at their targets */
  unsigned long long idle_sleeps; /* 20 us sleeps of the idle proxy (GSHMEM_PROXY_IDLE_SPIN) */
  unsigned long long peer_events; /* events the idle proxy's transport progress handled (peers' messages,
                                     replies, completions of this PE's sends): it keeps polling while > 0 */
  unsigned long long applies;     /* CUDA copies and atomic kernels run on this PE's GPU memory for the transport */
  unsigned long long apply_ns;    /* time in them, synchronization included */
  unsigned long long transport_puts; /* puts the proxy handed to the transport: after coalescing, so a block's
                                        contiguous p's to one PE in one pass are one put */
  unsigned long long puts_coalesced; /* put requests carried inside another request's transport put (requests
                                        consumed minus what the transport saw, for puts) */
  /* Which path this PE's remote operations took, as initiator (the transport's
   * put / get / atomic / signal calls; one per call, whatever pieces it was cut into):
   * one_sided: RMA on the peer's registered memory, nothing for the peer's proxy to do
   * (GPU memory where the transport's UCX maps CUDA memory: GSHMEM_REMOTE_RMA=auto);
   * messages: active messages the peer's proxy applies with CUDA copies and kernels. */
  unsigned long long puts_one_sided;
  unsigned long long puts_messages;
  unsigned long long gets_one_sided;
  unsigned long long gets_messages;
  unsigned long long atomics_one_sided;
  unsigned long long atomics_messages;
  unsigned long long signals_one_sided;
  unsigned long long signals_messages;
  unsigned long long messages_applied; /* as target: peers' put / get / atomic / signal messages applied here */
  unsigned long long gpu_regions_one_sided; /* regions of this PE's GPU memory (the heap, registered buffers) that
                                               peers reach one-sided now: > 0 where RMA mode is in effect */
  unsigned long long put_runs; /* requests that carried a warp's run of p's (the lanes' p's to consecutive
                                  elements of one PE, one request for all; each p still counts in
                                  requests and, past the first, in puts_coalesced) */
  unsigned long long reserved[3]; /* 0; room for later figures without changing the struct's size */
} gshmemx_remote_stats_t;
/* Fills *out (any host thread, any time, though a call while init or
 * finalize runs waits for it; zeros before init and after finalize).
 * Counters are read one by one while the proxy runs: a snapshot taken
 * mid-pass may count part of that pass. No ordering implied.
 * GSHMEM_SUCCESS, or GSHMEMX_ERROR_INVALID_VALUE when out is NULL. */
GSHMEM_API int gshmemx_remote_stats(gshmemx_remote_stats_t *out);

/* Status of the last host call made by the calling host thread that could
 * not return one (0 if none); each thread has its own, like cudaGetLastError. */
GSHMEM_API int gshmemx_get_last_error(void);
/* A short text for any GSHMEM_SUCCESS / GSHMEMX_ERROR_* code. */
GSHMEM_API const char *gshmemx_error_string(int code);

/* Host implementations behind the host+device inline functions below. */
GSHMEM_API int gshmemi_host_my_pe(void);
GSHMEM_API int gshmemi_host_n_pes(void);
GSHMEM_API void *gshmemi_host_ptr(const void *dest, int pe);

GSHMEM_END_EXTERN_C

/* This PE's number, 0 <= pe < gshmem_n_pes(). Host and device. -1 before init. */
GSHMEM_HD int gshmem_my_pe(void) {
#if GSHMEM_IN_DEVICE_CODE
  return gshmemi_state().my_pe;
#else
  return gshmemi_host_my_pe();
#endif
}

/* Number of PEs in the job. Host and device. -1 before init. */
GSHMEM_HD int gshmem_n_pes(void) {
#if GSHMEM_IN_DEVICE_CODE
  return gshmemi_state().n_pes;
#else
  return gshmemi_host_n_pes();
#endif
}

/* Address at which the calling thread can load/store `dest` (a symmetric
 * address of this PE) as it lives on PE `pe`; NULL if `dest` is not
 * symmetric, `pe` is out of range, or that PE is not directly reachable. */
GSHMEM_HD void *gshmem_ptr(const void *dest, int pe) {
#if GSHMEM_IN_DEVICE_CODE
  const gshmemi_device_state_t &s = gshmemi_state();
  const char *d = (const char *)dest;
  if (pe < 0 || pe >= s.n_pes || d < s.heap_base || d >= s.heap_base + s.symmetric_span) return NULL;
  char *base = s.peer_base[pe];
  return base ? (void *)(base + (d - s.heap_base)) : NULL;
#else
  return gshmemi_host_ptr(dest, pe);
#endif
}

/* The OpenSHMEM specification version this library follows. Host and device. */
GSHMEM_HD void gshmem_info_get_version(int *major, int *minor) {
  *major = GSHMEM_MAJOR_VERSION;
  *minor = GSHMEM_MINOR_VERSION;
}

/* Copies GSHMEM_VENDOR_STRING, NUL included, into name (at least
 * GSHMEM_MAX_NAME_LEN bytes). Host and device. */
GSHMEM_HD void gshmem_info_get_name(char *name) {
  const char *v = GSHMEM_VENDOR_STRING;
  int i = 0;
  for (; v[i] && i < GSHMEM_MAX_NAME_LEN - 1; ++i) name[i] = v[i];
  name[i] = '\0';
}
