// The compiled half of the Python package: thin wrappers over the C API of
// libgshmem. Addresses and streams cross this boundary as integers; every
// wrapper returns the library's status code (the routines without one report
// through gshmemx_get_last_error), and gshmem/__init__.py turns a nonzero
// code into gshmem.GshmemError. Argument checks that need Python types live
// there too; this file only adds what needs C++ (DLPack views, the type table).
#include <gshmem/gshmem.h>
#include <gshmem/gshmemx.h>

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <tuple>
#include <vector>

namespace nb = nanobind;

namespace {

using addr_t = std::uintptr_t;

template <typename T>
T *as_ptr(addr_t a) {
  return reinterpret_cast<T *>(a);
}
cudaStream_t as_stream(addr_t s) { return reinterpret_cast<cudaStream_t>(s); }

// The status of the last call that could not return one: cleared by the
// library at the start of every call, so reading it right after is exact.
int last() { return gshmemx_get_last_error(); }

// (status, id bytes): the bytes are empty unless the status is 0.
std::tuple<int, nb::bytes> get_unique_id() {
  gshmemx_uniqueid_t id = GSHMEMX_UNIQUEID_INITIALIZER;
  const int rc = gshmemx_get_uniqueid(&id);
  if (rc != GSHMEM_SUCCESS) return {rc, nb::bytes("", 0)};
  return {rc, nb::bytes(reinterpret_cast<const char *>(&id), sizeof(id))};
}

// Kept alive until finalize: the library reads the id during init only, but
// the contract says it must outlive init.
gshmemx_uniqueid_t g_id = GSHMEMX_UNIQUEID_INITIALIZER;

int init_unique_id(nb::bytes id, int rank, int nranks, size_t heap_size) {
  if (id.size() != sizeof(gshmemx_uniqueid_t)) return GSHMEMX_ERROR_INVALID_VALUE;
  std::memcpy(&g_id, id.c_str(), sizeof(g_id));
  gshmemx_init_attr_t attr = GSHMEMX_INIT_ATTR_INITIALIZER;
  int rc = gshmemx_set_attr_uniqueid_args(rank, nranks, &g_id, &attr);
  if (rc != GSHMEM_SUCCESS) return rc;
  attr.heap_size = heap_size;
  return gshmemx_init_attr(GSHMEMX_INIT_WITH_UNIQUEID, &attr);
}

// gshmem_init's own choice of bootstrap: MPI under mpirun, else one PE.
int init_default() { return gshmem_init(); }

int init_single(size_t heap_size) {
  gshmemx_init_attr_t attr = GSHMEMX_INIT_ATTR_INITIALIZER;
  attr.heap_size = heap_size;
  return gshmemx_init_attr(GSHMEMX_INIT_SINGLE_PE, &attr);
}

std::tuple<addr_t, int> malloc_(size_t bytes, bool zero) {
  void *p = zero ? gshmem_calloc(1, bytes) : gshmem_malloc(bytes);
  const int rc = last();
  return {reinterpret_cast<addr_t>(p), p == nullptr && rc == GSHMEM_SUCCESS ? GSHMEMX_ERROR_OUT_OF_MEMORY : rc};
}

int free_(addr_t p) {
  gshmem_free(as_ptr<void>(p));
  return last();
}

// The PEs agree on the blocks to free: each PE's (count, sum, xor) of the
// offsets it would free, reduced with min and max over all PEs through the
// symmetric scratch `scratch` (6 uint64 words: 3 source, 3 destination).
// Returns 1 when every PE holds the same set, 0 when not, or a negative code.
int agree_on_set(addr_t scratch, uint64_t count, uint64_t sum, uint64_t x) {
  uint64_t *s = as_ptr<uint64_t>(scratch);
  const uint64_t mine[3] = {count, sum, x};
  if (cudaMemcpy(s, mine, sizeof(mine), cudaMemcpyHostToDevice) != cudaSuccess) return GSHMEMX_ERROR_CUDA;
  int rc = gshmem_uint64_min_reduce(GSHMEM_TEAM_WORLD, s + 3, s, 3);
  if (rc != GSHMEM_SUCCESS) return rc;
  uint64_t lo[3];
  if (cudaMemcpy(lo, s + 3, sizeof(lo), cudaMemcpyDeviceToHost) != cudaSuccess) return GSHMEMX_ERROR_CUDA;
  rc = gshmem_uint64_max_reduce(GSHMEM_TEAM_WORLD, s + 3, s, 3);
  if (rc != GSHMEM_SUCCESS) return rc;
  uint64_t hi[3];
  if (cudaMemcpy(hi, s + 3, sizeof(hi), cudaMemcpyDeviceToHost) != cudaSuccess) return GSHMEMX_ERROR_CUDA;
  return std::memcmp(lo, hi, sizeof(lo)) == 0 ? 1 : 0;
}

// The description of any DLPack-capable object: (data address, shape,
// strides in elements, dtype code, bits, lanes, device type, device id).
using Description = std::tuple<addr_t, std::vector<int64_t>, std::vector<int64_t>, int, int, int, int, int>;
Description describe(nb::ndarray<nb::ro> a) {
  std::vector<int64_t> shape, strides;
  for (size_t i = 0; i < a.ndim(); ++i) {
    shape.push_back(static_cast<int64_t>(a.shape(i)));
    strides.push_back(a.stride(i));
  }
  const nb::dlpack::dtype dt = a.dtype();
  return {reinterpret_cast<addr_t>(a.data()), shape, strides, dt.code, dt.bits, dt.lanes, a.device_type(),
          a.device_id()};
}

// A CUDA tensor over `data` (row-major), kept alive by `owner`.
nb::object make_tensor(addr_t data, std::vector<size_t> shape, int code, int bits, int device_id, nb::handle owner) {
  nb::dlpack::dtype dt{};
  dt.code = static_cast<uint8_t>(code);
  dt.bits = static_cast<uint8_t>(bits);
  dt.lanes = 1;
  nb::ndarray<> a(as_ptr<void>(data), shape.size(), shape.data(), owner, nullptr, dt, nb::device::cuda::value,
                  device_id);
  return nb::cast(a, nb::rv_policy::reference);
}

int current_device() {
  int d = -1;
  return cudaGetDevice(&d) == cudaSuccess ? d : -1;
}

// Typed routines of the type table, looked up by TYPENAME.
struct WaitFns {
  void (*until)(void *, int, uint64_t, cudaStream_t);
  void (*all)(void *, size_t, const int *, int, uint64_t, cudaStream_t);
  void (*any)(void *, size_t, const int *, int, uint64_t, size_t *, cudaStream_t);
  void (*some)(void *, size_t, size_t *, const int *, int, uint64_t, size_t *, cudaStream_t);
};

#define GSHMEM_PY_WAITS(TYPENAME, TYPE)                                                                       \
  if (name == #TYPENAME)                                                                                      \
    return WaitFns{                                                                                           \
        [](void *iv, int cmp, uint64_t v, cudaStream_t s) {                                                   \
          gshmemx_##TYPENAME##_wait_until_on_stream(static_cast<TYPE *>(iv), cmp, static_cast<TYPE>(v), s);   \
        },                                                                                                    \
        [](void *iv, size_t n, const int *st, int cmp, uint64_t v, cudaStream_t s) {                          \
          gshmemx_##TYPENAME##_wait_until_all_on_stream(static_cast<TYPE *>(iv), n, st, cmp,                  \
                                                        static_cast<TYPE>(v), s);                             \
        },                                                                                                    \
        [](void *iv, size_t n, const int *st, int cmp, uint64_t v, size_t *r, cudaStream_t s) {               \
          gshmemx_##TYPENAME##_wait_until_any_on_stream(static_cast<TYPE *>(iv), n, st, cmp,                  \
                                                        static_cast<TYPE>(v), r, s);                          \
        },                                                                                                    \
        [](void *iv, size_t n, size_t *idx, const int *st, int cmp, uint64_t v, size_t *r, cudaStream_t s) {  \
          gshmemx_##TYPENAME##_wait_until_some_on_stream(static_cast<TYPE *>(iv), n, idx, st, cmp,            \
                                                         static_cast<TYPE>(v), r, s);                         \
        }};

