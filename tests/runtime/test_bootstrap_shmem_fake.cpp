// The OpenSHMEM bootstrap module over a stand-in OpenSHMEM library: this
// executable defines the shmem_* routines itself and exports them (CMake
// ENABLE_EXPORTS), so the module's run-time lookup finds them. The stand-in
// plays one PE of a job whose other PEs exist only as memory: each PE's
// symmetric heap is an array here, shmem_putmem copies into the target PE's
// array, and at each barrier the absent PEs "write" their allgather blocks.
// It records the calls, so the tests check the module's protocol (barrier,
// puts, quiet, barrier; the buffer kept and grown collectively), its errors
// (OpenSHMEM not initialized, a bad PE number) and the runtime using it.
// No GPU, no launcher: runs everywhere.
#include <sys/wait.h>
#include <unistd.h>

#include <gshmem/gshmem.h>

#include <cstring>
#include <string>
#include <vector>

#include "bootstrap_loader.h"
#include "catch.hpp"
#include "test_support.h"

using gshmem_test::contains;

namespace fake {
int initialized = 1;
int my_pe = 1;
int n_pes = 3;
constexpr std::size_t kHeap = 1 << 20;
std::vector<std::vector<unsigned char>> heaps;  // one symmetric heap per PE
std::size_t next_offset = 0;                    // bump allocator, the same on every PE
std::size_t last_offset = 0, last_size = 0;     // the newest allocation
std::size_t peer_block = 0;  // allgather block the absent PEs write at a barrier (0: none)
std::string log;             // the calls, in order: "M<bytes> F B P<pe> Q X<status>"
int live_allocations = 0;

void reset(int me, int n) {
  my_pe = me;
  n_pes = n;
  initialized = 1;
  heaps.assign(static_cast<std::size_t>(n), std::vector<unsigned char>(kHeap, 0));
  next_offset = last_offset = last_size = peer_block = 0;
  log.clear();
  live_allocations = 0;
}

unsigned char pattern(int pe, std::size_t i) { return static_cast<unsigned char>(pe * 31 + i); }

void note(const std::string &event) { log += (log.empty() ? "" : " ") + event; }
}  // namespace fake

extern "C" {
__attribute__((visibility("default"))) void shmem_query_initialized(int *initialized) {
  *initialized = fake::initialized;
}
__attribute__((visibility("default"))) int shmem_my_pe(void) { return fake::my_pe; }
__attribute__((visibility("default"))) int shmem_n_pes(void) { return fake::n_pes; }
__attribute__((visibility("default"))) void *shmem_malloc(std::size_t bytes) {
  fake::note("M" + std::to_string(bytes));
  if (fake::next_offset + bytes > fake::kHeap) return nullptr;
  fake::last_offset = fake::next_offset;
  fake::last_size = bytes;
  fake::next_offset += (bytes + 63) / 64 * 64;
  ++fake::live_allocations;
  return fake::heaps[fake::my_pe].data() + fake::last_offset;
}
__attribute__((visibility("default"))) void shmem_free(void *ptr) {
  if (ptr) {
    fake::note("F");
    --fake::live_allocations;
  }
}
__attribute__((visibility("default"))) void shmem_putmem(void *dest, const void *source, std::size_t bytes,
                                                          int pe) {
  fake::note("P" + std::to_string(pe));
  const std::size_t offset =
      static_cast<std::size_t>(static_cast<unsigned char *>(dest) - fake::heaps[fake::my_pe].data());
  std::memcpy(fake::heaps[pe].data() + offset, source, bytes);
}
__attribute__((visibility("default"))) void shmem_quiet(void) { fake::note("Q"); }
__attribute__((visibility("default"))) void shmem_barrier_all(void) {
  fake::note("B");
  // The absent PEs' blocks arrive in this PE's newest allocation.
  if (fake::peer_block)
    for (int pe = 0; pe < fake::n_pes; ++pe)
      if (pe != fake::my_pe)
        for (std::size_t i = 0; i < fake::peer_block; ++i)
          fake::heaps[fake::my_pe][fake::last_offset + pe * fake::peer_block + i] = fake::pattern(pe, i);
}
__attribute__((visibility("default"))) void shmem_global_exit(int status) {
  fake::note("X" + std::to_string(status));
  _exit(100 + status);
}
}  // extern "C"

