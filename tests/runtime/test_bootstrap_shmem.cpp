// The OpenSHMEM bootstrap module over a real OpenSHMEM library (Open MPI's
// OSHMEM), on the CPU: started by the OpenSHMEM launcher with
// GSHMEM_TEST_EXPECT_NP processes, the program calls shmem_init itself, and
// the module (which links no OpenSHMEM library) finds the routines in the
// process. Checks rank/size against OpenSHMEM's, allgather (small, odd-sized,
// large enough to grow the module's buffer, empty), barrier, and init over
// it (which, without a GPU, fails with NO_DEVICE on every PE together).
#include <shmem.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gshmem/gshmem.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "bootstrap_checks.h"
#include "bootstrap_loader.h"
#include "catch.hpp"

using gshmem_test::check_barrier_orders;
#include "test_support.h"

namespace {
// shmem_init once per process; shmem_finalize when the tests are done.
void start_openshmem() {
  static const bool started = [] {
    shmem_init();
    std::atexit([] { shmem_finalize(); });
    return true;
  }();
  (void)started;
}

void check_allgather(gshmemi::Bootstrap &boot, std::size_t bytes) {
  const int n = boot.size(), me = boot.rank();
  std::vector<unsigned char> record(bytes), gathered(bytes * n, 0xee);
  for (std::size_t i = 0; i < bytes; ++i) record[i] = static_cast<unsigned char>(me * 31 + i * 7);
  REQUIRE(boot.allgather(record.data(), gathered.data(), bytes) == GSHMEM_SUCCESS);
  int wrong = 0;
  for (int r = 0; r < n; ++r)
    for (std::size_t i = 0; i < bytes; ++i)
      wrong += gathered[r * bytes + i] != static_cast<unsigned char>(r * 31 + i * 7);
  CHECK(wrong == 0);
}
}  // namespace

TEST_CASE("OpenSHMEM bootstrap over OSHMEM: rank, size, allgather and barrier") {
  start_openshmem();
  std::unique_ptr<gshmemi::Bootstrap> boot;
  REQUIRE(gshmemi::open_openshmem_bootstrap(&boot) == GSHMEM_SUCCESS);
  REQUIRE(boot);
  CHECK(std::string(boot->name()) == "shmem");
  CHECK(boot->device() == -1);
  const int n = boot->size(), me = boot->rank();
  CHECK(me == shmem_my_pe());
  CHECK(n == shmem_n_pes());
  CHECK(n == gshmem_test::expected_pes());

  int mine = 7 * me + 1;
  std::vector<int> all(n, -1);
  REQUIRE(boot->allgather(&mine, all.data(), sizeof(int)) == GSHMEM_SUCCESS);
  for (int r = 0; r < n; ++r) CHECK(all[r] == 7 * r + 1);
  check_allgather(*boot, 1003);
  check_allgather(*boot, 1 << 16);  // more than the first buffer: grown on every PE
  check_allgather(*boot, 5);        // and kept
  int none = 0;
  CHECK(boot->allgather(&none, &none, 0) == GSHMEM_SUCCESS);

  check_barrier_orders(*boot, "shmem");
  boot.reset();  // releases the module's symmetric buffer (collective)
}

TEST_CASE("gshmemx_init_attr(GSHMEMX_INIT_WITH_SHMEM, NULL) over OSHMEM's PEs") {
  start_openshmem();
  gshmem_test::ScopedEnv size("GSHMEM_SYMMETRIC_SIZE", "64M");
  const int gpus = gshmem_test::visible_gpus();
  const int rc = gshmemx_init_attr(GSHMEMX_INIT_WITH_SHMEM, nullptr);
  if (gpus == 0) {
    // The bootstrap's exchanges ran (environment, host names, process ids);
    // choosing a GPU fails on every PE, and every PE returns together.
    CHECK(rc == GSHMEMX_ERROR_NO_DEVICE);
    CHECK(gshmemx_initialized() == 0);
  } else if (gpus < shmem_n_pes()) {
    CHECK(rc == GSHMEMX_ERROR_TOO_FEW_DEVICES);
  } else {
    REQUIRE(rc == GSHMEM_SUCCESS);
    CHECK(gshmem_my_pe() == shmem_my_pe());
    CHECK(gshmem_n_pes() == shmem_n_pes());
    gshmem_finalize();
  }
  // OpenSHMEM still works after gshmem is done with it.
  shmem_barrier_all();
}
