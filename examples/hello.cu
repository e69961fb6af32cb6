// hello: what each PE is, which GPU it drives, and which peers it reaches.
//
// Prints one block per PE (in PE order, separated by barriers): the PE
// number, the GPU (ordinal, name, PCI bus id) and, for every PE, whether
// gshmem_ptr gives this PE a direct (NVLink / PCIe P2P) address of that PE's
// copy of a symmetric object. Checks: the PE numbers are in range, the
// address of this PE's own copy is the object itself, and a kernel sees the
// same PE number and PE count as the host.
//   mpirun -np 2 ./hello
#include <gshmem/gshmem.h>

#include <cstdio>
#include <vector>

__global__ void read_identity(int *out) {
  out[0] = gshmem_my_pe();
  out[1] = gshmem_n_pes();
}

int main() {
  if (gshmem_init() != GSHMEM_SUCCESS) {
    std::fprintf(stderr, "hello: gshmem_init failed: %s\n", gshmemx_error_string(gshmemx_get_last_error()));
    return 1;
  }
  const int me = gshmem_my_pe(), n = gshmem_n_pes();
  int failures = 0;
  auto check = [&](bool ok, const char *what) {
    if (!ok) {
      std::printf("PE %d: CHECK FAILED: %s\n", me, what);
      ++failures;
    }
  };

  int device = -1;
  cudaGetDevice(&device);
  cudaDeviceProp prop{};
  cudaGetDeviceProperties(&prop, device);
  char bus_id[32] = "?";
  cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, device);

  int *object = static_cast<int *>(gshmem_malloc(sizeof(int)));  // any symmetric object will do
  check(object != nullptr, "gshmem_malloc returned memory");
  std::vector<int> reachable(n, 0);
  for (int pe = 0; pe < n; ++pe) reachable[pe] = gshmem_ptr(object, pe) != nullptr;
  check(gshmem_ptr(object, me) == object, "gshmem_ptr(object, my_pe) is the object itself");
  check(0 <= me && me < n, "0 <= my_pe < n_pes");

  int *seen = nullptr;
  cudaMalloc(&seen, 2 * sizeof(int));
  read_identity<<<1, 1>>>(seen);
  int host_seen[2] = {-1, -1};
  check(cudaMemcpy(host_seen, seen, sizeof host_seen, cudaMemcpyDeviceToHost) == cudaSuccess, "the kernel ran");
  check(host_seen[0] == me && host_seen[1] == n, "a kernel sees the host's my_pe and n_pes");
  cudaFree(seen);

  for (int turn = 0; turn < n; ++turn) {  // one PE prints at a time
    if (turn == me) {
      std::printf("PE %d of %d: GPU %d (%s, PCI %s)\n  peers reached directly:", me, n, device, prop.name, bus_id);
      for (int pe = 0; pe < n; ++pe) std::printf(" %d:%s", pe, reachable[pe] ? "yes" : "no");
      std::printf("\n  %s\n", failures == 0 ? "checks passed" : "CHECKS FAILED");
      std::fflush(stdout);
    }
    gshmem_barrier_all();
  }
  gshmem_free(object);
  gshmem_finalize();
  return failures == 0 ? 0 : 1;
}
