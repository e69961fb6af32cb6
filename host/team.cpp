// Teams (<gshmem/team.h>, <gshmem/team_ext.h>): the host's copy of the team
// table, team creation and destruction, host queries, and the host and
// on-stream team syncs. The device side reads the same descriptors from the
// team table in this PE's heap (<gshmem/detail/team_sync.h>); this file keeps
// both copies equal.
//
// Team creation agrees on a slot over the parent team without the bootstrap
// (whose collectives span every PE, not a team's): a kernel on the parent
// team exchanges the members' free-slot masks between two syncs of the
// parent (device/team_kernels.cu). A team from a unique id has no parent:
// its members find each other by records in their heaps, another kernel
// there. Each member then records the new team in its own table.
#include <gshmem/gshmemx.h>

#include <cuda_runtime_api.h>

#include <array>
#include <mutex>
#include <set>
#include <string>

#include "../src/log.h"
#include "../src/stream_internal.h"
#include "../src/team_internal.h"

namespace gshmemi {
namespace team {
namespace {

namespace gd = gshmem::detail;

struct TeamRuntime {
  // Guards everything below. Recursive: a host collective holds it while
  // its launcher looks the team up again (device/wide_collectives.cuh).
  std::recursive_mutex mutex;
  std::array<gd::team_desc, GSHMEMI_MAX_TEAMS> table{};  // size 0: free
  cudaStream_t stream = nullptr;                          // the runtime's team stream (non-blocking)
  int *slot_result = nullptr;                             // device int: the agreement kernel's answer
  uniqueid_result *uid_result = nullptr;                  // device: the unique-id agreement's answer
  unsigned issued = 0;                // unique ids this PE made (process-wide: never reused after a re-init)
  std::set<unsigned long long> used;  // unique ids this PE made a team from (one team per id)
};

TeamRuntime &runtime() {
  static TeamRuntime *r = new TeamRuntime;  // never destroyed (used from static destructors)
  return *r;
}

bool initialized(const char *routine) {
  if (gshmemx_initialized()) return true;
  GSHMEMI_ERROR(GSHMEMX_ERROR_NOT_INITIALIZED, "%s called before gshmem_init (or after gshmem_finalize)", routine);
  return false;
}

// The descriptor of `team` on this PE (lock held); false if the handle is invalid here.
bool lookup_locked(const TeamRuntime &rt, int team, gd::team_desc *out) {
  if (team < 0 || team >= GSHMEMI_MAX_TEAMS) return false;
  const gd::team_desc &d = rt.table[team];
  if (d.size <= 0 || d.my_rank < 0) return false;
  *out = d;
  return true;
}

bool lookup(int team, gd::team_desc *out) {
  TeamRuntime &rt = runtime();
  std::lock_guard<std::recursive_mutex> lock(rt.mutex);
  return lookup_locked(rt, team, out);
}

// For the queries, which report by returning -1: the cause goes to
// gshmemx_get_last_error() without a log line.
bool query_team(int team, gd::team_desc *out) {
  set_last_error(GSHMEM_SUCCESS);
  if (!gshmemx_initialized()) {
    set_last_error(GSHMEMX_ERROR_NOT_INITIALIZED);
    return false;
  }
  if (!lookup(team, out)) {
    set_last_error(GSHMEMX_ERROR_INVALID_VALUE);
    return false;
  }
  return true;
}

int report_invalid_team(const char *routine, int team) {
  return GSHMEMI_ERROR(GSHMEMX_ERROR_INVALID_VALUE,
                       "%s: team %d is not a valid team on this PE (not created, destroyed, or this PE is not "
                       "a member)",
                       routine, team);
}

// Copies descriptor `slot` of the host table into this PE's device table (lock held).
int write_device_entry_locked(TeamRuntime &rt, int slot) {
  const gshmemi_device_state_t *s = gshmemi_host_state();
  gd::team_desc *device_table = gd::team_table_at(s->heap_base);
  GSHMEMI_CUDA_CHECK(cudaMemcpyAsync(device_table + slot, &rt.table[slot], sizeof(gd::team_desc),
                                     cudaMemcpyHostToDevice, rt.stream));
  GSHMEMI_CUDA_CHECK(cudaStreamSynchronize(rt.stream));
  return GSHMEM_SUCCESS;
}

// Runs the team sync kernel on the team stream and waits for it.
int host_sync(const char *routine, int team, bool with_quiet) {
  set_last_error(GSHMEM_SUCCESS);
  if (!initialized(routine)) return GSHMEMX_ERROR_NOT_INITIALIZED;
  gd::team_desc d;
  if (!lookup(team, &d)) return report_invalid_team(routine, team);
  if (with_quiet) {
    const cudaError_t err = cudaDeviceSynchronize();
    if (err != cudaSuccess)
      return GSHMEMI_ERROR(GSHMEMX_ERROR_CUDA, "%s: device work failed: %s", routine, cudaGetErrorString(err));
  }
  TeamRuntime &rt = runtime();
  std::lock_guard<std::recursive_mutex> lock(rt.mutex);  // one host sync on the team stream at a time
  cudaError_t err = launch_team_sync(team, with_quiet, rt.stream);
  if (err == cudaSuccess) err = cudaStreamSynchronize(rt.stream);
  if (err != cudaSuccess)
    return GSHMEMI_ERROR(GSHMEMX_ERROR_CUDA, "%s: team %d: the team sync kernel failed: %s", routine, team,
                         cudaGetErrorString(err));
  return GSHMEM_SUCCESS;
}

int sync_on_stream(const char *routine, int team, bool with_quiet, cudaStream_t stream) {
  set_last_error(GSHMEM_SUCCESS);
  if (!initialized(routine)) return GSHMEMX_ERROR_NOT_INITIALIZED;
  gd::team_desc d;
  if (!lookup(team, &d)) return report_invalid_team(routine, team);
  // Outside capture, stream memory operations (host/stream.cpp); the kernel
  // otherwise.
  int rc = GSHMEM_SUCCESS;
  if (stream::enqueue_memop_team_sync(routine, team, d, stream, &rc)) return rc;
  const cudaError_t err = launch_team_sync(team, with_quiet, stream);
  if (err != cudaSuccess)
    return GSHMEMI_ERROR(GSHMEMX_ERROR_CUDA, "%s: team %d: kernel launch failed: %s", routine, team,
                         cudaGetErrorString(err));
  return GSHMEM_SUCCESS;
}

}  // namespace

bool find_team(int team, gd::team_desc *out) { return lookup(team, out); }
std::recursive_mutex &team_stream_mutex() { return runtime().mutex; }
cudaStream_t team_stream() { return runtime().stream; }

}  // namespace team
}  // namespace gshmemi

