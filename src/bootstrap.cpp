// Bootstrap modules: the built-in single-PE one, and the loader for plugins.
#include <dlfcn.h>
#include <sys/stat.h>

#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "bootstrap_loader.h"
#include "bootstrap_plugin.h"
#include "plugin_loader.h"
#include "env.h"
#include "liveness.h"
#include "log.h"

namespace gshmemi {

namespace {

class SingleBootstrap final : public Bootstrap {
 public:
  const char *name() const override { return "single"; }
  int rank() const override { return 0; }
  int size() const override { return 1; }
  int allgather(const void *in, void *out, std::size_t bytes) override {
    if (bytes) std::memmove(out, in, bytes);
    return GSHMEM_SUCCESS;
  }
  int barrier() override { return GSHMEM_SUCCESS; }
  void abort(int, const char *why) override {
    // One PE: nobody waits on us, so returning the error is enough.
    GSHMEMI_WARN("abort requested: %s", why ? why : "");
  }
};

class PluginBootstrap final : public Bootstrap {
 public:
  explicit PluginBootstrap(const gshmemi_bootstrap_ops_t &ops) : ops_(ops) {}
  ~PluginBootstrap() override {
    if (ops_.close) {
      const int rc = ops_.close(ops_.context);
      if (rc != GSHMEM_SUCCESS) GSHMEMI_WARN("closing the %s bootstrap failed (%d)", ops_.name, rc);
    }
  }
  const char *name() const override { return ops_.name; }
  int rank() const override { return ops_.rank; }
  int size() const override { return ops_.size; }
  int device() const override { return ops_.device; }
  int allgather(const void *in, void *out, std::size_t bytes) override {
    return ops_.allgather(ops_.context, in, out, bytes);
  }
  int barrier() override { return ops_.barrier(ops_.context); }
  void abort(int code, const char *why) override { ops_.abort(ops_.context, code, why); }

