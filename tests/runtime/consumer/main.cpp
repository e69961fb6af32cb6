// Host side, compiled by the host compiler with the full extension header.
#include <gshmem/gshmemx.h>

#include <cstdio>

int my_pe_seen_by_device();

int main() {
  std::printf("gshmem %s\n", GSHMEM_VERSION_STRING);
  const int rc = gshmem_init();
  if (rc == GSHMEMX_ERROR_NO_DEVICE) {
    std::printf("no GPU here: %s (expected without a GPU)\n", gshmemx_error_string(rc));
    return 0;
  }
  if (rc != GSHMEM_SUCCESS) {
    std::printf("gshmem_init failed: %s\n", gshmemx_error_string(rc));
    return 1;
  }
  const int expected = gshmem_my_pe() * 1000 + gshmem_n_pes();
  const int seen = my_pe_seen_by_device();
  std::printf("host says %d, device says %d\n", expected, seen);
  gshmem_finalize();
  return seen == expected ? 0 : 1;
}
