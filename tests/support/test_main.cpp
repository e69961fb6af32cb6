// The one main() of every test binary (Catch2 v2 or v3).
//
// A test that needs GPUs is registered with GSHMEM_TEST_GPUS=<n> in its
// environment; where fewer GPUs (or no driver) exist, it prints why and exits
// with the skip code CTest was told about, so CI reports it as skipped rather
// than passed.
#if __has_include(<catch2/catch_session.hpp>)
#include <catch2/catch_session.hpp>
#else
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#endif

#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#include "test_support.h"

int main(int argc, char **argv) {
  if (const char *need = std::getenv("GSHMEM_TEST_GPUS")) {
    int needed = std::atoi(need);
    int found = gshmem_test::visible_gpus();
    if (found < needed) {
      std::printf("SKIPPED: this test needs %d GPU(s), found %d\n", needed, found);
      std::fflush(stdout);
      return gshmem_test::kSkipExitCode;
    }
  }
  return Catch::Session().run(argc, argv);
}
