"""What the torchrun benchmarks of this folder share: rank-0 logging and the
start of a 2-PE job (one process per GPU, or both on one GPU), with gshmem
initialized through the default process group's store."""
import os
import sys

import torch
import torch.distributed as dist

import gshmem

MiB = 1 << 20


def size_label(nbytes):
    """A message size as the tables print it: 8 B, 4 KiB, 1 MiB."""
    return f"{nbytes // MiB} MiB" if nbytes >= MiB else f"{nbytes >> 10} KiB" if nbytes >= 1024 else f"{nbytes} B"


def log(text):
    """Prints on rank 0 only, flushed (torchrun buffers the others)."""
    if int(os.environ.get("RANK", "0")) == 0:
        print(text, flush=True)


def start(name):
    """Sets this rank's GPU, starts the process group and gshmem, and returns
    (me, peer, device name, sharing: both PEs on one GPU). Exits with status 2
    and a line naming `name` when the job does not have exactly 2 PEs."""
    local_rank = int(os.environ.get("LOCAL_RANK", "0"))
    torch.cuda.set_device(local_rank % torch.cuda.device_count())
    dist.init_process_group("gloo")
    gshmem.init()  # the unique id travels through the default process group's store
    me, n = gshmem.my_pe(), gshmem.n_pes()
    if n != 2:
        log(f"{name}: needs exactly 2 PEs, got {n}")
        sys.exit(2)
    return me, 1 - me, torch.cuda.get_device_name(), torch.cuda.device_count() == 1
