// Collective allocation on the CPU: threads play PEs over a fake bootstrap.
// Agreeing PEs get identical offsets; PEs that disagree (sizes, order, kind)
// all fail with a message naming the PEs and calls, and every heap stays as
// it was.
#include <gshmem/runtime.h>

#include <cstdint>
#include <string>
#include <vector>

#include "catch.hpp"
#include "fake_bootstrap.h"
#include "heap/collective_heap.h"
#include "test_support.h"

using gshmem_test::FakeBootstrap;
using gshmem_test::run_pes;
using gshmemi::CollectiveHeap;
using gshmemi::HeapOutcome;

namespace {

constexpr std::size_t kPrefix = GSHMEMI_INTERNAL_REGION_BYTES;
constexpr std::size_t kCapacity = kPrefix + (4u << 20);
// A pretend heap base: release() works on addresses, and each PE's differs.
std::uintptr_t fake_base(int pe) { return 0x7f0000000000ull + std::uintptr_t(pe) * 0x100000000ull; }

using gshmem_test::contains;

// What one PE saw; checked on the main thread (Catch2 assertions are not thread-safe).
struct PeLog {
  std::vector<HeapOutcome> outcomes;
  std::size_t in_use_after = 0;
  std::size_t free_intervals_after = 0;
};

}  // namespace

TEST_CASE("agreeing PEs get the same offsets", "[heap][collective]") {
  constexpr int kPes = 4;
  std::vector<PeLog> logs(kPes);
  run_pes(kPes, [&](FakeBootstrap &boot) {
    CollectiveHeap heap(kCapacity, kPrefix);
    PeLog &log = logs[boot.rank()];
    log.outcomes.push_back(heap.malloc(boot, 1000));
    log.outcomes.push_back(heap.align(boot, 65536, 10));
    log.outcomes.push_back(heap.calloc(boot, 16, 64, [](std::size_t, std::size_t, std::string *) { return 0; }));
    log.outcomes.push_back(heap.malloc(boot, 0));
    log.outcomes.push_back(heap.release(boot, fake_base(boot.rank()), fake_base(boot.rank()) + log.outcomes[1].offset));
    log.outcomes.push_back(heap.release(boot, fake_base(boot.rank()), 0));  // gshmem_free(NULL)
    log.in_use_after = heap.allocator().bytes_in_use();
  });
  for (int pe = 0; pe < kPes; ++pe) {
    INFO("PE " << pe);
    const auto &o = logs[pe].outcomes;
    for (const auto &outcome : o) CHECK(outcome.code == 0);
    CHECK(o[0].has_block);
    CHECK(o[0].offset == kPrefix);
    CHECK(o[1].offset % 65536 == 0);
    CHECK(o[2].has_block);
    CHECK_FALSE(o[3].has_block);  // malloc(0): NULL without error
    for (std::size_t i = 0; i < o.size(); ++i) CHECK(o[i].offset == logs[0].outcomes[i].offset);
    CHECK(logs[pe].in_use_after == 1024 + 1024);
  }
}

TEST_CASE("a size mismatch fails on every PE and names the PEs and sizes", "[heap][collective]") {
  constexpr int kPes = 3;
  std::vector<PeLog> logs(kPes);
  run_pes(kPes, [&](FakeBootstrap &boot) {
    CollectiveHeap heap(kCapacity, kPrefix);
    PeLog &log = logs[boot.rank()];
    log.outcomes.push_back(heap.malloc(boot, 8192));                               // call #1 agrees
    log.outcomes.push_back(heap.malloc(boot, 4096));                               // call #2 agrees
    log.outcomes.push_back(heap.malloc(boot, boot.rank() == 1 ? 4096 : 8192));     // call #3 differs
    log.in_use_after = heap.allocator().bytes_in_use();
    log.free_intervals_after = heap.allocator().free_intervals();
    log.outcomes.push_back(heap.malloc(boot, 256));                                // agrees again
  });
  for (int pe = 0; pe < kPes; ++pe) {
    INFO("PE " << pe);
    const HeapOutcome &bad = logs[pe].outcomes[2];
    INFO(bad.message);
    CHECK(bad.code == GSHMEMX_ERROR_SYMMETRY);
    CHECK_FALSE(bad.has_block);
    CHECK(contains(bad.message, "PE 1 asked gshmem_malloc(4096) but PE 0 asked gshmem_malloc(8192) (call #3)"));
    CHECK_FALSE(contains(bad.message, "PE 2 asked"));  // PE 2 agreed with PE 0
    // Nothing changed: the heap holds calls #1 and #2 only, and call #4 lands
    // right after them on every PE.
    CHECK(logs[pe].in_use_after == 8192 + 4096);
    CHECK(logs[pe].free_intervals_after == 1);
    CHECK(logs[pe].outcomes[3].code == 0);
    CHECK(logs[pe].outcomes[3].offset == kPrefix + 8192 + 4096);
  }
}

