// GPU tests (2 and 4 PEs, one GPU each) of the device barrier forms, teams,
// collective launch and the small collectives. Kernels: team_gpu_*.cu (see
// team_gpu_kernels.h).
#include <gshmem/gshmemx.h>

#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <type_traits>
#include <vector>

#include "catch.hpp"
#include "team_gpu_kernels.h"
#include "gpu_test_support.h"

using namespace team_gpu;

namespace {

using gshmem_test::runtime_scope;
using gshmem_test::pes_on_this_gpu;
using gshmem_test::sym_zeroed;

struct managed_counter {
  unsigned long long *value = nullptr;
  managed_counter() {
    GSHMEM_TEST_CUDA(cudaMallocManaged(&value, sizeof(unsigned long long)));
    *value = 0;
  }
  ~managed_counter() { cudaFree(value); }
};

// Rounds of the barrier litmus: 20000, fewer with
// GSHMEM_TEST_ITERATION_DIVISOR (the remote variant: each barrier then
// costs round trips through the proxy).
long barrier_rounds() { return (long)gshmem_test::scaled_iterations(20000); }

}  // namespace

TEST_CASE("device barrier: one thread, a warp, a block; data stored before it is seen after it",
          "[team][barrier][gpu]") {
  runtime_scope rt;
  const int n = gshmem_n_pes();
  REQUIRE(n >= 2);
  const struct {
    barrier_form form;
    const char *name;
  } forms[] = {{form_thread, "thread"}, {form_warp, "warp"}, {form_block, "block"}, {form_mixed, "mixed"}};
  for (const auto &f : forms) {
    for (bool with_quiet : {true, false}) {
      INFO("form " << f.name << (with_quiet ? ", barrier_all" : ", sync_all") << ", PE " << gshmem_my_pe());
      uint64_t *slots = sym_zeroed<uint64_t>(2 * (size_t)n);
      managed_counter violations;
      gshmem_barrier_all();
      GSHMEM_TEST_CUDA(launch_barrier_litmus(slots, barrier_rounds(), f.form, with_quiet, 128, violations.value));
      GSHMEM_TEST_CUDA(cudaDeviceSynchronize());
      CHECK(*violations.value == 0);
      gshmem_barrier_all();
      gshmem_free(slots);
    }
  }
}

namespace {

struct managed_ints {
  int *p = nullptr;
  explicit managed_ints(size_t n) {
    GSHMEM_TEST_CUDA(cudaMallocManaged(&p, n * sizeof(int)));
    for (size_t i = 0; i < n; ++i) p[i] = -7;
  }
  ~managed_ints() { cudaFree(p); }
};

// Host and device agree on team_my_pe / n_pes / translate_pe of `team`,
// whose members are world PEs start + k * stride, k < size.
void check_team_queries(gshmem_team_t team, int start, int stride, int size) {
  const int me = gshmem_my_pe();
  const int expect_rank = (me - start) % stride == 0 && me >= start ? (me - start) / stride : -1;
  REQUIRE(expect_rank >= 0);
  REQUIRE(expect_rank < size);
  CHECK(gshmem_team_my_pe(team) == expect_rank);
  CHECK(gshmem_team_n_pes(team) == size);
  for (int k = 0; k < size; ++k) CHECK(gshmem_team_translate_pe(team, k, GSHMEM_TEAM_WORLD) == start + k * stride);
  CHECK(gshmem_team_translate_pe(team, size, GSHMEM_TEAM_WORLD) == -1);
  CHECK(gshmem_team_translate_pe(GSHMEM_TEAM_WORLD, me, team) == expect_rank);
  managed_ints out(3 + kQueryRanks + 1);
  GSHMEM_TEST_CUDA(launch_team_queries(team, out.p));
  GSHMEM_TEST_CUDA(cudaDeviceSynchronize());
  CHECK(out.p[0] == expect_rank);
  CHECK(out.p[1] == size);
  CHECK(out.p[2] == -1);
  for (int k = 0; k < kQueryRanks; ++k) CHECK(out.p[3 + k] == (k < size ? start + k * stride : -1));
  CHECK(out.p[3 + kQueryRanks] == expect_rank);
}

// Litmus on `team` in every form, then on-stream rounds. Every PE calls it
// at the same time (for its own team): its symmetric allocations are
// collective over all PEs.
void check_team_sync(gshmem_team_t team, int size) {
  const struct {
    barrier_form form;
    const char *name;
  } forms[] = {{form_thread, "thread"},
               {form_warp, "warp"},
               {form_block, "block"},
               {form_mixed, "mixed"},
               {form_warpgroup, "warpgroup"}};
  for (const auto &f : forms) {
    for (bool with_quiet : {true, false}) {
      INFO("team " << team << ", form " << f.name << (with_quiet ? ", barrier" : ", sync"));
      // gshmem_malloc is collective over every PE: same size everywhere.
      uint64_t *slots = sym_zeroed<uint64_t>(2 * (size_t)gshmem_n_pes());
      managed_counter violations;
      REQUIRE(gshmem_team_sync(team) == 0);  // host team sync: everyone's slots are zeroed
      GSHMEM_TEST_CUDA(launch_team_litmus(team, slots, barrier_rounds() / 4, f.form, with_quiet, 128, violations.value));
      GSHMEM_TEST_CUDA(cudaDeviceSynchronize());
      CHECK(*violations.value == 0);
      REQUIRE(gshmemx_team_barrier(team) == 0);
      gshmem_free(slots);
    }
  }
  // On a stream: store, team barrier / sync on the stream, check; 300 rounds
  // enqueued back to back without the host waiting in between. On the world
  // team sync_all_on_stream and barrier_all_on_stream take turns with the
  // team forms: each protocol (stream memory operations on a team of 2
  // members, the team sync kernel on larger ones, GSHMEM_STREAM_OPS=memops
  // memops on every size) is one for all four, so they meet.
  uint64_t *slots = sym_zeroed<uint64_t>(2 * (size_t)gshmem_n_pes());
  managed_counter violations;
  cudaStream_t stream;
  GSHMEM_TEST_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  REQUIRE(gshmem_team_sync(team) == 0);
  for (uint64_t r = 1; r <= 300; ++r) {
    GSHMEM_TEST_CUDA(launch_team_store_round(team, slots, r, stream));
    const uint64_t form = team == GSHMEM_TEAM_WORLD ? r % 4 : r % 2;
    if (form == 0) REQUIRE(gshmemx_team_barrier_on_stream(team, stream) == 0);
    else if (form == 1) REQUIRE(gshmemx_team_sync_on_stream(team, stream) == 0);
    else if (form == 2) gshmemx_sync_all_on_stream(stream);
    else gshmemx_barrier_all_on_stream(stream);
    GSHMEM_TEST_CUDA(launch_team_check_round(team, slots, r, violations.value, stream));
  }
  GSHMEM_TEST_CUDA(cudaStreamSynchronize(stream));
  CHECK(*violations.value == 0);
  CHECK(gshmemx_get_last_error() == GSHMEM_SUCCESS);
  GSHMEM_TEST_CUDA(cudaStreamDestroy(stream));
  REQUIRE(gshmem_team_sync(team) == 0);
  gshmem_free(slots);
}

}  // namespace

