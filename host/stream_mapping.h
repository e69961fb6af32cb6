// Which on-stream waits a single CUDA stream memory operation can express
// exactly, and which need a wait kernel.
//
// A pure function of (cmp, type width, signedness, value): no CUDA calls, so
// the CPU test suite checks it exhaustively against the true comparison.
//
// The four wait conditions of cuStreamWaitValue32/64 (CUDA driver docs), on
// the W-bit pattern x at the address and the operand m:
//   GEQ  (intW_t)(x - m) >= 0     a CYCLIC comparison: x in the half-circle
//                                  [m, m + 2^(W-1) - 1] mod 2^W. NOT unsigned
//                                  x >= m (GEQ 0 fails for x = 2^(W-1)), and
//                                  NOT signed x >= m either.
//   EQ   x == m
//   AND  (x & m) != 0
//   NOR  ~(x | m) != 0            some bit is 0 in both x and m (needs
//                                  CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_WAIT_VALUE_NOR)
//
// Method. Every comparison "x cmp v" of a W-bit integer type is satisfied by a
// contiguous interval of the type's order (NE: the complement of one point).
// Mapped onto bit patterns (signed types: two's complement), each becomes a
// circular interval [start, start + count - 1] mod 2^W, or the empty set. The
// memop conditions above are circular intervals too, for these operands:
//   EQ m           count 1, start m
//   GEQ m          count 2^(W-1), start m
//   AND ~(2^k-1)   start 2^k, ends at 2^W-1        (k = 0..W-1)
//   NOR 2^k-1      start 0, ends at 2^W-2^k-1      (k = 0..W-1)
// (AND/NOR with other operands are not intervals and never equal a
// comparison.) A comparison maps onto a memop iff the two intervals are equal;
// this is exact by construction, including at the type's extremes.
//
// Consequences worth knowing: EQ always maps; NE maps only for v = 0 (AND
// all-ones) and v = all-ones bit pattern (NOR 0); unsigned GE v maps only for
// v = 0 (no wait), a power of two (AND), or MAX (EQ); signed GE maps for 0
// (GEQ 0), MIN (no wait) and MAX (EQ). Everything else runs a wait kernel.
//
// A comparison nothing can satisfy (unsigned GT MAX, LT 0; signed GT MAX,
// LT MIN) is legal OpenSHMEM and waits forever on the device; on a stream it
// runs the wait kernel too, so GSHMEM_WAIT_TIMEOUT diagnoses it like any other
// hung wait. The host logs a warning when it is enqueued.
#pragma once

#include <gshmem/detail/sync_core.h>
#include <gshmem/types.h>

#include <cstddef>
#include <cstdint>

