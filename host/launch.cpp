// Collective kernel launch (<gshmem/launch.h>): occupancy check, then a
// cooperative launch.
#include <gshmem/launch.h>
#include <gshmem/runtime.h>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <vector>

#include "../src/log.h"
#include "../src/runtime_internal.h"

namespace gshmemi {

cudaError_t query_cooperative_fit(const void *kernel, int threads, size_t shmem, CooperativeFit *fit) {
  int cooperative = 0;
  cudaError_t err = cudaGetDevice(&fit->device);
  if (err == cudaSuccess) err = cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, fit->device);
  if (err == cudaSuccess) err = cudaDeviceGetAttribute(&fit->sms, cudaDevAttrMultiProcessorCount, fit->device);
  if (err == cudaSuccess) err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&fit->per_sm, kernel, threads, shmem);
  if (err != cudaSuccess) (void)cudaGetLastError();
  fit->cooperative = cooperative != 0;
  return err;
}

long long blocks_for_this_pe(const CooperativeFit &fit) {
  return (long long)fit.per_sm * fit.sms / std::max(1, pes_sharing_this_gpu());
}

}  // namespace gshmemi

namespace {

// How many blocks of `func` this PE can count on being resident at once: the
// GPU's capacity, divided among the PEs that share the GPU (their collective
// launches run at the same time and each needs its whole grid resident).
struct Fit {
  unsigned long long threads = 0;  // per block
  int per_sm = 0;
  int sms = 0;
  int sharing_pes = 1;
  long long max_blocks = 0;
};

int find_fit(const char *fn, const void *func, dim3 block, size_t shmem, Fit *fit) {
  if (!gshmemx_initialized())
    return GSHMEMI_ERROR(GSHMEMX_ERROR_NOT_INITIALIZED, "%s called before gshmem_init (or after gshmem_finalize)", fn);
  if (!func) return GSHMEMI_ERROR(GSHMEMX_ERROR_INVALID_VALUE, "%s: func is NULL", fn);
  fit->threads = (unsigned long long)block.x * block.y * block.z;
  if (fit->threads == 0)
    return GSHMEMI_ERROR(GSHMEMX_ERROR_INVALID_VALUE, "%s: the block (%u x %u x %u) has no threads", fn, block.x,
                         block.y, block.z);
  cudaFuncAttributes attr{};
  cudaError_t err = cudaFuncGetAttributes(&attr, func);
  if (err != cudaSuccess) {
    (void)cudaGetLastError();
    return GSHMEMI_ERROR(GSHMEMX_ERROR_INVALID_VALUE, "%s: func %p is not a kernel of this program (%s)", fn, func,
                         cudaGetErrorString(err));
  }
  if (fit->threads > (unsigned long long)attr.maxThreadsPerBlock)
    return GSHMEMI_ERROR(GSHMEMX_ERROR_INVALID_VALUE, "%s: a block of %llu threads exceeds this kernel's limit of %d",
                         fn, fit->threads, attr.maxThreadsPerBlock);
  gshmemi::CooperativeFit gpu;
  err = gshmemi::query_cooperative_fit(func, (int)fit->threads, shmem, &gpu);
  if (err != cudaSuccess)
    return GSHMEMI_ERROR(GSHMEMX_ERROR_CUDA, "%s: the occupancy query failed (%llu threads, %zu bytes of dynamic "
                         "shared memory per block): %s", fn, fit->threads, shmem, cudaGetErrorString(err));
  const int device = gpu.device;
  if (!gpu.cooperative)
    return GSHMEMI_ERROR(GSHMEMX_ERROR_NOT_SUPPORTED, "%s: GPU %d does not support cooperative launches", fn, device);
  fit->per_sm = gpu.per_sm;
  fit->sms = gpu.sms;
  fit->sharing_pes = std::max(1, gshmemi::pes_sharing_this_gpu());
  fit->max_blocks = gshmemi::blocks_for_this_pe(gpu);
  if (fit->max_blocks == 0)
    return GSHMEMI_ERROR(GSHMEMX_ERROR_INVALID_VALUE,
                         "%s: not even one block of %llu threads with %zu bytes of dynamic shared memory fits on "
                         "GPU %d for this PE (%d per SM x %d SMs, shared by %d PEs; registers: %d per thread, static "
                         "shared memory: %zu bytes)",
                         fn, fit->threads, shmem, device, fit->per_sm, fit->sms, fit->sharing_pes, attr.numRegs,
                         attr.sharedSizeBytes);
  return GSHMEM_SUCCESS;
}

// The checks and the launch of both entry points: the grid must fit (0: the
// largest that fits); without launch attributes a cooperative launch as
// always, with them cudaLaunchKernelExC with the cooperative attribute
// added unless the caller set it (the caller's value wins).
int collective_launch(const void *func, const cudaLaunchConfig_t *config, void **args, const char *fn) {
  gshmemi::set_last_error(GSHMEM_SUCCESS);
  const dim3 block = config->blockDim;
  const size_t shmem = config->dynamicSmemBytes;
  dim3 grid = config->gridDim;
  Fit fit;
  const int rc = find_fit(fn, func, block, shmem, &fit);
  if (rc != GSHMEM_SUCCESS) return rc;
  unsigned long long blocks = (unsigned long long)grid.x * grid.y * grid.z;
  if (blocks == 0) {
    grid = dim3((unsigned)fit.max_blocks, 1, 1);
    blocks = (unsigned long long)fit.max_blocks;
  }
  if (blocks > (unsigned long long)fit.max_blocks)
    return GSHMEMI_ERROR(GSHMEMX_ERROR_INVALID_VALUE,
                         "%s: a grid of %llu blocks (%u x %u x %u) cannot be co-resident: at most %lld blocks of "
                         "%llu threads with %zu bytes of dynamic shared memory fit on this GPU for this PE (%d per "
                         "SM x %d SMs / %d PEs sharing the GPU; see gshmemx_collective_launch_query_gridsize)",
                         fn, blocks, grid.x, grid.y, grid.z, fit.max_blocks, fit.threads, shmem, fit.per_sm, fit.sms,
                         fit.sharing_pes);
  cudaError_t err;
  if (config->numAttrs == 0 || config->attrs == nullptr) {
    err = cudaLaunchCooperativeKernel(func, grid, block, args, shmem, config->stream);
  } else {
    std::vector<cudaLaunchAttribute> attrs(config->attrs, config->attrs + config->numAttrs);
    const bool has_cooperative = std::any_of(attrs.begin(), attrs.end(), [](const cudaLaunchAttribute &a) {
      return a.id == cudaLaunchAttributeCooperative;
    });
    if (!has_cooperative) {
      cudaLaunchAttribute cooperative{};
      cooperative.id = cudaLaunchAttributeCooperative;
      cooperative.val.cooperative = 1;
      attrs.push_back(cooperative);
    }
    cudaLaunchConfig_t launch = *config;
    launch.gridDim = grid;
    launch.attrs = attrs.data();
    launch.numAttrs = (unsigned)attrs.size();
    err = cudaLaunchKernelExC(&launch, func, args);
  }
  if (err != cudaSuccess) {
    (void)cudaGetLastError();
    return GSHMEMI_ERROR(GSHMEMX_ERROR_CUDA, "%s: the cooperative launch of %llu blocks failed: %s", fn, blocks,
                         cudaGetErrorString(err));
  }
  return GSHMEM_SUCCESS;
}

}  // namespace

