// The comparison -> stream-memop mapping, checked against the true comparison.
//
// A mapping is correct iff the memop condition (simulated as the CUDA docs
// define it) and the comparison agree on every probe value. For 8- and 10-bit
// words the probes are every value and the check is also one of optimality:
// where the mapping says "kernel", no memop condition with any operand
// matches the comparison exactly.
#include <cstdint>
#include <limits>
#include <random>
#include <set>
#include <type_traits>
#include <vector>

#include "catch.hpp"
#include "stream_mapping.h"

using namespace gshmemi::stream;

namespace {

const int kCmps[] = {GSHMEM_CMP_EQ, GSHMEM_CMP_NE, GSHMEM_CMP_GT, GSHMEM_CMP_GE, GSHMEM_CMP_LT, GSHMEM_CMP_LE};
const MemopCondition kConditions[] = {MemopCondition::geq_cyclic, MemopCondition::eq, MemopCondition::and_nonzero,
                                      MemopCondition::nor_nonzero};

// Value of a w-bit pattern under the word's signedness.
std::int64_t as_value(std::uint64_t bits, unsigned w, bool is_signed) {
  if (!is_signed || w == 64) return static_cast<std::int64_t>(bits);
  const std::uint64_t sign = std::uint64_t(1) << (w - 1);
  return (bits & sign) ? static_cast<std::int64_t>(bits | ~width_mask(w)) : static_cast<std::int64_t>(bits);
}

bool compare_bits(int cmp, std::uint64_t x, std::uint64_t v, unsigned w, bool is_signed) {
  if (is_signed) return compare_values<std::int64_t>(cmp, as_value(x, w, true), as_value(v, w, true));
  return compare_values<std::uint64_t>(cmp, x, v);
}

bool plan_holds(const WaitMapping &m, std::uint64_t x) {
  switch (m.plan) {
    case WaitPlan::memop: return memop_condition_holds(m.condition, m.width_bits, m.operand, x);
    case WaitPlan::no_wait: return true;
    case WaitPlan::never_true: return false;
    default: return false;
  }
}

// Edge values of a type and their neighbours, powers of two and random values.
template <class T>
std::vector<T> probes_of() {
  using L = std::numeric_limits<T>;
  std::set<T> s;
  const T base[] = {T(0), T(1), T(2), T(3), L::max(), T(L::max() - 1), L::min(), T(L::min() + 1)};
  for (T b : base) s.insert(b);
  if (std::is_signed<T>::value) { s.insert(T(-1)); s.insert(T(-2)); }
  using U = std::make_unsigned_t<T>;
  for (unsigned k = 0; k < sizeof(T) * 8; ++k) {
    const U p = U(U(1) << k);
    s.insert(T(p)); s.insert(T(U(p - 1))); s.insert(T(U(p + 1)));
    s.insert(T(U(~p))); s.insert(T(U(~U(p - 1))));
  }
  std::mt19937_64 rng(12345);
  for (int i = 0; i < 64; ++i) s.insert(T(U(rng())));
  return std::vector<T>(s.begin(), s.end());
}

template <class T>
std::uint64_t bits_of(T v) { return static_cast<std::uint64_t>(static_cast<std::make_unsigned_t<T>>(v)); }

template <class T>
void check_type_mapping(MemopSupport support) {
  const std::vector<T> probes = probes_of<T>();
  size_t memops = 0;
  for (int cmp : kCmps) {
    for (T v : probes) {
      const WaitMapping m = map_wait(cmp, sizeof(T), std::is_signed<T>::value, bits_of(v), support);
      REQUIRE(m.plan != WaitPlan::invalid_cmp);
      if (m.plan == WaitPlan::memop) {
        ++memops;
        REQUIRE(sizeof(T) != 2);
        REQUIRE(m.width_bits == sizeof(T) * 8);
        REQUIRE(((m.width_bits == 32 && support.wait32) || (m.width_bits == 64 && support.wait64)));
        if (m.condition == MemopCondition::nor_nonzero) REQUIRE(support.nor);
      }
      if (m.plan == WaitPlan::kernel) continue;
      for (T x : probes) {
        INFO("cmp " << cmp << " value " << +v << " x " << +x << " plan " << int(m.plan) << " cond "
                    << unsigned(m.condition) << " operand " << m.operand);
        REQUIRE(plan_holds(m, bits_of(x)) == compare_values<T>(cmp, x, v));
      }
    }
  }
  if (sizeof(T) != 2 && support.wait32 && support.wait64) REQUIRE(memops > 0);
}

// Every memop condition with every operand, compared with the comparison over all x.
bool some_memop_matches(int cmp, unsigned w, bool is_signed, std::uint64_t v, bool allow_nor) {
  const std::uint64_t n = std::uint64_t(1) << w;
  for (MemopCondition c : kConditions) {
    if (c == MemopCondition::nor_nonzero && !allow_nor) continue;
    for (std::uint64_t op = 0; op < n; ++op) {
      bool all_agree = true;
      for (std::uint64_t x = 0; x < n && all_agree; ++x)
        all_agree = memop_condition_holds(c, w, op, x) == compare_bits(cmp, x, v, w, is_signed);
      if (all_agree) return true;
    }
  }
  return false;
}

void check_small_width_exhaustively(unsigned w, bool check_optimal) {
  const std::uint64_t n = std::uint64_t(1) << w;
  for (bool allow_nor : {true, false})
    for (bool is_signed : {false, true})
      for (int cmp : kCmps)
        for (std::uint64_t v = 0; v < n; ++v) {
          const WaitMapping m = map_bits(cmp, w, is_signed, v, allow_nor);
          INFO("w " << w << " signed " << is_signed << " cmp " << cmp << " v " << v << " nor " << allow_nor);
          if (m.plan == WaitPlan::kernel) {
            if (check_optimal) REQUIRE_FALSE(some_memop_matches(cmp, w, is_signed, v, allow_nor));
            continue;
          }
          bool any_true = false, any_false = false;
          for (std::uint64_t x = 0; x < n; ++x) {
            const bool truth = compare_bits(cmp, x, v, w, is_signed);
            any_true |= truth; any_false |= !truth;
            REQUIRE(plan_holds(m, x) == truth);
          }
          // no_wait and never_true only where the comparison really is constant.
          if (m.plan == WaitPlan::no_wait) REQUIRE_FALSE(any_false);
          if (m.plan == WaitPlan::never_true) REQUIRE_FALSE(any_true);
          if (m.plan == WaitPlan::memop) REQUIRE((any_true && any_false));
        }
}

}  // namespace

