// The socket bootstrap: jobs started from a gshmem unique id over plain TCP,
// without NCCL or MPI (built into libgshmem).
//
// gshmemx_get_uniqueid (with GSHMEM_UNIQUEID_BOOTSTRAP=socket, the default)
// opens a listening socket in the calling process and writes its address
// (IPv4 host:port) and a random job tag into the id. No thread serves it:
// the process that made the id is the job's rendezvous ("hub") when it calls
// gshmemx_init_attr with that id, whatever its rank. Every other PE connects
// to the hub and sends hello {tag, rank, nranks}; the hub checks them (a
// wrong tag is refused and the hub keeps waiting: it is not of this job; a
// duplicate rank or another nranks fails the whole job, every connected PE
// told why), and once all nranks-1 are in, welcomes them and closes the
// listener. The connections then carry the collectives, in a star: each PE
// sends its block to the hub, the hub answers every PE with the whole result.
// The idea of a TCP rendezvous hosted by the id's maker is NVSHMEM's
// (whose unique-id bootstrap is plain sockets); the protocol here is our own.
//
// Bounds: a connect is retried while refused, and the hub waits for ranks,
// for at most GSHMEM_BOOTSTRAP_TIMEOUT; then the error names what is missing.
// Peer loss: a PE's connection closing (its process ended: the kernel closes
// its sockets) is seen by the hub at once, even while other PEs are still
// computing; the hub tells every other PE which PE is gone, and all of them
// return GSHMEMX_ERROR_PEER_LOST from that collective and every later one.
// A PE whose hub is gone reports the hub's rank. Collectives also give up
// when the runtime's liveness monitor reports a lost PE (job_lost_pe).
// Collectives have no time bound otherwise: PEs may legitimately compute for
// long between them.
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "../bootstrap_loader.h"
#include "../env.h"
#include "../liveness.h"
#include "../log.h"

namespace gshmemi {

namespace {

// ------------------------------------------------------------ the id's bytes
constexpr char kIdMagic[8] = {'g', 's', 'h', 'm', 's', 'o', 'c', 'k'};
constexpr uint32_t kIdLayout = 1;
constexpr std::size_t kTagBytes = 16;

struct SocketId {
  char magic[8];
  uint32_t layout;
  uint32_t family;        // AF_INET
  uint8_t tag[kTagBytes]; // random: tells this job's connections from strays
  uint8_t address[16];    // IPv4 in the first 4 bytes, network order
  uint16_t port;          // network order
  uint16_t reserved;
  int32_t maker_pid;      // for messages only
};
static_assert(sizeof(SocketId) <= GSHMEMX_UNIQUEID_BYTES, "the socket id must fit a gshmemx_uniqueid_t");

std::string address_text(const SocketId &id) {
  char host[INET_ADDRSTRLEN] = "?";
  inet_ntop(AF_INET, id.address, host, sizeof host);
  return std::string(host) + ":" + std::to_string(ntohs(id.port));
}

// --------------------------------------------------------------- listeners
// Listening sockets made by gshmemx_get_uniqueid in this process, until the
// job they serve has assembled. The pid tells a forked child (which inherits
// the table) that it is not the id's maker.
struct Listener {
  uint8_t tag[kTagBytes];
  int fd;
  pid_t pid;
};
std::mutex listeners_mutex;
std::vector<Listener> listeners;

// The listening fd for `id` if this process made it (removed from the table:
// the caller owns it now), else -1.
int take_listener(const SocketId &id) {
  std::lock_guard<std::mutex> lock(listeners_mutex);
  for (auto it = listeners.begin(); it != listeners.end(); ++it)
    if (it->pid == getpid() && std::memcmp(it->tag, id.tag, kTagBytes) == 0) {
      const int fd = it->fd;
      listeners.erase(it);
      return fd;
    }
  return -1;
}

// ------------------------------------------------------------ wire format
enum FrameKind : uint32_t {
  kHello = 1,    // PE -> hub: HelloBody
  kWelcome = 2,  // hub -> PE: the job is complete
  kRefuse = 3,   // hub -> PE: text saying why the job cannot start; code in `code`
  kContrib = 4,  // PE -> hub: this PE's block of collective `seq`
  kResult = 5,   // hub -> PE: every block of collective `seq`
  kLost = 6,     // hub -> PE: PE `pe` is gone
  kFail = 7,     // hub -> PE: collective `seq` failed with `code` (text follows)
};

struct Frame {
  uint32_t kind;
  int32_t pe;
  int32_t code;
  uint32_t reserved;
  uint64_t seq;
  uint64_t bytes;  // payload that follows
};

struct HelloBody {
  uint8_t tag[kTagBytes];
  int32_t rank;
  int32_t nranks;
  int64_t pid;
};

using Clock = std::chrono::steady_clock;

int ms_left(Clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
  return left < 0 ? 0 : static_cast<int>(left > 100 ? 100 : left);
}

void tune_socket(int fd) {
  const int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  // A peer host that vanishes without closing (power, network) is noticed
  // after about 10 + 3*2 s.
  setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof one);
  const int idle = 10, interval = 2, count = 3;
  setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof idle);
  setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &interval, sizeof interval);
  setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &count, sizeof count);
}

