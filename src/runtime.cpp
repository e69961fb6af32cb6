// init/finalize, the published device state, and the host halves of the
// runtime API declared in <gshmem/runtime.h>.
#include <cuda_runtime.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <climits>
#include <cstdio>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "bootstrap_loader.h"
#include "cuda_util.h"
#include "device_report.h"
#include "env.h"
#include "heap.h"
#include "liveness.h"
#include "log.h"
#include "remote.h"
#include "rma_internal.h"
#include "runtime_internal.h"
#include "stream_internal.h"
#include "team_internal.h"

namespace gshmemi {

namespace {

struct Runtime {
  std::mutex mutex;                 // serializes init and finalize
  std::atomic<bool> initialized{false};
  std::unique_ptr<Bootstrap> boot;
  std::atomic<int> device{-1};
  std::atomic<int> pes_on_device{0};     // PEs of this node on `device`, this one included
  std::unique_ptr<PeerMonitor> monitor;  // null when GSHMEM_PEER_TIMEOUT=0 or one PE
  int *peer_lost_word = nullptr;         // mapped host memory the device waits read
  std::string fault_point;               // GSHMEM_FAULT_INJECT, parsed
  int fault_pe = -1;
};

Runtime &runtime() {
  // Never destroyed: translation units may unregister their publishers from
  // static destructors that run after this file's.
  static Runtime *r = new Runtime;
  return *r;
}

gshmemi_device_state_t host_state;  // zero until init

struct PublisherRegistry {
  std::mutex mutex;
  std::vector<gshmemi_state_publisher_t> publishers;
};

PublisherRegistry &registry() {
  static PublisherRegistry *r = new PublisherRegistry;
  return *r;
}

// Runs `body` with this PE's device current (a unit's __constant__ copy lives
// on each device separately), restoring the caller's device afterwards.
template <typename Body>
int with_runtime_device(Body body) {
  const int device = runtime().device;
  int previous = -1;
  if (device >= 0 && cudaGetDevice(&previous) == cudaSuccess && previous != device)
    GSHMEMI_CUDA_CHECK(cudaSetDevice(device));
  const int rc = body();
  if (device >= 0 && previous >= 0 && previous != device) cudaSetDevice(previous);
  return rc;
}

int publish(gshmemi_state_publisher_t publisher, const gshmemi_device_state_t &state) {
  const int rc = publisher(&state);
  if (rc != 0)
    return GSHMEMI_ERROR(GSHMEMX_ERROR_CUDA,
                         "copying the runtime state into a translation unit's __constant__ "
                         "memory failed: %s",
                         cudaGetErrorString(static_cast<cudaError_t>(rc)));
  return GSHMEM_SUCCESS;
}

int publish_to_all(const gshmemi_device_state_t &state) {
  PublisherRegistry &reg = registry();
  std::lock_guard<std::mutex> lock(reg.mutex);
  return with_runtime_device([&] {
    int status = GSHMEM_SUCCESS;
    for (gshmemi_state_publisher_t p : reg.publishers) {
      const int rc = publish(p, state);
      if (status == GSHMEM_SUCCESS) status = rc;
    }
    GSHMEMI_TRACE("published the device state to %zu translation unit(s)", reg.publishers.size());
    return status;
  });
}

// Makes a local failure collective: every PE learns every PE's status, and
// all return an error if any failed, naming the failing PE. This keeps a PE
// that fails a step from leaving its peers waiting in the next collective.
int agree(Bootstrap &boot, int local_status, const char *step) {
  std::vector<int> all(static_cast<std::size_t>(boot.size()));
  const int rc = boot.allgather(&local_status, all.data(), sizeof(int));
  if (rc == GSHMEMX_ERROR_PEER_LOST && job_lost_pe() >= 0)
    return GSHMEMI_ERROR(rc, "init stops: PE %d is gone (its process ended) after %s", job_lost_pe(), step);
  if (rc == GSHMEMX_ERROR_PEER_LOST)  // the bootstrap saw it first and named it
    return GSHMEMI_ERROR(rc, "init stops: a PE is gone (see the bootstrap's line above) after %s", step);
  if (rc != GSHMEM_SUCCESS)
    return GSHMEMI_ERROR(rc, "exchanging init status after %s failed", step);
  if (local_status != GSHMEM_SUCCESS) return local_status;  // reported where it happened
  int failed = 0, first = -1;
  for (int pe = 0; pe < boot.size(); ++pe)
    if (all[pe] != GSHMEM_SUCCESS && failed++ == 0) first = pe;
  if (failed == 0) return GSHMEM_SUCCESS;
  return GSHMEMI_ERROR(all[first],
                       "init stops on every PE: PE %d%s failed while %s (%s; see that PE's log)",
                       first, failed > 1 ? " and others" : "", step,
                       gshmemx_error_string(all[first]));
}

// GSHMEM_COLLECTIVE_LL and GSHMEM_COLLECTIVE_LL_THREAD_BYTES decide the
// protocol of every member's small collectives, so the PEs must agree: a PE
// that takes the LL path would wait for lines a PE on the two-sync path never
// writes. Every PE sees the same list, so every PE returns the same error.
int agree_on_collective_ll(Bootstrap &boot, bool on, unsigned long long thread_bytes) {
  struct Setting {
    unsigned long long on, thread_bytes;
  };
  const Setting mine{on ? 1ull : 0ull, thread_bytes};
  std::vector<Setting> all(static_cast<std::size_t>(boot.size()));
  GSHMEMI_CHECK(boot.allgather(&mine, all.data(), sizeof(Setting)));
  for (int pe = 1; pe < boot.size(); ++pe) {
    if (all[pe].on != all[0].on)
      return GSHMEMI_ERROR(GSHMEMX_ERROR_INVALID_VALUE,
                           "GSHMEM_COLLECTIVE_LL differs between PEs (PE 0 has %llu, PE %d has %llu): set it alike "
                           "on every PE",
                           all[0].on, pe, all[pe].on);
    if (all[pe].thread_bytes != all[0].thread_bytes)
      return GSHMEMI_ERROR(GSHMEMX_ERROR_INVALID_VALUE,
                           "GSHMEM_COLLECTIVE_LL_THREAD_BYTES differs between PEs (PE 0 has %llu, PE %d has %llu): "
                           "set it alike on every PE",
                           all[0].thread_bytes, pe, all[pe].thread_bytes);
  }
  return GSHMEM_SUCCESS;
}

// The on-stream syncs and barriers (barrier_all_on_stream, the teams') run
// as stream memory operations only for teams no larger than every PE allows
// (each PE must take the same protocol for the same call).
int agree_on_memop_sync(Bootstrap &boot) {
  const int mine = gshmemi_stream_memop_sync_members();
  std::vector<int> all(static_cast<std::size_t>(boot.size()));
  GSHMEMI_CHECK(boot.allgather(&mine, all.data(), sizeof(int)));
  int members = mine;
  for (int m : all) members = std::min(members, m);
  gshmemi_stream_enable_memop_sync(members);
  if (members > 0)
    GSHMEMI_INFO("on-stream syncs and barriers: stream memory operations for teams of up to %d members outside "
                 "capture, a kernel otherwise",
                 members);
  else
    GSHMEMI_INFO("on-stream syncs and barriers: a kernel (a PE's device lacks 64-bit stream memory operations, "
                 "or GSHMEM_STREAM_OPS=kernels)");
  return GSHMEM_SUCCESS;
}

// Sends a first burst of traffic to every mapped peer: zeros over the peer's
// internal scratch (the teams' LL rings and staging), which its heap_init
// zeroed and nothing uses before init's closing barrier. Without it the
// first collectives of a process paid for the path's first use (2 x H200,
// NVLink, a one-thread 4-byte int sum reduction in a loop: 12.5 us a call for
// the first 60 calls, 5.0 and 4.0 for the next 120, then 1.9, on both PEs at
// a steady SM clock; with 64 KiB written to the peer first, 1.9 from the
// first call; 4 KiB was not enough). A failure only costs that first use
// again: a warning, and init goes on (GSHMEM_WARM_PEER_PATHS=0 skips it, to
// measure that first use: gshmem_perf_first_calls). The writes are complete
// when this returns (on a stream of their own, not waiting for other device
// work): none lands on a ring a call already uses.
void warm_peer_paths(const gshmemi_device_state_t &state) {
  cudaStream_t stream = nullptr;
  cudaError_t err = cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
  int failed_pe = -1;
  for (int pe = 0; pe < state.n_pes && err == cudaSuccess; ++pe) {
    if (pe == state.my_pe || state.peer_base[pe] == nullptr) continue;
    failed_pe = pe;
    err = cudaMemsetAsync(state.peer_base[pe] + GSHMEMI_INTERNAL_SCRATCH_OFFSET, 0, GSHMEMI_INTERNAL_SCRATCH_BYTES,
                          stream);
  }
  if (stream != nullptr) {
    const cudaError_t done = cudaStreamSynchronize(stream);
    if (err == cudaSuccess) err = done;
    (void)cudaStreamDestroy(stream);
  }
  if (err != cudaSuccess) {
    (void)cudaGetLastError();
    GSHMEMI_WARN("init: the first write to the peers' heaps failed (PE %d: %s); the first collectives may be slower",
                 failed_pe, cudaGetErrorString(err));
  }
}

// --- peer liveness (src/liveness.h)

// GSHMEM_FAULT_INJECT="<point>:<pe>": a testing aid for the fault tests.
int parse_fault_injection(const std::string &text, std::string *point, int *pe, std::string *why) {
  point->clear();
  *pe = -1;
  if (text.empty()) return GSHMEM_SUCCESS;
  const std::size_t colon = text.find(':');
  const std::string name = text.substr(0, colon);
  char *end = nullptr;
  const long value = colon == std::string::npos ? -1 : std::strtol(text.c_str() + colon + 1, &end, 10);
  const bool known = name == "init" || name == "malloc" || name == "barrier" || name == "finalize";
  if (!known || value < 0 || !end || *end != '\0' || end == text.c_str() + colon + 1) {
    *why = "GSHMEM_FAULT_INJECT='" + text + "': expected '<point>:<pe>' with point init, malloc, barrier or finalize";
    return GSHMEMX_ERROR_ENVIRONMENT;
  }
  *point = name;
  *pe = static_cast<int>(value);
  return GSHMEM_SUCCESS;
}

// Ends this process with SIGKILL at `point` if GSHMEM_FAULT_INJECT asks for it.
void maybe_inject_fault(const char *point, int my_pe) {
  const Runtime &rt = runtime();
  if (rt.fault_pe != my_pe || rt.fault_point != point) return;
  timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  std::fprintf(stderr, "gshmem[PE %d] GSHMEM_FAULT_INJECT: killing this PE at %s t=%lld\n", my_pe, point,
               static_cast<long long>(now.tv_sec) * 1000 + now.tv_nsec / 1000000);
  std::fflush(stderr);
  raise(SIGKILL);
}

// Exchanges process ids and starts watching the peers of this node. A
// failure to watch is not fatal (logged; the job runs unwatched).
int start_peer_monitor(Bootstrap &boot, const std::vector<int> &node_of_pe, double timeout_s,
                       std::unique_ptr<PeerMonitor> *out) {
  const int64_t mine = static_cast<int64_t>(getpid());
  std::vector<int64_t> all(static_cast<std::size_t>(boot.size()));
  GSHMEMI_CHECK(boot.allgather(&mine, all.data(), sizeof mine));
  if (timeout_s <= 0 || boot.size() < 2) return GSHMEM_SUCCESS;
  std::vector<pid_t> pids(all.size(), 0);
  for (std::size_t pe = 0; pe < all.size(); ++pe)
    if (node_of_pe[pe] == node_of_pe[boot.rank()]) pids[pe] = static_cast<pid_t>(all[pe]);
  const int period_ms = static_cast<int>(std::min(1000.0, std::max(10.0, timeout_s * 1000.0 / 4)));
  auto monitor = std::make_unique<PeerMonitor>(boot.rank(), std::move(pids), period_ms);
  monitor->set_loss_hook([](int lost_pe) {
    // On-stream memop waits are watched by nothing on the device: end this
    // PE's device work so that they fail rather than wait forever.
    const int device = runtime().device.load();
    if (device >= 0) gshmemi_stream_end_device_work(device, lost_pe);
  });
  if (monitor->start() == 0) *out = std::move(monitor);
  return GSHMEM_SUCCESS;
}

// The device-visible word the monitor raises (mapped, portable host memory).
int allocate_peer_lost_word(int **host_word, const int **device_word) {
  void *p = nullptr, *d = nullptr;
  GSHMEMI_CUDA_CHECK(cudaHostAlloc(&p, 64, cudaHostAllocMapped | cudaHostAllocPortable));
  std::memset(p, 0, 64);
  const cudaError_t rc = cudaHostGetDevicePointer(&d, p, 0);
  if (rc != cudaSuccess) {
    cudaFreeHost(p);
    return GSHMEMI_ERROR(GSHMEMX_ERROR_CUDA, "cudaHostGetDevicePointer failed: %s", cudaGetErrorString(rc));
  }
  *host_word = static_cast<int *>(p);
  *device_word = static_cast<const int *>(d);
  return GSHMEM_SUCCESS;
}

void stop_peer_monitor(Runtime &rt) {
  if (rt.monitor) rt.monitor->stop();
  rt.monitor.reset();
  // cudaFreeHost waits for the device, whose work may never end once a peer
  // is gone: then the word stays until the process exits.
  if (rt.peer_lost_word && job_lost_pe() < 0) cudaFreeHost(rt.peer_lost_word);
  (void)cudaGetLastError();
  rt.peer_lost_word = nullptr;
}

// True when every peer is alive; else logs that `routine` cannot go on
// (naming the lost PE), records GSHMEMX_ERROR_PEER_LOST and returns false.
bool require_peers(const char *routine) {
  const int lost = job_lost_pe();
  if (lost < 0) return true;
  GSHMEMI_ERROR(GSHMEMX_ERROR_PEER_LOST, "%s: PE %d is gone (its process ended); the job cannot go on",
                routine, lost);
  return false;
}

// A bootstrap collective of `routine` failed with rc: says why, naming the
// lost PE when that was the cause. Returns rc.
int report_collective_failure(int rc, const char *routine) {
  if (rc == GSHMEMX_ERROR_PEER_LOST && job_lost_pe() >= 0)
    return GSHMEMI_ERROR(rc, "%s: PE %d is gone (its process ended); the job cannot go on", routine,
                         job_lost_pe());
  if (rc == GSHMEMX_ERROR_PEER_LOST)  // the bootstrap saw it first and named it
    return GSHMEMI_ERROR(rc, "%s: a PE is gone (see the bootstrap's line above); the job cannot go on", routine);
  return GSHMEMI_ERROR(rc, "%s: the bootstrap collective failed", routine);
}

struct NodeLayout {
  std::vector<int> node_of_pe;
  int local_rank = 0;  // among the PEs of this node
  int local_size = 1;
  std::string hostname;
};

int discover_nodes(Bootstrap &boot, NodeLayout *layout) {
  constexpr std::size_t kNameBytes = 256;
  char mine[kNameBytes] = {};
  if (gethostname(mine, kNameBytes - 1) != 0) std::strncpy(mine, "unknown-host", kNameBytes - 1);
  std::vector<char> all(kNameBytes * static_cast<std::size_t>(boot.size()));
  GSHMEMI_CHECK(boot.allgather(mine, all.data(), kNameBytes));
  std::vector<std::string> nodes;
  layout->node_of_pe.assign(static_cast<std::size_t>(boot.size()), 0);
  layout->local_rank = 0;
  layout->local_size = 0;
  for (int pe = 0; pe < boot.size(); ++pe) {
    const std::string name(&all[kNameBytes * pe], strnlen(&all[kNameBytes * pe], kNameBytes));
    auto it = std::find(nodes.begin(), nodes.end(), name);
    if (it == nodes.end()) it = nodes.insert(nodes.end(), name);
    layout->node_of_pe[pe] = static_cast<int>(it - nodes.begin());
    if (name == mine) {
      if (pe < boot.rank()) ++layout->local_rank;
      ++layout->local_size;
    }
  }
  layout->hostname = mine;
  return GSHMEM_SUCCESS;
}

int select_device(Bootstrap &boot, const NodeLayout &layout, bool allow_sharing, int *device) {
  int count = 0;
  std::string why;
  if (count_devices(&count, &why) != GSHMEM_SUCCESS)
    return GSHMEMI_ERROR(GSHMEMX_ERROR_NO_DEVICE, "this PE has no usable GPU: %s", why.c_str());
  if (layout.local_size > count && !allow_sharing)
    return GSHMEMI_ERROR(GSHMEMX_ERROR_TOO_FEW_DEVICES,
                         "%d PEs run on node %s but only %d GPU(s) are visible to each; start "
                         "at most %d PEs per node, or set GSHMEM_ALLOW_GPU_SHARING=1",
                         layout.local_size, layout.hostname.c_str(), count, count);
  int chosen = -1;
  const char *how;
  if (boot.device() >= 0) {
    chosen = boot.device();
    how = "the device of the NCCL communicator";
  } else if (program_chose_device(&chosen)) {
    how = "chosen by the program before init";
  } else {
    chosen = layout.local_rank % count;
    how = "node-local rank modulo visible GPUs";
  }
  if (chosen < 0 || chosen >= count)
    return GSHMEMI_ERROR(GSHMEMX_ERROR_NO_DEVICE, "device %d is not one of the %d visible", chosen, count);
  GSHMEMI_CUDA_CHECK(cudaSetDevice(chosen));
  GSHMEMI_CUDA_CHECK(cudaFree(nullptr));  // create the context now, so failures show here
  GSHMEMI_INFO("using GPU %d of %d (%s; node-local rank %d of %d on %s)", chosen, count, how,
               layout.local_rank, layout.local_size, layout.hostname.c_str());
  *device = chosen;
  (void)boot;
  return GSHMEM_SUCCESS;
}

// Two PEs of one node on the same GPU (e.g. both made GPU 0 current before
// init, which any CUDA call that creates a context does) would time-share it
// and spin against each other: an error unless sharing was asked for. GPUs
// are compared by PCI bus id, since device numbers depend on each process's
// CUDA_VISIBLE_DEVICES. Collective; every PE computes the same verdict.
// On success *pes_on_gpu is how many PEs of this node use this PE's GPU (1
// unless sharing is allowed).
int check_distinct_gpus(Bootstrap &boot, const NodeLayout &layout, bool allow_sharing, int device,
                        int *pes_on_gpu) {
  constexpr std::size_t kIdBytes = 32;
  char mine[kIdBytes] = {};
  if (cudaDeviceGetPCIBusId(mine, kIdBytes - 1, device) != cudaSuccess) {
    (void)cudaGetLastError();
    std::snprintf(mine, kIdBytes, "device-%d", device);
  }
  std::vector<char> all(kIdBytes * static_cast<std::size_t>(boot.size()));
  GSHMEMI_CHECK(boot.allgather(mine, all.data(), kIdBytes));
  const int me = boot.rank();
  *pes_on_gpu = 0;
  for (int b = 0; b < boot.size(); ++b)
    if (layout.node_of_pe[b] == layout.node_of_pe[me] && std::strncmp(&all[b * kIdBytes], mine, kIdBytes) == 0)
      ++*pes_on_gpu;
  if (allow_sharing) return GSHMEM_SUCCESS;
  for (int a = 0; a < boot.size(); ++a)
    for (int b = a + 1; b < boot.size(); ++b)
      if (layout.node_of_pe[a] == layout.node_of_pe[b] &&
          std::strncmp(&all[a * kIdBytes], &all[b * kIdBytes], kIdBytes) == 0)
        return GSHMEMI_ERROR(GSHMEMX_ERROR_TOO_FEW_DEVICES,
                             "PE %d and PE %d would both use GPU %s: a program that made a GPU current "
                             "before gshmem_init (any CUDA call that creates a context does) must give "
                             "each PE its own (cudaSetDevice(local_rank %% n)), or set "
                             "GSHMEM_ALLOW_GPU_SHARING=1",
                             a, b, &all[a * kIdBytes]);
  return GSHMEM_SUCCESS;
}

void warn_if_lazy_loading() {
  static std::atomic<bool> warned{false};
  if (!lazy_module_loading() || warned.exchange(true)) return;
  GSHMEMI_WARN(
      "CUDA lazy module loading is on (CUDA_MODULE_LOADING unset or LAZY). A kernel that spins "
      "waiting for a peer GPU can deadlock with a kernel whose first launch is still loading on "
      "another GPU. gshmem's own kernels are loaded at init, but your kernels are not: set "
      "CUDA_MODULE_LOADING=EAGER in the job environment to be safe.");
}

// For GSHMEMX_INIT_WITH_UNIQUEID from an NCCL id the communicator is created on the
// current device, before the runtime can learn the node layout; unless the
// program already chose one, use rank modulo visible GPUs (right for one node
// with one PE per GPU; multi-node programs should set the device themselves).
void preselect_device_for_uniqueid(const gshmemx_init_attr_t *attr) {
  int device = -1, count = 0;
  if (program_chose_device(&device)) return;
  if (count_devices(&count, nullptr) != GSHMEM_SUCCESS) return;
  if (cudaSetDevice(attr->rank % count) != cudaSuccess) (void)cudaGetLastError();
}

int init_locked(unsigned int flags, gshmemx_init_attr_t *attr) {
  Runtime &rt = runtime();
  if (rt.initialized.load())
    return GSHMEMI_ERROR(GSHMEMX_ERROR_ALREADY_INITIALIZED,
                         "gshmem_init called twice; call gshmem_finalize first");
  Env settings;
  std::string env_problem;
  int env_status = load_env(&settings, &env_problem);  // reported once the PE is known
  if (env_status == GSHMEM_SUCCESS)
    env_status = parse_fault_injection(settings.FAULT_INJECT, &rt.fault_point, &rt.fault_pe, &env_problem);
  RemoteSettings remote_settings;
  if (env_status == GSHMEM_SUCCESS) env_status = parse_remote_settings(settings, &remote_settings, &env_problem);

  // Only an NCCL id needs a device before the bootstrap; with a socket id the
  // runtime picks one from the node layout, as under mpirun.
  if ((flags & GSHMEMX_INIT_WITH_UNIQUEID) && attr && attr->nranks > 0 && attr->rank >= 0 &&
      attr->nccl_unique_id && !is_socket_uniqueid(attr->nccl_unique_id))
    preselect_device_for_uniqueid(attr);
  std::unique_ptr<Bootstrap> boot;
  const int boot_status = create_bootstrap(flags, attr, &boot);
  if (boot_status != GSHMEM_SUCCESS) {
    if (env_status != GSHMEM_SUCCESS) GSHMEMI_ERROR(env_status, "%s", env_problem.c_str());
    return boot_status;
  }
  set_log_pe(boot->rank());
  if (env_status != GSHMEM_SUCCESS) env_status = GSHMEMI_ERROR(env_status, "%s", env_problem.c_str());
  GSHMEMI_INFO("bootstrap %s: PE %d of %d", boot->name(), boot->rank(), boot->size());

  // From here on every failure is agreed on, so all PEs return together.
  reset_job_lost_pe();
  bool reports_open = false;
  auto give_up = [&](int rc) {
    if (reports_open) device_reports_close(true);
    stop_peer_monitor(rt);
    rt.device = -1;
    boot.reset();
    set_log_pe(-1);
    return rc;
  };
  int rc = agree(*boot, env_status, "reading the GSHMEM_* environment");
  if (rc) return give_up(rc);
  rc = agree_on_collective_ll(*boot, settings.COLLECTIVE_LL, settings.COLLECTIVE_LL_THREAD_BYTES);
  if (rc) return give_up(rc);
  if (boot->size() > GSHMEMI_MAX_PES)
    return give_up(GSHMEMI_ERROR(GSHMEMX_ERROR_NOT_SUPPORTED, "%d PEs exceed the maximum of %d",
                                 boot->size(), GSHMEMI_MAX_PES));

  NodeLayout layout;
  rc = agree(*boot, discover_nodes(*boot, &layout), "exchanging host names");
  if (rc) return give_up(rc);
  // From here a PE whose process ends makes its peers' waits fail, not hang.
  rc = agree(*boot, start_peer_monitor(*boot, layout.node_of_pe, settings.PEER_TIMEOUT, &rt.monitor),
             "starting the peer liveness monitor");
  if (rc) return give_up(rc);
  maybe_inject_fault("init", boot->rank());

  int device = -1;
  rc = agree(*boot, select_device(*boot, layout, settings.ALLOW_GPU_SHARING, &device),
             "selecting a GPU");
  if (rc) return give_up(rc);
  rt.device = device;
  int pes_on_gpu = 1;
  rc = agree(*boot, check_distinct_gpus(*boot, layout, settings.ALLOW_GPU_SHARING, device, &pes_on_gpu),
             "checking that PEs use distinct GPUs");
  if (rc) return give_up(rc);
  rt.pes_on_device = pes_on_gpu;
  warn_if_lazy_loading();

  HeapConfig config;
  config.bytes = attr && attr->heap_size ? attr->heap_size : settings.SYMMETRIC_SIZE;
  config.use_vmm = !settings.DISABLE_VMM;
  config.max_bytes = settings.MAX_SYMMETRIC_SIZE;
  config.registration_bytes = settings.REGISTRATION_SPACE;
  config.device = device;
  config.node_of_pe = layout.node_of_pe;
  // Remote peers (docs/remote.md): a pair is remote when either PE asks for
  // GSHMEM_REMOTE_PEERS=all (never mapped), or when the heap cannot map it.
  std::vector<unsigned char> wants_all(static_cast<std::size_t>(boot->size()), 0);
  {
    const unsigned char mine = remote_settings.mode == RemotePeersMode::all ? 1 : 0;
    rc = agree(*boot, boot->allgather(&mine, wants_all.data(), 1), "exchanging GSHMEM_REMOTE_PEERS");
    if (rc) return give_up(rc);
  }
  config.unmapped_peers = classify_peers(boot->rank(), boot->size(), wants_all, {});
  gshmemi_device_state_t state{};
  state.my_pe = boot->rank();
  state.n_pes = boot->size();
  state.wait_timeout_ns = static_cast<unsigned long long>(seconds_to_ns(settings.WAIT_TIMEOUT));
  state.collective_ll = settings.COLLECTIVE_LL ? 1 : 0;  // agreed above
  state.collective_ll_thread_bytes = settings.COLLECTIVE_LL_THREAD_BYTES;
  if (rt.monitor) {
    rc = agree(*boot, allocate_peer_lost_word(&rt.peer_lost_word, &state.peer_lost_word),
               "allocating the peer-loss word");
    if (rc) return give_up(rc);
    rt.monitor->set_abort_word(rt.peer_lost_word);
  }
  rc = agree(*boot, device_reports_open(&state.report), "mapping the device failure reports");
  if (rc) return give_up(rc);
  reports_open = true;
  rc = agree(*boot, heap_init(*boot, config, &state), "creating the symmetric heap");
  if (rc) return give_up(rc);
  std::vector<unsigned char> remote;
  bool job_has_remote = false;
  {
    const int n = boot->size();
    std::vector<unsigned char> row(static_cast<std::size_t>(n), 0), maps(static_cast<std::size_t>(n) * n, 0);
    for (int pe = 0; pe < n; ++pe) row[pe] = state.peer_base[pe] != nullptr ? 1 : 0;
    rc = agree(*boot, boot->allgather(row.data(), maps.data(), row.size()), "exchanging which heaps are mapped");
    if (rc) {
      heap_finalize(*boot);
      return give_up(rc);
    }
    remote = classify_peers(boot->rank(), n, wants_all, maps);
    job_has_remote = job_has_remote_pair(n, wants_all, maps);
    for (int pe = 0; pe < n; ++pe)
      if (remote[pe]) state.peer_base[pe] = nullptr;  // gshmem_ptr gives NULL; device routines queue requests
  }
  // Waits on remote requests end through the word the liveness monitor
  // raises; the proxy raises it too, so a job with remote peers has one.
  if (job_has_remote && rt.peer_lost_word == nullptr) {
    rc = agree(*boot, allocate_peer_lost_word(&rt.peer_lost_word, &state.peer_lost_word),
               "allocating the peer-loss word");
    if (rc) {
      heap_finalize(*boot);
      return give_up(rc);
    }
  }

  gshmemi_set_peer_reach(&state);  // peer_base is final: remote peers were cleared above
  state.initialized = 1;
  host_state = state;
  rc = agree(*boot, publish_to_all(host_state), "publishing the device state");
  // The on-stream kernels load now (never lazily behind a spinning peer) and
  // their counters are zeroed before the closing barrier lets peers use them.
  if (rc == GSHMEM_SUCCESS) rc = agree(*boot, gshmemi_stream_init(), "preparing the on-stream routines");
  if (rc == GSHMEM_SUCCESS) rc = agree_on_memop_sync(*boot);
  if (rc == GSHMEM_SUCCESS) rc = agree(*boot, gshmemi_host_rma_init(), "preparing host RMA");
  // With remote peers: the transport, the proxy and its queue (the state is
  // published again with the queue in it); none of it otherwise.
  if (rc == GSHMEM_SUCCESS)
    rc = agree(*boot, remote_init(*boot, remote_settings, device, remote, job_has_remote, layout.node_of_pe,
                                 rt.peer_lost_word, &host_state),
               "starting the proxy for remote peers");
  if (rc == GSHMEM_SUCCESS && remote_active()) rc = agree(*boot, publish_to_all(host_state), "publishing the device state");
  if (rc == GSHMEM_SUCCESS) rc = agree(*boot, gshmemi_team_init(), "preparing the teams");
  if (rc == GSHMEM_SUCCESS && settings.WARM_PEER_PATHS) warm_peer_paths(host_state);
  if (rc == GSHMEM_SUCCESS) rc = boot->barrier();
  if (rc) {
    remote_finalize(false);
    gshmemi_team_finalize();
    gshmemi_host_rma_finalize();
    host_state = gshmemi_device_state_t{};
    publish_to_all(host_state);
    heap_finalize(*boot);
    return give_up(rc);
  }
  rt.boot = std::move(boot);
  rt.initialized.store(true);
  GSHMEMI_INFO("initialized: %d PEs, heap %llu bytes per PE", state.n_pes, state.heap_size);
  return GSHMEM_SUCCESS;
}

bool require_init(const char *routine) {
  if (runtime().initialized.load()) return true;
  GSHMEMI_ERROR(GSHMEMX_ERROR_NOT_INITIALIZED, "%s called before gshmem_init (or after gshmem_finalize)",
                routine);
  return false;
}

}  // namespace

int pes_sharing_this_gpu() { return runtime().pes_on_device.load(); }

// Exported for tests that need the live bootstrap (nullptr when not initialized).
GSHMEM_API Bootstrap *current_bootstrap() { return runtime().boot.get(); }

}  // namespace gshmemi

