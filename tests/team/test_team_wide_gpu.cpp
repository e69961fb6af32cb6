// GPU test (2 and 4 PEs) of the wide form of on-stream collectives
// (device/wide_collectives.cuh): rounds of fcollect, broadcast, reduction
// and alltoall enqueued back to back on one stream, with no host sync
// between calls, eagerly and as a captured CUDA graph replayed several
// times. Every call moves enough to take the wide form (128 KiB a data
// collective, 32 KiB a reduction). Each round overwrites the shared source
// the previous round's calls read from peers, so a member that left a call
// before every reader was done, or a data phase that read before the entry
// sync, shows as wrong words. Run with GSHMEM_COLLECTIVE_WIDE_ONE_LAUNCH=1
// (one cooperative kernel a call, the default) and =0 (three kernels).
#include <gshmem/gshmemx.h>

#include <cuda_runtime.h>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "catch.hpp"
#include "gpu_test_support.h"

namespace {

using gshmem_test::runtime_scope;

constexpr size_t kInts = size_t{32} << 10;  // 128 KiB of int a member
constexpr int kRounds = 6;

// The source word `i` of member `pe` in round `round`.
int source_word(int pe, int round, size_t i) {
  return (int)((unsigned)pe * 1000003u + (unsigned)round * 7919u + (unsigned)i * 31u);
}

// One round's outputs, copied out of the symmetric results after the round.
struct round_results {
  int *collected;   // fcollect of the source: n_pes * kInts
  int *broadcast;   // broadcast of root's source: kInts
  int *sum;         // sum reduction of the source: kInts
  int *exchanged;   // alltoall of `collected`: n_pes * kInts
};

struct wide_rounds {
  int n_pes = 0, me = 0;
  int *table = nullptr;  // each round's source, device memory (not symmetric)
  int *source = nullptr, *collected = nullptr, *broadcast = nullptr, *sum = nullptr, *exchanged = nullptr;
  std::vector<round_results> out;

  wide_rounds() : n_pes(gshmem_n_pes()), me(gshmem_my_pe()), out(kRounds) {
    const size_t all = (size_t)n_pes * kInts;
    std::vector<int> host((size_t)kRounds * kInts);
    for (int r = 0; r < kRounds; ++r)
      for (size_t i = 0; i < kInts; ++i) host[(size_t)r * kInts + i] = source_word(me, r, i);
    GSHMEM_TEST_CUDA(cudaMalloc(&table, host.size() * sizeof(int)));
    GSHMEM_TEST_CUDA(cudaMemcpy(table, host.data(), host.size() * sizeof(int), cudaMemcpyHostToDevice));
    source = static_cast<int *>(gshmem_malloc(kInts * sizeof(int)));
    collected = static_cast<int *>(gshmem_malloc(all * sizeof(int)));
    broadcast = static_cast<int *>(gshmem_malloc(kInts * sizeof(int)));
    sum = static_cast<int *>(gshmem_malloc(kInts * sizeof(int)));
    exchanged = static_cast<int *>(gshmem_malloc(all * sizeof(int)));
    REQUIRE((source && collected && broadcast && sum && exchanged));
    for (round_results &o : out) {
      GSHMEM_TEST_CUDA(cudaMalloc(&o.collected, all * sizeof(int)));
      GSHMEM_TEST_CUDA(cudaMalloc(&o.broadcast, kInts * sizeof(int)));
      GSHMEM_TEST_CUDA(cudaMalloc(&o.sum, kInts * sizeof(int)));
      GSHMEM_TEST_CUDA(cudaMalloc(&o.exchanged, all * sizeof(int)));
    }
  }
  ~wide_rounds() {
    for (round_results &o : out) {
      cudaFree(o.collected);
      cudaFree(o.broadcast);
      cudaFree(o.sum);
      cudaFree(o.exchanged);
    }
    gshmem_free(exchanged);
    gshmem_free(sum);
    gshmem_free(broadcast);
    gshmem_free(collected);
    gshmem_free(source);
    cudaFree(table);
  }

