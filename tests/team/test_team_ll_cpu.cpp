// CPU tests of the LL collectives' pure parts (<gshmem/detail/team_ll.h>):
// the threshold, the ring plan (start, wrap, zeroing, cycles), the flag and
// word packing, and the payload packing of every element type of the table,
// half and bfloat16 included, at odd sizes and offsets.
#include <gshmem/gshmemx.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "catch.hpp"

namespace gd = gshmem::detail;

TEST_CASE("LL threshold", "[team][ll]") {
  CHECK_FALSE(gd::ll_fits(gd::ll_broadcast, 0, 2));
  CHECK(gd::ll_fits(gd::ll_broadcast, 1, 2));
  CHECK(gd::ll_fits(gd::ll_broadcast, gd::kLLMaxCallLines * 4ull, 4));
  CHECK_FALSE(gd::ll_fits(gd::ll_broadcast, gd::kLLMaxCallLines * 4ull + 1, 4));
  // fcollect and alltoall take a block per member.
  CHECK(gd::ll_call_lines(gd::ll_fcollect, 64, 4) == 64);
  CHECK(gd::ll_call_lines(gd::ll_alltoall, 5, 3) == 6);
  CHECK(gd::kLLMaxCallLines * gd::kLLPayloadBytes == 8192);  // 8 KiB of payload a call
  CHECK(gd::ll_fits(gd::ll_fcollect, 2048, 4));
  CHECK_FALSE(gd::ll_fits(gd::ll_fcollect, 2049, 4));
  CHECK(gd::ll_fits(gd::ll_alltoall, 4096, 2));
  CHECK_FALSE(gd::ll_fits(gd::ll_alltoall, 4097, 2));
  CHECK_FALSE(gd::ll_fits(gd::ll_alltoall, 1ull << 40, 2));  // no overflow into "fits"
  CHECK(gd::kLLMaxCallLines * 2 == gd::kLLRingLines);
}

TEST_CASE("LL choice: a one-thread call only up to the thread bytes, a group's up to ll_fits", "[team][ll]") {
  // Bytes a call carries: blocks rounded up to whole pairs (8 bytes).
  CHECK(gd::ll_call_bytes(gd::ll_broadcast, 5, 4) == 8);
  CHECK(gd::ll_call_bytes(gd::ll_fcollect, 64, 4) == 256);
  CHECK(gd::ll_call_bytes(gd::ll_alltoall, 100, 2) == 208);
  // A one-thread call's cost a member: the block, twice for fcollect/alltoall.
  CHECK(gd::ll_thread_cost(gd::ll_broadcast, 5) == 8);
  CHECK(gd::ll_thread_cost(gd::ll_fcollect, 100) == 208);
  CHECK(gd::ll_thread_cost(gd::ll_alltoall, 128) == 256);
  // A group: the thread bytes do not count.
  CHECK(gd::ll_chooses(gd::ll_fcollect, 2048, 4, false, 0));
  CHECK_FALSE(gd::ll_chooses(gd::ll_fcollect, 2049, 4, false, 1ull << 40));
  // One thread: at most thread_bytes, whatever the members, never past ll_fits.
  CHECK(gd::ll_chooses(gd::ll_broadcast, 256, 4, true, 256));
  CHECK_FALSE(gd::ll_chooses(gd::ll_broadcast, 257, 4, true, 256));  // 264 bytes of lines
  CHECK(gd::ll_chooses(gd::ll_fcollect, 128, 2, true, 256));
  CHECK(gd::ll_chooses(gd::ll_fcollect, 128, 4, true, 256));
  CHECK_FALSE(gd::ll_chooses(gd::ll_fcollect, 129, 4, true, 256));
  CHECK_FALSE(gd::ll_chooses(gd::ll_alltoall, 8, 2, true, 0));  // 0: one thread never
  CHECK_FALSE(gd::ll_chooses(gd::ll_fcollect, 2049, 4, true, 1ull << 40));
  CHECK_FALSE(gd::ll_chooses(gd::ll_broadcast, 0, 2, true, 256));  // empty: the two-sync form
  // Reductions: one thread counts 1 byte an element, whatever its size
  // (ll_reduce_thread_element_bytes).
  CHECK(gd::ll_reduce_thread_element_bytes(1) == 1);
  CHECK(gd::ll_reduce_thread_element_bytes(2) == 1);
  CHECK(gd::ll_reduce_thread_element_bytes(4) == 1);
  CHECK(gd::ll_reduce_thread_element_bytes(8) == 1);
  CHECK(gd::ll_reduce_chooses(512, 1, 4, false, 0));
  CHECK(gd::ll_reduce_chooses(128, 8, 8, false, 0));                 // 8 KiB of payload: the bound
  CHECK_FALSE(gd::ll_reduce_chooses(129, 8, 8, false, 1ull << 40));  // past ll_fits
  CHECK(gd::ll_reduce_chooses(256, 4, 2, true, 256));   // 1 KiB of int32
  CHECK_FALSE(gd::ll_reduce_chooses(257, 4, 2, true, 256));
  CHECK(gd::ll_reduce_chooses(8, 4, 2, true, 8));
  CHECK_FALSE(gd::ll_reduce_chooses(9, 4, 2, true, 8));
  CHECK(gd::ll_reduce_chooses(256, 1, 2, true, 256));
  CHECK_FALSE(gd::ll_reduce_chooses(257, 2, 2, true, 256));
  CHECK(gd::ll_reduce_chooses(8, 8, 4, true, 256));
  CHECK(gd::ll_reduce_chooses(128, 8, 2, true, 256));   // 1 KiB of int64
  CHECK(gd::ll_reduce_chooses(64, 8, 4, true, 256));
  CHECK(gd::ll_reduce_chooses(128, 8, 4, true, 256));  // 1 KiB of int64 at 4 members
  CHECK(gd::ll_reduce_chooses(256, 8, 2, true, 256));  // 2 KiB of int64
  CHECK(gd::ll_reduce_chooses(256, 8, 4, true, 256));  // 2 KiB of int64 at 4 members: 2048 lines, the call bound
  CHECK_FALSE(gd::ll_reduce_chooses(256, 8, 8, true, 256));  // at 8 members past ll_fits
  CHECK_FALSE(gd::ll_reduce_chooses(257, 8, 4, true, 1ull << 40));  // 8224 bytes of payload: past ll_fits
  CHECK_FALSE(gd::ll_reduce_chooses(257, 8, 2, true, 256));
  CHECK_FALSE(gd::ll_reduce_chooses(16, 8, 2, true, 0));  // 0: one thread never
  CHECK_FALSE(gd::ll_reduce_chooses(1ull << 40, 1, 2, false, 0));  // no overflow into "fits"
}

