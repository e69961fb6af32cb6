// CPU tests of counted writes (detail/update_counted.h): the modular
// compare, NVSHMEM's argument rules, and the counter wait released by host
// threads playing several producers that write disjoint regions and add
// their byte counts to one counter that wraps. No GPU needed.
#include "catch.hpp"

#include <gshmem/detail/update_counted.h>

#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

namespace d = gshmem::detail;
using gshmem::memory_order;
using gshmem::thread_scope;

TEST_CASE("counted_reached: modulo 2^64, within half the range, as NVSHMEM 3.8 compares", "[update][cpu]") {
  const uint64_t half = (uint64_t)1 << 63;
  CHECK(d::counted_reached(0, 0));
  CHECK(d::counted_reached(100, 64));
  CHECK_FALSE(d::counted_reached(63, 64));
  // Across the wrap: a counter that passed 2^64 has reached an expectation
  // just below it, and one just below 2^64 has not reached one just past.
  CHECK(d::counted_reached(5, (uint64_t)0 - 16));
  CHECK_FALSE(d::counted_reached((uint64_t)0 - 16, 5));
  // The edge of the half range: a difference of 2^63 - 1 is reached, 2^63 is not.
  CHECK(d::counted_reached(half - 1, 0));
  CHECK_FALSE(d::counted_reached(half, 0));
  CHECK(d::counted_reached(half + 7, 8));
  CHECK(d::counted_reached(7, half + 8));        // 2^63 - 1 ahead, across the wrap: reached
  CHECK_FALSE(d::counted_reached(7, half + 7));  // exactly 2^63 apart: not
}

TEST_CASE("counted_put_problem: NVSHMEM's argument rules, in its order", "[update][cpu]") {
  alignas(256) static unsigned char heap[4096];
  unsigned char *base = heap;
  const unsigned long long span = sizeof heap;
  alignas(16) static unsigned char source[64];
  uint64_t *counter = reinterpret_cast<uint64_t *>(base + 2048);
  auto verdict = [&](const void *dest, const void *src, size_t bytes, const uint64_t *c, int pe, bool device = true) {
    return d::counted_put_problem(base, span, 4, dest, src, bytes, c, pe, device);
  };
  using p = d::counted_problem;
  CHECK(verdict(base, source, 64, counter, 1) == p::none);
  CHECK(verdict(base, source, 0, counter, 3) == p::none);
  CHECK(verdict(base, source, 64, counter, 4) == p::bad_pe);
  CHECK(verdict(base, source, 64, counter, -1) == p::bad_pe);
  CHECK(verdict(base + 4096 - 32, source, 64, counter, 1) == p::dest_outside);  // runs past the heap
  CHECK(verdict(source, source, 16, counter, 1) == p::dest_outside);
  CHECK(verdict(nullptr, source, 16, counter, 1) == p::dest_outside);
  CHECK(verdict(base, source, 16, reinterpret_cast<uint64_t *>(base + 4096 - 4), 1) == p::counter_outside);
  CHECK(verdict(base, source, 16, nullptr, 1) == p::counter_outside);
  CHECK(verdict(base, nullptr, 16, counter, 1) == p::bad_source);
  CHECK(verdict(base, source, 16, counter, 1, false) == p::bad_source);
  CHECK(verdict(base, reinterpret_cast<const void *>(~(uintptr_t)0 - 7), 16, counter, 1) == p::bad_source);
  CHECK(verdict(base + 2048 - 256, source, 512, counter, 1) == p::counter_in_dest);
  CHECK(verdict(base + 2048 - 256, source, 256, counter, 1) == p::none);  // ends where the counter starts
  CHECK(verdict(base, source, 15, counter, 1) == p::unaligned_data);
  CHECK(verdict(base + 8, source, 16, counter, 1) == p::unaligned_data);
  CHECK(verdict(base, source + 4, 16, counter, 1) == p::unaligned_data);
  CHECK(verdict(base, source, 16, counter + 1, 1) == p::unaligned_counter);
  CHECK(verdict(base, source, 16, reinterpret_cast<uint64_t *>(base + 2048 + 128), 1) == p::unaligned_counter);
  // Each problem has a text of its own.
  for (int k = 1; k <= (int)p::unaligned_counter; ++k)
    CHECK(std::string(d::counted_problem_text((p)k)) != d::counted_problem_text(p::none));
}

TEST_CASE("wait_counted: several producers, disjoint regions, one counter that wraps, many epochs",
          "[update][cpu]") {
  constexpr int kProducers = 4, kEpochs = 200;
  constexpr size_t kRegion = 64;
  std::vector<unsigned char> payload(kProducers * kRegion);
  uint64_t counter = (uint64_t)0 - kProducers * kRegion * (kEpochs / 2) - 24;  // wraps half-way
  const uint64_t base = counter;
  std::atomic<int> checked{-1};  // the last epoch the receiver checked: the producers' flow control
  std::vector<std::thread> producers;
  for (int p = 0; p < kProducers; ++p)
    producers.emplace_back([&, p] {
      for (int e = 0; e < kEpochs; ++e) {
        while (checked.load(std::memory_order_acquire) < e - 1) std::this_thread::yield();
        for (size_t i = 0; i < kRegion; ++i)
          d::atomic_store<memory_order::relaxed, thread_scope::system>(&payload[p * kRegion + i],
                                                                       (unsigned char)(e * 7 + p * 13 + i));
        (void)d::atomic_fetch_add<memory_order::release, thread_scope::system>(&counter, (uint64_t)kRegion);
      }
    });
  const d::wait_context ctx{0, 0};
  size_t wrong = 0;
  uint64_t beyond = 0;
  for (int e = 0; e < kEpochs; ++e) {
    const uint64_t expected = base + (uint64_t)(e + 1) * kProducers * kRegion;
    const uint64_t seen = d::wait_counted(ctx, "gshmemx_signal_counted_wait_until", &counter, expected);
    beyond += seen != expected;
    for (int p = 0; p < kProducers; ++p)
      for (size_t i = 0; i < kRegion; ++i)
        wrong += d::atomic_load<memory_order::relaxed, thread_scope::system>(&payload[p * kRegion + i]) !=
                 (unsigned char)(e * 7 + p * 13 + i);
    checked.store(e, std::memory_order_release);
  }
  for (auto &t : producers) t.join();
  CHECK(wrong == 0);
  CHECK(beyond == 0);
  CHECK(counter == base + (uint64_t)kEpochs * kProducers * kRegion);
  CHECK(counter < base);  // it wrapped
}