// Results of moving bytes on a connection.
enum class Io { kDone, kClosed, kTimeout, kLostElsewhere };

// Sends all of `data`, waiting for room; gives up when the connection
// closes, at `deadline` (if given) or when the runtime reports a lost PE.
Io send_all(int fd, const void *data, std::size_t bytes, const Clock::time_point *deadline = nullptr) {
  const char *p = static_cast<const char *>(data);
  while (bytes) {
    const ssize_t n = ::send(fd, p, bytes, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) {
      p += n;
      bytes -= static_cast<std::size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) return Io::kClosed;
    if (job_lost_pe() >= 0) return Io::kLostElsewhere;
    if (deadline && Clock::now() >= *deadline) return Io::kTimeout;
    pollfd pfd{fd, POLLOUT, 0};
    ::poll(&pfd, 1, deadline ? ms_left(*deadline) : 100);
  }
  return Io::kDone;
}

// Receives exactly `bytes`; gives up like send_all.
Io recv_all(int fd, void *data, std::size_t bytes, const Clock::time_point *deadline = nullptr) {
  char *p = static_cast<char *>(data);
  while (bytes) {
    const ssize_t n = ::recv(fd, p, bytes, MSG_DONTWAIT);
    if (n > 0) {
      p += n;
      bytes -= static_cast<std::size_t>(n);
      continue;
    }
    if (n == 0) return Io::kClosed;
    if (errno == EINTR) continue;
    if (errno != EAGAIN && errno != EWOULDBLOCK) return Io::kClosed;
    if (job_lost_pe() >= 0) return Io::kLostElsewhere;
    if (deadline && Clock::now() >= *deadline) return Io::kTimeout;
    pollfd pfd{fd, POLLIN, 0};
    ::poll(&pfd, 1, deadline ? ms_left(*deadline) : 100);
  }
  return Io::kDone;
}

Io send_frame(int fd, const Frame &frame, const void *payload, const Clock::time_point *deadline = nullptr) {
  Io io = send_all(fd, &frame, sizeof frame, deadline);
  if (io == Io::kDone && frame.bytes) io = send_all(fd, payload, frame.bytes, deadline);
  return io;
}

Io send_text(int fd, uint32_t kind, int code, const std::string &text) {
  Frame f{};
  f.kind = kind;
  f.code = code;
  f.bytes = text.size();
  const Clock::time_point deadline = Clock::now() + std::chrono::seconds(2);
  return send_frame(fd, f, text.data(), &deadline);
}

// ------------------------------------------------------------- addresses

