// A program whose kernel fails the way a user's can, for device_report_test:
// the device records the failure (detail/device_report.h), traps, and the
// host prints the record. Exit status 3 when the kernel failed as expected.
//   device_report_child timeout|cmp|symmetric|pe=N|sigop [finalize]
// pe=N: a put of a symmetric address to PE N, which is not in the job (a
// negative PE, one past n_pes, one past the state's per-PE tables).
// finalize: call gshmem_finalize after the failure (it prints what is left);
// else exit at once (the reporter thread or the exit hook prints).
#include <gshmem/gshmem.h>
#include <gshmem/gshmemx.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

__global__ void wait_forever(uint64_t *flag) { gshmem_uint64_wait_until(flag, GSHMEM_CMP_EQ, 42); }
__global__ void wait_bad_cmp(uint64_t *flag, int cmp) { gshmem_uint64_wait_until(flag, cmp, 0); }
__global__ void put_not_symmetric(uint64_t *not_symmetric) { gshmem_uint64_p(not_symmetric, 1, 0); }
__global__ void put_to_pe(uint64_t *sym, int pe) { gshmem_uint64_p(sym, 1, pe); }
__global__ void signal_bad_op(uint64_t *sig, int op) { gshmemx_signal_op(sig, 1, op, 0); }

}  // namespace

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s timeout|cmp|symmetric|pe=N|sigop [finalize]\n", argv[0]);
    return 2;
  }
  const char *mode = argv[1];
  const bool finalize = argc > 2 && std::strcmp(argv[2], "finalize") == 0;
  if (gshmem_init() != 0) {
    std::fprintf(stderr, "child: gshmem_init failed\n");
    return 2;
  }
  uint64_t *flag = static_cast<uint64_t *>(gshmem_calloc(1, sizeof(uint64_t)));
  uint64_t *plain = nullptr;
  if (!flag || cudaMalloc(&plain, sizeof(uint64_t)) != cudaSuccess) {
    std::fprintf(stderr, "child: allocation failed\n");
    return 2;
  }
  if (std::strcmp(mode, "timeout") == 0) wait_forever<<<1, 1>>>(flag);
  else if (std::strcmp(mode, "cmp") == 0) wait_bad_cmp<<<1, 1>>>(flag, 17);
  else if (std::strcmp(mode, "symmetric") == 0) put_not_symmetric<<<1, 1>>>(plain);
  else if (std::strncmp(mode, "pe=", 3) == 0) put_to_pe<<<1, 1>>>(flag, std::atoi(mode + 3));
  else if (std::strcmp(mode, "sigop") == 0) signal_bad_op<<<1, 1>>>(flag, 3);  // SET is 9, ADD 10
  else {
    std::fprintf(stderr, "child: unknown mode %s\n", mode);
    return 2;
  }
  const cudaError_t rc = cudaDeviceSynchronize();
  std::fprintf(stderr, "child: kernel ended: %s\n", cudaGetErrorString(rc));
  if (rc == cudaSuccess) return 1;  // it should have trapped
  if (finalize) gshmem_finalize();
  return 3;
}
