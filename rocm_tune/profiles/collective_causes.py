"""e-hidden (issue 26): what a collective failure or hang can hide - the launch's or program's own mistake that NCCL/
RCCL report in their words, the library's version skew across ranks, a launcher's refusal about the interconnect, and
the multi-node job that stops with no message at all. Data only: read by core/runs/catalogue.py (the signatures) and
core/runs/diagnose/silent_hang.py (the silent multi-node hang).

FAMILIES.md decides by the user's next step: NCCL's own `invalid usage` / `invalid argument` returns name a mistake in
how the ranks were launched or called (ranks counted differently, two ranks on one GPU, a rank number past the world
size, a tensor on the wrong device): the next step is the launch command or the script -> config_error, and torch's
`DistBackendError: NCCL error in: ..., invalid usage` printed with it is that mistake's consequence, as the other
ranks' watchdog timeouts are. NCCL refusing peers built with another NCCL release -> version_check (the same torch/NCCL
on every node). Accelerate refusing RTX 40xx cards without NCCL_P2P_DISABLE / NCCL_IB_DISABLE -> the interconnect's
env (nccl_rccl_timeout_hang).

Sources (read, not guessed), one spelling a line:
- NVIDIA/nccl src/init.cc (RCCL's init.cc the same): `Duplicate GPU detected : rank %d and rank %d both on CUDA device
  %lx` (2.5 .. 2.29) and from 2.30 `Multiple Ranks are using the same GPU/Partition. Set NCCL_MULTI_RANK_GPU_ENABLE=1
  ...` (ncclInvalidUsage); `Invalid rank requested : %d/%d` (ncclInvalidArgument); `rank %d exceeds ndev=%d`;
  `invalid device count (%d) requested` / `Invalid device count requested : %d`; `Invalid device %d (totalnDev=%d)`;
  `improper usage of ncclCommInitRank: nId = %d, nranks=%d`; `Mismatched NCCL version detected : rank %d version %d
  rank %d version %d` (ncclInvalidUsage).
- NVIDIA/nccl src/bootstrap.cc, the root's check of what every rank sent: `Bootstrap Root : mismatch in rank count from
  procs %d : %d` (older), `Bootstrap Root : mismatch in info from procs, nranks %d vs %d, ...` (newer), `Bootstrap Root
  : rank %d of %d ranks has already checked in` (two processes given one rank). The root thread gives up; the other
  ranks wait until their watchdog or store timeout fires.
- NVIDIA/nccl src/misc/argcheck.cc: `%s : %s allocated on device %d mismatchs with NCCL device %d`, `%s : invalid root
  %d (root should be in the 0..%d range)`; src/enqueue.cc `Trying to send to self without a matching recv` (and recv).
- huggingface/accelerate src/accelerate/state.py (PartialState.__init__, check_cuda_p2p_ib_support):
  `NotImplementedError: Using RTX 4000 series doesn't support faster communication broadband via P2P or IB. Please set
  NCCL_P2P_DISABLE="1" and NCCL_IB_DISABLE="1" ...` (0.2x: `Using RTX 3090 or 4000 series ...`).
- launchers' node counts for the silent hang: Slurm srun/sbatch (`-N 2`, `-N2`, `--nodes=2`, `--nodes 2-4`), torchrun /
  torch.distributed.run (`--nnodes=2`, `--nnodes 2:4`), DeepSpeed's runner (`--num_nodes=2`, `--hostfile`), Open MPI's
  mpirun (`--hostfile`, `-H a,b`, `--host a,b`), accelerate (`--num_machines 2`), NCCL INFO's `nNodes 2`.
"""

from __future__ import annotations

# e-amd8 (issue 26): the shared-memory segment of the intra-node transport could not be sized because the tmpfs behind
# /dev/shm is full (FAMILIES.md amended rule "host memory vs collectives": more /dev/shm is the fix -> host_ram_oom).
# ROCm/rccl@0cbce2a7571c907554199fad7e905f16ec0a565c src/include/checks.h SYSCHECKVAL: `WARN("Call to " name " failed
# : %s", strerror(errno))`, called as SYSCHECK(shm_allocate(*fd, shmsize), "posix_fallocate") by
# src/clique/ShmObject.h shmSetupExclusive (and by include/shm.h shmSetup in NCCL/RCCL 2.3-2.11, before shmutils.cc);
# shm_allocate puts posix_fallocate's return in errno: ENOSPC "No space left on device", ENOMEM "Cannot allocate
# memory" (glibc strerror). Not EINTR/EAGAIN (SYSCHECKSYNC retries those) nor EBADF/EINVAL (a program bug).
SHM_ALLOCATE_FAILED = r"Call to posix_fallocate failed : (?:No space left on device|Cannot allocate memory)"

# NCCL/RCCL's own words for a mistake in how the ranks were launched or called (-> config_error)
NCCL_USAGE: tuple[str, ...] = (
    r"Multiple Ranks are using the same GPU/Partition",
    r"Invalid rank requested : -?\d+/\d+",
    r"\brank -?\d+ exceeds ndev=\d+",
    r"[Ii]nvalid device count (?:\(-?\d+\) requested|requested : -?\d+)",
    r"Invalid device -?\d+ \(totalnDev=\d+\)",
    r"improper usage of ncclCommInitRank",
    r"Bootstrap Root : (?:mismatch in rank count from procs \d+ : \d+|mismatch in info from procs, nranks \d+ vs \d+|"
    r"rank \d+ of \d+ ranks has already checked in)",
    r"\w+ : \w+ allocated on device \d+ mismatchs with NCCL device \d+",
    r"\w+ : invalid root -?\d+ \(root should be in the 0\.\.\d+ range\)",
    r"Trying to (?:send|recv) to self without a matching (?:recv|send)",
)
NCCL_USAGE_KEYS: tuple[str, ...] = (
    "Multiple Ranks are using", "Invalid rank requested", "exceeds ndev=", "nvalid device count", "totalnDev=",
    "improper usage of ncclCommInitRank", "Bootstrap Root : ", "mismatchs with NCCL device", "invalid root",
    "to self without a matching")

