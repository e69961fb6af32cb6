// gshmem_perf_latency: one-way and round-trip latency of the point-to-point
// exchanges between PE 0 (initiator) and PE 1 (responder); other PEs idle.
//   signal_op(SET) + signal_wait_until     floor: st.relaxed.sys / the wait
//   uint64_p + uint64_wait_until           floor: st.relaxed.sys / the wait
//   uint64_atomic_add + uint64_wait_until  floor: red.add.relaxed.sys / the wait
//     where the wait is each of the raw sequences of perf_common.cuh
//     (RawWait) in turn, one "raw_floor:" row each; gshmem's row is compared
//     with the fastest correct one (named in a "# floor" line)
//   putmem_signal, 8 B .. 4 MiB, thread / warp / block issuers
//                                          floor: copy + st.release.sys flag
//   block p burst: a 256-thread block p's 1024 8-byte values to PE 1, then
//   one thread quiets (no floor; P2P and remote, to compare). On a remote
//   peer the proxy coalesces the burst's puts (docs/remote.md).
// Each iteration is a full round trip inside one kernel; one-way = round trip / 2.
// With a remote peer (GSHMEM_REMOTE_PEERS=all) the same exchanges run
// through the proxy, and the remote path's pieces are timed one by one:
//   fence + quiet          GPU -> queue -> proxy pass -> completion -> GPU, no transport
//   uint64_p + quiet       that, plus the transport's put and its completion at the target
//   uint64_g               that, with a get (the data back in the thread's result word)
//   proxy issue / quiet, the target's CUDA work: host clocks (gshmemx_remote_stats) over the runs
#include "perf_common.cuh"

using namespace gshmem_perf;

