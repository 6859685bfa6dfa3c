"""`rocm-tune attach slurm:JOBID`: find a Slurm job's output through `scontrol show job` / `sacct`.

A job that is queued or running (or recently ended) is described by `scontrol show job JOBID`: its
StdOut/StdErr files and WorkDir. Once slurmctld has forgotten it, `sacct` still knows its WorkDir (and,
on Slurm >= 23.02, its StdOut). The watch target is then the run directory when WorkDir is one
(the exported sbatch script runs from its bundle/run directory; ranks write RUN_DIR/ranks/ on the shared
filesystem), else the job's stdout file. Standard library only; Slurm absent = one clear line (exit 2).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from dataclasses import dataclass

from rocm_tune.core.errors import UserError

PREFIX = "slurm:"
_JOBID = re.compile(r"^\d+(_\d+)?$")


@dataclass(frozen=True)
class SlurmJob:
    job_id: str
    name: str | None = None
    state: str | None = None
    user: str | None = None
    work_dir: str | None = None
    stdout: str | None = None
    stderr: str | None = None
    node_list: str | None = None
    num_nodes: int | None = None
    source: str = "scontrol"          # scontrol | sacct

    def to_dict(self) -> dict:
        return dict(self.__dict__)


_KEY = re.compile(r"(?:(?<=\s)|^)([A-Za-z][A-Za-z0-9_:/.\-]*)=", re.MULTILINE)


def parse_scontrol(text: str) -> dict[str, str]:
    """`scontrol show job` text (multi-line or `--oneliner`) -> {key: value}.

    A value runs up to the next ` Key=` or the end of its line, so values with spaces survive
    (WorkDir=/w/dir with spaces, Reason=ReqNodeNotAvail, UnavailableNodes:n[01-03], Command=/x/run.sh --flag)."""
    out: dict[str, str] = {}
    for line in text.splitlines():
        marks = list(_KEY.finditer(line))
        for i, m in enumerate(marks):
            end = marks[i + 1].start() if i + 1 < len(marks) else len(line)
            out.setdefault(m.group(1), line[m.end():end].strip())
    return out


def _expand(path: str | None, job_id: str, name: str | None, user: str | None) -> str | None:
    """Slurm filename patterns that older scontrol versions print unexpanded (%j %x %u %A %a %%)."""
    if not path:
        return path
    base, _, task = job_id.partition("_")
    rep = {"j": base, "J": job_id, "x": name or "", "u": user or "", "A": base, "a": task or "", "%": "%"}
    return re.sub(r"%(\d*)([jJxuAa%])", lambda m: rep[m.group(2)].zfill(int(m.group(1) or 0)), path)


def job_from_scontrol(text: str, job_id: str) -> SlurmJob:
    d = parse_scontrol(text)
    name = d.get("JobName")
    user = (d.get("UserId") or "").split("(", 1)[0] or None
    try:
        nodes = int(d["NumNodes"].split("-")[0]) if d.get("NumNodes") else None
    except ValueError:
        nodes = None
    return SlurmJob(job_id=d.get("JobId", job_id), name=name, state=d.get("JobState"), user=user,
                    work_dir=d.get("WorkDir") or None, stdout=_expand(d.get("StdOut"), job_id, name, user),
                    stderr=_expand(d.get("StdErr"), job_id, name, user), node_list=d.get("NodeList"),
                    num_nodes=nodes, source="scontrol")


def job_from_sacct(text: str, fields: list[str], job_id: str) -> SlurmJob | None:
    """`sacct --parsable2 --noheader --format=...` text -> the job's line (not its .batch/.0 steps)."""
    for line in text.splitlines():
        vals = line.split("|")
        if len(vals) != len(fields):
            continue
        row = dict(zip(fields, vals))
        if row.get("JobID") != job_id:
            continue
        name, user = row.get("JobName") or None, row.get("User") or None
        return SlurmJob(job_id=job_id, name=name, state=(row.get("State") or "").split()[0] or None, user=user,
                        work_dir=row.get("WorkDir") or None,
                        stdout=_expand(row.get("StdOut") or None, job_id, name, user),
                        stderr=_expand(row.get("StdErr") or None, job_id, name, user),
                        node_list=row.get("NodeList") or None, source="sacct")
    return None


def _run(argv: list[str]) -> subprocess.CompletedProcess:
    try:
        return subprocess.run(argv, capture_output=True, text=True, timeout=30)
    except subprocess.TimeoutExpired:
        raise UserError(f"`{' '.join(argv)}` did not answer within 30 s (is slurmctld reachable?)") from None
    except OSError as exc:
        raise UserError(f"cannot run {argv[0]}: {exc.strerror or exc}") from None


def find_job(job_id: str) -> SlurmJob:
    """The job as scontrol (else sacct) describes it; UserError when Slurm is absent or the job unknown."""
    if not _JOBID.match(job_id):
        raise UserError(f"slurm:{job_id!r}: a Slurm job id is a number (e.g. slurm:123456 or slurm:123456_7)")
    scontrol, sacct = shutil.which("scontrol"), shutil.which("sacct")
    if not scontrol and not sacct:
        raise UserError(f"Slurm is not installed here (no scontrol or sacct on PATH): cannot look up job {job_id}; "
                        "run this on the cluster's login node, or attach the job's output directory or log file")
    errors = []
    if scontrol:
        r = _run([scontrol, "show", "job", job_id])
        if r.returncode == 0 and "JobId=" in r.stdout:
            return job_from_scontrol(r.stdout, job_id)
        errors.append((r.stderr or r.stdout).strip().splitlines()[0] if (r.stderr or r.stdout).strip() else
                      f"scontrol exit {r.returncode}")
    if sacct:
        fields = ["JobID", "JobName", "State", "User", "WorkDir", "NodeList", "StdOut", "StdErr"]
        r = _run([sacct, "-j", job_id, "--parsable2", "--noheader", "--format=" + ",".join(fields)])
        if r.returncode != 0:  # Slurm < 23.02 has no StdOut/StdErr fields
            fields = fields[:6]
            r = _run([sacct, "-j", job_id, "--parsable2", "--noheader", "--format=" + ",".join(fields)])
        if r.returncode == 0:
            job = job_from_sacct(r.stdout, fields, job_id)
            if job is not None:
                return job
            errors.append("sacct knows no such job")
        else:
            errors.append((r.stderr or "").strip().splitlines()[0] if (r.stderr or "").strip() else
                          f"sacct exit {r.returncode}")
    raise UserError(f"Slurm job {job_id} not found: {'; '.join(errors)}")


def resolve(spec: str) -> tuple[str, SlurmJob]:
    """`slurm:JOBID` -> (what to attach: a run directory or a log file, the job)."""
    job_id = spec[len(PREFIX):].strip()
    job = find_job(job_id)
    wd = job.work_dir
    if wd and os.path.isfile(os.path.join(wd, "run.json")):
        return wd, job
    out = job.stdout
    if not out and wd:
        out = os.path.join(wd, f"slurm-{job_id.split('_')[0]}.out")   # sbatch's default
    if out and os.path.isfile(out):
        return out, job
    if wd and os.path.isdir(wd):
        return wd, job
    raise UserError(f"Slurm job {job_id} ({job.state or 'state unknown'}) writes {out or 'no known output file'}"
                    f"{' in ' + wd if wd else ''}, which is not readable from this machine "
                    "(a shared filesystem is needed; or attach the file after copying it)")
