"""explain's fallback when no rule reads the deciding line: which family the log's error lines resemble.

The lexicon (rocm_tune/profiles/explain_lexicon.json) is made by tools/build_explain_lexicon.py from the
`evidence_lines` of the FIT part of the corpus only (benchmarks/corpus/logs/*/case.json, "split": "fit"): per family,
the counts of the words of its deciding lines (multinomial naive Bayes with Laplace smoothing). Its smoothing, the
confidence threshold and the other choices were made by cross-validation over the fit cases; the file records them,
the number of fit cases and a hash of its inputs (tests/test_explain_lexicon.py keeps it equal to what the generator
makes now).

`error_lines(data)` picks a log's error-like lines (an exception line, error/failed/fatal/abort, a signal) in its
newest part, never a harmless warning (a warning-level line is read only when it names a failure: NCCL's `NCCL WARN
... failed`); `classify(lines)` answers (family, confidence, the line that resembles it
most) or None when no family wins clearly. e-unk2: `guess(lines)` is the second, weak tier - below the confident
threshold, the best failure family when it is still ahead by the CV-chosen lead - which explain shows as a guess
(`by-resemblance-weak`). Pure Python; the JSON is read once, on first use.
"""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache

from rocm_tune.core.runs import catalogue as cat

LEXICON = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))),
                       "profiles", "explain_lexicon.json")
CODE = "by-resemblance"
CODE_WEAK = "by-resemblance-weak"   # e-unk2: the weak tier's answer, a guess (resemble.guess)
TAIL_BYTES = 32 * 1024        # the newest part of a log whose error lines are read
MAX_LINES = 12                # the newest distinct error lines kept (r5-cv: 12 over 8 by benchmarks/explain_cv.py)
LINE_MAX = 600                # characters of one line looked at
# families that are no failure: a line resembling them most is no answer
NOT_A_CAUSE = frozenset({"benign_warning", "hipblaslt_warning", "unknown"})

# the shapes of a failure line: error words, a signal, and what a failed call says instead (not found, invalid,
# timed out, NaN, exit status); the broader set was chosen over the bare error words by CV on the fit cases
_ERRORISH = re.compile(r"error|exception|fail|fatal|abort|traceback|segmentation fault|core dumped|"
                       r"\bSIG(?:SEGV|ABRT|BUS|ILL|KILL|TERM|FPE)\b|\bsignal \d+|\bkill|denied|cannot|unable to|"
                       r"not found|no such file|invalid|unsupported|not supported|mismatch|timed? ?out|\bhang|\bnan\b|"
                       r"refused|out of memory|unknown|errno|not (?:a )?valid|could not|couldn't|"
                       r"exit(?:ed)? (?:code|status)|exitcode|"
                       # r5-cv (chosen by benchmarks/explain_cv.py): a GPU's memory fault, a loader's undefined symbol,
                       # C++'s uncaught exception, an assertion, a launcher's child return code
                       r"\bfault\b|undefined symbol|terminate called|bad_alloc|\bassert|return code", re.I)
# r5-cv: a whole line that is only the shell's word for a killed/crashed child (shorter than a line is looked at)
_SHORT_FATAL = re.compile(r"^(?:Killed|Aborted|Segmentation fault)(?: \(core dumped\))?$")
# a warning by its level: the word, glog's `W1127 ...` and c10's `[W socket.cpp:601]` / `[W1127 12:00:00 ...]`
_WARN_LEVEL = re.compile(r"\bwarn(?:ing)?s?\b|^\s*W\d{4} |^\s*\[W(?:\d{4}\b| )", re.I)
_SKIP = re.compile(r"^\s*(?:Traceback \(most recent call last\)|File \"|During handling of the above|The above exception)|"
                   r"it/s\]|s/it\]|^\s*\d+%\||"
                   # e-cfgerr (issue 26): torch.utils.collect_env's report of a field it could not read (`CUDA runtime
                   # version: Could not collect`, `Nvidia driver version: Could not collect` on a ROCm box): a report
                   # users paste into every issue, not an error of the run
                   r"^[\w .()/+-]{2,60}: Could not collect\s*$")

