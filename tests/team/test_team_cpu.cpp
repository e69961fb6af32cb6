// CPU tests of the team machinery that needs no GPU: the descriptor
// arithmetic behind team_my_pe / translate_pe / split_strided, the layout of
// the team state, and the host routines' errors before init.
#include <gshmem/gshmemx.h>

#include <string>
#include <type_traits>
#include <vector>

#include "catch.hpp"

namespace gd = gshmem::detail;

TEST_CASE("team descriptor arithmetic", "[team]") {
  const gd::team_desc world = gd::world_team_desc(3, 8);
  CHECK(world.size == 8);
  CHECK(world.my_rank == 3);
  for (int pe = 0; pe < 8; ++pe) {
    CHECK(gd::team_rank_of(world, pe) == pe);
    CHECK(gd::team_member_pe(world, pe) == pe);
  }
  CHECK(gd::team_rank_of(world, 8) == -1);
  CHECK(gd::team_rank_of(world, -1) == -1);

  // Odd PEs of 8: 1, 3, 5, 7.
  const gd::team_desc odds = gd::split_strided_desc(world, 1, 2, 4, 5);
  CHECK(odds.start == 1);
  CHECK(odds.stride == 2);
  CHECK(odds.size == 4);
  CHECK(odds.my_rank == 2);
  CHECK(gd::split_strided_desc(world, 1, 2, 4, 4).my_rank == -1);
  CHECK(gd::team_rank_of(odds, 7) == 3);
  CHECK(gd::team_rank_of(odds, 6) == -1);
  CHECK(gd::team_rank_of(odds, 9) == -1);  // would be rank 4, past the end
  CHECK(gd::team_translate(odds, 3, world) == 7);
  CHECK(gd::team_translate(odds, 4, world) == -1);
  CHECK(gd::team_translate(odds, -1, world) == -1);
  CHECK(gd::team_translate(world, 5, odds) == 2);
  CHECK(gd::team_translate(world, 4, odds) == -1);

  // A split of a split: odds ranks 1 and 3 are world PEs 3 and 7.
  const gd::team_desc sub = gd::split_strided_desc(odds, 1, 2, 2, 7);
  CHECK(sub.start == 3);
  CHECK(sub.stride == 4);
  CHECK(sub.my_rank == 1);
  CHECK(gd::team_translate(sub, 0, world) == 3);
  CHECK(gd::team_translate(sub, 1, odds) == 3);
  CHECK(gd::team_translate(odds, 2, sub) == -1);
  CHECK(gd::team_translate(world, 3, sub) == 0);

  // Argument checks, in parent ranks.
  CHECK(gd::split_strided_problem(odds, 0, 1, 4) == nullptr);
  CHECK(gd::split_strided_problem(odds, 3, 5, 1) == nullptr);  // one PE: the stride never matters
  CHECK(gd::split_strided_problem(odds, 0, 1, 5) != nullptr);
  CHECK(gd::split_strided_problem(odds, 1, 2, 2) == nullptr);  // ranks 1 and 3
  CHECK(gd::split_strided_problem(odds, 1, 2, 3) != nullptr);  // rank 5 does not exist
  CHECK(gd::split_strided_problem(odds, 1, 1, 3) == nullptr);
  CHECK(gd::split_strided_problem(odds, 4, 1, 1) != nullptr);
  CHECK(gd::split_strided_problem(odds, -1, 1, 1) != nullptr);
  CHECK(gd::split_strided_problem(odds, 0, 0, 2) != nullptr);
  CHECK(gd::split_strided_problem(odds, 0, 1, 0) != nullptr);
  CHECK(gd::split_strided_problem(world, 1, 0x40000000, 3) != nullptr);  // no int overflow

  CHECK(gd::lowest_slot(0) == -1);
  CHECK(gd::lowest_slot(1) == 0);
  CHECK(gd::lowest_slot(0xF0) == 4);
  CHECK(gd::lowest_slot(1ull << 63) == 63);
}

TEST_CASE("predefined teams: NVSHMEM's handle numbers; world, shared and node hold every PE, "
          "same_mype_node this PE alone", "[team]") {
  CHECK(GSHMEM_TEAM_INVALID == -1);
  CHECK(GSHMEM_TEAM_WORLD == 0);
  CHECK(GSHMEM_TEAM_SHARED == 1);
  CHECK(GSHMEMX_TEAM_NODE == 2);
  CHECK(GSHMEMX_TEAM_SAME_MYPE_NODE == 3);
  CHECK(GSHMEMI_PREDEFINED_TEAMS == 4);
  for (int n : {1, 3, 8}) {
    for (int me = 0; me < n; ++me) {
      INFO("PE " << me << " of " << n);
      const gd::team_desc world = gd::predefined_team_desc(GSHMEM_TEAM_WORLD, me, n);
      for (int team : {GSHMEM_TEAM_WORLD, GSHMEM_TEAM_SHARED, GSHMEMX_TEAM_NODE}) {
        INFO("team " << team);
        const gd::team_desc d = gd::predefined_team_desc(team, me, n);
        CHECK(d.my_rank == me);  // team_my_pe
        CHECK(d.size == n);      // team_n_pes
        for (int rank = 0; rank < n; ++rank) {
          CHECK(gd::team_translate(d, rank, world) == rank);
          CHECK(gd::team_translate(world, rank, d) == rank);
        }
        CHECK(gd::team_translate(d, n, world) == -1);
      }
      const gd::team_desc alone = gd::predefined_team_desc(GSHMEMX_TEAM_SAME_MYPE_NODE, me, n);
      CHECK(alone.my_rank == 0);
      CHECK(alone.size == 1);
      CHECK(gd::team_translate(alone, 0, world) == me);
      CHECK(gd::team_translate(alone, 1, world) == -1);
      CHECK(gd::team_translate(world, me, alone) == 0);
      for (int other = 0; other < n; ++other)
        if (other != me) CHECK(gd::team_translate(world, other, alone) == -1);
      // A split of it (its only rank) is this PE again.
      CHECK(gd::split_strided_problem(alone, 0, 1, 1) == nullptr);
      CHECK(gd::split_strided_desc(alone, 0, 1, 1, me).my_rank == 0);
    }
  }
  // Any other handle has no predefined descriptor (the runtime leaves its slot free).
  for (int team : {-1, GSHMEMI_PREDEFINED_TEAMS, GSHMEMX_MAX_TEAMS - 1})
    CHECK(gd::predefined_team_desc(team, 0, 4).size == 0);
}

