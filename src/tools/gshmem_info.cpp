// gshmem-info: what this installation of gshmem sees. Prints the version, the
// GSHMEM_* variables (value, default, meaning), the GPUs and which pairs can
// reach each other directly, and where a PE started like this program would
// run its proxy thread (docs/remote.md). Needs no launcher and no GPU.
#include <cuda_runtime.h>
#include <gshmem/version.h>

#include <cstdio>
#include <string>

#include "cpu_affinity.h"
#include "env.h"

namespace {

void print_environment() {
  std::printf("\nEnvironment (GSHMEM_*):\n");
  int bad = 0;
  for (const gshmemi::EnvVarInfo &var : gshmemi::env_table()) {
    const char *raw = gshmemi::raw_getenv(var.name);
    std::string note;
    if (raw && *raw) {
      std::string why;
      if (!gshmemi::validate_env_value(var, raw, &why)) {
        note = "  INVALID: " + why;
        ++bad;
      }
    }
    std::printf("  %-30s = %-12s (default %s, %s)%s\n", var.name,
                raw && *raw ? raw : "(unset)", *var.default_text ? var.default_text : "\"\"",
                var.kind, note.c_str());
    std::printf("      %s\n", var.doc);
  }
  if (bad) std::printf("  %d variable(s) have invalid values: gshmem_init would fail.\n", bad);
  const char *loading = gshmemi::raw_getenv("CUDA_MODULE_LOADING");
  std::printf("  %-30s = %s%s\n", "CUDA_MODULE_LOADING", loading ? loading : "(unset)",
              loading && std::string(loading) == "EAGER"
                  ? ""
                  : "  (lazy loading: set EAGER for kernels that spin on peer GPUs)");
}

void print_gpus() {
  std::printf("\nGPUs:\n");
  int count = 0;
  const cudaError_t rc = cudaGetDeviceCount(&count);
  if (rc != cudaSuccess || count == 0) {
    std::printf("  no GPU: %s\n", rc != cudaSuccess ? cudaGetErrorString(rc) : "no device visible");
    return;
  }
  int driver = 0, runtime = 0;
  cudaDriverGetVersion(&driver);
  cudaRuntimeGetVersion(&runtime);
  std::printf("  driver supports CUDA %d.%d, runtime %d.%d, %d device(s)\n", driver / 1000,
              driver % 1000 / 10, runtime / 1000, runtime % 1000 / 10, count);
  for (int d = 0; d < count; ++d) {
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, d) != cudaSuccess) continue;
    std::printf("  GPU %d: %s, sm_%d%d, %.1f GiB, PCI %04x:%02x:%02x\n", d, prop.name, prop.major,
                prop.minor, prop.totalGlobalMem / double(1ull << 30), prop.pciDomainID,
                prop.pciBusID, prop.pciDeviceID);
  }
  std::printf("\nPeer access (row reads/writes column directly; A = native atomics too):\n     ");
  for (int d = 0; d < count; ++d) std::printf(" %3d", d);
  std::printf("\n");
  for (int a = 0; a < count; ++a) {
    std::printf("  %3d", a);
    for (int b = 0; b < count; ++b) {
      if (a == b) { std::printf("   -"); continue; }
      int access = 0, atomics = 0;
      cudaDeviceCanAccessPeer(&access, a, b);
      cudaDeviceGetP2PAttribute(&atomics, cudaDevP2PAttrNativeAtomicSupported, a, b);
      std::printf("   %s", access ? (atomics ? "A" : "Y") : "N");
    }
    std::printf("\n");
  }
}

// The proxy placement (docs/remote.md, "The proxy under CPU binding") of a
// PE with this program's CPU mask and no other PE on the node: run under the
// launcher with the job's binding (mpirun -np 1 gshmem-info) to see what a
// PE's init decides; other PEs of the node are not known here.
void print_proxy_placement() {
  std::printf("\nProxy thread placement (for remote peers; this process as a PE alone on the node):\n");
  const char *raw = gshmemi::raw_getenv("GSHMEM_PROXY_CPUS");
  gshmemi::ProxyCpusSetting setting;
  std::string why;
  if (gshmemi::parse_proxy_cpus(raw && *raw ? raw : "auto", &setting, &why) != GSHMEM_SUCCESS) {
    std::printf("  %s\n", why.c_str());
    return;
  }
  gshmemi::ProxyPlacementInput in;
  in.app = gshmemi::current_thread_cpus();
  in.allowed = gshmemi::process_allowed_cpus();
  std::printf("  application thread on CPUs %s; the process may use %s\n", gshmemi::format_cpulist(in.app).c_str(),
              gshmemi::format_cpulist(in.allowed).c_str());
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) count = 0;
  for (int d = 0; d < (count > 0 ? count : 1); ++d) {
    char bus_id[32] = {0};
    in.gpu_local.clear();
    if (count > 0 && cudaDeviceGetPCIBusId(bus_id, (int)sizeof bus_id, d) == cudaSuccess)
      in.gpu_local = gshmemi::pci_local_cpus(bus_id);
    int error = 0;
    const gshmemi::ProxyPlacement p = gshmemi::choose_proxy_cpus(setting, in, &error, &why);
    const std::string gpu = count > 0 ? "GPU " + std::to_string(d) + " (local CPUs " +
                                            (in.gpu_local.empty() ? std::string("unknown")
                                                                  : gshmemi::format_cpulist(in.gpu_local)) +
                                            ")"
                                      : std::string("no GPU");
    if (error != GSHMEM_SUCCESS) {
      std::printf("  %s: %s\n", gpu.c_str(), why.c_str());
      continue;
    }
    std::printf("  %s: proxy on CPUs %s (%s)%s\n", gpu.c_str(), gshmemi::format_cpulist(p.cpus).c_str(),
                p.reason.c_str(), p.shared ? "; SHARED with the application thread: init warns" : "");
  }
}

void print_usage(std::FILE *to) {
  std::fprintf(to,
               "usage: gshmem-info [--version | --env | --help]\n"
               "  (no option)  version, GSHMEM_* variables, GPUs and their peer access, the proxy's CPUs\n"
               "  --version    the gshmem version and the CUDA runtime it was built with; touches no GPU\n"
               "  --env        the GSHMEM_* variables only\n"
               "  --help       this text\n");
}

}  // namespace

int main(int argc, char **argv) {
  if (argc > 2) {
    std::fprintf(stderr, "gshmem-info: one option at most\n");
    print_usage(stderr);
    return 2;
  }
  const std::string option = argc == 2 ? argv[1] : "";
  if (option == "--help" || option == "-h") {
    print_usage(stdout);
    return 0;
  }
  if (option == "--version") {
    std::printf("gshmem %s (built with CUDA runtime %d.%d)\n", GSHMEM_VERSION_STRING, CUDART_VERSION / 1000,
                CUDART_VERSION % 1000 / 10);
    return 0;
  }
  if (!option.empty() && option != "--env") {
    std::fprintf(stderr, "gshmem-info: unknown option '%s'\n", option.c_str());
    print_usage(stderr);
    return 2;
  }
  std::printf("gshmem %s\n", GSHMEM_VERSION_STRING);
  print_environment();
  if (option.empty()) {
    print_gpus();
    print_proxy_placement();
  }
  return 0;
}
