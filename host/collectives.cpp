// The small collectives' host side (<gshmem/collectives.h>,
// <gshmem/collectives_ext.h>): argument checks, then the block-form kernel of
// device/collective_kernels.cu on the caller's stream (on-stream forms) or on
// the runtime's team stream, waited for (host forms).
#include <gshmem/gshmemx.h>

#include <cuda_runtime_api.h>

#include <cstdint>
#include <mutex>

#include "../src/heap.h"
#include "../src/log.h"
#include "../src/team_internal.h"

namespace gshmemi {
namespace team {
namespace {

namespace gd = gshmem::detail;

// The first checks of every collective: init, and a team this PE is in
// (its descriptor into *d).
int check_team(const char *fn, int team, gd::team_desc *d) {
  set_last_error(GSHMEM_SUCCESS);
  if (!gshmemx_initialized())
    return GSHMEMI_ERROR(GSHMEMX_ERROR_NOT_INITIALIZED, "%s called before gshmem_init (or after gshmem_finalize)", fn);
  if (!find_team(team, d))
    return GSHMEMI_ERROR(GSHMEMX_ERROR_INVALID_VALUE,
                         "%s: team %d is not a valid team on this PE (not created, destroyed, or this PE is not a "
                         "member)", fn, team);
  return GSHMEM_SUCCESS;
}

// Checks shared by every collective; `source_bytes` of source must lie in
// the symmetric heap (peers read it), `dest_bytes` of dest are written here.
int check(const char *fn, int team, const void *dest, std::size_t dest_bytes, const void *source,
          std::size_t source_bytes, bool in_place_allowed) {
  gd::team_desc d;
  if (const int rc = check_team(fn, team, &d)) return rc;
  if (source_bytes == 0) return GSHMEM_SUCCESS;
  if (!dest || !source)
    return GSHMEMI_ERROR(GSHMEMX_ERROR_INVALID_VALUE, "%s: %s is NULL with a count > 0", fn, dest ? "source" : "dest");
  const gshmemi_device_state_t *s = gshmemi_host_state();
  const std::uintptr_t user = reinterpret_cast<std::uintptr_t>(s->heap_base) + GSHMEMI_INTERNAL_REGION_BYTES;
  const std::uintptr_t end = reinterpret_cast<std::uintptr_t>(s->heap_base) + s->heap_size;
  const std::uintptr_t src = reinterpret_cast<std::uintptr_t>(source), dst = reinterpret_cast<std::uintptr_t>(dest);
  const bool in_heap = src >= user && src <= end && end - src >= source_bytes;
  if (!in_heap && !registered_range(src, source_bytes))
    return GSHMEMI_ERROR(GSHMEMX_ERROR_NOT_SYMMETRIC,
                         "%s: source %p (%zu bytes) is not inside the symmetric heap (gshmem_malloc) or a registered "
                         "buffer", fn, source, source_bytes);
  const bool same = src == dst;
  if ((same && !in_place_allowed) || (!same && dst < src + source_bytes && src < dst + dest_bytes))
    return GSHMEMI_ERROR(GSHMEMX_ERROR_INVALID_VALUE, "%s: dest %p and source %p overlap%s", fn, dest, source,
                         in_place_allowed ? " without being equal" : "");
  return GSHMEM_SUCCESS;
}

int report_launch(const char *fn, int team, cudaError_t err) {
  if (err == cudaSuccess) return GSHMEM_SUCCESS;
  return GSHMEMI_ERROR(GSHMEMX_ERROR_CUDA, "%s: team %d: kernel failed: %s", fn, team, cudaGetErrorString(err));
}

// Host forms: the kernel on the team stream, waited for.
template <class Launch>
int run_blocking(const char *fn, int team, Launch launch) {
  std::lock_guard<std::recursive_mutex> lock(team_stream_mutex());
  cudaError_t err = launch(team_stream());
  if (err == cudaSuccess) err = cudaStreamSynchronize(team_stream());
  return report_launch(fn, team, err);
}

int team_size(int team) {
  gd::team_desc d;
  return find_team(team, &d) ? d.size : 0;
}

}  // namespace
}  // namespace team
}  // namespace gshmemi

