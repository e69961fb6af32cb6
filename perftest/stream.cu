// gshmem_perf_stream: latency of every on-stream wait form, and the host
// cost of enqueueing one.
//
// Round trip, PE 0 the initiator (a device loop: store i into PE 1's ivars,
// then wait for PE 1's acknowledgement), PE 1 the responder: for each round
// it enqueues on one stream `<wait form>(i)` + signal_op_on_stream(ack=i).
// The responder knows the exact value of round i, so the headline rows (the
// plain names) wait with EQ i, which maps onto one stream memop
// (cuStreamWaitValue64 EQ). The
// GE i rows are labelled "kernel path": unsigned GE has no exact memop (the
// driver's GEQ is cyclic), so it runs the wait kernel; wait_on_stream (NE i-1)
// and the _all/_any/_some forms run kernels too.
// Floors: the raw responder, cuStreamWaitValue64(GEQ i) + cuStreamWriteValue64
// to the peer's ack (driver entry points fetched through the runtime; the
// binary does not link libcuda), for the forms that map onto a stream
// memop; and, for the kernel-path rows (which must run a kernel: no memop
// can express their condition), the raw kernel responder: a hand-written
// one-thread kernel polling ld.acquire.sys >= i, launched with <<<>>>, then
// the same cuStreamWriteValue64. Each row is read against the floor that
// does the same job. The initiator is launched first and the
// responder enqueues after it: work queued behind an unreleased wait blocks
// the host once the launch queue is full.
//
// Enqueue cost: PE 0 alone enqueues K operations whose conditions already
// hold and divides the host time by K. Floor: the raw stream memop. K stays
// well below the launch queue's depth and the stream is drained between
// passes: once the queue is full, the host waits for the GPU and the figure
// becomes the GPU's execution rate, not the host's cost.
#include "perf_common.cuh"

using namespace gshmem_perf;

