// The UCX transport module (libgshmem_transport_ucx.so) on the CPU: two
// processes (this one is PE 0, a forked child PE 1) open it through the
// plugin loader, over a bootstrap that exchanges data on a socket pair, and
// drive put/get, atomics, signals, fence, quiet and a peer lost on host
// memory heaps. Each case is run by its own ctest entry (its tag), so that a
// process forks once, before UCX is loaded.
//
// Each case runs in three modes: one-sided (the heap mapped with
// ucp_mem_map; a second region of kind GSHMEMI_TRANSPORT_MEMORY_DEVICE, host
// memory standing in for GPU memory, is reached with active messages), and
// active messages for everything (GSHMEMI_TRANSPORT_OPEN_ACTIVE_MESSAGES)
// with this test's local_copy / local_amo, which count their calls (the
// module must use them at the target and at the initiator), or with NULL
// ones (memcpy and host atomics).
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
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

enum class Mode { one_sided, messages, messages_null_access };
Mode g_mode = Mode::one_sided;
const char *mode_name(Mode m) {
  return m == Mode::one_sided ? "one-sided" : m == Mode::messages ? "active messages" : "active messages, no local access";
}

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

// The heap: 4 MiB of host memory, registered at symmetric offset 0; after
// it, 64 KiB registered as GPU memory (host memory standing in: the module
// reaches it with active messages in every mode).
constexpr size_t kHeap = 4u << 20;
constexpr uint64_t kDev = kHeap;
constexpr size_t kDevBytes = 64u << 10;
constexpr uint64_t kExtra = kDev + kDevBytes;  // where case_amo registers more
constexpr uint64_t kData = 0;              // [0, 2 MiB): data
constexpr uint64_t kWords = 3u << 20;      // 8-byte words: counters, signals
constexpr uint64_t word(int i) { return kWords + 8u * (uint64_t)i; }

struct Pe {
  SocketBootstrap boot;
  gshmemi_transport_ops_t ops{};
  unsigned char *heap = nullptr;
  unsigned char *dev = nullptr;  // the GPU-kind region (host memory here)
  int peer = 0;
  pid_t child = 0;  // PE 0: PE 1's process
};

uint64_t load_word(const Pe &p, uint64_t off) {
  return __atomic_load_n(reinterpret_cast<uint64_t *>(p.heap + off), __ATOMIC_ACQUIRE);
}

uint32_t load_word32(const Pe &p, uint64_t off) {
  return __atomic_load_n(reinterpret_cast<uint32_t *>(p.heap + off), __ATOMIC_ACQUIRE);
}

// Events the module's progress reported in wait_word, this process.
unsigned long long g_progress_events = 0;

// Polls a word of this PE's heap (progressing the module) until it equals v.
bool wait_word(Pe &p, uint64_t off, uint64_t v, double seconds = 10) {
  const auto deadline = Clock::now() + std::chrono::duration<double>(seconds);
  while (load_word(p, off) != v) {
    const int events = p.ops.progress(p.ops.context);
    if (events < 0) return false;
    g_progress_events += (unsigned long long)events;
    if (Clock::now() > deadline) return false;
  }
  return true;
}

// ---- the runtime's local access, counted (Mode::messages)

// Where this PE's heap and GPU-kind region lie: a copy into or out of them
// is the target applying a put or serving a get; any other copy is the
// initiator staging a put's source or writing get data or a fetched value.
std::atomic<uintptr_t> g_heap_lo{0}, g_heap_hi{0}, g_dev_lo{0}, g_dev_hi{0};
std::atomic<long> g_target_copies{0}, g_initiator_copies{0}, g_local_amos{0};

bool in_registered(const void *p) {
  const uintptr_t a = (uintptr_t)p;
  return (a >= g_heap_lo && a < g_heap_hi) || (a >= g_dev_lo && a < g_dev_hi);
}

int counting_copy(void *access, void *dst, const void *src, size_t bytes) {
  if (access != &g_target_copies) return GSHMEMX_ERROR_INTERNAL;  // the module passes it back
  (in_registered(dst) || in_registered(src) ? g_target_copies : g_initiator_copies)++;
  std::memcpy(dst, src, bytes);
  return GSHMEM_SUCCESS;
}

