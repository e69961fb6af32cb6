#include "peer_sockets.h"

#include <poll.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstring>

namespace gshmemi {
namespace {

std::string errno_text(const char *what) { return std::string(what) + ": " + std::strerror(errno); }

// Fills an abstract-namespace address (sun_path starts with a NUL byte).
socklen_t make_address(const SocketToken &token, int pe, sockaddr_un *address) {
  std::memset(address, 0, sizeof *address);
  address->sun_family = AF_UNIX;
  std::string name = peer_socket_name(token, pe);
  std::memcpy(address->sun_path + 1, name.data(), name.size());
  return static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + name.size());
}

// The credentials check shared by both ends.
bool peer_is(int socket_fd, pid_t expected_pid, const char *role, int pe, std::string *why) {
  ucred credentials{};
  socklen_t length = sizeof credentials;
  if (getsockopt(socket_fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) != 0) {
    *why = errno_text("getsockopt(SO_PEERCRED)");
    return false;
  }
  if (credentials.uid != getuid() || credentials.pid != expected_pid) {
    char text[256];
    std::snprintf(text, sizeof text,
                  "the %s socket for PE %d belongs to uid %u pid %d, expected uid %u pid %d: refusing "
                  "to exchange heap handles with it",
                  role, pe, static_cast<unsigned>(credentials.uid), static_cast<int>(credentials.pid),
                  static_cast<unsigned>(getuid()), static_cast<int>(expected_pid));
    *why = text;
    return false;
  }
  return true;
}

}  // namespace

int make_socket_token(SocketToken *token, std::string *why) {
  std::size_t filled = 0;
  while (filled < sizeof token->bytes) {
    ssize_t got = getrandom(token->bytes + filled, sizeof token->bytes - filled, 0);
    if (got < 0) {
      if (errno == EINTR) continue;
      *why = errno_text("getrandom");
      return -1;
    }
    filled += static_cast<std::size_t>(got);
  }
  return 0;
}

std::string peer_socket_name(const SocketToken &token, int pe) {
  char name[80];
  int at = std::snprintf(name, sizeof name, "gshmem-heap-");
  for (unsigned char byte : token.bytes) at += std::snprintf(name + at, sizeof name - at, "%02x", byte);
  std::snprintf(name + at, sizeof name - at, "-%d", pe);
  return name;
}

int open_peer_listener(const SocketToken &token, int pe, int backlog, std::string *why) {
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    *why = errno_text("socket(AF_UNIX)");
    return -1;
  }
  sockaddr_un address;
  socklen_t length = make_address(token, pe, &address);
  if (bind(fd, reinterpret_cast<sockaddr *>(&address), length) != 0) {
    *why = errno_text(("bind(@" + peer_socket_name(token, pe) + ")").c_str());
    close(fd);
    return -1;
  }
  if (listen(fd, backlog) != 0) {
    *why = errno_text("listen");
    close(fd);
    return -1;
  }
  return fd;
}

int send_fd_to_peer(const SocketToken &token, int target_pe, pid_t target_pid, int my_pe, int fd_to_send,
                    std::string *why) {
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    *why = errno_text("socket(AF_UNIX)");
    return -1;
  }
  sockaddr_un address;
  socklen_t length = make_address(token, target_pe, &address);
  int rc;
  do {
    rc = connect(fd, reinterpret_cast<sockaddr *>(&address), length);
  } while (rc != 0 && errno == EINTR);
  if (rc != 0) {
    *why = errno_text(("connect to PE " + std::to_string(target_pe) +
                       "'s socket (PEs in different network namespaces cannot share VMM handles; "
                       "GSHMEM_DISABLE_VMM=1 uses cudaIpc instead)").c_str());
    close(fd);
    return -1;
  }
  if (!peer_is(fd, target_pid, "listening", target_pe, why)) {
    close(fd);
    return -1;
  }
  std::int32_t payload = my_pe;
  iovec data{&payload, sizeof payload};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))];
  std::memset(control, 0, sizeof control);
  msghdr message{};
  message.msg_iov = &data;
  message.msg_iovlen = 1;
  message.msg_control = control;
  message.msg_controllen = sizeof control;
  cmsghdr *header = CMSG_FIRSTHDR(&message);
  header->cmsg_level = SOL_SOCKET;
  header->cmsg_type = SCM_RIGHTS;
  header->cmsg_len = CMSG_LEN(sizeof(int));
  std::memcpy(CMSG_DATA(header), &fd_to_send, sizeof(int));
  ssize_t sent;
  do {
    sent = sendmsg(fd, &message, MSG_NOSIGNAL);
  } while (sent < 0 && errno == EINTR);
  if (sent != static_cast<ssize_t>(sizeof payload)) {
    *why = errno_text(("sendmsg to PE " + std::to_string(target_pe)).c_str());
    close(fd);
    return -1;
  }
  return fd;
}

int receive_fd_from_peer(int listener, const pid_t *pids, int n_pes, int timeout_ms, int *from_pe,
                         std::string *why) {
  pollfd waiting{listener, POLLIN, 0};
  int ready;
  do {
    ready = poll(&waiting, 1, timeout_ms);
  } while (ready < 0 && errno == EINTR);
  if (ready <= 0) {
    *why = ready == 0 ? "no peer connected within " + std::to_string(timeout_ms / 1000) + " s"
                      : errno_text("poll");
    return -1;
  }
  int connection = accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
  if (connection < 0) {
    *why = errno_text("accept");
    return -1;
  }
  std::int32_t payload = -1;
  iovec data{&payload, sizeof payload};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))];
  msghdr message{};
  message.msg_iov = &data;
  message.msg_iovlen = 1;
  message.msg_control = control;
  message.msg_controllen = sizeof control;
  ssize_t got;
  do {
    got = recvmsg(connection, &message, MSG_CMSG_CLOEXEC);
  } while (got < 0 && errno == EINTR);
  int received = -1;
  for (cmsghdr *header = got > 0 ? CMSG_FIRSTHDR(&message) : nullptr; header;
       header = CMSG_NXTHDR(&message, header))
    if (header->cmsg_level == SOL_SOCKET && header->cmsg_type == SCM_RIGHTS &&
        header->cmsg_len == CMSG_LEN(sizeof(int)))
      std::memcpy(&received, CMSG_DATA(header), sizeof(int));
  bool ok = true;
  if (got != static_cast<ssize_t>(sizeof payload) || received < 0 || (message.msg_flags & MSG_CTRUNC)) {
    *why = got < 0 ? errno_text("recvmsg") : "a peer sent a malformed heap handle message";
    ok = false;
  } else if (payload < 0 || payload >= n_pes) {
    *why = "a peer claimed to be PE " + std::to_string(payload) + ", outside the job";
    ok = false;
  } else if (!peer_is(connection, pids[payload], "connecting", payload, why)) {
    ok = false;
  }
  close(connection);
  if (!ok) {
    if (received >= 0) close(received);
    return -1;
  }
  *from_pe = payload;
  return received;
}

}  // namespace gshmemi