TEST_CASE("an order mismatch fails on every PE and the heaps stay consistent", "[heap][collective]") {
  constexpr int kPes = 2;
  std::vector<PeLog> logs(kPes);
  run_pes(kPes, [&](FakeBootstrap &boot) {
    CollectiveHeap heap(kCapacity, kPrefix);
    PeLog &log = logs[boot.rank()];
    std::uintptr_t base = fake_base(boot.rank());
    HeapOutcome a = heap.malloc(boot, 1024);
    log.outcomes.push_back(a);
    // PE 0 frees then allocates; PE 1 allocates then frees.
    if (boot.rank() == 0) {
      log.outcomes.push_back(heap.release(boot, base, base + a.offset));
      log.outcomes.push_back(heap.malloc(boot, 2048));
    } else {
      log.outcomes.push_back(heap.malloc(boot, 2048));
      log.outcomes.push_back(heap.release(boot, base, base + a.offset));
    }
    log.in_use_after = heap.allocator().bytes_in_use();
    // Back in step: the same free on both now works.
    log.outcomes.push_back(heap.release(boot, base, base + a.offset));
  });
  for (int pe = 0; pe < kPes; ++pe) {
    INFO("PE " << pe);
    const auto &o = logs[pe].outcomes;
    CHECK(o[0].code == 0);
    INFO(o[1].message);
    CHECK(o[1].code == GSHMEMX_ERROR_SYMMETRY);
    CHECK(o[2].code == GSHMEMX_ERROR_SYMMETRY);
    CHECK(contains(o[1].message, "PE 1 asked gshmem_malloc(2048) but PE 0 asked gshmem_free("));
    CHECK(contains(o[1].message, "(call #2)"));
    CHECK(contains(o[2].message, "PE 1 asked gshmem_free("));
    CHECK(contains(o[2].message, "(call #3)"));
    CHECK(logs[pe].in_use_after == 1024);  // neither the free nor the malloc happened
    CHECK(o[3].code == 0);
  }
}

TEST_CASE("disagreement messages name several PEs and summarise the rest", "[heap][collective]") {
  constexpr int kPes = 8;
  std::vector<PeLog> logs(kPes);
  run_pes(kPes, [&](FakeBootstrap &boot) {
    CollectiveHeap heap(kCapacity, kPrefix);
    logs[boot.rank()].outcomes.push_back(heap.malloc(boot, 256 * (1 + boot.rank())));
    logs[boot.rank()].in_use_after = heap.allocator().bytes_in_use();
  });
  for (int pe = 0; pe < kPes; ++pe) {
    const HeapOutcome &o = logs[pe].outcomes[0];
    INFO(o.message);
    CHECK(o.code == GSHMEMX_ERROR_SYMMETRY);
    CHECK(contains(o.message, "PE 1 asked gshmem_malloc(512) but PE 0 asked gshmem_malloc(256)"));
    CHECK(contains(o.message, "PE 4 asked gshmem_malloc(1280)"));
    CHECK(contains(o.message, "and 3 more PE(s)"));
    CHECK(logs[pe].in_use_after == 0);
  }
}

TEST_CASE("exhaustion, zero and huge sizes behave the same on every PE", "[heap][collective]") {
  constexpr int kPes = 2;
  std::vector<PeLog> logs(kPes);
  run_pes(kPes, [&](FakeBootstrap &boot) {
    CollectiveHeap heap(kCapacity, kPrefix);
    PeLog &log = logs[boot.rank()];
    auto zero = [](std::size_t, std::size_t, std::string *) { return 0; };
    log.outcomes.push_back(heap.malloc(boot, 8u << 20));               // more than the heap
    log.outcomes.push_back(heap.calloc(boot, SIZE_MAX / 2, 4, zero));  // count*size overflows
    log.outcomes.push_back(heap.malloc(boot, SIZE_MAX));
    log.outcomes.push_back(heap.align(boot, 3, 64));                   // bad alignment
    log.outcomes.push_back(heap.malloc(boot, 0));
    log.outcomes.push_back(heap.calloc(boot, 0, 16, zero));
    log.in_use_after = heap.allocator().bytes_in_use();
  });
  for (int pe = 0; pe < kPes; ++pe) {
    const auto &o = logs[pe].outcomes;
    INFO(o[0].message << "\n" << o[1].message << "\n" << o[2].message << "\n" << o[3].message);
    CHECK(o[0].code == GSHMEMX_ERROR_OUT_OF_MEMORY);
    CHECK(contains(o[0].message, "gshmem_malloc(8388608)"));
    CHECK(contains(o[0].message, "requested 8388608 bytes"));
    CHECK(o[1].code == GSHMEMX_ERROR_INVALID_VALUE);
    CHECK(contains(o[1].message, "overflows"));
    CHECK(o[2].code == GSHMEMX_ERROR_OUT_OF_MEMORY);
    CHECK(o[3].code == GSHMEMX_ERROR_INVALID_VALUE);
    CHECK(contains(o[3].message, "gshmem_align(3, 64)"));
    CHECK(o[4].code == 0);
    CHECK_FALSE(o[4].has_block);
    CHECK(o[5].code == 0);
    CHECK_FALSE(o[5].has_block);
    CHECK(logs[pe].in_use_after == 0);
  }
}

