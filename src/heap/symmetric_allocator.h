// The bookkeeping half of the symmetric heap: which byte ranges of a heap are
// handed out. Pure CPU code over offsets (no CUDA, no logging), so that it is
// tested on machines without a GPU and so that every PE, running the same
// calls on its own copy, computes the same offsets.
//
// Layout: [0, reserved_prefix) belongs to the runtime (the internal region);
// user blocks come from [reserved_prefix, capacity). Every block starts at a
// multiple of kMinAlignment and spans a multiple of kMinAlignment bytes, so
// free space is always a set of kMinAlignment-granular intervals.
//
// Policy: first fit by address. Free intervals are kept maximal (neighbours
// coalesce on release), so the state after a sequence of calls depends only
// on that sequence: two PEs making the same calls hold identical states.
//
// Operations are split into a const "plan" and a "commit" so that a caller
// can check with other PEs before changing anything (see collective_heap.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>

namespace gshmemi {

// The outcome of planning an allocation.
struct AllocationPlan {
  int code = 0;              // GSHMEM_SUCCESS or a GSHMEMX_ERROR_* code
  std::size_t offset = 0;    // where the block starts (valid when code == 0 and bytes > 0)
  std::size_t bytes = 0;     // block length (request rounded up); 0 for a zero-size request
  std::string message;       // why it failed, for the log
};

// The outcome of checking a release.
struct ReleasePlan {
  int code = 0;
  std::size_t offset = 0;    // the block being released
  std::size_t bytes = 0;     // its length
  std::string message;
};

class SymmetricAllocator {
 public:
  // Every block is aligned to at least this many bytes (gshmem_malloc's promise).
  static constexpr std::size_t kMinAlignment = 256;

  // capacity: bytes of the heap; reserved_prefix: bytes at its start that are
  // never handed out. Both are rounded (prefix up, capacity down) to kMinAlignment.
  SymmetricAllocator(std::size_t capacity, std::size_t reserved_prefix);

  // Where a block of `size` bytes aligned to `alignment` would go. A zero
  // size succeeds with bytes == 0 (no block: the caller returns NULL, as
  // OpenSHMEM's shmem_malloc(0) does). Errors: alignment 0 or not a power of
  // two (INVALID_VALUE); size or alignment beyond the heap, or no free
  // interval large enough (OUT_OF_MEMORY, the message giving the requested
  // bytes, the largest free interval and the total free bytes).
  AllocationPlan plan_allocate(std::size_t size, std::size_t alignment) const;
  // Applies a successful plan made on the current state.
  void commit_allocate(const AllocationPlan &plan);

  // Checks that `offset` is the start of a live block. Errors
  // (NOT_SYMMETRIC): outside the heap, inside the internal region, inside a
  // block but not at its start, or in free space (a double free).
  ReleasePlan plan_release(std::size_t offset) const;
  // Applies a successful plan; the block merges with free neighbours.
  void commit_release(const ReleasePlan &plan);

  // Growth (the CUDA VMM heap maps more memory behind its end on demand).
  // The capacity at which a block of `size` bytes aligned to `alignment`
  // would fit, placed after the last block (in the free space that reaches
  // the current end, or at the end): a multiple of `granule` (a power of
  // two). 0 when no capacity could hold it (overflow, bad alignment).
  // Depends only on the allocator's state, so every PE computes the same.
  std::size_t capacity_to_fit(std::size_t size, std::size_t alignment, std::size_t granule) const;
  // Raises the capacity to new_capacity (rounded down to kMinAlignment; a
  // smaller value changes nothing); the new bytes join the free space at
  // the end.
  void grow(std::size_t new_capacity);

  std::size_t bytes_in_use() const { return bytes_in_use_; }
  std::size_t total_free() const { return capacity_ - reserved_prefix_ - bytes_in_use_; }
  std::size_t largest_free() const;
  std::size_t capacity() const { return capacity_; }
  std::size_t reserved_prefix() const { return reserved_prefix_; }
  std::size_t live_blocks() const { return live_.size(); }
  std::size_t free_intervals() const { return free_.size(); }
  // Length of the live block starting at offset, or 0.
  std::size_t block_bytes(std::size_t offset) const;

 private:
  std::size_t capacity_;
  std::size_t reserved_prefix_;
  std::size_t bytes_in_use_ = 0;
  std::map<std::size_t, std::size_t> free_;  // offset -> length, maximal intervals
  std::map<std::size_t, std::size_t> live_;  // offset -> length of blocks handed out
};

// "4096 bytes (4.0 KiB)": a byte count a reader can take in at a glance.
std::string describe_bytes(std::size_t bytes);

}  // namespace gshmemi
