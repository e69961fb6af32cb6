// Time spent in a scope, added to cumulative counters that other threads
// read (the proxy's and the remote runtime's figures, gshmemx_remote_stats).
#pragma once

#include <atomic>
#include <chrono>

namespace gshmemi {

// On destruction adds the steady-clock nanoseconds since construction to
// `ns`, and 1 to `count` where one is given. Relaxed: the counters are
// figures, not synchronization.
class ScopedElapsed {
 public:
  explicit ScopedElapsed(std::atomic<unsigned long long> &ns, std::atomic<unsigned long long> *count = nullptr)
      : ns_(ns), count_(count), start_(std::chrono::steady_clock::now()) {}
  ~ScopedElapsed() {
    const auto d = std::chrono::steady_clock::now() - start_;
    ns_.fetch_add((unsigned long long)std::chrono::duration_cast<std::chrono::nanoseconds>(d).count(),
                  std::memory_order_relaxed);
    if (count_) count_->fetch_add(1, std::memory_order_relaxed);
  }
  ScopedElapsed(const ScopedElapsed &) = delete;
  ScopedElapsed &operator=(const ScopedElapsed &) = delete;

 private:
  std::atomic<unsigned long long> &ns_;
  std::atomic<unsigned long long> *count_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace gshmemi