_HEX = re.compile(r"0x[0-9a-fA-F]+|\b[0-9a-fA-F]{8,}\b")
_WORD = re.compile(r"[A-Za-z]+")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+")
STOP = frozenset("""
a an the and or of to in on at by for from with without as is are was were be been being it its this that these those
there here not no but if then than so such into onto over under out up down can could will would should may might must
do does did done has have had having which who whom what when where why how all any each both few more most other some
own same too very just only also again once per via you your we our they their he she his her them us me my i
line file py pyc home usr lib lib64 local site packages dist python opt conda envs env venv miniconda anaconda root
workspace mnt tmp var bin etc src self rank default pid tid node host localhost
""".split())


def tokens(line: str, features: str = "words") -> list[str]:
    """The words of a log line: lower case, identifiers split at . _ / : - and camelCase (an identifier of several
    parts also kept whole: `OutOfMemoryError` -> out, memory, error, outofmemoryerror), numbers, hex and addresses
    dropped, stop-words (and path noise like site-packages) out. `features` names the cut a lexicon records; "words"
    is the only one (e-unk2 tried word pairs: no gain under outer CV, not kept)."""
    if features != "words":
        raise ValueError(f"unknown lexicon features {features!r}")
    return list(_tokens(line))


@lru_cache(maxsize=8192)
def _tokens(line: str) -> tuple[str, ...]:
    out: list[str] = []
    for w in _WORD.findall(_HEX.sub(" ", line[:LINE_MAX])):
        parts = _CAMEL.findall(w)
        if len(parts) > 1:
            parts.append(w)
        for p in parts:
            p = p.lower()
            if len(p) > 1 and p not in STOP:
                out.append(p)
    return tuple(out)


# e-unk (CV in benchmarks/explain_cv.py): a warning-level line that still says something failed is read - NCCL/RCCL
# have no error level (their debug.h WARN() prints every failure as `NCCL WARN Call to connect failed`, `NET/IB : Got
# completion with error`), DeepSpeed logs a failed step at [WARNING]: the words of a failure itself (CV: the
# catalogue's broader _FAILING_WORDS - cannot, not available, nan - read more notes and decided less often).
# A Python warning (`UserWarning: ... failed`) stays out: the run went on past it; so does c10's/glog's one-letter
# level (`[W socket.cpp:601] ... has failed to connect`): c10d logs each failed attempt there and raises when it gives up
_FAILING_WARN = re.compile(r"\bfail(?:ed|ure)?\b|\berror\b|\bfatal\b|timed? ?out|\bkilled\b|abort", re.I)
_LETTER_WARN = re.compile(r"^\s*W\d{4} |^\s*\[W(?:\d{4}\b| )")


def _harmless(line: str) -> bool:
    """A Python warning (`UserWarning: ...`: the run went on), a line the catalogue calls harmless, or a logger's
    warning level that says nothing failed."""
    if cat._WARNING_LINE.search(line):
        return True
    m = cat.best_match(line)
    if m and m[0].benign:
        return True
    if not _WARN_LEVEL.search(line):
        return False
    return bool(_LETTER_WARN.search(line)) or not _FAILING_WARN.search(line)


def error_lines(data: bytes | str, tail: int = TAIL_BYTES) -> list[tuple[int, str]]:
    """(offset in `data`, line) of the newest MAX_LINES distinct error-like lines in the last `tail` bytes, oldest
    first; never a Python warning, a logger's warning that names no failure or a line the catalogue calls harmless."""
    raw = data.encode("utf-8", "replace") if isinstance(data, str) else data
    start = max(0, len(raw) - tail)
    if start:
        start = raw.find(b"\n", start) + 1 or len(raw)
    found: list[tuple[int, str]] = []
    seen: set[str] = set()
    end = len(raw)
    while end > start and len(found) < MAX_LINES:
        s = raw.rfind(b"\n", start, end) + 1
        if s <= 0:
            s = start
        line = raw[s:end].decode("utf-8", "replace").replace("\x00", "").strip()
        end = s - 1
        if (len(line) < 8 and not _SHORT_FATAL.match(line)) or not _ERRORISH.search(line) or _SKIP.search(line):
            continue
        key = re.sub(r"\d+", "0", line[:LINE_MAX])
        if key in seen or _harmless(line):
            continue
        seen.add(key)
        found.append((s, line[:LINE_MAX]))
    return found[::-1]


