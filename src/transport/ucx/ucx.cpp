// The UCX transport module (libgshmem_transport_ucx.so): the function table
// of transport_plugin.h carried out with UCP, host-driven (the proxy thread,
// or a host call holding the runtime's transport lock, calls it; one thread
// at a time, hence UCS_THREAD_MODE_SERIALIZED).
//
//   open             context (RMA + 32/64-bit atomics) and one worker; worker
//                    addresses exchanged with the bootstrap's allgather; one
//                    endpoint per remote PE, with peer error handling so that
//                    a dead peer fails requests instead of hanging them
//   register_memory  ucp_mem_map of the caller's memory, ucp_rkey_pack, the
//                    keys and base addresses exchanged, ucp_ep_rkey_unpack
//   put / get        ucp_put_nbx / ucp_get_nbx
//   amo              ucp_atomic_op_nbx (add, and, or, xor, swap, cswap; a
//                    plain fetch is an atomic OR of 0, UCP having no atomic
//                    read)
//   signal           SET: atomic swap (the old value discarded), ADD: atomic add
//   fence            ucp_worker_fence
//   quiet            ucp_worker_flush_nbx, progressed until done, then every
//                    outstanding request reaped and fetched values copied out
//   progress         ucp_worker_progress (software RMA/atomics over TCP or
//                    shared memory need the target to progress)
//
// Failures come back as GSHMEMX_ERROR_* codes after one report() line naming
// the operation and the PE. Nothing here exits or aborts the process.
#include <gshmem/runtime.h>
#include <gshmem/types.h>
#include <ucp/api/ucp.h>

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <deque>
#include <vector>

#include "transport/transport_plugin.h"

namespace {

struct Region {
  uint64_t offset = 0;
  size_t bytes = 0;
  void *local = nullptr;
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