using namespace gshmemi::team;

extern "C" {

#define GSHMEMI_DEFINE_REDUCE_ENTRY(NAME, TYPE, OP)                                                        \
  int gshmemx_##NAME##_##OP##_reduce_on_stream(gshmem_team_t team, TYPE *dest, const TYPE *source,        \
                                               size_t nreduce, cudaStream_t stream) {                      \
    const char *fn = "gshmemx_" #NAME "_" #OP "_reduce_on_stream";                                        \
    const int rc = check(fn, team, dest, nreduce * sizeof(TYPE), source, nreduce * sizeof(TYPE), true);   \
    if (rc != GSHMEM_SUCCESS) return rc;                                                                   \
    return report_launch(fn, team, launch_##NAME##_##OP##_reduce(team, dest, source, nreduce, stream));   \
  }                                                                                                        \
  int gshmemi_host_##NAME##_##OP##_reduce(gshmem_team_t team, TYPE *dest, const TYPE *source,             \
                                          size_t nreduce) {                                                \
    const char *fn = "gshmem_" #NAME "_" #OP "_reduce";                                                   \
    const int rc = check(fn, team, dest, nreduce * sizeof(TYPE), source, nreduce * sizeof(TYPE), true);   \
    if (rc != GSHMEM_SUCCESS) return rc;                                                                   \
    return run_blocking(fn, team, [&](cudaStream_t s) {                                                    \
      return launch_##NAME##_##OP##_reduce(team, dest, source, nreduce, s);                               \
    });                                                                                                    \
  }
#define GSHMEMI_DEFINE_COLLECTIVE_ENTRIES(NAME, TYPE)                                                       \
  GSHMEM_FOR_EACH_REDUCE_OP(GSHMEMI_DEFINE_REDUCE_ENTRY, NAME, TYPE)                                         \
  int gshmemx_##NAME##_fcollect_on_stream(gshmem_team_t team, TYPE *dest, const TYPE *source, size_t nelems, \
                                          cudaStream_t stream) {                                             \
    const char *fn = "gshmemx_" #NAME "_fcollect_on_stream";                                                \
    const int rc = check(fn, team, dest, nelems * sizeof(TYPE) * team_size(team), source,                   \
                         nelems * sizeof(TYPE), false);                                                     \
    if (rc != GSHMEM_SUCCESS) return rc;                                                                     \
    return report_launch(fn, team, launch_##NAME##_fcollect(team, dest, source, nelems, stream));           \
  }                                                                                                          \
  int gshmemi_host_##NAME##_fcollect(gshmem_team_t team, TYPE *dest, const TYPE *source, size_t nelems) {    \
    const char *fn = "gshmem_" #NAME "_fcollect";                                                           \
    const int rc = check(fn, team, dest, nelems * sizeof(TYPE) * team_size(team), source,                   \
                         nelems * sizeof(TYPE), false);                                                     \
    if (rc != GSHMEM_SUCCESS) return rc;                                                                     \
    return run_blocking(fn, team, [&](cudaStream_t s) {                                                      \
      return launch_##NAME##_fcollect(team, dest, source, nelems, s);                                       \
    });                                                                                                      \
  }
GSHMEM_FOR_EACH_REDUCE_TYPE(GSHMEMI_DEFINE_COLLECTIVE_ENTRIES)
#undef GSHMEMI_DEFINE_COLLECTIVE_ENTRIES
#undef GSHMEMI_DEFINE_REDUCE_ENTRY

}  // extern "C"

