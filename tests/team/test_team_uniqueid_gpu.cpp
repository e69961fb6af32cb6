// GPU tests (2 and 4 PEs, one GPU each) of teams made from a unique id
// (gshmemx_team_get_uniqueid / gshmemx_team_init): over every PE, over one
// PE each at the same time, two disjoint teams made at the same time; the
// team routines on them (queries, sync, a reduction, fcollect, destroy);
// bad input refused with an error on the PE that passed it.
#include <gshmem/gshmemx.h>

#include <cuda_runtime.h>
#include <vector>

#include "catch.hpp"
#include "gpu_test_support.h"

namespace {

using gshmem_test::runtime_scope;
using gshmem_test::sym_zeroed;
namespace gd = gshmem::detail;

// The id PE `creator` made, handed to every PE through the heap (a program
// would use MPI or the like): creator stores it in its slot, a barrier, the
// others read it. Every PE calls (the allocation is collective).
gshmemx_team_uniqueid_t id_from(int creator, gshmemx_team_uniqueid_t mine) {
  auto *box = sym_zeroed<gshmemx_team_uniqueid_t>(1);
  if (gshmem_my_pe() == creator) GSHMEM_TEST_CUDA(cudaMemcpy(box, &mine, sizeof mine, cudaMemcpyHostToDevice));
  gshmem_barrier_all();
  gshmemx_team_uniqueid_t id = 0;
  gshmem_getmem(&id, box, sizeof id, creator);
  gshmem_barrier_all();
  gshmem_free(box);
  return id;
}

// Members world PEs start + k stride, k < size; this PE is rank `rank`.
void check_team(gshmem_team_t team, int start, int stride, int size, int rank) {
  REQUIRE(team != GSHMEM_TEAM_INVALID);
  CHECK(team >= GSHMEMI_PREDEFINED_TEAMS);
  CHECK(gshmem_team_my_pe(team) == rank);
  CHECK(gshmem_team_n_pes(team) == size);
  for (int k = 0; k < size; ++k) CHECK(gshmem_team_translate_pe(team, k, GSHMEM_TEAM_WORLD) == start + k * stride);
  CHECK(gshmem_team_translate_pe(team, size, GSHMEM_TEAM_WORLD) == -1);
  CHECK(gshmem_team_translate_pe(GSHMEM_TEAM_WORLD, gshmem_my_pe(), team) == rank);
  CHECK(gshmem_team_sync(team) == 0);
  CHECK(gshmemx_team_barrier(team) == 0);
}

// A sum reduction and an fcollect over `team` (size members, this PE rank
// `rank`, world PEs start + k stride). Every PE of the job calls at once
// (symmetric allocations), each for its own team.
void check_collectives(gshmem_team_t team, int start, int stride, int size, int rank) {
  const int me = gshmem_my_pe();
  int *src = sym_zeroed<int>(4), *sum = sym_zeroed<int>(4), *all = sym_zeroed<int>(4 * (size_t)gshmem_n_pes());
  const int mine[4] = {me + 1, 10 * me, -me, 7};
  GSHMEM_TEST_CUDA(cudaMemcpy(src, mine, sizeof mine, cudaMemcpyHostToDevice));
  REQUIRE(gshmem_team_sync(team) == 0);
  REQUIRE(gshmem_int_sum_reduce(team, sum, src, 4) == 0);
  REQUIRE(gshmem_int_fcollect(team, all, src, 4) == 0);
  int got[4];
  std::vector<int> gathered(4 * (size_t)size);
  GSHMEM_TEST_CUDA(cudaMemcpy(got, sum, sizeof got, cudaMemcpyDeviceToHost));
  GSHMEM_TEST_CUDA(cudaMemcpy(gathered.data(), all, gathered.size() * sizeof(int), cudaMemcpyDeviceToHost));
  int expect[4] = {0, 0, 0, 0};
  for (int k = 0; k < size; ++k) {
    const int pe = start + k * stride;
    expect[0] += pe + 1, expect[1] += 10 * pe, expect[2] -= pe, expect[3] += 7;
    INFO("fcollect block of rank " << k << " (world PE " << pe << "), seen by rank " << rank);
    CHECK(gathered[4 * k] == pe + 1);
    CHECK(gathered[4 * k + 1] == 10 * pe);
    CHECK(gathered[4 * k + 2] == -pe);
    CHECK(gathered[4 * k + 3] == 7);
  }
  for (int i = 0; i < 4; ++i) CHECK(got[i] == expect[i]);
  REQUIRE(gshmem_team_sync(team) == 0);
  gshmem_free(all);
  gshmem_free(sum);
  gshmem_free(src);
}

}  // namespace

