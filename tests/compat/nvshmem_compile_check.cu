// A program written for NVSHMEM, compiled against gshmem's compatibility
// headers (include/gshmem/compat) without -rdc. Case 0 must compile; cases
// 1-2 and 7 call an NVSHMEM routine gshmem does not provide, cases 3-6 and 8 a name
// NVSHMEM does not have; each must fail with a diagnostic that names it
// (tests/compat/CMakeLists.txt).
#include <nvshmem.h>
#include <nvshmemx.h>

#if GSHMEM_CHECK_CASE == 0
__global__ void k(int *flag, long *data, uint64_t *sig, size_t *idx, int *st, long *cv) {
  int pe = nvshmem_my_pe(), peer = (pe + 1) % nvshmem_n_pes();
  nvshmem_int_p(flag, 1, peer);
  nvshmem_long_put_nbi(data, data + 8, 8, peer);
  nvshmem_quiet();
  nvshmem_int_wait_until(flag, NVSHMEM_CMP_EQ, 1);
  size_t a = nvshmem_long_wait_until_any(data, 8, NULL, NVSHMEM_CMP_GE, 1);
  size_t s = nvshmem_long_test_some_vector(data, 8, idx, st, NVSHMEM_CMP_GE, cv);
  nvshmem_long_wait_until_all(data, 8, NULL, NVSHMEM_CMP_GE, 0);
  uint64_t v = nvshmem_signal_wait_until(sig, NVSHMEM_CMP_GE, 1);
  v += nvshmem_signal_fetch(sig);
  nvshmemx_signal_op(sig, v + a + s, NVSHMEM_SIGNAL_ADD, peer);
  nvshmem_long_put_signal(data, data + 8, 8, sig, 1, NVSHMEM_SIGNAL_SET, peer);
  long old = nvshmem_long_atomic_fetch_add(data, 1, peer);
  nvshmem_ulong_atomic_or((unsigned long *)data, (unsigned long)old, peer);
  nvshmemx_long_put_block(data, data + 8, 8, peer);
  nvshmemx_putmem_signal_warp(data, data + 8, 64, sig, 1, NVSHMEM_SIGNAL_ADD, peer);
  nvshmem_fence();
}
// Sized and strided RMA: each name with NVSHMEM 3.5.1's signature (the
// types written out as its headers declare them), every RMA type and size.
#include <type_traits>
#define CHECK_SIG(name, ...) static_assert(std::is_same<decltype(&name), __VA_ARGS__>::value, #name "'s signature")
#define CHECK_STRIDED(T, TYPE)                                                                         \
  CHECK_SIG(nvshmem_##T##_iput, void (*)(TYPE *, const TYPE *, ptrdiff_t, ptrdiff_t, size_t, int));    \
  CHECK_SIG(nvshmem_##T##_iget, void (*)(TYPE *, const TYPE *, ptrdiff_t, ptrdiff_t, size_t, int));    \
  CHECK_SIG(nvshmemx_##T##_iput_warp, void (*)(TYPE *, const TYPE *, ptrdiff_t, ptrdiff_t, size_t, int)); \
  CHECK_SIG(nvshmemx_##T##_iget_block, void (*)(TYPE *, const TYPE *, ptrdiff_t, ptrdiff_t, size_t, int)); \
  CHECK_SIG(nvshmemx_##T##_iput_on_stream,                                                             \
            void (*)(TYPE *, const TYPE *, ptrdiff_t, ptrdiff_t, size_t, int, cudaStream_t));
#define CHECK_SIZED(SIZE, BYTES)                                                                        \
  CHECK_SIG(nvshmem_put##SIZE, void (*)(void *, const void *, size_t, int));                            \
  CHECK_SIG(nvshmem_get##SIZE##_nbi, void (*)(void *, const void *, size_t, int));                      \
  CHECK_SIG(nvshmemx_put##SIZE##_nbi_warp, void (*)(void *, const void *, size_t, int));                \
  CHECK_SIG(nvshmemx_get##SIZE##_block, void (*)(void *, const void *, size_t, int));                   \
  CHECK_SIG(nvshmemx_put##SIZE##_on_stream, void (*)(void *, const void *, size_t, int, cudaStream_t)); \
  CHECK_SIG(nvshmemx_get##SIZE##_nbi_on_stream, void (*)(void *, const void *, size_t, int, cudaStream_t)); \
  CHECK_SIG(nvshmem_put##SIZE##_signal,                                                                 \
            void (*)(void *, const void *, size_t, uint64_t *, uint64_t, int, int));                    \
  CHECK_SIG(nvshmemx_put##SIZE##_signal_nbi_on_stream,                                                  \
            void (*)(void *, const void *, size_t, uint64_t *, uint64_t, int, int, cudaStream_t));      \
  CHECK_SIG(nvshmem_iput##SIZE, void (*)(void *, const void *, ptrdiff_t, ptrdiff_t, size_t, int));     \
  CHECK_SIG(nvshmemx_iget##SIZE##_warp, void (*)(void *, const void *, ptrdiff_t, ptrdiff_t, size_t, int)); \
  CHECK_SIG(nvshmemx_iget##SIZE##_on_stream,                                                            \
            void (*)(void *, const void *, ptrdiff_t, ptrdiff_t, size_t, int, cudaStream_t));
__device__ void sized_and_strided_signatures() {
  GSHMEM_FOR_EACH_RMA_TYPE(CHECK_STRIDED)
  GSHMEM_FOR_EACH_RMA_SIZE(CHECK_SIZED)
  CHECK_SIG(nvshmemx_put64_signal_warp, void (*)(void *, const void *, size_t, uint64_t *, uint64_t, int, int));
  CHECK_SIG(nvshmemx_put128_signal_nbi_block,
            void (*)(void *, const void *, size_t, uint64_t *, uint64_t, int, int));
}
__global__ void sized_and_strided(long *data, uint64_t *sig, int peer) {
  nvshmem_long_iput(data, data + 64, 3, 2, 5, peer);
  nvshmem_iget32(data, data + 64, 1, 7, 4, peer);
  nvshmemx_double_iget_warp((double *)data, (const double *)data + 64, -1, 3, 8, peer);
  nvshmemx_iput128_block(data, data + 64, 2, 2, 3, peer);
  nvshmem_put16_nbi(data, data + 64, 9, peer);
  nvshmemx_get8_warp(data, data + 64, 33, peer);
  nvshmem_put128_signal_nbi(data, data + 64, 2, sig, 1, NVSHMEM_SIGNAL_ADD, peer);
}
void sized_and_strided_on_host(long *data, long *local, int peer, cudaStream_t s) {
  nvshmem_put64(data, local, 4, peer);
  nvshmem_int_iput((int *)data, (const int *)local, 2, 1, 4, peer);
  nvshmemx_iget16_on_stream(local, data, 1, 3, 4, peer, s);
  nvshmemx_ulong_iput_on_stream((unsigned long *)data, (const unsigned long *)local, 1, 1, 0, peer, s);
}
// The per-queue-pair forms (nvshmemx_qp_*), every RMA type (half and
// bfloat16 included), with NVSHMEM 3.5.1's signatures, and a kernel that
// calls them with handles from nvshmemx_qp_create.
#define CHECK_QP_GROUP(T, TYPE, GROUP)                                                                  \
  CHECK_SIG(nvshmemx_qp_##T##_put_##GROUP, void (*)(TYPE *, const TYPE *, size_t, int, nvshmemx_qp_handle_t)); \
  CHECK_SIG(nvshmemx_qp_##T##_get_nbi_##GROUP,                                                          \
            void (*)(TYPE *, const TYPE *, size_t, int, nvshmemx_qp_handle_t));                         \
  CHECK_SIG(nvshmemx_qp_##T##_put_signal_nbi_##GROUP,                                                   \
            void (*)(TYPE *, const TYPE *, size_t, uint64_t *, uint64_t, int, int, nvshmemx_qp_handle_t));
#define CHECK_QP(T, TYPE)                                                                               \
  CHECK_SIG(nvshmemx_qp_##T##_p, void (*)(TYPE *, TYPE, int, nvshmemx_qp_handle_t));                    \
  CHECK_SIG(nvshmemx_qp_##T##_g, TYPE (*)(const TYPE *, int, nvshmemx_qp_handle_t));                    \
  CHECK_SIG(nvshmemx_qp_##T##_get, void (*)(TYPE *, const TYPE *, size_t, int, nvshmemx_qp_handle_t));  \
  CHECK_SIG(nvshmemx_qp_##T##_put_nbi, void (*)(TYPE *, const TYPE *, size_t, int, nvshmemx_qp_handle_t)); \
  CHECK_SIG(nvshmemx_qp_##T##_put_signal,                                                               \
            void (*)(TYPE *, const TYPE *, size_t, uint64_t *, uint64_t, int, int, nvshmemx_qp_handle_t)); \
  CHECK_QP_GROUP(T, TYPE, warp)                                                                         \
  CHECK_QP_GROUP(T, TYPE, block)
__device__ void qp_signatures() {
  GSHMEM_FOR_EACH_RMA_TYPE(CHECK_QP)
  CHECK_SIG(nvshmemx_qp_signal_op, void (*)(uint64_t *, uint64_t, int, int, nvshmemx_qp_handle_t));
  CHECK_SIG(nvshmemx_qp_quiet_block, void (*)(int, nvshmemx_qp_handle_t *, int));
  CHECK_SIG(nvshmemx_qp_fence_warp, void (*)(int, nvshmemx_qp_handle_t *, int));
}
static_assert(std::is_same<decltype(&nvshmemx_qp_create), int (*)(int, nvshmemx_qp_handle_t **)>::value,
              "nvshmemx_qp_create's signature");
static_assert(NVSHMEMX_QP_HOST == 0 && NVSHMEMX_QP_DEFAULT == 1 && NVSHMEMX_QP_ALL == 2147483647 &&
                  NVSHMEMX_QP_ANY == NVSHMEMX_QP_ALL && NVSHMEMX_PE_ANY == (1 << 15) && NVSHMEM_PE_INVALID == -1,
              "NVSHMEM's queue-pair and PE numbering");
__global__ void qp_kernel(long *data, uint64_t *sig, nvshmemx_qp_handle_t *qps, int peer) {
  const nvshmemx_qp_handle_t qp = qps[blockIdx.x % 2];
  nvshmemx_qp_long_p(data, 1, peer, qp);
  long v = nvshmemx_qp_long_g(data, peer, NVSHMEMX_QP_DEFAULT);
  nvshmemx_qp_long_put_nbi_block(data, data + 8, 8, peer, qp);
  nvshmemx_qp_half_put_signal_warp((__half *)data, (const __half *)data + 64, 8, sig, 1, NVSHMEM_SIGNAL_ADD, peer,
                                   qp);
  nvshmemx_qp_bfloat16_get((__nv_bfloat16 *)data, (const __nv_bfloat16 *)data + 64, 4, peer, qp);
  nvshmemx_qp_signal_op(sig, (uint64_t)v, NVSHMEM_SIGNAL_SET, peer, qp);
  nvshmemx_qp_fence(peer, qps, 2);
  nvshmemx_qp_quiet_block(NVSHMEMX_PE_ALL, qps, 2);
}
int qp_host(long *data, uint64_t *sig, int peer) {
  nvshmemx_qp_handle_t *qps = NULL;
  if (nvshmemx_qp_create(2, &qps) != 0) return 1;
  qp_kernel<<<2, 128>>>(data, sig, qps, peer);
  return 0;
}
// NVSHMEM's half and bfloat16 forms (RMA, strided, on a stream, put with
// signal): the types of <cuda_fp16.h> and <cuda_bf16.h>, as NVSHMEM's.
__device__ void half_signatures() {
  CHECK_SIG(nvshmem_half_p, void (*)(__half *, __half, int));
  CHECK_SIG(nvshmem_bfloat16_g, __nv_bfloat16 (*)(const __nv_bfloat16 *, int));
  CHECK_SIG(nvshmemx_half_put_nbi_block, void (*)(half *, const half *, size_t, int));
  CHECK_SIG(nvshmem_bfloat16_put_signal_nbi,
            void (*)(__nv_bfloat16 *, const __nv_bfloat16 *, size_t, uint64_t *, uint64_t, int, int));
  CHECK_SIG(nvshmemx_half_iget_warp, void (*)(half *, const half *, ptrdiff_t, ptrdiff_t, size_t, int));
  CHECK_SIG(nvshmemx_bfloat16_get_on_stream,
            void (*)(__nv_bfloat16 *, const __nv_bfloat16 *, size_t, int, cudaStream_t));
}
#undef CHECK_QP
#undef CHECK_QP_GROUP
#undef CHECK_SIZED
#undef CHECK_STRIDED
#undef CHECK_SIG
// NVSHMEM's numbers for the constants: code (bindings) that passes the
// numbers themselves must mean the same thing.
static_assert(NVSHMEM_CMP_EQ == 0 && NVSHMEM_CMP_NE == 1 && NVSHMEM_CMP_GT == 2 && NVSHMEM_CMP_LE == 3 &&
                  NVSHMEM_CMP_LT == 4 && NVSHMEM_CMP_GE == 5,
              "NVSHMEM's comparison numbering");
static_assert(NVSHMEM_SIGNAL_SET == 9 && NVSHMEM_SIGNAL_ADD == 10, "NVSHMEM's signal operator numbering");
static_assert(NVSHMEM_TEAM_INVALID == -1 && NVSHMEM_TEAM_WORLD == 0 && NVSHMEM_TEAM_SHARED == 1 &&
                  NVSHMEMX_TEAM_NODE == 2 && NVSHMEMX_TEAM_SAME_MYPE_NODE == 3,
              "NVSHMEM's team handle numbering");
#if !defined(NVSHMEM_VENDOR_MAJOR_VERSION) || NVSHMEM_VENDOR_MAJOR_VERSION < 3
#error "NVSHMEM_VENDOR_MAJOR_VERSION must name the NVSHMEM API generation (3)"
#endif
__device__ void vendor_version_on_device(int *v) { nvshmemx_vendor_get_version_info(v, v + 1, v + 2); }
// NVSHMEM 3.5.1's names for the warp/block 16-bit put with signal (its size
// list there reads 6 for 16): a program written against it calls these.
__global__ void put6_signal_forms(void *dest, const void *source, uint64_t *sig) {
  nvshmemx_put6_signal_warp(dest, source, 4, sig, 1, NVSHMEM_SIGNAL_SET, 1);
  nvshmemx_put6_signal_block(dest, source, 4, sig, 2, NVSHMEM_SIGNAL_ADD, 1);
  nvshmemx_put6_signal_nbi_warp(dest, source, 4, sig, 3, NVSHMEM_SIGNAL_SET, 1);
  nvshmemx_put6_signal_nbi_block(dest, source, 4, sig, 4, NVSHMEM_SIGNAL_ADD, 1);
}
// The exact signatures NVSHMEM declares.
static_assert(std::is_same<decltype(&nvshmemx_put6_signal_nbi_block),
                           void (*)(void *, const void *, size_t, uint64_t *, uint64_t, int, int)>::value,
              "nvshmemx_put6_signal_nbi_block has NVSHMEM's signature");
static_assert(std::is_same<decltype(&nvshmemx_team_init),
                           int (*)(nvshmem_team_t *, nvshmem_team_config_t *, long, int, int)>::value,
              "nvshmemx_team_init has NVSHMEM's signature");
static_assert(std::is_same<decltype(&nvshmemx_culibrary_init), int (*)(CUlibrary)>::value &&
                  std::is_same<decltype(&nvshmemx_culibrary_finalize), int (*)(CUlibrary)>::value,
              "nvshmemx_culibrary_init/_finalize have NVSHMEM's signatures");
// NVSHMEM 3.8's newest names, with the signatures its headers declare.
__global__ void nvshmem38_forms(char *dest, const char *source, uint64_t *counter, float *f, double *d, __half *h) {
  int status = nvshmemx_putmem_signal_counted_nbi_block(dest, source, 256, counter, 1);
  nvshmemx_signal_counted_wait_until(counter, 256);
  status += (int)nvshmemx_signal_counted_load(counter);
  nvshmemx_signal_counted_reset(counter);
  nvshmemx_flush();
  nvshmemx_flush_warp();
  nvshmemx_flush_block();
  nvshmemx_put16_signal_warp(dest, source, 4, counter, 1, NVSHMEM_SIGNAL_SET, 1);
  nvshmemx_put16_signal_nbi_block(dest, source, 4, counter, 1, NVSHMEM_SIGNAL_ADD, 1);
  nvshmemx_float_atomic_add(f, 1.0f, 1);
  *d = nvshmemx_double_atomic_fetch_add(d, 1.0, 1);
  nvshmemx_half_atomic_add(h, nvshmem_half_atomic_fetch(h, 1), 1);
  nvshmem_half_atomic_set(h, nvshmem_half_atomic_swap(h, nvshmemx_half_atomic_fetch_add(h, *h, 1), 1), 1);
  nvshmemx_region_handle_t region;
  nvshmemx_region_attrs_t attrs = NVSHMEMX_REGION_ATTRS_INITIALIZER;
  attrs.hints = NVSHMEMX_REGION_HINT_BATCH_RMA;
  int active = 0;
  status += nvshmemx_region_start_block(&region, &attrs) + nvshmemx_region_is_active(attrs.hints, &active);
  status += nvshmemx_region_stop_block(region);
  extern __shared__ char smem[];
  nvshmemx_give_smem(smem, nvshmemx_ask_smem(NVSHMEMX_SMEM_MINIMUM));
  nvshmemx_release_smem();
  dest[0] = (char)(status + active + nvshmemx_status_string(status)[0]);
}
static_assert(std::is_same<decltype(&nvshmemx_putmem_signal_counted_nbi_block),
                           int (*)(void *, const void *, size_t, uint64_t *, int)>::value &&
                  std::is_same<decltype(&nvshmemx_signal_counted_wait_until), void (*)(const uint64_t *, uint64_t)>::value &&
                  std::is_same<decltype(&nvshmemx_signal_counted_load), uint64_t (*)(const uint64_t *)>::value &&
                  std::is_same<decltype(&nvshmemx_signal_counted_reset), void (*)(uint64_t *)>::value,
              "the counted writes have NVSHMEM 3.8's signatures");
static_assert(sizeof(nvshmemx_region_attrs_t) == 64 && NVSHMEMX_REGION_HINT_NONE == 0 &&
                  NVSHMEMX_REGION_HINT_BATCH_RMA == 1 && NVSHMEMX_SMEM_RECOMMENDED == 0 &&
                  NVSHMEMX_SMEM_MINIMUM == 1 && NVSHMEMX_SMEM_BARRIERS_ONLY == 2,
              "NVSHMEM 3.8's region and shared-memory constants and layout");
static_assert(std::is_same<decltype(&nvshmemx_collective_launch_attr),
                           int (*)(const nvshmemx_collective_launch_attr_t *, const void *, void **)>::value &&
                  std::is_same<decltype(&nvshmemx_buffer_register_symmetric_at_preferred_address),
                               void *(*)(void *, size_t, void *, int)>::value &&
                  std::is_same<decltype(&nvshmemx_flush_on_stream), void (*)(cudaStream_t)>::value &&
                  std::is_same<decltype(&nvshmemx_region_start),
                               int (*)(nvshmemx_region_handle_t *, const nvshmemx_region_attrs_t *)>::value,
              "NVSHMEM 3.8's host routines have its signatures");
// NVSHMEM's team initializers: a config as NVSHMEM programs start one, its
// id "none" until set.
inline bool team_config_initializers_check() {
  nvshmem_team_config_t config = NVSHMEM_TEAM_CONFIG_INITIALIZER;
  const nvshmemx_team_uniqueid_t none = NVSHMEM_TEAM_UNIQUID_INITIALIZER;
  return config.num_contexts == 0 && config.uniqueid == none;
}
static_assert(std::is_same<decltype(&nvshmemx_team_get_uniqueid), int (*)(nvshmemx_team_uniqueid_t *)>::value &&
                  sizeof(nvshmemx_team_uniqueid_t) == 8,
              "nvshmemx_team_get_uniqueid has NVSHMEM's signature; the id is 64 bits");
static_assert(NVSHMEM_TEAM_CONFIG_MASK_UNIQUEID == 2, "NVSHMEM's config mask bit for the unique id");
int main() {
  nvshmem_init();
  int *flag = (int *)nvshmem_malloc(sizeof(int));
  long *aligned = (long *)nvshmem_align(256, 8 * sizeof(long));
  cudaStream_t s; cudaStreamCreate(&s);
  nvshmemx_int_wait_until_on_stream(flag, NVSHMEM_CMP_EQ, 1, s);
  nvshmemx_long_wait_until_all_on_stream(aligned, 8, NULL, NVSHMEM_CMP_GE, 1, s);
  nvshmemx_long_wait_until_all_vector_on_stream(aligned, 8, NULL, NVSHMEM_CMP_GE, aligned, s);
  nvshmem_free(aligned);
  nvshmemx_barrier_all_on_stream(s);
  nvshmem_barrier_all();
  nvshmem_free(flag);
  nvshmem_finalize();
}

// Names gshmem has but NVSHMEM does not: the compatibility headers must not
// declare them (a program that compiled against them would fail against
// NVSHMEM).
#elif GSHMEM_CHECK_CASE == 1
__global__ void k(int *ivar) { nvshmem_int_wait(ivar, 0); }  // OpenSHMEM's deprecated wait
#elif GSHMEM_CHECK_CASE == 2
long mask = NVSHMEM_TEAM_NUM_CONTEXTS;  // NVSHMEM's is NVSHMEM_TEAM_CONFIG_MASK_NUM_CONTEXTS
#elif GSHMEM_CHECK_CASE == 3
__global__ void k(ptrdiff_t *dest, const ptrdiff_t *source) {
  nvshmem_ptrdiff_sum_reduce(NVSHMEM_TEAM_WORLD, dest, source, 1);
}
#elif GSHMEM_CHECK_CASE == 4
__global__ void k(float *dest) { nvshmem_float_atomic_compare_swap(dest, 0.f, 1.f, 0); }
#elif GSHMEM_CHECK_CASE == 5
// NVSHMEM's device form (through its host proxy thread); gshmem has the
// host form only (README, "Coming from NVSHMEM").
__global__ void k(int status) { nvshmem_global_exit(status); }
#elif GSHMEM_CHECK_CASE == 6
// NVSHMEM 3.8 has no counted write on a stream; gshmem's own name is
// gshmemx_putmem_signal_counted_on_stream.
void f(void *dest, uint64_t *counter, cudaStream_t s) { nvshmemx_putmem_signal_counted_on_stream(dest, dest, 16, counter, 0, s); }
#endif

#if GSHMEM_CHECK_CASE == 0
// ---------------------------------------------------------------- host RMA, RMA on a stream, init
// An NVSHMEM-style host program: init from a unique id or an MPI
// communicator, host RMA and atomics, RMA on a stream, status and exit.
int host_program(int rank, int nranks, void *mpi_comm, bool use_uid) {
  nvshmemx_init_attr_t attr = NVSHMEMX_INIT_ATTR_INITIALIZER;
  nvshmemx_uniqueid_t id = NVSHMEMX_UNIQUEID_INITIALIZER;
  if (use_uid) {
    if (rank == 0) nvshmemx_get_uniqueid(&id);
    /* ... the program sends sizeof(id) bytes to every rank ... */
    nvshmemx_set_attr_uniqueid_args(rank, nranks, &id, &attr);
    if (nvshmemx_init_attr(NVSHMEMX_INIT_WITH_UNIQUEID, &attr) != 0) return 1;
  } else {
    attr.mpi_comm = mpi_comm;
    nvshmemx_set_attr_mpi_comm_args(mpi_comm, &attr);
    if (nvshmemx_init_attr(NVSHMEMX_INIT_WITH_MPI_COMM, &attr) != 0) return 1;
  }
  if (nvshmemx_init_status() < NVSHMEM_STATUS_IS_INITIALIZED) nvshmem_global_exit(2);
  if (NVSHMEMX_SUCCESS != 0 || NVSHMEMX_ERROR_INTERNAL == NVSHMEMX_SUCCESS) {
    NVSHMEMI_ERROR_PRINT("status codes: success %d, internal %d\n", NVSHMEMX_SUCCESS, NVSHMEMX_ERROR_INTERNAL);
    return 1;
  }
  CUresult (*driver_call)(CUdevice *, int) = nullptr;  // driver types come with <nvshmem.h>
  (void)driver_call;
  int major, minor;
  char name[NVSHMEM_MAX_NAME_LEN];
  nvshmem_info_get_version(&major, &minor);
  nvshmem_info_get_name(name);
  const int peer = (nvshmem_my_pe() + 1) % nvshmem_n_pes();
  long *data = (long *)nvshmem_malloc(64 * sizeof(long));
  uint64_t *sig = (uint64_t *)nvshmem_malloc(sizeof(uint64_t));
  long local[64] = {0};
  nvshmem_long_put(data, local, 64, peer);
  nvshmem_long_get_nbi(local, data, 64, peer);
  nvshmem_putmem_nbi(data, local, sizeof(local), peer);
  nvshmem_long_p(data, 1, peer);
  long v = nvshmem_long_g(data, peer) + nvshmem_long_atomic_fetch_add(data, 2, peer);
  nvshmem_long_atomic_inc(data, peer);
  nvshmem_uint64_atomic_fetch_xor(sig, 1, peer);
  nvshmem_double_atomic_swap((double *)data, 1.0, peer);
  nvshmem_long_atomic_compare_swap(data, 0, 1, peer);
  nvshmem_fence();
  nvshmem_quiet();
  // A program's own VMM allocation made symmetric, as NVSHMEM's perftest
  // helper and user-buffer example do it.
  CUmemAllocationProp prop = {};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = 0;
  prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
  size_t granularity = 0;
  cuMemGetAllocationGranularity(&granularity, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM);
  CUmemGenericAllocationHandle handle;
  CUdeviceptr mine = 0;
  cuMemCreate(&handle, granularity, &prop, 0);
  cuMemAddressReserve(&mine, granularity, 0, 0, 0);
  cuMemMap(mine, granularity, 0, handle, 0);
  void *registered = nvshmemx_buffer_register_symmetric((void *)mine, granularity, 0);
  if (registered) nvshmem_long_p((long *)registered, 1, peer);
  if (nvshmemx_buffer_unregister_symmetric(registered, granularity) != 0) return 1;
  cudaStream_t s;
  cudaStreamCreate(&s);
  nvshmemx_long_put_on_stream(data, data + 8, 8, peer, s);
  nvshmemx_putmem_nbi_on_stream(data, data + 8, 64, peer, s);
  nvshmemx_getmem_on_stream(data + 8, data, 64, peer, s);
  nvshmemx_long_p_on_stream(data, v, peer, s);
  v += nvshmemx_long_g_on_stream(data, peer, s);
  nvshmemx_signal_op_on_stream(sig, 1, NVSHMEM_SIGNAL_SET, peer, s);
  v += (long)nvshmem_signal_fetch(sig);  // host form
  nvshmemx_long_put_signal_nbi_on_stream(data, data + 8, 8, sig, 1, NVSHMEM_SIGNAL_ADD, peer, s);
  nvshmemx_sync_all_on_stream(s);
  nvshmemx_barrier_all_on_stream(s);
  cudaStreamSynchronize(s);
  nvshmem_free(sig);
  nvshmem_free(data);
  nvshmem_finalize();
  return (int)v;
}
#endif
