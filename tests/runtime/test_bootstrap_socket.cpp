// CPU: the socket bootstrap (jobs started from a unique id) by itself, in
// jobs of forked processes: one makes the id and hosts the rendezvous, the
// others get the id's bytes through the fork. The test process itself never
// makes an id or joins a job; it checks each PE's exit status, and bounds
// every job in time (a hang fails the test instead of stalling it).
//
// A PE's exit status: 0 when everything it checked held, else the number of
// the failed check (printed on stderr with the PE).
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "bootstrap_loader.h"
#include "catch.hpp"

namespace {

using Clock = std::chrono::steady_clock;
using Boot = std::unique_ptr<gshmemi::Bootstrap>;

// What a PE of a test job runs: returns its exit status.
using PeBody = std::function<int(int rank, const gshmemx_uniqueid_t &id)>;

#define PE_EXPECT(cond, check_no)                                                            \
  do {                                                                                       \
    if (!(cond)) {                                                                           \
      std::fprintf(stderr, "PE %d: check %d failed: %s (line %d)\n", rank, check_no, #cond, \
                   __LINE__);                                                                \
      return check_no;                                                                       \
    }                                                                                        \
  } while (0)

[[noreturn]] void end_child(int status) {
  std::fflush(nullptr);
  _exit(status);
}

// A PE's process: runs `body` and ends with its status.
pid_t start_pe(int rank, const gshmemx_uniqueid_t &id, const PeBody &body) {
  std::fflush(nullptr);  // nothing buffered here is printed again by the child
  const pid_t pid = fork();
  if (pid == 0) end_child(body(rank, id));
  return pid;
}

struct PeResult {
  int rank;
  bool exited = false;
  int status = -1;  // exit status, or 128 + signal
};

// Waits for the processes of a job, at most `bound`; kills what is left
// (reported as status -1, which no expectation accepts).
std::vector<PeResult> wait_for(const std::vector<std::pair<int, pid_t>> &pes, std::chrono::seconds bound) {
  std::vector<PeResult> results;
  for (auto &p : pes) results.push_back(PeResult{p.first});
  const auto deadline = Clock::now() + bound;
  std::size_t left = pes.size();
  while (left && Clock::now() < deadline) {
    for (std::size_t i = 0; i < pes.size(); ++i) {
      if (results[i].exited) continue;
      int status = 0;
      if (waitpid(pes[i].second, &status, WNOHANG) == pes[i].second) {
        results[i].exited = true;
        results[i].status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        --left;
      }
    }
    usleep(10000);
  }
  for (std::size_t i = 0; i < pes.size(); ++i)
    if (!results[i].exited) {
      kill(pes[i].second, SIGKILL);
      waitpid(pes[i].second, nullptr, 0);
    }
  return results;
}

// Makes the id in a fresh process (which then runs body as `maker_rank`),
// passes it back through a pipe, then starts the PEs listed in `ranks`
// (duplicates allowed) with `body`; waits for all of them.
struct Job {
  int maker_rank = 0;
  std::vector<int> other_ranks;
  PeBody maker_body, other_body;
  std::chrono::seconds bound{30};
};

std::vector<PeResult> run_job(const Job &job) {
  int fds[2];
  REQUIRE(pipe(fds) == 0);
  std::fflush(nullptr);
  const pid_t maker = fork();
  if (maker == 0) {
    close(fds[0]);
    gshmemx_uniqueid_t id = GSHMEMX_UNIQUEID_INITIALIZER;
    const int rc = gshmemx_get_uniqueid(&id);
    const ssize_t written = write(fds[1], &id, sizeof id);
    close(fds[1]);
    if (rc != GSHMEM_SUCCESS || written != static_cast<ssize_t>(sizeof id)) end_child(99);
    end_child(job.maker_body(job.maker_rank, id));
  }
  close(fds[1]);
  gshmemx_uniqueid_t id = GSHMEMX_UNIQUEID_INITIALIZER;
  std::size_t got = 0;
  while (got < sizeof id) {
    const ssize_t n = read(fds[0], reinterpret_cast<char *>(&id) + got, sizeof id - got);
    if (n <= 0) break;
    got += static_cast<std::size_t>(n);
  }
  close(fds[0]);
  std::vector<std::pair<int, pid_t>> pes{{job.maker_rank, maker}};
  if (got == sizeof id) {
    CHECK(id.version == GSHMEMX_UNIQUEID_VERSION);
    CHECK(gshmemi::is_socket_uniqueid(id.internal));
    for (int r : job.other_ranks) pes.emplace_back(r, start_pe(r, id, job.other_body));
  }
  return wait_for(pes, job.bound);
}

// A block of `bytes` that only `rank` makes, for call number `call`.
std::vector<unsigned char> block_of(int rank, std::size_t bytes, int call) {
  std::vector<unsigned char> b(bytes);
  for (std::size_t i = 0; i < bytes; ++i) b[i] = static_cast<unsigned char>(rank * 31 + call * 7 + i * 13 + (i >> 8));
  return b;
}

int open_pe(int rank, int nranks, const gshmemx_uniqueid_t &id, Boot *boot) {
  return gshmemi::open_socket_bootstrap(id.internal, rank, nranks, boot);
}

// Allgathers of several sizes (0 and 1 MiB among them) and barriers.
int exchange(int rank, int nranks, const gshmemx_uniqueid_t &id) {
  Boot boot;
  PE_EXPECT(open_pe(rank, nranks, id, &boot) == GSHMEM_SUCCESS, 1);
  PE_EXPECT(boot->rank() == rank && boot->size() == nranks, 2);
  PE_EXPECT(std::strcmp(boot->name(), "socket") == 0, 3);
  const std::size_t sizes[] = {0, 1, 8, 1000, 4096, std::size_t(1) << 20, 3};
  int call = 0;
  for (std::size_t bytes : sizes) {
    ++call;
    const std::vector<unsigned char> mine = block_of(rank, bytes, call);
    std::vector<unsigned char> all(bytes * nranks + 1, 0xEE);  // +1: a guard byte
    PE_EXPECT(boot->allgather(mine.data(), all.data(), bytes) == GSHMEM_SUCCESS, 4);
    for (int r = 0; bytes && r < nranks; ++r)  // (memcmp of 0 bytes may not take a null pointer)
      PE_EXPECT(std::memcmp(all.data() + bytes * r, block_of(r, bytes, call).data(), bytes) == 0, 5);
    PE_EXPECT(all[bytes * nranks] == 0xEE, 6);
    PE_EXPECT(boot->barrier() == GSHMEM_SUCCESS, 7);
  }
  return 0;
}

void expect_all(const std::vector<PeResult> &results, int status) {
  for (const PeResult &r : results) {
    INFO("PE " << r.rank << " ended with status " << r.status << " (exited: " << r.exited << ")");
    CHECK(r.exited);
    CHECK(r.status == status);
  }
}

std::vector<int> ranks_except(int nranks, int except) {
  std::vector<int> out;
  for (int r = 0; r < nranks; ++r)
    if (r != except) out.push_back(r);
  return out;
}

// Exit statuses for an expected error code (codes are small negatives).
int status_of(int code) { return 100 - code; }

}  // namespace

