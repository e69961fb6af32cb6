// Passing file descriptors (exported CUDA VMM allocations) between the PEs of
// one node over Unix-domain sockets with SCM_RIGHTS.
//
// Privacy: sockets live in the Linux abstract namespace (no file to
// pre-create, gone when closed) under a name holding a 128-bit random token
// that PE 0 draws and the bootstrap spreads, so another user can neither
// guess nor squat them. Each side also checks the other's SO_PEERCRED: the
// uid must be ours and the pid the one that PE published through the
// bootstrap. Every function closes what it opened on every path.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>

namespace gshmemi {

struct SocketToken {
  unsigned char bytes[16];
};

// 128 random bits from the kernel. 0 or -1 (*why says why).
int make_socket_token(SocketToken *token, std::string *why);

// "gshmem-heap-<32 hex digits>-<pe>", the abstract name of PE `pe`'s listener.
std::string peer_socket_name(const SocketToken &token, int pe);

// Binds and listens on PE `pe`'s name. Returns the socket or -1.
int open_peer_listener(const SocketToken &token, int pe, int backlog, std::string *why);

// Connects to PE `target_pe`'s listener, checks that it is owned by our uid
// and by `target_pid`, and sends `my_pe` with `fd_to_send` attached. Returns
// the connected socket (the caller closes it once the receiver is done) or -1.
int send_fd_to_peer(const SocketToken &token, int target_pe, pid_t target_pid, int my_pe,
                    int fd_to_send, std::string *why);

// Accepts one connection on `listener` (waiting at most timeout_ms), checks
// the sender's credentials against pids[sender] (n_pes entries), and returns
// the received descriptor (or -1) with the sender's PE in *from_pe.
int receive_fd_from_peer(int listener, const pid_t *pids, int n_pes, int timeout_ms, int *from_pe,
                         std::string *why);

}  // namespace gshmemi