TEST_CASE("double free and foreign pointers fail on every PE without changing the heap", "[heap][collective]") {
  constexpr int kPes = 2;
  std::vector<PeLog> logs(kPes);
  run_pes(kPes, [&](FakeBootstrap &boot) {
    CollectiveHeap heap(kCapacity, kPrefix);
    PeLog &log = logs[boot.rank()];
    std::uintptr_t base = fake_base(boot.rank());
    HeapOutcome a = heap.malloc(boot, 4096);
    HeapOutcome b = heap.malloc(boot, 4096);
    log.outcomes.push_back(heap.release(boot, base, base + a.offset));       // ok
    log.outcomes.push_back(heap.release(boot, base, base + a.offset));       // double free on all
    log.outcomes.push_back(heap.release(boot, base, 0x1234000));             // foreign on all
    // Foreign on PE 1 only: PE 0 frees b; PE 1 passes a stack address.
    int on_stack = 0;
    std::uintptr_t ptr = boot.rank() == 1 ? reinterpret_cast<std::uintptr_t>(&on_stack) : base + b.offset;
    log.outcomes.push_back(heap.release(boot, base, ptr));
    log.in_use_after = heap.allocator().bytes_in_use();
  });
  for (int pe = 0; pe < kPes; ++pe) {
    const auto &o = logs[pe].outcomes;
    INFO("PE " << pe << ": " << o[1].message << "\n" << o[2].message << "\n" << o[3].message);
    CHECK(o[0].code == 0);
    CHECK(o[1].code == GSHMEMX_ERROR_NOT_SYMMETRIC);
    CHECK(contains(o[1].message, "double free"));
    CHECK(o[2].code == GSHMEMX_ERROR_NOT_SYMMETRIC);
    CHECK(contains(o[2].message, "foreign pointer"));
    CHECK(o[3].code == GSHMEMX_ERROR_SYMMETRY);
    CHECK(contains(o[3].message, "PE 1 asked gshmem_free(<non-symmetric pointer>)"));
    CHECK(logs[pe].in_use_after == 4096);  // b is still allocated on both PEs
  }
}

TEST_CASE("a failure after commit (calloc zeroing) is undone on every PE", "[heap][collective]") {
  constexpr int kPes = 3;
  std::vector<PeLog> logs(kPes);
  run_pes(kPes, [&](FakeBootstrap &boot) {
    CollectiveHeap heap(kCapacity, kPrefix);
    PeLog &log = logs[boot.rank()];
    int rank = boot.rank();
    log.outcomes.push_back(heap.calloc(boot, 4, 1024, [rank](std::size_t, std::size_t, std::string *why) {
      if (rank != 2) return 0;
      *why = "pretend cudaMemset failed";
      return GSHMEMX_ERROR_CUDA;
    }));
    log.in_use_after = heap.allocator().bytes_in_use();
    log.outcomes.push_back(heap.malloc(boot, 256));
  });
  for (int pe = 0; pe < kPes; ++pe) {
    const auto &o = logs[pe].outcomes;
    INFO("PE " << pe << ": " << o[0].message);
    CHECK(o[0].code == GSHMEMX_ERROR_CUDA);
    CHECK_FALSE(o[0].has_block);
    if (pe == 2) CHECK(contains(o[0].message, "pretend cudaMemset failed"));
    else CHECK(contains(o[0].message, "failed on PE 2"));
    CHECK(logs[pe].in_use_after == 0);
    CHECK(o[1].offset == kPrefix);  // the undone block is free again
  }
}

TEST_CASE("records that differ only in placement report diverged heaps", "[heap][collective]") {
  gshmemi::HeapCallRecord records[2] = {};
  for (auto &r : records) {
    r.kind = static_cast<std::uint32_t>(gshmemi::HeapCallKind::malloc_call);
    r.arg0 = 4096;
    r.call_number = 7;
    r.bytes = 4096;
  }
  records[0].offset = kPrefix;
  records[1].offset = kPrefix + 4096;
  std::string message;
  CHECK(gshmemi::compare_call_records(records, 2, 0, &message) == GSHMEMX_ERROR_SYMMETRY);
  CHECK(contains(message, "diverged"));
  CHECK(contains(message, "call #7"));
  records[1].offset = kPrefix;
  CHECK(gshmemi::compare_call_records(records, 2, 0, &message) == 0);
}

