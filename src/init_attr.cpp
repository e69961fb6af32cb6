// NVSHMEM-style init helpers and the end of a job: unique ids
// (gshmemx_get_uniqueid, gshmemx_set_attr_uniqueid_args),
// gshmemx_set_attr_mpi_comm_args and gshmem_global_exit (<gshmem/runtime.h>).
#include <gshmem/runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "bootstrap_loader.h"
#include "bootstrap_plugin.h"
#include "env.h"
#include "log.h"

namespace {

void report_from_plugin(int level, const char *message) {
  const gshmemi::LogLevel l = level <= 1 ? gshmemi::LogLevel::WARN
                              : level == 2 ? gshmemi::LogLevel::INFO
                                           : gshmemi::LogLevel::TRACE;
  gshmemi::log(l, "bootstrap plugin", 0, "%s", message);
}

}  // namespace

using namespace gshmemi;

extern "C" {

int gshmemx_get_uniqueid(gshmemx_uniqueid_t *id) {
  set_last_error(GSHMEM_SUCCESS);
  if (!id) return GSHMEMI_ERROR(GSHMEMX_ERROR_INVALID_VALUE, "gshmemx_get_uniqueid: id is NULL");
  std::memset(id, 0, sizeof(*id));
  Env settings;
  std::string problem;
  if (load_env(&settings, &problem) != GSHMEM_SUCCESS)
    return GSHMEMI_ERROR(GSHMEMX_ERROR_ENVIRONMENT, "gshmemx_get_uniqueid: %s", problem.c_str());
  const std::string &kind = settings.UNIQUEID_BOOTSTRAP;
  if (kind == "socket" || kind.empty()) {
    GSHMEMI_CHECK(make_socket_uniqueid(id->internal, sizeof(id->internal)));
  } else if (kind == "nccl") {
    // The NCCL module carries the job: it needs NCCL and one GPU per PE.
    void *symbol = nullptr;
    GSHMEMI_CHECK(bootstrap_plugin_symbol("nccl", GSHMEMI_BOOTSTRAP_UNIQUEID_SYMBOL, &symbol));
    auto make = reinterpret_cast<gshmemi_bootstrap_get_uniqueid_fn>(symbol);
    const int rc = make(id->internal, sizeof(id->internal), &report_from_plugin);
    if (rc != GSHMEM_SUCCESS)
      return GSHMEMI_ERROR(rc, "gshmemx_get_uniqueid: the NCCL bootstrap could not make an id (see above)");
  } else {
    return GSHMEMI_ERROR(GSHMEMX_ERROR_ENVIRONMENT,
                         "gshmemx_get_uniqueid: GSHMEM_UNIQUEID_BOOTSTRAP=%s is not valid: expected socket or nccl",
                         kind.c_str());
  }
  id->version = GSHMEMX_UNIQUEID_VERSION;
  return GSHMEM_SUCCESS;
}

int gshmemx_set_attr_uniqueid_args(int rank, int nranks, const gshmemx_uniqueid_t *id, gshmemx_init_attr_t *attr) {
  set_last_error(GSHMEM_SUCCESS);
  if (!id || !attr)
    return GSHMEMI_ERROR(GSHMEMX_ERROR_INVALID_VALUE, "gshmemx_set_attr_uniqueid_args: %s is NULL",
                         !id ? "id" : "attr");
  if (nranks < 1 || rank < 0 || rank >= nranks)
    return GSHMEMI_ERROR(GSHMEMX_ERROR_INVALID_VALUE,
                         "gshmemx_set_attr_uniqueid_args: rank %d of nranks %d (need 0 <= rank < nranks)", rank,
                         nranks);
  if (id->version != GSHMEMX_UNIQUEID_VERSION)
    return GSHMEMI_ERROR(GSHMEMX_ERROR_INVALID_VALUE,
                         "gshmemx_set_attr_uniqueid_args (rank %d): the id was not made by gshmemx_get_uniqueid "
                         "(version 0x%x, expected 0x%x): pass its sizeof(gshmemx_uniqueid_t) bytes on unchanged",
                         rank, static_cast<unsigned>(id->version), static_cast<unsigned>(GSHMEMX_UNIQUEID_VERSION));
  attr->nccl_unique_id = id->internal;
  attr->rank = rank;
  attr->nranks = nranks;
  return GSHMEM_SUCCESS;
}

int gshmemx_set_attr_mpi_comm_args(void *mpi_comm, gshmemx_init_attr_t *attr) {
  set_last_error(GSHMEM_SUCCESS);
  if (!mpi_comm || !attr)
    return GSHMEMI_ERROR(GSHMEMX_ERROR_INVALID_VALUE, "gshmemx_set_attr_mpi_comm_args: %s is NULL",
                         !mpi_comm ? "mpi_comm" : "attr");
  attr->mpi_comm = mpi_comm;
  return GSHMEM_SUCCESS;
}

void gshmem_global_exit(int status) {
  GSHMEMI_WARN("gshmem_global_exit(%d): ending the job", status);
  std::fflush(nullptr);
  if (Bootstrap *boot = current_bootstrap()) {
    char why[96];
    std::snprintf(why, sizeof why, "gshmem_global_exit(%d) called", status);
    boot->abort(status, why);  // the job-wide modules do not return
  }
  // One PE, or before init: this process is the job.
  std::exit(status);
}

}  // extern "C"