TEST_CASE("team state fits the runtime's internal area, slot 0 is the device barrier's", "[team]") {
  char heap[16] = {};
  CHECK((void *)gd::barrier_area_at(heap) == (void *)gd::team_area_at(heap, 0));
  CHECK((char *)gd::team_area_at(heap, 1) - (char *)gd::team_area_at(heap, 0) == (long)gd::kTeamAreaBytes);
  CHECK((char *)gd::team_table_at(heap) + GSHMEMX_MAX_TEAMS * sizeof(gd::team_desc) <=
        heap + GSHMEMI_INTERNAL_SYNC_OFFSET + GSHMEMI_INTERNAL_SYNC_BYTES);
  CHECK((char *)gd::team_area_at(heap, GSHMEMX_MAX_TEAMS - 1) + sizeof(gd::team_area) <= (char *)gd::team_table_at(heap));
}

TEST_CASE("team routines and collective launch before init report NOT_INITIALIZED and do nothing", "[team]") {
  REQUIRE(gshmemx_initialized() == 0);
  CHECK(gshmem_team_my_pe(GSHMEM_TEAM_WORLD) == -1);
  CHECK(gshmemx_get_last_error() == GSHMEMX_ERROR_NOT_INITIALIZED);
  CHECK(gshmem_team_n_pes(GSHMEMX_TEAM_NODE) == -1);
  CHECK(gshmem_team_n_pes(GSHMEM_TEAM_SHARED) == -1);
  CHECK(gshmem_team_my_pe(GSHMEMX_TEAM_SAME_MYPE_NODE) == -1);
  CHECK(gshmem_team_translate_pe(GSHMEM_TEAM_WORLD, 0, GSHMEM_TEAM_WORLD) == -1);
  gshmem_team_t t = 12345;
  CHECK(gshmem_team_split_strided(GSHMEM_TEAM_WORLD, 0, 1, 1, nullptr, 0, &t) == GSHMEMX_ERROR_NOT_INITIALIZED);
  CHECK(t == GSHMEM_TEAM_INVALID);
  gshmem_team_t x = 12345, y = 12345;
  CHECK(gshmem_team_split_2d(GSHMEM_TEAM_WORLD, 2, nullptr, 0, &x, nullptr, 0, &y) == GSHMEMX_ERROR_NOT_INITIALIZED);
  CHECK(x == GSHMEM_TEAM_INVALID);
  CHECK(y == GSHMEM_TEAM_INVALID);
  gshmem_team_config_t config;
  CHECK(gshmem_team_get_config(GSHMEM_TEAM_WORLD, GSHMEM_TEAM_NUM_CONTEXTS, &config) == GSHMEMX_ERROR_NOT_INITIALIZED);
  CHECK(gshmem_team_sync(GSHMEM_TEAM_WORLD) == GSHMEMX_ERROR_NOT_INITIALIZED);
  CHECK(gshmemx_team_barrier(GSHMEM_TEAM_WORLD) == GSHMEMX_ERROR_NOT_INITIALIZED);
  CHECK(gshmemx_team_sync_on_stream(GSHMEM_TEAM_WORLD, 0) == GSHMEMX_ERROR_NOT_INITIALIZED);
  CHECK(gshmemx_team_barrier_on_stream(GSHMEM_TEAM_WORLD, 0) == GSHMEMX_ERROR_NOT_INITIALIZED);
  gshmemx_sync_all_on_stream(0);
  CHECK(gshmemx_get_last_error() == GSHMEMX_ERROR_NOT_INITIALIZED);
  gshmem_team_destroy(5);
  CHECK(gshmemx_get_last_error() == GSHMEMX_ERROR_NOT_INITIALIZED);
  int gridsize = 5;
  CHECK(gshmemx_collective_launch_query_gridsize(nullptr, dim3(32), nullptr, 0, &gridsize) ==
        GSHMEMX_ERROR_NOT_INITIALIZED);
  CHECK(gridsize == 0);
  CHECK(gshmemx_collective_launch(nullptr, dim3(1), dim3(32), nullptr, 0, 0) == GSHMEMX_ERROR_NOT_INITIALIZED);
  CHECK(gshmemx_get_last_error() == GSHMEMX_ERROR_NOT_INITIALIZED);
}

