// Host RMA and atomics without a GPU: the same names as the device routines
// compile in host code, fail cleanly before init (nothing copied, the error
// recorded), and the argument checks reject what they must.
#include <gshmem/gshmem.h>

#include <cstdint>
#include <cstring>

#include "catch.hpp"
#include "rma_validate.h"

using gshmemi::rma::check_amo;
using gshmemi::rma::check_local;
using gshmemi::rma::check_remote;
using gshmemi::rma::check_remote_strided;
using gshmemi::stream::HeapRange;

TEST_CASE("host RMA before init: an error, nothing written, 0 fetched") {
  REQUIRE(gshmemx_initialized() == 0);
  long dest[4] = {7, 7, 7, 7};
  const long source[4] = {1, 2, 3, 4};
  gshmem_long_put(dest, source, 4, 0);
  CHECK(gshmemx_get_last_error() == GSHMEMX_ERROR_NOT_INITIALIZED);
  CHECK(dest[0] == 7);
  gshmem_long_get_nbi(dest, source, 4, 0);
  CHECK(gshmemx_get_last_error() == GSHMEMX_ERROR_NOT_INITIALIZED);
  CHECK(dest[3] == 7);
  gshmem_getmem(dest, source, sizeof(source), 0);
  CHECK(dest[1] == 7);
  CHECK(gshmem_long_g(source, 0) == 0);
  CHECK(gshmemx_get_last_error() == GSHMEMX_ERROR_NOT_INITIALIZED);
  gshmem_double_p(reinterpret_cast<double *>(dest), 2.5, 0);
  CHECK(dest[0] == 7);

  unsigned long long word = 41;
  CHECK(gshmem_ulonglong_atomic_fetch_inc(&word, 0) == 0);
  CHECK(gshmemx_get_last_error() == GSHMEMX_ERROR_NOT_INITIALIZED);
  CHECK(word == 41);
  CHECK(gshmem_uint64_atomic_compare_swap(reinterpret_cast<uint64_t *>(&word), 41, 5, 0) == 0);
  CHECK(word == 41);
  gshmem_ulonglong_atomic_xor(&word, 1, 0);
  CHECK(word == 41);
  float f = 1.5f;
  CHECK(gshmem_float_atomic_swap(&f, 9.0f, 0) == 0.0f);
  CHECK(f == 1.5f);
  CHECK(gshmem_double_atomic_fetch(reinterpret_cast<double *>(&word), 0) == 0.0);
  uint64_t signal = 9;
  CHECK(gshmem_signal_fetch(&signal) == 0);  // host form: the error, not the value
  CHECK(gshmemx_get_last_error() == GSHMEMX_ERROR_NOT_INITIALIZED);

  gshmem_quiet();
  CHECK(gshmemx_get_last_error() == GSHMEMX_ERROR_NOT_INITIALIZED);
}

TEST_CASE("local buffer registration and queue-pair handles before init: NOT_INITIALIZED, nothing made") {
  REQUIRE(gshmemx_initialized() == 0);
  long buffer[8];
  CHECK(gshmemx_buffer_register(buffer, sizeof(buffer)) == GSHMEMX_ERROR_NOT_INITIALIZED);
  CHECK(gshmemx_get_last_error() == GSHMEMX_ERROR_NOT_INITIALIZED);
  CHECK(gshmemx_buffer_unregister(buffer) == GSHMEMX_ERROR_NOT_INITIALIZED);
  int *handles = nullptr;
  CHECK(gshmemi_qp_create(2, &handles) == GSHMEMX_ERROR_NOT_INITIALIZED);
  CHECK(handles == nullptr);
}

