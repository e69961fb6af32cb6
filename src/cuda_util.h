// CUDA queries the runtime needs at init. Driver API calls go through
// cudaGetDriverEntryPoint*, so libgshmem does not link libcuda: a machine
// without a driver still loads the library and gets a clear error.
#pragma once

#include <string>

namespace gshmemi {

// Number of CUDA devices visible to this process. GSHMEM_SUCCESS, or
// GSHMEMX_ERROR_NO_DEVICE with *why explaining (no driver, no device, ...).
int count_devices(int *count, std::string *why);

// True if the program already picked a device before init: the current
// device's primary context is active (cudaSetDevice and any CUDA work create
// it; merely counting devices does not). *device receives that device.
bool program_chose_device(int *device);

// True when the CUDA driver loads kernels lazily (CUDA_MODULE_LOADING unset
// or LAZY). Asks the driver where it can; otherwise reads the variable.
bool lazy_module_loading();

}  // namespace gshmemi
