// Sized (putSIZE / getSIZE) and strided (iput / iget) RMA on 2 or more PEs
// (one GPU each), under mpirun: device forms by one thread, a warp and a
// block, host forms and on-stream forms, against a host reference.
//
// Each PE's heap buffer starts as its own byte pattern (iget reads the
// right neighbour's) or zero (iput writes the right neighbour's); after a
// barrier every byte is compared with the element-wise definition
// dest[i * dst] = source[i * sst], so stray writes show too. Only CHECK
// between collective calls, so a failing PE still reaches every barrier.
#include <gshmem/gshmem.h>
#include <gshmem/gshmemx.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "catch.hpp"
#include "gpu_test_support.h"

namespace {

constexpr size_t kBuf = (1u << 20) + 4096;  // bytes per buffer, the element bases in the middle
constexpr size_t kMid = kBuf / 2;           // 16-byte aligned

unsigned char pattern(int pe, size_t i) { return static_cast<unsigned char>(pe * 59 + i * 13 + 5); }

enum Group { kThread = 0, kWarp = 1, kBlock = 2 };

// Sized contiguous put or get of `nelems` elements of `bits` bits.
__global__ void sized_kernel(int get, int bits, int group, int nbi, void *dest, const void *src, size_t n, int pe) {
#define SIZED_CASE(SIZE, BYTES)                                                                             \
  case SIZE:                                                                                                \
    if (group == kThread) {                                                                                 \
      if (threadIdx.x != 0) return;                                                                         \
      if (get) nbi ? gshmem_get##SIZE##_nbi(dest, src, n, pe) : gshmem_get##SIZE(dest, src, n, pe);        \
      else nbi ? gshmem_put##SIZE##_nbi(dest, src, n, pe) : gshmem_put##SIZE(dest, src, n, pe);            \
    } else if (group == kWarp) {                                                                            \
      if (threadIdx.x >= 32) return;                                                                        \
      if (get) nbi ? gshmemx_get##SIZE##_nbi_warp(dest, src, n, pe) : gshmemx_get##SIZE##_warp(dest, src, n, pe); \
      else nbi ? gshmemx_put##SIZE##_nbi_warp(dest, src, n, pe) : gshmemx_put##SIZE##_warp(dest, src, n, pe); \
    } else {                                                                                                \
      if (get) nbi ? gshmemx_get##SIZE##_nbi_block(dest, src, n, pe) : gshmemx_get##SIZE##_block(dest, src, n, pe); \
      else nbi ? gshmemx_put##SIZE##_nbi_block(dest, src, n, pe) : gshmemx_put##SIZE##_block(dest, src, n, pe); \
    }                                                                                                       \
    break;
  switch (bits) { GSHMEM_FOR_EACH_RMA_SIZE(SIZED_CASE) }
#undef SIZED_CASE
  if (!get) gshmem_quiet();
}

// Strided put or get through the sized names (every element size), or,
// typed != 0, through the per-type names of the same size (int32, double).
__global__ void strided_kernel(int get, int bits, int group, int typed, void *dest, const void *src, ptrdiff_t dst,
                               ptrdiff_t sst, size_t n, int pe) {
  if (group == kThread && threadIdx.x != 0) return;
  if (group == kWarp && threadIdx.x >= 32) return;
  if (typed && bits == 32) {
    int32_t *d = static_cast<int32_t *>(dest);
    const int32_t *s = static_cast<const int32_t *>(src);
    if (group == kThread) get ? gshmem_int32_iget(d, s, dst, sst, n, pe) : gshmem_int32_iput(d, s, dst, sst, n, pe);
    if (group == kWarp) get ? gshmemx_int32_iget_warp(d, s, dst, sst, n, pe) : gshmemx_int32_iput_warp(d, s, dst, sst, n, pe);
    if (group == kBlock) get ? gshmemx_int32_iget_block(d, s, dst, sst, n, pe) : gshmemx_int32_iput_block(d, s, dst, sst, n, pe);
  } else if (typed && bits == 64) {
    double *d = static_cast<double *>(dest);
    const double *s = static_cast<const double *>(src);
    if (group == kThread) get ? gshmem_double_iget(d, s, dst, sst, n, pe) : gshmem_double_iput(d, s, dst, sst, n, pe);
    if (group == kWarp) get ? gshmemx_double_iget_warp(d, s, dst, sst, n, pe) : gshmemx_double_iput_warp(d, s, dst, sst, n, pe);
    if (group == kBlock) get ? gshmemx_double_iget_block(d, s, dst, sst, n, pe) : gshmemx_double_iput_block(d, s, dst, sst, n, pe);
  } else {
#define STRIDED_CASE(SIZE, BYTES)                                                                           \
  case SIZE:                                                                                                \
    if (group == kThread) get ? gshmem_iget##SIZE(dest, src, dst, sst, n, pe) : gshmem_iput##SIZE(dest, src, dst, sst, n, pe); \
    if (group == kWarp) get ? gshmemx_iget##SIZE##_warp(dest, src, dst, sst, n, pe) : gshmemx_iput##SIZE##_warp(dest, src, dst, sst, n, pe); \
    if (group == kBlock) get ? gshmemx_iget##SIZE##_block(dest, src, dst, sst, n, pe) : gshmemx_iput##SIZE##_block(dest, src, dst, sst, n, pe); \
    break;
    switch (bits) { GSHMEM_FOR_EACH_RMA_SIZE(STRIDED_CASE) }
#undef STRIDED_CASE
  }
  if (!get) gshmem_quiet();
}

bool ensure_init() {
  return gshmem_test::init_once({reinterpret_cast<const void *>(&sized_kernel),
                                 reinterpret_cast<const void *>(&strided_kernel)});
}

std::vector<unsigned char> read_device(const void *p, size_t n) {
  std::vector<unsigned char> out(n);
  GSHMEM_TEST_CUDA(cudaMemcpy(out.data(), p, n, cudaMemcpyDeviceToHost));
  return out;
}

// The whole buffer as the element-wise definition leaves it: `before`,
// with element i (bytes bytes) of the source pattern of `src_pe` copied
// from offset kMid + i*sst*bytes to kMid + i*dst*bytes.
std::vector<unsigned char> reference(const std::vector<unsigned char> &before, int src_pe, size_t bytes,
                                     ptrdiff_t dst, ptrdiff_t sst, size_t n) {
  std::vector<unsigned char> want = before;
  for (size_t i = 0; i < n; ++i)
    for (size_t b = 0; b < bytes; ++b)
      want[kMid + (ptrdiff_t)i * dst * (ptrdiff_t)bytes + b] = pattern(src_pe, kMid + (ptrdiff_t)i * sst * (ptrdiff_t)bytes + b);
  return want;
}

size_t differing(const std::vector<unsigned char> &a, const std::vector<unsigned char> &b) {
  size_t bad = 0;
  for (size_t i = 0; i < a.size(); ++i) bad += a[i] != b[i];
  return bad;
}

struct Buffers {
  unsigned char *sym = nullptr, *local = nullptr;
  std::vector<unsigned char> mine, zeros;
  int me = 0, right = 0, left = 0;
  bool setup() {
    me = gshmem_my_pe();
    const int n = gshmem_n_pes();
    right = (me + 1) % n;
    left = (me + n - 1) % n;
    sym = static_cast<unsigned char *>(gshmem_malloc(kBuf));
    if (cudaMalloc(&local, kBuf) != cudaSuccess) local = nullptr;
    mine.resize(kBuf);
    zeros.assign(kBuf, 0);
    for (size_t i = 0; i < kBuf; ++i) mine[i] = pattern(me, i);
    return sym != nullptr && local != nullptr;
  }
  // Before a put: this PE's heap zero, its local source its pattern.
  // Before a get: the heap its pattern, the local destination zero.
  void reset(bool get) {
    GSHMEM_TEST_CUDA(cudaMemcpy(sym, get ? mine.data() : zeros.data(), kBuf, cudaMemcpyHostToDevice));
    GSHMEM_TEST_CUDA(cudaMemcpy(local, get ? zeros.data() : mine.data(), kBuf, cudaMemcpyHostToDevice));
    GSHMEM_TEST_CUDA(cudaDeviceSynchronize());
    gshmem_barrier_all();
  }
  ~Buffers() {
    gshmem_barrier_all();
    if (local) cudaFree(local);
    if (sym) gshmem_free(sym);
  }
};

const size_t kCounts[] = {0, 1, 2, 3, 33, 1000, 20000};
const unsigned kBits[] = {8, 16, 32, 64, 128};

}  // namespace

