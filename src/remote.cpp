// Remote peers in the runtime: see remote.h and docs/remote.md.
#include "remote.h"

#include <cuda_runtime.h>

#include <atomic>
#include <chrono>
#include <cerrno>
#include <cstring>
#include <memory>
#include <mutex>
#include <thread>

#include <gshmem/detail/proxy_queue.h>
#include <gshmem/detail/update_host.h>

#include "liveness.h"
#include "log.h"
#include "proxy/elapsed.h"
#include "proxy/proxy.h"
#include "rma_internal.h"
#include "transport/transport_loader.h"

namespace gshmemi {

namespace gd = gshmem::detail;

int parse_remote_settings(const Env &env, RemoteSettings *out, std::string *why) {
  RemoteSettings s;
  if (env.REMOTE_PEERS == "auto") {
    s.mode = RemotePeersMode::automatic;
  } else if (env.REMOTE_PEERS == "all") {
    s.mode = RemotePeersMode::all;
  } else {
    if (why) *why = "GSHMEM_REMOTE_PEERS='" + env.REMOTE_PEERS + "': expected auto or all";
    return GSHMEMX_ERROR_ENVIRONMENT;
  }
  if (env.REMOTE_RMA == "messages") {
    s.rma_messages = true;
  } else if (env.REMOTE_RMA != "auto") {
    if (why) *why = "GSHMEM_REMOTE_RMA='" + env.REMOTE_RMA + "': expected auto or messages";
    return GSHMEMX_ERROR_ENVIRONMENT;
  }
  const unsigned long long c = env.PROXY_QUEUE_CAPACITY;
  if (c < 2 || !gd::proxy_capacity_valid(c) || c > (1ull << 24)) {
    if (why)
      *why = "GSHMEM_PROXY_QUEUE_CAPACITY=" + std::to_string(c) +
             ": expected a power of two from 2 to 16M (requests of 64 bytes)";
    return GSHMEMX_ERROR_ENVIRONMENT;
  }
  s.queue_capacity = c;
  const unsigned long long b = env.PROXY_BATCH;
  if (b < 1 || b > (1ull << 24)) {
    if (why) *why = "GSHMEM_PROXY_BATCH=" + std::to_string(b) + ": expected 1 to 16M requests";
    return GSHMEMX_ERROR_ENVIRONMENT;
  }
  s.batch = b;
  s.idle_spin_seconds = env.PROXY_IDLE_SPIN;
  int rc = parse_proxy_cpus(env.PROXY_CPUS, &s.proxy_cpus, why);
  if (rc == GSHMEM_SUCCESS) rc = parse_shared_sync(env.PROXY_SHARED_SYNC, &s.shared_sync, why);
  if (rc != GSHMEM_SUCCESS) return rc;
  *out = s;
  return GSHMEM_SUCCESS;
}

std::vector<unsigned char> classify_peers(int me, int n, const std::vector<unsigned char> &wants_all,
                                          const std::vector<unsigned char> &maps) {
  std::vector<unsigned char> remote(static_cast<std::size_t>(n > 0 ? n : 0), 0);
  for (int pe = 0; pe < n; ++pe) {
    if (pe == me) continue;
    const bool forced = (me < (int)wants_all.size() && wants_all[me]) || (pe < (int)wants_all.size() && wants_all[pe]);
    bool mapped = true;
    if (maps.size() == static_cast<std::size_t>(n) * n)
      mapped = maps[(std::size_t)me * n + pe] && maps[(std::size_t)pe * n + me];
    remote[pe] = forced || !mapped ? 1 : 0;
  }
  return remote;
}

bool job_has_remote_pair(int n, const std::vector<unsigned char> &wants_all, const std::vector<unsigned char> &maps) {
  for (int pe = 0; pe < n; ++pe)
    for (unsigned char v : classify_peers(pe, n, wants_all, maps))
      if (v) return true;
  return false;
}

namespace {

// How the transport reaches this PE's GPU memory (transport_plugin.h,
// local_copy / local_amo): CUDA copies and the host RMA's one-thread atomic
// kernel on a stream of the proxy's own, which never waits for user kernels.
struct LocalAccess {
  cudaStream_t stream = nullptr;
  unsigned long long *fetched = nullptr;  // device word for a fetched value
  int device = -1;
  // CUDA copies and atomic kernels run for the transport, and their time
  // (gshmemx_remote_stats).
  std::atomic<unsigned long long> applies{0}, apply_ns{0};
};

int local_copy(void *access, void *dst, const void *src, size_t bytes) {
  auto *a = static_cast<LocalAccess *>(access);
  const ScopedElapsed timer(a->apply_ns, &a->applies);
  cudaSetDevice(a->device);
  cudaError_t rc = cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, a->stream);
  if (rc == cudaSuccess) rc = cudaStreamSynchronize(a->stream);
  if (rc != cudaSuccess)
    return GSHMEMI_ERROR(GSHMEMX_ERROR_CUDA, "proxy: copying %zu bytes for a remote peer failed: %s", bytes,
                         cudaGetErrorString(rc));
  return GSHMEM_SUCCESS;
}

int host_amo_op(int transport_op) {
  switch (transport_op) {
    case GSHMEMI_TRANSPORT_AMO_ADD: return GSHMEMI_HOST_AMO_FETCH_ADD;
    case GSHMEMI_TRANSPORT_AMO_AND: return GSHMEMI_HOST_AMO_FETCH_AND;
    case GSHMEMI_TRANSPORT_AMO_OR: return GSHMEMI_HOST_AMO_FETCH_OR;
    case GSHMEMI_TRANSPORT_AMO_XOR: return GSHMEMI_HOST_AMO_FETCH_XOR;
    case GSHMEMI_TRANSPORT_AMO_SWAP: return GSHMEMI_HOST_AMO_SWAP;
    case GSHMEMI_TRANSPORT_AMO_CSWAP: return GSHMEMI_HOST_AMO_COMPARE_SWAP;
    case GSHMEMI_TRANSPORT_AMO_FETCH: return GSHMEMI_HOST_AMO_FETCH;
    default: return -1;
  }
}

int local_amo(void *access, void *address, int op, int width, uint64_t operand, uint64_t compare, uint64_t *old) {
  auto *a = static_cast<LocalAccess *>(access);
  const int host_op = host_amo_op(op);
  if (host_op < 0 || (width != 4 && width != 8))
    return GSHMEMI_ERROR(GSHMEMX_ERROR_INVALID_VALUE, "proxy: atomic %d of %d bytes from a remote peer is not one",
                         op, width);
  const ScopedElapsed timer(a->apply_ns, &a->applies);
  cudaSetDevice(a->device);
  unsigned long long value = 0;
  // The kernel's compare-swap stores `operand` where the bits equal `cond`.
  cudaError_t rc = rma::launch_amo(address, (std::size_t)width, host_op, operand, compare, a->fetched, a->stream);
  if (rc == cudaSuccess && old)
    rc = cudaMemcpyAsync(&value, a->fetched, sizeof value, cudaMemcpyDeviceToHost, a->stream);
  if (rc == cudaSuccess) rc = cudaStreamSynchronize(a->stream);
  if (rc != cudaSuccess)
    return GSHMEMI_ERROR(GSHMEMX_ERROR_CUDA, "proxy: an atomic for a remote peer failed: %s", cudaGetErrorString(rc));
  if (old) *old = width == 4 ? (value & 0xffffffffull) : value;
  return GSHMEM_SUCCESS;
}

struct RemoteRuntime {
  std::mutex mutex;
  int my_pe = -1;
  int device = -1;
  Bootstrap *boot = nullptr;
  void *slots_host = nullptr;                   // cudaHostAlloc: the ring
  unsigned long long *counters_host = nullptr;  // cudaHostAlloc: head, completed (a line each)
  unsigned long long *counters_device = nullptr;  // cudaMalloc: tail, head_seen (a line each)
  unsigned long long *values_device = nullptr;    // cudaMalloc: each request's value, 2 * capacity words
  unsigned long long *run_values_host = nullptr;  // cudaHostAlloc: put_run values' host mirror, 2 * capacity words
  unsigned long long *results = nullptr;        // cudaMalloc
  int *lost_word = nullptr;                     // the runtime's peer-loss word, raised on a proxy failure
  gd::proxy_queue host_view{};
  LocalAccess access;
  gshmemi_transport_ops_t ops{};
  bool transport_open = false;
  bool heap_registered = false;
  std::unique_ptr<Proxy> proxy;
};

RemoteRuntime &rr() {
  static RemoteRuntime *r = new RemoteRuntime;  // never destroyed (the proxy thread may outlive statics)
  return *r;
}

int boot_allgather(void *boot, const void *in, void *out, size_t bytes) {
  return static_cast<Bootstrap *>(boot)->allgather(in, out, bytes);
}
int boot_barrier(void *boot) { return static_cast<Bootstrap *>(boot)->barrier(); }
int lost_peer_for_transport() { return job_lost_pe() + 1; }

void release(RemoteRuntime &r, bool collective) {
  if (r.proxy) r.proxy->stop();
  r.proxy.reset();
  if (r.transport_open) {
    if (collective) {
      if (r.heap_registered && r.ops.deregister_memory) (void)r.ops.deregister_memory(r.ops.context, 0);
      (void)r.ops.close(r.ops.context);
    }
    r.transport_open = false;
  }
  r.heap_registered = false;
  if (collective) {
    if (r.access.stream) cudaStreamDestroy(r.access.stream);
    if (r.access.fetched) cudaFree(r.access.fetched);
    if (r.results) cudaFree(r.results);
    if (r.counters_device) cudaFree(r.counters_device);
    if (r.values_device) cudaFree(r.values_device);
    if (r.slots_host) cudaFreeHost(r.slots_host);
    if (r.run_values_host) cudaFreeHost(r.run_values_host);
    if (r.counters_host) cudaFreeHost(r.counters_host);
  }
  (void)cudaGetLastError();
  r.access.stream = nullptr;
  r.access.fetched = nullptr;
  r.access.device = -1;
  r.access.applies.store(0, std::memory_order_relaxed);
  r.access.apply_ns.store(0, std::memory_order_relaxed);
  r.slots_host = nullptr;
  r.counters_host = nullptr;
  r.counters_device = nullptr;
  r.values_device = nullptr;
  r.run_values_host = nullptr;
  r.results = nullptr;
  r.lost_word = nullptr;
  r.boot = nullptr;
}

// Zeroed, mapped, portable host memory of `bytes`, and its device address.
template <class T>
int alloc_mapped(size_t bytes, T **host, T **device) {
  void *h = nullptr, *d = nullptr;
  GSHMEMI_CUDA_CHECK(cudaHostAlloc(&h, bytes, cudaHostAllocMapped | cudaHostAllocPortable));
  *host = static_cast<T *>(h);  // freed by release() on any failure below
  std::memset(h, 0, bytes);
  GSHMEMI_CUDA_CHECK(cudaHostGetDevicePointer(&d, h, 0));
  *device = static_cast<T *>(d);
  return GSHMEM_SUCCESS;
}

// Allocates the queue, the result words and the local-access stream; fills
// state->proxy with the device's view.
int create_queue(RemoteRuntime &r, const RemoteSettings &settings, int *abort_word, gshmemi_device_state_t *state) {
  const unsigned long long cap = settings.queue_capacity;
  gshmemi_device_state_t::gshmemi_device_proxy &p = state->proxy;
  GSHMEMI_CHECK(alloc_mapped(cap * sizeof(gd::proxy_request), &r.slots_host, &p.slots));
  GSHMEMI_CHECK(alloc_mapped(128, &r.counters_host, &p.head));
  GSHMEMI_CUDA_CHECK(cudaMalloc(reinterpret_cast<void **>(&r.counters_device), 128));
  GSHMEMI_CUDA_CHECK(cudaMemset(r.counters_device, 0, 128));
  // The device copy of each request's value (proxy_queue.h), for modules
  // that copy one-sidedly from GPU memory (device_source).
  GSHMEMI_CUDA_CHECK(cudaMalloc(reinterpret_cast<void **>(&r.values_device), 2 * cap * sizeof(unsigned long long)));
  // Their host mirror for a warp's run of p's (put_run), which the proxy
  // stages from where the transport takes host sources.
  GSHMEMI_CHECK(alloc_mapped(2 * cap * sizeof(unsigned long long), &r.run_values_host, &p.host_values));
  cudaDeviceProp prop{};
  GSHMEMI_CUDA_CHECK(cudaGetDeviceProperties(&prop, r.device));
  // %smid may exceed the SM count (ids of the full chip): twice the count,
  // larger ids wrapping around.
  const unsigned long long per_sm = (unsigned long long)prop.maxThreadsPerMultiProcessor;
  const unsigned long long sms = 2ull * (unsigned long long)prop.multiProcessorCount;
  GSHMEMI_CUDA_CHECK(cudaMalloc(reinterpret_cast<void **>(&r.results), per_sm * sms * sizeof(unsigned long long)));
  GSHMEMI_CUDA_CHECK(cudaMemset(r.results, 0, per_sm * sms * sizeof(unsigned long long)));
  GSHMEMI_CUDA_CHECK(cudaStreamCreateWithFlags(&r.access.stream, cudaStreamNonBlocking));
  GSHMEMI_CUDA_CHECK(cudaMalloc(reinterpret_cast<void **>(&r.access.fetched), sizeof(unsigned long long)));
  GSHMEMI_CUDA_CHECK(cudaDeviceSynchronize());
  r.access.device = r.device;

  // The proxy's view: host addresses of what it reads and writes (it never
  // touches tail or head_seen).
  r.host_view.slots = static_cast<gd::proxy_request *>(r.slots_host);
  r.host_view.capacity = cap;
  r.host_view.tail = r.counters_device;
  r.host_view.head = r.counters_host;
  r.host_view.head_seen = nullptr;
  r.host_view.completed = r.counters_host + 8;
  r.host_view.values = r.values_device;  // the proxy hands its addresses on, never reads it
  r.host_view.host_values = r.run_values_host;

  p.capacity = cap;
  p.tail = r.counters_device;
  p.head_seen = r.counters_device + 8;
  p.completed = p.head + 8;
  p.values = r.values_device;
  p.results = r.results;
  p.results_per_sm = per_sm;
  p.result_sms = sms;

  r.lost_word = abort_word;
  return GSHMEM_SUCCESS;
}

// The proxy's CPUs (docs/remote.md, "The proxy under CPU binding"): this
// PE's application mask and those of the other PEs of its node (`masks`:
// every PE's, kCpuMaskBytes each), the CPUs the process may use, the GPU's
// NUMA-local ones.
ProxyPlacement plan_proxy_cpus(const RemoteSettings &settings, int me, int device, const std::vector<int> &node_of_pe,
                               const std::vector<unsigned char> &masks, ProxyPlacementInput *in, int *rc) {
  in->app = cpus_from_mask(&masks[(std::size_t)me * kCpuMaskBytes]);
  for (std::size_t pe = 0; pe < node_of_pe.size(); ++pe)
    if ((int)pe != me && node_of_pe[pe] == node_of_pe[(std::size_t)me])
      in->local_apps.push_back(cpus_from_mask(&masks[pe * kCpuMaskBytes]));
  in->allowed = process_allowed_cpus();
  char bus_id[32] = {0};
  if (cudaDeviceGetPCIBusId(bus_id, (int)sizeof bus_id, device) == cudaSuccess) in->gpu_local = pci_local_cpus(bus_id);
  (void)cudaGetLastError();
  std::string why;
  ProxyPlacement p = choose_proxy_cpus(settings.proxy_cpus, *in, rc, &why);
  if (*rc != GSHMEM_SUCCESS) GSHMEMI_ERROR(*rc, "PE %d: %s", me, why.c_str());
  return p;
}

// A proxy that shares the application thread's only CPUs: CUDA's waits on
// this device yield (or block) instead of spinning through whole time
// slices, unless the program chose how they wait (GSHMEM_PROXY_SHARED_SYNC).
void cooperate_on_shared_cpu(const RemoteSettings &settings, int device) {
  if (settings.shared_sync == SharedSync::keep) return;
  unsigned int flags = 0;
  cudaSetDevice(device);
  if (cudaGetDeviceFlags(&flags) != cudaSuccess || (flags & cudaDeviceScheduleMask) != cudaDeviceScheduleAuto) {
    (void)cudaGetLastError();
    GSHMEMI_INFO("the program chose how CUDA waits on GPU %d (device flags 0x%x): left as it is", device, flags);
    return;
  }
  const unsigned int schedule =
      settings.shared_sync == SharedSync::yield ? cudaDeviceScheduleYield : cudaDeviceScheduleBlockingSync;
  const cudaError_t rc =
      cudaSetDeviceFlags((flags & (cudaDeviceMapHost | cudaDeviceLmemResizeToMax)) | schedule);
  if (rc != cudaSuccess) {
    (void)cudaGetLastError();
    GSHMEMI_INFO("could not make CUDA's waits on GPU %d %s: %s", device,
                 schedule == cudaDeviceScheduleYield ? "yield" : "block", cudaGetErrorString(rc));
    return;
  }
  GSHMEMI_INFO("CUDA's waits on GPU %d now %s (GSHMEM_PROXY_SHARED_SYNC=%s): the proxy shares the CPU", device,
               schedule == cudaDeviceScheduleYield ? "yield the CPU (cudaDeviceScheduleYield)"
                                                   : "block (cudaDeviceScheduleBlockingSync)",
               schedule == cudaDeviceScheduleYield ? "yield" : "blocking");
}

}  // namespace