// ------------------------------------------------ broadcast, alltoall, *mem
// Host and on-stream forms of broadcast, alltoall and the byte forms of
// fcollect: the checks below, then one byte kernel (device/
// collective_kernels.cu) for every type.
// ---- and/or/xor reductions and reducescatter (every reduction operator) ----
// The and/or/xor reductions take the checks of the other reductions (in
// place allowed). A reducescatter's source holds n_pes(team) * nreduce
// elements and its dest nreduce; no overlap at all.

namespace gshmemi {
namespace team {
namespace {

enum data_collective { data_broadcast, data_alltoall, data_fcollect };

// Whether [p, p + bytes) lies in the symmetric heap (its user part) or in
// one registered buffer.
bool symmetric_range(const void *p, std::size_t bytes) {
  const gshmemi_device_state_t *s = gshmemi_host_state();
  const std::uintptr_t user = reinterpret_cast<std::uintptr_t>(s->heap_base) + GSHMEMI_INTERNAL_REGION_BYTES;
  const std::uintptr_t end = reinterpret_cast<std::uintptr_t>(s->heap_base) + s->heap_size;
  const std::uintptr_t a = reinterpret_cast<std::uintptr_t>(p);
  return (a >= user && a <= end && end - a >= bytes) || registered_range(a, bytes);
}

// The checks of one call: team, PE_root (broadcast), the byte counts, NULL
// buffers, the buffer the peers reach (broadcast and fcollect: source;
// alltoall: dest) inside the symmetric memory, overlap (broadcast lets
// dest == source pass). *unit_bytes: nelems * elem_bytes (what the kernel
// takes). What is not checked: that every member passes the same root and
// nelems (docs/api.md).
int check_data(const char *fn, data_collective kind, int team, const void *dest, const void *source,
               std::size_t nelems, std::size_t elem_bytes, int root, std::size_t *unit_bytes) {
  gd::team_desc d;
  if (const int rc = check_team(fn, team, &d)) return rc;
  if (kind == data_broadcast && (root < 0 || root >= d.size))
    return GSHMEMI_ERROR(GSHMEMX_ERROR_INVALID_VALUE, "%s: PE_root %d is not a rank of team %d (size %d: 0 .. %d)", fn,
                         root, team, d.size, d.size - 1);
  const std::size_t blocks = kind == data_broadcast ? 1 : (std::size_t)d.size;
  if (gd::collective_bytes_overflow(nelems, elem_bytes, blocks))
    return GSHMEMI_ERROR(GSHMEMX_ERROR_INVALID_VALUE, "%s: nelems %zu (x %zu bytes x %zu blocks) overflows a size_t", fn,
                         nelems, elem_bytes, blocks);
  const std::size_t unit = nelems * elem_bytes, total = unit * blocks;
  *unit_bytes = unit;
  if (unit == 0) return GSHMEM_SUCCESS;
  if (!dest || !source)
    return GSHMEMI_ERROR(GSHMEMX_ERROR_INVALID_VALUE, "%s: %s is NULL with a count > 0", fn, dest ? "source" : "dest");
  const std::size_t dest_bytes = kind == data_broadcast ? unit : total;
  const std::size_t source_bytes = kind == data_alltoall ? total : unit;
  const bool dest_symmetric = kind == data_alltoall;
  const void *sym = dest_symmetric ? dest : source;
  const std::size_t sym_bytes = dest_symmetric ? dest_bytes : source_bytes;
  if (!symmetric_range(sym, sym_bytes))
    return GSHMEMI_ERROR(GSHMEMX_ERROR_NOT_SYMMETRIC,
                         "%s: %s %p (%zu bytes) is not inside the symmetric heap (gshmem_malloc) or a registered "
                         "buffer", fn, dest_symmetric ? "dest" : "source", sym, sym_bytes);
  const bool equal_ok = kind == data_broadcast;
  if (gd::collective_overlap(reinterpret_cast<std::uintptr_t>(dest), dest_bytes,
                             reinterpret_cast<std::uintptr_t>(source), source_bytes, equal_ok))
    return GSHMEMI_ERROR(GSHMEMX_ERROR_INVALID_VALUE, "%s: dest %p and source %p overlap%s", fn, dest, source,
                         equal_ok ? " without being equal" : "");
  return GSHMEM_SUCCESS;
}

cudaError_t launch_data(data_collective kind, int team, void *dest, const void *source, std::size_t unit, int root,
                        cudaStream_t stream) {
  switch (kind) {
    case data_broadcast: return launch_broadcast_bytes(team, dest, source, unit, root, stream);
    case data_alltoall: return launch_alltoall_bytes(team, dest, source, unit, stream);
    default: return launch_fcollect_bytes(team, dest, source, unit, stream);
  }
}

// An on-stream form (stream given) or a host form (stream NULL: the team
// stream, waited for).
int data_entry(const char *fn, data_collective kind, int team, void *dest, const void *source, std::size_t nelems,
               std::size_t elem_bytes, int root, const cudaStream_t *stream) {
  std::size_t unit = 0;
  const int rc = check_data(fn, kind, team, dest, source, nelems, elem_bytes, root, &unit);
  if (rc != GSHMEM_SUCCESS) return rc;
  if (stream) return report_launch(fn, team, launch_data(kind, team, dest, source, unit, root, *stream));
  return run_blocking(fn, team, [&](cudaStream_t s) { return launch_data(kind, team, dest, source, unit, root, s); });
}

int check_reduce(const char *fn, int team, const void *dest, const void *source, std::size_t nreduce,
                 std::size_t elem) {
  return check(fn, team, dest, nreduce * elem, source, nreduce * elem, true);
}

int check_reducescatter(const char *fn, int team, const void *dest, const void *source, std::size_t nreduce,
                        std::size_t elem) {
  const int members = team_size(team);
  std::size_t source_bytes = 0;
  if (!gd::reducescatter_source_bytes(nreduce, members, elem, &source_bytes)) {
    set_last_error(GSHMEM_SUCCESS);
    return GSHMEMI_ERROR(GSHMEMX_ERROR_INVALID_VALUE,
                         "%s: team %d: nreduce %zu x %d members x %zu-byte elements does not fit the address space",
                         fn, team, nreduce, members, elem);
  }
  return check(fn, team, dest, nreduce * elem, source, source_bytes, false);
}

}  // namespace
}  // namespace team
}  // namespace gshmemi

