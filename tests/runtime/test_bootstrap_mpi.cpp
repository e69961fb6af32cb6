// The MPI bootstrap plugin on its own (no GPU): rank/size, allgather, barrier.
// Run under mpirun with GSHMEM_TEST_EXPECT_NP processes.
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "bootstrap_checks.h"
#include "bootstrap_loader.h"
#include "catch.hpp"
#include "test_support.h"

using gshmem_test::check_barrier_orders;

TEST_CASE("MPI bootstrap: rank, size, allgather and barrier") {
  std::unique_ptr<gshmemi::Bootstrap> boot;
  REQUIRE(gshmemi::open_bootstrap_plugin("mpi", 0, nullptr, &boot) == GSHMEM_SUCCESS);
  REQUIRE(boot != nullptr);
  CHECK(std::string(boot->name()) == "mpi");
  CHECK(boot->device() == -1);
  const int n = boot->size(), me = boot->rank();
  CHECK(n == gshmem_test::expected_pes());
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

  check_barrier_orders(*boot, "mpi");
  boot.reset();  // finalizes MPI, which the plugin started
}
