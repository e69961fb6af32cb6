// gshmem-info: what this installation of gshmem sees. Prints the version, the
// GSHMEM_* variables (value, default, meaning), the GPUs and which pairs can
// reach each other directly. Needs no launcher and no GPU.
#include <cuda_runtime.h>
#include <gshmem/version.h>

#include <cstdio>
#include <string>

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

void print_usage(std::FILE *to) {
  std::fprintf(to,
               "usage: gshmem-info [--version | --env | --help]\n"
               "  (no option)  version, GSHMEM_* variables, GPUs and their peer access\n"
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
  if (option.empty()) print_gpus();
  return 0;
}