extern "C" {

int gshmemx_collective_launch(const void *func, dim3 grid, dim3 block, void **args, size_t shmem,
                              cudaStream_t stream) {
  cudaLaunchConfig_t config{};
  config.gridDim = grid;
  config.blockDim = block;
  config.dynamicSmemBytes = shmem;
  config.stream = stream;
  return collective_launch(func, &config, args, "gshmemx_collective_launch");
}

int gshmemx_collective_launch_config(const void *func, const cudaLaunchConfig_t *config, void **args) {
  if (config == nullptr) {
    gshmemi::set_last_error(GSHMEM_SUCCESS);
    return GSHMEMI_ERROR(GSHMEMX_ERROR_INVALID_VALUE, "gshmemx_collective_launch_config: config is NULL");
  }
  return collective_launch(func, config, args, "gshmemx_collective_launch_config");
}

int gshmemx_collective_launch_query_gridsize(const void *func, dim3 block, void **args, size_t shmem,
                                             int *gridsize) {
  const char *fn = "gshmemx_collective_launch_query_gridsize";
  (void)args;
  gshmemi::set_last_error(GSHMEM_SUCCESS);
  if (!gridsize) return GSHMEMI_ERROR(GSHMEMX_ERROR_INVALID_VALUE, "%s: gridsize is NULL", fn);
  *gridsize = 0;
  Fit fit;
  const int rc = find_fit(fn, func, block, shmem, &fit);
  if (rc != GSHMEM_SUCCESS) return rc;
  *gridsize = (int)fit.max_blocks;
  return GSHMEM_SUCCESS;
}

}  // extern "C"
