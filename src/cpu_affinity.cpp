// Where the proxy thread runs: see cpu_affinity.h and docs/remote.md.
#include "cpu_affinity.h"

#include <gshmem/runtime.h>

#include <sched.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <fstream>
#include <iterator>
#include <sstream>
#include <thread>

namespace gshmemi {

namespace {

constexpr long kMaxCpu = 1l << 20;

bool parse_number(const std::string &s, long *out) {
  if (s.empty() || s.size() > 8) return false;
  for (char c : s)
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  *out = std::stol(s);
  return true;
}

std::string trim(const std::string &s) {
  std::size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

CpuList normalized(CpuList v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

bool intersects(const CpuList &a, const CpuList &b) { return !cpus_and(a, b).empty(); }

std::string read_text_file(const std::string &path) {
  std::ifstream in(path);
  if (!in) return std::string();
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Every online CPU (the cpuset unknown); empty when unreadable.
CpuList online_cpus() {
  CpuList cpus;
  std::string why;
  if (!parse_cpulist(read_text_file("/sys/devices/system/cpu/online"), &cpus, &why)) cpus.clear();
  return cpus;
}

}  // namespace

bool parse_cpulist(const std::string &text, CpuList *out, std::string *why) {
  CpuList cpus;
  const std::string all = trim(text);
  std::size_t start = 0;
  while (!all.empty() && start <= all.size()) {
    const std::size_t comma = all.find(',', start);
    const std::string item = trim(all.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    const std::size_t dash = item.find('-');
    long lo = 0, hi = 0;
    bool ok;
    if (dash == std::string::npos) {
      ok = parse_number(item, &lo);
      hi = lo;
    } else {
      ok = parse_number(trim(item.substr(0, dash)), &lo) && parse_number(trim(item.substr(dash + 1)), &hi);
    }
    if (!ok || lo > hi || hi >= kMaxCpu) {
      if (why)
        *why = "'" + text + "' is not a CPU list ('" + item +
               "': expected CPU numbers and ranges such as 3,8-11, low end first)";
      return false;
    }
    for (long c = lo; c <= hi; ++c) cpus.push_back(static_cast<int>(c));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  *out = normalized(std::move(cpus));
  return true;
}

std::string format_cpulist(const CpuList &cpus_in) {
  const CpuList cpus = normalized(cpus_in);
  std::string s;
  for (std::size_t i = 0; i < cpus.size();) {
    std::size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    if (!s.empty()) s += ',';
    s += std::to_string(cpus[i]);
    if (j > i) s += '-' + std::to_string(cpus[j]);
    i = j + 1;
  }
  return s;
}

CpuList cpus_and(const CpuList &a, const CpuList &b) {
  CpuList out;
  std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
  return out;
}

CpuList cpus_minus(const CpuList &a, const CpuList &b) {
  CpuList out;
  std::set_difference(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
  return out;
}

CpuList cpus_union(const CpuList &a, const CpuList &b) {
  CpuList out;
  std::set_union(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
  return out;
}

int parse_proxy_cpus(const std::string &text, ProxyCpusSetting *out, std::string *why) {
  ProxyCpusSetting s;
  const std::string t = trim(text);
  if (t == "auto") {
    s.mode = ProxyCpusSetting::Mode::automatic;
  } else if (t == "inherit") {
    s.mode = ProxyCpusSetting::Mode::inherit;
  } else {
    std::string problem;
    if (!parse_cpulist(t, &s.list, &problem) || s.list.empty()) {
      if (why)
        *why = "GSHMEM_PROXY_CPUS='" + text + "': expected auto, inherit or a CPU list such as 3,8-11" +
               (problem.empty() ? std::string() : " (" + problem + ")");
      return GSHMEMX_ERROR_ENVIRONMENT;
    }
    s.mode = ProxyCpusSetting::Mode::list;
  }
  *out = s;
  return GSHMEM_SUCCESS;
}

int parse_shared_sync(const std::string &text, SharedSync *out, std::string *why) {
  const std::string t = trim(text);
  if (t == "yield") {
    *out = SharedSync::yield;
  } else if (t == "blocking") {
    *out = SharedSync::blocking;
  } else if (t == "keep") {
    *out = SharedSync::keep;
  } else {
    if (why) *why = "GSHMEM_PROXY_SHARED_SYNC='" + text + "': expected yield, blocking or keep";
    return GSHMEMX_ERROR_ENVIRONMENT;
  }
  return GSHMEM_SUCCESS;
}

ProxyPlacement choose_proxy_cpus(const ProxyCpusSetting &setting, const ProxyPlacementInput &in, int *error,
                                 std::string *why) {
  if (error) *error = GSHMEM_SUCCESS;
  const CpuList app = normalized(in.app);
  const CpuList allowed = normalized(in.allowed);
  CpuList busy = app;  // CPUs some application thread of this node is bound to
  int crowd = 1;       // PEs of this node whose application masks overlap this one's
  for (const CpuList &other : in.local_apps) {
    const CpuList o = normalized(other);
    busy = cpus_union(busy, o);
    if (intersects(o, app)) ++crowd;
  }
  const bool crowded = !app.empty() && app.size() < static_cast<std::size_t>(2 * crowd);
  const std::string app_text = format_cpulist(app);
  const std::string crowd_text = crowd == 1 ? std::string("the application thread and the proxy")
                                             : std::to_string(crowd) + " PEs' application threads and proxies";

  ProxyPlacement p;
  p.cpus = app;
  switch (setting.mode) {
    case ProxyCpusSetting::Mode::inherit:
      p.shared = crowded;
      p.reason = "GSHMEM_PROXY_CPUS=inherit: the process mask";
      return p;
    case ProxyCpusSetting::Mode::list: {
      const CpuList list = normalized(setting.list);
      const CpuList usable = allowed.empty() ? list : cpus_and(list, allowed);
      if (usable.empty()) {
        if (error) *error = GSHMEMX_ERROR_ENVIRONMENT;
        if (why)
          *why = "GSHMEM_PROXY_CPUS=" + format_cpulist(list) + ": none of these CPUs may be used by this process (it may use " +
                 format_cpulist(allowed) + ")";
        return p;
      }
      p.set_mask = true;
      p.cpus = usable;
      p.shared = crowded && cpus_minus(usable, busy).empty();
      p.reason = "GSHMEM_PROXY_CPUS=" + format_cpulist(list);
      if (usable != list) p.reason += " (those of them this process may use)";
      return p;
    }
    case ProxyCpusSetting::Mode::automatic:
      break;
  }
  if (app.empty()) {
    p.reason = "the process mask (unknown)";
    return p;
  }
  if (!crowded) {
    p.reason = "the process mask (" + app_text + ": a CPU each for " + crowd_text + ")";
    return p;
  }
  const CpuList free_cpus = cpus_minus(allowed, busy);
  const CpuList local_free = cpus_and(free_cpus, normalized(in.gpu_local));
  if (!free_cpus.empty()) {
    p.set_mask = true;
    p.cpus = local_free.empty() ? free_cpus : local_free;
    p.reason = "the process mask " + app_text + " is crowded (" + crowd_text + " on " +
               std::to_string(app.size()) + " CPU" + (app.size() == 1 ? "" : "s") +
               "); CPUs no application thread of this node is bound to" +
               (local_free.empty() ? std::string(in.gpu_local.empty() ? "" : " (none is local to the GPU)")
                                   : std::string(", local to the GPU"));
    return p;
  }
  p.shared = true;
  p.reason = "the process mask " + app_text + " is crowded, and every CPU this process may use (" +
             format_cpulist(allowed) + ") is some PE's";
  return p;
}

std::string shared_cpu_warning(const ProxyPlacement &placement, const ProxyPlacementInput &in) {
  int crowd = 1;
  for (const CpuList &other : in.local_apps)
    if (intersects(normalized(other), normalized(in.app))) ++crowd;
  std::string s = "the proxy thread that carries remote operations shares CPU" +
                  std::string(placement.cpus.size() == 1 ? " " : "s ") + format_cpulist(placement.cpus) + " with " +
                  (crowd == 1 ? std::string("the application thread")
                              : "the application threads of " + std::to_string(crowd) + " PEs of this node") +
                  " (this process may use CPUs " + format_cpulist(in.allowed) +
                  "): each can wait for the other's time slice, and a remote operation can take milliseconds. "
                  "Give each PE 2 CPUs or more: mpirun --bind-to none, or --map-by slot:PE=2 "
                  "(--map-by ppr:N:node:PE=2); srun --cpu-bind=none or --cpus-per-task=2; taskset with 2 CPUs per PE; "
                  "or GSHMEM_PROXY_CPUS=<CPUs of its own>";
  return s;
}

void cpus_to_mask(const CpuList &cpus, unsigned char *mask) {
  std::fill(mask, mask + kCpuMaskBytes, 0);
  for (int c : cpus)
    if (c >= 0 && static_cast<std::size_t>(c) < 8 * kCpuMaskBytes)
      mask[c / 8] = static_cast<unsigned char>(mask[c / 8] | (1u << (c % 8)));
}

CpuList cpus_from_mask(const unsigned char *mask) {
  CpuList cpus;
  for (std::size_t c = 0; c < 8 * kCpuMaskBytes; ++c)
    if (mask[c / 8] & (1u << (c % 8))) cpus.push_back(static_cast<int>(c));
  return cpus;
}

namespace {

CpuList from_cpu_set(const cpu_set_t &set) {
  CpuList cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &set)) cpus.push_back(c);
  return cpus;
}

}  // namespace

int thread_cpus(pthread_t thread, CpuList *out) {
  cpu_set_t set;
  CPU_ZERO(&set);
  const int rc = pthread_getaffinity_np(thread, sizeof set, &set);
  if (rc != 0) return rc;
  *out = from_cpu_set(set);
  return 0;
}

CpuList current_thread_cpus() {
  CpuList cpus;
  if (thread_cpus(pthread_self(), &cpus) != 0) cpus.clear();
  return cpus;
}

int set_thread_cpus(pthread_t thread, const CpuList &cpus) {
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int c : cpus)
    if (c >= 0 && c < CPU_SETSIZE) CPU_SET(c, &set);
  if (CPU_COUNT(&set) == 0) return EINVAL;
  return pthread_setaffinity_np(thread, sizeof set, &set);
}

CpuList probe_allowed_cpus(pthread_t thread) {
  // The kernel intersects a new mask with the thread's cpuset and the
  // online CPUs, silently: what comes back is what may be used.
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int c = 0; c < CPU_SETSIZE; ++c) CPU_SET(c, &set);
  if (pthread_setaffinity_np(thread, sizeof set, &set) != 0) return online_cpus();  // the cpuset unknown
  CpuList cpus;
  if (thread_cpus(thread, &cpus) != 0) cpus.clear();
  return cpus;
}

CpuList process_allowed_cpus() {
  CpuList cpus;
  try {
    std::thread probe([&cpus] { cpus = probe_allowed_cpus(pthread_self()); });
    probe.join();
  } catch (...) {
    cpus = online_cpus();
  }
  return cpus;
}

CpuList pci_local_cpus(const std::string &pci_bus_id) {
  std::string id = pci_bus_id;
  for (char &c : id) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const std::string text = read_text_file("/sys/bus/pci/devices/" + id + "/local_cpulist");
  CpuList cpus;
  std::string why;
  if (text.empty() || !parse_cpulist(text, &cpus, &why)) cpus.clear();
  return cpus;
}

}  // namespace gshmemi
