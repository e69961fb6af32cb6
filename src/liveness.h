// Peer liveness: noticing that another PE's process has ended.
//
// The PEs of a gshmem job share one node (their GPUs map each other's memory),
// so a peer's process can be watched directly: a pidfd (Linux 5.3+) becomes
// readable the moment the process ends, however it ends (SIGKILL, a crash,
// exit without gshmem_finalize). Where pidfds are unavailable, the monitor
// probes each peer with kill(pid, 0) a few times per GSHMEM_PEER_TIMEOUT.
// A peer that is alive but stuck is not "lost": GSHMEM_WAIT_TIMEOUT bounds
// device waits on it.
//
// When a peer is lost the monitor thread, once:
//   - logs "PE k is gone" (one WARN line, with this PE's prefix);
//   - records k in `lost_pe()` (host calls that wait on peers then return
//     GSHMEMX_ERROR_PEER_LOST instead of waiting);
//   - raises the device-visible abort word (mapped host memory that the
//     device waits read on their slow path; they print one line and trap);
//   - runs the loss hook (the runtime uses it to end on-stream waits that
//     no kernel watches).
#pragma once

#include <gshmem/detail/config.h>
#include <sys/types.h>

#include <atomic>
#include <functional>
#include <thread>
#include <vector>

namespace gshmemi {

// The first PE the monitor found gone in this job, or -1: the one record of
// a loss, read by the bootstrap modules' wait loops (through their open
// arguments), the runtime's host calls and the monitor itself; reset when a
// new job starts (gshmem_init). One monitor watches a job at a time.
GSHMEM_API int job_lost_pe();
GSHMEM_API void reset_job_lost_pe();

class GSHMEM_API PeerMonitor {
 public:
  // pids[pe] for every PE of the job (this PE's own entry is skipped).
  // poll_period_ms bounds detection where pidfds are unavailable.
  PeerMonitor(int my_pe, std::vector<pid_t> pids, int poll_period_ms);
  ~PeerMonitor();  // stops the thread
  PeerMonitor(const PeerMonitor &) = delete;
  PeerMonitor &operator=(const PeerMonitor &) = delete;

  // Starts watching. 0, or -1 when no thread could be started.
  int start();
  // Stops watching (idempotent). Deaths after this are not reported.
  void stop();
  // From now on peers may end normally (every PE passed finalize's last
  // collective): a process that ends is no longer a loss.
  void expect_exits() { expect_exits_.store(true, std::memory_order_release); }

  // Where to raise the abort word, once device memory exists: *word becomes
  // 1 + the lost PE. Raised at once if a peer was already lost.
  void set_abort_word(int *word);
  // Called once on the monitor thread after a loss is recorded.
  void set_loss_hook(std::function<void(int lost_pe)> hook);

  // The first PE found gone, or -1 (job_lost_pe()).
  int lost_pe() const { return job_lost_pe(); }
  // True when every peer is watched through a pidfd (else kill(pid, 0) polls).
  bool uses_pidfds() const { return uses_pidfds_; }

 private:
  void run();
  void declare_lost(int pe, const char *how);

  int my_pe_;
  std::vector<pid_t> pids_;
  std::vector<int> pidfds_;  // -1 where none could be opened
  int poll_period_ms_;
  int wake_fd_ = -1;         // eventfd: stop() wakes the thread through it
  bool uses_pidfds_ = false;
  std::atomic<bool> stopping_{false};
  std::atomic<bool> expect_exits_{false};
  std::atomic<int *> abort_word_{nullptr};
  std::function<void(int)> hook_;
  std::thread thread_;
};

}  // namespace gshmemi