namespace {

enum class Exchange { signal, p, atomic_add };

struct Buffers {
  uint64_t *flag;   // symmetric: the word each side waits on
  char *send;       // symmetric: payload source
  char *recv;       // symmetric: payload destination
  size_t max_bytes;
};

// One-word ping-pong. The exchange and the floor are template parameters,
// so each timed loop is compiled for its one exchange (a runtime switch
// inside the loop costs every iteration a few instructions, the floor
// included).
// RawSend / RawWaitOn pick the floor's half for each side separately (W:
// which raw wait): the mixed forms tell which half of an exchange costs what
// it costs above the floor (info rows).
template <Exchange Ex, bool RawSend, bool RawWaitOn, RawWait W>
__global__ void __launch_bounds__(1) word_pingpong(uint64_t *flag, uint64_t *peer_flag, int peer, uint64_t iters,
                                                   bool initiator) {
  auto send = [&](uint64_t i) {
    if constexpr (RawSend) {
      if constexpr (Ex == Exchange::atomic_add) raw_add_relaxed(peer_flag, 1);
      else raw_store_relaxed(peer_flag, i);
    } else if constexpr (Ex == Exchange::signal) {
      gshmemx_signal_op(flag, i, GSHMEM_SIGNAL_SET, peer);
    } else if constexpr (Ex == Exchange::p) {
      gshmem_uint64_p(flag, i, peer);
    } else {
      gshmem_uint64_atomic_add(flag, 1, peer);
    }
  };
  auto wait = [&](uint64_t i) {
    if constexpr (RawWaitOn) raw_wait_ge_as<W>(flag, i);
    else if constexpr (Ex == Exchange::signal) (void)gshmem_signal_wait_until(flag, GSHMEM_CMP_EQ, i);
    else gshmem_uint64_wait_until(flag, GSHMEM_CMP_GE, i);
  };
  for (uint64_t i = 1; i <= iters; ++i) {
    if (initiator) {
      send(i);
      wait(i);
    } else {
      wait(i);
      send(i);
    }
  }
}

using WordPingpong = void (*)(uint64_t *, uint64_t *, int, uint64_t, bool);

// One thread of PE 0 alone, against a remote PE 1 (whose proxy answers the
// transport): the pieces of the remote path, one round trip an iteration.
enum class Piece { fence_quiet, p_quiet, g };

template <Piece P>
__global__ void __launch_bounds__(1) remote_piece(uint64_t *word, int peer, uint64_t iters, uint64_t *sink) {
  uint64_t sum = 0;
  for (uint64_t i = 1; i <= iters; ++i) {
    if constexpr (P == Piece::fence_quiet) {
      gshmem_fence();  // a request the proxy consumes without calling the transport
      gshmem_quiet();
    } else if constexpr (P == Piece::p_quiet) {
      gshmem_uint64_p(word, i, peer);
      gshmem_quiet();
    } else {
      sum += gshmem_uint64_g(word, peer);
    }
  }
  *sink = sum;  // keeps the gets
}

// A 256-thread block p's n 8-byte values to the peer (thread t the
// elements t, t + 256, ...), then thread 0 quiets: after the __syncthreads
// the quiet covers every thread's p (Q3 on a remote peer).
constexpr int kBurstThreads = 256;
constexpr int kBurstWords = 1024;
constexpr uint64_t kBurstTag = 0x5a00000000000000ull;  // value of element i: tag + i

__global__ void __launch_bounds__(kBurstThreads) block_p_burst(uint64_t *dst, int n, int peer, uint64_t iters) {
  for (uint64_t it = 0; it < iters; ++it) {
    for (int i = (int)threadIdx.x; i < n; i += kBurstThreads) gshmem_uint64_p(dst + i, kBurstTag + (uint64_t)i, peer);
    __syncthreads();
    if (threadIdx.x == 0) gshmem_quiet();
    __syncthreads();
  }
}

// A 256-thread block p's round r into all n words of the peer, then
// waits for the peer's ack; the peer's one thread waits until every word
// holds r (wait_until_all), then p's the ack. A round trip per iteration:
// the block's p's (coalesced by the proxy on a remote peer), their
// delivery, the scan, the ack.
__global__ void __launch_bounds__(kBurstThreads) block_p_all_ping(uint64_t *dst, int n, uint64_t *ack, int peer,
                                                                  uint64_t iters) {
  for (uint64_t r = 1; r <= iters; ++r) {
    for (int i = (int)threadIdx.x; i < n; i += kBurstThreads) gshmem_uint64_p(dst + i, r, peer);
    __syncthreads();
    if (threadIdx.x == 0) gshmem_uint64_wait_until(ack, GSHMEM_CMP_GE, r);
    __syncthreads();
  }
}
__global__ void block_p_all_pong(uint64_t *dst, int n, uint64_t *ack, int peer, uint64_t iters) {
  for (uint64_t r = 1; r <= iters; ++r) {
    gshmem_uint64_wait_until_all(dst, (size_t)n, nullptr, GSHMEM_CMP_GE, r);
    gshmem_uint64_p(ack, r, peer);
  }
}

const char *piece_name(Piece p) {
  switch (p) {
    case Piece::fence_quiet: return "fence+quiet[remote]";
    case Piece::p_quiet: return "uint64_p+quiet[remote]";
    default: return "uint64_g[remote]";
  }
}

// The difference of two gshmemx_remote_stats snapshots.
gshmemx_remote_stats_t stats_delta(const gshmemx_remote_stats_t &a, const gshmemx_remote_stats_t &b) {
  gshmemx_remote_stats_t d = b;
  d.requests -= a.requests;
  d.passes -= a.passes;
  d.issue_ns -= a.issue_ns;
  d.quiets -= a.quiets;
  d.quiet_ns -= a.quiet_ns;
  d.idle_sleeps -= a.idle_sleeps;
  d.peer_events -= a.peer_events;
  d.applies -= a.applies;
  d.apply_ns -= a.apply_ns;
  d.transport_puts -= a.transport_puts;
  d.puts_coalesced -= a.puts_coalesced;
  d.put_runs -= a.put_runs;
  return d;
}

// Runs `measure` while both PEs count what their proxies do; returns
// {PE 0's counts, PE 1's counts} on PE 0 (PE 1's travel through a host get
// from `exchange`, a symmetric buffer of one gshmemx_remote_stats_t).
template <class Measure>
std::pair<gshmemx_remote_stats_t, gshmemx_remote_stats_t> with_remote_stats(Context &ctx, void *exchange,
                                                                            Measure measure) {
  gshmemx_remote_stats_t before{}, after{};
  host_barrier();
  (void)gshmemx_remote_stats(&before);
  measure();
  host_barrier();
  (void)gshmemx_remote_stats(&after);
  const gshmemx_remote_stats_t mine = stats_delta(before, after);
  PERF_CUDA(cudaMemcpy(exchange, &mine, sizeof mine, cudaMemcpyHostToDevice));
  host_barrier();
  gshmemx_remote_stats_t theirs{};
  if (ctx.pe == 0) gshmem_getmem(&theirs, exchange, sizeof theirs, 1);
  host_barrier();
  return {mine, theirs};
}

// Info rows of one measured stretch: the host-timed pieces per request.
void add_piece_rows(Context &ctx, const std::string &name, const gshmemx_remote_stats_t &pe0,
                    const gshmemx_remote_stats_t &pe1, uint64_t iters) {
  auto mean_us = [](unsigned long long ns, unsigned long long n) { return n ? double(ns) / double(n) / 1000.0 : 0.0; };
  auto row = [&](const std::string &what, double value, const std::string &unit) {
    Stats s;
    s.median = s.min = s.max = value;
    s.count = 1;
    add_row(ctx, name + " " + what, "size", 8, 1, "mean", s, nullptr, iters, unit);
  };
  row("PE 0 proxy: transport issue per request", mean_us(pe0.issue_ns, pe0.requests), "us");
  row("PE 0 proxy: transport quiet per pass", mean_us(pe0.quiet_ns, pe0.quiets), "us");
  row("PE 0 proxy: requests per pass", pe0.passes ? double(pe0.requests) / double(pe0.passes) : 0.0, "count");
  // PE 1's CUDA copies and atomic kernels: what it applied for PE 0, and
  // (where PE 1 issues too) the staging of its own requests.
  row("PE 1: CUDA copy or atomic kernel per operation", mean_us(pe1.apply_ns, pe1.applies), "us");
  row("idle sleeps per request (PE 0 + PE 1)",
      pe0.requests + pe1.requests ? double(pe0.idle_sleeps + pe1.idle_sleeps) / double(pe0.requests + pe1.requests)
                                  : 0.0,
      "count");
}

// The raw wait that has gshmem's own wait sequence (sync_scan.h, wait_one:
// an ld.acquire.sys poll): the "[gshmem send, raw wait]" rows time gshmem's
// send against it. (A relaxed poll with fence.acq_rel.sys on exit measured
// 2.15-2.19 us one-way against 0.634 us for the acquire poll on 2 x H100:
// the system fence's MEMBAR, not the poll, is what costs; docs/performance.md.
// With fence.acquire.sys, the invalidation alone, the two polls are equal.)
constexpr RawWait kGshmemWaitSequence = RawWait::acquire_poll;

// Which kernel a run times: the raw send or gshmem's; the raw wait `wait`,
// or gshmem's (gshmem_wait).
struct WordRun {
  bool raw_send;
  bool gshmem_wait;
  RawWait wait;
};

template <Exchange Ex, RawWait W>
WordPingpong raw_wait_kernel(bool raw_send) {
  return raw_send ? word_pingpong<Ex, true, true, W> : word_pingpong<Ex, false, true, kGshmemWaitSequence>;
}

// gshmem's send with a raw wait is instantiated for kGshmemWaitSequence
// only (each such kernel carries the send's remote branch).
template <Exchange Ex>
WordPingpong word_pingpong_halves(const WordRun &r) {
  if (r.gshmem_wait)
    return r.raw_send ? word_pingpong<Ex, true, false, RawWait::acquire_poll>
                      : word_pingpong<Ex, false, false, RawWait::acquire_poll>;
  if (!r.raw_send) return raw_wait_kernel<Ex, kGshmemWaitSequence>(false);
  switch (r.wait) {
    case RawWait::acquire_poll: return raw_wait_kernel<Ex, RawWait::acquire_poll>(true);
    case RawWait::acquire_poll_global: return raw_wait_kernel<Ex, RawWait::acquire_poll_global>(true);
    case RawWait::relaxed_poll_fence: return raw_wait_kernel<Ex, RawWait::relaxed_poll_fence>(true);
    case RawWait::relaxed_poll_global_fence: return raw_wait_kernel<Ex, RawWait::relaxed_poll_global_fence>(true);
    case RawWait::relaxed_poll_global_reload: return raw_wait_kernel<Ex, RawWait::relaxed_poll_global_reload>(true);
    case RawWait::volatile_poll_fence_gpu: return raw_wait_kernel<Ex, RawWait::volatile_poll_fence_gpu>(true);
    default: return raw_wait_kernel<Ex, RawWait::relaxed_poll_bare>(true);
  }
}

WordPingpong word_pingpong_kernel(Exchange ex, const WordRun &r) {
  if (ex == Exchange::signal) return word_pingpong_halves<Exchange::signal>(r);
  if (ex == Exchange::p) return word_pingpong_halves<Exchange::p>(r);
  return word_pingpong_halves<Exchange::atomic_add>(r);
}

// The floor's send, as a row name's head.
const char *raw_send_name(Exchange ex) {
  return ex == Exchange::atomic_add ? "red.add.relaxed.sys" : "st.relaxed.sys";
}

// put_signal ping-pong with `Width` issuing threads (1, 32, or the block of
// `Width` threads). `Raw` selects the floor; both are template parameters so
// that the timed loop carries no runtime dispatch (see word_pingpong).
template <bool Raw, int Width>
__global__ void __launch_bounds__(Width) put_signal_pingpong(Buffers b, char *peer_recv, uint64_t *peer_flag,
                                                             size_t bytes, int peer, uint64_t iters, bool initiator) {
  const unsigned t = threadIdx.x;
  auto send = [&](uint64_t i) {
    if constexpr (Raw) {
      raw_copy(peer_recv, b.send, bytes, t, Width);
      group_sync(Width);
      if (t == 0) raw_store_release(peer_flag, i);
    } else if constexpr (Width == 1) {
      gshmem_putmem_signal(b.recv, b.send, bytes, b.flag, i, GSHMEM_SIGNAL_SET, peer);
    } else if constexpr (Width == 32) {
      gshmemx_putmem_signal_warp(b.recv, b.send, bytes, b.flag, i, GSHMEM_SIGNAL_SET, peer);
    } else {
      gshmemx_putmem_signal_block(b.recv, b.send, bytes, b.flag, i, GSHMEM_SIGNAL_SET, peer);
    }
  };
  auto wait = [&](uint64_t i) {
    if (t == 0) {
      if constexpr (Raw) raw_wait_ge(b.flag, i);
      else (void)gshmem_signal_wait_until(b.flag, GSHMEM_CMP_GE, i);
    }
    group_sync(Width);
  };
  for (uint64_t i = 1; i <= iters; ++i) {
    if (initiator) {
      send(i);
      wait(i);
    } else {
      wait(i);
      send(i);
    }
  }
}

using PutSignalPingpong = void (*)(Buffers, char *, uint64_t *, size_t, int, uint64_t, bool);

// The instantiation for an issuer width of 1, 32 or 1024 (main checks --threads).
PutSignalPingpong put_signal_pingpong_kernel(bool raw, int width) {
  if (width == 1) return raw ? put_signal_pingpong<true, 1> : put_signal_pingpong<false, 1>;
  if (width == 32) return raw ? put_signal_pingpong<true, 32> : put_signal_pingpong<false, 32>;
  return raw ? put_signal_pingpong<true, 1024> : put_signal_pingpong<false, 1024>;
}

const char *exchange_name(Exchange ex) {
  switch (ex) {
    case Exchange::signal: return "signal_op+signal_wait_until";
    case Exchange::p: return "uint64_p+wait_until";
    default: return "uint64_atomic_add+wait_until";
  }
}

}  // namespace

