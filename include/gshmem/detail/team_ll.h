// Small collectives without the two team syncs: an LL ("low latency")
// protocol in which every word a sender pushes carries its own flag
// (idea from NCCL's LL protocol and NVSHMEM's intranode LL broadcast; this
// is an implementation of our own). Broadcast, fcollect, alltoall, reduce
// and reducescatter take it for small sizes (ll_fits; from one thread only
// up to GSHMEM_COLLECTIVE_LL_THREAD_BYTES: ll_chooses) unless the job runs
// with GSHMEM_COLLECTIVE_LL=0 (a run-time choice, agreed by every PE at init;
// on by default) or a peer of the job is remote (ll_enabled). The larger
// sizes keep <gshmem/detail/team_collectives.h>'s algorithm, unchanged.
//
// The receive ring. Each PE's team scratch of a slot (team_scratch_at,
// kTeamScratchBytes, in the symmetric heap, so every member maps it) is,
// for this protocol, a ring of kLLRingLines lines of 8 bytes. Lines go in
// pairs (16 bytes, 16-byte aligned: 8 bytes of payload), written by one
// 16-byte store and read by one 16-byte load; the PTX memory model makes
// each 8-byte half of such an access single-copy atomic on its own, and each
// line carries its own flag, so a line is what a receiver checks. A line is
// one aligned 64-bit half:
//     bits 63..32  the flag: bits 31..20 the ring's cycle mod 4096 (never
//                  0), bits 19..0 the call's signature (collective_signature
//                  of team_sync.h: which collective, root, size; never 0)
//     bits 31..0   4 bytes of payload (bytes 4i .. 4i+3 of the block the
//                  line carries; the last line of a block padded with 0)
// A call takes the lines [start, start + L) of every member's ring, L the
// same on every member (ll_call_lines); a block from team rank r (fcollect,
// alltoall) lies at start + r * ll_lines(block bytes), broadcast's at start.
// ll_lines is even (whole pairs), so every start and every block begins a pair.
//
// The ring's state is local (team_area::ll_pos, ll_cycle, zeroed with the
// team area when a team is created), kept by every member alike: each
// member makes the same calls on a team in the same order (the OpenSHMEM
// rule), so every member computes the same start, cycle and wrap points
// without communication (ll_plan, pure: the CPU tests check it).
//   - ll_cycle 0 (a new team, or after 4095 cycles): the ring's contents
//     are unknown; a team sync, each member zeroes its own ring, a team sync,
//     cycle 1, start 0. A zeroed line has flag 0 and matches no flag.
//   - the call's lines do not fit behind ll_pos: a team sync (the wrap),
//     the next cycle, start 0.
//   - otherwise start = ll_pos, no sync at all.
// Why the epoch lives in the ring's own cycle count and not in a per-call
// sequence number: a line is written at most once per cycle (a cycle's calls
// take disjoint lines), so the cycle alone tells this cycle's line from a
// stale one; a per-call number would alias after 2^32 calls at a line that
// no call rewrote since, where a cycle number is reset (by the zeroing)
// before it can repeat.
//
// The ordering argument.
//  1. No torn or mixed word: a line is one aligned 8-byte half of a 16-byte
//     store and of a 16-byte load, relaxed at system scope (each half
//     single-copy atomic in the PTX memory model), so a receiver reads either
//     the old line or the new one whole: data and flag come from one access,
//     and no other order is needed between a line's data and its flag. The
//     two lines of a pair may be seen from different writes: each is checked
//     against the flag on its own.
//  2. No stale word taken for a fresh one: within a cycle each line is
//     written once (disjoint ranges); a line from an earlier cycle carries
//     another cycle field (cycles of one zeroing period are distinct mod
//     4096), a zeroed line flag 0. A receiver cannot see a later cycle's
//     line: no member enters the next cycle before this receiver passed the
//     wrap sync, which it enters only after this call returned.
//  3. No line overwritten before it is read: a sender writes a line of
//     cycle c + 1 only after the wrap sync, which it passes only after every
//     member announced it; a member announces after its loads of cycle c
//     completed (the sync's release fence orders earlier loads and stores
//     before the announcement; the sender's acquire poll orders its later
//     stores after). The zeroing is ordered the same way, between its two
//     syncs, before any line of cycle 1.
//  4. Within a group: the group syncs on entry (the source, written by any
//     of its threads, is complete before any line is packed) and before it
//     returns (dest, written by any of its threads, is complete for all).
// What the LL forms do NOT give that the two-sync forms give: they release
// nothing of the caller's other earlier stores to the other members, and a
// member may return before the others received their data (a broadcast's
// root returns as soon as its lines are posted). OpenSHMEM and NVSHMEM
// promise neither: on return, the local dest is complete and the source
// may be reused (docs/api.md, "Which sync gives what").
//
// Call signatures on this path: the flag carries the signature, so a
// member that reads a line of the current cycle from a member whose call
// differs (another collective, root or size, both small) reports it with
// report_signature_mismatch and traps, as the entry sync does. Not caught
// here: a member that receives nothing (a broadcast's root) sees nothing to
// compare, and members whose calls differ in whether they take this path
// at all (sizes on both sides of the threshold) wait for lines that never
// come: that wait ends with the GSHMEM_WAIT_TIMEOUT diagnostic (or the
// peer-lost one), not the mismatch line.
#pragma once