namespace {

enum Form {
  kRaw, kRawKernel, kWaitUntilEq, kSignalWaitUntilEq, kWaitUntilGe, kSignalWaitUntilGe, kWait, kAll,
  kAllVector, kAny, kAnyVector, kSome, kSomeVector, kFormCount
};
const char *form_name(Form f) {
  switch (f) {
    case kRaw: return "raw_cuStreamWaitValue64+cuStreamWriteValue64";
    case kRawKernel: return "raw_wait_kernel+cuStreamWriteValue64";
    case kWaitUntilEq: return "uint64_wait_until_on_stream";
    case kSignalWaitUntilEq: return "signal_wait_until_on_stream";
    case kWaitUntilGe: return "uint64_wait_until_on_stream[GE:kernel_path]";
    case kSignalWaitUntilGe: return "signal_wait_until_on_stream[GE:kernel_path]";
    case kWait: return "uint64_wait_on_stream[kernel_path]";
    case kAll: return "uint64_wait_until_all_on_stream";
    case kAllVector: return "uint64_wait_until_all_vector_on_stream";
    case kAny: return "uint64_wait_until_any_on_stream";
    case kAnyVector: return "uint64_wait_until_any_vector_on_stream";
    case kSome: return "uint64_wait_until_some_on_stream";
    default: return "uint64_wait_until_some_vector_on_stream";
  }
}
bool is_array(Form f) { return f >= kAll; }
bool is_raw(Form f) { return f == kRaw || f == kRawKernel; }
// Forms that run a wait kernel (their floor is the raw kernel responder).
bool on_kernel_path(Form f) { return f == kWaitUntilGe || f == kSignalWaitUntilGe || f == kWait || is_array(f); }

// The raw kernel floor: one thread polls with acquire loads until *ivar >= v.
__global__ void raw_wait_kernel(const uint64_t *ivar, uint64_t v) { raw_wait_ge(ivar, v); }
constexpr size_t kArrayN = 8;  // ivars of the array forms

__global__ void initiator_kernel(uint64_t *peer_ivars, size_t n, bool all, uint64_t *ack,
                                 uint64_t iters) {
  for (uint64_t i = 1; i <= iters; ++i) {
    if (all) {
      for (size_t j = 0; j < n; ++j) raw_store_relaxed(&peer_ivars[j], i);
    } else {
      raw_store_relaxed(&peer_ivars[(i - 1) % n], i);
    }
    raw_wait_ge(ack, i);
  }
}

// Per-round comparison values: row i-1 holds i in every element.
__global__ void fill_rows(uint64_t *cmpv, size_t n, uint64_t rows) {
  for (size_t k = blockIdx.x * blockDim.x + threadIdx.x; k < n * rows; k += gridDim.x * blockDim.x)
    cmpv[k] = k / n + 1;
}

struct Arrays {
  uint64_t *cmpv;     // rows x kArrayN
  size_t *result;     // rows (any)
  size_t *nresult;    // rows (some)
  size_t *indices;    // rows x kArrayN (some)
  uint64_t rows;
};

// Enqueues the wait of round i in form f (EQ i, GE i, NE i-1, or GE i per element).
void enqueue_wait(Form f, uint64_t *ivars, uint64_t i, const Arrays &a, uint64_t row,
                  cudaStream_t s) {
  [[maybe_unused]] const uint64_t *cv = a.cmpv + row * kArrayN;
  switch (f) {
    case kRaw:
      PERF_CU(raw_wait_value64((CUstream)s, (CUdeviceptr)ivars, i, CU_STREAM_WAIT_VALUE_GEQ));
      return;
    case kRawKernel:
      raw_wait_kernel<<<1, 1, 0, s>>>(ivars, i);
      PERF_CUDA(cudaGetLastError());
      return;
    case kWaitUntilEq: gshmemx_uint64_wait_until_on_stream(ivars, GSHMEM_CMP_EQ, i, s); return;
    case kSignalWaitUntilEq: gshmemx_signal_wait_until_on_stream(ivars, GSHMEM_CMP_EQ, i, s); return;
    case kWaitUntilGe: gshmemx_uint64_wait_until_on_stream(ivars, GSHMEM_CMP_GE, i, s); return;
    case kSignalWaitUntilGe: gshmemx_signal_wait_until_on_stream(ivars, GSHMEM_CMP_GE, i, s); return;
    case kWait: gshmemx_uint64_wait_on_stream(ivars, i - 1, s); return;
    case kAll:
      gshmemx_uint64_wait_until_all_on_stream(ivars, kArrayN, nullptr, GSHMEM_CMP_GE, i, s);
      return;
    case kAllVector:
      gshmemx_uint64_wait_until_all_vector_on_stream(ivars, kArrayN, nullptr, GSHMEM_CMP_GE, cv, s);
      return;
    case kAny:
      gshmemx_uint64_wait_until_any_on_stream(ivars, kArrayN, nullptr, GSHMEM_CMP_GE, i,
                                              a.result + row, s);
      return;
    case kAnyVector:
      gshmemx_uint64_wait_until_any_vector_on_stream(ivars, kArrayN, nullptr, GSHMEM_CMP_GE, cv,
                                                     a.result + row, s);
      return;
    case kSome:
      gshmemx_uint64_wait_until_some_on_stream(ivars, kArrayN, a.indices + row * kArrayN,
                                               nullptr, GSHMEM_CMP_GE, i, a.nresult + row, s);
      return;
    case kSomeVector:
      gshmemx_uint64_wait_until_some_vector_on_stream(ivars, kArrayN, a.indices + row * kArrayN,
                                                      nullptr, GSHMEM_CMP_GE, cv,
                                                      a.nresult + row, s);
      return;
    default: return;
  }
}

void enqueue_ack(bool raw, uint64_t *ack, uint64_t *peer_ack, uint64_t i, int peer,
                 cudaStream_t s) {
  if (raw) {
    PERF_CU(raw_write_value64((CUstream)s, (CUdeviceptr)peer_ack, i, CU_STREAM_WRITE_VALUE_DEFAULT));
    return;
  }
  gshmemx_signal_op_on_stream(ack, i, GSHMEM_SIGNAL_SET, peer, s);
}

}  // namespace