TEST_CASE("LL ring plan: first call zeroes, wraps sync, cycles never 0 mod 4096", "[team][ll]") {
  // A new team (cycle 0): sync, zero, sync; cycle 1 from line 0.
  gd::ll_step st = gd::ll_plan(0, 0, 10);
  CHECK(st.wrap);
  CHECK(st.zero);
  CHECK(st.start == 0);
  CHECK(st.pos == 10);
  CHECK(st.cycle == 1);
  // Calls that fit take the next lines, no sync.
  st = gd::ll_plan(st.pos, st.cycle, 20);
  CHECK_FALSE(st.wrap);
  CHECK(st.start == 10);
  CHECK(st.pos == 30);
  // Exactly to the end still fits.
  st = gd::ll_plan(gd::kLLRingLines - 8, 5, 8);
  CHECK_FALSE(st.wrap);
  CHECK(st.pos == gd::kLLRingLines);
  // One line past the end wraps: sync, next cycle, line 0, no zeroing.
  st = gd::ll_plan(gd::kLLRingLines - 7, 5, 8);
  CHECK(st.wrap);
  CHECK_FALSE(st.zero);
  CHECK(st.start == 0);
  CHECK(st.cycle == 6);
  // The wrap into a cycle that is 0 mod 4096 zeroes and skips it.
  st = gd::ll_plan(gd::kLLRingLines, gd::kLLCycleMod - 1, 1);
  CHECK(st.wrap);
  CHECK(st.zero);
  CHECK(st.cycle == gd::kLLCycleMod + 1);
  CHECK(st.cycle % gd::kLLCycleMod == 1);

  // A long random-sized run: lines of one cycle are disjoint and in the
  // ring; a line is never reused in a cycle; no cycle is 0 mod 4096; a
  // zeroing comes at least every 4095 cycles.
  unsigned long long pos = 0, cycle = 0, last_zero_cycle = 0, zeroings = 0, wraps = 0;
  std::vector<unsigned long long> written(gd::kLLRingLines, ~0ull);
  std::uint32_t x = 12345;
  bool stale_alias = false;
  for (int call = 0; call < 200000; ++call) {
    x = x * 1664525u + 1013904223u;
    const unsigned long long lines = 1 + (x >> 8) % gd::kLLMaxCallLines;
    const gd::ll_step s = gd::ll_plan(pos, cycle, lines);
    REQUIRE(s.cycle % gd::kLLCycleMod != 0);
    REQUIRE(s.start + lines <= gd::kLLRingLines);
    REQUIRE(s.pos == s.start + lines);
    if (s.wrap) ++wraps;
    if (s.zero) {
      REQUIRE(s.wrap);
      ++zeroings;
      written.assign(gd::kLLRingLines, ~0ull);
      last_zero_cycle = s.cycle;
    }
    REQUIRE(s.cycle - last_zero_cycle < gd::kLLCycleMod - 1);
    if (!s.wrap) {
      REQUIRE(s.cycle == cycle);
      REQUIRE(s.start == pos);  // a cycle's calls take disjoint, growing ranges
    }
    for (unsigned long long i = s.start; i < s.pos; ++i) {
      // A stale line (an earlier cycle's) carries another cycle field.
      if (written[i] != ~0ull && written[i] % gd::kLLCycleMod == s.cycle % gd::kLLCycleMod) stale_alias = true;
      written[i] = s.cycle;
    }
    pos = s.pos;
    cycle = s.cycle;
  }
  CHECK_FALSE(stale_alias);
  CHECK(wraps > 2 * gd::kLLCycleMod);  // the run crossed several zeroing periods
  CHECK(zeroings >= 3);
}

