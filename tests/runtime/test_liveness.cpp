// CPU: the peer liveness monitor (src/liveness.h) watching real processes.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "catch.hpp"
#include "liveness.h"

namespace {

// A child process that sleeps until killed.
pid_t start_sleeper() {
  const pid_t pid = fork();
  if (pid == 0) {
    for (;;) pause();
  }
  return pid;
}

// Waits up to `limit` for `done`; returns the time it took (or limit + 1 ms).
template <class Done>
std::chrono::milliseconds wait_for(Done done, std::chrono::milliseconds limit) {
  const auto start = std::chrono::steady_clock::now();
  while (!done()) {
    const auto spent = std::chrono::steady_clock::now() - start;
    if (spent > limit) return limit + std::chrono::milliseconds(1);
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start);
}

}  // namespace

TEST_CASE("a peer killed with SIGKILL is reported once, with its PE, its word and the hook", "[runtime][cpu]") {
  gshmemi::reset_job_lost_pe();
  const pid_t a = start_sleeper(), b = start_sleeper();
  REQUIRE(a > 0);
  REQUIRE(b > 0);
  // PEs: 0 = a, 1 = this process, 2 = b.
  gshmemi::PeerMonitor monitor(1, {a, getpid(), b}, 50);
  std::atomic<int> hook_calls{0}, hook_pe{-1};
  monitor.set_loss_hook([&](int pe) {
    hook_pe = pe;
    ++hook_calls;
  });
  int word = 0;
  monitor.set_abort_word(&word);
  REQUIRE(monitor.start() == 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  CHECK(monitor.lost_pe() == -1);
  CHECK(gshmemi::job_lost_pe() == -1);
  CHECK(__atomic_load_n(&word, __ATOMIC_SEQ_CST) == 0);

  kill(b, SIGKILL);
  // A pidfd reports at once; the kill(pid, 0) fallback once the process is
  // reaped and within its period. Either way well under a second.
  waitpid(b, nullptr, 0);
  const auto took = wait_for([&] { return hook_calls.load() > 0; }, std::chrono::milliseconds(2000));
  CHECK(took < std::chrono::milliseconds(1000));
  CHECK(monitor.lost_pe() == 2);
  CHECK(gshmemi::job_lost_pe() == 2);
  CHECK(hook_pe == 2);
  CHECK(__atomic_load_n(&word, __ATOMIC_SEQ_CST) == 3);  // 1 + the lost PE

  // A second death is not a second report: the first loss stands.
  kill(a, SIGKILL);
  waitpid(a, nullptr, 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  monitor.stop();
  CHECK(hook_calls == 1);
  CHECK(monitor.lost_pe() == 2);
  CHECK(__atomic_load_n(&word, __ATOMIC_SEQ_CST) == 3);
  gshmemi::reset_job_lost_pe();
}

TEST_CASE("after expect_exits a peer that ends is not a loss", "[runtime][cpu]") {
  gshmemi::reset_job_lost_pe();
  const pid_t a = start_sleeper();
  REQUIRE(a > 0);
  gshmemi::PeerMonitor monitor(0, {getpid(), a}, 50);
  int word = 0;
  monitor.set_abort_word(&word);
  REQUIRE(monitor.start() == 0);
  monitor.expect_exits();
  kill(a, SIGKILL);
  waitpid(a, nullptr, 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  CHECK(monitor.lost_pe() == -1);
  CHECK(gshmemi::job_lost_pe() == -1);
  CHECK(word == 0);
}

TEST_CASE("a peer already gone when watching starts is reported, and a late abort word is raised", "[runtime][cpu]") {
  gshmemi::reset_job_lost_pe();
  const pid_t a = start_sleeper();
  REQUIRE(a > 0);
  kill(a, SIGKILL);
  waitpid(a, nullptr, 0);  // reaped: the pid no longer exists
  gshmemi::PeerMonitor monitor(1, {a, getpid()}, 50);
  REQUIRE(monitor.start() == 0);
  const auto took = wait_for([&] { return monitor.lost_pe() == 0; }, std::chrono::milliseconds(2000));
  CHECK(took < std::chrono::milliseconds(1000));
  int word = 0;
  monitor.set_abort_word(&word);  // set after the loss: raised at once
  CHECK(word == 1);
  monitor.stop();
  gshmemi::reset_job_lost_pe();
}
