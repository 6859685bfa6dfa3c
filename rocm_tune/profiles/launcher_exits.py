"""e-host2 (issue 26): how the launchers write the teardown of a failed multi-process run, and what a rank's exit
code or signal says. Data only: the rules are in core/runs/diagnose/teardown.py.

Sources (read, not guessed):
- torch/distributed/elastic/multiprocessing/errors/__init__.py: ChildFailedError's table (`_MSG_FORMAT_TEMPLATE`,
  `_FAILURE_FORMAT_TEMPLATE`): `Failures:` lists the other ranks, `Root Cause (first observed failure):` the first
  (torch 1.9 wrote `Root Cause:` first and `Other Failures:` after it); each row `rank      : G (local_rank: L)` then
  `exitcode  : N (pid: P)`, and for a signal `traceback : Signal N (SIGNAME) received by PID P`.
- torch/distributed/elastic/multiprocessing/api.py: SubprocessContext._poll logs the FIRST failure
  (`failed (exitcode: N) local_rank: L (pid: P) of binary: ...`; MultiprocessContext the failed one, `of fn: ...`);
  _close sends SIGTERM (`Sending process P closing signal SIGTERM`), and after its timeout kills what is left
  (`Unable to shutdown process P via Signals.SIGTERM, forcefully exiting via Signals.SIGKILL`); since torch 2.x those
  ranks' own -15/-9 are then written into the table "for bookkeeping": the launcher's own kills, not a cause.
- deepspeed/launcher/launch.py: the first child polled with a non-zero return code is reported once
  (`[launch.py:N:sigkill_handler] [cmd] exits with return code = N`); its `cmd` is the LAST rank spawned (a loop
  variable), so the line does not say which rank failed.
- torch/multiprocessing/spawn.py: `process R terminated with exit code N` / `process R terminated with signal SIGX`.
"""

from __future__ import annotations

# a section header of torch elastic's table, and the borders that close a table
ELASTIC_SECTION = r"^.{0,60}?\b(Root Cause\b|(?:Other )?Failures:)"
ELASTIC_BORDER = r"^.{0,60}?(?:={5,}|\*{5,})\s*$"
# one row of the table: its global rank, local rank, exit code and pid (torch 1.9's rows have no `host` field)
ELASTIC_ROW = (r"^.{0,60}?\brank\s*:\s*(\d+) \(local_rank: (\d+)\)\s*\n.{0,60}?\bexitcode\s*:\s*(-?\d+) "
               r"\(pid: (\d+)\)")
# the agent's line for the first failure (SubprocessContext) or the failed worker (MultiprocessContext)
ELASTIC_FIRST = r"failed \(exitcode: (-?\d+)\) local_rank: (\d+) \(pid: (\d+)\)"
DEEPSPEED_FIRST = r"exits with return code = (-?\d+)"
SPAWN_FIRST = r"process (\d+) terminated with (?:exit code (-?\d+)|signal (SIG[A-Z]+))"
# the launcher killing a rank that ignored its SIGTERM (torch elastic's _close)
FORCED_KILL = r"Unable to shutdown process (\d+) via \S+, forcefully exiting via \S*SIGKILL"

# what a rank's end tells, by its exit code as the launchers print it (a negative code: killed by that signal;
# 128+N: the same through a shell or a container). Title words and the next step.
SIGNALS: dict[int, tuple[str, str]] = {
    -9: ("SIGKILL", "killed from outside the process (the host's OOM killer most often: check `dmesg -T | grep -i "
                    "'killed process'` for its PID; else a scheduler or a user's kill -9)"),
    -7: ("SIGBUS", "a bus error: a memory-mapped page that could not be backed, most often /dev/shm too small in a "
                   "container (check `df -h /dev/shm`)"),
    -11: ("SIGSEGV", "a native crash (segmentation fault) inside the rank: a C/C++/GPU library, not Python; rerun "
                     "the rank alone under `gdb -ex r -ex bt --args python ...` (or with faulthandler: "
                     "`python -X faulthandler`) to see which library"),
    -6: ("SIGABRT", "the rank aborted itself (a C++ exception or assertion in a library, or the NCCL/RCCL "
                    "watchdog taking the process down): its own last lines say which"),
    -4: ("SIGILL", "an illegal instruction: a binary built for another CPU or GPU architecture"),
    -15: ("SIGTERM", "terminated from outside (a scheduler's time limit or preemption, a user's kill, or the launcher "
                     "stopping the others after a first failure)"),
    -2: ("SIGINT", "interrupted (Ctrl-C)"),
}
# a rank that exited by itself with a code of its own
EXIT_CODES: dict[int, tuple[str, str]] = {
    1: ("an error of its own", "its own exception is the cause: its traceback above (torch elastic's table shows it "
                               "in the root-cause row when the script's entry point is wrapped in @record)"),
    2: ("a usage error", "its command line was refused (argparse exits 2): the argument named just above it"),
}
# 128+N as shells, containers and GNU tools report a signal death
SHELL_SIGNAL_BASE = 128