TEST_CASE("teams from a unique id: the id's encoding, argument checks, strided member lists, before init",
          "[team]") {
  // The id names its creator and count; ids of two creators or two counts differ.
  const unsigned long long id = gd::make_team_uniqueid(5, 7);
  CHECK(id != GSHMEMX_TEAM_UNIQUEID_INVALID);
  CHECK(gd::uniqueid_creator(id) == 5);
  CHECK(gd::uniqueid_count(id) == 7);
  CHECK(gd::make_team_uniqueid(5, 8) != id);
  CHECK(gd::make_team_uniqueid(4, 7) != id);
  CHECK(gd::uniqueid_creator(gd::make_team_uniqueid(GSHMEMI_MAX_PES - 1, 0xffffffffu)) == GSHMEMI_MAX_PES - 1);
  CHECK(gd::uniqueid_count(gd::make_team_uniqueid(GSHMEMI_MAX_PES - 1, 0xffffffffu)) == 0xffffffffu);
  CHECK(gd::uniqueid_problem(id, 8) == nullptr);
  CHECK(gd::uniqueid_problem(id, 6) == nullptr);
  CHECK(gd::uniqueid_problem(id, 5) != nullptr);  // creator PE 5 is not in a job of 5
  CHECK(gd::uniqueid_problem(0, 8) != nullptr);
  CHECK(gd::uniqueid_problem(0x123456789abcdefull, 8) != nullptr);  // a number of nobody: wrong tag
  CHECK(gd::uniqueid_problem(~0ull, 8) != nullptr);
  CHECK(gd::uniqueid_problem(gd::make_team_uniqueid(1, 0), 8) != nullptr);  // count 0 is never given

  CHECK(gd::team_init_problem(1, 0, 1) == nullptr);
  CHECK(gd::team_init_problem(4, 3, 4) == nullptr);
  CHECK(gd::team_init_problem(0, 0, 4) != nullptr);
  CHECK(gd::team_init_problem(-1, 0, 4) != nullptr);
  CHECK(gd::team_init_problem(5, 0, 4) != nullptr);
  CHECK(gd::team_init_problem(2, 2, 4) != nullptr);
  CHECK(gd::team_init_problem(2, -1, 4) != nullptr);

  gd::team_desc d{9, 9, 9, 9};
  const int odd[] = {1, 3, 5, 7};
  REQUIRE(gd::desc_of_members(odd, 4, 5, &d));
  CHECK(d.start == 1);
  CHECK(d.stride == 2);
  CHECK(d.size == 4);
  CHECK(d.my_rank == 2);
  const int one[] = {6};
  REQUIRE(gd::desc_of_members(one, 1, 6, &d));
  CHECK((d.start == 6 && d.stride == 1 && d.size == 1 && d.my_rank == 0));
  const gd::team_desc before = d;
  const int reversed[] = {1, 0}, uneven[] = {0, 1, 3}, repeated[] = {2, 2};
  CHECK_FALSE(gd::desc_of_members(reversed, 2, 0, &d));
  CHECK_FALSE(gd::desc_of_members(uneven, 3, 0, &d));
  CHECK_FALSE(gd::desc_of_members(repeated, 2, 2, &d));
  CHECK_FALSE(gd::desc_of_members(one, 0, 6, &d));
  CHECK((d.start == before.start && d.size == before.size));  // untouched on failure

  // The record fits the internal area after the team table.
  char *heap = nullptr;
  CHECK((char *)gd::uniqueid_record_at(heap) >= (char *)(gd::team_table_at(heap) + GSHMEMI_MAX_TEAMS));
  CHECK((char *)(gd::uniqueid_record_at(heap) + 1) <=
        heap + GSHMEMI_INTERNAL_SYNC_OFFSET + GSHMEMI_INTERNAL_SYNC_BYTES);

  gshmemx_team_uniqueid_t got = 77;
  CHECK(gshmemx_team_get_uniqueid(&got) == GSHMEMX_ERROR_NOT_INITIALIZED);
  CHECK(got == 77);
  gshmem_team_t t = 12345;
  CHECK(gshmemx_team_init(&t, id, 1, 0) == GSHMEMX_ERROR_NOT_INITIALIZED);
  CHECK(t == GSHMEM_TEAM_INVALID);
  CHECK(gshmemx_get_last_error() == GSHMEMX_ERROR_NOT_INITIALIZED);
}

TEST_CASE("reduction operators: wrap in the type, max/min by <", "[team][collectives]") {
  CHECK(gd::reduce_sum::apply<unsigned char>(200, 100) == 44);
  CHECK(gd::reduce_prod::apply<short>(300, 300) == (short)(300 * 300));
  CHECK(gd::reduce_prod::apply<unsigned long long>(1ull << 40, 1ull << 30) == 0ull);
  CHECK(gd::reduce_max::apply<int>(-3, 2) == 2);
  CHECK(gd::reduce_min::apply<int>(-3, 2) == -3);
  CHECK(gd::reduce_max::apply<double>(1.5, -2.0) == 1.5);
  CHECK(gd::reduce_min::apply<float>(1.5f, -2.0f) == -2.0f);
  CHECK(gd::reduce_sum::apply<double>(0.25, 0.5) == 0.75);
}

