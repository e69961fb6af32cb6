// The MPI bootstrap plugin on its own (no GPU): rank/size, allgather, barrier.
// Run under mpirun with GSHMEM_TEST_EXPECT_NP processes.
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "bootstrap_loader.h"
#include "catch.hpp"

TEST_CASE("MPI bootstrap: rank, size, allgather and barrier") {
  std::unique_ptr<gshmemi::Bootstrap> boot;
  REQUIRE(gshmemi::open_bootstrap_plugin("mpi", 0, nullptr, &boot) == GSHMEM_SUCCESS);
  REQUIRE(boot != nullptr);
  CHECK(std::string(boot->name()) == "mpi");
  CHECK(boot->device() == -1);
  const int n = boot->size(), me = boot->rank();
  const char *expect = std::getenv("GSHMEM_TEST_EXPECT_NP");
  REQUIRE(expect != nullptr);
  CHECK(n == std::atoi(expect));
  REQUIRE(me >= 0);
  REQUIRE(me < n);
  if (const char *ompi = std::getenv("OMPI_COMM_WORLD_RANK")) CHECK(me == std::atoi(ompi));

  // Allgather of one int: every rank's value lands in its slot.
  int mine = 7 * me + 1;
  std::vector<int> all(n, -1);
  REQUIRE(boot->allgather(&mine, all.data(), sizeof(int)) == GSHMEM_SUCCESS);
  for (int r = 0; r < n; ++r) CHECK(all[r] == 7 * r + 1);

  // A larger, odd-sized record: a byte pattern that depends on rank and position.
  const std::size_t bytes = 1003;
  std::vector<unsigned char> record(bytes), gathered(bytes * n);
  for (std::size_t i = 0; i < bytes; ++i) record[i] = static_cast<unsigned char>(me * 31 + i);
  REQUIRE(boot->allgather(record.data(), gathered.data(), bytes) == GSHMEM_SUCCESS);
  int wrong = 0;
  for (int r = 0; r < n; ++r)
    for (std::size_t i = 0; i < bytes; ++i)
      wrong += gathered[r * bytes + i] != static_cast<unsigned char>(r * 31 + i);
  CHECK(wrong == 0);

  // Barrier: after it, every rank has done what it did before it. Each rank
  // creates a marker file before the barrier, and checks all markers after.
  int leader_pid = static_cast<int>(getpid());
  std::vector<int> pids(n);
  REQUIRE(boot->allgather(&leader_pid, pids.data(), sizeof(int)) == GSHMEM_SUCCESS);
  const std::string dir = "/tmp/gshmem-barrier-test-" + std::to_string(pids[0]);
  if (me == 0) ::mkdir(dir.c_str(), 0700);
  REQUIRE(boot->barrier() == GSHMEM_SUCCESS);
  for (int round = 0; round < 3; ++round) {
    const std::string marker = dir + "/" + std::to_string(round) + "-" + std::to_string(me);
    std::FILE *f = std::fopen(marker.c_str(), "w");
    REQUIRE(f != nullptr);
    std::fclose(f);
    REQUIRE(boot->barrier() == GSHMEM_SUCCESS);
    int missing = 0;
    for (int r = 0; r < n; ++r) {
      const std::string other = dir + "/" + std::to_string(round) + "-" + std::to_string(r);
      missing += ::access(other.c_str(), F_OK) != 0;
    }
    CHECK(missing == 0);
  }
  REQUIRE(boot->barrier() == GSHMEM_SUCCESS);
  for (int round = 0; round < 3; ++round)
    ::unlink((dir + "/" + std::to_string(round) + "-" + std::to_string(me)).c_str());
  REQUIRE(boot->barrier() == GSHMEM_SUCCESS);
  if (me == 0) ::rmdir(dir.c_str());
  boot.reset();  // finalizes MPI, which the plugin started
}
