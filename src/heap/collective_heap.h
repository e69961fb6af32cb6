// Collective allocation: every PE runs the same SymmetricAllocator calls, and
// before any PE changes its allocator the PEs compare what they were asked.
//
// Each call allgathers one fixed-size record (which routine, its arguments,
// the call number and the offset this PE's allocator planned). If any record
// differs from PE 0's, no PE commits: every PE returns an error naming the
// PEs that disagree and what each asked, e.g.
//   "PE 1 asked gshmem_malloc(4096) but PE 0 asked gshmem_malloc(8192) (call #3)".
// Because nothing is committed before the PEs agree, the allocators stay
// identical after a failed call, and the next agreeing call works.
//
// Registrations of the program's own buffers (gshmemx_buffer_register_
// symmetric) go through the same agreement and numbering, over a second
// allocator: the registration window that follows the heap in every PE's
// slot of the symmetric address space (src/heap/heap.cpp).
//
// Pure CPU code over a Bootstrap, so that it is tested with in-process fake
// bootstraps (threads as PEs) as well as under mpirun.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <string>

#include "../bootstrap.h"
#include "symmetric_allocator.h"

namespace gshmemi {

// Registrations of user buffers share the call sequence (and its numbering)
// with the heap's calls, so that a PE registering while another allocates
// is caught like any other mismatch.
enum class HeapCallKind : std::uint32_t {
  malloc_call = 1,
  calloc_call = 2,
  align_call = 3,
  free_call = 4,
  register_call = 5,    // gshmemx_buffer_register_symmetric
  unregister_call = 6,  // gshmemx_buffer_unregister_symmetric
};

// What one PE contributes to the agreement of one call (allgathered as bytes:
// fixed width, no padding).
struct HeapCallRecord {
  std::uint32_t kind;          // HeapCallKind
  std::int32_t local_code;     // this PE's planning outcome (0 or GSHMEMX_ERROR_*)
  std::uint64_t call_number;   // 1 for the first collective heap call after init
  std::uint64_t arg0;          // malloc: size; calloc: count; align: alignment; free: offset;
                               // register: size; unregister: window offset (kNoOffset: none)
  std::uint64_t arg1;          // calloc: element size; align: size; free: block bytes;
                               // unregister: size
  std::uint64_t offset;        // planned block offset, kNoOffset when none
  std::uint64_t bytes;         // planned block length
  static constexpr std::uint64_t kNoOffset = ~std::uint64_t(0);
};
static_assert(sizeof(HeapCallRecord) == 48, "HeapCallRecord is exchanged as raw bytes");

// The result of one collective call on this PE.
struct HeapOutcome {
  int code = 0;              // GSHMEM_SUCCESS or GSHMEMX_ERROR_*; the same on every PE
  bool has_block = false;    // false for zero-size allocations, gshmem_free(NULL) and errors
  std::size_t offset = 0;
  std::size_t bytes = 0;
  std::string message;       // the cause, when code != 0
};

// "gshmem_malloc(4096)", "gshmem_free(offset 1048576)", ...
std::string describe_call(const HeapCallRecord &record);

// Compares the allgathered records of one call. Returns 0 when all PEs agree;
// otherwise an error code and, in *message, which PEs disagree and how.
int compare_call_records(const HeapCallRecord *records, int n_pes, int my_pe, std::string *message);

class CollectiveHeap {
 public:
  // Runs on every PE after the PEs agree on an allocation and commit it
  // (calloc's zeroing). A non-zero return on any PE undoes the allocation on
  // every PE; *why explains it for the log.
  using AfterCommit = std::function<int(std::size_t offset, std::size_t bytes, std::string *why)>;

  // window_capacity: bytes of the registration window (0: none);
  // window_alignment: where registered buffers may start in it (a power of
  // two, the same on every PE: the VMM granularity).
  CollectiveHeap(std::size_t capacity, std::size_t reserved_prefix, std::size_t window_capacity = 0,
                 std::size_t window_alignment = SymmetricAllocator::kMinAlignment)
      : allocator_(capacity, reserved_prefix), window_(window_capacity, 0), window_alignment_(window_alignment) {}

