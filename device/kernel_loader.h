// Loading the runtime's kernels at init (cudaFuncGetAttributes), never at
// their first launch: a launch that has to load a module while a peer GPU's
// kernel spins can deadlock (lazy loading). Used by every kernel file of
// device/. Not installed.
#pragma once

#include <cuda_runtime_api.h>

namespace gshmemi {

// Loads each kernel handed to load(); keeps the first failure (later loads
// are skipped) for result().
class KernelLoader {
 public:
  template <class Kernel>
  void load(Kernel *kernel) {
    if (err_ != cudaSuccess) return;
    cudaFuncAttributes attr;
    err_ = cudaFuncGetAttributes(&attr, reinterpret_cast<const void *>(kernel));
  }
  cudaError_t result() const { return err_; }

 private:
  cudaError_t err_ = cudaSuccess;
};

}  // namespace gshmemi