// The IPv4 address to listen on (see GSHMEM_BOOTSTRAP_ADDRESS in env.def).
int choose_address(const std::string &wanted, in_addr *out) {
  in_addr parsed{};
  if (!wanted.empty() && inet_pton(AF_INET, wanted.c_str(), &parsed) == 1) {
    *out = parsed;
    return GSHMEM_SUCCESS;
  }
  ifaddrs *list = nullptr;
  if (getifaddrs(&list) != 0)
    return GSHMEMI_ERROR(GSHMEMX_ERROR_BOOTSTRAP, "socket bootstrap: getifaddrs failed: %s", std::strerror(errno));
  bool found = false;
  std::string seen;
  for (ifaddrs *a = list; a && !found; a = a->ifa_next) {
    if (!a->ifa_addr || a->ifa_addr->sa_family != AF_INET || !(a->ifa_flags & IFF_UP)) continue;
    seen += (seen.empty() ? "" : ", ") + std::string(a->ifa_name);
    const bool match = wanted.empty() ? !(a->ifa_flags & IFF_LOOPBACK) : wanted == a->ifa_name;
    if (match) {
      *out = reinterpret_cast<sockaddr_in *>(a->ifa_addr)->sin_addr;
      found = true;
    }
  }
  freeifaddrs(list);
  if (found) return GSHMEM_SUCCESS;
  if (!wanted.empty())
    return GSHMEMI_ERROR(GSHMEMX_ERROR_ENVIRONMENT,
                         "GSHMEM_BOOTSTRAP_ADDRESS=%s is neither an IPv4 address nor an up interface with "
                         "one (up IPv4 interfaces: %s)",
                         wanted.c_str(), seen.empty() ? "none" : seen.c_str());
  out->s_addr = htonl(INADDR_LOOPBACK);
  GSHMEMI_INFO("socket bootstrap: no up non-loopback IPv4 interface; the rendezvous listens on 127.0.0.1");
  return GSHMEM_SUCCESS;
}

int read_settings(Env *settings) {
  std::string problem;
  if (load_env(settings, &problem) != GSHMEM_SUCCESS)
    return GSHMEMI_ERROR(GSHMEMX_ERROR_ENVIRONMENT, "%s", problem.c_str());
  return GSHMEM_SUCCESS;
}

// Connects to the hub, retrying while it refuses, until `deadline`.
int connect_to_hub(const SocketId &id, int rank, double timeout_s, Clock::time_point deadline, int *out) {
  sockaddr_in hub{};
  hub.sin_family = AF_INET;
  std::memcpy(&hub.sin_addr, id.address, 4);
  hub.sin_port = id.port;
  int last_errno = 0;
  while (true) {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0)
      return GSHMEMI_ERROR(GSHMEMX_ERROR_BOOTSTRAP, "socket bootstrap (PE %d): socket() failed: %s", rank,
                           std::strerror(errno));
    int rc = ::connect(fd, reinterpret_cast<sockaddr *>(&hub), sizeof hub);
    if (rc != 0 && errno == EINPROGRESS) {
      pollfd pfd{fd, POLLOUT, 0};
      while ((rc = ::poll(&pfd, 1, ms_left(deadline))) == 0 && Clock::now() < deadline) {
      }
      int err = ETIMEDOUT;
      socklen_t len = sizeof err;
      if (rc > 0) getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
      rc = err == 0 ? 0 : -1;
      errno = err;
    }
    if (rc == 0) {
      tune_socket(fd);
      *out = fd;
      return GSHMEM_SUCCESS;
    }
    last_errno = errno;
    ::close(fd);
    if (Clock::now() >= deadline) break;
    ::poll(nullptr, 0, 100);  // refused: the maker may not be listening yet
  }
  return GSHMEMI_ERROR(GSHMEMX_ERROR_BOOTSTRAP,
                       "socket bootstrap (PE %d): cannot reach the job's rendezvous at %s (made by process %d) "
                       "within %.0f s (GSHMEM_BOOTSTRAP_TIMEOUT): %s. Is the process that made the id alive, and "
                       "does it take part in this job's init? Is that address reachable from here "
                       "(GSHMEM_BOOTSTRAP_ADDRESS where the id is made)?",
                       rank, address_text(id).c_str(), id.maker_pid, timeout_s, std::strerror(last_errno));
}