bool remote_active() { return rr().proxy != nullptr; }

int remote_init(Bootstrap &boot, const RemoteSettings &settings, int device, const std::vector<unsigned char> &remote,
                bool job_has_remote, const std::vector<int> &node_of_pe, int *abort_word,
                gshmemi_device_state_t *state) {
  RemoteRuntime &r = rr();
  std::lock_guard<std::mutex> lock(r.mutex);
  if (!job_has_remote) return GSHMEM_SUCCESS;  // all P2P: nothing is created
  // Every PE's application mask (this thread's: the one gshmem_init runs
  // on), first: collective, before any step that can fail on one PE alone.
  std::vector<unsigned char> masks((std::size_t)boot.size() * kCpuMaskBytes, 0);
  {
    unsigned char mine[kCpuMaskBytes];
    cpus_to_mask(current_thread_cpus(), mine);
    const int rc = boot.allgather(mine, masks.data(), kCpuMaskBytes);
    if (rc != GSHMEM_SUCCESS)
      return GSHMEMI_ERROR(rc, "PE %d: exchanging the PEs' CPU masks failed", boot.rank());
  }
  r.my_pe = boot.rank();
  r.device = device;
  r.boot = &boot;
  int rc = create_queue(r, settings, abort_word, state);
  if (rc != GSHMEM_SUCCESS) {
    release(r, true);
    state->proxy = gshmemi_device_state_t::gshmemi_device_proxy{};
    return rc;
  }
  int remote_count = 0;
  std::string which;
  for (std::size_t pe = 0; pe < remote.size(); ++pe)
    if (remote[pe]) which += (remote_count++ ? ", " : "") + std::to_string(pe);
  GSHMEMI_INFO("remote peers (GSHMEM_REMOTE_PEERS=%s): PE %s; proxy queue of %llu requests; GSHMEM_REMOTE_RMA=%s",
               settings.mode == RemotePeersMode::all ? "all" : "auto", which.c_str(), settings.queue_capacity,
               settings.rma_messages ? "messages" : "auto");

  gshmemi_transport_open_args_t args{};
  args.my_pe = boot.rank();
  args.n_pes = boot.size();
  args.remote = remote.data();
  args.cuda_device = device;
  args.bootstrap = &boot;
  args.allgather = &boot_allgather;
  args.barrier = &boot_barrier;
  args.report = nullptr;  // the loader's: logged with the PE prefix
  args.peer_lost = &lost_peer_for_transport;
  // GSHMEM_REMOTE_RMA=messages: GPU memory through active messages even
  // where UCX could map it (auto: the module decides per region).
  args.flags = settings.rma_messages ? GSHMEMI_TRANSPORT_OPEN_DEVICE_MESSAGES : 0u;
  args.local_access = &r.access;
  args.local_copy = &local_copy;
  args.local_amo = &local_amo;
  rc = open_transport_plugin("ucx", args, &r.ops);
  if (rc != GSHMEM_SUCCESS) {
    GSHMEMI_ERROR(rc, "PE %d has remote peers (%s) but the UCX transport module could not be opened", boot.rank(),
                  which.c_str());
    release(r, true);
    state->proxy = gshmemi_device_state_t::gshmemi_device_proxy{};
    return rc;
  }
  r.transport_open = true;
  // The heap as it is at init (GPU memory: one-sided where the module's UCX
  // maps CUDA memory, else active messages the target applies with
  // local_copy / local_amo; the module logs which).
  rc = r.ops.register_memory(r.ops.context, 0, state->heap_base, (size_t)state->heap_size,
                             GSHMEMI_TRANSPORT_MEMORY_DEVICE);
  if (rc != GSHMEM_SUCCESS) {
    GSHMEMI_ERROR(rc, "registering PE %d's symmetric heap with the UCX transport failed", boot.rank());
    release(r, false);
    state->proxy = gshmemi_device_state_t::gshmemi_device_proxy{};
    return rc;
  }
  r.heap_registered = true;
  const int me = boot.rank();
  // One-sided GPU memory on one node is UCX's cuda_ipc, which maps a peer's
  // memory through a CUDA IPC handle: legacy handles (cudaMalloc), or VMM
  // memory only where UCX was built with pidfd_getfd (PyPI's libucx-cu12/
  // cu13 1.22 is not). A VMM heap there leaves every one-sided operation to
  // UCX's software emulation, which the target's proxy serves: correct, and
  // as slow as messages. Said once, with the fix.
  if ((r.ops.caps & GSHMEMI_TRANSPORT_CAP_GPU_MEMORY) != 0) {
    bool same_node_remote = false;
    for (std::size_t pe = 0; pe < remote.size(); ++pe)
      same_node_remote = same_node_remote || (remote[pe] && node_of_pe[pe] == node_of_pe[(std::size_t)me]);
    cudaIpcMemHandle_t handle;
    if (same_node_remote && cudaIpcGetMemHandle(&handle, state->heap_base) != cudaSuccess) {
      (void)cudaGetLastError();
      GSHMEMI_WARN("PE %d: its symmetric heap is CUDA VMM memory, which UCX's cuda_ipc maps only where UCX was built "
                   "with pidfd_getfd; remote peers on this node may then be reached through UCX's software "
                   "emulation (as slow as GSHMEM_REMOTE_RMA=messages). GSHMEM_DISABLE_VMM=1 gives a heap "
                   "cuda_ipc maps (docs/remote.md, \"RMA mode\")",
                   me);
    }
  }
  ProxyPlacementInput where_in;
  int place_rc = GSHMEM_SUCCESS;
  const ProxyPlacement where = plan_proxy_cpus(settings, me, device, node_of_pe, masks, &where_in, &place_rc);
  if (place_rc != GSHMEM_SUCCESS) {
    release(r, false);
    state->proxy = gshmemi_device_state_t::gshmemi_device_proxy{};
    return place_rc;
  }
  // inherit is the placement and the waiting of old: nothing changes.
  const bool cooperate = where.shared && settings.proxy_cpus.mode != ProxyCpusSetting::Mode::inherit;
  if (where.shared) GSHMEMI_WARN("%s", shared_cpu_warning(where, where_in).c_str());
  if (cooperate) cooperate_on_shared_cpu(settings, device);
  r.proxy.reset(new Proxy(r.host_view, r.ops, boot.size(), settings.batch));
  r.proxy->set_idle_spin(std::chrono::nanoseconds(seconds_to_ns(settings.idle_spin_seconds)));
  r.proxy->set_shared_cpu(cooperate);
  int *host_word = r.lost_word;
  r.proxy->set_error_hook([host_word, me](int code, int pe) {
    GSHMEMI_ERROR(code == GSHMEMX_ERROR_PEER_LOST ? code : GSHMEMX_ERROR_PEER_LOST,
                  "proxy: a request to remote PE %d failed (%s); remote requests of PE %d are dropped from now on, "
                  "device waits on them stop",
                  pe, gshmemx_error_string(code), me);
    if (host_word) __atomic_store_n(host_word, 1 + (pe >= 0 ? pe : me), __ATOMIC_RELEASE);
  });
  if (r.proxy->start() != GSHMEM_SUCCESS) {
    r.proxy.reset();
    release(r, false);
    state->proxy = gshmemi_device_state_t::gshmemi_device_proxy{};
    return GSHMEMI_ERROR(GSHMEMX_ERROR_INTERNAL, "PE %d: the proxy thread could not be started", me);
  }
  // Only the proxy thread's mask changes, never the application thread's.
  CpuList runs_on = where.cpus;
  if (where.set_mask) {
    const int err = set_thread_cpus(r.proxy->thread_handle(), where.cpus);
    if (err != 0 || thread_cpus(r.proxy->thread_handle(), &runs_on) != 0) {
      GSHMEMI_WARN("the proxy thread could not be moved to CPUs %s (%s): it stays on CPUs %s",
                   format_cpulist(where.cpus).c_str(), std::strerror(err != 0 ? err : errno),
                   format_cpulist(where_in.app).c_str());
      runs_on = where_in.app;
    }
  }
  GSHMEMI_INFO("proxy thread on CPUs %s (%s; the application thread is on CPUs %s, the process may use %s, "
               "the GPU's local CPUs are %s)%s",
               format_cpulist(runs_on).c_str(), where.reason.c_str(), format_cpulist(where_in.app).c_str(),
               format_cpulist(where_in.allowed).c_str(),
               where_in.gpu_local.empty() ? "unknown" : format_cpulist(where_in.gpu_local).c_str(),
               cooperate ? "; it sleeps between polls" : "");
  return GSHMEM_SUCCESS;
}

