// The symmetric heap on the GPU: backing, peer mapping, and the host entry
// points over CollectiveHeap (see src/heap.h for the contract).
//
// VMM path: one cuMemCreate allocation per PE (exportable as a POSIX file
// descriptor), one VA reservation holding a slot for every PE (slot p at
// base + p * slot_bytes), our allocation mapped at the start of our slot, and
// each same-node peer's descriptor, received over a private Unix socket,
// imported and mapped at the start of its slot. Legacy path: cudaMalloc +
// cudaIpc handles.
//
// Registered buffers (gshmemx_buffer_register_symmetric). Each slot is
//   [ heap (heap_bytes) | gap to the alignment | registration window ]
// and a registered buffer takes the same window offset in every slot: on
// each PE its own buffer is mapped (a second mapping of the program's
// allocation, whose handle cuMemRetainAllocationHandle gives) into its own
// slot, and each same-node peer's buffer, exported as a POSIX descriptor and
// passed over the same private sockets as the heap, into that peer's slot.
// So a registered address is an ordinary symmetric address: the device's
// peer translation stays peer_base[pe] + (address - heap_base), with one
// bound (symmetric_span = the whole slot) instead of the heap size, and
// costs what it cost before; registering never republishes the device state.
// The price is virtual address space only (GSHMEM_REGISTRATION_SPACE per PE
// and slot, reserved at init, backed only where buffers are registered).
// The alternatives were a table of registered ranges that every device
// access would search (slower) or a reservation per registration whose base
// the PEs would have to agree on (not expressible by one offset from
// heap_base, so the same search). NVSHMEM reserves a large range for its
// heap and maps registered buffers into it in a similar spirit.
//
// Growth (VMM path). A slot's heap part is GSHMEM_MAX_SYMMETRIC_SIZE of
// addresses, of which the first GSHMEM_SYMMETRIC_SIZE bytes are mapped at
// init. When a collective allocation does not fit, every PE (they agreed on
// the call, so all of them) creates one more allocation of the missing
// size, rounded to the granularity, maps it right behind its mapped heap,
// and passes it to its peers like the heap itself, which map it behind the
// heap in its slot: the heap stays one range per PE, offsets and peer
// translation do not change, and nothing that was handed out moves. (NVSHMEM
// grows its heap on demand too, up to NVSHMEM_MAX_MEMORY_PER_GPU; programs
// written for it allocate more than the initial size and expect that to
// work.) The legacy path cannot grow.
//
// Every setup phase ends with an agreement (an allgather of each PE's
// status), so a PE that fails makes every PE fail at the same point with a
// message, instead of leaving the others waiting.
#include <cuda.h>
#include <cuda_runtime.h>
#include <sys/types.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "../heap.h"
#include "../cuda_util.h"
#include "../log.h"
#include "collective_heap.h"
#include "../string_format.h"
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
  // Registration of the program's buffers.
  decltype(&::cuMemRetainAllocationHandle) MemRetainAllocationHandle = nullptr;
  decltype(&::cuMemGetAllocationPropertiesFromHandle) MemGetAllocationPropertiesFromHandle = nullptr;
  decltype(&::cuMemGetAddressRange) MemGetAddressRange = nullptr;
  decltype(&::cuPointerGetAttribute) PointerGetAttribute = nullptr;
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
  GSHMEMI_LOAD(MemRetainAllocationHandle)
  GSHMEMI_LOAD(MemGetAllocationPropertiesFromHandle)
  GSHMEMI_LOAD(MemGetAddressRange)
  GSHMEMI_LOAD(PointerGetAttribute)
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
  std::uint64_t registration_bytes;  // GSHMEM_REGISTRATION_SPACE as this PE read it
  std::uint64_t max_heap_bytes;      // GSHMEM_MAX_SYMMETRIC_SIZE, rounded, as this PE read it
  SocketToken token;         // PE 0's is the job's
  char pci_bus_id[32];
  char hostname[64];
};

// A registered buffer on this PE: the program's allocation mapped a second
// time into this PE's slot, and each reachable peer's mapped into its slot,
// all at window offset `offset`.
struct Registration {
  std::size_t offset = 0;
  std::size_t bytes = 0;
  std::uintptr_t user = 0;                 // the program's own mapping (stays the program's)
  CUmemGenericAllocationHandle own = 0;    // retained from `user`
  bool own_mapped = false;
  std::vector<CUmemGenericAllocationHandle> peer_handles;  // 0 where none
  std::vector<bool> peer_mapped;
};

// One growth step of the heap on this PE (VMM path): this PE's new
// allocation, mapped at `offset` of its slot, and each reachable peer's
// mapped at the same offset of the peer's slot.
struct HeapExtension {
  std::size_t offset = 0;
  std::size_t bytes = 0;
  CUmemGenericAllocationHandle own = 0;
  bool own_mapped = false;
  std::vector<CUmemGenericAllocationHandle> peer_handles;  // 0 where none
  std::vector<bool> peer_mapped;
};