TEST_CASE("teams from a unique id: every PE, one PE each, two disjoint teams at once; queries, sync, collectives",
          "[team][uniqueid][gpu]") {
  runtime_scope rt;
  const int me = gshmem_my_pe(), n = gshmem_n_pes();
  REQUIRE(n >= 2);

  SECTION("every PE, in world order, from PE 0's id; destroyed, then again from a new id") {
    for (int round = 0; round < 2; ++round) {
      gshmemx_team_uniqueid_t made = 0;
      if (me == 0) REQUIRE(gshmemx_team_get_uniqueid(&made) == 0);
      const gshmemx_team_uniqueid_t id = id_from(0, made);
      CHECK(id != GSHMEMX_TEAM_UNIQUEID_INVALID);
      gshmem_team_t team = 12345;
      REQUIRE(gshmemx_team_init(&team, id, n, me) == 0);
      check_team(team, 0, 1, n, me);
      check_collectives(team, 0, 1, n, me);
      gshmem_team_destroy(team);
      CHECK(gshmemx_get_last_error() == GSHMEM_SUCCESS);
      CHECK(gshmem_team_n_pes(team) == -1);
      gshmem_barrier_all();
    }
  }

  SECTION("one PE each: every PE makes its own id and team at the same time") {
    gshmemx_team_uniqueid_t a = 0, b = 0;
    REQUIRE(gshmemx_team_get_uniqueid(&a) == 0);
    REQUIRE(gshmemx_team_get_uniqueid(&b) == 0);
    CHECK(a != b);
    gshmem_team_t alone = 12345;
    REQUIRE(gshmemx_team_init(&alone, a, 1, 0) == 0);
    check_team(alone, me, 1, 1, 0);
    check_collectives(alone, me, 1, 1, 0);
    gshmem_team_destroy(alone);
    gshmem_barrier_all();
  }

  SECTION("two disjoint teams made at the same time: even PEs from PE 0's id, odd PEs from PE 1's") {
    gshmemx_team_uniqueid_t made = 0;
    if (me < 2) REQUIRE(gshmemx_team_get_uniqueid(&made) == 0);
    const gshmemx_team_uniqueid_t even_id = id_from(0, made), odd_id = id_from(1, made);
    CHECK(even_id != odd_id);
    const bool even = me % 2 == 0;
    const int size = even ? (n + 1) / 2 : n / 2;
    gshmem_team_t team = 12345;
    REQUIRE(gshmemx_team_init(&team, even ? even_id : odd_id, size, me / 2) == 0);
    check_team(team, even ? 0 : 1, 2, size, me / 2);
    check_collectives(team, even ? 0 : 1, 2, size, me / 2);
    gshmem_team_destroy(team);
    gshmem_barrier_all();
  }

  SECTION("bad input: an error naming the argument, *team INVALID, nothing waits; a good id works afterwards") {
    gshmemx_team_uniqueid_t made = 0;
    if (me == 0) REQUIRE(gshmemx_team_get_uniqueid(&made) == 0);
    const gshmemx_team_uniqueid_t id = id_from(0, made);
    gshmem_team_t t = 12345;
    CHECK(gshmemx_team_get_uniqueid(nullptr) == GSHMEMX_ERROR_INVALID_VALUE);
    CHECK(gshmemx_team_init(nullptr, id, n, me) == GSHMEMX_ERROR_INVALID_VALUE);
    CHECK(gshmemx_team_init(&t, id, 0, 0) == GSHMEMX_ERROR_INVALID_VALUE);
    CHECK(t == GSHMEM_TEAM_INVALID);
    t = 12345;
    CHECK(gshmemx_team_init(&t, id, n + 1, me) == GSHMEMX_ERROR_INVALID_VALUE);
    CHECK(t == GSHMEM_TEAM_INVALID);
    CHECK(gshmemx_team_init(&t, id, n, n) == GSHMEMX_ERROR_INVALID_VALUE);
    CHECK(gshmemx_team_init(&t, id, n, -1) == GSHMEMX_ERROR_INVALID_VALUE);
    CHECK(gshmemx_team_init(&t, GSHMEMX_TEAM_UNIQUEID_INVALID, n, me) == GSHMEMX_ERROR_INVALID_VALUE);
    CHECK(gshmemx_team_init(&t, 0x0123456789abcdefull, n, me) == GSHMEMX_ERROR_INVALID_VALUE);
    CHECK(gshmemx_team_init(&t, gd::make_team_uniqueid(n, 1), n, me) == GSHMEMX_ERROR_INVALID_VALUE);
    // Well formed, but PE 0 never made that many ids: refused on the device
    // (the creator's count), before this PE publishes anything.
    CHECK(gshmemx_team_init(&t, gd::make_team_uniqueid(0, 1000000), n, me) == GSHMEMX_ERROR_INVALID_VALUE);
    CHECK(t == GSHMEM_TEAM_INVALID);
    // Every PE claims index 0 of a team of n: each sees another PE with its index.
    gshmemx_team_uniqueid_t dup_made = 0;
    if (me == 0) REQUIRE(gshmemx_team_get_uniqueid(&dup_made) == 0);
    const gshmemx_team_uniqueid_t dup = id_from(0, dup_made);
    CHECK(gshmemx_team_init(&t, dup, n, 0) == GSHMEMX_ERROR_SYMMETRY);
    CHECK(t == GSHMEM_TEAM_INVALID);
    CHECK(gshmemx_get_last_error() == GSHMEMX_ERROR_SYMMETRY);
    gshmem_barrier_all();
    // The good id still makes the team; used twice, it is refused.
    REQUIRE(gshmemx_team_init(&t, id, n, me) == 0);
    check_team(t, 0, 1, n, me);
    gshmem_team_t again = 12345;
    CHECK(gshmemx_team_init(&again, id, n, me) == GSHMEMX_ERROR_INVALID_VALUE);
    CHECK(again == GSHMEM_TEAM_INVALID);
    gshmem_team_destroy(t);
    gshmem_barrier_all();
  }
}