TEST_CASE("socket bootstrap: allgathers of 0 B .. 1 MiB and barriers, 2, 4 and 7 PEs") {
  for (int nranks : {2, 4, 7}) {
    // The id's maker hosts the rendezvous whatever its rank.
    const int maker = nranks == 4 ? 2 : 0;
    INFO(nranks << " PEs, the id made by PE " << maker);
    Job job;
    job.maker_rank = maker;
    job.other_ranks = ranks_except(nranks, maker);
    job.maker_body = job.other_body = [nranks](int rank, const gshmemx_uniqueid_t &id) {
      return exchange(rank, nranks, id);
    };
    expect_all(run_job(job), 0);
  }
}

TEST_CASE("socket bootstrap: a PE with another job's tag is refused; the job goes on") {
  // The stray (an id whose tag differs) joins first, as rank 1; it is told
  // why and the rendezvous keeps waiting; then the real rank 1 joins.
  int fds[2];
  REQUIRE(pipe(fds) == 0);
  // The maker, as in run_job, but the stray and the real PE are started here.
  std::fflush(nullptr);
  const pid_t maker = fork();
  if (maker == 0) {
    close(fds[0]);
    gshmemx_uniqueid_t id = GSHMEMX_UNIQUEID_INITIALIZER;
    if (gshmemx_get_uniqueid(&id) != GSHMEM_SUCCESS) end_child(99);
    if (write(fds[1], &id, sizeof id) != static_cast<ssize_t>(sizeof id)) end_child(98);
    close(fds[1]);
    end_child(exchange(0, 2, id));
  }
  close(fds[1]);
  gshmemx_uniqueid_t id;
  REQUIRE(read(fds[0], &id, sizeof id) == static_cast<ssize_t>(sizeof id));
  close(fds[0]);
  gshmemx_uniqueid_t stray_id = id;
  REQUIRE(gshmemi::is_socket_uniqueid(stray_id.internal));
  stray_id.internal[24] ^= 0x5a;  // inside the tag (after magic, layout, family)
  const pid_t stray = start_pe(1, stray_id, [](int rank, const gshmemx_uniqueid_t &bad) {
    Boot boot;
    const auto start = Clock::now();
    const int rc = open_pe(rank, 2, bad, &boot);
    PE_EXPECT(Clock::now() - start < std::chrono::seconds(10), 1);
    return status_of(rc);
  });
  const std::vector<PeResult> stray_result = wait_for({{1, stray}}, std::chrono::seconds(20));
  CHECK(stray_result[0].status == status_of(GSHMEMX_ERROR_BOOTSTRAP));
  const pid_t real = start_pe(1, id, [](int rank, const gshmemx_uniqueid_t &good) { return exchange(rank, 2, good); });
  expect_all(wait_for({{0, maker}, {1, real}}, std::chrono::seconds(30)), 0);
}