 private:
  gshmemi_bootstrap_ops_t ops_;
};

void report_from_plugin(int level, const char *message) {
  const LogLevel l = level <= 1 ? LogLevel::WARN : level == 2 ? LogLevel::INFO : LogLevel::TRACE;
  log(l, "bootstrap plugin", 0, "%s", message);
}

bool is_file(const std::string &path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

// Folders to look in, in order. Beside libgshmem first, so that a build tree
// and an installed tree each find their own plugins.
std::vector<std::string> plugin_folders() {
  std::vector<std::string> folders;
  Dl_info info;
  if (dladdr(reinterpret_cast<void *>(&plugin_folders), &info) && info.dli_fname) {
    std::string lib = info.dli_fname;
    const std::size_t slash = lib.rfind('/');
    const std::string dir = slash == std::string::npos ? "." : lib.substr(0, slash);
    folders.push_back(dir);
    folders.push_back(dir + "/gshmem");  // installed layout: ${libdir}/gshmem
  }
  if (!env().BOOTSTRAP_PLUGIN_DIR.empty()) folders.push_back(env().BOOTSTRAP_PLUGIN_DIR);
#ifdef GSHMEM_PLUGIN_DIR
  folders.push_back(GSHMEM_PLUGIN_DIR);
#endif
  return folders;
}

// Plugins stay loaded until the process exits: unloading MPI or NCCL while
// their threads or atexit handlers are alive is not safe.
std::mutex plugin_mutex;

}  // namespace

std::unique_ptr<Bootstrap> make_single_bootstrap() { return std::make_unique<SingleBootstrap>(); }

int load_plugin_file(const std::string &file, const char *what, const char *hint, int error_code, void **out) {
  std::string tried;
  void *handle = nullptr;
  std::string load_error;
  for (const std::string &dir : plugin_folders()) {
    const std::string path = dir + "/" + file;
    tried += (tried.empty() ? "" : ", ") + dir;
    if (!is_file(path)) continue;
    // RTLD_GLOBAL: Open MPI's own components expect libmpi's symbols to be
    // globally visible, which RTLD_LOCAL would hide.
    handle = dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
    if (handle) {
      GSHMEMI_INFO("loaded %s %s", what, path.c_str());
      break;
    }
    const char *why = dlerror();
    load_error = path + ": " + (why ? why : "unknown dlopen error");
  }
  if (!handle) {
    if (!load_error.empty())
      return GSHMEMI_ERROR(error_code, "cannot load the %s: %s", what, load_error.c_str());
    return GSHMEMI_ERROR(error_code,
                         "the %s (%s) was not found; looked in: %s. Was gshmem built with %s "
                         "support? Set GSHMEM_BOOTSTRAP_PLUGIN_DIR to its folder.",
                         what, file.c_str(), tried.c_str(), hint);
  }
  *out = handle;
  return GSHMEM_SUCCESS;
}

namespace {
// Finds and loads bootstrap plugin `module` (search order: see bootstrap_loader.h).
int load_plugin(const std::string &module, void **out) {
  const std::string what = module + " bootstrap plugin";
  return load_plugin_file("libgshmem_bootstrap_" + module + ".so", what.c_str(),
                          module == "mpi" ? "MPI" : "NCCL", GSHMEMX_ERROR_BOOTSTRAP, out);
}
}  // namespace

int bootstrap_plugin_symbol(const std::string &module, const char *symbol, void **out) {
  std::lock_guard<std::mutex> lock(plugin_mutex);
  void *handle = nullptr;
  GSHMEMI_CHECK(load_plugin(module, &handle));
  *out = dlsym(handle, symbol);
  if (!*out)
    return GSHMEMI_ERROR(GSHMEMX_ERROR_BOOTSTRAP, "the %s bootstrap plugin has no %s (built by an older gshmem?)",
                         module.c_str(), symbol);
  return GSHMEM_SUCCESS;
}

int open_bootstrap_plugin(const std::string &module, unsigned int flags,
                          const gshmemx_init_attr_t *attr, std::unique_ptr<Bootstrap> *out) {
  std::lock_guard<std::mutex> lock(plugin_mutex);
  const std::string file = "libgshmem_bootstrap_" + module + ".so";
  void *handle = nullptr;
  GSHMEMI_CHECK(load_plugin(module, &handle));
  auto open = reinterpret_cast<gshmemi_bootstrap_open_fn>(dlsym(handle, GSHMEMI_BOOTSTRAP_OPEN_SYMBOL));
  if (!open)
    return GSHMEMI_ERROR(GSHMEMX_ERROR_BOOTSTRAP, "%s has no %s: not a gshmem bootstrap plugin",
                         file.c_str(), GSHMEMI_BOOTSTRAP_OPEN_SYMBOL);
  gshmemi_bootstrap_open_args_t args{};
  args.abi_version = GSHMEMI_BOOTSTRAP_ABI_VERSION;
  args.flags = flags;
  args.attr = attr;
  args.report = &report_from_plugin;
  args.peer_lost = [] { return job_lost_pe() + 1; };
  gshmemi_bootstrap_ops_t ops{};
  const int rc = open(&args, &ops);
  if (rc != GSHMEM_SUCCESS)
    return GSHMEMI_ERROR(rc, "the %s bootstrap could not start (see the message above)", module.c_str());
  if (ops.abi_version != GSHMEMI_BOOTSTRAP_ABI_VERSION) {
    if (ops.close) ops.close(ops.context);
    return GSHMEMI_ERROR(GSHMEMX_ERROR_BOOTSTRAP, "%s speaks plugin ABI %d, libgshmem speaks %d",
                         file.c_str(), ops.abi_version, GSHMEMI_BOOTSTRAP_ABI_VERSION);
  }
  if (ops.rank < 0 || ops.size < 1 || ops.rank >= ops.size) {
    if (ops.close) ops.close(ops.context);
    return GSHMEMI_ERROR(GSHMEMX_ERROR_BOOTSTRAP, "the %s bootstrap reported rank %d of %d",
                         module.c_str(), ops.rank, ops.size);
  }
  *out = std::make_unique<PluginBootstrap>(ops);
  return GSHMEM_SUCCESS;
}

int create_bootstrap(unsigned int flags, const gshmemx_init_attr_t *attr,
                     std::unique_ptr<Bootstrap> *out) {
  const unsigned int known = GSHMEMX_INIT_WITH_MPI_COMM | GSHMEMX_INIT_WITH_NCCL_COMM |
                             GSHMEMX_INIT_WITH_UNIQUEID | GSHMEMX_INIT_SINGLE_PE |
                             GSHMEMX_INIT_WITH_SHMEM;
  if (flags & ~known)
    return GSHMEMI_ERROR(GSHMEMX_ERROR_INVALID_VALUE, "unknown init flags 0x%x", flags & ~known);
  const unsigned int bootstrap_flags = flags & known;
  if (bootstrap_flags & (bootstrap_flags - 1))
    return GSHMEMI_ERROR(GSHMEMX_ERROR_INVALID_VALUE,
                         "init flags 0x%x name more than one bootstrap; pick one", flags);
  if (bootstrap_flags && !attr && !(flags & (GSHMEMX_INIT_SINGLE_PE | GSHMEMX_INIT_WITH_SHMEM)))
    return GSHMEMI_ERROR(GSHMEMX_ERROR_INVALID_VALUE, "init flags 0x%x need an attr", flags);

  if (flags & GSHMEMX_INIT_SINGLE_PE) {
    *out = make_single_bootstrap();
    return GSHMEM_SUCCESS;
  }
  if (flags & GSHMEMX_INIT_WITH_SHMEM) return open_openshmem_bootstrap(out);
  if (flags & GSHMEMX_INIT_WITH_MPI_COMM) {
    if (!attr->mpi_comm)
      return GSHMEMI_ERROR(GSHMEMX_ERROR_INVALID_VALUE,
                           "GSHMEMX_INIT_WITH_MPI_COMM needs attr->mpi_comm (an MPI_Comm*)");
    return open_bootstrap_plugin("mpi", flags, attr, out);
  }
  if (flags & GSHMEMX_INIT_WITH_NCCL_COMM) {
    if (!attr->nccl_comm)
      return GSHMEMI_ERROR(GSHMEMX_ERROR_INVALID_VALUE,
                           "GSHMEMX_INIT_WITH_NCCL_COMM needs attr->nccl_comm (an ncclComm_t)");
    return open_bootstrap_plugin("nccl", flags, attr, out);
  }
  if (flags & GSHMEMX_INIT_WITH_UNIQUEID) {
    if (!attr->nccl_unique_id || attr->nranks < 1 || attr->rank < 0 || attr->rank >= attr->nranks)
      return GSHMEMI_ERROR(GSHMEMX_ERROR_INVALID_VALUE,
                           "GSHMEMX_INIT_WITH_UNIQUEID needs attr->nccl_unique_id and "
                           "0 <= attr->rank (%d) < attr->nranks (%d)",
                           attr->rank, attr->nranks);
    // The id says which module carries the job (GSHMEM_UNIQUEID_BOOTSTRAP
    // where it was made): gshmem's socket rendezvous, or an NCCL id.
    if (is_socket_uniqueid(attr->nccl_unique_id))
      return open_socket_bootstrap(attr->nccl_unique_id, attr->rank, attr->nranks, out);
    return open_bootstrap_plugin("nccl", flags, attr, out);
  }

  const std::string &choice = env().BOOTSTRAP;
  if (choice == "single") {
    *out = make_single_bootstrap();
    return GSHMEM_SUCCESS;
  }
  if (choice == "mpi") return open_bootstrap_plugin("mpi", 0, attr, out);
  if (choice == "shmem") return open_openshmem_bootstrap(out);
  if (choice != "auto" && !choice.empty())
    return GSHMEMI_ERROR(GSHMEMX_ERROR_ENVIRONMENT,
                         "GSHMEM_BOOTSTRAP=%s is not valid: expected auto, mpi, shmem or single",
                         choice.c_str());
  if (launched_by_mpi()) {
    GSHMEMI_INFO("started by an MPI launcher: using the MPI bootstrap");
    return open_bootstrap_plugin("mpi", 0, attr, out);
  }
  GSHMEMI_INFO("no launcher detected: running as a single PE");
  *out = make_single_bootstrap();
  return GSHMEM_SUCCESS;
}

}  // namespace gshmemi
