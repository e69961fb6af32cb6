// Host-callable launchers of the GPU wait/test tests' kernels
// (sync_gpu_kernels.cu, an ordinary .cu file compiled without -rdc). The
// Catch2 checks are in sync_gpu_test.cpp, compiled by the host compiler only:
// nvcc's front end in CUDA 13.0 can take many minutes on a file that combines
// Catch2 v3's TEST_CASE with many device-template instantiations.
// Every launcher returns the launch status and does not synchronize.
#pragma once

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

namespace sync_gpu {

constexpr int kElems = 64;

// The types the cross-GPU single/array test runs with (one of each size and
// signedness; the CPU suite covers every type of the table).
#define SYNC_GPU_TYPES(X) X(int, int) X(uint64, uint64_t) X(short, short) X(size, size_t) X(ptrdiff, ptrdiff_t)

// Message passing: payload then flag (release) -> wait -> payload, both ways.
cudaError_t launch_litmus(int partner, bool consumer, uint64_t *flag, uint64_t *ack, uint64_t *payload,
                          uint64_t iterations, unsigned long long *violations);

// Waiter: wait_until GE 5, test EQ 5, wait_until_all, test_all, wait_until_any,
// wait_until_some, wait; results in result[0..3]. Updater: stores or atomic
// adds of 5 to every element on `target`.
#define SYNC_GPU_DECLARE(TYPENAME, TYPE)                                                    \
  cudaError_t launch_waiter_##TYPENAME(TYPE *ivars, size_t *indices, unsigned long long *result); \
  cudaError_t launch_updater_##TYPENAME(TYPE *ivars, int target, bool use_atomics);
SYNC_GPU_TYPES(SYNC_GPU_DECLARE)
#undef SYNC_GPU_DECLARE

cudaError_t launch_signal_waiter(uint64_t *sig, unsigned long long *result);
cudaError_t launch_signal_updater(uint64_t *sig, int target);

cudaError_t launch_fanin_sender(long *flags, long *payload, int me);
cudaError_t launch_fanin_receiver(long *flags, long *payload, int n_pes, int *status, size_t *indices,
                                  unsigned long long *result);

// Cooperative forms on local data; 12 results per thread.
cudaError_t launch_coop_local(long long *a, size_t n, long long *values, int *status, size_t *indices_block,
                              size_t *indices_warp, unsigned long long *per_thread, int threads);
cudaError_t launch_coop_remote_wait(unsigned long long *a, size_t n, size_t *indices,
                                    unsigned long long *per_thread);
cudaError_t launch_coop_remote_set(unsigned long long *a, size_t n, int target);
cudaError_t launch_coop_shapes(long long *a, size_t n, unsigned long long *per_thread, dim3 shape);

// Block _all on small arrays (at most 32 elements: warp 0 polls them alone,
// the block meets at one barrier; more elements, or more elements than the
// block has threads, take the general block scan). Local data: a[i] = 10
// except a[n / 2] = 3, values[i] = 10, status may be NULL. Every thread
// records 6 results: test_all GE 10, test_all_vector GE values, test_all
// LT 3, wait_until_all LE 10 then 1, wait_until_all_vector LE values then 1,
// and test_all GE 10 again (a second call right after, same routine).
constexpr int kSmallAllResults = 6;
cudaError_t launch_small_all_local(const long long *a, size_t n, const long long *values, const int *status,
                                   unsigned long long *per_thread, dim3 shape);

// The same path released from another GPU, `rounds` rounds of: the producer
// (one thread) stores round r into kSmallAllPayload payload words, then
// release-stores r into every flag that `status` includes (NULL: all n) on
// the consumer; the consumer block waits (odd rounds: wait_until_all_block,
// even rounds: test_all_block polled) until all included flags are >= r, then
// every thread reads one payload word and counts a mismatch as a violation;
// thread 0 acknowledges with r. The producer waits for each acknowledgement.
constexpr int kSmallAllPayload = 32;
cudaError_t launch_small_all_consumer(uint64_t *flags, size_t n, const int *status, const uint64_t *payload,
                                      uint64_t *ack, int partner, uint64_t rounds, int threads,
                                      unsigned long long *violations);
cudaError_t launch_small_all_producer(uint64_t *flags, size_t n, const int *status, uint64_t *payload,
                                      uint64_t *ack, int partner, uint64_t rounds);

// _any liveness: n_arrays arrays of 4 longs, kAnyPitch elements apart (256
// bytes, the heap's granularity, so that many arrays share cursor-table
// slots); even arrays have elements 0 and 1 equal to 1, odd ones only
// element 3. Each round calls _any once on every array in turn, alternating
// test and wait forms. Forms (kAnyForm*): two single threads (0 and 32)
// taking turns; two warps taking turns; the whole block; thread 0 alone with
// the _vector form. seen[caller * n_arrays + a] gets bit i for each result i
// (bit 31 for a result outside 0..3). Block of 64 threads.
constexpr int kAnyPitch = 32;
enum AnyForm { kAnyFormThreads = 0, kAnyFormWarps = 1, kAnyFormBlock = 2, kAnyFormVector = 3 };
cudaError_t launch_any_liveness(long *arrays, int n_arrays, int rounds, int form, unsigned *seen);

// Every array scan (all, any, some, their vector forms, test and wait) in
// a 1024-thread block: one-thread forms by thread 0 in a kernel without or
// with __launch_bounds__(1024), or warp forms by warp 0 (no bounds).
// result[0..7]: all, test_all, any, test_any, some (count), all_vector,
// any_vector, some_vector (count).
enum ScansIn1024 { kOneThreadUnbounded, kOneThreadBounded, kWarpForms };
cudaError_t launch_scans_1024(ScansIn1024 variant, uint64_t *ivars, size_t n, const uint64_t *cmp_values,
                              size_t *indices, unsigned long long *result);
cudaError_t scans_1024_registers(ScansIn1024 variant, int *registers);

// The wide one-thread _any scan (gshmem::wait_until_any<uint64_t, 32>,
// test_any<uint64_t, 32>; 32 loads in flight) called by thread 0 of a block
// of `threads`, in a loop: result[0..3] four wait_until_any calls (rotation),
// result[4] a test_any, result[5] a test_any for a value no element holds.
// *registers: the kernel's registers per thread.
cudaError_t launch_wide_any(uint64_t *ivars, size_t n, int threads, unsigned long long *result);
cudaError_t wide_any_registers(int *registers);

}  // namespace sync_gpu
