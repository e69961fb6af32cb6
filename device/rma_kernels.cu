// Kernels behind the host atomics (host/rma.cpp) and the on-stream p
// (host/stream.cpp), and their launchers (src/rma_internal.h).
//
// Each is one thread doing the same relaxed system-scope access the device
// routine of <gshmem/update.h> does, so host and device atomics on one
// object are atomic with respect to each other. Every kernel here is listed
// in preload_kernels (loaded at init, never lazily behind a spinning peer).
#include <gshmem/detail/ordering.h>
#include <gshmem/detail/update_access.h>
#include <gshmem/detail/update_amo.h>
#include <gshmem/detail/update_host.h>
#include <gshmem/runtime.h>

#include <cstdint>

#include "../src/rma_internal.h"
#include "kernel_loader.h"

namespace gshmemi {
namespace rma {
namespace {

using gshmem::memory_order;
using gshmem::thread_scope;
namespace gd = gshmem::detail;
#define GSHMEMI_RLX memory_order::relaxed, thread_scope::system

template <class U>
__global__ void amo_kernel(U *target, int op, U operand, U cond, unsigned long long *result) {
  U old = 0;
  switch (op) {
    case GSHMEMI_HOST_AMO_FETCH: old = gd::load_object<GSHMEMI_RLX>(target); break;
    case GSHMEMI_HOST_AMO_SET: gd::store_object<GSHMEMI_RLX>(target, operand); break;
    case GSHMEMI_HOST_AMO_SWAP: old = gd::addr_exchange<GSHMEMI_RLX>(target, operand); break;
    case GSHMEMI_HOST_AMO_COMPARE_SWAP:
      old = cond;
      gd::addr_compare_exchange<GSHMEMI_RLX>(target, old, operand);
      break;
    case GSHMEMI_HOST_AMO_FETCH_ADD:
      if (result) old = gd::addr_fetch_add<GSHMEMI_RLX>(target, operand);
      else gd::addr_add<GSHMEMI_RLX>(target, operand);
      break;
    case GSHMEMI_HOST_AMO_FETCH_AND:
      if (result) old = gd::addr_fetch_and<GSHMEMI_RLX>(target, operand);
      else gd::addr_and<GSHMEMI_RLX>(target, operand);
      break;
    case GSHMEMI_HOST_AMO_FETCH_OR:
      if (result) old = gd::addr_fetch_or<GSHMEMI_RLX>(target, operand);
      else gd::addr_or<GSHMEMI_RLX>(target, operand);
      break;
    case GSHMEMI_HOST_AMO_FETCH_XOR:
      if (result) old = gd::addr_fetch_xor<GSHMEMI_RLX>(target, operand);
      else gd::addr_xor<GSHMEMI_RLX>(target, operand);
      break;
    default: break;  // rejected on the host before the launch
  }
  if (result) *result = (unsigned long long)old;
}

template <class U>
__global__ void store_kernel(U *target, U value) {
  gd::store_object<GSHMEMI_RLX>(target, value);
}
#undef GSHMEMI_RLX

}  // namespace

cudaError_t preload_kernels() {
  KernelLoader loader;
  loader.load(&amo_kernel<unsigned int>);
  loader.load(&amo_kernel<unsigned long long>);
  loader.load(&store_kernel<unsigned char>);
  loader.load(&store_kernel<unsigned short>);
  loader.load(&store_kernel<unsigned int>);
  loader.load(&store_kernel<unsigned long long>);
  return loader.result();
}

cudaError_t launch_amo(void *target, std::size_t size, int op, std::uint64_t operand, std::uint64_t cond,
                       unsigned long long *result, cudaStream_t stream) {
  if (size == 4)
    amo_kernel<unsigned int><<<1, 1, 0, stream>>>(static_cast<unsigned int *>(target), op,
                                                  static_cast<unsigned int>(operand),
                                                  static_cast<unsigned int>(cond), result);
  else if (size == 8)
    amo_kernel<unsigned long long><<<1, 1, 0, stream>>>(static_cast<unsigned long long *>(target), op,
                                                        operand, cond, result);
  else
    return cudaErrorInvalidValue;
  return cudaGetLastError();
}

cudaError_t launch_store(void *target, std::size_t size, std::uint64_t bits, cudaStream_t stream) {
  switch (size) {
    case 1: store_kernel<<<1, 1, 0, stream>>>(static_cast<unsigned char *>(target), static_cast<unsigned char>(bits)); break;
    case 2: store_kernel<<<1, 1, 0, stream>>>(static_cast<unsigned short *>(target), static_cast<unsigned short>(bits)); break;
    case 4: store_kernel<<<1, 1, 0, stream>>>(static_cast<unsigned int *>(target), static_cast<unsigned int>(bits)); break;
    case 8: store_kernel<<<1, 1, 0, stream>>>(static_cast<unsigned long long *>(target), static_cast<unsigned long long>(bits)); break;
    default: return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

}  // namespace rma
}  // namespace gshmemi
