// Registration of the program's own buffers, the agreement half, on the
// CPU: threads play PEs over a fake bootstrap, and the mapping step (CUDA in
// the library) is a callback. Agreeing PEs get one window offset; sizes that
// differ, a refusal on one PE, a double registration, a full window, an
// unknown or wrongly sized unregister, and a mapping that fails on one PE all
// fail on every PE, name the PE and the problem, and change nothing.
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
constexpr std::size_t kGranule = 2u << 20;          // a VMM granularity
constexpr std::size_t kWindow = 8 * kGranule;        // the registration window
// Pretend addresses: each PE's own buffers and its window differ.
std::uintptr_t user_buffer(int pe, int index) {
  return 0x7e0000000000ull + std::uintptr_t(pe) * 0x10000000000ull + std::uintptr_t(index) * 0x100000000ull;
}
std::uintptr_t window_base(int pe) { return 0x7f0000000000ull + std::uintptr_t(pe) * 0x1000000000ull; }

using gshmem_test::contains;

int mapped_ok(std::size_t, std::size_t, std::string *) { return 0; }

struct PeLog {
  std::vector<HeapOutcome> outcomes;
  std::size_t registered_after = 0;
  std::size_t window_in_use_after = 0;
  int maps = 0;
};

}  // namespace

TEST_CASE("agreeing PEs register at the same window offsets, aligned to the granularity", "[heap][registration]") {
  constexpr int kPes = 3;
  std::vector<PeLog> logs(kPes);
  run_pes(kPes, [&](FakeBootstrap &boot) {
    CollectiveHeap heap(kCapacity, kPrefix, kWindow, kGranule);
    PeLog &log = logs[boot.rank()];
    const int pe = boot.rank();
    auto map = [&](std::size_t offset, std::size_t bytes, std::string *) {
      ++log.maps;
      return offset % kGranule == 0 && bytes >= kGranule ? 0 : GSHMEMX_ERROR_INTERNAL;
    };
    log.outcomes.push_back(heap.register_buffer(boot, user_buffer(pe, 0), kGranule, 0, "", map));
    log.outcomes.push_back(heap.malloc(boot, 4096));  // the heap is separate
    log.outcomes.push_back(heap.register_buffer(boot, user_buffer(pe, 1), 3 * kGranule, 0, "", map));
    const HeapOutcome first = log.outcomes[0];
    log.outcomes.push_back(heap.unregister_buffer(boot, window_base(pe), window_base(pe) + first.offset, kGranule));
    // The freed range is taken again first.
    log.outcomes.push_back(heap.register_buffer(boot, user_buffer(pe, 0), kGranule, 0, "", map));
    log.registered_after = heap.registered_buffers();
    log.window_in_use_after = heap.window().bytes_in_use();
  });
  for (int pe = 0; pe < kPes; ++pe) {
    INFO("PE " << pe);
    const auto &o = logs[pe].outcomes;
    for (const auto &outcome : o) {
      INFO(outcome.message);
      CHECK(outcome.code == 0);
    }
    CHECK(o[0].has_block);
    CHECK(o[0].offset == 0);
    CHECK(o[1].offset == kPrefix);
    CHECK(o[2].offset == kGranule);
    CHECK(o[3].offset == 0);
    CHECK(o[3].bytes == kGranule);
    CHECK(o[4].offset == 0);
    for (std::size_t i = 0; i < o.size(); ++i) CHECK(o[i].offset == logs[0].outcomes[i].offset);
    CHECK(logs[pe].maps == 3);
    CHECK(logs[pe].registered_after == 2);
    CHECK(logs[pe].window_in_use_after == 4 * kGranule);
  }
}

