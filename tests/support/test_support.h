// Small helpers shared by the test binaries.
#pragma once

#include <cuda_runtime.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

namespace gshmem_test {

// Whether `text` contains `part` (error messages in assertions).
inline bool contains(const std::string &text, const std::string &part) { return text.find(part) != std::string::npos; }

// Exit code CTest maps to "skipped" (SKIP_RETURN_CODE in GshmemHelpers.cmake).
constexpr int kSkipExitCode = 77;

// GPUs this process can use; 0 when there is no driver or device.
inline int visible_gpus() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return n;
}

// Whether a test that needs `needed` GPUs may run here. With fewer GPUs it
// prints "SKIPPED: ..." and returns false, unless GSHMEM_TEST_SHARE_GPUS=1
// (scripts/device_run.sh sets it on a machine with one GPU) and at least one
// GPU exists: the test's PEs then share the GPUs (GSHMEM_ALLOW_GPU_SHARING=1,
// unless the test sets that variable itself, as the tests of the refusal to
// share do). Every assertion still holds; timings mean nothing then. A test
// registered with GSHMEM_TEST_OWN_GPUS=1 is skipped all the same: NCCL
// refuses a communicator with two ranks on one GPU.
inline bool gpus_or_sharing(int needed, int found = visible_gpus()) {
  if (found >= needed) return true;
  const char *share = std::getenv("GSHMEM_TEST_SHARE_GPUS");
  const char *own = std::getenv("GSHMEM_TEST_OWN_GPUS");
  const bool may_share = share && std::string(share) == "1" && !(own && std::string(own) == "1");
  if (found >= 1 && may_share) {
    std::printf("NOTE: this test needs %d GPUs, found %d: its PEs share them (GSHMEM_TEST_SHARE_GPUS=1)\n", needed,
                found);
    std::fflush(stdout);
    setenv("GSHMEM_ALLOW_GPU_SHARING", "1", /*overwrite=*/0);
    return true;
  }
  std::printf("SKIPPED: this test needs %d GPU(s), found %d\n", needed, found);
  std::fflush(stdout);
  return false;
}

// Whether `n_pes` PEs of this node share GPUs (fewer GPUs than PEs; the
// test then runs under GSHMEM_TEST_SHARE_GPUS=1, see test_main.cpp). NCCL
// refuses two ranks of one communicator on one GPU, so the NCCL bootstraps
// are not tried then.
inline bool pes_share_gpus(int n_pes) { return visible_gpus() < n_pes; }

// The number of PEs this test process was started with, for checks of
// n_pes. CTest states it (GSHMEM_TEST_EXPECT_NP); started by hand or under
// compute-sanitizer, the launcher's own count is used (Open MPI, PMI, PMIx);
// a process started without a launcher is a single PE, as gshmem_init makes
// it. A value that is not a positive number is reported, naming the variable,
// and 0 returned, so the check that uses it fails instead of crashing.
inline int expected_pes() {
  for (const char *name : {"GSHMEM_TEST_EXPECT_NP", "OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE"}) {
    const char *value = std::getenv(name);
    if (!value) continue;
    char *end = nullptr;
    const long n = std::strtol(value, &end, 10);
    if (end == value || *end != '\0' || n <= 0) {
      std::fprintf(stderr, "test setup: %s='%s' is not a positive PE count\n", name, value);
      return 0;
    }
    return static_cast<int>(n);
  }
  return 1;
}

// Sets an environment variable for the duration of a scope.
class ScopedEnv {
 public:
  ScopedEnv(const char *name, const char *value) : name_(name) {
    if (const char *old = std::getenv(name)) { had_ = true; old_ = old; }
    if (value) setenv(name, value, 1); else unsetenv(name);
  }
  ~ScopedEnv() { if (had_) setenv(name_.c_str(), old_.c_str(), 1); else unsetenv(name_.c_str()); }
  ScopedEnv(const ScopedEnv &) = delete;
  ScopedEnv &operator=(const ScopedEnv &) = delete;
 private:
  std::string name_, old_;
  bool had_ = false;
};

// Runs `body` with this process's stderr (fd 2) going to a temporary file,
// and returns what was written there (the library's log lines, say).
template <typename Body>
std::string capture_stderr(Body body) {
  std::fflush(stderr);
  char path[] = "/tmp/gshmem-test-stderr-XXXXXX";
  const int fd = mkstemp(path);
  if (fd < 0) {
    body();
    return "(stderr could not be captured)";
  }
  unlink(path);
  const int saved = dup(2);
  dup2(fd, 2);
  body();
  std::fflush(stderr);
  dup2(saved, 2);
  close(saved);
  std::string text;
  char chunk[4096];
  lseek(fd, 0, SEEK_SET);
  for (ssize_t n; (n = read(fd, chunk, sizeof chunk)) > 0;) text.append(chunk, static_cast<std::size_t>(n));
  close(fd);
  return text;
}

}  // namespace gshmem_test

// Fails the current Catch2 test when a CUDA call fails, naming the call.
#define GSHMEM_TEST_CUDA(call)                                                    \
  do {                                                                            \
    cudaError_t e_ = (call);                                                      \
    if (e_ != cudaSuccess) FAIL(#call " failed: " << cudaGetErrorString(e_));     \
  } while (0)
