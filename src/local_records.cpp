// Two host-side records the runtime keeps for a program, both released at
// gshmem_finalize:
// - queue-pair handles (gshmemi_qp_create): numbers a program passes to the
//   per-queue-pair RMA forms of the NVSHMEM compatibility headers, in an
//   array that host and device code can read;
// - local buffers a program declared for RMA (gshmemx_buffer_register): a
//   list of address ranges, so that unregistering names exactly what was
//   registered. Over gshmem's transports a local buffer needs no
//   registration: P2P stores and loads reach any memory of this GPU, host
//   RMA copies with cudaMemcpyAsync, and the proxy's transport reads and
//   writes the local side of a request from the kernel's GPU buffer or its
//   own staging (docs/remote.md). The record only checks the program's use.
#include <cuda_runtime.h>

#include <cstdint>
#include <iterator>
#include <map>
#include <mutex>
#include <vector>

#include <gshmem/runtime.h>

#include "log.h"
#include "runtime_internal.h"

namespace gshmemi {
namespace {

struct LocalRecords {
  std::mutex mutex;
  std::vector<int *> qp_arrays;  // pinned host memory, one per gshmemi_qp_create
  int next_qp = GSHMEMI_QP_FIRST;
  std::map<uintptr_t, size_t> buffers;  // start -> length
};

LocalRecords &records() {
  static LocalRecords r;
  return r;
}

}  // namespace

void local_records_finalize(bool release_memory) {
  LocalRecords &r = records();
  std::lock_guard<std::mutex> lock(r.mutex);
  if (release_memory) {
    for (int *a : r.qp_arrays) cudaFreeHost(a);
    (void)cudaGetLastError();
  }
  r.qp_arrays.clear();
  r.next_qp = GSHMEMI_QP_FIRST;
  r.buffers.clear();
}

}  // namespace gshmemi

using gshmemi::records;

int gshmemi_qp_create(int num_qps, int **out_qp_array) {
  gshmemi::set_last_error(GSHMEM_SUCCESS);
  if (!gshmemx_initialized())
    return GSHMEMI_ERROR(GSHMEMX_ERROR_NOT_INITIALIZED, "nvshmemx_qp_create called before init (or after finalize)");
  if (out_qp_array == nullptr)
    return GSHMEMI_ERROR(GSHMEMX_ERROR_INVALID_VALUE, "nvshmemx_qp_create: out_qp_array is NULL");
  if (num_qps <= 0)
    return GSHMEMI_ERROR(GSHMEMX_ERROR_INVALID_VALUE, "nvshmemx_qp_create: num_qps is %d; it must be at least 1",
                         num_qps);
  gshmemi::LocalRecords &r = records();
  std::lock_guard<std::mutex> lock(r.mutex);
  if (num_qps > INT32_MAX - r.next_qp)
    return GSHMEMI_ERROR(GSHMEMX_ERROR_INVALID_VALUE,
                         "nvshmemx_qp_create: %d more handles would pass the largest handle number", num_qps);
  int *handles = nullptr;
  const cudaError_t rc = cudaMallocHost(reinterpret_cast<void **>(&handles), (size_t)num_qps * sizeof(int));
  if (rc != cudaSuccess)
    return GSHMEMI_ERROR(GSHMEMX_ERROR_OUT_OF_MEMORY, "nvshmemx_qp_create: cudaMallocHost of %d handles failed: %s",
                         num_qps, cudaGetErrorString(rc));
  for (int i = 0; i < num_qps; ++i) handles[i] = r.next_qp++;
  r.qp_arrays.push_back(handles);
  *out_qp_array = handles;
  return GSHMEM_SUCCESS;
}

int gshmemx_buffer_register(void *addr, size_t length) {
  gshmemi::set_last_error(GSHMEM_SUCCESS);
  if (!gshmemx_initialized())
    return GSHMEMI_ERROR(GSHMEMX_ERROR_NOT_INITIALIZED, "gshmemx_buffer_register called before gshmem_init");
  if (addr == nullptr || length == 0)
    return GSHMEMI_ERROR(GSHMEMX_ERROR_INVALID_VALUE, "gshmemx_buffer_register(%p, %zu): %s", addr, length,
                         addr == nullptr ? "the address is NULL" : "the length is 0");
  const uintptr_t start = reinterpret_cast<uintptr_t>(addr);
  if (length > UINTPTR_MAX - start)
    return GSHMEMI_ERROR(GSHMEMX_ERROR_INVALID_VALUE, "gshmemx_buffer_register(%p, %zu): the range wraps around",
                         addr, length);
  gshmemi::LocalRecords &r = records();
  std::lock_guard<std::mutex> lock(r.mutex);
  // The first registered range that ends after `start` is the only one that
  // can overlap [start, start + length) from below; any other overlapping
  // range starts inside it.
  auto next = r.buffers.upper_bound(start);
  if (next != r.buffers.begin()) {
    auto prev = std::prev(next);
    if (prev->first + prev->second > start)
      return GSHMEMI_ERROR(GSHMEMX_ERROR_INVALID_VALUE,
                           "gshmemx_buffer_register(%p, %zu): overlaps the registered buffer %p (%zu bytes)", addr,
                           length, reinterpret_cast<void *>(prev->first), prev->second);
  }
  if (next != r.buffers.end() && next->first < start + length)
    return GSHMEMI_ERROR(GSHMEMX_ERROR_INVALID_VALUE,
                         "gshmemx_buffer_register(%p, %zu): overlaps the registered buffer %p (%zu bytes)", addr,
                         length, reinterpret_cast<void *>(next->first), next->second);
  r.buffers.emplace(start, length);
  return GSHMEM_SUCCESS;
}

int gshmemx_buffer_unregister(void *addr) {
  gshmemi::set_last_error(GSHMEM_SUCCESS);
  if (!gshmemx_initialized())
    return GSHMEMI_ERROR(GSHMEMX_ERROR_NOT_INITIALIZED, "gshmemx_buffer_unregister called before gshmem_init");
  gshmemi::LocalRecords &r = records();
  std::lock_guard<std::mutex> lock(r.mutex);
  if (r.buffers.erase(reinterpret_cast<uintptr_t>(addr)) == 0)
    return GSHMEMI_ERROR(GSHMEMX_ERROR_INVALID_VALUE,
                         "gshmemx_buffer_unregister(%p): not the start of a buffer gshmemx_buffer_register "
                         "registered",
                         addr);
  return GSHMEM_SUCCESS;
}

void gshmemx_buffer_unregister_all(void) {
  gshmemi::set_last_error(GSHMEM_SUCCESS);
  gshmemi::LocalRecords &r = records();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.buffers.clear();
}
