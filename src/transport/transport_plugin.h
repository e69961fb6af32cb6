// The binary interface between libgshmem and its remote transport modules
// (libgshmem_transport_ucx.so first; a module over NCCL's GPU-initiated
// networking, GIN, later), which carry out RMA, atomics and signals on peers
// that the heap cannot map (another node, or no P2P between the GPUs).
//
// Shaped like the bootstrap plugins (src/bootstrap_plugin.h): plain C, one
// exported symbol (gshmemi_transport_plugin_open) that fills a function
// table, loaded with dlopen at init from the same folders, so that libgshmem
// links no network library and works where none is installed (a job whose
// peers are all P2P never opens a transport). libgshmem refuses a module
// whose ABI version differs from its own.
//
// Two kinds of module fit this table:
//   host-driven  (UCX) the proxy thread calls put/get/amo/signal/fence/quiet
//                for the requests kernels queue (include/gshmem/detail/
//                proxy_queue.h, src/proxy/proxy.h);
//   device-driven (GIN, UCX's GPU device API) kernels talk to the network
//                themselves through `device_handle`; the host entries then
//                serve the host and on-stream routines, and the module still
//                registers memory and reports lost peers.
// A module says which it is in `caps`.
//
// Addresses: every remote location is a byte offset in the target PE's
// symmetric space (address - heap_base), which is the same on every PE; the
// module turns it into the peer's address and key from what register_memory
// exchanged. Local locations are addresses in this process (device memory,
// or pinned host memory for staging).
#pragma once

#include <gshmem/detail/transport_amo.h>
#include <gshmem/runtime.h>
#include <stddef.h>
#include <stdint.h>

#define GSHMEMI_TRANSPORT_ABI_VERSION 6
#define GSHMEMI_TRANSPORT_OPEN_SYMBOL "gshmemi_transport_plugin_open"

/* caps: what a module can do */
#define GSHMEMI_TRANSPORT_CAP_GPU_MEMORY   (1u << 0) /* registers device memory (no staging) */
#define GSHMEMI_TRANSPORT_CAP_AMO64        (1u << 1) /* 64-bit remote atomics in the network */
#define GSHMEMI_TRANSPORT_CAP_AMO32        (1u << 2) /* 32-bit remote atomics in the network */
#define GSHMEMI_TRANSPORT_CAP_DEVICE       (1u << 3) /* kernels drive it through device_handle */
#define GSHMEMI_TRANSPORT_CAP_SIGNAL_SET   (1u << 4) /* signal SET in the network (else: the
                                                        caller maps it, docs/remote.md) */

/* memory kinds for register_memory */
#define GSHMEMI_TRANSPORT_MEMORY_DEVICE 0
#define GSHMEMI_TRANSPORT_MEMORY_HOST   1 /* pinned host memory */

/* open flags */
#define GSHMEMI_TRANSPORT_OPEN_ACTIVE_MESSAGES (1u << 0) /* carry every operation as a message that
                                                           the target applies itself, also on host
                                                           memory (tests of the staged path) */
#define GSHMEMI_TRANSPORT_OPEN_DEVICE_MESSAGES (1u << 1) /* GPU memory as messages even where the
                                                           network can register it
                                                           (GSHMEM_REMOTE_RMA=messages); host
                                                           memory stays one-sided */

/* amo operations (the proxy's sub_op for proxy_op_amo): GSHMEMI_TRANSPORT_AMO_*,
   include/gshmem/detail/transport_amo.h */

GSHMEM_BEGIN_EXTERN_C

/* Which path a module's operations took, cumulative since open (stats
 * below; gshmemx_remote_stats). one_sided: the network's RMA or atomic on
 * the peer's registered memory, no work for the peer's proxy; messages: an
 * operation the target applies itself (local_copy / local_amo). Operations
 * are counted once per call, whatever pieces they were cut into. */
typedef struct gshmemi_transport_stats {
  unsigned long long puts_one_sided, puts_messages;
  unsigned long long gets_one_sided, gets_messages;
  unsigned long long atomics_one_sided, atomics_messages;
  unsigned long long signals_one_sided, signals_messages;
  unsigned long long messages_applied; /* peers' ordered messages this PE applied as target */
  unsigned long long gpu_regions_one_sided; /* GPU memory regions registered now that peers reach one-sided */
} gshmemi_transport_stats_t;

typedef struct gshmemi_transport_open_args {
  int abi_version;          /* GSHMEMI_TRANSPORT_ABI_VERSION of the caller */
  int my_pe;
  int n_pes;
  /* n_pes entries: 1 where the PE is reached through this module (remote),
   * 0 where the heap maps it (P2P) or it is this PE. A module connects to
   * the remote PEs only. */
  const unsigned char *remote;
  int cuda_device;          /* the PE's GPU */
  /* The bootstrap's collectives, for exchanging worker addresses and memory
   * keys at open and at register_memory: out receives n_pes*bytes, PE r's
   * `in` at out + r*bytes. 0 or a GSHMEMX_ERROR_* code. */
  void *bootstrap;
  int (*allgather)(void *bootstrap, const void *in, void *out, size_t bytes);
  int (*barrier)(void *bootstrap);
  /* Where the module reports why something failed (one sentence, no
   * newline); the core logs it with the PE prefix. level: 1 WARN, 2 INFO,
   * 3 TRACE. */
  void (*report)(int level, const char *message);
  /* 1 + the PE the runtime's liveness monitor found gone, or 0. A module
   * polls it wherever it waits for peers (connect, quiet, a blocking get)
   * and then returns GSHMEMX_ERROR_PEER_LOST instead of waiting. */
  int (*peer_lost)(void);

  /* GSHMEMI_TRANSPORT_OPEN_* */
  unsigned int flags;
  /* How a module reaches this PE's memory where the network cannot (memory
   * it cannot register, e.g. GPU memory with a UCX built without CUDA): it
   * carries such operations as messages, and the PE that holds the memory
   * applies them with these (the runtime's CUDA copies and atomics on a
   * stream of its own, which never waits for user kernels). The initiator
   * uses local_copy too, to read a put's source and to write a get's
   * destination when those are GPU memory. Synchronous: complete and visible
   * to kernels (system scope) on return. 0 or a GSHMEMX_ERROR_* code.
   * NULL (tests on host memory): the module uses memcpy and host atomics.
   *   local_copy  bytes from src to dst, either of them device or host memory
   *   local_amo   GSHMEMI_TRANSPORT_AMO_* of `width` (4 or 8) bytes at
   *               `address`; *old (may be NULL) receives the previous value */
  void *local_access;
  int (*local_copy)(void *local_access, void *dst, const void *src, size_t bytes);
  int (*local_amo)(void *local_access, void *address, int op, int width, uint64_t operand, uint64_t compare,
                   uint64_t *old);
} gshmemi_transport_open_args_t;