struct HeapRuntime {
  bool initialized = false;
  bool vmm = false;
  int device = 0;
  int my_pe = 0;
  int n_pes = 0;
  char *base = nullptr;          // this PE's heap
  std::size_t bytes = 0;         // mapped now: the initial size plus every extension
  std::size_t initial_bytes = 0; // mapped at init (the first allocation)
  std::size_t max_bytes = 0;     // the heap part of a slot (VMM; = bytes on the legacy path)
  std::vector<HeapExtension> extensions;
  DriverApi driver;
  // VMM
  CUdeviceptr reservation = 0;
  std::size_t reservation_bytes = 0;
  std::size_t slot_bytes = 0;       // one PE's share of the reservation: heap, gap, window
  std::size_t window_start = 0;     // where the registration window starts in a slot
  std::size_t window_bytes = 0;     // 0: registration off
  std::size_t window_alignment = 0; // the largest VMM granularity of the PEs
  SocketToken token{};              // PE 0's: names the job's sockets
  std::vector<pid_t> pids;          // every PE's process, as published at init
  std::vector<int> node_peers;      // the other PEs of this node
  std::map<std::size_t, Registration> registrations;  // by window offset; see g_registrations_mutex
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
// Guards g_heap.registrations: collective calls change it, and host argument
// checks on any thread read it (registered_contains).
std::mutex g_registrations_mutex;

// Pinned memory of device `dev` that can be exported as a POSIX file
// descriptor: what the heap and its extensions are made of.
CUmemAllocationProp exportable_device_memory(CUdevice dev) {
  CUmemAllocationProp prop{};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = dev;
  prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
  return prop;
}

// Read-write access from device `dev`: what every mapping here grants.
CUmemAccessDesc read_write_from(CUdevice dev) {
  CUmemAccessDesc access{};
  access.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  access.location.id = dev;
  access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  return access;
}

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
// that succeeded locally log which PEs failed. `context` names the
// operation ("heap setup", a routine), `phase` its step.
int agree(Bootstrap &boot, int local, const char *context, const char *phase) {
  std::vector<std::int32_t> codes(static_cast<std::size_t>(boot.size()));
  std::int32_t mine = local;
  if (boot.allgather(&mine, codes.data(), sizeof mine) != GSHMEM_SUCCESS)
    return GSHMEMI_ERROR(GSHMEMX_ERROR_BOOTSTRAP, "%s (%s): exchanging status with the other PEs failed", context,
                         phase);
  std::string failed;
  int first = GSHMEM_SUCCESS;
  for (int pe = 0; pe < boot.size(); ++pe) {
    if (codes[pe] == GSHMEM_SUCCESS) continue;
    if (first == GSHMEM_SUCCESS) first = codes[pe];
    failed += (failed.empty() ? "" : ", ") + std::to_string(pe);
  }
  if (first != GSHMEM_SUCCESS && local == GSHMEM_SUCCESS)
    return GSHMEMI_ERROR(first, "%s (%s) failed on PE(s) %s; see their log", context, phase, failed.c_str());
  return first;
}

int agree(Bootstrap &boot, int local, const char *phase) { return agree(boot, local, "heap setup", phase); }

bool same_node(const HeapConfig &config, const std::vector<PeHeapInfo> &info, int a, int b) {
  // A pair forced remote is never mapped (the decision is the same on both PEs).
  if (b < (int)config.unmapped_peers.size() && config.unmapped_peers[b]) return false;
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

CUdeviceptr slot_address(int pe) { return g_heap.reservation + static_cast<std::size_t>(pe) * g_heap.slot_bytes; }

CUdeviceptr window_address(int pe, std::size_t offset) { return slot_address(pe) + g_heap.window_start + offset; }

// Unmaps what a registration mapped and releases its handles. The
// program's own mapping of the buffer stays as it is.
void unmap_registration(Registration &r) {
  HeapRuntime &h = g_heap;
  for (std::size_t pe = 0; pe < r.peer_handles.size(); ++pe) {
    if (r.peer_mapped[pe]) (void)h.driver.MemUnmap(window_address(static_cast<int>(pe), r.offset), r.bytes);
    if (r.peer_handles[pe]) (void)h.driver.MemRelease(r.peer_handles[pe]);
    r.peer_mapped[pe] = false;
    r.peer_handles[pe] = 0;
  }
  if (r.own_mapped) (void)h.driver.MemUnmap(window_address(h.my_pe, r.offset), r.bytes);
  if (r.own) (void)h.driver.MemRelease(r.own);
  r.own_mapped = false;
  r.own = 0;
}

// Every buffer still registered (finalize and the failure paths); returns how many.
std::size_t unmap_all_registrations() {
  std::map<std::size_t, Registration> all;
  {
    std::lock_guard<std::mutex> lock(g_registrations_mutex);
    all.swap(g_heap.registrations);
  }
  for (auto &entry : all) unmap_registration(entry.second);
  return all.size();
}

// Forgets the registered buffers without unmapping them (a peer is gone:
// device work may still use them).
void drop_registrations() {
  std::lock_guard<std::mutex> lock(g_registrations_mutex);
  g_heap.registrations.clear();
}

// Unmaps and releases what exists of one extension, this PE's and its peers'.
void unmap_extension(HeapExtension &x) {
  HeapRuntime &h = g_heap;
  for (std::size_t pe = 0; pe < x.peer_handles.size(); ++pe) {
    if (x.peer_mapped[pe]) (void)h.driver.MemUnmap(slot_address(static_cast<int>(pe)) + x.offset, x.bytes);
    if (x.peer_handles[pe]) (void)h.driver.MemRelease(x.peer_handles[pe]);
    x.peer_mapped[pe] = false;
    x.peer_handles[pe] = 0;
  }
  if (x.own_mapped) (void)h.driver.MemUnmap(slot_address(h.my_pe) + x.offset, x.bytes);
  if (x.own) (void)h.driver.MemRelease(x.own);
  x.own_mapped = false;
  x.own = 0;
}

void unmap_extensions() {
  for (HeapExtension &x : g_heap.extensions) unmap_extension(x);
  g_heap.extensions.clear();
}

void release_everything() {
  HeapRuntime &h = g_heap;
  if (h.vmm) unmap_all_registrations();
  if (h.vmm) unmap_extensions();
  for (std::size_t pe = 0; pe < h.ipc_opened.size(); ++pe)
    if (h.ipc_opened[pe]) (void)cudaIpcCloseMemHandle(h.ipc_opened[pe]);
  h.ipc_opened.clear();
  if (h.vmm) {
    unmap_extensions();  // ours and the peers': the memory lives on while a peer still maps ours
    for (std::size_t pe = 0; pe < h.peer_handles.size(); ++pe) {
      if (h.peer_mapped[pe]) (void)h.driver.MemUnmap(slot_address(static_cast<int>(pe)), h.initial_bytes);
      if (h.peer_handles[pe]) (void)h.driver.MemRelease(h.peer_handles[pe]);
    }
    if (h.own_mapped) (void)h.driver.MemUnmap(reinterpret_cast<CUdeviceptr>(h.base), h.initial_bytes);
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

// More registration space than this (per PE) is refused at once: no GPU
// has that much virtual address space.
constexpr std::size_t kMaxRegistrationBytes = std::size_t(1) << 50;

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
        const CUmemAllocationProp prop = exportable_device_memory(dev);
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
  // Growth needs the VMM path; the legacy heap stays at its initial size.
  info->max_heap_bytes = info->vmm_ok && config.max_bytes > info->heap_bytes ? round_up(config.max_bytes, granularity)
                                                                             : info->heap_bytes;
  info->registration_bytes = config.registration_bytes;
  if (config.registration_bytes > kMaxRegistrationBytes)
    return GSHMEMI_ERROR(GSHMEMX_ERROR_ENVIRONMENT,
                         "GSHMEM_REGISTRATION_SPACE of %zu bytes is more virtual address space than a GPU has; "
                         "at most %zu", config.registration_bytes, kMaxRegistrationBytes);
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
  h.reservation_bytes = h.slot_bytes * static_cast<std::size_t>(n_pes);
  CUresult reserved = h.driver.MemAddressReserve(&h.reservation, h.reservation_bytes, h.bytes, 0, 0);
  if (reserved != CUDA_SUCCESS) {
    h.reservation = 0;
    return GSHMEMI_ERROR(GSHMEMX_ERROR_OUT_OF_MEMORY,
                         "reserving %s of virtual addresses (%d PEs x (heap %s + registration space %s)) failed: "
                         "%s; lower GSHMEM_SYMMETRIC_SIZE or GSHMEM_REGISTRATION_SPACE (0 turns registration off)",
                         describe_bytes(h.reservation_bytes).c_str(), n_pes, describe_bytes(h.bytes).c_str(),
                         describe_bytes(h.window_bytes).c_str(), driver_error(h.driver, reserved));
  }
  const CUmemAllocationProp prop = exportable_device_memory(dev);
  CUresult rc = h.driver.MemCreate(&h.own_handle, h.bytes, &prop, 0);
  if (rc != CUDA_SUCCESS) {
    h.own_handle = 0;
    return GSHMEMI_ERROR(rc == CUDA_ERROR_OUT_OF_MEMORY ? GSHMEMX_ERROR_OUT_OF_MEMORY : GSHMEMX_ERROR_CUDA,
                         "cuMemCreate(%zu bytes) for the symmetric heap failed: %s (GSHMEM_SYMMETRIC_SIZE too "
                         "large for device %d?)", h.bytes, driver_error(h.driver, rc), config.device);
  }
  CUdeviceptr mine = slot_address(my_pe);
  GSHMEMI_CU(h.driver.MemMap(mine, h.bytes, 0, h.own_handle, 0));
  h.own_mapped = true;
  h.base = reinterpret_cast<char *>(mine);
  const CUmemAccessDesc access = read_write_from(dev);
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
  CUdeviceptr slot = slot_address(pe);
  GSHMEMI_CU(h.driver.MemMap(slot, h.bytes, 0, handle, 0));
  h.peer_mapped[pe] = true;
  const CUmemAccessDesc access = read_write_from(dev);
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

// Passes `fd` (this PE's exported allocation) to every other PE of this
// node and collects theirs in (*received)[pe] (-1 where none), over the
// job's private sockets (PE 0's token, the pids published at init).
// Collective: `rc` is this PE's status so far, and the PEs agree after
// listening (`first_phase`), after sending and after receiving, so that a
// failure anywhere fails every PE at the same step, no PE waits for a
// descriptor that never comes, and every PE returns the same status. `what` names the descriptors in messages, `context` the
// operation. Sockets are closed on every path; the caller closes the
// received descriptors.
int exchange_fds(Bootstrap &boot, int rc, int fd, const char *what, const char *context, const char *first_phase,
                 std::vector<int> *received) {
  HeapRuntime &h = g_heap;
  const int n = boot.size(), me = boot.rank();
  received->assign(static_cast<std::size_t>(n), -1);
  int listener = -1;
  std::vector<int> connections;
  std::string why;
  if (rc == GSHMEM_SUCCESS && !h.node_peers.empty()) {
    listener = open_peer_listener(h.token, me, GSHMEMI_MAX_PES, &why);
    if (listener < 0) rc = GSHMEMI_ERROR(GSHMEMX_ERROR_BOOTSTRAP, "%s: socket: %s", context, why.c_str());
  }
  rc = agree(boot, rc, context, first_phase);
  if (rc == GSHMEM_SUCCESS) {
    for (int pe : h.node_peers) {
      int c = send_fd_to_peer(h.token, pe, h.pids[pe], me, fd, &why);
      if (c < 0) {
        rc = GSHMEMI_ERROR(GSHMEMX_ERROR_BOOTSTRAP, "%s: sending the %s to PE %d: %s", context, what, pe, why.c_str());
        break;
      }
      connections.push_back(c);
    }
    const std::string phase = std::string("sending ") + what + "s";
    rc = agree(boot, rc, context, phase.c_str());
  }
  if (rc == GSHMEM_SUCCESS) {
    // Every connection is already queued (senders agreed above), so the wait is short.
    for (std::size_t i = 0; i < h.node_peers.size() && rc == GSHMEM_SUCCESS; ++i) {
      int from = -1;
      int got = receive_fd_from_peer(listener, h.pids.data(), n, 30000, &from, &why);
      const bool expected = from >= 0 && from < n &&
                            std::find(h.node_peers.begin(), h.node_peers.end(), from) != h.node_peers.end();
      if (got < 0) {
        rc = GSHMEMI_ERROR(GSHMEMX_ERROR_BOOTSTRAP, "%s: receiving a %s: %s", context, what, why.c_str());
      } else if (!expected || (*received)[from] >= 0) {
        close(got);
        rc = GSHMEMI_ERROR(GSHMEMX_ERROR_BOOTSTRAP, "%s: unexpected %s from PE %d", context, what, from);
      } else {
        (*received)[from] = got;
      }
    }
    const std::string phase = std::string("receiving ") + what + "s";
    rc = agree(boot, rc, context, phase.c_str());
  }
  if (listener >= 0) close(listener);
  for (int c : connections) close(c);
  return rc;
}

void close_fds(std::vector<int> *fds) {
  for (int &fd : *fds)
    if (fd >= 0) {
      close(fd);
      fd = -1;
    }
}

// The VMM exchange: our allocation, the descriptor exchange, then each
// reachable peer's heap mapped. Descriptors are closed on every path.
int vmm_setup(Bootstrap &boot, const HeapConfig &config, const std::vector<PeHeapInfo> &info) {
  HeapRuntime &h = g_heap;
  const int n = boot.size(), me = boot.rank();
  int exported = -1;
  int rc = vmm_create_own(config, n, me, &exported);
  std::vector<int> received;
  rc = exchange_fds(boot, rc, exported, "heap handle", "heap setup", "VMM allocation and listening socket", &received);
  if (exported >= 0) close(exported);
  if (rc == GSHMEM_SUCCESS) {
    for (int pe : h.node_peers) {
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
  close_fds(&received);
  return rc;
}

// This PE's part of a growth step: a new allocation of x->bytes mapped
// at x->offset of its slot, exported as *fd.
int create_extension(HeapExtension *x, int *fd) {
  HeapRuntime &h = g_heap;
  CUdevice dev = 0;
  GSHMEMI_CU(h.driver.DeviceGet(&dev, h.device));
  const CUmemAllocationProp prop = exportable_device_memory(dev);
  CUresult rc = h.driver.MemCreate(&x->own, x->bytes, &prop, 0);
  if (rc != CUDA_SUCCESS) {
    x->own = 0;
    return GSHMEMI_ERROR(rc == CUDA_ERROR_OUT_OF_MEMORY ? GSHMEMX_ERROR_OUT_OF_MEMORY : GSHMEMX_ERROR_CUDA,
                         "cuMemCreate(%zu bytes) to grow the symmetric heap failed: %s", x->bytes,
                         driver_error(h.driver, rc));
  }
  const CUdeviceptr at = slot_address(h.my_pe) + x->offset;
  GSHMEMI_CU(h.driver.MemMap(at, x->bytes, 0, x->own, 0));
  x->own_mapped = true;
  const CUmemAccessDesc access = read_write_from(dev);
  GSHMEMI_CU(h.driver.MemSetAccess(at, x->bytes, &access, 1));
  GSHMEMI_CU(h.driver.MemExportToShareableHandle(fd, x->own, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
  return GSHMEM_SUCCESS;
}

// Maps PE pe's extension (its descriptor fd) at x->offset of its slot.
int map_peer_extension(HeapExtension *x, int pe, int fd) {
  HeapRuntime &h = g_heap;
  CUdevice dev = 0;
  GSHMEMI_CU(h.driver.DeviceGet(&dev, h.device));
  GSHMEMI_CU(h.driver.MemImportFromShareableHandle(&x->peer_handles[pe],
                                                   reinterpret_cast<void *>(static_cast<std::uintptr_t>(fd)),
                                                   CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR));
  const CUdeviceptr at = slot_address(pe) + x->offset;
  GSHMEMI_CU(h.driver.MemMap(at, x->bytes, 0, x->peer_handles[pe], 0));
  x->peer_mapped[pe] = true;
  const CUmemAccessDesc access = read_write_from(dev);
  GSHMEMI_CU(h.driver.MemSetAccess(at, x->bytes, &access, 1));
  return GSHMEM_SUCCESS;
}

// Grows every PE's heap to `capacity` bytes (collective; the design is at
// the top of this file). Every PE creates and maps its extension, the
// extensions travel like the heap's own descriptors, each PE maps the ones
// of the peers whose heap it maps, and the PEs agree after each step; on a
// failure anywhere every PE undoes its part and returns the same code.
int vmm_grow(Bootstrap &boot, std::size_t capacity, std::string *why) {
  HeapRuntime &h = g_heap;
  const int n = boot.size();
  if (capacity <= h.bytes || capacity > h.max_bytes) {
    *why = string_printf("internal: growth to %zu bytes from %zu (limit %zu)", capacity, h.bytes, h.max_bytes);
    return GSHMEMX_ERROR_INTERNAL;
  }
  HeapExtension x;
  x.offset = h.bytes;
  x.bytes = capacity - h.bytes;
  x.peer_handles.assign(static_cast<std::size_t>(n), 0);
  x.peer_mapped.assign(static_cast<std::size_t>(n), false);
  int fd = -1;
  int rc = create_extension(&x, &fd);
  std::vector<int> received;
  rc = exchange_fds(boot, rc, fd, "heap extension handle", "growing the symmetric heap",
                    "allocating the extension and listening socket", &received);
  if (fd >= 0) close(fd);
  if (rc == GSHMEM_SUCCESS) {
    for (int pe : h.node_peers) {
      if (rc != GSHMEM_SUCCESS) break;
      if (h.peer_base[pe] == nullptr || received[pe] < 0) continue;  // its heap is not mapped here either
      rc = map_peer_extension(&x, pe, received[pe]);
    }
    rc = agree(boot, rc, "growing the symmetric heap", "mapping the peers' extensions");
  }
  close_fds(&received);
  if (rc != GSHMEM_SUCCESS) {
    unmap_extension(x);
    *why = "see the log of the PE that failed";
    return rc;
  }
  h.extensions.push_back(x);
  GSHMEMI_INFO("symmetric heap grown from %s to %s per PE", describe_bytes(h.bytes).c_str(),
               describe_bytes(capacity).c_str());
  h.bytes = capacity;
  return GSHMEM_SUCCESS;
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
  // All PEs must use one size (GSHMEM_SYMMETRIC_SIZE must agree), one
  // registration space and one path.
  bool vmm = true;
  std::uint64_t bytes = info[0].heap_bytes;
  std::uint64_t registration = info[0].registration_bytes;
  std::size_t alignment = 0;
  for (int pe = 0; pe < n && rc == GSHMEM_SUCCESS; ++pe) {
    vmm = vmm && info[pe].vmm_ok;
    alignment = std::max<std::size_t>(alignment, info[pe].granularity);
    if (info[pe].heap_bytes != bytes)
      rc = GSHMEMI_ERROR(GSHMEMX_ERROR_SYMMETRY,
                         "PE %d asked for a symmetric heap of %llu bytes but PE 0 for %llu bytes: "
                         "set the same GSHMEM_SYMMETRIC_SIZE on every PE", pe,
                         static_cast<unsigned long long>(info[pe].heap_bytes),
                         static_cast<unsigned long long>(bytes));
    else if (info[pe].max_heap_bytes != info[0].max_heap_bytes && info[pe].vmm_ok && info[0].vmm_ok)
      rc = GSHMEMI_ERROR(GSHMEMX_ERROR_SYMMETRY,
                         "PE %d may grow its symmetric heap to %llu bytes but PE 0 to %llu bytes: "
                         "set the same GSHMEM_MAX_SYMMETRIC_SIZE on every PE", pe,
                         static_cast<unsigned long long>(info[pe].max_heap_bytes),
                         static_cast<unsigned long long>(info[0].max_heap_bytes));
    else if (info[pe].registration_bytes != registration)
      rc = GSHMEMI_ERROR(GSHMEMX_ERROR_SYMMETRY,
                         "PE %d has a registration space of %llu bytes but PE 0 of %llu bytes: "
                         "set the same GSHMEM_REGISTRATION_SPACE on every PE", pe,
                         static_cast<unsigned long long>(info[pe].registration_bytes),
                         static_cast<unsigned long long>(registration));
  }
  if (rc != GSHMEM_SUCCESS) return rc;
  if (!vmm && config.use_vmm) GSHMEMI_INFO("not every PE supports CUDA VMM: every PE uses cudaIpc handles");
  h.vmm = vmm;
  h.bytes = bytes;
  h.initial_bytes = bytes;
  // Each PE's slot: the heap's addresses (up to GSHMEM_MAX_SYMMETRIC_SIZE on
  // the VMM path, the first `bytes` mapped), then (VMM only) the
  // registration window, starting at a multiple of every PE's granularity
  // (see the top of this file).
  h.max_bytes = vmm ? round_up(std::max<std::size_t>(bytes, info[0].max_heap_bytes), alignment) : bytes;
  h.window_alignment = alignment;
  h.window_start = h.max_bytes;
  h.window_bytes = 0;
  if (vmm && registration > 0) {
    h.window_start = round_up(h.max_bytes, alignment);
    h.window_bytes = round_up(registration, alignment);
  }
  h.slot_bytes = h.window_start + h.window_bytes;
  h.token = info[0].token;
  h.pids.assign(n, 0);
  for (int pe = 0; pe < n; ++pe) {
    h.pids[pe] = info[pe].pid;
    if (pe != me && same_node(config, info, me, pe)) h.node_peers.push_back(pe);
  }
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
  h.collective.reset(new CollectiveHeap(h.bytes, GSHMEMI_INTERNAL_REGION_BYTES, h.window_bytes, h.window_alignment));
  if (vmm && h.max_bytes > h.bytes) {
    h.collective->enable_growth(&vmm_grow, h.max_bytes, h.window_alignment);
  }
  h.initialized = true;
  state->heap_base = h.base;
  state->heap_size = h.bytes;
  state->symmetric_span = vmm ? h.slot_bytes : h.bytes;
  for (int pe = 0; pe < GSHMEMI_MAX_PES; ++pe) state->peer_base[pe] = pe < n ? h.peer_base[pe] : nullptr;
  GSHMEMI_INFO("symmetric heap: %zu bytes at %p via %s; registration space %s per PE", h.bytes,
               static_cast<void *>(h.base), vmm ? "CUDA VMM + POSIX file descriptors" : "cudaIpc handles",
               h.window_bytes ? describe_bytes(h.window_bytes).c_str() : "none");
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
    drop_registrations();
    h.extensions.clear();
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
  // Buffers the program left registered go first (their mappings live in
  // the slots); the program's own mappings of them stay valid.
  if (h.vmm) {
    const std::size_t left = unmap_all_registrations();
    if (left > 0) GSHMEMI_INFO("gshmem_finalize: unregistered %zu buffer(s) the program left registered", left);
  }
  for (std::size_t pe = 0; pe < h.ipc_opened.size(); ++pe)
    if (h.ipc_opened[pe]) (void)cudaIpcCloseMemHandle(h.ipc_opened[pe]);
  h.ipc_opened.clear();
  if (h.vmm) {
    for (std::size_t pe = 0; pe < h.peer_handles.size(); ++pe) {
      if (h.peer_mapped[pe]) (void)h.driver.MemUnmap(slot_address(static_cast<int>(pe)), h.initial_bytes);
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

std::size_t heap_mapped_bytes() { return g_heap.initialized ? g_heap.bytes : 0; }

std::size_t heap_bytes_in_use() {
  return g_heap.collective ? g_heap.collective->allocator().bytes_in_use() : 0;
}

bool heap_contains(const void *ptr, std::size_t bytes) {
  if (!g_heap.initialized || ptr == nullptr) return false;
  auto p = reinterpret_cast<std::uintptr_t>(ptr);
  auto b = reinterpret_cast<std::uintptr_t>(g_heap.base);
  return p >= b && p - b <= g_heap.bytes && bytes <= g_heap.bytes - (p - b) && (bytes > 0 || p - b < g_heap.bytes);
}

// ------------------------------------------------------------ registered buffers

namespace {

constexpr const char *kRegister = "gshmemx_buffer_register_symmetric";
constexpr const char *kUnregister = "gshmemx_buffer_unregister_symmetric";

// Registration needs the VMM heap and a window; the same on every PE (both
// were agreed at init), so a refusal here needs no collective.
bool require_registration(const char *routine) {
  const HeapRuntime &h = g_heap;
  if (!h.vmm) {
    GSHMEMI_ERROR(GSHMEMX_ERROR_NOT_SUPPORTED,
                  "%s: not supported in this heap mode: the heap uses cudaIpc handles (GSHMEM_DISABLE_VMM=1, or "
                  "a GPU or driver without CUDA VMM and POSIX file descriptor handles), and registration needs "
                  "the CUDA VMM heap", routine);
    return false;
  }
  if (h.window_bytes == 0) {
    GSHMEMI_ERROR(GSHMEMX_ERROR_NOT_SUPPORTED, "%s: registration is off (GSHMEM_REGISTRATION_SPACE=0)", routine);
    return false;
  }
  return true;
}

// This PE's checks of a buffer to register: [buf, buf + size) must be one
// whole allocation that the program made with the CUDA VMM API on this PE's
// GPU, exportable as a POSIX file descriptor, and not gshmem's own memory.
// Retains the allocation's handle in *handle (the caller releases it).
// Returns 0 or an error code, with *why saying what is wrong; logs nothing
// (the collective call reports once, for every PE).
int inspect_user_buffer(void *buf, std::size_t size, int flags, CUmemGenericAllocationHandle *handle,
                        std::string *why) {
  const HeapRuntime &h = g_heap;
  const DriverApi &d = h.driver;
  const auto address = reinterpret_cast<CUdeviceptr>(buf);
  *handle = 0;
  if (flags != 0) {
    *why = string_printf("flags must be 0 (got %d)", flags);
    return GSHMEMX_ERROR_INVALID_VALUE;
  }
  if (buf == nullptr) {
    *why = "buf_ptr is NULL";
    return GSHMEMX_ERROR_INVALID_VALUE;
  }
  if (size == 0) {
    *why = "size is 0";
    return GSHMEMX_ERROR_INVALID_VALUE;
  }
  if (address >= h.reservation && address - h.reservation < h.reservation_bytes) {
    *why = string_printf("buf_ptr %p lies in gshmem's symmetric address space (the heap or a registered buffer); "
                         "register the program's own mapping of its allocation", buf);
    return GSHMEMX_ERROR_INVALID_VALUE;
  }
  // cudaMalloc memory is what the legacy IPC handles serve; VMM memory is
  // not (NCCL tells the two kinds apart the same way).
  int legacy_ipc = 0;
  if (d.PointerGetAttribute(&legacy_ipc, CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE, address) == CUDA_SUCCESS &&
      legacy_ipc != 0) {
    *why = string_printf("buf_ptr %p is cudaMalloc memory, not memory mapped through the CUDA VMM API (cuMemCreate "
                         "+ cuMemMap); only VMM allocations can be registered", buf);
    return GSHMEMX_ERROR_INVALID_VALUE;
  }
  CUresult rc = d.MemRetainAllocationHandle(handle, buf);
  if (rc != CUDA_SUCCESS) {
    *handle = 0;
    *why = string_printf("buf_ptr %p is not memory mapped through the CUDA VMM API (cuMemCreate + cuMemMap): "
                         "cuMemRetainAllocationHandle says %s. Memory from cudaMalloc, cudaMallocManaged or the "
                         "host cannot be registered", buf, driver_error(d, rc));
    return GSHMEMX_ERROR_INVALID_VALUE;
  }
  CUmemAllocationProp prop{};
  rc = d.MemGetAllocationPropertiesFromHandle(&prop, *handle);
  if (rc != CUDA_SUCCESS) {
    *why = string_printf("cuMemGetAllocationPropertiesFromHandle(buf_ptr %p) failed: %s", buf, driver_error(d, rc));
    return GSHMEMX_ERROR_CUDA;
  }
  if (prop.location.type != CU_MEM_LOCATION_TYPE_DEVICE) {
    *why = string_printf("buf_ptr %p is not device memory (allocation location type %d): only memory of this PE's "
                         "GPU can be registered", buf, static_cast<int>(prop.location.type));
    return GSHMEMX_ERROR_INVALID_VALUE;
  }
  if (prop.location.id != h.device) {
    *why = string_printf("buf_ptr %p is memory of device %d, but this PE uses device %d", buf, prop.location.id,
                         h.device);
    return GSHMEMX_ERROR_INVALID_VALUE;
  }
  if ((prop.requestedHandleTypes & CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR) == 0) {
    *why = string_printf("buf_ptr %p was allocated without CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR in "
                         "CUmemAllocationProp::requestedHandleTypes, so the other PEs cannot import it", buf);
    return GSHMEMX_ERROR_INVALID_VALUE;
  }
  std::size_t granularity = 0;
  rc = d.MemGetAllocationGranularity(&granularity, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM);
  if (rc != CUDA_SUCCESS) {
    *why = string_printf("cuMemGetAllocationGranularity failed: %s", driver_error(d, rc));
    return GSHMEMX_ERROR_CUDA;
  }
  if (granularity == 0 || size % granularity != 0) {
    *why = string_printf("size %zu is not a multiple of the allocation granularity (%zu bytes)", size, granularity);
    return GSHMEMX_ERROR_INVALID_VALUE;
  }
  if (h.window_alignment % granularity != 0) {
    *why = string_printf("the allocation's granularity (%zu bytes) does not divide the registration window's "
                         "alignment (%zu bytes)", granularity, h.window_alignment);
    return GSHMEMX_ERROR_NOT_SUPPORTED;
  }
  // The range of the one mapping that holds buf_ptr (a mapping is always of
  // a whole allocation, from its start).
  CUdeviceptr base = 0;
  std::size_t mapped = 0;
  rc = d.MemGetAddressRange(&base, &mapped, address);
  if (rc != CUDA_SUCCESS) {
    *why = string_printf("cuMemGetAddressRange(buf_ptr %p) failed: %s", buf, driver_error(d, rc));
    return GSHMEMX_ERROR_CUDA;
  }
  if (base != address) {
    *why = string_printf("buf_ptr %p is %llu bytes into the allocation mapped at %p: pass the start of the "
                         "allocation", buf, static_cast<unsigned long long>(address - base),
                         reinterpret_cast<void *>(base));
    return GSHMEMX_ERROR_INVALID_VALUE;
  }
  if (mapped != size) {
    *why = string_printf("size %zu differs from the size of the allocation mapped at buf_ptr %p (%zu bytes): "
                         "register one whole cuMemCreate allocation", size, buf, mapped);
    return GSHMEMX_ERROR_INVALID_VALUE;
  }
  return GSHMEM_SUCCESS;
}

// Maps the agreed registration `r` (window offset r->offset): this PE's
// buffer into its own slot, then, after the descriptor exchange, each
// reachable same-node peer's buffer into that peer's slot. Collective: every
// PE passes each agreement of the exchange even after a local failure. On
// failure *why says what failed on this PE; the caller unmaps what was mapped.
int map_registration(Bootstrap &boot, Registration *r, std::string *why) {
  HeapRuntime &h = g_heap;
  const DriverApi &d = h.driver;
  const int me = boot.rank();
  const CUmemAccessDesc access = read_write_from(h.device);
  auto failed = [&](const char *what, CUresult rc) {
    *why = string_printf("%s failed: %s", what, driver_error(d, rc));
    return GSHMEMX_ERROR_CUDA;
  };

  int rc = GSHMEM_SUCCESS;
  int exported = -1;
  const CUdeviceptr alias = window_address(me, r->offset);
  CUresult cu = d.MemMap(alias, r->bytes, 0, r->own, 0);
  if (cu != CUDA_SUCCESS) {
    rc = failed("mapping the buffer into the symmetric address space (cuMemMap)", cu);
  } else {
    r->own_mapped = true;
    cu = d.MemSetAccess(alias, r->bytes, &access, 1);
    if (cu != CUDA_SUCCESS) rc = failed("cuMemSetAccess on the buffer's symmetric address", cu);
  }
  if (rc == GSHMEM_SUCCESS) {
    cu = d.MemExportToShareableHandle(&exported, r->own, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0);
    if (cu != CUDA_SUCCESS) {
      exported = -1;
      rc = failed("exporting the buffer's handle (cuMemExportToShareableHandle)", cu);
    }
  }
  std::vector<int> received;
  const int exchanged =
      exchange_fds(boot, rc, exported, "buffer handle", kRegister, "mapping the buffer locally", &received);
  if (exported >= 0) close(exported);
  if (exchanged != GSHMEM_SUCCESS && rc == GSHMEM_SUCCESS) {
    *why = "another PE failed while the PEs exchanged the buffer's handles (see the messages above)";
    rc = exchanged;
  }
  for (int pe : h.node_peers) {
    if (rc != GSHMEM_SUCCESS) break;
    if (h.peer_base[pe] == nullptr) continue;  // the peer's heap is not reachable either
    cu = d.MemImportFromShareableHandle(&r->peer_handles[pe],
                                        reinterpret_cast<void *>(static_cast<std::uintptr_t>(received[pe])),
                                        CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
    if (cu != CUDA_SUCCESS) {
      r->peer_handles[pe] = 0;
      rc = failed(string_printf("importing PE %d's buffer handle", pe).c_str(), cu);
      break;
    }
    const CUdeviceptr slot = window_address(pe, r->offset);
    cu = d.MemMap(slot, r->bytes, 0, r->peer_handles[pe], 0);
    if (cu != CUDA_SUCCESS) {
      rc = failed(string_printf("mapping PE %d's buffer (cuMemMap)", pe).c_str(), cu);
      break;
    }
    r->peer_mapped[pe] = true;
    cu = d.MemSetAccess(slot, r->bytes, &access, 1);
    if (cu != CUDA_SUCCESS) rc = failed(string_printf("cuMemSetAccess on PE %d's buffer", pe).c_str(), cu);
  }
  close_fds(&received);
  return rc;
}

}  // namespace

void *heap_register_buffer(Bootstrap &boot, void *buf, std::size_t size, int flags) {
  if (!require_heap(kRegister) || !require_registration(kRegister)) return nullptr;
  HeapRuntime &h = g_heap;
  Registration pending;
  pending.bytes = size;
  pending.user = reinterpret_cast<std::uintptr_t>(buf);
  pending.peer_handles.assign(static_cast<std::size_t>(h.n_pes), 0);
  pending.peer_mapped.assign(static_cast<std::size_t>(h.n_pes), false);
  std::string why;
  const int local = inspect_user_buffer(buf, size, flags, &pending.own, &why);
  auto map = [&](std::size_t offset, std::size_t, std::string *failure) {
    pending.offset = offset;
    return map_registration(boot, &pending, failure);
  };
  const HeapOutcome outcome = h.collective->register_buffer(boot, pending.user, size, local, why, map);
  if (outcome.code != GSHMEM_SUCCESS) {
    unmap_registration(pending);  // what this PE mapped, and the retained handle
    GSHMEMI_ERROR(outcome.code, "%s", outcome.message.c_str());
    return nullptr;
  }
  void *symmetric = reinterpret_cast<void *>(window_address(h.my_pe, outcome.offset));
  GSHMEMI_INFO("%s: %p (%s) registered at %p", kRegister, buf, describe_bytes(size).c_str(), symmetric);
  std::lock_guard<std::mutex> lock(g_registrations_mutex);
  h.registrations.emplace(outcome.offset, std::move(pending));
  return symmetric;
}

int heap_unregister_buffer(Bootstrap &boot, void *ptr, std::size_t size) {
  if (!require_heap(kUnregister)) return GSHMEMX_ERROR_NOT_INITIALIZED;
  if (!require_registration(kUnregister)) return GSHMEMX_ERROR_NOT_SUPPORTED;
  HeapRuntime &h = g_heap;
  // This PE's device work is done with the buffer before its mappings go;
  // the agreement below is a barrier after every PE's, so no peer still
  // reaches it either.
  const cudaError_t err = cudaDeviceSynchronize();
  if (err != cudaSuccess)
    GSHMEMI_WARN("%s: device work failed before the buffer was unregistered: %s", kUnregister,
                 cudaGetErrorString(err));
  const HeapOutcome outcome = h.collective->unregister_buffer(boot, window_address(h.my_pe, 0),
                                                              reinterpret_cast<std::uintptr_t>(ptr), size);
  if (outcome.code != GSHMEM_SUCCESS) return GSHMEMI_ERROR(outcome.code, "%s", outcome.message.c_str());
  Registration gone;
  {
    std::lock_guard<std::mutex> lock(g_registrations_mutex);
    auto it = h.registrations.find(outcome.offset);
    if (it == h.registrations.end())
      return GSHMEMI_ERROR(GSHMEMX_ERROR_INTERNAL, "%s: no record of the registration at offset %zu", kUnregister,
                           outcome.offset);
    gone = std::move(it->second);
    h.registrations.erase(it);
  }
  unmap_registration(gone);
  return GSHMEM_SUCCESS;
}

bool registered_contains(const void *ptr, std::size_t bytes) {
  const HeapRuntime &h = g_heap;
  if (!h.initialized || !h.vmm || h.window_bytes == 0 || ptr == nullptr) return false;
  const auto p = reinterpret_cast<std::uintptr_t>(ptr);
  const std::uintptr_t window = window_address(h.my_pe, 0);
  if (p < window || p - window >= h.window_bytes) return false;
  const std::size_t offset = p - window;
  std::lock_guard<std::mutex> lock(g_registrations_mutex);
  auto it = h.registrations.upper_bound(offset);
  if (it == h.registrations.begin()) return false;
  --it;
  const std::size_t into = offset - it->first;
  return into < it->second.bytes && std::max<std::size_t>(bytes, 1) <= it->second.bytes - into;
}

bool registered_range(std::uintptr_t address, std::uint64_t bytes) {
  return registered_contains(reinterpret_cast<const void *>(address), static_cast<std::size_t>(bytes));
}

}  // namespace gshmemi

extern "C" GSHMEM_API size_t gshmemx_heap_bytes_in_use(void) { return gshmemi::heap_bytes_in_use(); }