TEST_CASE("teams: predefined teams, strided splits, queries and syncs on host, device and stream",
          "[team][gpu]") {
  runtime_scope rt;
  const int me = gshmem_my_pe(), n = gshmem_n_pes();
  REQUIRE(n >= 2);

  SECTION("the predefined teams: world, shared and node hold every PE, same_mype_node this PE alone") {
    // One node: the shared-memory and node teams are the world under their own handles.
    for (gshmem_team_t team : {GSHMEM_TEAM_WORLD, GSHMEM_TEAM_SHARED, GSHMEMX_TEAM_NODE}) {
      INFO("team " << team);
      check_team_queries(team, 0, 1, n);
      CHECK(gshmem_team_translate_pe(team, n - 1, GSHMEM_TEAM_WORLD) == n - 1);
      CHECK(gshmem_team_translate_pe(GSHMEMX_TEAM_SAME_MYPE_NODE, 0, team) == me);
    }
    check_team_queries(GSHMEMX_TEAM_SAME_MYPE_NODE, me, 1, 1);
    CHECK(gshmem_team_translate_pe(GSHMEM_TEAM_WORLD, (me + 1) % n, GSHMEMX_TEAM_SAME_MYPE_NODE) == -1);
    for (gshmem_team_t team : {GSHMEM_TEAM_WORLD, GSHMEM_TEAM_SHARED, GSHMEMX_TEAM_NODE})
      check_team_sync(team, n);
    check_team_sync(GSHMEMX_TEAM_SAME_MYPE_NODE, 1);
  }

  SECTION("even and odd PEs: two teams that sync at the same time, then a split of a split") {
    gshmem_team_t evens = 12345, odds = 12345;
    const int n_even = (n + 1) / 2, n_odd = n / 2;
    REQUIRE(gshmem_team_split_strided(GSHMEM_TEAM_WORLD, 0, 2, n_even, nullptr, 0, &evens) == 0);
    REQUIRE(gshmem_team_split_strided(GSHMEM_TEAM_WORLD, 1, 2, n_odd, nullptr, 0, &odds) == 0);
    const bool even = me % 2 == 0;
    CHECK((evens == GSHMEM_TEAM_INVALID) == !even);
    CHECK((odds == GSHMEM_TEAM_INVALID) == even);
    const gshmem_team_t mine = even ? evens : odds;
    CHECK(mine >= GSHMEMI_PREDEFINED_TEAMS);  // a split never takes a predefined team's handle
    check_team_queries(mine, even ? 0 : 1, 2, even ? n_even : n_odd);
    CHECK(gshmem_team_my_pe(even ? odds : evens) == -1);
    CHECK(gshmem_team_translate_pe(GSHMEM_TEAM_WORLD, even ? 1 : 0, mine) == -1);
    check_team_sync(mine, even ? n_even : n_odd);

    // The last member of my team alone (parent ranks: stride 1, size 1).
    const int my_size = even ? n_even : n_odd;
    gshmem_team_t last = 12345;
    REQUIRE(gshmem_team_split_strided(mine, my_size - 1, 1, 1, nullptr, 0, &last) == 0);
    const bool is_last = gshmem_team_my_pe(mine) == my_size - 1;
    CHECK((last != GSHMEM_TEAM_INVALID) == is_last);
    if (is_last) {
      check_team_queries(last, me, 1, 1);
      CHECK(gshmem_team_sync(last) == 0);
      gshmem_team_destroy(last);
      CHECK(gshmemx_get_last_error() == GSHMEM_SUCCESS);
      CHECK(gshmem_team_n_pes(last) == -1);
    }
    gshmem_team_destroy(evens);
    gshmem_team_destroy(odds);
    CHECK(gshmem_team_n_pes(mine) == -1);
    gshmem_barrier_all();
  }

  SECTION("on-stream syncs on a slot that teams of other members held before") {
    // Team k holds world PEs k % n .. n - 1; each is destroyed before the
    // next split, which takes the lowest slot free on every PE: the same
    // slot each time, held by a different set of members. The counts of the
    // on-stream protocol belong to pairs of PEs (host/stream.cpp), so a
    // member whose count ran ahead on a smaller team must not let a sync pass
    // early (stale stores, seen by the check) or wait forever.
    uint64_t *slots = sym_zeroed<uint64_t>(2 * (size_t)n);
    managed_counter violations;
    cudaStream_t stream;
    GSHMEM_TEST_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    gshmem_team_t first = GSHMEM_TEAM_INVALID;
    for (int k = 0; k < 2 * n + 1; ++k) {
      const int start = k % n;
      INFO("team " << k << ": world PEs " << start << " .. " << n - 1);
      gshmem_team_t t = 12345;
      REQUIRE(gshmem_team_split_strided(GSHMEM_TEAM_WORLD, start, 1, n - start, nullptr, 0, &t) == 0);
      REQUIRE((t != GSHMEM_TEAM_INVALID) == (me >= start));
      if (t == GSHMEM_TEAM_INVALID) continue;
      if (first == GSHMEM_TEAM_INVALID) first = t;
      CHECK(t == first);
      for (uint64_t i = 1; i <= 20; ++i) {
        const uint64_t r = 100 * (uint64_t)k + i;  // the same on every member, above every earlier round
        GSHMEM_TEST_CUDA(launch_team_store_round(t, slots, r, stream));
        REQUIRE((i % 2 ? gshmemx_team_sync_on_stream(t, stream) : gshmemx_team_barrier_on_stream(t, stream)) == 0);
        GSHMEM_TEST_CUDA(launch_team_check_round(t, slots, r, violations.value, stream));
      }
      GSHMEM_TEST_CUDA(cudaStreamSynchronize(stream));
      gshmem_team_destroy(t);
    }
    CHECK(*violations.value == 0);
    CHECK(gshmemx_get_last_error() == GSHMEM_SUCCESS);
    GSHMEM_TEST_CUDA(cudaStreamDestroy(stream));
    gshmem_barrier_all();
    gshmem_free(slots);
  }

  SECTION("2d splits: every PE in its row (x) and column (y), for several row lengths; the team's config") {
    for (int xrange : {1, 2, 3, n, n + 1}) {
      INFO("xrange " << xrange);
      gshmem_team_t x = 12345, y = 12345;
      REQUIRE(gshmem_team_split_2d(GSHMEM_TEAM_WORLD, xrange, nullptr, 0, &x, nullptr, 0, &y) == 0);
      REQUIRE(x != GSHMEM_TEAM_INVALID);
      REQUIRE(y != GSHMEM_TEAM_INVALID);
      CHECK(x != y);
      const int row = xrange < n ? xrange : n;  // an xrange beyond n is n: one row
      const int row_start = me - me % row, col = me % row;
      const int row_size = n - row_start < row ? n - row_start : row;
      const int col_size = (n - col + row - 1) / row;
      check_team_queries(x, row_start, 1, row_size);
      check_team_queries(y, col, row, col_size);
      CHECK(gshmem_team_my_pe(x) == col);
      CHECK(gshmem_team_my_pe(y) == me / row);
      CHECK(gshmem_team_sync(x) == 0);
      CHECK(gshmem_team_sync(y) == 0);
      gshmem_team_config_t config;
      config.num_contexts = 7;
      CHECK(gshmem_team_get_config(x, GSHMEM_TEAM_NUM_CONTEXTS, &config) == 0);
      CHECK(config.num_contexts == 0);
      gshmem_team_destroy(x);
      gshmem_team_destroy(y);
      CHECK(gshmemx_get_last_error() == GSHMEM_SUCCESS);
    }
    gshmem_team_t x = 12345, y = 12345;
    CHECK(gshmem_team_split_2d(GSHMEM_TEAM_WORLD, 0, nullptr, 0, &x, nullptr, 0, &y) == GSHMEMX_ERROR_INVALID_VALUE);
    CHECK(x == GSHMEM_TEAM_INVALID);
    CHECK(y == GSHMEM_TEAM_INVALID);
    CHECK(gshmem_team_split_2d(GSHMEM_TEAM_WORLD, 2, nullptr, 0, &x, nullptr, 0, nullptr) ==
          GSHMEMX_ERROR_INVALID_VALUE);
    CHECK(gshmem_team_split_2d(40, 2, nullptr, 0, &x, nullptr, 0, &y) == GSHMEMX_ERROR_INVALID_VALUE);
    gshmem_team_config_t config;
    CHECK(gshmem_team_get_config(40, GSHMEM_TEAM_NUM_CONTEXTS, &config) == GSHMEMX_ERROR_INVALID_VALUE);
    CHECK(gshmem_team_get_config(GSHMEM_TEAM_WORLD, GSHMEM_TEAM_NUM_CONTEXTS, nullptr) ==
          GSHMEMX_ERROR_INVALID_VALUE);
    gshmem_barrier_all();
  }

  SECTION("bad arguments fail on every PE with an error, and no team is made") {
    gshmem_team_t t = 12345;
    CHECK(gshmem_team_split_strided(GSHMEM_TEAM_WORLD, 0, 0, 2, nullptr, 0, &t) == GSHMEMX_ERROR_INVALID_VALUE);
    CHECK(t == GSHMEM_TEAM_INVALID);
    CHECK(gshmem_team_split_strided(GSHMEM_TEAM_WORLD, 1, 1, n, nullptr, 0, &t) == GSHMEMX_ERROR_INVALID_VALUE);
    CHECK(gshmem_team_split_strided(GSHMEM_TEAM_WORLD, 0, 1, 0, nullptr, 0, &t) == GSHMEMX_ERROR_INVALID_VALUE);
    CHECK(gshmem_team_split_strided(GSHMEM_TEAM_WORLD, -1, 1, 1, nullptr, 0, &t) == GSHMEMX_ERROR_INVALID_VALUE);
    CHECK(gshmem_team_split_strided(40, 0, 1, 1, nullptr, 0, &t) == GSHMEMX_ERROR_INVALID_VALUE);
    CHECK(gshmem_team_split_strided(GSHMEM_TEAM_WORLD, 0, 1, 1, nullptr, 0, nullptr) == GSHMEMX_ERROR_INVALID_VALUE);
    CHECK(gshmemx_team_sync_on_stream(GSHMEM_TEAM_INVALID, 0) == GSHMEMX_ERROR_INVALID_VALUE);
    CHECK(gshmemx_team_barrier_on_stream(GSHMEMX_MAX_TEAMS, 0) == GSHMEMX_ERROR_INVALID_VALUE);
    CHECK(gshmem_team_sync(33) == GSHMEMX_ERROR_INVALID_VALUE);
    for (gshmem_team_t team : {GSHMEM_TEAM_WORLD, GSHMEM_TEAM_SHARED, GSHMEMX_TEAM_NODE, GSHMEMX_TEAM_SAME_MYPE_NODE}) {
      gshmem_team_destroy(team);
      CHECK(gshmemx_get_last_error() == GSHMEMX_ERROR_INVALID_VALUE);
      CHECK(gshmem_team_n_pes(team) == (team == GSHMEMX_TEAM_SAME_MYPE_NODE ? 1 : n));  // still there
    }
    gshmem_team_destroy(GSHMEM_TEAM_INVALID);          // nothing to do
    CHECK(gshmemx_get_last_error() == GSHMEM_SUCCESS);
    gshmem_barrier_all();
  }

  SECTION("the team limit: creation fails cleanly on every PE when no slot is free, works again after destroy") {
    std::vector<gshmem_team_t> made;
    int rc = 0;
    while (made.size() <= GSHMEMX_MAX_TEAMS) {
      gshmem_team_t t = 12345;
      rc = gshmem_team_split_strided(GSHMEM_TEAM_WORLD, 0, 1, n, nullptr, 0, &t);
      if (rc != 0) {
        CHECK(t == GSHMEM_TEAM_INVALID);
        break;
      }
      made.push_back(t);
    }
    CHECK(rc == GSHMEMX_ERROR_OUT_OF_MEMORY);
    CHECK(made.size() == GSHMEMX_MAX_TEAMS - GSHMEMI_PREDEFINED_TEAMS);  // the predefined teams hold theirs
    REQUIRE(!made.empty());
    CHECK(gshmem_team_sync(made.back()) == 0);  // the last one made works
    for (gshmem_team_t t : made) gshmem_team_destroy(t);
    gshmem_team_t again = 12345;
    REQUIRE(gshmem_team_split_strided(GSHMEM_TEAM_WORLD, 0, 1, n, nullptr, 0, &again) == 0);
    check_team_queries(again, 0, 1, n);
    CHECK(gshmem_team_sync(again) == 0);
    gshmem_team_destroy(again);
    gshmem_barrier_all();
  }
}