TEST_CASE("device putSIZE / getSIZE, blocking and nbi, thread / warp / block, every size and length") {
  REQUIRE(ensure_init());
  REQUIRE(gshmem_n_pes() >= 2);
  Buffers b;
  REQUIRE(b.setup());
  for (int get = 0; get < 2; ++get)
    for (unsigned bits : kBits)
      for (int group = 0; group < 3; ++group)
        for (size_t n : kCounts) {
          const size_t bytes = bits / 8;
          if ((n * bytes) > kMid) continue;
          INFO((get ? "get" : "put") << bits << " group " << group << " nelems " << n);
          b.reset(get != 0);
          const int nbi = (int)(n % 2);
          if (get)
            sized_kernel<<<1, 128>>>(1, bits, group, nbi, b.local + kMid, b.sym + kMid, n, b.right);
          else
            sized_kernel<<<1, 128>>>(0, bits, group, nbi, b.sym + kMid, b.local + kMid, n, b.right);
          GSHMEM_TEST_CUDA(cudaDeviceSynchronize());
          gshmem_barrier_all();
          if (get) CHECK(differing(read_device(b.local, kBuf), reference(b.zeros, b.right, bytes, 1, 1, n)) == 0);
          else CHECK(differing(read_device(b.sym, kBuf), reference(b.zeros, b.left, bytes, 1, 1, n)) == 0);
        }
}

