// init/finalize, the published device state, and the host halves of the
// runtime API declared in <gshmem/runtime.h>.
#include <cuda_runtime.h>
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
#include "env.h"
#include "heap.h"
#include "../host/stream_internal.h"
#include "../host/team_internal.h"
#include "log.h"

namespace gshmemi {

namespace {

struct Runtime {
  std::mutex mutex;                 // serializes init and finalize
  std::atomic<bool> initialized{false};
  std::unique_ptr<Bootstrap> boot;
  int device = -1;
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
int check_distinct_gpus(Bootstrap &boot, const NodeLayout &layout, bool allow_sharing, int device) {
  constexpr std::size_t kIdBytes = 32;
  char mine[kIdBytes] = {};
  if (cudaDeviceGetPCIBusId(mine, kIdBytes - 1, device) != cudaSuccess) {
    (void)cudaGetLastError();
    std::snprintf(mine, kIdBytes, "device-%d", device);
  }
  std::vector<char> all(kIdBytes * static_cast<std::size_t>(boot.size()));
  GSHMEMI_CHECK(boot.allgather(mine, all.data(), kIdBytes));
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

// For GSHMEMX_INIT_WITH_UNIQUEID the NCCL communicator is created on the
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

  if ((flags & GSHMEMX_INIT_WITH_UNIQUEID) && attr && attr->nranks > 0 && attr->rank >= 0)
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
  auto give_up = [&](int rc) {
    boot.reset();
    set_log_pe(-1);
    return rc;
  };
  int rc = agree(*boot, env_status, "reading the GSHMEM_* environment");
  if (rc) return give_up(rc);
  if (boot->size() > GSHMEMI_MAX_PES)
    return give_up(GSHMEMI_ERROR(GSHMEMX_ERROR_NOT_SUPPORTED, "%d PEs exceed the maximum of %d",
                                 boot->size(), GSHMEMI_MAX_PES));

  NodeLayout layout;
  rc = agree(*boot, discover_nodes(*boot, &layout), "exchanging host names");
  if (rc) return give_up(rc);

  int device = -1;
  rc = agree(*boot, select_device(*boot, layout, settings.ALLOW_GPU_SHARING, &device),
             "selecting a GPU");
  if (rc) return give_up(rc);
  rt.device = device;
  rc = agree(*boot, check_distinct_gpus(*boot, layout, settings.ALLOW_GPU_SHARING, device),
             "checking that PEs use distinct GPUs");
  if (rc) {
    rt.device = -1;
    return give_up(rc);
  }
  warn_if_lazy_loading();

  HeapConfig config;
  config.bytes = attr && attr->heap_size ? attr->heap_size : settings.SYMMETRIC_SIZE;
  config.use_vmm = !settings.DISABLE_VMM;
  config.device = device;
  config.node_of_pe = layout.node_of_pe;
  gshmemi_device_state_t state{};
  state.my_pe = boot->rank();
  state.n_pes = boot->size();
  state.wait_timeout_ns = static_cast<unsigned long long>(settings.WAIT_TIMEOUT * 1e9);
  rc = agree(*boot, heap_init(*boot, config, &state), "creating the symmetric heap");
  if (rc) {
    rt.device = -1;
    return give_up(rc);
  }

  state.initialized = 1;
  host_state = state;
  rc = agree(*boot, publish_to_all(host_state), "publishing the device state");
  // The on-stream kernels load now (never lazily behind a spinning peer) and
  // their counters are zeroed before the closing barrier lets peers use them.
  if (rc == GSHMEM_SUCCESS) rc = agree(*boot, gshmemi_stream_init(), "preparing the on-stream routines");
  if (rc == GSHMEM_SUCCESS) rc = agree(*boot, gshmemi_team_init(), "preparing the teams");
  if (rc == GSHMEM_SUCCESS) rc = boot->barrier();
  if (rc) {
    gshmemi_team_finalize();
    host_state = gshmemi_device_state_t{};
    publish_to_all(host_state);
    heap_finalize(*boot);
    rt.device = -1;
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
  if (!require_init("gshmem_finalize")) return;
  const cudaError_t sync = cudaDeviceSynchronize();
  if (sync != cudaSuccess)
    GSHMEMI_ERROR(GSHMEMX_ERROR_CUDA, "device work failed before gshmem_finalize: %s",
                  cudaGetErrorString(sync));
  Bootstrap &boot = *rt.boot;
  // Nobody may still be reading peers' heaps when they go away.
  if (boot.barrier() != GSHMEM_SUCCESS) GSHMEMI_WARN("barrier at finalize failed");
  rt.initialized.store(false);
  gshmemi_team_finalize();
  host_state = gshmemi_device_state_t{};
  publish_to_all(host_state);
  const int rc = heap_finalize(boot);
  if (rc != GSHMEM_SUCCESS) GSHMEMI_WARN("releasing the symmetric heap failed (%d)", rc);
  rt.boot.reset();  // closes the bootstrap (and MPI, if gshmem started it)
  rt.device = -1;
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
  if (!heap_contains(dest, 1)) {
    set_last_error(GSHMEMX_ERROR_NOT_SYMMETRIC);
    return nullptr;
  }
  char *base = host_state.peer_base[pe];
  return base ? base + (d - host_state.heap_base) : nullptr;
}

void *gshmem_align(size_t alignment, size_t size) {
  set_last_error(GSHMEM_SUCCESS);
  if (!require_init("gshmem_align")) return nullptr;
  return heap_allocate(*runtime().boot, alignment, size);
}

void *gshmem_malloc(size_t size) {
  set_last_error(GSHMEM_SUCCESS);
  if (!require_init("gshmem_malloc")) return nullptr;
  return heap_malloc(*runtime().boot, size);
}

void *gshmem_calloc(size_t count, size_t size) {
  set_last_error(GSHMEM_SUCCESS);
  if (!require_init("gshmem_calloc")) return nullptr;
  return heap_calloc(*runtime().boot, count, size);
}

void gshmem_free(void *ptr) {
  set_last_error(GSHMEM_SUCCESS);
  if (!require_init("gshmem_free")) return;
  heap_release(*runtime().boot, ptr);
}

void gshmemi_host_barrier_all(void) {
  set_last_error(GSHMEM_SUCCESS);
  if (!require_init("gshmem_barrier_all")) return;
  const cudaError_t rc = cudaDeviceSynchronize();
  if (rc != cudaSuccess)
    GSHMEMI_ERROR(GSHMEMX_ERROR_CUDA, "gshmem_barrier_all: device work failed: %s", cudaGetErrorString(rc));
  // The bootstrap's collective orders the host threads; device stores made
  // before cudaDeviceSynchronize returned are visible system-wide by then.
  const int b = runtime().boot->barrier();
  if (b != GSHMEM_SUCCESS) GSHMEMI_ERROR(b, "gshmem_barrier_all: the bootstrap barrier failed");
}

void gshmemi_host_sync_all(void) {
  set_last_error(GSHMEM_SUCCESS);
  if (!require_init("gshmem_sync_all")) return;
  std::atomic_thread_fence(std::memory_order_seq_cst);
  const int b = runtime().boot->barrier();
  if (b != GSHMEM_SUCCESS) GSHMEMI_ERROR(b, "gshmem_sync_all: the bootstrap barrier failed");
}

namespace {
// The host issues no RMA of its own (device and stream work complete through
// gshmem_quiet on the device and gshmemx_quiet_on_stream), so on the host
// fence and quiet order and complete the calling thread's stores to mapped
// peer memory, nothing more. Neither waits for device work: a kernel spinning
// on a peer would otherwise block them.
void host_memory_fence(const char *routine) {
  set_last_error(GSHMEM_SUCCESS);
  if (!require_init(routine)) return;
  std::atomic_thread_fence(std::memory_order_seq_cst);
}
}  // namespace

void gshmemi_host_quiet(void) { host_memory_fence("gshmem_quiet"); }

void gshmemi_host_fence(void) { host_memory_fence("gshmem_fence"); }

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