int main(int argc, char **argv) {
  Context ctx;
  int exit_code = 0;
  if (!perf_begin(argc, argv, "gshmem_perf_stream", 2, ctx, &exit_code)) return exit_code;
  Reporter rep("gshmem_perf_stream", ctx.opt, ctx.pe == 0);
  ctx.rep = &rep;
  if (!load_stream_memops()) {
    std::fprintf(stderr, "PE %d: cuStreamWaitValue64/cuStreamWriteValue64 not available\n", ctx.pe);
    return 1;
  }
  const bool quick = ctx.opt.quick;
  const uint64_t iters = ctx.opt.iterations(5000, 500);
  const uint64_t warm = ctx.opt.warmup_iterations(200, 50);
  const uint64_t rows = std::max(iters, warm);

  uint64_t *ivars = (uint64_t *)gshmem_malloc(kArrayN * sizeof(uint64_t));
  uint64_t *ack = (uint64_t *)gshmem_malloc(sizeof(uint64_t));
  if (!ivars || !ack) {
    std::fprintf(stderr, "PE %d: gshmem_malloc failed\n", ctx.pe);
    return 1;
  }
  Arrays a;
  a.rows = rows;
  PERF_CUDA(cudaMalloc(&a.cmpv, rows * kArrayN * sizeof(uint64_t)));
  PERF_CUDA(cudaMalloc(&a.result, rows * sizeof(size_t)));
  PERF_CUDA(cudaMalloc(&a.nresult, rows * sizeof(size_t)));
  PERF_CUDA(cudaMalloc(&a.indices, rows * kArrayN * sizeof(size_t)));
  fill_rows<<<64, 256>>>(a.cmpv, kArrayN, rows);
  PERF_CUDA(cudaDeviceSynchronize());

  const bool active = ctx.pe < 2;
  uint64_t *peer_ivars = ctx.pe == 0 ? (uint64_t *)gshmem_ptr(ivars, 1) : nullptr;
  uint64_t *peer_ack = ctx.pe == 1 ? (uint64_t *)gshmem_ptr(ack, 0) : nullptr;
  if ((ctx.pe == 0 && !peer_ivars) || (ctx.pe == 1 && !peer_ack)) {
    std::fprintf(stderr, "PE %d: peer not reachable by load/store (gshmem_ptr NULL)\n", ctx.pe);
    return 1;
  }

  // ---- round trips
  rep.section("on-stream responder round trip (us): initiator kernel on PE 0, stream ops on PE 1");
  Stats floor_stats, kernel_floor_stats;  // memop floor, raw kernel floor
  bool validation_failed = false;
  for (int fi = kRaw; fi < kFormCount; ++fi) {
    Form f = (Form)fi;
    if (quick && (f == kAnyVector || f == kSomeVector)) continue;
    const size_t n = is_array(f) ? kArrayN : 1;
    const bool all = f == kAll || f == kAllVector;
    auto reset = [&] {
      PERF_CUDA(cudaMemsetAsync(ivars, 0, kArrayN * sizeof(uint64_t), ctx.stream));
      PERF_CUDA(cudaMemsetAsync(ack, 0, sizeof(uint64_t), ctx.stream));
      PERF_CUDA(cudaMemsetAsync(a.result, 0xff, rows * sizeof(size_t), ctx.stream));
      PERF_CUDA(cudaMemsetAsync(a.nresult, 0, rows * sizeof(size_t), ctx.stream));
    };
    std::vector<double> ns = time_loop(ctx, iters, warm, reset, [&](uint64_t it) {
      if (!active) return;
      if (ctx.pe == 0) {
        initiator_kernel<<<1, 1, 0, ctx.stream>>>(peer_ivars, n, all, ack, it);
      } else {
        for (uint64_t i = 1; i <= it; ++i) {
          enqueue_wait(f, ivars, i, a, i - 1, ctx.stream);
          enqueue_ack(is_raw(f), ack, peer_ack, i, 0, ctx.stream);
        }
      }
    });
    // The results of _any/_some, checked on the responder after the last repeat.
    if (ctx.pe == 1 && (f == kAny || f == kAnyVector || f == kSome || f == kSomeVector)) {
      std::vector<size_t> res(iters), nres(iters), idx(iters * kArrayN);
      PERF_CUDA(cudaMemcpy(res.data(), a.result, iters * sizeof(size_t), cudaMemcpyDeviceToHost));
      PERF_CUDA(cudaMemcpy(nres.data(), a.nresult, iters * sizeof(size_t), cudaMemcpyDeviceToHost));
      PERF_CUDA(cudaMemcpy(idx.data(), a.indices, idx.size() * sizeof(size_t), cudaMemcpyDeviceToHost));
      size_t bad = 0;
      for (uint64_t i = 1; i <= iters; ++i) {
        size_t expect = (i - 1) % kArrayN;
        if (f == kAny || f == kAnyVector) bad += res[i - 1] != expect;
        else bad += nres[i - 1] != 1 || idx[(i - 1) * kArrayN] != expect;
      }
      if (bad) {
        std::fprintf(stderr, "PE 1: VALIDATION FAILED: %s gave %zu wrong results of %llu\n",
                     form_name(f), bad, (unsigned long long)iters);
        validation_failed = true;
      }
    }
    Stats st = us_stats(ns);
    if (f == kRaw) {
      floor_stats = st;
      add_row(ctx, "raw_floor:cuStreamWaitValue64+cuStreamWriteValue64", "n", 1, 1, "round_trip",
              st, nullptr, iters);
    } else if (f == kRawKernel) {
      kernel_floor_stats = st;
      add_row(ctx, "raw_floor:wait_kernel+cuStreamWriteValue64", "n", 1, 1, "round_trip", st, nullptr,
              iters);
    } else {
      add_row(ctx, std::string(form_name(f)) + "+signal_op_on_stream", "n", n, 1, "round_trip", st,
              on_kernel_path(f) ? &kernel_floor_stats : &floor_stats, iters);
    }
  }

  // ---- host enqueue cost (PE 0 alone; conditions already hold)
  rep.section("host cost of enqueueing one on-stream operation (us); condition already true");
  const uint64_t k_ops = quick ? 128 : 256;  // below the launch queue's depth (see the top)
  // Every form's condition holds for this value: EQ/GE x (x == value), NE
  // value-1, GE per element (cmp rows hold 1..rows), the raw GEQ (x - value == 0).
  const uint64_t holding_value = 0x7f7f7f7f7f7f7f7full;
  for (int fi = kRaw; fi < kFormCount + 1; ++fi) {
    bool signal = fi == kFormCount;  // the signal_op_on_stream row
    Form f = signal ? kRaw : (Form)fi;
    std::vector<double> per_op_ns, per_op_floor_ns;
    for (int r = 0; r < ctx.opt.repeats; ++r) {
      if (ctx.pe == 0) {
        PERF_CUDA(cudaMemset(ivars, 0x7f, kArrayN * sizeof(uint64_t)));  // == holding_value
        PERF_CUDA(cudaDeviceSynchronize());
        for (int pass = 0; pass < (signal ? 2 : 1); ++pass) {
          bool raw_signal = signal && pass == 0;
          auto t0 = std::chrono::steady_clock::now();
          for (uint64_t i = 1; i <= k_ops; ++i) {
            if (signal) enqueue_ack(raw_signal, ack, ack, i, 0, ctx.stream);
            else enqueue_wait(f, ivars, holding_value, a, (i - 1) % rows, ctx.stream);
          }
          auto t1 = std::chrono::steady_clock::now();
          PERF_CUDA(cudaStreamSynchronize(ctx.stream));
          double ns = std::chrono::duration<double, std::nano>(t1 - t0).count() / double(k_ops);
          (raw_signal ? per_op_floor_ns : per_op_ns).push_back(ns);
        }
      }
    }
    if (ctx.pe != 0) continue;
    if (signal) {
      Stats fl = us_stats(per_op_floor_ns);
      add_row(ctx, "signal_op_on_stream", "n", 1, 1, "enqueue", us_stats(per_op_ns), &fl, k_ops);
    } else if (f == kRaw) {
      floor_stats = us_stats(per_op_ns);
      add_row(ctx, "raw_floor:cuStreamWaitValue64", "n", 1, 1, "enqueue", floor_stats, nullptr, k_ops);
    } else if (f == kRawKernel) {
      kernel_floor_stats = us_stats(per_op_ns);
      add_row(ctx, "raw_floor:wait_kernel", "n", 1, 1, "enqueue", kernel_floor_stats, nullptr, k_ops);
    } else {
      add_row(ctx, form_name(f), "n", is_array(f) ? kArrayN : 1, 1, "enqueue", us_stats(per_op_ns),
              on_kernel_path(f) ? &kernel_floor_stats : &floor_stats, k_ops);
    }
  }
  host_barrier();

  cudaFree(a.indices);
  cudaFree(a.nresult);
  cudaFree(a.result);
  cudaFree(a.cmpv);
  gshmem_free(ack);
  gshmem_free(ivars);
  int rc = perf_end(ctx);
  return validation_failed ? 3 : rc;
}