// ----------------------------------------------------------------- module
class SocketBootstrap final : public Bootstrap {
 public:
  SocketBootstrap(int rank, int size, int hub_rank) : rank_(rank), size_(size), hub_rank_(hub_rank) {}
  ~SocketBootstrap() override {
    for (int fd : peer_fd_)
      if (fd >= 0) ::close(fd);
    if (hub_fd_ >= 0) ::close(hub_fd_);
  }
  const char *name() const override { return "socket"; }
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  int allgather(const void *in, void *out, std::size_t bytes) override {
    if (lost_pe_ >= 0) return GSHMEMX_ERROR_PEER_LOST;
    if (failed_) return GSHMEMX_ERROR_BOOTSTRAP;
    ++seq_;
    if (size_ == 1) {
      if (bytes) std::memmove(out, in, bytes);
      return GSHMEM_SUCCESS;
    }
    return is_hub() ? hub_allgather(in, out, bytes) : peer_allgather(in, out, bytes);
  }
  int barrier() override {
    char token = 1;
    std::vector<char> all(static_cast<std::size_t>(size_));
    return allgather(&token, all.data(), 1);
  }
  void abort(int code, const char *why) override {
    // The process ends; its connections close, so the hub (or, when this is
    // the hub, every PE) sees it gone at the current or next collective.
    GSHMEMI_WARN("socket bootstrap: PE %d ends the job: %s", rank_, why ? why : "");
    std::fflush(nullptr);
    std::_Exit(code);
  }

  // The hub's side of assembling the job. Owns listen_fd.
  int assemble_as_hub(int listen_fd, const SocketId &id, double timeout_s);
  // A PE's side: connect, hello, wait for welcome.
  int join(const SocketId &id, double timeout_s);

 private:
  bool is_hub() const { return rank_ == hub_rank_; }
  int hub_allgather(const void *in, void *out, std::size_t bytes);
  int peer_allgather(const void *in, void *out, std::size_t bytes);
  int lost(int pe, const char *how);
  int hub_fails_job(int code, const std::string &why);

  int rank_, size_, hub_rank_;
  std::vector<int> peer_fd_;  // hub only: the connection of each PE (-1 for itself)
  int hub_fd_ = -1;           // other PEs: the connection to the hub
  uint64_t seq_ = 0;
  int lost_pe_ = -1;
  bool failed_ = false;
};

// Records that `pe` is gone (once) and, on the hub, tells every other PE.
int SocketBootstrap::lost(int pe, const char *how) {
  if (lost_pe_ < 0) {
    lost_pe_ = pe;
    GSHMEMI_WARN("socket bootstrap: PE %d is gone (%s) while PE %d waited in a collective; this and every "
                 "later bootstrap collective returns GSHMEMX_ERROR_PEER_LOST",
                 pe, how, rank_);
    if (is_hub()) {
      Frame f{};
      f.kind = kLost;
      f.pe = pe;
      f.seq = seq_;
      const Clock::time_point deadline = Clock::now() + std::chrono::seconds(2);
      for (int r = 0; r < size_; ++r)
        if (r != pe && peer_fd_[r] >= 0) send_frame(peer_fd_[r], f, nullptr, &deadline);
    }
  }
  return GSHMEMX_ERROR_PEER_LOST;
}

int SocketBootstrap::hub_fails_job(int code, const std::string &why) {
  failed_ = true;
  for (int fd : peer_fd_)
    if (fd >= 0) send_text(fd, kFail, code, why);
  return GSHMEMI_ERROR(code, "socket bootstrap (PE %d, the rendezvous): %s", rank_, why.c_str());
}