TEST_CASE("half and bfloat16 reductions add up in float, rounding once; maxloc keeps the smallest location",
          "[team][collectives]") {
  static_assert(std::is_same<gd::reduce_acc_t<__half>, float>::value, "half adds up in float");
  static_assert(std::is_same<gd::reduce_acc_t<__nv_bfloat16>, float>::value, "bfloat16 adds up in float");
  static_assert(std::is_same<gd::reduce_acc_t<int>, int>::value, "integers keep their type (wrap)");
  // 2048 + 1 + 1: in half each step rounds (2049 is not a half, 2048 + 1
  // gives 2048 twice); in float the sum is 2050, a half.
  float acc = (float)__float2half(2048.0f);
  for (int k = 0; k < 2; ++k) acc = gd::reduce_sum::apply(acc, (float)__float2half(1.0f));
  CHECK(__half2float((__half)acc) == 2050.0f);
  CHECK(__half2float(gd::reduce_sum::apply(gd::reduce_sum::apply(__float2half(2048.0f), __float2half(1.0f)),
                                           __float2half(1.0f))) == 2048.0f);
  const double2 a{3.0, 7.0}, b{3.0, 2.0}, c{5.0, 9.0};
  CHECK(gd::reduce_maxloc::apply(a, b).y == 2.0);  // equal values: the smaller location
  CHECK(gd::reduce_maxloc::apply(b, a).y == 2.0);
  CHECK(gd::reduce_maxloc::apply(a, c).x == 5.0);
  CHECK(gd::reduce_maxloc::apply(c, b).y == 9.0);
}

TEST_CASE("team_split_2d's grid: rows of xrange, columns across them, every rank in one of each", "[team]") {
  for (int n : {1, 2, 3, 4, 7, 8}) {
    for (int xrange : {1, 2, 3, 4, 9}) {
      const int x = xrange < n ? xrange : n;
      std::vector<int> in_row(n, 0), in_col(n, 0);
      for (int r = 0; r < n; ++r) {
        INFO("n " << n << ", xrange " << xrange << ", rank " << r);
        const gd::split_2d_shape s = gd::split_2d_of(n, xrange, r);
        // The row holds r at position r - x_start; the column at (r - y_start) / y_stride.
        CHECK(s.x_start <= r);
        CHECK(r < s.x_start + s.x_size);
        CHECK(s.x_start % x == 0);
        CHECK(s.x_size == (n - s.x_start < x ? n - s.x_start : x));
        CHECK(s.y_start == r % x);
        CHECK(s.y_stride == x);
        CHECK((r - s.y_start) % s.y_stride == 0);
        CHECK(s.y_start + (s.y_size - 1) * s.y_stride < n);  // the column stays in the parent
        CHECK(s.y_start + s.y_size * s.y_stride >= n);       // and takes every rank of it
        // split_strided would accept both.
        gd::team_desc parent{0, 1, n, r};
        CHECK(gd::split_strided_problem(parent, s.x_start, 1, s.x_size) == nullptr);
        CHECK(gd::split_strided_problem(parent, s.y_start, s.y_stride, s.y_size) == nullptr);
        ++in_row[s.x_start];
        ++in_col[s.y_start];
      }
      // Each row start counts its row's members, each column its own.
      for (int start = 0; start < n; ++start) {
        if (start % x == 0) CHECK(in_row[start] == (n - start < x ? n - start : x));
        else CHECK(in_row[start] == 0);
        if (start < x) CHECK(in_col[start] == (n - start + x - 1) / x);
      }
    }
  }
}

TEST_CASE("collectives before init report NOT_INITIALIZED", "[team][collectives]") {
  int a[4] = {}, b[4] = {};
  CHECK(gshmemx_int_sum_reduce_on_stream(GSHMEM_TEAM_WORLD, a, b, 4, 0) == GSHMEMX_ERROR_NOT_INITIALIZED);
  CHECK(gshmem_double_max_reduce(GSHMEM_TEAM_WORLD, (double *)a, (double *)b, 1) == GSHMEMX_ERROR_NOT_INITIALIZED);
  CHECK(gshmemx_uint8_fcollect_on_stream(GSHMEM_TEAM_WORLD, (uint8_t *)a, (uint8_t *)b, 4, 0) ==
        GSHMEMX_ERROR_NOT_INITIALIZED);
  CHECK(gshmem_long_fcollect(GSHMEMX_TEAM_NODE, (long *)a, (long *)b, 1) == GSHMEMX_ERROR_NOT_INITIALIZED);
  CHECK(gshmemx_get_last_error() == GSHMEMX_ERROR_NOT_INITIALIZED);
}

// ------------------------------------------------ broadcast, alltoall, *mem
TEST_CASE("broadcast/alltoall overlap rule: broadcast lets dest == source pass, nothing else may overlap",
          "[team][collectives]") {
  // Broadcast (equal_ok): equal passes, a shift by one element does not.
  CHECK_FALSE(gd::collective_overlap(0x1000, 64, 0x1000, 64, true));
  CHECK(gd::collective_overlap(0x1000, 64, 0x1000, 64, false));  // alltoall, fcollect: equal is an overlap
  CHECK(gd::collective_overlap(0x1004, 64, 0x1000, 64, true));
  CHECK(gd::collective_overlap(0x1000, 64, 0x1004, 64, true));
  // Touching ranges do not overlap; the last shared byte does.
  CHECK_FALSE(gd::collective_overlap(0x1000, 64, 0x1040, 64, false));
  CHECK_FALSE(gd::collective_overlap(0x1040, 64, 0x1000, 64, false));
  CHECK(gd::collective_overlap(0x103f, 64, 0x1000, 64, false));
  // alltoall: dest and source of n_pes blocks each; a source inside dest.
  CHECK(gd::collective_overlap(0x1000, 4 * 64, 0x1080, 4 * 64, false));
  // Empty ranges never overlap (a count of 0 is valid anywhere).
  CHECK_FALSE(gd::collective_overlap(0x1000, 0, 0x1000, 64, false));
  CHECK_FALSE(gd::collective_overlap(0x1000, 64, 0x1000, 0, false));
  // Near the top of the address space: no wrap to a false "no overlap".
  const unsigned long long top = ~0ull - 63;
  CHECK(gd::collective_overlap(top, 64, top + 32, 16, false));
}

