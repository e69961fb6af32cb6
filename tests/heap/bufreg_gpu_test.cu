// Registered buffers on GPUs (gshmemx_buffer_register_symmetric), through
// the public API: every PE allocates a buffer itself with the CUDA VMM API,
// registers it, and the symmetric address it gets back works like heap
// memory (device p / put, host RMA, gshmem_ptr on host and device, a signal
// and a wait, a reduction on a stream) while the program's own mapping sees
// the same bytes. Then the refusals (cudaMalloc memory, sizes, PEs that
// disagree, a second registration, gshmem's own memory, bad unregisters),
// after which everything still works; unregister and register again; and
// finalize with a buffer left registered, after which the program's own
// mapping is still valid and is released normally.
//
// With GSHMEM_DISABLE_VMM=1 (the cudaIpc heap) registration is refused as
// not supported, and the heap keeps working.
//
// Every registration call is collective and its outcome agreed, so a
// REQUIRE on it fails on every PE alike; elsewhere only CHECK, so that a
// failing PE still reaches every collective call.
#if defined(__CUDACC_RDC__)
#error "bufreg_gpu_test must be compiled without -rdc"
#endif

#include <gshmem/gshmemx.h>

#include <cuda.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "catch.hpp"
#include "gpu_test_support.h"

namespace {

// ------------------------------------------------- the program's own buffers

// The driver functions the test calls, fetched through the runtime (the
// test does not link libcuda, so it starts, and skips, without a driver).
struct Driver {
  decltype(&::cuMemGetAllocationGranularity) granularity = nullptr;
  decltype(&::cuMemCreate) create = nullptr;
  decltype(&::cuMemRelease) release = nullptr;
  decltype(&::cuMemAddressReserve) reserve = nullptr;
  decltype(&::cuMemAddressFree) address_free = nullptr;
  decltype(&::cuMemMap) map = nullptr;
  decltype(&::cuMemUnmap) unmap = nullptr;
  decltype(&::cuMemSetAccess) set_access = nullptr;