extern "C" {

#define GSHMEMI_DEFINE_DATA_COLLECTIVE_ENTRIES(NAME, TYPE)                                                    \
  int gshmemx_##NAME##_broadcast_on_stream(gshmem_team_t team, TYPE *dest, const TYPE *source, size_t nelems, \
                                           int PE_root, cudaStream_t stream) {                                \
    return data_entry("gshmemx_" #NAME "_broadcast_on_stream", data_broadcast, team, dest, source, nelems,    \
                      sizeof(TYPE), PE_root, &stream);                                                        \
  }                                                                                                           \
  int gshmemi_host_##NAME##_broadcast(gshmem_team_t team, TYPE *dest, const TYPE *source, size_t nelems,      \
                                      int PE_root) {                                                          \
    return data_entry("gshmem_" #NAME "_broadcast", data_broadcast, team, dest, source, nelems, sizeof(TYPE), \
                      PE_root, nullptr);                                                                      \
  }                                                                                                           \
  int gshmemx_##NAME##_alltoall_on_stream(gshmem_team_t team, TYPE *dest, const TYPE *source, size_t nelems,  \
                                          cudaStream_t stream) {                                              \
    return data_entry("gshmemx_" #NAME "_alltoall_on_stream", data_alltoall, team, dest, source, nelems,      \
                      sizeof(TYPE), 0, &stream);                                                              \
  }                                                                                                           \
  int gshmemi_host_##NAME##_alltoall(gshmem_team_t team, TYPE *dest, const TYPE *source, size_t nelems) {     \
    return data_entry("gshmem_" #NAME "_alltoall", data_alltoall, team, dest, source, nelems, sizeof(TYPE), 0, \
                      nullptr);                                                                               \
  }
