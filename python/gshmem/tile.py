"""gshmem's point-to-point routines as cuTile functions (cuda.tile, docs/python.md, "cuTile").

    import cuda.tile as ct
    import gshmem, gshmem.tile as gtile

    @ct.kernel
    def ring(src, dst_next, sig_next, sig, r, T: ct.Constant[int]):
        b = ct.bid(0)
        tile = ct.load(src, (b,), shape=(T,))
        gtile.put_signal(dst_next, (b,), tile, sig_next, b, r, gtile.SIGNAL_SET)
        gtile.signal_wait_until(sig, b, gtile.CMP_GE, r)

    dst_next = gtile.peer(dst, (me + 1) % n)      # the next PE's copy, a torch tensor
    ct.launch(stream, (4,), ring, (src, dst_next, gtile.peer(sig, (me + 1) % n), sig, 1, 1024))

Every routine is an ordinary `@ct.function` built on cuTile's own memory
operations (ct.store / ct.load with memory_order and memory_scope, the
atomics, ct.scatter): nothing is hand-written PTX, and tileiras compiles and
optimizes them with the rest of the kernel. A peer is reached through its
mapping: `peer(tensor, pe)` (host side) gives the peer's copy of a symmetric
tensor as a torch tensor that a kernel takes as an array argument; a PE
without a mapping (a remote peer) is refused there with ValueError.

Who calls. cuTile kernels are written per block: every routine here is a
block-wide (CTA-wide) operation, called by the block's program once, as
NVSHMEM's `_block` routines are; a tile operation is spread over the block's
threads by the compiler.

Ordering (the argument, against the PTX memory model, and cuTile's memory
model page: acquire and release are per block, "prior reads/writes within the
same block cannot be reordered after" a release, "subsequent reads/writes
within the same block cannot be reordered before" an acquire):

- put(dest, index, tile): weak stores of the tile into the peer's array.
  Not ordered by itself; a later signal_op/put_signal of the same block
  announces it.
- signal_op(sig, i, value, SIGNAL_SET): ct.atomic_xchg of one uint64 with
  memory_order=ACQ_REL, memory_scope=SYS; SIGNAL_ADD: ct.atomic_add, the
  same. Its release half orders every earlier memory operation of the block
  (the puts, stores to local or peer memory, the bulk forms) before the
  signal; tileiras emits a block barrier, then MEMBAR.ALL.SYS, then
  ATOMG.E.EXCH.64.STRONG.SYS on sm_90 (PTX's fence.acq_rel.sys +
  atom.relaxed.sys: a release pattern in the PTX model). So a PE whose
  acquire reads the signal value (or a later value in its release sequence)
  synchronizes with it and, by causality order, sees every put the block
  made before it: the message-passing guarantee of gshmem_putmem_signal.
  Why acquire too: a release alone lets later loads move before it, and
  tileiras 13.5 does move a RELEASE store (or RELEASE atomic) of the signal
  below a following poll loop of the same block (to the end of the kernel):
  signal, then wait, compiles to wait, then signal, and a ring of PEs waits
  forever. The acquire half forbids that (the polls may not move above it).
  The price: the block waits for the atomic's reply from the peer (one
  NVLink round trip) before polling, where CUDA C's st.release.sys goes on
  at once.
- signal_wait_until / wait_until: a loop of ct.load with ACQUIRE at SYS scope
  (LDG.E.STRONG.SYS then CCTL.IVALL, and a block barrier, on sm_90) until the
  comparison holds. The load that ends the loop is a morally strong acquire
  at system scope that read the releasing value: the block's later loads see
  the data.
- wait_until_all / wait_until_any: one ACQUIRE tile load of all the flags per
  poll; each element's load is an acquire at SYS scope, so whichever flags
  satisfied the comparison synchronize with their releases.
- put_scatter: ct.scatter (weak stores by an index tile), announced as put.
- atomic_cas / atomic_add on a peer's array by index tiles: each element is
  one atomic at SYS scope (ACQ_REL by default, RELAXED on request); the tile
  as a whole is not atomic and its elements are applied in no set order.

What cuTile cannot express, and what is done instead:

- A fence on its own (gshmem_fence, fence.acq_rel.sys): cuTile has no fence
  operation. Ordering puts before a signal needs none (the signal's release
  covers them). fence(scratch) and quiet(scratch) are one atomic add of 0
  with ACQ_REL at SYS scope on a word of this PE's own heap: tileiras emits
  the same MEMBAR.ALL.SYS as a fence before it, but in the model it orders
  the block's earlier operations only towards a PE that acquires that word
  (or a later release of the block): use a signal to announce data.
- quiet (completion of puts): stores to a peer over NVLink complete at the
  system-scope fence/release that follows them; quiet(scratch) is fence().
- A relaxed poll (relaxed loads, then one acquire): ct.load accepts
  memory_order=RELAXED, but tileiras 13.5 treats a relaxed load as one it may
  hoist out of the loop: a loop of RELAXED loads compiles, on sm_90, to one
  load and a branch to itself (the wait would spin forever without loading
  again), and with nothing depending on it the loop is removed outright. So
  every poll here is an ACQUIRE load (per poll LDG.E.STRONG.SYS and
  CCTL.IVALL, the L1 invalidation an acquire needs on sm_90).
- A wait whose result nothing uses: tileiras removes a loop of acquire loads
  whose value and token feed nothing with a side effect (a kernel that ends
  in a wait would not wait). Each wait here therefore ends with an atomic add
  of 0 to the awaited word, masked on the number of polls (executed only when
  that count reaches 2^32 - 1, and harmless then: adding 0 changes nothing):
  the loop feeds a side effect and stays, at the cost of a predicate. The CPU
  test (python/tests/tile/tile_cpu_checks.py) checks the loop in the SASS.
- Data puts through TMA: put uses allow_tma=False so that the tile is
  written by ordinary stores (the generic proxy), which the release above
  orders; a TMA store is an async-proxy operation that would need a proxy
  fence before the release.

Needs cuda-tile (1.7) and its compiler tileiras (nvidia-cuda-tileiras), and a
driver r580 or later to run; sm_90 and later.
"""