TEST_CASE("memop conditions follow the CUDA definitions", "[stream][mapping]") {
  // GEQ is cyclic: (int32_t)(x - m) >= 0, so the naive "unsigned GE m" mapping fails here.
  CHECK_FALSE(memop_condition_holds(MemopCondition::geq_cyclic, 32, 0, 0x80000000u));
  CHECK(memop_condition_holds(MemopCondition::geq_cyclic, 32, 0xFFFFFFF0u, 0x5u));  // wrapped: "5 >= 0xFFFFFFF0"
  CHECK(memop_condition_holds(MemopCondition::geq_cyclic, 64, 7, 7));
  CHECK_FALSE(memop_condition_holds(MemopCondition::geq_cyclic, 64, 7, 6));
  CHECK(memop_condition_holds(MemopCondition::and_nonzero, 32, 0xF0, 0x10));
  CHECK_FALSE(memop_condition_holds(MemopCondition::and_nonzero, 32, 0xF0, 0x0F));
  // NOR: ~(x | m) != 0, i.e. some bit clear in both.
  CHECK(memop_condition_holds(MemopCondition::nor_nonzero, 32, 0, 0xFFFFFFFEu));
  CHECK_FALSE(memop_condition_holds(MemopCondition::nor_nonzero, 32, 0, 0xFFFFFFFFu));
  CHECK_FALSE(memop_condition_holds(MemopCondition::nor_nonzero, 32, 0x7FFFFFFFu, 0x80000000u));
}

TEST_CASE("mapping is exact and minimal on small words (every value, every operand)", "[stream][mapping]") {
  check_small_width_exhaustively(6, true);
  check_small_width_exhaustively(8, false);
}