int remote_host_quiet(const char *routine) {
  RemoteRuntime &r = rr();
  if (!r.proxy) return GSHMEM_SUCCESS;
  unsigned long long tail = 0;
  cudaSetDevice(r.device);
  cudaError_t rc = cudaMemcpyAsync(&tail, r.counters_device, sizeof tail, cudaMemcpyDeviceToHost, r.access.stream);
  if (rc == cudaSuccess) rc = cudaStreamSynchronize(r.access.stream);
  if (rc != cudaSuccess)
    return GSHMEMI_ERROR(GSHMEMX_ERROR_CUDA, "%s: reading the proxy queue's tail failed: %s", routine,
                         cudaGetErrorString(rc));
  while (!gd::proxy_test_completed(r.host_view, tail)) {
    if (r.proxy->error() != 0 || job_lost_pe() >= 0)
      return GSHMEMI_ERROR(GSHMEMX_ERROR_PEER_LOST,
                           "%s: requests to remote peers cannot complete (PE %d is gone or the transport failed)",
                           routine, r.proxy->failed_pe() >= 0 ? r.proxy->failed_pe() : job_lost_pe());
    std::this_thread::sleep_for(std::chrono::microseconds(20));
  }
  return GSHMEM_SUCCESS;
}

// New figures take reserved words: the struct keeps its size (and the
// offsets of the fields before them) across versions. (It grew once, before
// any release held it, for the per-path counts.)
static_assert(sizeof(gshmemx_remote_stats_t) == 8 + 25 * sizeof(unsigned long long),
              "gshmemx_remote_stats_t keeps its size: a new figure takes a reserved word");

