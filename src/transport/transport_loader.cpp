// Opening remote transport modules: find, dlopen, open, check.
#include "transport/transport_loader.h"

#include <dlfcn.h>

#include "log.h"
#include "plugin_loader.h"

namespace gshmemi {

namespace {

void report_from_transport(int level, const char *message) {
  const LogLevel l = level <= 1 ? LogLevel::WARN : level == 2 ? LogLevel::INFO : LogLevel::TRACE;
  log(l, "transport module", 0, "%s", message);
}

}  // namespace

int open_transport_plugin(const std::string &module, gshmemi_transport_open_args_t args,
                          gshmemi_transport_ops_t *ops) {
  if (!ops) return GSHMEMI_ERROR(GSHMEMX_ERROR_INVALID_VALUE, "open_transport_plugin: ops is NULL");
  const std::string file = "libgshmem_transport_" + module + ".so";
  const std::string what = module + " transport module";
  std::string hint = module;
  for (char &c : hint) c = (char)toupper((unsigned char)c);
  void *handle = nullptr;
  GSHMEMI_CHECK(load_plugin_file(file, what.c_str(), hint.c_str(), GSHMEMX_ERROR_NOT_SUPPORTED, &handle));
  auto open = reinterpret_cast<gshmemi_transport_open_fn>(dlsym(handle, GSHMEMI_TRANSPORT_OPEN_SYMBOL));
  if (!open)
    return GSHMEMI_ERROR(GSHMEMX_ERROR_NOT_SUPPORTED, "%s has no %s: not a gshmem transport module", file.c_str(),
                         GSHMEMI_TRANSPORT_OPEN_SYMBOL);
  args.abi_version = GSHMEMI_TRANSPORT_ABI_VERSION;
  if (!args.report) args.report = &report_from_transport;
  gshmemi_transport_ops_t out{};
  const int rc = open(&args, &out);
  if (rc != GSHMEM_SUCCESS)
    return GSHMEMI_ERROR(rc, "the %s could not start (see the message above)", what.c_str());
  if (out.abi_version != GSHMEMI_TRANSPORT_ABI_VERSION) {
    if (out.close) out.close(out.context);
    return GSHMEMI_ERROR(GSHMEMX_ERROR_NOT_SUPPORTED, "%s speaks transport ABI %d, libgshmem speaks %d",
                         file.c_str(), out.abi_version, GSHMEMI_TRANSPORT_ABI_VERSION);
  }
  if (!out.register_memory || !out.deregister_memory || !out.put || !out.get || !out.amo || !out.signal ||
      !out.fence || !out.quiet || !out.peer_failed || !out.progress || !out.close) {
    if (out.close) out.close(out.context);
    return GSHMEMI_ERROR(GSHMEMX_ERROR_NOT_SUPPORTED, "%s leaves entries of its function table empty",
                         file.c_str());
  }
  *ops = out;
  return GSHMEM_SUCCESS;
}

}  // namespace gshmemi
