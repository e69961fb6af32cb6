# torchrun --nproc-per-node 2 python/examples/ring.py
# Each PE sends its rank to the next PE with put_signal on PyTorch's current
# stream, waits for its own signal, and checks what it got.
import torch
import gshmem

gshmem.init()                                   # RANK, WORLD_SIZE, LOCAL_RANK from torchrun
me, n = gshmem.my_pe(), gshmem.n_pes()
buf = torch.from_dlpack(gshmem.zeros(1024, "float32"))  # symmetric: same offset on every PE
sig = torch.from_dlpack(gshmem.zeros(1, "uint64"))
src = torch.full((1024,), float(me), device="cuda")

# On the current PyTorch stream: the data, then the signal, to the next PE.
gshmem.put_signal(buf, src, sig, 1, (me + 1) % n)
gshmem.signal_wait_until(sig, "eq", 1)          # later work on the stream waits for it
total = buf.sum()                               # sees the previous PE's data
assert total.item() == 1024 * ((me - 1) % n), f"PE {me}: got sum {total.item()}"
print(f"PE {me} of {n}: received PE {(me - 1) % n}'s data after its signal: OK", flush=True)

gshmem.barrier_all()
del buf, sig                                    # freed at the next collective point
gshmem.finalize()
