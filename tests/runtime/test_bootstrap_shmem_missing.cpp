// The OpenSHMEM bootstrap in a process that links no OpenSHMEM library:
// every way of asking for it fails with GSHMEMX_ERROR_BOOTSTRAP and a
// message naming the missing routines and what the program must do.
// No GPU, no launcher.
#include <dlfcn.h>

#include <gshmem/gshmem.h>

#include <string>

#include "bootstrap_loader.h"
#include "catch.hpp"
#include "test_support.h"

using gshmem_test::contains;

namespace {
void check_message(const std::string &said) {
  INFO(said);
  CHECK(contains(said, "shmem_my_pe"));
  CHECK(contains(said, "shmem_barrier_all"));
  CHECK(contains(said, "shmem_global_exit"));
  CHECK(contains(said, "must link an OpenSHMEM library"));
  CHECK(contains(said, "call shmem_init before"));
}
}  // namespace

TEST_CASE("this process has no OpenSHMEM routines (the premise of these tests)") {
  REQUIRE(dlsym(RTLD_DEFAULT, "shmem_my_pe") == nullptr);
}

TEST_CASE("OpenSHMEM bootstrap without an OpenSHMEM library: the module says what is missing") {
  std::unique_ptr<gshmemi::Bootstrap> boot;
  int rc = 0;
  const std::string said = gshmem_test::capture_stderr([&] { rc = gshmemi::open_openshmem_bootstrap(&boot); });
  CHECK(rc == GSHMEMX_ERROR_BOOTSTRAP);
  CHECK(!boot);
  check_message(said);
}

TEST_CASE("GSHMEMX_INIT_WITH_SHMEM and GSHMEM_BOOTSTRAP=shmem without an OpenSHMEM library fail cleanly") {
  int rc = 0;
  std::string said = gshmem_test::capture_stderr([&] { rc = gshmemx_init_attr(GSHMEMX_INIT_WITH_SHMEM, nullptr); });
  CHECK(rc == GSHMEMX_ERROR_BOOTSTRAP);
  CHECK(gshmemx_get_last_error() == GSHMEMX_ERROR_BOOTSTRAP);
  CHECK(gshmemx_initialized() == 0);
  check_message(said);

  gshmemx_init_attr_t attr = GSHMEMX_INIT_ATTR_INITIALIZER;
  attr.heap_size = 64 << 20;
  CHECK(gshmemx_init_attr(GSHMEMX_INIT_WITH_SHMEM, &attr) == GSHMEMX_ERROR_BOOTSTRAP);

  gshmem_test::ScopedEnv bootstrap("GSHMEM_BOOTSTRAP", "shmem");
  said = gshmem_test::capture_stderr([&] { rc = gshmem_init(); });
  CHECK(rc == GSHMEMX_ERROR_BOOTSTRAP);
  CHECK(gshmemx_initialized() == 0);
  check_message(said);
}
