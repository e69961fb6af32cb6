// The test harness's decision for a test that needs more GPUs than the node
// has (gshmem_test::gpus_or_sharing, used by every test binary's main):
// skip, or, under GSHMEM_TEST_SHARE_GPUS=1, run with the PEs sharing a GPU.
#include <cstdlib>
#include <string>

#include "catch.hpp"
#include "test_support.h"

namespace {
std::string env(const char *name) {
  const char *v = std::getenv(name);
  return v ? v : "(unset)";
}
}  // namespace

TEST_CASE("enough GPUs: the test runs, sharing untouched") {
  gshmem_test::ScopedEnv share("GSHMEM_TEST_SHARE_GPUS", nullptr);
  gshmem_test::ScopedEnv allow("GSHMEM_ALLOW_GPU_SHARING", nullptr);
  CHECK(gshmem_test::gpus_or_sharing(2, 2));
  CHECK(gshmem_test::gpus_or_sharing(2, 4));
  CHECK(env("GSHMEM_ALLOW_GPU_SHARING") == "(unset)");
}

TEST_CASE("too few GPUs: skipped unless GSHMEM_TEST_SHARE_GPUS=1 and one GPU exists") {
  gshmem_test::ScopedEnv own("GSHMEM_TEST_OWN_GPUS", nullptr);
  gshmem_test::ScopedEnv allow("GSHMEM_ALLOW_GPU_SHARING", nullptr);
  {
    gshmem_test::ScopedEnv share("GSHMEM_TEST_SHARE_GPUS", nullptr);
    CHECK_FALSE(gshmem_test::gpus_or_sharing(2, 1));
  }
  {
    gshmem_test::ScopedEnv share("GSHMEM_TEST_SHARE_GPUS", "0");
    CHECK_FALSE(gshmem_test::gpus_or_sharing(2, 1));
  }
  CHECK(env("GSHMEM_ALLOW_GPU_SHARING") == "(unset)");
  gshmem_test::ScopedEnv share("GSHMEM_TEST_SHARE_GPUS", "1");
  CHECK_FALSE(gshmem_test::gpus_or_sharing(2, 0));  // nothing to share
  CHECK(env("GSHMEM_ALLOW_GPU_SHARING") == "(unset)");
  CHECK(gshmem_test::gpus_or_sharing(4, 1));
  CHECK(env("GSHMEM_ALLOW_GPU_SHARING") == "1");
}

TEST_CASE("sharing mode keeps a test's own GSHMEM_ALLOW_GPU_SHARING=0") {
  gshmem_test::ScopedEnv share("GSHMEM_TEST_SHARE_GPUS", "1");
  gshmem_test::ScopedEnv own("GSHMEM_TEST_OWN_GPUS", nullptr);
  gshmem_test::ScopedEnv allow("GSHMEM_ALLOW_GPU_SHARING", "0");
  CHECK(gshmem_test::gpus_or_sharing(2, 1));
  CHECK(env("GSHMEM_ALLOW_GPU_SHARING") == "0");
}

TEST_CASE("a test that needs a GPU per PE (NCCL) is skipped even in sharing mode") {
  gshmem_test::ScopedEnv share("GSHMEM_TEST_SHARE_GPUS", "1");
  gshmem_test::ScopedEnv own("GSHMEM_TEST_OWN_GPUS", "1");
  gshmem_test::ScopedEnv allow("GSHMEM_ALLOW_GPU_SHARING", nullptr);
  CHECK_FALSE(gshmem_test::gpus_or_sharing(2, 1));
  CHECK(env("GSHMEM_ALLOW_GPU_SHARING") == "(unset)");
}
