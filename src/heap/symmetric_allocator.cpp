#include "../string_format.h"
#include "symmetric_allocator.h"

#include <gshmem/runtime.h>

#include <cinttypes>
#include <cstdarg>
#include <cstdio>
#include <iterator>

namespace gshmemi {
namespace {

constexpr std::size_t kGranule = SymmetricAllocator::kMinAlignment;

bool is_power_of_two(std::size_t value) { return value != 0 && (value & (value - 1)) == 0; }

std::size_t round_down(std::size_t value, std::size_t granule) { return value - value % granule; }

// Rounds up to a multiple of a power of two; false on overflow.
bool round_up(std::size_t value, std::size_t power_of_two, std::size_t *out) {
  std::size_t mask = power_of_two - 1;
  if (value > SIZE_MAX - mask) return false;
  *out = (value + mask) & ~mask;
  return true;
}


}  // namespace

std::string describe_bytes(std::size_t bytes) {
  static const char *const units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  if (bytes < 1024) return string_printf("%zu bytes", bytes);
  double scaled = static_cast<double>(bytes);
  int unit = -1;
  while (scaled >= 1024.0 && unit < 5) {
    scaled /= 1024.0;
    ++unit;
  }
  return string_printf("%zu bytes (%.1f %s)", bytes, scaled, units[unit]);
}

SymmetricAllocator::SymmetricAllocator(std::size_t capacity, std::size_t reserved_prefix)
    : capacity_(round_down(capacity, kGranule)) {
  std::size_t prefix = 0;
  if (!round_up(reserved_prefix, kGranule, &prefix) || prefix > capacity_) prefix = capacity_;
  reserved_prefix_ = prefix;
  if (capacity_ > reserved_prefix_) free_.emplace(reserved_prefix_, capacity_ - reserved_prefix_);
}

std::size_t SymmetricAllocator::largest_free() const {
  std::size_t largest = 0;
  for (const auto &interval : free_)
    if (interval.second > largest) largest = interval.second;
  return largest;
}

std::size_t SymmetricAllocator::block_bytes(std::size_t offset) const {
  auto it = live_.find(offset);
  return it == live_.end() ? 0 : it->second;
}

AllocationPlan SymmetricAllocator::plan_allocate(std::size_t size, std::size_t alignment) const {
  AllocationPlan plan;
  if (!is_power_of_two(alignment)) {
    plan.code = GSHMEMX_ERROR_INVALID_VALUE;
    plan.message = string_printf("alignment %zu is not a power of two", alignment);
    return plan;
  }
  if (size == 0) return plan;  // no block; the caller hands out NULL
  if (alignment < kGranule) alignment = kGranule;

  std::size_t usable = capacity_ - reserved_prefix_;
  std::size_t bytes = 0;
  if (size > usable || alignment > capacity_ || !round_up(size, kGranule, &bytes) || bytes > usable) {
    plan.code = GSHMEMX_ERROR_OUT_OF_MEMORY;
    plan.message = string_printf("requested %s (alignment %zu) exceeds the whole symmetric heap: %s usable "
                          "per PE; raise GSHMEM_SYMMETRIC_SIZE",
                          describe_bytes(size).c_str(), alignment, describe_bytes(usable).c_str());
    return plan;
  }

  for (const auto &interval : free_) {
    std::size_t start = 0;
    // The interval ends below capacity_, and alignment <= capacity_, so this cannot overflow.
    round_up(interval.first, alignment, &start);
    std::size_t end = interval.first + interval.second;
    if (start < end && end - start >= bytes) {
      plan.offset = start;
      plan.bytes = bytes;
      return plan;
    }
  }
  plan.code = GSHMEMX_ERROR_OUT_OF_MEMORY;
  plan.message = string_printf("symmetric heap exhausted: requested %s (alignment %zu), largest free "
                        "block %s, total free %s of %s usable per PE; free memory or raise "
                        "GSHMEM_SYMMETRIC_SIZE",
                        describe_bytes(size).c_str(), alignment, describe_bytes(largest_free()).c_str(),
                        describe_bytes(total_free()).c_str(), describe_bytes(usable).c_str());
  return plan;
}

std::size_t SymmetricAllocator::capacity_to_fit(std::size_t size, std::size_t alignment, std::size_t granule) const {
  if (!is_power_of_two(alignment) || !is_power_of_two(granule) || size == 0) return 0;
  if (alignment < kGranule) alignment = kGranule;
  std::size_t bytes = 0;
  if (!round_up(size, kGranule, &bytes)) return 0;
  // Free space reaching the end is used; otherwise the block starts at the end.
  std::size_t from = capacity_;
  if (!free_.empty()) {
    const auto &last = *free_.rbegin();
    if (last.first + last.second == capacity_) from = last.first;
  }
  std::size_t start = 0, end = 0;
  if (!round_up(from, alignment, &start) || start > SIZE_MAX - bytes) return 0;
  if (!round_up(start + bytes, granule, &end)) return 0;
  return end;
}

void SymmetricAllocator::grow(std::size_t new_capacity) {
  new_capacity = round_down(new_capacity, kGranule);
  if (new_capacity <= capacity_) return;
  const std::size_t added = new_capacity - capacity_;
  if (!free_.empty()) {
    auto last = std::prev(free_.end());
    if (last->first + last->second == capacity_) {
      last->second += added;
      capacity_ = new_capacity;
      return;
    }
  }
  free_.emplace(capacity_, added);
  capacity_ = new_capacity;
}

void SymmetricAllocator::commit_allocate(const AllocationPlan &plan) {
  if (plan.code != 0 || plan.bytes == 0) return;
  // The interval that holds the block: the last one starting at or before it.
  auto it = free_.upper_bound(plan.offset);
  --it;
  std::size_t interval_start = it->first;
  std::size_t interval_end = it->first + it->second;
  free_.erase(it);
  if (plan.offset > interval_start) free_.emplace(interval_start, plan.offset - interval_start);
  std::size_t block_end = plan.offset + plan.bytes;
  if (interval_end > block_end) free_.emplace(block_end, interval_end - block_end);
  live_.emplace(plan.offset, plan.bytes);
  bytes_in_use_ += plan.bytes;
}

ReleasePlan SymmetricAllocator::plan_release(std::size_t offset) const {
  ReleasePlan plan;
  plan.offset = offset;
  auto live = live_.find(offset);
  if (live != live_.end()) {
    plan.bytes = live->second;
    return plan;
  }
  plan.code = GSHMEMX_ERROR_NOT_SYMMETRIC;
  if (offset >= capacity_) {
    plan.message = string_printf("offset %zu is outside the symmetric heap (%zu bytes): not a symmetric address",
                          offset, capacity_);
    return plan;
  }
  if (offset < reserved_prefix_) {
    plan.message = string_printf("offset %zu lies in the runtime's internal region [0, %zu), which is never "
                          "handed out by gshmem_malloc", offset, reserved_prefix_);
    return plan;
  }
  auto after = live_.upper_bound(offset);
  if (after != live_.begin()) {
    auto before = std::prev(after);
    if (offset < before->first + before->second) {
      plan.message = string_printf("offset %zu is inside the block at offset %zu (%zu bytes) but not at its "
                            "start; pass the pointer gshmem_malloc returned", offset, before->first,
                            before->second);
      return plan;
    }
  }
  plan.message = string_printf("no live block starts at offset %zu: double free, or a pointer gshmem_malloc "
                        "never returned", offset);
  return plan;
}

void SymmetricAllocator::commit_release(const ReleasePlan &plan) {
  if (plan.code != 0) return;
  auto live = live_.find(plan.offset);
  if (live == live_.end()) return;
  std::size_t start = live->first;
  std::size_t length = live->second;
  live_.erase(live);
  bytes_in_use_ -= length;

  auto next = free_.lower_bound(start);
  if (next != free_.end() && next->first == start + length) {  // merge the right neighbour
    length += next->second;
    next = free_.erase(next);
  }
  if (next != free_.begin()) {  // merge the left neighbour
    auto prev = std::prev(next);
    if (prev->first + prev->second == start) {
      prev->second += length;
      return;
    }
  }
  free_.emplace(start, length);
}

}  // namespace gshmemi