  template <class Fn>
  static bool load(const char *name, Fn *fn) {
    void *p = nullptr;
    cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
#if CUDART_VERSION >= 12050
    cudaError_t rc = cudaGetDriverEntryPointByVersion(name, &p, 12000, cudaEnableDefault, &found);
#else
    cudaError_t rc = cudaGetDriverEntryPoint(name, &p, cudaEnableDefault, &found);
#endif
    *fn = reinterpret_cast<Fn>(p);
    return rc == cudaSuccess && found == cudaDriverEntryPointSuccess && p != nullptr;
  }
  bool load_all() {
    return load("cuMemGetAllocationGranularity", &granularity) && load("cuMemCreate", &create) &&
           load("cuMemRelease", &release) && load("cuMemAddressReserve", &reserve) &&
           load("cuMemAddressFree", &address_free) && load("cuMemMap", &map) && load("cuMemUnmap", &unmap) &&
           load("cuMemSetAccess", &set_access);
  }
};

CUmemAllocationProp device_prop(int device) {
  CUmemAllocationProp prop{};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = device;
  prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
  return prop;
}

// One cuMemCreate allocation mapped at its own reservation, as NVSHMEM's
// perftest helper and user-buffer example make it.
struct VmmBuffer {
  void *ptr = nullptr;
  std::size_t bytes = 0;
  CUmemGenericAllocationHandle handle = 0;
  CUdeviceptr reserved = 0;
  bool mapped = false;
};

VmmBuffer make_vmm_buffer(const Driver &d, int device, std::size_t bytes) {
  VmmBuffer b;
  b.bytes = bytes;
  const CUmemAllocationProp prop = device_prop(device);
  REQUIRE(d.create(&b.handle, bytes, &prop, 0) == CUDA_SUCCESS);
  REQUIRE(d.reserve(&b.reserved, bytes, 0, 0, 0) == CUDA_SUCCESS);
  REQUIRE(d.map(b.reserved, bytes, 0, b.handle, 0) == CUDA_SUCCESS);
  b.mapped = true;
  CUmemAccessDesc access{};
  access.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  access.location.id = device;
  access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  REQUIRE(d.set_access(b.reserved, bytes, &access, 1) == CUDA_SUCCESS);
  b.ptr = reinterpret_cast<void *>(b.reserved);
  GSHMEM_TEST_CUDA(cudaMemset(b.ptr, 0, bytes));
  GSHMEM_TEST_CUDA(cudaDeviceSynchronize());
  return b;
}

// The program's own teardown: it must work whether or not gshmem still has
// the buffer registered (finalize unregistered it).
void free_vmm_buffer(const Driver &d, VmmBuffer *b) {
  if (b->mapped) CHECK(d.unmap(b->reserved, b->bytes) == CUDA_SUCCESS);
  if (b->reserved) CHECK(d.address_free(b->reserved, b->bytes) == CUDA_SUCCESS);
  if (b->handle) CHECK(d.release(b->handle) == CUDA_SUCCESS);
  *b = VmmBuffer{};
}

// ------------------------------------------------------------------ kernels

__host__ __device__ std::uint64_t pattern(int pe, std::size_t i, std::uint64_t salt) {
  return ((std::uint64_t(pe) + 1) << 48) ^ (i * 0x9E3779B97F4A7C15ull) ^ salt;
}

__global__ void fill(std::uint64_t *words, std::size_t n, int pe, std::uint64_t salt) {
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    words[i] = pattern(pe, i, salt);
}

// Into PE `pe`'s copy of `dest` (a registered address): the first half word
// by word with gshmem_uint64_p from every thread, the second half with one
// gshmem_uint64_put from a local staging buffer.
__global__ void put_words(std::uint64_t *dest, const std::uint64_t *staging, std::size_t n, int pe) {
  const std::size_t half = n / 2;
  for (std::size_t i = threadIdx.x; i < half; i += blockDim.x) gshmem_uint64_p(dest + i, staging[i], pe);
  if (threadIdx.x == 0) gshmem_uint64_put(dest + half, staging + half, n - half, pe);
  gshmem_quiet();
}

// Reads PE `pe`'s copy of `sym` through gshmem_ptr and counts the words that
// differ from pattern(expected_pe, i, salt); a NULL peer address counts in *null_ptrs.
__global__ void read_through_ptr(const std::uint64_t *sym, std::size_t n, int pe, int expected_pe, std::uint64_t salt,
                                 unsigned long long *mismatches, int *null_ptrs) {
  const std::uint64_t *peer = static_cast<const std::uint64_t *>(gshmem_ptr(sym, pe));
  if (peer == nullptr) {
    if (blockIdx.x == 0 && threadIdx.x == 0) atomicAdd(null_ptrs, 1);
    return;
  }
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    if (peer[i] != pattern(expected_pe, i, salt)) atomicAdd(mismatches, 1ull);
}

// Signals PE `pe`'s copy of `flag`, then waits for this PE's to be signalled.
__global__ void signal_and_wait(std::uint64_t *flag, std::uint64_t value, int pe) {
  gshmemx_signal_op(flag, value, GSHMEM_SIGNAL_SET, pe);
  gshmem_signal_wait_until(flag, GSHMEM_CMP_EQ, value);
}

// ------------------------------------------------------------------ helpers

std::vector<std::uint64_t> read_words(const void *device, std::size_t n) {
  std::vector<std::uint64_t> out(n);
  GSHMEM_TEST_CUDA(cudaMemcpy(out.data(), device, n * sizeof(std::uint64_t), cudaMemcpyDeviceToHost));
  return out;
}

std::size_t count_mismatches(const std::vector<std::uint64_t> &got, int pe, std::uint64_t salt) {
  std::size_t bad = 0;
  for (std::size_t i = 0; i < got.size(); ++i) bad += got[i] != pattern(pe, i, salt);
  return bad;
}

bool legacy_heap() {
  const char *v = std::getenv("GSHMEM_DISABLE_VMM");
  return v != nullptr && (std::strcmp(v, "1") == 0 || std::strcmp(v, "yes") == 0 || std::strcmp(v, "true") == 0 ||
                          std::strcmp(v, "on") == 0);
}

// A refused registration: NULL on this PE with `code` (the same on every PE).
void check_refused(void *buf, std::size_t size, int flags, int code) {
  INFO("gshmemx_buffer_register_symmetric(" << buf << ", " << size << ", " << flags << ")");
  CHECK(gshmemx_buffer_register_symmetric(buf, size, flags) == nullptr);
  CHECK(gshmemx_get_last_error() == code);
}

// What every PE sees after a device put from its left neighbour, a barrier
// apart: the pattern of the left neighbour in its own mapping.
void put_round(std::uint64_t *reg, const VmmBuffer &own, std::size_t words, std::uint64_t salt) {
  const int me = gshmem_my_pe(), n = gshmem_n_pes();
  const int right = (me + 1) % n, left = (me + n - 1) % n;
  std::uint64_t *staging = nullptr;
  GSHMEM_TEST_CUDA(cudaMalloc(&staging, words * sizeof(std::uint64_t)));
  fill<<<64, 256>>>(staging, words, me, salt);
  GSHMEM_TEST_CUDA(cudaMemset(own.ptr, 0, own.bytes));
  GSHMEM_TEST_CUDA(cudaDeviceSynchronize());
  gshmem_barrier_all();  // every buffer zeroed before anyone writes
  put_words<<<1, 256>>>(reg, staging, words, right);
  GSHMEM_TEST_CUDA(cudaGetLastError());
  gshmem_barrier_all();  // waits for the puts of every PE
  CHECK(count_mismatches(read_words(own.ptr, words), left, salt) == 0);
  GSHMEM_TEST_CUDA(cudaFree(staging));
}

}  // namespace

