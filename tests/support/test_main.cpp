// The one main() of every test binary (Catch2 v2 or v3).
//
// A test that needs GPUs is registered with GSHMEM_TEST_GPUS=<n> in its
// environment; where fewer GPUs (or no driver) exist, it prints why and exits
// with the skip code CTest was told about, so CI reports it as skipped rather
// than passed (or, under GSHMEM_TEST_SHARE_GPUS=1, runs with its PEs sharing
// the GPUs: see gpus_or_sharing in test_support.h).
#if __has_include(<catch2/catch_session.hpp>)
#include <catch2/catch_session.hpp>
#else
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#endif

#include <cstdlib>

#include "test_support.h"

int main(int argc, char **argv) {
  if (const char *need = std::getenv("GSHMEM_TEST_GPUS")) {
    if (!gshmem_test::gpus_or_sharing(std::atoi(need))) return gshmem_test::kSkipExitCode;
  }
  return Catch::Session().run(argc, argv);
}
