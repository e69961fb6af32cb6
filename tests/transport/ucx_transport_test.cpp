// The UCX transport module (libgshmem_transport_ucx.so) on the CPU: two
// processes (this one is PE 0, a forked child PE 1) open it through the
// plugin loader, over a bootstrap that exchanges data on a socket pair, and
// drive put/get, atomics, signals, fence, quiet and a peer lost on host
// memory heaps. Each case is run by its own ctest entry (its tag), so that a
// process forks once, before UCX is loaded.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>
#include <thread>
#include <vector>

#include <gshmem/types.h>

#include "proxy/proxy.h"
#include "transport/transport_loader.h"

#if __has_include(<catch2/catch_test_macros.hpp>)
#include <catch2/catch_test_macros.hpp>
#else
#include <catch2/catch.hpp>
#endif

namespace {

using Clock = std::chrono::steady_clock;

// ---- a 2-PE bootstrap over a socket pair

struct SocketBootstrap {
  int fd = -1;
  int rank = 0;
};

// The module of this process, once open: the bootstrap's waits let it make
// progress (UCX carries some operations in software and needs the target to
// progress: a PE blocked in a barrier must still serve its peer).
gshmemi_transport_ops_t *g_ops = nullptr;
// Set by the lost-peer case that plays the runtime's liveness monitor.
std::atomic<int> g_monitor_lost{0};

void progress_module() {
  if (g_ops) (void)g_ops->progress(g_ops->context);
}

int write_all(int fd, const void *p, size_t n) {
  const char *c = static_cast<const char *>(p);
  while (n) {
    const ssize_t w = ::write(fd, c, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return GSHMEMX_ERROR_PEER_LOST;
    c += w;
    n -= (size_t)w;
  }
  return GSHMEM_SUCCESS;
}

int read_all(int fd, void *p, size_t n) {
  char *c = static_cast<char *>(p);
  const auto deadline = Clock::now() + std::chrono::seconds(30);
  while (n) {
    pollfd pfd{fd, POLLIN, 0};
    const int r = ::poll(&pfd, 1, 1);
    if (r < 0 && errno == EINTR) continue;
    if (r == 0) {
      progress_module();
      if (Clock::now() > deadline) return GSHMEMX_ERROR_BOOTSTRAP;
      continue;
    }
    const ssize_t got = ::read(fd, c, n);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return GSHMEMX_ERROR_PEER_LOST;
    c += got;
    n -= (size_t)got;
  }
  return GSHMEM_SUCCESS;
}

int sock_allgather(void *b, const void *in, void *out, size_t bytes) {
  auto *s = static_cast<SocketBootstrap *>(b);
  char *o = static_cast<char *>(out);
  std::memcpy(o + (size_t)s->rank * bytes, in, bytes);
  const int rc = write_all(s->fd, in, bytes);
  if (rc != GSHMEM_SUCCESS) return rc;
  return read_all(s->fd, o + (size_t)(1 - s->rank) * bytes, bytes);
}

int sock_barrier(void *b) {
  char in = 1, out[2];
  return sock_allgather(b, &in, out, 1);
}

void report(int level, const char *message) { std::fprintf(stderr, "[ucx test] level %d: %s\n", level, message); }
int monitor() { return g_monitor_lost.load(); }

// ---- checks inside a PE (the child cannot use Catch)

int g_failures = 0;
int g_rank = 0;
#define EXPECT(cond, ...)                                                               \
  do {                                                                                  \
    if (!(cond)) {                                                                      \
      ++g_failures;                                                                     \
      std::fprintf(stderr, "PE %d: %s:%d: failed: %s: ", g_rank, __FILE__, __LINE__, #cond); \
      std::fprintf(stderr, __VA_ARGS__);                                                \
      std::fprintf(stderr, "\n");                                                       \
    }                                                                                   \
  } while (0)

// The heap: 4 MiB of host memory, registered at symmetric offset 0.
constexpr size_t kHeap = 4u << 20;
constexpr uint64_t kData = 0;              // [0, 2 MiB): data
constexpr uint64_t kWords = 3u << 20;      // 8-byte words: counters, signals
constexpr uint64_t word(int i) { return kWords + 8u * (uint64_t)i; }

struct Pe {
  SocketBootstrap boot;
  gshmemi_transport_ops_t ops{};
  unsigned char *heap = nullptr;
  int peer = 0;
  pid_t child = 0;  // PE 0: PE 1's process
};

uint64_t load_word(const Pe &p, uint64_t off) {
  return __atomic_load_n(reinterpret_cast<uint64_t *>(p.heap + off), __ATOMIC_ACQUIRE);
}

uint32_t load_word32(const Pe &p, uint64_t off) {
  return __atomic_load_n(reinterpret_cast<uint32_t *>(p.heap + off), __ATOMIC_ACQUIRE);
}

// Polls a word of this PE's heap (progressing the module) until it equals v.
bool wait_word(Pe &p, uint64_t off, uint64_t v, double seconds = 10) {
  const auto deadline = Clock::now() + std::chrono::duration<double>(seconds);
  while (load_word(p, off) != v) {
    if (p.ops.progress(p.ops.context) != GSHMEM_SUCCESS) return false;
    if (Clock::now() > deadline) return false;
  }
  return true;
}

unsigned char pattern(int rank, size_t i, size_t salt) { return (unsigned char)(i * 131u + (size_t)rank * 17u + salt * 7u + 1u); }

int open_module(Pe &p) {
  std::vector<unsigned char> remote(2, 1);
  remote[(size_t)p.boot.rank] = 0;
  gshmemi_transport_open_args_t args{};
  args.my_pe = p.boot.rank;
  args.n_pes = 2;
  args.remote = remote.data();
  args.cuda_device = -1;
  args.bootstrap = &p.boot;
  args.allgather = &sock_allgather;
  args.barrier = &sock_barrier;
  args.report = &report;
  args.peer_lost = &monitor;
  int rc = gshmemi::open_transport_plugin("ucx", args, &p.ops);
  if (rc != GSHMEM_SUCCESS) return rc;
  g_ops = &p.ops;
  p.heap = static_cast<unsigned char *>(std::aligned_alloc(4096, kHeap));
  std::memset(p.heap, 0, kHeap);
  return p.ops.register_memory(p.ops.context, 0, p.heap, kHeap, GSHMEMI_TRANSPORT_MEMORY_HOST);
}

int close_module(Pe &p) {
  const int rc = p.ops.close(p.ops.context);
  g_ops = nullptr;
  std::free(p.heap);
  p.heap = nullptr;
  return rc;
}

// ---- the cases, run by both PEs

void case_rma(Pe &p) {
  const int me = p.boot.rank;
  const size_t sizes[] = {1, 2, 3, 7, 8, 9, 63, 64, 65, 1000, 4095, 4096, 65536, 65537, 1u << 20};
  const size_t aligns[] = {0, 1, 3, 8, 61};
  // room for the largest size, its alignment and the 64 bytes checked after it
  std::vector<unsigned char> src((1u << 20) + 256), dst((1u << 20) + 256);
  size_t salt = 0;
  for (size_t size : sizes) {
    for (size_t align : aligns) {
      ++salt;
      // put: my pattern from src+align into the peer's heap at kData+align
      for (size_t i = 0; i < size; ++i) src[align + i] = pattern(me, i, salt);
      std::memset(p.heap + kData, 0, size + 2 * align + 64);
      EXPECT(sock_barrier(&p.boot) == 0, "barrier");
      EXPECT(p.ops.put(p.ops.context, p.peer, kData + align, src.data() + align, size) == 0, "put %zu", size);
      EXPECT(p.ops.quiet(p.ops.context) == 0, "quiet after put of %zu", size);
      EXPECT(sock_barrier(&p.boot) == 0, "barrier");
      size_t bad = 0;
      for (size_t i = 0; i < size; ++i) bad += p.heap[kData + align + i] != pattern(p.peer, i, salt);
      for (size_t i = 0; i < align; ++i) bad += p.heap[kData + i] != 0;  // nothing before
      for (size_t i = 0; i < 64; ++i) bad += p.heap[kData + align + size + i] != 0;  // nothing after
      EXPECT(bad == 0, "put of %zu bytes at alignment %zu: %zu bytes wrong", size, align, bad);
      // get: the peer's heap (holding my pattern now) into dst+align
      std::memset(dst.data(), 0xEE, size + 2 * align + 64);
      EXPECT(p.ops.get(p.ops.context, p.peer, dst.data() + align, kData + align, size) == 0, "get %zu", size);
      EXPECT(p.ops.quiet(p.ops.context) == 0, "quiet after get of %zu", size);
      bad = 0;
      for (size_t i = 0; i < size; ++i) bad += dst[align + i] != pattern(me, i, salt);
      for (size_t i = 0; i < align; ++i) bad += dst[i] != 0xEE;
      for (size_t i = 0; i < 64; ++i) bad += dst[align + size + i] != 0xEE;
      EXPECT(bad == 0, "get of %zu bytes at alignment %zu: %zu bytes wrong", size, align, bad);
      EXPECT(sock_barrier(&p.boot) == 0, "barrier");
    }
  }

  // quiet completes many outstanding puts: 64 puts of 16 KiB, no wait in
  // between, one quiet, then a signal; the peer finds all of them.
  for (int round = 1; round <= 20; ++round) {
    constexpr size_t kChunk = 16384;
    std::vector<unsigned char> big(64 * kChunk);
    for (size_t i = 0; i < big.size(); ++i) big[i] = pattern(me, i, (size_t)round + 1000);
    for (int k = 0; k < 64; ++k)
      EXPECT(p.ops.put(p.ops.context, p.peer, kData + (uint64_t)k * kChunk, big.data() + (size_t)k * kChunk, kChunk) == 0,
             "put %d", k);
    EXPECT(p.ops.quiet(p.ops.context) == 0, "quiet");
    EXPECT(p.ops.signal(p.ops.context, p.peer, word(0), GSHMEM_SIGNAL_SET, (uint64_t)round) == 0, "signal");
    EXPECT(p.ops.quiet(p.ops.context) == 0, "quiet");
    EXPECT(wait_word(p, word(0), (uint64_t)round), "round %d: the peer's signal never came", round);
    size_t bad = 0;
    for (size_t i = 0; i < big.size(); ++i) bad += p.heap[kData + i] != pattern(p.peer, i, (size_t)round + 1000);
    EXPECT(bad == 0, "round %d: %zu bytes of the quieted puts missing", round, bad);
    EXPECT(sock_barrier(&p.boot) == 0, "barrier");
  }
}

void case_amo(Pe &p) {
  const int me = p.boot.rank;
  // fetch_add, 64 and 32 bits: many from each PE into a counter of the
  // other, many outstanding at once; the fetched values are 0, s, 2s, ...
  // in some order, and the final values exact.
  constexpr int kBatches = 20, kPerBatch = 100;
  const uint64_t step = 3 + (uint64_t)me;
  std::vector<uint64_t> fetched64(kBatches * kPerBatch, ~0ull);
  std::vector<uint32_t> fetched32(kBatches * kPerBatch, ~0u);
  for (int b = 0; b < kBatches; ++b) {
    for (int i = 0; i < kPerBatch; ++i) {
      const int n = b * kPerBatch + i;
      EXPECT(p.ops.amo(p.ops.context, p.peer, word(1), GSHMEMI_TRANSPORT_AMO_ADD, 8, step, 0, &fetched64[(size_t)n]) == 0, "fadd64");
      EXPECT(p.ops.amo(p.ops.context, p.peer, word(2), GSHMEMI_TRANSPORT_AMO_ADD, 4, step, 0, &fetched32[(size_t)n]) == 0, "fadd32");
      // and a non-fetching add
      EXPECT(p.ops.amo(p.ops.context, p.peer, word(3), GSHMEMI_TRANSPORT_AMO_ADD, 8, 1, 0, nullptr) == 0, "add");
    }
    EXPECT(p.ops.quiet(p.ops.context) == 0, "quiet");
  }
  std::set<uint64_t> seen64(fetched64.begin(), fetched64.end()), seen32(fetched32.begin(), fetched32.end());
  bool exact64 = seen64.size() == fetched64.size(), exact32 = seen32.size() == fetched32.size();
  for (int n = 0; n < kBatches * kPerBatch; ++n) {
    exact64 = exact64 && seen64.count((uint64_t)n * step);
    exact32 = exact32 && seen32.count((uint32_t)((uint64_t)n * step));
  }
  EXPECT(exact64, "64-bit fetch_add: fetched values are not 0, %llu, ... each once", (unsigned long long)step);
  EXPECT(exact32, "32-bit fetch_add: fetched values are not 0, %llu, ... each once", (unsigned long long)step);
  EXPECT(sock_barrier(&p.boot) == 0, "barrier");
  const uint64_t peer_step = 3 + (uint64_t)p.peer, n_total = kBatches * kPerBatch;
  EXPECT(load_word(p, word(1)) == n_total * peer_step, "counter64 %llu", (unsigned long long)load_word(p, word(1)));
  EXPECT(load_word32(p, word(2)) == (uint32_t)(n_total * peer_step), "counter32 %u", load_word32(p, word(2)));
  EXPECT(load_word(p, word(3)) == n_total, "add %llu", (unsigned long long)load_word(p, word(3)));

  // compare-swap, swap, and/or/xor, fetch on words of the peer, 64 bits
  // (word 4..) and 32 bits (word 10..), set up by the owner.
  *reinterpret_cast<uint64_t *>(p.heap + word(4)) = 100;
  *reinterpret_cast<uint64_t *>(p.heap + word(5)) = 7;
  *reinterpret_cast<uint64_t *>(p.heap + word(6)) = 0xF0F0;
  *reinterpret_cast<uint32_t *>(p.heap + word(10)) = 100;
  EXPECT(sock_barrier(&p.boot) == 0, "barrier");
  uint64_t f1 = 0, f2 = 0, f3 = 0, f4 = 0, f5 = 0, f6 = 0, f7 = 0;
  uint32_t g1 = 0, g2 = 0;
  auto amo = [&](uint64_t off, int op, int width, uint64_t operand, uint64_t compare, void *fetched) {
    EXPECT(p.ops.amo(p.ops.context, p.peer, off, op, width, operand, compare, fetched) == 0, "amo %d", op);
    EXPECT(p.ops.quiet(p.ops.context) == 0, "quiet after amo %d", op);
  };
  amo(word(4), GSHMEMI_TRANSPORT_AMO_CSWAP, 8, 555, 99, &f1);   // no match: stays 100
  amo(word(4), GSHMEMI_TRANSPORT_AMO_CSWAP, 8, 555, 100, &f2);  // match: 555
  amo(word(4), GSHMEMI_TRANSPORT_AMO_SWAP, 8, 777, 0, &f3);     // 777
  amo(word(4), GSHMEMI_TRANSPORT_AMO_FETCH, 8, 0, 0, &f4);      // reads 777
  amo(word(5), GSHMEMI_TRANSPORT_AMO_OR, 8, 8, 0, &f5);         // 7 | 8 = 15
  amo(word(5), GSHMEMI_TRANSPORT_AMO_AND, 8, 6, 0, &f6);        // 15 & 6 = 6
  amo(word(6), GSHMEMI_TRANSPORT_AMO_XOR, 8, 0xFFFF, 0, &f7);   // 0x0F0F
  amo(word(10), GSHMEMI_TRANSPORT_AMO_CSWAP, 4, 9, 100, &g1);   // match: 9
  amo(word(10), GSHMEMI_TRANSPORT_AMO_SWAP, 4, 0xFFFFFFFFu, 0, &g2);
  EXPECT(f1 == 100 && f2 == 100 && f3 == 555 && f4 == 777, "cswap/swap/fetch fetched %llu %llu %llu %llu",
         (unsigned long long)f1, (unsigned long long)f2, (unsigned long long)f3, (unsigned long long)f4);
  EXPECT(f5 == 7 && f6 == 15 && f7 == 0xF0F0, "or/and/xor fetched %llu %llu %llu", (unsigned long long)f5,
         (unsigned long long)f6, (unsigned long long)f7);
  EXPECT(g1 == 100 && g2 == 9, "32-bit cswap/swap fetched %u %u", g1, g2);
  EXPECT(sock_barrier(&p.boot) == 0, "barrier");
  EXPECT(load_word(p, word(4)) == 777, "cswap/swap word %llu", (unsigned long long)load_word(p, word(4)));
  EXPECT(load_word(p, word(5)) == 6, "or/and word %llu", (unsigned long long)load_word(p, word(5)));
  EXPECT(load_word(p, word(6)) == 0x0F0F, "xor word %llu", (unsigned long long)load_word(p, word(6)));
  EXPECT(load_word32(p, word(10)) == 0xFFFFFFFFu, "32-bit word %u", load_word32(p, word(10)));
  EXPECT(load_word32(p, word(10) + 4) == 0, "32-bit atomics wrote past their word");

  // bad requests are refused with a code, not carried out
  uint64_t f = 0;
  EXPECT(p.ops.amo(p.ops.context, p.peer, word(1), GSHMEMI_TRANSPORT_AMO_ADD, 2, 1, 0, &f) == GSHMEMX_ERROR_INVALID_VALUE, "width 2");
  EXPECT(p.ops.amo(p.ops.context, p.peer, word(1) + 4, GSHMEMI_TRANSPORT_AMO_ADD, 8, 1, 0, &f) == GSHMEMX_ERROR_MISALIGNED, "misaligned");
  EXPECT(p.ops.amo(p.ops.context, p.peer, word(1), 99, 8, 1, 0, &f) == GSHMEMX_ERROR_INVALID_VALUE, "unknown op");
  EXPECT(p.ops.put(p.ops.context, me, kData, &f, 8) == GSHMEMX_ERROR_INVALID_PE, "put to self");
  EXPECT(p.ops.put(p.ops.context, p.peer, kHeap, &f, 8) == GSHMEMX_ERROR_NOT_SYMMETRIC, "put past the heap");
  EXPECT(p.ops.put(p.ops.context, p.peer, kHeap - 4, &f, 8) == GSHMEMX_ERROR_INVALID_VALUE, "put across the end");
  std::vector<unsigned char> extra(8192);
  EXPECT(p.ops.register_memory(p.ops.context, kHeap - 4096, extra.data(), extra.size(), GSHMEMI_TRANSPORT_MEMORY_HOST) ==
             GSHMEMX_ERROR_INVALID_VALUE,
         "an overlapping region");
  EXPECT(p.ops.register_memory(p.ops.context, 0, extra.data(), extra.size(), GSHMEMI_TRANSPORT_MEMORY_DEVICE) ==
             GSHMEMX_ERROR_NOT_SUPPORTED,
         "device memory with a UCX without CUDA");
  // a second region, registered and used, then deregistered (collective)
  EXPECT(p.ops.register_memory(p.ops.context, kHeap, extra.data(), extra.size(), GSHMEMI_TRANSPORT_MEMORY_HOST) == 0,
         "a second region");
  const uint64_t v = 0xABCDEF0123456789ull + (uint64_t)me;
  EXPECT(p.ops.put(p.ops.context, p.peer, kHeap + 8, &v, 8) == 0, "put into the second region");
  EXPECT(p.ops.quiet(p.ops.context) == 0, "quiet");
  EXPECT(sock_barrier(&p.boot) == 0, "barrier");
  uint64_t got = 0;
  std::memcpy(&got, extra.data() + 8, 8);
  EXPECT(got == 0xABCDEF0123456789ull + (uint64_t)p.peer, "second region holds %llx", (unsigned long long)got);
  EXPECT(p.ops.deregister_memory(p.ops.context, kHeap) == 0, "deregister");
  EXPECT(p.ops.put(p.ops.context, p.peer, kHeap + 8, &v, 8) == GSHMEMX_ERROR_NOT_SYMMETRIC, "put after deregister");
  EXPECT(p.ops.quiet(p.ops.context) == 0, "quiet after refused requests");
  EXPECT(sock_barrier(&p.boot) == 0, "barrier");
}

// Message passing: PE 0 puts a block, fences, signals; PE 1 polls the signal,
// then must find the block of that round; it answers with a signal of its
// own. SET and ADD signals alternate.
void case_signal(Pe &p) {
  const int me = p.boot.rank;
  constexpr int kRounds = 3000;
  constexpr size_t kBlock = 512;
  std::vector<unsigned char> block(kBlock);
  int violations = 0, timeouts = 0;
  for (int round = 1; round <= kRounds && timeouts == 0; ++round) {
    const int op = round % 2 ? GSHMEM_SIGNAL_SET : GSHMEM_SIGNAL_ADD;
    const uint64_t value = op == GSHMEM_SIGNAL_SET ? (uint64_t)round : 1;  // ADD: round-1 + 1
    if (me == 0) {
      for (size_t i = 0; i < kBlock; ++i) block[i] = pattern(0, i, (size_t)round);
      EXPECT(p.ops.put(p.ops.context, 1, kData, block.data(), kBlock) == 0, "put");
      EXPECT(p.ops.fence(p.ops.context, 1) == 0, "fence");
      EXPECT(p.ops.signal(p.ops.context, 1, word(0), op, value) == 0, "signal");
      // no quiet here: the fence alone orders the signal after the data
      if (!wait_word(p, word(1), (uint64_t)round)) ++timeouts;
      EXPECT(p.ops.quiet(p.ops.context) == 0, "quiet");  // the block may be reused now
    } else {
      if (!wait_word(p, word(0), (uint64_t)round)) {
        ++timeouts;
        break;
      }
      size_t bad = 0;
      for (size_t i = 0; i < kBlock; ++i) bad += p.heap[kData + i] != pattern(0, i, (size_t)round);
      violations += bad != 0;
      EXPECT(p.ops.signal(p.ops.context, 0, word(1), op, value) == 0, "ack");
      EXPECT(p.ops.quiet(p.ops.context) == 0, "quiet");
    }
  }
  EXPECT(violations == 0, "%d of %d rounds found the signal before the data", violations, kRounds);
  EXPECT(timeouts == 0, "a signal did not arrive within 10 s");
  EXPECT(sock_barrier(&p.boot) == 0, "barrier");
}

// PE 1 is killed (SIGKILL) while PE 0 has puts outstanding: PE 0's quiet (or
// a later request) must fail with GSHMEMX_ERROR_PEER_LOST within seconds.
// with_monitor: the runtime's liveness monitor (peer_lost) reports it; else
// UCX must find it alone.
void case_lost(Pe &p, bool with_monitor) {
  EXPECT(sock_barrier(&p.boot) == 0, "barrier");
  if (p.boot.rank == 1) {
    // Serve the peer until killed.
    for (;;) {
      (void)p.ops.progress(p.ops.context);
      std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
  }
  std::vector<unsigned char> src(65536, 0x5A);
  for (int i = 0; i < 50; ++i) EXPECT(p.ops.put(p.ops.context, 1, kData, src.data(), src.size()) == 0, "put before");
  EXPECT(p.ops.quiet(p.ops.context) == 0, "quiet before the kill");
  for (int i = 0; i < 50; ++i) (void)p.ops.put(p.ops.context, 1, kData, src.data(), src.size());
  ::kill(p.child, SIGKILL);
  int status = 0;
  ::waitpid(p.child, &status, 0);
  p.child = 0;
  if (with_monitor) g_monitor_lost = 2;  // 1 + PE 1
  const auto start = Clock::now();
  int rc = GSHMEM_SUCCESS;
  int iterations = 0;
  while (rc == GSHMEM_SUCCESS && Clock::now() - start < std::chrono::seconds(15)) {
    ++iterations;
    rc = p.ops.put(p.ops.context, 1, kData, src.data(), src.size());
    if (rc == GSHMEM_SUCCESS) rc = p.ops.amo(p.ops.context, 1, word(1), GSHMEMI_TRANSPORT_AMO_ADD, 8, 1, 0, nullptr);
    if (rc == GSHMEM_SUCCESS) rc = p.ops.quiet(p.ops.context);
  }
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  std::fprintf(stderr, "PE 0: the lost peer was reported after %.2f s (%d rounds): code %d\n", seconds, iterations, rc);
  EXPECT(rc == GSHMEMX_ERROR_PEER_LOST, "after the kill: code %d, not GSHMEMX_ERROR_PEER_LOST", rc);
  EXPECT(seconds < 10, "the lost peer took %.1f s to be reported", seconds);
  EXPECT(p.ops.peer_failed(p.ops.context) == 2, "peer_failed %d, not 1 + PE 1", p.ops.peer_failed(p.ops.context));
  EXPECT(p.ops.quiet(p.ops.context) == GSHMEMX_ERROR_PEER_LOST, "a later quiet");
  EXPECT(p.ops.put(p.ops.context, 1, kData, src.data(), 8) == GSHMEMX_ERROR_PEER_LOST, "a later put");
}

// Through the proxy: PE 0's requests go into a host queue that a Proxy
// thread drains into the module (put_signal, an inline put, a fetching
// atomic), waited for with the queue's completion; PE 1 polls the signal,
// checks the data and answers. PE 0's worker is progressed by the proxy
// thread alone while it runs (its idle passes), which is what lets PE 1's
// answers land.
void case_proxy(Pe &p) {
  namespace gd = gshmem::detail;
  constexpr int kRounds = 2000;
  constexpr size_t kBlock = 256;
  int violations = 0, timeouts = 0;
  if (p.boot.rank == 0) {
    gshmemi::HostProxyQueue storage(64);
    const gd::proxy_queue &q = storage.view();
    gshmemi::Proxy proxy(q, p.ops, 2, 16);
    int hook_code = 0;
    proxy.set_error_hook([&](int code, int) { hook_code = code; });
    g_ops = nullptr;  // the proxy thread owns the module now
    EXPECT(proxy.start() == 0, "starting the proxy");
    std::vector<unsigned char> block(kBlock);
    uint64_t fetched = ~0ull;
    for (int round = 1; round <= kRounds && timeouts == 0; ++round) {
      for (size_t i = 0; i < kBlock; ++i) block[i] = pattern(0, i, (size_t)round);
      gd::proxy_request r{};
      r.op = gd::proxy_op_put_inline;
      r.pe = 1;
      r.bytes = 8;
      r.remote = kData + kBlock;
      r.value = (unsigned long long)round * 3;
      EXPECT(gd::proxy_issue(q, r), "issue put_inline");
      r = gd::proxy_request{};
      r.op = gd::proxy_op_amo;
      r.pe = 1;
      r.bytes = 8;
      r.remote = word(2);
      r.sub_op = GSHMEMI_TRANSPORT_AMO_ADD;
      r.value = 1;
      r.local = (unsigned long long)(uintptr_t)&fetched;
      EXPECT(gd::proxy_issue(q, r), "issue amo");
      r = gd::proxy_request{};
      r.op = gd::proxy_op_put_signal;
      r.pe = 1;
      r.bytes = kBlock;
      r.remote = kData;
      r.local = (unsigned long long)(uintptr_t)block.data();
      r.aux = word(0);
      r.sub_op = GSHMEM_SIGNAL_SET;
      r.value = (unsigned long long)round;
      EXPECT(gd::proxy_issue(q, r), "issue put_signal");
      const auto deadline = Clock::now() + std::chrono::seconds(10);
      const unsigned long long target = gd::proxy_quiet_target(q);
      while (!gd::proxy_test_completed(q, target) && proxy.error() == 0 && Clock::now() < deadline)
        std::this_thread::yield();  // 2 cores, 3 busy threads: let the proxy run
      EXPECT(gd::proxy_test_completed(q, target), "round %d: not completed (proxy error %d)", round, proxy.error());
      violations += fetched != (uint64_t)round - 1;
      // PE 1's answer, carried by UCX while the proxy thread progresses
      while (load_word(p, word(1)) != (uint64_t)round && Clock::now() < deadline) std::this_thread::yield();
      if (load_word(p, word(1)) != (uint64_t)round) ++timeouts;
    }
    proxy.stop();
    g_ops = &p.ops;
    EXPECT(proxy.error() == 0 && hook_code == 0, "proxy error %d", proxy.error());
    EXPECT(proxy.consumed() == 3ull * kRounds, "the proxy consumed %llu requests", proxy.consumed());
  } else {
    for (int round = 1; round <= kRounds; ++round) {
      if (!wait_word(p, word(0), (uint64_t)round)) {
        ++timeouts;
        break;
      }
      size_t bad = 0;
      for (size_t i = 0; i < kBlock; ++i) bad += p.heap[kData + i] != pattern(0, i, (size_t)round);
      bad += load_word(p, kData + kBlock) != (uint64_t)round * 3;
      violations += bad != 0;
      EXPECT(p.ops.signal(p.ops.context, 0, word(1), GSHMEM_SIGNAL_SET, (uint64_t)round) == 0, "answer");
      EXPECT(p.ops.quiet(p.ops.context) == 0, "quiet");
    }
  }
  EXPECT(violations == 0, "%d rounds with wrong data or a wrong fetched value", violations);
  EXPECT(timeouts == 0, "a round did not finish within 10 s");
  EXPECT(sock_barrier(&p.boot) == 0, "barrier");
  if (p.boot.rank == 1) EXPECT(load_word(p, word(2)) == (uint64_t)kRounds, "atomic counter %llu", (unsigned long long)load_word(p, word(2)));
}

enum class Case { rma, amo, signal, proxy, lost, lost_monitor };

// Runs one case as PE `rank`: open, the case, close. Failures counted in g_failures.
void run_pe(Pe &p, Case c) {
  g_rank = p.boot.rank;
  p.peer = 1 - p.boot.rank;
  const int rc = open_module(p);
  EXPECT(rc == 0, "opening the module and registering the heap: %d", rc);
  if (rc != 0) return;
  switch (c) {
    case Case::rma: case_rma(p); break;
    case Case::amo: case_amo(p); break;
    case Case::signal: case_signal(p); break;
    case Case::proxy: case_proxy(p); break;
    case Case::lost: case_lost(p, false); break;
    case Case::lost_monitor: case_lost(p, true); break;
  }
  const int crc = close_module(p);
  if (c != Case::lost && c != Case::lost_monitor) EXPECT(crc == 0, "close: %d", crc);
}

// Forks PE 1, runs PE 0 here; both must pass (PE 1 is expected to die by
// SIGKILL in the lost cases).
void run_two(Case c) {
  int sv[2];
  REQUIRE(::socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
  std::fflush(nullptr);
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    ::close(sv[0]);
    Pe p;
    p.boot = {sv[1], 1};
    run_pe(p, c);
    std::fflush(nullptr);
    ::_exit(g_failures ? 1 : 0);
  }
  ::close(sv[1]);
  Pe p;
  p.boot = {sv[0], 0};
  p.child = child;
  run_pe(p, c);
  ::close(sv[0]);
  int child_failed = 0;
  if (p.child) {
    // PE 1 ends on its own: give it 20 s.
    int status = 0;
    const auto deadline = Clock::now() + std::chrono::seconds(20);
    pid_t w = 0;
    while ((w = ::waitpid(child, &status, WNOHANG)) == 0 && Clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    if (w == 0) {
      ::kill(child, SIGKILL);
      ::waitpid(child, &status, 0);
      std::fprintf(stderr, "PE 1 did not end within 20 s\n");
      child_failed = 1;
    } else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      std::fprintf(stderr, "PE 1 failed (status 0x%x)\n", status);
      child_failed = 1;
    }
  }
  CHECK(g_failures == 0);
  CHECK(child_failed == 0);
}

}  // namespace

TEST_CASE("ucx transport: put and get of 1 B .. 1 MiB at several alignments, quiet", "[rma]") { run_two(Case::rma); }
TEST_CASE("ucx transport: atomics with exact results", "[amo]") { run_two(Case::amo); }
TEST_CASE("ucx transport: put, fence, signal; the reader finds the data", "[signal]") { run_two(Case::signal); }
TEST_CASE("ucx transport: requests through a host queue and the proxy thread", "[proxy]") { run_two(Case::proxy); }
TEST_CASE("ucx transport: a killed peer is reported by UCX", "[lost]") { run_two(Case::lost); }
TEST_CASE("ucx transport: a killed peer is reported by the monitor", "[lost_monitor]") { run_two(Case::lost_monitor); }
