// The symmetric heap's bookkeeping on the CPU: alignment, reuse, coalescing,
// exhaustion, double free, foreign offsets, zero and huge sizes.
#include <gshmem/runtime.h>

#include <cstdint>
#include <string>
#include <vector>

#include "catch.hpp"
#include "heap/symmetric_allocator.h"
#include "test_support.h"

using gshmemi::AllocationPlan;
using gshmemi::SymmetricAllocator;

namespace {

constexpr std::size_t kPrefix = GSHMEMI_INTERNAL_REGION_BYTES;
constexpr std::size_t kCapacity = kPrefix + (1u << 20);  // 1 MiB for users

// Plans and commits; returns the offset, or SIZE_MAX on failure.
std::size_t take(SymmetricAllocator &a, std::size_t size, std::size_t alignment = 256) {
  AllocationPlan plan = a.plan_allocate(size, alignment);
  if (plan.code != 0 || plan.bytes == 0) return SIZE_MAX;
  a.commit_allocate(plan);
  return plan.offset;
}

int give(SymmetricAllocator &a, std::size_t offset) {
  auto plan = a.plan_release(offset);
  a.commit_release(plan);
  return plan.code;
}

using gshmem_test::contains;

}  // namespace

TEST_CASE("allocations start after the internal region, aligned and disjoint", "[heap][allocator]") {
  SymmetricAllocator a(kCapacity, kPrefix);
  REQUIRE(a.total_free() == (1u << 20));
  std::size_t first = take(a, 1);
  CHECK(first == kPrefix);
  std::size_t second = take(a, 1);
  CHECK(second == kPrefix + 256);  // sizes round up to the 256-byte granule
  CHECK(a.bytes_in_use() == 512);

  for (std::size_t alignment : {512u, 4096u, 65536u}) {
    std::size_t offset = take(a, 100, alignment);
    REQUIRE(offset != SIZE_MAX);
    CHECK(offset % alignment == 0);
    CHECK(offset >= kPrefix);
  }
  // An alignment below the granule still yields a granule-aligned block.
  std::size_t small = take(a, 8, 8);
  REQUIRE(small != SIZE_MAX);
  CHECK(small % 256 == 0);
}

TEST_CASE("alignment must be a power of two", "[heap][allocator]") {
  SymmetricAllocator a(kCapacity, kPrefix);
  for (std::size_t bad : {0u, 3u, 384u, 1000u}) {
    AllocationPlan plan = a.plan_allocate(64, bad);
    CHECK(plan.code == GSHMEMX_ERROR_INVALID_VALUE);
    CHECK(contains(plan.message, "power of two"));
  }
  CHECK(a.bytes_in_use() == 0);
}

TEST_CASE("freed blocks are reused first-fit", "[heap][allocator]") {
  SymmetricAllocator a(kCapacity, kPrefix);
  std::size_t x = take(a, 4096);
  std::size_t y = take(a, 4096);
  std::size_t z = take(a, 4096);
  REQUIRE(give(a, y) == 0);
  CHECK(take(a, 1024) == y);          // the hole left by y is the first fit
  CHECK(take(a, 3072) == y + 1024);   // and its rest fills exactly
  CHECK(take(a, 256) == z + 4096);    // no hole left: after z
  (void)x;
}