namespace {
// An allgather of `bytes` from this PE (pattern of my_pe); checks every block.
void check_allgather(gshmemi::Bootstrap &boot, std::size_t bytes) {
  std::vector<unsigned char> mine(bytes), all(bytes * fake::n_pes, 0xee);
  for (std::size_t i = 0; i < bytes; ++i) mine[i] = fake::pattern(fake::my_pe, i);
  fake::peer_block = bytes;
  REQUIRE(boot.allgather(mine.data(), all.data(), bytes) == GSHMEM_SUCCESS);
  fake::peer_block = 0;
  int wrong = 0;
  for (int pe = 0; pe < fake::n_pes; ++pe)
    for (std::size_t i = 0; i < bytes; ++i) wrong += all[pe * bytes + i] != fake::pattern(pe, i);
  CHECK(wrong == 0);
  // This PE's block went to every PE (itself too) at offset my_pe * bytes.
  for (int pe = 0; pe < fake::n_pes; ++pe)
    CHECK(std::memcmp(fake::heaps[pe].data() + fake::last_offset + fake::my_pe * bytes, mine.data(), bytes) == 0);
}
}  // namespace

TEST_CASE("OpenSHMEM bootstrap: rank, size and the allgather protocol over the routines it finds") {
  fake::reset(1, 3);
  std::unique_ptr<gshmemi::Bootstrap> boot;
  REQUIRE(gshmemi::open_openshmem_bootstrap(&boot) == GSHMEM_SUCCESS);
  REQUIRE(boot);
  CHECK(std::string(boot->name()) == "shmem");
  CHECK(boot->rank() == 1);
  CHECK(boot->size() == 3);
  CHECK(boot->device() == -1);
  CHECK(fake::log.empty());  // opening calls no collective

  // First allgather: one symmetric buffer (at least 4 KiB), a barrier
  // before the puts (the buffer is everyone's), the puts from this PE's
  // neighbour on, quiet, and the barrier after which every block is there.
  check_allgather(*boot, sizeof(int));
  CHECK(fake::log == "M4096 B P1 P2 P0 Q B");
  // The buffer is kept while it is large enough.
  fake::log.clear();
  check_allgather(*boot, 1003);
  CHECK(fake::log == "B P1 P2 P0 Q B");
  // And grown (freed and allocated again, collectively) when it is not.
  fake::log.clear();
  check_allgather(*boot, 3000);
  CHECK(fake::log == "F M9000 B P1 P2 P0 Q B");
  CHECK(fake::live_allocations == 1);
  // Nothing to exchange: no calls at all (every PE passes the same size).
  fake::log.clear();
  int none = 0;
  CHECK(boot->allgather(&none, &none, 0) == GSHMEM_SUCCESS);
  CHECK(fake::log.empty());

  CHECK(boot->barrier() == GSHMEM_SUCCESS);
  CHECK(fake::log == "B");
  // Closing releases the buffer (shmem_free: collective, every PE closes together).
  fake::log.clear();
  boot.reset();
  CHECK(fake::log == "F");
  CHECK(fake::live_allocations == 0);
}

TEST_CASE("OpenSHMEM bootstrap: PE 0 and the last PE put to every PE, starting with themselves") {
  for (int me : {0, 3}) {
    fake::reset(me, 4);
    std::unique_ptr<gshmemi::Bootstrap> boot;
    REQUIRE(gshmemi::open_openshmem_bootstrap(&boot) == GSHMEM_SUCCESS);
    check_allgather(*boot, 24);
    CHECK(fake::log == (me == 0 ? "M4096 B P0 P1 P2 P3 Q B" : "M4096 B P3 P0 P1 P2 Q B"));
  }
}

