// Members that pass different arguments to one collective (team_sync.h,
// "call signatures"): the collective's entry sync finds the other member's
// signature different, records the diagnostic and traps; the host prints
// one line naming both PEs and the argument. Two PEs, one mismatch per run
// (a trap ends the CUDA context), chosen by GSHMEM_TEST_MISMATCH:
//   root           broadcastmem on a stream, 64 bytes, root = my PE (block form)
//   wide_root      the same with 1 MiB (the wide form: its entry is a sync kernel)
//   size           int fcollect on a stream, 16 + my PE elements
//   operator       int sum reduction on PE 0, int max on PE 1, on a stream
//   wide_operator  the same with 64 Ki elements (the wide form)
//   host           the host form of int broadcast, root = my PE
//   device         a kernel's block-form alltoall, 4 + my PE elements
//   form           a kernel's int fcollect of 256 elements, from one thread on
//                  PE 0 and from a block on PE 1: past
//                  GSHMEM_COLLECTIVE_LL_THREAD_BYTES the two take different
//                  paths (team_ll.h, ll_chooses). PE 1, on the LL path, finds
//                  PE 0 in the entry sync of the other and says so; PE 0's
//                  sync then ends with the GSHMEM_WAIT_TIMEOUT diagnostic
//                  (PEs sharing a GPU under MPS: PE 1's trap ends PE 0's
//                  kernel too, before its timeout, so only the failure shows)
// The other modes run with GSHMEM_COLLECTIVE_LL=0: their checks are the
// entry sync's (the LL path compares signatures only where a member
// receives; a broadcast whose every member is its root receives nothing).
// This PE's stderr is captured from before init to the end, so the check
// reads the line the runtime printed for this PE.
#include <gshmem/gshmem.h>
#include <gshmem/gshmemx.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

#include "catch.hpp"
#include "test_support.h"

cudaError_t launch_alltoall_block(int *dest, const int *source, size_t nelems, cudaStream_t stream);
cudaError_t launch_fcollect_in_form(int *dest, const int *source, size_t nelems, bool one_thread,
                                    cudaStream_t stream);

namespace {

// Everything written to fd 2 from construction on, until restore().
class StderrCapture {
 public:
  StderrCapture() : file_(std::tmpfile()), saved_(dup(2)) {
    std::fflush(stderr);
    if (file_ && saved_ >= 0) dup2(fileno(file_), 2);
  }
  std::string text() const {
    std::fflush(stderr);
    std::string out;
    std::FILE *in = std::fopen(("/proc/self/fd/" + std::to_string(fileno(file_))).c_str(), "r");
    if (!in) return out;
    char buf[1024];
    size_t got;
    while ((got = std::fread(buf, 1, sizeof buf, in)) > 0) out.append(buf, got);
    std::fclose(in);
    return out;
  }
  void restore() {
    std::fflush(stderr);
    if (saved_ >= 0) dup2(saved_, 2);
  }
  bool ok() const { return file_ != nullptr && saved_ >= 0; }

 private:
  std::FILE *file_;
  int saved_;
};

struct Expectation {
  const char *mode, *routine, *difference;
};
const Expectation kModes[] = {
    {"root", "gshmemx_broadcast_on_stream", "a different root"},
    {"wide_root", "gshmemx_collective_on_stream (wide form)", "a different root"},
    {"size", "gshmemx_fcollect_on_stream", "a different size"},
    {"operator", "gshmemx_reduce_on_stream", "a different collective or reduction operator"},
    {"wide_operator", "gshmemx_collective_on_stream (wide form)", "a different collective or reduction operator"},
    {"host", "gshmemx_broadcast_on_stream", "a different root"},
    {"device", "gshmemx_int_alltoall_block", "a different size"},
    {"form", nullptr, nullptr},
};

}  // namespace