try:
    import cuda.tile as ct
except ImportError as _e:  # noqa: N816
    raise ImportError("gshmem.tile needs cuTile Python (pip install 'cuda-tile==1.7.*' nvidia-cuda-tileiras, "
                      "or pip install './python[tile]'): " + str(_e)) from _e

from . import _gshmem as _C

__all__ = [
    "peer", "put", "put_signal", "signal_op", "signal_wait_until", "wait_until",
    "wait_until_all", "wait_until_any", "fence", "quiet", "put_scatter", "atomic_cas", "atomic_add",
    "CMP_EQ", "CMP_NE", "CMP_GT", "CMP_GE", "CMP_LT", "CMP_LE", "SIGNAL_SET", "SIGNAL_ADD",
]

CMP_EQ, CMP_NE, CMP_GT = _C.CMP_EQ, _C.CMP_NE, _C.CMP_GT
CMP_GE, CMP_LT, CMP_LE = _C.CMP_GE, _C.CMP_LT, _C.CMP_LE
SIGNAL_SET, SIGNAL_ADD = _C.SIGNAL_SET, _C.SIGNAL_ADD

_ACQUIRE, _RELAXED, _ACQ_REL = ct.MemoryOrder.ACQUIRE, ct.MemoryOrder.RELAXED, ct.MemoryOrder.ACQ_REL
_SYS = ct.MemoryScope.SYS
_POLLS_MAX = 0xFFFFFFFF


