// Teams and the device barrier: where their state lives, the descriptor
// arithmetic, and ONE synchronization algorithm for every execution group
// (one thread, a warp, a block; the groups of <gshmem/detail/sync_group.h>).
// The public names are in <gshmem/update.h> (barrier_all, sync_all),
// <gshmem/update_ext.h> (their thread/warp/block forms) and <gshmem/team.h>.
//
// State, in the runtime's internal sync area of every PE's heap
// (GSHMEMI_INTERNAL_SYNC_OFFSET), zeroed at init:
//   team_area[slot]   one per team slot, kTeamAreaBytes apart. Slot 0 is the
//                     world team: its barrier is the device barrier_all /
//                     sync_all. A team's handle is its slot, the same on
//                     every member (team creation agrees on it).
//   team table        GSHMEMI_MAX_TEAMS descriptors {start, stride, size,
//                     my_rank} after the areas, written by the host runtime
//                     (host/team.cpp) when a team is created or destroyed and
//                     read by device code with plain loads. A kernel sees the
//                     descriptors of the teams that existed when it was
//                     launched. size 0 marks a free slot.
//   The world team's descriptor is computed from the published state, so the
//   device barrier never reads the table.
// And in the runtime scratch area (GSHMEMI_INTERNAL_SCRATCH_OFFSET):
//   team scratch[slot] one per team slot, kTeamScratchBytes apart: the LL
//                     collectives' receive ring, which members write
//                     (<gshmem/detail/team_ll.h>), or where a reduction over
//                     a team with remote members gathers their sources chunk
//                     by chunk (<gshmem/detail/team_collectives.h>). Each
//                     mapped peer writes zeros over all of it once, during
//                     init (src/runtime.cpp, warm_peer_paths); after that
//                     only the LL ring's own zeroing, and every other use
//                     writes before it reads.
// And in the push area (GSHMEMI_INTERNAL_PUSH_OFFSET):
//   team push[slot]    one per team slot, kTeamPushBytes apart: where the
//                     members of a small reduction store their sources
//                     (team_push_at).
//
// The algorithm (sync_team): each member keeps an epoch per team, bumped by
// every sync it enters. Member i announces epoch e to each other member j in
// arrived[i] of j's team area, after a release fence at system scope (for a
// barrier, fence.sc.sys, which completes the caller's earlier updates): a
// collective's entry sync stores announcement(e, signature) there; a plain
// sync or barrier adds one epoch to the word (red.add, over P2P), which
// takes it from e - 1 to e with the last signature kept below. It then
// waits until arrived[j] >= announcement(e, 0) in its own area for every
// other member j (relaxed polls, then an acquire fence). Its own slot is
// never written or read (a one-member team passes at once).
// Epochs only grow (44 bits: at one sync a microsecond, half a year), so a
// fast member that already announced the next epoch cannot be missed and
// nothing is ever reset while the team exists. The low 20 bits of an
// announcement carry the call's signature (collective_signature: which
// collective, its root, its size; 0 for a plain sync or barrier): a
// collective's entry sync compares the signature a member announced for the
// same epoch with its own, and a difference is reported and traps (members
// that pass different arguments). The first member to pass an epoch sees
// every other member's announcement of exactly that epoch (no member passes
// before it), so of two members that disagree, at least one finds out. The group's members share the
// announcements and the polls: member r of a group of g handles team ranks
// r, r + g, ...; the group synchronizes before (its earlier stores precede
// the announcements: bar.sync / bar.warp.sync order memory among their
// participants, and the release is cumulative) and after (every member then
// has the acquire of every poll).
//
// One caller per team and PE at a time: a sync (or barrier, or collective)
// on a team must not run concurrently with another on the same team on the
// same PE: not from two blocks of one kernel, not from two streams. The
// members' calls must also come in the same order (the OpenSHMEM rule for
// collectives). Several blocks calling at once share one epoch counter and
// may pass early or hang; that is undefined, as in NVSHMEM.
#pragma once

#include <gshmem/detail/config.h>
#include <gshmem/detail/device_report.h>
#include <gshmem/detail/ordering.h>
#include <gshmem/detail/remote.h>
#include <gshmem/detail/state.h>
#include <gshmem/detail/sync_core.h>
#include <gshmem/detail/sync_group.h>
#include <gshmem/types.h>

#include <stddef.h>
#include <stdint.h>

