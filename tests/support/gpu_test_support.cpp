// Definitions of the GPU tests' helpers (see gpu_test_support.h).
#include "gpu_test_support.h"

#include <cstdlib>

namespace gshmem_test {

int env_int(const char *const *names, int fallback) {
  for (const char *const *n = names; *n; ++n)
    if (const char *v = std::getenv(*n)) return std::atoi(v);
  return fallback;
}

int launcher_rank() {
  static const char *const names[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "SLURM_PROCID", nullptr};
  return env_int(names, 0);
}

namespace {
const char *const local_rank_names[] = {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "SLURM_LOCALID", nullptr};
}  // namespace

void select_default_device() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) return;
  GSHMEM_TEST_CUDA(cudaSetDevice(env_int(local_rank_names, 0) % count));
}

int pes_on_this_gpu() {
  static const char *const local_size_names[] = {"OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS", nullptr};
  int count = 0;
  GSHMEM_TEST_CUDA(cudaGetDeviceCount(&count));
  REQUIRE(count > 0);
  const int local_size = env_int(local_size_names, 1), mine = env_int(local_rank_names, 0) % count;
  int sharing = 0;
  for (int r = 0; r < local_size; ++r) sharing += (r % count == mine);
  return sharing;
}

unsigned long long scaled_iterations(unsigned long long n) {
  static const char *const names[] = {"GSHMEM_TEST_ITERATION_DIVISOR", nullptr};
  static const int divisor = env_int(names, 1);
  const unsigned long long scaled = divisor > 1 ? n / static_cast<unsigned long long>(divisor) : n;
  return scaled > 0 ? scaled : 1;
}

namespace {
int init_and_load(std::initializer_list<const void *> test_kernels) {
  select_default_device();
  const int rc = gshmem_init();
  if (rc == GSHMEM_SUCCESS) {
    cudaFuncAttributes attr;
    for (const void *kernel : test_kernels) GSHMEM_TEST_CUDA(cudaFuncGetAttributes(&attr, kernel));
  }
  return rc;
}
}  // namespace

bool init_once(std::initializer_list<const void *> test_kernels) {
  static const int rc = init_and_load(test_kernels);
  return rc == GSHMEM_SUCCESS;
}

runtime_scope::runtime_scope() { REQUIRE(gshmem_init() == GSHMEM_SUCCESS); }
runtime_scope::~runtime_scope() { gshmem_finalize(); }

}  // namespace gshmem_test
