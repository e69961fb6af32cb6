// Internal interface between the host RMA and atomic routines
// (host/rma.cpp), the on-stream RMA routines (host/stream.cpp) and the
// kernels behind them (device/rma_kernels.cu). Not installed.
#pragma once

#include <gshmem/detail/config.h>

#include <cuda_runtime_api.h>
#include <cstddef>
#include <cstdint>

// Hooks for the runtime. Each returns GSHMEM_SUCCESS or an error code
// (already logged).
// gshmemi_host_rma_init: after the heap exists, with the PE's device
//   current: loads the kernels below (never lazily, behind a spinning peer),
//   creates the runtime's host RMA stream and the slot fetched values pass
//   through.
// gshmemi_host_rma_finalize: before the heap goes away; waits for the
//   stream and releases both. Safe to call when init never ran.
// gshmemi_host_rma_quiet: waits until every host RMA and atomic this PE
//   issued is complete (the host half of gshmem_quiet).
GSHMEM_EXTERN_C int gshmemi_host_rma_init(void);
GSHMEM_EXTERN_C void gshmemi_host_rma_finalize(void);
GSHMEM_EXTERN_C int gshmemi_host_rma_quiet(void);

namespace gshmemi {
namespace rma {

// Loads every kernel below (cudaFuncGetAttributes). Needs the PE's device current.
cudaError_t preload_kernels();

// One thread applies GSHMEMI_HOST_AMO_`op` to the `size`-byte (4 or 8)
// object at `target` (a peer address mapped here), relaxed at system scope;
// the old value goes to *result (device memory) unless result is NULL.
cudaError_t launch_amo(void *target, std::size_t size, int op, std::uint64_t operand, std::uint64_t cond,
                       unsigned long long *result, cudaStream_t stream);

// One relaxed system-scope store of the low `size` bytes (1, 2, 4 or 8) of
// `bits` at `target`, in stream order (the value travels in the launch).
cudaError_t launch_store(void *target, std::size_t size, std::uint64_t bits, cudaStream_t stream);

// A strided copy on `stream`: element i (elem_bytes bytes) from src + i *
// src_pitch to dst + i * dst_pitch (pitches in bytes), i in [0, nelems).
// Both pitches at least elem_bytes: one cudaMemcpy2DAsync; otherwise (a
// zero or negative stride, or a pitch the 2D copy refuses) one
// cudaMemcpyAsync per element, in element order (a zero destination stride
// leaves the last element there, as the element-wise definition does).
cudaError_t strided_copy_async(void *dst, const void *src, std::ptrdiff_t dst_pitch, std::ptrdiff_t src_pitch,
                               std::size_t elem_bytes, std::size_t nelems, cudaStream_t stream);

}  // namespace rma
}  // namespace gshmemi