TEST_CASE("collective launch: the largest grid runs co-resident, a larger one is refused", "[team][launch][gpu]") {
  runtime_scope rt;
  const void *kernel = grid_rendezvous_kernel();
  const dim3 block(128);
  int max_grid = 0;
  REQUIRE(gshmemx_collective_launch_query_gridsize(kernel, block, nullptr, 0, &max_grid) == GSHMEM_SUCCESS);
  int device = 0, sms = 0, per_sm = 0;
  GSHMEM_TEST_CUDA(cudaGetDevice(&device));
  GSHMEM_TEST_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  GSHMEM_TEST_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, (int)block.x, 0));
  // PEs that share this GPU (a one-GPU machine's test mode) split it: each
  // gets its share of the blocks, so all of their grids are resident at once.
  const int sharing = pes_on_this_gpu();
  INFO(sms << " SMs x " << per_sm << " blocks per SM, " << sharing << " PE(s) on this GPU");
  REQUIRE(per_sm >= 1);
  CHECK(max_grid == per_sm * sms / sharing);
  REQUIRE(max_grid >= sms / sharing);

  managed_counter arrived, late;
  long long timeout_ns = 20000000000ll;  // 20 s: far beyond any co-resident rendezvous
  int sync_peers = 1;
  void *args[] = {&arrived.value, &late.value, &timeout_ns, &sync_peers};
  auto run = [&](dim3 grid) {
    *arrived.value = 0;
    *late.value = 0;
    gshmem_barrier_all();
    const int rc = gshmemx_collective_launch(kernel, grid, block, args, 0, 0);
    GSHMEM_TEST_CUDA(cudaDeviceSynchronize());
    return rc;
  };

  SECTION("every block of the largest grid arrives; a grid along y of the same size too; grid 0 means the largest") {
    REQUIRE(run(dim3(max_grid)) == GSHMEM_SUCCESS);
    CHECK(*arrived.value == (unsigned long long)max_grid);
    CHECK(*late.value == 0);
    REQUIRE(run(dim3(1, max_grid)) == GSHMEM_SUCCESS);
    CHECK(*arrived.value == (unsigned long long)max_grid);
    CHECK(*late.value == 0);
    REQUIRE(run(dim3(0)) == GSHMEM_SUCCESS);
    CHECK(*arrived.value == (unsigned long long)max_grid);
    CHECK(*late.value == 0);
  }

  SECTION("a grid one block too large is refused with INVALID_VALUE and nothing runs") {
    sync_peers = 0;
    CHECK(run(dim3(max_grid + 1)) == GSHMEMX_ERROR_INVALID_VALUE);
    CHECK(gshmemx_get_last_error() == GSHMEMX_ERROR_INVALID_VALUE);
    CHECK(run(dim3(max_grid, 2)) == GSHMEMX_ERROR_INVALID_VALUE);
    CHECK(*arrived.value == 0);
  }

  SECTION("bad arguments are refused") {
    CHECK(gshmemx_collective_launch(nullptr, dim3(1), block, args, 0, 0) == GSHMEMX_ERROR_INVALID_VALUE);
    CHECK(gshmemx_collective_launch(kernel, dim3(1), dim3(0), args, 0, 0) == GSHMEMX_ERROR_INVALID_VALUE);
    CHECK(gshmemx_collective_launch(kernel, dim3(1), dim3(2048), args, 0, 0) == GSHMEMX_ERROR_INVALID_VALUE);
    CHECK(gshmemx_collective_launch_query_gridsize(kernel, block, nullptr, 0, nullptr) == GSHMEMX_ERROR_INVALID_VALUE);
    int with_shared = -1;
    REQUIRE(gshmemx_collective_launch_query_gridsize(kernel, block, nullptr, 40 << 10, &with_shared) == 0);
    CHECK(with_shared >= 1);
    CHECK(with_shared <= max_grid);
    GSHMEM_TEST_CUDA(cudaDeviceSynchronize());
    CHECK(*arrived.value == 0);
  }
  gshmem_barrier_all();
}

