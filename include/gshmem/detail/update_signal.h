// Signals, fence, quiet and the device barrier: the ordering half of the
// remote updates. The public names live in <gshmem/update.h> and
// <gshmem/update_ext.h>; this is their implementation.
//
// PTX mapping (one place, so that it can be read and argued about):
//   data of put/p/putmem ........ st.relaxed.sys (16-byte vector where aligned)
//   get/g ....................... ld.relaxed.sys
//   (the relaxed accesses that order nothing, these two lines and
//   signal_op's, are movable for the compiler: ordering.h, compiler order)
//   signal_op SET ............... st.relaxed.sys.b64         (no ordering)
//   signal_op ADD ............... red.relaxed.sys.global.add.u64 (no ordering)
//   put_signal's signal, SET .... st.release.sys.b64         (after the data)
//   put_signal's signal, ADD .... red.release.sys.global.add.u64 (after the data)
//   signal_fetch ................ ld.acquire.sys.b64
//   signal_wait_until ........... ld.acquire.sys.b64 poll (sync_scan.h, wait_one)
//   fence ....................... fence.acq_rel.sys
//   quiet ....................... fence.sc.sys
//   sync_all (device) ........... fence.release.sys, red.global.add to each peer,
//                                 relaxed polls, fence.acquire.sys
//   barrier_all (device) ........ fence.sc.sys, then sync_all's exchange
// (the device barrier and team syncs are in <gshmem/detail/team_sync.h>)
#pragma once

#include <gshmem/detail/config.h>
#include <gshmem/detail/ordering.h>
#include <gshmem/detail/remote.h>
#include <gshmem/detail/state.h>
#include <gshmem/detail/team_sync.h>
#include <gshmem/detail/update_access.h>
#include <gshmem/types.h>

#include <stdint.h>

namespace gshmem {
namespace detail {

#if defined(__CUDACC__)

GSHMEM_DEVICE void trap_invalid_signal_op(int sig_op, const char* routine) {
#if GSHMEM_IN_DEVICE_CODE
  device_failure f;
  f.kind = GSHMEMI_FAIL_INVALID_SIG_OP;
  f.i0 = sig_op;
  fail_device(routine, f);
#endif
}

// Traps on a sig_op other than GSHMEM_SIGNAL_SET / GSHMEM_SIGNAL_ADD
// (where the operator is checked before anything is issued).
GSHMEM_DEVICE void check_signal_op(int sig_op, const char* routine) {
  if (sig_op != GSHMEM_SIGNAL_SET && sig_op != GSHMEM_SIGNAL_ADD) trap_invalid_signal_op(sig_op, routine);
}

// Applies a signal at `remote` (already translated) with order O:
// relaxed for signal_op (movable: it orders nothing, ordering.h), release
// for put_signal (pinned: it orders the data before it).
template <memory_order O>
GSHMEM_DEVICE void apply_signal(uint64_t* remote, uint64_t value, int sig_op, const char* routine) {
  constexpr compiler_order C = O == memory_order::relaxed ? compiler_order::movable : compiler_order::pinned;
  unsigned long long* p = reinterpret_cast<unsigned long long*>(remote);
  if (sig_op == GSHMEM_SIGNAL_SET) atomic_store<O, thread_scope::system, C>(p, (unsigned long long)value);
  else if (sig_op == GSHMEM_SIGNAL_ADD)
    atomic_reduce<reduce_op::add, O, thread_scope::system, C>(p, (unsigned long long)value);
  else trap_invalid_signal_op(sig_op, routine);
}

// put_signal for any group: every rank stores its share of the data, the
// group synchronizes (which orders the other ranks' stores before rank 0's
// next operation), then rank 0 updates the signal with release semantics at
// system scope, so a peer that observes the signal observes all the data.
// Remote peer (docs/remote.md, detail/remote.h): rank 0 queues one request
// between two group syncs (remote_by_first_rank), waiting for it when
// blocking or a get.
template <class Group>
GSHMEM_DEVICE void putmem_signal_group(void* dest, const void* source, size_t nbytes, uint64_t* sig_addr,
                                       uint64_t signal, int sig_op, int pe, const Group& g,
                                       const char* routine, bool blocking = true) {
  check_signal_op(sig_op, routine);
  on_peer(
      dest, pe, routine,
      [&](void* remote) {
        copy_bytes<true, false>(remote, source, nbytes, g);
        g.sync();
        if (g.rank() == 0)
          apply_signal<memory_order::release>(peer_address(sig_addr, pe, routine), signal, sig_op, routine);
      },
      [&] {
        remote_by_first_rank(g, [&] { remote_put(dest, source, nbytes, pe, blocking, sig_addr, signal, sig_op, routine); });
      });
}

template <class Group>
GSHMEM_DEVICE void putmem_group(void* dest, const void* source, size_t nbytes, int pe, const Group& g,
                                const char* routine, bool blocking = true) {
  on_peer(
      dest, pe, routine,
      [&](void* remote) {
        copy_bytes<true, false>(remote, source, nbytes, g);
        g.sync();
      },
      [&] { remote_by_first_rank(g, [&] { remote_put(dest, source, nbytes, pe, blocking, nullptr, 0, 0, routine); }); });
}

template <class Group>
GSHMEM_DEVICE void getmem_group(void* dest, const void* source, size_t nbytes, int pe, const Group& g,
                                const char* routine) {
  on_peer(
      source, pe, routine,
      [&](const void* remote) {
        copy_bytes<false, true>(dest, remote, nbytes, g);
        g.sync();
      },
      [&] { remote_by_first_rank(g, [&] { remote_get(dest, source, nbytes, pe, routine); }); });
}

#endif  // __CUDACC__

}  // namespace detail
}  // namespace gshmem
