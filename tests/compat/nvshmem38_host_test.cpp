// NVSHMEM 3.8's host-side newest names without a GPU: regions (arguments
// checked as NVSHMEM checks them, no region in effect), shared-memory sizes,
// status strings, and the collective launch from a launch configuration
// refusing what it must before init.
#include <nvshmemx.h>

#include <cstring>

#include "catch.hpp"

TEST_CASE("regions: NVSHMEM's argument checks, and no region changes anything here", "[compat][cpu]") {
  nvshmemx_region_handle_t handle = 0;
  nvshmemx_region_attrs_t attrs = NVSHMEMX_REGION_ATTRS_INITIALIZER;
  CHECK(attrs.hints == NVSHMEMX_REGION_HINT_NONE);
  CHECK(nvshmemx_region_start(&handle, &attrs) == NVSHMEMX_SUCCESS);
  CHECK(handle != 0);
  CHECK(nvshmemx_region_stop(handle) == NVSHMEMX_SUCCESS);
  attrs.hints = NVSHMEMX_REGION_HINT_BATCH_RMA;
  CHECK(nvshmemx_region_start(&handle, &attrs) == NVSHMEMX_SUCCESS);
  int active = -1;
  CHECK(nvshmemx_region_is_active(NVSHMEMX_REGION_HINT_BATCH_RMA, &active) == NVSHMEMX_SUCCESS);
  CHECK(active == 0);
  CHECK(nvshmemx_region_stop(handle) == NVSHMEMX_SUCCESS);
  CHECK(nvshmemx_region_start(&handle, nullptr) == NVSHMEMX_SUCCESS);  // NULL attrs: no hints
  attrs.hints = 1u << 5;  // a hint NVSHMEM does not know
  CHECK(nvshmemx_region_start(&handle, &attrs) == NVSHMEMX_ERROR_INVALID_VALUE);
  CHECK(nvshmemx_region_start(nullptr, nullptr) == NVSHMEMX_ERROR_INVALID_VALUE);
  CHECK(nvshmemx_region_stop(0) == NVSHMEMX_ERROR_INVALID_VALUE);
  CHECK(nvshmemx_region_is_active(NVSHMEMX_REGION_HINT_NONE, nullptr) == NVSHMEMX_ERROR_INVALID_VALUE);
  CHECK(nvshmemx_region_is_active(1u << 7, &active) == NVSHMEMX_ERROR_INVALID_VALUE);
}

TEST_CASE("shared-memory lending: NVSHMEM 3.8's sizes", "[compat][cpu]") {
  CHECK(nvshmemx_ask_smem(NVSHMEMX_SMEM_RECOMMENDED) == 65536);
  CHECK(nvshmemx_ask_smem(NVSHMEMX_SMEM_MINIMUM) == 32768);
  CHECK(nvshmemx_ask_smem(NVSHMEMX_SMEM_BARRIERS_ONLY) == 1136);
}

TEST_CASE("status strings name the codes", "[compat][cpu]") {
  CHECK(std::strcmp(nvshmemx_status_string(NVSHMEMX_SUCCESS), "NVSHMEMX_SUCCESS") == 0);
  CHECK(std::strcmp(nvshmemx_status_string(NVSHMEMX_ERROR_INVALID_VALUE), "NVSHMEMX_ERROR_INVALID_VALUE") == 0);
  CHECK(std::strcmp(nvshmemx_status_string(NVSHMEMX_ERROR_NOT_SUPPORTED), "NVSHMEMX_ERROR_NOT_SUPPORTED") == 0);
  CHECK(std::strcmp(nvshmemx_status_string(12345), "NVSHMEMX_ERROR_<unknown>") == 0);
}

TEST_CASE("collective launch from a launch configuration: refused before init and without one", "[compat][cpu]") {
  CHECK(nvshmemx_collective_launch_attr(nullptr, reinterpret_cast<const void *>(&nvshmemx_ask_smem), nullptr) ==
        NVSHMEMX_ERROR_INVALID_VALUE);
  nvshmemx_collective_launch_attr_t attr;
  std::memset(&attr, 0, sizeof attr);
  attr.cuda_config.blockDim = dim3(32, 1, 1);
  CHECK(nvshmemx_collective_launch_attr(&attr, reinterpret_cast<const void *>(&nvshmemx_ask_smem), nullptr) ==
        GSHMEMX_ERROR_NOT_INITIALIZED);
}