# ------------------------------------------------------------------ host side
def peer(tensor, pe):
    """PE `pe`'s copy of the symmetric `tensor`, as a torch tensor a cuTile
    kernel takes as an array argument (its stores and atomics reach that PE
    directly, over NVLink or PCIe P2P). ValueError, naming the PE, when `pe`
    has no mapping from this PE (a remote peer: another node, no peer access,
    or GSHMEM_REMOTE_PEERS): a kernel cannot reach it, and the call is refused
    here rather than left to hang a waiting PE; reach such a PE with the
    on-stream routines (gshmem.put_signal)."""
    import gshmem
    import torch
    v = gshmem._symmetric("tensor", tensor)
    gshmem._pe_arg(pe)
    gshmem._require_init("gshmem.tile.peer")
    if gshmem._C.ptr(v.address, pe) == 0:
        raise ValueError(f"gshmem.tile.peer: PE {pe} has no P2P mapping from PE {gshmem._C.my_pe()} (a remote "
                         "peer): cuTile kernels store to and load from a peer's memory directly and cannot reach "
                         "it; use gshmem.put_signal / signal_op on a stream for that PE")
    if pe == gshmem._C.my_pe() and isinstance(tensor, torch.Tensor):
        return tensor
    return torch.from_dlpack(gshmem.peer(tensor, pe))


# ---------------------------------------------------------------- comparison
@ct.function
def _holds(v, cmp, value):
    """v <cmp> value, cmp a constant CMP_*: element-wise on tiles."""
    if cmp == CMP_EQ:
        r = v == value
    elif cmp == CMP_NE:
        r = v != value
    elif cmp == CMP_GT:
        r = v > value
    elif cmp == CMP_GE:
        r = v >= value
    elif cmp == CMP_LT:
        r = v < value
    else:
        r = v <= value
    return r


@ct.function
def _anchor(ivars, index, polls):
    # Keeps the poll loop: an atomic add of 0 that depends on its result,
    # masked to a count of polls that is reached only after 2^32 - 1 of them
    # (and harmless when it is). See the module's docstring.
    ivars.get_raw_memory().atomic_add_offset(index, ct.astype(0, ivars.dtype), mask=polls == _POLLS_MAX,
                                             memory_order=_RELAXED, memory_scope=_SYS)


# ------------------------------------------------------------------- puts
@ct.function
def put(dest, index, tile):
    """Stores `tile` into `dest` (a peer's array from peer(), or a local one)
    at tile `index` (as ct.store: `index` in units of the tile's shape).
    Weak stores, not ordered by themselves: a later signal_op of the block
    announces them (its release covers them)."""
    ct.store(dest, index, tile, allow_tma=False)


@ct.function
def signal_op(sig, sig_index, value, sig_op):
    """Updates the uint64 signal sig[sig_index] (a peer's, from peer()) with
    `value`: SIGNAL_SET an atomic exchange, SIGNAL_ADD an atomic add, each
    ACQ_REL at SYS scope: every memory operation the block issued before
    (puts, stores, scatters) is visible to a PE whose acquire reads the
    result, and the block's later waits stay after it (the module's
    docstring says why not RELEASE alone)."""
    if sig_op == SIGNAL_ADD:
        ct.atomic_add(sig, sig_index, ct.astype(value, ct.uint64), memory_order=_ACQ_REL, memory_scope=_SYS)
    else:
        ct.atomic_xchg(sig, sig_index, ct.astype(value, ct.uint64), memory_order=_ACQ_REL, memory_scope=_SYS)


@ct.function
def put_signal(dest, index, tile, sig, sig_index, value, sig_op):
    """put(dest, index, tile), then signal_op(sig, sig_index, value, sig_op):
    a PE that sees the signal sees the tile."""
    put(dest, index, tile)
    signal_op(sig, sig_index, value, sig_op)


@ct.function
def put_scatter(dest, indices, tile):
    """Stores `tile` into `dest` (a peer's array) at the element indices
    `indices` (an integer tile, or a tuple of them, as ct.scatter). Weak
    stores, announced by a later signal_op of the block."""
    ct.scatter(dest, indices, tile)