TEST_CASE("socket bootstrap: a duplicate rank or another nranks fails the whole job, promptly") {
  SECTION("two PEs claim rank 1") {
    Job job;
    job.other_ranks = {1, 1};
    job.maker_body = job.other_body = [](int rank, const gshmemx_uniqueid_t &id) {
      Boot boot;
      return status_of(open_pe(rank, 3, id, &boot));
    };
    job.bound = std::chrono::seconds(15);  // well under the 60 s connect bound
    expect_all(run_job(job), status_of(GSHMEMX_ERROR_INVALID_VALUE));
  }
  SECTION("a PE says the job has 3 PEs, the rendezvous 2") {
    Job job;
    job.other_ranks = {1};
    job.maker_body = [](int rank, const gshmemx_uniqueid_t &id) {
      Boot boot;
      return status_of(open_pe(rank, 2, id, &boot));
    };
    job.other_body = [](int rank, const gshmemx_uniqueid_t &id) {
      Boot boot;
      return status_of(open_pe(rank, 3, id, &boot));
    };
    job.bound = std::chrono::seconds(15);
    expect_all(run_job(job), status_of(GSHMEMX_ERROR_INVALID_VALUE));
  }
}

TEST_CASE("socket bootstrap: a PE killed while the others wait in a barrier is PEER_LOST, not a hang") {
  // victim: a PE that is not the rendezvous (4 PEs), then the rendezvous itself (3 PEs).
  for (const auto &shape : {std::make_pair(4, 3), std::make_pair(3, 0)}) {
    const int nranks = shape.first, victim = shape.second;
    INFO(nranks << " PEs, PE " << victim << " killed");
    Job job;
    job.other_ranks = ranks_except(nranks, 0);
    job.maker_body = job.other_body = [nranks, victim](int rank, const gshmemx_uniqueid_t &id) {
      Boot boot;
      PE_EXPECT(open_pe(rank, nranks, id, &boot) == GSHMEM_SUCCESS, 1);
      PE_EXPECT(boot->barrier() == GSHMEM_SUCCESS, 2);
      if (rank == victim) {
        usleep(300000);  // the others are in the barrier by now
        raise(SIGKILL);
      }
      const auto start = Clock::now();
      PE_EXPECT(boot->barrier() == GSHMEMX_ERROR_PEER_LOST, 3);
      // Promptly, and not because the rendezvous ended: every survivor,
      // the rendezvous included, stays alive for 3 s after its verdict.
      PE_EXPECT(Clock::now() - start < std::chrono::milliseconds(2500), 4);
      // Every later collective fails at once, and leaves the caller's buffer alone.
      int mine = 7;
      std::vector<int> all(static_cast<std::size_t>(nranks), -1);
      const auto again = Clock::now();
      PE_EXPECT(boot->allgather(&mine, all.data(), sizeof mine) == GSHMEMX_ERROR_PEER_LOST, 5);
      PE_EXPECT(all[0] == -1, 6);
      PE_EXPECT(Clock::now() - again < std::chrono::seconds(1), 7);
      usleep(3000000);
      return 0;
    };
    const std::vector<PeResult> results = run_job(job);
    for (const PeResult &r : results) {
      INFO("PE " << r.rank << " ended with status " << r.status);
      CHECK(r.exited);
      CHECK(r.status == (r.rank == victim ? 128 + SIGKILL : 0));
    }
  }
}