class Model:
    """Multinomial naive Bayes over the families' token counts (Laplace smoothing `alpha`); `features` says how a line
    is cut into tokens (see `tokens`). e-unk2 also tried complement naive Bayes: no gain under outer CV, not kept."""

    def __init__(self, counts: Mapping[str, Mapping[str, int]], docs: Mapping[str, int], alpha: float,
                 prior: str = "uniform", kind: str = "nb", features: str = "words"):
        self.counts = counts
        self.docs = docs
        self.kind = kind
        self.features = features
        self.vocab = frozenset(t for c in counts.values() for t in c)
        v = len(self.vocab) or 1
        n_docs = sum(docs.values()) or 1
        self.alpha = alpha
        self.log_prior = {f: (math.log(docs[f] / n_docs) if prior == "empirical" else 0.0) for f in counts}
        self.denom = {f: math.log(sum(c.values()) + alpha * v) for f, c in counts.items()}
        if kind != "nb":
            raise ValueError(f"unknown lexicon model {kind!r}")
        self._rows: dict[str, tuple[float, ...]] = {}   # a word's log-probability in each family, made once

    def tokens(self, line: str) -> list[str]:
        return tokens(line, self.features)

    def _row(self, t: str) -> tuple[float, ...]:
        r = self._rows.get(t)
        if r is None:
            r = self._rows[t] = tuple(math.log(c.get(t, 0) + self.alpha) - self.denom[f] for f, c in self.counts.items())
        return r

    def scores(self, toks: Iterable[str]) -> tuple[dict[str, float], int]:
        """(per-family log-likelihood, number of known tokens)."""
        rows = [self._row(t) for t in toks if t in self.vocab]
        out = {f: self.log_prior[f] + sum(r[i] for r in rows) for i, f in enumerate(self.counts)}
        return out, len(rows)

    def posterior(self, toks: Iterable[str]) -> tuple[list[tuple[str, float]], int]:
        """Families by tempered posterior (log-likelihoods over the square root of the known tokens, softmaxed: naive
        Bayes's raw posterior is near 1 for any line of a few words), best first."""
        s, n = self.scores(toks)
        if n == 0:
            return [], 0
        top = max(s.values())
        ex = {f: math.exp((v - top) / math.sqrt(n)) for f, v in s.items()}
        z = sum(ex.values())
        return sorted(((f, e / z) for f, e in ex.items()), key=lambda fe: (-fe[1], fe[0])), n


def best_guess(model: Model, lines: Sequence[str], combine: str = "pooled") -> tuple[str, float, int, str] | None:
    """(family, confidence, known words, line) of the failure family the lines resemble most (`ranked_guess`
    without the lead)."""
    got = ranked_guess(model, lines, combine)
    return None if got is None else got[:4]


def ranked_guess(model: Model, lines: Sequence[str], combine: str = "pooled") -> tuple[str, float, int, str, float] | None:
    """(family, confidence, known words, line, lead over the runner-up family) of the failure family the lines
    resemble most, before any threshold. combine "pooled": all lines' words together, the line most like the winner
    shown; "maxline" (r5-cv, chosen by CV in benchmarks/explain_cv.py): each line on its own, the most confident
    line whose best family is a failure (a launcher's teardown or a generic line next to the deciding one does not
    dilute it)."""
    if combine == "maxline":
        best = None
        for ln in lines:
            post, n = model.posterior(model.tokens(ln))
            if post and post[0][0] not in NOT_A_CAUSE and (best is None or post[0][1] > best[1]):
                best = (post[0][0], post[0][1], n, ln, _lead(post))
        return best
    post, n = model.posterior([t for ln in lines for t in model.tokens(ln)])
    if not post or post[0][0] in NOT_A_CAUSE:
        return None
    fam, p = post[0]
    return fam, p, n, max(lines, key=lambda ln: (_line_score(model, ln, fam), -lines.index(ln))), _lead(post)


def _lead(post: Sequence[tuple[str, float]]) -> float:
    return post[0][1] - (post[1][1] if len(post) > 1 else 0.0)


def decide(model: Model, lines: Sequence[str], threshold: float, min_tokens: int,
           combine: str = "pooled") -> tuple[str, float, str] | None:
    """(family, confidence, the line most like it) when one failure family wins clearly, else None."""
    got = best_guess(model, lines, combine)
    if got is None or got[2] < min_tokens or got[1] < threshold:
        return None
    return got[0], got[1], got[3]