# NCCL refusing a peer built with another NCCL release (-> version_check)
NCCL_VERSION_SKEW: tuple[str, ...] = (
    r"Mismatched NCCL version detected : rank \d+ version \d+ rank \d+ version \d+",)
NCCL_VERSION_SKEW_KEYS: tuple[str, ...] = ("Mismatched NCCL version detected",)

# accelerate refusing a P2P/IB-less consumer card without the NCCL env that avoids those paths (-> the interconnect)
P2P_IB_REFUSED: tuple[str, ...] = (
    r"Using RTX (?:3090 or )?4000 series doesn't support faster communication broadband via P2P or IB",)
P2P_IB_REFUSED_KEYS: tuple[str, ...] = ("faster communication broadband",)

# what torch / NCCL print for the same mistake once NCCL returned it: that mistake's consequence, never a cause
USAGE_STATUS = (r"invalid usage|invalid argument|ncclInvalidUsage|ncclInvalidArgument|NCCL_DEBUG=WARN for details|"
                r"Duplicate GPU|Multiple Ranks are using|Mismatched NCCL version")

# ---- the silent multi-node hang: a job launched on two or more nodes whose log ends with no message at all
# a launch line asking for N nodes (group 1 or 2 is N; a range's first number)
MULTI_NODE_LAUNCH: tuple[str, ...] = (
    r"\b(?:srun|sbatch|salloc)\b[^\n]*?\s(?:-N\s*|--nodes[= ])(\d+)",
    r"\b(?:torchrun|torch\.distributed\.(?:run|launch)|accelerate launch|deepspeed)\b[^\n]*?\s--n(?:nodes|um_nodes|"
    r"um_machines)[= ](\d+)",
    r"\bNCCL INFO\b[^\n]*?\bnNodes (\d+)\b",
    r"^#SBATCH\s+(?:-N\s*|--nodes[= ])(\d+)",
)
# a launch over a host list (more than one host named)
HOST_LIST_LAUNCH: tuple[str, ...] = (
    r"\b(?:mpirun|mpiexec)\b[^\n]*?\s(?:-H|--host)\s+\S+,\S+",
    r"\b(?:mpirun|mpiexec|deepspeed)\b[^\n]*?\s--?hostfile[= ]\S+",
)
# the ranks came up and joined a process group (so the silence is inside the collectives, not before the launch)
GROUP_UP: tuple[str, ...] = (
    r"init_process_group|[Ii]nitiali[sz]ed (?:the )?(?:default )?process group|process group (?:initiali[sz]ed|is "
    r"initiali[sz]ed)|Added key: store_based_barrier_key|Rank \d+: Completed store-based barrier|NCCL INFO\b|"
    r"RCCL version|MASTER_ADDR|torch\.distributed|Initializing torch\.distributed|dist\.init",
)

# ---- a snapshot of the host's memory the user ran when the job stopped (procps `free`, `top`'s summary, /proc/meminfo)
# showing it exhausted: the rank that lost its memory is why the others waited (-> host_ram_oom)
# procps-ng free (3.3.10+): `Mem:  total used free shared buff/cache available` (-h: 251Gi, 1.2Gi, 0B; -g/-m/-k: numbers)
FREE_ROW = r"^\s*Mem:\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s*$"
FREE_HEADER = r"^\s*total\s+used\s+free\s+shared\s+(?:buff/cache\s+available|buffers\s+cached)\s*$"
# older free: `Mem: total used free shared buffers cached`; its `-/+ buffers/cache:  used  free` row is what is left
FREE_OLD_LEFT = r"^\s*-/\+ buffers/cache:\s+(\S+)\s+(\S+)\s*$"
# procps top's summary: `MiB Mem : 257654.2 total,   1180.4 free, 255012.0 used,   1461.8 buff/cache` and
# `MiB Swap:      0.0 total,      0.0 free,      0.0 used.    921.3 avail Mem`
TOP_MEM = r"^\s*[KMGT]iB Mem\s*:\s*([\d.]+)\s+total,\s*([\d.]+)\s+free,"
TOP_AVAIL = r"^\s*[KMGT]iB Swap\s*:.*?([\d.]+)\s+avail Mem\b"
# /proc/meminfo
MEMINFO_TOTAL = r"^\s*MemTotal:\s+(\d+) kB"
MEMINFO_AVAIL = r"^\s*MemAvailable:\s+(\d+) kB"
# what is left of the host's RAM at or under this share of it: exhausted (the kernel reclaims down to a few %)
EXHAUSTED_SHARE = 0.05
# free -h's units
UNITS = {"": 1.0, "B": 1.0 / 1024 ** 3, "K": 1.0 / 1024 ** 2, "Ki": 1.0 / 1024 ** 2, "M": 1.0 / 1024,
         "Mi": 1.0 / 1024, "G": 1.0, "Gi": 1.0, "T": 1024.0, "Ti": 1024.0}
