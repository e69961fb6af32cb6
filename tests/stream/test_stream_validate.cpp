// Argument checks of the on-stream routines, on a made-up heap range.
#include "catch.hpp"
#include "stream_validate.h"

using namespace gshmemi::stream;

namespace {
const HeapRange kHeap{0x100000, 0x1000};  // [0x100000, 0x101000)
void *at(std::uintptr_t a) { return reinterpret_cast<void *>(a); }
}  // namespace

TEST_CASE("cmp and sig_op", "[stream][validate]") {
  for (int cmp : {GSHMEM_CMP_EQ, GSHMEM_CMP_NE, GSHMEM_CMP_GT, GSHMEM_CMP_GE, GSHMEM_CMP_LT, GSHMEM_CMP_LE})
    CHECK(check_cmp(cmp).ok());
  CHECK(check_cmp(-1).code == GSHMEMX_ERROR_INVALID_VALUE);
  CHECK(check_cmp(6).code == GSHMEMX_ERROR_INVALID_VALUE);
  CHECK(check_sig_op(GSHMEM_SIGNAL_SET).ok());
  CHECK(check_sig_op(GSHMEM_SIGNAL_ADD).ok());
  CHECK(check_sig_op(2).code == GSHMEMX_ERROR_INVALID_VALUE);
  CHECK(check_sig_op(0).code == GSHMEMX_ERROR_INVALID_VALUE);
  CHECK(check_sig_op(GSHMEM_SIGNAL_ADD + 1).code == GSHMEMX_ERROR_INVALID_VALUE);
}

TEST_CASE("init, stream device, pe", "[stream][validate]") {
  CHECK(check_initialized(true).ok());
  CHECK(check_initialized(false).code == GSHMEMX_ERROR_NOT_INITIALIZED);
  CHECK(check_stream_device(1, 1).ok());
  CHECK(check_stream_device(0, 1).code == GSHMEMX_ERROR_INVALID_STREAM);
  CHECK(check_pe(0, 2, true).ok());
  CHECK(check_pe(2, 2, true).code == GSHMEMX_ERROR_INVALID_PE);
  CHECK(check_pe(-1, 2, true).code == GSHMEMX_ERROR_INVALID_PE);
  CHECK(check_pe(1, 2, false).code == GSHMEMX_ERROR_INVALID_PE);
  CHECK(check_pe(1, 2, false, true).ok());  // a remote peer: reached through the proxy
  CHECK(check_pe(2, 2, false, true).code == GSHMEMX_ERROR_INVALID_PE);
}

TEST_CASE("target pe from the job's state: mapped, unreachable, remote", "[stream][validate]") {
  static char heap0[16], heap2[16];
  static unsigned long long queue_slot;
  gshmemi_device_state_t s{};
  s.n_pes = 3;
  s.peer_base[0] = heap0;
  s.peer_base[2] = heap2;  // PE 1: not mapped
  CHECK(check_target(s, 0).ok());
  CHECK(check_target(s, 1).code == GSHMEMX_ERROR_INVALID_PE);  // no proxy: unreachable
  CHECK_FALSE(is_remote_target(s, 1));
  CHECK(check_target(s, 3).code == GSHMEMX_ERROR_INVALID_PE);
  CHECK(check_target(s, -1).code == GSHMEMX_ERROR_INVALID_PE);
  s.proxy.slots = &queue_slot;  // the job has remote peers: PE 1 is one
  CHECK(check_target(s, 1).ok());
  CHECK(is_remote_target(s, 1));
  CHECK_FALSE(is_remote_target(s, 0));  // mapped
  CHECK(check_target(s, 2).ok());
  CHECK_FALSE(is_remote_target(s, 2));
  CHECK(check_target(s, 3).code == GSHMEMX_ERROR_INVALID_PE);
  CHECK_FALSE(is_remote_target(s, 3));  // outside the job
  CHECK_FALSE(is_remote_target(s, -1));
}