TEST_CASE("alltoall order: every member writes every peer once, itself last, each starting on another peer",
          "[team][collectives]") {
  for (int size : {1, 2, 3, 4, 5, 8}) {
    std::vector<int> first_peer_count(size, 0);
    for (int rank = 0; rank < size; ++rank) {
      std::vector<int> seen(size, 0);
      for (int k = 0; k < size; ++k) {
        const int r = gd::alltoall_peer(rank, k, size);
        REQUIRE(r >= 0);
        REQUIRE(r < size);
        ++seen[r];
      }
      for (int r = 0; r < size; ++r) CHECK(seen[r] == 1);
      CHECK(gd::alltoall_peer(rank, size - 1, size) == rank);
      ++first_peer_count[gd::alltoall_peer(rank, 0, size)];
    }
    for (int r = 0; r < size; ++r) CHECK(first_peer_count[r] == 1);  // no peer written first by two members
  }
}

TEST_CASE("alltoall: the push schedule gives the spec's result (host model against the definition)",
          "[team][collectives]") {
  // Model of team_alltoall_bytes: member `rank` copies block r of its source
  // to dest + rank * nelems on member r, in alltoall_peer order. Reference:
  // dest[i * nelems + e] on member j == source[j * nelems + e] on member i.
  for (int size : {1, 2, 3, 5}) {
    for (size_t nelems : {(size_t)0, (size_t)1, (size_t)7}) {
      std::vector<std::vector<int>> source(size), dest(size);
      for (int m = 0; m < size; ++m) {
        source[m].resize((size_t)size * nelems);
        dest[m].assign((size_t)size * nelems, -1);
        for (size_t x = 0; x < source[m].size(); ++x) source[m][x] = m * 100000 + (int)x;
      }
      for (int rank = 0; rank < size; ++rank)
        for (int k = 0; k < size; ++k) {
          const int r = gd::alltoall_peer(rank, k, size);
          for (size_t e = 0; e < nelems; ++e)
            dest[r][(size_t)rank * nelems + e] = source[rank][(size_t)r * nelems + e];
        }
      size_t wrong = 0;
      for (int j = 0; j < size; ++j)
        for (int i = 0; i < size; ++i)
          for (size_t e = 0; e < nelems; ++e)
            if (dest[j][(size_t)i * nelems + e] != source[i][(size_t)j * nelems + e]) ++wrong;
      INFO("size " << size << ", nelems " << nelems);
      CHECK(wrong == 0);
    }
  }
}

TEST_CASE("collective byte counts: an overflowing nelems is detected", "[team][collectives]") {
  const size_t max = ~(size_t)0;
  CHECK_FALSE(gd::collective_bytes_overflow(0, 8, 4));
  CHECK_FALSE(gd::collective_bytes_overflow(max / 8 / 4, 8, 4));
  CHECK(gd::collective_bytes_overflow(max / 8 / 4 + 1, 8, 4));
  CHECK(gd::collective_bytes_overflow(max, 1, 2));
  CHECK_FALSE(gd::collective_bytes_overflow(max, 1, 1));
  CHECK(gd::collective_bytes_overflow(max / 3 + 1, 3, 1));
  CHECK_FALSE(gd::collective_bytes_overflow(max / 3, 3, 1));
  CHECK_FALSE(gd::collective_bytes_overflow(1, 1, max));
  CHECK_FALSE(gd::collective_bytes_overflow(0, 8, max));
}

TEST_CASE("product_overflows: exact at the 64-bit edge, against a division", "[team][collectives]") {
  // Without a division (the GPU's 64-bit division is a called subroutine).
  const unsigned long long max = ~0ull;
  unsigned long long x = 0x9e3779b97f4a7c15ull;
  const unsigned long long edges[] = {0, 1, 2, 3, 0xffffffffull, 0x100000000ull, 0x100000001ull,
                                      0x1ffffffffull, max / 2, max / 2 + 1, max - 1, max};
  auto check = [&](unsigned long long a, unsigned long long b) {
    const bool want = a != 0 && b > max / a;
    INFO(a << " * " << b);
    CHECK(gd::product_overflows(a, b) == want);
  };
  for (unsigned long long a : edges)
    for (unsigned long long b : edges) {
      check(a, b);
      if (a > 1) {
        check(a, max / a);
        check(a, max / a + 1);
      }
    }
  for (int i = 0; i < 100000; ++i) {  // xorshift: products of every magnitude
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    const unsigned long long a = x >> (x & 63), b = (x * 0x2545f4914f6cdd1dull) >> ((x >> 6) & 63);
    check(a, b);
  }
}

