// uniqueid_launch: a job without mpirun, started from a unique id.
//
// Run it as `./uniqueid_launch [n_pes]` (default 2). The first process makes
// an id with gshmemx_get_uniqueid, starts n_pes-1 copies of itself (PE 1 ..
// n-1), handing each the id as a hex string on its command line, and is PE 0
// itself (the process that made the id takes part: it hosts the rendezvous); in a real
// program the id travels however the program's processes already talk (a
// file, a socket, torch.distributed's store, ...). Each PE inits with
// GSHMEMX_INIT_WITH_UNIQUEID, sends its number to the next PE with a
// put_signal, checks what it received, and exits 0 only if it is right. The
// first process reports every PE's status. No NCCL or MPI needed (the id is
// a socket rendezvous unless GSHMEM_UNIQUEID_BOOTSTRAP=nccl).
#include <gshmem/gshmem.h>
#include <gshmem/gshmemx.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

extern char **environ;

namespace {
std::string to_hex(const gshmemx_uniqueid_t &id) {
  const auto *bytes = reinterpret_cast<const unsigned char *>(&id);
  std::string hex;
  char two[3];
  for (size_t i = 0; i < sizeof id; ++i) {
    std::snprintf(two, sizeof two, "%02x", bytes[i]);
    hex += two;
  }
  return hex;
}

bool from_hex(const char *hex, gshmemx_uniqueid_t *id) {
  if (std::strlen(hex) != 2 * sizeof *id) return false;
  auto *bytes = reinterpret_cast<unsigned char *>(id);
  for (size_t i = 0; i < sizeof *id; ++i) {
    unsigned v = 0;
    if (std::sscanf(hex + 2 * i, "%2x", &v) != 1) return false;
    bytes[i] = static_cast<unsigned char>(v);
  }
  return true;
}

__global__ void send_to_next(int *inbox, uint64_t *arrived) {
  const int me = gshmem_my_pe(), next = (me + 1) % gshmem_n_pes();
  const int value = 1000 + me;
  gshmem_int_put_signal(inbox, &value, 1, arrived, 1, GSHMEM_SIGNAL_SET, next);
  gshmem_signal_wait_until(arrived, GSHMEM_CMP_EQ, 1);
}

// One PE: init from the id, one exchange, finalize.
int run_pe(int rank, int nranks, const char *hex) {
  gshmemx_uniqueid_t id;
  gshmemx_init_attr_t attr = GSHMEMX_INIT_ATTR_INITIALIZER;
  if (!from_hex(hex, &id) || gshmemx_set_attr_uniqueid_args(rank, nranks, &id, &attr) != GSHMEM_SUCCESS) {
    std::fprintf(stderr, "PE %d: the id on the command line is not one gshmemx_get_uniqueid made\n", rank);
    return 2;
  }
  const int rc = gshmemx_init_attr(GSHMEMX_INIT_WITH_UNIQUEID, &attr);
  if (rc != GSHMEM_SUCCESS) {
    std::fprintf(stderr, "PE %d: gshmemx_init_attr failed: %s\n", rank, gshmemx_error_string(rc));
    return 1;
  }
  const int me = gshmem_my_pe(), n = gshmem_n_pes(), prev = (me + n - 1) % n;
  int *inbox = static_cast<int *>(gshmem_malloc(sizeof(int)));
  uint64_t *arrived = static_cast<uint64_t *>(gshmem_calloc(1, sizeof(uint64_t)));
  send_to_next<<<1, 1>>>(inbox, arrived);
  int got = -1;
  cudaMemcpy(&got, inbox, sizeof got, cudaMemcpyDeviceToHost);
  const bool ok = me == rank && n == nranks && got == 1000 + prev;
  std::printf("PE %d of %d (started without a launcher): got %d from PE %d: %s\n", me, n, got, prev,
              ok ? "OK" : "WRONG");
  std::fflush(stdout);
  gshmem_free(arrived);
  gshmem_free(inbox);
  gshmem_finalize();
  return ok ? 0 : 1;
}
}  // namespace

int main(int argc, char **argv) {
  if (argc == 5 && std::strcmp(argv[1], "--pe") == 0) return run_pe(std::atoi(argv[2]), std::atoi(argv[3]), argv[4]);

  const int nranks = argc > 1 ? std::atoi(argv[1]) : 2;
  if (nranks < 1) {
    std::fprintf(stderr, "usage: %s [n_pes >= 1]\n", argv[0]);
    return 2;
  }
  gshmemx_uniqueid_t id;
  if (gshmemx_get_uniqueid(&id) != GSHMEM_SUCCESS) {
    std::fprintf(stderr, "uniqueid_launch: gshmemx_get_uniqueid failed: %s\n",
                 gshmemx_error_string(gshmemx_get_last_error()));
    return 1;
  }
  // This process is PE 0: it hosts the id's rendezvous.
  const std::string hex = to_hex(id);
  std::vector<pid_t> pes(nranks, -1);
  for (int r = 1; r < nranks; ++r) {
    std::string rank = std::to_string(r), size = std::to_string(nranks);
    char *child_argv[] = {argv[0], const_cast<char *>("--pe"), rank.data(), size.data(),
                          const_cast<char *>(hex.c_str()), nullptr};
    if (posix_spawn(&pes[r], "/proc/self/exe", nullptr, nullptr, child_argv, environ) != 0) {
      std::perror("uniqueid_launch: posix_spawn");
      pes[r] = -1;
    }
  }
  int failed = 0;
  if (run_pe(0, nranks, hex.c_str()) != 0) {
    std::printf("uniqueid_launch: PE 0 failed\n");
    ++failed;
  }
  for (int r = 1; r < nranks; ++r) {
    int status = 0;
    if (pes[r] < 0 || waitpid(pes[r], &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      std::printf("uniqueid_launch: PE %d %s\n", r, pes[r] < 0 ? "did not start" : "failed");
      ++failed;
    }
  }
  std::printf("uniqueid_launch: %d of %d PEs ended with exit 0: %s\n", nranks - failed, nranks,
              failed ? "FAILED" : "OK");
  return failed ? 1 : 0;
}
