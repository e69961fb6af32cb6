// Choosing, loading and wrapping bootstrap modules.
#pragma once

#include <gshmem/runtime.h>

#include <cstddef>
#include <memory>
#include <string>

#include "bootstrap.h"

namespace gshmemi {

// The one-PE job (no launcher); built into libgshmem.
std::unique_ptr<Bootstrap> make_single_bootstrap();

// The OpenSHMEM module (GSHMEMX_INIT_WITH_SHMEM), built into libgshmem: it
// runs over the OpenSHMEM library the program linked and initialized, whose
// routines it looks up in the process. GSHMEM_SUCCESS, or
// GSHMEMX_ERROR_BOOTSTRAP (logged) when they are missing. Exported (with
// GSHMEM_API) so that tests can drive it without a GPU.
GSHMEM_API int open_openshmem_bootstrap(std::unique_ptr<Bootstrap> *out);

// The socket module (GSHMEMX_INIT_WITH_UNIQUEID from an id that
// gshmemx_get_uniqueid made with GSHMEM_UNIQUEID_BOOTSTRAP=socket), built into
// libgshmem: design, bounds and peer loss in bootstrap/socket.cpp. Exported
// (with GSHMEM_API) so that tests can drive it without a GPU.
// Fills the id's opaque bytes (`bytes` long) and starts listening in this
// process, which hosts the job's rendezvous when it joins the job.
GSHMEM_API int make_socket_uniqueid(void *internal, std::size_t bytes);
// True when the id's opaque bytes were made by make_socket_uniqueid.
GSHMEM_API bool is_socket_uniqueid(const void *internal);
// Joins the job of that id as `rank` of `nranks` (collective: returns once
// every PE has joined, or with an error naming what failed).
GSHMEM_API int open_socket_bootstrap(const void *internal, int rank, int nranks,
                                     std::unique_ptr<Bootstrap> *out);

// Loads plugin `module` ("mpi" or "nccl") and opens it with flags/attr.
// Search order: the folder holding libgshmem, GSHMEM_BOOTSTRAP_PLUGIN_DIR,
// then the install folder compiled in (GSHMEM_PLUGIN_DIR). Exported (with
// GSHMEM_API) so that tests can drive a plugin without a GPU.
GSHMEM_API int open_bootstrap_plugin(const std::string &module, unsigned int flags,
                                     const gshmemx_init_attr_t *attr,
                                     std::unique_ptr<Bootstrap> *out);

// Loads plugin `module` (as above) and looks up `symbol` in it: *out set and
// GSHMEM_SUCCESS, or GSHMEMX_ERROR_BOOTSTRAP (logged) when either is missing.
GSHMEM_API int bootstrap_plugin_symbol(const std::string &module, const char *symbol, void **out);

// Picks the module for an init call: the flags decide for gshmemx_init_attr;
// otherwise GSHMEM_BOOTSTRAP (auto: MPI under a launcher, else single PE).
int create_bootstrap(unsigned int flags, const gshmemx_init_attr_t *attr,
                     std::unique_ptr<Bootstrap> *out);

// The bootstrap of the running job, or nullptr outside init..finalize.
// Exported for tests and tools inside the project; not API.
GSHMEM_API Bootstrap *current_bootstrap();

}  // namespace gshmemi