# ------------------------------------------------------------------- waits
@ct.function
def wait_until(ivars, index, cmp, value):
    """Waits until ivars[index] (this PE's) <cmp> value, polling with ACQUIRE
    loads at SYS scope; returns the value seen. The block's later loads see
    what the releasing PE wrote before its release."""
    value = ct.astype(value, ivars.dtype)
    v = ct.load(ivars, (index,), shape=(), memory_order=_ACQUIRE, memory_scope=_SYS)
    polls = ct.astype(0, ct.uint32)
    while not _holds(v, cmp, value):
        v = ct.load(ivars, (index,), shape=(), memory_order=_ACQUIRE, memory_scope=_SYS)
        polls = polls + 1
    _anchor(ivars, index, polls)
    return v


@ct.function
def signal_wait_until(sig, sig_index, cmp, value):
    """wait_until on a uint64 signal: returns the signal's value."""
    return wait_until(sig, sig_index, cmp, value)


@ct.function
def wait_until_all(ivars, index, shape, cmp, value):
    """Waits until every element of the tile of flags ivars at tile `index`
    (shape `shape`, a constant) compares true; each poll is one ACQUIRE tile
    load at SYS scope. Returns the tile seen."""
    value = ct.astype(value, ivars.dtype)
    v = ct.load(ivars, (index,), shape=shape, memory_order=_ACQUIRE, memory_scope=_SYS)
    polls = ct.astype(0, ct.uint32)
    while ct.min(ct.astype(_holds(v, cmp, value), ct.int32)) == 0:
        v = ct.load(ivars, (index,), shape=shape, memory_order=_ACQUIRE, memory_scope=_SYS)
        polls = polls + 1
    _anchor(ivars, index * shape[0], polls)
    return v


@ct.function
def wait_until_any(ivars, index, shape, cmp, value):
    """Waits until some element of the tile of flags at tile `index` compares
    true; returns its position in the tile (the first such, int32). Each
    poll is one ACQUIRE tile load at SYS scope."""
    value = ct.astype(value, ivars.dtype)
    v = ct.load(ivars, (index,), shape=shape, memory_order=_ACQUIRE, memory_scope=_SYS)
    ok = ct.astype(_holds(v, cmp, value), ct.int32)
    polls = ct.astype(0, ct.uint32)
    while ct.max(ok) == 0:
        v = ct.load(ivars, (index,), shape=shape, memory_order=_ACQUIRE, memory_scope=_SYS)
        ok = ct.astype(_holds(v, cmp, value), ct.int32)
        polls = polls + 1
    _anchor(ivars, index * shape[0], polls)
    return ct.astype(ct.argmax(ok), ct.int32)


# ------------------------------------------------------------ fence, quiet
@ct.function
def fence(scratch, index):
    """No standalone fence in cuTile: an atomic add of 0 with ACQ_REL at SYS
    scope to scratch[index] (an integer word of this PE's heap). tileiras
    emits the fence a release needs (MEMBAR.ALL.SYS) before it; in the
    model it orders the block's earlier operations only towards a PE that
    acquires scratch[index]. To announce data, use signal_op."""
    ct.atomic_add(scratch, index, ct.astype(0, scratch.dtype), memory_order=_ACQ_REL, memory_scope=_SYS)


@ct.function
def quiet(scratch, index):
    """fence(scratch, index): a store to a peer's memory is complete once a
    system-scope fence after it has executed (there is no queue to drain on
    the P2P path)."""
    fence(scratch, index)


# ---------------------------------------------------------------- atomics
@ct.function
def atomic_cas(dest, indices, expected, desired, memory_order):
    """Bulk compare-and-swap on a peer's array (from peer()) at the element
    `indices` (an integer tile): each element one atomic at SYS scope with
    `memory_order` (ct.MemoryOrder.ACQ_REL or RELAXED ...); returns the old
    values. The tile as a whole is not atomic."""
    return ct.atomic_cas(dest, indices, expected, desired, memory_order=memory_order, memory_scope=_SYS)


@ct.function
def atomic_add(dest, indices, update, memory_order):
    """Bulk fetch-and-add on a peer's array at the element `indices`, each
    element one atomic at SYS scope; returns the old values."""
    return ct.atomic_add(dest, indices, update, memory_order=memory_order, memory_scope=_SYS)