namespace gshmemi {
namespace stream {

// Values equal to CUstreamWaitValue_flags, so the plan is passed to the driver as is.
enum class MemopCondition : unsigned { geq_cyclic = 0x0, eq = 0x1, and_nonzero = 0x2, nor_nonzero = 0x3 };

enum class WaitPlan : int {
  memop,         // one cuStreamWaitValue32/64(condition, operand)
  no_wait,       // always true: nothing to enqueue
  kernel,        // needs a wait kernel (not expressible, or memops unsupported)
  never_true,    // no value satisfies it: a wait kernel that can only time out
  invalid_cmp,   // cmp is not a GSHMEM_CMP_* constant
};

struct MemopSupport {
  bool wait32 = true;  // cuStreamWaitValue32 usable
  bool wait64 = true;  // CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS
  bool nor = true;     // CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_WAIT_VALUE_NOR
};

struct WaitMapping {
  WaitPlan plan = WaitPlan::kernel;
  unsigned width_bits = 0;  // 32 or 64 when plan == memop
  MemopCondition condition = MemopCondition::eq;
  std::uint64_t operand = 0;  // W-bit pattern
};

// All-ones pattern of a W-bit word (W = 8..64).
constexpr std::uint64_t width_mask(unsigned width_bits) {
  return width_bits >= 64 ? ~std::uint64_t(0) : ((std::uint64_t(1) << width_bits) - 1);
}

constexpr bool is_power_of_two(std::uint64_t x) { return x != 0 && (x & (x - 1)) == 0; }

// The set of W-bit patterns satisfying a comparison: empty, or the circular
// interval starting at `start` holding `last_offset + 1` patterns.
struct BitInterval {
  bool empty = false;
  std::uint64_t start = 0;
  std::uint64_t last_offset = 0;  // count - 1; width_mask(W) means "every pattern"
};

// x cmp value, for x and value of a W-bit integer type given as bit patterns.
// cmp must be valid.
constexpr BitInterval satisfying_interval(int cmp, unsigned width_bits, bool is_signed,
                                          std::uint64_t value_bits) {
  const std::uint64_t all = width_mask(width_bits);
  // Signed order becomes unsigned order after flipping the sign bit; work in
  // that biased space and flip back at the end (flipping is a rotation by
  // 2^(W-1), which keeps circular intervals intervals).
  const std::uint64_t bias = is_signed ? (std::uint64_t(1) << (width_bits - 1)) : 0;
  const std::uint64_t v = (value_bits ^ bias) & all;
  BitInterval r;
  switch (cmp) {
    case GSHMEM_CMP_EQ: r.start = v; r.last_offset = 0; break;
    case GSHMEM_CMP_NE: r.start = (v + 1) & all; r.last_offset = all - 1; break;
    case GSHMEM_CMP_GE: r.start = v; r.last_offset = all - v; break;
    case GSHMEM_CMP_GT:
      if (v == all) { r.empty = true; return r; }
      r.start = v + 1; r.last_offset = all - v - 1; break;
    case GSHMEM_CMP_LE: r.start = 0; r.last_offset = v; break;
    case GSHMEM_CMP_LT:
      if (v == 0) { r.empty = true; return r; }
      r.start = 0; r.last_offset = v - 1; break;
    default: r.empty = true; return r;
  }
  r.start = (r.start ^ bias) & all;
  return r;
}

using gshmem::detail::is_valid_cmp;  // the device waits' own check (detail/sync_core.h)

// The plan for "x cmp value" on a W-bit word (2 <= W <= 64), ignoring which
// widths the hardware has: the method itself, tested exhaustively for small W.
constexpr WaitMapping map_bits(int cmp, unsigned w, bool is_signed, std::uint64_t value_bits,
                               bool allow_nor = true) {
  WaitMapping m;
  if (!is_valid_cmp(cmp)) { m.plan = WaitPlan::invalid_cmp; return m; }
  const std::uint64_t all = width_mask(w);
  const BitInterval iv = satisfying_interval(cmp, w, is_signed, value_bits & all);
  if (iv.empty) { m.plan = WaitPlan::never_true; return m; }
  if (iv.last_offset == all) { m.plan = WaitPlan::no_wait; return m; }
  const std::uint64_t half_minus_one = (std::uint64_t(1) << (w - 1)) - 1;
  const std::uint64_t end = (iv.start + iv.last_offset) & all;
  m.plan = WaitPlan::memop;
  m.width_bits = w;
  if (iv.last_offset == 0) {
    m.condition = MemopCondition::eq; m.operand = iv.start;
  } else if (iv.last_offset == half_minus_one) {
    m.condition = MemopCondition::geq_cyclic; m.operand = iv.start;
  } else if (end == all && is_power_of_two(iv.start) && iv.start + iv.last_offset == all) {
    m.condition = MemopCondition::and_nonzero; m.operand = ~(iv.start - 1) & all;
  } else if (allow_nor && iv.start == 0 && is_power_of_two(all - iv.last_offset)) {
    m.condition = MemopCondition::nor_nonzero; m.operand = (all - iv.last_offset) - 1;
  } else {
    m = WaitMapping{};  // kernel
  }
  return m;
}

// The plan for "wait until *ivar cmp value" on a stream, for an object of
// type_size bytes. Memops read 32 or 64 bits: a 16-bit object never maps.
constexpr WaitMapping map_wait(int cmp, std::size_t type_size, bool is_signed,
                               std::uint64_t value_bits, MemopSupport support = MemopSupport{}) {
  if (!is_valid_cmp(cmp)) { WaitMapping m; m.plan = WaitPlan::invalid_cmp; return m; }
  if (type_size != 2 && type_size != 4 && type_size != 8) return WaitMapping{};  // kernel
  const unsigned w = unsigned(type_size * 8);
  WaitMapping m = map_bits(cmp, w, is_signed, value_bits, support.nor);
  const bool width_ok = (w == 32 && support.wait32) || (w == 64 && support.wait64);
  if (m.plan == WaitPlan::memop && !width_ok) m = WaitMapping{};
  return m;
}

// What the memop condition tests, per the CUDA docs: used by the tests to
// check map_wait against the true comparison.
constexpr bool memop_condition_holds(MemopCondition c, unsigned width_bits, std::uint64_t operand,
                                     std::uint64_t x_bits) {
  const std::uint64_t all = width_mask(width_bits);
  const std::uint64_t x = x_bits & all, op = operand & all;
  switch (c) {
    case MemopCondition::geq_cyclic: {
      const std::uint64_t diff = (x - op) & all;
      return (diff >> (width_bits - 1)) == 0;  // (intW_t)(x - op) >= 0
    }
    case MemopCondition::eq: return x == op;
    case MemopCondition::and_nonzero: return (x & op) != 0;
    case MemopCondition::nor_nonzero: return (~(x | op) & all) != 0;
  }
  return false;
}

// The true comparison on values of type T (what the wait means): the very
// comparison the device wait routines make, exact at the type's extremes.
template <class T>
inline bool compare_values(int cmp, T x, T v) {
  return gshmem::detail::compare(cmp, x, v);
}

// GSHMEM_STREAM_OPS (src/env.def): which mechanism the on-stream routines
// use. auto: memops, but kernels for signal_op and the waits while the stream
// is captured (a memop node in a graph is the slower one; measured in
// docs/python.md). False for any other text.
enum class StreamOps : int { memops, kernels, automatic };
inline bool parse_stream_ops(const char *text, StreamOps *out) {
  const auto same = [](const char *a, const char *b) {
    for (; *a != '\0' && *a == *b; ++a, ++b) {
    }
    return *a == *b;
  };
  if (text == nullptr) return false;
  if (same(text, "memops")) *out = StreamOps::memops;
  else if (same(text, "kernels")) *out = StreamOps::kernels;
  else if (same(text, "auto")) *out = StreamOps::automatic;
  else return false;
  return true;
}

}  // namespace stream
}  // namespace gshmemi
