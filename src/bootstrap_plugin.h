// The binary interface between libgshmem and its bootstrap plugins
// (libgshmem_bootstrap_mpi.so, libgshmem_bootstrap_nccl.so).
//
// Plain C so that a plugin built by another compiler, or against another
// libstdc++, still loads. A plugin exports one symbol,
// gshmemi_bootstrap_plugin_open, which fills a function table. libgshmem
// refuses a plugin whose ABI version differs from its own.
#pragma once

#include <gshmem/runtime.h>
#include <stddef.h>

#define GSHMEMI_BOOTSTRAP_ABI_VERSION 2
#define GSHMEMI_BOOTSTRAP_OPEN_SYMBOL "gshmemi_bootstrap_plugin_open"

GSHMEM_BEGIN_EXTERN_C

typedef struct gshmemi_bootstrap_open_args {
  int abi_version;                 /* GSHMEMI_BOOTSTRAP_ABI_VERSION of the caller */
  unsigned int flags;              /* GSHMEMX_INIT_WITH_* of gshmemx_init_attr (0 for gshmem_init) */
  const gshmemx_init_attr_t *attr; /* may be NULL */
  /* Where the plugin reports why something failed (one sentence, no newline);
   * the core logs it with the PE prefix. level: 1 WARN, 2 INFO, 3 TRACE. */
  void (*report)(int level, const char *message);
  /* 1 + the PE the runtime found gone (its process ended), or 0. A plugin
   * polls it while it waits for peers in allgather / barrier and then
   * returns GSHMEMX_ERROR_PEER_LOST instead of waiting forever; once it is
   * non-zero, every later collective returns that at once. May be NULL. */
  int (*peer_lost)(void);
} gshmemi_bootstrap_open_args_t;

typedef struct gshmemi_bootstrap_ops {
  int abi_version;  /* set by the plugin */
  const char *name; /* "mpi", "nccl" */
  void *context;    /* the plugin's state, passed back to every call */
  int rank;
  int size;
  int device;       /* CUDA device the module is bound to (NCCL), or -1 */
  /* Collective: out receives size*bytes, rank r's `in` at out + r*bytes.
   * 0 or a GSHMEMX_ERROR_* code. */
  int (*allgather)(void *context, const void *in, void *out, size_t bytes);
  int (*barrier)(void *context);
  /* Ends the job (MPI_Abort) or at least this process, with exit status
   * `code` where the launcher passes it on. Does not return. */
  void (*abort)(void *context, int code, const char *why);
  /* Releases what open created (and finalizes MPI if the plugin initialized it). */
  int (*close)(void *context);
} gshmemi_bootstrap_ops_t;

/* 0 and *ops filled, or a GSHMEMX_ERROR_* code after calling args->report. */
typedef int (*gshmemi_bootstrap_open_fn)(const gshmemi_bootstrap_open_args_t *args,
                                         gshmemi_bootstrap_ops_t *ops);

/* Optional second symbol, NCCL plugin only: fills `out` (bytes long) with
 * a new rendezvous id for gshmemx_get_uniqueid. 0 or a GSHMEMX_ERROR_* code
 * after calling report. */
#define GSHMEMI_BOOTSTRAP_UNIQUEID_SYMBOL "gshmemi_bootstrap_plugin_get_uniqueid"
typedef int (*gshmemi_bootstrap_get_uniqueid_fn)(void *out, size_t bytes,
                                                 void (*report)(int level, const char *message));

GSHMEM_END_EXTERN_C