TEST_CASE("mapping agrees with the comparison for every sync type", "[stream][mapping]") {
  MemopSupport full, no_nor, no_64, none;
  no_nor.nor = false;
  no_64.wait64 = false;
  none.wait32 = none.wait64 = none.nor = false;
  for (MemopSupport s : {full, no_nor, no_64, none}) {
#define GSHMEMI_TEST_TYPE(TYPENAME, TYPE) \
  { INFO("type " #TYPENAME); check_type_mapping<TYPE>(s); }
    GSHMEM_FOR_EACH_SYNC_TYPE(GSHMEMI_TEST_TYPE)
#undef GSHMEMI_TEST_TYPE
  }
}

TEST_CASE("mapping table: the documented cases", "[stream][mapping]") {
  const auto u32 = [](int cmp, std::uint32_t v) { return map_wait(cmp, 4, false, v); };
  const auto s32 = [](int cmp, std::int32_t v) { return map_wait(cmp, 4, true, std::uint32_t(v)); };
  const auto u64 = [](int cmp, std::uint64_t v) { return map_wait(cmp, 8, false, v); };
  const auto s64 = [](int cmp, std::int64_t v) { return map_wait(cmp, 8, true, std::uint64_t(v)); };

  // EQ maps for any value, signed or not.
  for (std::int64_t v : {std::int64_t(0), std::int64_t(-1), std::numeric_limits<std::int64_t>::min()}) {
    const WaitMapping m = s64(GSHMEM_CMP_EQ, v);
    CHECK(m.plan == WaitPlan::memop);
    CHECK(m.condition == MemopCondition::eq);
    CHECK(m.operand == std::uint64_t(v));
  }
  // The signal word (uint64, what signal_wait_until_on_stream waits on): EQ
  // is one 64-bit EQ memop for every value, the ping-pong's values included.
  for (std::uint64_t v : {std::uint64_t(0), std::uint64_t(1), std::uint64_t(4999), ~std::uint64_t(0) - 1}) {
    const WaitMapping m = u64(GSHMEM_CMP_EQ, v);
    CHECK(m.plan == WaitPlan::memop);
    CHECK(m.width_bits == 64);
    CHECK(m.condition == MemopCondition::eq);
    CHECK(m.operand == v);
  }
  // NE: only 0 (AND all-ones) and all-ones (NOR 0).
  CHECK(u32(GSHMEM_CMP_NE, 0).condition == MemopCondition::and_nonzero);
  CHECK(u32(GSHMEM_CMP_NE, 0).operand == 0xFFFFFFFFu);
  CHECK(s32(GSHMEM_CMP_NE, -1).condition == MemopCondition::nor_nonzero);
  CHECK(s32(GSHMEM_CMP_NE, -1).operand == 0);
  CHECK(u32(GSHMEM_CMP_NE, 5).plan == WaitPlan::kernel);
  // Unsigned GE: the cyclic GEQ is exact only at 2^(W-1); powers of two via AND.
  CHECK(u64(GSHMEM_CMP_GE, 0).plan == WaitPlan::no_wait);
  CHECK(u64(GSHMEM_CMP_GE, 5).plan == WaitPlan::kernel);
  CHECK(u64(GSHMEM_CMP_GE, 1ull << 63).condition == MemopCondition::geq_cyclic);
  CHECK(u64(GSHMEM_CMP_GE, 1ull << 20).condition == MemopCondition::and_nonzero);
  CHECK(u64(GSHMEM_CMP_GE, 1ull << 20).operand == ~((1ull << 20) - 1));
  CHECK(u64(GSHMEM_CMP_GE, ~0ull).condition == MemopCondition::eq);
  // GT v as GE v+1, and never satisfiable at MAX.
  CHECK(u32(GSHMEM_CMP_GT, 0).condition == MemopCondition::and_nonzero);  // x != 0
  CHECK(u32(GSHMEM_CMP_GT, 0x7FFFFFFFu).condition == MemopCondition::geq_cyclic);
  CHECK(u32(GSHMEM_CMP_GT, 0xFFFFFFFFu).plan == WaitPlan::never_true);
  CHECK(s32(GSHMEM_CMP_GT, std::numeric_limits<std::int32_t>::max()).plan == WaitPlan::never_true);
  CHECK(u32(GSHMEM_CMP_LT, 0).plan == WaitPlan::never_true);
  // Signed GE: exact for 0 (GEQ 0 is "sign bit clear"), MIN (always) and MAX (EQ).
  CHECK(s32(GSHMEM_CMP_GE, 0).condition == MemopCondition::geq_cyclic);
  CHECK(s32(GSHMEM_CMP_GE, 0).operand == 0);
  CHECK(s32(GSHMEM_CMP_GE, 1).plan == WaitPlan::kernel);
  CHECK(s32(GSHMEM_CMP_GE, std::numeric_limits<std::int32_t>::min()).plan == WaitPlan::no_wait);
  CHECK(s32(GSHMEM_CMP_LT, 0).condition == MemopCondition::geq_cyclic);  // sign bit set
  CHECK(s32(GSHMEM_CMP_LT, 0).operand == 0x80000000u);
  // 16-bit objects never map, and neither does anything when memops are missing.
  CHECK(map_wait(GSHMEM_CMP_EQ, 2, false, 3).plan == WaitPlan::kernel);
  MemopSupport none;
  none.wait32 = none.wait64 = false;
  CHECK(map_wait(GSHMEM_CMP_EQ, 8, false, 3, none).plan == WaitPlan::kernel);
  CHECK(map_wait(99, 8, false, 3).plan == WaitPlan::invalid_cmp);
  CHECK(map_wait(-1, 4, true, 3).plan == WaitPlan::invalid_cmp);
}

TEST_CASE("GSHMEM_STREAM_OPS: the three modes, nothing else", "[stream][mapping]") {
  StreamOps ops = StreamOps::memops;
  CHECK(parse_stream_ops("auto", &ops));
  CHECK(ops == StreamOps::automatic);
  CHECK(parse_stream_ops("kernels", &ops));
  CHECK(ops == StreamOps::kernels);
  CHECK(parse_stream_ops("memops", &ops));
  CHECK(ops == StreamOps::memops);
  ops = StreamOps::kernels;
  for (const char *bad : {"", "Auto", "memop", "kernel", "memops ", "autox", "au"}) {
    CHECK_FALSE(parse_stream_ops(bad, &ops));
    CHECK(ops == StreamOps::kernels);  // untouched on refusal
  }
  CHECK_FALSE(parse_stream_ops(nullptr, &ops));
}