TEST_CASE("members that pass different arguments to a collective are named, with the argument", "[team][gpu]") {
  const char *mode = std::getenv("GSHMEM_TEST_MISMATCH");
  REQUIRE(mode != nullptr);
  const Expectation *want = nullptr;
  for (const Expectation &e : kModes)
    if (std::strcmp(e.mode, mode) == 0) want = &e;
  REQUIRE(want != nullptr);
  StderrCapture capture;
  REQUIRE(capture.ok());
  REQUIRE(gshmem_init() == 0);
  const int me = gshmem_my_pe();
  REQUIRE(gshmem_n_pes() == 2);
  const size_t bytes = size_t{2} << 20;
  char *source = static_cast<char *>(gshmem_malloc(bytes));
  char *dest = static_cast<char *>(gshmem_malloc(bytes));
  REQUIRE(source);
  REQUIRE(dest);
  cudaStream_t stream;
  REQUIRE(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) == cudaSuccess);
  gshmem_barrier_all();
  const gshmem_team_t W = GSHMEM_TEAM_WORLD;
  int *isrc = reinterpret_cast<int *>(source), *idst = reinterpret_cast<int *>(dest);
  int rc = 0;
  const std::string m = mode;
  if (m == "root") rc = gshmemx_broadcastmem_on_stream(W, dest, source, 64, me, stream);
  else if (m == "wide_root") rc = gshmemx_broadcastmem_on_stream(W, dest, source, size_t{1} << 20, me, stream);
  else if (m == "size") rc = gshmemx_int_fcollect_on_stream(W, idst, isrc, 16 + (size_t)me, stream);
  else if (m == "operator" || m == "wide_operator") {
    const size_t n = m == "operator" ? 32 : size_t{64} << 10;
    rc = me == 0 ? gshmemx_int_sum_reduce_on_stream(W, idst, isrc, n, stream)
                 : gshmemx_int_max_reduce_on_stream(W, idst, isrc, n, stream);
  } else if (m == "host") {
    rc = gshmem_int_broadcast(W, idst, isrc, 16, me);
  } else if (m == "device") {
    REQUIRE(launch_alltoall_block(idst, isrc, 4 + (size_t)me, stream) == cudaSuccess);
  } else if (m == "form") {
    REQUIRE(launch_fcollect_in_form(idst, isrc, 256, me == 0, stream) == cudaSuccess);
  }
  const cudaError_t synced = cudaStreamSynchronize(stream);
  // The reporter thread prints the record within a few milliseconds.
  std::string text;
  const std::string prefix = "gshmem: PE " + std::to_string(me) + ": ";
  const std::string line_start =
      m != "form" ? prefix + want->routine + ": PE " + std::to_string(1 - me) + ", a member of team 0, passed " +
                        want->difference
      : me == 1   ? prefix + "gshmemx_int_fcollect_block: waits for PE 0's lines (LL protocol, team 0"
                  : prefix + "gshmem_int_fcollect: timed out waiting for PE 1";
  for (int k = 0; k < 200 && text.find(line_start) == std::string::npos; ++k) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    text = capture.text();
  }
  capture.restore();
  std::fprintf(stderr, "%s", text.c_str());  // this PE's output, as it would have appeared
  INFO("mode " << mode << ", PE " << me << "; its stderr:\n" << text);
  if (m == "host") CHECK(rc != 0);  // the host form waits for its kernel, which trapped
  else CHECK(rc == 0);              // enqueued; the trap shows at the synchronization
  CHECK(synced != cudaSuccess);
  const char *shared = std::getenv("GSHMEM_TEST_SHARE_GPUS");
  const bool gpu_shared = shared != nullptr && std::string(shared) == "1";
  if (m != "form" || me == 1 || !gpu_shared) CHECK(text.find(line_start) != std::string::npos);
  if (m != "form")
    CHECK(text.find("Every member must call the same collective with the same root and size") != std::string::npos);
  else if (me == 1)
    CHECK(text.find("Members must call a collective all from one thread or all from a group") != std::string::npos);
  gshmem_finalize();
}