/* Every entry returns 0 or a GSHMEMX_ERROR_* code (after calling report);
 * GSHMEMX_ERROR_PEER_LOST when the peer's connection failed or the monitor
 * reported it gone. Entries are called from one thread at a time (the proxy
 * thread, or a host call holding the runtime's transport lock). */
typedef struct gshmemi_transport_ops {
  int abi_version;   /* set by the module */
  const char *name;  /* "ucx", "gin" */
  void *context;     /* the module's state, passed back to every call */
  unsigned int caps; /* GSHMEMI_TRANSPORT_CAP_* */

  /* Collective (every PE, same order, same offsets): makes `bytes` of local
   * memory at `local`, which is symmetric offset `offset`, reachable by the
   * remote PEs, and learns theirs. Called for the heap at init, then for
   * each growth of it and each registered buffer. kind:
   * GSHMEMI_TRANSPORT_MEMORY_*. */
  int (*register_memory)(void *context, uint64_t offset, void *local, size_t bytes, int kind);
  int (*deregister_memory)(void *context, uint64_t offset); /* collective */

  /* Non-blocking: issued, complete at the next quiet. The source of a put
   * may be reused after quiet (a module that copies it may say so sooner by
   * returning from put with the data taken). */
  int (*put)(void *context, int pe, uint64_t remote, const void *local, size_t bytes);
  int (*get)(void *context, int pe, void *local, uint64_t remote, size_t bytes);
  /* Remote atomic GSHMEMI_TRANSPORT_AMO_* of width 4 or 8 bytes; `fetched`
   * (may be NULL) receives the old value by the next quiet. */
  int (*amo)(void *context, int pe, uint64_t remote, int op, int width, uint64_t operand, uint64_t compare,
             void *fetched);
  /* Signal GSHMEM_SIGNAL_SET or GSHMEM_SIGNAL_ADD of `value` on the 8-byte
   * word at `remote`. Orders nothing by itself (see fence). */
  int (*signal)(void *context, int pe, uint64_t remote, int sig_op, uint64_t value);
  /* Everything issued to `pe` (-1: to every PE) before the fence is
   * delivered there before anything issued after it. */
  int (*fence)(void *context, int pe);
  /* Blocks until everything issued is complete: delivered at the target,
   * fetched values and get data in local memory. */
  int (*quiet)(void *context);
  /* 1 + a remote PE whose connection failed (the module saw it), or 0. */
  int (*peer_failed)(void *context);

  /* GSHMEMI_TRANSPORT_CAP_DEVICE modules: what kernels use (published to
   * the device state); NULL otherwise. */
  void *device_handle;

  /* Lets the network make progress: a module whose peers' operations need
   * this PE's help (UCX carrying RMA or atomics in software, over TCP or
   * shared memory) serves them here. The proxy calls it while idle, and a
   * PE waiting on its own memory for a remote write must see it called.
   * How many events it handled (0: nothing arrived, nothing was sent; the
   * proxy keeps polling while peers keep it busy), or GSHMEMX_ERROR_PEER_LOST
   * (negative) once a connection failed. */
  int (*progress)(void *context);

  /* Releases everything open and register_memory created. Collective where
   * the network needs it (a final barrier so that no peer still writes). */
  int (*close)(void *context);

  /* May be NULL. Fills *out with the module's path counts; unlike the
   * entries above, any thread may call it at any time (the module keeps
   * the counts in atomics), never after close. */
  int (*stats)(void *context, gshmemi_transport_stats_t *out);

  /* May be NULL (read as 0). 1 when a put of `bytes` to `remote` on `pe`
   * is carried one-sidedly and would rather copy from GPU memory than from
   * host memory (UCX's cuda_ipc copies GPU to GPU only; a host source there
   * falls back to UCX's software emulation, which the target serves). The
   * proxy then hands inline values (p, signal values) over from the device
   * copy their producer wrote (proxy_queue.h, values) instead of staging
   * them in host memory. Any thread of the proxy's; cheap. */
  int (*device_source)(void *context, int pe, uint64_t remote, size_t bytes);
  /* May be NULL (signal is called instead). signal, with the value also
   * in GPU memory at `value_device` (8 bytes that stay until the next
   * quiet), for a module that writes a SET one-sidedly as a put. */
  int (*signal_from)(void *context, int pe, uint64_t remote, int sig_op, uint64_t value, const void *value_device);
} gshmemi_transport_ops_t;

/* 0 and *ops filled, or a GSHMEMX_ERROR_* code after calling args->report. */
typedef int (*gshmemi_transport_open_fn)(const gshmemi_transport_open_args_t *args,
                                         gshmemi_transport_ops_t *ops);

GSHMEM_END_EXTERN_C