TEST_CASE("LL flag and word", "[team][ll]") {
  const unsigned sig = gd::broadcast_signature(3, 1000);
  const unsigned f = gd::ll_flag(7, sig);
  CHECK(gd::ll_flag_cycle(f) == 7);
  CHECK(gd::ll_flag_signature(f) == sig);
  CHECK(gd::ll_flag(7 + gd::kLLCycleMod, sig) == f);
  CHECK(gd::ll_flag(1, gd::fcollect_signature(4)) != 0);
  const unsigned long long w = gd::ll_word(0xdeadbeefu, f);
  CHECK(gd::ll_word_flag(w) == f);
  CHECK(gd::ll_word_data(w) == 0xdeadbeefu);
  // Another collective, root or size shows in the flag's signature.
  CHECK(gd::ll_flag(7, gd::broadcast_signature(2, 1000)) != f);
  CHECK(gd::ll_flag(7, gd::broadcast_signature(3, 1001)) != f);
  CHECK(gd::ll_flag(7, gd::fcollect_signature(1000)) != f);
  // A zeroed line matches no flag of a used cycle.
  CHECK(gd::ll_flag_cycle(gd::ll_word_flag(0)) == 0);
}

namespace {
// Packs n elements of T at byte offset `off` through the LL lines and
// unpacks them at another offset; the bytes must come back exactly, and
// the bytes around the destination must stay untouched.
template <class T>
void roundtrip(size_t n, size_t src_off, size_t dst_off) {
  const size_t bytes = n * sizeof(T);
  std::vector<unsigned char> src(bytes + 16), dst(bytes + 16, 0xA5);
  for (size_t i = 0; i < src.size(); ++i) src[i] = (unsigned char)(i * 37 + 11 + n);
  unsigned char* s = src.data() + src_off;
  unsigned char* d = dst.data() + dst_off;
  const unsigned long long lines = gd::ll_lines(bytes);
  // Out of order, as a group's ranks would.
  for (unsigned long long i = lines; i-- > 0;) {
    const unsigned long long w = gd::ll_word(gd::ll_pack(s, bytes, i), gd::ll_flag(1, 1));
    gd::ll_unpack(d, bytes, i, gd::ll_word_data(w));
  }
  INFO("T size " << sizeof(T) << ", n " << n << ", offsets " << src_off << "/" << dst_off);
  CHECK(std::memcmp(s, d, bytes) == 0);
  for (size_t i = 0; i < dst_off; ++i) CHECK(dst[i] == 0xA5);
  for (size_t i = dst_off + bytes; i < dst.size(); ++i) CHECK(dst[i] == 0xA5);
  // The last line's padding is 0.
  if (bytes % 4) CHECK(gd::ll_pack(s, bytes, lines - 1) >> (8 * (bytes % 4)) == 0u);
  // Lines go in pairs (one 16-byte access): a pair's payload is its two
  // lines', the low line first, whatever the alignment; the pairs
  // round-trip the bytes too.
  CHECK(lines % 2 == 0);
  CHECK(lines == 2 * gd::ll_pairs(bytes));
  std::vector<unsigned char> dst2(bytes + 16, 0xA5);
  unsigned char* d2 = dst2.data() + dst_off;
  for (unsigned long long p = lines / 2; p-- > 0;) {
    const unsigned long long v = gd::ll_pack_pair(s, bytes, p);
    CHECK(v == ((unsigned long long)gd::ll_pack(s, bytes, 2 * p) |
                (unsigned long long)gd::ll_pack(s, bytes, 2 * p + 1) << 32));
    gd::ll_unpack_pair(d2, bytes, p, v);
  }
  CHECK(std::memcmp(s, d2, bytes) == 0);
  for (size_t i = 0; i < dst_off; ++i) CHECK(dst2[i] == 0xA5);
  for (size_t i = dst_off + bytes; i < dst2.size(); ++i) CHECK(dst2[i] == 0xA5);
}
template <class T>
void roundtrips() {
  for (size_t n : {1, 2, 3, 5, 7, 64, 255, 511})
    for (size_t so : {size_t{0}, sizeof(T), size_t{1}, size_t{3}})
      for (size_t dof : {size_t{0}, size_t{2}, size_t{5}}) roundtrip<T>(n, so, dof);
}
}  // namespace