TEST_CASE("socket bootstrap: abort (gshmem_global_exit) ends this process; the others get PEER_LOST") {
  for (int ender : {1, 0}) {  // a PE, then the rendezvous
    INFO("PE " << ender << " aborts");
    Job job;
    job.other_ranks = {1, 2};
    job.maker_body = job.other_body = [ender](int rank, const gshmemx_uniqueid_t &id) {
      Boot boot;
      PE_EXPECT(open_pe(rank, 3, id, &boot) == GSHMEM_SUCCESS, 1);
      PE_EXPECT(boot->barrier() == GSHMEM_SUCCESS, 2);
      if (rank == ender) boot->abort(42, "the test ends the job");
      const auto start = Clock::now();
      PE_EXPECT(boot->barrier() == GSHMEMX_ERROR_PEER_LOST, 3);
      PE_EXPECT(Clock::now() - start < std::chrono::seconds(5), 4);
      return 0;
    };
    for (const PeResult &r : run_job(job)) {
      INFO("PE " << r.rank << " ended with status " << r.status);
      CHECK(r.status == (r.rank == ender ? 42 : 0));
    }
  }
}

TEST_CASE("socket bootstrap: a rendezvous that is gone is given up on within GSHMEM_BOOTSTRAP_TIMEOUT") {
  // The maker makes the id and ends without joining: nobody listens.
  Job job;
  job.other_ranks = {1};
  job.maker_body = [](int, const gshmemx_uniqueid_t &) { return 0; };
  job.other_body = [](int rank, const gshmemx_uniqueid_t &id) {
    usleep(200000);  // the maker has ended by now
    setenv("GSHMEM_BOOTSTRAP_TIMEOUT", "1", 1);
    Boot boot;
    const auto start = Clock::now();
    const int rc = open_pe(rank, 2, id, &boot);
    const auto took = Clock::now() - start;
    PE_EXPECT(took >= std::chrono::milliseconds(900), 1);  // it did retry
    PE_EXPECT(took < std::chrono::seconds(5), 2);
    return status_of(rc);
  };
  const std::vector<PeResult> results = run_job(job);
  CHECK(results[0].status == 0);
  CHECK(results[1].status == status_of(GSHMEMX_ERROR_BOOTSTRAP));
}

TEST_CASE("socket bootstrap: the rendezvous gives up on PEs that never come") {
  Job job;
  job.other_ranks = {1};  // PE 2 of 3 never starts
  job.maker_body = job.other_body = [](int rank, const gshmemx_uniqueid_t &id) {
    setenv("GSHMEM_BOOTSTRAP_TIMEOUT", "1", 1);
    Boot boot;
    const auto start = Clock::now();
    const int rc = open_pe(rank, 3, id, &boot);
    PE_EXPECT(Clock::now() - start < std::chrono::seconds(5), 1);
    return status_of(rc);
  };
  expect_all(run_job(job), status_of(GSHMEMX_ERROR_BOOTSTRAP));
}

TEST_CASE("socket bootstrap: a job of one PE, in the process that made the id") {
  Job job;
  job.maker_body = [](int rank, const gshmemx_uniqueid_t &id) { return exchange(rank, 1, id); };
  expect_all(run_job(job), 0);
}

TEST_CASE("socket bootstrap: gshmemx_init_attr from a socket id runs on it (every PE agrees, no hang)") {
  // The full init: without a GPU every PE returns GSHMEMX_ERROR_NO_DEVICE,
  // agreed through this bootstrap; on a GPU machine the job starts (or, with
  // more PEs than GPUs and no GSHMEM_ALLOW_GPU_SHARING, fails alike on all).
  Job job;
  job.other_ranks = {1};
  job.maker_body = job.other_body = [](int rank, const gshmemx_uniqueid_t &id) {
    gshmemx_init_attr_t attr = GSHMEMX_INIT_ATTR_INITIALIZER;
    PE_EXPECT(gshmemx_set_attr_uniqueid_args(rank, 2, &id, &attr) == GSHMEM_SUCCESS, 1);
    const int rc = gshmemx_init_attr(GSHMEMX_INIT_WITH_UNIQUEID, &attr);
    if (rc == GSHMEM_SUCCESS) {
      PE_EXPECT(gshmem_my_pe() == rank && gshmem_n_pes() == 2, 2);
      gshmem_finalize();
    }
    return status_of(rc);
  };
  const std::vector<PeResult> results = run_job(job);
  REQUIRE(results.size() == 2);
  CHECK(results[0].status == results[1].status);
  const bool known = results[0].status == status_of(GSHMEM_SUCCESS) ||
                     results[0].status == status_of(GSHMEMX_ERROR_NO_DEVICE) ||
                     results[0].status == status_of(GSHMEMX_ERROR_TOO_FEW_DEVICES);
  INFO("status " << results[0].status << " (100 - the init's return code)");
  CHECK(known);
}