  // Every round on `stream`, nothing waited for on the host; the status of
  // each call is CHECKed.
  void enqueue(cudaStream_t stream) {
    const size_t all = (size_t)n_pes * kInts;
    for (int r = 0; r < kRounds; ++r) {
      const int root = r % n_pes;
      GSHMEM_TEST_CUDA(cudaMemcpyAsync(source, table + (size_t)r * kInts, kInts * sizeof(int),
                                       cudaMemcpyDeviceToDevice, stream));
      CHECK(gshmemx_int_fcollect_on_stream(GSHMEM_TEAM_WORLD, collected, source, kInts, stream) == 0);
      CHECK(gshmemx_int_broadcast_on_stream(GSHMEM_TEAM_WORLD, broadcast, source, kInts, root, stream) == 0);
      CHECK(gshmemx_int_sum_reduce_on_stream(GSHMEM_TEAM_WORLD, sum, source, kInts, stream) == 0);
      CHECK(gshmemx_int_alltoall_on_stream(GSHMEM_TEAM_WORLD, exchanged, collected, kInts, stream) == 0);
      const round_results &o = out[r];
      GSHMEM_TEST_CUDA(cudaMemcpyAsync(o.collected, collected, all * sizeof(int), cudaMemcpyDeviceToDevice, stream));
      GSHMEM_TEST_CUDA(cudaMemcpyAsync(o.broadcast, broadcast, kInts * sizeof(int), cudaMemcpyDeviceToDevice, stream));
      GSHMEM_TEST_CUDA(cudaMemcpyAsync(o.sum, sum, kInts * sizeof(int), cudaMemcpyDeviceToDevice, stream));
      GSHMEM_TEST_CUDA(cudaMemcpyAsync(o.exchanged, exchanged, all * sizeof(int), cudaMemcpyDeviceToDevice, stream));
    }
  }

  void clear_outputs() {
    const size_t all = (size_t)n_pes * kInts;
    for (round_results &o : out) {
      GSHMEM_TEST_CUDA(cudaMemset(o.collected, 0x5a, all * sizeof(int)));
      GSHMEM_TEST_CUDA(cudaMemset(o.broadcast, 0x5a, kInts * sizeof(int)));
      GSHMEM_TEST_CUDA(cudaMemset(o.sum, 0x5a, kInts * sizeof(int)));
      GSHMEM_TEST_CUDA(cudaMemset(o.exchanged, 0x5a, all * sizeof(int)));
    }
    GSHMEM_TEST_CUDA(cudaDeviceSynchronize());
  }

  // One pass: outputs cleared, the PEs met, every round enqueued on a
  // stream of its own and waited for, then checked (`how` names the pass).
  void run_eager(const char *how) {
    cudaStream_t stream;
    GSHMEM_TEST_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    clear_outputs();
    REQUIRE(gshmem_team_sync(GSHMEM_TEAM_WORLD) == 0);
    enqueue(stream);
    GSHMEM_TEST_CUDA(cudaStreamSynchronize(stream));
    GSHMEM_TEST_CUDA(cudaStreamDestroy(stream));
    check(how);
  }

