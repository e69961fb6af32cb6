// Opening remote transport modules (transport_plugin.h).
#pragma once

#include <gshmem/detail/config.h>

#include <string>

#include "transport/transport_plugin.h"

namespace gshmemi {

// Loads libgshmem_transport_<module>.so (from the folders of
// plugin_loader.h), calls its open entry with `args` and checks what it
// returned: the ABI version, and every entry a host-driven module must have.
// args.abi_version is set here; a NULL args.report is replaced by one that
// logs. GSHMEM_SUCCESS and *ops filled, or a GSHMEMX_ERROR_* code (logged):
// GSHMEMX_ERROR_NOT_SUPPORTED when the module is missing or is not one,
// the module's own code when its open failed. Exported (GSHMEM_API) so that
// tests can drive a module without a GPU.
GSHMEM_API int open_transport_plugin(const std::string &module, gshmemi_transport_open_args_t args,
                                     gshmemi_transport_ops_t *ops);

}  // namespace gshmemi
