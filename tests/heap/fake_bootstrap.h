// An in-process Bootstrap for CPU tests: N threads play N PEs. allgather and
// barrier rendezvous all of them through one shared exchange, so collective
// code runs exactly as it would across processes.
#pragma once

#include <condition_variable>
#include <cstring>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "bootstrap.h"

namespace gshmem_test {

class FakeExchange {
 public:
  explicit FakeExchange(int n_pes) : n_pes_(n_pes), slots_(static_cast<std::size_t>(n_pes)) {}
  int n_pes() const { return n_pes_; }

  // Every PE deposits its bytes; the last to arrive publishes the gathered
  // buffer and wakes the others (a generation count separates rounds).
  void allgather(int rank, const void *in, void *out, std::size_t bytes) {
    std::unique_lock<std::mutex> lock(mutex_);
    std::size_t generation = generation_;
    slots_[rank].assign(static_cast<const char *>(in), static_cast<const char *>(in) + bytes);
    if (++arrived_ == n_pes_) {
      gathered_.clear();
      for (auto &slot : slots_) gathered_.insert(gathered_.end(), slot.begin(), slot.end());
      arrived_ = 0;
      ++generation_;
      cv_.notify_all();
    } else {
      cv_.wait(lock, [&] { return generation_ != generation; });
    }
    std::memcpy(out, gathered_.data(), bytes * static_cast<std::size_t>(n_pes_));
    // The buffer is only rewritten by the next round, which cannot complete
    // before this PE joins it.
  }

 private:
  int n_pes_;
  std::mutex mutex_;
  std::condition_variable cv_;
  std::vector<std::vector<char>> slots_;
  std::vector<char> gathered_;
  int arrived_ = 0;
  std::size_t generation_ = 0;
};

class FakeBootstrap : public gshmemi::Bootstrap {
 public:
  FakeBootstrap(FakeExchange &exchange, int rank) : exchange_(exchange), rank_(rank) {}
  const char *name() const override { return "fake"; }
  int rank() const override { return rank_; }
  int size() const override { return exchange_.n_pes(); }
  int allgather(const void *in, void *out, std::size_t bytes) override {
    ++allgathers;
    exchange_.allgather(rank_, in, out, bytes);
    return 0;
  }
  int barrier() override {
    char nothing = 0;
    std::vector<char> sink(static_cast<std::size_t>(size()));
    exchange_.allgather(rank_, &nothing, sink.data(), 1);
    return 0;
  }
  void abort(int, const char *) override { aborted = true; }

  int allgathers = 0;
  bool aborted = false;

 private:
  FakeExchange &exchange_;
  int rank_;
};

// Runs body(boot) on n_pes threads, one FakeBootstrap each, and joins them.
inline void run_pes(int n_pes, const std::function<void(FakeBootstrap &)> &body) {
  FakeExchange exchange(n_pes);
  std::vector<std::thread> threads;
  for (int pe = 0; pe < n_pes; ++pe)
    threads.emplace_back([&, pe] {
      FakeBootstrap boot(exchange, pe);
      body(boot);
    });
  for (auto &t : threads) t.join();
}

}  // namespace gshmem_test