TEST_CASE("registered VMM buffers are symmetric memory", "[heap][gpu][registration]") {
  gshmem_test::select_default_device();
  REQUIRE(gshmem_init() == GSHMEM_SUCCESS);
  const int me = gshmem_my_pe(), n = gshmem_n_pes();
  REQUIRE(n >= 2);
  const int right = (me + 1) % n, left = (me + n - 1) % n;
  int device = -1;
  GSHMEM_TEST_CUDA(cudaGetDevice(&device));
  Driver d;
  REQUIRE(d.load_all());
  std::size_t granularity = 0;
  const CUmemAllocationProp prop = device_prop(device);
  REQUIRE(d.granularity(&granularity, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM) == CUDA_SUCCESS);
  REQUIRE(granularity >= 4096);
  const std::size_t bytes = 2 * granularity;
  const std::size_t words = bytes / sizeof(std::uint64_t);

  if (legacy_heap()) {
    VmmBuffer buf = make_vmm_buffer(d, device, bytes);
    check_refused(buf.ptr, bytes, 0, GSHMEMX_ERROR_NOT_SUPPORTED);
    CHECK(gshmemx_buffer_unregister_symmetric(buf.ptr, bytes) == GSHMEMX_ERROR_NOT_SUPPORTED);
    void *p = gshmem_malloc(4096);  // the heap is unaffected
    CHECK(p != nullptr);
    gshmem_free(p);
    gshmem_finalize();
    free_vmm_buffer(d, &buf);
    return;
  }

  // ---- registration, and the two mappings of one memory
  VmmBuffer buf = make_vmm_buffer(d, device, bytes);
  auto *reg = static_cast<std::uint64_t *>(gshmemx_buffer_register_symmetric(buf.ptr, bytes, 0));
  REQUIRE(reg != nullptr);
  CHECK(gshmemx_get_last_error() == GSHMEM_SUCCESS);
  CHECK(static_cast<void *>(reg) != buf.ptr);
  CHECK(gshmem_ptr(reg, me) == reg);
  CHECK(gshmem_ptr(reg, right) != nullptr);
  CHECK(gshmem_ptr(reg + words - 1, right) != nullptr);
  CHECK(gshmem_ptr(reg + words, right) == nullptr);  // past the buffer: not symmetric
  CHECK(gshmem_ptr(buf.ptr, right) == nullptr);      // the program's own mapping is not symmetric
  {
    std::vector<unsigned char> seen(4096);
    GSHMEM_TEST_CUDA(cudaMemset(reg, 0xAB, 4096));
    GSHMEM_TEST_CUDA(cudaMemcpy(seen.data(), buf.ptr, 4096, cudaMemcpyDeviceToHost));
    std::size_t other = 0;
    for (unsigned char c : seen) other += c != 0xAB;
    CHECK(other == 0);  // a store through the symmetric address is seen through buf_ptr
    GSHMEM_TEST_CUDA(cudaMemset(static_cast<char *>(buf.ptr) + 8192, 0xCD, 4096));
    GSHMEM_TEST_CUDA(cudaMemcpy(seen.data(), reinterpret_cast<char *>(reg) + 8192, 4096, cudaMemcpyDeviceToHost));
    other = 0;
    for (unsigned char c : seen) other += c != 0xCD;
    CHECK(other == 0);  // and back
  }

  // ---- device p / put into the right neighbour's buffer, read through the own mapping
  put_round(reg, buf, words, 1);

  // ---- gshmem_ptr on the device and on the host: the right neighbour's
  // buffer now holds this PE's pattern.
  {
    unsigned long long *mismatches = nullptr;
    int *null_ptrs = nullptr;
    GSHMEM_TEST_CUDA(cudaMallocManaged(&mismatches, sizeof *mismatches));
    GSHMEM_TEST_CUDA(cudaMallocManaged(&null_ptrs, sizeof *null_ptrs));
    *mismatches = 0;
    *null_ptrs = 0;
    read_through_ptr<<<64, 256>>>(reg, words, right, me, 1, mismatches, null_ptrs);
    GSHMEM_TEST_CUDA(cudaDeviceSynchronize());
    CHECK(*null_ptrs == 0);
    CHECK(*mismatches == 0);
    GSHMEM_TEST_CUDA(cudaFree(mismatches));
    GSHMEM_TEST_CUDA(cudaFree(null_ptrs));
    const void *peer = gshmem_ptr(reg, right);
    CHECK(peer != nullptr);
    if (peer) CHECK(count_mismatches(read_words(peer, 1024), me, 1) == 0);
    gshmem_barrier_all();
  }

  // ---- host RMA: put into the right neighbour, get from the left one
  {
    std::vector<std::uint64_t> mine(1024);
    for (std::size_t i = 0; i < mine.size(); ++i) mine[i] = pattern(me, i, 2);
    gshmem_putmem(reg, mine.data(), mine.size() * sizeof(std::uint64_t), right);
    CHECK(gshmemx_get_last_error() == GSHMEM_SUCCESS);
    gshmem_uint64_p(reg + words - 2, pattern(me, 7, 2), right);
    CHECK(gshmemx_get_last_error() == GSHMEM_SUCCESS);
    gshmem_barrier_all();
    CHECK(count_mismatches(read_words(buf.ptr, 1024), left, 2) == 0);
    CHECK(read_words(buf.ptr, words)[words - 2] == pattern(left, 7, 2));
    std::vector<std::uint64_t> got(1024);
    gshmem_getmem(got.data(), reg, got.size() * sizeof(std::uint64_t), left);
    CHECK(gshmemx_get_last_error() == GSHMEM_SUCCESS);
    CHECK(count_mismatches(got, (left + n - 1) % n, 2) == 0);  // what the left neighbour's left put there
    gshmem_barrier_all();
  }

  // ---- a signal and a wait on registered memory
  {
    std::uint64_t *flag = reg + words - 1;
    GSHMEM_TEST_CUDA(cudaMemset(flag, 0, sizeof *flag));
    GSHMEM_TEST_CUDA(cudaDeviceSynchronize());
    gshmem_barrier_all();
    signal_and_wait<<<1, 1>>>(flag, 5, right);
    GSHMEM_TEST_CUDA(cudaDeviceSynchronize());
    CHECK(read_words(buf.ptr, words)[words - 1] == 5);
    gshmem_barrier_all();
  }

  // ---- a reduction on a stream over registered memory (as NVSHMEM's user-buffer example)
  {
    constexpr std::size_t kFloats = 1024;
    float *source = reinterpret_cast<float *>(reg);
    float *dest = source + kFloats;
    std::vector<float> values(kFloats);
    for (std::size_t i = 0; i < kFloats; ++i) values[i] = static_cast<float>(i);
    GSHMEM_TEST_CUDA(cudaMemcpy(source, values.data(), kFloats * sizeof(float), cudaMemcpyHostToDevice));
    gshmem_barrier_all();
    cudaStream_t stream;
    GSHMEM_TEST_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    CHECK(gshmemx_float_sum_reduce_on_stream(GSHMEM_TEAM_WORLD, dest, source, kFloats, stream) == GSHMEM_SUCCESS);
    GSHMEM_TEST_CUDA(cudaStreamSynchronize(stream));
    GSHMEM_TEST_CUDA(cudaStreamDestroy(stream));
    std::vector<float> sums(kFloats);
    GSHMEM_TEST_CUDA(cudaMemcpy(sums.data(), reinterpret_cast<float *>(buf.ptr) + kFloats, kFloats * sizeof(float),
                                cudaMemcpyDeviceToHost));
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < kFloats; ++i) wrong += sums[i] != static_cast<float>(i) * static_cast<float>(n);
    CHECK(wrong == 0);
    gshmem_barrier_all();
  }

  // ---- refusals: NULL on every PE with the same code, and nothing changes
  VmmBuffer small = make_vmm_buffer(d, device, granularity);
  VmmBuffer large = make_vmm_buffer(d, device, 2 * granularity);
  void *plain = nullptr;
  GSHMEM_TEST_CUDA(cudaMalloc(&plain, bytes));
  check_refused(plain, bytes, 0, GSHMEMX_ERROR_INVALID_VALUE);                 // cudaMalloc memory, every PE
  check_refused(me == 1 ? plain : small.ptr, granularity, 0, GSHMEMX_ERROR_INVALID_VALUE);  // on PE 1 only
  check_refused(small.ptr, granularity / 2, 0, GSHMEMX_ERROR_INVALID_VALUE);   // not a multiple of the granularity
  check_refused(small.ptr, 2 * granularity, 0, GSHMEMX_ERROR_INVALID_VALUE);   // more than the allocation
  check_refused(large.ptr, granularity, 0, GSHMEMX_ERROR_INVALID_VALUE);       // less than the allocation
  check_refused(me == 0 ? small.ptr : large.ptr, me == 0 ? granularity : 2 * granularity, 0,
                GSHMEMX_ERROR_SYMMETRY);                                        // PEs disagree on the size
  check_refused(buf.ptr, bytes, 0, GSHMEMX_ERROR_INVALID_VALUE);               // registered already
  check_refused(reg, bytes, 0, GSHMEMX_ERROR_INVALID_VALUE);                   // the symmetric address itself
  void *heap = gshmem_malloc(granularity);
  CHECK(heap != nullptr);
  check_refused(heap, granularity, 0, GSHMEMX_ERROR_INVALID_VALUE);            // gshmem's heap
  gshmem_free(heap);
  check_refused(nullptr, bytes, 0, GSHMEMX_ERROR_INVALID_VALUE);
  check_refused(small.ptr, 0, 0, GSHMEMX_ERROR_INVALID_VALUE);
  check_refused(small.ptr, granularity, 1, GSHMEMX_ERROR_INVALID_VALUE);      // flags
  CHECK(gshmemx_buffer_unregister_symmetric(buf.ptr, bytes) == GSHMEMX_ERROR_NOT_SYMMETRIC);  // not the returned address
  CHECK(gshmemx_get_last_error() == GSHMEMX_ERROR_NOT_SYMMETRIC);
  CHECK(gshmemx_buffer_unregister_symmetric(reg + 1, bytes) == GSHMEMX_ERROR_NOT_SYMMETRIC);
  CHECK(gshmemx_buffer_unregister_symmetric(reg, bytes / 2) == GSHMEMX_ERROR_INVALID_VALUE);  // wrong size
  CHECK(gshmemx_get_last_error() == GSHMEMX_ERROR_INVALID_VALUE);
  GSHMEM_TEST_CUDA(cudaFree(plain));
  CHECK(gshmemx_heap_bytes_in_use() == 0);
  // Nothing broke: the registration still works, and a new one too.
  CHECK(gshmem_ptr(reg, right) != nullptr);
  put_round(reg, buf, words, 3);
  auto *second = static_cast<std::uint64_t *>(gshmemx_buffer_register_symmetric(small.ptr, granularity, 0));
  REQUIRE(second != nullptr);
  CHECK(second != reg);
  put_round(second, small, granularity / sizeof(std::uint64_t), 4);
  CHECK(gshmemx_buffer_unregister_symmetric(second, granularity) == GSHMEM_SUCCESS);

  // ---- unregister, then register again
  CHECK(gshmemx_buffer_unregister_symmetric(reg, bytes) == GSHMEM_SUCCESS);
  CHECK(gshmemx_get_last_error() == GSHMEM_SUCCESS);
  CHECK(gshmem_ptr(reg, right) == nullptr);
  CHECK(gshmem_ptr(reg, me) == nullptr);
  CHECK(gshmemx_buffer_unregister_symmetric(reg, bytes) == GSHMEMX_ERROR_NOT_SYMMETRIC);  // twice
  {
    // The program's own mapping is untouched.
    GSHMEM_TEST_CUDA(cudaMemset(buf.ptr, 0x11, 4096));
    std::vector<unsigned char> seen(4096);
    GSHMEM_TEST_CUDA(cudaMemcpy(seen.data(), buf.ptr, 4096, cudaMemcpyDeviceToHost));
    std::size_t other = 0;
    for (unsigned char c : seen) other += c != 0x11;
    CHECK(other == 0);
  }
  auto *again = static_cast<std::uint64_t *>(gshmemx_buffer_register_symmetric(buf.ptr, bytes, 0));
  REQUIRE(again != nullptr);
  put_round(again, buf, words, 5);

  // ---- finalize with `again` still registered: it is unregistered, and the
  // program's own mappings stay valid and are released normally.
  gshmem_finalize();
  CHECK(gshmemx_initialized() == 0);
  {
    GSHMEM_TEST_CUDA(cudaMemset(buf.ptr, 0x22, 4096));
    std::vector<unsigned char> seen(4096);
    GSHMEM_TEST_CUDA(cudaMemcpy(seen.data(), buf.ptr, 4096, cudaMemcpyDeviceToHost));
    std::size_t other = 0;
    for (unsigned char c : seen) other += c != 0x22;
    CHECK(other == 0);
  }
  free_vmm_buffer(d, &buf);
  free_vmm_buffer(d, &small);
  free_vmm_buffer(d, &large);
  GSHMEM_TEST_CUDA(cudaDeviceSynchronize());
}