bool wait_fns(const std::string &name, WaitFns *out) {
  auto find = [&]() -> WaitFns {
    GSHMEM_FOR_EACH_SYNC_TYPE(GSHMEM_PY_WAITS)
    return WaitFns{nullptr, nullptr, nullptr, nullptr};
  };
  *out = find();
  return out->until != nullptr;
}
#undef GSHMEM_PY_WAITS

std::vector<std::string> sync_typenames() {
  std::vector<std::string> v;
#define GSHMEM_PY_NAME(TYPENAME, TYPE) v.push_back(#TYPENAME);
  GSHMEM_FOR_EACH_SYNC_TYPE(GSHMEM_PY_NAME)
#undef GSHMEM_PY_NAME
  return v;
}

// Value of a Python int as the bits of the wait's type (two's complement for
// the signed ones; the C routine casts back).
int wait_until(const std::string &type, addr_t ivar, int cmp, int64_t v, addr_t stream) {
  WaitFns f;
  if (!wait_fns(type, &f)) return GSHMEMX_ERROR_INVALID_VALUE;
  f.until(as_ptr<void>(ivar), cmp, static_cast<uint64_t>(v), as_stream(stream));
  return last();
}
int wait_until_all(const std::string &type, addr_t ivars, size_t n, addr_t status, int cmp, int64_t v,
                   addr_t stream) {
  WaitFns f;
  if (!wait_fns(type, &f)) return GSHMEMX_ERROR_INVALID_VALUE;
  f.all(as_ptr<void>(ivars), n, as_ptr<const int>(status), cmp, static_cast<uint64_t>(v), as_stream(stream));
  return last();
}
int wait_until_any(const std::string &type, addr_t ivars, size_t n, addr_t status, int cmp, int64_t v,
                   addr_t result, addr_t stream) {
  WaitFns f;
  if (!wait_fns(type, &f)) return GSHMEMX_ERROR_INVALID_VALUE;
  f.any(as_ptr<void>(ivars), n, as_ptr<const int>(status), cmp, static_cast<uint64_t>(v), as_ptr<size_t>(result),
        as_stream(stream));
  return last();
}
int wait_until_some(const std::string &type, addr_t ivars, size_t n, addr_t indices, addr_t status, int cmp,
                    int64_t v, addr_t nresult, addr_t stream) {
  WaitFns f;
  if (!wait_fns(type, &f)) return GSHMEMX_ERROR_INVALID_VALUE;
  f.some(as_ptr<void>(ivars), n, as_ptr<size_t>(indices), as_ptr<const int>(status), cmp, static_cast<uint64_t>(v),
         as_ptr<size_t>(nresult), as_stream(stream));
  return last();
}

}  // namespace