int SocketBootstrap::assemble_as_hub(int listen_fd, const SocketId &id, double timeout_s) {
  peer_fd_.assign(static_cast<std::size_t>(size_), -1);
  const Clock::time_point deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                                        std::chrono::duration<double>(timeout_s));
  int joined = 1;
  std::string failure;
  int failing_code = GSHMEMX_ERROR_BOOTSTRAP;
  std::vector<int> refused;  // connections told why, closed at the end
  while (joined < size_ && failure.empty()) {
    if (Clock::now() >= deadline) {
      std::string missing;
      for (int r = 0; r < size_; ++r)
        if (r != rank_ && peer_fd_[r] < 0) missing += (missing.empty() ? "" : ", ") + std::to_string(r);
      failure = "only " + std::to_string(joined) + " of " + std::to_string(size_) + " PEs joined within " +
                std::to_string(static_cast<int>(timeout_s)) + " s (GSHMEM_BOOTSTRAP_TIMEOUT); missing PE(s): " +
                missing;
      break;
    }
    pollfd pfd{listen_fd, POLLIN, 0};
    if (::poll(&pfd, 1, ms_left(deadline)) <= 0) continue;
    const int fd = ::accept4(listen_fd, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (fd < 0) continue;
    tune_socket(fd);
    Frame f{};
    HelloBody hello{};
    const Clock::time_point hello_deadline = std::min(deadline, Clock::now() + std::chrono::seconds(10));
    if (recv_all(fd, &f, sizeof f, &hello_deadline) != Io::kDone || f.kind != kHello || f.bytes != sizeof hello ||
        recv_all(fd, &hello, sizeof hello, &hello_deadline) != Io::kDone) {
      GSHMEMI_WARN("socket bootstrap (PE %d, the rendezvous): a connection sent no valid hello; ignored", rank_);
      ::close(fd);
      continue;
    }
    const int r = hello.rank;
    if (std::memcmp(hello.tag, id.tag, kTagBytes) != 0) {
      const std::string why = "PE " + std::to_string(r) + " (process " + std::to_string(hello.pid) +
                              ") came with an id of another job (its job tag differs from the rendezvous at " +
                              address_text(id) + ")";
      GSHMEMI_WARN("socket bootstrap (PE %d, the rendezvous): refused: %s", rank_, why.c_str());
      send_text(fd, kRefuse, GSHMEMX_ERROR_BOOTSTRAP, why);
      refused.push_back(fd);
      continue;  // not of this job: keep waiting for ours
    }
    if (hello.nranks != size_) {
      failure = "PE " + std::to_string(r) + " (process " + std::to_string(hello.pid) + ") says the job has " +
                std::to_string(hello.nranks) + " PEs, PE " + std::to_string(rank_) + " (the rendezvous) says " +
                std::to_string(size_) + ": every PE must pass the same nranks";
      failing_code = GSHMEMX_ERROR_INVALID_VALUE;
    } else if (r < 0 || r >= size_) {
      failure = "a PE (process " + std::to_string(hello.pid) + ") claims rank " + std::to_string(r) +
                ", outside 0.." + std::to_string(size_ - 1);
      failing_code = GSHMEMX_ERROR_INVALID_VALUE;
    } else if (r == rank_ || peer_fd_[r] >= 0) {
      failure = "two PEs claim rank " + std::to_string(r) + " (the second is process " + std::to_string(hello.pid) +
                "): every PE must pass its own rank";
      failing_code = GSHMEMX_ERROR_INVALID_VALUE;
    }
    if (!failure.empty()) {
      send_text(fd, kRefuse, failing_code, failure);
      refused.push_back(fd);
      break;
    }
    peer_fd_[r] = fd;
    ++joined;
  }
  ::close(listen_fd);
  if (!failure.empty()) {
    for (int fd : peer_fd_)
      if (fd >= 0) send_text(fd, kRefuse, failing_code, failure);
    for (int fd : refused) ::close(fd);
    return GSHMEMI_ERROR(failing_code, "socket bootstrap (PE %d, the rendezvous at %s): the job cannot start: %s",
                         rank_, address_text(id).c_str(), failure.c_str());
  }
  for (int fd : refused) ::close(fd);
  Frame welcome{};
  welcome.kind = kWelcome;
  welcome.pe = rank_;  // the hub's rank, for the others' messages
  for (int r = 0; r < size_; ++r)
    if (r != rank_ && send_frame(peer_fd_[r], welcome, nullptr, &deadline) != Io::kDone)
      return GSHMEMI_ERROR(GSHMEMX_ERROR_PEER_LOST,
                           "socket bootstrap (PE %d, the rendezvous): PE %d left before the job started", rank_, r);
  GSHMEMI_INFO("socket bootstrap: PE %d hosts the rendezvous at %s; all %d PEs joined", rank_,
               address_text(id).c_str(), size_);
  return GSHMEM_SUCCESS;
}