TEST_CASE("registrations that disagree fail on every PE, naming the PEs and the problem", "[heap][registration]") {
  constexpr int kPes = 3;
  std::vector<PeLog> logs(kPes);
  run_pes(kPes, [&](FakeBootstrap &boot) {
    CollectiveHeap heap(kCapacity, kPrefix, kWindow, kGranule);
    PeLog &log = logs[boot.rank()];
    const int pe = boot.rank();
    auto map = [&](std::size_t, std::size_t, std::string *) {
      ++log.maps;
      return 0;
    };
    // #1: PE 2 registers another size.
    log.outcomes.push_back(
        heap.register_buffer(boot, user_buffer(pe, 0), pe == 2 ? 2 * kGranule : kGranule, 0, "", map));
    // #2: PE 1's buffer is refused by its own checks (not VMM memory, say).
    log.outcomes.push_back(heap.register_buffer(boot, user_buffer(pe, 0), kGranule,
                                                pe == 1 ? GSHMEMX_ERROR_INVALID_VALUE : 0,
                                                pe == 1 ? "pretend: not a VMM allocation" : "", map));
    // #3: every PE's buffer is refused.
    log.outcomes.push_back(
        heap.register_buffer(boot, user_buffer(pe, 0), kGranule, GSHMEMX_ERROR_INVALID_VALUE, "pretend: size", map));
    // #4: size 0.
    log.outcomes.push_back(heap.register_buffer(boot, user_buffer(pe, 0), 0, 0, "", map));
    // #5: PE 0 registers while the others allocate from the heap.
    if (pe == 0)
      log.outcomes.push_back(heap.register_buffer(boot, user_buffer(pe, 0), kGranule, 0, "", map));
    else
      log.outcomes.push_back(heap.malloc(boot, 4096));
    // #6: back in step.
    log.outcomes.push_back(heap.register_buffer(boot, user_buffer(pe, 0), kGranule, 0, "", map));
    log.registered_after = heap.registered_buffers();
    log.window_in_use_after = heap.window().bytes_in_use();
  });
  for (int pe = 0; pe < kPes; ++pe) {
    INFO("PE " << pe);
    const auto &o = logs[pe].outcomes;
    INFO(o[0].message << "\n" << o[1].message << "\n" << o[2].message << "\n" << o[3].message << "\n"
                      << o[4].message);
    CHECK(o[0].code == GSHMEMX_ERROR_SYMMETRY);
    CHECK(contains(o[0].message, "PE 2 asked gshmemx_buffer_register_symmetric(<buffer>, 4194304) but PE 0 asked "
                                 "gshmemx_buffer_register_symmetric(<buffer>, 2097152) (call #1)"));
    CHECK(o[1].code == GSHMEMX_ERROR_INVALID_VALUE);
    CHECK(contains(o[1].message, "PE 1 could not do gshmemx_buffer_register_symmetric"));
    if (pe == 1) CHECK(contains(o[1].message, "pretend: not a VMM allocation"));
    CHECK(o[2].code == GSHMEMX_ERROR_INVALID_VALUE);
    CHECK(contains(o[2].message, "pretend: size"));
    CHECK(o[3].code == GSHMEMX_ERROR_INVALID_VALUE);
    CHECK(contains(o[3].message, "size is 0"));
    CHECK(o[4].code == GSHMEMX_ERROR_SYMMETRY);
    CHECK(contains(o[4].message, "gshmem_malloc(4096) but PE 0 asked gshmemx_buffer_register_symmetric"));
    CHECK(o[5].code == 0);
    CHECK(o[5].offset == 0);  // nothing was left behind by the failed calls
    CHECK(logs[pe].maps == 1);
    CHECK(logs[pe].registered_after == 1);
    CHECK(logs[pe].window_in_use_after == kGranule);
  }
}

