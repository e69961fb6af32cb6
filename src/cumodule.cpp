// The runtime state for kernels in modules that the driver API loads
// (cuModuleLoad*, cuLibraryLoad*): Triton's kernels that call gshmem through
// its device library (device/triton/), or any module built from device code
// compiled with GSHMEMI_STATE_EXPORTED. Such a module holds one copy of the
// state under GSHMEMI_DEVICE_STATE_SYMBOL; gshmemx_cumodule_init finds it
// (cuModuleGetGlobal), copies the runtime's host state there, and keeps the
// module on a list that one state publisher (detail/state.h) serves, so the
// module's copy is rewritten whenever the runtime publishes: at init, when
// the state changes, at finalize. NVSHMEM's nvshmemx_cumodule_init is the
// model of the interface.
#include <gshmem/launch.h>
#include <gshmem/detail/state.h>

#include <cuda.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <mutex>
#include <vector>

#include "cuda_util.h"
#include "log.h"

namespace {

struct LoadedModule {
  void *handle;       // CUmodule or CUlibrary
  bool library;       // a CUlibrary (its global in the context current at init)
  CUdeviceptr state;  // the module's copy of the state
  size_t bytes;       // its size (a prefix of the host state, for older headers)
};

struct ModuleRegistry {
  std::mutex mutex;
  std::vector<LoadedModule> modules;
};

ModuleRegistry &modules() {
  static ModuleRegistry *r = new ModuleRegistry;  // never destroyed, as the runtime's registry
  return *r;
}

int copy_state(const LoadedModule &m, const gshmemi_device_state_t *state) {
  // A synchronous copy (as the __constant__ publishers'): kernels launched
  // after it returns read the new state. Unified addressing finds the
  // module's device whichever device is current.
  return (int)cudaMemcpy(reinterpret_cast<void *>(m.state), state, m.bytes, cudaMemcpyDefault);
}

// The publisher the runtime calls (with its registry locked): every module.
int publish_modules(const gshmemi_device_state_t *state) {
  ModuleRegistry &reg = modules();
  std::lock_guard<std::mutex> lock(reg.mutex);
  int status = 0;
  for (const LoadedModule &m : reg.modules) {
    const int rc = copy_state(m, state);
    if (status == 0) status = rc;
  }
  return status;
}

const char *kind_name(bool library) { return library ? "gshmemx_culibrary_init" : "gshmemx_cumodule_init"; }

// The state's address in the module, or a GSHMEMX_ERROR_* code (logged when
// `quiet` is false). CUDA_ERROR_NOT_FOUND: the module has no state.
int find_state(void *handle, bool library, CUdeviceptr *address, size_t *bytes, bool quiet) {
  const char *routine = kind_name(library);
  if (handle == nullptr) {
    if (quiet) return GSHMEMX_ERROR_INVALID_VALUE;
    return GSHMEMI_ERROR(GSHMEMX_ERROR_INVALID_VALUE, "%s: the %s is NULL", routine, library ? "library" : "module");
  }
  CUresult rc;
  if (library) {
    using Fn = CUresult (*)(CUdeviceptr *, size_t *, CUlibrary, const char *);
    auto fn = reinterpret_cast<Fn>(gshmemi::driver_entry_point("cuLibraryGetGlobal"));
    if (fn == nullptr)
      return quiet ? GSHMEMX_ERROR_NOT_SUPPORTED
                   : GSHMEMI_ERROR(GSHMEMX_ERROR_NOT_SUPPORTED, "%s: the CUDA driver has no cuLibraryGetGlobal", routine);
    rc = fn(address, bytes, static_cast<CUlibrary>(handle), GSHMEMI_DEVICE_STATE_SYMBOL);
  } else {
    using Fn = CUresult (*)(CUdeviceptr *, size_t *, CUmodule, const char *);
    auto fn = reinterpret_cast<Fn>(gshmemi::driver_entry_point("cuModuleGetGlobal"));
    if (fn == nullptr)
      return quiet ? GSHMEMX_ERROR_NO_DEVICE
                   : GSHMEMI_ERROR(GSHMEMX_ERROR_NO_DEVICE, "%s: no CUDA driver (cuModuleGetGlobal not found)", routine);
    rc = fn(address, bytes, static_cast<CUmodule>(handle), GSHMEMI_DEVICE_STATE_SYMBOL);
  }
  if (rc == CUDA_ERROR_NOT_FOUND) {
    if (quiet) return GSHMEMX_ERROR_INVALID_VALUE;
    return GSHMEMI_ERROR(GSHMEMX_ERROR_INVALID_VALUE,
                         "%s: the %s has no '%s': it calls no gshmem device routine, or its gshmem device "
                         "code was compiled without GSHMEMI_STATE_EXPORTED (as with nvcc into a program, "
                         "whose state gshmem publishes itself)",
                         routine, library ? "library" : "module", GSHMEMI_DEVICE_STATE_SYMBOL);
  }
  if (rc != CUDA_SUCCESS) {
    if (quiet) return GSHMEMX_ERROR_CUDA;
    return GSHMEMI_ERROR(GSHMEMX_ERROR_CUDA, "%s: looking up '%s' failed (CUresult %d)", routine,
                         GSHMEMI_DEVICE_STATE_SYMBOL, (int)rc);
  }
  if (*bytes > sizeof(gshmemi_device_state_t)) {
    if (quiet) return GSHMEMX_ERROR_INVALID_VALUE;
    return GSHMEMI_ERROR(GSHMEMX_ERROR_INVALID_VALUE,
                         "%s: the module's '%s' has %zu bytes, this library's state %zu: its device code was "
                         "compiled against newer gshmem headers than this library",
                         routine, GSHMEMI_DEVICE_STATE_SYMBOL, *bytes, sizeof(gshmemi_device_state_t));
  }
  return GSHMEM_SUCCESS;
}

int module_init(void *handle, bool library) {
  gshmemi::set_last_error(GSHMEM_SUCCESS);
  LoadedModule m{handle, library, 0, 0};
  GSHMEMI_CHECK(find_state(handle, library, &m.state, &m.bytes, false));
  {
    ModuleRegistry &reg = modules();
    std::lock_guard<std::mutex> lock(reg.mutex);
    auto it = std::find_if(reg.modules.begin(), reg.modules.end(),
                           [&](const LoadedModule &x) { return x.handle == handle && x.library == library; });
    if (it != reg.modules.end()) *it = m;
    else reg.modules.push_back(m);
  }
  // The one publisher for every module (registered once: the runtime keeps
  // one entry per function), then this module's copy now. Not under our
  // lock: the runtime calls publish_modules with its own registry locked.
  gshmemi_register_state_publisher(&publish_modules);
  const int rc = copy_state(m, gshmemi_host_state());
  if (rc != 0)
    return GSHMEMI_ERROR(GSHMEMX_ERROR_CUDA, "%s: copying the runtime state into the module failed: %s",
                         kind_name(library), cudaGetErrorString(static_cast<cudaError_t>(rc)));
  GSHMEMI_TRACE("%s: module %p has the state (%zu bytes)", kind_name(library), handle, m.bytes);
  return GSHMEM_SUCCESS;
}

int module_finalize(void *handle, bool library) {
  gshmemi::set_last_error(GSHMEM_SUCCESS);
  const char *routine = library ? "gshmemx_culibrary_finalize" : "gshmemx_cumodule_finalize";
  ModuleRegistry &reg = modules();
  std::lock_guard<std::mutex> lock(reg.mutex);
  auto it = std::find_if(reg.modules.begin(), reg.modules.end(),
                         [&](const LoadedModule &x) { return x.handle == handle && x.library == library; });
  if (it == reg.modules.end())
    return GSHMEMI_ERROR(GSHMEMX_ERROR_INVALID_VALUE, "%s: %s %p was not set up by %s", routine,
                         library ? "library" : "module", handle, kind_name(library));
  reg.modules.erase(it);
  return GSHMEM_SUCCESS;
}

}  // namespace

extern "C" {

int gshmemx_cumodule_init(void *module) { return module_init(module, false); }
int gshmemx_cumodule_finalize(void *module) { return module_finalize(module, false); }
int gshmemx_culibrary_init(void *library) { return module_init(library, true); }
int gshmemx_culibrary_finalize(void *library) { return module_finalize(library, true); }

int gshmemi_cumodule_has_state(void *module) {
  CUdeviceptr address = 0;
  size_t bytes = 0;
  return find_state(module, false, &address, &bytes, true) == GSHMEM_SUCCESS ? 1 : 0;
}

}  // extern "C"