int SocketBootstrap::join(const SocketId &id, double timeout_s) {
  const Clock::time_point deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                                        std::chrono::duration<double>(timeout_s));
  GSHMEMI_CHECK(connect_to_hub(id, rank_, timeout_s, deadline, &hub_fd_));
  HelloBody hello{};
  std::memcpy(hello.tag, id.tag, kTagBytes);
  hello.rank = rank_;
  hello.nranks = size_;
  hello.pid = getpid();
  Frame f{};
  f.kind = kHello;
  f.pe = rank_;
  f.bytes = sizeof hello;
  if (send_frame(hub_fd_, f, &hello, &deadline) != Io::kDone)
    return GSHMEMI_ERROR(GSHMEMX_ERROR_BOOTSTRAP, "socket bootstrap (PE %d): the rendezvous at %s closed the connection",
                         rank_, address_text(id).c_str());
  const Io io = recv_all(hub_fd_, &f, sizeof f, &deadline);
  if (io == Io::kTimeout)
    return GSHMEMI_ERROR(GSHMEMX_ERROR_BOOTSTRAP,
                         "socket bootstrap (PE %d): connected to the rendezvous at %s, but the job did not assemble "
                         "within %.0f s (GSHMEM_BOOTSTRAP_TIMEOUT): does the process that made the id (%d) call init?",
                         rank_, address_text(id).c_str(), timeout_s, id.maker_pid);
  if (io != Io::kDone)
    return GSHMEMI_ERROR(GSHMEMX_ERROR_BOOTSTRAP,
                         "socket bootstrap (PE %d): the rendezvous at %s closed the connection before the job started",
                         rank_, address_text(id).c_str());
  if (f.kind == kRefuse) {
    std::string why(static_cast<std::size_t>(f.bytes < 4096 ? f.bytes : 0), '\0');
    recv_all(hub_fd_, &why[0], why.size(), &deadline);
    return GSHMEMI_ERROR(f.code ? f.code : GSHMEMX_ERROR_BOOTSTRAP,
                         "socket bootstrap (PE %d): the rendezvous at %s refused this PE: %s", rank_,
                         address_text(id).c_str(), why.c_str());
  }
  if (f.kind != kWelcome)
    return GSHMEMI_ERROR(GSHMEMX_ERROR_BOOTSTRAP,
                         "socket bootstrap (PE %d): unexpected message %u from the rendezvous", rank_, f.kind);
  hub_rank_ = f.pe;
  return GSHMEM_SUCCESS;
}

int SocketBootstrap::hub_allgather(const void *in, void *out, std::size_t bytes) {
  char *result = static_cast<char *>(out);
  // Blocks arrive into a buffer of our own, so that an abandoned collective
  // leaves the caller's memory as it was.
  std::vector<char> all(bytes * static_cast<std::size_t>(size_));
  if (bytes) std::memcpy(all.data() + bytes * rank_, in, bytes);
  struct Incoming {
    Frame frame{};
    std::size_t got = 0;  // of header + payload
    bool done = false;
  };
  std::vector<Incoming> incoming(static_cast<std::size_t>(size_));
  incoming[rank_].done = true;
  int pending = size_ - 1;
  std::vector<pollfd> fds;
  std::vector<int> fd_rank;
  while (pending) {
    if (job_lost_pe() >= 0) return lost(job_lost_pe(), "the liveness monitor saw its process end");
    fds.clear();
    fd_rank.clear();
    for (int r = 0; r < size_; ++r)
      if (!incoming[r].done) {
        fds.push_back(pollfd{peer_fd_[r], POLLIN, 0});
        fd_rank.push_back(r);
      }
    if (::poll(fds.data(), fds.size(), 100) <= 0) continue;
    for (std::size_t i = 0; i < fds.size(); ++i) {
      if (!fds[i].revents) continue;
      const int r = fd_rank[i];
      Incoming &in_r = incoming[r];
      // Read what is there: the header first, then the payload.
      while (!in_r.done) {
        char *dst;
        std::size_t want;
        if (in_r.got < sizeof(Frame)) {
          dst = reinterpret_cast<char *>(&in_r.frame) + in_r.got;
          want = sizeof(Frame) - in_r.got;
        } else {
          dst = all.data() + bytes * r + (in_r.got - sizeof(Frame));
          want = sizeof(Frame) + bytes - in_r.got;
        }
        const ssize_t n = want ? ::recv(peer_fd_[r], dst, want, MSG_DONTWAIT) : 0;
        if (want && n == 0) return lost(r, "its connection closed");
        if (want && n < 0) {
          if (errno == EINTR) continue;
          if (errno == EAGAIN || errno == EWOULDBLOCK) break;
          return lost(r, "its connection failed");
        }
        in_r.got += static_cast<std::size_t>(n);
        if (in_r.got == sizeof(Frame)) {
          const Frame &f = in_r.frame;
          if (f.kind != kContrib || f.seq != seq_ || f.bytes != bytes) {
            char why[256];
            std::snprintf(why, sizeof why,
                          "PE %d entered bootstrap collective #%llu with %llu bytes, PE %d (the rendezvous) "
                          "collective #%llu with %zu bytes: the PEs disagree on the collective calls",
                          r, static_cast<unsigned long long>(f.seq), static_cast<unsigned long long>(f.bytes),
                          rank_, static_cast<unsigned long long>(seq_), bytes);
            return hub_fails_job(GSHMEMX_ERROR_SYMMETRY, why);
          }
        }
        if (in_r.got == sizeof(Frame) + bytes) {
          in_r.done = true;
          --pending;
        }
      }
    }
  }
  Frame f{};
  f.kind = kResult;
  f.pe = rank_;
  f.seq = seq_;
  f.bytes = all.size();
  for (int r = 0; r < size_; ++r) {
    if (r == rank_) continue;
    const Io io = send_frame(peer_fd_[r], f, all.data());
    if (io == Io::kLostElsewhere) return lost(job_lost_pe(), "the liveness monitor saw its process end");
    if (io != Io::kDone) return lost(r, "its connection closed");
  }
  if (bytes) std::memcpy(result, all.data(), all.size());
  return GSHMEM_SUCCESS;
}

