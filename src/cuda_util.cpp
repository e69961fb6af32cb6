#include "cuda_util.h"

#include <cuda.h>
#include <cuda_runtime.h>

#include <cstring>

#include "env.h"
#include "log.h"

namespace gshmemi {

void *driver_entry_point(const char *name) {
  void *fn = nullptr;
  cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
#if CUDART_VERSION >= 12050
  cudaError_t rc = cudaGetDriverEntryPointByVersion(name, &fn, 12000, cudaEnableDefault, &found);
#else
  cudaError_t rc = cudaGetDriverEntryPoint(name, &fn, cudaEnableDefault, &found);
#endif
  if (rc != cudaSuccess || found != cudaDriverEntryPointSuccess) {
    (void)cudaGetLastError();  // leave no sticky error for the program
    return nullptr;
  }
  return fn;
}

namespace {

template <typename Fn>
Fn driver_function(const char *name) {
  return reinterpret_cast<Fn>(driver_entry_point(name));
}

}  // namespace

int count_devices(int *count, std::string *why) {
  *count = 0;
  const cudaError_t rc = cudaGetDeviceCount(count);
  if (rc != cudaSuccess) {
    (void)cudaGetLastError();  // do not leave a sticky error for the program
    *count = 0;
    if (why) {
      *why = std::string("cudaGetDeviceCount failed: ") + cudaGetErrorString(rc);
      if (rc == cudaErrorNoDevice) *why += " (no CUDA device is visible; check CUDA_VISIBLE_DEVICES)";
      if (rc == cudaErrorInsufficientDriver) *why += " (no NVIDIA driver, or one older than this CUDA runtime)";
    }
    return GSHMEMX_ERROR_NO_DEVICE;
  }
  if (*count == 0) {
    if (why) *why = "no CUDA device is visible to this process";
    return GSHMEMX_ERROR_NO_DEVICE;
  }
  return GSHMEM_SUCCESS;
}

bool program_chose_device(int *device) {
  int current = 0;
  if (cudaGetDevice(&current) != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  using DeviceGet = CUresult (*)(CUdevice *, int);
  using CtxGetState = CUresult (*)(CUdevice, unsigned int *, int *);
  auto device_get = driver_function<DeviceGet>("cuDeviceGet");
  auto get_state = driver_function<CtxGetState>("cuDevicePrimaryCtxGetState");
  if (!device_get || !get_state) return false;
  CUdevice handle;
  if (device_get(&handle, current) != CUDA_SUCCESS) return false;
  unsigned int flags = 0;
  int active = 0;
  if (get_state(handle, &flags, &active) != CUDA_SUCCESS) return false;
  *device = current;
  return active != 0;
}

bool lazy_module_loading() {
  using GetLoadingMode = CUresult (*)(CUmoduleLoadingMode *);
  if (auto get_mode = driver_function<GetLoadingMode>("cuModuleGetLoadingMode")) {
    CUmoduleLoadingMode mode;
    if (get_mode(&mode) == CUDA_SUCCESS) return mode == CU_MODULE_LAZY_LOADING;
  }
  // Since CUDA 12.2 lazy loading is the default when the variable is unset.
  const char *setting = raw_getenv("CUDA_MODULE_LOADING");
  return !setting || !*setting || std::strcmp(setting, "LAZY") == 0;
}

}  // namespace gshmemi