  // Collective. The allgather at their heart is also a barrier: on return
  // every PE has entered the call, and (with an AfterCommit) every PE's hook
  // has finished.
  HeapOutcome malloc(Bootstrap &boot, std::size_t size);
  HeapOutcome calloc(Bootstrap &boot, std::size_t count, std::size_t size, const AfterCommit &zero);
  HeapOutcome align(Bootstrap &boot, std::size_t alignment, std::size_t size);
  // ptr == 0 is gshmem_free(NULL): agreed like any call, then nothing happens.
  // A ptr outside [heap_base, heap_base + capacity) is a foreign pointer.
  HeapOutcome release(Bootstrap &boot, std::uintptr_t heap_base, std::uintptr_t ptr);

  // Registered buffers. A buffer [user, user + size) of this PE takes the
  // same range of the registration window on every PE (outcome.offset,
  // counted from the window's start). The caller checks the buffer itself
  // (CUDA) first and passes its verdict: local_code != 0 fails the call on
  // every PE with that code, local_error saying why. Checked here: size 0,
  // a range that overlaps a buffer registered already, a full window. Once
  // the PEs agree, `map` runs on every PE (it may itself make collective
  // calls, which every PE then reaches); a failure on any PE undoes the
  // registration on every PE.
  HeapOutcome register_buffer(Bootstrap &boot, std::uintptr_t user, std::size_t size, int local_code,
                              const std::string &local_error, const AfterCommit &map);
  // `ptr` must be an address register_buffer gave (window_base + offset on
  // this PE) and `size` the size registered. The PEs agree before anything
  // changes; on success outcome.offset/bytes name the range now free.
  HeapOutcome unregister_buffer(Bootstrap &boot, std::uintptr_t window_base, std::uintptr_t ptr, std::size_t size);

  // Growth of the heap (not of the registration window). When every PE's
  // plan for a heap allocation fails for want of space (they agree on the
  // call, so they all fail alike), each PE asks `grow` for the capacity
  // the allocator computes (SymmetricAllocator::capacity_to_fit, a
  // multiple of `granule`, at most `max_capacity`); `grow` is collective
  // (every PE reaches it) and returns 0 once the memory up to that
  // capacity exists on every PE, or an error code with *why on every PE.
  // Then the allocator takes the new capacity and the call plans again.
  using GrowHeap = std::function<int(Bootstrap &boot, std::size_t new_capacity, std::string *why)>;
  void enable_growth(GrowHeap grow, std::size_t max_capacity, std::size_t granule) {
    grow_ = std::move(grow);
    max_capacity_ = max_capacity;
    growth_granule_ = granule;
  }

  const SymmetricAllocator &allocator() const { return allocator_; }
  const SymmetricAllocator &window() const { return window_; }
  std::size_t registered_buffers() const { return registered_.size(); }
  std::uint64_t calls_made() const { return calls_made_; }

 private:
  HeapOutcome allocate(Bootstrap &boot, SymmetricAllocator &target, HeapCallRecord record, std::size_t total_bytes,
                       std::size_t alignment, int local_code, const std::string &local_error,
                       const AfterCommit &after);
  // Allgathers `record`; returns 0 if every PE sent the same one.
  int agree(Bootstrap &boot, const HeapCallRecord &record, std::string *message);

  struct UserRange {
    std::uintptr_t start;
    std::size_t size;
  };

  SymmetricAllocator allocator_;
  SymmetricAllocator window_;
  std::size_t window_alignment_;
  std::map<std::size_t, UserRange> registered_;  // window offset -> the PE's own buffer
  std::uint64_t calls_made_ = 0;
  GrowHeap grow_;
  std::size_t max_capacity_ = 0;
  std::size_t growth_granule_ = 0;
};

}  // namespace gshmemi
