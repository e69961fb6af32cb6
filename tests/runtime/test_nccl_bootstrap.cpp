// The NCCL bootstrap without MPI in gshmem: GSHMEMX_INIT_WITH_UNIQUEID (the id
// travels over MPI here only because the test needs some launcher), then
// GSHMEMX_INIT_WITH_NCCL_COMM with a communicator the program made.
#include <cuda_runtime.h>
#include <gshmem/gshmemx.h>
#include <mpi.h>
#include <nccl.h>

#include "catch.hpp"
#include "test_support.h"

TEST_CASE("init from an ncclUniqueId and from an ncclComm_t") {
  gshmem_test::ScopedEnv size("GSHMEM_SYMMETRIC_SIZE", "64M");
  REQUIRE(MPI_Init(nullptr, nullptr) == MPI_SUCCESS);
  int rank = 0, nranks = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);

  ncclUniqueId id;
  if (rank == 0) REQUIRE(ncclGetUniqueId(&id) == ncclSuccess);
  MPI_Bcast(&id, sizeof(id), MPI_BYTE, 0, MPI_COMM_WORLD);
  gshmemx_init_attr_t attr{};
  attr.nccl_unique_id = &id;
  attr.rank = rank;
  attr.nranks = nranks;
  REQUIRE(gshmemx_init_attr(GSHMEMX_INIT_WITH_UNIQUEID, &attr) == GSHMEM_SUCCESS);
  CHECK(gshmem_my_pe() == rank);
  CHECK(gshmem_n_pes() == nranks);
  int device = -1;
  GSHMEM_TEST_CUDA(cudaGetDevice(&device));
  CHECK(device == rank % gshmem_test::visible_gpus());
  gshmemi_host_barrier_all();
  CHECK(gshmemx_get_last_error() == GSHMEM_SUCCESS);
  gshmem_finalize();
  CHECK(gshmemx_initialized() == 0);

  // The program's own communicator, on a device it chose (reversed order, so
  // that following the communicator's device is observable).
  const int mine = (nranks - 1 - rank) % gshmem_test::visible_gpus();
  GSHMEM_TEST_CUDA(cudaSetDevice(mine));
  if (rank == 0) REQUIRE(ncclGetUniqueId(&id) == ncclSuccess);
  MPI_Bcast(&id, sizeof(id), MPI_BYTE, 0, MPI_COMM_WORLD);
  ncclComm_t comm;
  REQUIRE(ncclCommInitRank(&comm, nranks, id, rank) == ncclSuccess);
  gshmemx_init_attr_t attr2{};
  attr2.nccl_comm = comm;
  REQUIRE(gshmemx_init_attr(GSHMEMX_INIT_WITH_NCCL_COMM, &attr2) == GSHMEM_SUCCESS);
  CHECK(gshmem_my_pe() == rank);
  CHECK(gshmem_n_pes() == nranks);
  GSHMEM_TEST_CUDA(cudaGetDevice(&device));
  CHECK(device == mine);
  gshmemi_host_barrier_all();
  gshmem_finalize();
  CHECK(ncclCommDestroy(comm) == ncclSuccess);  // still the program's, still valid
  MPI_Finalize();
}
