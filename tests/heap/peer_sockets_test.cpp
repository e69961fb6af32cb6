// Descriptor passing over private abstract sockets, on the CPU: a pipe's
// write end goes from "PE 1" to "PE 0" in one process; wrong credentials are
// refused on both ends.
#include <unistd.h>

#include <cstring>
#include <string>
#include <thread>

#include "catch.hpp"
#include "heap/peer_sockets.h"

using namespace gshmemi;

TEST_CASE("tokens are random and names carry them", "[heap][sockets]") {
  SocketToken a{}, b{};
  std::string why;
  REQUIRE(make_socket_token(&a, &why) == 0);
  REQUIRE(make_socket_token(&b, &why) == 0);
  CHECK(std::memcmp(a.bytes, b.bytes, sizeof a.bytes) != 0);
  std::string name = peer_socket_name(a, 3);
  CHECK(name.size() == std::strlen("gshmem-heap-") + 32 + 2);
  CHECK(name.substr(name.size() - 2) == "-3");
  CHECK(peer_socket_name(a, 3) != peer_socket_name(b, 3));
}

TEST_CASE("a descriptor passes between PEs with checked credentials", "[heap][sockets]") {
  SocketToken token{};
  std::string why;
  REQUIRE(make_socket_token(&token, &why) == 0);
  int listener = open_peer_listener(token, 0, 8, &why);
  INFO(why);
  REQUIRE(listener >= 0);
  // The same name cannot be bound twice (nobody can squat a live name).
  std::string why2;
  CHECK(open_peer_listener(token, 0, 8, &why2) < 0);

  int pipe_fds[2];
  REQUIRE(pipe(pipe_fds) == 0);
  pid_t pids[2] = {getpid(), getpid()};
  int connection = send_fd_to_peer(token, 0, pids[0], 1, pipe_fds[1], &why);
  INFO(why);
  REQUIRE(connection >= 0);
  int from = -1;
  int received = receive_fd_from_peer(listener, pids, 2, 5000, &from, &why);
  INFO(why);
  REQUIRE(received >= 0);
  CHECK(from == 1);
  CHECK(received != pipe_fds[1]);
  // The received descriptor is the same pipe: what goes in comes out.
  REQUIRE(write(received, "heap", 4) == 4);
  char text[5] = {};
  REQUIRE(read(pipe_fds[0], text, 4) == 4);
  CHECK(std::string(text) == "heap");
  close(received);
  close(connection);

  // A sender whose published pid is not ours is refused by the receiver...
  pid_t wrong[2] = {getpid(), getpid() + 100000};
  connection = send_fd_to_peer(token, 0, pids[0], 1, pipe_fds[1], &why);
  REQUIRE(connection >= 0);
  CHECK(receive_fd_from_peer(listener, wrong, 2, 5000, &from, &why) < 0);
  CHECK(why.find("expected uid") != std::string::npos);
  close(connection);
  // ...and a listener that is not the expected pid is refused by the sender.
  CHECK(send_fd_to_peer(token, 0, getpid() + 100000, 1, pipe_fds[1], &why) < 0);
  CHECK(why.find("refusing") != std::string::npos);
  // Nobody listening: a clear failure, not a hang.
  SocketToken other{};
  REQUIRE(make_socket_token(&other, &why) == 0);
  CHECK(send_fd_to_peer(other, 5, getpid(), 1, pipe_fds[1], &why) < 0);
  CHECK(why.find("connect to PE 5") != std::string::npos);
  // No pending connection: the wait times out.
  CHECK(receive_fd_from_peer(listener, pids, 2, 50, &from, &why) < 0);

  close(pipe_fds[0]);
  close(pipe_fds[1]);
  close(listener);
}