using namespace gshmemi;

extern "C" {

int gshmemx_init_attr(unsigned int flags, gshmemx_init_attr_t *attr) {
  std::lock_guard<std::mutex> lock(runtime().mutex);
  set_last_error(GSHMEM_SUCCESS);
  return init_locked(flags, attr);
}

int gshmem_init(void) { return gshmemx_init_attr(0, nullptr); }

int gshmemx_initialized(void) { return runtime().initialized.load() ? 1 : 0; }

void gshmem_finalize(void) {
  Runtime &rt = runtime();
  std::lock_guard<std::mutex> lock(rt.mutex);
  set_last_error(GSHMEM_SUCCESS);
  if (!require_init("gshmem_finalize")) return;
  Bootstrap &boot = *rt.boot;
  maybe_inject_fault("finalize", boot.rank());
  // A peer can be found gone at any step here (in the barrier, say), so each
  // step that depends on it asks again.
  const auto all_alive = [] { return job_lost_pe() < 0; };
  // With a peer gone, device work may never finish (a program's NCCL
  // communicator has a collective stuck on the lost rank): do not wait for it.
  const cudaError_t sync = all_alive() ? cudaDeviceSynchronize() : cudaSuccess;
  if (sync != cudaSuccess)
    GSHMEMI_ERROR(GSHMEMX_ERROR_CUDA, "device work failed before gshmem_finalize: %s",
                  cudaGetErrorString(sync));
  // Nobody may still be reading peers' heaps when they go away. With a peer
  // gone the collectives are skipped: this PE only releases what it holds.
  if (require_peers("gshmem_finalize")) {
    const int b = boot.barrier();
    if (b != GSHMEM_SUCCESS) report_collective_failure(b, "gshmem_finalize");
  }
  rt.initialized.store(false);
  // The proxy drains what kernels queued, then the transport closes
  // (collectively, unless a peer is gone).
  remote_finalize(all_alive());
  // Their releases wait for the device, which may never finish once a peer
  // is gone: then they stay until the process exits.
  if (all_alive()) {
    gshmemi_team_finalize();
    gshmemi_host_rma_finalize();
  }
  local_records_finalize(all_alive());
  host_state = gshmemi_device_state_t{};
  publish_to_all(host_state);
  // What kernels recorded is printed now at the latest; after a trap the
  // context cannot free the area.
  device_reports_close(sync == cudaSuccess && all_alive());
  const int rc = heap_finalize(boot, all_alive());
  if (rc != GSHMEM_SUCCESS) report_collective_failure(rc, "gshmem_finalize (releasing the symmetric heap)");
  // Every PE passed the heap's last collective: peers may now end normally.
  if (rt.monitor) rt.monitor->expect_exits();
  rt.boot.reset();  // closes the bootstrap (and MPI, if gshmem started it)
  stop_peer_monitor(rt);
  rt.device = -1;
  rt.pes_on_device = 0;
  if (!all_alive()) set_last_error(GSHMEMX_ERROR_PEER_LOST);
  set_log_pe(-1);
}

int gshmemi_host_my_pe(void) {
  if (!runtime().initialized.load()) {
    set_last_error(GSHMEMX_ERROR_NOT_INITIALIZED);
    return -1;
  }
  return host_state.my_pe;
}

int gshmemi_host_n_pes(void) {
  if (!runtime().initialized.load()) {
    set_last_error(GSHMEMX_ERROR_NOT_INITIALIZED);
    return -1;
  }
  return host_state.n_pes;
}

void *gshmemi_host_ptr(const void *dest, int pe) {
  if (!runtime().initialized.load()) {
    set_last_error(GSHMEMX_ERROR_NOT_INITIALIZED);
    return nullptr;
  }
  if (pe < 0 || pe >= host_state.n_pes) {
    set_last_error(GSHMEMX_ERROR_INVALID_PE);
    return nullptr;
  }
  const char *d = static_cast<const char *>(dest);
  if (!heap_contains(dest, 1) && !registered_contains(dest, 1)) {
    set_last_error(GSHMEMX_ERROR_NOT_SYMMETRIC);
    return nullptr;
  }
  char *base = host_state.peer_base[pe];
  return base ? base + (d - host_state.heap_base) : nullptr;
}

namespace {
// A collective allocation may have grown the heap (src/heap/heap.cpp): the
// host's view of its size follows, for the host routines' argument checks.
// The device copies keep the size at init: device code bounds symmetric
// addresses by symmetric_span, which covers the whole slot growth happens in.
void *note_heap_size(void *block) {
  host_state.heap_size = heap_mapped_bytes();
  return block;
}
}  // namespace

void *gshmem_align(size_t alignment, size_t size) {
  set_last_error(GSHMEM_SUCCESS);
  if (!require_init("gshmem_align") || !require_peers("gshmem_align")) return nullptr;
  return note_heap_size(heap_allocate(*runtime().boot, alignment, size));
}

void *gshmem_malloc(size_t size) {
  set_last_error(GSHMEM_SUCCESS);
  if (!require_init("gshmem_malloc") || !require_peers("gshmem_malloc")) return nullptr;
  maybe_inject_fault("malloc", host_state.my_pe);
  return note_heap_size(heap_malloc(*runtime().boot, size));
}

void *gshmem_calloc(size_t count, size_t size) {
  set_last_error(GSHMEM_SUCCESS);
  if (!require_init("gshmem_calloc") || !require_peers("gshmem_calloc")) return nullptr;
  return note_heap_size(heap_calloc(*runtime().boot, count, size));
}

void gshmem_free(void *ptr) {
  set_last_error(GSHMEM_SUCCESS);
  if (!require_init("gshmem_free") || !require_peers("gshmem_free")) return;
  heap_release(*runtime().boot, ptr);
}

void *gshmemx_buffer_register_symmetric(void *buf_ptr, size_t size, int flags) {
  set_last_error(GSHMEM_SUCCESS);
  if (!require_init("gshmemx_buffer_register_symmetric") || !require_peers("gshmemx_buffer_register_symmetric"))
    return nullptr;
  return heap_register_buffer(*runtime().boot, buf_ptr, size, flags);
}

int gshmemx_buffer_unregister_symmetric(void *mmap_ptr, size_t size) {
  set_last_error(GSHMEM_SUCCESS);
  if (!require_init("gshmemx_buffer_unregister_symmetric")) return GSHMEMX_ERROR_NOT_INITIALIZED;
  if (!require_peers("gshmemx_buffer_unregister_symmetric")) return GSHMEMX_ERROR_PEER_LOST;
  return heap_unregister_buffer(*runtime().boot, mmap_ptr, size);
}

void gshmemi_host_barrier_all(void) {
  set_last_error(GSHMEM_SUCCESS);
  if (!require_init("gshmem_barrier_all") || !require_peers("gshmem_barrier_all")) return;
  maybe_inject_fault("barrier", host_state.my_pe);
  const cudaError_t rc = cudaDeviceSynchronize();
  if (rc != cudaSuccess)
    GSHMEMI_ERROR(GSHMEMX_ERROR_CUDA, "gshmem_barrier_all: device work failed: %s", cudaGetErrorString(rc));
  // Requests kernels queued for remote peers are carried out first.
  if (remote_host_quiet("gshmem_barrier_all") != GSHMEM_SUCCESS) return;
  // The bootstrap's collective orders the host threads; device stores made
  // before cudaDeviceSynchronize returned are visible system-wide by then.
  const int b = runtime().boot->barrier();
  if (b != GSHMEM_SUCCESS) report_collective_failure(b, "gshmem_barrier_all");
}

void gshmemi_host_sync_all(void) {
  set_last_error(GSHMEM_SUCCESS);
  if (!require_init("gshmem_sync_all") || !require_peers("gshmem_sync_all")) return;
  std::atomic_thread_fence(std::memory_order_seq_cst);
  const int b = runtime().boot->barrier();
  if (b != GSHMEM_SUCCESS) report_collective_failure(b, "gshmem_sync_all");
}

namespace {
// On the host, fence and quiet order and complete the calling thread's
// stores to mapped peer memory and the PE's host RMA and atomics (which run
// in issue order on one stream: quiet waits for it, fence needs nothing
// more). Neither waits for device work: a kernel spinning on a peer would
// otherwise block them.
void host_memory_fence(const char *routine, bool complete_host_rma) {
  set_last_error(GSHMEM_SUCCESS);
  if (!require_init(routine)) return;
  if (complete_host_rma) {
    gshmemi_host_rma_quiet();
    (void)remote_host_quiet(routine);  // what kernels queued for remote peers (logged on failure)
  }
  std::atomic_thread_fence(std::memory_order_seq_cst);
}
}  // namespace

void gshmemi_host_quiet(void) { host_memory_fence("gshmem_quiet", true); }

void gshmemi_host_fence(void) { host_memory_fence("gshmem_fence", false); }

void gshmemi_register_state_publisher(gshmemi_state_publisher_t publisher) {
  if (!publisher) return;
  PublisherRegistry &reg = registry();
  std::lock_guard<std::mutex> lock(reg.mutex);
  if (std::find(reg.publishers.begin(), reg.publishers.end(), publisher) != reg.publishers.end())
    return;
  reg.publishers.push_back(publisher);
  // A unit loaded after init (a library dlopen'ed later) gets the state now.
  if (host_state.initialized) with_runtime_device([&] { return publish(publisher, host_state); });
}

void gshmemi_unregister_state_publisher(gshmemi_state_publisher_t publisher) {
  PublisherRegistry &reg = registry();
  std::lock_guard<std::mutex> lock(reg.mutex);
  reg.publishers.erase(std::remove(reg.publishers.begin(), reg.publishers.end(), publisher),
                       reg.publishers.end());
}

const gshmemi_device_state_t *gshmemi_host_state(void) { return &host_state; }

}  // extern "C"