int SocketBootstrap::peer_allgather(const void *in, void *out, std::size_t bytes) {
  Frame f{};
  f.kind = kContrib;
  f.pe = rank_;
  f.seq = seq_;
  f.bytes = bytes;
  Io io = send_frame(hub_fd_, f, in);
  if (io == Io::kDone) io = recv_all(hub_fd_, &f, sizeof f);
  if (io == Io::kLostElsewhere) return lost(job_lost_pe(), "the liveness monitor saw its process end");
  if (io != Io::kDone) return lost(hub_rank_, "its connection closed; it hosted the rendezvous");
  if (f.kind == kLost) return lost(f.pe, "the rendezvous saw its connection close");
  if (f.kind == kFail) {
    failed_ = true;
    std::string why(static_cast<std::size_t>(f.bytes < 4096 ? f.bytes : 0), '\0');
    const Clock::time_point deadline = Clock::now() + std::chrono::seconds(2);
    recv_all(hub_fd_, &why[0], why.size(), &deadline);
    return GSHMEMI_ERROR(f.code ? f.code : GSHMEMX_ERROR_BOOTSTRAP, "socket bootstrap (PE %d): %s", rank_,
                         why.c_str());
  }
  if (f.kind != kResult || f.seq != seq_ || f.bytes != bytes * static_cast<std::size_t>(size_)) {
    failed_ = true;
    return GSHMEMI_ERROR(GSHMEMX_ERROR_BOOTSTRAP,
                         "socket bootstrap (PE %d): the rendezvous answered collective #%llu with message %u "
                         "(#%llu, %llu bytes)",
                         rank_, static_cast<unsigned long long>(seq_), f.kind,
                         static_cast<unsigned long long>(f.seq), static_cast<unsigned long long>(f.bytes));
  }
  // Payload straight into out: it is the complete result of this collective.
  io = recv_all(hub_fd_, out, f.bytes);
  if (io == Io::kLostElsewhere) return lost(job_lost_pe(), "the liveness monitor saw its process end");
  if (io != Io::kDone) return lost(hub_rank_, "its connection closed; it hosted the rendezvous");
  return GSHMEM_SUCCESS;
}

}  // namespace

bool is_socket_uniqueid(const void *internal) {
  return internal && std::memcmp(internal, kIdMagic, sizeof kIdMagic) == 0;
}