TEST_CASE("OpenSHMEM bootstrap: OpenSHMEM not initialized, or a PE number out of range, is a clear error") {
  fake::reset(0, 2);
  fake::initialized = 0;
  std::unique_ptr<gshmemi::Bootstrap> boot;
  int rc = 0;
  std::string said = gshmem_test::capture_stderr([&] { rc = gshmemi::open_openshmem_bootstrap(&boot); });
  CHECK(rc == GSHMEMX_ERROR_BOOTSTRAP);
  CHECK(!boot);
  CHECK(contains(said, "call shmem_init before"));

  fake::reset(2, 2);  // shmem_my_pe() >= shmem_n_pes()
  said = gshmem_test::capture_stderr([&] { rc = gshmemi::open_openshmem_bootstrap(&boot); });
  CHECK(rc == GSHMEMX_ERROR_BOOTSTRAP);
  CHECK(contains(said, "shmem_my_pe() returned 2 and shmem_n_pes() 2"));
  CHECK(fake::log.empty());
}

TEST_CASE("OpenSHMEM bootstrap: abort ends the job through shmem_global_exit with the status") {
  fake::reset(0, 2);
  std::unique_ptr<gshmemi::Bootstrap> boot;
  REQUIRE(gshmemi::open_openshmem_bootstrap(&boot) == GSHMEM_SUCCESS);
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    boot->abort(7, "test");  // the stand-in exits with 100 + status
    _exit(1);
  }
  int status = 0;
  REQUIRE(waitpid(child, &status, 0) == child);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 107);
}

TEST_CASE("gshmemx_init_attr(GSHMEMX_INIT_WITH_SHMEM, NULL) runs init over OpenSHMEM's PEs") {
  gshmem_test::ScopedEnv size("GSHMEM_SYMMETRIC_SIZE", "64M");
  fake::reset(0, 1);  // a job of one PE: its collectives need no peer
  if (gshmem_test::visible_gpus() == 0) {
    // Init gets as far as choosing a GPU (the bootstrap's exchanges ran),
    // then fails on every PE together and closes the bootstrap.
    CHECK(gshmemx_init_attr(GSHMEMX_INIT_WITH_SHMEM, nullptr) == GSHMEMX_ERROR_NO_DEVICE);
    CHECK(gshmemx_initialized() == 0);
    CHECK(contains(fake::log, "Q B"));
    CHECK(fake::live_allocations == 0);
    // GSHMEM_BOOTSTRAP=shmem picks the same module for gshmem_init.
    gshmem_test::ScopedEnv bootstrap("GSHMEM_BOOTSTRAP", "shmem");
    fake::log.clear();
    CHECK(gshmem_init() == GSHMEMX_ERROR_NO_DEVICE);
    CHECK(contains(fake::log, "Q B"));
    CHECK(fake::live_allocations == 0);
  } else {
    REQUIRE(gshmemx_init_attr(GSHMEMX_INIT_WITH_SHMEM, nullptr) == GSHMEM_SUCCESS);
    CHECK(gshmem_my_pe() == 0);
    CHECK(gshmem_n_pes() == 1);
    gshmem_finalize();
    CHECK(fake::live_allocations == 0);
  }
  // Flags naming two bootstraps are refused before anything starts.
  gshmemx_init_attr_t attr = GSHMEMX_INIT_ATTR_INITIALIZER;
  CHECK(gshmemx_init_attr(GSHMEMX_INIT_WITH_SHMEM | GSHMEMX_INIT_SINGLE_PE, &attr) == GSHMEMX_ERROR_INVALID_VALUE);
  CHECK(gshmemx_init_attr(GSHMEMX_INIT_WITH_SHMEM | GSHMEMX_INIT_WITH_MPI_COMM, &attr) ==
        GSHMEMX_ERROR_INVALID_VALUE);
}
