// Signals, fence, quiet and the device barrier: the ordering half of the
// remote updates. The public names live in <gshmem/update.h> and
// <gshmem/update_ext.h>; this is their implementation.
//
// PTX mapping (one place, so that it can be read and argued about):
//   data of put/p/putmem ........ st.relaxed.sys (16-byte vector where aligned)
//   get/g ....................... ld.relaxed.sys
//   signal_op SET ............... st.relaxed.sys.b64         (no ordering)
//   signal_op ADD ............... red.relaxed.sys.add.u64    (no ordering)
//   put_signal's signal, SET .... st.release.sys.b64         (after the data)
//   put_signal's signal, ADD .... red.release.sys.add.u64    (after the data)
//   signal_fetch ................ ld.acquire.sys.b64
//   fence ....................... fence.acq_rel.sys
//   quiet ....................... fence.sc.sys
//   sync_all (device) ........... st.release.sys to each peer, ld.acquire.sys polls
//   barrier_all (device) ........ fence.sc.sys, then sync_all's exchange
#pragma once

#include <gshmem/detail/config.h>
#include <gshmem/detail/ordering.h>
#include <gshmem/detail/state.h>
#include <gshmem/detail/sync_core.h>
#include <gshmem/detail/update_access.h>
#include <gshmem/types.h>

#include <stdint.h>

