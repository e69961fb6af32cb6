// Kernels behind the host and on-stream routines whose target is a remote
// peer, and their launchers (host/remote_ops.h). One thread each, through the
// device routines' remote branch (include/gshmem/detail/remote.h), then a
// quiet of the queue: the operation is complete when the kernel ends.
//
// Loaded at init with the other runtime kernels (preload_kernels): never
// lazily, behind a spinning peer.
#include <gshmem/detail/remote.h>
#include <gshmem/detail/transport_amo.h>
#include <gshmem/detail/update_host.h>

#include <cstdint>
#include <cstring>

#include "../host/remote_ops.h"
#include "kernel_loader.h"

namespace gshmemi {
namespace remote_ops {
namespace {

namespace gd = gshmem::detail;

// The name a failed request's diagnostic line gives (the host routine's
// name is in the host log; the kernel knows only what it carries).
constexpr const char *kPut = "host or on-stream put to a remote PE";
constexpr const char *kGet = "host or on-stream get from a remote PE";
constexpr const char *kAmo = "host atomic on a remote PE";

// source NULL: the bytes (at most 8) are in `bits`, read by the host at the
// call (a pageable host buffer, which a kernel cannot read).
__global__ void put_kernel(void *dest, const void *source, size_t bytes, std::uint64_t bits, int pe,
                           std::uint64_t *sig_addr, std::uint64_t signal, int sig_op) {
  gd::remote_put(dest, source != nullptr ? source : &bits, bytes, pe, false, sig_addr, signal, sig_op, kPut);
  gd::remote_quiet(kPut);
}

__global__ void get_kernel(void *dest, const void *source, size_t bytes, int pe) {
  gd::remote_get(dest, source, bytes, pe, kGet);
}

// GSHMEMI_HOST_AMO_* as the remote request's code (detail/transport_amo.h).
// SET is a swap whose old value nobody reads, as the device gshmem_*_atomic_set.
__device__ unsigned transport_op(int host_op) {
  switch (host_op) {
    case GSHMEMI_HOST_AMO_FETCH: return GSHMEMI_TRANSPORT_AMO_FETCH;
    case GSHMEMI_HOST_AMO_SET:
    case GSHMEMI_HOST_AMO_SWAP: return GSHMEMI_TRANSPORT_AMO_SWAP;
    case GSHMEMI_HOST_AMO_COMPARE_SWAP: return GSHMEMI_TRANSPORT_AMO_CSWAP;
    case GSHMEMI_HOST_AMO_FETCH_ADD: return GSHMEMI_TRANSPORT_AMO_ADD;
    case GSHMEMI_HOST_AMO_FETCH_AND: return GSHMEMI_TRANSPORT_AMO_AND;
    case GSHMEMI_HOST_AMO_FETCH_OR: return GSHMEMI_TRANSPORT_AMO_OR;
    default: return GSHMEMI_TRANSPORT_AMO_XOR;  // GSHMEMI_HOST_AMO_FETCH_XOR; others are refused on the host
  }
}

template <class U>
__global__ void amo_kernel(U *dest, int op, U operand, U cond, int pe, unsigned long long *result) {
  const bool fetch = result != nullptr;
  const U old = gd::remote_amo<U>(dest, pe, transport_op(op), operand, cond, fetch, kAmo);
  if (!fetch) gd::remote_quiet(kAmo);
  else *result = (unsigned long long)old;
}

}  // namespace

cudaError_t preload_kernels() {
  KernelLoader loader;
  loader.load(&put_kernel);
  loader.load(&get_kernel);
  loader.load(&amo_kernel<unsigned int>);
  loader.load(&amo_kernel<unsigned long long>);
  return loader.result();
}

cudaError_t launch_put(void *dest, const void *source, std::size_t bytes, int pe, std::uint64_t *sig_addr,
                       std::uint64_t signal, int sig_op, cudaStream_t stream) {
  // A put of up to 8 bytes travels inside its request, so the kernel reads
  // the source; one the kernel cannot read (pageable host memory) is read
  // here. A longer source goes by address to the proxy, which can read it.
  std::uint64_t bits = 0;
  if (bytes > 0 && bytes <= sizeof(bits)) {
    cudaPointerAttributes attr{};
    const cudaError_t err = cudaPointerGetAttributes(&attr, source);
    if (err != cudaSuccess) return err;
    if (attr.type == cudaMemoryTypeUnregistered) {
      std::memcpy(&bits, source, bytes);
      source = nullptr;
    }
  }
  put_kernel<<<1, 1, 0, stream>>>(dest, source, bytes, bits, pe, sig_addr, signal, sig_op);
  return cudaGetLastError();
}

cudaError_t launch_get(void *dest, const void *source, std::size_t bytes, int pe, cudaStream_t stream) {
  get_kernel<<<1, 1, 0, stream>>>(dest, source, bytes, pe);
  return cudaGetLastError();
}

cudaError_t launch_amo(void *dest, std::size_t size, int op, std::uint64_t operand, std::uint64_t cond, int pe,
                       unsigned long long *result, cudaStream_t stream) {
  if (size == 4)
    amo_kernel<unsigned int><<<1, 1, 0, stream>>>(static_cast<unsigned int *>(dest), op, (unsigned int)operand,
                                                  (unsigned int)cond, pe, result);
  else if (size == 8)
    amo_kernel<unsigned long long><<<1, 1, 0, stream>>>(static_cast<unsigned long long *>(dest), op, operand, cond,
                                                        pe, result);
  else
    return cudaErrorInvalidValue;
  return cudaGetLastError();
}

}  // namespace remote_ops
}  // namespace gshmemi