TEST_CASE("single ivar: NULL, outside, straddling, misaligned", "[stream][validate]") {
  CHECK(check_ivar(at(0x100000), 8, kHeap).ok());
  CHECK(check_ivar(at(0x100ff8), 8, kHeap).ok());                                   // last word
  CHECK(check_ivar(nullptr, 8, kHeap).code == GSHMEMX_ERROR_INVALID_VALUE);
  CHECK(check_ivar(at(0x0ffff8), 8, kHeap).code == GSHMEMX_ERROR_NOT_SYMMETRIC);    // just below
  CHECK(check_ivar(at(0x101000), 8, kHeap).code == GSHMEMX_ERROR_NOT_SYMMETRIC);    // just past
  CHECK(check_ivar(at(0x100ffc), 8, HeapRange{0x100000, 0x1000 - 4}).code == GSHMEMX_ERROR_MISALIGNED);
  CHECK(check_ivar(at(0x100ff8), 8, HeapRange{0x100000, 0xffc}).code == GSHMEMX_ERROR_NOT_SYMMETRIC);  // straddles end
  CHECK(check_ivar(at(0x100004), 8, kHeap).code == GSHMEMX_ERROR_MISALIGNED);
  CHECK(check_ivar(at(0x100002), 4, kHeap).code == GSHMEMX_ERROR_MISALIGNED);
  CHECK(check_ivar(at(0x100002), 2, kHeap).ok());
  CHECK(check_ivar(at(0x100000), 8, HeapRange{}).code == GSHMEMX_ERROR_NOT_SYMMETRIC);  // no heap
}

TEST_CASE("ivar arrays", "[stream][validate]") {
  CHECK(check_ivars(nullptr, 0, 8, kHeap).ok());  // empty set: nothing to check
  CHECK(check_ivars(nullptr, 1, 8, kHeap).code == GSHMEMX_ERROR_INVALID_VALUE);
  CHECK(check_ivars(at(0x100000), 512, 8, kHeap).ok());
  CHECK(check_ivars(at(0x100000), 513, 8, kHeap).code == GSHMEMX_ERROR_NOT_SYMMETRIC);
  CHECK(check_ivars(at(0x100008), 512, 8, kHeap).code == GSHMEMX_ERROR_NOT_SYMMETRIC);
  CHECK(check_ivars(at(0x100000), SIZE_MAX / 4, 8, kHeap).code == GSHMEMX_ERROR_INVALID_VALUE);  // overflow
  CHECK(check_ivars(at(0x100001), 4, 4, kHeap).code == GSHMEMX_ERROR_MISALIGNED);
  CHECK(check_ivars(at(UINTPTR_MAX - 7), 1, 8, kHeap).code == GSHMEMX_ERROR_NOT_SYMMETRIC);
}

namespace {
// One pretend registered buffer, [0x200000, 0x202000), beyond the heap.
bool in_pretend_registered_buffer(std::uintptr_t address, std::uint64_t bytes) {
  return address >= 0x200000 && address < 0x202000 && bytes <= 0x202000 - address;
}
}  // namespace

TEST_CASE("registered buffers count as symmetric, their holes and edges do not", "[stream][validate]") {
  HeapRange range = kHeap;
  CHECK(check_ivar(at(0x200000), 8, range).code == GSHMEMX_ERROR_NOT_SYMMETRIC);  // no registrations known
  range.registered = &in_pretend_registered_buffer;
  CHECK(check_ivar(at(0x100000), 8, range).ok());  // the heap still is
  CHECK(check_ivar(at(0x200000), 8, range).ok());
  CHECK(check_ivar(at(0x201ff8), 8, range).ok());
  CHECK(check_ivars(at(0x200000), 1024, 8, range).ok());
  CHECK(check_ivars(at(0x200008), 1024, 8, range).code == GSHMEMX_ERROR_NOT_SYMMETRIC);  // runs past its end
  CHECK(check_ivar(at(0x202000), 8, range).code == GSHMEMX_ERROR_NOT_SYMMETRIC);
  CHECK(check_ivar(at(0x180000), 8, range).code == GSHMEMX_ERROR_NOT_SYMMETRIC);         // between the two
  CHECK(check_ivar(at(0x200004), 8, range).code == GSHMEMX_ERROR_MISALIGNED);
  // A range that starts in the heap and ends in a buffer is in neither.
  CHECK(check_ivars(at(0x100ff8), 2, 8, HeapRange{0x100000, 0x1000, &in_pretend_registered_buffer}).code ==
        GSHMEMX_ERROR_NOT_SYMMETRIC);
}

TEST_CASE("device-side arrays", "[stream][validate]") {
  CHECK(check_device_array(nullptr, 0, 8, "null", "mis").ok());
  CHECK(check_device_array(nullptr, 3, 8, "null", "mis").code == GSHMEMX_ERROR_INVALID_VALUE);
  CHECK(check_device_array(at(0x2004), 3, 8, "null", "mis").code == GSHMEMX_ERROR_MISALIGNED);
  CHECK(check_device_array(at(0x2008), 3, 8, "null", "mis").ok());
}