TEST_CASE("neighbouring free blocks coalesce", "[heap][allocator]") {
  SymmetricAllocator a(kCapacity, kPrefix);
  std::vector<std::size_t> blocks;
  for (int i = 0; i < 4; ++i) blocks.push_back(take(a, 64 * 1024));
  REQUIRE(a.free_intervals() == 1);
  // Free 1 and 3: two holes, plus the tail.
  REQUIRE(give(a, blocks[1]) == 0);
  REQUIRE(give(a, blocks[3]) == 0);  // merges with the tail
  CHECK(a.free_intervals() == 2);
  // A 128 KiB request does not fit the 64 KiB hole, so it goes to block 3's place...
  CHECK(a.plan_allocate(128 * 1024, 256).offset == blocks[3]);
  // ...until block 2 goes and 1-2-3-tail merge into one.
  REQUIRE(give(a, blocks[2]) == 0);
  CHECK(a.free_intervals() == 1);
  CHECK(take(a, 3 * 64 * 1024) == blocks[1]);
  // Freeing everything restores the pristine state.
  REQUIRE(give(a, blocks[0]) == 0);
  REQUIRE(give(a, blocks[1]) == 0);
  CHECK(a.bytes_in_use() == 0);
  CHECK(a.free_intervals() == 1);
  CHECK(a.largest_free() == (1u << 20));
}

TEST_CASE("exhaustion fails with requested, largest and total free bytes", "[heap][allocator]") {
  SymmetricAllocator a(kCapacity, kPrefix);
  std::size_t first = take(a, 512 * 1024);
  std::size_t second = take(a, 256 * 1024);
  REQUIRE(take(a, 256 * 1024) != SIZE_MAX);
  REQUIRE(give(a, first) == 0);
  REQUIRE(a.total_free() == 512 * 1024);
  // 512 KiB free in total but in one 512 KiB hole: 600000 bytes cannot fit.
  AllocationPlan plan = a.plan_allocate(600000, 256);
  CHECK(plan.code == GSHMEMX_ERROR_OUT_OF_MEMORY);
  INFO(plan.message);
  CHECK(contains(plan.message, "requested 600000 bytes"));
  CHECK(contains(plan.message, "largest free block 524288 bytes"));
  CHECK(contains(plan.message, "total free 524288 bytes"));
  CHECK(contains(plan.message, "GSHMEM_SYMMETRIC_SIZE"));
  // Freeing the neighbour merges the two holes into one 768 KiB block.
  REQUIRE(give(a, second) == 0);
  CHECK(a.largest_free() == 768 * 1024);
  CHECK(a.bytes_in_use() == 256 * 1024);
}

TEST_CASE("zero-size requests give no block and no error", "[heap][allocator]") {
  SymmetricAllocator a(kCapacity, kPrefix);
  AllocationPlan plan = a.plan_allocate(0, 256);
  CHECK(plan.code == 0);
  CHECK(plan.bytes == 0);
  a.commit_allocate(plan);
  CHECK(a.bytes_in_use() == 0);
  CHECK(a.live_blocks() == 0);
}

TEST_CASE("huge sizes and alignments fail clearly without overflow", "[heap][allocator]") {
  SymmetricAllocator a(kCapacity, kPrefix);
  for (std::size_t size : {SIZE_MAX, SIZE_MAX - 100, std::size_t(1) << 40, std::size_t(kCapacity)}) {
    AllocationPlan plan = a.plan_allocate(size, 256);
    CHECK(plan.code == GSHMEMX_ERROR_OUT_OF_MEMORY);
    CHECK(contains(plan.message, "exceeds the whole symmetric heap"));
  }
  AllocationPlan plan = a.plan_allocate(256, std::size_t(1) << 62);
  CHECK(plan.code == GSHMEMX_ERROR_OUT_OF_MEMORY);
  CHECK(a.bytes_in_use() == 0);
  // Exactly the usable bytes still fit.
  CHECK(take(a, 1u << 20) == kPrefix);
}

