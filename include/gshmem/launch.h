// Collective kernel launch (gshmem extension): a launch whose blocks are
// guaranteed to run at the same time (CUDA cooperative launch), for kernels
// whose blocks wait for each other or for peers. Part of <gshmem/gshmemx.h>.
#pragma once

#include <gshmem/detail/config.h>
#include <gshmem/runtime.h>

#include <cuda_runtime_api.h>
#include <stddef.h>

GSHMEM_BEGIN_EXTERN_C

/* Launches kernel `func` (its address, as for cudaLaunchKernel) on `stream`
 * with a cooperative launch: every block of the grid is resident on the GPU
 * at once, so blocks may wait for one another, for a device barrier or for
 * peers without deadlocking on blocks that never get scheduled. `args`
 * points to the kernel's arguments (args[i] points to argument i), `shmem`
 * is the dynamic shared memory per block. A grid of 0 blocks (any dimension
 * 0) means the largest grid that fits (gshmemx_collective_launch_query_gridsize).
 * Each PE calls it for its own GPU (collective in NVSHMEM's sense: every PE
 * launches the kernels that synchronize with each other); each PE checks its
 * own GPU, so PEs with identical GPUs and arguments agree.
 * Returns 0 once the launch is enqueued, or, with nothing launched (logged
 * with the cause; gshmemx_get_last_error):
 *   GSHMEMX_ERROR_INVALID_VALUE   func NULL or not a kernel, an empty block or
 *                                 one beyond the kernel's limit, or a grid
 *                                 larger than can be co-resident (the message
 *                                 gives the largest that fits and why)
 *   GSHMEMX_ERROR_NOT_SUPPORTED   the GPU has no cooperative launch
 *   GSHMEMX_ERROR_CUDA            the occupancy query or the launch failed
 *   GSHMEMX_ERROR_NOT_INITIALIZED before gshmem_init. */
GSHMEM_API int gshmemx_collective_launch(const void *func, dim3 grid, dim3 block, void **args, size_t shmem,
                                         cudaStream_t stream);

/* gshmemx_collective_launch from a CUDA launch configuration (the form of
 * NVSHMEM 3.8's nvshmemx_collective_launch_attr): config's gridDim (0: the
 * largest that fits), blockDim, dynamicSmemBytes and stream as above, and
 * its launch attributes (attrs, numAttrs) passed to cudaLaunchKernelExC with
 * the cooperative attribute added, unless config sets that attribute itself
 * (its value wins, as in NVSHMEM). Same checks, returns and errors as
 * gshmemx_collective_launch (config NULL: GSHMEMX_ERROR_INVALID_VALUE). */
GSHMEM_API int gshmemx_collective_launch_config(const void *func, const cudaLaunchConfig_t *config, void **args);

/* The largest grid (in blocks) of `func` with `block` threads and `shmem`
 * bytes of dynamic shared memory per block that can be co-resident on this
 * PE's GPU (blocks per SM at full occupancy x SMs, divided by the number of
 * PEs that share the GPU under GSHMEM_ALLOW_GPU_SHARING, since their
 * collective launches run at the same time), into *gridsize. `args` is
 * accepted for NVSHMEM's signature and not read. 0 or an error code as above
 * (*gridsize NULL: GSHMEMX_ERROR_INVALID_VALUE). */
GSHMEM_API int gshmemx_collective_launch_query_gridsize(const void *func, dim3 block, void **args, size_t shmem,
                                                        int *gridsize);

/* Kernels in CUDA modules that the driver API loads (cuModuleLoad*), such
 * as Triton's kernels that call gshmem's device library (gshmem.triton):
 * their device code reads the runtime state from the module's own copy,
 * which gshmem must fill. gshmemx_cumodule_init(module) (a CUmodule) finds
 * that copy (the global GSHMEMI_DEVICE_STATE_SYMBOL, which device code
 * compiled with GSHMEMI_STATE_EXPORTED defines, as the Triton library does),
 * copies the runtime's state into it, and keeps it current: the runtime
 * rewrites it whenever it publishes its state (at gshmem_init, when the
 * state changes, at finalize), until gshmemx_cumodule_finalize(module).
 * Call it once the module is loaded, before or after gshmem_init, and call
 * finalize before unloading the module. Programs whose kernels nvcc compiles
 * into them need neither (no -rdc, no device library to link: each
 * translation unit's state is published by gshmem itself).
 * ORDERING: the copy is synchronous: kernels of the module launched after
 * init returns (from any stream) read the state; so do those launched after
 * a later gshmem_init returns.
 * Returns 0, or (logged with the cause; gshmemx_get_last_error):
 *   GSHMEMX_ERROR_INVALID_VALUE  module NULL; a module without the state
 *                                (it calls no gshmem device routine, or
 *                                its state is a translation unit's own);
 *                                a state larger than this library's (newer
 *                                headers); finalize of a module never
 *                                initialized
 *   GSHMEMX_ERROR_NO_DEVICE      no CUDA driver
 *   GSHMEMX_ERROR_CUDA           the lookup or the copy failed. */
GSHMEM_API int gshmemx_cumodule_init(void *module);
GSHMEM_API int gshmemx_cumodule_finalize(void *module);

/* The same for a CUlibrary (cuLibraryLoad*): the state of the library in the
 * CUDA context current at init (one call per context that launches its
 * kernels). Also GSHMEMX_ERROR_NOT_SUPPORTED where the driver has no
 * cuLibraryGetGlobal. */
GSHMEM_API int gshmemx_culibrary_init(void *library);
GSHMEM_API int gshmemx_culibrary_finalize(void *library);

/* Internal (the Python package's kernel-load hook): 1 when the CUmodule
 * holds GSHMEMI_DEVICE_STATE_SYMBOL, else 0; logs nothing. */
GSHMEM_API int gshmemi_cumodule_has_state(void *module);

GSHMEM_END_EXTERN_C
