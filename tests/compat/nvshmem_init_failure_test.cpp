// nvshmem_init (compat header) when gshmem_init fails: NVSHMEM's prints and
// ends the process; gshmem's prints one line naming the cause and returns,
// and the program goes on uninitialized. A bad GSHMEM_SYMMETRIC_SIZE makes
// init fail the same way on every machine (before any GPU is touched).
#include <nvshmem.h>

#include <sstream>
#include <string>

#include "catch.hpp"
#include "test_support.h"

using gshmem_test::capture_stderr;
using gshmem_test::contains;
using gshmem_test::ScopedEnv;

TEST_CASE("a failed nvshmem_init prints one line with the cause and leaves the program uninitialized",
          "[compat]") {
  ScopedEnv bootstrap("GSHMEM_BOOTSTRAP", "single");
  ScopedEnv size("GSHMEM_SYMMETRIC_SIZE", "banana");
  const std::string said = capture_stderr([] { nvshmem_init(); });
  INFO(said);
  int lines_from_init = 0;
  std::string line, ours;
  std::istringstream in(said);
  while (std::getline(in, line))
    if (line.rfind("nvshmem_init:", 0) == 0) {
      ++lines_from_init;
      ours = line;
    }
  CHECK(lines_from_init == 1);
  CHECK(contains(ours, gshmemx_error_string(GSHMEMX_ERROR_ENVIRONMENT)));
  CHECK(contains(ours, "code " + std::to_string(GSHMEMX_ERROR_ENVIRONMENT)));
  CHECK(contains(ours, "continues uninitialized"));
  CHECK(contains(said, "GSHMEM_SYMMETRIC_SIZE"));  // gshmem's own log line: the detail

  // The process goes on, uninitialized, and says so.
  CHECK(nvshmemx_init_status() == NVSHMEM_STATUS_NOT_INITIALIZED);
  CHECK(gshmemx_get_last_error() == GSHMEMX_ERROR_ENVIRONMENT);
  CHECK(nvshmem_my_pe() == -1);
  CHECK(gshmemx_get_last_error() == GSHMEMX_ERROR_NOT_INITIALIZED);
  CHECK(nvshmem_malloc(64) == nullptr);
  CHECK(gshmemx_get_last_error() == GSHMEMX_ERROR_NOT_INITIALIZED);
  uint64_t signal = 3;
  CHECK(nvshmem_signal_fetch(&signal) == 0);  // the host form, mapped
  CHECK(gshmemx_get_last_error() == GSHMEMX_ERROR_NOT_INITIALIZED);
}