// Growth: a heap allocation that does not fit asks the grow hook (on every
// PE, for the same capacity: the free space reaching the end plus what is
// missing, rounded to the granule), then succeeds at the same offset on every
// PE; past the limit it fails with a message naming GSHMEM_MAX_SYMMETRIC_SIZE
// and the hook is not asked; a hook failing on one PE fails the call on
// every PE and leaves every heap as it was; the registration window never
// grows the heap.
TEST_CASE("the heap grows on demand, identically on every PE, up to its limit", "[heap][collective]") {
  constexpr int kPes = 3;
  constexpr std::size_t kGranule = 1u << 20;
  constexpr std::size_t kLimit = kCapacity + (8u << 20);
  struct GrowLog {
    std::vector<HeapOutcome> outcomes;
    std::vector<std::size_t> asked;  // capacities the hook was asked for
    std::size_t capacity_after = 0;
    std::size_t in_use_after = 0;
  };
  std::vector<GrowLog> logs(kPes);
  run_pes(kPes, [&](FakeBootstrap &boot) {
    CollectiveHeap heap(kCapacity, kPrefix);
    GrowLog &log = logs[boot.rank()];
    bool fail_next_on_pe1 = false;
    heap.enable_growth(
        [&](gshmemi::Bootstrap &b, std::size_t capacity, std::string *why) {
          log.asked.push_back(capacity);
          // Collective like the real hook: every PE takes part.
          int mine = fail_next_on_pe1 && b.rank() == 1 ? GSHMEMX_ERROR_OUT_OF_MEMORY : 0;
          std::vector<int> all(static_cast<std::size_t>(b.size()));
          b.allgather(&mine, all.data(), sizeof mine);
          for (int code : all)
            if (code != 0) {
              *why = "cuMemCreate failed on PE 1";
              return code;
            }
          return 0;
        },
        kLimit, kGranule);
    const std::uintptr_t base = fake_base(boot.rank());
    HeapOutcome a = heap.malloc(boot, 3u << 20);   // fits
    HeapOutcome b = heap.malloc(boot, 3u << 20);   // needs 2 MiB more: grows
    log.outcomes.push_back(a);
    log.outcomes.push_back(b);
    log.outcomes.push_back(heap.malloc(boot, 64u << 20));  // past the limit
    fail_next_on_pe1 = true;
    log.outcomes.push_back(heap.malloc(boot, 4u << 20));   // the hook fails on PE 1
    fail_next_on_pe1 = false;
    log.outcomes.push_back(heap.release(boot, base, base + a.offset));
    log.outcomes.push_back(heap.malloc(boot, 5u << 20));   // grows again, to the limit at most
    log.capacity_after = heap.allocator().capacity();
    log.in_use_after = heap.allocator().bytes_in_use();
  });
  for (int pe = 0; pe < kPes; ++pe) {
    INFO("PE " << pe);
    const auto &o = logs[pe].outcomes;
    CHECK(o[0].code == 0);
    CHECK(o[1].code == 0);
    CHECK(o[1].offset == o[0].offset + (3u << 20));
    CHECK(o[1].offset == logs[0].outcomes[1].offset);
    CHECK(o[2].code == GSHMEMX_ERROR_OUT_OF_MEMORY);
    CHECK(contains(o[2].message, "GSHMEM_MAX_SYMMETRIC_SIZE"));
    CHECK(o[3].code == GSHMEMX_ERROR_OUT_OF_MEMORY);
    CHECK(contains(o[3].message, "growing the symmetric heap"));
    CHECK(contains(o[3].message, "cuMemCreate failed on PE 1"));
    CHECK(o[4].code == 0);
    CHECK(o[5].code == 0);
    CHECK(o[5].has_block);
    // Asked: for b, to the end of b rounded to 1 MiB; for the 4 MiB call
    // (failed); for the 5 MiB call. Never for the one past the limit.
    REQUIRE(logs[pe].asked.size() == 3);
    CHECK(logs[pe].asked == logs[0].asked);
    CHECK(logs[pe].asked[0] == ((o[1].offset + (3u << 20) + kGranule - 1) / kGranule) * kGranule);
    CHECK(logs[pe].asked[2] <= kLimit);
    CHECK(logs[pe].capacity_after == logs[pe].asked[2]);
    CHECK(logs[pe].in_use_after == (3u << 20) + (5u << 20));
  }
}
