// Checks shared by the bootstrap modules' tests (MPI, OpenSHMEM), run on
// every PE of a real launch.
#pragma once

#include <gshmem/runtime.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

#include "bootstrap.h"
#include "catch.hpp"

namespace gshmem_test {

// Barrier: after it, every PE has done what it did before it. Each PE makes
// a marker file before the barrier and checks every PE's marker after it,
// three rounds, in a folder named after PE 0's process and `tag`.
inline void check_barrier_orders(gshmemi::Bootstrap &boot, const char *tag) {
  const int me = boot.rank(), n = boot.size();
  int pid = static_cast<int>(getpid());
  std::vector<int> pids(static_cast<std::size_t>(n));
  REQUIRE(boot.allgather(&pid, pids.data(), sizeof(int)) == GSHMEM_SUCCESS);
  const std::string dir = std::string("/tmp/gshmem-") + tag + "-barrier-test-" + std::to_string(pids[0]);
  auto marker = [&](int round, int pe) { return dir + "/" + std::to_string(round) + "-" + std::to_string(pe); };
  if (me == 0) ::mkdir(dir.c_str(), 0700);
  REQUIRE(boot.barrier() == GSHMEM_SUCCESS);
  for (int round = 0; round < 3; ++round) {
    std::FILE *f = std::fopen(marker(round, me).c_str(), "w");
    REQUIRE(f != nullptr);
    std::fclose(f);
    REQUIRE(boot.barrier() == GSHMEM_SUCCESS);
    int missing = 0;
    for (int r = 0; r < n; ++r) missing += ::access(marker(round, r).c_str(), F_OK) != 0;
    CHECK(missing == 0);
  }
  REQUIRE(boot.barrier() == GSHMEM_SUCCESS);
  for (int round = 0; round < 3; ++round) ::unlink(marker(round, me).c_str());
  REQUIRE(boot.barrier() == GSHMEM_SUCCESS);
  if (me == 0) ::rmdir(dir.c_str());
}

}  // namespace gshmem_test