template <typename T>
T apply_amo(T *p, int op, T operand, T compare) {
  switch (op) {
    case GSHMEMI_TRANSPORT_AMO_ADD: return __atomic_fetch_add(p, operand, __ATOMIC_SEQ_CST);
    case GSHMEMI_TRANSPORT_AMO_AND: return __atomic_fetch_and(p, operand, __ATOMIC_SEQ_CST);
    case GSHMEMI_TRANSPORT_AMO_OR: return __atomic_fetch_or(p, operand, __ATOMIC_SEQ_CST);
    case GSHMEMI_TRANSPORT_AMO_XOR: return __atomic_fetch_xor(p, operand, __ATOMIC_SEQ_CST);
    case GSHMEMI_TRANSPORT_AMO_SWAP: return __atomic_exchange_n(p, operand, __ATOMIC_SEQ_CST);
    case GSHMEMI_TRANSPORT_AMO_CSWAP:
      __atomic_compare_exchange_n(p, &compare, operand, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
      return compare;
    default: return __atomic_load_n(p, __ATOMIC_SEQ_CST);
  }
}

int counting_amo(void *access, void *address, int op, int width, uint64_t operand, uint64_t compare, uint64_t *old) {
  if (access != &g_target_copies || !in_registered(address)) return GSHMEMX_ERROR_INTERNAL;
  ++g_local_amos;
  uint64_t o = width == 4 ? apply_amo(static_cast<uint32_t *>(address), op, (uint32_t)operand, (uint32_t)compare)
                          : apply_amo(static_cast<uint64_t *>(address), op, operand, compare);
  if (old) *old = o;
  return GSHMEM_SUCCESS;
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
  // One-sided mode: the GPU-kind region is host memory here, which a UCX
  // with CUDA support must not be asked to map as CUDA memory; it stays
  // with messages, as with a UCX without.
  args.flags = g_mode != Mode::one_sided ? GSHMEMI_TRANSPORT_OPEN_ACTIVE_MESSAGES : GSHMEMI_TRANSPORT_OPEN_DEVICE_MESSAGES;
  if (g_mode == Mode::messages) {
    args.local_access = &g_target_copies;
    args.local_copy = &counting_copy;
    args.local_amo = &counting_amo;
  }
  int rc = gshmemi::open_transport_plugin("ucx", args, &p.ops);
  if (rc != GSHMEM_SUCCESS) return rc;
  g_ops = &p.ops;
  p.heap = static_cast<unsigned char *>(std::aligned_alloc(4096, kHeap));
  p.dev = static_cast<unsigned char *>(std::aligned_alloc(4096, kDevBytes));
  std::memset(p.heap, 0, kHeap);
  std::memset(p.dev, 0, kDevBytes);
  g_heap_lo = (uintptr_t)p.heap;
  g_heap_hi = (uintptr_t)p.heap + kHeap;
  g_dev_lo = (uintptr_t)p.dev;
  g_dev_hi = (uintptr_t)p.dev + kDevBytes;
  rc = p.ops.register_memory(p.ops.context, 0, p.heap, kHeap, GSHMEMI_TRANSPORT_MEMORY_HOST);
  if (rc != GSHMEM_SUCCESS) return rc;
  return p.ops.register_memory(p.ops.context, kDev, p.dev, kDevBytes, GSHMEMI_TRANSPORT_MEMORY_DEVICE);
}

// Closes the module; word0: where to put word(0) as it is once close
// returned (before the heap is freed), or NULL.
// The bootstrap no longer progresses the module here, as the runtime's
// bootstrap never does: close must serve its peers by itself.
int close_module(Pe &p, uint64_t *word0 = nullptr) {
  g_ops = nullptr;
  const int rc = p.ops.close(p.ops.context);
  if (word0) *word0 = load_word(p, word(0));
  std::free(p.heap);
  std::free(p.dev);
  p.heap = p.dev = nullptr;
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

  // Both PEs in quiet at the same time, round after round, no barrier in
  // between: each must keep serving the other while it waits (with active
  // messages: apply its puts, answer its gets, atomics and flushes).
  constexpr size_t kBlock = 4096;
  constexpr int kRounds = 300;
  constexpr uint64_t kPutArea = kData, kGetArea = kData + 65536;
  for (size_t i = 0; i < kBlock; ++i) p.heap[kGetArea + i] = pattern(me, i, 7777);
  std::memset(p.heap + kPutArea, 0, kBlock);
  __atomic_store_n(reinterpret_cast<uint64_t *>(p.heap + word(5)), 0, __ATOMIC_RELEASE);
  EXPECT(sock_barrier(&p.boot) == 0, "barrier");
  std::vector<unsigned char> mine(kBlock), back(kBlock);
  const auto start = Clock::now();
  size_t wrong_gets = 0;
  for (int round = 1; round <= kRounds; ++round) {
    for (size_t i = 0; i < kBlock; ++i) mine[i] = pattern(me, i, (size_t)round + 5000);
    std::fill(back.begin(), back.end(), 0);
    EXPECT(p.ops.put(p.ops.context, p.peer, kPutArea, mine.data(), kBlock) == 0, "put");
    EXPECT(p.ops.get(p.ops.context, p.peer, back.data(), kGetArea + (uint64_t)round, kBlock - 512) == 0, "get");
    EXPECT(p.ops.amo(p.ops.context, p.peer, word(5), GSHMEMI_TRANSPORT_AMO_ADD, 8, 1, 0, nullptr) == 0, "add");
    EXPECT(p.ops.quiet(p.ops.context) == 0, "quiet at once, round %d", round);
    for (size_t i = 0; i < kBlock - 512; ++i) wrong_gets += back[i] != pattern(p.peer, i + (size_t)round, 7777);
  }
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  std::fprintf(stderr, "PE %d: %d rounds of put, get, add, quiet with the peer doing the same: %.2f s\n", me, kRounds,
               seconds);
  EXPECT(wrong_gets == 0, "%zu bytes of gets wrong", wrong_gets);
  EXPECT(seconds < 20, "both PEs quieting at once took %.1f s", seconds);
  EXPECT(sock_barrier(&p.boot) == 0, "barrier");
  size_t bad = 0;
  for (size_t i = 0; i < kBlock; ++i) bad += p.heap[kPutArea + i] != pattern(p.peer, i, (size_t)kRounds + 5000);
  EXPECT(bad == 0, "%zu bytes of the last put missing", bad);
  EXPECT(load_word(p, word(5)) == (uint64_t)kRounds, "adds: %llu", (unsigned long long)load_word(p, word(5)));
  EXPECT(sock_barrier(&p.boot) == 0, "barrier");
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

  // Fetching adds on ONE word from both PEs at once: PE 1 remotely, PE 0
  // (its owner) with host atomics on a thread of its own, as kernels do
  // while the proxy serves PE 1 (here: this thread, progressing), until PE 1
  // signals that it is done. Every fetched value, from both sides together,
  // once; the total exact.
  {
    constexpr int kRemote = 1000;
    constexpr size_t kLocalMax = 1u << 20;
    std::vector<uint64_t> got(kRemote, ~0ull), both(2 * kRemote), local;
    EXPECT(sock_barrier(&p.boot) == 0, "barrier");
    if (me == 1) {
      for (int i = 0; i < kRemote; ++i) {
        EXPECT(p.ops.amo(p.ops.context, 0, word(20), GSHMEMI_TRANSPORT_AMO_ADD, 8, 1, 0, &got[(size_t)i]) == 0, "fadd");
        if (i % 50 == 49) EXPECT(p.ops.quiet(p.ops.context) == 0, "quiet");
      }
      EXPECT(p.ops.quiet(p.ops.context) == 0, "quiet");
      EXPECT(p.ops.signal(p.ops.context, 0, word(21), GSHMEM_SIGNAL_SET, 1) == 0, "done");
    } else {
      local.reserve(kLocalMax);
      std::thread owner([&] {
        while (load_word(p, word(21)) == 0 && local.size() < kLocalMax) {
          local.push_back(__atomic_fetch_add(reinterpret_cast<uint64_t *>(p.heap + word(20)), 1, __ATOMIC_SEQ_CST));
          for (volatile int spin = 0; spin < 2000; ++spin) {
          }
        }
      });
      EXPECT(wait_word(p, word(21), 1), "PE 1 never said it was done");
      owner.join();
    }
    EXPECT(p.ops.quiet(p.ops.context) == 0, "quiet");
    EXPECT(sock_allgather(&p.boot, got.data(), both.data(), got.size() * sizeof(uint64_t)) == 0, "gathering");
    if (me == 0) {
      // PE 1's values and mine, together: 0 .. n-1, each once.
      std::vector<uint64_t> all(local);
      all.insert(all.end(), both.begin() + kRemote, both.end());
      const uint64_t n = all.size();
      std::sort(all.begin(), all.end());
      bool each_once = true;
      for (uint64_t k = 0; k < n; ++k) each_once = each_once && all[k] == k;
      const long interleaved = local.empty() ? 0 : std::count_if(both.begin() + kRemote, both.end(), [&](uint64_t v) {
        return v > local.front() && v < local.back();
      });
      std::fprintf(stderr, "fetch-adds on one word: %zu local, %d remote, %ld of those among the local ones\n",
                   local.size(), kRemote, interleaved);
      EXPECT(each_once, "fetch-adds on one word from both PEs: the %llu fetched values are not 0 .. %llu each once",
             (unsigned long long)n, (unsigned long long)n - 1);
      EXPECT(load_word(p, word(20)) == n, "shared counter %llu, not %llu", (unsigned long long)load_word(p, word(20)),
             (unsigned long long)n);
    }
  }

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
  EXPECT(p.ops.put(p.ops.context, p.peer, kExtra, &f, 8) == GSHMEMX_ERROR_NOT_SYMMETRIC, "put past the regions");
  EXPECT(p.ops.put(p.ops.context, p.peer, kHeap - 4, &f, 8) == GSHMEMX_ERROR_INVALID_VALUE, "put across the end");
  EXPECT(p.ops.amo(p.ops.context, p.peer, kDev + 4, GSHMEMI_TRANSPORT_AMO_ADD, 8, 1, 0, &f) == GSHMEMX_ERROR_MISALIGNED,
         "misaligned in the GPU-kind region");
  std::vector<unsigned char> extra(8192);
  EXPECT(p.ops.register_memory(p.ops.context, kHeap - 4096, extra.data(), extra.size(), GSHMEMI_TRANSPORT_MEMORY_HOST) ==
             GSHMEMX_ERROR_INVALID_VALUE,
         "an overlapping region");
  // The GPU-kind region (reached with messages in every mode): atomics of
  // both widths and a put, next to the heap's.
  uint64_t d1 = 1, d2 = 1;
  uint32_t d3 = 1;
  const uint64_t dv = 0x1122334455667788ull + (uint64_t)me;
  EXPECT(p.ops.amo(p.ops.context, p.peer, kDev + 8, GSHMEMI_TRANSPORT_AMO_ADD, 8, 5, 0, &d1) == 0, "amo in the GPU-kind region");
  EXPECT(p.ops.amo(p.ops.context, p.peer, kDev + 8, GSHMEMI_TRANSPORT_AMO_CSWAP, 8, 9, 5, &d2) == 0, "cswap there");
  EXPECT(p.ops.amo(p.ops.context, p.peer, kDev + 16, GSHMEMI_TRANSPORT_AMO_XOR, 4, 6, 0, &d3) == 0, "32-bit xor there");
  EXPECT(p.ops.put(p.ops.context, p.peer, kDev + 24, &dv, 8) == 0, "put there");
  EXPECT(p.ops.quiet(p.ops.context) == 0, "quiet");
  EXPECT(d1 == 0 && d2 == 5 && d3 == 0, "GPU-kind region fetched %llu %llu %u", (unsigned long long)d1,
         (unsigned long long)d2, d3);
  EXPECT(sock_barrier(&p.boot) == 0, "barrier");
  uint64_t dw = 0, dp = 0;
  uint32_t dx = 0;
  std::memcpy(&dw, p.dev + 8, 8);
  std::memcpy(&dx, p.dev + 16, 4);
  std::memcpy(&dp, p.dev + 24, 8);
  EXPECT(dw == 9 && dx == 6 && dp == 0x1122334455667788ull + (uint64_t)p.peer, "GPU-kind region holds %llu %u %llx",
         (unsigned long long)dw, dx, (unsigned long long)dp);
  // a second region, registered and used, then deregistered (collective)
  EXPECT(p.ops.register_memory(p.ops.context, kExtra, extra.data(), extra.size(), GSHMEMI_TRANSPORT_MEMORY_HOST) == 0,
         "a second region");
  const uint64_t v = 0xABCDEF0123456789ull + (uint64_t)me;
  EXPECT(p.ops.put(p.ops.context, p.peer, kExtra + 8, &v, 8) == 0, "put into the second region");
  EXPECT(p.ops.quiet(p.ops.context) == 0, "quiet");
  EXPECT(sock_barrier(&p.boot) == 0, "barrier");
  uint64_t got = 0;
  std::memcpy(&got, extra.data() + 8, 8);
  EXPECT(got == 0xABCDEF0123456789ull + (uint64_t)p.peer, "second region holds %llx", (unsigned long long)got);
  EXPECT(p.ops.deregister_memory(p.ops.context, kExtra) == 0, "deregister");
  EXPECT(p.ops.put(p.ops.context, p.peer, kExtra + 8, &v, 8) == GSHMEMX_ERROR_NOT_SYMMETRIC, "put after deregister");
  EXPECT(p.ops.quiet(p.ops.context) == 0, "quiet after refused requests");
  EXPECT(sock_barrier(&p.boot) == 0, "barrier");
}

// Message passing: PE 0 puts a block, fences, signals; PE 1 polls the signal,
// then must find the block of that round; it answers with a signal of its
// own. SET and ADD signals alternate. Every other round the block goes to
// the GPU-kind region (messages) while the signal stays on the heap: in the
// one-sided mode the fence must then order a message before a one-sided
// atomic. With active messages for everything, every third round has no
// fence: messages to one PE are applied in issue order anyway.
void case_signal(Pe &p) {
  const int me = p.boot.rank;
  g_progress_events = 0;
  const int kRounds = g_mode == Mode::messages_null_access ? 1000 : 3000;
  constexpr size_t kBlock = 512;
  std::vector<unsigned char> block(kBlock);
  int violations = 0, timeouts = 0;
  for (int round = 1; round <= kRounds && timeouts == 0; ++round) {
    const int op = round % 2 ? GSHMEM_SIGNAL_SET : GSHMEM_SIGNAL_ADD;
    const uint64_t value = op == GSHMEM_SIGNAL_SET ? (uint64_t)round : 1;  // ADD: round-1 + 1
    if (me == 0) {
      for (size_t i = 0; i < kBlock; ++i) block[i] = pattern(0, i, (size_t)round);
      EXPECT(p.ops.put(p.ops.context, 1, round % 4 < 2 ? kData : kDev, block.data(), kBlock) == 0, "put");
      if (g_mode == Mode::one_sided || round % 3 != 0) EXPECT(p.ops.fence(p.ops.context, 1) == 0, "fence");
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
      const unsigned char *landed = round % 4 < 2 ? p.heap + kData : p.dev;
      for (size_t i = 0; i < kBlock; ++i) bad += landed[i] != pattern(0, i, (size_t)round);
      violations += bad != 0;
      EXPECT(p.ops.signal(p.ops.context, 0, word(1), op, value) == 0, "ack");
      EXPECT(p.ops.quiet(p.ops.context) == 0, "quiet");
    }
  }
  EXPECT(violations == 0, "%d of %d rounds found the signal before the data", violations, kRounds);
  EXPECT(timeouts == 0, "a signal did not arrive within 10 s");
  // Half the blocks reach PE 1 as messages (the GPU-kind region), which its
  // progress handles: the proxy keeps polling on that count.
  if (me == 1) EXPECT(g_progress_events > 0, "progress reported no event while the peer's messages arrived");
  EXPECT(sock_barrier(&p.boot) == 0, "barrier");
}

// PE 1 stops serving (no more progress), then is killed (SIGKILL) while PE 0
// has puts outstanding and waits for replies (gets, fetching atomics): PE 0's
// quiet (or a later request) must fail with GSHMEMX_ERROR_PEER_LOST within
// seconds. with_monitor: the runtime's liveness monitor (peer_lost) reports
// it; else UCX must find it alone.
void case_lost(Pe &p, bool with_monitor) {
  EXPECT(sock_barrier(&p.boot) == 0, "barrier");
  if (p.boot.rank == 1) {
    // Serve the peer until told to stop (a byte on the socket), then wait to be killed.
    for (;;) {
      (void)p.ops.progress(p.ops.context);
      pollfd pfd{p.boot.fd, POLLIN, 0};
      if (::poll(&pfd, 1, 0) > 0) break;
      std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
    for (;;) ::pause();
  }
  std::vector<unsigned char> src(65536, 0x5A), dst(65536 * 4);
  uint64_t fetched[8];
  for (int i = 0; i < 50; ++i) EXPECT(p.ops.put(p.ops.context, 1, kData, src.data(), src.size()) == 0, "put before");
  EXPECT(p.ops.quiet(p.ops.context) == 0, "quiet before the kill");
  const char stop = 1;
  EXPECT(write_all(p.boot.fd, &stop, 1) == 0, "telling PE 1 to stop serving");
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  // Outstanding when the peer dies: puts, and (PE 1 serving no more) the
  // replies of gets and fetching atomics. Within the module's in-flight
  // bound, so that none of these calls waits for PE 1.
  for (int i = 0; i < 10; ++i) (void)p.ops.put(p.ops.context, 1, kData, src.data(), src.size());
  for (int i = 0; i < 4; ++i) (void)p.ops.get(p.ops.context, 1, dst.data() + 65536 * (size_t)i, kData, 65536);
  for (uint64_t &f : fetched) (void)p.ops.amo(p.ops.context, 1, word(1), GSHMEMI_TRANSPORT_AMO_ADD, 8, 1, 0, &f);
  ::kill(p.child, SIGKILL);
  int status = 0;
  ::waitpid(p.child, &status, 0);
  p.child = 0;
  if (with_monitor) g_monitor_lost = 2;  // 1 + PE 1
  const auto start = Clock::now();
  int rc = p.ops.quiet(p.ops.context);  // waits for those replies: must end
  int iterations = 1;
  while (rc == GSHMEM_SUCCESS && Clock::now() - start < std::chrono::seconds(15)) {
    ++iterations;
    rc = p.ops.put(p.ops.context, 1, kData, src.data(), src.size());
    if (rc == GSHMEM_SUCCESS) rc = p.ops.amo(p.ops.context, 1, word(1), GSHMEMI_TRANSPORT_AMO_ADD, 8, 1, 0, nullptr);
    if (rc == GSHMEM_SUCCESS) rc = p.ops.amo(p.ops.context, 1, word(1), GSHMEMI_TRANSPORT_AMO_ADD, 8, 1, 0, fetched);
    if (rc == GSHMEM_SUCCESS) rc = p.ops.get(p.ops.context, 1, dst.data(), kData, 65536);
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
// thread drains into the module (put_signal, inline puts of contiguous
// words in descending order, which the proxy coalesces where they share a
// pass, a fetching atomic), waited for with the queue's completion; PE 1 polls the signal,
// checks the data and answers. PE 0's worker is progressed by the proxy
// thread alone while it runs (its idle passes), which is what lets PE 1's
// answers land.
void case_proxy(Pe &p) {
  namespace gd = gshmem::detail;
  const int kRounds = g_mode == Mode::one_sided ? 2000 : 500;  // fewer where the other cases cover the mode
  constexpr size_t kBlock = 256;
  constexpr int kInline = 16;  // inline puts a round, to kData + kBlock + 8 k
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
      for (int k = kInline - 1; k >= 0; --k) {
        r = gd::proxy_request{};
        r.op = gd::proxy_op_put_inline;
        r.pe = 1;
        r.bytes = 8;
        r.remote = kData + kBlock + 8u * (uint64_t)k;
        r.value = (unsigned long long)round * 3 + (unsigned long long)k;
        EXPECT(gd::proxy_issue(q, r), "issue put_inline");
      }
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
    EXPECT(proxy.consumed() == (2ull + kInline) * kRounds, "the proxy consumed %llu requests", proxy.consumed());
    // Shown, not asserted: how many passes saw several of a round's puts.
    std::fprintf(stderr, "PE 0: %llu transport puts, %llu put requests coalesced\n",
                 proxy.timings().transport_puts, proxy.timings().puts_coalesced);
  } else {
    for (int round = 1; round <= kRounds; ++round) {
      if (!wait_word(p, word(0), (uint64_t)round)) {
        ++timeouts;
        break;
      }
      size_t bad = 0;
      for (size_t i = 0; i < kBlock; ++i) bad += p.heap[kData + i] != pattern(0, i, (size_t)round);
      for (int k = 0; k < kInline; ++k)
        bad += load_word(p, kData + kBlock + 8u * (uint64_t)k) != (uint64_t)round * 3 + (uint64_t)k;
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

// PE 0 sends one-way signals to PE 1 and both close at once, with no quiet
// or barrier of their own before: PE 1 has nothing to flush, so it reaches
// close's barrier first and must go on serving PE 0 there (PE 0's quiet in
// close waits for PE 1 to apply the signals). A barrier that does not
// progress the worker hangs both PEs (a finalize hang seen on GPUs with
// every peer remote). After close PE 1's word holds the last signal.
constexpr uint64_t kCloseRaceSignals = 200;
void case_close_race(Pe &p) {
  EXPECT(sock_barrier(&p.boot) == 0, "barrier");
  if (p.boot.rank == 0)
    for (uint64_t v = 1; v <= kCloseRaceSignals; ++v)
      EXPECT(p.ops.signal(p.ops.context, 1, word(0), GSHMEM_SIGNAL_SET, v) == 0, "signal %llu", (unsigned long long)v);
}

enum class Case { rma, amo, signal, proxy, lost, lost_monitor, close_race };

// With the counting local_copy / local_amo, the module must have used them
// where this PE was the target (applying puts and signals, serving gets and
// atomics) and where it was the initiator (staging put sources, writing get
// data and fetched values); in the other modes nothing calls them.
void check_local_access(const Pe &p, Case c) {
  const long target = g_target_copies, initiator = g_initiator_copies, amos = g_local_amos;
  std::fprintf(stderr, "PE %d (%s): local_copy %ld as target, %ld as initiator; local_amo %ld\n", p.boot.rank,
               mode_name(g_mode), target, initiator, amos);
  if (g_mode != Mode::messages) {
    EXPECT(target == 0 && initiator == 0 && amos == 0, "local access called without being given");
    return;
  }
  const bool pe0 = p.boot.rank == 0;
  switch (c) {
    case Case::rma:
    case Case::amo:  // both PEs are initiator and target
      EXPECT(target > 0 && initiator > 0, "local_copy: %ld as target, %ld as initiator", target, initiator);
      if (c == Case::amo || !pe0) EXPECT(amos > 0, "local_amo never called");
      break;
    case Case::signal:
    case Case::proxy:  // PE 0 sends data, PE 1 applies it; both apply signals
      if (pe0) EXPECT(initiator > 0, "local_copy never staged a put");
      else EXPECT(target > 0, "local_copy never applied a put");
      EXPECT(amos > 0, "local_amo never applied a signal");
      break;
    case Case::lost:
    case Case::lost_monitor:
      EXPECT(initiator > 0, "local_copy never staged a put");
      break;
    case Case::close_race:
      if (!pe0) EXPECT(amos > 0, "local_amo never applied a signal");
      break;
  }
}

// Which path the module says the case's operations took (ops.stats): in
// one-sided mode the heap's operations are one-sided and the GPU-kind
// region's messages; in the message modes every operation is a message.
void check_paths(const Pe &p, Case c) {
  gshmemi_transport_stats_t s{};
  EXPECT(p.ops.stats != nullptr && p.ops.stats(p.ops.context, &s) == 0, "the module reports no path counts");
  std::fprintf(stderr,
               "PE %d (%s): puts %llu one-sided / %llu messages, gets %llu / %llu, atomics %llu / %llu, signals "
               "%llu / %llu; %llu messages applied\n",
               p.boot.rank, mode_name(g_mode), s.puts_one_sided, s.puts_messages, s.gets_one_sided, s.gets_messages,
               s.atomics_one_sided, s.atomics_messages, s.signals_one_sided, s.signals_messages, s.messages_applied);
  const bool one_sided = g_mode == Mode::one_sided;
  if (c == Case::rma) {  // the heap only, both PEs put, get and signal
    EXPECT((one_sided ? s.puts_one_sided : s.puts_messages) > 0 && (one_sided ? s.puts_messages : s.puts_one_sided) == 0,
           "rma: puts %llu one-sided, %llu messages", s.puts_one_sided, s.puts_messages);
    EXPECT((one_sided ? s.gets_one_sided : s.gets_messages) > 0 && (one_sided ? s.gets_messages : s.gets_one_sided) == 0,
           "rma: gets %llu one-sided, %llu messages", s.gets_one_sided, s.gets_messages);
    // Signals are atomics on host memory: one-sided where UCX has a protocol
    // for them (not 1.22: the module then sends them as messages).
    EXPECT(s.signals_one_sided + s.signals_messages > 0, "rma: no signal counted");
    // The case is symmetric: what this PE sent as messages, its peer sent it.
    EXPECT(one_sided ? s.messages_applied == s.signals_messages + s.atomics_messages : s.messages_applied > 0,
           "rma: %llu messages applied (%llu signals, %llu atomics as messages)", s.messages_applied,
           s.signals_messages, s.atomics_messages);
  } else if (c == Case::amo) {  // the heap and the GPU-kind region
    EXPECT(s.atomics_messages > 0, "amo: no atomic on the GPU-kind region went as a message");
    EXPECT(one_sided || s.atomics_one_sided == 0, "amo: %llu one-sided atomics with every operation a message",
           s.atomics_one_sided);
  }
}

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
    case Case::close_race: case_close_race(p); break;
  }
  check_paths(p, c);
  uint64_t word0_after_close = 0;
  const int crc = close_module(p, &word0_after_close);
  if (c != Case::lost && c != Case::lost_monitor) EXPECT(crc == 0, "close: %d", crc);
  if (c == Case::close_race && p.boot.rank == 1)
    EXPECT(word0_after_close == kCloseRaceSignals, "after close the signal word holds %llu, not %llu",
           (unsigned long long)word0_after_close, (unsigned long long)kCloseRaceSignals);
  check_local_access(p, c);
}

// Forks PE 1, runs PE 0 here; both must pass (PE 1 is expected to die by
// SIGKILL in the lost cases).
void run_two(Case c, Mode mode = Mode::one_sided) {
  g_mode = mode;
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
TEST_CASE("ucx transport: one-way signals, then both PEs close at once", "[close_race]") { run_two(Case::close_race); }

// Active messages for every region (the staged path GPU memory takes), with
// counting local_copy / local_amo.
TEST_CASE("ucx transport, active messages: put and get, pieces and reassembly, quiet", "[am_rma]") {
  run_two(Case::rma, Mode::messages);
}
TEST_CASE("ucx transport, active messages: atomics with exact results", "[am_amo]") { run_two(Case::amo, Mode::messages); }
TEST_CASE("ucx transport, active messages: the signal after the data", "[am_signal]") {
  run_two(Case::signal, Mode::messages);
}
TEST_CASE("ucx transport, active messages: through the proxy thread", "[am_proxy]") {
  run_two(Case::proxy, Mode::messages);
}
TEST_CASE("ucx transport, active messages: a killed peer with replies outstanding", "[am_lost]") {
  run_two(Case::lost, Mode::messages);
}
TEST_CASE("ucx transport, active messages: one-way signals, then both PEs close at once", "[am_close_race]") {
  run_two(Case::close_race, Mode::messages);
}
TEST_CASE("ucx transport, active messages: a killed peer reported by the monitor", "[am_lost_monitor]") {
  run_two(Case::lost_monitor, Mode::messages);
}
// The same without local access functions: memcpy and host atomics.
TEST_CASE("ucx transport, active messages, no local access: put and get", "[am_null_rma]") {
  run_two(Case::rma, Mode::messages_null_access);
}
TEST_CASE("ucx transport, active messages, no local access: atomics", "[am_null_amo]") {
  run_two(Case::amo, Mode::messages_null_access);
}
TEST_CASE("ucx transport, active messages, no local access: the signal after the data", "[am_null_signal]") {
  run_two(Case::signal, Mode::messages_null_access);
}