def weak_decide(model: Model, lines: Sequence[str], limits: Mapping) -> tuple[str, float, str] | None:
    """e-unk2: the second, weak tier - (family, confidence, line) when the confident tier refuses (below
    `threshold`) but the best failure family still has `weak_threshold` confidence, a lead of `weak_margin` over
    the runner-up and `min_tokens` known words (the limits chosen by CV in tools/build_explain_lexicon.py, right
    answers counted with "unknown" as wrong); a guess, never a harmless family (best_guess names none)."""
    if "weak_threshold" not in limits:
        return None
    got = ranked_guess(model, lines, limits.get("combine", "pooled"))
    if got is None or got[2] < int(limits["min_tokens"]) or got[1] >= float(limits["threshold"]):
        return None
    if got[1] < float(limits["weak_threshold"]) or got[4] < float(limits["weak_margin"]):
        return None
    return got[0], got[1], got[3]


def _line_score(model: Model, line: str, fam: str) -> float:
    post, _ = model.posterior(model.tokens(line))
    return dict(post).get(fam, 0.0)


def model_of(data: Mapping) -> Model:
    """The model a lexicon (the JSON tools/build_explain_lexicon.py writes) describes."""
    return Model(data["counts"], data["docs"], float(data["alpha"]), data.get("prior", "uniform"),
                 data.get("model", "nb"), data.get("features", "words"))


@lru_cache(maxsize=1)
def lexicon() -> tuple[Model, dict] | None:
    """The shipped lexicon (read once), or None when the file is absent or unreadable."""
    try:
        with open(LEXICON, encoding="utf-8") as f:
            data = json.load(f)
        m = model_of(data)
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return m, data


def classify(lines: Sequence[str]) -> tuple[str, float, str] | None:
    """The shipped lexicon's answer for a log's error lines (see `decide`)."""
    lx = lexicon()
    if lx is None or not lines:
        return None
    model, data = lx
    return decide(model, lines, float(data["threshold"]), int(data["min_tokens"]), data.get("combine", "pooled"))


def guess(lines: Sequence[str]) -> tuple[str, float, str, int] | None:
    """The shipped lexicon's weak-tier answer (see `weak_decide`) with the number of fit cases of that family;
    None when `classify` would answer, or nothing is ahead enough."""
    lx = lexicon()
    if lx is None or not lines:
        return None
    model, data = lx
    got = weak_decide(model, lines, data)
    return None if got is None else (*got, int(model.docs.get(got[0], 0)))