int make_socket_uniqueid(void *internal, std::size_t bytes) {
  if (!internal || bytes < sizeof(SocketId))
    return GSHMEMI_ERROR(GSHMEMX_ERROR_INTERNAL, "socket bootstrap: the id buffer is too small");
  Env settings;
  GSHMEMI_CHECK(read_settings(&settings));
  in_addr address{};
  GSHMEMI_CHECK(choose_address(settings.BOOTSTRAP_ADDRESS, &address));
  SocketId id{};
  std::memcpy(id.magic, kIdMagic, sizeof kIdMagic);
  id.layout = kIdLayout;
  id.family = AF_INET;
  std::size_t filled = 0;
  while (filled < kTagBytes) {
    const ssize_t n = getrandom(id.tag + filled, kTagBytes - filled, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0)
      return GSHMEMI_ERROR(GSHMEMX_ERROR_BOOTSTRAP, "socket bootstrap: getrandom failed: %s", std::strerror(errno));
    filled += static_cast<std::size_t>(n);
  }
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0)
    return GSHMEMI_ERROR(GSHMEMX_ERROR_BOOTSTRAP, "socket bootstrap: socket() failed: %s", std::strerror(errno));
  sockaddr_in where{};
  where.sin_family = AF_INET;
  where.sin_addr = address;
  where.sin_port = 0;  // any free port
  socklen_t len = sizeof where;
  if (::bind(fd, reinterpret_cast<sockaddr *>(&where), sizeof where) != 0 || ::listen(fd, SOMAXCONN) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr *>(&where), &len) != 0) {
    const int err = errno;
    ::close(fd);
    char host[INET_ADDRSTRLEN] = "?";
    inet_ntop(AF_INET, &address, host, sizeof host);
    return GSHMEMI_ERROR(GSHMEMX_ERROR_BOOTSTRAP, "socket bootstrap: cannot listen on %s: %s", host,
                         std::strerror(err));
  }
  std::memcpy(id.address, &where.sin_addr, 4);
  id.port = where.sin_port;
  id.maker_pid = static_cast<int32_t>(getpid());
  {
    std::lock_guard<std::mutex> lock(listeners_mutex);
    Listener l{};
    std::memcpy(l.tag, id.tag, kTagBytes);
    l.fd = fd;
    l.pid = getpid();
    listeners.push_back(l);
  }
  std::memset(internal, 0, bytes);
  std::memcpy(internal, &id, sizeof id);
  GSHMEMI_INFO("socket bootstrap: a new unique id; its rendezvous listens at %s", address_text(id).c_str());
  return GSHMEM_SUCCESS;
}

int open_socket_bootstrap(const void *internal, int rank, int nranks, std::unique_ptr<Bootstrap> *out) {
  if (!is_socket_uniqueid(internal))
    return GSHMEMI_ERROR(GSHMEMX_ERROR_INVALID_VALUE, "socket bootstrap (PE %d): not a socket unique id", rank);
  SocketId id;
  std::memcpy(&id, internal, sizeof id);
  if (id.layout != kIdLayout || id.family != AF_INET)
    return GSHMEMI_ERROR(GSHMEMX_ERROR_INVALID_VALUE,
                         "socket bootstrap (PE %d): the id's layout %u is not this gshmem's %u (an id from "
                         "another gshmem version?)",
                         rank, id.layout, kIdLayout);
  if (nranks < 1 || rank < 0 || rank >= nranks)
    return GSHMEMI_ERROR(GSHMEMX_ERROR_INVALID_VALUE, "socket bootstrap: rank %d of %d (need 0 <= rank < nranks)",
                         rank, nranks);
  Env settings;
  GSHMEMI_CHECK(read_settings(&settings));
  const double timeout_s = settings.BOOTSTRAP_TIMEOUT > 0 ? settings.BOOTSTRAP_TIMEOUT : 60.0;
  const int listen_fd = take_listener(id);
  if (listen_fd < 0 && nranks == 1)
    return GSHMEMI_ERROR(GSHMEMX_ERROR_INVALID_VALUE,
                         "socket bootstrap: a job of one PE must run in the process that made the id");
  // The others learn the hub's rank from its welcome.
  auto boot = std::make_unique<SocketBootstrap>(rank, nranks, listen_fd >= 0 ? rank : -1);
  if (listen_fd >= 0) {
    GSHMEMI_CHECK(boot->assemble_as_hub(listen_fd, id, timeout_s));
  } else {
    GSHMEMI_CHECK(boot->join(id, timeout_s));
  }
  *out = std::move(boot);
  return GSHMEM_SUCCESS;
}

}  // namespace gshmemi
