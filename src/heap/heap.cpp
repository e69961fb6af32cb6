// The symmetric heap on the GPU: backing, peer mapping, and the host entry
// points over CollectiveHeap (see src/heap.h for the contract).
//
// VMM path: one cuMemCreate allocation per PE (exportable as a POSIX file
// descriptor), one VA reservation holding a slot for every PE (slot p at
// base + p * heap_bytes), our allocation mapped into our slot, and each
// same-node peer's descriptor, received over a private Unix socket, imported
// and mapped into its slot. Legacy path: cudaMalloc + cudaIpc handles.
//
// Every setup phase ends with an agreement (an allgather of each PE's
// status), so a PE that fails makes every PE fail at the same point with a
// message, instead of leaving the others waiting.
#include <cuda.h>
#include <cuda_runtime.h>
#include <sys/types.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "../heap.h"
#include "../cuda_util.h"
#include "../log.h"
#include "collective_heap.h"
#include <gshmem/runtime.h>
#include "peer_sockets.h"

namespace gshmemi {
namespace {

// Driver functions, fetched through the runtime so that the library does not
// link libcuda (machines without a driver still load it).
struct DriverApi {
  decltype(&::cuGetErrorString) GetErrorString = nullptr;
  decltype(&::cuDeviceGet) DeviceGet = nullptr;
  decltype(&::cuDeviceGetAttribute) DeviceGetAttribute = nullptr;
  decltype(&::cuMemGetAllocationGranularity) MemGetAllocationGranularity = nullptr;
  decltype(&::cuMemCreate) MemCreate = nullptr;
  decltype(&::cuMemRelease) MemRelease = nullptr;
  decltype(&::cuMemAddressReserve) MemAddressReserve = nullptr;
  decltype(&::cuMemAddressFree) MemAddressFree = nullptr;
  decltype(&::cuMemMap) MemMap = nullptr;
  decltype(&::cuMemUnmap) MemUnmap = nullptr;
  decltype(&::cuMemSetAccess) MemSetAccess = nullptr;
  decltype(&::cuMemExportToShareableHandle) MemExportToShareableHandle = nullptr;
  decltype(&::cuMemImportFromShareableHandle) MemImportFromShareableHandle = nullptr;
};

template <typename Fn>
bool load_entry(const char *name, Fn *fn) {
  *fn = reinterpret_cast<Fn>(driver_entry_point(name));
  return *fn != nullptr;
}

bool load_driver(DriverApi *api, std::string *missing) {
#define GSHMEMI_LOAD(NAME)                                   \
  if (!load_entry("cu" #NAME, &api->NAME)) {                 \
    *missing = "cu" #NAME;                                   \
    return false;                                            \
  }
  GSHMEMI_LOAD(GetErrorString)
  GSHMEMI_LOAD(DeviceGet)
  GSHMEMI_LOAD(DeviceGetAttribute)
  GSHMEMI_LOAD(MemGetAllocationGranularity)
  GSHMEMI_LOAD(MemCreate)
  GSHMEMI_LOAD(MemRelease)
  GSHMEMI_LOAD(MemAddressReserve)
  GSHMEMI_LOAD(MemAddressFree)
  GSHMEMI_LOAD(MemMap)
  GSHMEMI_LOAD(MemUnmap)
  GSHMEMI_LOAD(MemSetAccess)
  GSHMEMI_LOAD(MemExportToShareableHandle)
  GSHMEMI_LOAD(MemImportFromShareableHandle)
#undef GSHMEMI_LOAD
  return true;
}

// What each PE tells the others at init (allgathered as raw bytes).
struct PeHeapInfo {
  std::int32_t status;       // this PE's local setup status so far
  std::int32_t pid;
  std::uint32_t uid;
  std::int32_t vmm_ok;       // VMM requested and supported with POSIX FD handles
  std::uint64_t heap_bytes;  // rounded heap size this PE wants
  std::uint64_t granularity;
  SocketToken token;         // PE 0's is the job's
  char pci_bus_id[32];
  char hostname[64];
};

struct HeapRuntime {
  bool initialized = false;
  bool vmm = false;
  int device = 0;
  int my_pe = 0;
  int n_pes = 0;
  char *base = nullptr;          // this PE's heap
  std::size_t bytes = 0;
  DriverApi driver;
  // VMM
  CUdeviceptr reservation = 0;
  std::size_t reservation_bytes = 0;
  CUmemGenericAllocationHandle own_handle = 0;
  bool own_mapped = false;
  std::vector<CUmemGenericAllocationHandle> peer_handles;  // 0 where none
  std::vector<bool> peer_mapped;
  // legacy
  std::vector<void *> ipc_opened;  // peer bases from cudaIpcOpenMemHandle
  std::vector<char *> peer_base;
  std::unique_ptr<CollectiveHeap> collective;
};

HeapRuntime g_heap;

const char *driver_error(const DriverApi &api, CUresult rc) {
  const char *text = nullptr;
  if (api.GetErrorString && api.GetErrorString(rc, &text) == CUDA_SUCCESS && text) return text;
  return "unknown driver error";
}

#define GSHMEMI_CU(call)                                                                  \
  do {                                                                                    \
    CUresult gshmemi_cu_ = (call);                                                        \
    if (gshmemi_cu_ != CUDA_SUCCESS)                                                      \
      return GSHMEMI_ERROR(GSHMEMX_ERROR_CUDA, "%s failed: %s", #call,                    \
                           driver_error(g_heap.driver, gshmemi_cu_));                     \
  } while (0)

// Every PE contributes its status; all get the first failure's code. PEs
// that succeeded locally log which PEs failed.
int agree(Bootstrap &boot, int local, const char *phase) {
  std::vector<std::int32_t> codes(static_cast<std::size_t>(boot.size()));
  std::int32_t mine = local;
  if (boot.allgather(&mine, codes.data(), sizeof mine) != GSHMEM_SUCCESS)
    return GSHMEMI_ERROR(GSHMEMX_ERROR_BOOTSTRAP, "heap setup (%s): exchanging status with the other PEs failed",
                         phase);
  std::string failed;
  int first = GSHMEM_SUCCESS;
  for (int pe = 0; pe < boot.size(); ++pe) {
    if (codes[pe] == GSHMEM_SUCCESS) continue;
    if (first == GSHMEM_SUCCESS) first = codes[pe];
    failed += (failed.empty() ? "" : ", ") + std::to_string(pe);
  }
  if (first != GSHMEM_SUCCESS && local == GSHMEM_SUCCESS)
    return GSHMEMI_ERROR(first, "heap setup (%s) failed on PE(s) %s; see their log", phase, failed.c_str());
  return first;
}

bool same_node(const HeapConfig &config, const std::vector<PeHeapInfo> &info, int a, int b) {
  if (config.node_of_pe.size() == info.size()) return config.node_of_pe[a] == config.node_of_pe[b];
  return std::strncmp(info[a].hostname, info[b].hostname, sizeof info[a].hostname) == 0;
}

// Whether this PE's device can load/store memory that lives on PE `pe`'s GPU.
bool can_reach(const PeHeapInfo &mine, const PeHeapInfo &peer, int device) {
  if (std::strcmp(mine.pci_bus_id, peer.pci_bus_id) == 0) return true;  // a shared GPU
  int peer_device = -1;
  if (cudaDeviceGetByPCIBusId(&peer_device, peer.pci_bus_id) != cudaSuccess) {
    (void)cudaGetLastError();
    return true;  // not visible here: let the mapping decide
  }
  int ok = 0;
  if (cudaDeviceCanAccessPeer(&ok, device, peer_device) != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  return ok != 0;
}

void release_everything() {
  HeapRuntime &h = g_heap;
  for (std::size_t pe = 0; pe < h.ipc_opened.size(); ++pe)
    if (h.ipc_opened[pe]) (void)cudaIpcCloseMemHandle(h.ipc_opened[pe]);
  h.ipc_opened.clear();
  if (h.vmm) {
    for (std::size_t pe = 0; pe < h.peer_handles.size(); ++pe) {
      if (h.peer_mapped[pe]) (void)h.driver.MemUnmap(h.reservation + pe * h.bytes, h.bytes);
      if (h.peer_handles[pe]) (void)h.driver.MemRelease(h.peer_handles[pe]);
    }
    if (h.own_mapped) (void)h.driver.MemUnmap(reinterpret_cast<CUdeviceptr>(h.base), h.bytes);
    if (h.own_handle) (void)h.driver.MemRelease(h.own_handle);
    if (h.reservation) (void)h.driver.MemAddressFree(h.reservation, h.reservation_bytes);
  } else if (h.base) {
    (void)cudaFree(h.base);
  }
  h.peer_handles.clear();
  h.peer_mapped.clear();
  h.peer_base.clear();
  h.collective.reset();
  h.reservation = 0;
  h.own_handle = 0;
  h.own_mapped = false;
  h.base = nullptr;
  h.initialized = false;
}

std::size_t round_up(std::size_t value, std::size_t granule) { return (value + granule - 1) / granule * granule; }

// Local checks and queries before anything is allocated.
int probe(const HeapConfig &config, bool is_pe0, PeHeapInfo *info) {
  HeapRuntime &h = g_heap;
  GSHMEMI_CUDA_CHECK(cudaSetDevice(config.device));
  GSHMEMI_CUDA_CHECK(cudaFree(nullptr));  // creates the primary context
  GSHMEMI_CUDA_CHECK(cudaDeviceGetPCIBusId(info->pci_bus_id, sizeof info->pci_bus_id, config.device));
  if (config.bytes <= GSHMEMI_INTERNAL_REGION_BYTES)
    return GSHMEMI_ERROR(GSHMEMX_ERROR_INVALID_VALUE,
                         "symmetric heap of %zu bytes leaves nothing for users: the runtime keeps the first %u "
                         "bytes; raise GSHMEM_SYMMETRIC_SIZE", config.bytes, GSHMEMI_INTERNAL_REGION_BYTES);
  std::size_t granularity = 2u << 20;
  if (config.use_vmm) {
    std::string missing;
    if (!load_driver(&h.driver, &missing)) {
      GSHMEMI_INFO("CUDA VMM unavailable (driver entry point %s not found); using cudaIpc handles", missing.c_str());
    } else {
      CUdevice dev = 0;
      int vmm = 0, posix_fd = 0;
      GSHMEMI_CU(h.driver.DeviceGet(&dev, config.device));
      GSHMEMI_CU(h.driver.DeviceGetAttribute(&vmm, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, dev));
      GSHMEMI_CU(h.driver.DeviceGetAttribute(&posix_fd, CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED, dev));
      if (vmm && posix_fd) {
        CUmemAllocationProp prop{};
        prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
        prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
        prop.location.id = dev;
        prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
        std::size_t g = 0;
        GSHMEMI_CU(h.driver.MemGetAllocationGranularity(&g, &prop, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED));
        if (g > granularity) granularity = g;
        info->vmm_ok = 1;
      } else {
        GSHMEMI_INFO("device %d lacks CUDA VMM with POSIX file descriptors; using cudaIpc handles", config.device);
      }
    }
  }
  info->granularity = granularity;
  info->heap_bytes = round_up(config.bytes, granularity);
  if (is_pe0) {
    std::string why;
    if (make_socket_token(&info->token, &why) != 0)
      return GSHMEMI_ERROR(GSHMEMX_ERROR_INTERNAL, "cannot draw the heap socket token: %s", why.c_str());
  }
  return GSHMEM_SUCCESS;
}

int vmm_create_own(const HeapConfig &config, int n_pes, int my_pe, int *exported_fd) {
  HeapRuntime &h = g_heap;
  CUdevice dev = 0;
  GSHMEMI_CU(h.driver.DeviceGet(&dev, config.device));
  h.reservation_bytes = h.bytes * static_cast<std::size_t>(n_pes);
  GSHMEMI_CU(h.driver.MemAddressReserve(&h.reservation, h.reservation_bytes, h.bytes, 0, 0));
  CUmemAllocationProp prop{};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = dev;
  prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
  CUresult rc = h.driver.MemCreate(&h.own_handle, h.bytes, &prop, 0);
  if (rc != CUDA_SUCCESS) {
    h.own_handle = 0;
    return GSHMEMI_ERROR(rc == CUDA_ERROR_OUT_OF_MEMORY ? GSHMEMX_ERROR_OUT_OF_MEMORY : GSHMEMX_ERROR_CUDA,
                         "cuMemCreate(%zu bytes) for the symmetric heap failed: %s (GSHMEM_SYMMETRIC_SIZE too "
                         "large for device %d?)", h.bytes, driver_error(h.driver, rc), config.device);
  }
  CUdeviceptr mine = h.reservation + static_cast<std::size_t>(my_pe) * h.bytes;
  GSHMEMI_CU(h.driver.MemMap(mine, h.bytes, 0, h.own_handle, 0));
  h.own_mapped = true;
  h.base = reinterpret_cast<char *>(mine);
  CUmemAccessDesc access{};
  access.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  access.location.id = dev;
  access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  GSHMEMI_CU(h.driver.MemSetAccess(mine, h.bytes, &access, 1));
  int fd = -1;
  GSHMEMI_CU(h.driver.MemExportToShareableHandle(&fd, h.own_handle, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
  *exported_fd = fd;
  return GSHMEM_SUCCESS;
}

int vmm_map_peer(const HeapConfig &config, int pe, int fd) {
  HeapRuntime &h = g_heap;
  CUdevice dev = 0;
  GSHMEMI_CU(h.driver.DeviceGet(&dev, config.device));
  CUmemGenericAllocationHandle handle = 0;
  GSHMEMI_CU(h.driver.MemImportFromShareableHandle(&handle, reinterpret_cast<void *>(static_cast<std::uintptr_t>(fd)),
                                                   CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR));
  h.peer_handles[pe] = handle;
  CUdeviceptr slot = h.reservation + static_cast<std::size_t>(pe) * h.bytes;
  GSHMEMI_CU(h.driver.MemMap(slot, h.bytes, 0, handle, 0));
  h.peer_mapped[pe] = true;
  CUmemAccessDesc access{};
  access.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  access.location.id = dev;
  access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  CUresult rc = h.driver.MemSetAccess(slot, h.bytes, &access, 1);
  if (rc != CUDA_SUCCESS) {
    GSHMEMI_INFO("PE %d's heap cannot be mapped for device %d (%s): gshmem_ptr to it gives NULL", pe,
                 config.device, driver_error(h.driver, rc));
    (void)h.driver.MemUnmap(slot, h.bytes);
    h.peer_mapped[pe] = false;
    return GSHMEM_SUCCESS;
  }
  h.peer_base[pe] = reinterpret_cast<char *>(slot);
  return GSHMEM_SUCCESS;
}

// The VMM exchange: listen, send our descriptor to each same-node peer,
// receive theirs, map them. Sockets and descriptors are closed on every path.
int vmm_setup(Bootstrap &boot, const HeapConfig &config, const std::vector<PeHeapInfo> &info) {
  HeapRuntime &h = g_heap;
  const int n = boot.size(), me = boot.rank();
  const SocketToken &token = info[0].token;
  std::vector<pid_t> pids(n);
  for (int pe = 0; pe < n; ++pe) pids[pe] = info[pe].pid;
  std::vector<int> peers;  // same node, not me
  for (int pe = 0; pe < n; ++pe)
    if (pe != me && same_node(config, info, me, pe)) peers.push_back(pe);

  int exported = -1, listener = -1;
  std::vector<int> connections;
  std::vector<int> received(n, -1);
  auto close_all = [&] {
    if (exported >= 0) close(exported);
    if (listener >= 0) close(listener);
    for (int fd : connections) close(fd);
    for (int fd : received) if (fd >= 0) close(fd);
    exported = listener = -1;
    connections.clear();
  };

  int rc = vmm_create_own(config, n, me, &exported);
  std::string why;
  if (rc == GSHMEM_SUCCESS && !peers.empty()) {
    listener = open_peer_listener(token, me, GSHMEMI_MAX_PES, &why);
    if (listener < 0) rc = GSHMEMI_ERROR(GSHMEMX_ERROR_BOOTSTRAP, "heap socket: %s", why.c_str());
  }
  rc = agree(boot, rc, "VMM allocation and listening socket");
  if (rc == GSHMEM_SUCCESS) {
    for (int pe : peers) {
      int c = send_fd_to_peer(token, pe, pids[pe], me, exported, &why);
      if (c < 0) {
        rc = GSHMEMI_ERROR(GSHMEMX_ERROR_BOOTSTRAP, "sending the heap handle to PE %d: %s", pe, why.c_str());
        break;
      }
      connections.push_back(c);
    }
    rc = agree(boot, rc, "sending heap handles");
  }
  if (rc == GSHMEM_SUCCESS) {
    // Every connection is already queued (senders agreed above), so the wait is short.
    for (std::size_t i = 0; i < peers.size() && rc == GSHMEM_SUCCESS; ++i) {
      int from = -1;
      int fd = receive_fd_from_peer(listener, pids.data(), n, 30000, &from, &why);
      if (fd < 0) {
        rc = GSHMEMI_ERROR(GSHMEMX_ERROR_BOOTSTRAP, "receiving a heap handle: %s", why.c_str());
      } else if (!same_node(config, info, me, from) || from == me || received[from] >= 0) {
        close(fd);
        rc = GSHMEMI_ERROR(GSHMEMX_ERROR_BOOTSTRAP, "unexpected heap handle from PE %d", from);
      } else {
        received[from] = fd;
      }
    }
    for (int pe : peers) {
      if (rc != GSHMEM_SUCCESS) break;
      if (!can_reach(info[me], info[pe], config.device)) {
        GSHMEMI_INFO("no peer access from device %d to PE %d's GPU (%s): gshmem_ptr to it gives NULL",
                     config.device, pe, info[pe].pci_bus_id);
        continue;
      }
      rc = vmm_map_peer(config, pe, received[pe]);
    }
    rc = agree(boot, rc, "mapping peer heaps");
  }
  close_all();
  return rc;
}

int legacy_setup(Bootstrap &boot, const HeapConfig &config, const std::vector<PeHeapInfo> &info) {
  HeapRuntime &h = g_heap;
  const int n = boot.size(), me = boot.rank();
  struct Exchange {
    std::int32_t status;
    cudaIpcMemHandle_t handle;
  } mine{};
  void *base = nullptr;
  cudaError_t err = cudaMalloc(&base, h.bytes);
  if (err != cudaSuccess) {
    (void)cudaGetLastError();
    mine.status = GSHMEMI_ERROR(err == cudaErrorMemoryAllocation ? GSHMEMX_ERROR_OUT_OF_MEMORY : GSHMEMX_ERROR_CUDA,
                                "cudaMalloc(%zu bytes) for the symmetric heap failed: %s", h.bytes,
                                cudaGetErrorString(err));
  } else {
    h.base = static_cast<char *>(base);
    err = cudaIpcGetMemHandle(&mine.handle, base);
    if (err != cudaSuccess)
      mine.status = GSHMEMI_ERROR(GSHMEMX_ERROR_CUDA, "cudaIpcGetMemHandle failed: %s", cudaGetErrorString(err));
  }
  std::vector<Exchange> all(n);
  if (boot.allgather(&mine, all.data(), sizeof mine) != GSHMEM_SUCCESS)
    return GSHMEMI_ERROR(GSHMEMX_ERROR_BOOTSTRAP, "exchanging cudaIpc heap handles failed");
  int rc = agree(boot, mine.status, "legacy heap allocation");
  if (rc != GSHMEM_SUCCESS) return rc;
  h.ipc_opened.assign(n, nullptr);
  for (int pe = 0; pe < n && rc == GSHMEM_SUCCESS; ++pe) {
    if (pe == me || !same_node(config, info, me, pe)) continue;
    if (!can_reach(info[me], info[pe], config.device)) {
      GSHMEMI_INFO("no peer access from device %d to PE %d's GPU (%s): gshmem_ptr to it gives NULL",
                   config.device, pe, info[pe].pci_bus_id);
      continue;
    }
    void *peer = nullptr;
    err = cudaIpcOpenMemHandle(&peer, all[pe].handle, cudaIpcMemLazyEnablePeerAccess);
    if (err != cudaSuccess) {
      (void)cudaGetLastError();
      rc = GSHMEMI_ERROR(GSHMEMX_ERROR_CUDA, "cudaIpcOpenMemHandle for PE %d's heap failed: %s", pe,
                         cudaGetErrorString(err));
      break;
    }
    h.ipc_opened[pe] = peer;
    h.peer_base[pe] = static_cast<char *>(peer);
  }
  return agree(boot, rc, "opening peer heaps");
}

}  // namespace

int heap_init(Bootstrap &boot, const HeapConfig &config, gshmemi_device_state_t *state) {
  HeapRuntime &h = g_heap;
  if (h.initialized) return GSHMEMI_ERROR(GSHMEMX_ERROR_ALREADY_INITIALIZED, "the symmetric heap exists already");
  const int n = boot.size(), me = boot.rank();
  if (n > GSHMEMI_MAX_PES)
    return GSHMEMI_ERROR(GSHMEMX_ERROR_INVALID_VALUE, "%d PEs: at most %d are supported", n, GSHMEMI_MAX_PES);
  h = HeapRuntime();
  h.device = config.device;
  h.my_pe = me;
  h.n_pes = n;

  PeHeapInfo local{};
  local.pid = static_cast<std::int32_t>(getpid());
  local.uid = static_cast<std::uint32_t>(getuid());
  gethostname(local.hostname, sizeof local.hostname - 1);
  local.status = probe(config, me == 0, &local);
  std::vector<PeHeapInfo> info(n);
  if (boot.allgather(&local, info.data(), sizeof local) != GSHMEM_SUCCESS)
    return GSHMEMI_ERROR(GSHMEMX_ERROR_BOOTSTRAP, "exchanging heap parameters between PEs failed");
  int rc = GSHMEM_SUCCESS;
  for (int pe = 0; pe < n; ++pe)
    if (info[pe].status != GSHMEM_SUCCESS) {
      rc = local.status != GSHMEM_SUCCESS
               ? local.status
               : GSHMEMI_ERROR(info[pe].status, "heap setup failed on PE %d; see its log", pe);
      break;
    }
  // All PEs must use one size (GSHMEM_SYMMETRIC_SIZE must agree) and one path.
  bool vmm = true;
  std::uint64_t bytes = info[0].heap_bytes;
  for (int pe = 0; pe < n && rc == GSHMEM_SUCCESS; ++pe) {
    vmm = vmm && info[pe].vmm_ok;
    if (info[pe].heap_bytes != bytes)
      rc = GSHMEMI_ERROR(GSHMEMX_ERROR_SYMMETRY,
                         "PE %d asked for a symmetric heap of %llu bytes but PE 0 for %llu bytes: "
                         "set the same GSHMEM_SYMMETRIC_SIZE on every PE", pe,
                         static_cast<unsigned long long>(info[pe].heap_bytes),
                         static_cast<unsigned long long>(bytes));
  }
  if (rc != GSHMEM_SUCCESS) return rc;
  if (!vmm && config.use_vmm) GSHMEMI_INFO("not every PE supports CUDA VMM: every PE uses cudaIpc handles");
  h.vmm = vmm;
  h.bytes = bytes;
  h.peer_base.assign(n, nullptr);
  h.peer_handles.assign(n, 0);
  h.peer_mapped.assign(n, false);

  rc = vmm ? vmm_setup(boot, config, info) : legacy_setup(boot, config, info);
  if (rc == GSHMEM_SUCCESS) {
    h.peer_base[me] = h.base;
    // The internal region starts zeroed on every PE before anyone uses it.
    cudaError_t err = cudaMemset(h.base, 0, GSHMEMI_INTERNAL_REGION_BYTES);
    if (err == cudaSuccess) err = cudaDeviceSynchronize();
    int zeroed = err == cudaSuccess ? GSHMEM_SUCCESS
                                    : GSHMEMI_ERROR(GSHMEMX_ERROR_CUDA, "zeroing the heap's internal region failed: %s",
                                                    cudaGetErrorString(err));
    rc = agree(boot, zeroed, "zeroing the internal region");
  }
  if (rc != GSHMEM_SUCCESS) {
    release_everything();
    return rc;
  }
  h.collective.reset(new CollectiveHeap(h.bytes, GSHMEMI_INTERNAL_REGION_BYTES));
  h.initialized = true;
  state->heap_base = h.base;
  state->heap_size = h.bytes;
  for (int pe = 0; pe < GSHMEMI_MAX_PES; ++pe) state->peer_base[pe] = pe < n ? h.peer_base[pe] : nullptr;
  GSHMEMI_INFO("symmetric heap: %zu bytes at %p via %s", h.bytes, static_cast<void *>(h.base),
               vmm ? "CUDA VMM + POSIX file descriptors" : "cudaIpc handles");
  return GSHMEM_SUCCESS;
}

int heap_finalize(Bootstrap &boot, bool collective) {
  HeapRuntime &h = g_heap;
  if (!h.initialized) return GSHMEMI_ERROR(GSHMEMX_ERROR_NOT_INITIALIZED, "the symmetric heap does not exist");
  if (!collective) {
    // A peer is gone: device work (this PE's, or a program's NCCL collective
    // stuck on the lost rank) may still run and may never end. Unmapping or
    // freeing now could fault it or wait for it forever, so the mappings stay
    // until the process exits; only the bookkeeping is dropped.
    h.ipc_opened.clear();
    h.peer_handles.clear();
    h.peer_mapped.clear();
    h.peer_base.clear();
    h.collective.reset();
    h.initialized = false;
    return GSHMEM_SUCCESS;
  }
  // Nobody may still be reading a peer's heap, nor a peer ours, when mappings go.
  (void)cudaDeviceSynchronize();
  int rc = boot.barrier();
  for (std::size_t pe = 0; pe < h.ipc_opened.size(); ++pe)
    if (h.ipc_opened[pe]) (void)cudaIpcCloseMemHandle(h.ipc_opened[pe]);
  h.ipc_opened.clear();
  if (h.vmm) {
    for (std::size_t pe = 0; pe < h.peer_handles.size(); ++pe) {
      if (h.peer_mapped[pe]) (void)h.driver.MemUnmap(h.reservation + pe * h.bytes, h.bytes);
      if (h.peer_handles[pe]) (void)h.driver.MemRelease(h.peer_handles[pe]);
      h.peer_mapped[pe] = false;
      h.peer_handles[pe] = 0;
    }
  }
  // Every PE has dropped its view of our heap before we free it.
  int rc2 = rc == GSHMEM_SUCCESS ? boot.barrier() : GSHMEM_SUCCESS;
  release_everything();
  if (rc != GSHMEM_SUCCESS) return rc;
  if (rc2 != GSHMEM_SUCCESS) return rc2;
  return GSHMEM_SUCCESS;
}

namespace {

void *finish(const HeapOutcome &outcome) {
  if (outcome.code != GSHMEM_SUCCESS) {
    GSHMEMI_ERROR(outcome.code, "%s", outcome.message.c_str());
    return nullptr;
  }
  return outcome.has_block ? g_heap.base + outcome.offset : nullptr;
}

bool require_heap(const char *routine) {
  if (g_heap.initialized) return true;
  GSHMEMI_ERROR(GSHMEMX_ERROR_NOT_INITIALIZED, "%s called before gshmem_init or after gshmem_finalize", routine);
  return false;
}

}  // namespace

void *heap_malloc(Bootstrap &boot, std::size_t size) {
  if (!require_heap("gshmem_malloc")) return nullptr;
  return finish(g_heap.collective->malloc(boot, size));
}

void *heap_calloc(Bootstrap &boot, std::size_t count, std::size_t size) {
  if (!require_heap("gshmem_calloc")) return nullptr;
  auto zero = [](std::size_t offset, std::size_t bytes, std::string *why) -> int {
    cudaError_t err = cudaMemset(g_heap.base + offset, 0, bytes);
    if (err == cudaSuccess) err = cudaDeviceSynchronize();
    if (err == cudaSuccess) return GSHMEM_SUCCESS;
    *why = std::string("zeroing the block failed: ") + cudaGetErrorString(err);
    return GSHMEMX_ERROR_CUDA;
  };
  return finish(g_heap.collective->calloc(boot, count, size, zero));
}

void *heap_allocate(Bootstrap &boot, std::size_t alignment, std::size_t size) {
  if (!require_heap("gshmem_align")) return nullptr;
  return finish(g_heap.collective->align(boot, alignment, size));
}

void heap_release(Bootstrap &boot, void *ptr) {
  if (!require_heap("gshmem_free")) return;
  HeapOutcome outcome = g_heap.collective->release(boot, reinterpret_cast<std::uintptr_t>(g_heap.base),
                                                   reinterpret_cast<std::uintptr_t>(ptr));
  if (outcome.code != GSHMEM_SUCCESS) GSHMEMI_ERROR(outcome.code, "%s", outcome.message.c_str());
}

std::size_t heap_bytes_in_use() {
  return g_heap.collective ? g_heap.collective->allocator().bytes_in_use() : 0;
}

bool heap_contains(const void *ptr, std::size_t bytes) {
  if (!g_heap.initialized || ptr == nullptr) return false;
  auto p = reinterpret_cast<std::uintptr_t>(ptr);
  auto b = reinterpret_cast<std::uintptr_t>(g_heap.base);
  return p >= b && p - b <= g_heap.bytes && bytes <= g_heap.bytes - (p - b) && (bytes > 0 || p - b < g_heap.bytes);
}

}  // namespace gshmemi

extern "C" GSHMEM_API size_t gshmemx_heap_bytes_in_use(void) { return gshmemi::heap_bytes_in_use(); }
