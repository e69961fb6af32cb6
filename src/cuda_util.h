// CUDA queries the runtime needs at init. Driver API calls go through
// cudaGetDriverEntryPoint*, so libgshmem does not link libcuda: a machine
// without a driver still loads the library and gets a clear error.
#pragma once

#include <string>

namespace gshmemi {

// A driver API function by name, or nullptr where the driver lacks it. The
// version pins the ABI of the entry point (12.0 for every function gshmem
// calls). The one place the library reaches the driver API.
void *driver_entry_point(const char *name);

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