TEST_CASE("broadcast, alltoall and the *mem collectives before init report NOT_INITIALIZED",
          "[team][collectives]") {
  int a[8] = {}, b[8] = {};
  CHECK(gshmem_int_broadcast(GSHMEM_TEAM_WORLD, a, b, 4, 0) == GSHMEMX_ERROR_NOT_INITIALIZED);
  CHECK(gshmemx_double_broadcast_on_stream(GSHMEM_TEAM_WORLD, (double *)a, (double *)b, 1, 0, 0) ==
        GSHMEMX_ERROR_NOT_INITIALIZED);
  CHECK(gshmem_long_alltoall(GSHMEM_TEAM_WORLD, (long *)a, (long *)b, 1) == GSHMEMX_ERROR_NOT_INITIALIZED);
  CHECK(gshmemx_uint8_alltoall_on_stream(GSHMEM_TEAM_WORLD, (uint8_t *)a, (uint8_t *)b, 4, 0) ==
        GSHMEMX_ERROR_NOT_INITIALIZED);
  CHECK(gshmem_broadcastmem(GSHMEM_TEAM_WORLD, a, b, 16, 0) == GSHMEMX_ERROR_NOT_INITIALIZED);
  CHECK(gshmem_alltoallmem(GSHMEM_TEAM_WORLD, a, b, 16) == GSHMEMX_ERROR_NOT_INITIALIZED);
  CHECK(gshmem_fcollectmem(GSHMEM_TEAM_WORLD, a, b, 16) == GSHMEMX_ERROR_NOT_INITIALIZED);
  CHECK(gshmemx_broadcastmem_on_stream(GSHMEM_TEAM_WORLD, a, b, 16, 0, 0) == GSHMEMX_ERROR_NOT_INITIALIZED);
  CHECK(gshmemx_alltoallmem_on_stream(GSHMEM_TEAM_WORLD, a, b, 16, 0) == GSHMEMX_ERROR_NOT_INITIALIZED);
  CHECK(gshmemx_fcollectmem_on_stream(GSHMEM_TEAM_WORLD, a, b, 16, 0) == GSHMEMX_ERROR_NOT_INITIALIZED);
}

TEST_CASE("bitwise reduction operators: and/or/xor in the type", "[team][collectives]") {
  CHECK(gd::reduce_and::apply<unsigned char>(0xf0, 0x3c) == 0x30);
  CHECK(gd::reduce_or::apply<unsigned char>(0xf0, 0x0c) == 0xfc);
  CHECK(gd::reduce_xor::apply<unsigned char>(0xff, 0x0f) == 0xf0);
  CHECK(gd::reduce_and::apply<int8_t>(-1, 0x55) == 0x55);
  CHECK(gd::reduce_or::apply<int16_t>((int16_t)0x8000, 1) == (int16_t)0x8001);
  CHECK(gd::reduce_xor::apply<int64_t>(-1, 0) == -1);
  CHECK(gd::reduce_xor::apply<uint64_t>(~0ull, 1ull << 63) == (~0ull >> 1));
  CHECK(gd::reduce_and::apply<size_t>((size_t)0xff00ff00u, (size_t)0x0ff00ff0u) == (size_t)0x0f000f00u);
  // Folded over members in rank order, as the device does: x ^ x ^ x = x.
  uint32_t acc = 0xdeadbeefu;
  for (int r = 1; r < 3; ++r) acc = gd::reduce_xor::apply<uint32_t>(acc, 0xdeadbeefu);
  CHECK(acc == 0xdeadbeefu);
}

TEST_CASE("reducescatter's source length: members x nreduce elements, overflow refused", "[team][collectives]") {
  size_t bytes = 7;
  CHECK(gd::reducescatter_source_bytes(10, 3, 8, &bytes));
  CHECK(bytes == 240);
  CHECK(gd::reducescatter_source_bytes(0, 4, 8, &bytes));
  CHECK(bytes == 0);
  CHECK(gd::reducescatter_source_bytes(~(size_t)0 / 8, 1, 8, &bytes));
  CHECK(bytes == (~(size_t)0 / 8) * 8);
  bytes = 7;
  CHECK_FALSE(gd::reducescatter_source_bytes(~(size_t)0 / 8, 2, 8, &bytes));
  CHECK_FALSE(gd::reducescatter_source_bytes((size_t)1 << 62, 2, 4, &bytes));
  CHECK(bytes == 7);  // untouched when refused
}

TEST_CASE("team scratch: one slice per slot inside the runtime scratch area", "[team]") {
  char heap[16] = {};
  CHECK(gd::team_scratch_at(heap, 0) == heap + GSHMEMI_INTERNAL_SCRATCH_OFFSET);
  CHECK(gd::team_scratch_at(heap, 1) - gd::team_scratch_at(heap, 0) == (long)gd::kTeamScratchBytes);
  CHECK(gd::team_scratch_at(heap, GSHMEMX_MAX_TEAMS - 1) + gd::kTeamScratchBytes <=
        heap + GSHMEMI_INTERNAL_SCRATCH_OFFSET + GSHMEMI_INTERNAL_SCRATCH_BYTES);
  CHECK(GSHMEMI_INTERNAL_SCRATCH_OFFSET + GSHMEMI_INTERNAL_SCRATCH_BYTES <= GSHMEMI_INTERNAL_REGION_BYTES);
  CHECK(GSHMEMI_INTERNAL_SCRATCH_OFFSET >= GSHMEMI_INTERNAL_STREAM_OFFSET + GSHMEMI_INTERNAL_STREAM_BYTES);
}

