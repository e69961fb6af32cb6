// GPU stress test (2 and 4 PEs) of the LL collectives (<gshmem/detail/team_ll.h>,
// taken by default; tests/team/CMakeLists.txt sets GSHMEM_COLLECTIVE_LL for each variant):
// broadcast, fcollect and alltoall of bytes, and reduce and reducescatter
// of eight type x operator cases, thread, warp and block forms, odd sizes
// and offsets, many calls back to back on one team and on several teams,
// sizes on both sides of the LL threshold, more than 4095 ring cycles (the
// periodic zeroing), and a team slot reused after a destroy (stale lines of
// the old team in the ring). Built with GSHMEM_TEST_LL_EVERY_TYPE (the
// opt-in team_ll_types_gpu tests), also every type of the table through
// the typed broadcast, fcollect and alltoall (half and bfloat16 included).
#include <gshmem/gshmemx.h>

#include <gshmem/detail/team_collectives.h>
#include <gshmem/detail/team_ll.h>
#include <gshmem/detail/team_sync.h>

#include <cuda_runtime.h>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <string>
#include <vector>

#include "catch.hpp"
#include "gpu_test_support.h"
#include "team_ll_gpu.h"

namespace {

using gshmem_test::runtime_scope;
using gshmem_test::sym_zeroed;

constexpr size_t kBufferBytes = 256 << 10;
// Bytes a block: both sides of the LL bounds (8 KiB a call: a broadcast's
// block, or n blocks of fcollect and alltoall; at 2 PEs 4 KiB a block).
const size_t kNelems[] = {1,   2,    3,    5,    7,    8,    13,   16,   31,   33,   64,   100,  127,  128,
                          255, 257,  511,  513,  1000, 1024, 2049, 4096, 4097, 4099, 8191, 8192, 8193};

struct managed_result {
  ll_stress_result *r = nullptr;
  managed_result() {
    GSHMEM_TEST_CUDA(cudaMallocManaged(&r, sizeof *r));
    std::memset(r, 0, sizeof *r);
  }
  ~managed_result() { cudaFree(r); }
};

ll_stress_args base_args(unsigned char *src, unsigned char *dst, int calls) {
  ll_stress_args a{};
  a.calls = calls;
  a.only_kind = -1;
  a.only_form = -1;
  a.n_nelems = (int)(sizeof kNelems / sizeof kNelems[0]);
  for (int i = 0; i < a.n_nelems; ++i) a.nelems[i] = kNelems[i];
  a.src = src;
  a.dst = dst;
  return a;
}

void check(const ll_stress_result &r, const char *what) {
  INFO(what << ", PE " << gshmem_my_pe() << ": " << r.errors << " wrong bytes; first at call " << r.call << ", kind "
            << r.kind << ", offset " << (long long)r.offset << ", expected " << r.expected << ", got " << r.got);
  CHECK(r.errors == 0);
}

template <class Launch>
void run(Launch launch, const ll_stress_args &a, const char *what) {
  managed_result res;
  gshmem_barrier_all();
  GSHMEM_TEST_CUDA(launch(a, res.r, (cudaStream_t)0));
  GSHMEM_TEST_CUDA(cudaDeviceSynchronize());
  CHECK(res.r->calls_done == (unsigned long long)a.calls);
  check(*res.r, what);
  gshmem_barrier_all();
}

// This PE's LL ring cycle of team slot `slot` (0 until an LL call ran on it).
unsigned long long ll_cycle_of(int slot) {
  const char *heap = gshmemi_state().heap_base;
  const gshmem::detail::team_area *area = gshmem::detail::team_area_at(const_cast<char *>(heap), slot);
  unsigned long long cycle = 0;
  GSHMEM_TEST_CUDA(cudaMemcpy(&cycle, &area->ll_cycle, sizeof cycle, cudaMemcpyDeviceToHost));
  return cycle;
}

// The LL path is the default; GSHMEM_COLLECTIVE_LL=0 turns it off.
bool ll_requested() {
  const char *v = std::getenv("GSHMEM_COLLECTIVE_LL");
  return !v || std::string(v) != "0";
}

// The eight reduction cases of the stress kernels, one run each, over
// `nelems` and `teams` (a's other settings as given).
void run_every_reduce_case(ll_stress_args a, std::initializer_list<size_t> nelems,
                           std::initializer_list<gshmem_team_t> teams) {
  REQUIRE(nelems.size() <= sizeof a.nelems / sizeof a.nelems[0]);
  REQUIRE(teams.size() <= sizeof a.teams / sizeof a.teams[0]);
  a.n_nelems = 0;
  for (size_t n : nelems) a.nelems[a.n_nelems++] = n;
  a.nteams = 0;
  for (gshmem_team_t t : teams) a.teams[a.nteams++] = t;
  int salt = 0;
#define REDUCE_CASE_RUN(NAME, OP) \
  a.salt = salt++;                \
  run(launch_ll_reduce_stress_##NAME##_##OP, a, #NAME " " #OP);
  LL_REDUCE_STRESS_CASES(REDUCE_CASE_RUN)
#undef REDUCE_CASE_RUN
}

}  // namespace

TEST_CASE("LL reductions: reduce and reducescatter, every form, in place, odd sizes, back to back on several teams",
          "[team][ll][gpu]") {
  runtime_scope rt;
  const int n = gshmem_n_pes();
  REQUIRE(n >= 2);
  unsigned char *src = sym_zeroed<unsigned char>(kBufferBytes);
  unsigned char *dst = sym_zeroed<unsigned char>(kBufferBytes);
  gshmem_team_t dup1 = GSHMEM_TEAM_INVALID, dup2 = GSHMEM_TEAM_INVALID;
  REQUIRE(gshmem_team_split_strided(GSHMEM_TEAM_WORLD, 0, 1, n, nullptr, 0, &dup1) == 0);
  REQUIRE(gshmem_team_split_strided(GSHMEM_TEAM_WORLD, 0, 1, n, nullptr, 0, &dup2) == 0);
  // Both sides of the threshold (8 KiB a call): 2 members take LL up to 4 KiB
  // a block (512 elements of 8 bytes, 1024 of 4), 4 members up to 2 KiB.
  run_every_reduce_case(base_args(src, dst, 240),
                        {1, 2, 3, 5, 7, 8, 13, 31, 33, 64, 100, 127, 128, 129, 255, 256, 300, 511, 513, 1000, 1024, 1025},
                        {GSHMEM_TEAM_WORLD, dup1, dup2});
  // The runs above took the LL path exactly when the job asked for it.
  if (ll_requested()) CHECK(ll_cycle_of(GSHMEM_TEAM_WORLD) > 0);
  else CHECK(ll_cycle_of(GSHMEM_TEAM_WORLD) == 0);
  gshmem_team_destroy(dup2);
  gshmem_team_destroy(dup1);
  gshmem_free(dst);
  gshmem_free(src);
}

// The push form of reduce and reducescatter (team_push_reduce): the sizes
// past the LL bound up to a part of the push area (24 KiB at 2 members,
// 8 KiB at 4), warp and block forms, and past that the pulling form, which
// one thread always takes. The stress kernels above over sizes on both
// sides of each bound, in every width: 3072 elements of 8 bytes fill a
// part at 2 members, 6144 of 4 bytes; 1024 and 2048 at 4 members.
TEST_CASE("Pushed reductions: sizes about the push area's bounds, every form, in place, offsets, several teams",
          "[team][ll][gpu]") {
  namespace gd = gshmem::detail;
  runtime_scope rt;
  const int n = gshmem_n_pes(), me = gshmem_my_pe();
  REQUIRE(n >= 2);
  unsigned char *src = sym_zeroed<unsigned char>(kBufferBytes);
  unsigned char *dst = sym_zeroed<unsigned char>(kBufferBytes);
  gshmem_team_t dup1 = GSHMEM_TEAM_INVALID;
  REQUIRE(gshmem_team_split_strided(GSHMEM_TEAM_WORLD, 0, 1, n, nullptr, 0, &dup1) == 0);
  static_assert(6145 * 8 * 4 + 64 <= kBufferBytes, "the largest reducescatter source of 4 members fits");
  run_every_reduce_case(base_args(src, dst, 72),
                        {600, 1000, 1023, 1024, 1025, 1500, 2047, 2048, 2049, 3071, 3072, 3073, 4095, 6143, 6145},
                        {GSHMEM_TEAM_WORLD, dup1});
  // One call, a warp on some members and a block on others (the form rule:
  // groups of any size may meet in one call): both must choose the same
  // path, LL, pushed or pulled, at every size.
  ll_stress_args mixed = base_args(src, dst, 48);
  mixed.only_form = 3;
  run_every_reduce_case(mixed, {1, 100, 385, 500, 1000, 1025, 2049, 3073, 6145}, {GSHMEM_TEAM_WORLD, dup1});

  // The push form was taken: one block sum of 1500 ints on the world team
  // (past the LL bound at 2 and 4 members, within a part) leaves every
  // other member's source in this PE's push area, in that member's part.
  REQUIRE(gd::reduce_push_fits(1500, sizeof(int), n));
  ll_stress_args one = base_args(src, dst, 1);
  one.only_kind = 0;
  one.only_form = 2;
  one.n_nelems = 1;
  one.nelems[0] = 1500;
  one.teams[0] = GSHMEM_TEAM_WORLD;
  one.nteams = 1;
  run(launch_ll_reduce_stress_int_sum, one, "one block int sum of 1500");
  const unsigned long long part_bytes = gd::team_push_part_bytes(n);
  std::vector<int> part(1500);
  for (int r = 0; r < n; ++r) {
    if (r == me) continue;
    const char *at = gd::team_push_at(const_cast<char *>(gshmemi_state().heap_base), GSHMEM_TEAM_WORLD) +
                     (size_t)gd::team_push_part(r, me, n) * part_bytes;
    GSHMEM_TEST_CUDA(cudaMemcpy(part.data(), at, part.size() * sizeof(int), cudaMemcpyDeviceToHost));
    size_t wrong = 0;
    for (size_t j = 0; j < part.size(); ++j)
      if (part[j] != ll_contribution(0, r, j)) ++wrong;
    INFO("PE " << me << ": member " << r << "'s part of the push area");
    CHECK(wrong == 0);
  }
  gshmem_team_destroy(dup1);
  gshmem_free(dst);
  gshmem_free(src);
}

TEST_CASE("LL collectives: every type and form, odd sizes and offsets, back to back on several teams",
          "[team][ll][gpu]") {
  runtime_scope rt;
  const int n = gshmem_n_pes(), me = gshmem_my_pe();
  REQUIRE(n >= 2);
  unsigned char *src = sym_zeroed<unsigned char>(kBufferBytes);
  unsigned char *dst = sym_zeroed<unsigned char>(kBufferBytes);
  gshmem_team_t dup1 = GSHMEM_TEAM_INVALID, dup2 = GSHMEM_TEAM_INVALID, tail = GSHMEM_TEAM_INVALID;
  REQUIRE(gshmem_team_split_strided(GSHMEM_TEAM_WORLD, 0, 1, n, nullptr, 0, &dup1) == 0);
  REQUIRE(gshmem_team_split_strided(GSHMEM_TEAM_WORLD, 0, 1, n, nullptr, 0, &dup2) == 0);
  REQUIRE(gshmem_team_split_strided(GSHMEM_TEAM_WORLD, 1, 1, n - 1, nullptr, 0, &tail) == 0);

  ll_stress_args a = base_args(src, dst, 0);
  a.teams[0] = GSHMEM_TEAM_WORLD;
  a.teams[1] = dup1;
  a.teams[2] = dup2;
  a.nteams = 3;

#if GSHMEM_TEST_LL_EVERY_TYPE
  SECTION("every type of the table, 90 calls each over three teams") {
    a.calls = 90;
    int salt = 0;
#define TEAM_LL_RUN(NAME, TYPE)                        \
  a.salt = salt++;                                     \
  run(launch_ll_stress_##NAME, a, "type " #NAME);
    GSHMEM_FOR_EACH_RMA_TYPE(TEAM_LL_RUN)
#undef TEAM_LL_RUN
  }
#endif
  SECTION("bytes at odd offsets: 3000 calls over three teams, then one team") {
    a.calls = 3000;
    run(launch_ll_stress_mem, a, "mem, three teams");
    a.nteams = 1;
    a.calls = 1000;
    a.salt = 5;
    run(launch_ll_stress_mem, a, "mem, world alone");
  }
  SECTION("more than 4095 ring cycles: the periodic zeroing") {
    // The largest LL broadcast takes half the ring: every second call wraps.
    a.nteams = 1;
    a.only_kind = ll_kind_broadcast;
    a.only_form = 2;
    a.n_nelems = 1;
    a.nelems[0] = gshmem::detail::kLLMaxCallLines * gshmem::detail::kLLPayloadBytes;
    a.calls = 2 * 4096 + 300;
    run(launch_ll_stress_mem, a, "mem broadcast, 8492 calls of the largest LL size");
    a.only_form = -1;
    a.only_kind = -1;
    a.n_nelems = (int)(sizeof kNelems / sizeof kNelems[0]);
    for (int i = 0; i < a.n_nelems; ++i) a.nelems[i] = kNelems[i];
    a.calls = 300;
    run(launch_ll_stress_mem, a, "mem after the zeroing");
  }
  SECTION("a team of n - 1 members, and a slot reused after a destroy") {
    a.teams[0] = tail;
    a.nteams = 1;
    a.calls = 600;
    if (me != 0) {
      managed_result res;
      GSHMEM_TEST_CUDA(launch_ll_stress_mem(a, res.r, (cudaStream_t)0));
      GSHMEM_TEST_CUDA(cudaDeviceSynchronize());
      CHECK(res.r->calls_done == 600ull);
      check(*res.r, "mem, PEs 1 .. n-1");
    }
    gshmem_barrier_all();
    // The slot's ring holds the old team's lines; the new team's first call
    // zeroes it before any line of its cycle 1.
    a.teams[0] = dup1;
    a.calls = 500;
    run(launch_ll_stress_mem, a, "mem on dup1 before the destroy");
    gshmem_team_destroy(dup1);
    gshmem_team_t again = GSHMEM_TEAM_INVALID;
    REQUIRE(gshmem_team_split_strided(GSHMEM_TEAM_WORLD, 0, 1, n, nullptr, 0, &again) == 0);
    a.teams[0] = again;
    a.salt = 11;
    run(launch_ll_stress_mem, a, "mem on a team in a reused slot");
    dup1 = again;
  }
  gshmem_team_destroy(tail);
  gshmem_team_destroy(dup2);
  gshmem_team_destroy(dup1);
  gshmem_free(dst);
  gshmem_free(src);
}
