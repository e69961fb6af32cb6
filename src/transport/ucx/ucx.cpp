// The UCX transport module (libgshmem_transport_ucx.so): the function table
// of transport_plugin.h carried out with UCP, host-driven (the proxy thread,
// or a host call holding the runtime's transport lock, calls it; one thread
// at a time, hence UCS_THREAD_MODE_SERIALIZED).
//
// Two ways to reach a registered region, chosen per region at register_memory
// and then per operation:
//
// One-sided (host memory, unless the open flags ask for messages; GPU memory
// where UCX registers CUDA memory, unless GSHMEMI_TRANSPORT_OPEN_DEVICE_MESSAGES:
// "RMA mode", below):
//   register_memory  ucp_mem_map of the caller's memory, ucp_rkey_pack, the
//                    keys and base addresses exchanged, ucp_ep_rkey_unpack
//   put / get        ucp_put_nbx / ucp_get_nbx
//   amo              ucp_atomic_op_nbx (add, and, or, xor, swap, cswap; a
//                    plain fetch is an atomic OR of 0, UCP having no atomic
//                    read)
//   signal           SET: atomic swap (the old value discarded), ADD: atomic add
//   fence            ucp_worker_fence
//
// RMA mode (GPU memory registered with ucp_mem_map as UCS_MEMORY_TYPE_CUDA):
//   put / get        ucp_put_nbx / ucp_get_nbx on the peer's CUDA rkey; the
//                    local side (GPU memory, or the proxy's pinned host
//                    staging) is typed by UCX's own memory-type detection.
//                    On one node UCX carries them with cuda_ipc (the peer's
//                    memory mapped through CUDA IPC, a copy on a stream of
//                    UCX's): nothing for the peer's proxy to do
//   signal SET       an 8-byte put of the value (the proxy fences before a
//                    signal, P2/P3, and UCP's fence orders RMA)
//   amo, signal ADD  active messages, as below: UCX has no atomic for GPU
//                    memory without an atomic-capable network and GPUDirect
//                    (cuda_ipc has no atomics; UCX's software atomics run a
//                    host atomic on the target's address, ucp/rma/amo_sw.c,
//                    which GPU memory is not)
//   Where a PE's UCX cannot map its GPU memory, every PE falls back to
//   messages for that region (decided together at register_memory).
//
// Active messages (GPU memory where UCX cannot register it: no CUDA support,
// or GSHMEM_REMOTE_RMA=messages; atomics on GPU memory; every region
// with GSHMEMI_TRANSPORT_OPEN_ACTIVE_MESSAGES): nothing is mapped; each
// operation is a UCP active message that the TARGET applies to its own
// memory with the runtime's local_copy / local_amo (memcpy and host atomics
// when those are NULL). The initiator reads a put's source and writes get
// data and fetched values through module-owned host buffers, with
// local_copy as well. See "Active-message mode" below for the protocol and
// its order argument.
//
// Both:
//   quiet            the worker flushed, a flush round trip with every PE
//                    that received one-way messages, every reply awaited;
//                    then every outstanding request reaped and fetched
//                    values copied out
//   progress         ucp_worker_progress (software RMA/atomics over TCP or
//                    shared memory, and every active message, need the
//                    target to progress), then the replies it queued sent
//
// Failures come back as GSHMEMX_ERROR_* codes after one report() line naming
// the operation and the PE. Nothing here exits or aborts the process.
#include <gshmem/runtime.h>
#include <gshmem/types.h>
#include <ucp/api/ucp.h>

#include <algorithm>
#include <atomic>
#include <climits>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <list>
#include <map>
#include <memory>
#include <unordered_map>
#include <vector>

#include "transport/transport_plugin.h"

namespace {

// ---- Active-message mode
//
// Messages (one UCP active-message id; the kind is in the header, which
// travels as the AM user header, the data as its payload):
//   ordered, initiator -> target, applied by the target in issue order:
//     put            offset + data (at most kPieceBytes: larger puts are cut)
//     signal         offset, SET or ADD, value
//     amo            offset, op, width, operand, compare; with a token when
//                    the initiator wants the old value
//     get request    offset, bytes (at most kPieceBytes), token
//     flush request  token: answered once everything before it is applied
//   replies, target -> initiator, matched by token (any order):
//     get reply      data
//     amo reply      the old value
//     flush reply    nothing
//   A reply carries the target's status (0, or the code of what failed
//   there), so that an initiator never waits for a reply that cannot come.
//   unordered, any PE -> every other PE:
//     barrier        the sender's count of barriers (module_barrier below)
//
// Order (docs/remote.md P2/P3): everything one PE issues to another must be
// applied there in issue order, so that a signal sent after data is seen
// after the data. UCP itself promises no order among active messages (its
// design notes: "RMA, AMO, AM - no order"; a message of several eager
// fragments completes at the target when its last fragment arrives, which
// a later single-fragment message can overtake; rendezvous messages arrive
// as descriptors whose data comes later). So:
//   - every ordered message carries a sequence number per (initiator,
//     target) pair; the target applies message n only after n - 1, keeping a
//     copy of any that arrives early (counted, reported once);
//   - sends ask for the eager protocol (UCP_AM_SEND_FLAG_EAGER: the data
//     travels with the message, which the handler then has whole,
//     UCP_AM_FLAG_WHOLE_MSG) and pieces are at most kPieceBytes, so that
//     over one lane (TCP, one IB rail) messages arrive in order and the
//     reorder copy is the exception. A rendezvous arrival (not expected with
//     the eager flag) is refused with an error status, which fails the
//     sender's send; its sequence number is consumed so later messages still
//     apply.
// With that, fence costs nothing between active messages to one PE; where
// one-sided RMA and active messages to one PE are mixed since the last
// fence, the fence is a quiet (UCP's fence orders RMA operations, not them
// against active messages).
//
// quiet returns when everything issued before it is APPLIED at its target:
// every send complete, every get and amo reply in (their data written out),
// and a flush round trip with each PE that was sent one-way messages (put,
// signal, amo without fetch) since the last quiet or reply-bearing request
// (a reply, applied in order, also vouches for everything before it).
//
// Progress and deadlock: handlers run inside ucp_worker_progress. They apply
// what arrived (local copies and atomics only, never a UCP call) and queue
// replies, which progress_worker sends after ucp_worker_progress returns.
// Every wait in this module (quiet, room for more data in flight, endpoint
// close) goes through progress_worker, so a PE waiting in quiet keeps
// serving its peers: two PEs in quiet at once both finish. The collective
// steps of teardown (deregister_memory, close) run after the proxy thread,
// which otherwise progresses the worker, has stopped; their barrier is
// module_barrier, which progresses while it waits. (The bootstrap's barrier
// does not: a PE that finished its quiet and waited there left a peer's
// flush request, sent a moment later, unanswered, and both PEs hung, now
// and then, in gshmem_finalize.)
//
// Memory: the bytes of data in flight (sends not yet complete, get bytes
// not yet replied) are bounded by kInFlightBytes and the number of sends by
// kMaxSends: a put or get waits (progressing) for earlier ones to complete
// before it adds more. A target keeps one reply per get request of at most
// kPieceBytes, so its memory is bounded by its initiators'.
constexpr unsigned kAmId = 0x47;             // the module's UCP active-message id
constexpr size_t kPieceBytes = 64u << 10;     // largest put or get reply payload
constexpr size_t kInFlightBytes = 4u << 20;  // data in flight per PE, all targets together
constexpr size_t kMaxSends = 1024;           // sends in flight
constexpr size_t kSpareBuffers = 64;         // message buffers kept for reuse

enum MsgKind : uint32_t {
  msg_put = 1,
  msg_signal,
  msg_amo,
  msg_get_request,
  msg_flush_request,
  msg_get_reply,
  msg_amo_reply,
  msg_flush_reply,
  msg_barrier,
};

bool is_ordered(uint32_t kind) { return kind >= msg_put && kind <= msg_flush_request; }

const char *kind_name(uint32_t kind) {
  switch (kind) {
    case msg_put: return "put";
    case msg_signal: return "signal";
    case msg_amo: return "atomic";
    case msg_get_request: return "get";
    case msg_flush_request: return "flush";
    case msg_get_reply: return "get reply";
    case msg_amo_reply: return "atomic reply";
    case msg_flush_reply: return "flush reply";
    case msg_barrier: return "barrier";
    default: return "message";
  }
}

struct MsgHeader {
  uint64_t seq = 0;      // ordered kinds: the initiator's count of them to this target
  uint64_t offset = 0;   // symmetric offset at the target
  uint64_t value = 0;    // signal value, amo operand, amo reply: the old value
  uint64_t compare = 0;  // amo cswap
  uint64_t token = 0;    // get, fetching amo, flush: echoed by the reply; barrier: its count
  uint64_t bytes = 0;    // get request: bytes wanted
  uint32_t kind = 0;
  int32_t source_pe = -1;
  int32_t op = 0;      // amo: GSHMEMI_TRANSPORT_AMO_*, signal: GSHMEM_SIGNAL_*
  int32_t width = 0;   // amo: 4 or 8
  int32_t fetch = 0;   // amo: a reply with the old value is wanted
  int32_t status = 0;  // replies: 0 or the GSHMEMX_ERROR_* the target met
};

// A message being sent: the header and the payload stay here until UCP
// completes the send (UCP may read both until then: UCX 1.13 has no flag
// that copies the header at once).
struct OutMsg {
  MsgHeader header;
  std::vector<unsigned char> data;
  size_t bytes = 0;  // payload bytes used in `data`
  int pe = -1;
  void *request = nullptr;
  bool budgeted = false;  // counted in bytes_in_flight
};

// What an initiator waits for: a reply, by token.
struct Awaited {
  uint32_t kind = 0;  // msg_get_request, msg_amo, msg_flush_request
  int pe = -1;
  void *local = nullptr;  // get: destination, amo: fetched
  size_t bytes = 0;       // get: bytes, amo: width
};

// An ordered message that arrived before its predecessors.
struct Early {
  MsgHeader header;
  std::vector<unsigned char> data;
};

struct Region {
  uint64_t offset = 0;
  size_t bytes = 0;
  void *local = nullptr;
  bool messages = false;  // active-message mode (nothing mapped)
  bool device = false;    // GPU memory: atomics as messages even when mapped
  ucp_mem_h memh = nullptr;
  std::vector<uint64_t> remote_base;  // per PE: its address of `offset`
  std::vector<ucp_rkey_h> rkeys;      // per remote PE
};

// An atomic's operand and reply live here until the quiet that completes it
// (UCP reads and writes them until then).
struct AmoSlot {
  uint64_t operand = 0;
  uint64_t reply = 0;
  void *fetched = nullptr;  // where the caller wants the old value, or NULL
  int width = 8;
};

struct Pending {
  void *request;
  const char *op;
  int pe;
};

struct Ucx;

struct EpArg {
  Ucx *ucx;
  int pe;
};

struct Ucx {
  int my_pe = 0;
  int n_pes = 0;
  std::vector<unsigned char> remote;
  void *bootstrap = nullptr;
  int (*allgather)(void *, const void *, void *, size_t) = nullptr;
  int (*barrier)(void *) = nullptr;
  void (*report)(int, const char *) = nullptr;
  int (*peer_lost)(void) = nullptr;
  bool all_messages = false;     // GSHMEMI_TRANSPORT_OPEN_ACTIVE_MESSAGES
  bool device_messages = false;  // GSHMEMI_TRANSPORT_OPEN_DEVICE_MESSAGES
  // UCP atomics on host memory (else messages, as on GPU memory): UCX 1.22
  // finds no protocol for a fetching atomic over shared memory or TCP
  // ("cannot find remote protocol for: ... amo_fetch into host memory from
  // host, arg in host memory", then the endpoint fails), its emulation
  // covering put and get only; 1.13 and 1.16 emulate them.
  bool host_atomics = true;
  void *local_access = nullptr;
  int (*local_copy)(void *, void *, const void *, size_t) = nullptr;
  int (*local_amo)(void *, void *, int, int, uint64_t, uint64_t, uint64_t *) = nullptr;

