// Peer liveness monitor (see liveness.h).
#include "liveness.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdint>

#include "log.h"

namespace gshmemi {

namespace {

int open_pidfd(pid_t pid) {
#if defined(SYS_pidfd_open)
  return static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
#else
  (void)pid;
  errno = ENOSYS;
  return -1;
#endif
}

// kill(pid, 0): ESRCH means the process is gone (EPERM: it exists, owned by
// someone else, which cannot be a PE of ours but is not a death either).
bool process_gone(pid_t pid) { return kill(pid, 0) != 0 && errno == ESRCH; }

std::atomic<int> g_job_lost_pe{-1};

}  // namespace

int job_lost_pe() { return g_job_lost_pe.load(std::memory_order_acquire); }
void reset_job_lost_pe() { g_job_lost_pe.store(-1, std::memory_order_release); }

PeerMonitor::PeerMonitor(int my_pe, std::vector<pid_t> pids, int poll_period_ms)
    : my_pe_(my_pe), pids_(std::move(pids)), poll_period_ms_(poll_period_ms > 0 ? poll_period_ms : 100) {}

PeerMonitor::~PeerMonitor() {
  stop();
  for (int fd : pidfds_)
    if (fd >= 0) close(fd);
  if (wake_fd_ >= 0) close(wake_fd_);
}

int PeerMonitor::start() {
  wake_fd_ = eventfd(0, EFD_CLOEXEC);
  if (wake_fd_ < 0) {
    GSHMEMI_WARN("peer liveness: eventfd failed (errno %d); dead peers will not be detected", errno);
    return -1;
  }
  pidfds_.assign(pids_.size(), -1);
  uses_pidfds_ = true;
  for (std::size_t pe = 0; pe < pids_.size(); ++pe) {
    if (static_cast<int>(pe) == my_pe_) continue;
    pidfds_[pe] = open_pidfd(pids_[pe]);
    if (pidfds_[pe] < 0) {
      if (errno == ESRCH) {  // already gone before we could watch it
        declare_lost(static_cast<int>(pe), "its process had already ended");
        continue;
      }
      uses_pidfds_ = false;
    }
  }
  GSHMEMI_TRACE("peer liveness: watching %zu peer(s) through %s", pids_.size() - 1,
                uses_pidfds_ ? "pidfds" : "kill(pid, 0) probes");
  try {
    thread_ = std::thread([this] { run(); });
  } catch (...) {
    GSHMEMI_WARN("peer liveness: could not start the monitor thread; dead peers will not be detected");
    return -1;
  }
  return 0;
}

void PeerMonitor::stop() {
  if (stopping_.exchange(true)) return;
  if (wake_fd_ >= 0) {
    const uint64_t one = 1;
    ssize_t ignored = write(wake_fd_, &one, sizeof one);
    (void)ignored;
  }
  if (thread_.joinable()) thread_.join();
}

void PeerMonitor::set_abort_word(int *word) {
  abort_word_.store(word, std::memory_order_release);
  const int lost = job_lost_pe();
  if (word && lost >= 0) __atomic_store_n(word, lost + 1, __ATOMIC_SEQ_CST);
}

void PeerMonitor::set_loss_hook(std::function<void(int)> hook) { hook_ = std::move(hook); }

void PeerMonitor::declare_lost(int pe, const char *how) {
  if (expect_exits_.load(std::memory_order_acquire)) {
    GSHMEMI_TRACE("PE %d ended after finalize", pe);
    return;
  }
  int expected = -1;
  if (!g_job_lost_pe.compare_exchange_strong(expected, pe, std::memory_order_acq_rel)) return;  // reported once
  GSHMEMI_WARN("PE %d is gone (%s): gshmem calls that wait on it return GSHMEMX_ERROR_PEER_LOST and "
               "device waits on this PE stop",
               pe, how);
  if (int *word = abort_word_.load(std::memory_order_acquire))
    __atomic_store_n(word, pe + 1, __ATOMIC_SEQ_CST);
}

void PeerMonitor::run() {
  std::vector<pollfd> fds;
  std::vector<int> pe_of;  // fds[i] watches PE pe_of[i] (-1: the wake fd)
  fds.push_back({wake_fd_, POLLIN, 0});
  pe_of.push_back(-1);
  for (std::size_t pe = 0; pe < pidfds_.size(); ++pe)
    if (pidfds_[pe] >= 0) {
      fds.push_back({pidfds_[pe], POLLIN, 0});
      pe_of.push_back(static_cast<int>(pe));
    }
  bool notified = false;
  for (;;) {
    if (!notified && lost_pe() >= 0) {
      notified = true;
      if (hook_) hook_(lost_pe());
    }
    if (stopping_.load(std::memory_order_acquire)) break;
    const int ready = poll(fds.data(), fds.size(), uses_pidfds_ ? -1 : poll_period_ms_);
    if (stopping_.load(std::memory_order_acquire)) break;
    if (ready < 0 && errno != EINTR) {
      GSHMEMI_WARN("peer liveness: poll failed (errno %d); dead peers will no longer be detected", errno);
      break;
    }
    for (std::size_t i = 1; ready > 0 && i < fds.size(); ++i)
      if (fds[i].revents != 0) {
        declare_lost(pe_of[i], "its process ended");
        fds[i].fd = -1;  // poll ignores negative descriptors
      }
    if (!uses_pidfds_)
      for (std::size_t pe = 0; pe < pids_.size(); ++pe)
        if (static_cast<int>(pe) != my_pe_ && pidfds_[pe] < 0 && process_gone(pids_[pe]))
          declare_lost(static_cast<int>(pe), "its process ended");
  }
}

}  // namespace gshmemi