  ucp_context_h context = nullptr;
  ucp_worker_h worker = nullptr;
  bool gpu_memory = false;
  std::vector<ucp_ep_h> eps;
  std::vector<EpArg> ep_args;
  std::vector<unsigned char> ep_failed;  // set by the error handler
  int first_failed = -1;                 // first remote PE found gone
  std::vector<Region> regions;
  std::vector<Pending> pending;
  std::deque<AmoSlot> amos;
  int sticky_error = 0;  // a request that failed (reported at the next quiet)
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

// Waits for a request UCP returned (progressing the worker); frees it.
ucs_status_t wait_request(Ucx *u, ucs_status_ptr_t p) {
  if (p == nullptr) return UCS_OK;
  if (UCS_PTR_IS_ERR(p)) return UCS_PTR_STATUS(p);
  ucs_status_t s;
  while ((s = ucp_request_check_status(p)) == UCS_INPROGRESS) ucp_worker_progress(u->worker);
  ucp_request_free(p);
  return s;
}

// Closes the endpoint of a failed PE (forced: its outstanding requests
// complete with an error instead of waiting for a peer that is gone).
void close_failed(Ucx *u) {
  for (int pe = 0; pe < u->n_pes; ++pe) {
    if (!u->ep_failed[(size_t)pe] || !u->eps[(size_t)pe]) continue;
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

// The peer's address and key for [remote, remote + bytes) of the symmetric space.
int locate(Ucx *u, const char *op, int pe, uint64_t remote, size_t bytes, uint64_t *addr, ucp_rkey_h *rkey) {
  for (const Region &r : u->regions) {
    if (remote >= r.offset && remote - r.offset < r.bytes) {
      if (bytes > r.bytes - (remote - r.offset))
        return fail(u, GSHMEMX_ERROR_INVALID_VALUE,
                    "ucx %s to PE %d: %zu bytes at offset %llu run past the registered region", op, pe, bytes,
                    (unsigned long long)remote);
      *addr = r.remote_base[(size_t)pe] + (remote - r.offset);
      *rkey = r.rkeys[(size_t)pe];
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
      ucp_worker_progress(u->worker);
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
    ucp_worker_progress(u->worker);
    reap(u, false);
  }
  return GSHMEM_SUCCESS;
}

// ---- the function table

int ucx_put(void *c, int pe, uint64_t remote, const void *local, size_t bytes) {
  Ucx *u = static_cast<Ucx *>(c);
  if (bytes == 0) return GSHMEM_SUCCESS;
  ucp_ep_h ep;
  uint64_t addr;
  ucp_rkey_h rkey;
  int rc = endpoint(u, "put", pe, &ep);
  if (rc == GSHMEM_SUCCESS) rc = locate(u, "put", pe, remote, bytes, &addr, &rkey);
  if (rc != GSHMEM_SUCCESS) return rc;
  ucp_request_param_t param{};
  return track(u, ucp_put_nbx(ep, local, bytes, addr, rkey, &param), "put", pe);
}

int ucx_get(void *c, int pe, void *local, uint64_t remote, size_t bytes) {
  Ucx *u = static_cast<Ucx *>(c);
  if (bytes == 0) return GSHMEM_SUCCESS;
  ucp_ep_h ep;
  uint64_t addr;
  ucp_rkey_h rkey;
  int rc = endpoint(u, "get", pe, &ep);
  if (rc == GSHMEM_SUCCESS) rc = locate(u, "get", pe, remote, bytes, &addr, &rkey);
  if (rc != GSHMEM_SUCCESS) return rc;
  ucp_request_param_t param{};
  return track(u, ucp_get_nbx(ep, local, bytes, addr, rkey, &param), "get", pe);
}

// One atomic. `want_reply`: UCP must get a reply buffer (swap, cswap, fetch).
int atomic(Ucx *u, const char *op, int pe, uint64_t remote, ucp_atomic_op_t opcode, int width, uint64_t operand,
           uint64_t reply_in, bool want_reply, void *fetched) {
  if (width != 4 && width != 8)
    return fail(u, GSHMEMX_ERROR_INVALID_VALUE, "ucx %s to PE %d: width %d (4 or 8 bytes)", op, pe, width);
  if (remote % (uint64_t)width != 0)
    return fail(u, GSHMEMX_ERROR_MISALIGNED, "ucx %s to PE %d: offset %llu is not %d-byte aligned", op, pe,
                (unsigned long long)remote, width);
  ucp_ep_h ep;
  uint64_t addr;
  ucp_rkey_h rkey;
  int rc = endpoint(u, op, pe, &ep);
  if (rc == GSHMEM_SUCCESS) rc = locate(u, op, pe, remote, (size_t)width, &addr, &rkey);
  if (rc != GSHMEM_SUCCESS) return rc;
  u->amos.emplace_back();
  AmoSlot &slot = u->amos.back();
  slot.width = width;
  slot.fetched = fetched;
  if (width == 4) {
    const uint32_t o = (uint32_t)operand, r = (uint32_t)reply_in;
    std::memcpy(&slot.operand, &o, 4);
    std::memcpy(&slot.reply, &r, 4);
  } else {
    slot.operand = operand;
    slot.reply = reply_in;
  }
  ucp_request_param_t param{};
  param.op_attr_mask = UCP_OP_ATTR_FIELD_DATATYPE;
  param.datatype = ucp_dt_make_contig((size_t)width);
  if (want_reply || fetched) {
    param.op_attr_mask |= UCP_OP_ATTR_FIELD_REPLY_BUFFER;
    param.reply_buffer = &slot.reply;
  }
  return track(u, ucp_atomic_op_nbx(ep, opcode, &slot.operand, 1, addr, rkey, &param), op, pe);
}

int ucx_amo(void *c, int pe, uint64_t remote, int op, int width, uint64_t operand, uint64_t compare,
            void *fetched) {
  Ucx *u = static_cast<Ucx *>(c);
  switch (op) {
    case GSHMEMI_TRANSPORT_AMO_ADD:
      return atomic(u, "atomic add", pe, remote, UCP_ATOMIC_OP_ADD, width, operand, 0, false, fetched);
    case GSHMEMI_TRANSPORT_AMO_AND:
      return atomic(u, "atomic and", pe, remote, UCP_ATOMIC_OP_AND, width, operand, 0, false, fetched);
    case GSHMEMI_TRANSPORT_AMO_OR:
      return atomic(u, "atomic or", pe, remote, UCP_ATOMIC_OP_OR, width, operand, 0, false, fetched);
    case GSHMEMI_TRANSPORT_AMO_XOR:
      return atomic(u, "atomic xor", pe, remote, UCP_ATOMIC_OP_XOR, width, operand, 0, false, fetched);
    case GSHMEMI_TRANSPORT_AMO_SWAP:
      return atomic(u, "atomic swap", pe, remote, UCP_ATOMIC_OP_SWAP, width, operand, 0, true, fetched);
    case GSHMEMI_TRANSPORT_AMO_CSWAP:
      // UCP: the buffer holds the value compared with, the reply buffer the
      // value stored on a match (and then receives the old value).
      return atomic(u, "atomic compare-swap", pe, remote, UCP_ATOMIC_OP_CSWAP, width, compare, operand, true,
                    fetched);
    case GSHMEMI_TRANSPORT_AMO_FETCH:
      // UCP has no atomic read: an OR of 0 returns the value and leaves it.
      return atomic(u, "atomic fetch", pe, remote, UCP_ATOMIC_OP_OR, width, 0, 0, true, fetched);
    default:
      return fail(u, GSHMEMX_ERROR_INVALID_VALUE, "ucx atomic to PE %d: unknown operation %d", pe, op);
  }
}

int ucx_signal(void *c, int pe, uint64_t remote, int sig_op, uint64_t value) {
  Ucx *u = static_cast<Ucx *>(c);
  if (sig_op == GSHMEM_SIGNAL_SET)
    return atomic(u, "signal set", pe, remote, UCP_ATOMIC_OP_SWAP, 8, value, 0, true, nullptr);
  if (sig_op == GSHMEM_SIGNAL_ADD)
    return atomic(u, "signal add", pe, remote, UCP_ATOMIC_OP_ADD, 8, value, 0, false, nullptr);
  return fail(u, GSHMEMX_ERROR_INVALID_VALUE, "ucx signal to PE %d: unknown signal operation %d", pe, sig_op);
}

int ucx_fence(void *c, int pe) {
  Ucx *u = static_cast<Ucx *>(c);
  if (pe >= 0 && (pe >= u->n_pes || !u->remote[(size_t)pe]))
    return fail(u, GSHMEMX_ERROR_INVALID_PE, "ucx fence: PE %d is not a remote PE of this module", pe);
  if (pe >= 0 && u->ep_failed[(size_t)pe])
    return fail(u, GSHMEMX_ERROR_PEER_LOST, "ucx fence to PE %d: its connection failed", pe);
  // UCP fences a whole worker: everything to every PE (stronger than asked).
  const ucs_status_t s = ucp_worker_fence(u->worker);
  if (s != UCS_OK) return fail(u, code_of(s), "ucx fence (PE %d): %s", pe, ucs_status_string(s));
  return GSHMEM_SUCCESS;
}

int ucx_quiet(void *c) {
  Ucx *u = static_cast<Ucx *>(c);
  poll_monitor(u);
  close_failed(u);
  ucp_request_param_t param{};
  ucs_status_ptr_t flush = ucp_worker_flush_nbx(u->worker, &param);
  ucs_status_t s = UCS_OK;
  if (UCS_PTR_IS_ERR(flush)) {
    s = UCS_PTR_STATUS(flush);
  } else if (flush != nullptr) {
    while ((s = ucp_request_check_status(flush)) == UCS_INPROGRESS) {
      ucp_worker_progress(u->worker);
      // A peer that died while we wait: its endpoint is closed by force,
      // which completes its requests (with an error) and so the flush.
      poll_monitor(u);
      close_failed(u);
    }
    ucp_request_free(flush);
  }
  reap(u, true);
  // Fetched values are in the slots now.
  for (const AmoSlot &a : u->amos)
    if (a.fetched) std::memcpy(a.fetched, &a.reply, (size_t)a.width);
  u->amos.clear();
  if (u->first_failed >= 0) return lost_error(u, "quiet");
  if (s != UCS_OK) return fail(u, code_of(s), "ucx quiet: flushing the worker failed: %s", ucs_status_string(s));
  const int rc = u->sticky_error;
  u->sticky_error = 0;
  return rc;
}

int ucx_progress(void *c) {
  Ucx *u = static_cast<Ucx *>(c);
  for (int i = 0; i < 16 && ucp_worker_progress(u->worker) != 0; ++i) {
  }
  poll_monitor(u);
  close_failed(u);
  if (u->pending.size() >= 64) reap(u, false);
  return u->first_failed >= 0 ? GSHMEMX_ERROR_PEER_LOST : GSHMEM_SUCCESS;
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
  uint64_t offset, bytes, base;
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
  std::vector<unsigned char> blob(sizeof(RegionHeader));
  if (kind == GSHMEMI_TRANSPORT_MEMORY_DEVICE && !u->gpu_memory) {
    rc = fail(u, GSHMEMX_ERROR_NOT_SUPPORTED,
              "ucx register_memory: this UCX build cannot register GPU memory (no CUDA support); the caller "
              "must stage through pinned host memory");
  } else if (bytes == 0 || !local) {
    rc = fail(u, GSHMEMX_ERROR_INVALID_VALUE, "ucx register_memory: empty region at offset %llu",
              (unsigned long long)offset);
  } else if (std::any_of(u->regions.begin(), u->regions.end(), [&](const Region &r) {
               return offset < r.offset + r.bytes && r.offset < offset + bytes;
             })) {
    rc = fail(u, GSHMEMX_ERROR_INVALID_VALUE,
              "ucx register_memory: %zu bytes at offset %llu overlap a region registered before", bytes,
              (unsigned long long)offset);
  } else {
    ucp_mem_map_params_t mp{};
    mp.field_mask =
        UCP_MEM_MAP_PARAM_FIELD_ADDRESS | UCP_MEM_MAP_PARAM_FIELD_LENGTH | UCP_MEM_MAP_PARAM_FIELD_MEMORY_TYPE;
    mp.address = local;
    mp.length = bytes;
    mp.memory_type = kind == GSHMEMI_TRANSPORT_MEMORY_DEVICE ? UCS_MEMORY_TYPE_CUDA : UCS_MEMORY_TYPE_HOST;
    ucs_status_t s = ucp_mem_map(u->context, &mp, &region.memh);
    if (s != UCS_OK) {
      region.memh = nullptr;
      rc = fail(u, code_of(s), "ucx register_memory: ucp_mem_map of %zu bytes at offset %llu failed: %s", bytes,
                (unsigned long long)offset, ucs_status_string(s));
    } else {
      void *packed = nullptr;
      size_t packed_len = 0;
      s = ucp_rkey_pack(u->context, region.memh, &packed, &packed_len);
      if (s != UCS_OK) {
        rc = fail(u, code_of(s), "ucx register_memory: ucp_rkey_pack failed: %s", ucs_status_string(s));
      } else {
        blob.resize(sizeof(RegionHeader) + packed_len);
        std::memcpy(blob.data() + sizeof(RegionHeader), packed, packed_len);
        ucp_rkey_buffer_release(packed);
      }
    }
  }
  RegionHeader h{offset, rc == GSHMEM_SUCCESS ? (uint64_t)bytes : 0, (uint64_t)(uintptr_t)local};
  std::memcpy(blob.data(), &h, sizeof h);
  std::vector<std::vector<unsigned char>> all;
  const int xrc = exchange(u, "memory keys", blob.data(), blob.size(), &all);
  if (rc == GSHMEM_SUCCESS) rc = xrc;
  region.remote_base.assign((size_t)u->n_pes, 0);
  region.rkeys.assign((size_t)u->n_pes, nullptr);
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
    region.remote_base[(size_t)pe] = ph.base;
    if (pe == u->my_pe || !u->remote[(size_t)pe] || !u->eps[(size_t)pe]) continue;
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
  const int brc = u->barrier(u->bootstrap);
  if (rc == GSHMEM_SUCCESS && brc != GSHMEM_SUCCESS)
    rc = fail(u, brc, "ucx deregister_memory: the barrier failed (%d)", brc);
  release_region(u, *it);
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
  if (u->first_failed < 0) {
    // Everyone has completed what it issued: endpoints can go.
    const int brc = u->barrier(u->bootstrap);
    if (rc == GSHMEM_SUCCESS && brc != GSHMEM_SUCCESS)
      rc = fail(u, brc, "ucx close: the barrier failed (%d)", brc);
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
  u->eps.assign((size_t)u->n_pes, nullptr);
  u->ep_failed.assign((size_t)u->n_pes, 0);
  u->ep_args.resize((size_t)u->n_pes);

  ucp_config_t *config = nullptr;
  ucs_status_t s = ucp_config_read(nullptr, nullptr, &config);
  if (s != UCS_OK) {
    const int rc = fail(u, GSHMEMX_ERROR_ENVIRONMENT, "ucx open: reading UCX's configuration (UCX_*) failed: %s",
                        ucs_status_string(s));
    delete u;
    return rc;
  }
  ucp_params_t params{};
  params.field_mask = UCP_PARAM_FIELD_FEATURES | UCP_PARAM_FIELD_MT_WORKERS_SHARED;
  params.features = UCP_FEATURE_RMA | UCP_FEATURE_AMO32 | UCP_FEATURE_AMO64;
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
  say(u, 2, "ucx: UCX %s, %d remote PE(s), %s", ucp_get_version_string(),
      (int)std::count(u->remote.begin(), u->remote.end(), 1),
      u->gpu_memory ? "GPU memory registrable" : "host memory only (no CUDA support in this UCX)");

  *ops = gshmemi_transport_ops_t{};
  ops->abi_version = GSHMEMI_TRANSPORT_ABI_VERSION;
  ops->name = "ucx";
  ops->context = u;
  ops->caps = GSHMEMI_TRANSPORT_CAP_AMO64 | GSHMEMI_TRANSPORT_CAP_AMO32 | GSHMEMI_TRANSPORT_CAP_SIGNAL_SET |
              (u->gpu_memory ? GSHMEMI_TRANSPORT_CAP_GPU_MEMORY : 0u);
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
