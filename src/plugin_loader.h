// Loading modules that libgshmem opens at run time (bootstrap plugins,
// remote transport modules), from one list of folders.
#pragma once

#include <string>

namespace gshmemi {

// dlopens `file` from the first folder holding it: the folder of libgshmem,
// its gshmem/ subfolder (installed layout), GSHMEM_BOOTSTRAP_PLUGIN_DIR, then
// the install folder compiled in (GSHMEM_PLUGIN_DIR). The module stays loaded
// until the process exits. GSHMEM_SUCCESS and *out set, or `error_code`
// (logged: what was missing or why dlopen refused it; `what` names the
// module in that message, `hint` the build option that builds it).
int load_plugin_file(const std::string &file, const char *what, const char *hint, int error_code, void **out);

}  // namespace gshmemi
