// gshmem_global_exit ends the whole job with the given status, and a peer
// blocked in a collective does not hang. Its own main (no Catch2): the
// process is meant to end inside the call. Modes (argv[1]):
//   before-init  one process, no init: exits with status 5.
//   plugin       under mpirun, no GPU: the MPI bootstrap module by itself;
//                rank 1 ends the job with status 3 while rank 0 waits in a
//                barrier that rank 1 never enters.
//   gpu          under mpirun, one GPU per PE: after gshmem_init, PE 1 calls
//                gshmem_global_exit(3) while PE 0 waits in gshmem_barrier_all.
// Each mode prints "UNREACHED" if control comes back, and the CTest script
// (expect_exit_status.cmake) wants exactly the status and no such line.
#include <gshmem/gshmem.h>

#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <memory>
#include <string>

#include "bootstrap_loader.h"
#include "test_support.h"

int main(int argc, char **argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "before-init") {
    gshmem_global_exit(5);
  } else if (mode == "plugin") {
    std::unique_ptr<gshmemi::Bootstrap> boot;
    if (gshmemi::open_bootstrap_plugin("mpi", 0, nullptr, &boot) != GSHMEM_SUCCESS) {
      std::printf("SKIPPED: the MPI bootstrap plugin is not available\n");
      return gshmem_test::kSkipExitCode;
    }
    if (boot->rank() == 1) boot->abort(3, "test: rank 1 ends the job");
    else boot->barrier();  // never completes: rank 1 does not come
  } else if (mode == "gpu") {
    if (!gshmem_test::gpus_or_sharing(2)) return gshmem_test::kSkipExitCode;
    if (gshmem_init() != GSHMEM_SUCCESS) return 1;
    if (gshmem_my_pe() == 1) gshmem_global_exit(3);
    gshmem_barrier_all();  // never completes normally: PE 1 does not come
    // The liveness monitor may see PE 1's process end before mpirun ends
    // this one: the barrier then returns GSHMEMX_ERROR_PEER_LOST, and this PE
    // waits for mpirun (the job's status stays PE 1's 3). Any other return
    // is control coming back.
    if (gshmemx_get_last_error() == GSHMEMX_ERROR_PEER_LOST)
      for (;;) pause();
  } else {
    std::fprintf(stderr, "usage: %s before-init|plugin|gpu\n", argv[0]);
    return 2;
  }
  std::printf("UNREACHED\n");
  return 0;
}