TEST_CASE("push area: one slice per slot after the scratch; a part per other member; which sizes push",
          "[team][collectives]") {
  char heap[16] = {};
  CHECK(gd::team_push_at(heap, 0) == heap + GSHMEMI_INTERNAL_PUSH_OFFSET);
  CHECK(gd::team_push_at(heap, 1) - gd::team_push_at(heap, 0) == (long)gd::kTeamPushBytes);
  CHECK(GSHMEMI_INTERNAL_PUSH_OFFSET >= GSHMEMI_INTERNAL_SCRATCH_OFFSET + GSHMEMI_INTERNAL_SCRATCH_BYTES);
  CHECK((size_t)GSHMEMX_MAX_TEAMS * gd::kTeamPushBytes <= GSHMEMI_INTERNAL_PUSH_BYTES);
  CHECK(GSHMEMI_INTERNAL_PUSH_OFFSET + GSHMEMI_INTERNAL_PUSH_BYTES <= GSHMEMI_INTERNAL_REGION_BYTES);
  // Parts: 16-byte multiples that together fit the slice.
  CHECK(gd::team_push_part_bytes(1) == 0);
  CHECK(gd::team_push_part_bytes(2) == 24576);
  CHECK(gd::team_push_part_bytes(4) == 8192);
  for (int members = 2; members <= GSHMEMI_MAX_PES; ++members) {
    INFO("members " << members);
    CHECK(gd::team_push_part_bytes(members) % 16 == 0);
    CHECK(gd::team_push_part_bytes(members) * (unsigned)(members - 1) <= gd::kTeamPushBytes);
    // Each receiver's parts: every other member exactly once, 0 .. members - 2.
    for (int receiver = 0; receiver < members; ++receiver) {
      std::vector<int> taken((size_t)members - 1, 0);
      for (int sender = 0; sender < members; ++sender) {
        if (sender == receiver) continue;
        const int part = gd::team_push_part(sender, receiver, members);
        REQUIRE(part >= 0);
        REQUIRE(part < members - 1);
        ++taken[(size_t)part];
      }
      for (int t : taken) CHECK(t == 1);
    }
  }
  // Which sizes push: up to a part, never for one member or nothing.
  CHECK(gd::reduce_push_fits(3072, 8, 2));
  CHECK_FALSE(gd::reduce_push_fits(3073, 8, 2));
  CHECK(gd::reduce_push_fits(24576, 1, 2));
  CHECK(gd::reduce_push_fits(1024, 8, 4));
  CHECK_FALSE(gd::reduce_push_fits(1025, 8, 4));
  CHECK(gd::reduce_push_fits(2048, 4, 4));
  CHECK_FALSE(gd::reduce_push_fits(2049, 4, 4));
  CHECK_FALSE(gd::reduce_push_fits(0, 8, 2));
  CHECK_FALSE(gd::reduce_push_fits(1, 8, 1));
  CHECK_FALSE(gd::reduce_push_fits(~0ull, 1, 2));
}

// A reduction's remote form: in place, the P2P form's chunk (both forms
// pass the same team syncs); the accumulators and the fetched chunk fit
// their halves of the team scratch for every element and accumulator size.
TEST_CASE("remote reductions' chunks: in place as the P2P form's, both within the team scratch",
          "[team][collectives][remote]") {
  const struct {
    size_t elem, acc;
  } types[] = {{1, 1}, {2, 2}, {2, 4}, {4, 4}, {8, 8}, {16, 16}};
  for (const auto &t : types) {
    INFO("element " << t.elem << " bytes, accumulator " << t.acc);
    CHECK(gd::remote_reduce_chunk(t.elem, t.acc, true) == gd::kTeamStagingBytes / t.elem);
    for (bool in_place : {false, true}) {
      const size_t chunk = gd::remote_reduce_chunk(t.elem, t.acc, in_place);
      CHECK(chunk >= 1);
      CHECK(chunk * t.acc <= gd::kRemoteFetchOffset);
      CHECK(gd::kRemoteFetchOffset + chunk * t.elem <= gd::kTeamScratchBytes);
      CHECK(gd::kRemoteFetchOffset % 16 == 0);
    }
  }
  CHECK(gd::remote_reduce_chunk(4, 4, false) == 4096);  // half of 32 KiB in 4-byte accumulators
}

TEST_CASE("bitwise reductions and reducescatter before init report NOT_INITIALIZED", "[team][collectives]") {
  unsigned a[4] = {}, b[4] = {};
  CHECK(gshmemx_uint_xor_reduce_on_stream(GSHMEM_TEAM_WORLD, a, b, 4, 0) == GSHMEMX_ERROR_NOT_INITIALIZED);
  CHECK(gshmem_uint64_and_reduce(GSHMEM_TEAM_WORLD, (uint64_t *)a, (uint64_t *)b, 1) ==
        GSHMEMX_ERROR_NOT_INITIALIZED);
  CHECK(gshmem_int_sum_reducescatter(GSHMEM_TEAM_WORLD, (int *)a, (int *)b, 1) == GSHMEMX_ERROR_NOT_INITIALIZED);
  CHECK(gshmemx_uint8_or_reducescatter_on_stream(GSHMEM_TEAM_WORLD, (uint8_t *)a, (uint8_t *)b, 4, 0) ==
        GSHMEMX_ERROR_NOT_INITIALIZED);
  CHECK(gshmemx_get_last_error() == GSHMEMX_ERROR_NOT_INITIALIZED);
}

