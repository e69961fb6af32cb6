// gshmem_perf_latency: one-way and round-trip latency of the point-to-point
// exchanges between PE 0 (initiator) and PE 1 (responder); other PEs idle.
//   signal_op(SET) + signal_wait_until     floor: st.relaxed.sys / ld.acquire.sys
//   uint64_p + uint64_wait_until           floor: st.relaxed.sys / ld.acquire.sys
//   uint64_atomic_add + uint64_wait_until  floor: red.add.relaxed.sys / ld.acquire.sys
//   putmem_signal, 8 B .. 4 MiB, thread / warp / block issuers
//                                          floor: copy + st.release.sys flag
// Each iteration is a full round trip inside one kernel; one-way = round trip / 2.
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

// One-word ping-pong. `Raw` selects the hand-written floor. The exchange and
// the floor are template parameters, so each timed loop is compiled for its
// one exchange (a runtime switch inside the loop costs every iteration a few
// instructions, the floor included).
// RawSend / RawWait pick the floor's half for each side separately: the
// mixed forms tell which half of an exchange costs what it costs above the
// floor (info rows).
template <Exchange Ex, bool RawSend, bool RawWait>
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
    if constexpr (RawWait) raw_wait_ge(flag, i);
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

template <Exchange Ex>
WordPingpong word_pingpong_halves(bool raw_send, bool raw_wait) {
  if (raw_send) return raw_wait ? word_pingpong<Ex, true, true> : word_pingpong<Ex, true, false>;
  return raw_wait ? word_pingpong<Ex, false, true> : word_pingpong<Ex, false, false>;
}

WordPingpong word_pingpong_kernel(Exchange ex, bool raw_send, bool raw_wait) {
  if (ex == Exchange::signal) return word_pingpong_halves<Exchange::signal>(raw_send, raw_wait);
  if (ex == Exchange::p) return word_pingpong_halves<Exchange::p>(raw_send, raw_wait);
  return word_pingpong_halves<Exchange::atomic_add>(raw_send, raw_wait);
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
  const bool remote = active && (!peer_flag || !peer_recv);
  const std::string suffix = remote ? "[remote]" : "";
  if (remote && ctx.pe == 0)
    std::printf("# PE %d is remote (no mapped address): gshmem rows only, through the proxy; no floor\n", peer);
  auto reset = [&] { PERF_CUDA(cudaMemsetAsync(b.flag, 0, sizeof(uint64_t), ctx.stream)); };

  // ---- one-word exchanges
  rep.section("one-thread ping-pong, PE 0 <-> PE 1 (us)");
  const uint64_t word_iters = ctx.opt.iterations(100000, 20000);
  const uint64_t word_warm = ctx.opt.warmup_iterations(10000, 2000);
  for (Exchange ex : {Exchange::signal, Exchange::p, Exchange::atomic_add}) {
    auto run = [&](bool raw_send, bool raw_wait) {
      return time_loop(ctx, word_iters, word_warm, reset, [&](uint64_t n) {
        if (active)
          word_pingpong_kernel(ex, raw_send, raw_wait)<<<1, 1, 0, ctx.stream>>>(b.flag, peer_flag, peer, n, initiator);
      });
    };
    if (remote) {
      std::vector<double> ns = run(false, false);
      add_row(ctx, exchange_name(ex) + suffix, "size", 8, 1, "one_way", us_stats(ns, 0.5), nullptr, word_iters);
      add_row(ctx, exchange_name(ex) + suffix, "size", 8, 1, "round_trip", us_stats(ns), nullptr, word_iters);
      continue;
    }
    std::vector<double> floor_ns = run(true, true);
    Stats f1 = us_stats(floor_ns, 0.5), f2 = us_stats(floor_ns);
    std::vector<double> ns = run(false, false);
    add_row(ctx, exchange_name(ex), "size", 8, 1, "one_way", us_stats(ns, 0.5), &f1, word_iters);
    add_row(ctx, exchange_name(ex), "size", 8, 1, "round_trip", us_stats(ns), &f2, word_iters);
    // Which half costs: gshmem's send with the floor's wait, and the reverse.
    std::vector<double> send_only = run(false, true), wait_only = run(true, false);
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

  gshmem_free(b.recv);
  gshmem_free(b.send);
  gshmem_free(b.flag);
  return perf_end(ctx);
}
