// NVSHMEM-style init on 2 GPUs under mpirun, by the NVSHMEM names: first
// with the program's MPI communicator, then from a unique id that rank 0
// makes and MPI_Bcast spreads (MPI carries only the id's bytes here).
#include <cuda_runtime.h>
#include <mpi.h>
#include <nvshmem.h>
#include <nvshmemx.h>

#include <cstdlib>
#include <string>

#include "catch.hpp"
#include "test_support.h"

namespace {
// Each rank's own GPU, chosen before init (init keeps a device the program chose).
void select_device(int rank) {
  const int n = gshmem_test::visible_gpus();
  if (n > 0) GSHMEM_TEST_CUDA(cudaSetDevice(rank % n));
}

void check_job(int rank, int nranks) {
  CHECK(nvshmemx_init_status() == NVSHMEM_STATUS_IS_INITIALIZED);
  CHECK(nvshmem_my_pe() == rank);
  CHECK(nvshmem_n_pes() == nranks);
  // The job works: a host atomic on the next PE's counter from every PE.
  unsigned long long *counter = static_cast<unsigned long long *>(nvshmem_calloc(1, sizeof(unsigned long long)));
  REQUIRE(counter);
  nvshmem_ulonglong_atomic_add(counter, 1, (rank + 1) % nranks);
  nvshmem_quiet();
  nvshmem_barrier_all();
  CHECK(nvshmem_ulonglong_atomic_fetch(counter, rank) == 1);
  nvshmem_barrier_all();
  nvshmem_free(counter);
}
}  // namespace

TEST_CASE("nvshmemx_init_attr with an MPI communicator, then with a unique id spread by MPI_Bcast") {
  gshmem_test::ScopedEnv size("GSHMEM_SYMMETRIC_SIZE", "64M");
  REQUIRE(MPI_Init(nullptr, nullptr) == MPI_SUCCESS);
  int rank = 0, nranks = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  select_device(rank);

  // A communicator of the program's own (reversed ranks, so that the PE
  // numbers visibly follow it).
  MPI_Comm reversed;
  REQUIRE(MPI_Comm_split(MPI_COMM_WORLD, 0, nranks - 1 - rank, &reversed) == MPI_SUCCESS);
  nvshmemx_init_attr_t attr = NVSHMEMX_INIT_ATTR_INITIALIZER;
  REQUIRE(nvshmemx_set_attr_mpi_comm_args(&reversed, &attr) == 0);
  REQUIRE(nvshmemx_init_attr(NVSHMEMX_INIT_WITH_MPI_COMM, &attr) == 0);
  check_job(nranks - 1 - rank, nranks);
  nvshmem_finalize();
  CHECK(nvshmemx_init_status() == NVSHMEM_STATUS_NOT_INITIALIZED);
  MPI_Comm_free(&reversed);

  nvshmemx_uniqueid_t id = NVSHMEMX_UNIQUEID_INITIALIZER;
  int made = 0;
  if (rank == 0) made = nvshmemx_get_uniqueid(&id);
  MPI_Bcast(&made, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (made == GSHMEMX_ERROR_BOOTSTRAP) {
    WARN("no id could be made here (GSHMEM_UNIQUEID_BOOTSTRAP=nccl without the NCCL module?): the unique-id half is not run");
  } else if (gshmem_test::pes_share_gpus(nranks) && std::getenv("GSHMEM_UNIQUEID_BOOTSTRAP") &&
             std::string(std::getenv("GSHMEM_UNIQUEID_BOOTSTRAP")) == "nccl") {
    WARN("the PEs share a GPU, which NCCL refuses (GSHMEM_UNIQUEID_BOOTSTRAP=nccl): the unique-id half is not run");
  } else {
    REQUIRE(made == 0);
    MPI_Bcast(&id, sizeof(id), MPI_BYTE, 0, MPI_COMM_WORLD);
    nvshmemx_init_attr_t uid_attr = NVSHMEMX_INIT_ATTR_INITIALIZER;
    REQUIRE(nvshmemx_set_attr_uniqueid_args(rank, nranks, &id, &uid_attr) == 0);
    REQUIRE(nvshmemx_init_attr(NVSHMEMX_INIT_WITH_UNIQUEID, &uid_attr) == 0);
    check_job(rank, nranks);
    nvshmem_finalize();
  }
  MPI_Finalize();
}