namespace gshmem {
namespace detail {

// Layout of the device barrier's state at GSHMEMI_INTERNAL_SYNC_OFFSET of
// every PE's heap. arrived[j] on PE i: the last barrier epoch PE j announced
// to PE i. epoch: how many device barriers this PE has entered. Epochs only
// grow (64 bits never wrap), waits test `>=`, so a fast peer that already
// announced the next epoch cannot be missed and nothing is ever reset. The
// runtime zeroes this area at init.
struct barrier_area {
  unsigned long long arrived[GSHMEMI_MAX_PES];
  unsigned long long pad[15];  // keep the local counter off the polled lines
  unsigned long long epoch;
};
static_assert(sizeof(barrier_area) <= GSHMEMI_INTERNAL_SYNC_BYTES, "barrier state exceeds its area");

#if defined(__CUDACC__)

GSHMEM_DEVICE void trap_invalid_signal_op(int sig_op, const char* routine) {
#if GSHMEM_IN_DEVICE_CODE
  printf("gshmem: PE %d: %s: invalid sig_op %d (GSHMEM_SIGNAL_SET %d or GSHMEM_SIGNAL_ADD %d)\n",
         gshmemi_state().my_pe, routine, sig_op, GSHMEM_SIGNAL_SET, GSHMEM_SIGNAL_ADD);
  __trap();
#endif
}

// Applies a signal at `remote` (already translated) with order O:
// relaxed for signal_op, release for put_signal.
template <memory_order O>
GSHMEM_DEVICE void apply_signal(uint64_t* remote, uint64_t value, int sig_op, const char* routine) {
  unsigned long long* p = reinterpret_cast<unsigned long long*>(remote);
  if (sig_op == GSHMEM_SIGNAL_SET) atomic_store<O, thread_scope::system>(p, (unsigned long long)value);
  else if (sig_op == GSHMEM_SIGNAL_ADD) atomic_reduce<reduce_op::add, O, thread_scope::system>(p, (unsigned long long)value);
  else trap_invalid_signal_op(sig_op, routine);
}

// put_signal for any group: every rank stores its share of the data, the
// group synchronizes (which orders the other ranks' stores before rank 0's
// next operation), then rank 0 updates the signal with release semantics at
// system scope, so a peer that observes the signal observes all the data.
template <class Group>
GSHMEM_DEVICE void putmem_signal_group(void* dest, const void* source, size_t nbytes, uint64_t* sig_addr,
                                       uint64_t signal, int sig_op, int pe, const Group& g,
                                       const char* routine) {
  if (sig_op != GSHMEM_SIGNAL_SET && sig_op != GSHMEM_SIGNAL_ADD) trap_invalid_signal_op(sig_op, routine);
  copy_bytes<true, false>(peer_address(dest, pe, routine), source, nbytes, g);
  g.sync();
  if (g.rank() == 0) apply_signal<memory_order::release>(peer_address(sig_addr, pe, routine), signal, sig_op, routine);
}

template <class Group>
GSHMEM_DEVICE void putmem_group(void* dest, const void* source, size_t nbytes, int pe, const Group& g,
                                const char* routine) {
  copy_bytes<true, false>(peer_address(dest, pe, routine), source, nbytes, g);
  g.sync();
}

template <class Group>
GSHMEM_DEVICE void getmem_group(void* dest, const void* source, size_t nbytes, int pe, const Group& g,
                                const char* routine) {
  copy_bytes<false, true>(dest, peer_address(source, pe, routine), nbytes, g);
  g.sync();
}

GSHMEM_DEVICE barrier_area* barrier_area_at(char* heap) {
  return reinterpret_cast<barrier_area*>(heap + GSHMEMI_INTERNAL_SYNC_OFFSET);
}

// Polls `*p >= target` with acquire at system scope. Its slow path (once
// per 1024 polls) ends the wait when the runtime found a peer's process
// gone, and, with GSHMEM_WAIT_TIMEOUT set, when the wait lasted longer: it
// prints one diagnostic line and traps.
GSHMEM_DEVICE void wait_at_least(const unsigned long long* p, unsigned long long target, int peer,
                                 const char* routine) {
  const unsigned long long timeout = gshmemi_state().wait_timeout_ns;
  const unsigned long long start = timeout ? now_ns() : 0;
  unsigned polls = 0;
  unsigned long long seen;
  while ((seen = atomic_load<memory_order::acquire, thread_scope::system>(p)) < target) {
    if ((++polls & 1023u) != 0) continue;
#if GSHMEM_IN_DEVICE_CODE
    const int lost = peer_lost_word() - 1;
    if (lost >= 0) {
      printf("gshmem: PE %d: %s: PE %d is gone (its process ended); stopping the wait for PE %d at %p\n",
             gshmemi_state().my_pe, routine, lost, peer, (const void*)p);
      __trap();
    }
    if (timeout && now_ns() - start > timeout) {
      printf("gshmem: PE %d: %s: timed out waiting for PE %d at %p: expected >= %llu, found %llu\n",
             gshmemi_state().my_pe, routine, peer, (const void*)p, target, seen);
      __trap();
    }
#endif
  }
}

// The device barrier, for one whole block on every PE. Thread t announces
// this PE's new epoch to PEs t, t + blockDim, ... and then waits for their
// announcements, so n PEs cost one round of n parallel stores and polls.
// WithQuiet (barrier_all): every announcing thread first executes
// fence.sc.sys, completing the block's earlier updates to all PEs. Without
// (sync_all): the announcement is a release store, which still makes every
// store the block made before the call visible to a PE that passes.
template <bool WithQuiet>
GSHMEM_DEVICE void block_sync_all(const char* routine) {
  __shared__ unsigned long long shared_epoch;
  const gshmemi_device_state_t& s = gshmemi_state();
  group_block g;
  const unsigned rank = g.rank(), size = g.size();
  barrier_area* mine = barrier_area_at(s.heap_base);
  g.sync();
  if (rank == 0) {
    // Only this block touches the local counter (one block per PE calls).
    unsigned long long e = atomic_load<memory_order::relaxed, thread_scope::device>(&mine->epoch) + 1;
    atomic_store<memory_order::relaxed, thread_scope::device>(&mine->epoch, e);
    shared_epoch = e;
  }
  g.sync();
  const unsigned long long epoch = shared_epoch;
  const int me = s.my_pe, n = s.n_pes;
  for (int pe = (int)rank; pe < n; pe += (int)size) {
    unsigned long long* slot = &barrier_area_at(s.peer_base[pe])->arrived[me];
    if constexpr (WithQuiet) {
      atomic_fence<memory_order::seq_cst, thread_scope::system>();
      atomic_store<memory_order::relaxed, thread_scope::system>(slot, epoch);
    } else {
      atomic_store<memory_order::release, thread_scope::system>(slot, epoch);
    }
  }
  for (int pe = (int)rank; pe < n; pe += (int)size) wait_at_least(&mine->arrived[pe], epoch, pe, routine);
  g.sync();
}

#endif  // __CUDACC__

}  // namespace detail
}  // namespace gshmem
