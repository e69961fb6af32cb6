// CPU, under mpirun with 2 processes: once the runtime reports a lost peer,
// the MPI bootstrap's collectives give up with GSHMEMX_ERROR_PEER_LOST instead
// of waiting for a rank that never comes. Nothing of the job dies here: rank
// 0's liveness monitor watches a child process that rank 0 kills, and rank 1
// stays out of the barrier until rank 0 has given up on it. Rank 1 then
// enters that barrier (still pending inside MPI) and rank 0 drives MPI's
// progress, so the job ends cleanly.
#include <mpi.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <memory>
#include <thread>

#include "bootstrap_loader.h"
#include "catch.hpp"
#include "liveness.h"

TEST_CASE("MPI bootstrap: collectives return GSHMEMX_ERROR_PEER_LOST once a peer is lost") {
  std::unique_ptr<gshmemi::Bootstrap> boot;
  REQUIRE(gshmemi::open_bootstrap_plugin("mpi", 0, nullptr, &boot) == GSHMEM_SUCCESS);
  REQUIRE(boot->size() == 2);
  const int me = boot->rank();
  REQUIRE(boot->barrier() == GSHMEM_SUCCESS);
  int token = 0;
  if (me == 0) {
    gshmemi::reset_job_lost_pe();
    const pid_t child = fork();
    if (child == 0)
      for (;;) pause();
    REQUIRE(child > 0);
    gshmemi::PeerMonitor monitor(0, {getpid(), child}, 50);
    REQUIRE(monitor.start() == 0);
    std::thread killer([child] {
      std::this_thread::sleep_for(std::chrono::milliseconds(300));
      kill(child, SIGKILL);
      waitpid(child, nullptr, 0);
    });
    const auto start = std::chrono::steady_clock::now();
    CHECK(boot->barrier() == GSHMEMX_ERROR_PEER_LOST);  // rank 1 is not in it
    const auto took = std::chrono::steady_clock::now() - start;
    killer.join();
    CHECK(took >= std::chrono::milliseconds(250));  // it did wait until the loss
    CHECK(took < std::chrono::seconds(5));
    // From now on every collective returns at once.
    int mine = 1, all[2] = {0, 0};
    CHECK(boot->allgather(&mine, all, sizeof mine) == GSHMEMX_ERROR_PEER_LOST);
    CHECK(all[0] == 0);  // nothing was written into the caller's buffer
    CHECK(boot->barrier() == GSHMEMX_ERROR_PEER_LOST);
    monitor.stop();
    gshmemi::reset_job_lost_pe();  // MPI is then finalized normally at exit
    MPI_Send(&token, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
  } else {
    MPI_Recv(&token, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK(boot->barrier() == GSHMEM_SUCCESS);  // meets rank 0's abandoned barrier
  }
  MPI_Barrier(MPI_COMM_WORLD);  // on rank 0: progress for the abandoned barrier
  boot.reset();
}