TEST_CASE("double free, interior and foreign offsets are reported", "[heap][allocator]") {
  SymmetricAllocator a(kCapacity, kPrefix);
  std::size_t x = take(a, 4096);
  std::size_t y = take(a, 4096);
  REQUIRE(give(a, x) == 0);

  auto twice = a.plan_release(x);
  CHECK(twice.code == GSHMEMX_ERROR_NOT_SYMMETRIC);
  CHECK(contains(twice.message, "double free"));

  auto interior = a.plan_release(y + 256);
  CHECK(interior.code == GSHMEMX_ERROR_NOT_SYMMETRIC);
  CHECK(contains(interior.message, "not at its start"));

  auto internal = a.plan_release(16);
  CHECK(internal.code == GSHMEMX_ERROR_NOT_SYMMETRIC);
  CHECK(contains(internal.message, "internal region"));

  auto outside = a.plan_release(kCapacity + 4096);
  CHECK(outside.code == GSHMEMX_ERROR_NOT_SYMMETRIC);
  CHECK(contains(outside.message, "outside the symmetric heap"));

  // None of the failed releases changed anything.
  CHECK(a.bytes_in_use() == 4096);
  CHECK(a.block_bytes(y) == 4096);
  CHECK(give(a, y) == 0);
  CHECK(a.bytes_in_use() == 0);
}

TEST_CASE("many varied allocate/free cycles return to an empty heap", "[heap][allocator]") {
  SymmetricAllocator a(kCapacity, kPrefix);
  std::vector<std::size_t> live;
  std::uint32_t seed = 12345;
  for (int i = 0; i < 5000; ++i) {
    seed = seed * 1664525u + 1013904223u;
    if (live.empty() || (seed >> 16) % 3 != 0) {
      std::size_t size = 1 + (seed >> 8) % 20000;
      std::size_t alignment = std::size_t(1) << ((seed >> 4) % 14);
      std::size_t offset = take(a, size, alignment);
      if (offset != SIZE_MAX) {
        REQUIRE(offset % alignment == 0);
        live.push_back(offset);
      }
    } else {
      std::size_t pick = (seed >> 12) % live.size();
      REQUIRE(give(a, live[pick]) == 0);
      live.erase(live.begin() + static_cast<std::ptrdiff_t>(pick));
    }
  }
  for (std::size_t offset : live) REQUIRE(give(a, offset) == 0);
  CHECK(a.bytes_in_use() == 0);
  CHECK(a.free_intervals() == 1);
  CHECK(a.largest_free() == (1u << 20));
}

TEST_CASE("capacity_to_fit and grow extend the free space at the end", "[heap][allocator]") {
  constexpr std::size_t kMiB = 1u << 20;
  gshmemi::SymmetricAllocator a(4 * kMiB, 0);
  const auto first = a.plan_allocate(3 * kMiB, 256);
  REQUIRE(first.code == 0);
  a.commit_allocate(first);
  // 1 MiB free at the end: a 2 MiB block needs the capacity to reach 5 MiB.
  CHECK(a.capacity_to_fit(2 * kMiB, 256, kMiB) == 5 * kMiB);
  // Rounded to the granule; alignment counted from the free space's start.
  CHECK(a.capacity_to_fit(2 * kMiB + 1, 256, kMiB) == 6 * kMiB);
  CHECK(a.capacity_to_fit(kMiB, 4 * kMiB, kMiB) == 5 * kMiB);
  CHECK(a.capacity_to_fit(SIZE_MAX, 256, kMiB) == 0);
  CHECK(a.capacity_to_fit(kMiB, 3, kMiB) == 0);
  a.grow(5 * kMiB);
  CHECK(a.capacity() == 5 * kMiB);
  CHECK(a.free_intervals() == 1);  // merged with the free space at the old end
  CHECK(a.largest_free() == 2 * kMiB);
  const auto second = a.plan_allocate(2 * kMiB, 256);
  REQUIRE(second.code == 0);
  CHECK(second.offset == 3 * kMiB);
  a.commit_allocate(second);
  // Full: growth starts at the end.
  CHECK(a.capacity_to_fit(kMiB, 256, kMiB) == 6 * kMiB);
  a.grow(6 * kMiB);
  a.grow(4 * kMiB);  // smaller: nothing changes
  CHECK(a.capacity() == 6 * kMiB);
  CHECK(a.total_free() == kMiB);
}