#include <gshmem/detail/team_sync.h>
#include <gshmem/detail/update_access.h>

#include <stddef.h>
#include <stdint.h>

namespace gshmem {
namespace detail {

constexpr unsigned kLLLineBytes = 8;
constexpr unsigned kLLPayloadBytes = 4;
// A pair of lines: one 16-byte access, 8 bytes of payload.
constexpr unsigned kLLPairPayloadBytes = 2 * kLLPayloadBytes;
constexpr unsigned kLLRingLines = kTeamScratchBytes / kLLLineBytes;
// Most lines one call may take: half the ring, so that at most every second
// call of the largest size pays the wrap sync.
constexpr unsigned kLLMaxCallLines = kLLRingLines / 2;
constexpr unsigned kLLCycleBits = 12;
constexpr unsigned long long kLLCycleMod = 1ull << kLLCycleBits;
static_assert(kSignatureBits + kLLCycleBits == 32, "a flag is the cycle and the signature in 32 bits");

enum ll_collective : unsigned { ll_broadcast = 0, ll_fcollect = 1, ll_alltoall = 2 };

// Pairs of lines that carry `bytes` of payload, and their lines (even).
GSHMEM_HD_CONSTEXPR unsigned long long ll_pairs(unsigned long long bytes) {
  return (bytes + kLLPairPayloadBytes - 1) / kLLPairPayloadBytes;
}
GSHMEM_HD_CONSTEXPR unsigned long long ll_lines(unsigned long long bytes) { return 2 * ll_pairs(bytes); }

// Lines one call takes in every member's ring: one block (broadcast) or one
// per member (fcollect, alltoall) of block_bytes each.
GSHMEM_HD_CONSTEXPR unsigned long long ll_call_lines(unsigned kind, unsigned long long block_bytes, int members) {
  return kind == ll_broadcast ? ll_lines(block_bytes) : ll_lines(block_bytes) * (unsigned long long)members;
}

// Whether a call takes the LL path: a size of at least one byte (an empty
// call moves nothing, the two-sync form handles it) and at most
// kLLMaxCallLines lines. Every member decides alike from the same arguments.
GSHMEM_HD_CONSTEXPR bool ll_fits(unsigned kind, unsigned long long block_bytes, int members) {
  return block_bytes > 0 && members >= 1 && block_bytes <= (unsigned long long)kLLMaxCallLines * kLLPayloadBytes &&
         ll_call_lines(kind, block_bytes, members) <= kLLMaxCallLines;
}

// Bytes of payload one call carries in its lines: ll_call_lines at 4 bytes a
// line (each block rounded up to whole pairs of lines).
GSHMEM_HD_CONSTEXPR unsigned long long ll_call_bytes(unsigned kind, unsigned long long block_bytes, int members) {
  return ll_call_lines(kind, block_bytes, members) * kLLPayloadBytes;
}

// What a call from one thread costs on the LL path, in bytes a member, the
// measure GSHMEM_COLLECTIVE_LL_THREAD_BYTES bounds: a broadcast's block
// (rounded up to whole pairs); twice fcollect's and alltoall's, whose thread
// both sends its block and receives one from every member. One thread sends
// and receives every line of its call itself, a few loads in flight
// (kLLReceiveBatch), where a warp or block shares them out, so past a few
// hundred bytes the two syncs of the other path cost less than its round
// trips. Measured (gshmem_perf_coll, 1 x H200 shared by 2 and by 4 PEs under
// MPS, every one-thread call on LL against the two-sync path): broadcast
// ahead up to 256 bytes a block and behind from 512; fcollect and alltoall
// ahead up to 128 and behind from 256, at 2 and at 4 PEs alike (2 x H200: a
// one-thread broadcast of 2 KiB took 108 us through LL, 12 through two syncs).
GSHMEM_HD_CONSTEXPR unsigned long long ll_thread_cost(unsigned kind, unsigned long long block_bytes) {
  return ll_call_bytes(ll_broadcast, block_bytes, 1) * (kind == ll_broadcast ? 1 : 2);
}

// Whether a call takes the LL path once the job has it on: ll_fits, and for a
// call from one thread at most thread_bytes of ll_thread_cost. The form
// enters the choice, so the members of one call agree only if they all call
// from one thread or all from a group (docs/api.md); ll_receive reports a
// member found in a team sync instead of sending (ll_check_peer).
GSHMEM_HD_CONSTEXPR bool ll_chooses(unsigned kind, unsigned long long block_bytes, int members, bool one_thread,
                                    unsigned long long thread_bytes) {
  return ll_fits(kind, block_bytes, members) && (!one_thread || ll_thread_cost(kind, block_bytes) <= thread_bytes);
}

// A reduction's one-thread cost is per element: an element counts as
// ll_reduce_thread_element_bytes against thread_bytes, 1 byte whatever its
// size (256 elements at the default 256). The LL fold of one thread
// (ll_fold_one_thread) takes 4 elements of each member a round trip to its
// own memory; the two-sync path it is weighed against reads 16 bytes of
// every member a round trip over NVLink. Measured in one job on 2 x H200
// (NVLink, 2 PEs, one thread, int64 sum, a loop of 512 calls): 256 elements
// took 45.7 us a call through the LL path and 138.3 through the two syncs
// (NVSHMEM's reduction_latency, another job on the same machine kind: 45.6);
// 128 elements 24.1 us on LL (NVSHMEM 25.5). Before the 4-element fold and
// the whole-pair send, 8-byte elements counted 2 bytes (the fold took 2 a
// round trip: 128 elements 40.7 us). At 4 PEs over NVLink not measured; on
// one GPU shared by several PEs (MPS), where a member's "remote" load is a
// local one and the two-sync path costs less, the unbatched LL fold was
// behind from 16 elements (not measured since).
GSHMEM_HD_CONSTEXPR unsigned long long ll_reduce_thread_element_bytes(unsigned long long) { return 1; }

// ll_chooses for a reduction of n elements of elem_bytes each.
GSHMEM_HD_CONSTEXPR bool ll_reduce_chooses(unsigned long long n, unsigned long long elem_bytes, int members,
                                           bool one_thread, unsigned long long thread_bytes) {
  return n <= (unsigned long long)kLLMaxCallLines * kLLPayloadBytes && ll_fits(ll_fcollect, n * elem_bytes, members) &&
         (!one_thread || n * ll_reduce_thread_element_bytes(elem_bytes) <= thread_bytes);
}

// The 32-bit flag of a line of cycle `cycle` (only its low 12 bits count;
// never 0 mod 4096 when used) and signature `sig`.
GSHMEM_HD_CONSTEXPR unsigned ll_flag(unsigned long long cycle, unsigned sig) {
  return (unsigned)(cycle % kLLCycleMod) << kSignatureBits | (sig & (unsigned)kSignatureMask);
}
GSHMEM_HD_CONSTEXPR unsigned ll_flag_cycle(unsigned flag) { return flag >> kSignatureBits; }
GSHMEM_HD_CONSTEXPR unsigned ll_flag_signature(unsigned flag) { return flag & (unsigned)kSignatureMask; }

GSHMEM_HD_CONSTEXPR unsigned long long ll_word(unsigned data, unsigned flag) {
  return (unsigned long long)flag << 32 | data;
}
GSHMEM_HD_CONSTEXPR unsigned ll_word_flag(unsigned long long w) { return (unsigned)(w >> 32); }
GSHMEM_HD_CONSTEXPR unsigned ll_word_data(unsigned long long w) { return (unsigned)w; }

// What one call does to the ring state (pos, cycle) for `lines` lines.
struct ll_step {
  unsigned long long start;  // the call's first line
  unsigned long long pos;    // the state after the call
  unsigned long long cycle;
  bool wrap;                 // a team sync before the call
  bool zero;                 // then each member zeroes its ring, then a team sync
};
GSHMEM_HD_CONSTEXPR ll_step ll_plan(unsigned long long pos, unsigned long long cycle, unsigned long long lines) {
  return cycle % kLLCycleMod == 0          ? ll_step{0, lines, cycle + 1, true, true}
         : pos + lines > kLLRingLines      ? ((cycle + 1) % kLLCycleMod == 0 ? ll_step{0, lines, cycle + 2, true, true}
                                                                             : ll_step{0, lines, cycle + 1, true, false})
                                           : ll_step{pos, pos + lines, cycle, false, false};
}

// Payload line i of the nbytes at src (any alignment), as the low 32 bits
// of a word: bytes 4i .. 4i+3, little-endian, past nbytes 0. The bytes are
// moved as bytes, whatever the element type (half and bfloat16 included).
GSHMEM_HD unsigned ll_pack(const unsigned char* src, unsigned long long nbytes, unsigned long long i) {
  const unsigned long long at = i * kLLPayloadBytes;
  if (at + kLLPayloadBytes <= nbytes && ((uintptr_t)(src + at) & 3u) == 0)
    return *reinterpret_cast<const unsigned*>(src + at);
  unsigned v = 0;
  for (unsigned b = 0; b < kLLPayloadBytes && at + b < nbytes; ++b) v |= (unsigned)src[at + b] << (8 * b);
  return v;
}
// The inverse: line i's payload into dst (nbytes in all, any alignment).
GSHMEM_HD void ll_unpack(unsigned char* dst, unsigned long long nbytes, unsigned long long i, unsigned v) {
  const unsigned long long at = i * kLLPayloadBytes;
  if (at + kLLPayloadBytes <= nbytes && ((uintptr_t)(dst + at) & 3u) == 0) {
    *reinterpret_cast<unsigned*>(dst + at) = v;
    return;
  }
  for (unsigned b = 0; b < kLLPayloadBytes && at + b < nbytes; ++b) dst[at + b] = (unsigned char)(v >> (8 * b));
}

// Pair p's payload (lines 2p and 2p + 1: bytes 8p .. 8p+7, line 2p's in the
// low half), and its inverse; one 8-byte access where aligned and whole.
GSHMEM_HD unsigned long long ll_pack_pair(const unsigned char* src, unsigned long long nbytes, unsigned long long p) {
  const unsigned long long at = p * kLLPairPayloadBytes;
  if (at + kLLPairPayloadBytes <= nbytes && ((uintptr_t)(src + at) & 7u) == 0)
    return *reinterpret_cast<const unsigned long long*>(src + at);
  return (unsigned long long)ll_pack(src, nbytes, 2 * p) | (unsigned long long)ll_pack(src, nbytes, 2 * p + 1) << 32;
}
GSHMEM_HD void ll_unpack_pair(unsigned char* dst, unsigned long long nbytes, unsigned long long p,
                              unsigned long long v) {
  const unsigned long long at = p * kLLPairPayloadBytes;
  if (at + kLLPairPayloadBytes <= nbytes && ((uintptr_t)(dst + at) & 7u) == 0) {
    *reinterpret_cast<unsigned long long*>(dst + at) = v;
    return;
  }
  ll_unpack(dst, nbytes, 2 * p, (unsigned)v);
  ll_unpack(dst, nbytes, 2 * p + 1, (unsigned)(v >> 32));
}

#if defined(__CUDACC__)

// Whether this job's small collectives take the LL path: GSHMEM_COLLECTIVE_LL
// (the same on every PE: init checks) and no remote peer (one load of the
// device state; every member decides alike).
GSHMEM_DEVICE bool ll_enabled() { return gshmemi_state().collective_ll != 0 && !remote_enabled(); }

// Whether this call of `Group` takes the LL path (ll_chooses with the job's
// settings); every member decides alike from the same arguments and form.
template <class Group>
GSHMEM_DEVICE bool ll_takes(unsigned kind, unsigned long long block_bytes, int members) {
  return ll_enabled() && ll_chooses(kind, block_bytes, members, group_is_one_thread<Group>,
                                    gshmemi_state().collective_ll_thread_bytes);
}

GSHMEM_DEVICE unsigned long long* ll_ring_at(char* heap, int slot) {
  return reinterpret_cast<unsigned long long*>(team_scratch_at(heap, slot));
}

// The wrap: a team sync, then with `zero` each member zeroes its ring and
// a second team sync (ll_plan). Its syncs carry a signature of their own
// (collective_ll_wrap), so a member that entered the two-sync path of the
// same call reports the difference at its entry sync instead of passing
// it. Inlined, with one sync_team in a loop: a kernel holding a call (this
// was out of line) gets YIELD and convergence barriers in every loop, the
// team syncs' polls included (device_report.h), and two inlined syncs took
// the LL reductions' compile time to twice the two-sync ones'.
template <class Group>
GSHMEM_DEVICE void ll_wrap(Group& g, int slot, const team_desc& d, bool zero, const char* routine) {
  for (int pass = 0;; ++pass) {
    sync_team<false>(g, slot, d, routine, collective_signature(collective_ll_wrap, 0, 0));
    if (!zero || pass == 1) return;
    unsigned long long* ring = ll_ring_at(gshmemi_state().heap_base, slot);
    for (unsigned i = g.rank(); i < kLLRingLines; i += g.size())
      atomic_store<memory_order::relaxed, thread_scope::system, compiler_order::movable>(ring + i, 0ull);
  }
}

// The ring step of this call, by every member of `g`: the leader advances
// the local state; wrap and zeroing as ll_plan says. Returns the call's
// first line; *flag its flag.
template <class Group>
GSHMEM_DEVICE unsigned long long ll_begin(Group& g, int slot, const team_desc& d, unsigned long long lines,
                                          unsigned sig, unsigned* flag, const char* routine) {
  const gshmemi_device_state_t& s = gshmemi_state();
  team_area* area = team_area_at(s.heap_base, slot);
  g.sync();  // the group's stores to the source precede the packing (4.)
  unsigned long long packed = 0;
  if (g.is_leader()) {
    const unsigned long long pos = atomic_load<memory_order::relaxed, thread_scope::device>(&area->ll_pos);
    const unsigned long long cycle = atomic_load<memory_order::relaxed, thread_scope::device>(&area->ll_cycle);
    const ll_step st = ll_plan(pos, cycle, lines);
    atomic_store<memory_order::relaxed, thread_scope::device>(&area->ll_pos, st.pos);
    atomic_store<memory_order::relaxed, thread_scope::device>(&area->ll_cycle, st.cycle);
    // start < 2^10, cycle mod 4096 < 2^12, two action bits.
    packed = st.start | (st.cycle % kLLCycleMod) << 16 | (unsigned long long)st.wrap << 32 |
             (unsigned long long)st.zero << 33;
  }
  packed = g.broadcast(packed);
  if (packed >> 32 & 1ull) ll_wrap(g, slot, d, (packed >> 33 & 1ull) != 0, routine);
  *flag = ll_flag(packed >> 16 & (kLLCycleMod - 1), sig);
  return packed & 0xffffull;
}

// The LL wait's check for a member that took the other path (the slow path
// of ll_receive, once per 1024 polls of `line`, waited for from world PE
// `peer`): a member whose announcement in this PE's team area is of a later
// sync than this PE entered is past this call or not in it. Its announcement
// follows a release fence, so after this acquire load every line it posted
// before is visible: if `line` still lacks the flag, the member never sends
// it (it took the two-sync path: members whose forms differ once a one-thread
// call exceeds collective_ll_thread_bytes, ll_chooses), and the wait would
// never end. Returns 0, or the member's announced sync in the high 32 bits
// and this PE's in the low (both mod 2^32, for the diagnostic).
GSHMEM_DEVICE unsigned long long ll_check_peer(const unsigned long long* line, unsigned flag, int slot, int peer) {
  // Every load here depends on this opaque copy of the heap's address, so the
  // compiler cannot hoist them out of the poll loop (where their values would
  // hold registers through every poll: 30 more in a one-thread fcollect).
  char* heap = gshmemi_state().heap_base;
  asm volatile("" : "+l"(heap));
  const int r = slot == GSHMEMI_TEAM_WORLD ? peer : team_rank_of(team_table_at(heap)[slot], peer);
  if (r < 0) return 0;
  barrier_area* const mine = &team_area_at(heap, slot)->barrier;
  const unsigned long long own = atomic_load<memory_order::relaxed, thread_scope::device>(&mine->epoch);
  const unsigned long long theirs =
      announced_epoch(atomic_load<memory_order::acquire, thread_scope::system>(&mine->arrived[r]));
  if (theirs <= own || ll_word_flag(atomic_load<memory_order::relaxed, thread_scope::system>(line)) == flag) return 0;
  return theirs << 32 | (own & 0xffffffffull);
}

// Polls line p of this PE's ring until it carries `flag`; returns its
// payload. Two ends other than the line, each one diagnostic and a trap:
//   - a line of this cycle with another signature: a member whose call
//     differs (GSHMEMI_FAIL_COLLECTIVE_MISMATCH, as the entry sync reports);
//   - once per 1024 polls, ll_check_peer: a member that took the two-sync
//     path (GSHMEMI_FAIL_COLLECTIVE_FORM).
// Both are reported from one place (each report inlined apart took a user
// kernel holding a one-thread fcollect from 59 registers to 72). Also once
// per 1024 polls, team_wait_watchdog: a lost peer, GSHMEM_WAIT_TIMEOUT (the
// flags expected and seen in its diagnostic).
GSHMEM_DEVICE unsigned ll_receive(const unsigned long long* p, unsigned flag, int slot, int peer,
                                  const char* routine) {
  const unsigned long long timeout = gshmemi_state().wait_timeout_ns;
  const unsigned long long start = timeout ? now_ns() : 0;
  unsigned polls = 0;
  for (;;) {
    const unsigned long long w = atomic_load<memory_order::relaxed, thread_scope::system>(p);
    const unsigned f = ll_word_flag(w);
    if (f == flag) return ll_word_data(w);
    const bool mismatch = ll_flag_cycle(f) == ll_flag_cycle(flag) && f != 0;
    unsigned long long other_path = 0;
    if (!mismatch) {
      if ((++polls & 1023u) != 0) continue;
      other_path = ll_check_peer(p, flag, slot, peer);
      if (other_path == 0) {
        team_wait_watchdog(p, peer, start, timeout, flag, f, routine);
        continue;
      }
    }
    device_failure fail;
    fail.kind = mismatch ? GSHMEMI_FAIL_COLLECTIVE_MISMATCH : GSHMEMI_FAIL_COLLECTIVE_FORM;
    fail.i0 = peer;
    fail.i1 = slot;
    fail.u0 = mismatch ? ll_flag_signature(flag) : (unsigned long long)p;
    fail.u1 = mismatch ? ll_flag_signature(f) : other_path >> 32;
    fail.u2 = mismatch ? ll_flag_cycle(flag) : other_path & 0xffffffffull;
    fail_device(routine, fail);
  }
}

// Pairs a thread of `Group` handles at once: a sender's payload loads issue
// together, then its stores (posted); a receiver's 16-byte loads issue
// together before their flags are checked. One thread has the whole call to
// itself (up to 256 pairs), and a load at a time costs a memory round trip
// each (2 KiB: 152 us against 2.8 for a block, 2 x H200, when the sender
// loaded and the receiver polled a line at a time); a warp's or block's
// threads share the pairs out. The batches are what registers allow: a
// kernel of 1024 threads has 64 a thread (tests/launch checks every form).
// Where the block is whole pairs at an 8-byte aligned address
// (ll_whole_pairs: a pair is one 8-byte load or store, no byte path), one
// thread receives 4 pairs at a time (8 took user kernels holding a one-thread
// broadcast, fcollect or alltoall to 72-86 registers); otherwise the byte
// path's registers leave it 2 (4 there took a one-thread broadcast to 72).
// Past these batches one thread is bound by round trips, which is why a large
// one-thread call takes the two-sync path (ll_chooses).
// A warp's lanes take 4 pairs a time each, sending and receiving: 8 KiB
// is 1024 pairs, 32 a lane, which one pair at a time made 32 round trips a
// lane (NVIDIA's bcast_latency, warp, 8 KiB: 10.8 us against NVSHMEM's 5.4,
// 2 x H200); the warp kernels of tests/launch stay within 64 registers
// (ptxas: a warp's fcollectmem of run-time size 63). A block keeps 1: its
// threads are many, and a kernel of 1024 threads has 64 registers a thread.
template <class Group>
inline constexpr bool group_is_warp = false;
template <>
inline constexpr bool group_is_warp<warp_group> = true;
template <class Group>
inline constexpr unsigned kLLSendBatch = group_is_one_thread<Group> || group_is_warp<Group> ? 4u : 1u;
template <class Group>
inline constexpr unsigned kLLReceiveBatch = group_is_one_thread<Group> ? 2u : group_is_warp<Group> ? 4u : 1u;
constexpr unsigned kLLOneThreadWholeBatch = 4;

// Whether nbytes at p are whole pairs at an 8-byte aligned address.
GSHMEM_HD bool ll_whole_pairs(const void* p, size_t nbytes) {
  return ((uintptr_t)p & 7u) == 0 && nbytes % kLLPairPayloadBytes == 0;
}

// The 16-byte pair of lines that carries payload v with `flag`.
GSHMEM_DEVICE wide16 ll_pair_of(unsigned long long v, unsigned flag) {
  return wide16{ll_word((unsigned)v, flag), ll_word((unsigned)(v >> 32), flag)};
}

// A received pair: whether both its lines carry `flag`, and its payload.
GSHMEM_DEVICE bool ll_pair_has(const wide16& w, unsigned flag) {
  return ll_word_flag(w.lo) == flag && ll_word_flag(w.hi) == flag;
}
GSHMEM_DEVICE unsigned long long ll_pair_data(const wide16& w) {
  return (unsigned long long)ll_word_data(w.hi) << 32 | ll_word_data(w.lo);
}

// Posts this member's lines of one call: pair p (this thread's share of
// 0 .. ll_pairs(nbytes)) of the block at src to lines first_line + 2p and
// 2p + 1 of every other member's ring, or with PerReceiver (alltoall,
// reducescatter) block r of src to member r; own(p, payload) gets this
// member's own pair p. A batch of payload loads in flight (kLLSendBatch, or
// with Whole, ll_whole_pairs of the source, one 8-byte load a pair and
// kLLOneThreadWholeBatch for one thread), then movable relaxed 16-byte
// stores at system scope: many in flight, none waits; each member starts on
// another receiver.
template <bool PerReceiver, bool Whole, class Group, class Own>
GSHMEM_DEVICE void ll_send_pairs(Group& g, int slot, const team_desc& d, const unsigned char* src, size_t nbytes,
                                 unsigned first_line, unsigned flag, Own&& own) {
  // PerReceiver loads each receiver's pairs apart: half the batch (a
  // one-thread alltoall took 67 registers with the whole one).
  constexpr unsigned full = Whole && group_is_one_thread<Group> ? kLLOneThreadWholeBatch : kLLSendBatch<Group>;
  constexpr unsigned B = PerReceiver && full > 1 ? full / 2 : full;
  auto pair_at = [&](const unsigned char* block, unsigned p) {
    return Whole ? reinterpret_cast<const unsigned long long*>(block)[p] : ll_pack_pair(block, nbytes, p);
  };
  const gshmemi_device_state_t& s = gshmemi_state();
  const size_t ring_offset = (size_t)((char*)ll_ring_at(s.heap_base, slot) - s.heap_base);
  const int me = d.my_rank;
  // Line and pair indices of one call are below kLLRingLines: 32 bits.
  const unsigned pairs = (unsigned)ll_pairs(nbytes), stride = g.size();
  for (unsigned p0 = g.rank(); p0 < pairs; p0 += stride * B) {
    unsigned long long shared[B];
    if (!PerReceiver) {
#pragma unroll
      for (unsigned k = 0; k < B; ++k)
        shared[k] = p0 + k * stride < pairs ? pair_at(src, p0 + k * stride) : 0ull;
    }
    for (int n = 1; n < d.size; ++n) {
      const int r = me + n < d.size ? me + n : me + n - d.size;
      unsigned long long data[B];
#pragma unroll
      for (unsigned k = 0; k < B; ++k)
        data[k] = !PerReceiver              ? shared[k]
                  : p0 + k * stride < pairs ? pair_at(src + (size_t)r * nbytes, p0 + k * stride)
                                            : 0ull;
      wide16* const ring = reinterpret_cast<wide16*>(s.peer_base[team_member_pe(d, r)] + ring_offset);
#pragma unroll
      for (unsigned k = 0; k < B; ++k) {
        const unsigned p = p0 + k * stride;
        if (p < pairs)
          atomic_store16<memory_order::relaxed, thread_scope::system, compiler_order::movable>(
              ring + (first_line / 2 + p), ll_pair_of(data[k], flag));
      }
    }
#pragma unroll
    for (unsigned k = 0; k < B; ++k) {
      const unsigned p = p0 + k * stride;
      if (p < pairs) own(p, PerReceiver ? pair_at(src + (size_t)me * nbytes, p) : shared[k]);
    }
  }
}

// ll_send_pairs, one thread loading whole 8-byte pairs where the source
// allows (no byte path between its loads: with the 4-element fold, a
// one-thread int64 sum of 1 KiB 40.7 -> 24.1 us, 2 x H200).
template <bool PerReceiver, class Group, class Own>
GSHMEM_DEVICE void ll_send(Group& g, int slot, const team_desc& d, const unsigned char* src, size_t nbytes,
                           unsigned first_line, unsigned flag, Own&& own) {
  if (group_is_one_thread<Group> && ll_whole_pairs(src, nbytes))
    ll_send_pairs<PerReceiver, true>(g, slot, d, src, nbytes, first_line, flag, own);
  else
    ll_send_pairs<PerReceiver, false>(g, slot, d, src, nbytes, first_line, flag, own);
}

// Polls the pair of lines at `line` (even) with ll_receive, one line after
// the other, and returns its payload (line's data in the low half).
GSHMEM_DEVICE unsigned long long ll_poll_pair(const unsigned long long* line, unsigned flag, int slot, int peer,
                                              const char* routine) {
  const unsigned lo = ll_receive(line, flag, slot, peer, routine);
  const unsigned hi = ll_receive(line + 1, flag, slot, peer, routine);
  return (unsigned long long)hi << 32 | lo;
}

// How many times a receiver loads a batch's missing pairs together before it
// polls the first of them line by line with ll_receive (its diagnostics: a
// member whose call differs, a member on the other path, a lost peer, the
// GSHMEM_WAIT_TIMEOUT watchdog). A pass is a round trip to this PE's memory
// (0.24 us to memory a peer wrote, 2 x H200), so 256 passes are about 60 us:
// a late sender on the normal path is taken by the passes, and a call that
// never completes reaches ll_receive's reports that much later.
constexpr unsigned kLLBatchPasses = 256;

// Receives `count` pairs of this PE's ring through the group (index j =
// rank, rank + size, ...): line_of(j) gives the first (even) line of pair j
// in the ring and peer_of(j) its sender; take(j, payload) gets each 8-byte
// payload. B 16-byte loads are in flight per thread (they issue together);
// a pair whose two flags match is taken at once. The pairs still missing
// are loaded again together, pass after pass, each pass one round trip,
// until all are in: the sender posts a batch's stores back to back, so a
// receiver that runs ahead of its sender takes each batch a round trip after
// it lands. (Polling the first missing pair line by line and then loading
// the others one after the other cost B + 1 round trips a late batch, and
// 2B before that.) After kLLBatchPasses passes the first missing pair is
// polled by ll_receive, with its diagnostics. One load and one take a pair
// in the loop: the pairs already taken are not loaded again, and nothing of
// a pass is held into the next.
template <unsigned B, class Group, class LineOf, class PeerOf, class Take>
GSHMEM_DEVICE void ll_receive_pairs(Group& g, const unsigned long long* ring, unsigned count, unsigned flag,
                                    int slot, const char* routine, LineOf&& line_of, PeerOf&& peer_of, Take&& take) {
  static_assert(B <= 32, "a bit of `missing` a pair of the batch");
  const unsigned stride = g.size();
  for (unsigned j0 = g.rank(); j0 < count; j0 += stride * B) {
    unsigned missing = 0;  // the pairs still missing
#pragma unroll
    for (unsigned k = 0; k < B; ++k)
      if (j0 + k * stride < count) missing |= 1u << k;
    for (unsigned pass = 1;; ++pass) {
      // A copy of j0 the compiler cannot see through: what a pass computes
      // from it (addresses to load and to take into) is computed again each
      // pass instead of held in registers through the passes (a warp
      // broadcast's user kernel: 96 registers, 64 with the copy).
      unsigned jp = j0;
      asm volatile("" : "+r"(jp));
      wide16 w[B];
      // One thread: its batch is B consecutive pairs (every caller's line_of
      // is first + 2j there), addressed from one pointer, so the batch's
      // addresses take no registers of their own.
#pragma unroll
      for (unsigned k = 0; k < B; ++k) {
        const wide16* const at = group_is_one_thread<Group>
                                     ? reinterpret_cast<const wide16*>(ring + line_of(jp)) + k
                                     : reinterpret_cast<const wide16*>(ring + line_of(jp + k * stride));
        w[k] = missing >> k & 1u ? atomic_load16<memory_order::relaxed, thread_scope::system, compiler_order::movable>(at)
                                 : wide16{0, 0};
      }
#pragma unroll
      for (unsigned k = 0; k < B; ++k) {
        if ((missing >> k & 1u) && ll_pair_has(w[k], flag)) {
          take(jp + k * stride, ll_pair_data(w[k]));
          missing &= ~(1u << k);
        }
      }
      if (missing == 0) break;
      if (pass % kLLBatchPasses == 0) {
        const unsigned j = j0 + ((unsigned)__ffs(missing) - 1) * stride;
        take(j, ll_poll_pair(ring + line_of(j), flag, slot, peer_of(j), routine));
        missing &= missing - 1;
        if (missing == 0) break;
      }
    }
  }
}

// The LL form of broadcast (kind ll_broadcast: the root's nbytes at source
// to every member's dest), fcollect (ll_fcollect: every member's nbytes at
// source to block r of every member's dest) and alltoall (ll_alltoall:
// block r of member k's source to block k of member r's dest), by every
// member of `g`, between the validation of team_collectives.h and return.
// Every member mapped (no remote peer in the job). Senders push (ll_send);
// receivers poll only their own ring.
template <unsigned Kind, class Group>
GSHMEM_DEVICE int team_ll_collective(Group& g, int slot, const team_desc& d, void* dest, const void* source,
                                     size_t nbytes, int root, unsigned sig, const char* routine) {
  const gshmemi_device_state_t& s = gshmemi_state();
  const unsigned per_block = (unsigned)ll_lines(nbytes);  // line indices: 32 bits (below kLLRingLines)
  unsigned flag = 0;
  const unsigned start = (unsigned)ll_begin(g, slot, d, ll_call_lines(Kind, nbytes, d.size), sig, &flag, routine);
  const unsigned char* const src = static_cast<const unsigned char*>(source);
  unsigned char* const dst = static_cast<unsigned char*>(dest);
  const int me = d.my_rank;
  // Send: each block this member sends; this member's own block is copied
  // locally through the same packing.
  if (Kind != ll_broadcast || me == root) {
    const unsigned first = Kind == ll_broadcast ? start : start + (unsigned)me * per_block;
    auto own = [&](unsigned p, unsigned long long own_data) {
      if (Kind != ll_broadcast)
        ll_unpack_pair(dst + (size_t)me * nbytes, nbytes, p, own_data);
      else if (dst != src)
        ll_unpack_pair(dst, nbytes, p, own_data);
    };
    ll_send<Kind == ll_alltoall>(g, slot, d, src, nbytes, first, flag, own);
  }
  // Receive: every other member's block (broadcast: the root's), pair by
  // pair, a batch in flight per thread (ll_receive_pairs).
  const unsigned long long* const ring = ll_ring_at(s.heap_base, slot);
  const unsigned block_pairs = per_block / 2;
  // One block's contiguous lines from one sender, into `block` of dest.
  auto receive_block = [&](unsigned first, int pe, unsigned char* block) {
    auto line_of = [&](unsigned j) { return first + 2 * j; };
    auto peer_of = [&](unsigned) { return pe; };
    if (group_is_one_thread<Group> && ll_whole_pairs(block, nbytes))
      ll_receive_pairs<kLLOneThreadWholeBatch>(
          g, ring, block_pairs, flag, slot, routine, line_of, peer_of,
          [&](unsigned j, unsigned long long v) { reinterpret_cast<unsigned long long*>(block)[j] = v; });
    else
      ll_receive_pairs<kLLReceiveBatch<Group>>(g, ring, block_pairs, flag, slot, routine, line_of, peer_of,
                                               [&](unsigned j, unsigned long long v) {
                                                 ll_unpack_pair(block, nbytes, j, v);
                                               });
  };
  if (Kind == ll_broadcast) {
    if (me != root) receive_block(start, team_member_pe(d, root), dst);
  } else if constexpr (group_is_one_thread<Group>) {
    // One thread: the other members' blocks one after another, each as a
    // broadcast's (contiguous lines from one sender): a single index over
    // all of them held the receive batch's addresses and senders apart and
    // took a user kernel to 72 registers.
    for (int k = 1; k < d.size; ++k) {
      const int r = me + k < d.size ? me + k : me + k - d.size;
      receive_block(start + (unsigned)r * per_block, team_member_pe(d, r), dst + (size_t)r * nbytes);
    }
  } else {
    // Index j over the other members' pairs, shared out over the group:
    // this member's own block is skipped (blocks are whole pairs). One
    // call's pairs are fewer than kLLRingLines, so 32-bit arithmetic: the
    // 64-bit division took a user kernel holding a block fcollect of
    // run-time size to 72 registers (a warp's fcollectmem 75; now 64, 59).
    const unsigned bp = block_pairs, own = (unsigned)me * bp;
    auto pair = [&](unsigned j) { return j < own ? j : j + bp; };
    ll_receive_pairs<kLLReceiveBatch<Group>>(
        g, ring, block_pairs * (unsigned)(d.size - 1), flag, slot, routine,
        [&](unsigned j) { return start + 2 * pair(j); },
        [&](unsigned j) { return team_member_pe(d, (int)(pair(j) / bp)); },
        [&](unsigned j, unsigned long long v) {
          const unsigned q = pair(j);
          ll_unpack_pair(dst + (size_t)(q / bp) * nbytes, nbytes, q % bp, v);
        });
  }
  g.sync();  // dest complete for the whole group (4.)
  return 0;
}

#endif  // __CUDACC__

}  // namespace detail
}  // namespace gshmem