  ucp_context_h context = nullptr;
  ucp_worker_h worker = nullptr;
  bool gpu_memory = false;
  std::vector<ucp_ep_h> eps;
  std::vector<EpArg> ep_args;
  std::vector<unsigned char> ep_failed;  // set by the error handler
  std::vector<unsigned char> ep_closed;  // failed and closed by force
  int first_failed = -1;                 // first remote PE found gone
  std::vector<Region> regions;
  std::vector<Pending> pending;
  std::deque<AmoSlot> amos;
  int sticky_error = 0;  // a request that failed (reported at the next quiet)

  // Which path operations took (ops->stats, read by any thread).
  std::atomic<unsigned long long> puts_one_sided{0}, puts_messages{0}, gets_one_sided{0}, gets_messages{0},
      atomics_one_sided{0}, atomics_messages{0}, signals_one_sided{0}, signals_messages{0}, messages_applied{0},
      gpu_regions_one_sided{0};

  // Per remote PE: one-sided RMA / active messages issued since the last
  // quiet, and whether any were issued before a fence since then (what a
  // later operation of the other kind must wait for).
  std::vector<unsigned char> rma_since_quiet, msgs_since_quiet;
  std::vector<unsigned char> rma_before_fence, msgs_before_fence;

  // Active-message mode, initiator side.
  std::vector<uint64_t> next_seq;           // per target
  std::vector<unsigned char> unflushed;     // per target: one-way messages not yet vouched for
  std::list<std::unique_ptr<OutMsg>> sends;  // in flight (requests and replies)
  size_t bytes_in_flight = 0;                // budgeted sends + get bytes awaited
  std::unordered_map<uint64_t, Awaited> awaited;
  uint64_t next_token = 1;
  std::vector<std::unique_ptr<OutMsg>> spare;
  // Target side.
  std::vector<uint64_t> expected_seq;                   // per initiator
  std::vector<std::map<uint64_t, Early>> early;         // per initiator, by seq
  std::deque<std::unique_ptr<OutMsg>> replies_to_send;  // queued by handlers
  unsigned long long reordered = 0;                     // messages that arrived early
  // module_barrier: this PE's barriers so far, and the barrier messages
  // received from each PE.
  uint64_t barriers = 0;
  std::vector<uint64_t> barriers_seen;
};

void say(const Ucx *u, int level, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void say(const Ucx *u, int level, const char *fmt, ...) {
  char line[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  if (u && u->report) u->report(level, line);
}

// The UCX this process runs on (its libraries, not the headers the module
// was built with: one UCX serves a process), read once at open.
struct UcxVersion {
  unsigned major = 0, minor = 0, release = 0;
  unsigned number() const { return major * 100 + minor; }  // 1.22 -> 122
};
UcxVersion running_ucx() {
  UcxVersion v;
  ucp_get_version(&v.major, &v.minor, &v.release);
  return v;
}

// The one-sided routines (put/get/atomics on host memory) need UCX to
// emulate what a transport lacks (tcp has no remote atomics; shared memory
// lacks some fetching atomics). UCX's first protocol set (its default
// before 1.15) always emulates; the second (the default from 1.15) aborts
// the process at the first such operation ("cannot find remote protocol
// for: ... amo_fetch into host memory"; seen with UCX 1.16 over shm and
// tcp) unless emulation is asked for, which only releases from 1.18 know
// how to do (UCX_PROTO_EMULATION_ENABLE). So, where the user set neither
// UCX_PROTO_ENABLE nor UCX_PROTO_EMULATION_ENABLE: nothing before 1.15;
// the first protocol set from 1.15 to 1.17; emulation from 1.18 (the first
// set where that cannot be set). Returns what was chosen, for the log.
const char *choose_protocols(ucp_config_t *config, unsigned version) {
  if (std::getenv("UCX_PROTO_ENABLE") || std::getenv("UCX_PROTO_EMULATION_ENABLE"))
    return "protocols as UCX_PROTO_* say";
  if (version < 115) return "default protocols";
  if (version >= 118 && ucp_config_modify(config, "PROTO_EMULATION_ENABLE", "y") == UCS_OK)
    return "protocol emulation on";
  if (ucp_config_modify(config, "PROTO_ENABLE", "n") == UCS_OK) return "first protocol set, which emulates";
  return "default protocols (emulation could not be asked for)";
}

int fail(const Ucx *u, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int fail(const Ucx *u, int code, const char *fmt, ...) {
  char line[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  if (u && u->report) u->report(1, line);
  return code;
}

void keep_error(Ucx *u, int code) {
  if (code != GSHMEM_SUCCESS && u->sticky_error == 0) u->sticky_error = code;
}

// What a UCS status means to the caller: the peer is gone, or something else.
int code_of(ucs_status_t s) {
  switch (s) {
    case UCS_OK:
      return GSHMEM_SUCCESS;
    case UCS_ERR_ENDPOINT_TIMEOUT:
    case UCS_ERR_CONNECTION_RESET:
    case UCS_ERR_UNREACHABLE:
    case UCS_ERR_CANCELED:
    case UCS_ERR_REJECTED:
    case UCS_ERR_IO_ERROR:
      return GSHMEMX_ERROR_PEER_LOST;
    case UCS_ERR_NO_MEMORY:
      return GSHMEMX_ERROR_OUT_OF_MEMORY;
    case UCS_ERR_UNSUPPORTED:
      return GSHMEMX_ERROR_NOT_SUPPORTED;
    default:
      return GSHMEMX_ERROR_INTERNAL;
  }
}

void on_ep_error(void *arg, ucp_ep_h, ucs_status_t status) {
  EpArg *a = static_cast<EpArg *>(arg);
  Ucx *u = a->ucx;
  if (u->ep_failed[(size_t)a->pe]) return;
  u->ep_failed[(size_t)a->pe] = 1;
  if (u->first_failed < 0) u->first_failed = a->pe;
  say(u, 1, "ucx: the connection to PE %d failed (%s)", a->pe, ucs_status_string(status));
}

void count(std::atomic<unsigned long long> &c) { c.fetch_add(1, std::memory_order_relaxed); }

// ---- local memory access (the runtime's, or memcpy and host atomics)

int copy_local(Ucx *u, void *dst, const void *src, size_t bytes) {
  if (bytes == 0) return GSHMEM_SUCCESS;
  if (u->local_copy) return u->local_copy(u->local_access, dst, src, bytes);
  std::memcpy(dst, src, bytes);
  return GSHMEM_SUCCESS;
}

template <typename T>
int host_amo(T *p, int op, T operand, T compare, T *old) {
  switch (op) {
    case GSHMEMI_TRANSPORT_AMO_ADD: *old = __atomic_fetch_add(p, operand, __ATOMIC_SEQ_CST); break;
    case GSHMEMI_TRANSPORT_AMO_AND: *old = __atomic_fetch_and(p, operand, __ATOMIC_SEQ_CST); break;
    case GSHMEMI_TRANSPORT_AMO_OR: *old = __atomic_fetch_or(p, operand, __ATOMIC_SEQ_CST); break;
    case GSHMEMI_TRANSPORT_AMO_XOR: *old = __atomic_fetch_xor(p, operand, __ATOMIC_SEQ_CST); break;
    case GSHMEMI_TRANSPORT_AMO_SWAP: *old = __atomic_exchange_n(p, operand, __ATOMIC_SEQ_CST); break;
    case GSHMEMI_TRANSPORT_AMO_CSWAP:
      // On a mismatch `compare` receives the current value; on a match it
      // was the current value: either way the old one.
      __atomic_compare_exchange_n(p, &compare, operand, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
      *old = compare;
      break;
    case GSHMEMI_TRANSPORT_AMO_FETCH: *old = __atomic_load_n(p, __ATOMIC_SEQ_CST); break;
    default: return GSHMEMX_ERROR_INVALID_VALUE;
  }
  return GSHMEM_SUCCESS;
}

int amo_local(Ucx *u, void *address, int op, int width, uint64_t operand, uint64_t compare, uint64_t *old) {
  *old = 0;
  if (u->local_amo) return u->local_amo(u->local_access, address, op, width, operand, compare, old);
  if (width == 4) {
    uint32_t o = 0;
    const int rc = host_amo(static_cast<uint32_t *>(address), op, (uint32_t)operand, (uint32_t)compare, &o);
    *old = o;
    return rc;
  }
  return host_amo(static_cast<uint64_t *>(address), op, operand, compare, old);
}

// ---- requests and endpoints

unsigned progress_worker(Ucx *u);

// Waits for a request UCP returned (progressing the worker); frees it.
ucs_status_t wait_request(Ucx *u, ucs_status_ptr_t p) {
  if (p == nullptr) return UCS_OK;
  if (UCS_PTR_IS_ERR(p)) return UCS_PTR_STATUS(p);
  ucs_status_t s;
  while ((s = ucp_request_check_status(p)) == UCS_INPROGRESS) progress_worker(u);
  ucp_request_free(p);
  return s;
}

// What a lost PE leaves: nothing it owes us is waited for any longer, and
// nothing it sent early is kept.
void forget_peer(Ucx *u, int pe) {
  for (auto it = u->awaited.begin(); it != u->awaited.end();) {
    if (it->second.pe != pe) {
      ++it;
      continue;
    }
    if (it->second.kind == msg_get_request) u->bytes_in_flight -= it->second.bytes;
    it = u->awaited.erase(it);
  }
  u->early[(size_t)pe].clear();
  u->unflushed[(size_t)pe] = 0;
}

// Closes the endpoint of a failed PE (forced: its outstanding requests
// complete with an error instead of waiting for a peer that is gone).
void close_failed(Ucx *u) {
  for (int pe = 0; pe < u->n_pes; ++pe) {
    if (!u->ep_failed[(size_t)pe] || u->ep_closed[(size_t)pe]) continue;
    u->ep_closed[(size_t)pe] = 1;
    forget_peer(u, pe);
    if (!u->eps[(size_t)pe]) continue;
    ucp_request_param_t param{};
    param.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
    param.flags = UCP_EP_CLOSE_FLAG_FORCE;
    ucp_ep_h ep = u->eps[(size_t)pe];
    u->eps[(size_t)pe] = nullptr;
    (void)wait_request(u, ucp_ep_close_nbx(ep, &param));
  }
}

// Asks the runtime's liveness monitor; a remote PE it found gone is failed here.
void poll_monitor(Ucx *u) {
  if (!u->peer_lost) return;
  const int lost = u->peer_lost();
  if (lost <= 0 || lost > u->n_pes) return;
  const int pe = lost - 1;
  if (!u->remote[(size_t)pe] || u->ep_failed[(size_t)pe]) return;
  u->ep_failed[(size_t)pe] = 1;
  if (u->first_failed < 0) u->first_failed = pe;
  say(u, 1, "ucx: the runtime found PE %d gone", pe);
}

int lost_error(Ucx *u, const char *op) {
  return fail(u, GSHMEMX_ERROR_PEER_LOST, "ucx %s: PE %d is lost", op, u->first_failed);
}

// The endpoint for an operation on `pe`, or an error code (reported).
int endpoint(Ucx *u, const char *op, int pe, ucp_ep_h *ep) {
  if (pe < 0 || pe >= u->n_pes || !u->remote[(size_t)pe])
    return fail(u, GSHMEMX_ERROR_INVALID_PE, "ucx %s: PE %d is not a remote PE of this module", op, pe);
  if (u->ep_failed[(size_t)pe] || !u->eps[(size_t)pe])
    return fail(u, GSHMEMX_ERROR_PEER_LOST, "ucx %s to PE %d: its connection failed", op, pe);
  *ep = u->eps[(size_t)pe];
  return GSHMEM_SUCCESS;
}

// The region holding [remote, remote + bytes) of the symmetric space.
int find_region(Ucx *u, const char *op, int pe, uint64_t remote, size_t bytes, Region **out) {
  for (Region &r : u->regions) {
    if (remote >= r.offset && remote - r.offset < r.bytes) {
      if (bytes > r.bytes - (remote - r.offset))
        return fail(u, GSHMEMX_ERROR_INVALID_VALUE,
                    "ucx %s to PE %d: %zu bytes at offset %llu run past the registered region", op, pe, bytes,
                    (unsigned long long)remote);
      *out = &r;
      return GSHMEM_SUCCESS;
    }
  }
  return fail(u, GSHMEMX_ERROR_NOT_SYMMETRIC, "ucx %s to PE %d: offset %llu is in no registered region", op, pe,
              (unsigned long long)remote);
}

// Frees requests that completed; records the first failure.
void reap(Ucx *u, bool wait) {
  size_t kept = 0;
  for (size_t i = 0; i < u->pending.size(); ++i) {
    Pending &p = u->pending[i];
    ucs_status_t s = ucp_request_check_status(p.request);
    while (wait && s == UCS_INPROGRESS) {
      progress_worker(u);
      poll_monitor(u);
      close_failed(u);
      s = ucp_request_check_status(p.request);
    }
    if (s == UCS_INPROGRESS) {
      u->pending[kept++] = p;
      continue;
    }
    if (s != UCS_OK && u->sticky_error == 0) {
      u->sticky_error = fail(u, code_of(s), "ucx %s to PE %d failed: %s", p.op, p.pe, ucs_status_string(s));
    }
    ucp_request_free(p.request);
  }
  u->pending.resize(kept);
}

// Keeps a request UCP returned for the next quiet, or turns an immediate
// failure into a code.
int track(Ucx *u, ucs_status_ptr_t p, const char *op, int pe) {
  if (p == nullptr) return GSHMEM_SUCCESS;
  if (UCS_PTR_IS_ERR(p)) {
    const ucs_status_t s = UCS_PTR_STATUS(p);
    return fail(u, code_of(s), "ucx %s to PE %d failed: %s", op, pe, ucs_status_string(s));
  }
  u->pending.push_back({p, op, pe});
  if (u->pending.size() >= 1024) {
    progress_worker(u);
    reap(u, false);
  }
  return GSHMEM_SUCCESS;
}

// ---- active messages: sending

std::unique_ptr<OutMsg> new_msg(Ucx *u, uint32_t kind, int pe, size_t payload) {
  std::unique_ptr<OutMsg> m;
  if (!u->spare.empty()) {
    m = std::move(u->spare.back());
    u->spare.pop_back();
  } else {
    m.reset(new OutMsg);
  }
  m->header = MsgHeader{};
  m->header.kind = kind;
  m->header.source_pe = u->my_pe;
  if (m->data.size() < payload) m->data.resize(std::max(payload, std::min(kPieceBytes, (size_t)4096)));
  m->bytes = payload;
  m->pe = pe;
  m->request = nullptr;
  m->budgeted = false;
  return m;
}

void recycle(Ucx *u, std::unique_ptr<OutMsg> m) {
  if (m->budgeted) u->bytes_in_flight -= m->bytes;
  m->budgeted = false;
  if (u->spare.size() < kSpareBuffers && m->data.size() <= kPieceBytes) u->spare.push_back(std::move(m));
}

// Frees sends that completed; a failed one is recorded (reported at quiet).
void reap_sends(Ucx *u) {
  for (auto it = u->sends.begin(); it != u->sends.end();) {
    OutMsg &m = **it;
    const ucs_status_t s = ucp_request_check_status(m.request);
    if (s == UCS_INPROGRESS) {
      ++it;
      continue;
    }
    if (s != UCS_OK && u->sticky_error == 0)
      u->sticky_error = fail(u, code_of(s), "ucx %s to PE %d failed: %s", kind_name(m.header.kind), m.pe,
                             ucs_status_string(s));
    ucp_request_free(m.request);
    m.request = nullptr;
    std::unique_ptr<OutMsg> done = std::move(*it);
    it = u->sends.erase(it);
    recycle(u, std::move(done));
  }
}

// Hands one message to UCP. Ordered kinds take the next sequence number to
// their target (given back if UCP refuses the send at once: nothing left).
int send_msg(Ucx *u, std::unique_ptr<OutMsg> m, bool budget) {
  const int pe = m->pe;
  ucp_ep_h ep = nullptr;
  int rc = endpoint(u, kind_name(m->header.kind), pe, &ep);
  if (rc != GSHMEM_SUCCESS) {
    recycle(u, std::move(m));
    return rc;
  }
  const bool ordered = is_ordered(m->header.kind);
  if (ordered) m->header.seq = u->next_seq[(size_t)pe]++;
  ucp_request_param_t param{};
  param.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
  // The eager protocol: the whole message reaches the handler at once (see
  // "Order" above).
  param.flags = UCP_AM_SEND_FLAG_EAGER;
  ucs_status_ptr_t p =
      ucp_am_send_nbx(ep, kAmId, &m->header, sizeof m->header, m->bytes ? m->data.data() : nullptr, m->bytes, &param);
  if (p == nullptr) {  // sent (buffered by UCP): our copy is free
    recycle(u, std::move(m));
    return GSHMEM_SUCCESS;
  }
  if (UCS_PTR_IS_ERR(p)) {
    if (ordered) --u->next_seq[(size_t)pe];
    const ucs_status_t s = UCS_PTR_STATUS(p);
    rc = fail(u, code_of(s), "ucx %s to PE %d failed: %s", kind_name(m->header.kind), pe, ucs_status_string(s));
    recycle(u, std::move(m));
    return rc;
  }
  m->request = p;
  if (budget) {
    m->budgeted = true;
    u->bytes_in_flight += m->bytes;
  }
  u->sends.push_back(std::move(m));
  return GSHMEM_SUCCESS;
}

// Sends what handlers queued (they make no UCP calls themselves).
void send_replies(Ucx *u) {
  while (!u->replies_to_send.empty()) {
    std::unique_ptr<OutMsg> m = std::move(u->replies_to_send.front());
    u->replies_to_send.pop_front();
    if (u->ep_failed[(size_t)m->pe] || !u->eps[(size_t)m->pe]) {
      recycle(u, std::move(m));  // the initiator is gone
      continue;
    }
    keep_error(u, send_msg(u, std::move(m), false));
  }
}

// Every wait of this module progresses through here: the handlers apply
// what arrived, then their replies go out. Returns how many events that was
// (UCX's count, plus the replies sent).
unsigned progress_worker(Ucx *u) {
  unsigned events = ucp_worker_progress(u->worker);
  if (!u->replies_to_send.empty()) {
    events += (unsigned)u->replies_to_send.size();
    send_replies(u);
  }
  if (!u->sends.empty()) reap_sends(u);
  return events;
}

// Waits (progressing) until `bytes` more fit in flight, or nothing is in
// flight to wait for. PEER_LOST once `pe` is found gone.
int wait_for_room(Ucx *u, int pe, size_t bytes) {
  while ((u->bytes_in_flight + bytes > kInFlightBytes && (u->bytes_in_flight > 0)) || u->sends.size() >= kMaxSends) {
    progress_worker(u);
    poll_monitor(u);
    close_failed(u);
    if (u->ep_failed[(size_t)pe]) return fail(u, GSHMEMX_ERROR_PEER_LOST, "ucx: PE %d is lost", pe);
  }
  return GSHMEM_SUCCESS;
}

uint64_t await_reply(Ucx *u, uint32_t kind, int pe, void *local, size_t bytes) {
  const uint64_t token = u->next_token++;
  u->awaited[token] = Awaited{kind, pe, local, bytes};
  if (kind == msg_get_request) u->bytes_in_flight += bytes;
  // Applied in order at the target, this request's reply also vouches for
  // everything sent there before it: no flush needed for those.
  u->unflushed[(size_t)pe] = 0;
  return token;
}

void withdraw(Ucx *u, uint64_t token) {
  auto it = u->awaited.find(token);
  if (it == u->awaited.end()) return;
  if (it->second.kind == msg_get_request) u->bytes_in_flight -= it->second.bytes;
  u->awaited.erase(it);
}

int am_put(Ucx *u, int pe, uint64_t remote, const void *local, size_t bytes) {
  const unsigned char *src = static_cast<const unsigned char *>(local);
  for (size_t done = 0; done < bytes;) {
    const size_t n = std::min(kPieceBytes, bytes - done);
    int rc = wait_for_room(u, pe, n);
    if (rc != GSHMEM_SUCCESS) return rc;
    std::unique_ptr<OutMsg> m = new_msg(u, msg_put, pe, n);
    // The source may be GPU memory: staged into the message's host buffer.
    rc = copy_local(u, m->data.data(), src + done, n);
    if (rc != GSHMEM_SUCCESS) {
      recycle(u, std::move(m));
      return fail(u, rc, "ucx put to PE %d: reading %zu bytes of the source failed (%d)", pe, n, rc);
    }
    m->header.offset = remote + done;
    rc = send_msg(u, std::move(m), true);
    if (rc != GSHMEM_SUCCESS) return rc;
    u->unflushed[(size_t)pe] = 1;
    done += n;
  }
  return GSHMEM_SUCCESS;
}

int am_get(Ucx *u, int pe, void *local, uint64_t remote, size_t bytes) {
  unsigned char *dst = static_cast<unsigned char *>(local);
  for (size_t done = 0; done < bytes;) {
    const size_t n = std::min(kPieceBytes, bytes - done);
    int rc = wait_for_room(u, pe, n);
    if (rc != GSHMEM_SUCCESS) return rc;
    std::unique_ptr<OutMsg> m = new_msg(u, msg_get_request, pe, 0);
    m->header.offset = remote + done;
    m->header.bytes = n;
    const uint64_t token = await_reply(u, msg_get_request, pe, dst + done, n);
    m->header.token = token;
    rc = send_msg(u, std::move(m), false);
    if (rc != GSHMEM_SUCCESS) {
      withdraw(u, token);
      return rc;
    }
    done += n;
  }
  return GSHMEM_SUCCESS;
}

int am_amo(Ucx *u, int pe, uint64_t remote, int op, int width, uint64_t operand, uint64_t compare, void *fetched) {
  std::unique_ptr<OutMsg> m = new_msg(u, msg_amo, pe, 0);
  m->header.offset = remote;
  m->header.op = op;
  m->header.width = width;
  m->header.value = operand;
  m->header.compare = compare;
  uint64_t token = 0;
  if (fetched) {
    token = await_reply(u, msg_amo, pe, fetched, (size_t)width);
    m->header.token = token;
    m->header.fetch = 1;
  }
  const int rc = send_msg(u, std::move(m), false);
  if (rc != GSHMEM_SUCCESS) {
    if (token) withdraw(u, token);
    return rc;
  }
  if (!fetched) u->unflushed[(size_t)pe] = 1;
  return GSHMEM_SUCCESS;
}

int am_signal(Ucx *u, int pe, uint64_t remote, int sig_op, uint64_t value) {
  std::unique_ptr<OutMsg> m = new_msg(u, msg_signal, pe, 0);
  m->header.offset = remote;
  m->header.op = sig_op;
  m->header.value = value;
  const int rc = send_msg(u, std::move(m), false);
  if (rc == GSHMEM_SUCCESS) u->unflushed[(size_t)pe] = 1;
  return rc;
}

// ---- active messages: the target applies, the initiator takes replies

// This PE's address of [offset, offset + bytes) in a region that peers reach
// with messages (a message-mode region, GPU memory, whose atomics are
// messages in RMA mode too, or host memory where UCP atomics are not used),
// or NULL.
unsigned char *local_address(Ucx *u, uint64_t offset, uint64_t bytes) {
  for (Region &r : u->regions) {
    if ((r.messages || r.device || !u->host_atomics) && offset >= r.offset && offset - r.offset < r.bytes && bytes <= r.bytes - (offset - r.offset))
      return static_cast<unsigned char *>(r.local) + (offset - r.offset);
  }
  return nullptr;
}

void queue_reply(Ucx *u, std::unique_ptr<OutMsg> reply) { u->replies_to_send.push_back(std::move(reply)); }

// Applies one ordered message from h.source_pe, in its turn.
void apply(Ucx *u, const MsgHeader &h, const void *data, size_t length) {
  const int from = h.source_pe;
  int rc = GSHMEM_SUCCESS;
  if (h.kind != msg_flush_request && h.kind != 0) count(u->messages_applied);
  switch (h.kind) {
    case msg_put: {
      unsigned char *dst = local_address(u, h.offset, length);
      if (!dst) {
        rc = fail(u, GSHMEMX_ERROR_NOT_SYMMETRIC, "ucx: a put of %zu bytes from PE %d at offset %llu is outside the regions",
                  length, from, (unsigned long long)h.offset);
      } else if ((rc = copy_local(u, dst, data, length)) != GSHMEM_SUCCESS) {
        (void)fail(u, rc, "ucx: applying a put of %zu bytes from PE %d failed (%d)", length, from, rc);
      }
      keep_error(u, rc);
      return;
    }
    case msg_signal: {
      unsigned char *word = local_address(u, h.offset, 8);
      uint64_t old = 0;
      if (!word || h.offset % 8 != 0) {
        rc = fail(u, GSHMEMX_ERROR_INVALID_VALUE, "ucx: a signal from PE %d at offset %llu is no word of the regions", from,
                  (unsigned long long)h.offset);
      } else {
        rc = amo_local(u, word, h.op == GSHMEM_SIGNAL_SET ? GSHMEMI_TRANSPORT_AMO_SWAP : GSHMEMI_TRANSPORT_AMO_ADD, 8,
                       h.value, 0, &old);
        if (rc != GSHMEM_SUCCESS) (void)fail(u, rc, "ucx: applying a signal from PE %d failed (%d)", from, rc);
      }
      keep_error(u, rc);
      return;
    }
    case msg_amo: {
      unsigned char *word = local_address(u, h.offset, (uint64_t)h.width);
      uint64_t old = 0;
      if (!word || (h.width != 4 && h.width != 8) || h.offset % (uint64_t)h.width != 0) {
        rc = fail(u, GSHMEMX_ERROR_INVALID_VALUE, "ucx: an atomic from PE %d at offset %llu is no word of the regions",
                  from, (unsigned long long)h.offset);
      } else if ((rc = amo_local(u, word, h.op, h.width, h.value, h.compare, &old)) != GSHMEM_SUCCESS) {
        (void)fail(u, rc, "ucx: applying an atomic from PE %d failed (%d)", from, rc);
      }
      if (!h.fetch) {
        keep_error(u, rc);
        return;
      }
      std::unique_ptr<OutMsg> reply = new_msg(u, msg_amo_reply, from, 0);
      reply->header.token = h.token;
      reply->header.value = old;
      reply->header.status = rc;
      queue_reply(u, std::move(reply));
      return;
    }
    case msg_get_request: {
      const size_t n = (size_t)std::min<uint64_t>(h.bytes, kPieceBytes);
      const unsigned char *src = local_address(u, h.offset, h.bytes);
      std::unique_ptr<OutMsg> reply = new_msg(u, msg_get_reply, from, src && n == h.bytes ? n : 0);
      if (!src || n != h.bytes) {
        rc = fail(u, GSHMEMX_ERROR_NOT_SYMMETRIC, "ucx: a get of %llu bytes from PE %d at offset %llu is outside the regions",
                  (unsigned long long)h.bytes, from, (unsigned long long)h.offset);
      } else if ((rc = copy_local(u, reply->data.data(), src, n)) != GSHMEM_SUCCESS) {
        (void)fail(u, rc, "ucx: reading %zu bytes for a get from PE %d failed (%d)", n, from, rc);
        reply->bytes = 0;
      }
      reply->header.token = h.token;
      reply->header.status = rc;
      queue_reply(u, std::move(reply));
      return;
    }
    case msg_flush_request: {
      std::unique_ptr<OutMsg> reply = new_msg(u, msg_flush_reply, from, 0);
      reply->header.token = h.token;
      queue_reply(u, std::move(reply));
      return;
    }
    default:
      return;
  }
}

void take_reply(Ucx *u, const MsgHeader &h, const void *data, size_t length) {
  auto it = u->awaited.find(h.token);
  if (it == u->awaited.end()) return;  // its PE was given up on
  const Awaited a = it->second;
  withdraw(u, h.token);
  if (h.status != GSHMEM_SUCCESS) {
    keep_error(u, fail(u, h.status, "ucx %s at PE %d failed there (%d)", kind_name(a.kind), a.pe, h.status));
    return;
  }
  int rc = GSHMEM_SUCCESS;
  if (h.kind == msg_get_reply) {
    if (length != a.bytes)
      rc = fail(u, GSHMEMX_ERROR_INTERNAL, "ucx get from PE %d: %zu bytes came back for %zu", a.pe, length, a.bytes);
    else if ((rc = copy_local(u, a.local, data, length)) != GSHMEM_SUCCESS)
      (void)fail(u, rc, "ucx get from PE %d: writing %zu bytes to the destination failed (%d)", a.pe, length, rc);
  } else if (h.kind == msg_amo_reply) {
    // The old value's low `width` bytes (little-endian).
    if ((rc = copy_local(u, a.local, &h.value, a.bytes)) != GSHMEM_SUCCESS)
      (void)fail(u, rc, "ucx atomic at PE %d: writing the fetched value failed (%d)", a.pe, rc);
  }
  keep_error(u, rc);
}

// The handler of the module's active-message id, run inside
// ucp_worker_progress: no UCP call here (replies are queued).
ucs_status_t on_message(void *arg, const void *header, size_t header_length, void *data, size_t length,
                        const ucp_am_recv_param_t *param) {
  Ucx *u = static_cast<Ucx *>(arg);
  MsgHeader h;
  if (header_length != sizeof h) {
    keep_error(u, fail(u, GSHMEMX_ERROR_INTERNAL, "ucx: a message with a %zu-byte header (not %zu): another version?",
                       header_length, sizeof h));
    return UCS_OK;
  }
  std::memcpy(&h, header, sizeof h);
  const int from = h.source_pe;
  if (from < 0 || from >= u->n_pes || !u->remote[(size_t)from]) {
    keep_error(u, fail(u, GSHMEMX_ERROR_INTERNAL, "ucx: a message from PE %d, which is no remote PE", from));
    return UCS_OK;
  }
  if (u->ep_closed[(size_t)from]) return UCS_OK;  // given up on
  bool refused = false;
  if (param && (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV)) {
    // Not expected (the sender asks for eager): refuse it (its send fails
    // with this status) and let its sequence number pass.
    keep_error(u, fail(u, GSHMEMX_ERROR_INTERNAL, "ucx: PE %d sent a %s as a rendezvous message; refused", from,
                       kind_name(h.kind)));
    refused = true;
  }
  if (h.kind == msg_barrier) {
    if (!refused) ++u->barriers_seen[(size_t)from];
    return refused ? UCS_ERR_UNSUPPORTED : UCS_OK;
  }
  if (!is_ordered(h.kind)) {
    if (!refused) take_reply(u, h, data, length);
    return refused ? UCS_ERR_UNSUPPORTED : UCS_OK;
  }
  uint64_t &expected = u->expected_seq[(size_t)from];
  if (h.seq != expected) {
    if (h.seq < expected) {
      keep_error(u, fail(u, GSHMEMX_ERROR_INTERNAL, "ucx: a %s from PE %d came twice (sequence %llu)", kind_name(h.kind),
                         from, (unsigned long long)h.seq));
      return refused ? UCS_ERR_UNSUPPORTED : UCS_OK;
    }
    // Early: kept until its predecessors are applied.
    if (u->reordered++ == 0)
      say(u, 2, "ucx: messages from PE %d arrived out of order; applied in issue order", from);
    Early &e = u->early[(size_t)from][h.seq];
    e.header = h;
    if (refused) e.header.kind = 0;  // applies as nothing
    if (!refused && length) e.data.assign(static_cast<const unsigned char *>(data),
                                          static_cast<const unsigned char *>(data) + length);
    return refused ? UCS_ERR_UNSUPPORTED : UCS_OK;
  }
  if (!refused) apply(u, h, data, length);
  ++expected;
  auto &waiting = u->early[(size_t)from];
  for (auto it = waiting.begin(); it != waiting.end() && it->first == expected; it = waiting.erase(it)) {
    apply(u, it->second.header, it->second.data.data(), it->second.data.size());
    ++expected;
  }
  return refused ? UCS_ERR_UNSUPPORTED : UCS_OK;
}

bool messages_outstanding(const Ucx *u) { return !u->sends.empty() || !u->awaited.empty() || !u->replies_to_send.empty(); }

// ---- the function table

int ucx_quiet(void *c);

// Before an operation to `pe` (one-sided, or a message): what was issued to
// it before a fence must be delivered first. Operations of one kind are
// ordered by their own means (ucp_worker_fence for RMA, sequence numbers for
// messages); UCP orders nothing between one-sided RMA and active messages,
// so an operation of the other kind than some issued before the fence waits
// for a quiet.
int order_after_fence(Ucx *u, int pe, bool message) {
  const bool wait = message ? u->rma_before_fence[(size_t)pe] : u->msgs_before_fence[(size_t)pe];
  const int rc = wait ? ucx_quiet(u) : GSHMEM_SUCCESS;
  (message ? u->msgs_since_quiet : u->rma_since_quiet)[(size_t)pe] = 1;
  return rc;
}

int ucx_put(void *c, int pe, uint64_t remote, const void *local, size_t bytes) {
  Ucx *u = static_cast<Ucx *>(c);
  if (bytes == 0) return GSHMEM_SUCCESS;
  ucp_ep_h ep;
  Region *r = nullptr;
  int rc = endpoint(u, "put", pe, &ep);
  if (rc == GSHMEM_SUCCESS) rc = find_region(u, "put", pe, remote, bytes, &r);
  if (rc != GSHMEM_SUCCESS) return rc;
  if ((rc = order_after_fence(u, pe, r->messages)) != GSHMEM_SUCCESS) return rc;
  count(r->messages ? u->puts_messages : u->puts_one_sided);
  if (r->messages) return am_put(u, pe, remote, local, bytes);
  // The local side's memory type (GPU memory, or the proxy's pinned host
  // staging) is left to UCX's detection.
  ucp_request_param_t param{};
  return track(u, ucp_put_nbx(ep, local, bytes, r->remote_base[(size_t)pe] + (remote - r->offset), r->rkeys[(size_t)pe],
                              &param),
               "put", pe);
}

int ucx_get(void *c, int pe, void *local, uint64_t remote, size_t bytes) {
  Ucx *u = static_cast<Ucx *>(c);
  if (bytes == 0) return GSHMEM_SUCCESS;
  ucp_ep_h ep;
  Region *r = nullptr;
  int rc = endpoint(u, "get", pe, &ep);
  if (rc == GSHMEM_SUCCESS) rc = find_region(u, "get", pe, remote, bytes, &r);
  if (rc != GSHMEM_SUCCESS) return rc;
  if ((rc = order_after_fence(u, pe, r->messages)) != GSHMEM_SUCCESS) return rc;
  count(r->messages ? u->gets_messages : u->gets_one_sided);
  if (r->messages) return am_get(u, pe, local, remote, bytes);
  ucp_request_param_t param{};
  return track(u, ucp_get_nbx(ep, local, bytes, r->remote_base[(size_t)pe] + (remote - r->offset), r->rkeys[(size_t)pe],
                              &param),
               "get", pe);
}

// One atomic, GSHMEMI_TRANSPORT_AMO_* `op` (as a message: message-mode
// regions and GPU memory), or UCP's `opcode` (one-sided: host memory).
// `want_reply`: UCP must get a reply buffer (swap, cswap, fetch). `signal`:
// counted as a signal.
int atomic(Ucx *u, const char *name, int pe, uint64_t remote, int op, ucp_atomic_op_t opcode, int width,
           uint64_t operand, uint64_t compare, uint64_t reply_in, bool want_reply, void *fetched,
           bool signal = false) {
  if (width != 4 && width != 8)
    return fail(u, GSHMEMX_ERROR_INVALID_VALUE, "ucx %s to PE %d: width %d (4 or 8 bytes)", name, pe, width);
  if (remote % (uint64_t)width != 0)
    return fail(u, GSHMEMX_ERROR_MISALIGNED, "ucx %s to PE %d: offset %llu is not %d-byte aligned", name, pe,
                (unsigned long long)remote, width);
  ucp_ep_h ep;
  Region *r = nullptr;
  int rc = endpoint(u, name, pe, &ep);
  if (rc == GSHMEM_SUCCESS) rc = find_region(u, name, pe, remote, (size_t)width, &r);
  if (rc != GSHMEM_SUCCESS) return rc;
  const bool message = r->messages || r->device || !u->host_atomics;
  if ((rc = order_after_fence(u, pe, message)) != GSHMEM_SUCCESS) return rc;
  if (signal)
    count(message ? u->signals_messages : u->signals_one_sided);
  else
    count(message ? u->atomics_messages : u->atomics_one_sided);
  if (message) return am_amo(u, pe, remote, op, width, operand, compare, fetched);
  u->amos.emplace_back();
  AmoSlot &slot = u->amos.back();
  slot.width = width;
  slot.fetched = fetched;
  const uint64_t ucp_operand = op == GSHMEMI_TRANSPORT_AMO_CSWAP ? compare : operand;
  if (width == 4) {
    const uint32_t o = (uint32_t)ucp_operand, ri = (uint32_t)reply_in;
    std::memcpy(&slot.operand, &o, 4);
    std::memcpy(&slot.reply, &ri, 4);
  } else {
    slot.operand = ucp_operand;
    slot.reply = reply_in;
  }
  ucp_request_param_t param{};
  param.op_attr_mask = UCP_OP_ATTR_FIELD_DATATYPE;
  param.datatype = ucp_dt_make_contig((size_t)width);
  if (want_reply || fetched) {
    param.op_attr_mask |= UCP_OP_ATTR_FIELD_REPLY_BUFFER;
    param.reply_buffer = &slot.reply;
  }
  return track(u,
               ucp_atomic_op_nbx(ep, opcode, &slot.operand, 1, r->remote_base[(size_t)pe] + (remote - r->offset),
                                 r->rkeys[(size_t)pe], &param),
               name, pe);
}

int ucx_amo(void *c, int pe, uint64_t remote, int op, int width, uint64_t operand, uint64_t compare,
            void *fetched) {
  Ucx *u = static_cast<Ucx *>(c);
  switch (op) {
    case GSHMEMI_TRANSPORT_AMO_ADD:
      return atomic(u, "atomic add", pe, remote, op, UCP_ATOMIC_OP_ADD, width, operand, 0, 0, false, fetched);
    case GSHMEMI_TRANSPORT_AMO_AND:
      return atomic(u, "atomic and", pe, remote, op, UCP_ATOMIC_OP_AND, width, operand, 0, 0, false, fetched);
    case GSHMEMI_TRANSPORT_AMO_OR:
      return atomic(u, "atomic or", pe, remote, op, UCP_ATOMIC_OP_OR, width, operand, 0, 0, false, fetched);
    case GSHMEMI_TRANSPORT_AMO_XOR:
      return atomic(u, "atomic xor", pe, remote, op, UCP_ATOMIC_OP_XOR, width, operand, 0, 0, false, fetched);
    case GSHMEMI_TRANSPORT_AMO_SWAP:
      return atomic(u, "atomic swap", pe, remote, op, UCP_ATOMIC_OP_SWAP, width, operand, 0, 0, true, fetched);
    case GSHMEMI_TRANSPORT_AMO_CSWAP:
      // UCP: the buffer holds the value compared with, the reply buffer the
      // value stored on a match (and then receives the old value).
      return atomic(u, "atomic compare-swap", pe, remote, op, UCP_ATOMIC_OP_CSWAP, width, operand, compare, operand,
                    true, fetched);
    case GSHMEMI_TRANSPORT_AMO_FETCH:
      // UCP has no atomic read: an OR of 0 returns the value and leaves it.
      return atomic(u, "atomic fetch", pe, remote, op, UCP_ATOMIC_OP_OR, width, 0, 0, 0, true, fetched);
    default:
      return fail(u, GSHMEMX_ERROR_INVALID_VALUE, "ucx atomic to PE %d: unknown operation %d", pe, op);
  }
}

// signal and signal_from: `value_device` (may be NULL) holds the value in
// GPU memory, the source of a SET written one-sidedly on GPU memory.
int signal_impl(Ucx *u, int pe, uint64_t remote, int sig_op, uint64_t value, const void *value_device) {
  if (sig_op != GSHMEM_SIGNAL_SET && sig_op != GSHMEM_SIGNAL_ADD)
    return fail(u, GSHMEMX_ERROR_INVALID_VALUE, "ucx signal to PE %d: unknown signal operation %d", pe, sig_op);
  const char *name = sig_op == GSHMEM_SIGNAL_SET ? "signal set" : "signal add";
  if (remote % 8 != 0)
    return fail(u, GSHMEMX_ERROR_MISALIGNED, "ucx %s to PE %d: offset %llu is not 8-byte aligned", name, pe,
                (unsigned long long)remote);
  ucp_ep_h ep;
  Region *r = nullptr;
  int rc = endpoint(u, name, pe, &ep);
  if (rc == GSHMEM_SUCCESS) rc = find_region(u, name, pe, remote, 8, &r);
  if (rc != GSHMEM_SUCCESS) return rc;
  if (r->messages || (r->device && sig_op == GSHMEM_SIGNAL_ADD) || (!r->device && !u->host_atomics)) {
    if ((rc = order_after_fence(u, pe, true)) != GSHMEM_SUCCESS) return rc;
    count(u->signals_messages);
    return am_signal(u, pe, remote, sig_op, value);
  }
  if (r->device) {
    // RMA mode, SET on GPU memory: an 8-byte put of the value, from its
    // device copy where the proxy gave one (GPU to GPU: cuda_ipc on one
    // node), else from a slot that waits until the quiet. The proxy fenced
    // before it (P2/P3); one aligned 8-byte word, written whole by the copy
    // that carries it.
    if ((rc = order_after_fence(u, pe, false)) != GSHMEM_SUCCESS) return rc;
    count(u->signals_one_sided);
    const void *source = value_device;
    if (source == nullptr) {
      u->amos.emplace_back();
      AmoSlot &slot = u->amos.back();
      slot.operand = value;
      source = &slot.operand;
    }
    ucp_request_param_t param{};
    return track(u,
                 ucp_put_nbx(ep, source, 8, r->remote_base[(size_t)pe] + (remote - r->offset), r->rkeys[(size_t)pe],
                             &param),
                 name, pe);
  }
  if (sig_op == GSHMEM_SIGNAL_SET)
    return atomic(u, name, pe, remote, GSHMEMI_TRANSPORT_AMO_SWAP, UCP_ATOMIC_OP_SWAP, 8, value, 0, 0, true, nullptr,
                  true);
  return atomic(u, name, pe, remote, GSHMEMI_TRANSPORT_AMO_ADD, UCP_ATOMIC_OP_ADD, 8, value, 0, 0, false, nullptr,
                true);
}

int ucx_signal(void *c, int pe, uint64_t remote, int sig_op, uint64_t value) {
  return signal_impl(static_cast<Ucx *>(c), pe, remote, sig_op, value, nullptr);
}

int ucx_signal_from(void *c, int pe, uint64_t remote, int sig_op, uint64_t value, const void *value_device) {
  return signal_impl(static_cast<Ucx *>(c), pe, remote, sig_op, value, value_device);
}

// One-sided GPU memory (RMA mode): cuda_ipc copies from GPU memory only;
// a host source would fall back to UCX's software emulation.
int ucx_device_source(void *c, int pe, uint64_t remote, size_t bytes) {
  const Ucx *u = static_cast<const Ucx *>(c);
  if (pe < 0 || pe >= u->n_pes || !u->remote[(size_t)pe]) return 0;
  for (const Region &r : u->regions)
    if (remote >= r.offset && remote - r.offset < r.bytes) return bytes <= r.bytes - (remote - r.offset) && r.device && !r.messages ? 1 : 0;
  return 0;
}

int ucx_fence(void *c, int pe) {
  Ucx *u = static_cast<Ucx *>(c);
  if (pe >= 0 && (pe >= u->n_pes || !u->remote[(size_t)pe]))
    return fail(u, GSHMEMX_ERROR_INVALID_PE, "ucx fence: PE %d is not a remote PE of this module", pe);
  if (pe >= 0 && u->ep_failed[(size_t)pe])
    return fail(u, GSHMEMX_ERROR_PEER_LOST, "ucx fence to PE %d: its connection failed", pe);
  const int first = pe >= 0 ? pe : 0, last = pe >= 0 ? pe : u->n_pes - 1;
  bool rma = false;
  for (int p = first; p <= last; ++p) {
    rma = rma || u->rma_since_quiet[(size_t)p];
    // What a later operation of the other kind must wait for (order_after_fence).
    u->rma_before_fence[(size_t)p] |= u->rma_since_quiet[(size_t)p];
    u->msgs_before_fence[(size_t)p] |= u->msgs_since_quiet[(size_t)p];
  }
  // Active messages to one PE are applied in issue order anyway: nothing to do for them.
  if (!rma) return GSHMEM_SUCCESS;
  // UCP fences a whole worker: everything to every PE (stronger than asked).
  const ucs_status_t s = ucp_worker_fence(u->worker);
  if (s != UCS_OK) return fail(u, code_of(s), "ucx fence (PE %d): %s", pe, ucs_status_string(s));
  return GSHMEM_SUCCESS;
}

int ucx_quiet(void *c) {
  Ucx *u = static_cast<Ucx *>(c);
  poll_monitor(u);
  close_failed(u);
  // A flush round trip with every PE whose one-way messages nothing vouches for yet.
  for (int pe = 0; pe < u->n_pes; ++pe) {
    if (!u->unflushed[(size_t)pe] || u->ep_failed[(size_t)pe]) continue;
    std::unique_ptr<OutMsg> m = new_msg(u, msg_flush_request, pe, 0);
    const uint64_t token = await_reply(u, msg_flush_request, pe, nullptr, 0);
    m->header.token = token;
    const int rc = send_msg(u, std::move(m), false);
    if (rc != GSHMEM_SUCCESS) {
      withdraw(u, token);
      keep_error(u, rc);
    }
  }
  ucp_request_param_t param{};
  ucs_status_ptr_t flush = ucp_worker_flush_nbx(u->worker, &param);
  ucs_status_t s = UCS_OK;
  if (UCS_PTR_IS_ERR(flush)) {
    s = UCS_PTR_STATUS(flush);
  } else if (flush != nullptr) {
    while ((s = ucp_request_check_status(flush)) == UCS_INPROGRESS) {
      progress_worker(u);
      // A peer that died while we wait: its endpoint is closed by force,
      // which completes its requests (with an error) and so the flush.
      poll_monitor(u);
      close_failed(u);
    }
    ucp_request_free(flush);
  }
  reap(u, true);
  // Every send complete and every reply in (a lost PE's are given up on in
  // close_failed); this PE serves its peers meanwhile.
  while (messages_outstanding(u)) {
    progress_worker(u);
    poll_monitor(u);
    close_failed(u);
  }
  // Fetched values are in the slots now.
  for (const AmoSlot &a : u->amos)
    if (a.fetched) std::memcpy(a.fetched, &a.reply, (size_t)a.width);
  u->amos.clear();
  for (auto *flags : {&u->rma_since_quiet, &u->msgs_since_quiet, &u->rma_before_fence, &u->msgs_before_fence})
    std::fill(flags->begin(), flags->end(), 0);
  if (u->first_failed >= 0) return lost_error(u, "quiet");
  if (s != UCS_OK) return fail(u, code_of(s), "ucx quiet: flushing the worker failed: %s", ucs_status_string(s));
  const int rc = u->sticky_error;
  u->sticky_error = 0;
  return rc;
}

// A barrier among the PEs this module reaches and the bootstrap's barrier
// for the others: returns once every live remote PE entered it, serving
// peers (answering their flush requests, completing software RMA) all the
// while. A barrier message is sent to every live remote PE and counted
// there; the wait ends when this PE's own messages are sent and every live
// remote PE's count reached this PE's, so a PE leaves only when no remote
// PE can still need it for anything issued before the barrier. PEs mapped
// P2P (not remote) take part through the bootstrap's barrier afterwards,
// which every PE calls. A PE found lost: GSHMEMX_ERROR_PEER_LOST, no
// bootstrap barrier.
int module_barrier(Ucx *u, const char *op) {
  const uint64_t count = ++u->barriers;
  for (int pe = 0; pe < u->n_pes; ++pe) {
    if (!u->remote[(size_t)pe] || u->ep_failed[(size_t)pe]) continue;
    std::unique_ptr<OutMsg> m = new_msg(u, msg_barrier, pe, 0);
    m->header.token = count;
    keep_error(u, send_msg(u, std::move(m), false));
  }
  for (;;) {
    poll_monitor(u);
    close_failed(u);
    if (u->first_failed >= 0) return lost_error(u, op);
    bool all_in = u->sends.empty();
    for (int pe = 0; all_in && pe < u->n_pes; ++pe)
      all_in = !u->remote[(size_t)pe] || u->barriers_seen[(size_t)pe] >= count;
    if (all_in) break;
    progress_worker(u);
  }
  const int brc = u->barrier(u->bootstrap);
  return brc == GSHMEM_SUCCESS ? GSHMEM_SUCCESS : fail(u, brc, "%s: the barrier failed (%d)", op, brc);
}

int ucx_progress(void *c) {
  Ucx *u = static_cast<Ucx *>(c);
  unsigned long long events = 0;
  for (int i = 0; i < 16; ++i) {
    const unsigned e = ucp_worker_progress(u->worker);
    if (e == 0) break;
    events += e;
  }
  events += progress_worker(u);
  poll_monitor(u);
  close_failed(u);
  if (u->pending.size() >= 64) reap(u, false);
  if (u->first_failed >= 0) return GSHMEMX_ERROR_PEER_LOST;
  return events > (unsigned long long)INT_MAX ? INT_MAX : (int)events;
}
int ucx_stats(void *c, gshmemi_transport_stats_t *out) {
  const Ucx *u = static_cast<const Ucx *>(c);
  if (!out) return GSHMEMX_ERROR_INVALID_VALUE;
  const auto get = [](const std::atomic<unsigned long long> &a) { return a.load(std::memory_order_relaxed); };
  out->puts_one_sided = get(u->puts_one_sided);
  out->puts_messages = get(u->puts_messages);
  out->gets_one_sided = get(u->gets_one_sided);
  out->gets_messages = get(u->gets_messages);
  out->atomics_one_sided = get(u->atomics_one_sided);
  out->atomics_messages = get(u->atomics_messages);
  out->signals_one_sided = get(u->signals_one_sided);
  out->signals_messages = get(u->signals_messages);
  out->messages_applied = get(u->messages_applied);
  out->gpu_regions_one_sided = get(u->gpu_regions_one_sided);
  return GSHMEM_SUCCESS;
}

int ucx_peer_failed(void *c) {
  Ucx *u = static_cast<Ucx *>(c);
  poll_monitor(u);
  return u->first_failed + 1;
}

// Exchanges a blob of any length per PE: out[r] receives PE r's bytes.
int exchange(Ucx *u, const char *what, const void *mine, size_t len, std::vector<std::vector<unsigned char>> *out) {
  std::vector<uint64_t> lens((size_t)u->n_pes);
  const uint64_t my_len = len;
  int rc = u->allgather(u->bootstrap, &my_len, lens.data(), sizeof my_len);
  if (rc != GSHMEM_SUCCESS) return fail(u, rc, "ucx: exchanging %s lengths failed (%d)", what, rc);
  const size_t max = (size_t)*std::max_element(lens.begin(), lens.end());
  std::vector<unsigned char> in(max, 0), all(max * (size_t)u->n_pes);
  if (len) std::memcpy(in.data(), mine, len);
  if (max) {
    rc = u->allgather(u->bootstrap, in.data(), all.data(), max);
    if (rc != GSHMEM_SUCCESS) return fail(u, rc, "ucx: exchanging %s failed (%d)", what, rc);
  }
  out->assign((size_t)u->n_pes, {});
  for (size_t r = 0; r < (size_t)u->n_pes; ++r)
    (*out)[r].assign(all.begin() + (ptrdiff_t)(r * max), all.begin() + (ptrdiff_t)(r * max + lens[r]));
  return GSHMEM_SUCCESS;
}

void release_region(Ucx *u, Region &r) {
  for (ucp_rkey_h &k : r.rkeys)
    if (k) {
      ucp_rkey_destroy(k);
      k = nullptr;
    }
  if (r.memh) {
    ucp_mem_unmap(u->context, r.memh);
    r.memh = nullptr;
  }
}

struct RegionHeader {
  uint64_t offset, bytes, base, messages;
};

int ucx_register_memory(void *c, uint64_t offset, void *local, size_t bytes, int kind) {
  Ucx *u = static_cast<Ucx *>(c);
  if (kind != GSHMEMI_TRANSPORT_MEMORY_HOST && kind != GSHMEMI_TRANSPORT_MEMORY_DEVICE)
    return fail(u, GSHMEMX_ERROR_INVALID_VALUE, "ucx register_memory: unknown memory kind %d", kind);
  // Every PE takes part in the exchange below, also one that cannot map its
  // memory (it sends no key then), so that no peer waits for it forever.
  int rc = GSHMEM_SUCCESS;
  Region region;
  region.offset = offset;
  region.bytes = bytes;
  region.local = local;
  // GPU memory is mapped one-sided where this UCX registers CUDA memory
  // (RMA mode) unless the open flags ask for messages; its atomics are
  // messages either way (the module header says why).
  region.device = kind == GSHMEMI_TRANSPORT_MEMORY_DEVICE;
  region.messages = u->all_messages || (region.device && (u->device_messages || !u->gpu_memory));
  std::vector<unsigned char> blob(sizeof(RegionHeader));
  if (bytes == 0 || !local) {
    rc = fail(u, GSHMEMX_ERROR_INVALID_VALUE, "ucx register_memory: empty region at offset %llu",
              (unsigned long long)offset);
  } else if (std::any_of(u->regions.begin(), u->regions.end(), [&](const Region &r) {
               return offset < r.offset + r.bytes && r.offset < offset + bytes;
             })) {
    rc = fail(u, GSHMEMX_ERROR_INVALID_VALUE,
              "ucx register_memory: %zu bytes at offset %llu overlap a region registered before", bytes,
              (unsigned long long)offset);
  } else if (!region.messages) {
    ucp_mem_map_params_t mp{};
    mp.field_mask =
        UCP_MEM_MAP_PARAM_FIELD_ADDRESS | UCP_MEM_MAP_PARAM_FIELD_LENGTH | UCP_MEM_MAP_PARAM_FIELD_MEMORY_TYPE;
    mp.address = local;
    mp.length = bytes;
    mp.memory_type = region.device ? UCS_MEMORY_TYPE_CUDA : UCS_MEMORY_TYPE_HOST;
    ucs_status_t s = ucp_mem_map(u->context, &mp, &region.memh);
    if (s != UCS_OK && region.device) {
      // Not fatal: this PE asks for messages in the exchange, and every PE
      // then reaches the region so (below).
      region.memh = nullptr;
      region.messages = true;
      say(u, 1,
          "ucx register_memory: UCX refused to map %zu bytes of GPU memory at offset %llu (ucp_mem_map, CUDA: %s); "
          "the region is reached with active messages (UCX_LOG_LEVEL=debug says why)",
          bytes, (unsigned long long)offset, ucs_status_string(s));
    } else if (s != UCS_OK) {
      region.memh = nullptr;
      rc = fail(u, code_of(s), "ucx register_memory: ucp_mem_map of %zu bytes at offset %llu failed: %s", bytes,
                (unsigned long long)offset, ucs_status_string(s));
    } else {
      void *packed = nullptr;
      size_t packed_len = 0;
      s = ucp_rkey_pack(u->context, region.memh, &packed, &packed_len);
      if (s != UCS_OK && region.device) {
        ucp_mem_unmap(u->context, region.memh);
        region.memh = nullptr;
        region.messages = true;
        say(u, 1, "ucx register_memory: UCX could not pack a key for GPU memory at offset %llu (%s); active messages",
            (unsigned long long)offset, ucs_status_string(s));
      } else if (s != UCS_OK) {
        rc = fail(u, code_of(s), "ucx register_memory: ucp_rkey_pack failed: %s", ucs_status_string(s));
      } else {
        blob.resize(sizeof(RegionHeader) + packed_len);
        std::memcpy(blob.data() + sizeof(RegionHeader), packed, packed_len);
        ucp_rkey_buffer_release(packed);
      }
    }
  }
  RegionHeader h{offset, rc == GSHMEM_SUCCESS ? (uint64_t)bytes : 0, (uint64_t)(uintptr_t)local,
                 region.messages ? 1u : 0u};
  std::memcpy(blob.data(), &h, sizeof h);
  // A peer done with its exchange may send messages for the region while
  // this PE still waits in its own (a bootstrap wait progresses the module):
  // the handler must know the region's local side already (GPU memory too:
  // its atomics are messages, and a peer may fall back to messages).
  const bool known_early = rc == GSHMEM_SUCCESS && (region.messages || region.device || !u->host_atomics);
  if (known_early) {
    Region local_side;
    local_side.offset = offset;
    local_side.bytes = bytes;
    local_side.local = local;
    local_side.messages = true;
    u->regions.push_back(std::move(local_side));
  }
  std::vector<std::vector<unsigned char>> all;
  const int xrc = exchange(u, "memory keys", blob.data(), blob.size(), &all);
  if (known_early)
    u->regions.erase(std::find_if(u->regions.begin(), u->regions.end(),
                                  [&](const Region &r) { return r.offset == offset; }));
  if (rc == GSHMEM_SUCCESS) rc = xrc;
  region.remote_base.assign((size_t)u->n_pes, 0);
  region.rkeys.assign((size_t)u->n_pes, nullptr);
  // GPU memory: where any PE could not map it, every PE uses messages.
  if (rc == GSHMEM_SUCCESS && region.device && !region.messages) {
    for (int pe = 0; pe < u->n_pes; ++pe) {
      RegionHeader ph{};
      if (all[(size_t)pe].size() >= sizeof ph) std::memcpy(&ph, all[(size_t)pe].data(), sizeof ph);
      if (!ph.messages) continue;
      say(u, 2, "ucx register_memory: PE %d reaches its GPU memory at offset %llu with active messages; so does this PE",
          pe, (unsigned long long)offset);
      release_region(u, region);
      region.messages = true;
      break;
    }
  }
  for (int pe = 0; rc == GSHMEM_SUCCESS && pe < u->n_pes; ++pe) {
    const std::vector<unsigned char> &b = all[(size_t)pe];
    RegionHeader ph{};
    if (b.size() >= sizeof ph) std::memcpy(&ph, b.data(), sizeof ph);
    if (ph.offset != offset || ph.bytes != bytes) {
      rc = fail(u, ph.bytes == 0 ? GSHMEMX_ERROR_BOOTSTRAP : GSHMEMX_ERROR_SYMMETRY,
                "ucx register_memory: PE %d registered %llu bytes at offset %llu, this PE %zu at %llu", pe,
                (unsigned long long)ph.bytes, (unsigned long long)ph.offset, bytes, (unsigned long long)offset);
      break;
    }
    if ((ph.messages != 0) != region.messages && !region.device) {
      rc = fail(u, GSHMEMX_ERROR_SYMMETRY,
                "ucx register_memory: PE %d reaches the region at offset %llu %s, this PE %s", pe,
                (unsigned long long)offset, ph.messages ? "with active messages" : "one-sided",
                region.messages ? "with active messages" : "one-sided");
      break;
    }
    region.remote_base[(size_t)pe] = ph.base;
    if (region.messages || pe == u->my_pe || !u->remote[(size_t)pe] || !u->eps[(size_t)pe]) continue;
    const ucs_status_t s = ucp_ep_rkey_unpack(u->eps[(size_t)pe], b.data() + sizeof ph, &region.rkeys[(size_t)pe]);
    if (s != UCS_OK) {
      region.rkeys[(size_t)pe] = nullptr;
      rc = fail(u, code_of(s), "ucx register_memory: unpacking PE %d's key failed: %s", pe, ucs_status_string(s));
    }
  }
  if (rc != GSHMEM_SUCCESS) {
    release_region(u, region);
    return rc;
  }
  if (region.device)
    say(u, 2, "ucx: %zu bytes of GPU memory at offset %llu: %s", bytes, (unsigned long long)offset,
        region.messages ? "every operation an active message"
                        : "put, get and signal SET one-sided (UCX, CUDA memory), atomics and signal ADD active messages");
  if (region.device && !region.messages) count(u->gpu_regions_one_sided);
  u->regions.push_back(std::move(region));
  return GSHMEM_SUCCESS;
}

int ucx_deregister_memory(void *c, uint64_t offset) {
  Ucx *u = static_cast<Ucx *>(c);
  auto it = std::find_if(u->regions.begin(), u->regions.end(), [&](const Region &r) { return r.offset == offset; });
  if (it == u->regions.end())
    return fail(u, GSHMEMX_ERROR_NOT_SYMMETRIC, "ucx deregister_memory: no region at offset %llu",
                (unsigned long long)offset);
  // Nothing of ours may still touch it, and no peer may still write into it.
  int rc = ucx_quiet(c);
  const int brc = module_barrier(u, "ucx deregister_memory");
  if (rc == GSHMEM_SUCCESS) rc = brc;
  release_region(u, *it);
  if (it->device && !it->messages) u->gpu_regions_one_sided.fetch_sub(1, std::memory_order_relaxed);
  u->regions.erase(it);
  return rc;
}

void destroy(Ucx *u) {
  for (Region &r : u->regions) release_region(u, r);
  u->regions.clear();
  for (Pending &p : u->pending) {
    ucp_request_cancel(u->worker, p.request);
    ucp_request_free(p.request);
  }
  u->pending.clear();
  for (std::unique_ptr<OutMsg> &m : u->sends) {
    ucp_request_cancel(u->worker, m->request);
    ucp_request_free(m->request);
  }
  u->sends.clear();
  u->replies_to_send.clear();
  for (size_t pe = 0; pe < u->eps.size(); ++pe) {
    if (!u->eps[pe]) continue;
    ucp_request_param_t param{};
    param.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
    param.flags = UCP_EP_CLOSE_FLAG_FORCE;
    (void)wait_request(u, ucp_ep_close_nbx(u->eps[pe], &param));
    u->eps[pe] = nullptr;
  }
  if (u->worker) ucp_worker_destroy(u->worker);
  if (u->context) ucp_cleanup(u->context);
  delete u;
}

int ucx_close(void *c) {
  Ucx *u = static_cast<Ucx *>(c);
  int rc = ucx_quiet(c);
  // With a peer lost the job is failing: no barrier (the bootstrap's own
  // would wait for the dead PE, or fail); endpoints are closed by force.
  const int brc = u->first_failed < 0 ? module_barrier(u, "ucx close") : GSHMEM_SUCCESS;
  if (rc == GSHMEM_SUCCESS) rc = brc;
  if (u->first_failed < 0 && brc == GSHMEM_SUCCESS) {
    // Everyone has completed what it issued: endpoints can go.
    for (size_t pe = 0; pe < u->eps.size(); ++pe) {
      if (!u->eps[pe]) continue;
      ucp_request_param_t param{};
      const ucs_status_t s = wait_request(u, ucp_ep_close_nbx(u->eps[pe], &param));
      u->eps[pe] = nullptr;
      if (s != UCS_OK && s != UCS_ERR_CONNECTION_RESET && s != UCS_ERR_ENDPOINT_TIMEOUT)
        say(u, 2, "ucx close: closing the endpoint to PE %zu: %s", pe, ucs_status_string(s));
    }
    // No worker goes before every peer closed its endpoints to it.
    const int b2 = u->barrier(u->bootstrap);
    if (rc == GSHMEM_SUCCESS && b2 != GSHMEM_SUCCESS) rc = fail(u, b2, "ucx close: the barrier failed (%d)", b2);
  }
  destroy(u);
  return rc;
}

int open_ucx(const gshmemi_transport_open_args_t *args, gshmemi_transport_ops_t *ops) {
  Ucx *u = new Ucx;
  u->my_pe = args->my_pe;
  u->n_pes = args->n_pes;
  u->remote.assign(args->remote, args->remote + args->n_pes);
  u->remote[(size_t)args->my_pe] = 0;
  u->bootstrap = args->bootstrap;
  u->allgather = args->allgather;
  u->barrier = args->barrier;
  u->report = args->report;
  u->peer_lost = args->peer_lost;
  u->all_messages = (args->flags & GSHMEMI_TRANSPORT_OPEN_ACTIVE_MESSAGES) != 0;
  u->device_messages = (args->flags & GSHMEMI_TRANSPORT_OPEN_DEVICE_MESSAGES) != 0;
  u->local_access = args->local_access;
  u->local_copy = args->local_copy;
  u->local_amo = args->local_amo;
  const size_t n = (size_t)u->n_pes;
  u->eps.assign(n, nullptr);
  u->ep_failed.assign(n, 0);
  u->ep_closed.assign(n, 0);
  u->rma_since_quiet.assign(n, 0);
  u->msgs_since_quiet.assign(n, 0);
  u->rma_before_fence.assign(n, 0);
  u->msgs_before_fence.assign(n, 0);
  u->next_seq.assign(n, 0);
  u->unflushed.assign(n, 0);
  u->expected_seq.assign(n, 0);
  u->barriers_seen.assign(n, 0);
  u->early.assign(n, {});
  u->ep_args.resize((size_t)u->n_pes);

  ucp_config_t *config = nullptr;
  ucs_status_t s = ucp_config_read(nullptr, nullptr, &config);
  if (s != UCS_OK) {
    const int rc = fail(u, GSHMEMX_ERROR_ENVIRONMENT, "ucx open: reading UCX's configuration (UCX_*) failed: %s",
                        ucs_status_string(s));
    delete u;
    return rc;
  }
  const UcxVersion ucx = running_ucx();
  const char *protocols = choose_protocols(config, ucx.number());
  u->host_atomics = ucx.number() < 122;
  ucp_params_t params{};
  params.field_mask = UCP_PARAM_FIELD_FEATURES | UCP_PARAM_FIELD_MT_WORKERS_SHARED;
  params.features = UCP_FEATURE_RMA | UCP_FEATURE_AMO32 | UCP_FEATURE_AMO64 | UCP_FEATURE_AM;
  params.mt_workers_shared = 0;
  s = ucp_init(&params, config, &u->context);
  ucp_config_release(config);
  if (s != UCS_OK) {
    u->context = nullptr;
    const int rc = fail(u, code_of(s), "ucx open: ucp_init failed: %s", ucs_status_string(s));
    destroy(u);
    return rc;
  }
  ucp_context_attr_t cattr{};
  cattr.field_mask = UCP_ATTR_FIELD_MEMORY_TYPES;
  if (ucp_context_query(u->context, &cattr) == UCS_OK)
    u->gpu_memory = (cattr.memory_types & UCS_BIT(UCS_MEMORY_TYPE_CUDA)) != 0;

  ucp_worker_params_t wp{};
  wp.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE;
  wp.thread_mode = UCS_THREAD_MODE_SERIALIZED;  // one caller at a time (transport_plugin.h)
  s = ucp_worker_create(u->context, &wp, &u->worker);
  if (s != UCS_OK) {
    u->worker = nullptr;
    const int rc = fail(u, code_of(s), "ucx open: ucp_worker_create failed: %s", ucs_status_string(s));
    destroy(u);
    return rc;
  }
  // The handler of every active message (both modes install it: a peer
  // sends messages for the regions it registered so, whatever this PE's
  // flags).
  ucp_am_handler_param_t hp{};
  hp.field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID | UCP_AM_HANDLER_PARAM_FIELD_FLAGS | UCP_AM_HANDLER_PARAM_FIELD_CB |
                  UCP_AM_HANDLER_PARAM_FIELD_ARG;
  hp.id = kAmId;
  hp.flags = UCP_AM_FLAG_WHOLE_MSG;
  hp.cb = &on_message;
  hp.arg = u;
  s = ucp_worker_set_am_recv_handler(u->worker, &hp);
  if (s != UCS_OK) {
    const int rc = fail(u, code_of(s), "ucx open: setting the active-message handler failed: %s", ucs_status_string(s));
    destroy(u);
    return rc;
  }
  ucp_worker_attr_t wattr{};
  wattr.field_mask = UCP_WORKER_ATTR_FIELD_MAX_AM_HEADER;
  if (ucp_worker_query(u->worker, &wattr) == UCS_OK && wattr.max_am_header < sizeof(MsgHeader)) {
    const int rc = fail(u, GSHMEMX_ERROR_NOT_SUPPORTED,
                        "ucx open: UCX allows active-message headers of %zu bytes, the module needs %zu",
                        wattr.max_am_header, sizeof(MsgHeader));
    destroy(u);
    return rc;
  }
  ucp_address_t *addr = nullptr;
  size_t addr_len = 0;
  s = ucp_worker_get_address(u->worker, &addr, &addr_len);
  if (s != UCS_OK) {
    // Still take part in the exchange, so that peers are not left waiting.
    addr = nullptr;
    addr_len = 0;
    (void)fail(u, code_of(s), "ucx open: ucp_worker_get_address failed: %s", ucs_status_string(s));
  }
  std::vector<std::vector<unsigned char>> all;
  int rc = exchange(u, "worker addresses", addr, addr_len, &all);
  if (addr) ucp_worker_release_address(u->worker, addr);
  if (rc == GSHMEM_SUCCESS && s != UCS_OK) rc = code_of(s);
  for (int pe = 0; rc == GSHMEM_SUCCESS && pe < u->n_pes; ++pe) {
    if (!u->remote[(size_t)pe]) continue;
    if (all[(size_t)pe].empty()) {
      rc = fail(u, GSHMEMX_ERROR_BOOTSTRAP, "ucx open: PE %d sent no worker address", pe);
      break;
    }
    u->ep_args[(size_t)pe] = {u, pe};
    ucp_ep_params_t ep{};
    ep.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS | UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE |
                    UCP_EP_PARAM_FIELD_ERR_HANDLER;
    ep.address = reinterpret_cast<const ucp_address_t *>(all[(size_t)pe].data());
    ep.err_mode = UCP_ERR_HANDLING_MODE_PEER;
    ep.err_handler.cb = &on_ep_error;
    ep.err_handler.arg = &u->ep_args[(size_t)pe];
    s = ucp_ep_create(u->worker, &ep, &u->eps[(size_t)pe]);
    if (s != UCS_OK) {
      u->eps[(size_t)pe] = nullptr;
      // At open, no peer has been lost yet: UCX found no transport that
      // reaches the PE with peer failure handling (see UCX_TLS).
      rc = fail(u, GSHMEMX_ERROR_NOT_SUPPORTED,
                "ucx open: connecting to PE %d failed: %s (no UCX transport reaches it with peer failure "
                "handling; check UCX_TLS)",
                pe, ucs_status_string(s));
    }
  }
  if (rc != GSHMEM_SUCCESS) {
    destroy(u);
    return rc;
  }
  {
    const char *gpu = u->all_messages      ? "active messages (every region so)"
                      : !u->gpu_memory     ? "active messages (this UCX cannot register CUDA memory)"
                      : u->device_messages ? "active messages (GSHMEM_REMOTE_RMA=messages)"
                                           : "one-sided put/get/signal SET, atomics as active messages (RMA mode)";
    say(u, 2, "ucx: running on UCX %u.%u.%u (%s), CUDA memory %s; %d remote PE(s), %s; GPU memory: %s", ucx.major,
        ucx.minor, ucx.release, protocols, u->gpu_memory ? "supported" : "not supported",
        (int)std::count(u->remote.begin(), u->remote.end(), 1),
        u->all_messages    ? "host memory through active messages"
        : u->host_atomics ? "host memory one-sided"
                          : "host memory one-sided, its atomics as active messages (this UCX has no protocol for them)",
        gpu);
  }

  *ops = gshmemi_transport_ops_t{};
  ops->abi_version = GSHMEMI_TRANSPORT_ABI_VERSION;
  ops->name = "ucx";
  ops->context = u;
  // CAP_GPU_MEMORY in RMA mode only: otherwise GPU memory is staged through
  // host buffers at both ends (active messages), never registered with UCX.
  ops->caps = GSHMEMI_TRANSPORT_CAP_AMO64 | GSHMEMI_TRANSPORT_CAP_AMO32 | GSHMEMI_TRANSPORT_CAP_SIGNAL_SET;
  if (u->gpu_memory && !u->all_messages && !u->device_messages) ops->caps |= GSHMEMI_TRANSPORT_CAP_GPU_MEMORY;
  ops->register_memory = &ucx_register_memory;
  ops->deregister_memory = &ucx_deregister_memory;
  ops->put = &ucx_put;
  ops->get = &ucx_get;
  ops->amo = &ucx_amo;
  ops->signal = &ucx_signal;
  ops->fence = &ucx_fence;
  ops->quiet = &ucx_quiet;
  ops->peer_failed = &ucx_peer_failed;
  ops->device_handle = nullptr;
  ops->progress = &ucx_progress;
  ops->close = &ucx_close;
  ops->stats = &ucx_stats;
  ops->device_source = &ucx_device_source;
  ops->signal_from = &ucx_signal_from;
  return GSHMEM_SUCCESS;
}

}  // namespace

extern "C" __attribute__((visibility("default"))) int gshmemi_transport_plugin_open(
    const gshmemi_transport_open_args_t *args, gshmemi_transport_ops_t *ops) {
  if (!args || !ops) return GSHMEMX_ERROR_INVALID_VALUE;
  if (args->abi_version != GSHMEMI_TRANSPORT_ABI_VERSION) {
    if (args->report) args->report(1, "ucx transport: the caller speaks another transport ABI version");
    return GSHMEMX_ERROR_NOT_SUPPORTED;
  }
  if (args->n_pes < 1 || args->my_pe < 0 || args->my_pe >= args->n_pes || !args->remote || !args->allgather ||
      !args->barrier) {
    if (args->report) args->report(1, "ucx transport: open called with a bad PE, remote map or bootstrap");
    return GSHMEMX_ERROR_INVALID_VALUE;
  }
  try {
    return open_ucx(args, ops);
  } catch (...) {
    if (args->report) args->report(1, "ucx transport: out of memory while opening");
    return GSHMEMX_ERROR_OUT_OF_MEMORY;
  }
}
