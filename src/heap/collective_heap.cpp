#include "liveness.h"
#include "../string_format.h"
#include "collective_heap.h"

#include <gshmem/runtime.h>

#include <cinttypes>
#include <cstdarg>
#include <cstdarg>
#include <cstdio>
#include <iterator>
#include <cstring>
#include <vector>

namespace gshmemi {
namespace {

// How many disagreeing PEs one message names before it summarises the rest.
constexpr int kPesNamedInMessage = 4;


const char *error_name(int code) {
  switch (code) {
    case GSHMEM_SUCCESS: return "success";
    case GSHMEMX_ERROR_INVALID_VALUE: return "invalid value";
    case GSHMEMX_ERROR_OUT_OF_MEMORY: return "out of symmetric memory";
    case GSHMEMX_ERROR_NOT_SYMMETRIC: return "not a symmetric address";
    case GSHMEMX_ERROR_CUDA: return "CUDA error";
    case GSHMEMX_ERROR_BOOTSTRAP: return "bootstrap error";
    default: return "error";
  }
}

bool same_call(const HeapCallRecord &a, const HeapCallRecord &b) {
  return a.kind == b.kind && a.arg0 == b.arg0 && a.arg1 == b.arg1;
}

bool same_record(const HeapCallRecord &a, const HeapCallRecord &b) {
  return same_call(a, b) && a.call_number == b.call_number && a.offset == b.offset &&
         a.bytes == b.bytes && a.local_code == b.local_code;
}

// One clause of a disagreement message: how PE `pe` differs from PE 0.
std::string describe_difference(int pe, const HeapCallRecord &mine, const HeapCallRecord &ref) {
  if (!same_call(mine, ref))
    return string_printf("PE %d asked %s but PE 0 asked %s (call #%" PRIu64 ")", pe, describe_call(mine).c_str(),
                  describe_call(ref).c_str(), ref.call_number);
  if (mine.call_number != ref.call_number)
    return string_printf("PE %d is at symmetric heap call #%" PRIu64 " but PE 0 is at call #%" PRIu64
                  " (a PE skipped or repeated a gshmem_malloc/gshmem_free or a buffer registration)",
                  pe, mine.call_number, ref.call_number);
  if (mine.local_code != ref.local_code) {
    int failing_pe = mine.local_code != 0 ? pe : 0;
    int code = mine.local_code != 0 ? mine.local_code : ref.local_code;
    return string_printf("PE %d could not do %s (%s; see PE %d's log) while PE %d could (call #%" PRIu64 ")",
                  failing_pe, describe_call(ref).c_str(), error_name(code), failing_pe,
                  failing_pe == 0 ? pe : 0, ref.call_number);
  }
  return string_printf("PE %d placed %s at offset %" PRIu64 " (%" PRIu64 " bytes) but PE 0 at offset %" PRIu64
                " (%" PRIu64 " bytes) (call #%" PRIu64 "): the heaps diverged earlier",
                pe, describe_call(ref).c_str(), mine.offset, mine.bytes, ref.offset, ref.bytes,
                ref.call_number);
}

}  // namespace


std::string describe_call(const HeapCallRecord &record) {
  switch (static_cast<HeapCallKind>(record.kind)) {
    case HeapCallKind::malloc_call:
      return string_printf("gshmem_malloc(%" PRIu64 ")", record.arg0);
    case HeapCallKind::calloc_call:
      return string_printf("gshmem_calloc(%" PRIu64 ", %" PRIu64 ")", record.arg0, record.arg1);
    case HeapCallKind::align_call:
      return string_printf("gshmem_align(%" PRIu64 ", %" PRIu64 ")", record.arg0, record.arg1);
    case HeapCallKind::free_call:
      if (record.arg0 == HeapCallRecord::kNoOffset)
        return record.local_code == 0 ? "gshmem_free(NULL)" : "gshmem_free(<non-symmetric pointer>)";
      return string_printf("gshmem_free(<block at heap offset %" PRIu64 ", %" PRIu64 " bytes>)", record.arg0,
                    record.arg1);
    case HeapCallKind::register_call:
      return string_printf("gshmemx_buffer_register_symmetric(<buffer>, %" PRIu64 ")", record.arg0);
    case HeapCallKind::unregister_call:
      if (record.arg0 == HeapCallRecord::kNoOffset)
        return string_printf("gshmemx_buffer_unregister_symmetric(<not a registered buffer>, %" PRIu64 ")",
                             record.arg1);
      return string_printf("gshmemx_buffer_unregister_symmetric(<buffer at registration offset %" PRIu64
                           ">, %" PRIu64 ")", record.arg0, record.arg1);
  }
  return string_printf("<unknown heap call %u>", record.kind);
}

int compare_call_records(const HeapCallRecord *records, int n_pes, int my_pe, std::string *message) {
  (void)my_pe;
  const HeapCallRecord &ref = records[0];
  std::vector<int> differing;
  for (int pe = 1; pe < n_pes; ++pe)
    if (!same_record(records[pe], ref)) differing.push_back(pe);
  if (differing.empty()) return GSHMEM_SUCCESS;

  // A difference in the call itself, its number or its placement is a
  // symmetry error; a difference only in the local outcome passes that
  // outcome's code on, so that e.g. exhaustion on one PE reads as exhaustion.
  int code = GSHMEMX_ERROR_SYMMETRY;
  bool only_outcomes_differ = true;
  int first_failure = ref.local_code;
  for (int pe : differing) {
    const HeapCallRecord &r = records[pe];
    // A PE that failed locally planned nothing, so its placement says nothing.
    const bool placement_differs =
        r.local_code == 0 && ref.local_code == 0 && (r.offset != ref.offset || r.bytes != ref.bytes);
    if (!same_call(r, ref) || r.call_number != ref.call_number || placement_differs) only_outcomes_differ = false;
    if (first_failure == 0) first_failure = r.local_code;
  }
  if (only_outcomes_differ && first_failure != 0) code = first_failure;

  std::string text = string_printf("PEs disagree on symmetric heap call #%" PRIu64 ": ", ref.call_number);
  int named = 0;
  for (int pe : differing) {
    if (named == kPesNamedInMessage) {
      text += string_printf("; and %zu more PE(s)", differing.size() - named);
      break;
    }
    if (named > 0) text += "; ";
    text += describe_difference(pe, records[pe], ref);
    ++named;
  }
  text += ". The call fails on every PE and no PE's heap changed";
  if (message) *message = text;
  return code;
}

int CollectiveHeap::agree(Bootstrap &boot, const HeapCallRecord &record, std::string *message) {
  std::vector<HeapCallRecord> records(static_cast<std::size_t>(boot.size()));
  int rc = boot.allgather(&record, records.data(), sizeof(HeapCallRecord));
  if (rc != GSHMEM_SUCCESS) {
    if (rc == GSHMEMX_ERROR_PEER_LOST)
      *message = string_printf("symmetric heap call #%" PRIu64 " (%s): PE %d is gone (its process ended); "
                               "the job cannot go on",
                               record.call_number, describe_call(record).c_str(), job_lost_pe());
    else
      *message = string_printf("exchanging symmetric heap call #%" PRIu64 " (%s) between PEs failed (%s)",
                               record.call_number, describe_call(record).c_str(), gshmemx_error_string(rc));
    return rc == GSHMEMX_ERROR_PEER_LOST ? rc : GSHMEMX_ERROR_BOOTSTRAP;
  }
  return compare_call_records(records.data(), boot.size(), boot.rank(), message);
}

HeapOutcome CollectiveHeap::allocate(Bootstrap &boot, SymmetricAllocator &target, HeapCallRecord record,
                                     std::size_t total_bytes, std::size_t alignment, int local_code,
                                     const std::string &local_error, const AfterCommit &after) {
  HeapOutcome outcome;
  record.call_number = ++calls_made_;
  record.offset = HeapCallRecord::kNoOffset;
  record.bytes = 0;
  AllocationPlan plan;
  if (local_code != GSHMEM_SUCCESS) {
    plan.code = local_code;
    plan.message = local_error;
  } else {
    plan = target.plan_allocate(total_bytes, alignment);
    if (plan.code == 0 && plan.bytes > 0) {
      record.offset = plan.offset;
      record.bytes = plan.bytes;
    }
  }
  record.local_code = plan.code;

  outcome.code = agree(boot, record, &outcome.message);
  if (outcome.code != GSHMEM_SUCCESS) {
    if (plan.code != GSHMEM_SUCCESS) outcome.message += ". This PE: " + plan.message;
    return outcome;
  }
  if (plan.code == GSHMEMX_ERROR_OUT_OF_MEMORY && local_code == GSHMEM_SUCCESS && &target == &allocator_ && grow_) {
    // Every PE failed the same plan on the same state: every PE gets here
    // and asks for the same capacity.
    const std::size_t wanted = allocator_.capacity_to_fit(total_bytes, alignment, growth_granule_);
    if (wanted == 0 || wanted > max_capacity_) {
      plan.message += string_printf("; growing the heap to hold it would take it past GSHMEM_MAX_SYMMETRIC_SIZE (%s "
                                    "per PE)", describe_bytes(max_capacity_).c_str());
    } else {
      std::string why;
      const int grown = grow_(boot, wanted, &why);
      if (grown != GSHMEM_SUCCESS) {
        outcome.code = grown;
        outcome.message = describe_call(record) + ": growing the symmetric heap to " + describe_bytes(wanted) +
                          " per PE failed: " + why;
        return outcome;
      }
      allocator_.grow(wanted);
      plan = allocator_.plan_allocate(total_bytes, alignment);
    }
  }
  if (plan.code != GSHMEM_SUCCESS) {  // every PE failed the same way
    outcome.code = plan.code;
    outcome.message = describe_call(record) + ": " + plan.message;
    return outcome;
  }
  if (plan.bytes == 0) return outcome;  // zero-size request: NULL, no error

  target.commit_allocate(plan);
  if (after) {
    std::string why;
    std::int32_t local = after(plan.offset, plan.bytes, &why);
    std::vector<std::int32_t> codes(static_cast<std::size_t>(boot.size()));
    int rc = boot.allgather(&local, codes.data(), sizeof local);
    int failing_pe = -1;
    if (rc != GSHMEM_SUCCESS) {
      local = GSHMEMX_ERROR_BOOTSTRAP;
      why = "exchanging the completion status between PEs failed";
    }
    for (int pe = 0; pe < boot.size() && rc == GSHMEM_SUCCESS; ++pe)
      if (codes[pe] != 0) { failing_pe = pe; local = codes[pe]; break; }
    if (local != 0) {
      // Every PE sees the same codes, so every PE undoes the same block.
      target.commit_release(target.plan_release(plan.offset));
      outcome.code = local;
      // A PE whose own step failed says why; the others name the first that did.
      if (failing_pe < 0 || codes[boot.rank()] != 0)
        outcome.message = describe_call(record) + ": " + why;
      else
        outcome.message = string_printf("%s failed on PE %d (see its log); undone on every PE",
                                 describe_call(record).c_str(), failing_pe);
      return outcome;
    }
  }
  outcome.has_block = true;
  outcome.offset = plan.offset;
  outcome.bytes = plan.bytes;
  return outcome;
}

HeapOutcome CollectiveHeap::malloc(Bootstrap &boot, std::size_t size) {
  HeapCallRecord record{};
  record.kind = static_cast<std::uint32_t>(HeapCallKind::malloc_call);
  record.arg0 = size;
  return allocate(boot, allocator_, record, size, SymmetricAllocator::kMinAlignment, GSHMEM_SUCCESS, std::string(),
                  AfterCommit());
}

HeapOutcome CollectiveHeap::calloc(Bootstrap &boot, std::size_t count, std::size_t size,
                                   const AfterCommit &zero) {
  HeapCallRecord record{};
  record.kind = static_cast<std::uint32_t>(HeapCallKind::calloc_call);
  record.arg0 = count;
  record.arg1 = size;
  std::string local_error;
  std::size_t total = 0;
  if (__builtin_mul_overflow(count, size, &total))
    local_error = string_printf("count * size = %zu * %zu overflows size_t", count, size);
  return allocate(boot, allocator_, record, total, SymmetricAllocator::kMinAlignment,
                  local_error.empty() ? GSHMEM_SUCCESS : GSHMEMX_ERROR_INVALID_VALUE, local_error, zero);
}

HeapOutcome CollectiveHeap::align(Bootstrap &boot, std::size_t alignment, std::size_t size) {
  HeapCallRecord record{};
  record.kind = static_cast<std::uint32_t>(HeapCallKind::align_call);
  record.arg0 = alignment;
  record.arg1 = size;
  // plan_allocate rejects an alignment that is 0 or not a power of two.
  return allocate(boot, allocator_, record, size, alignment, GSHMEM_SUCCESS, std::string(), AfterCommit());
}

HeapOutcome CollectiveHeap::release(Bootstrap &boot, std::uintptr_t heap_base, std::uintptr_t ptr) {
  HeapOutcome outcome;
  HeapCallRecord record{};
  record.kind = static_cast<std::uint32_t>(HeapCallKind::free_call);
  record.call_number = ++calls_made_;
  record.arg0 = HeapCallRecord::kNoOffset;
  record.offset = HeapCallRecord::kNoOffset;
  ReleasePlan plan;
  std::string local_message;
  if (ptr != 0) {
    if (ptr < heap_base || ptr - heap_base >= allocator_.capacity()) {
      plan.code = GSHMEMX_ERROR_NOT_SYMMETRIC;
      local_message = string_printf("pointer %p is not in the symmetric heap [%p, %p): a foreign pointer",
                             reinterpret_cast<void *>(ptr), reinterpret_cast<void *>(heap_base),
                             reinterpret_cast<void *>(heap_base + allocator_.capacity()));
    } else {
      plan = allocator_.plan_release(ptr - heap_base);
      record.arg0 = plan.offset;
      record.arg1 = plan.bytes;
      record.offset = plan.offset;
      record.bytes = plan.bytes;
      local_message = string_printf("pointer %p: %s", reinterpret_cast<void *>(ptr), plan.message.c_str());
    }
  }
  record.local_code = plan.code;

  outcome.code = agree(boot, record, &outcome.message);
  if (outcome.code != GSHMEM_SUCCESS) return outcome;
  if (plan.code != GSHMEM_SUCCESS) {
    outcome.code = plan.code;
    outcome.message = "gshmem_free: " + local_message;
    return outcome;
  }
  if (ptr == 0) return outcome;
  allocator_.commit_release(plan);
  outcome.offset = plan.offset;
  outcome.bytes = plan.bytes;
  return outcome;
}

HeapOutcome CollectiveHeap::register_buffer(Bootstrap &boot, std::uintptr_t user, std::size_t size, int local_code,
                                            const std::string &local_error, const AfterCommit &map) {
  HeapCallRecord record{};
  record.kind = static_cast<std::uint32_t>(HeapCallKind::register_call);
  record.arg0 = size;
  std::string error = local_error;
  if (local_code == GSHMEM_SUCCESS && size == 0) {
    local_code = GSHMEMX_ERROR_INVALID_VALUE;
    error = "size is 0";
  }
  if (local_code == GSHMEM_SUCCESS) {
    for (const auto &entry : registered_) {
      const UserRange &r = entry.second;
      if (user < r.start + r.size && r.start < user + size) {
        local_code = GSHMEMX_ERROR_INVALID_VALUE;
        error = string_printf("[%p, +%zu) overlaps the buffer [%p, +%zu) registered already (a buffer is "
                              "registered once; unregister it first)",
                              reinterpret_cast<void *>(user), size, reinterpret_cast<void *>(r.start), r.size);
        break;
      }
    }
  }
  // A full window reads as what it is, not as an exhausted heap.
  if (local_code == GSHMEM_SUCCESS) {
    const AllocationPlan plan = window_.plan_allocate(size, window_alignment_);
    if (plan.code == GSHMEMX_ERROR_OUT_OF_MEMORY) {
      local_code = plan.code;
      error = string_printf("the registration space is full: %s asked, largest free range %s, %s free of %s per "
                            "PE; unregister buffers or raise GSHMEM_REGISTRATION_SPACE",
                            describe_bytes(size).c_str(), describe_bytes(window_.largest_free()).c_str(),
                            describe_bytes(window_.total_free()).c_str(),
                            describe_bytes(window_.capacity()).c_str());
    }
  }
  HeapOutcome outcome =
      allocate(boot, window_, record, size, window_alignment_, local_code, error, map);
  if (outcome.code == GSHMEM_SUCCESS && outcome.has_block) registered_[outcome.offset] = UserRange{user, size};
  return outcome;
}

HeapOutcome CollectiveHeap::unregister_buffer(Bootstrap &boot, std::uintptr_t window_base, std::uintptr_t ptr,
                                              std::size_t size) {
  HeapOutcome outcome;
  HeapCallRecord record{};
  record.kind = static_cast<std::uint32_t>(HeapCallKind::unregister_call);
  record.call_number = ++calls_made_;
  record.arg0 = HeapCallRecord::kNoOffset;
  record.arg1 = size;
  record.offset = HeapCallRecord::kNoOffset;
  int local_code = GSHMEM_SUCCESS;
  std::string local_message;
  auto found = ptr >= window_base ? registered_.find(ptr - window_base) : registered_.end();
  if (found == registered_.end()) {
    local_code = GSHMEMX_ERROR_NOT_SYMMETRIC;
    local_message = string_printf("%p is not an address gshmemx_buffer_register_symmetric returned (or it was "
                                  "unregistered already)", reinterpret_cast<void *>(ptr));
  } else {
    record.arg0 = found->first;
    record.offset = found->first;
    record.bytes = found->second.size;
    if (size != found->second.size) {
      local_code = GSHMEMX_ERROR_INVALID_VALUE;
      local_message = string_printf("%p was registered with size %zu, not %zu", reinterpret_cast<void *>(ptr),
                                    found->second.size, size);
    }
  }
  record.local_code = local_code;

  outcome.code = agree(boot, record, &outcome.message);
  if (outcome.code != GSHMEM_SUCCESS) {
    if (local_code != GSHMEM_SUCCESS) outcome.message += ". This PE: " + local_message;
    return outcome;
  }
  if (local_code != GSHMEM_SUCCESS) {  // every PE failed the same way
    outcome.code = local_code;
    outcome.message = "gshmemx_buffer_unregister_symmetric: " + local_message;
    return outcome;
  }
  window_.commit_release(window_.plan_release(found->first));
  outcome.offset = found->first;
  outcome.bytes = found->second.size;
  registered_.erase(found);
  return outcome;
}

}  // namespace gshmemi