TEST_CASE("a buffer registered twice, a full window and bad unregisters are refused", "[heap][registration]") {
  constexpr int kPes = 2;
  std::vector<PeLog> logs(kPes);
  run_pes(kPes, [&](FakeBootstrap &boot) {
    CollectiveHeap heap(kCapacity, kPrefix, kWindow, kGranule);
    PeLog &log = logs[boot.rank()];
    const int pe = boot.rank();
    const std::uintptr_t window = window_base(pe);
    HeapOutcome a = heap.register_buffer(boot, user_buffer(pe, 0), 2 * kGranule, 0, "", mapped_ok);
    log.outcomes.push_back(a);
    // The same buffer again, and one that overlaps its second half.
    log.outcomes.push_back(heap.register_buffer(boot, user_buffer(pe, 0), 2 * kGranule, 0, "", mapped_ok));
    log.outcomes.push_back(heap.register_buffer(boot, user_buffer(pe, 0) + kGranule, 2 * kGranule, 0, "", mapped_ok));
    // More than the window holds (6 granules are free).
    log.outcomes.push_back(heap.register_buffer(boot, user_buffer(pe, 1), 7 * kGranule, 0, "", mapped_ok));
    // Unregister: an address that was never returned, the wrong size, the
    // user's own address instead of the symmetric one.
    log.outcomes.push_back(heap.unregister_buffer(boot, window, window + a.offset + kGranule, kGranule));
    log.outcomes.push_back(heap.unregister_buffer(boot, window, window + a.offset, kGranule));
    log.outcomes.push_back(heap.unregister_buffer(boot, window, user_buffer(pe, 0), 2 * kGranule));
    // PE 1 names another buffer than PE 0.
    HeapOutcome b = heap.register_buffer(boot, user_buffer(pe, 1), kGranule, 0, "", mapped_ok);
    log.outcomes.push_back(heap.unregister_buffer(boot, window, window + (pe == 1 ? b.offset : a.offset),
                                                  pe == 1 ? kGranule : 2 * kGranule));
    log.registered_after = heap.registered_buffers();
    // Then both work, and the window is empty again.
    log.outcomes.push_back(heap.unregister_buffer(boot, window, window + a.offset, 2 * kGranule));
    log.outcomes.push_back(heap.unregister_buffer(boot, window, window + b.offset, kGranule));
    log.outcomes.push_back(heap.unregister_buffer(boot, window, window + b.offset, kGranule));  // twice
    log.window_in_use_after = heap.window().bytes_in_use();
  });
  for (int pe = 0; pe < kPes; ++pe) {
    INFO("PE " << pe);
    const auto &o = logs[pe].outcomes;
    std::string messages;
    for (const auto &outcome : o) messages += outcome.message + "\n";
    INFO(messages);
    CHECK(o[0].code == 0);
    CHECK(o[1].code == GSHMEMX_ERROR_INVALID_VALUE);
    CHECK(contains(o[1].message, "registered already"));
    CHECK(o[2].code == GSHMEMX_ERROR_INVALID_VALUE);
    CHECK(contains(o[2].message, "overlaps"));
    CHECK(o[3].code == GSHMEMX_ERROR_OUT_OF_MEMORY);
    CHECK(contains(o[3].message, "GSHMEM_REGISTRATION_SPACE"));
    CHECK(o[4].code == GSHMEMX_ERROR_NOT_SYMMETRIC);
    CHECK(contains(o[4].message, "not an address gshmemx_buffer_register_symmetric returned"));
    CHECK(o[5].code == GSHMEMX_ERROR_INVALID_VALUE);
    CHECK(contains(o[5].message, "was registered with size 4194304, not 2097152"));
    CHECK(o[6].code == GSHMEMX_ERROR_NOT_SYMMETRIC);
    CHECK(o[7].code == GSHMEMX_ERROR_SYMMETRY);
    CHECK(contains(o[7].message, "PE 1 asked gshmemx_buffer_unregister_symmetric(<buffer at registration offset "));
    CHECK(logs[pe].registered_after == 2);  // nothing was unregistered by the failed calls
    CHECK(o[8].code == 0);
    CHECK(o[9].code == 0);
    CHECK(o[10].code == GSHMEMX_ERROR_NOT_SYMMETRIC);
    CHECK(logs[pe].window_in_use_after == 0);
  }
}

TEST_CASE("a mapping that fails on one PE is undone on every PE", "[heap][registration]") {
  constexpr int kPes = 3;
  std::vector<PeLog> logs(kPes);
  run_pes(kPes, [&](FakeBootstrap &boot) {
    CollectiveHeap heap(kCapacity, kPrefix, kWindow, kGranule);
    PeLog &log = logs[boot.rank()];
    const int pe = boot.rank();
    log.outcomes.push_back(heap.register_buffer(boot, user_buffer(pe, 0), kGranule, 0, "",
                                                [pe](std::size_t, std::size_t, std::string *why) {
                                                  if (pe != 1) return 0;
                                                  *why = "pretend cuMemMap failed";
                                                  return GSHMEMX_ERROR_CUDA;
                                                }));
    log.registered_after = heap.registered_buffers();
    // The same buffer registers now: nothing of the failed call is left.
    log.outcomes.push_back(heap.register_buffer(boot, user_buffer(pe, 0), kGranule, 0, "", mapped_ok));
    log.window_in_use_after = heap.window().bytes_in_use();
  });
  for (int pe = 0; pe < kPes; ++pe) {
    INFO("PE " << pe);
    const auto &o = logs[pe].outcomes;
    INFO(o[0].message);
    CHECK(o[0].code == GSHMEMX_ERROR_CUDA);
    CHECK_FALSE(o[0].has_block);
    if (pe == 1) CHECK(contains(o[0].message, "pretend cuMemMap failed"));
    else CHECK(contains(o[0].message, "failed on PE 1"));
    CHECK(logs[pe].registered_after == 0);
    CHECK(o[1].code == 0);
    CHECK(o[1].offset == 0);
    CHECK(logs[pe].window_in_use_after == kGranule);
  }
}

TEST_CASE("without a window every registration is refused alike", "[heap][registration]") {
  constexpr int kPes = 2;
  std::vector<PeLog> logs(kPes);
  run_pes(kPes, [&](FakeBootstrap &boot) {
    CollectiveHeap heap(kCapacity, kPrefix);
    logs[boot.rank()].outcomes.push_back(
        heap.register_buffer(boot, user_buffer(boot.rank(), 0), kGranule, 0, "", mapped_ok));
  });
  for (int pe = 0; pe < kPes; ++pe) {
    const HeapOutcome &o = logs[pe].outcomes[0];
    INFO(o.message);
    CHECK(o.code == GSHMEMX_ERROR_OUT_OF_MEMORY);
    CHECK(contains(o.message, "registration space is full"));
  }
}