using namespace gshmemi;
using namespace gshmemi::team;

extern "C" {

int gshmemi_team_init(void) {
  TeamRuntime &rt = runtime();
  std::lock_guard<std::recursive_mutex> lock(rt.mutex);
  const gshmemi_device_state_t *s = gshmemi_host_state();
  if (s->heap_base == nullptr)
    return GSHMEMI_ERROR(GSHMEMX_ERROR_INTERNAL, "gshmemi_team_init: the heap does not exist yet");
  cudaError_t loaded = preload_team_kernels();
  if (loaded == cudaSuccess) loaded = preload_collective_kernels();
  if (loaded == cudaSuccess) loaded = preload_data_collective_kernels();
  if (loaded == cudaSuccess) loaded = preload_reduction_kernels();
  if (loaded != cudaSuccess)
    return GSHMEMI_ERROR(GSHMEMX_ERROR_CUDA, "loading the team kernels failed: %s", cudaGetErrorString(loaded));
  if (!rt.stream) GSHMEMI_CUDA_CHECK(cudaStreamCreateWithFlags(&rt.stream, cudaStreamNonBlocking));
  if (!rt.slot_result) GSHMEMI_CUDA_CHECK(cudaMalloc(reinterpret_cast<void **>(&rt.slot_result), sizeof(int)));
  if (!rt.uid_result)
    GSHMEMI_CUDA_CHECK(cudaMalloc(reinterpret_cast<void **>(&rt.uid_result), sizeof(uniqueid_result)));
  rt.table.fill(gd::team_desc{});
  // The predefined teams hold the first slots; a split never takes them
  // (they are in use on every PE).
  for (int team = 0; team < GSHMEMI_PREDEFINED_TEAMS; ++team)
    rt.table[team] = gd::predefined_team_desc(team, s->my_pe, s->n_pes);
  GSHMEMI_CUDA_CHECK(cudaMemcpyAsync(gd::team_table_at(s->heap_base), rt.table.data(), sizeof(rt.table),
                                     cudaMemcpyHostToDevice, rt.stream));
  GSHMEMI_CUDA_CHECK(cudaStreamSynchronize(rt.stream));
  return GSHMEM_SUCCESS;
}

void gshmemi_team_finalize(void) {
  TeamRuntime &rt = runtime();
  std::lock_guard<std::recursive_mutex> lock(rt.mutex);
  rt.table.fill(gd::team_desc{});
  if (rt.slot_result) cudaFree(rt.slot_result);
  if (rt.uid_result) cudaFree(rt.uid_result);
  rt.uid_result = nullptr;
  if (rt.stream) cudaStreamDestroy(rt.stream);
  rt.slot_result = nullptr;
  rt.stream = nullptr;
}

namespace gshmemi {
namespace team {
namespace {

// One team creation over the parent team (lock held, parent valid): the
// agreement kernel finds a slot free on every member of the parent, then
// this PE records the team it is in, the parent's ranks start + k stride,
// k < size (arguments valid; they may differ between members, each naming
// its own team: team_split_2d), or nothing where it is in none.
int split_locked(TeamRuntime &rt, gshmem_team_t parent_team, const gd::team_desc &parent, int start, int stride,
                 int size, const char *fn, gshmem_team_t *new_team) {
  unsigned long long free_mask = 0;
  for (int slot = 0; slot < GSHMEMI_MAX_TEAMS; ++slot)
    if (rt.table[slot].size == 0) free_mask |= 1ull << slot;

  int slot = -1;
  cudaError_t err = launch_team_agree(parent_team, free_mask, rt.slot_result, rt.stream);
  if (err == cudaSuccess)
    err = cudaMemcpyAsync(&slot, rt.slot_result, sizeof(int), cudaMemcpyDeviceToHost, rt.stream);
  if (err == cudaSuccess) err = cudaStreamSynchronize(rt.stream);
  if (err != cudaSuccess)
    return GSHMEMI_ERROR(GSHMEMX_ERROR_CUDA, "%s: the agreement kernel on parent team %d failed: %s", fn,
                         parent_team, cudaGetErrorString(err));
  if (slot == -2)
    return GSHMEMI_ERROR(GSHMEMX_ERROR_INTERNAL, "%s: the device team table lost parent team %d", fn, parent_team);
  if (slot < 0)
    return GSHMEMI_ERROR(GSHMEMX_ERROR_OUT_OF_MEMORY,
                         "%s: no team slot is free on every PE of parent team %d: at most GSHMEMX_MAX_TEAMS "
                         "(%d) teams, the predefined ones included, may exist at once on a PE",
                         fn, parent_team, GSHMEMI_MAX_TEAMS);
  const gd::team_desc made = gd::split_strided_desc(parent, start, stride, size, gshmemi_host_state()->my_pe);
  if (made.my_rank < 0) return GSHMEM_SUCCESS;  // not a member: GSHMEM_TEAM_INVALID
  rt.table[slot] = made;
  const int rc = write_device_entry_locked(rt, slot);
  if (rc != GSHMEM_SUCCESS) {
    rt.table[slot] = gd::team_desc{};
    return rc;
  }
  GSHMEMI_INFO("%s: team %d = parent %d ranks %d + %d k, k < %d (world PEs %d + %d k); this PE is rank %d", fn,
               slot, parent_team, start, stride, size, made.start, made.stride, made.my_rank);
  *new_team = slot;
  return GSHMEM_SUCCESS;
}

}  // namespace
}  // namespace team
}  // namespace gshmemi

int gshmem_team_split_strided(gshmem_team_t parent_team, int start, int stride, int size,
                              const gshmem_team_config_t *config, long config_mask, gshmem_team_t *new_team) {
  const char *fn = "gshmem_team_split_strided";
  (void)config;
  (void)config_mask;
  set_last_error(GSHMEM_SUCCESS);
  if (new_team) *new_team = GSHMEM_TEAM_INVALID;
  if (!initialized(fn)) return GSHMEMX_ERROR_NOT_INITIALIZED;
  if (!new_team) return GSHMEMI_ERROR(GSHMEMX_ERROR_INVALID_VALUE, "%s: new_team is NULL", fn);
  TeamRuntime &rt = runtime();
  std::lock_guard<std::recursive_mutex> lock(rt.mutex);
  gd::team_desc parent;
  if (!lookup_locked(rt, parent_team, &parent)) return report_invalid_team(fn, parent_team);
  if (const char *problem = gd::split_strided_problem(parent, start, stride, size))
    return GSHMEMI_ERROR(GSHMEMX_ERROR_INVALID_VALUE,
                         "%s: %s (parent team %d of %d PEs, start %d, stride %d, size %d)", fn, problem,
                         parent_team, parent.size, start, stride, size);
  return split_locked(rt, parent_team, parent, start, stride, size, fn, new_team);
}

int gshmem_team_split_2d(gshmem_team_t parent_team, int xrange, const gshmem_team_config_t *xaxis_config,
                         long xaxis_mask, gshmem_team_t *xaxis_team, const gshmem_team_config_t *yaxis_config,
                         long yaxis_mask, gshmem_team_t *yaxis_team) {
  const char *fn = "gshmem_team_split_2d";
  (void)xaxis_config, (void)xaxis_mask, (void)yaxis_config, (void)yaxis_mask;
  set_last_error(GSHMEM_SUCCESS);
  if (xaxis_team) *xaxis_team = GSHMEM_TEAM_INVALID;
  if (yaxis_team) *yaxis_team = GSHMEM_TEAM_INVALID;
  if (!initialized(fn)) return GSHMEMX_ERROR_NOT_INITIALIZED;
  if (!xaxis_team || !yaxis_team)
    return GSHMEMI_ERROR(GSHMEMX_ERROR_INVALID_VALUE, "%s: %s is NULL", fn, !xaxis_team ? "xaxis_team" : "yaxis_team");
  if (xrange < 1) return GSHMEMI_ERROR(GSHMEMX_ERROR_INVALID_VALUE, "%s: xrange is %d; it must be at least 1", fn, xrange);
  TeamRuntime &rt = runtime();
  std::lock_guard<std::recursive_mutex> lock(rt.mutex);
  gd::team_desc parent;
  if (!lookup_locked(rt, parent_team, &parent)) return report_invalid_team(fn, parent_team);
  const gd::split_2d_shape shape = gd::split_2d_of(parent.size, xrange, parent.my_rank);
  int rc = split_locked(rt, parent_team, parent, shape.x_start, 1, shape.x_size, fn, xaxis_team);
  if (rc != GSHMEM_SUCCESS) return rc;
  rc = split_locked(rt, parent_team, parent, shape.y_start, shape.y_stride, shape.y_size, fn, yaxis_team);
  if (rc != GSHMEM_SUCCESS) {
    // Every member fails alike (the agreement's answer is the same on all):
    // the x-axis team goes too, on every member.
    if (*xaxis_team != GSHMEM_TEAM_INVALID) {
      rt.table[*xaxis_team] = gd::team_desc{};
      write_device_entry_locked(rt, *xaxis_team);
      *xaxis_team = GSHMEM_TEAM_INVALID;
    }
  }
  return rc;
}

int gshmemx_team_get_uniqueid(gshmemx_team_uniqueid_t *uniqueid) {
  const char *fn = "gshmemx_team_get_uniqueid";
  set_last_error(GSHMEM_SUCCESS);
  if (!initialized(fn)) return GSHMEMX_ERROR_NOT_INITIALIZED;
  if (!uniqueid) return GSHMEMI_ERROR(GSHMEMX_ERROR_INVALID_VALUE, "%s: uniqueid is NULL", fn);
  TeamRuntime &rt = runtime();
  std::lock_guard<std::recursive_mutex> lock(rt.mutex);
  if (rt.issued == 0xffffffffu)
    return GSHMEMI_ERROR(GSHMEMX_ERROR_OUT_OF_MEMORY, "%s: this PE made 2^32 - 1 ids already", fn);
  // The count goes to this PE's record before the id leaves the call: a
  // member that checks the id against it (device/team_kernels.cu) reads it
  // after the program handed the id over.
  const unsigned long long issued = rt.issued + 1ull;
  const gshmemi_device_state_t *s = gshmemi_host_state();
  GSHMEMI_CUDA_CHECK(cudaMemcpyAsync(&gd::uniqueid_record_at(s->heap_base)->issued, &issued, sizeof issued,
                                     cudaMemcpyHostToDevice, rt.stream));
  GSHMEMI_CUDA_CHECK(cudaStreamSynchronize(rt.stream));
  rt.issued = (unsigned)issued;
  *uniqueid = gd::make_team_uniqueid(s->my_pe, rt.issued);
  return GSHMEM_SUCCESS;
}

int gshmemx_team_init(gshmem_team_t *team, gshmemx_team_uniqueid_t uniqueid, int npes, int pe_idx_in_team) {
  const char *fn = "gshmemx_team_init";
  set_last_error(GSHMEM_SUCCESS);
  if (team) *team = GSHMEM_TEAM_INVALID;
  if (!initialized(fn)) return GSHMEMX_ERROR_NOT_INITIALIZED;
  if (!team) return GSHMEMI_ERROR(GSHMEMX_ERROR_INVALID_VALUE, "%s: team is NULL", fn);
  const gshmemi_device_state_t *s = gshmemi_host_state();
  if (const char *problem = gd::team_init_problem(npes, pe_idx_in_team, s->n_pes))
    return GSHMEMI_ERROR(GSHMEMX_ERROR_INVALID_VALUE, "%s: %s (npes %d, pe_idx_in_team %d, %d PEs in the job)", fn,
                         problem, npes, pe_idx_in_team, s->n_pes);
  if (const char *problem = gd::uniqueid_problem(uniqueid, s->n_pes))
    return GSHMEMI_ERROR(GSHMEMX_ERROR_INVALID_VALUE, "%s: uniqueid 0x%llx is not a team id: %s", fn, uniqueid,
                         problem);
  TeamRuntime &rt = runtime();
  std::lock_guard<std::recursive_mutex> lock(rt.mutex);
  if (!rt.used.insert(uniqueid).second)
    return GSHMEMI_ERROR(GSHMEMX_ERROR_INVALID_VALUE,
                         "%s: uniqueid 0x%llx made a team on this PE already; each id makes one team (get a new "
                         "one with gshmemx_team_get_uniqueid)",
                         fn, uniqueid);
  unsigned long long free_mask = 0;
  for (int slot = 0; slot < GSHMEMI_MAX_TEAMS; ++slot)
    if (rt.table[slot].size == 0) free_mask |= 1ull << slot;
  uniqueid_result result;
  cudaError_t err = launch_uniqueid_agree(uniqueid, pe_idx_in_team, npes, free_mask, rt.uid_result, rt.stream);
  if (err == cudaSuccess)
    err = cudaMemcpyAsync(&result, rt.uid_result, sizeof result, cudaMemcpyDeviceToHost, rt.stream);
  if (err == cudaSuccess) err = cudaStreamSynchronize(rt.stream);
  if (err != cudaSuccess)
    return GSHMEMI_ERROR(GSHMEMX_ERROR_CUDA, "%s: the agreement kernel failed: %s", fn, cudaGetErrorString(err));
  switch (result.status) {
    case kUniqueidOk:
      break;
    case kUniqueidUnknown:
      return GSHMEMI_ERROR(GSHMEMX_ERROR_INVALID_VALUE,
                           "%s: uniqueid 0x%llx names PE %d as its creator, which made %d ids, not %u", fn, uniqueid,
                           result.other_pe, result.other_value, gd::uniqueid_count(uniqueid));
    case kUniqueidDuplicateIndex:
      return GSHMEMI_ERROR(GSHMEMX_ERROR_SYMMETRY,
                           "%s: PE %d also calls with uniqueid 0x%llx and pe_idx_in_team %d, which another member "
                           "claims (this PE: pe_idx_in_team %d)",
                           fn, result.other_pe, uniqueid, result.other_value, pe_idx_in_team);
    case kUniqueidNpesMismatch:
      return GSHMEMI_ERROR(GSHMEMX_ERROR_SYMMETRY,
                           "%s: PE %d calls with uniqueid 0x%llx and npes %d, this PE with npes %d: every member "
                           "passes the same npes",
                           fn, result.other_pe, uniqueid, result.other_value, npes);
    case kUniqueidTimeout:
      return GSHMEMI_ERROR(GSHMEMX_ERROR_SYMMETRY,
                           "%s: %d of the %d members with uniqueid 0x%llx arrived within GSHMEM_WAIT_TIMEOUT", fn,
                           result.other_value, npes, uniqueid);
    case kUniqueidPeerLost:
      return GSHMEMI_ERROR(GSHMEMX_ERROR_PEER_LOST, "%s: PE %d's process ended while the team was being made", fn,
                           result.other_pe);
    default:
      return GSHMEMI_ERROR(GSHMEMX_ERROR_INTERNAL, "%s: the agreement kernel answered status %d", fn, result.status);
  }
  // Every member read the same records: the checks below fail on all alike.
  gd::team_desc made;
  if (!gd::desc_of_members(result.members, npes, s->my_pe, &made) || made.my_rank != pe_idx_in_team) {
    std::string list;
    for (int k = 0; k < npes && k < 8; ++k) list += (k ? ", " : "") + std::to_string(result.members[k]);
    if (npes > 8) list += ", ...";
    return GSHMEMI_ERROR(GSHMEMX_ERROR_INVALID_VALUE,
                         "%s: the members' world PEs in index order (%s) are not start + k * stride with stride >= 1; "
                         "gshmem's teams are strided",
                         fn, list.c_str());
  }
  if (result.slot < 0)
    return GSHMEMI_ERROR(GSHMEMX_ERROR_OUT_OF_MEMORY,
                         "%s: no team slot is free on every member: at most GSHMEMX_MAX_TEAMS (%d) teams, the "
                         "predefined ones included, may exist at once on a PE",
                         fn, GSHMEMI_MAX_TEAMS);
  rt.table[result.slot] = made;
  const int rc = write_device_entry_locked(rt, result.slot);
  if (rc != GSHMEM_SUCCESS) {
    rt.table[result.slot] = gd::team_desc{};
    return rc;
  }
  GSHMEMI_INFO("%s: team %d from uniqueid 0x%llx = world PEs %d + %d k, k < %d; this PE is rank %d", fn, result.slot,
               uniqueid, made.start, made.stride, made.size, made.my_rank);
  *team = result.slot;
  return GSHMEM_SUCCESS;
}

int gshmem_team_get_config(gshmem_team_t team, long config_mask, gshmem_team_config_t *config) {
  const char *fn = "gshmem_team_get_config";
  set_last_error(GSHMEM_SUCCESS);
  if (!initialized(fn)) return GSHMEMX_ERROR_NOT_INITIALIZED;
  if (!config) return GSHMEMI_ERROR(GSHMEMX_ERROR_INVALID_VALUE, "%s: config is NULL", fn);
  gd::team_desc d;
  if (!lookup(team, &d)) return report_invalid_team(fn, team);
  if (config_mask & GSHMEM_TEAM_NUM_CONTEXTS) config->num_contexts = 0;  // gshmem has no contexts
  return GSHMEM_SUCCESS;
}

void gshmem_team_destroy(gshmem_team_t team) {
  const char *fn = "gshmem_team_destroy";
  set_last_error(GSHMEM_SUCCESS);
  if (!initialized(fn)) return;
  if (team == GSHMEM_TEAM_INVALID) return;
  if (team >= 0 && team < GSHMEMI_PREDEFINED_TEAMS) {
    GSHMEMI_ERROR(GSHMEMX_ERROR_INVALID_VALUE, "%s: team %d is predefined and cannot be destroyed", fn, team);
    return;
  }
  TeamRuntime &rt = runtime();
  std::lock_guard<std::recursive_mutex> lock(rt.mutex);
  gd::team_desc d;
  if (!lookup_locked(rt, team, &d)) {
    report_invalid_team(fn, team);
    return;
  }
  rt.table[team] = gd::team_desc{};
  write_device_entry_locked(rt, team);
}

int gshmemi_host_team_my_pe(gshmem_team_t team) {
  gd::team_desc d;
  if (!query_team(team, &d)) return -1;
  return d.my_rank;
}

int gshmemi_host_team_n_pes(gshmem_team_t team) {
  gd::team_desc d;
  if (!query_team(team, &d)) return -1;
  return d.size;
}

int gshmemi_host_team_translate_pe(gshmem_team_t src_team, int src_pe, gshmem_team_t dest_team) {
  gd::team_desc from, to;
  if (!query_team(src_team, &from) || !query_team(dest_team, &to)) return -1;
  return gd::team_translate(from, src_pe, to);
}

int gshmemi_host_team_sync(gshmem_team_t team) { return host_sync("gshmem_team_sync", team, false); }

int gshmemi_host_team_barrier(gshmem_team_t team) { return host_sync("gshmemx_team_barrier", team, true); }

int gshmemx_team_sync_on_stream(gshmem_team_t team, cudaStream_t stream) {
  return sync_on_stream("gshmemx_team_sync_on_stream", team, false, stream);
}

int gshmemx_team_barrier_on_stream(gshmem_team_t team, cudaStream_t stream) {
  return sync_on_stream("gshmemx_team_barrier_on_stream", team, true, stream);
}

void gshmemx_sync_all_on_stream(cudaStream_t stream) {
  (void)sync_on_stream("gshmemx_sync_all_on_stream", GSHMEM_TEAM_WORLD, false, stream);
}

// The world team's on-stream barrier (<gshmem/stream.h>): the same protocol
// and epoch as the world team's other on-stream syncs and barriers.
void gshmemx_barrier_all_on_stream(cudaStream_t stream) {
  (void)sync_on_stream("gshmemx_barrier_all_on_stream", GSHMEM_TEAM_WORLD, true, stream);
}

}  // extern "C"