// ------------------------------------------------------ small collectives
namespace {

namespace gd = gshmem::detail;

// Element i of team rank r's source: varies over ranks and elements, small
// enough for every type, products included (up to 17^4).
template <class T>
T source_value(int rank, size_t i) {
  return (T)(((rank + 1) * 7 + (int)(i % 13)) % 17 + 1);
}

// In rank order, in the type the library adds up in (float for half and
// bfloat16: one rounding at the end), then converted to T.
template <class T>
T expected_reduce(int op, int size, size_t i) {
  using A = gd::reduce_acc_t<T>;
  A acc = (A)source_value<T>(0, i);
  for (int r = 1; r < size; ++r) {
    const A v = (A)source_value<T>(r, i);
    acc = op == 0 ? gd::reduce_sum::apply(acc, v)
          : op == 1 ? gd::reduce_prod::apply(acc, v)
          : op == 2 ? gd::reduce_max::apply(acc, v)
                    : gd::reduce_min::apply(acc, v);
  }
  return (T)acc;
}

// The device cases of one check that the test matrix (team_gpu_kernels.h)
// left out: counted by the check, printed once per type and team.
void report_outside_matrix(const char *what, const char *name, size_t count, int rank) {
  if (count > 0 && rank == 0)
    std::printf("%s of %s: %zu thread/warp cases outside the test matrix (GSHMEM_TEST_FULL_MATRIX=ON compiles "
                "them)\n", what, name, count);
}

template <class T>
void upload(T *dev, const std::vector<T> &h) {
  GSHMEM_TEST_CUDA(cudaMemcpy(dev, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
}
template <class T>
std::vector<T> download(const T *dev, size_t n) {
  std::vector<T> h(n);
  GSHMEM_TEST_CUDA(cudaMemcpy(h.data(), dev, n * sizeof(T), cudaMemcpyDeviceToHost));
  return h;
}

template <class T>
struct collective_api {
  cudaError_t (*device_reduce)(int, int, barrier_form, T *, const T *, size_t, int *);
  cudaError_t (*device_fcollect)(int, barrier_form, T *, const T *, size_t, int *);
  int (*reduce_on_stream[4])(gshmem_team_t, T *, const T *, size_t, cudaStream_t);
  int (*reduce_host[4])(gshmem_team_t, T *, const T *, size_t);
  int (*fcollect_on_stream)(gshmem_team_t, T *, const T *, size_t, cudaStream_t);
  int (*fcollect_host)(gshmem_team_t, T *, const T *, size_t);
};

// Ways of calling: device thread / warp / block, on a stream, from the host.
enum call_mode { mode_thread, mode_warp, mode_block, mode_stream, mode_host };
const char *const kModeNames[] = {"thread", "warp", "block", "on_stream", "host"};

// Every reduction operator and fcollect of one type on `team` (this PE a
// member), for several sizes, in every mode; reductions also in place.
// The checks of check_collectives_type on a member of `team`.
template <class T>
void check_collectives_on(const char *name, gshmem_team_t team, const collective_api<T> &api, T *source, T *dest,
                          T *inplace, size_t max_n) {
  const int rank = gshmem_team_my_pe(team), size = gshmem_team_n_pes(team);
  REQUIRE(rank >= 0);
  managed_ints rc(1);
  size_t not_compiled = 0;
  for (size_t n : {(size_t)1, (size_t)100, max_n}) {
    std::vector<T> mine(n);
    for (size_t i = 0; i < n; ++i) mine[i] = source_value<T>(rank, i);
    upload(source, mine);
    for (int mode = mode_thread; mode <= mode_host; ++mode) {
      for (int op = 0; op < 4; ++op) {
        for (bool in_place : {false, true}) {
          INFO("type " << name << ", team " << team << " (rank " << rank << " of " << size << "), n " << n << ", op "
                       << op << ", " << kModeNames[mode] << (in_place ? ", in place" : ""));
          T *src = source, *dst = dest;
          if (in_place) {
            upload(inplace, mine);
            src = dst = inplace;
          } else {
            GSHMEM_TEST_CUDA(cudaMemset(dest, 0x5a, n * sizeof(T)));
          }
          GSHMEM_TEST_CUDA(cudaDeviceSynchronize());
          REQUIRE(gshmem_team_sync(team) == 0);  // every member's buffers are ready
          rc.p[0] = -7;
          int status = -7;
          if (mode <= mode_block) {
            GSHMEM_TEST_CUDA(api.device_reduce(team, op, (barrier_form)mode, dst, src, n, rc.p));
            GSHMEM_TEST_CUDA(cudaDeviceSynchronize());
            status = rc.p[0];
            if (status == kFormNotCompiled) {  // the test matrix (team_gpu_kernels.h)
              REQUIRE(mode != mode_block);
              REQUIRE(!every_form_op(op));
              ++not_compiled;
              continue;
            }
          } else if (mode == mode_stream) {
            status = api.reduce_on_stream[op](team, dst, src, n, 0);
            GSHMEM_TEST_CUDA(cudaDeviceSynchronize());
          } else {
            status = api.reduce_host[op](team, dst, src, n);
          }
          CHECK(status == 0);
          const std::vector<T> got = download(dst, n);
          size_t wrong = 0;
          for (size_t i = 0; i < n; ++i)
            if (!(got[i] == expected_reduce<T>(op, size, i))) ++wrong;
          CHECK(wrong == 0);
        }
      }
      INFO("type " << name << ", team " << team << ", n " << n << ", fcollect " << kModeNames[mode]);
      GSHMEM_TEST_CUDA(cudaMemset(dest, 0x5a, n * (size_t)size * sizeof(T)));
      GSHMEM_TEST_CUDA(cudaDeviceSynchronize());
      REQUIRE(gshmem_team_sync(team) == 0);
      int status = -7;
      if (mode <= mode_block) {
        GSHMEM_TEST_CUDA(api.device_fcollect(team, (barrier_form)mode, dest, source, n, rc.p));
        GSHMEM_TEST_CUDA(cudaDeviceSynchronize());
        status = rc.p[0];
        if (status == kFormNotCompiled) {
          REQUIRE(mode != mode_block);
          REQUIRE(!every_form_type(name));
          ++not_compiled;
          continue;
        }
      } else if (mode == mode_stream) {
        status = api.fcollect_on_stream(team, dest, source, n, 0);
        GSHMEM_TEST_CUDA(cudaDeviceSynchronize());
      } else {
        status = api.fcollect_host(team, dest, source, n);
      }
      CHECK(status == 0);
      const std::vector<T> got = download(dest, n * (size_t)size);
      size_t wrong = 0;
      for (int r = 0; r < size; ++r)
        for (size_t i = 0; i < n; ++i)
          if (!(got[(size_t)r * n + i] == source_value<T>(r, i))) ++wrong;
      CHECK(wrong == 0);
    }
  }
  report_outside_matrix("reductions and fcollect", name, not_compiled, rank);
  REQUIRE(gshmem_team_sync(team) == 0);
}

// Every PE calls it (the symmetric allocations are collective over all
// PEs); a PE outside `team` (GSHMEM_TEAM_INVALID) only allocates and frees.
template <class T>
void check_collectives_type(const char *name, gshmem_team_t team, const collective_api<T> &api) {
  const size_t max_n = 1000;
  T *source = (T *)gshmem_malloc(max_n * sizeof(T));
  T *dest = (T *)gshmem_malloc(max_n * (size_t)gshmem_n_pes() * sizeof(T));
  T *inplace = (T *)gshmem_malloc(max_n * sizeof(T));
  REQUIRE(source);
  REQUIRE(dest);
  REQUIRE(inplace);
  if (team != GSHMEM_TEAM_INVALID) check_collectives_on(name, team, api, source, dest, inplace, max_n);
  gshmem_free(inplace);
  gshmem_free(dest);
  gshmem_free(source);
}

#define TEAM_GPU_API(NAME, TYPE)                                                                         \
  collective_api<TYPE> api_##NAME() {                                                                    \
    return collective_api<TYPE>{                                                                         \
        &launch_reduce_##NAME,                                                                           \
        &launch_fcollect_##NAME,                                                                         \
        {&gshmemx_##NAME##_sum_reduce_on_stream, &gshmemx_##NAME##_prod_reduce_on_stream,                \
         &gshmemx_##NAME##_max_reduce_on_stream, &gshmemx_##NAME##_min_reduce_on_stream},                \
        {&gshmem_##NAME##_sum_reduce, &gshmem_##NAME##_prod_reduce, &gshmem_##NAME##_max_reduce,         \
         &gshmem_##NAME##_min_reduce},                                                                   \
        &gshmemx_##NAME##_fcollect_on_stream,                                                            \
        &gshmem_##NAME##_fcollect};                                                                      \
  }
TEAM_GPU_COLLECTIVE_TYPES(TEAM_GPU_API)
#undef TEAM_GPU_API

}  // namespace

TEST_CASE("small collectives: sum/prod/max/min reductions and fcollect, every form, world and a strided team",
          "[team][collectives][gpu]") {
  runtime_scope rt;
  const int me = gshmem_my_pe(), n = gshmem_n_pes();
  gshmem_team_t evens = GSHMEM_TEAM_INVALID;
  REQUIRE(gshmem_team_split_strided(GSHMEM_TEAM_WORLD, 0, 2, (n + 1) / 2, nullptr, 0, &evens) == 0);
  for (gshmem_team_t team : {(gshmem_team_t)GSHMEM_TEAM_WORLD, evens}) {  // evens: INVALID on odd PEs
#define TEAM_GPU_CHECK_TYPE(NAME, TYPE) check_collectives_type<TYPE>(#NAME, team, api_##NAME());
    TEAM_GPU_COLLECTIVE_TYPES(TEAM_GPU_CHECK_TYPE)
#undef TEAM_GPU_CHECK_TYPE
  }
  CHECK((evens == GSHMEM_TEAM_INVALID) == (me % 2 == 1));
  gshmem_team_destroy(evens);
  gshmem_barrier_all();
}

TEST_CASE("double2 maxloc reduction (block form): largest value, smallest location on ties, world and a split",
          "[team][collectives][gpu]") {
  runtime_scope rt;
  const int me = gshmem_my_pe(), n = gshmem_n_pes();
  const size_t max_n = 700;  // past the in-place staging chunk of 16-byte elements
  double2 *source = (double2 *)gshmem_malloc(max_n * sizeof(double2));
  double2 *dest = (double2 *)gshmem_malloc(max_n * sizeof(double2));
  REQUIRE(source);
  REQUIRE(dest);
  gshmem_team_t evens = GSHMEM_TEAM_INVALID;
  REQUIRE(gshmem_team_split_strided(GSHMEM_TEAM_WORLD, 0, 2, (n + 1) / 2, nullptr, 0, &evens) == 0);
  // Element i of rank r: value (r * 5 + i) % 4 (ties between members for
  // most i), location 100 r + i % 7 (a member's own, so the tie rule shows).
  auto value = [](int r, size_t i) { return double2{(double)((r * 5 + (int)i) % 4), (double)(100 * r + i % 7)}; };
  managed_ints rc(1);
  for (gshmem_team_t team : {(gshmem_team_t)GSHMEM_TEAM_WORLD, evens}) {
    if (team == GSHMEM_TEAM_INVALID) continue;
    const int rank = gshmem_team_my_pe(team), size = gshmem_team_n_pes(team);
    for (size_t n_elems : {(size_t)1, (size_t)100, max_n}) {
      for (bool in_place : {false, true}) {
        INFO("team " << team << ", n " << n_elems << (in_place ? ", in place" : ""));
        std::vector<double2> mine(n_elems);
        for (size_t i = 0; i < n_elems; ++i) mine[i] = value(rank, i);
        upload(source, mine);
        GSHMEM_TEST_CUDA(cudaDeviceSynchronize());
        REQUIRE(gshmem_team_sync(team) == 0);
        rc.p[0] = -7;
        double2 *dst = in_place ? source : dest;
        GSHMEM_TEST_CUDA(launch_maxloc_reduce(team, dst, source, n_elems, rc.p));
        GSHMEM_TEST_CUDA(cudaDeviceSynchronize());
        CHECK(rc.p[0] == 0);
        const std::vector<double2> got = download(dst, n_elems);
        size_t wrong = 0;
        for (size_t i = 0; i < n_elems; ++i) {
          double2 best = value(0, i);
          for (int r = 1; r < size; ++r) {
            const double2 v = value(r, i);
            if (v.x > best.x || (v.x == best.x && v.y < best.y)) best = v;
          }
          if (got[i].x != best.x || got[i].y != best.y) ++wrong;
        }
        CHECK(wrong == 0);
      }
    }
    REQUIRE(gshmem_team_sync(team) == 0);
  }
  (void)me;
  gshmem_team_destroy(evens);
  gshmem_barrier_all();
  gshmem_free(dest);
  gshmem_free(source);
}

TEST_CASE("small collectives: bad arguments are refused before anything runs", "[team][collectives][gpu]") {
  runtime_scope rt;
  int *source = (int *)gshmem_malloc(64 * sizeof(int));
  int *dest = (int *)gshmem_malloc(64 * (size_t)gshmem_n_pes() * sizeof(int));
  int *local = nullptr;
  GSHMEM_TEST_CUDA(cudaMalloc(&local, 64 * sizeof(int)));
  CHECK(gshmemx_int_sum_reduce_on_stream(GSHMEM_TEAM_INVALID, dest, source, 8, 0) == GSHMEMX_ERROR_INVALID_VALUE);
  CHECK(gshmemx_int_sum_reduce_on_stream(GSHMEM_TEAM_WORLD, dest, local, 8, 0) == GSHMEMX_ERROR_NOT_SYMMETRIC);
  CHECK(gshmemx_int_max_reduce_on_stream(GSHMEM_TEAM_WORLD, source + 1, source, 8, 0) == GSHMEMX_ERROR_INVALID_VALUE);
  CHECK(gshmemx_int_min_reduce_on_stream(GSHMEM_TEAM_WORLD, nullptr, source, 8, 0) == GSHMEMX_ERROR_INVALID_VALUE);
  CHECK(gshmemx_int_fcollect_on_stream(GSHMEM_TEAM_WORLD, source, source, 8, 0) == GSHMEMX_ERROR_INVALID_VALUE);
  CHECK(gshmem_int_prod_reduce(GSHMEMX_MAX_TEAMS + 3, dest, source, 8) == GSHMEMX_ERROR_INVALID_VALUE);
  CHECK(gshmem_int_fcollect(GSHMEM_TEAM_WORLD, dest, local, 8) == GSHMEMX_ERROR_NOT_SYMMETRIC);
  CHECK(gshmemx_get_last_error() == GSHMEMX_ERROR_NOT_SYMMETRIC);
  managed_ints rc(1);
  GSHMEM_TEST_CUDA(launch_reduce_int(GSHMEM_TEAM_INVALID, 0, form_thread, dest, source, 8, rc.p));
  GSHMEM_TEST_CUDA(cudaDeviceSynchronize());
  CHECK(rc.p[0] == -1);
  GSHMEM_TEST_CUDA(launch_fcollect_int(GSHMEM_TEAM_INVALID, form_block, dest, source, 8, rc.p));
  GSHMEM_TEST_CUDA(cudaDeviceSynchronize());
  CHECK(rc.p[0] == -1);
  cudaFree(local);
  gshmem_free(dest);
  gshmem_free(source);
}

// ------------------------------------------------ broadcast, alltoall, *mem
namespace {

// Element x of team rank r's source for broadcast and alltoall: distinct
// over ranks (31 r mod 251) and over neighbouring blocks (no block size
// used below is a multiple of 251); exact in every tested type.
template <class T>
T data_value(int rank, size_t x) {
  return (T)((rank * 31 + x) % 251 + 1);
}
unsigned char byte_value(int rank, size_t x) { return (unsigned char)((rank * 31 + x * 7) % 251 + 1); }

template <class T>
struct data_api {
  cudaError_t (*device_broadcast)(int, barrier_form, T *, const T *, size_t, int, long long, int *);
  cudaError_t (*device_alltoall)(int, barrier_form, T *, const T *, size_t, long long, int *);
  int (*broadcast_on_stream)(gshmem_team_t, T *, const T *, size_t, int, cudaStream_t);
  int (*broadcast_host)(gshmem_team_t, T *, const T *, size_t, int);
  int (*alltoall_on_stream)(gshmem_team_t, T *, const T *, size_t, cudaStream_t);
  int (*alltoall_host)(gshmem_team_t, T *, const T *, size_t);
};

// Ways of calling, as call_mode, plus mode_mixed (device, form by PE).
constexpr int mode_mixed = mode_host + 1;
const char *data_mode_name(int mode) { return mode == mode_mixed ? "mixed device forms" : kModeNames[mode]; }

// A late member: team rank 1 (or the root) spins before calling, in the
// device modes, so the others reach the collective first.
long long delay_for(int rank, int late_rank) { return rank == late_rank ? 2000000 : 0; }

// The roots tried on a team of `size`: 0, 1 and the last rank.
std::vector<int> roots_of(int size) {
  std::vector<int> roots{0};
  if (size > 1) roots.push_back(1);
  if (size > 2) roots.push_back(size - 1);
  return roots;
}

template <class T>
void check_broadcast_alltoall_on(const char *name, gshmem_team_t team, const data_api<T> &api, T *source, T *dest,
                                 size_t max_n) {
  const int rank = gshmem_team_my_pe(team), size = gshmem_team_n_pes(team);
  REQUIRE(rank >= 0);
  managed_ints rc(1);
  size_t not_compiled = 0;
  for (size_t n : {(size_t)0, (size_t)1, (size_t)100, max_n}) {
    for (int mode = mode_thread; mode <= mode_mixed; ++mode) {
      const bool on_device = mode <= mode_block || mode == mode_mixed;
      if (on_device && mode != mode_block && !every_form_type(name)) {  // the test matrix (team_gpu_kernels.h)
        ++not_compiled;
        continue;
      }
      const barrier_form form = mode == mode_mixed ? form_mixed : (barrier_form)mode;
      // broadcast, each root, into dest and in place (dest == source).
      for (int root : roots_of(size)) {
        for (bool in_place : {false, true}) {
          INFO("type " << name << ", team " << team << " (rank " << rank << " of " << size << "), n " << n
                       << ", broadcast root " << root << ", " << data_mode_name(mode) << (in_place ? ", in place" : ""));
          std::vector<T> mine(n + 1);
          for (size_t i = 0; i <= n; ++i) mine[i] = data_value<T>(rank, i);
          upload(source, mine);
          T *dst = in_place ? source : dest;
          if (!in_place) GSHMEM_TEST_CUDA(cudaMemset(dest, 0x5a, (n + 1) * sizeof(T)));
          const std::vector<T> guard = download(dst + n, 1);  // the element past n: never written
          GSHMEM_TEST_CUDA(cudaDeviceSynchronize());
          REQUIRE(gshmem_team_sync(team) == 0);
          rc.p[0] = -7;
          int status = -7;
          if (on_device) {
            GSHMEM_TEST_CUDA(api.device_broadcast(team, form, dst, source, n, root, delay_for(rank, root), rc.p));
            GSHMEM_TEST_CUDA(cudaDeviceSynchronize());
            status = rc.p[0];
          } else if (mode == mode_stream) {
            status = api.broadcast_on_stream(team, dst, source, n, root, 0);
            GSHMEM_TEST_CUDA(cudaDeviceSynchronize());
          } else {
            status = api.broadcast_host(team, dst, source, n, root);
          }
          CHECK(status == 0);
          const std::vector<T> got = download(dst, n + 1);
          size_t wrong = 0;
          for (size_t i = 0; i < n; ++i)
            if (!(got[i] == data_value<T>(root, i))) ++wrong;
          CHECK(wrong == 0);
          CHECK(got[n] == guard[0]);
        }
      }
      // alltoall: dest[i * n + e] here == source[rank * n + e] on rank i.
      INFO("type " << name << ", team " << team << " (rank " << rank << " of " << size << "), n " << n
                   << ", alltoall " << data_mode_name(mode));
      const size_t total = n * (size_t)size;
      std::vector<T> mine(total);
      for (size_t x = 0; x < total; ++x) mine[x] = data_value<T>(rank, x);
      upload(source, mine);
      GSHMEM_TEST_CUDA(cudaMemset(dest, 0x5a, (total + 1) * sizeof(T)));
      const std::vector<T> guard = download(dest + total, 1);
      GSHMEM_TEST_CUDA(cudaDeviceSynchronize());
      REQUIRE(gshmem_team_sync(team) == 0);
      rc.p[0] = -7;
      int status = -7;
      if (on_device) {
        GSHMEM_TEST_CUDA(api.device_alltoall(team, form, dest, source, n, delay_for(rank, size - 1), rc.p));
        GSHMEM_TEST_CUDA(cudaDeviceSynchronize());
        status = rc.p[0];
      } else if (mode == mode_stream) {
        status = api.alltoall_on_stream(team, dest, source, n, 0);
        GSHMEM_TEST_CUDA(cudaDeviceSynchronize());
      } else {
        status = api.alltoall_host(team, dest, source, n);
      }
      CHECK(status == 0);
      const std::vector<T> got = download(dest, total + 1);
      size_t wrong = 0;
      for (int i = 0; i < size; ++i)
        for (size_t e = 0; e < n; ++e)
          if (!(got[(size_t)i * n + e] == data_value<T>(i, (size_t)rank * n + e))) ++wrong;
      CHECK(wrong == 0);
      CHECK(got[total] == guard[0]);
    }
  }
  report_outside_matrix("broadcast and alltoall", name, not_compiled, rank);
  REQUIRE(gshmem_team_sync(team) == 0);
}

// Every PE calls it (symmetric allocations are collective over all PEs).
template <class T>
void check_broadcast_alltoall_type(const char *name, gshmem_team_t team, const data_api<T> &api) {
  const size_t max_n = 4099;  // odd, not a multiple of 251
  const size_t elems = max_n * (size_t)gshmem_n_pes() + 1;
  T *source = (T *)gshmem_malloc(elems * sizeof(T));
  T *dest = (T *)gshmem_malloc(elems * sizeof(T));
  REQUIRE(source);
  REQUIRE(dest);
  if (team != GSHMEM_TEAM_INVALID) check_broadcast_alltoall_on(name, team, api, source, dest, max_n);
  gshmem_free(dest);
  gshmem_free(source);
}

#define TEAM_GPU_DATA_API(NAME, TYPE)                                                                       \
  data_api<TYPE> data_api_##NAME() {                                                                        \
    return data_api<TYPE>{&launch_broadcast_##NAME,          &launch_alltoall_##NAME,                       \
                          &gshmemx_##NAME##_broadcast_on_stream, &gshmem_##NAME##_broadcast,                \
                          &gshmemx_##NAME##_alltoall_on_stream,  &gshmem_##NAME##_alltoall};                 \
  }
TEAM_GPU_COLLECTIVE_TYPES(TEAM_GPU_DATA_API)
#undef TEAM_GPU_DATA_API

// The teams: world, the even PEs (stride 2), and PEs 1 .. n - 1 (odd size
// on 4 PEs, one PE on 2). INVALID on a PE outside.
struct test_teams {
  gshmem_team_t evens = GSHMEM_TEAM_INVALID, tail = GSHMEM_TEAM_INVALID;
  test_teams() {
    const int n = gshmem_n_pes();
    REQUIRE(gshmem_team_split_strided(GSHMEM_TEAM_WORLD, 0, 2, (n + 1) / 2, nullptr, 0, &evens) == 0);
    REQUIRE(gshmem_team_split_strided(GSHMEM_TEAM_WORLD, 1, 1, n - 1, nullptr, 0, &tail) == 0);
  }
  ~test_teams() {
    gshmem_team_destroy(tail);
    gshmem_team_destroy(evens);
  }
  std::vector<gshmem_team_t> all() const { return {(gshmem_team_t)GSHMEM_TEAM_WORLD, evens, tail}; }
};

}  // namespace

TEST_CASE("broadcast and alltoall: every form, roots 0/1/last, sizes 0..4099, world and split teams",
          "[team][collectives][gpu]") {
  runtime_scope rt;
  {
    test_teams teams;
    CHECK((teams.evens == GSHMEM_TEAM_INVALID) == (gshmem_my_pe() % 2 == 1));
    CHECK((teams.tail == GSHMEM_TEAM_INVALID) == (gshmem_my_pe() == 0));
    for (gshmem_team_t team : teams.all()) {
#define TEAM_GPU_CHECK_DATA_TYPE(NAME, TYPE) check_broadcast_alltoall_type<TYPE>(#NAME, team, data_api_##NAME());
      TEAM_GPU_COLLECTIVE_TYPES(TEAM_GPU_CHECK_DATA_TYPE)
#undef TEAM_GPU_CHECK_DATA_TYPE
    }
  }
  gshmem_barrier_all();
}

TEST_CASE("broadcastmem, alltoallmem, fcollectmem: bytes at odd offsets, every form, up to 1 MiB",
          "[team][collectives][gpu]") {
  runtime_scope rt;
  const size_t max_bytes = ((size_t)1 << 20) + 5;
  const size_t span = max_bytes * (size_t)gshmem_n_pes() + 16;
  unsigned char *source_base = (unsigned char *)gshmem_malloc(span);
  unsigned char *dest_base = (unsigned char *)gshmem_malloc(span);
  REQUIRE(source_base);
  REQUIRE(dest_base);
  unsigned char *const source = source_base + 3, *const dest = dest_base + 1;  // unaligned, differently
  managed_ints rc(1);
  {
    test_teams teams;
    for (gshmem_team_t team : teams.all()) {
      if (team == GSHMEM_TEAM_INVALID) continue;
      const int rank = gshmem_team_my_pe(team), size = gshmem_team_n_pes(team);
      for (size_t nbytes : {(size_t)0, (size_t)3, (size_t)4096 + 1, max_bytes}) {
        for (int mode = mode_thread; mode <= mode_mixed; ++mode) {
          for (int which = 0; which < 3; ++which) {
            const int root = size - 1;
            INFO((which == 0 ? "broadcastmem" : which == 1 ? "alltoallmem" : "fcollectmem")
                 << ", team " << team << " (rank " << rank << " of " << size << "), " << nbytes << " bytes, "
                 << data_mode_name(mode));
            const size_t src_bytes = which == 1 ? nbytes * size : nbytes;
            const size_t dst_bytes = which == 0 ? nbytes : nbytes * size;
            std::vector<unsigned char> mine(src_bytes);
            for (size_t x = 0; x < src_bytes; ++x) mine[x] = byte_value(rank, x);
            upload(source, mine);
            GSHMEM_TEST_CUDA(cudaMemset(dest, 0x5a, dst_bytes + 1));
            GSHMEM_TEST_CUDA(cudaDeviceSynchronize());
            REQUIRE(gshmem_team_sync(team) == 0);
            rc.p[0] = -7;
            int status = -7;
            if (mode <= mode_block || mode == mode_mixed) {
              const barrier_form form = mode == mode_mixed ? form_mixed : (barrier_form)mode;
              GSHMEM_TEST_CUDA(launch_mem_collective(which, team, form, dest, source, nbytes, root,
                                                     delay_for(rank, 0), rc.p));
              GSHMEM_TEST_CUDA(cudaDeviceSynchronize());
              status = rc.p[0];
            } else if (mode == mode_stream) {
              status = which == 0   ? gshmemx_broadcastmem_on_stream(team, dest, source, nbytes, root, 0)
                       : which == 1 ? gshmemx_alltoallmem_on_stream(team, dest, source, nbytes, 0)
                                    : gshmemx_fcollectmem_on_stream(team, dest, source, nbytes, 0);
              GSHMEM_TEST_CUDA(cudaDeviceSynchronize());
            } else {
              status = which == 0   ? gshmem_broadcastmem(team, dest, source, nbytes, root)
                       : which == 1 ? gshmem_alltoallmem(team, dest, source, nbytes)
                                    : gshmem_fcollectmem(team, dest, source, nbytes);
            }
            CHECK(status == 0);
            const std::vector<unsigned char> got = download(dest, dst_bytes + 1);
            size_t wrong = 0;
            for (size_t x = 0; x < dst_bytes; ++x) {
              const size_t block = nbytes ? x / nbytes : 0, at = nbytes ? x % nbytes : 0;
              const unsigned char want = which == 0   ? byte_value(root, x)
                                         : which == 1 ? byte_value((int)block, (size_t)rank * nbytes + at)
                                                      : byte_value((int)block, at);
              if (got[x] != want) ++wrong;
            }
            CHECK(wrong == 0);
            CHECK(got[dst_bytes] == 0x5a);
          }
        }
      }
      REQUIRE(gshmem_team_sync(team) == 0);
    }
  }
  gshmem_free(dest_base);
  gshmem_free(source_base);
  gshmem_barrier_all();
}

TEST_CASE("broadcast, alltoall, *mem: bad arguments are refused before anything runs", "[team][collectives][gpu]") {
  runtime_scope rt;
  const int n_pes = gshmem_n_pes();
  int *source = (int *)gshmem_malloc(64 * (size_t)n_pes * sizeof(int));
  int *dest = (int *)gshmem_malloc(64 * (size_t)n_pes * sizeof(int));
  REQUIRE(source);
  REQUIRE(dest);
  int *local = nullptr;
  GSHMEM_TEST_CUDA(cudaMalloc(&local, 64 * (size_t)n_pes * sizeof(int)));
  const gshmem_team_t W = GSHMEM_TEAM_WORLD;
  // A root outside the team.
  CHECK(gshmem_int_broadcast(W, dest, source, 8, n_pes) == GSHMEMX_ERROR_INVALID_VALUE);
  CHECK(gshmemx_int_broadcast_on_stream(W, dest, source, 8, -1, 0) == GSHMEMX_ERROR_INVALID_VALUE);
  CHECK(gshmem_broadcastmem(W, dest, source, 8, n_pes + 5) == GSHMEMX_ERROR_INVALID_VALUE);
  // A team this PE is not a member of (or no team).
  CHECK(gshmem_int_broadcast(GSHMEM_TEAM_INVALID, dest, source, 8, 0) == GSHMEMX_ERROR_INVALID_VALUE);
  CHECK(gshmemx_int_alltoall_on_stream(GSHMEMX_MAX_TEAMS + 3, dest, source, 8, 0) == GSHMEMX_ERROR_INVALID_VALUE);
  CHECK(gshmem_fcollectmem(GSHMEM_TEAM_INVALID, dest, source, 8) == GSHMEMX_ERROR_INVALID_VALUE);
  // The symmetric side outside the heap: broadcast/fcollect read source,
  // alltoall writes dest; a count past the heap's end; an overflowing count.
  CHECK(gshmem_int_broadcast(W, dest, local, 8, 0) == GSHMEMX_ERROR_NOT_SYMMETRIC);
  CHECK(gshmem_int_broadcast(W, local, source, 8, 0) == 0);  // a local dest is fine
  CHECK(gshmem_int_alltoall(W, local, source, 8) == GSHMEMX_ERROR_NOT_SYMMETRIC);
  CHECK(gshmemx_fcollectmem_on_stream(W, dest, local, 8, 0) == GSHMEMX_ERROR_NOT_SYMMETRIC);
  CHECK(gshmem_broadcastmem(W, dest, source, (size_t)1 << 62, 0) == GSHMEMX_ERROR_NOT_SYMMETRIC);
  CHECK(gshmem_alltoallmem(W, dest, source, ~(size_t)0 / 2 + 1) ==
        (n_pes > 1 ? GSHMEMX_ERROR_INVALID_VALUE : GSHMEMX_ERROR_NOT_SYMMETRIC));
  CHECK(gshmem_long_alltoall(W, (long *)dest, (long *)source, ~(size_t)0 / 4) == GSHMEMX_ERROR_INVALID_VALUE);
  // Overlap: broadcast allows dest == source only; alltoall and fcollectmem nothing.
  CHECK(gshmem_int_broadcast(W, source + 1, source, 8, 0) == GSHMEMX_ERROR_INVALID_VALUE);
  CHECK(gshmem_int_alltoall(W, source, source, 8) == GSHMEMX_ERROR_INVALID_VALUE);
  CHECK(gshmemx_alltoallmem_on_stream(W, dest, dest + 1, 16, 0) == GSHMEMX_ERROR_INVALID_VALUE);
  CHECK(gshmem_fcollectmem(W, source, source, 16) == GSHMEMX_ERROR_INVALID_VALUE);
  // NULL with a count.
  CHECK(gshmem_int_broadcast(W, nullptr, source, 8, 0) == GSHMEMX_ERROR_INVALID_VALUE);
  CHECK(gshmemx_get_last_error() == GSHMEMX_ERROR_INVALID_VALUE);
  // Device forms: -1 (and a diagnostic line), nothing waited for.
  managed_ints rc(1);
  GSHMEM_TEST_CUDA(launch_broadcast_int(W, form_block, dest, source, 8, n_pes, 0, rc.p));
  GSHMEM_TEST_CUDA(cudaDeviceSynchronize());
  CHECK(rc.p[0] == -1);
  GSHMEM_TEST_CUDA(launch_broadcast_int(W, form_thread, dest, source, 8, -1, 0, rc.p));
  GSHMEM_TEST_CUDA(cudaDeviceSynchronize());
  CHECK(rc.p[0] == -1);
  GSHMEM_TEST_CUDA(launch_alltoall_int(GSHMEM_TEAM_INVALID, form_warp, dest, source, 8, 0, rc.p));
  GSHMEM_TEST_CUDA(cudaDeviceSynchronize());
  CHECK(rc.p[0] == -1);
  GSHMEM_TEST_CUDA(launch_alltoall_int(W, form_block, source, source, 8, 0, rc.p));
  GSHMEM_TEST_CUDA(cudaDeviceSynchronize());
  CHECK(rc.p[0] == -1);
  GSHMEM_TEST_CUDA(launch_mem_collective(0, W, form_warp, source + 1, source, 16, 0, 0, rc.p));
  GSHMEM_TEST_CUDA(cudaDeviceSynchronize());
  CHECK(rc.p[0] == -1);
  GSHMEM_TEST_CUDA(launch_mem_collective(2, W, form_thread, source, source, 16, 0, 0, rc.p));
  GSHMEM_TEST_CUDA(cudaDeviceSynchronize());
  CHECK(rc.p[0] == -1);
  cudaFree(local);
  gshmem_barrier_all();
  gshmem_free(dest);
  gshmem_free(source);
}

// ------------------------------- and/or/xor reductions and reducescatter
namespace {

// Element j of team rank r's source for operator op: the values of
// source_value for sum/prod/max/min (products stay small), mixed bits for
// and/or/xor (every bit position set on some members and clear on others).
template <class T>
T reduction_value(int op, int rank, size_t j) {
  if (op < op_and) return source_value<T>(rank, j);
  uint64_t h = (uint64_t)(rank + 1) * 0x9e3779b97f4a7c15ull ^ ((uint64_t)j + 1) * 0xbf58476d1ce4e5b9ull;
  h ^= h >> 29;
  return (T)h;
}

template <class T>
T apply_op(int op, T a, T b) {
  switch (op) {
    case op_sum: return gd::reduce_sum::apply(a, b);
    case op_prod: return gd::reduce_prod::apply(a, b);
    case op_max: return gd::reduce_max::apply(a, b);
    case op_min: return gd::reduce_min::apply(a, b);
    default: break;
  }
  if constexpr (std::is_integral<T>::value) {
    switch (op) {
      case op_and: return gd::reduce_and::apply(a, b);
      case op_or: return gd::reduce_or::apply(a, b);
      case op_xor: return gd::reduce_xor::apply(a, b);
      default: break;
    }
  }
  FAIL("operator " << op << " has no reference");
  return a;
}

// The host reference: element j of every member's source folded in rank
// order (j = i for a reduction, my_rank * n + i for a reducescatter).
template <class T>
T expected_reduction(int op, int size, size_t j) {
  using A = gd::reduce_acc_t<T>;  // as expected_reduce
  A acc = (A)reduction_value<T>(op, 0, j);
  for (int r = 1; r < size; ++r) acc = apply_op<A>(op, acc, (A)reduction_value<T>(op, r, j));
  return (T)acc;
}

template <class T>
struct reduction_api {
  cudaError_t (*device)(int, int, int, barrier_form, T *, const T *, size_t, int *) = nullptr;
  // [kind][op]; null where the type has no such operator.
  int (*on_stream[2][op_count])(gshmem_team_t, T *, const T *, size_t, cudaStream_t) = {};
  int (*host[2][op_count])(gshmem_team_t, T *, const T *, size_t) = {};
};

// Every operator the type has, both kinds (reductions of and/or/xor only:
// sum/prod/max/min reductions are the test above), in every mode, sizes 0
// to past the in-place staging chunk; reductions also in place.
template <class T>
void check_reductions_on(const char *name, gshmem_team_t team, const reduction_api<T> &api, T *source, T *dest,
                         T *inplace, size_t max_n) {
  const int rank = gshmem_team_my_pe(team), size = gshmem_team_n_pes(team);
  REQUIRE(rank >= 0);
  managed_ints rc(1);
  size_t not_compiled = 0;
  for (size_t n : {(size_t)0, (size_t)1, (size_t)33, (size_t)1000, max_n}) {
    for (int kind = kind_reduce; kind <= kind_reducescatter; ++kind) {
      for (int op = 0; op < op_count; ++op) {
        if (!api.host[kind][op] || (kind == kind_reduce && op < op_and)) continue;
        const size_t source_n = kind == kind_reduce ? n : n * (size_t)size;
        std::vector<T> mine(source_n);
        for (size_t j = 0; j < source_n; ++j) mine[j] = reduction_value<T>(op, rank, j);
        upload(source, mine);
        for (int mode = mode_thread; mode <= mode_host; ++mode) {
          for (bool in_place : {false, true}) {
            if (in_place && kind == kind_reducescatter) continue;  // no overlap allowed
            INFO("type " << name << ", team " << team << " (rank " << rank << " of " << size << "), n " << n
                         << (kind == kind_reduce ? ", reduce" : ", reducescatter") << ", op " << op << ", "
                         << kModeNames[mode] << (in_place ? ", in place" : ""));
            T *src = source, *dst = dest;
            if (in_place) {
              upload(inplace, mine);
              src = dst = inplace;
            } else {
              GSHMEM_TEST_CUDA(cudaMemset(dest, 0x5a, (n + 1) * sizeof(T)));
            }
            GSHMEM_TEST_CUDA(cudaDeviceSynchronize());
            REQUIRE(gshmem_team_sync(team) == 0);  // every member's buffers are ready
            rc.p[0] = -9;
            int status = -9;
            if (mode <= mode_block) {
              GSHMEM_TEST_CUDA(api.device(team, op, kind, (barrier_form)mode, dst, src, n, rc.p));
              GSHMEM_TEST_CUDA(cudaDeviceSynchronize());
              status = rc.p[0];
              if (status == kFormNotCompiled) {  // the test matrix (team_gpu_kernels.h)
                REQUIRE(mode != mode_block);
                REQUIRE(!every_form_op(op));
                ++not_compiled;
                continue;
              }
            } else if (mode == mode_stream) {
              status = api.on_stream[kind][op](team, dst, src, n, 0);
              GSHMEM_TEST_CUDA(cudaDeviceSynchronize());
            } else {
              status = api.host[kind][op](team, dst, src, n);
            }
            CHECK(status == 0);
            const std::vector<T> got = download(dst, in_place ? n : n + 1);
            size_t wrong = 0;
            for (size_t i = 0; i < n; ++i) {
              const size_t j = kind == kind_reduce ? i : (size_t)rank * n + i;
              if (!(got[i] == expected_reduction<T>(op, size, j))) ++wrong;
            }
            CHECK(wrong == 0);
            if (!in_place) {  // nothing past dest's n elements is written
              T guard;
              std::memset(&guard, 0x5a, sizeof guard);
              CHECK(std::memcmp(&got[n], &guard, sizeof guard) == 0);
            }
          }
        }
      }
    }
  }
  report_outside_matrix("reductions", name, not_compiled, rank);
  REQUIRE(gshmem_team_sync(team) == 0);
}

// Every PE calls it (collective allocations); a PE outside `team` only
// allocates and frees.
template <class T>
void check_reductions_type(const char *name, gshmem_team_t team, const reduction_api<T> &api) {
  const size_t max_n = 2500;
  T *source = (T *)gshmem_malloc(max_n * (size_t)gshmem_n_pes() * sizeof(T));
  T *dest = (T *)gshmem_malloc((max_n + 1) * sizeof(T));
  T *inplace = (T *)gshmem_malloc(max_n * sizeof(T));
  REQUIRE(source);
  REQUIRE(dest);
  REQUIRE(inplace);
  if (team != GSHMEM_TEAM_INVALID) check_reductions_on(name, team, api, source, dest, inplace, max_n);
  gshmem_free(inplace);
  gshmem_free(dest);
  gshmem_free(source);
}

#define TEAM_GPU_FILL_OP(NAME, TYPE, OP)                                                    \
  api.host[kind_reduce][op_##OP] = &gshmem_##NAME##_##OP##_reduce;                          \
  api.host[kind_reducescatter][op_##OP] = &gshmem_##NAME##_##OP##_reducescatter;            \
  api.on_stream[kind_reduce][op_##OP] = &gshmemx_##NAME##_##OP##_reduce_on_stream;          \
  api.on_stream[kind_reducescatter][op_##OP] = &gshmemx_##NAME##_##OP##_reducescatter_on_stream;
#define TEAM_GPU_BITWISE_API(NAME, TYPE)                            \
  reduction_api<TYPE> reduction_api_##NAME() {                      \
    reduction_api<TYPE> api;                                        \
    api.device = &launch_reduction_##NAME;                          \
    GSHMEM_FOR_EACH_REDUCE_OP(TEAM_GPU_FILL_OP, NAME, TYPE)         \
    GSHMEM_FOR_EACH_REDUCE_BITWISE_OP(TEAM_GPU_FILL_OP, NAME, TYPE) \
    return api;                                                     \
  }
#define TEAM_GPU_ARITH_API(NAME, TYPE)                      \
  reduction_api<TYPE> reduction_api_##NAME() {              \
    reduction_api<TYPE> api;                                \
    api.device = &launch_reduction_##NAME;                  \
    GSHMEM_FOR_EACH_REDUCE_OP(TEAM_GPU_FILL_OP, NAME, TYPE) \
    return api;                                             \
  }
TEAM_GPU_BITWISE_TYPES(TEAM_GPU_BITWISE_API)
TEAM_GPU_ARITH_TYPES(TEAM_GPU_ARITH_API)
#undef TEAM_GPU_ARITH_API
#undef TEAM_GPU_BITWISE_API
#undef TEAM_GPU_FILL_OP

}  // namespace

TEST_CASE("and/or/xor reductions and reducescatter: every operator and form, world, strided and odd-sized teams",
          "[team][collectives][gpu]") {
  runtime_scope rt;
  const int me = gshmem_my_pe(), n = gshmem_n_pes();
  gshmem_team_t evens = GSHMEM_TEAM_INVALID, firsts = GSHMEM_TEAM_INVALID;
  REQUIRE(gshmem_team_split_strided(GSHMEM_TEAM_WORLD, 0, 2, (n + 1) / 2, nullptr, 0, &evens) == 0);
  // The first n - 1 PEs: odd-sized on 4 PEs (3), one member on 2.
  REQUIRE(gshmem_team_split_strided(GSHMEM_TEAM_WORLD, 0, 1, n - 1, nullptr, 0, &firsts) == 0);
  for (gshmem_team_t team : {(gshmem_team_t)GSHMEM_TEAM_WORLD, evens, firsts}) {  // INVALID where not a member
#define TEAM_GPU_CHECK_REDUCTIONS(NAME, TYPE) check_reductions_type<TYPE>(#NAME, team, reduction_api_##NAME());
    TEAM_GPU_BITWISE_TYPES(TEAM_GPU_CHECK_REDUCTIONS)
    TEAM_GPU_ARITH_TYPES(TEAM_GPU_CHECK_REDUCTIONS)
#undef TEAM_GPU_CHECK_REDUCTIONS
  }
  CHECK((evens == GSHMEM_TEAM_INVALID) == (me % 2 == 1));
  CHECK((firsts == GSHMEM_TEAM_INVALID) == (me == n - 1));
  gshmem_team_destroy(firsts);
  gshmem_team_destroy(evens);
  gshmem_barrier_all();
}

// The wide form of the on-stream and host reductions (device/
// wide_collectives.cuh: entry sync, a grid for the data, last sync) runs
// from 32 KiB of elements with every member mapped; the cases above stay
// below it. Odd counts (a tail after the 16-byte units), and source and
// dest one element off their 16-byte alignment (no 16-byte units at all).
namespace {
template <class T>
void check_wide_reduce(const char *name, gshmem_team_t team, T *source_base, T *dest_base, size_t n, int skew,
                       bool host, int kind, int op,
                       int (*on_stream)(gshmem_team_t, T *, const T *, size_t, cudaStream_t),
                       int (*blocking)(gshmem_team_t, T *, const T *, size_t)) {
  const int rank = gshmem_team_my_pe(team), size = gshmem_team_n_pes(team);
  const size_t src_n = kind == 1 ? n * (size_t)size : n;
  T *const source = source_base + skew, *const dest = dest_base + skew;
  std::vector<T> mine(src_n);
  for (size_t i = 0; i < src_n; ++i) mine[i] = source_value<T>(rank, i);
  upload(source, mine);
  GSHMEM_TEST_CUDA(cudaMemset(dest, 0x5a, (n + 1) * sizeof(T)));
  GSHMEM_TEST_CUDA(cudaDeviceSynchronize());
  REQUIRE(gshmem_team_sync(team) == 0);
  INFO(name << (kind == 1 ? " reducescatter" : " reduce") << " op " << op << ", team " << team << " (rank " << rank
            << " of " << size << "), n " << n << ", skew " << skew << (host ? ", host" : ", on a stream"));
  int status = -7;
  if (host) {
    status = blocking(team, dest, source, n);
  } else {
    status = on_stream(team, dest, source, n, 0);
    GSHMEM_TEST_CUDA(cudaDeviceSynchronize());
  }
  CHECK(status == 0);
  const std::vector<T> got = download(dest, n + 1);
  size_t wrong = 0, first_wrong = n;
  for (size_t i = 0; i < n; ++i) {
    const size_t j = kind == 1 ? (size_t)rank * n + i : i;  // the element of every member's source
    T want;
    if constexpr (std::is_integral<T>::value) {
      if (op == 4) {  // xor
        want = source_value<T>(0, j);
        for (int r = 1; r < size; ++r) want = (T)(want ^ source_value<T>(r, j));
      } else {
        want = expected_reduce<T>(op, size, j);
      }
    } else {
      want = expected_reduce<T>(op, size, j);
    }
    if (!(got[i] == want) && wrong++ == 0) first_wrong = i;
  }
  CHECK(wrong == 0);
  CHECK(first_wrong == n);
  unsigned char past[sizeof(T)];
  std::memcpy(past, &got[n], sizeof(T));
  CHECK(past[0] == 0x5a);  // nothing written past dest's n elements
}
}  // namespace

TEST_CASE("reductions and reducescatter on a stream and from the host: the wide form (32 KiB and more)",
          "[team][collectives][gpu]") {
  runtime_scope rt;
  const int me = gshmem_my_pe(), npes = gshmem_n_pes();
  const size_t n = 20011;  // 78 KiB of int, 156 KiB of double; odd
  const size_t span = (n + 2) * (size_t)npes;
  int *isrc = (int *)gshmem_malloc(span * sizeof(int)), *idst = (int *)gshmem_malloc(span * sizeof(int));
  double *dsrc = (double *)gshmem_malloc(span * sizeof(double)), *ddst = (double *)gshmem_malloc(span * sizeof(double));
  uint64_t *usrc = (uint64_t *)gshmem_malloc(span * sizeof(uint64_t)),
           *udst = (uint64_t *)gshmem_malloc(span * sizeof(uint64_t));
  REQUIRE(isrc);
  REQUIRE(idst);
  REQUIRE(dsrc);
  REQUIRE(ddst);
  REQUIRE(usrc);
  REQUIRE(udst);
  gshmem_team_t evens = GSHMEM_TEAM_INVALID;
  REQUIRE(gshmem_team_split_strided(GSHMEM_TEAM_WORLD, 0, 2, (npes + 1) / 2, nullptr, 0, &evens) == 0);
  for (gshmem_team_t team : {(gshmem_team_t)GSHMEM_TEAM_WORLD, evens}) {
    if (team == GSHMEM_TEAM_INVALID) continue;  // evens on an odd PE
    for (int skew : {0, 1}) {
      for (bool host : {false, true}) {
        check_wide_reduce<int>("int", team, isrc, idst, n, skew, host, 0, 0, &gshmemx_int_sum_reduce_on_stream,
                               &gshmem_int_sum_reduce);
        check_wide_reduce<int>("int", team, isrc, idst, n, skew, host, 0, 3, &gshmemx_int_min_reduce_on_stream,
                               &gshmem_int_min_reduce);
        check_wide_reduce<double>("double", team, dsrc, ddst, n, skew, host, 0, 1,
                                  &gshmemx_double_prod_reduce_on_stream, &gshmem_double_prod_reduce);
        check_wide_reduce<double>("double", team, dsrc, ddst, n, skew, host, 0, 2,
                                  &gshmemx_double_max_reduce_on_stream, &gshmem_double_max_reduce);
        check_wide_reduce<uint64_t>("uint64", team, usrc, udst, n, skew, host, 0, 4,
                                    &gshmemx_uint64_xor_reduce_on_stream, &gshmem_uint64_xor_reduce);
        check_wide_reduce<int>("int", team, isrc, idst, n, skew, host, 1, 0, &gshmemx_int_sum_reducescatter_on_stream,
                               &gshmem_int_sum_reducescatter);
      }
    }
  }
  CHECK((evens == GSHMEM_TEAM_INVALID) == (me % 2 == 1));
  gshmem_team_destroy(evens);
  gshmem_free(udst);
  gshmem_free(usrc);
  gshmem_free(ddst);
  gshmem_free(dsrc);
  gshmem_free(idst);
  gshmem_free(isrc);
  gshmem_barrier_all();
}

TEST_CASE("and/or/xor reductions and reducescatter: bad arguments are refused before anything runs",
          "[team][collectives][gpu]") {
  runtime_scope rt;
  const int n = gshmem_n_pes();
  REQUIRE(n >= 2);
  int *source = (int *)gshmem_malloc(64 * (size_t)n * sizeof(int));
  int *dest = (int *)gshmem_malloc(64 * sizeof(int));
  unsigned *usource = (unsigned *)gshmem_malloc(64 * sizeof(unsigned));
  unsigned *udest = (unsigned *)gshmem_malloc(64 * sizeof(unsigned));
  int *local = nullptr;
  GSHMEM_TEST_CUDA(cudaMalloc(&local, 64 * (size_t)n * sizeof(int)));
  // Bitwise reductions: the checks of the other reductions.
  CHECK(gshmemx_uint_and_reduce_on_stream(GSHMEM_TEAM_INVALID, udest, usource, 8, 0) == GSHMEMX_ERROR_INVALID_VALUE);
  CHECK(gshmemx_uint_or_reduce_on_stream(GSHMEM_TEAM_WORLD, udest, (unsigned *)local, 8, 0) ==
        GSHMEMX_ERROR_NOT_SYMMETRIC);
  CHECK(gshmem_uint_xor_reduce(GSHMEM_TEAM_WORLD, usource + 1, usource, 8) == GSHMEMX_ERROR_INVALID_VALUE);
  CHECK(gshmem_uint_xor_reduce(GSHMEM_TEAM_WORLD, nullptr, usource, 8) == GSHMEMX_ERROR_INVALID_VALUE);
  // Reducescatter: source holds n * nreduce elements; no overlap at all.
  CHECK(gshmemx_int_sum_reducescatter_on_stream(GSHMEMX_MAX_TEAMS + 3, dest, source, 8, 0) ==
        GSHMEMX_ERROR_INVALID_VALUE);
  CHECK(gshmemx_int_sum_reducescatter_on_stream(GSHMEM_TEAM_WORLD, dest, local, 8, 0) == GSHMEMX_ERROR_NOT_SYMMETRIC);
  CHECK(gshmem_int_max_reducescatter(GSHMEM_TEAM_WORLD, source, source, 8) == GSHMEMX_ERROR_INVALID_VALUE);
  // dest inside the second member's block of source.
  CHECK(gshmem_int_min_reducescatter(GSHMEM_TEAM_WORLD, source + 8, source, 8) == GSHMEMX_ERROR_INVALID_VALUE);
  CHECK(gshmemx_int_prod_reducescatter_on_stream(GSHMEM_TEAM_WORLD, nullptr, source, 8, 0) ==
        GSHMEMX_ERROR_INVALID_VALUE);
  CHECK(gshmemx_int_sum_reducescatter_on_stream(GSHMEM_TEAM_WORLD, dest, source, SIZE_MAX / 2, 0) ==
        GSHMEMX_ERROR_INVALID_VALUE);
  CHECK(gshmemx_get_last_error() == GSHMEMX_ERROR_INVALID_VALUE);
  CHECK(gshmem_uint_xor_reducescatter(GSHMEM_TEAM_WORLD, udest, usource, 0) == 0);  // nothing to do
  // The device forms refuse the same (a diagnostic line each, -1).
  managed_ints rc(1);
  GSHMEM_TEST_CUDA(launch_reduction_int32(GSHMEM_TEAM_INVALID, op_xor, kind_reduce, form_thread, (int32_t *)dest,
                                          (int32_t *)source, 8, rc.p));
  GSHMEM_TEST_CUDA(cudaDeviceSynchronize());
  CHECK(rc.p[0] == -1);
  GSHMEM_TEST_CUDA(launch_reduction_int32(GSHMEM_TEAM_WORLD, op_xor, kind_reducescatter, form_block,
                                          (int32_t *)source, (int32_t *)source, 8, rc.p));
  GSHMEM_TEST_CUDA(cudaDeviceSynchronize());
  CHECK(rc.p[0] == -1);
  GSHMEM_TEST_CUDA(launch_reduction_int(GSHMEM_TEAM_WORLD, op_sum, kind_reducescatter, form_warp, dest, source,
                                        SIZE_MAX / 2, rc.p));
  GSHMEM_TEST_CUDA(cudaDeviceSynchronize());
  CHECK(rc.p[0] == -1);
  cudaFree(local);
  gshmem_free(udest);
  gshmem_free(usource);
  gshmem_free(dest);
  gshmem_free(source);
}