TEST_CASE("host RMA argument checks") {
  alignas(64) static char heap[4096];
  const HeapRange range{reinterpret_cast<std::uintptr_t>(heap), sizeof(heap)};

  // Remote side: inside the heap, aligned for atomics, NULL only when empty.
  CHECK(check_remote(heap, sizeof(heap), 1, range, "dest").ok());
  CHECK(check_remote(heap + 100, 0, 1, range, "dest").ok());
  CHECK(check_remote(nullptr, 0, 1, range, "dest").ok());
  CHECK(check_remote(nullptr, 8, 1, range, "dest").code == GSHMEMX_ERROR_INVALID_VALUE);
  CHECK(check_remote(heap + 1, sizeof(heap), 1, range, "dest").code == GSHMEMX_ERROR_NOT_SYMMETRIC);
  CHECK(check_remote(heap - 8, 8, 1, range, "source").code == GSHMEMX_ERROR_NOT_SYMMETRIC);
  char outside[16];
  const auto v = check_remote(outside, 4, 4, range, "source");
  CHECK(v.code == GSHMEMX_ERROR_NOT_SYMMETRIC);
  CHECK(std::strstr(v.problem, "source is not a symmetric address") != nullptr);
  CHECK(check_remote(heap + 4, 8, 8, range, "dest").code == GSHMEMX_ERROR_MISALIGNED);
  CHECK(check_remote(heap + 8, 8, 8, range, "dest").ok());
  CHECK(check_remote(heap + sizeof(heap) - 4, 8, 4, range, "dest").code == GSHMEMX_ERROR_NOT_SYMMETRIC);

  // Local side: any memory, NULL only when empty.
  CHECK(check_local(outside, 16, "source").ok());
  CHECK(check_local(nullptr, 0, "dest").ok());
  CHECK(check_local(nullptr, 1, "dest").code == GSHMEMX_ERROR_INVALID_VALUE);

  // Atomics: known operations on 4- or 8-byte objects only.
  for (int op = 0; op < GSHMEMI_HOST_AMO_COUNT; ++op) {
    CHECK(check_amo(op, 4).ok());
    CHECK(check_amo(op, 8).ok());
    CHECK(check_amo(op, 2).code == GSHMEMX_ERROR_INVALID_VALUE);
    CHECK(check_amo(op, 16).code == GSHMEMX_ERROR_INVALID_VALUE);
  }
  CHECK(check_amo(-1, 8).code == GSHMEMX_ERROR_INVALID_VALUE);
  CHECK(check_amo(GSHMEMI_HOST_AMO_COUNT, 8).code == GSHMEMX_ERROR_INVALID_VALUE);
}

TEST_CASE("host strided RMA checks the symmetric side's whole span") {
  alignas(64) static char heap[4096];
  const HeapRange range{reinterpret_cast<std::uintptr_t>(heap), sizeof(heap)};
  // 10 ints, stride 3: bytes [0, 112) from the base.
  CHECK(check_remote_strided(heap, 3, 4, 10, range, "dest").ok());
  CHECK(check_remote_strided(heap + sizeof(heap) - 112, 3, 4, 10, range, "dest").ok());
  CHECK(check_remote_strided(heap + sizeof(heap) - 108, 3, 4, 10, range, "dest").code == GSHMEMX_ERROR_NOT_SYMMETRIC);
  // Negative stride: the span lies below the base.
  CHECK(check_remote_strided(heap + 108, -3, 4, 10, range, "source").ok());
  CHECK(check_remote_strided(heap + 104, -3, 4, 10, range, "source").code == GSHMEMX_ERROR_NOT_SYMMETRIC);
  // Zero stride: one element.
  CHECK(check_remote_strided(heap + sizeof(heap) - 16, 0, 16, 1000, range, "dest").ok());
  // nelems 0: nothing checked, NULL allowed; NULL otherwise refused, naming the side.
  CHECK(check_remote_strided(nullptr, 7, 8, 0, range, "dest").ok());
  const auto null_source = check_remote_strided(nullptr, 1, 8, 1, range, "source");
  CHECK(null_source.code == GSHMEMX_ERROR_INVALID_VALUE);
  CHECK(std::strstr(null_source.problem, "source is NULL") != nullptr);
  // Alignment to the access unit: min(element, 8).
  CHECK(check_remote_strided(heap + 2, 1, 4, 1, range, "dest").code == GSHMEMX_ERROR_MISALIGNED);
  CHECK(check_remote_strided(heap + 8, 1, 16, 4, range, "dest").ok());
  CHECK(check_remote_strided(heap + 4, 1, 16, 1, range, "dest").code == GSHMEMX_ERROR_MISALIGNED);
  CHECK(check_remote_strided(heap + 1, 5, 1, 3, range, "dest").ok());
  // A span past the address space: refused, not wrapped.
  const auto huge = check_remote_strided(heap, PTRDIFF_MAX / 2, 8, 3, range, "dest");
  CHECK(huge.code == GSHMEMX_ERROR_INVALID_VALUE);
  CHECK(std::strstr(huge.problem, "overflows") != nullptr);
}

TEST_CASE("host atomics carry every AMO type's bit pattern") {
  // What the host wrapper sends for a value is its exact bits (the kernel
  // works on 4- or 8-byte words), so float compare_swap compares patterns.
  CHECK(gshmem::detail::host_bits(-1) == 0xffffffffull);
  CHECK(gshmem::detail::host_bits(-1ll) == ~0ull);
  CHECK(gshmem::detail::host_bits(1.0f) == 0x3f800000ull);
  CHECK(gshmem::detail::host_bits(-0.0) == 0x8000000000000000ull);
}