  // Words of every round's outputs that differ from what the round must
  // give (after the stream finished).
  void check(const char *how) {
    const size_t all = (size_t)n_pes * kInts;
    std::vector<int> got(all);
    for (int r = 0; r < kRounds; ++r) {
      const int root = r % n_pes;
      const round_results &o = out[r];
      size_t wrong[4] = {0, 0, 0, 0};
      GSHMEM_TEST_CUDA(cudaMemcpy(got.data(), o.collected, all * sizeof(int), cudaMemcpyDeviceToHost));
      for (size_t x = 0; x < all; ++x) wrong[0] += got[x] != source_word((int)(x / kInts), r, x % kInts);
      GSHMEM_TEST_CUDA(cudaMemcpy(got.data(), o.broadcast, kInts * sizeof(int), cudaMemcpyDeviceToHost));
      for (size_t i = 0; i < kInts; ++i) wrong[1] += got[i] != source_word(root, r, i);
      GSHMEM_TEST_CUDA(cudaMemcpy(got.data(), o.sum, kInts * sizeof(int), cudaMemcpyDeviceToHost));
      for (size_t i = 0; i < kInts; ++i) {
        unsigned want = 0;
        for (int pe = 0; pe < n_pes; ++pe) want += (unsigned)source_word(pe, r, i);
        wrong[2] += got[i] != (int)want;
      }
      // Block q of `exchanged` is member q's block `me` of its `collected`:
      // member me's source (every member collected the same).
      GSHMEM_TEST_CUDA(cudaMemcpy(got.data(), o.exchanged, all * sizeof(int), cudaMemcpyDeviceToHost));
      for (size_t x = 0; x < all; ++x) wrong[3] += got[x] != source_word(me, r, x % kInts);
      INFO(how << ", round " << r << " of " << kRounds << ", PE " << me << " of " << n_pes << " (root " << root
               << "): wrong words in fcollect " << wrong[0] << ", broadcast " << wrong[1] << ", sum " << wrong[2]
               << ", alltoall " << wrong[3]);
      CHECK(wrong[0] + wrong[1] + wrong[2] + wrong[3] == 0);
    }
  }
};

}  // namespace

TEST_CASE("wide on-stream collectives back to back: each round overwrites what the last one read",
          "[team][collectives][wide][gpu]") {
  runtime_scope rt;
  {
    wide_rounds rounds;
    for (int pass = 0; pass < 3; ++pass) rounds.run_eager("eager");
  }
  gshmem_barrier_all();
}

TEST_CASE("wide on-stream collectives in a captured graph, replayed", "[team][collectives][wide][graph][gpu]") {
  runtime_scope rt;
  {
    wide_rounds rounds;
    cudaStream_t stream;
    GSHMEM_TEST_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    cudaGraph_t graph = nullptr;
    GSHMEM_TEST_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    rounds.enqueue(stream);
    GSHMEM_TEST_CUDA(cudaStreamEndCapture(stream, &graph));
    REQUIRE(graph != nullptr);
    cudaGraphExec_t exec = nullptr;
    GSHMEM_TEST_CUDA(cudaGraphInstantiate(&exec, graph, 0));
    for (int replay = 0; replay < 4; ++replay) {
      rounds.clear_outputs();
      REQUIRE(gshmem_team_sync(GSHMEM_TEAM_WORLD) == 0);
      GSHMEM_TEST_CUDA(cudaGraphLaunch(exec, stream));
      // Two launches back to back: the second replay's first round
      // overwrites the source while peers may still be in the first's last.
      if (replay % 2 == 1) GSHMEM_TEST_CUDA(cudaGraphLaunch(exec, stream));
      GSHMEM_TEST_CUDA(cudaStreamSynchronize(stream));
      rounds.check(replay % 2 ? "graph, replayed twice back to back" : "graph");
    }
    GSHMEM_TEST_CUDA(cudaGraphExecDestroy(exec));
    GSHMEM_TEST_CUDA(cudaGraphDestroy(graph));
    GSHMEM_TEST_CUDA(cudaStreamDestroy(stream));
  }
  gshmem_barrier_all();
}

TEST_CASE("wide on-stream collectives: members that differ in the form (one launch, three) agree",
          "[team][collectives][wide][gpu]") {
  // The setting is read at init and may differ between PEs: odd launcher
  // ranks take three launches, even ones one.
  const char *name = "GSHMEM_COLLECTIVE_WIDE_ONE_LAUNCH";
  const char *before = getenv(name);
  const std::string kept = before ? before : "";
  setenv(name, gshmem_test::launcher_rank() % 2 ? "0" : "1", 1);
  {
    runtime_scope rt;
    {
      wide_rounds rounds;
      rounds.run_eager("mixed forms");
    }
    gshmem_barrier_all();
  }
  if (before) setenv(name, kept.c_str(), 1);
  else unsetenv(name);
}