# several ranks on one node, as the launchers write it: DeepSpeed's exit line names the LAST rank it spawned on the node
# (`'--local_rank=3'] exits with return code`) and logs each spawn (`process N spawned with command: [...,
# '--local_rank=1', ...]`) and `nnodes=1, num_local_procs=4`; its `WORLD INFO DICT: {'host': [0, 1, ...]}`; torchrun's
# and deepspeed's own flags (--nproc_per_node / --nproc-per-node / --num_gpus 2+); torch elastic's first-failure line
# for a local rank past 0; torchrun's per-rank prefixes (`[rank1]:`, `[default1]:`). Such ranks exchange data through
# NCCL/RCCL, whose buffers are /dev/shm segments (misc/shmutils.cc), whatever else the log shows
RANKS_ON_NODE = (r"'--local_rank=[1-9]\d*'|\bnum_local_procs=(?:[2-9]|\d{2,})\b|"
                 r"WORLD INFO DICT: \{'[^']+': \[0, 1\b|--nproc[_-]per[_-]node[= ](?:[2-9]|\d{2,})\b|"
                 r"--num_gpus[= ](?:[2-9]|\d{2,})\b|\) local_rank: [1-9]\d* \(pid|^\[(?:rank|default)[1-9]\d*\]:")
# the container's /dev/shm set by hand (its size is then the user's, not Docker's 64 MB default)
SHM_SET = r"--ipc[= ]host\b|--shm-size\b|--shm_size\b"

# what every rank does in host RAM before training, as the libraries' progress bars and logs word it (beyond the ones
# diagnose.py's _HOST_PHASE already reads): HF datasets' progress bars (arrow_dataset.py: `Filter`, `Loading dataset
# shards`, `Saving the dataset (N/M shards)`, `Concatenating`), TRL SFTTrainer's dataset steps (`Applying chat template
# to train dataset`, `Tokenizing train dataset`, `Packing train dataset`, `Truncating train dataset`, `Adding EOS to
# train dataset`, `Converting train dataset to ChatML`), run_clm's `Grouping texts in chunks of N`, transformers'
# `loading weights file`, vLLM's `Loading safetensors checkpoint shards`
HOST_PHASE_MORE = (r"(?:^|\s)Filter(?: \(num_proc=\d+\))?:|Loading dataset shards|Saving the dataset \(\d+/\d+ shards\)|"
                   r"Applying chat template to \w+ dataset|(?:Packing|Truncating) \w+ dataset|Adding EOS to \w+ dataset|"
                   r"Converting \w+ dataset to ChatML|Grouping texts in chunks of \d+|loading weights file|"
                   r"Loading (?:safetensors|pt) checkpoint shards")

# a RANK (or one of its worker processes) killed by SIGKILL while its launcher lived on, as the launchers and torch
# write it — not a shell's `Killed` of the whole command, which is as often a user's kill -9 of a hung job
RANK_KILLED = (r"exitcode\s*:?\s*-9\b|exits with return code = -9\b|Signal 9 \(SIGKILL\) received by PID|"
               r"terminated with signal:? ?(?:9|SIGKILL)\b|died with <Signals\.SIGKILL: 9>|non-zero exit status -9\b|"
               r"is killed by signal: Killed|DataLoader worker \(pids?\(?s?\)? ?[\d, ]+\) exited unexpectedly|"
               r"srun: error: \S+: tasks? [\d,-]+: Killed|ssh exited with exit code 247\b|exit status 247\b|"
               r"EXIT STRING: Killed \(signal 9\)|exit(?:ed|s)? with status code (?:137|-9)\b|"
               # e-rank: CPython's multiprocessing (process.py BaseProcess.__repr__, _exitcode_to_name): a Process
               # object's repr once a signal ended it, as asserts and pool errors print it
               r"\bexitcode=-SIGKILL\b")