TEST_CASE("device iput / iget: sized and typed, thread / warp / block, odd, unit, zero and negative strides") {
  REQUIRE(ensure_init());
  REQUIRE(gshmem_n_pes() >= 2);
  Buffers b;
  REQUIRE(b.setup());
  const ptrdiff_t strides[][2] = {{1, 1}, {3, 1}, {1, 7}, {5, 3}, {-3, 2}, {2, -1}, {0, 1}};
  for (int get = 0; get < 2; ++get)
    for (unsigned bits : kBits)
      for (int typed = 0; typed < 2; ++typed) {
        if (typed && bits != 32 && bits != 64) continue;
        for (int group = 0; group < 3; ++group)
          for (const auto &s : strides)
            for (size_t n : kCounts) {
              const size_t bytes = bits / 8;
              const ptrdiff_t dst = s[0], sst = s[1];
              if (dst == 0 && n > 1 && group != kThread) continue;  // several threads on one element
              const size_t widest = (size_t)std::max(dst < 0 ? -dst : dst, sst < 0 ? -sst : sst);
              if (n > 0 && (n - 1) * widest * bytes + bytes > kMid) continue;  // stays inside the buffers
              INFO((get ? "iget" : "iput") << bits << (typed ? " typed" : " sized") << " group " << group << " dst "
                                          << dst << " sst " << sst << " nelems " << n);
              b.reset(get != 0);
              if (get)
                strided_kernel<<<1, 128>>>(1, bits, group, typed, b.local + kMid, b.sym + kMid, dst, sst, n, b.right);
              else
                strided_kernel<<<1, 128>>>(0, bits, group, typed, b.sym + kMid, b.local + kMid, dst, sst, n, b.right);
              GSHMEM_TEST_CUDA(cudaDeviceSynchronize());
              gshmem_barrier_all();
              if (get)
                CHECK(differing(read_device(b.local, kBuf), reference(b.zeros, b.right, bytes, dst, sst, n)) == 0);
              else
                CHECK(differing(read_device(b.sym, kBuf), reference(b.zeros, b.left, bytes, dst, sst, n)) == 0);
            }
      }
}