TEST_CASE("call signatures: every argument a collective's members must agree on shows, and the epoch keeps its order",
          "[team][collectives]") {
  using gd::collective_signature;
  const unsigned bcast = collective_signature(gd::collective_broadcast, 1, 4096);
  // Never 0 for a collective (0 is a plain sync, which checks nothing), within its 20 bits.
  for (unsigned kind : {unsigned(gd::collective_broadcast), unsigned(gd::collective_alltoall),
                        unsigned(gd::collective_fcollect), unsigned(gd::collective_reduce),
                        gd::collective_reduce + gd::reduce_maxloc::kCode, unsigned(gd::collective_reducescatter),
                        gd::collective_reducescatter + gd::reduce_xor::kCode}) {
    for (unsigned long long bytes : {0ull, 1ull, 255ull, 256ull, 1ull << 40})
      for (int root : {0, 1, 127, 128}) {
        const unsigned sig = collective_signature(kind, root, bytes);
        CHECK(sig != 0);
        CHECK(sig <= gd::kSignatureMask);
        CHECK(gd::signature_kind(sig) == kind);
      }
  }
  CHECK(gd::signature_root(bcast) == 1);
  CHECK(gd::signature_difference(bcast, bcast) == nullptr);
  // The collective, then the root, then the size, whichever differs first.
  CHECK(std::string(gd::signature_difference(bcast, collective_signature(gd::collective_fcollect, 1, 4096))) ==
        "a different collective or reduction operator");
  CHECK(std::string(gd::signature_difference(collective_signature(gd::collective_reduce + gd::reduce_sum::kCode, 0, 64),
                                             collective_signature(gd::collective_reduce + gd::reduce_max::kCode, 0,
                                                                  64))) ==
        "a different collective or reduction operator");
  CHECK(std::string(gd::signature_difference(bcast, collective_signature(gd::collective_broadcast, 0, 4096))) ==
        "a different root");
  CHECK(std::string(gd::signature_difference(bcast, collective_signature(gd::collective_broadcast, 1, 4100))) ==
        "a different size");
  // A size that differs inside one of its bytes always shows (element counts
  // off by one, for every element size up to 16 bytes and many counts).
  for (unsigned long long n = 0; n < 5000; ++n)
    for (unsigned long long elem : {1ull, 2ull, 4ull, 8ull, 16ull}) {
      INFO("n " << n << " elem " << elem);
      const unsigned long long a = n * elem, b = (n + 1) * elem;
      if ((a ^ b) >> 8 == 0) CHECK(gd::fold_size(a) != gd::fold_size(b));
    }
  // Every operator has its own code, so every reduction kind its own signature.
  const unsigned codes[] = {gd::reduce_sum::kCode, gd::reduce_prod::kCode, gd::reduce_max::kCode,
                            gd::reduce_min::kCode, gd::reduce_and::kCode,  gd::reduce_or::kCode,
                            gd::reduce_xor::kCode, gd::reduce_maxloc::kCode};
  for (unsigned i = 0; i < 8; ++i)
    for (unsigned j = 0; j < 8; ++j) CHECK((codes[i] == codes[j]) == (i == j));
  // Each collective's signature, as both its block form's entry sync and its
  // wide form's launcher announce it.
  CHECK(gd::signature_kind(gd::broadcast_signature(5, 4096)) == gd::collective_broadcast);
  CHECK(gd::signature_root(gd::broadcast_signature(5, 4096)) == 5);
  CHECK(gd::broadcast_signature(5, 4096) == collective_signature(gd::collective_broadcast, 5, 4096));
  CHECK(gd::signature_kind(gd::alltoall_signature(64)) == gd::collective_alltoall);
  CHECK(gd::signature_kind(gd::fcollect_signature(64)) == gd::collective_fcollect);
  CHECK(gd::signature_kind(gd::reduction_signature<gd::reduce_max, false>(64)) ==
        gd::collective_reduce + gd::reduce_max::kCode);
  CHECK(gd::signature_kind(gd::reduction_signature<gd::reduce_max, true>(64)) ==
        gd::collective_reducescatter + gd::reduce_max::kCode);
  CHECK(gd::signature_difference(gd::reduction_signature<gd::reduce_sum, false>(64),
                                 gd::reduction_signature<gd::reduce_sum, true>(64)) != nullptr);
  CHECK(gd::signature_size(gd::fcollect_signature(0x1234)) == gd::fold_size(0x1234));
  // Announcements order by epoch whatever the signatures: a wait for
  // announcement(e, 0) passes on every signature of epoch e and later, and on
  // none of an earlier epoch.
  for (unsigned long long e : {1ull, 2ull, 1000ull, (1ull << 44) - 1}) {
    CHECK(gd::announcement(e, gd::kSignatureMask) >= gd::announcement(e, 0));
    CHECK(gd::announcement(e - 1, gd::kSignatureMask) < gd::announcement(e, 0));
    CHECK(gd::announced_epoch(gd::announcement(e, bcast)) == e);
    CHECK(gd::announced_signature(gd::announcement(e, bcast)) == bcast);
  }
}