GSHMEM_FOR_EACH_RMA_TYPE(GSHMEMI_DEFINE_DATA_COLLECTIVE_ENTRIES)
#undef GSHMEMI_DEFINE_DATA_COLLECTIVE_ENTRIES

int gshmemx_broadcastmem_on_stream(gshmem_team_t team, void *dest, const void *source, size_t nelems, int PE_root,
                                   cudaStream_t stream) {
  return data_entry("gshmemx_broadcastmem_on_stream", data_broadcast, team, dest, source, nelems, 1, PE_root, &stream);
}
int gshmemi_host_broadcastmem(gshmem_team_t team, void *dest, const void *source, size_t nelems, int PE_root) {
  return data_entry("gshmem_broadcastmem", data_broadcast, team, dest, source, nelems, 1, PE_root, nullptr);
}
int gshmemx_alltoallmem_on_stream(gshmem_team_t team, void *dest, const void *source, size_t nelems,
                                  cudaStream_t stream) {
  return data_entry("gshmemx_alltoallmem_on_stream", data_alltoall, team, dest, source, nelems, 1, 0, &stream);
}
int gshmemi_host_alltoallmem(gshmem_team_t team, void *dest, const void *source, size_t nelems) {
  return data_entry("gshmem_alltoallmem", data_alltoall, team, dest, source, nelems, 1, 0, nullptr);
}
int gshmemx_fcollectmem_on_stream(gshmem_team_t team, void *dest, const void *source, size_t nelems,
                                  cudaStream_t stream) {
  return data_entry("gshmemx_fcollectmem_on_stream", data_fcollect, team, dest, source, nelems, 1, 0, &stream);
}
int gshmemi_host_fcollectmem(gshmem_team_t team, void *dest, const void *source, size_t nelems) {
  return data_entry("gshmem_fcollectmem", data_fcollect, team, dest, source, nelems, 1, 0, nullptr);
}
// KIND: reduce or reducescatter (check_KIND, launch_..._KIND).
#define GSHMEMI_REDUCTION_X(NAME, TYPE, OP, KIND)                                               \
  int gshmemx_##NAME##_##OP##_##KIND##_on_stream(gshmem_team_t team, TYPE *dest, const TYPE *source,      \
                                                 size_t nreduce, cudaStream_t stream) {                    \
    const char *fn = "gshmemx_" #NAME "_" #OP "_" #KIND "_on_stream";                                     \
    const int rc = check_##KIND(fn, team, dest, source, nreduce, sizeof(TYPE));                           \
    if (rc != GSHMEM_SUCCESS) return rc;                                                                   \
    return report_launch(fn, team, launch_##NAME##_##OP##_##KIND(team, dest, source, nreduce, stream));   \
  }                                                                                                        \
  int gshmemi_host_##NAME##_##OP##_##KIND(gshmem_team_t team, TYPE *dest, const TYPE *source,             \
                                          size_t nreduce) {                                                \
    const char *fn = "gshmem_" #NAME "_" #OP "_" #KIND;                                                   \
    const int rc = check_##KIND(fn, team, dest, source, nreduce, sizeof(TYPE));                           \
    if (rc != GSHMEM_SUCCESS) return rc;                                                                   \
    return run_blocking(fn, team, [&](cudaStream_t s) {                                                    \
      return launch_##NAME##_##OP##_##KIND(team, dest, source, nreduce, s);                               \
    });                                                                                                    \
  }
GSHMEMI_FOR_EACH_BITWISE_REDUCTION_AND_REDUCESCATTER
#undef GSHMEMI_REDUCTION_X

}  // extern "C"
