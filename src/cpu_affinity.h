// Where the proxy thread runs (docs/remote.md, "The proxy under CPU
// binding"): CPU lists, GSHMEM_PROXY_CPUS and GSHMEM_PROXY_SHARED_SYNC, the
// choice of the proxy's CPUs from what the launch left the process, and the
// Linux queries behind that choice. The choice itself is pure (CPU tests in
// tests/remote/cpu_affinity_test.cpp); the queries read sysfs and the
// scheduler's masks.
#pragma once

#include <gshmem/detail/config.h>

#include <pthread.h>

#include <cstddef>
#include <string>
#include <vector>

namespace gshmemi {

// CPU numbers, sorted, each once.
using CpuList = std::vector<int>;

// The kernel's list form: "0-3,8,10-11" (ranges and single CPUs, commas
// between; blanks and a trailing newline are ignored; "" is the empty
// list). Returns false and *why (naming the text) on anything else, a
// reversed range, or a CPU number of 1 << 20 or more.
GSHMEM_API bool parse_cpulist(const std::string &text, CpuList *out, std::string *why);
// The same form, ranges folded: {0,1,2,3,8} -> "0-3,8"; {} -> "" .
GSHMEM_API std::string format_cpulist(const CpuList &cpus);
GSHMEM_API CpuList cpus_and(const CpuList &a, const CpuList &b);
GSHMEM_API CpuList cpus_minus(const CpuList &a, const CpuList &b);
GSHMEM_API CpuList cpus_union(const CpuList &a, const CpuList &b);

// GSHMEM_PROXY_CPUS: auto (the default), inherit, or a CPU list.
struct ProxyCpusSetting {
  enum class Mode { automatic, inherit, list } mode = Mode::automatic;
  CpuList list;  // Mode::list only; never empty
};
// GSHMEMX_ERROR_ENVIRONMENT and *why naming the variable and the value on
// anything else (an empty list included).
GSHMEM_API int parse_proxy_cpus(const std::string &text, ProxyCpusSetting *out, std::string *why);

// GSHMEM_PROXY_SHARED_SYNC: how CUDA waits on the device when the proxy
// must share the application thread's CPU.
enum class SharedSync { yield, blocking, keep };
GSHMEM_API int parse_shared_sync(const std::string &text, SharedSync *out, std::string *why);

// What the choice looks at; every list in the same numbering (the kernel's).
struct ProxyPlacementInput {
  CpuList app;                     // this PE's application thread (its mask at init)
  CpuList allowed;                 // what this process may use at all (cgroup cpuset; else every online CPU)
  CpuList gpu_local;               // the GPU's NUMA-local CPUs (empty: unknown)
  std::vector<CpuList> local_apps; // the application masks of the other PEs of this node
};

struct ProxyPlacement {
  bool set_mask = false;  // give the proxy thread `cpus` (else it keeps the mask it inherits: app)
  CpuList cpus;           // the proxy's CPUs (the inherited mask when !set_mask)
  // The proxy has no CPU that the application threads of this node's PEs
  // are not bound to, and they leave it too few: it waits cooperatively
  // (Proxy::set_shared_cpu) and init warns.
  bool shared = false;
  std::string reason;  // one clause for the log: why these CPUs
};

// The proxy's CPUs. A PE's application thread and its proxy want a CPU
// each: a mask is crowded when it has fewer CPUs than twice the PEs of the
// node whose masks overlap it (this one included). inherit: the proxy keeps
// the process mask. A list: those CPUs that the process may use (none:
// GSHMEMX_ERROR_ENVIRONMENT through *error, naming the list and the allowed
// CPUs). auto: a mask that is not crowded is kept (the scheduler spreads the
// threads over it); a crowded one is left for CPUs the process may use that
// no application thread of this node is bound to, the GPU's NUMA-local ones
// among them when there are any; when there are none, the proxy keeps the
// mask and shares. Pure.
GSHMEM_API ProxyPlacement choose_proxy_cpus(const ProxyCpusSetting &setting, const ProxyPlacementInput &in,
                                            int *error = nullptr, std::string *why = nullptr);

// The one-line warning init logs when placement.shared: the problem (the
// CPUs the proxy shares, with how many PEs) and the launcher flags that fix
// it. Pure.
GSHMEM_API std::string shared_cpu_warning(const ProxyPlacement &placement, const ProxyPlacementInput &in);

// A fixed-size form of a CPU list for the bootstrap's allgather (CPUs
// 0..8 * kCpuMaskBytes - 1; larger numbers are dropped).
constexpr std::size_t kCpuMaskBytes = 128;
GSHMEM_API void cpus_to_mask(const CpuList &cpus, unsigned char *mask);
GSHMEM_API CpuList cpus_from_mask(const unsigned char *mask);

// ---- Linux queries ----
// The calling thread's mask (empty on failure).
GSHMEM_API CpuList current_thread_cpus();
// A thread's mask; 0 or an errno value.
GSHMEM_API int thread_cpus(pthread_t thread, CpuList *out);
// Gives `thread` the mask `cpus`; 0 or an errno value (EINVAL: none of them
// may be used).
GSHMEM_API int set_thread_cpus(pthread_t thread, const CpuList &cpus);
// The CPUs `thread` may be given at all: it is given every CPU, and the
// kernel keeps those its cpuset (cgroup) allows and are online. Changes the
// thread's mask (the caller sets the one it wants next). Empty on failure.
GSHMEM_API CpuList probe_allowed_cpus(pthread_t thread);
// probe_allowed_cpus on a short-lived thread of its own (the caller's mask
// is left alone); the online CPUs when no thread can be started.
GSHMEM_API CpuList process_allowed_cpus();
// /sys/bus/pci/devices/<id>/local_cpulist for a PCI bus id as CUDA writes it
// ("0000:1B:00.0"; looked up in lower case). Empty when unknown.
GSHMEM_API CpuList pci_local_cpus(const std::string &pci_bus_id);

}  // namespace gshmemi