TEST_CASE("LL payload packing of every type, odd sizes and offsets", "[team][ll]") {
  // The type table, half and bfloat16 included.
#define GSHMEMI_TEST_LL_TYPE(NAME, TYPE) roundtrips<TYPE>();
  GSHMEM_FOR_EACH_RMA_TYPE(GSHMEMI_TEST_LL_TYPE)
#undef GSHMEMI_TEST_LL_TYPE
}

// The one-thread fold may take a member's own elements first only where no
// order of the operands changes the bits (ll_fold_own_first); each "no" has
// a counter-example here, each "yes" a check of the arithmetic it rests on.
TEST_CASE("LL one-thread fold: own elements first only where the order cannot change the bits", "[team][ll]") {
  using gd::ll_fold_own_first;
  STATIC_REQUIRE(ll_fold_own_first<gd::reduce_sum, int>(4));
  STATIC_REQUIRE(ll_fold_own_first<gd::reduce_max, long long>(8));
  STATIC_REQUIRE(ll_fold_own_first<gd::reduce_xor, unsigned char>(3));
  STATIC_REQUIRE(ll_fold_own_first<gd::reduce_sum, double>(2));
  STATIC_REQUIRE(ll_fold_own_first<gd::reduce_prod, float>(2));
  STATIC_REQUIRE_FALSE(ll_fold_own_first<gd::reduce_sum, double>(3));
  STATIC_REQUIRE_FALSE(ll_fold_own_first<gd::reduce_max, double>(2));
  STATIC_REQUIRE_FALSE(ll_fold_own_first<gd::reduce_min, float>(2));

  // Unsigned integers wrap: any order, any grouping, the same bits.
  const unsigned a = 0xffffffffu, b = 5, c = 9;
  CHECK(gd::reduce_sum::apply(gd::reduce_sum::apply(b, a), c) ==
        gd::reduce_sum::apply(gd::reduce_sum::apply(a, c), b));
  // Two floating operands commute exactly under + and *.
  const double x = 0.1, y = 1e-17, z = -0.1;
  CHECK(gd::reduce_sum::apply(x, y) == gd::reduce_sum::apply(y, x));
  CHECK(gd::reduce_prod::apply(x, 3.0) == gd::reduce_prod::apply(3.0, x));
  // Three do not associate: why the own-first order needs two members.
  CHECK(gd::reduce_sum::apply(gd::reduce_sum::apply(x, z), y) !=
        gd::reduce_sum::apply(gd::reduce_sum::apply(x, y), z));
  // max and min compare with <: -0 and +0 come out in the operands' order.
  const double pz = 0.0, nz = -0.0;
  CHECK(std::signbit(gd::reduce_max::apply(nz, pz)) != std::signbit(gd::reduce_max::apply(pz, nz)));
  CHECK(std::signbit(gd::reduce_min::apply(nz, pz)) != std::signbit(gd::reduce_min::apply(pz, nz)));
}