# family -> (what such a failure is, the generic first step): the texts of a `by-resemblance` answer
FAMILY_TEXT: dict[str, tuple[str, str]] = {
    "gpu_oom": ("GPU memory ran out", "lower the micro-batch or sequence length, turn on gradient checkpointing, or "
                "shard/offload (ZeRO-3, FSDP); `rocm-tune check` on the config says what fits"),
    "host_ram_oom": ("host RAM ran out (the OOM killer or an allocation in CPU memory)", "offload less to the CPU, "
                     "load the model with low_cpu_mem_usage, use fewer dataloader workers, or a node with more RAM; "
                     "`dmesg` shows the OOM killer"),
    "nccl_rccl_timeout_hang": ("a collective (NCCL/RCCL) failed or timed out", "rerun with NCCL_DEBUG=INFO; check "
                               "peer-to-peer (iommu=pt, NCCL_P2P_DISABLE=1 to confirm), the network interface "
                               "(NCCL_SOCKET_IFNAME) and that every rank reached the same step"),
    "ddp_error": ("distributed data parallel rejected the model or its gradients", "set ddp_find_unused_parameters "
                  "to match the model (true for models with unused branches), and keep every rank on the same graph"),
    "fp16_overflow": ("fp16 overflowed (loss scale collapsed, NaN or 0.0 loss)", "train in bf16 where the GPU has "
                      "it, or fp32; in fp16 lower the learning rate and clip gradients"),
    "bf16_unsupported": ("bf16 is not supported here", "use fp16 (or fp32) on this GPU: --bf16 false --fp16 true"),
    "hip_error": ("the ROCm/HIP runtime or a ROCm library failed", "use the PyTorch wheel built for the installed "
                  "ROCm, check the GPU is supported (HSA_OVERRIDE_GFX_VERSION on consumer cards), rerun with "
                  "AMD_LOG_LEVEL=3 AMD_SERIALIZE_KERNEL=3 to see the failing call"),
    "deepspeed_build_jit": ("a DeepSpeed (or other JIT) op failed to build", "install the compiler and the "
                            "CUDA/ROCm headers matching torch, or prebuild the ops (DS_BUILD_CPU_ADAM=1 ...); "
                            "`ds_report` shows each op"),
    "version_check": ("installed library versions do not match what the code expects", "install the versions the "
                      "runner pins (its requirements file) in a fresh environment"),
    "dataset_error": ("reading or formatting the dataset failed", "check the dataset file, its columns/format and "
                      "the dataset settings the runner reads"),
    "tokenizer_template": ("the tokenizer or chat template failed", "check the template name and the tokenizer's "
                           "chat_template and special tokens (pad/eos)"),
    "hf_cache_permission": ("a cache or device file is not writable/readable", "point HF_HOME / the cache at a "
                            "writable directory, fix its owner, and check access to /dev/kfd and /dev/dri"),
    "unrecognized_model_type_adapter": ("the model type or adapter is not known to this library version",
                                        "upgrade transformers/peft to a release that knows the model, or load it "
                                        "with trust_remote_code"),
    "checkpoint_resume_mismatch": ("the checkpoint does not match this run", "resume with the settings (world "
                                   "size, model, adapter) it was saved with, or start fresh"),
    "slurm_time_limit_preemption": ("the scheduler ended the job (time limit or preemption)", "request more time, "
                                    "save checkpoints more often and resume from the last one"),
    "disk_full_save": ("the disk filled up (or a quota) while writing", "free space or write checkpoints elsewhere; "
                       "keep fewer checkpoints (save_total_limit)"),
    "cuda_error": ("the CUDA runtime or driver failed", "check the driver matches the CUDA of the PyTorch wheel and "
                   "rerun with CUDA_LAUNCH_BLOCKING=1 to see the failing call"),
    "nan_loss": ("the loss became NaN", "lower the learning rate, clip gradients, check the data for empty or "
                 "extreme samples, resume from the last good checkpoint"),
    "missing_package": ("a package or module is missing", "install the package the message names in the run's "
                        "environment"),
    "flash_attn_error": ("FlashAttention failed (build, GPU or arguments)", "use sdpa/eager attention, or a "
                         "flash-attn built for this torch and GPU"),
    "config_error": ("a setting of the run was rejected", "correct the setting the message names"),
    "model_download": ("fetching or reading the model files failed", "download the model again to a local directory "
                       "(check the hub id, the token for gated repos, the network/mirror) and point the run at it"),
    "launcher_exit": ("the launcher reported a child process that failed", "look above for the first rank's own "
                      "error; rerun with one process to see it"),
}


def texts(family: str, confidence: float) -> tuple[str, str, str, str]:
    """(title, cause, fix, confirm) of a `by-resemblance` answer."""
    what, fix = FAMILY_TEXT.get(family, ("a failure of this family", "read the line shown"))
    title = (f"no rule reads the deciding line; it resembles {family} ({what}), confidence {confidence:.0%} - "
             "a guess from resemblance, not a rule")
    cause = (f"the log's newest error lines share their words with the deciding lines of {family} cases in "
             f"rocm-tune's corpus ({what}); no signature of the catalogue reads them, so this answer is weak")
    confirm = ("read the line shown: if it is not about this, the cause is one the catalogue does not know yet "
               "(`explain --json` carries the line and the confidence)")
    return title, cause, f"if it is {what}: {fix}", confirm


def weak_texts(family: str, confidence: float, known: int, line: str) -> tuple[str, str, str, str]:
    """(title, cause, fix, confirm) of a `by-resemblance-weak` answer: said plainly to be a guess, the fix the
    family's first check phrased as a check."""
    what, fix = FAMILY_TEXT.get(family, ("a failure of this family", "read the line shown"))
    shown = line if len(line) <= 160 else line[:157] + "..."
    title = (f"a guess: not a message rocm-tune knows; it most resembles {family} ({known} known cases), "
             f"confidence {confidence:.0%}: {shown}")
    cause = (f"no rule of rocm-tune's catalogue reads this log's error lines; their words are closest to the "
             f"{family} cases of rocm-tune's corpus ({what}), but not close enough for a confident answer - this "
             "is a guess, not a diagnosis")
    confirm = ("read the line shown: if it is not about this, the cause is one rocm-tune does not know yet "
               "(`explain --json`: \"guess\" is true, root.numbers has the family, the confidence and the line)")
    return title, cause, f"check first whether it is {what}; if so: {fix}", confirm