int main(int argc, char **argv) {
  Context ctx;
  int exit_code = 0;
  if (!perf_begin(argc, argv, "gshmem_perf_latency", 2, ctx, &exit_code)) return exit_code;
  Reporter rep("gshmem_perf_latency", ctx.opt, ctx.pe == 0);
  ctx.rep = &rep;

  const bool quick = ctx.opt.quick;
  const size_t max_default = 4u << 20;
  Range sizes = ctx.opt.range_set ? ctx.opt.range : Range{8, max_default, quick ? 8u : 2u};
  std::vector<int> widths = ctx.opt.threads.empty() ? std::vector<int>{1, 32, 1024} : ctx.opt.threads;
  for (int width : widths) {
    if (width != 1 && width != 32 && width != 1024) {
      if (ctx.pe == 0)
        std::fprintf(stderr, "gshmem_perf_latency: --threads %d: the put_signal issuers are 1, 32 or 1024 threads\n",
                     width);
      return perf_end(ctx) == 0 ? 2 : 1;
    }
  }
  size_t max_bytes = std::max<size_t>(sizes.max, 8);

  Buffers b;
  b.flag = (uint64_t *)gshmem_malloc(sizeof(uint64_t));
  b.send = (char *)gshmem_malloc(max_bytes);
  b.recv = (char *)gshmem_malloc(max_bytes);
  b.max_bytes = max_bytes;
  if (!b.flag || !b.send || !b.recv) {
    std::fprintf(stderr, "PE %d: gshmem_malloc failed (%zu bytes)\n", ctx.pe, max_bytes);
    return 1;
  }
  PERF_CUDA(cudaMemset(b.send, 0x5a, max_bytes));
  const bool active = ctx.pe < 2;
  const int peer = ctx.pe == 0 ? 1 : 0;
  const bool initiator = ctx.pe == 0;
  uint64_t *peer_flag = active ? (uint64_t *)gshmem_ptr(b.flag, peer) : nullptr;
  char *peer_recv = active ? (char *)gshmem_ptr(b.recv, peer) : nullptr;
  // A remote peer (GSHMEM_REMOTE_PEERS, docs/remote.md) has no mapped
  // address: gshmem's routines go through the proxy and its transport, the
  // rows get a "[remote]" suffix, and there is no load/store floor to time.
  // PE 0 decides, and every PE follows its answer: the rounds (and their
  // host barriers) must match on all PEs, the idle ones too.
  int *remote_word = (int *)gshmem_malloc(sizeof(int));
  if (!remote_word) {
    std::fprintf(stderr, "PE %d: gshmem_malloc failed (%zu bytes)\n", ctx.pe, sizeof(int));
    return 1;
  }
  if (ctx.pe == 0) {
    const int pe1_remote = !peer_flag || !peer_recv;
    PERF_CUDA(cudaMemcpy(remote_word, &pe1_remote, sizeof pe1_remote, cudaMemcpyHostToDevice));
  }
  host_barrier();
  int pe1_remote = 0;
  gshmem_getmem(&pe1_remote, remote_word, sizeof pe1_remote, 0);
  host_barrier();
  const bool remote = pe1_remote != 0;
  const std::string suffix = remote ? "[remote]" : "";
  if (remote && ctx.pe == 0)
    std::printf("# PE %d is remote (no mapped address): gshmem rows only, through the proxy; no floor\n", peer);
  auto reset = [&] { PERF_CUDA(cudaMemsetAsync(b.flag, 0, sizeof(uint64_t), ctx.stream)); };
  void *stats_exchange = remote ? gshmem_malloc(sizeof(gshmemx_remote_stats_t)) : nullptr;
  if (remote && !stats_exchange) {
    std::fprintf(stderr, "PE %d: gshmem_malloc failed (%zu bytes)\n", ctx.pe, sizeof(gshmemx_remote_stats_t));
    return 1;
  }
  uint64_t *sink = nullptr;
  PERF_CUDA(cudaMalloc(&sink, sizeof(uint64_t)));

  // ---- a block's burst of p's, then quiet (PE 0's block; PE 1 idle but for its proxy)
  {
    rep.section("a 256-thread block p's 1024 8-byte values to PE 1, then quiet (us a round; ns a p)");
    uint64_t *burst = (uint64_t *)gshmem_malloc(kBurstWords * sizeof(uint64_t));
    if (!burst) {
      std::fprintf(stderr, "PE %d: gshmem_malloc failed (%zu bytes)\n", ctx.pe, kBurstWords * sizeof(uint64_t));
      return 1;
    }
    PERF_CUDA(cudaMemset(burst, 0, kBurstWords * sizeof(uint64_t)));
    PERF_CUDA(cudaDeviceSynchronize());
    host_barrier();
    // Few rounds on a remote peer: each was 1024 proxy round trips (14 ms)
    // before the proxy coalesced puts.
    const uint64_t iters = remote ? std::min<uint64_t>(ctx.opt.iterations(200, 50), 1000) : ctx.opt.iterations(5000, 1000);
    const uint64_t warm = remote ? std::min<uint64_t>(ctx.opt.warmup_iterations(20, 5), 100)
                                 : ctx.opt.warmup_iterations(500, 100);
    std::vector<double> ns;
    auto measure = [&] {
      ns = time_loop(ctx, iters, warm, [] {}, [&](uint64_t n) {
        if (ctx.pe == 0) block_p_burst<<<1, kBurstThreads, 0, ctx.stream>>>(burst, kBurstWords, peer, n);
      });
    };
    gshmemx_remote_stats_t pe0{};
    if (remote) pe0 = with_remote_stats(ctx, stats_exchange, measure).first;
    else measure();
    const std::string name = "block_p_burst+quiet" + suffix;
    add_row(ctx, name, "n", kBurstWords, kBurstThreads, "round_trip", us_stats(ns), nullptr, iters);
    add_row(ctx, name, "n", kBurstWords, kBurstThreads, "per_op", us_stats(ns, 1000.0 / kBurstWords), nullptr, iters,
            "ns");
    if (remote) {
      auto info = [&](const std::string &what, double value, const std::string &unit) {
        Stats st;
        st.median = st.min = st.max = value;
        st.count = 1;
        add_row(ctx, name + " " + what, "n", kBurstWords, kBurstThreads, "mean", st, nullptr, iters, unit);
      };
      info("PE 0 proxy: requests per pass", pe0.passes ? double(pe0.requests) / double(pe0.passes) : 0.0, "count");
      info("PE 0 proxy: requests per transport put",
           pe0.transport_puts ? double(pe0.requests) / double(pe0.transport_puts) : 0.0, "count");
      info("PE 0 proxy: transport quiet per pass",
           pe0.quiets ? double(pe0.quiet_ns) / double(pe0.quiets) / 1000.0 : 0.0, "us");
    }
    // What PE 1 received: the values of the last round (every round writes the same).
    host_barrier();
    if (ctx.pe == 1) {
      std::vector<uint64_t> got(kBurstWords);
      PERF_CUDA(cudaMemcpy(got.data(), burst, kBurstWords * sizeof(uint64_t), cudaMemcpyDeviceToHost));
      int wrong = 0;
      for (int i = 0; i < kBurstWords; ++i) wrong += got[(size_t)i] != kBurstTag + (uint64_t)i;
      if (wrong) {
        std::fprintf(stderr, "PE 1: block p burst: %d of %d words hold the wrong value\n", wrong, kBurstWords);
        exit_code = 1;
      }
    }
    host_barrier();
    gshmem_free(burst);
  }

  // ---- a block's p's to every word, the peer's wait_until_all, an ack: round trip
  {
    rep.section("a 256-thread block p's n 8-byte values to PE 1; PE 1 wait_until_all, then acks (us a round)");
    const int max_words = 8192;
    uint64_t *words = (uint64_t *)gshmem_malloc((max_words + 1) * sizeof(uint64_t));
    if (!words) {
      std::fprintf(stderr, "PE %d: gshmem_malloc failed (%zu bytes)\n", ctx.pe, (max_words + 1) * sizeof(uint64_t));
      return 1;
    }
    uint64_t *ack = words + max_words;
    for (int n : {1024, max_words}) {
      const uint64_t iters = remote ? std::min<uint64_t>(ctx.opt.iterations(100, 30), 500) : ctx.opt.iterations(2000, 500);
      const uint64_t warm = remote ? std::min<uint64_t>(ctx.opt.warmup_iterations(10, 5), 50)
                                   : ctx.opt.warmup_iterations(200, 50);
      const std::vector<double> ns = time_loop(
          ctx, iters, warm, [&] { PERF_CUDA(cudaMemset(words, 0, (max_words + 1) * sizeof(uint64_t))); },
          [&](uint64_t k) {
            if (ctx.pe == 0) block_p_all_ping<<<1, kBurstThreads, 0, ctx.stream>>>(words, n, ack, peer, k);
            else if (ctx.pe == 1) block_p_all_pong<<<1, 1, 0, ctx.stream>>>(words, n, ack, 0, k);
          });
      add_row(ctx, "block_p+wait_until_all" + suffix, "n", (uint64_t)n, kBurstThreads, "round_trip", us_stats(ns),
              nullptr, iters);
    }
    host_barrier();
    gshmem_free(words);
  }

  // ---- the remote path, piece by piece (PE 0's one thread; PE 1 idle but for its proxy)
  if (remote) {
    rep.section("remote path, piece by piece: one thread of PE 0, one round trip an iteration (us)");
    const uint64_t piece_iters = ctx.opt.iterations(20000, 4000);
    const uint64_t piece_warm = ctx.opt.warmup_iterations(2000, 400);
    for (Piece piece : {Piece::fence_quiet, Piece::p_quiet, Piece::g}) {
      std::vector<double> ns;
      const auto counts = with_remote_stats(ctx, stats_exchange, [&] {
        ns = time_loop(ctx, piece_iters, piece_warm, [] {}, [&](uint64_t n) {
          if (ctx.pe != 0) return;
          uint64_t *word = (uint64_t *)b.recv;
          if (piece == Piece::fence_quiet) remote_piece<Piece::fence_quiet><<<1, 1, 0, ctx.stream>>>(word, peer, n, sink);
          else if (piece == Piece::p_quiet) remote_piece<Piece::p_quiet><<<1, 1, 0, ctx.stream>>>(word, peer, n, sink);
          else remote_piece<Piece::g><<<1, 1, 0, ctx.stream>>>(word, peer, n, sink);
        });
      });
      add_row(ctx, piece_name(piece), "size", 8, 1, "round_trip", us_stats(ns), nullptr, piece_iters);
      add_piece_rows(ctx, piece_name(piece), counts.first, counts.second, piece_iters);
    }
  }

  // ---- one-word exchanges
  rep.section("one-thread ping-pong, PE 0 <-> PE 1 (us)");
  const uint64_t word_iters = ctx.opt.iterations(100000, 20000);
  const uint64_t word_warm = ctx.opt.warmup_iterations(10000, 2000);
  for (Exchange ex : {Exchange::signal, Exchange::p, Exchange::atomic_add}) {
    auto run = [&](const WordRun &r) {
      return time_loop(ctx, word_iters, word_warm, reset, [&](uint64_t n) {
        if (active)
          word_pingpong_kernel(ex, r)<<<1, 1, 0, ctx.stream>>>(b.flag, peer_flag, peer, n, initiator);
      });
    };
    const WordRun gshmem_both{false, true, RawWait::acquire_poll};
    if (remote) {
      std::vector<double> ns;
      const auto counts = with_remote_stats(ctx, stats_exchange, [&] { ns = run(gshmem_both); });
      add_row(ctx, exchange_name(ex) + suffix, "size", 8, 1, "one_way", us_stats(ns, 0.5), nullptr, word_iters);
      add_row(ctx, exchange_name(ex) + suffix, "size", 8, 1, "round_trip", us_stats(ns), nullptr, word_iters);
      add_piece_rows(ctx, exchange_name(ex) + suffix, counts.first, counts.second, word_iters);
      continue;
    }
    // Every raw wait in turn, each its own row; the floor is the fastest
    // correct one (median of the one-way times; only PE 0's rows and choice
    // are printed, and the choice changes no run).
    std::vector<double> floor_ns;
    int best = -1;
    double best_median = 0;
    for (int w = 0; w < kRawWaits; ++w) {
      const RawWaitInfo &info = raw_wait_info((RawWait)w);
      std::vector<double> ns = run(WordRun{true, false, info.wait});
      const Stats one_way = us_stats(ns, 0.5);
      add_row(ctx, std::string("raw_floor:") + exchange_name(ex) + " " + raw_send_name(ex) + " / " + info.sequence,
              "size", 8, 1, "one_way", one_way, nullptr, word_iters);
      if (info.correct && (best < 0 || one_way.median < best_median)) {
        best = w;
        best_median = one_way.median;
        floor_ns = ns;
      }
    }
    rep.note(std::string("floor of ") + exchange_name(ex) + ": " + raw_send_name(ex) + " / " +
             raw_wait_info((RawWait)best).sequence + " (the fastest correct raw wait)");
    Stats f1 = us_stats(floor_ns, 0.5), f2 = us_stats(floor_ns);
    std::vector<double> ns = run(gshmem_both);
    add_row(ctx, exchange_name(ex), "size", 8, 1, "one_way", us_stats(ns, 0.5), &f1, word_iters);
    add_row(ctx, exchange_name(ex), "size", 8, 1, "round_trip", us_stats(ns), &f2, word_iters);
    // Which half costs: gshmem's send with gshmem's wait sequence written
    // by hand, and the floor's send with gshmem's wait.
    std::vector<double> send_only = run(WordRun{false, false, kGshmemWaitSequence}),
                        wait_only = run(WordRun{true, true, RawWait::acquire_poll});
    add_row(ctx, std::string(exchange_name(ex)) + "[gshmem send, raw wait]", "size", 8, 1, "one_way",
            us_stats(send_only, 0.5), &f1, word_iters);
    add_row(ctx, std::string(exchange_name(ex)) + "[raw send, gshmem wait]", "size", 8, 1, "one_way",
            us_stats(wait_only, 0.5), &f1, word_iters);
  }

  // ---- put_signal
  rep.section("putmem_signal ping-pong by issuer width (us); floor: copy + st.release.sys flag");
  for (int width : widths) {
    int block = width == 1 ? 1 : width;
    // One thread moving megabytes over NVLink takes milliseconds per message;
    // cap its sizes so the suite stays bounded.
    uint64_t width_max = width == 1 ? (quick ? (64u << 10) : (1u << 20)) : sizes.max;
    for (uint64_t bytes : sizes.values()) {
      if (bytes > width_max) break;
      double bw = width == 1 ? 2e9 : width == 32 ? 15e9 : 60e9;  // bytes/s, a rough guess
      double est_ns = 3000 + 2e9 * double(bytes) / bw;
      uint64_t iters = iters_for(est_ns, quick ? 10e6 : 50e6, ctx.opt.iterations(20000, 5000));
      uint64_t warm = std::max<uint64_t>(2, iters / 10);
      auto run = [&](bool raw) {
        return time_loop(ctx, iters, warm, reset, [&](uint64_t n) {
          if (active)
            put_signal_pingpong_kernel(raw, width)<<<1, block, 0, ctx.stream>>>(b, peer_recv, peer_flag, bytes,
                                                                                peer, n, initiator);
        });
      };
      std::vector<double> floor_ns = remote ? std::vector<double>{} : run(true);
      Stats f1 = remote ? Stats{} : us_stats(floor_ns, 0.5);
      std::vector<double> ns = run(false);
      Stats f2 = remote ? Stats{} : us_stats(floor_ns);
      add_row(ctx, "putmem_signal" + suffix, "size", bytes, width, "one_way", us_stats(ns, 0.5), remote ? nullptr : &f1,
              iters);
      add_row(ctx, "putmem_signal" + suffix, "size", bytes, width, "round_trip", us_stats(ns), remote ? nullptr : &f2,
              iters);
    }
  }

  PERF_CUDA(cudaFree(sink));
  if (stats_exchange) gshmem_free(stats_exchange);
  gshmem_free(remote_word);
  gshmem_free(b.recv);
  gshmem_free(b.send);
  gshmem_free(b.flag);
  const int end_code = perf_end(ctx);
  return end_code != 0 ? end_code : exit_code;
}
