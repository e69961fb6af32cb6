// Internal interface between the host and on-stream routines (host/rma.cpp,
// host/stream.cpp) and the kernels that carry their operations to a remote
// peer (device/remote_kernels.cu). Not installed.
//
// A remote peer's heap is not mapped here (docs/remote.md), so there is no
// address for cudaMemcpyAsync or a one-thread store. Each operation is one
// thread of a kernel on the caller's stream that takes the device routines'
// remote branch (include/gshmem/detail/remote.h): the request goes through
// the same queue and proxy as a kernel's own, in the same order.
//
// Completion: every kernel here ends with a quiet of the queue, so the
// operation is complete at the target (data delivered, atomic applied, get
// data or fetched value in place) when the kernel ends. Later work on the
// stream therefore sees what it sees after a P2P cudaMemcpyAsync or store
// kernel: the _nbi forms are complete at least as early as they must be.
//
// Local buffers: a source or dest that is device memory, pinned or mapped
// host memory or pageable host memory is handed to the proxy by address (it
// copies with CUDA copies that take any of them). A value of up to 8 bytes
// (p, atomics, a put that short) travels in the request: a put's source the
// kernel cannot read (pageable host memory) is then read by launch_put when
// it is called, not in stream order.
#pragma once

#include <cuda_runtime_api.h>
#include <cstddef>
#include <cstdint>

namespace gshmemi {
namespace remote_ops {

// Loads the kernels below (cudaFuncGetAttributes) with the PE's device current.
cudaError_t preload_kernels();

// bytes from `source` into symmetric `dest` (this PE's address of it) on
// `pe`; with sig_addr != NULL the signal (GSHMEM_SIGNAL_SET / ADD) follows
// the data (put_signal). bytes == 0 with a signal: the signal alone.
cudaError_t launch_put(void *dest, const void *source, std::size_t bytes, int pe, std::uint64_t *sig_addr,
                       std::uint64_t signal, int sig_op, cudaStream_t stream);

// bytes of symmetric `source` on `pe` into local `dest`.
cudaError_t launch_get(void *dest, const void *source, std::size_t bytes, int pe, cudaStream_t stream);

// GSHMEMI_HOST_AMO_`op` on the `size`-byte (4 or 8) symmetric object `dest`
// on `pe`; the old value into *result (device memory) unless result is NULL.
cudaError_t launch_amo(void *dest, std::size_t size, int op, std::uint64_t operand, std::uint64_t cond, int pe,
                       unsigned long long *result, cudaStream_t stream);

}  // namespace remote_ops
}  // namespace gshmemi
