// The one main() of every test binary (Catch2 v2 or v3).
//
// A test that needs GPUs is registered with GSHMEM_TEST_GPUS=<n> in its
// environment; where fewer GPUs (or no driver) exist, it prints why and exits
// with the skip code CTest was told about, so CI reports it as skipped rather
// than passed.
//
// GSHMEM_TEST_SHARE_GPUS=1 (scripts/device_run.sh sets it on a machine with
// one GPU) runs such a test anyway when at least one GPU exists: its PEs then
// share the GPUs (GSHMEM_ALLOW_GPU_SHARING=1, unless the test sets that
// variable itself, as the tests of the refusal to share do). Every assertion
// still holds; timings do not mean anything in that mode. A test registered
// with GSHMEM_TEST_OWN_GPUS=1 is skipped instead: NCCL refuses a communicator
// with two ranks on one GPU, so the NCCL bootstraps cannot share.
#if __has_include(<catch2/catch_session.hpp>)
#include <catch2/catch_session.hpp>
#else
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#endif

#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "test_support.h"

int main(int argc, char **argv) {
  if (const char *need = std::getenv("GSHMEM_TEST_GPUS")) {
    int needed = std::atoi(need);
    int found = gshmem_test::visible_gpus();
    const char *share = std::getenv("GSHMEM_TEST_SHARE_GPUS");
    const char *own = std::getenv("GSHMEM_TEST_OWN_GPUS");
    const bool may_share = share && std::strcmp(share, "1") == 0 && !(own && std::strcmp(own, "1") == 0);
    if (found < needed && found >= 1 && may_share) {
      std::printf("NOTE: this test needs %d GPUs, found %d: its PEs share them (GSHMEM_TEST_SHARE_GPUS=1)\n",
                  needed, found);
      std::fflush(stdout);
      setenv("GSHMEM_ALLOW_GPU_SHARING", "1", /*overwrite=*/0);
    } else if (found < needed) {
      std::printf("SKIPPED: this test needs %d GPU(s), found %d\n", needed, found);
      std::fflush(stdout);
      return gshmem_test::kSkipExitCode;
    }
  }
  return Catch::Session().run(argc, argv);
}