TEST_CASE("host and on-stream iput / iget and putSIZE / getSIZE") {
  REQUIRE(ensure_init());
  REQUIRE(gshmem_n_pes() >= 2);
  Buffers b;
  REQUIRE(b.setup());
  cudaStream_t stream;
  GSHMEM_TEST_CUDA(cudaStreamCreate(&stream));
  const ptrdiff_t strides[][2] = {{1, 1}, {3, 1}, {1, 7}, {-2, 3}, {0, 1}};
  for (int form = 0; form < 2; ++form)  // 0 host, 1 on stream
    for (int get = 0; get < 2; ++get)
      for (const auto &s : strides)
        for (size_t n : {(size_t)0, (size_t)1, (size_t)5, (size_t)4099}) {
          const ptrdiff_t dst = s[0], sst = s[1];
          INFO((form ? "on-stream " : "host ") << (get ? "iget32" : "iput32") << " dst " << dst << " sst " << sst
                                              << " nelems " << n);
          b.reset(get != 0);
          unsigned char *sym = b.sym + kMid, *local = b.local + kMid;
          if (form == 0) {
            if (get) gshmem_iget32(local, sym, dst, sst, n, b.right);
            else gshmem_iput32(sym, local, dst, sst, n, b.right);
          } else {
            if (get) gshmemx_iget32_on_stream(local, sym, dst, sst, n, b.right, stream);
            else gshmemx_int32_iput_on_stream((int32_t *)sym, (const int32_t *)local, dst, sst, n, b.right, stream);
            GSHMEM_TEST_CUDA(cudaStreamSynchronize(stream));
          }
          CHECK(gshmemx_get_last_error() == GSHMEM_SUCCESS);
          gshmem_barrier_all();
          if (get) CHECK(differing(read_device(b.local, kBuf), reference(b.zeros, b.right, 4, dst, sst, n)) == 0);
          else CHECK(differing(read_device(b.sym, kBuf), reference(b.zeros, b.left, 4, dst, sst, n)) == 0);
        }
  // Sized contiguous on the host and on a stream: 128-bit elements.
  for (int get = 0; get < 2; ++get)
    for (int form = 0; form < 2; ++form) {
      INFO((form ? "on-stream " : "host ") << (get ? "get128" : "put128"));
      b.reset(get != 0);
      const size_t n = 3001;
      if (form == 0) get ? gshmem_get128(b.local + kMid, b.sym + kMid, n, b.right) : gshmem_put128(b.sym + kMid, b.local + kMid, n, b.right);
      else {
        get ? gshmemx_get128_on_stream(b.local + kMid, b.sym + kMid, n, b.right, stream)
            : gshmemx_put128_on_stream(b.sym + kMid, b.local + kMid, n, b.right, stream);
        GSHMEM_TEST_CUDA(cudaStreamSynchronize(stream));
      }
      gshmem_barrier_all();
      if (get) CHECK(differing(read_device(b.local, kBuf), reference(b.zeros, b.right, 16, 1, 1, n)) == 0);
      else CHECK(differing(read_device(b.sym, kBuf), reference(b.zeros, b.left, 16, 1, 1, n)) == 0);
    }
  // A strided span past the heap's end: refused, naming the routine's problem, nothing written.
  gshmem_iput64(b.sym + kMid, b.local, 1 << 30, 1, 4, b.right);
  CHECK(gshmemx_get_last_error() == GSHMEMX_ERROR_NOT_SYMMETRIC);
  GSHMEM_TEST_CUDA(cudaStreamDestroy(stream));
}