NB_MODULE(_gshmem, m) {
  m.doc() = "Bindings over libgshmem's C API (use the gshmem package, not this module)";
  m.attr("version") = GSHMEM_VERSION_STRING;
  m.attr("UNIQUEID_SIZE") = sizeof(gshmemx_uniqueid_t);
  m.attr("CMP_EQ") = GSHMEM_CMP_EQ;
  m.attr("CMP_NE") = GSHMEM_CMP_NE;
  m.attr("CMP_GT") = GSHMEM_CMP_GT;
  m.attr("CMP_LE") = GSHMEM_CMP_LE;
  m.attr("CMP_LT") = GSHMEM_CMP_LT;
  m.attr("CMP_GE") = GSHMEM_CMP_GE;
  m.attr("SIGNAL_SET") = GSHMEM_SIGNAL_SET;
  m.attr("SIGNAL_ADD") = GSHMEM_SIGNAL_ADD;
  m.attr("ERROR_NOT_INITIALIZED") = GSHMEMX_ERROR_NOT_INITIALIZED;
  m.attr("ERROR_INVALID_VALUE") = GSHMEMX_ERROR_INVALID_VALUE;
  m.attr("ERROR_NOT_SYMMETRIC") = GSHMEMX_ERROR_NOT_SYMMETRIC;

  m.def("error_string", [](int code) { return std::string(gshmemx_error_string(code)); });
  m.def("last_error", &last);
  m.def("get_unique_id", &get_unique_id);
  // Init and the collectives can block for as long as the slowest PE: the
  // GIL is released so that other Python threads go on meanwhile.
  m.def("init_unique_id", &init_unique_id, nb::call_guard<nb::gil_scoped_release>());
  m.def("init_default", &init_default, nb::call_guard<nb::gil_scoped_release>());
  m.def("init_single", &init_single, nb::call_guard<nb::gil_scoped_release>());
  m.def("initialized", []() { return gshmemx_initialized() != 0; });
  m.def("finalize", []() { gshmem_finalize(); }, nb::call_guard<nb::gil_scoped_release>());
  m.def("my_pe", []() { return gshmem_my_pe(); });
  m.def("n_pes", []() { return gshmem_n_pes(); });
  m.def("barrier_all", []() { gshmem_barrier_all(); return last(); }, nb::call_guard<nb::gil_scoped_release>());
  m.def("quiet", []() { gshmem_quiet(); return last(); });
  m.def("malloc", &malloc_, nb::call_guard<nb::gil_scoped_release>());
  m.def("free", &free_, nb::call_guard<nb::gil_scoped_release>());
  m.def("agree_on_set", &agree_on_set, nb::call_guard<nb::gil_scoped_release>());
  m.def("ptr", [](addr_t p, int pe) { return reinterpret_cast<addr_t>(gshmem_ptr(as_ptr<const void>(p), pe)); });
  // Kernels in driver-loaded modules (Triton's): the module's copy of the state.
  m.def("cumodule_init", [](addr_t mod) { return gshmemx_cumodule_init(as_ptr<void>(mod)); });
  m.def("cumodule_finalize", [](addr_t mod) { return gshmemx_cumodule_finalize(as_ptr<void>(mod)); });
  m.def("cumodule_has_state", [](addr_t mod) { return gshmemi_cumodule_has_state(as_ptr<void>(mod)) != 0; });
  m.def("describe", &describe);
  m.def("make_tensor", &make_tensor);
  m.def("current_device", &current_device);
  m.def("sync_typenames", &sync_typenames);

  m.def("putmem_on_stream", [](addr_t d, addr_t s, size_t n, int pe, addr_t st) {
    gshmemx_putmem_on_stream(as_ptr<void>(d), as_ptr<const void>(s), n, pe, as_stream(st));
    return last();
  });
  m.def("getmem_on_stream", [](addr_t d, addr_t s, size_t n, int pe, addr_t st) {
    gshmemx_getmem_on_stream(as_ptr<void>(d), as_ptr<const void>(s), n, pe, as_stream(st));
    return last();
  });
  m.def("putmem_signal_on_stream",
        [](addr_t d, addr_t s, size_t n, addr_t sig, uint64_t v, int op, int pe, addr_t st) {
          gshmemx_putmem_signal_on_stream(as_ptr<void>(d), as_ptr<const void>(s), n, as_ptr<uint64_t>(sig), v, op, pe,
                                          as_stream(st));
          return last();
        });
  m.def("signal_op_on_stream", [](addr_t sig, uint64_t v, int op, int pe, addr_t st) {
    gshmemx_signal_op_on_stream(as_ptr<uint64_t>(sig), v, op, pe, as_stream(st));
    return last();
  });
  m.def("signal_wait_until_on_stream", [](addr_t sig, int cmp, uint64_t v, addr_t st) {
    gshmemx_signal_wait_until_on_stream(as_ptr<uint64_t>(sig), cmp, v, as_stream(st));
    return last();
  });
  m.def("wait_until_on_stream", &wait_until);
  m.def("wait_until_all_on_stream", &wait_until_all);
  m.def("wait_until_any_on_stream", &wait_until_any);
  m.def("wait_until_some_on_stream", &wait_until_some);
  m.def("quiet_on_stream", [](addr_t st) {
    gshmemx_quiet_on_stream(as_stream(st));
    return last();
  });
  m.def("barrier_all_on_stream", [](addr_t st) {
    gshmemx_barrier_all_on_stream(as_stream(st));
    return last();
  });
}
