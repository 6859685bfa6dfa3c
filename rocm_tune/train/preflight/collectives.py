"""Collectives check: all_reduce and peer copies across N processes, with a HARD timeout and value checks.

The parent starts N worker processes (`python -m rocm_tune.train.preflight.collectives WORKDIR`, each in
its own session so it can be killed whole) with RANK/WORLD_SIZE/MASTER_* set, NCCL/RCCL on GPUs
(one GPU per process), gloo on CPU. Each worker writes `ready-<rank>` once torch is imported, then
joins the process group and runs:
- all_reduce(SUM) of a tensor filled with rank+1: every element must equal N(N+1)/2;
- a ring of peer copies (send to rank+1, receive from rank-1) of a known pattern: every element checked
  (broken P2P can deliver zeros silently, so "the call returned" proves nothing);
- a timed all_reduce of a larger buffer: bus bandwidth = 2(N-1)/N x bytes / time.
and writes `result-<rank>.json`. From the moment every worker is ready the parent waits at most
`timeout_s` for all results; a worker without a result then is hung: all are killed and the check
reports the IOMMU/P2P failure of field report 000 with its fix. A test hook (`absent_rank`) makes one
worker never join, to construct the hang.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

STARTUP_S = 180.0   # importing torch in N processes on a loaded box; not part of the collective's timeout
SLOW_RATIO = 0.1    # bus bandwidth below 10% of the link's: P2P is not working
BANDWIDTH_ITERS = 5


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _kill(procs: list[subprocess.Popen]) -> None:
    for p in procs:
        if p.poll() is None:
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except OSError:
                pass
    for p in procs:
        try:
            p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass


def check_collectives(procs: int, timeout_s: float, *, use_gpu: bool | None = None, link_gbs: float | None = None,
                      absent_rank: int | None = None, size_bytes: int | None = None,
                      startup_s: float = STARTUP_S) -> dict:
    """Run the check across `procs` processes; returns the result dict (never raises for a hang)."""
    t0 = time.perf_counter()
    if use_gpu is None:
        try:
            import torch

            use_gpu = torch.cuda.is_available() and torch.cuda.device_count() >= procs
        except ImportError:
            use_gpu = False
    backend = "nccl" if use_gpu else "gloo"
    size = size_bytes or ((256 << 20) if use_gpu else (4 << 20))
    res: dict = {"backend": backend, "procs": procs, "timeout_s": timeout_s, "bytes": size,
                 "link_gbs": link_gbs, "findings": []}
    work = Path(tempfile.mkdtemp(prefix="rocm-tune-coll-"))
    children: list[subprocess.Popen] = []
    logs: list = []
    try:
        _start_workers(work, procs, backend, size, timeout_s, absent_rank, children, logs)
        results, pending, crashed = _wait_workers(work, procs, children, res, t0, startup_s, timeout_s)
    finally:
        for log in logs:
            log.close()
    tails = {}
    for r in crashed + pending:
        try:
            tails[r] = (work / f"log-{r}.txt").read_text(errors="replace").strip().splitlines()[-12:]
        except OSError:
            tails[r] = []
    _rmtree(work)
    res["seconds"] = round(time.perf_counter() - t0, 3)
    res["results"] = [results[r] for r in sorted(results)]
    return _verdict(res, results, pending, crashed, tails, timeout_s, backend, use_gpu, link_gbs)


def _start_workers(work: Path, procs: int, backend: str, size: int, timeout_s: float, absent_rank: int | None,
                   children: list, logs: list) -> None:
    port = _free_port()
    for rank in range(procs):
        env = dict(os.environ)
        env.update({"RANK": str(rank), "WORLD_SIZE": str(procs), "LOCAL_RANK": str(rank),
                    "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(port), "OMP_NUM_THREADS": "1",
                    "ROCM_TUNE_COLL_BACKEND": backend, "ROCM_TUNE_COLL_BYTES": str(size),
                    "ROCM_TUNE_COLL_TIMEOUT": str(timeout_s),
                    "ROCM_TUNE_COLL_ABSENT": "1" if absent_rank == rank else "0"})
        log = open(work / f"log-{rank}.txt", "wb")  # noqa: SIM115 - closed by check_collectives
        logs.append(log)
        children.append(subprocess.Popen(
            [sys.executable, "-m", "rocm_tune.train.preflight.collectives", str(work)],
            env=env, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, start_new_session=True))


def _wait_workers(work: Path, procs: int, children: list, res: dict, t0: float, startup_s: float,
                  timeout_s: float) -> tuple[dict, list[int], list[int]]:
    """(results by rank, hung ranks, crashed ranks); every worker is ended before it returns."""
    # phase 1: every worker imported torch (or died)
    start_deadline = time.time() + startup_s
    while time.time() < start_deadline:
        if all((work / f"ready-{r}").exists() or children[r].poll() is not None for r in range(procs)):
            break
        time.sleep(0.02)
    t_ready = time.time()
    res["startup_s"] = round(time.perf_counter() - t0, 3)
    # phase 2: the collective itself, hard timeout from here
    deadline = t_ready + timeout_s
    while time.time() < deadline:
        if all((work / f"result-{r}.json").exists() or children[r].poll() is not None for r in range(procs)):
            break
        time.sleep(0.02)
    results = {}
    for r in range(procs):
        try:
            results[r] = json.loads((work / f"result-{r}.json").read_text())
        except (OSError, ValueError):
            pass
    pending = [r for r in range(procs) if r not in results and children[r].poll() is None]
    crashed = [r for r in range(procs) if r not in results and children[r].poll() is not None]
    res["waited_s"] = round(time.time() - t_ready, 3)
    for r in pending:  # where each hung worker is stuck: its Python stack into its log
        try:
            os.kill(children[r].pid, signal.SIGUSR1)
        except OSError:
            pass
    if pending:
        time.sleep(0.5)
    _kill(children)
    return results, pending, crashed


def _verdict(res: dict, results: dict, pending: list[int], crashed: list[int], tails: dict, timeout_s: float,
             backend: str, use_gpu: bool, link_gbs: float | None) -> dict:
    from rocm_tune.core.check.preflight import finding

    if pending:
        res["status"] = "hang"
        res["hung_ranks"] = pending
        res["log_tails"] = {str(r): tails.get(r, []) for r in pending}
        res["message"] = (f"ranks {pending} did not finish all_reduce/peer copies within the {timeout_s:g} s "
                          f"timeout ({backend}); a training run would hang at its first barrier")
        res["findings"].append(finding("collective-hang", res["message"]))
        return res
    if crashed:
        res["status"] = "error"
        detail = "; ".join(f"rank {r}: {' | '.join(tails[r])[-300:]}" for r in crashed)
        res["message"] = f"collective worker(s) {crashed} exited without a result: {detail}"
        res["findings"].append(finding("collective-error", res["message"]))
        return res
    bad = [r for r in results.values() if not (r.get("all_reduce_ok") and r.get("peer_ok"))]
    if bad:
        res["status"] = "wrong-values"
        first = bad[0]
        res["message"] = (f"rank {first['rank']}: all_reduce {'ok' if first.get('all_reduce_ok') else 'WRONG'} "
                          f"(expected {first.get('all_reduce_expected')}, got e.g. {first.get('all_reduce_got')}), "
                          f"peer copy {'ok' if first.get('peer_ok') else 'WRONG'} "
                          f"({first.get('peer_bad', 0)} wrong elements)")
        res["findings"].append(finding("collective-wrong-values", res["message"]))
        return res
    bws = [r["bus_bandwidth_gbs"] for r in results.values() if isinstance(r.get("bus_bandwidth_gbs"), (int, float))]
    res["bus_bandwidth_gbs"] = round(min(bws), 3) if bws else None
    res["all_reduce_ok"] = res["peer_ok"] = True
    res["status"] = "ok"
    if use_gpu and link_gbs and res["bus_bandwidth_gbs"] is not None and res["bus_bandwidth_gbs"] < SLOW_RATIO * link_gbs:
        res["status"] = "slow"
        res["message"] = (f"all_reduce bus bandwidth {res['bus_bandwidth_gbs']:.3g} GB/s is below "
                          f"{SLOW_RATIO:.0%} of the link's {link_gbs:g} GB/s")
        res["findings"].append(finding("collective-slow", res["message"]))
    return res


def _rmtree(p: Path) -> None:
    import shutil

    shutil.rmtree(p, ignore_errors=True)


# ------------------------------------------------------------------------------------------ worker


def _worker(work: Path) -> int:
    import datetime

    import torch
    import torch.distributed as dist

    import faulthandler

    faulthandler.register(signal.SIGUSR1, all_threads=True)  # the parent asks where a hung worker is stuck
    rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    backend = os.environ.get("ROCM_TUNE_COLL_BACKEND", "gloo")
    nbytes = int(os.environ.get("ROCM_TUNE_COLL_BYTES", str(4 << 20)))
    timeout = float(os.environ.get("ROCM_TUNE_COLL_TIMEOUT", "60"))
    (work / f"ready-{rank}").write_text(str(os.getpid()))
    if os.environ.get("ROCM_TUNE_COLL_ABSENT") == "1":
        while True:  # the constructed failure: a peer that never joins (test hook)
            time.sleep(3600)
    dev = torch.device("cpu")
    if backend == "nccl":
        torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", rank)))
        dev = torch.device("cuda", torch.cuda.current_device())
    dist.init_process_group(backend, rank=rank, world_size=world,
                            timeout=datetime.timedelta(seconds=max(1.0, timeout)))

    def sync():
        if dev.type == "cuda":
            torch.cuda.synchronize(dev)

    out: dict = {"rank": rank, "device": str(dev)}
    # 1. all_reduce: values must arrive
    n = 1 << 16
    t = torch.full((n,), float(rank + 1), dtype=torch.float32, device=dev)
    dist.all_reduce(t, op=dist.ReduceOp.SUM)
    sync()
    expected = world * (world + 1) / 2
    wrong = int((t != expected).sum().item())
    out.update({"all_reduce_ok": wrong == 0, "all_reduce_expected": expected,
                "all_reduce_got": float(t[0].item()) if wrong == 0 else float(t[t != expected][0].item()),
                "all_reduce_bad": wrong})
    # 2. peer copies around the ring: a known pattern from rank-1
    pattern = lambda src: torch.arange(n, dtype=torch.float32, device=dev) + 1000.0 * (src + 1)  # noqa: E731
    send = pattern(rank)
    recv = torch.zeros(n, dtype=torch.float32, device=dev)
    if world > 1:
        reqs = [dist.isend(send, (rank + 1) % world), dist.irecv(recv, (rank - 1) % world)]
        for r in reqs:
            if r is not None:  # None only for a rank outside the group; every rank is in the default one
                r.wait()
        sync()
        bad = int((recv != pattern((rank - 1) % world)).sum().item())
    else:
        recv.copy_(send)
        bad = int((recv != send).sum().item())
    out.update({"peer_ok": bad == 0, "peer_bad": bad})
    # 3. bandwidth of a larger all_reduce
    big = torch.ones(max(1, nbytes // 4), dtype=torch.float32, device=dev)
    dist.all_reduce(big)
    sync()
    # a fixed count: every rank must call all_reduce the same number of times (a count decided by each
    # rank's own clock deadlocks the ranks that stop first at the barrier below)
    iters, t0 = BANDWIDTH_ITERS, time.perf_counter()
    for _ in range(iters):
        dist.all_reduce(big)
    sync()
    dt = (time.perf_counter() - t0) / iters
    out["all_reduce_s"] = round(dt, 6)
    out["bus_bandwidth_gbs"] = round((2 * (world - 1) / world if world > 1 else 1.0) * big.numel() * 4 / dt / 1e9, 4)
    dist.barrier()
    tmp = work / f".result-{rank}.json"
    tmp.write_text(json.dumps(out))
    os.replace(tmp, work / f"result-{rank}.json")
    dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    raise SystemExit(_worker(Path(sys.argv[1])))