int remote_stats(gshmemx_remote_stats_t *out) {
  RemoteRuntime &r = rr();
  std::lock_guard<std::mutex> lock(r.mutex);
  gshmemx_remote_stats_t s{};
  if (r.proxy) {
    const Proxy::Timings t = r.proxy->timings();
    s.active = 1;
    s.requests = r.proxy->consumed();
    s.passes = t.passes;
    s.issue_ns = t.issue_ns;
    s.quiets = t.quiets;
    s.quiet_ns = t.quiet_ns;
    s.idle_sleeps = t.idle_sleeps;
    s.peer_events = t.transport_events;
    s.transport_puts = t.transport_puts;
    s.puts_coalesced = t.puts_coalesced;
    s.put_runs = t.runs;
    s.applies = r.access.applies.load(std::memory_order_relaxed);
    s.apply_ns = r.access.apply_ns.load(std::memory_order_relaxed);
    gshmemi_transport_stats_t paths{};
    if (r.transport_open && r.ops.stats && r.ops.stats(r.ops.context, &paths) == GSHMEM_SUCCESS) {
      s.puts_one_sided = paths.puts_one_sided;
      s.puts_messages = paths.puts_messages;
      s.gets_one_sided = paths.gets_one_sided;
      s.gets_messages = paths.gets_messages;
      s.atomics_one_sided = paths.atomics_one_sided;
      s.atomics_messages = paths.atomics_messages;
      s.signals_one_sided = paths.signals_one_sided;
      s.signals_messages = paths.signals_messages;
      s.messages_applied = paths.messages_applied;
      s.gpu_regions_one_sided = paths.gpu_regions_one_sided;
    }
  }
  *out = s;
  return GSHMEM_SUCCESS;
}

void remote_finalize(bool collective) {
  RemoteRuntime &r = rr();
  std::lock_guard<std::mutex> lock(r.mutex);
  if (!r.proxy && !r.transport_open) return;
  release(r, collective);
}

}  // namespace gshmemi

extern "C" GSHMEM_API int gshmemx_remote_stats(gshmemx_remote_stats_t *out) {
  if (out == nullptr)
    return GSHMEMI_ERROR(GSHMEMX_ERROR_INVALID_VALUE, "gshmemx_remote_stats: the output pointer is NULL");
  return gshmemi::remote_stats(out);
}