// Most teams that can exist at once on a PE, the predefined ones included
// (public name: GSHMEMX_MAX_TEAMS in <gshmem/team.h>).
#define GSHMEMI_MAX_TEAMS 64

// The predefined teams' handles, numbered as NVSHMEM numbers them (public
// names in <gshmem/team.h>). They hold slots 0 .. GSHMEMI_PREDEFINED_TEAMS - 1
// of every PE from init to finalize; teams made by a split take the slots
// after them.
#define GSHMEMI_TEAM_WORLD 0
#define GSHMEMI_TEAM_SHARED 1
#define GSHMEMI_TEAM_NODE 2
#define GSHMEMI_TEAM_SAME_MYPE_NODE 3
#define GSHMEMI_PREDEFINED_TEAMS 4

namespace gshmem {
namespace detail {

// A team's barrier state on one PE. arrived[j]: the last epoch team member j
// announced here. epoch: how many syncs this PE entered on this team.
struct barrier_area {
  unsigned long long arrived[GSHMEMI_MAX_PES];
  unsigned long long pad[15];  // keep the local counter off the polled lines
  unsigned long long epoch;
};

constexpr unsigned kTeamAreaBytes = 2048;
constexpr unsigned kTeamStagingBytes = 768;

struct team_area {
  barrier_area barrier;
  // Team creation over this (parent) team: each member's free-slot mask,
  // read by the other members between two syncs (host/team.cpp).
  unsigned long long agreement;
  // The LL ring's state (local; <gshmem/detail/team_ll.h>): the next free
  // line of this PE's ring and the ring's cycle (0: contents unknown).
  unsigned long long ll_pos;
  unsigned long long ll_cycle;
  unsigned long long pad2[5];
  // Local only (never read by peers): results of an in-place reduction wait
  // here until every member has read the chunk they replace.
  alignas(16) unsigned char staging[kTeamStagingBytes];
};

// Team ranks are world PEs start, start + stride, ..., start + (size-1)*stride.
// my_rank: this PE's rank (a PE that is not a member holds no descriptor).
struct team_desc {
  int start;
  int stride;
  int size;  // 0: free slot
  int my_rank;
};

constexpr unsigned kTeamTableOffset = GSHMEMI_MAX_TEAMS * kTeamAreaBytes;  // inside the sync area
static_assert(sizeof(team_area) <= kTeamAreaBytes, "team state exceeds its area");
static_assert(kTeamTableOffset + GSHMEMI_MAX_TEAMS * sizeof(team_desc) <= GSHMEMI_INTERNAL_SYNC_BYTES,
              "team areas and table exceed the internal sync area");
static_assert(GSHMEMI_MAX_TEAMS <= 64, "team creation agrees on a slot with one 64-bit mask");
static_assert(GSHMEMI_PREDEFINED_TEAMS < GSHMEMI_MAX_TEAMS, "no slot left for split teams");

// The team scratch: 32 KiB per slot.
constexpr unsigned kTeamScratchBytes = GSHMEMI_INTERNAL_SCRATCH_BYTES / GSHMEMI_MAX_TEAMS;
static_assert(kTeamScratchBytes >= 32768, "team scratch below 32 KiB a slot");

GSHMEM_HD char* team_scratch_at(char* heap, int slot) {
  return heap + GSHMEMI_INTERNAL_SCRATCH_OFFSET + (size_t)slot * kTeamScratchBytes;
}

// The push area (GSHMEMI_INTERNAL_PUSH_OFFSET): 24 KiB per slot, where the
// members of a reduction store their sources on every other member
// (team_reduce's push form, <gshmem/detail/team_collectives.h>). A member
// of team rank s writes on the member of rank r the part
// team_push_part(s, r, size), team_push_part_bytes(size) long; no slot is
// kept for a member's own source. Never zeroed: every use writes before it
// reads.
constexpr unsigned kTeamPushBytes = GSHMEMI_INTERNAL_PUSH_BYTES / GSHMEMI_MAX_TEAMS;
static_assert(kTeamPushBytes >= 24576 && kTeamPushBytes % 16 == 0, "push area below 24 KiB a slot");

GSHMEM_HD char* team_push_at(char* heap, int slot) {
  return heap + GSHMEMI_INTERNAL_PUSH_OFFSET + (size_t)slot * kTeamPushBytes;
}
// Bytes of one sender's part on a member of a team of `members` (a
// multiple of 16; 0 for a team of one, which pushes nothing).
GSHMEM_HD_CONSTEXPR unsigned long long team_push_part_bytes(int members) {
  return members <= 1 ? 0 : (unsigned long long)(kTeamPushBytes / (unsigned)(members - 1)) / 16u * 16u;
}
// Which part of receiver `receiver`'s push area sender `sender` writes (the
// ranks after the receiver first): 0 .. members - 2. (A compare, no
// division: the reduction's loop computes it for every unit and member.)
GSHMEM_HD_CONSTEXPR int team_push_part(int sender, int receiver, int members) {
  return sender > receiver ? sender - receiver - 1 : sender - receiver - 1 + members;
}

GSHMEM_HD team_area* team_area_at(char* heap, int slot) {
  return reinterpret_cast<team_area*>(heap + GSHMEMI_INTERNAL_SYNC_OFFSET + (size_t)slot * kTeamAreaBytes);
}
GSHMEM_HD barrier_area* barrier_area_at(char* heap) { return &team_area_at(heap, 0)->barrier; }
GSHMEM_HD team_desc* team_table_at(char* heap) {
  return reinterpret_cast<team_desc*>(heap + GSHMEMI_INTERNAL_SYNC_OFFSET + kTeamTableOffset);
}

// ------------------------------------------------ descriptor arithmetic
// Pure functions (host and device; the CPU tests check them).

GSHMEM_HD_CONSTEXPR team_desc world_team_desc(int my_pe, int n_pes) { return team_desc{0, 1, n_pes, my_pe}; }

// The descriptor of predefined team `team` on world PE my_pe of n_pes; size
// 0 for any other handle. Every PE of a gshmem job is on one node and maps
// every other PE's memory, so the shared-memory team and the node team have
// the world's members, and the team of the PEs with this PE's node-local
// rank (one per node) is this PE alone.
GSHMEM_HD_CONSTEXPR team_desc predefined_team_desc(int team, int my_pe, int n_pes) {
  return team == GSHMEMI_TEAM_WORLD || team == GSHMEMI_TEAM_SHARED || team == GSHMEMI_TEAM_NODE
             ? world_team_desc(my_pe, n_pes)
         : team == GSHMEMI_TEAM_SAME_MYPE_NODE ? team_desc{my_pe, 1, 1, 0}
                                               : team_desc{0, 0, 0, -1};
}

// The world PE of team rank `rank` (no range check).
GSHMEM_HD_CONSTEXPR int team_member_pe(const team_desc& t, int rank) { return t.start + rank * t.stride; }

// The team rank of world PE `pe`, or -1 if it is not a member.
GSHMEM_HD_CONSTEXPR int team_rank_of(const team_desc& t, int pe) {
  return (t.size <= 0 || t.stride <= 0 || pe < t.start || (pe - t.start) % t.stride != 0 ||
          (pe - t.start) / t.stride >= t.size)
             ? -1
             : (pe - t.start) / t.stride;
}

// Rank `src_rank` of team `from` as a rank of team `to`; -1 if src_rank is
// out of range or that PE is not a member of `to`.
GSHMEM_HD_CONSTEXPR int team_translate(const team_desc& from, int src_rank, const team_desc& to) {
  return (src_rank < 0 || src_rank >= from.size) ? -1 : team_rank_of(to, team_member_pe(from, src_rank));
}

// Why split_strided(parent, start, stride, size) is invalid, or nullptr.
// Ranks are the parent's: the new team is parent ranks start, start+stride,
// ..., all of which must exist.
GSHMEM_HD_CONSTEXPR const char* split_strided_problem(const team_desc& parent, int start, int stride, int size) {
  return size <= 0                                 ? "size must be at least 1"
         : stride < 1                              ? "stride must be at least 1"
         : start < 0 || start >= parent.size       ? "start is not a rank of the parent team"
         : (long long)start + (long long)(size - 1) * stride >= parent.size
             ? "start + (size - 1) * stride is beyond the parent team's last rank"
             : nullptr;
}

// The descriptor of split_strided(parent, start, stride, size) on world PE
// `my_pe` (arguments valid); my_rank -1 when my_pe is not in the new team.
GSHMEM_HD_CONSTEXPR team_desc split_strided_desc(const team_desc& parent, int start, int stride, int size,
                                                 int my_pe) {
  return team_desc{team_member_pe(parent, start), parent.stride * stride, size,
                   team_rank_of(team_desc{team_member_pe(parent, start), parent.stride * stride, size, -1}, my_pe)};
}

// team_split_2d (OpenSHMEM 1.5 shmem_team_split_2d) seen from the parent's
// rank `rank` of a parent of `n` members: the parent's ranks as a grid of
// rows of xrange (the last row shorter where xrange does not divide n; an
// xrange beyond n is n, one row). The x-axis team is the row of `rank`
// (consecutive ranks x_start .. x_start + x_size - 1), the y-axis team its
// column (ranks y_start + k y_stride, k < y_size). xrange >= 1, 0 <= rank < n.
struct split_2d_shape {
  int x_start, x_size, y_start, y_stride, y_size;
};
GSHMEM_HD_CONSTEXPR split_2d_shape split_2d_of(int n, int xrange, int rank) {
  const int x = xrange < n ? xrange : n;
  const int col = rank % x, row_start = rank - col;
  const int row_size = n - row_start < x ? n - row_start : x;
  return split_2d_shape{row_start, row_size, col, x, (n - col + x - 1) / x};
}

// ------------------------------------------------ call signatures
// What a collective's entry sync announces beside its epoch (see the top of
// this file): 20 bits, never 0 for a collective,
//   bits 19..15  the collective (collective_kind; reductions and
//                reducescatters add their operator's code, reduce_*::kCode)
//   bits 14..8   the root, mod 128 (0 where the collective has none)
//   bits 7..0    the size in bytes, its eight bytes xor-folded into one
// Two calls whose signatures differ passed different arguments; equal
// signatures can still hide a root difference of a multiple of 128, or a
// size difference that folds to the same byte (one in 256 of arbitrary
// pairs; a difference inside one byte of the size always shows).
constexpr unsigned kSignatureBits = 20;
constexpr unsigned long long kSignatureMask = (1ull << kSignatureBits) - 1;

enum collective_kind : unsigned {
  collective_broadcast = 1,
  collective_alltoall = 2,
  collective_fcollect = 3,
  collective_ll_wrap = 4,         // the LL ring's wrap sync (team_ll.h): a member on the LL path
  collective_reduce = 8,          // + the operator's code (0 .. 7)
  collective_reducescatter = 16,  // + the operator's code
};

GSHMEM_HD_CONSTEXPR unsigned fold_size(unsigned long long bytes) {
  return (unsigned)((bytes ^ bytes >> 8 ^ bytes >> 16 ^ bytes >> 24 ^ bytes >> 32 ^ bytes >> 40 ^ bytes >> 48 ^
                     bytes >> 56) & 0xffu);
}
GSHMEM_HD_CONSTEXPR unsigned collective_signature(unsigned kind, int root, unsigned long long bytes) {
  return (kind & 31u) << 15 | ((unsigned)root & 127u) << 8 | fold_size(bytes);
}
GSHMEM_HD_CONSTEXPR unsigned signature_kind(unsigned sig) { return sig >> 15 & 31u; }
GSHMEM_HD_CONSTEXPR unsigned signature_root(unsigned sig) { return sig >> 8 & 127u; }
GSHMEM_HD_CONSTEXPR unsigned signature_size(unsigned sig) { return sig & 255u; }

// What a member announces for epoch `epoch` with signature `sig`.
GSHMEM_HD_CONSTEXPR unsigned long long announcement(unsigned long long epoch, unsigned sig) {
  return epoch << kSignatureBits | sig;
}
GSHMEM_HD_CONSTEXPR unsigned long long announced_epoch(unsigned long long a) { return a >> kSignatureBits; }
GSHMEM_HD_CONSTEXPR unsigned announced_signature(unsigned long long a) { return (unsigned)(a & kSignatureMask); }

// The collective of a signature's kind, as the reports name it.
GSHMEM_HD_CONSTEXPR const char* collective_kind_name(unsigned kind) {
  return kind == collective_broadcast                                             ? "broadcast"
         : kind == collective_alltoall                                            ? "alltoall"
         : kind == collective_fcollect                                            ? "fcollect"
         : kind == collective_ll_wrap                                             ? "a collective on the LL path"
         : kind >= collective_reduce && kind < collective_reduce + 8              ? "reduction"
         : kind >= collective_reducescatter && kind < collective_reducescatter + 8 ? "reducescatter"
                                                                                   : "collective";
}

// Which argument two different signatures disagree on (the first that
// differs of: the collective, the root, the size); nullptr when equal.
GSHMEM_HD_CONSTEXPR const char* signature_difference(unsigned mine, unsigned theirs) {
  return mine == theirs                                        ? nullptr
         : signature_kind(mine) != signature_kind(theirs)      ? "a different collective or reduction operator"
         : signature_root(mine) != signature_root(theirs)      ? "a different root"
                                                               : "a different size";
}

// The lowest slot set in `mask`, or -1.
GSHMEM_HD_CONSTEXPR int lowest_slot(unsigned long long mask) {
  int slot = 0;
  while (slot < 64 && !(mask >> slot & 1ull)) ++slot;
  return slot < 64 ? slot : -1;
}

// ------------------------------------------------ teams from a unique id
// (gshmemx_team_get_uniqueid / gshmemx_team_init, host/team.cpp). The id
// names its creator and a number the creator never gave before:
//   bits 63..48  kUniqueidTag (an id of nobody, e.g. 0 or a random number,
//                fails the check below with a clear message)
//   bits 47..32  the creator's world PE
//   bits 31..0   the creator's count of ids made, from 1
// Ids are therefore distinct across the job (two creators differ in the PE,
// one creator's in the count) without any communication at creation.
constexpr unsigned long long kUniqueidTag = 0x6753ull;  // "gS"

GSHMEM_HD_CONSTEXPR unsigned long long make_team_uniqueid(int creator, unsigned count) {
  return kUniqueidTag << 48 | (unsigned long long)(creator & 0xffff) << 32 | count;
}
GSHMEM_HD_CONSTEXPR int uniqueid_creator(unsigned long long id) { return (int)(id >> 32 & 0xffff); }
GSHMEM_HD_CONSTEXPR unsigned uniqueid_count(unsigned long long id) { return (unsigned)(id & 0xffffffffull); }

// Why `id` cannot be an id of this job of n_pes PEs, or nullptr. (Whether
// the creator really made it is checked against the creator's count, on
// the device: uniqueid_record::issued.)
GSHMEM_HD_CONSTEXPR const char* uniqueid_problem(unsigned long long id, int n_pes) {
  return id == 0 ? "it is 0, no id (a NULL config or an unset uniqueid)"
         : id >> 48 != kUniqueidTag ? "it was not made by gshmemx_team_get_uniqueid (wrong tag)"
         : uniqueid_creator(id) >= n_pes ? "its creator PE is not a PE of this job"
         : uniqueid_count(id) == 0       ? "its count is 0, which no creator gives"
                                         : nullptr;
}

// Why team_init(npes, index) is invalid in a job of n_pes PEs, or nullptr.
GSHMEM_HD_CONSTEXPR const char* team_init_problem(int npes, int index, int n_pes) {
  return npes < 1                        ? "npes must be at least 1"
         : npes > n_pes                  ? "npes is larger than the number of PEs of the job"
         : index < 0 || index >= npes    ? "pe_idx_in_team must be in 0 .. npes - 1"
                                         : nullptr;
}

// The descriptor of the team whose rank k is world PE members[k], k < n,
// seen from world PE my_pe; false (out untouched) when the members are not
// evenly spaced in rank order (start + k stride, stride >= 1): gshmem's team
// descriptors are strided.
GSHMEM_HD_CONSTEXPR bool desc_of_members(const int* members, int n, int my_pe, team_desc* out) {
  if (n < 1 || members[0] < 0) return false;
  const int stride = n > 1 ? members[1] - members[0] : 1;
  if (stride < 1) return false;
  for (int k = 1; k < n; ++k)
    if (members[k] != members[0] + k * stride) return false;
  const team_desc d{members[0], stride, n, -1};
  *out = team_desc{d.start, d.stride, d.size, team_rank_of(d, my_pe)};
  return true;
}

// Each PE's record of the team creation from a unique id it takes part in
// (at most one at a time: creation holds the host's team lock), after the
// team table in the internal sync area. Fields are written before `id` (a
// release store); a reader that sees its id there reads them after an
// acquire. `done`: this PE read every member's record (phase 2, see
// device/team_kernels.cu). `issued`: how many ids this PE made (the
// creator's side; written by its host before it hands an id out).
struct uniqueid_record {
  unsigned long long id;  // 0: no creation in progress
  int index;
  int npes;
  unsigned long long free_mask;
  unsigned long long done;
  unsigned long long issued;
};
constexpr unsigned kUniqueidRecordOffset = kTeamTableOffset + GSHMEMI_MAX_TEAMS * sizeof(team_desc);
static_assert(kUniqueidRecordOffset % 64 == 0, "the unique-id record starts a cache line");
static_assert(kUniqueidRecordOffset + sizeof(uniqueid_record) <= GSHMEMI_INTERNAL_SYNC_BYTES,
              "the unique-id record exceeds the internal sync area");
GSHMEM_HD uniqueid_record* uniqueid_record_at(char* heap) {
  return reinterpret_cast<uniqueid_record*>(heap + GSHMEMI_INTERNAL_SYNC_OFFSET + kUniqueidRecordOffset);
}

#if defined(__CUDACC__)

// The slow path of a team wait (its caller runs it once per 1024 polls of
// word p, waiting on `peer` since `start`): ends the wait when the runtime
// found a peer's process gone, and, with a timeout (GSHMEM_WAIT_TIMEOUT),
// when the wait lasted longer; one diagnostic with what was expected and
// what was seen, as the caller words them, then a trap.
GSHMEM_DEVICE void team_wait_watchdog(const void* p, int peer, unsigned long long start, unsigned long long timeout,
                                      unsigned long long expected, unsigned long long seen, const char* routine) {
#if GSHMEM_IN_DEVICE_CODE
  const int lost = peer_lost_word() - 1;
  if (lost >= 0) {
    device_failure f;
    f.kind = GSHMEMI_FAIL_TEAM_PEER_LOST;
    f.i0 = lost;
    f.i1 = peer;
    f.u0 = (unsigned long long)p;
    fail_device(routine, f);
  }
  if (timeout && now_ns() - start > timeout) {
    device_failure f;
    f.kind = GSHMEMI_FAIL_TEAM_TIMEOUT;
    f.i1 = peer;
    f.u0 = (unsigned long long)p;
    f.u3 = expected;
    f.u4 = seen;
    fail_device(routine, f);
  }
#else
  (void)p, (void)peer, (void)start, (void)timeout, (void)expected, (void)seen, (void)routine;
#endif
}

// Polls a team announcement word until `*p >= target` with relaxed loads at
// system scope, then an acquire fence (with the announcer's release fence,
// the acquire pattern; fence.acquire is the L1 invalidation alone, where an
// acquire load repeats it on every poll); returns what it read last. Its
// slow path is team_wait_watchdog, with epochs (not raw announcements) in
// its diagnostic.
GSHMEM_DEVICE unsigned long long wait_at_least(const unsigned long long* p, unsigned long long target, int peer,
                                               const char* routine) {
  const unsigned long long timeout = gshmemi_state().wait_timeout_ns;
  const unsigned long long start = timeout ? now_ns() : 0;
  unsigned polls = 0;
  unsigned long long seen;
  while ((seen = atomic_load<memory_order::relaxed, thread_scope::system>(p)) < target) {
    if ((++polls & 1023u) != 0) continue;
    team_wait_watchdog(p, peer, start, timeout, announced_epoch(target), announced_epoch(seen), routine);
  }
  atomic_fence<memory_order::acquire, thread_scope::system>();
  return seen;
}

// The descriptor of `team` as this PE sees it; false for an invalid handle
// (out of range, a free slot, or before init).
GSHMEM_DEVICE bool device_team(int team, team_desc* out) {
  const gshmemi_device_state_t& s = gshmemi_state();
  if (team < 0 || team >= GSHMEMI_MAX_TEAMS || s.heap_base == nullptr) return false;
  if (team == GSHMEMI_TEAM_WORLD) {
    *out = world_team_desc(s.my_pe, s.n_pes);
    return true;
  }
  const team_desc d = team_table_at(s.heap_base)[team];
  if (d.size <= 0 || d.my_rank < 0) return false;
  *out = d;
  return true;
}

// Whether a member of the team is remote (this PE does not map its heap).
// One constant load on a job without remote peers.
GSHMEM_DEVICE bool team_has_remote_member(const team_desc& d) {
  if (!remote_enabled()) return false;
  const gshmemi_device_state_t& s = gshmemi_state();
  for (int r = 0; r < d.size; ++r)
    if (s.peer_base[team_member_pe(d, r)] == nullptr) return true;
  return false;
}

// One diagnostic line (from the group's leader) for an invalid team handle.
template <class Group>
GSHMEM_DEVICE void report_invalid_team(Group& g, int team, const char* routine) {
  if (g.is_leader()) {
    device_failure f;
    f.kind = GSHMEMI_FAIL_INVALID_TEAM;
    f.i0 = team;
    report_device_failure(routine, f);
  }
}

// A member's announcement for the same epoch carried another signature than
// this member's collective: one diagnostic naming both, and a trap (the
// members' data would not match; every later collective on the team could
// pair the wrong calls).
GSHMEM_DEVICE void report_signature_mismatch(int slot, int peer, unsigned mine, unsigned theirs,
                                             unsigned long long epoch, const char* routine) {
  device_failure f;
  f.kind = GSHMEMI_FAIL_COLLECTIVE_MISMATCH;
  f.i0 = peer;
  f.i1 = slot;
  f.u0 = mine;
  f.u1 = theirs;
  f.u2 = epoch;
  fail_device(routine, f);
}

// The fence before a group's announcements: one per announcing member,
// then relaxed stores or adds. A barrier's fence.sc.sys; a sync's release
// fence (fence.release.sys where the toolkit has it, ordering.h). A release
// fence followed by strong stores releases what precedes it as release
// stores would, but pays the system-scope fence once for all of this
// member's announcements instead of once per store (a one-thread sync of two
// PEs: 3.9 us with two release stores, NVIDIA's sync_latency).
template <bool WithQuiet, class Group>
GSHMEM_DEVICE void fence_before_announcing(Group& g, const team_desc& team) {
  if ((int)g.rank() < team.size) {
    if constexpr (WithQuiet) atomic_fence<memory_order::seq_cst, thread_scope::system>();
    else atomic_fence<memory_order::release, thread_scope::system>();
  }
}

// The group's next epoch on the team of `mine`, on every member (only this
// group touches the counter: one caller per team and PE).
template <class Group>
GSHMEM_DEVICE unsigned long long bump_epoch(Group& g, barrier_area* mine) {
  unsigned long long next = 0;
  if (g.is_leader()) {
    next = atomic_load<memory_order::relaxed, thread_scope::device>(&mine->epoch) + 1;
    atomic_store<memory_order::relaxed, thread_scope::device>(&mine->epoch, next);
  }
  return g.broadcast(next);
}

// The waiting half of a sync: every other member's announcement of `epoch`
// (or later), then the group syncs. With a collective's `signature`, a
// member whose announcement of the same epoch carries another one is
// reported (report_signature_mismatch).
template <class Group>
GSHMEM_DEVICE void await_members(Group& g, barrier_area* mine, int slot, const team_desc& team,
                                 unsigned long long epoch, unsigned signature, const char* routine) {
  const unsigned long long awaited = announcement(epoch, 0);
  for (int r = (int)g.rank(); r < team.size; r += (int)g.size()) {
    if (r == team.my_rank) continue;
    const unsigned long long seen = wait_at_least(&mine->arrived[r], awaited, team_member_pe(team, r), routine);
    // A member already at a later epoch passed this one, after it checked
    // this member's announcement. A plain sync checks nothing; its adds
    // (sync_team_plain) leave the member's last signature below the epoch,
    // so a collective that meets a plain sync of the same epoch reports the
    // difference (unless that signature happens to be its own).
    const unsigned theirs = announced_signature(seen);
    if (signature != 0 && theirs != 0 && theirs != signature && announced_epoch(seen) == epoch)
      report_signature_mismatch(slot, team_member_pe(team, r), signature, theirs, epoch, routine);
  }
  g.sync();
}

// The synchronization described at the top of this file, on the team of
// `slot` whose descriptor is `team`, by every member of `g`, announcing with
// stores: a collective's syncs.
// WithQuiet (barrier): every announcing member executes fence.sc.sys first,
// completing the group's earlier updates to all PEs; without (sync): a
// release fence before relaxed announcements, which makes every store the
// group made before the call visible to a member that passes, as release
// stores would. `signature`: a collective's entry sync passes its
// collective_signature, and a member whose announcement of the same epoch
// carries another one is reported (report_signature_mismatch); 0 (every
// other sync) announces and checks nothing.
template <bool WithQuiet, class Group>
GSHMEM_DEVICE void sync_team(Group& g, int slot, const team_desc& team, const char* routine,
                             unsigned signature = 0) {
  const gshmemi_device_state_t& s = gshmemi_state();
  barrier_area* mine = &team_area_at(s.heap_base, slot)->barrier;
  g.sync();
  // The counter's store stays before the fence, although the fence then
  // waits for it: stored after the announcements instead, every sync and
  // barrier took 6-16% longer (NVIDIA's sync_latency and barrier_latency, 2
  // and 4 PEs sharing one H200 under MPS, NVSHMEM's times unchanged in the
  // same runs; why was not found).
  const unsigned long long epoch = bump_epoch(g, mine);
  const unsigned long long announced = announcement(epoch, signature);
  const int rank = (int)g.rank(), size = (int)g.size();
  fence_before_announcing<WithQuiet>(g, team);
  // Remote peers (docs/remote.md): every request the group queued before
  // the call is carried out before any announcement (sync and barrier
  // alike: a sync's passer sees the group's earlier stores, remote ones
  // included), and a remote member is told through a signal request.
  const bool remote = remote_enabled();
  if (__builtin_expect(remote, 0) && rank < team.size) remote_quiet(routine);
  // This member's own slot is neither announced nor awaited: its own
  // arrival is in program order, and a one-thread group would otherwise
  // pay a load round trip on its own memory after (or before) the peers'.
  for (int r = rank; r < team.size; r += size) {
    if (r == team.my_rank) continue;
    const int member = team_member_pe(team, r);
    char* base = s.peer_base[member];
    if (__builtin_expect(remote && base == nullptr, 0)) {
      uint64_t* own = reinterpret_cast<uint64_t*>(&team_area_at(s.heap_base, slot)->barrier.arrived[team.my_rank]);
      remote_signal(own, announced, GSHMEM_SIGNAL_SET, member, routine);
      continue;
    }
    unsigned long long* slot_p = &team_area_at(base, slot)->barrier.arrived[team.my_rank];
    atomic_store<memory_order::relaxed, thread_scope::system>(slot_p, announced);
  }
  await_members(g, mine, slot, team, epoch, signature, routine);
}

// A plain sync or barrier (the public ones: no signature), by every member
// of `g`. Over P2P it announces by adding one epoch to its word on each
// member (red.add), which needs no epoch first: the counter's load and
// store then overlap the announcements' flight instead of preceding them.
// The word holds the member's epoch with the signature of its last
// collective below it (a collective's entry sync stores its announcement
// whole, signature included). 2 x H200 over NVLink, one-thread sync of 2
// PEs in a loop: 1.70 us against 1.87 with the stores. A job with remote
// peers takes sync_team (signal requests).
template <bool WithQuiet, class Group>
GSHMEM_DEVICE void sync_team_plain(Group& g, int slot, const team_desc& team, const char* routine) {
  if (__builtin_expect(remote_enabled(), 0)) {
    sync_team<WithQuiet>(g, slot, team, routine);
    return;
  }
  const gshmemi_device_state_t& s = gshmemi_state();
  barrier_area* mine = &team_area_at(s.heap_base, slot)->barrier;
  g.sync();
  fence_before_announcing<WithQuiet>(g, team);
  for (int r = (int)g.rank(); r < team.size; r += (int)g.size()) {
    if (r == team.my_rank) continue;
    unsigned long long* word =
        &team_area_at(s.peer_base[team_member_pe(team, r)], slot)->barrier.arrived[team.my_rank];
    atomic_reduce<reduce_op::add, memory_order::relaxed, thread_scope::system>(word, 1ull << kSignatureBits);
  }
  await_members(g, mine, slot, team, bump_epoch(g, mine), 0, routine);
}

// The world team's sync by group `g` (device barrier_all / sync_all).
template <bool WithQuiet, class Group>
GSHMEM_DEVICE void sync_world(Group& g, const char* routine) {
  const gshmemi_device_state_t& s = gshmemi_state();
  sync_team_plain<WithQuiet>(g, 0, world_team_desc(s.my_pe, s.n_pes), routine);
}

// Team sync / barrier by group `g` (`signature`: as sync_team's): 0, or -1 (with a diagnostic, nothing
// waited for) when `team` is not a valid handle on this PE.
template <bool WithQuiet, class Group>
GSHMEM_DEVICE int sync_team_handle(Group& g, int team, const char* routine, unsigned signature = 0) {
  team_desc d;
  if (!device_team(team, &d)) {
    report_invalid_team(g, team, routine);
    return -1;
  }
  if (signature != 0) sync_team<WithQuiet>(g, team, d, routine, signature);
  else sync_team_plain<WithQuiet>(g, team, d, routine);
  return 0;
}

// The whole-block device barrier of gshmem_barrier_all / gshmem_sync_all.
template <bool WithQuiet>
GSHMEM_DEVICE void block_sync_all(const char* routine) {
  __shared__ block_scratch scratch;
  block_group g(&scratch);
  sync_world<WithQuiet>(g, routine);
}

#endif  // __CUDACC__

}  // namespace detail
}  // namespace gshmem
