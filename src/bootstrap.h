// The bootstrap interface: how PEs find each other and exchange small data
// before (and besides) the symmetric heap exists. Modules: MPI and NCCL
// (loaded as plugins, so the core library links neither), OpenSHMEM (over
// the program's own OpenSHMEM library, found at run time), sockets (jobs
// started from a gshmem unique id) and single-PE.
#pragma once

#include <cstddef>
#include <memory>

namespace gshmemi {

class Bootstrap {
 public:
  virtual ~Bootstrap() = default;
  virtual const char *name() const = 0;  // "mpi", "nccl", "shmem", "socket", "single"
  virtual int rank() const = 0;
  virtual int size() const = 0;
  // The CUDA device this module is bound to (an NCCL communicator's), which
  // the runtime then uses for this PE; -1 when the module has none.
  virtual int device() const { return -1; }
  // Collective: out receives size()*bytes, rank r's `in` at out + r*bytes.
  // Returns GSHMEM_SUCCESS or a GSHMEMX_ERROR_* code.
  virtual int allgather(const void *in, void *out, std::size_t bytes) = 0;
  // Collective.
  virtual int barrier() = 0;
  // Ends the whole job, so that peers blocked in a collective end instead of
  // hanging; `code` is the exit status where the launcher passes it on.
  // Used by gshmem_global_exit (never for errors the library reports).
  // The single-PE module returns: the caller then ends the process.
  virtual void abort(int code, const char *why) = 0;
};

}  // namespace gshmemi
