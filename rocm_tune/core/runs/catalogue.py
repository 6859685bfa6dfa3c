"""The one catalogue of failure signatures: `attach`'s alerts, the monitor and `explain` all read it.

Each `Signature` is a stable kebab-case `code` in a `family` (the vocabulary of `rocm-tune explain`,
`FAMILIES`), with its severity, whether it is `benign` (a harmless scary line: never the root cause
while a real one exists), its `role` in a failure (`root`: names a cause; `weak`: a cause only when
nothing more specific is there, e.g. a bare SIGKILL; `consequence`: what other ranks/launchers do
after a failure, e.g. watchdog timeouts, ChildFailedError; `context`: benign), the cause, the fix,
how to confirm it, and regexes over the log formats users post (torch CUDA/HIP 1.x and 2.x,
NCCL/RCCL, DeepSpeed, transformers, accelerate, LLaMA-Factory, Axolotl, ms-swift, Slurm). Every
regex contains one of its `keywords` literally, so one cheap alternation of keywords finds the
candidate lines of a huge log (`PREFILTER`) before any regex runs.

Where a line format comes from is noted per signature (`sources`): the calibration cases in
shared/calibration/real-crashes, the field reports in shared/seeds, or the public thread.
Existing alert codes are kept as catalogue codes (`oom`, `collective-timeout`,
`version-check-failed`, `ddp-mark-ready-twice`, `hipblaslt-unsupported`, `fp16-overflow-streak`); a code
has one severity and one meaning wherever it is shown: core/codebook.py joins these entries with core/codes.py's
(plan, check, preflight, doctor, alerts) into the one registry of codes (tests/test_codes.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from rocm_tune.core import codes as _codes
from rocm_tune.profiles import amd_attention as _amdattn
from rocm_tune.profiles import amd_errors as _amd
from rocm_tune.profiles import blas_status as _blas
from rocm_tune.profiles import collective_causes as _cc
from rocm_tune.profiles import collective_sizes as _csizes
from rocm_tune.profiles import exception_sources as _xsrc
from rocm_tune.profiles import paddle_errors as _pd

FAMILIES: tuple[str, ...] = (
    "gpu_oom", "host_ram_oom", "nccl_rccl_timeout_hang", "ddp_error", "fp16_overflow", "bf16_unsupported",
    "hip_error", "hipblaslt_warning", "deepspeed_build_jit", "version_check", "dataset_error", "tokenizer_template",
    "hf_cache_permission", "unrecognized_model_type_adapter", "checkpoint_resume_mismatch",
    "slurm_time_limit_preemption", "disk_full_save",
    # found in real threads beyond the issue's list
    "cuda_error", "nan_loss", "missing_package", "flash_attn_error", "config_error", "model_download", "benign_warning",
    "launcher_exit", "unknown",
)

PRIORITY = {"root": 3, "weak": 2, "consequence": 1, "context": 0}


@dataclass(frozen=True)
class Signature:
    code: str
    family: str
    severity: str                    # error | warning | info
    role: str                        # root | weak | consequence | context
    title: str                       # one line: what the line means
    cause: str
    fix: str
    confirm: str
    patterns: tuple[str, ...]
    keywords: tuple[str, ...]        # literal substrings; every match of a pattern contains one
    benign: bool = False
    hang: bool = False               # the run hangs rather than exits (status "hang")
    tail_only: bool = False          # a sign only when no progress follows it (a barrier and nothing after)
    sources: tuple[str, ...] = ()
    flags: int = 0                   # re flags of the patterns (re.IGNORECASE)
    compiled: tuple[re.Pattern, ...] = field(default=(), compare=False, repr=False)

    @property
    def priority(self) -> int:
        return 0 if self.benign else PRIORITY[self.role]

    def match(self, line: str) -> re.Match | None:
        comp = self.compiled
        if not comp and self.patterns:
            # compiled when first asked (a line that passed the keyword prefilter): most of the ~800 patterns are
            # never needed for one log, and compiling them all made importing the catalogue cost 0.2 s or more
            comp = tuple(re.compile(p, self.flags) for p in self.patterns)
            object.__setattr__(self, "compiled", comp)
        for rx in comp:
            m = rx.search(line)
            if m:
                return m
        return None

    def to_dict(self) -> dict:
        return {"code": self.code, "family": self.family, "severity": self.severity, "benign": self.benign,
                "role": self.role, "title": self.title, "cause": self.cause, "fix": self.fix,
                "confirm": self.confirm, "hang": self.hang, "patterns": list(self.patterns),
                "sources": list(self.sources)}


# issue 26 (explain-sw): the commands that start a fine-tuning run (runners' CLIs, launchers, the interpreter)
_RUN_CMDS = (r"(?:llamafactory-cli|lmf|swift|megatron|axolotl|accelerate|deepspeed|torchrun|tune|trl|python3?(?:\.\d+)?|"
             r"pip3?|huggingface-cli|hf|vllm|ds_report|colossalai|composer|litgpt|xtuner|modelscope|unsloth|openrlhf)")


# the file Python took module \1 from, printed after `cannot import name 'X' from 'M'`, when it is another project's
# module of that name (EXCEPTION_RULES: a file of the user's shadows the package): outside site/dist-packages and
# Python's lib, in a folder that is neither a checkout's src/ nor the package's own repository (an editable install)
def _shadowing_file(ref: str) -> str:
    """The regex of that file, the module being group `ref` (`\\1`) of the whole pattern."""
    return (r"\((?![^)\n]*(?:site|dist)-packages)(?![^)\n]*[/\\]lib[/\\]python\d)[^)\n]*[/\\](?!src[/\\])"
            r"(?!(?i:" + ref + r")[/\\])[^/\\)\n]+[/\\]" + ref + r"(?:\.py|[/\\]__init__\.py)\)")


def _sig(code, family, severity, role, title, cause, fix, confirm, patterns, keywords, **kw) -> Signature:
    ic = kw.pop("ignorecase", False)
    if ic:  # the prefilter is case-sensitive: list the spellings a log uses
        keywords = tuple(dict.fromkeys([*keywords, *(k.lower() for k in keywords), *(k.upper() for k in keywords)]))
    return Signature(code, family, severity, role, title, cause, fix, confirm, tuple(patterns), tuple(keywords),
                     flags=re.IGNORECASE if ic else 0, **kw)


def _texts(code: str, family: str, role: str) -> tuple[str, str, str, str, str, str, str, str]:
    """(code, family, severity, role, title, cause, fix, confirm) of a code whose home is core/codes.py (a fact
    other families emit too)."""
    e = _codes.own(code)
    return (code, family, e.severity, role, e.title, e.cause, e.fix, e.confirm)


def _blas_nums(table: dict[int, str], *, alloc: bool) -> str:
    """A regex of a BLAS status printed by number (`HIPBLASLT Error: 6`): the allocation failures (`alloc`) or
    the other failures of `table` (profiles/blas_status.py), never a longer number or a version."""
    vals = [str(v) for v, n in table.items() if n not in _blas.NOT_FAILURE and (n in _blas.ALLOC_FAILURE) == alloc]
    return r"(?:" + "|".join(sorted(vals, key=len, reverse=True)) + r")(?![\d.]\d)\b"


# e-blas: a status printed by number after its library's name (TE's NVTE_CHECK_HIPBLASLT `HIPBLASLT Error: 6`,
# programs' HIPBLASLT_CHECK / HIPBLAS_CHECK / ROCBLAS_CHECK `hipBLASLt error: 6`, `rocBLAS error: 5`,
# `hipBLASLt error: <what> (status 6)`), and TE's cuBLAS check by cublasGetStatusString's text
_HIPBLAS_BY_NUM = r"(?i:\bhip_?blas(?:lt)? error):\s*(?:.{0,200}\(status\s*)?"
_ROCBLAS_BY_NUM = r"(?i:\brocblas error):\s*"
_CUBLAS_BY_NUM = r"(?i:\bcublas(?:lt)? error):\s*"
_CUBLAS_ALLOC_TEXT = r"(?:" + "|".join(_blas.CUBLAS_ALLOC_TEXTS) + r")"


def _alt(words: tuple[str, ...]) -> str:
    """One regex alternation of literal `words` (longest first, so a text never stops at its own prefix)."""
    return r"(?:" + "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True)) + r")"


# e-amd (issue 26): the HIP runtime's status texts and names (profiles/amd_errors.py, from ROCm/clr hip_error.cpp):
# every failure; the failures RCCL's peer/IPC transport does not raise (a runtime/driver/GPU failure even inside RCCL);
# the allocation failures
_HIP_FAIL_TEXT = _alt(_amd.hip_texts())
_HIP_CORE_FAIL = _alt(_amd.hip_texts(transport=False) + _amd.hip_names(transport=False))
_HIP_ALLOC_TEXT = _alt(_amd.hip_texts(alloc=True) + _amd.hip_names(alloc=True))


# issue 26 (ex-ver): top-level names several distributions share (PEP 420 / pkgutil namespace packages): a
# missing `google.protobuf` is the protobuf package missing, not a mismatched `google`
_NAMESPACE_ROOTS = r"(?:google|nvidia|azure|backports|mpl_toolkits|jaraco|zope|sphinxcontrib|ruamel)\."
# e-ver2 (issue 26): the suggestion Python 3.10+ appends to an AttributeError/NameError (Objects/exceptions.c,
# Python/suggestions.c: `... has no attribute 'x'. Did you mean: 'y'?`; 3.12's `name 'x' is not defined. Did you
# forget to import 'x'?`): the rules anchored at the end of the message read it as the message's end
_DID_YOU_MEAN = r"(?:\. Did you (?:mean|forget to import):? '[\w.]+'\?)?"
# e-cfg4 (issue 26): what a launcher puts before each line a rank/task prints, for the line-anchored patterns: torch's
# `[rank0]:` / `[default0]:`, srun --label's `0: `, pdsh's and DeepSpeed's multi-node runner's `host: `, Ray's
# `(TaskRunner pid=2051) ` / `(WorkerDict pid=3120, ip=10.0.0.2) `
_TASK_PREFIX = r"(?:\[(?:rank|default)\d+\]:\s*|\d+: |[\w.-]+: (?=\S+: )|\(\w+ pid=\d+[^)\n]*\)\s*)?"
_EXPANDABLE = ("PYTORCH_HIP_ALLOC_CONF=expandable_segments:True (ROCm) / "
               "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True (CUDA)")


# e-gen (issue 26): words that make a warning-level line more than a note (it says something failed or is missing
# from the GPU stack): the Python warnings-module and bracketed WARNING patterns of warning-level-note exclude them
_FAILING_WORDS = (r"error|fail|fatal|abort|exception|out of memory|\boom\b|killed|timed? ?out|\bnan\b|overflow|"
                  r"corrupt|no (?:gpu|device|cuda|hip)|not available|unable to|cannot|could not")


# ====================================================================== explain-3 (issue 26, third pass) — BEGIN
# Rules written from the tools' own message sources; they come first in SIGNATURES so that, on a line they match,
# they win over the broader signatures below (Ray's OutOfMemoryError is host RAM, not the GPU's `OutOfMemoryError`;
# MIOpen's own runtime-compile failure is ROCm's DNN library, not torch.compile's HIPRTC).
_EXPLAIN3_SIGNATURES: tuple[Signature, ...] = (
    # integrator (session 13): a library compiling its own kernels at run time (Transformer Engine's rtc.cpp
    # `NVRTC Error: NVRTC_ERROR_COMPILATION` / its ROCm fork's hipRTC, nvrtc's `N errors detected in the compilation
    # of "x.cu"`): FAMILIES.md's deepspeed_build_jit ("DeepSpeed's or another library's JIT/op build") - before
    # torch.compile's HIPRTC reading, which is the user's compile switch
    _sig("library-rtc-compile-failed", "deepspeed_build_jit", "error", "root",
         "a library's run-time kernel compilation failed (NVRTC / hipRTC)",
         "a library that compiles its kernels when first used (Transformer Engine, apex, some fused ops) handed the "
         "kernel source to NVRTC/hipRTC and the compile failed: its headers do not match the installed CUDA/ROCm "
         "toolkit (CUDA_HOME/ROCM_PATH another release than the library's build), or the GPU arch is not one it "
         "supports",
         "make the toolkit the library was built against the one it finds (CUDA_HOME / ROCM_PATH, the cuda-nvrtc / "
         "hiprtc of that release), reinstall the library for the installed torch+CUDA/ROCm, or turn the feature "
         "off (Transformer Engine: its fused kernels / fp8)",
         "the first compile errors above the NVRTC/hipRTC line name the header or symbol; `nvcc --version` / "
         "`hipconfig --version` against the library's build",
         (r"(?:NVRTC|HIPRTC) Error: (?:NVRTC|HIPRTC)_ERROR_\w+",
          r"\d+ errors? detected in the compilation of \"[^\"\n]*\brtc\b[^\"\n]*\.cu\"",
          r"rtc\.cpp:\d+ in function compile: (?:NVRTC|HIPRTC)"),
         ("NVRTC Error", "HIPRTC Error", "errors detected in the compilation", "in function compile"),
         sources=("NVIDIA/TransformerEngine transformer_engine/common/util/rtc.cpp (NVTE_ERROR(\"NVRTC Error: \", ...))",
                  "NVIDIA/TransformerEngine#1018")),
    _sig("ray-oom-killed", "host_ram_oom", "error", "root", "Ray's memory monitor killed a worker: the node's "
         "host RAM crossed Ray's threshold",
         "the node's host RAM use went over Ray's memory-usage threshold (default 0.95) and the raylet killed the "
         "most recently scheduled worker (rollout/actor/dataloader processes holding model copies or data)",
         "need less host RAM per node: fewer workers/actors per node (request more CPUs per task), smaller "
         "rollout/replay buffers, offload only what fits; or a node with more RAM. RAY_memory_usage_threshold "
         "only moves the line",
         "`ray logs raylet.out -ip NODE_IP` lists the killed workers and the top memory users",
         (r"ray\.exceptions\.OutOfMemoryError: Task was killed due to the node running low on memory",
          r"Workers? \(tasks / actors\) killed due to memory pressure \(OOM\)",
          r"RayOutOfMemoryError: More than \d+% of the memory on node",
          # e-rank: the memory monitor's detail on its own line (src/ray/raylet/worker_killing_policy / node_manager.cc:
          # `Memory on the node (IP: ...) where the task ... was running was 32.91GB / 33.28GB (0.988698), which
          # exceeds the memory usage threshold of 0.95. Ray killed this worker (ID: ...) because it was the most
          # recently scheduled task`), wrapped or cut from the exception's first line
          r"exceeds the memory usage threshold of [\d.]+", r"\bRay killed this worker\b",
          # e-new15: the same exit detail as the core worker / GCS print it without the exception's name (`Worker exit
          # type: SYSTEM_ERROR Worker exit detail: Task was killed due to the node running low on memory.`, an
          # ActorDiedError's `Worker exit type: NODE_OUT_OF_MEMORY`: src/ray/core_worker/shutdown_coordinator.cc),
          # and the kill message's pointer to Ray's OOM guide (node_manager.cc, ray-oom-prevention.rst)
          r"\bTask was killed due to the node running low on memory\b", r"Worker exit type: NODE_OUT_OF_MEMORY\b",
          r"Refer to the documentation on how to address the out of memory issue: \S*ray-oom-prevention"),
         ("node running low on memory", "killed due to memory pressure", "RayOutOfMemoryError",
          "exceeds the memory usage threshold", "Ray killed this worker", "NODE_OUT_OF_MEMORY", "ray-oom-prevention"),
         sources=("ray-project/ray python/ray/exceptions.py OutOfMemoryError and src/ray/raylet/node_manager.cc "
                  "(as printed in ray-project/ray#30312, #44574)", "real-stanford/flingbot#11")),
    # e-host2 (issue 26): Ray's report of a worker that vanished without an exit status of its own (src/ray/core_worker:
    # `Worker unexpectedly exits with a connection error code 2. End of file. There are some potential root causes. (1)
    # The process is killed by SIGKILL by OOM killer due to high memory usage. (2) ray stop --force is called. (3) The
    # worker is crashed unexpectedly due to SIGSEGV ...`; Ray's "Debugging Out of Memory" guide: the kernel's OOM
    # killer, check dmesg). Ray's bare -9: weak, any specific cause in the log (a crash, a CUDA/NCCL error) comes first,
    # and it does not make the other workers' collective errors consequences (the worker may have died of those)
    _sig("ray-worker-died", "host_ram_oom", "error", "weak", "a Ray worker died without an exit of its own: killed by "
         "SIGKILL, the host's OOM killer most often (Ray's own first guess)",
         "the worker process vanished (no exception, no exit code): Ray names the kernel's OOM killer first (host RAM "
         "ran out: model copies per actor, rollout buffers, CPU offload), then `ray stop --force`, then a native crash",
         "need less host RAM per node: fewer actors/workers per node, colocate fewer models, smaller rollout or replay "
         "buffers, offload only what fits; or a node with more RAM",
         "`dmesg -T | grep -i 'killed process'` on the worker's node for its PID; `ray logs raylet.out -ip NODE_IP`",
         (r"Worker unexpectedly exits with a connection error code \d+\. End of file\. There are some potential root "
          r"causes\. \(1\) The process is killed by SIGKILL by OOM killer",),
         ("Worker unexpectedly exits",),
         sources=("ray-project/ray doc/source/ray-core/scheduling/ray-oom-prevention.rst (Worker exit type: "
                  "UNEXPECTED_SYSTEM_EXIT ... (1) The process is killed by SIGKILL by OOM killer due to high memory "
                  "usage)",)),
    _sig("miopen-kernel-build-failed", "hip_error", "error", "root", "MIOpen could not compile its kernel for "
         "this GPU",
         "MIOpen builds its convolution/normalisation kernels at run time (comgr / hipRTC / OpenCL); the compile "
         "failed for this GPU: an ISA the installed compiler does not accept (old or consumer gfx, a gfx override), "
         "or a hipRTC without its headers",
         "use the ROCm/MIOpen that matches the PyTorch build and supports the card (or HSA_OVERRIDE_GFX_VERSION to a "
         "supported sibling); as a stopgap disable MIOpen for the failing op (torch.backends.cudnn.enabled=False)",
         "`MIOPEN_ENABLE_LOGGING=1 MIOPEN_LOG_LEVEL=5` on a one-step rerun shows the failing kernel and ISA",
         (r"MIOpen(?:\(HIP\))?: Error \[(?:Compile|BuildHip|BuildOcl|BuildAsm|SetIsaName)\]",
          r"Code object build failed\. Source: MIOpen"),
         ("MIOpen: Error", "MIOpen(HIP): Error", "Code object build failed"),
         sources=("ROCm/MIOpen src/comgr.cpp and src/hipoc/hipoc_program.cpp (Error [Compile] / [BuildHip] / "
                  "[SetIsaName], 'Code object build failed. Source: ...')", "ryujaehun/pytorch-gpu-benchmark#19",
                  "ROCm/legacy-rocm-build#6150")),
    # e-g4 (issue 26): transformers' Trainer.compute_loss (trainer.py: `The model did not return a loss from the
    # inputs, only the following keys: {outputs.keys()}. For reference, the inputs it received are {inputs.keys()}.`)
    # with only a base model's outputs (last_hidden_state, pooler_output, hidden_states, past_key_values: no `logits`
    # of any head): the model class has no task head (AutoModel/BertModel), which no data can fix. Outputs with a
    # head's logits (labels that did not reach the model) stay dataset-error's
    _sig("trainer-model-without-head", "config_error", "error", "root", "the model given to Trainer has no task "
         "head, so it returns no loss",
         "Trainer takes the loss from the model's outputs; a base model class (AutoModel, BertModel, LlamaModel) "
         "returns only hidden states (last_hidden_state, pooler_output), never a loss, whatever the inputs",
         "load the task's class (AutoModelForCausalLM / ...ForSequenceClassification / ...ForQuestionAnswering), "
         "pass the labels it expects (set TrainingArguments.label_names when they are not called `labels`, e.g. "
         "['start_positions', 'end_positions']), or override compute_loss",
         "print(type(model).__name__) and the keys the error lists: a name without `For...` is a base model",
         (r"The model did not return a loss from the inputs, only the following keys: (?![^\n]*?logits)"
          r"[\w,]*(?:\. For reference|\s*$)",),
         ("did not return a loss",),
         sources=("huggingface/transformers src/transformers/trainer.py compute_loss (4.x)",
                  "huggingface forum 'The model did not return a loss from the inputs' (BertModel, AutoModel)")),
    # e-g4 (issue 26): a HIP SDK DLL that the loader (ZLUDA's, a ComfyUI/OneTrainer/SD.Next ZLUDA installer, a
    # program built on one HIP SDK) names by another HIP SDK's version than the ROCm folder it looks in: HIP SDK 5.7
    # ships hiprtc0507.dll and amdhip64.dll, 6.1 hiprtc0601.dll and amdhip64_6.dll, 6.2 hiprtc0602.dll
    # (ZLUDA's README: built for one HIP SDK; lshqqytiger/ZLUDA releases ship -rocm5 and -rocm6 builds)
    _sig("hip-sdk-dll-version-mismatch", "version_check", "error", "root", "a HIP SDK library of another HIP SDK "
         "release was asked for (the loader was built for another HIP SDK than the one installed)",
         "the program or ZLUDA build loads the HIP SDK DLLs by the names of the release it was built for (hiprtcMMmm"
         ".dll, amdhip64.dll / amdhip64_N.dll), which the installed HIP SDK does not ship",
         "install the ZLUDA build (or the program's build) made for the installed HIP SDK (ZLUDA -rocm5 for 5.7, "
         "-rocm6 for 6.x), or install the HIP SDK release it was built for; point HIP_PATH at that release",
         "`dir \"%HIP_PATH%bin\" | findstr /i \"hiprtc amdhip64\"` against the DLL name in the error",
         (r"ROCm[\\/]+(\d+)\.(\d+)[\\/][^'\"\n]*?hiprtc(?!0*\1(?:0*\2)?\.dll)\d{3,4}\.dll",
          r"ROCm[\\/]+(?:[6-9]|\d{2,})\.\d+[\\/][^'\"\n]*?amdhip64\.dll",
          r"ROCm[\\/]+(\d+)\.\d+[\\/][^'\"\n]*?amdhip64_(?!\1\.dll)\d+\.dll"),
         ("hiprtc", "amdhip64"),
         sources=("Nerogar/OneTrainer ZLUDA loader (hiprtc0507.dll under C:\\Program Files\\AMD\\ROCm\\6.1)",
                  "lshqqytiger/ZLUDA releases (rocm5 / rocm6 builds)", "AMD HIP SDK for Windows file lists")),
    # e-g4 (issue 26, FAMILIES.md amended rule 2): libdrm's amdgpu_device_initialize (amdgpu_device.c: `%s:
    # amdgpu_get_auth (1) failed (%i)`): amdgpu_get_auth could not tell the render node from the primary one and
    # its DRM_IOCTL_GET_CLIENT failed: the process may not use the node as given (a container's device permissions,
    # a device plugin's cgroup rule); with strace showing access()/open() of /dev/dri or /dev/kfd refused (EPERM:
    # the device cgroup / seccomp). Weak: desktops print it for a second GPU that nothing uses
    _sig("drm-auth-refused", "hf_cache_permission", "error", "weak", "the GPU's DRM device node was refused to "
         "this process (libdrm could not authenticate the render node)",
         "the render node /dev/dri/renderD* is visible but this process may not use it as a render node: the "
         "container's device permissions (a Kubernetes device plugin's or docker's device cgroup rule, a seccomp "
         "profile) or the node's mode keep it out, so the HIP runtime finds no GPU",
         "give the container the device with read-write permission (docker --device=/dev/dri/renderDN:rw "
         "--device=/dev/kfd, the device plugin's permissions `rw`), and the render/video group of the host "
         "(--group-add); outside containers add the user to render and video",
         "`ls -l /dev/dri /dev/kfd` and `id` in the container; `strace -f -e trace=access,openat` on torch's init",
         (r"amdgpu_device_initialize: amdgpu_get_auth \(\d\) failed \(-?\d+\)",
          r"(?:access|openat?|stat|faccessat2?)\((?:AT_FDCWD, )?\"/dev/(?:dri/\w+|kfd)\".{0,60}= -1 EPERM\b"),
         ("amdgpu_get_auth", "/dev/dri", "/dev/kfd"),
         sources=("mesa/libdrm amdgpu/amdgpu_device.c amdgpu_device_initialize / amdgpu_get_auth",
                  "ROCm/k8s-device-plugin#65 (PyTorch 2.1 ROCm in a pod: amdgpu_get_auth (1) failed (-1))")),
    _sig("deepspeed-setup-needs-torch", "deepspeed_build_jit", "error", "root", "DeepSpeed's setup.py could not "
         "pre-compile its ops: torch is not importable where pip builds it",
         "pip builds DeepSpeed from source in an isolated environment without torch; with DS_BUILD_OPS=1 (the default "
         "on Windows, or set by the user) setup.py asserts that torch is importable",
         "install torch first, then `pip install deepspeed --no-build-isolation` (or DS_BUILD_OPS=0 to JIT-compile "
         "ops at run time); on Windows prefer WSL or a prebuilt wheel",
         "`python -c 'import torch; print(torch.__version__)'` in the same environment as pip",
         (r"Unable to pre-compile ops without torch installed",),
         ("pre-compile ops without torch",),
         sources=("deepspeedai/DeepSpeed setup.py (assert torch_available, \"Unable to pre-compile ops without torch "
                  "installed...\")", "deepspeedai/DeepSpeed#5663", "stochasticai/xTuring#106")),
    _sig("deepspeed-ops-torch-mismatch", "version_check", "error", "root", "DeepSpeed's prebuilt ops were compiled "
         "for another torch version",
         "the installed DeepSpeed's compiled ops were built against a different torch than the one running; DeepSpeed "
         "refuses to load them",
         "reinstall DeepSpeed for the torch in use (pip install --force-reinstall deepspeed, DS_BUILD_OPS=0 to JIT) "
         "or install the torch version it names",
         "`ds_report` shows the torch version DeepSpeed was installed with and the one at run time",
         (r"PyTorch version mismatch! DeepSpeed ops were compiled",),
         ("DeepSpeed ops were compiled",),
         sources=("deepspeedai/DeepSpeed deepspeed/git_version_info / op_builder (\"PyTorch version mismatch! DeepSpeed "
                  "ops were compiled and installed with a different version than what is being used at runtime\")",
                  "daswer123/xtts-webui#111")),
    _sig("checkpoint-write-failed", "disk_full_save", "error", "root", "writing the checkpoint file failed",
         "torch.save's writer got an error from write() while saving: the disk or quota is full, or the (network) "
         "filesystem failed",
         "free space or write checkpoints elsewhere (output_dir on a bigger disk), keep fewer (save_total_limit), "
         "check the filesystem's health/quota",
         "`df -h OUTPUT_DIR` and `quota -s` at the time of the save; `dmesg` for I/O errors",
         (r"\bwrite\(\): fd \d+ failed with ",),
         ("failed with",),
         sources=("pytorch/pytorch torch/csrc/serialization.cpp (\"write(): fd \", fildes, \" failed with \", "
                  "strerror(errno))",)),
    _sig("swift-git-info-unavailable", "benign_warning", "info", "context", "ms-swift could not read the git "
         "version of its checkout (harmless)",
         "ms-swift records its git commit in the output directory at start-up; without git (or outside a git "
         "checkout) it logs this at ERROR level and goes on",
         "nothing", "training goes on after it",
         (r"\[ERROR:swift\] There are error run git command",),
         ("There are error run git command",), benign=True,
         sources=("modelscope/ms-swift#1230 (ms-swift 2.x start-up: '[ERROR:swift] There are error run git command.' "
                  "followed by a normal run)",)),
    # integrator (session 13): ROCclr's `guarantee()` (rocclr/utils/debug.hpp) prints its failed check at log level 0
    # (LOG_NONE, printed whatever AMD_LOG_LEVEL is) in ClPrint's format `:0:<file>.cpp:<line> : <ts> us: <message>`
    # and aborts the process (`Module not initialized` from hipamd/src/hip_global.cpp, `hsa_init failed`): the HIP
    # runtime stopped the run. Level 1-4 lines are AMD_LOG_LEVEL's trace of healthy runs too and stay out.
    _sig("hip-runtime-check-failed", "hip_error", "error", "weak", "the HIP runtime stopped the process (a check "
         "inside it failed)",
         "a consistency check inside ROCm's HIP runtime (ROCclr/hipamd) failed and it aborted the process: the "
         "message names what it found (a module or kernel not loaded for this GPU, a device it could not use, a "
         "queue it could not create); often a GPU the runtime sees but this build or driver does not serve (an "
         "integrated GPU picked as device 0, a card newer than the ROCm release)",
         "make the training GPU the only visible one (HIP_VISIBLE_DEVICES / ROCR_VISIBLE_DEVICES; hide an iGPU), use "
         "the PyTorch wheel built for the installed ROCm and a ROCm release that lists the card; rerun with "
         "AMD_LOG_LEVEL=3 to see the call before the check",
         "`rocminfo | grep -E 'Marketing Name|gfx'` (is an iGPU listed first?) and the line's message",
         # (not the queue aborts and failed inits their own signatures read)
         (r"(?m)^(?:\S+\s+)?:0:\S*?\w+\.(?:cpp|hpp)\s*:\s*\d+\s*:\s*\d+ us:\s*(?:\[pid:\d+ tid:\s*0x[0-9a-f]+\]\s*)?"
          r"(?![^\n]*(?:aborting with|hsa_init failed|Memory access fault))\S",),
         (":0:",),
         sources=("ROCm/clr rocclr/utils/debug.hpp (guarantee -> ClPrint(LOG_NONE) and abort), hipamd/src/hip_global.cpp "
                  "(\"Module not initialized\")", "ROCm/ROCm#2241 (RX 9070 XT beside an iGPU)")),
    _sig("rocclr-queue-abort", "hip_error", "error", "weak", "the ROCm runtime aborted a GPU queue",
         "ROCclr's queue callback saw the GPU report an error on a queue (an HSA status code: a hardware exception, "
         "a kernel for another ISA, a GPU hang) and aborted the process",
         "check the GPU is a target of the installed ROCm/PyTorch (no HSA_OVERRIDE_GFX_VERSION to a different "
         "generation), update the driver/firmware, rerun with AMD_SERIALIZE_KERNEL=3 AMD_LOG_LEVEL=3 to find the "
         "kernel",
         "`dmesg -T | grep -i amdgpu` for the fault/reset at that time; `rocminfo | grep gfx`",
         (r"callbackQueue aborting with status\b",
          # with an error named: not the memory faults and resource errors the signatures below explain better
          r"(?:callbackQueue|Queue 0x[0-9a-f]+) aborting with error\s*:\s*"
          r"(?!\s|HSA_STATUS_ERROR_(?:MEMORY_APERTURE|MEMORY_FAULT|OUT_OF_RESOURCES))"),
         ("callbackQueue aborting", "aborting with error"),
         sources=("ROCm/clr rocclr/device/rocm/rocdevice.cpp (\"Device::callbackQueue aborting with status: 0x%x\", "
                  "\"Callback: Queue %p aborting with error : %s code: 0x%x\")",
                  "ROCm/tensorflow-upstream#1106")),
    # r4-ver (issue 26): version_check, not hip_error: by its own cause two ROCm releases are mixed (the versions),
    # nothing failed in a HIP call
    _sig("rocm-library-symbol-mismatch", "version_check", "error", "root", "a ROCm runtime library does not match the "
         "others (undefined symbol)",
         "one ROCm library (HIP, HSA runtime, rocBLAS, MIOpen, hipBLASLt, RCCL) was loaded from another ROCm release "
         "than the library it calls: a torch wheel's bundled ROCm mixed with /opt/rocm, or LD_LIBRARY_PATH pointing "
         "at another install",
         "use one ROCm: drop /opt/rocm/lib from LD_LIBRARY_PATH when the wheel bundles its own (or install the wheel "
         "for the system's ROCm version)",
         "`ldd $(python -c 'import torch,os;print(os.path.dirname(torch.__file__))')/lib/libtorch_hip.so | grep -E "
         "'amdhip|hsa'`",
         (r"lib(?:amdhip64|hsa-runtime64|rocblas|MIOpen|hipblaslt|hipblas|rccl|rocsolver|hiprtc)[\w.-]*\.so[\d.]*: "
          r"undefined symbol",
          # explain-rocm: the same mismatch in the dynamic loader's versioned-symbol words
          r"lib(?:amdhip64|hsa-runtime64|rocblas|MIOpen|hipblaslt|hipblas|rccl|rocsolver|hiprtc|amd_comgr)[\w.-]*\.so"
          r"[\d.]*: version [`'\u2018][\w.]+['\u2019] not found"),
         ("undefined symbol", "' not found"),
         sources=("ld.so's 'undefined symbol' for a ROCm library (e.g. libamdhip64.so.6: undefined symbol: "
                  "hsa_amd_memory_get_preferred_copy_engine)",)),
    # h7-ver (issue 26): here, before no-gpu-visible (which also lists the ROCr line): the kernel driver and the ROCm
    # user space of two releases that do not work together, in the runtime's own words (ROCr/ROCt: `HSA Error:
    # Incompatible kernel and userspace, <GPU> disabled. Upgrade amdgpu.`, with one or two spaces): no GPU is offered
    # to anything after it — the versions, not the GPU or the program
    _sig("kernel-userspace-mismatch", "version_check", "error", "root", "the amdgpu kernel driver and the ROCm user "
         "space are of releases that do not work together",
         "the ROCm user space (HSA runtime / thunk) was installed or upgraded past what the loaded amdgpu/KFD kernel "
         "driver supports (or the other way round: an old ROCm in a container on a newer host driver), so the "
         "runtime disables the GPU",
         "install the amdgpu driver (amdgpu-dkms, or the distribution kernel) that the installed ROCm release lists "
         "as supported, reboot, and check `rocminfo` lists the GPU; in containers, use an image whose ROCm the host "
         "driver supports",
         "`rocminfo | head`; `modinfo amdgpu | grep ^version`; `dkms status` against the ROCm release notes",
         (r"Incompatible kernel and userspace\b",),
         ("Incompatible kernel and userspace",),
         sources=("ROCm/legacy-rocm-build#1423 (ROCm 4.1.0 on Fedora 33: HSA Error: Incompatible kernel and "
                  "userspace, Vega 20 [Radeon VII] disabled. Upgrade amdgpu.)", "ROCm/legacy-rocm-build#1583")),
    _sig("version-string-unparsable", "version_check", "error", "root", "a version string could not be parsed",
         "a library compared versions and could not parse one: a source/nightly/vendor build whose version string "
         "is not PEP 440 (e.g. torch '2.5.0a0+gitunknown' from a ROCm or vendor build)",
         "install a released build (or one with a PEP 440 version), or upgrade the library doing the check so it "
         "accepts local versions",
         "`python -c 'import torch;print(torch.__version__)'` and `pip list` for the package named",
         (r"packaging\.version\.InvalidVersion: Invalid version:",),
         ("InvalidVersion",),
         sources=("pypa/packaging packaging/version.py (raise InvalidVersion(f\"Invalid version: {version!r}\"))",)),
)
# ====================================================================== explain-3 — END

# ====================================================================== e-swift2 (issue 26) — BEGIN
# ms-swift's runtime failures (not its argument refusals), in the spellings its source produces (modelscope/ms-swift
# swift/model/model_meta.py, swift/template/register.py, swift/template/base.py + templates/*.py, swift/template/
# vision_utils.py, swift/infer_engine/vllm_engine.py, swift/rlhf_trainers/rollout_mixin.py), and the vLLM v1 KV-cache
# check (vllm/v1/core/kv_cache_utils.py) that GRPO/rollout engines inside swift hit; the f-string holes are open.
_ESWIFT2_SIGNATURES: tuple[Signature, ...] = (
    _sig("swift-model-type-unmatched", "unrecognized_model_type_adapter", "error", "root", "ms-swift could not tell "
         "which model type this checkpoint is",
         "ms-swift's model registry has no model_type matching the checkpoint (a model newer than the installed "
         "ms-swift, or a local directory whose config/name does not tell the type)",
         "pass --model_type explicitly (from ms-swift's supported-models list), or upgrade ms-swift to a release "
         "that registers this model",
         "ms-swift's Supported-models-and-datasets page for the installed release",
         (r"Model \"?[^\n]{0,300}\"? is not supported because no suitable `model_type` was found",
          r"Failed to automatically match `model_type` for `[^`\n]*`",
          r"Failed to automatically match `template_type` for `[^`\n]*`",
          # Megatron-SWIFT's model registry (swift/megatron/arguments/megatron_args.py, 3.x megatron/utils/
          # convert.py assert) and the megatron-bridge backend (swift/megatron/model/utils.py)
          r"(?:ValueError|AssertionError): Model: \S+ is not supported\.\s*$",
          r"Model [\w.-]+ is not supported by megatron-bridge\b"),
         ("no suitable `model_type`", "Failed to automatically match `", "Model: ", "by megatron-bridge"),
         sources=("modelscope/ms-swift swift/model/model_meta.py (get_matched_model_meta / get_model_info_meta)",
                  "modelscope/ms-swift swift/template/register.py (get_template)")),
    _sig("vllm-kv-cache-too-small", "gpu_oom", "error", "root", "vLLM has too little GPU memory left for the KV "
         "cache of one request",
         "after the weights, the GPU memory vLLM may use (gpu_memory_utilization) leaves less KV cache than one "
         "sequence of max_model_len needs (in GRPO/rollout the training process shares the GPU)",
         "lower max_model_len (swift: --vllm_max_model_len), raise gpu_memory_utilization (--vllm_gpu_memory_utilization) "
         "if the GPU has room, or give vLLM more GPUs (tensor parallel) / sleep the trainer (--sleep_level)",
         "the message's two GiB figures: KV cache needed vs available",
         (r"To serve at least one request with the models?'?s max seq len \(\d+\), \([\d.]+ GiB KV cache is needed, "
          r"which is larger than the available KV cache memory",),
         ("To serve at least one request",),
         sources=("vllm-project/vllm vllm/v1/core/kv_cache_utils.py (check_enough_kv_cache_memory)",)),
    # integrator (session 12): verl's default reward dispatcher (verl/utils/reward_score/__init__.py
    # default_compute_score) picks the reward function by each row's data_source column; a value it does not know
    # (an empty column, a dataset name of one's own) raises NotImplementedError - the data's field, not the trainer
    _sig("verl-reward-data-source", "dataset_error", "error", "root", "no reward function for the rows' data_source",
         "verl's default reward chooses the scoring function by each row's data_source column (openai/gsm8k, "
         "lighteval/MATH, math_dapo, aime*, codecontests/apps/taco, hiyouga/geometry3k, ...); the rows carry a value "
         "it does not know (often empty: the conversion script did not set it)",
         "set data_source in the parquet files to the benchmark whose scorer fits your answers (the conversion "
         "script's data_source value), or give your own scorer: custom_reward_function.path=... "
         "custom_reward_function.name=...",
         "read one row: `python -c \"import pandas as p; print(p.read_parquet('train.parquet').data_source.unique())\"`",
         (r"NotImplementedError: Reward function is not implemented for data_source=",),
         ("Reward function is not implemented",),
         sources=("volcengine/verl verl/utils/reward_score/__init__.py default_compute_score",)),
    _sig("swift-media-count-mismatch", "dataset_error", "error", "root", "a sample's media placeholders do not match "
         "its media",
         "a row has a different number of <image>/<video>/<audio> tags in its messages than files in its "
         "images/videos/audios column (or its media file cannot be read)",
         "fix those rows: one <image> tag per image (ms-swift adds none when the row's text already has tags), "
         "readable media paths; drop the rows that cannot be fixed",
         "count the tags and the media of the row the traceback was encoding",
         (r"AssertionError: len\(idx_list\): \d+, len\((?:images|videos|audios)\): \d+",
          r"AssertionError: len\(num_patches\): \d+, len\(idx_list\): \d+",
          r"AssertionError: Found \d+ audio placeholders but have \d+ audios",
          r"Could not open video file \S+", r"Video file \S+ has invalid or zero frame count",
          r"Could not read enough frames from video file \S+", r"ValueError: No audio (?:stream )?found\.",
          # ms-swift 2.x load_image: a path that is not a file is read as base64 and fails
          r"invalid image: \S", r"UnidentifiedImageError: cannot identify image file"),
         ("len(idx_list)", "len(num_patches)", "audio placeholders", "video file", "Video file", "No audio",
          "invalid image: ", "cannot identify image file"),
         sources=("modelscope/ms-swift swift/template/base.py (replace_tag asserts), swift/template/templates/"
                  "internvl.py, minicpm.py, swift/template/vision_utils.py (load_video_*, load_audio), v2.6 "
                  "swift/llm/utils/vision_utils.py (invalid image)", "python-pillow PIL/Image.py open()")),
    # GRPO server mode: the trainer polls the rollout server's /health/ (ms-swift 3.x swift/trainers/rlhf_trainer/
    # vllm_client.py from trl's, 4.x swift/rlhf_trainers/vllm_client.py); a refused local connection is a server
    # that is not running where the run's settings point, never a Hub download
    _sig("rollout-server-unreachable", "config_error", "error", "root", "the rollout/inference server the run "
         "points at is not reachable",
         "GRPO with vllm_mode server (or a client of `swift deploy`) polls a server at the host:port it was given, "
         "and nothing answered there: the server was not started, is still loading, or listens elsewhere",
         "start the server first (`swift rollout --model ...` / `trl vllm-serve`) and wait for it to be up, then "
         "point --vllm_server_host/--vllm_server_port at it (raise --vllm_server_timeout for big models)",
         "`curl http://HOST:PORT/health/` from the training node",
         (r"The vLLM server can't be reached at \S+ after [\d.]+ seconds",
          r"Servers not reachable after [\d.]+s: \[",
          r"ConnectionError: HTTPConnectionPool\(host='(?:127\.0\.0\.1|localhost|0\.0\.0\.0)', port=\d+\): Max "
          r"retries exceeded with url: /(?:health|init_communicator|get_world_size|infer|update_|get_engine_type)"),
         ("can't be reached at", "Servers not reachable", "HTTPConnectionPool(host='"),
         sources=("modelscope/ms-swift swift/trainers/rlhf_trainer/vllm_client.py (3.x), swift/rlhf_trainers/"
                  "vllm_client.py (4.x) check_server_health", "huggingface/trl trl/extras/vllm_client.py")),
    # DeepSpeed ZeRO-1/2's gradient reduction hook (deepspeed/runtime/zero/stage_1_and_2.py reduce_ready_partitions_
    # and_remove_grads: `The parameter {param_id} has already been reduced. Gradient computed twice for this
    # partition.`): ZeRO's form of DDP's "marked ready twice" — reentrant checkpointing or a parameter used twice
    _sig("zero-grad-reduced-twice", "ddp_error", "error", "root", "DeepSpeed ZeRO saw a gradient twice for one "
         "parameter",
         "a parameter's gradient hook fired twice in one backward (reentrant gradient checkpointing re-running the "
         "forward, a module called twice, tied/shared weights), which ZeRO-2's partitioned reduction rejects",
         "non-reentrant checkpointing (gradient_checkpointing_kwargs={'use_reentrant': False}; ms-swift "
         "--gradient_checkpointing_kwargs '{\"use_reentrant\": false}'), or ZeRO-3/ZeRO-1, or untie the shared weights",
         "the parameter id it names; whether gradient checkpointing is on",
         (r"The parameter \d+ has already been reduced\. Gradient computed twice for this partition",),
         ("has already been reduced",),
         sources=("deepspeedai/DeepSpeed deepspeed/runtime/zero/stage_1_and_2.py",)),
    # vLLM's Ray executor (vllm/executor/ray_utils.py initialize_ray_cluster): tensor x pipeline parallel larger than
    # the GPUs the placement group has
    _sig("vllm-placement-gpus", "config_error", "error", "root", "vLLM was asked for more GPUs than it can see",
         "tensor_parallel_size x pipeline_parallel_size is larger than the GPUs Ray's placement group holds (the "
         "GPUs visible to the process)",
         "lower the engine's tensor parallel size (ms-swift --vllm_tensor_parallel_size / --tensor_parallel_size) "
         "or make more GPUs visible (CUDA_VISIBLE_DEVICES / HIP_VISIBLE_DEVICES)",
         "`ray status` and the visible-devices variable against tensor_parallel_size",
         (r"The number of required GPUs exceeds the total number of available GPUs in the placement group",),
         ("The number of required GPUs exceeds",),
         sources=("vllm-project/vllm vllm/executor/ray_utils.py",)),
    # e-g910 (issue 26): the same refusal for a quantization library's layer (auto-gptq's `QuantLinear()`, AWQ's
    # WQLinear_GEMM, HQQ, AQLM, EETQ, quanto, GPTQModel, bitsandbytes): later PEFT releases wrap them (profiles/
    # exception_sources.py QUANT_LAYER_CLASSES), so the installed PEFT is older than the quantized model's needs -
    # peft 0.3/0.4's wording (`Currently, only `torch.nn.Linear` and `Conv1D` are supported.`) and 0.7+'s. Before
    # lora-target-type-unsupported, which reads any other module type as the target_modules setting
    _sig("lora-target-quantized-layer", "version_check", "error", "root", "the installed PEFT has no LoRA layer for "
         "this quantized layer",
         "the model's linear layers are a quantization library's (GPTQ QuantLinear, AWQ WQLinear, HQQ, AQLM, EETQ, "
         "quanto, bitsandbytes) and the installed PEFT predates its support for them",
         "upgrade peft to a release that wraps the layer (auto-gptq QuantLinear: peft>=0.5.0; AWQ: >=0.9; AQLM: "
         ">=0.10; EETQ/HQQ: >=0.11; GPTQModel: >=0.14), with the transformers/optimum/auto-gptq versions the model's "
         "recipe pins",
         "`pip show peft` against the quantization library's supported PEFT release",
         (r"Target module (?:[\w.]+\.)?(?:" + _xsrc.QUANT_LAYER_CLASSES + r")\([^\n]*?(?:\) is not supported|$)",),
         ("Target module",),
         sources=("huggingface/peft src/peft/tuners/lora.py (0.4: _find_and_replace) and tuners/lora/model.py",
                  "dahara1/weblab-10b-instruction-sft-GPTQ finetune_sample README (peft old version)")),
    # PEFT's LoRA layer factory (peft/tuners/lora/model.py _create_new_module): target_modules names a module type
    # LoRA has no layer for (a whole block, a norm)
    _sig("lora-target-type-unsupported", "config_error", "error", "root", "LoRA cannot wrap the module type "
         "target_modules names",
         "target_modules matched a module that is not a Linear/Embedding/Conv layer (a vision block, a norm, a "
         "whole decoder layer), which LoRA has no layer for",
         "point target_modules at the Linear layers inside it (q_proj, k_proj, ... or `all-linear`; ms-swift "
         "--target_modules all-linear, --freeze_vit for the vision tower)",
         "the module type the message names",
         # the module's repr is the hole: spaces, and for a block several lines, before these words
         (r"is not supported\. Currently, only the following modules are supported: `torch\.nn\.Linear`",),
         ("Currently, only the following modules are supported",),
         sources=("huggingface/peft src/peft/tuners/lora/model.py",)),
    # torch building one tensor from a batch of token lists of different lengths (torch/csrc/utils/tensor_new.cpp:
    # `expected sequence of length {n} at dim {d} (got {m})`; torch.stack in default_collate: `stack expects each
    # tensor to be equal size, but got [a] at entry 0 and [b] at entry 1`): the collator was not told to pad — the
    # same fact r3-ver's default-collate rule reads as the data and its collator (dataset_error), whichever frames show
    _sig("batch-not-padded", "dataset_error", "error", "root", "the batch's sequences have different lengths and "
         "nothing pads them",
         "the data collator stacks token lists of different lengths into one tensor: tokenization ran without "
         "padding and the collator is the plain default one (or an extra column of ragged lists was left in)",
         "pad in the collator (DataCollatorWithPadding / DataCollatorForSeq2Seq, or padding='max_length' with "
         "truncation=True when tokenizing), and drop columns the model does not take (remove_unused_columns)",
         "the two lengths the message names are two rows of one batch",
         (r"expected sequence of length \d+ at dim \d+ \(got \d+\)",
          r"stack expects each tensor to be equal size, but got \[\d+\] at entry \d+ and \[\d+\] at entry \d+",
          # transformers' BatchEncoding.convert_to_tensors re-raises the same fact in its own words (every release
          # since 4.x; "Perhaps your features (`labels` in this case) have excessive nesting" since 4.31)
          r"Unable to create tensor, you should probably activate truncation and/or padding"),
         ("expected sequence of length", "stack expects each tensor to be equal size", "Unable to create tensor"),
         sources=("pytorch/pytorch torch/csrc/utils/tensor_new.cpp, aten/src/ATen/native/TensorShape.cpp (stack)",
                  "huggingface/transformers src/transformers/data/data_collator.py",
                  "huggingface/transformers src/transformers/tokenization_utils_base.py (convert_to_tensors)")),
    _sig("eval-oom", "gpu_oom", "error", "root", "GPU out of memory during evaluation",
         "the evaluation batch needed more GPU memory than was free (auto_find_batch_size only shrinks the "
         "training batch)",
         "lower per_device_eval_batch_size (and eval_accumulation_steps to move predictions to the CPU), or "
         "evaluate with a shorter max length",
         "the step where it failed is an evaluation step (eval_steps)",
         (r"Evaluation hit an out-of-memory error",),
         ("Evaluation hit an out-of-memory",),
         sources=("huggingface/transformers src/transformers/trainer.py (evaluation loop under auto_find_batch_size)",)),
    _sig("state-dict-file-corrupt", "model_download", "error", "root", "the model's weight file is corrupt",
         "the weights file on disk is truncated or damaged (an interrupted download or copy)",
         "delete the damaged file from the model directory / cache and download it again",
         "compare the file's size or sha256 with the hub's",
         (r"The state dictionary of the model you are trying to load is corrupted",),
         ("state dictionary of the model you are trying to load is corrupted",),
         sources=("huggingface/transformers src/transformers/modeling_utils.py (_load_pretrained_model)",)),
    _sig("no-pad-token-batch", "tokenizer_template", "error", "root", "the tokenizer/model has no padding token",
         "a sequence-classification head needs pad_token_id to find each row's last token, and the model config "
         "has none, so batches larger than 1 cannot be handled",
         "set a pad token (tokenizer.pad_token = tokenizer.eos_token and model.config.pad_token_id = "
         "tokenizer.pad_token_id), or train with batch size 1",
         "`model.config.pad_token_id` is None",
         (r"Cannot handle batch sizes > 1 if no padding token is defined",),
         ("no padding token is defined",),
         sources=("huggingface/transformers models/*/modeling_*.py ForSequenceClassification.forward; "
                  "modelscope/ms-swift swift/model/patcher.py",)),
    _sig("swift-engine-too-old", "version_check", "error", "root", "the installed engine/library is older than "
         "this ms-swift feature needs",
         "ms-swift asked the installed vLLM/transformers for a feature its release does not have",
         "upgrade the package the message names (to the release ms-swift's requirements list), or turn the "
         "feature off",
         "`pip show vllm transformers` against ms-swift's requirements",
         (r"The current version of (?:vLLM|vllm|transformers|peft|trl|deepspeed) (?:does not|doesn't) support",
          r"The current version of (?:vLLM|vllm) only supports .{0,80}Please upgrade",
          r"is only supported in \"?(?:transformers|vllm|torch|peft|trl)\s*>=\s*\d"),
         ("The current version of", "is only supported in"),
         sources=("modelscope/ms-swift swift/infer_engine/vllm_engine.py (_prepare_engine_kwargs asserts), "
                  "swift/model/register.py (experts_impl)",)),
    _sig("engine-not-installed", "missing_package", "error", "root", "the engine the run asked for is not installed",
         "the run enabled an engine (vLLM for GRPO/rollout, DeepSpeed) that is not installed in this environment",
         "install it (`pip install vllm` / `pip install deepspeed`, the release ms-swift's requirements name) or "
         "turn the option off (--use_vllm false, no --deepspeed)",
         "`python -c 'import vllm, deepspeed'` in the same environment",
         (r"vLLM is not available and `use_vllm` is set to True",
          r"DeepSpeed is not available => install it using",
          # transformers' own requirement lines for a package that is absent (modeling_utils / trainer_utils)
          r"(?:ImportError|RuntimeError): The package `[\w.-]+` is required to use",
          r"(?:ImportError|RuntimeError): You need to install [\w.-]+ \(pip install [\w.-]+\)"),
         ("is not available and `use_vllm`", "DeepSpeed is not available", "is required to use",
          "You need to install"),
         sources=("modelscope/ms-swift swift/rlhf_trainers/rollout_mixin.py, swift/megatron/trainers/rollout_mixin.py",
                  "huggingface/accelerate src/accelerate/accelerator.py (DeepSpeed is not available)")),
)
# ====================================================================== e-swift2 — END

# ====================================================================== e-g6 (issue 26)
# The gaps an independent sample of public logs showed, written from the messages' sources:
# - vLLM's sleep-mode allocator (vllm/device_allocator/cumem.py over csrc/cumem_allocator.cpp): its CUDA_CHECK formats
#   `CUDA Error: %s at %s:%d` with cuGetErrorString's text (on ROCm cumem_allocator_compat.h maps it to
#   hipGetErrorString, the prefix stays `CUDA Error`) and python_create_and_map / python_unmap_and_release raise it as
#   a RuntimeError: `out of memory` when waking the rollout engine (weights/KV cache re-mapped) is a device
#   allocation failure (gpu_oom); its other statuses are the driver's VMM calls failing (cuda_error / hip_error).
# - NCCL/RCCL's init.cc: `Duplicate GPU detected : rank %d and rank %d both on CUDA device %lx` (then ncclInvalidUsage)
#   when two ranks of one communicator sit on one GPU: the launch put them there (config_error), not the interconnect.
# - SGLang's memory pool (model_runner.py / pool_configurator.py): `Not enough memory. Please try to increase
#   --mem-fraction-static.` when no KV cache token fits after the weights (gpu_oom).
_EG6_SIGNATURES: tuple[Signature, ...] = (
    _sig("vllm-sleep-wake-oom", "gpu_oom", "error", "root", "vLLM's sleep-mode allocator ran out of GPU memory "
         "(waking the rollout engine, or allocating under its memory pool)",
         "vLLM's CuMemAllocator (sleep mode, used by colocated rollout in verl, OpenRLHF, TRL) re-creates and maps "
         "the engine's weights and KV cache when it wakes up; the device had no room left for them: the training "
         "side's parameters, gradients, optimizer state or cached blocks still hold the GPU, or the engine's share "
         "(gpu_memory_utilization) is larger than what the trainer leaves",
         "lower the rollout engine's share (verl: actor_rollout_ref.rollout.gpu_memory_utilization; TRL: "
         "vllm_gpu_memory_utilization; OpenRLHF: --vllm_gpu_memory_utilization), free/offload the trainer's state "
         "before generation (verl: actor_rollout_ref.rollout.free_cache_engine=True, actor/ref fsdp_config "
         "param_offload / optimizer_offload; OpenRLHF: --vllm_enable_sleep with --deepspeed_enable_sleep), shorter "
         "responses or fewer batched tokens (max_num_batched_tokens), or more GPUs per engine (tensor parallel); "
         "users of the same error also cleared it with VLLM_ATTENTION_BACKEND=XFORMERS or sp/tp size 1",
         "watch the GPU's used memory (nvidia-smi / rocm-smi) around the wake_up after a training step: the trainer's "
         "share left over is what the engine could not get back",
         (r"(?:CUDA|HIP) Error: out of memory at \S*cumem_allocator\.cpp:\d+",),
         ("cumem_allocator",),
         sources=("vllm-project/vllm csrc/cumem_allocator.cpp (CUDA_CHECK: \"CUDA Error: %s at %s:%d\")",
                  "vllm-project/vllm vllm/device_allocator/cumem.py (wake_up -> create_and_map)")),
    _sig("vllm-cumem-driver-error", "cuda_error", "error", "root", "vLLM's sleep-mode allocator got a driver error "
         "from the GPU's virtual-memory calls",
         "vLLM's CuMemAllocator (sleep mode) reserves, creates, maps and releases device memory with the driver's "
         "virtual memory management API (cuMemCreate/cuMemMap/cuMemSetAccess, hipMem* on ROCm); the driver refused "
         "one: a GPU, driver or ROCm release without that support (vGPU/MIG, WSL, older ROCm), or a wrong context",
         "run without sleep mode (vLLM enable_sleep_mode=False; TRL vllm_enable_sleep_mode False; verl/OpenRLHF "
         "without the engine's sleep/offload), or upgrade the driver / ROCm and vLLM to releases whose sleep mode "
         "supports this GPU",
         "`python -c 'import torch; print(torch.version.cuda, torch.version.hip)'` and the driver version against "
         "vLLM's sleep-mode requirements",
         (r"(?:CUDA|HIP) Error: (?!out of memory)[\w ,'-]{3,80} at \S*cumem_allocator\.cpp:\d+",),
         ("cumem_allocator",),
         sources=("vllm-project/vllm csrc/cumem_allocator.cpp, csrc/cumem_allocator_compat.h",)),
    _sig("nccl-duplicate-gpu", "config_error", "error", "root", "two ranks of one NCCL/RCCL communicator are on the "
         "same GPU",
         "NCCL/RCCL refuse a communicator in which two ranks sit on one GPU (same host, same PCI bus id) and fail "
         "with invalid usage: every rank left on cuda:0 (no torch.cuda.set_device(local_rank)), more processes than "
         "visible GPUs, or a weight-sync communicator joining the trainer and a vLLM server worker that share a GPU "
         "(TRL's `trl vllm-serve` and the trainer with overlapping CUDA_VISIBLE_DEVICES)",
         "give every rank its own GPU: torch.cuda.set_device(local_rank) (or device_id=) before "
         "init_process_group, one process per visible GPU (CUDA_VISIBLE_DEVICES / HIP_VISIBLE_DEVICES listing as "
         "many GPUs as ranks); with TRL's vLLM server put the server and the trainer on disjoint GPUs "
         "(CUDA_VISIBLE_DEVICES=1,2 trl vllm-serve --tensor-parallel-size 2, CUDA_VISIBLE_DEVICES=0 accelerate "
         "launch train.py) or use vllm_mode='colocate'",
         "print CUDA_VISIBLE_DEVICES and torch.cuda.current_device() in every process (the server's too) before the "
         "communicator is created; nvidia-smi / rocm-smi --showpids shows two of the run's processes on one GPU",
         (r"Duplicate GPU detected\s*:?\s*rank \d+ and rank \d+ both on \w+ device",
          r"NCCL WARN Duplicate GPU detected"),
         ("Duplicate GPU detected",),
         sources=("NVIDIA/nccl src/init.cc (WARN \"Duplicate GPU detected : rank %d and rank %d both on CUDA device "
                  "%lx\", ncclInvalidUsage); ROCm/rccl the same", "huggingface/trl#3706")),
    _sig("sglang-kv-pool-too-small", "gpu_oom", "error", "root", "SGLang has no GPU memory left for its KV cache "
         "pool",
         "SGLang sizes its KV cache pool from the static memory fraction (--mem-fraction-static) minus the weights "
         "(and CUDA graphs, other processes on the GPU: the trainer in colocated RL rollout); nothing was left",
         "raise --mem-fraction-static if the GPU has room (mem_fraction_static in verl/slime rollout configs), "
         "free or offload the trainer's state before the engine starts, more tensor parallel (--tp) or a shorter "
         "--context-length",
         "SGLang's start-up line `Load weight end ... avail mem=` against the fraction",
         (r"Not enough memory\. Please try to increase --mem-fraction-static",),
         ("Please try to increase --mem-fraction-static",),
         sources=("sgl-project/sglang python/sglang/srt/model_executor/model_runner.py (init_memory_pool)",)),
)
# ====================================================================== e-g6 — END

# ====================================================================== e-hidden (issue 26) — BEGIN
# What a collective failure hides (profiles/collective_causes.py, from NCCL's init.cc/bootstrap.cc/argcheck.cc and
# accelerate's state.py): NCCL's own words for a launch/usage mistake (config_error), for peers built with another
# NCCL (version_check), accelerate's refusal of P2P/IB-less cards (the interconnect's env). They come before the
# catalogue's `nccl-error`, whose `invalid usage` status torch prints for the same failure.
_EHIDDEN_SIGNATURES: tuple[Signature, ...] = (
    _sig("nccl-launch-mismatch", "config_error", "error", "root", "NCCL/RCCL refused how the ranks were launched or "
         "called (rank count, rank number, device or peer of a collective)",
         "NCCL/RCCL check what every rank brings to the communicator and to each call; these lines are its invalid "
         "usage / invalid argument: the nodes' launchers counted the ranks differently (--nproc_per_node/--nnodes or "
         "WORLD_SIZE not the same everywhere), two processes got one rank number or one GPU, a rank number past the "
         "world size, a tensor on another GPU than the rank's, or a send to itself with no matching receive. The "
         "other ranks' timeouts and torch's `invalid usage` error follow from it",
         "make the launch consistent: the same --nnodes/--nproc_per_node (WORLD_SIZE) on every node and a distinct "
         "--node_rank each, one process per visible GPU with torch.cuda.set_device(local_rank) before "
         "init_process_group, and the collective's tensors on that device",
         "print RANK, LOCAL_RANK, WORLD_SIZE and torch.cuda.current_device() in every process before "
         "init_process_group; NCCL_DEBUG=WARN names the rank and the value NCCL refused",
         _cc.NCCL_USAGE, _cc.NCCL_USAGE_KEYS,
         sources=("NVIDIA/nccl src/init.cc, src/bootstrap.cc, src/misc/argcheck.cc, src/enqueue.cc (WARN lines "
                  "returning ncclInvalidUsage / ncclInvalidArgument); ROCm/rccl the same",)),
    _sig("nccl-version-skew", "version_check", "error", "root", "the ranks run different NCCL/RCCL releases",
         "NCCL/RCCL exchange their version when the communicator is built and refuse peers of another release "
         "(invalid usage): the nodes (or containers) have different torch builds or NCCL/RCCL libraries",
         "install the same torch and NCCL/RCCL (the same container image) on every node; check that no "
         "LD_LIBRARY_PATH or LD_PRELOAD puts another libnccl/librccl first on one of them",
         "`python -c 'import torch; print(torch.__version__, torch.cuda.nccl.version())'` on every node",
         _cc.NCCL_VERSION_SKEW, _cc.NCCL_VERSION_SKEW_KEYS,
         sources=("NVIDIA/nccl src/init.cc (WARN \"Mismatched NCCL version detected : rank %d version %d rank %d "
                  "version %d\", ncclInvalidUsage)",)),
    _sig("p2p-ib-unsupported-card", "nccl_rccl_timeout_hang", "error", "root", "accelerate refused the cards' "
         "peer-to-peer/InfiniBand paths (RTX 40xx without NCCL_P2P_DISABLE / NCCL_IB_DISABLE)",
         "accelerate checks that consumer RTX 40xx (3090 in older releases) cards on this driver cannot use NCCL's "
         "P2P or InfiniBand transports and refuses to start a multi-GPU run unless both are disabled in the env",
         "export NCCL_P2P_DISABLE=1 NCCL_IB_DISABLE=1 before launching (accelerate launch sets them itself)",
         "`env | grep NCCL_` in the launching shell",
         _cc.P2P_IB_REFUSED, _cc.P2P_IB_REFUSED_KEYS,
         sources=("huggingface/accelerate src/accelerate/state.py (PartialState.__init__, check_cuda_p2p_ib_support)",)),
)
# ====================================================================== e-hidden — END

# Order matters only among signatures matching the same line: the first of the highest priority wins.
SIGNATURES: tuple[Signature, ...] = (
    *_EHIDDEN_SIGNATURES,  # e-hidden block above
    *_EG6_SIGNATURES,  # e-g6 block above
    *_ESWIFT2_SIGNATURES,  # e-swift2 block above
    *_EXPLAIN3_SIGNATURES,  # explain-3 block above
    # ------------------------------------------------------------------ gpu_oom
    _sig("oom", "gpu_oom", "error", "root", "GPU out of memory",
         "the training step needed more GPU memory than was free on that GPU",
         "lower per_device_train_batch_size (raise gradient_accumulation_steps to keep the effective batch), "
         "lower cutoff_len, turn gradient checkpointing on, shard/offload with DeepSpeed ZeRO-3; when much memory "
         "is reserved but unallocated it is fragmentation: set " + _EXPANDABLE,
         "rerun one step with RECORD_VRAM=1 / `rocm-tune preflight PLAN` and compare peak memory with the GPU's",
         (r"(?:HIP|CUDA|XPU|MPS)?\s*out of memory\.?\s*Tried to allocate",
          # explain-mem: not IPython's traceback header (`OutOfMemoryError   Traceback (most recent call last)`): the
          # message with its numbers comes at the end of that traceback
          # e-new15: not Ray's wrapper `ray.exceptions.RayTaskError(OutOfMemoryError): ray::Actor.method() (pid=..)`,
          # which names only the cause's class (Ray's own host-RAM OutOfMemoryError and torch's share the name;
          # python/ray/exceptions.py as_instanceof_cause): the cause's own line with its message follows it
          r"(?<!RayTaskError\()OutOfMemoryError(?!\s+Traceback \(most recent call last\))",
          r"hipErrorOutOfMemory", r"(?:CU|HIP|ROC)BLAS_STATUS_ALLOC_FAILED", r"(?:HIP|CUDA) error: out of memory",
          r"Triton Error \[(?:HIP|CUDA)\]:\s*(?:Code: \d+, Messsage: )?out of memory",   # r3-hip: Triton's launcher
          r"(?:HIP|CUDA) driver error: out of memory",   # explain-mem: c10's driver-API check (expandable segments)
          # e-g6: native extensions' CUDA_CHECK macros that print `CUDA Error: <cudaGetErrorString> at file:line` (vLLM's
          # cumem allocator: vllm-sleep-wake-oom, listed first, reads its own)
          r"(?:HIP|CUDA) Error: out of memory\b",
          r"CUDA out of memory", r"HIP out of memory", r"rocblas_status_memory_error",
          r"(?:hip|cuda)Malloc\w* (?:failed|returned \w+)\W{1,3}out of memory",
          # e-hip4: a program's own check that prints the call with its arguments (`hipMalloc(&d_a, bytes) failed: out
          # of memory`, the HIP samples' / rocm-examples' HIP_CHECK spelling)
          r"\b(?:hip|cuda)Malloc\w*\((?:[^()\n]|\([^()\n]{0,40}\)){0,120}\) (?:failed|returned \w+)\W{1,3}out of memory",
          r"hipErrorMemoryAllocation|cudaErrorMemoryAllocation|CUDA_ERROR_OUT_OF_MEMORY|miopenStatusAllocFailed",
          r"NCCL WARN .{0,80}(?:Cuda|Hip|HIP) failure (?:\d+ )?'?out of memory",
          # e-amd (issue 26): RCCL's device allocations that returned nothing (src/include/alloc.h `Failed to CUDA
          # malloc|calloc [async] N bytes`; not its host allocations), the HIP samples' / hip-tests' HIPCHECK
          # (`error: 'out of memory'(2) at f.cpp:12`), rccl-tests' HIPCHECK, TensorFlow's ROCm executor by number
          r"NCCL WARN " + _alt(_amd.RCCL_DEVICE_ALLOC_WARNS) + r" \d+ bytes",
          r"\berror: '" + _HIP_ALLOC_TEXT + r"'\s*\(\d+\)", r"Test HIP failure \S+ '" + _HIP_ALLOC_TEXT + r"'",
          # e-new17: PaddlePaddle's enforce.h (` Hip error(2), out of memory.`, CUDA's the same) and its allocator's
          # ResourceExhausted (`Out of memory error on GPU 0. Cannot allocate ...`, on DCU/XPU/NPU builds alike)
          r"\b(?:Hip|CUDA|Cuda) error\((?:" + "|".join(_pd.HIP_ALLOC_NUMBERS) + r")\),", _pd.PADDLE_DEVICE_OOM,
          r"\bhipError_t\((?:2|1002)\)",
          # e-hipfa: composable_kernel's HIP checks (ck_tile/host/hip_check_error.hpp) on a failed device allocation
          # (ck_tile/host/device_memory.hpp's hipMalloc, a kernel's workspace)
          r"HIP Function Failed \([^)\n]*\) " + _HIP_ALLOC_TEXT, r"\bHIP runtime error: " + _HIP_ALLOC_TEXT,
          # e-amd: the HIP runtime's own log of a device allocation that failed (AMD_LOG_LEVEL>=1; profiles/amd_errors.py)
          _alt(_amd.CLR_DEVICE_ALLOC_LOGS), _amd.HSAKMT_DEVICE_ALLOC,
          # r4-hw: not rocminfo's `Call returned HSA_STATUS_ERROR_OUT_OF_RESOURCES` (no usable device: no-gpu-visible)
          # e-amd8: nor hsa_init's own OUT_OF_RESOURCES (the runtime did not start: no-gpu-visible)
          r"^(?!.*\bhsa_init\b).*?(?<!Call returned )HSA_STATUS_ERROR_OUT_OF_RESOURCES",
          r"No available memory for the cache blocks",
          r"larger than the maximum number of tokens that can be stored in KV cache",
          r"Available Free mem ?: ?0 MB",
          # TensorFlow's ROCm/CUDA stream executor (HIP_ERROR_OutOfMemory / CUDA_ERROR_OUT_OF_MEMORY), its BFC
          # allocator, and XLA/JAX: the device allocation failed
          r"failed to allocate [\d.]+[KMGT]?i?B? \(\d+ bytes\) from device", r"HIP_ERROR_OutOfMemory",
          r"\bOOM when allocating tensor", r"RESOURCE_EXHAUSTED: Out of memory",
          # ggml/llama.cpp on ROCm
          r"ROCm error: out of memory",
          # e-amd (issue 26): the amdgpu kernel driver failing to place a submission's buffers in VRAM/GTT
          # (amdgpu_cs.c amdgpu_cs_ioctl: amdgpu_cs_parser_bos -ENOMEM -> DRM_ERROR/drm_err "Not enough memory for
          # command submission!"; Mesa's radv repeats it for Vulkan back-ends): on APUs the GTT/UMA share is exhausted
          r"(?:amdgpu|radv)\S*.{0,80}Not enough memory for command submission",
          # e-amd8: the kernel's TTM could not evict a buffer out of VRAM for want of room anywhere (amd_errors.py)
          *_amd.TTM_EVICTION_FAILURES, _amd.TTM_POOL_ALLOC_FRAME,
          # PyTorch creates its cuBLAS/hipBLAS handle lazily (CublasHandlePool.cpp): with the GPU full the create
          # call fails as NOT_INITIALIZED; cuDNN's own allocation failure
          r"(?:CU|HIP)BLAS_STATUS_NOT_INITIALIZED when calling `?(?:cu|hip)blas(?:Lt)?Create\(handle\)",
          r"CUDNN_STATUS_ALLOC_FAILED",
          # explain-mem: bitsandbytes' own CUDA/HIP check (csrc/pythonInterface.c, ops.cu); vLLM's start-up check
          # when other processes hold the GPU's memory
          r"Error: out of memory at line \d+ in file \S*(?:csrc|bitsandbytes)",
          r"Free memory on device \([\d.]+/[\d.]+ GiB\) on startup is less than desired GPU memory utilization",
          # ex-num: Apple's MPS allocator; ggml's device allocators (llama.cpp on ROCm/CUDA/Vulkan/Metal; not the _Host
          # pinned buffers)
          r"MPS backend out of memory",
          r"failed to allocate (?:ROCm|CUDA|Vulkan|Metal|SYCL|MUSA|CANN)\d* buffer of size",
          # e-blas: a BLAS library's allocation status printed by number or by cuBLAS' text (profiles/blas_status.py)
          _HIPBLAS_BY_NUM + _blas_nums(_blas.HIPBLAS_STATUS, alloc=True),
          _ROCBLAS_BY_NUM + _blas_nums(_blas.ROCBLAS_STATUS, alloc=True),
          _CUBLAS_BY_NUM + _blas_nums(_blas.CUBLAS_STATUS, alloc=True),
          r"(?i:cublas(?:lt)? (?:runtime )?error) ?: " + _CUBLAS_ALLOC_TEXT),
         ("out of memory", "OutOfMemoryError", "rror:", " error(", "Out of memory error on", "rror :", "RROR:", "Free memory on device", "hipErrorOutOfMemory", "ALLOC_FAILED", "memory_error",
          "MemoryAllocation", "OUT_OF_MEMORY", "AllocFailed", "OUT_OF_RESOURCES", "Available Free mem",
          "command submission", "eviction", "ttm_pool_alloc_page",
          "No available memory", "KV cache", "from device", "HIP_ERROR_OutOfMemory", "OOM when allocating",
          "Failed to CUDA", "Test HIP failure", "hipError_t(",
          *_amd.CLR_DEVICE_ALLOC_LOGS, "bytes from device",
          "Out of memory", "NOT_INITIALIZED when calling", "CUDNN_STATUS_ALLOC_FAILED", "buffer of size"),
         sources=("calibration alpaca-rlhf-3", "calibration lf-5977", "seeds/003 (HIP out of memory. Tried to "
                  "allocate 1.45 GiB)", "tests/fixtures/logs/alert-oom-*.log",
                  "tensorflow/stream_executor/rocm/rocm_driver.cc (failed to allocate ... from device: "
                  "HIP_ERROR_OutOfMemory)", "XLA's RESOURCE_EXHAUSTED: Out of memory while trying to allocate")),
    # ------------------------------------------------------------------ host_ram_oom
    _sig("host-oom-killed", "host_ram_oom", "error", "weak", "a rank was killed by SIGKILL (exit -9): the host's "
         "OOM killer, most often",
         "host RAM ran out (CPU offload of optimizer/parameters, loading the whole model on every rank, "
         "dataloader workers) and the kernel's OOM killer sent SIGKILL",
         "give the job more host RAM or need less of it: offload only the optimizer (not the parameters), "
         "fewer ranks per node, low_cpu_mem_usage loading, fewer preprocessing/dataloader workers; under Slurm "
         "request more --mem",
         "`dmesg -T | grep -i 'killed process'` (or `journalctl -k`) shows the OOM killer's line for that PID; "
         "watch `free -g` during start-up",
         (r"exitcode\s*:?\s*-9\b", r"Signal 9 \(SIGKILL\) received by PID", r"exits with return code = -9",
          r"died with <Signals\.SIGKILL: 9>", r"oom[-_]kill(?:er)? event",
          r"^(?:\S+: )?(?:Killed|killed|KILLED)\s*$", r"is killed by signal: Killed", r"(?:exit|return)(?:ed)? ?(?:with )?(?:status|code)"
          r"[ =:]*(?:137|-9)\b", r"killed by signal:? ?(?:9|SIGKILL)\b", r"received signal SIGKILL",
          r"(?:^|: )(?:line \d+: +)?\d+ Killed(?:\s|$)", r"\bKilled\s+(?:python3?|torchrun|deepspeed|accelerate|"
          r"llamafactory-cli|swift|tune)\b", r"non-zero exit status -9\b",
          r"^(?:zsh|bash|sh|fish): (?:line \d+: )?(?:\d+ )?[Kk]illed\b",
          r"got signal: 9\b", r"已杀死",
          # e-rank: CPython's multiprocessing Process repr once SIGKILL ended it (process.py _exitcode_to_name:
          # `<Process name='SpawnProcess-1' pid=4242 parent=4200 stopped exitcode=-SIGKILL>`)
          r"\bexitcode=-SIGKILL\b",
          # ex-num (issue 26): Go's os/exec error for a child killed by SIGKILL (ollama's runner, Go launchers and
          # operators), and the BSD/macOS shells' `Killed: 9`
          r"\bsignal: killed\b", r"^(?:\S+: )?Killed: 9\b",
          # ex-num: Open MPI's and Horovod's report of a rank killed by SIGKILL; a worker pool whose process died of it
          # (joblib names SIGKILL(-9); concurrent.futures and `datasets` .map only say it died abruptly, most often the
          # OOM killer taking a worker that holds a shard); bash's `Killed` in es/pt/ja/ko/it locales
          r"exited on signal 9\b", r"\bexit(?:ed|s)? with status code (?:137|-9)\b", r"\bSIGKILL\(-9\)",
          r"A process in the process pool was terminated abruptly",
          r"One of the subprocesses has abruptly died during map operation",
          r"^(?:\S+: )?(?:line \d+: +)?(?:\d+ )?(?:Terminado \(killed\)|Morto|強制終了|죽었음|Ucciso)(?:\s|$)",
          # explain-mem: torch.multiprocessing.spawn's ProcessExitedException; a bare `Killed` printed right after a
          # tqdm bar on the same line; the shell's `Killed` in other locales (de, ru, fr)
          r"terminated with signal:? ?(?:9|SIGKILL)\b", r"(?:\]|it/s\]|s/it\])\s?Killed\s*$",
          # zsh's job-control report (`[1]    12345 killed     python train.py`); Jupyter's and VS Code's notice
          # that the kernel process died (the host OOM killer, most often)
          r"^\[\d+\]\s+[+-]?\s*\d+ killed\s+\S", r"The kernel appears to have died\. It will restart automatically",
          r"The Kernel crashed while executing code in the current cell",
          r"^(?:\S+: )?(?:line \d+: +)?(?:\d+ )?(?:Getötet|Убито|Processus arrêté)\b",
          r"(?i:\bexit(?:ed)?(?: with)? (?:code|status)[ =:]*137\b)", r"terminated by signal:? ?(?:9|SIGKILL)\b", r"srun: error: \S+: tasks? [\d,-]+: Killed", r"DataLoader worker \(pids?\(?s?\)? ?[\d, ]+\) (?:exited unexpectedly|is killed by signal: Killed)",
          # h7-hip: MPICH's Hydra launcher (mpiexec) reporting a rank that died of SIGKILL: its `BAD TERMINATION`
          # banner names the exit code (9) and the signal's own string
          r"^=\s+EXIT CODE: (?:9|137)\s*=?\s*$", r"EXIT STRING: Killed \(signal 9\)",
          # e-host (issue 26): bash's job-control report (`[1]+  Killed                  nohup python train.py`, jobs.c),
          # GNU time's `Command exited with non-zero status 137`, make's `*** [Makefile:12: train] Error 137`
          r"^\[\d+\][+-]?\s+Killed\s+\S", r"exited with non-zero status 137\b", r"\*\*\* \[[^\]]+\] Error 137\b",
          # e-host2 (issue 26): DeepSpeed's launch.py ends with sys.exit(-9) when its first failed rank was SIGKILLed,
          # which the shell sees as 247 (-9 & 0xff): pdsh's report of a node's launcher (multi-node runner), a
          # wrapper's subprocess call of `deepspeed`
          r"pdsh@\S+: \S+: ssh exited with exit code 247\b", r"returned non-zero exit status 247\b"),
         ("exitcode", "SIGKILL", "return code = -9", "Killed", "oom-kill", "oom_kill", "oom-kill", "status", "code",
          "Exit", "EXIT", "terminated by signal",
          "killed by signal", "killed", "exited unexpectedly", "got signal", "已杀死", "terminated with signal",
          "Getötet", "Убито", "Processus arrêté", "kernel appears to have died", "Kernel crashed",
          "exited on signal", "status code", "SIGKILL(-9)", "terminated abruptly", "abruptly died", "Terminado", "Morto",
          "強制終了", "죽었음", "Ucciso", "Error 137"),
         sources=("hpcaitech/ColossalAI#3514 (failed (exitcode: -9) local_rank: 3)", "lzhxmu/CPPO#6 (Signal 9 "
                  "(SIGKILL) received by PID)", "calibration dolly-111 (title: return code = -9)")),
    _sig("kernel-oom-killer", "host_ram_oom", "error", "root", "the kernel's OOM killer killed a process "
         "(host RAM or the container's/cgroup's memory limit ran out)",
         "the machine (or the job's cgroup / container memory limit) ran out of RAM and the kernel killed the "
         "biggest process: the training rank",
         "give the job more host RAM or need less of it: offload only the optimizer (not the parameters), "
         "fewer ranks per node, low_cpu_mem_usage loading, fewer preprocessing/dataloader workers; in a container "
         "raise its memory limit (docker --memory / Kubernetes resources.limits.memory); under Slurm --mem",
         "`dmesg -T | grep -iE 'killed process|oom'` shows the kill with the process's RSS",
         (r"Out of memory: Killed process \d+", r"Memory cgroup out of memory: Kill(?:ed)? process",
          # r3-misc: kernels before 4.19 (mm/oom_kill.c): `Out of memory: Kill process 211 (python) score 912 or
          # sacrifice child`
          r"Out of memory: Kill process \d+ \(.*\) score \d+",
          r"invoked oom-killer", r"oom-kill:constraint=",
          # e-rank: not `docker inspect`'s `"OOMKilled": false` (the container was NOT killed for memory)
          r"\bOOMKilled\b(?!\"?:\s*false)", r"oom_reaper: reaped process",
          r"(?:node|Node) was low on resource: memory",
          # Google Colab's notice when the VM's RAM ran out
          r"Your session crashed after using all available RAM",
          # r4-hw: Kaggle's notice when a notebook's RAM ran out (the kernel is restarted, no traceback)
          r"Your notebook tried to allocate more memory than is available",
          # ex-num (issue 26): user-space OOM killers (systemd-oomd on Ubuntu/Fedora desktops, earlyoom) that act
          # before the kernel's: the same host-RAM exhaustion in their own words
          r"systemd-oomd(?:\[\d+\])?: Killed \S+ due to memory (?:pressure|used)",
          r"earlyoom(?:\[\d+\])?: (?:sending SIG(?:TERM|KILL) to process|low memory!)",
          # h7-hip: earlyoom's victim line without the journal's prefix (run in a terminal, or grepped): the victim
          # and its resident size (rfjakob/earlyoom README: `sending SIGTERM to process 7378 uid 1000 "tail": badness
          # 156, VmRSS 4962 MiB`)
          r"sending SIG(?:TERM|KILL) to process \d+ uid \d+ \"[^\"]+\": (?:badness|oom_score) -?\d+, VmRSS",
          # e-host (issue 26): mm/oom_kill.c's victim line as kernels 4.x print it on a line of its own (`Killed process
          # 2210 (python) total-vm:..kB, anon-rss:..kB`, after `Out of memory: Kill process ... or sacrifice child`);
          # systemd's report on the unit (src/core/unit.c: `A process of this unit has been killed by the OOM
          # killer.`; a service's result `oom-kill`: `Failed with result 'oom-kill'.`)
          r"\bKilled process \d+ \([^)]{1,64}\),? (?:UID:? ?\d+,? )?total-vm:\d+kB",
          r"A process of this unit has been killed by the OOM killer", r"Failed with result 'oom-kill'"),
         ("Killed process", "Kill process", "oom-killer", "oom-kill:", "OOMKilled", "oom_reaper", "low on resource",
          "all available RAM", "systemd-oomd", "earlyoom", "more memory than is available", "sending SIG",
          "killed by the OOM killer", "'oom-kill'"),
         sources=("kernel messages (dmesg) as users post them, e.g. deepspeedai/DeepSpeed#4239",
                  "Kubernetes pod status OOMKilled")),
    _sig("host-alloc-failed", "host_ram_oom", "error", "root", "a host (CPU) memory allocation failed",
         "the process could not get host RAM (or pinned host memory): loading the whole model on every rank, "
         "CPU offload of optimizer states/parameters, pinned buffers, dataloader workers, or a cgroup limit",
         "need less host RAM: offload only the optimizer (not the parameters) or no offload, fewer ranks per node, "
         "low_cpu_mem_usage / load on rank 0 only, fewer dataloader/preprocessing workers, pin_memory off for "
         "offload; or a node with more RAM (under Slurm --mem)",
         "`free -g` while it starts; DeepSpeed's `CPU Virtual Memory: used = ...` lines",
         # e-relabel: torch's alloc_cpu.cpp in both spellings — `can't allocate memory: you tried to allocate N bytes`
         # (torch <= 1.x/2.0) and `not enough memory: you tried to allocate N bytes` (later releases)
         (r"DefaultCPUAllocator: (?:(?:can't|could not|failed to) ?allocate|not enough memory)",
          r"\[Errno 12\] Cannot allocate memory", r"std::bad_alloc",
          r"^(?:\[(?:rank|default)\d+\]:\s*)*(?:\w+\.)*MemoryError\b(?!:? ?\w*(?:GPU|CUDA|HIP))",
          r"(?:cudaHostAlloc|hipHostMalloc|hipHostAlloc|cudaMallocHost|hipMallocHost)\S*.{0,40}(?:fail|error)",
          r"(?:fork|mmap|posix_memalign|pthread_create)\S*: ?Cannot allocate memory",
          # e-amd (issue 26): not the KFD device refusing to open (rocminfo's `Unable to open /dev/kfd read-write:
          # Cannot allocate memory`, strace's `openat(..."/dev/kfd"...) = -1 ENOMEM`): no usable GPU (no-gpu-visible)
          # e-host: nor NCCL/RCCL's shared-memory segment a peer could not map (nccl-shm-exhausted names it)
          # e-hip4: nor shmutils.cc's `Could not map /dev/shm/nccl-XXXXXX size N, error: Cannot allocate memory`
          # e-amd8: nor NCCL/RCCL's `Call to posix_fallocate failed : Cannot allocate memory` (nccl-shm-exhausted)
          r"^(?!.*shared memory segment)(?!.*/dev/shm/nccl-)(?!.*posix_fallocate failed).*?(?<!/dev/kfd read-write: )(?<!O_RDWR\|O_CLOEXEC\) = -1 ENOMEM \()"
          r"Cannot allocate memory",
          r"Unable to allocate [\d.]+ [KMGTP]i?B for an array",
          # Windows: committing more virtual memory than RAM + page file (WinError 1455); Arrow's allocator
          r"The paging file is too small for this operation to complete", r"ArrowMemoryError",
          # h7-hip: the same Windows error by its number (the text is localised: `页面文件太小`, `Die Auslagerungsdatei
          # ist zu klein`): Python's `[WinError 1455]`, Rust's `(os error 1455)`
          r"\[WinError 1455\]", r"\(os error 1455\)",
          # h7-hip: the C runtime's own out-of-memory aborts: glibc's TLS allocator (elf/dl-tls.c `oom()`), jemalloc's
          # malloc (linked by Arrow, Ray, PyTorch builds)
          r"cannot allocate memory for thread-local data", r"<jemalloc>: Error in \w*alloc\(\): out of memory",
          # r4-hw: ENOMEM by its number whatever the locale's text, glibc's zh_CN/ja text for it, and Windows'
          # ERROR_NOT_ENOUGH_MEMORY (WinError 8)
          r"\[Errno 12\]", r"无法分配内存|メモリを確保できません",
          r"Not enough memory resources are available to process this command",
          # r5-run (issue 26): Rust's default allocation-error handler (tokenizers, safetensors, polars in the data
          # step of every runner) prints this and aborts the process: host RAM, whatever the launcher says after it
          r"memory allocation of (?:memory allocation of )?\d+ bytes failed",
          # e-host (issue 26): NCCL/RCCL's own host allocations (src/include/alloc.h: ncclCalloc's `Failed to malloc %ld
          # bytes`, ncclCudaHostCalloc's `Failed to CUDA host alloc %ld bytes`): the communicator could not get host
          # RAM, whatever NCCL error the ranks raise after it
          r"NCCL WARN Failed to (?:malloc|CUDA host alloc|HIP host alloc) \d+ bytes",
          # e-amd8: NCCL/RCCL's memory stack aborting when host malloc returned nothing (ROCm/rccl@0cbce2a7571c907554199f
          # ad7e905f16ec0a565c src/misc/utils.cc ncclMemoryStackAllocInlineFail: `%s:%d Unrecoverable error detected:
          # malloc(size=%llu) returned null.`, then abort())
          r"Unrecoverable error detected: malloc\(size=\d+\) returned null",
          # e-amd8 (issue 26): the HIP runtime's own log (AMD_LOG_LEVEL>=1) of pinned host memory it could not get
          # (profiles/amd_errors.py CLR_HOST_ALLOC_LOGS), printed before the hipErrorOutOfMemory it returns
          _alt(_amd.CLR_HOST_ALLOC_LOGS)),
         ("cannot allocate memory for thread-local", "<jemalloc>", "WinError 1455", "os error 1455", "Unable to allocate", "DefaultCPUAllocator", "Errno 12", "bad_alloc", "MemoryError", "HostAlloc", "HostMalloc", "MallocHost",
          "Cannot allocate memory", "paging file", "ArrowMemoryError", "无法分配内存", "メモリを確保できません",
          "Not enough memory resources", "memory allocation of", "Failed to ", *_amd.CLR_HOST_ALLOC_LOGS,
          "returned null"),
         sources=("deepspeedai/DeepSpeed#3860 (RuntimeError: [enforce fail at alloc_cpu.cpp:75] err == 0. "
                  "DefaultCPUAllocator: can't allocate memory)",)),
    _sig("host-ram-nearly-full", "host_ram_oom", "warning", "weak", "host RAM nearly full (DeepSpeed memory report)",
         "the process's host memory use reached the machine's limit (ZeRO offload states, model loading): the "
         "kernel OOM killer is next",
         "need less host RAM (offload the optimizer only, not parameters; fewer ranks per node; smaller model) "
         "or use a machine with more RAM",
         "`free -g` while it starts; `dmesg -T | grep -i killed` after it dies",
         (r"CPU Virtual Memory:\s*used = ([\d.]+) GB, percent = (9\d(?:\.\d+)?|100(?:\.0+)?)%",),
         ("CPU Virtual Memory",),
         sources=("calibration dolly-111 (see_memory_usage CPU Virtual Memory: used = 29.71 GB, percent = 95.3%)",)),
    _sig("slurm-oom-kill", "host_ram_oom", "error", "root", "Slurm's cgroup killed the job for memory",
         "the job step went over its Slurm memory allocation (--mem / --mem-per-cpu)",
         "request more memory (#SBATCH --mem=...) or need less host RAM (CPU offload, dataloader workers)",
         "`sacct -j JOBID -o JobID,State,MaxRSS,ReqMem`",
         (r"Detected \d+ oom[-_]kill event", r"Some of your processes may have been killed by the cgroup "
          r"out-of-memory handler", r"(?:Exceeded|exceeded) (?:job |step )?memory limit",
          r"Job \d+ exceeded memory limit", r"task \d+: Out Of Memory",
          # explain-mem: PBS/Torque's and LSF's own memory-limit kills
          r"job killed: (?:p?v?mem) \S+ exceeded limit", r"TERM_MEMLIMIT",
          # ex-num: HTCondor's own memory-limit hold
          r"Job has gone over (?:cgroup )?memory limit",
          # e-host (issue 26): the job's state in seff (`State: OUT_OF_MEMORY (exit code 0)`) and sacct's table
          # (OUT_OF_MEMORY, truncated `OUT_OF_ME+`)
          r"(?:State: |^|\s)OUT_OF_ME(?:MORY|\+)(?=\s|$)"),
         ("oom-kill", "oom_kill", "out-of-memory handler", "memory limit", "Out Of Memory", "exceeded limit",
          "TERM_MEMLIMIT", "gone over", "OUT_OF_ME"), sources=("Slurm slurmstepd messages",)),
    # ------------------------------------------------------------------ nccl_rccl_timeout_hang
    _sig("iommu-p2p-hang", "nccl_rccl_timeout_hang", "error", "root", "RCCL reports the IOMMU is not in "
         "pass-through: peer-to-peer transfers between GPUs hang",
         "with the IOMMU translating (default on many Intel/AMD hosts) PCIe peer-to-peer copies between AMD "
         "GPUs never complete, so the first collective spins forever",
         "add iommu=pt (AMD hosts) or intel_iommu=off / iommu=pt (Intel hosts) to GRUB_CMDLINE_LINUX_DEFAULT, "
         "update-grub, reboot; meanwhile NCCL_P2P_DISABLE=1 runs (slowly)",
         "`rocm-tune doctor` (IOMMU check); `cat /proc/cmdline`; rccl-tests all_reduce_perf -g 2 finishes after",
         (r'[NR]CCL WARN Missing "?iommu=pt"?',), ("iommu=pt",), hang=True,
         sources=("calibration rocm-rccl-1129 (init.cc:132 NCCL WARN Missing \"iommu=pt\" from kernel comm)",)),
    _sig("barrier-no-progress", "nccl_rccl_timeout_hang", "error", "root", "stuck at the first barrier: nothing "
         "after `using GPU N to perform barrier`",
         "the first collective (a barrier) never returns: peer-to-peer between the GPUs hangs (IOMMU), or a "
         "rank never started",
         "check peer-to-peer: `rocm-tune doctor` (IOMMU); on Intel hosts intel_iommu=off or iommu=pt on the "
         "kernel command line; try NCCL_P2P_DISABLE=1 to confirm (slow but runs)",
         "rerun with NCCL_DEBUG=INFO; `py-spy dump --pid PID` shows every rank in barrier()",
         (r"using GPU \d+ to perform barrier as devices used by this process are currently unknown",
          r"ProcessGroupNCCL.{0,80}perform barrier"),
         ("perform barrier",), hang=True, tail_only=True,
         sources=("seeds/000 (训练启动后卡在 ProcessGroupNCCL ... using GPU 0 to perform barrier)",)),
    # r5-run (issue 26): the log ends at torch's JIT-extension step (`Using /root/.cache/torch_extensions/py310_cu121 as
    # PyTorch extensions root...`, once per rank) and nothing follows — no `Loading extension module`, no error: every
    # rank waits on the build directory's `lock` file, which a build killed earlier (OOM killer, Ctrl-C, a cancelled
    # job) left behind (pytorch#189245; transformers#12715 fixed by `rm -rf ~/.cache/torch_extensions`; DALLE-pytorch
    # #172, DeepSpeedExamples#842 stop at this line)
    _sig("torch-extension-lock-wait", "deepspeed_build_jit", "error", "weak", "the run stops at the JIT-extension "
         "step: waiting on a stale build lock",
         "torch's cpp_extension (DeepSpeed's fused_adam/cpu_adam/utils ops, other JIT kernels) serialises builds with a "
         "`lock` file in the extension's directory; a build that was killed leaves it behind and every later run waits "
         "on it forever (also two jobs sharing one ~/.cache/torch_extensions)",
         "delete the op's directory under the extensions root the log names (or all of ~/.cache/torch_extensions) and "
         "rerun; give concurrent jobs their own TORCH_EXTENSIONS_DIR, or prebuild the ops (DS_BUILD_OPS=1)",
         "`ls <extensions root>/*/lock` shows the stale lock; `py-spy dump` shows the ranks in file_baton.wait",
         (r"^(?:\[(?:rank|default)\d+\]:\s*)?Using \S+ as PyTorch extensions root\.\.\.\s*$",),
         ("as PyTorch extensions root",), hang=True, tail_only=True,
         sources=("pytorch/pytorch#189245", "huggingface/transformers#12715", "deepspeedai/DeepSpeedExamples#842")),
    _sig("nccl-init-then-silence", "nccl_rccl_timeout_hang", "error", "consequence", "the log ends in NCCL/RCCL "
         "set-up lines: the ranks connected and then nothing happened",
         "the communicator was built but the first collective never completed: peer-to-peer or shared memory between "
         "the GPUs hangs (IOMMU, ACS, a container without --ipc=host), or one rank never reached the collective",
         "check peer-to-peer: `rocm-tune doctor` (IOMMU: iommu=pt / intel_iommu=off), try NCCL_P2P_DISABLE=1 and "
         "NCCL_SHM_DISABLE=1 one at a time to find the transport that hangs; in containers --ipc=host or a larger "
         "--shm-size",
         "`py-spy dump --pid PID` on each rank: all wait in the same collective",
         (r"NCCL INFO .{0,200}Init COMPLETE", r"NCCL INFO Connected all (?:rings|trees)",
          r"NCCL INFO (?:Channel \d+/\d+ ?:|Using network|ncclCommInitRank|comm 0x[0-9a-f]+ rank \d+)",
          r"NCCL INFO .{0,120}via (?:P2P|SHM|NET)/",
          r"Added key: store_based_barrier_key:\d+ to store for rank: \d+"),
         ("NCCL INFO", "store_based_barrier_key"), hang=True, tail_only=True,
         sources=("ROCm/rccl#1129 class of reports: the log stops after the RCCL init lines",)),
    _sig("log-says-hang", "nccl_rccl_timeout_hang", "error", "consequence", "the log ends where the user says it "
         "hangs",
         "the run stopped making progress without an error: most often a collective every rank waits in (peer-to-peer "
         "/ IOMMU, a rank that never arrived) or a dataloader/IO stall",
         "dump each rank's stack (`rocm-tune explain PID --stacks` / `py-spy dump`): all in a collective -> check "
         "peer-to-peer (`rocm-tune doctor`: IOMMU, NCCL_P2P_DISABLE=1 to confirm); in the dataloader -> fewer workers",
         "the stacks a minute apart: the same frames mean a hang",
         # e-src: not in an exception's own message (axolotl's `ValueError: `use_reentrant` must be false when used
         # with partially frozen model.`): that is a refusal, not the user saying the run hangs
         (r"^(?!.*\b[A-Z]\w*(?:Error|Exception): ).*?"
          r"(?i:\b(?:hangs?|hanging|hung|stuck|freezes|frozen)\b.{0,40}(?:here|forever|indefinitely|no (?:more )?(?:output|"
          r"progress)|\.\.\.|>|\)|$))", r"卡住|卡死|卡在"),
         ("hang", "Hang", "HANG", "hung", "Hung", "stuck", "Stuck", "freezes", "Freezes", "frozen", "Frozen", "卡住", "卡死",
          "卡在"), hang=True, tail_only=True),
    # h7-hip (issue 26): a stack dump taken while the run made no progress (py-spy dump, faulthandler's
    # dump_traceback / SIGUSR1 handler) with a thread waiting inside a collective or a barrier of torch.distributed /
    # DeepSpeed's comm: the process is parked in the collective, whatever the log says around it. Not a Python
    # traceback through the same frames (`line N, in f`: an exception was raised there, its own error decides).
    _sig("stack-waits-in-collective", "nccl_rccl_timeout_hang", "error", "consequence", "a stack dump shows the "
         "process waiting inside a collective",
         "the dump was taken while the run made no progress and a thread sits in a collective (all_reduce, "
         "all_gather, broadcast, barrier) that never returns: every rank waits for one that never arrives (a rank "
         "that died or took another code path) or the transport between the GPUs hangs (peer-to-peer / IOMMU, the "
         "network between nodes)",
         "dump every rank (`py-spy dump --pid PID`): a rank elsewhere (data loading, a branch of its own, dead) is "
         "the cause; all ranks in the same collective -> check peer-to-peer (`rocm-tune doctor`: IOMMU, ACS), "
         "confirm with NCCL_P2P_DISABLE=1, and for several nodes NCCL_SOCKET_IFNAME / NCCL_IB_HCA",
         "two dumps a minute apart show the same frames on every rank",
         (r"^\s*(?:all_reduce|all_gather\w*|reduce_scatter\w*|broadcast\w*|barrier|monitored_barrier|"
          r"_store_based_barrier|all_to_all\w*|reduce|gather|scatter|send|recv|wait|synchronize) \((?:\S*/)?"
          r"(?:torch/distributed/|deepspeed/comm/)\S+:\d+\)",
          r'^\s*File "[^"]*(?:torch/distributed/|deepspeed/comm/)[^"]*", line \d+ in (?:all_reduce|all_gather\w*|'
          r"reduce_scatter\w*|broadcast\w*|barrier|monitored_barrier|_store_based_barrier|all_to_all\w*|wait)\s*$"),
         ("torch/distributed/", "deepspeed/comm/"), hang=True,
         sources=("py-spy's `dump` format (`    all_reduce (torch/distributed/distributed_c10d.py:2050)`) and CPython's "
                  "faulthandler (`  File \"...\", line N in f`) as hang reports post them",)),
    _sig("collective-timeout", "nccl_rccl_timeout_hang", "error", "consequence", "a collective (RCCL/NCCL) timed "
         "out in the watchdog",
         "a collective did not complete within the timeout: either one rank died or stalled first (its error "
         "is the root cause) or every rank is stuck (peer-to-peer/IOMMU, network)",
         "look for an earlier error on another rank; if every rank is stuck: `rocm-tune doctor` (IOMMU/P2P), "
         "NCCL_P2P_DISABLE=1 to confirm; raise ddp_timeout only when steps are legitimately slower",
         "NCCL_DEBUG=INFO TORCH_NCCL_DUMP_ON_TIMEOUT=1; compare SeqNum across ranks: the rank with the lowest "
         "is the one that stopped",
         (r"Watchdog caught collective operation timeout", r"\bNCCL timeout\b", r"\bRCCL timeout\b",
          r"Timeout at NCCL work", r"ProcessGroupNCCL.{0,200}Timeout", r"NCCL communicator was aborted",
          r"Heartbeat monitor timed out", r"watchdog got stuck for \d+ seconds",
          # torch 1.9-1.11 (`Caught collective operation timeout`), WorkNCCL's own line, handleException's verdict
          r"[Cc]aught collective operation timeout", r"ran for \d+ milliseconds before timing out",
          r"Some NCCL operations have failed or timed out",
          # the watchdog's own line (ProcessGroupNCCL.cpp 2.2+: `Exception (either an error or timeout) detected by
          # watchdog at work: N, last enqueued NCCL work: N, last completed NCCL work: N.`; profiles/peer_waits.py)
          r"Exception \(either an error or timeout\) detected by watchdog",
          # torch 2.4+: a rank told by another rank's timeout to dump its flight recorder
          r"Received a dump signal due to a collective timeout from", r"flight recorder dump signal from another rank",
          # explain-r2b: torch.distributed.monitored_barrier (gloo) naming the ranks that never arrived
          # (ProcessGroupGloo.cpp: "Ranks 1 failed to pass monitoredBarrier in 1800000 ms", "Rank 1 successfully
          # reached monitoredBarrier, but received errors while waiting for send/recv from rank 0")
          r"failed to pass monitoredBarrier in \d+ ms",
          r"reached monitoredBarrier, but received errors while waiting for send/recv from rank \d+"),
         ("Watchdog caught", "NCCL timeout", "RCCL timeout", "Timeout at NCCL", "Timeout", "communicator was aborted",
          "Heartbeat monitor", "watchdog got stuck", "collective operation timeout", "before timing out",
          "Some NCCL operations", "dump signal", "monitoredBarrier", "detected by watchdog"),
         hang=True, sources=("tests/fixtures/logs/alert-collective-timeout.log (torch 2.x ProcessGroupNCCL.cpp)",)),
    _sig("nccl-error", "nccl_rccl_timeout_hang", "error", "root", "an NCCL/RCCL call failed",
         "the collective library failed: a rank died mid-collective, a network/transport problem, or GPUs that "
         "cannot talk peer-to-peer",
         "read the NCCL WARN lines just before; check `rocm-tune doctor` (IOMMU/P2P); set NCCL_DEBUG=INFO; "
         "for a single node try NCCL_P2P_DISABLE=1 or NCCL_SHM_DISABLE=1 to locate the transport; in a container "
         "NCCL/RCCL needs shared memory (docker --shm-size=16g or --ipc=host) and the host's network interface "
         "(NCCL_SOCKET_IFNAME)",
         "rccl-tests / nccl-tests all_reduce_perf on the same GPUs",
         (r"ncclSystemError|ncclUnhandledCudaError|ncclInternalError|ncclInvalidUsage",
          r"NCCL error in: \S+(?!.*(?:remote process exited|ncclRemoteError|Connection reset|Connection closed))",
          r"(?i:[nr]ccl)\w*.{0,200}(?:unhandled system error|invalid usage|internal error|unhandled cuda "
          r"error|unhandled hip error)",
          # explain-dist (issue 26): gloo's TCP pairs (the CPU-side collectives) failing. NCCL/RCCL's shared-memory
          # segment in a too small /dev/shm is host memory (nccl-shm-exhausted; e-relabel, FAMILIES.md amended rule 3)
          r"gloo[/\\]transport[/\\]tcp[/\\]\w+\.cc:\d+\].{0,160}(?:Connect timeout|[Cc]onnection refused)",
          # (two ranks bound to one GPU, `Duplicate GPU detected`: the launch's placement, nccl-duplicate-gpu)
          r"NCCL WARN (?:Bootstrap|NET/Socket|NET/IB|NET)\s*:.{0,120}(?:no socket interface|[Nn]o (?:usable )?"
          r"(?:interface|device)|failed|error|[Cc]ould not)",
          r"NET/IB : Got completion from peer .{0,120}with error", r"no socket interface found",
          # r4-hw: the same InfiniBand/RoCE work-completion failure in its newer spelling (`NET/IB : Got completion
          # from peer 10.0.0.2<40000> with status=12 opcode=0 ...`): any non-zero ibv_wc_status
          r"NET/IB ?: Got completion (?:from peer \S+ )?with status=\s*[1-9]\d*",
          r"NCCL WARN .{0,120}(?:Cuda|Hip|HIP) failure (?:\d+ )?'(?!out of memory)(?!" + _HIP_CORE_FAIL + r"')", r"Gloo connectFullMesh failed",
          r"hipIpc\w+(?: failed| -> ?[1-9])", r"IPC memory creation failed", r"Failed to create memory for IPC",
          r"No usable listening interface found",
          # (e-amd8: nor `Call to posix_fallocate failed : No space left on device`, the full /dev/shm of
          # nccl-shm-exhausted)
          r"NCCL WARN (?!NET/Plugin)(?!.*librccl-net)(?!.*Missing \")(?!.*/dev/shm/)(?!.*shared memory segment)"
          r"(?!.*" + _cc.SHM_ALLOCATE_FAILED + r")"
          r"(?!.*(?:Cuda|Hip|HIP) failure (?:\d+ )?'" + _HIP_CORE_FAIL + r"')"
          r".{0,200}\b(?:failed|[Ee]rror)\b",
          # e-src (issue 26): not c++'s `terminate called after throwing an instance of 'c10::DistBackendError'`:
          # the watchdog rethrowing what it caught (ProcessGroupNCCL.cpp's "Process group watchdog thread terminated
          # with exception: " + e.what() — a collective timeout, a peer gone, a CUDA/HIP error), which its `what():`
          # line and the ProcessGroupNCCL log line name; the rethrow itself says nothing of its own
          r"(?<!instance of 'c10::)DistBackendError(?!.*(?:remote process exited|Connection reset|Connection closed|"
          r"ncclRemoteError|Watchdog caught|collective operation timeout|before timing out|(?:CUDA|HIP) error))"),
         ("nccl", "NCCL", "RCCL", "rccl", "Nccl", "Rccl", "socket interface", "Got completion", "connectFullMesh",
          "hipIpc", "IPC", "DistBackendError", "listening interface", "shared memory segment", "gloo"),
         sources=("vllm-project/vllm#10523 (torch.distributed.DistBackendError: NCCL error in: "
                                          "../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1333, unhandled system "
                                          "error)",)),
    _sig("rccl-scratch-reclaim", "nccl_rccl_timeout_hang", "error", "root", "RCCL refused to start: "
         "HSA_NO_SCRATCH_RECLAIM must be set",
         "with this GPU firmware and HIP runtime RCCL requires scratch memory not to be reclaimed and exits at "
         "communicator init; every collective (the first barrier) then fails",
         "export HSA_NO_SCRATCH_RECLAIM=1 in the environment of every rank (or update the GPU firmware / ROCm as "
         "AMD's release notes say)", "the error is gone with HSA_NO_SCRATCH_RECLAIM=1",
         (r"HSA_NO_SCRATCH_RECLAIM=1 must be set", r"[Pp]lease set HSA_NO_SCRATCH_RECLAIM=1"),
         ("HSA_NO_SCRATCH_RECLAIM",), sources=("ROCm/ATOM#913 ([FATAL ERROR]: HSA_NO_SCRATCH_RECLAIM=1 must be set "
                                              "to avoid performance)",)),
    _sig("nccl-peer-gone", "nccl_rccl_timeout_hang", "error", "weak", "a peer rank went away or the network "
         "between ranks failed (NCCL/RCCL remote error)",
         "the collective lost its peer: another rank exited (its own error, or the OOM killer) or the network "
         "between the nodes dropped the connection (wrong interface, InfiniBand/RoCE fault, firewall)",
         "look first for a rank that died earlier (an error or a kill on another node: that is the cause); "
         "otherwise the network: NCCL_SOCKET_IFNAME to the interface the nodes share, NCCL_IB_DISABLE=1 to test "
         "without InfiniBand, open the ports between the nodes",
         "NCCL_DEBUG=INFO: the 'via NET/...' lines name the transport; `ibstat` / `ibv_devinfo` on each node",
         (r"remote process exited or there was a network error", r"ncclRemoteError",
          r"Connection reset by peer", r"Connection closed by (?:remote )?peer", r"NCCL WARN .{0,120}Broken pipe",
          r"socketProgress\w*: .{0,80}(?:failed|[Cc]onnection)",
          # c10d's TCPStore when the peer (often rank 0, after its own failure) went away
          r"Failed to recv, got 0 bytes", r"Connection was likely closed"),
         ("remote process exited", "ncclRemoteError", "Connection reset", "Connection closed", "Broken pipe",
          "socketProgress", "Failed to recv", "likely closed"),
         sources=("NVIDIA/nccl#2076 (remote process exited or there was a network error ... socketProgressOpt: Call to "
                  "recv from ... failed : Connection reset by peer)", "NVIDIA/nccl#1141")),
    _sig("rendezvous-timeout", "nccl_rccl_timeout_hang", "error", "weak", "ranks could not meet (rendezvous/"
         "socket timeout)",
         "the ranks could not connect to the master address/port (a node did not start, a firewall, a wrong "
         "MASTER_ADDR, a port in use)",
         "check MASTER_ADDR/MASTER_PORT, that every node started, and that the port is free and reachable",
         "`nc -zv MASTER_ADDR MASTER_PORT` from each node",
         (r"RendezvousTimeoutError", r"The client socket has timed out", r"DistNetworkError", r"DistStoreError",
          r"waiting for clients\. \d+/\d+ clients joined",
          r"Timed out initializing process group",
          # c10d: a rank waits for another's NCCL unique id / key in the store (TCPStore, FileStore)
          r"store->get\('?[\w/]*'?\) got (?:error|exception): ", r"Socket Timeout", r"Timeout waiting for key: ",
          r"[Ww]aiting in store based barrier", r"failed to pass monitoredBarrier",
          r"Timed out waiting \d+ms for (?:send|recv) operation", r"Rendezvous(?:Connection|Closed)Error",
          # the server side only: the client's `failed to connect` is a warning c10d prints on every retry
          r"The server socket has failed to (?:listen|bind)",
          r"(?:c10d|TCPStore|socket\.cpp|DistNetworkError).{0,200}(?:EADDRINUSE|[Aa]ddress already in use)",
          r"ssh: connect to host \S+ port \d+: (?:Connection refused|No route to host|Connection timed out)",
          r"pdsh@\S+: \S+: ssh exited with exit code 255",
          # ex-num: the frameworks' own barrier waits (Lightning, Accelerate, custom loops) in their words
          r"[Tt]imed? ?out waiting for (?:all )?(?:the )?(?:other )?(?:ranks|workers|processes|peers|nodes)\b",
          r"\bbarrier (?:timed out|timeout)\b"),
         ("Rendezvous", "socket has timed out", "ime out waiting", "imeout waiting", "arrier timed out",
          "arrier timeout", "DistNetworkError", "initializing process group", "DistStoreError",
          "clients joined", "store->get", "Socket Timeout", "Timeout waiting for key", "store based barrier",
          "monitoredBarrier", "Timed out waiting", "socket has failed", "EADDRINUSE", "ddress already in use",
          "ssh: connect to host", "ssh exited")),
    # explain-dist (issue 26): c10d's client retry lines are printed on every retry, also in runs that then start
    # (a worker up before the master listens): a sign only when the log ENDS in them — the rank never reached the
    # rendezvous master and the job sits there
    _sig("rendezvous-retry-then-silence", "nccl_rccl_timeout_hang", "error", "consequence", "the log ends while a "
         "rank keeps retrying to reach the rendezvous master",
         "a rank cannot connect to MASTER_ADDR:MASTER_PORT (the c10d store): the master's hostname does not resolve "
         "on this node, a firewall or a wrong interface blocks the port, the master node never started, or a stale "
         "process holds the port — so it retries until the rendezvous timeout",
         "give MASTER_ADDR as an IP address every node can reach (or fix /etc/hosts), open the port between the nodes, "
         "start every node's launcher, and check nothing else listens on MASTER_PORT",
         "`getent hosts MASTER_ADDR` and `nc -zv MASTER_ADDR MASTER_PORT` from the node that retries",
         # r5-hip: not errno 97 (EAFNOSUPPORT: no IPv6 on the host; c10d goes on over IPv4): warning-level-note
         (r"\[c10d\] The client socket has failed to connect to \S+ \(errno: (?!97\b)\d+",
          r"\[c10d\] The IPv6 network addresses of \(\S+, \d+\) cannot be retrieved",
          r"\[c10d\] The client socket cannot be initialized to connect to"),
         ("client socket has failed", "network addresses of", "cannot be initialized to connect"), hang=True,
         tail_only=True, sources=("meta-pytorch/monarch#1571 (socket.cpp:767 [c10d] The IPv6 network addresses of "
                                  "(job-...internal, 50745) cannot be retrieved (gai error: -2 - Name or service not "
                                  "known); an IP as MASTER_ADDR fixed it)", "pytorch/pytorch#67547 (hostname not in "
                                  "/etc/hosts)")),
    # ex-num (issue 26): the launchers' own network failures. Open MPI/PRRTE (mpirun for rccl-tests, Megatron, MPI
    # launchers on clusters) and NCCL/RCCL's bootstrap report that a node's daemon or peer cannot be reached in their
    # own words; the usual cause is the interface they picked (docker0, virbr0, lo, a NIC missing on one node).
    _sig("launcher-network-unreachable", "nccl_rccl_timeout_hang", "error", "weak", "the launcher (MPI / NCCL "
         "bootstrap) could not reach another node",
         "the MPI launcher or NCCL/RCCL's bootstrap connects over an interface the other nodes cannot reach (docker0, "
         "virbr0, lo, a NIC name that differs between nodes), a firewall blocks its ports, or the peer is not up",
         "exclude virtual interfaces from MPI (mpirun -mca oob_tcp_if_exclude docker0,virbr0,lo -mca "
         "btl_tcp_if_exclude docker0,virbr0,lo) and name the shared one for NCCL/RCCL (NCCL_SOCKET_IFNAME); open the "
         "ports between the nodes (or disable the firewall) and start every node",
         "`mpirun -np 2 --hostfile hosts hostname` must return from every node; NCCL_DEBUG=INFO names the interface "
         "NCCL picked ('Bootstrap : Using ...')",
         (r"ORTE_ERROR_LOG: .{0,80}(?:socket|connect).{0,60}(?:failed|refused|unreachable)",
          r"(?:ORTE|PRTE) was unable to reliably start one or more daemons",
          r"(?:ORTE|PRTE) has lost communication with (?:a |its )?remote daemon",
          r"MPI processes are unable to reach each other",
          r"connect\(\) to \S+ failed: (?:Connection refused|No route to host|Connection timed out)",
          r"mca_oob_tcp\S*.{0,80}(?:connect|peer).{0,60}(?:failed|refused|unreachable)",
          r"NCCL WARN Call to connect returned (?:Connection refused|Connection timed out|No route to host)",
          r"\bsend\(\) to socket (?:\d+ )?failed: (?:Connection refused|Broken pipe)"),
         ("ORTE", "PRTE", "reach each other", "connect() to", "mca_oob_tcp", "Call to connect returned",
          "send() to socket"),
         sources=("AMD GPU cluster networking troubleshooting guide (Open MPI over docker/VM interfaces: 'send() to "
                  "socket failed: Connection refused'; NCCL_SOCKET_IFNAME bootstrap mismatch)",
                  "Open MPI btl_tcp_endpoint.c (connect() to ... failed: Connection refused (111))")),
    # ex-num (issue 26): RCCL/NCCL warnings that only concern speed (NUMA auto-balancing, bandwidth): the run goes on;
    # a WARN that also says hang/instability/failure is not one of them
    _sig("rccl-perf-advisory", "benign_warning", "info", "context", "an RCCL/NCCL performance advisory",
         "RCCL/NCCL notes a setting that can cost or vary bandwidth (kernel NUMA auto-balancing on, ...); the "
         "collectives still run",
         "nothing for correctness; for steady bandwidth follow the note (e.g. echo 0 > /proc/sys/kernel/numa_balancing)",
         "the run continues past it",
         (r"NCCL WARN (?![^\n]*(?:hang|instab|fail|error|abort|timeout))[^\n]*\b(?:performance|bandwidth)\b",),
         ("NCCL WARN",), benign=True,
         sources=("AMD GPU cluster networking troubleshooting guide ('NCCL WARN NUMA auto balancing enabled which can "
                  "lead to variability in the RCCL performance!' -> disable NUMA balancing)",)),
    # ------------------------------------------------------------------ ddp_error
    _sig("ddp-mark-ready-twice", "ddp_error", "error", "root", "DDP: 'Expected to mark a variable ready only once'",
         "reentrant gradient checkpointing with LoRA (or unused parameters) makes DDP's autograd hooks fire twice",
         "use non-reentrant gradient checkpointing (gradient_checkpointing_kwargs={'use_reentrant': False}) and "
         "ddp_find_unused_parameters: false, or turn gradient checkpointing off",
         "the error is gone with use_reentrant False; `rocm-tune plan` warns ddp-lora-gc-reentrant",
         (r"Expected to mark a variable ready only once",), ("mark a variable ready",),
         sources=("seeds/004", "tests/fixtures/logs/alert-ddp-mark-ready-twice.log")),
    # integrator (session 12): torch/utils/checkpoint.py's non-reentrant checkpointing (_checkpoint_hook /
    # _StopRecomputationError path) compares what the recomputation produced with what the forward saved and raises
    # CheckpointError on any difference. Under DeepSpeed ZeRO-3 the parameters a layer gathered in the forward are
    # partitioned again by the time it is recomputed: the recomputed tensors come back with shape [0]
    # (deepspeed/runtime/zero/linear.py, partition_parameters.py) - deepspeedai/DeepSpeed#8148; TRL forces
    # use_reentrant=True for PEFT + ZeRO-3 since. The training engine rejects the graph, not the checkpoint files.
    _sig("checkpoint-recompute-mismatch", "ddp_error", "error", "root",
         "gradient checkpointing: the recomputed forward does not match the saved one",
         "non-reentrant gradient checkpointing (use_reentrant=False) recomputes each layer in the backward and found "
         "tensors of another shape than the forward saved; shape [0] in the recomputation is a ZeRO-3 parameter "
         "that was partitioned again before it was recomputed (PEFT/LoRA + ZeRO-3 + non-reentrant checkpointing); "
         "other shapes: a forward that is not the same twice (data-dependent shapes, a module that changes state)",
         "use reentrant checkpointing (gradient_checkpointing_kwargs={'use_reentrant': True}; LLaMA-Factory: "
         "use_reentrant_gc: true) or ZeRO-2 instead of ZeRO-3 for a LoRA run; with other shapes than [0], make the "
         "forward deterministic under recomputation or turn checkpointing off for that module",
         "the traceback's `recomputed metadata: {'shape': torch.Size([0])` lines, and zero_optimization stage 3 in "
         "the DeepSpeed config",
         (r"CheckpointError: torch\.utils\.checkpoint: Recomputed values for the following tensors have different "
          r"metadata than during the forward pass",
          r"CheckpointError: torch\.utils\.checkpoint: A different number of tensors was saved during the original "
          r"forward and recomputation"),
         ("Recomputed values for the following tensors", "A different number of tensors was saved"),
         sources=("pytorch torch/utils/checkpoint.py (CheckpointError)", "deepspeedai/DeepSpeed#8148")),
    _sig("ddp-unused-parameters", "ddp_error", "error", "root", "DDP: parameters did not take part in the loss",
         "some trainable parameters got no gradient in an iteration (e.g. a LoRA-wrapped text encoder or a "
         "branch not used), and DDP built with find_unused_parameters=False refuses the next reduction",
         "pass find_unused_parameters=True (accelerate: DistributedDataParallelKwargs(find_unused_parameters="
         "True); HF/LLaMA-Factory: ddp_find_unused_parameters: true) or make every trainable parameter take part",
         "set TORCH_DISTRIBUTED_DEBUG=DETAIL: the error then lists the unused parameter names",
         (r"Expected to have finished reduction in the prior iteration",
          r"module has parameters that were not used in producing loss"),
         ("finished reduction", "not used in producing loss"),
         sources=("calibration diffusers-5354",)),
    _sig("collective-shape-mismatch", "ddp_error", "error", "root", "ranks passed tensors of different shapes "
         "to a collective",
         "a gather/broadcast/all-reduce got a tensor of another shape (or dtype) on some rank — uneven last "
         "batches, per-rank padding to different lengths, a module buffer that grew on one rank only (DDP broadcasts "
         "buffers every step), a rank that skipped a collective — so it fails (in debug mode) or hangs until the "
         "timeout",
         "pad to the same length on every rank (accelerator.pad_across_processes), drop_last / even_batches, or "
         "gather objects instead of tensors; a buffer that differs per rank by design: keep it out of DDP's "
         "broadcast (persistent=False is not enough: DDP(broadcast_buffers=False), or the library's fix)",
         "ACCELERATE_DEBUG_MODE=1 / TORCH_DISTRIBUTED_DEBUG=DETAIL name the shapes per rank; the flight recorder "
         "(TORCH_NCCL_TRACE_BUFFER_SIZE, `python -m torch.distributed.flight_recorder.fr_trace`) names the collective",
         (r"DistributedOperationException", r"Cannot apply desired operation due to shape mismatches",
          r"Detected mismatch between collectives on ranks",
          # explain-dist (issue 26): DDP's start-up check that every rank built the same model
          r"DDP expects same model across all ranks",
          # e-new15: the flight recorder analyzer's verdict on one collective (profiles/collective_sizes.py); the
          # watchdog lines of ranks with unequal NumelIn for one SeqNum are read by diagnose/collective_sizes.py
          *_csizes.FR_MISMATCH),
         ("DistributedOperationException", "shape mismatches", "mismatch between collectives", "DDP expects same model",
          "does not match found"),
         sources=("huggingface/accelerate docs (debug mode: DistributedOperationException)",
                  "pytorch torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp operator<<(WorkNCCL), "
                  "torch/distributed/flight_recorder/components/types.py Op.match")),
    # ------------------------------------------------------------------ fp16_overflow / nan
    _sig("fp16-overflow-streak", "fp16_overflow", "warning", "weak", "fp16 loss-scale overflows keep skipping "
         "optimizer steps",
         "the dynamic loss scaler finds inf/NaN gradients on step after step (>= 5 in a row, >= 20 at the very start): "
         "those steps are skipped and the model does not learn; the scale heads for its minimum",
         "train in bf16 where the GPU has it natively, otherwise fp32; if fp16 must stay, lower the learning "
         "rate and set DeepSpeed fp16.initial_scale_power 16, loss_scale_window 1000",
         "count the OVERFLOW!/Gradient overflow lines on consecutive steps",
         (), (), sources=("tests/fixtures/logs/alert-fp16-overflow-streak.log — found from the overflow series "
                          "(alerts.AlertEngine), not from one line",)),
    _sig("fp16-loss-scale-minimum", "fp16_overflow", "error", "root", "fp16 loss scale at its minimum: training stops",
         "fp16 overflows on every step, so the dynamic loss scaler halved the scale down to its minimum",
         "train in bf16 where the GPU has it natively, otherwise fp32; if fp16 must stay, lower the learning "
         "rate and set DeepSpeed fp16.initial_scale_power 16, loss_scale_window 1000",
         "the OVERFLOW! lines before it: each step halves the scale",
         (r"Current loss scale already at minimum", r"loss scale (?:is )?already at (?:its )?minimum",
          r"[Mm]inimum loss scale reached"),
         ("loss scale already", "oss scale reached"),
         sources=("calibration lf-251 (Exception: Current loss scale already at minimum - cannot decrease scale "
                  "anymore. Exiting run.)",)),
    _sig("loss-collapse", "fp16_overflow", "error", "root", "the loss collapsed to 0.0 (grad_norm NaN)",
         "a logged loss of exactly 0.0 with a NaN gradient norm (or several 0.0 losses in a row) is fp16 overflow "
         "in the forward pass (Qwen2.5 is known for it), not learning",
         "train in bf16 where the GPU has it natively, otherwise fp32 (fp16: false, bf16: false); restart from the "
         "last checkpoint before the collapse",
         "the first step with loss 0.0 / grad_norm nan in trainer_log.jsonl or the log's dicts",
         # explain-mem: what users write over the pasted log when every step logs 0.0 (English and Chinese); the
         # run's precision still decides fp16_overflow vs nan_loss (diagnose._collapse_by_precision)
         (r"\bloss (?:is|was|stays|stayed|remains|became|becomes|goes to|drops to|dropped to) (?:always |all )?"
          r"(?:0|zero)(?![.\d]*[1-9])\b", r"loss\s*(?:全为|全是|都是|都为|一直是|一直为|始终为|变成|变为)\s*0(?![.\d]*[1-9])"),
         ("loss",), sources=("seeds/000 (fp16: grad_norm: NaN, loss: 0.0)",
                          "tests/fixtures/logs/alert-loss-collapse-qwen-fp16.log — found from the loss series "
                          "(alerts.AlertEngine), not from one line")),
    _sig("fp16-scale-collapsed", "fp16_overflow", "error", "weak", "fp16 loss scale driven down to 1 or below",
         "fp16 gradients overflow step after step, so the dynamic loss scaler halved the scale down to (or below) "
         "1: every such step is skipped and the model does not learn (the next overflow stops DeepSpeed)",
         "train in bf16 where the GPU has it natively, otherwise fp32; if fp16 must stay, lower the learning "
         "rate, clip gradients, and check the data for extreme values",
         "the OVERFLOW!/Gradient overflow lines before it: each halves the scale",
         (r"Attempted loss scale: [\d.e+-]+, reducing to (?:0?\.\d+|1(?:\.0+)?|[\d.]+e-\d+)\s*$",
          r"reducing loss scale to (?:0?\.\d+|1(?:\.0+)?|[\d.]+e-\d+)\s*$"),
         ("reducing to", "reducing loss scale to"),
         sources=("NVIDIA/apex#318 (Gradient overflow.  Skipping step, loss scaler 0 reducing loss scale to "
                  "2.002083095183101e-146)",)),
    _sig("fp16-value-overflow", "fp16_overflow", "error", "root", "a value does not fit in fp16 (half precision)",
         "a constant or a tensor value outside the fp16 range (|x| > 65504, or +/-inf) was written into a half "
         "tensor: a mask filled with -1e9/-inf, a logits bias of 2**30, a gradient norm that overflowed",
         "train in bf16 where the GPU has it natively, otherwise fp32; where fp16 must stay, use "
         "torch.finfo(torch.float16).min/max instead of large constants (the model code's masks and biases) and a "
         "loss scaler with fp32 master weights",
         "the line of the traceback above the error writes the constant (masked_fill, a score bias)",
         (r"value cannot be converted to type (?:at::|c10::)?Half without overflow",),
         ("without overflow",),
         sources=("c10/util/TypeCast.h checked_convert (value cannot be converted to type at::Half without "
                  "overflow)", "QwenLM/Qwen#32 (float(2**30) into fp16 logits)")),
    _sig("fp16-overflow-skip", "fp16_overflow", "info", "context", "fp16 overflow: one optimizer step skipped",
         "the dynamic loss scaler found inf/NaN gradients and halved the scale; a few at the start are it "
         "calibrating, a long streak is a real overflow",
         "nothing for a few; for a streak see fp16-overflow-streak, at the minimum fp16-loss-scale-minimum", "count them: a streak on consecutive steps",
         (r"OVERFLOW! Rank \d+ Skipping step", r"Gradient overflow\.\s+Skipping step",
          r"[Oo]verflow detected\. Skipping", r"fp16 dynamic loss scale overflow! Skipping step"),
         ("OVERFLOW!", "overflow.", "verflow detected", "loss scale overflow!"), benign=True,
         sources=("calibration lf-251 ([deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 16, "
                  "reducing to 8)",)),
    _sig("nan-loss", "nan_loss", "error", "weak", "the loss or gradient norm became NaN/Inf",
         "numerical overflow (fp16 on models that overflow, e.g. Qwen2.5), a too-high learning rate, or bad data",
         "bf16 where native, else fp32; lower the learning rate; clip gradients (max_grad_norm 0.5-1.0); resume "
         "from the last good checkpoint",
         "the step where loss/grad_norm first turns nan in trainer_log.jsonl",
         (r"\b(?:loss|grad(?:ient)?s?(?:_norm)?) (?:is|are|became) (?:nan|inf)\b", r"'grad_norm': '?(?:nan|-?inf)\b",
          r"'loss': '?(?:nan|-?inf)\b", r"\"(?:loss|grad_norm)\": ?(?:NaN|Infinity|-Infinity)\b",
          r"\b(?:loss|grad_norm)[:=] ?(?:nan|-?inf)\b",
          r"(?:\b|_)(?:loss|grad[ _]norm)['\"]?\s*[:=]\s*['\"]?(?:tensor\()?(?:nan|-?inf)\b",
          # sampling from NaN/Inf logits (generation in RLHF/eval): the same numerical failure
          r"probability tensor contains either `?inf`?, `?nan`? or element < 0",
          # Megatron's checks, autograd's anomaly mode, trainers' own checks
          r"found NaN in local (?:grad norm|forward loss)", r"returned nan values in its \d+(?:st|nd|rd|th) output",
          r"Loss became infinite or NaN", r"\b(?:nan|inf) (?:loss|gradients?) detected",
          r"(?:detected|encountered|found) (?:a )?(?:nan|inf)(?:/inf)? (?:in|loss|value)",
          # explain-mem: `loss nan` as fairseq/plain loops print it; clip_grad_norm_(error_if_nonfinite); timm/YOLO's
          # non-finite loss stop; torch.utils.tensorboard's check; Keras TerminateOnNaN; TF's NanLossDuringTrainingError
          r"(?:^|[\s|,(])(?:train_|training_|total_|avg_)?loss\s+(?:nan|-?inf)\b",
          r"gradients from `parameters` is non-finite", r"non-finite loss", r"NaN or Inf found in input tensor",
          r"Invalid loss, terminating training", r"NaN loss during training",
          # Megatron-LM's per-interval counter; torch.distributions' argument check on NaN parameters (RL policies)
          r"number of nan iterations:\s*[1-9]", r"to satisfy the constraint \w+\(\), but found invalid values",
          # what users write over the pasted log (Chinese): loss/grad_norm 为/变成/出现 nan
          r"(?:loss|grad_norm)\s*(?:为|变成|变为|出现|是|都是|全是|全为)\s*(?:nan|inf)\b",
          # ex-num (issue 26): perplexity is exp(loss): NaN/inf with it; scikit-learn's check on NaN predictions/metrics
          r"\b(?:ppl|perplexity)['\"]?\s*[:=]?\s*['\"]?(?:nan|inf)\b", r"Input contains (?:NaN|infinity)",
          # ex-num: the general shape — a loss or gradient-norm name (any prefix: train/, actor/pg_, avg_), then a
          # separator (`:`, `=`, spaces, `is`, `was`) and nan/inf, also inside `tensor(...)` — and `NaN loss` prose
          r"(?:\b|(?<!max)_)(?:loss|grad(?:ient)?s?[ _]?norm)['\"]?(?:\s*[:=]\s*|\s+(?:is\s+|was\s+|became\s+|of\s+)?)"
          r"['\"]?(?:tensor\(\s*)?(?:nan|[-+]?inf(?:inity)?)\b",
          r"\b(?:nan|inf) (?:loss|grad(?:ient)?s?(?: norm)?)\b"),
         ("nan", "NaN", "loss", "grad", "Infinity", "probability tensor", "infinite", "non-finite",
          "invalid values", "ppl", "perplexity", "Input contains", "Loss", "Grad", "norm", "inf"), ignorecase=True, sources=("seeds/000 (grad_norm: NaN, loss: 0.0)",)),
    # ------------------------------------------------------------------ bf16_unsupported
    _sig(*_texts("bf16-unsupported", "bf16_unsupported", "root"),   # also a check finding: texts in core/codes.py
         (r"bf16 precision was requested but not available", r"doesn't support bf16", r"does not support bf16",
          r"Bfloat16 is only supported on GPUs with compute capability", r"bf16.{0,40}requires.{0,40}Ampere",
          r"Current device does not support bfloat16", r"not implemented for 'BFloat16'",
          r"(?i:\bb(?:f|float)16\b[^\n]{0,80}\b(?:is not supported|not supported on|isn't supported|unsupported on|"
          r"not available on|requires? (?:an? )?(?:Ampere|newer GPU|GPU with|device with|compute capability)))",
          # r3-misc: also a backquoted setting (LLaMA-Factory: `This device does not support `pure_bf16`.`)
          r"(?i:(?:does not|doesn't|do not) support (?:the )?`?(?:pure_)?b(?:f|float)16\b)",
          r"is_bf16_supported\(\)\s*(?:returned |is |==\s*)?False", r"Cannot select: intrinsic %llvm\.amdgcn\.[\w.]*bf16", r"bf16 mixed precision requires PyTorch >= [\d.]+ and a "
          r"supported device", r"(?:bf16|bfloat16) (?:is )?not supported on (?:this|your) (?:device|GPU|hardware)",
          # explain-rocm: the BLAS refusing a bf16 GEMM (cuBLAS on Volta/Turing, hipBLAS/rocBLAS on gfx9 before MI200):
          # NOT_SUPPORTED for a call whose data type is 16BF
          # r5-hip: hipBLAS' own enum for bf16 is HIPBLAS_R_16B (hipblasDatatype_t), older torch ROCm builds print it
          r"(?:CU|HIP)BLAS_STATUS_NOT_SUPPORTED when calling `(?:cu|hip)blas\w*\(.{0,400}\b(?:(?:CUDA|HIP|HIPBLAS)_R_16BF|"
          r"HIPBLAS_R_16B)\b",
          # e-new16: ptxas refusing a bf16 instruction for a card below Ampere (Triton's make_cubin re-raises ptxas'
          # log: `Internal Triton PTX codegen error`, `PTXASError`, `ptxas failed with error code`, per release):
          # `Feature '.bf16' | 'cvt.bf16.f32' | 'cvt with .f32.bf16' | 'mma with .bf16' requires .target sm_80 or
          # higher`; a requirement of sm_90+ on an sm_8x card is the compiler's output, not a card without bf16.
          # Only Triton's own PTX files (2.x `compile-ptx-src-XXXXXX`, 3.x tempfile `tmpXXXXXXXX.ptx`): Triton builds
          # for the device's capability, nvcc (`tmpxft_...ptx`) for the build's arch list (the build's config)
          # (likewise clang's `'__builtin_amdgcn_..bf16..' needs target feature` names the build's --offload-arch,
          # not the card: left to the build's signatures)
          # (a paste without the file, `ptxas error   : Feature ...`, is Triton's: nvcc always names its file)
          r"ptxas (?:[^\s,]*[/\\](?:compile-ptx-src-\w+|tmp(?!xft_)\w+\.ptx), line \d+; )?error\s*: "
          r"(?i:Feature '[^'\n]{0,60}\bbf16[^'\n]{0,40}' requires \.?target sm_8\d)"),
         ("bf16", "Bfloat16", "bfloat16", "Cannot select", "BFloat16", "BF16", "bF16", "Bf16", "BFLOAT16", "16BF",
          "HIPBLAS_R_16B"),
         sources=("calibration torchtune-801 (RuntimeError: bf16 precision was requested but not available on "
                  "this hardware)",)),
    # ------------------------------------------------------------------ hip_error / cuda_error
    _sig("hip-invalid-device-function", "hip_error", "error", "root", "HIP: no kernel for this GPU architecture",
         "the installed PyTorch/ROCm libraries contain no code objects for this GPU's gfx architecture "
         "(e.g. gfx1010, gfx1031 with the official wheels)",
         "use a GPU/arch the wheels are built for, set HSA_OVERRIDE_GFX_VERSION to a supported sibling "
         "(10.3.0 for gfx103x RDNA2, 11.0.0 for gfx110x) or build PyTorch with the arch in PYTORCH_ROCM_ARCH",
         "`roc-obj-ls $(python -c 'import torch,os;print(os.path.dirname(torch.__file__))')/lib/libtorch_hip.so "
         "| grep gfx` and `rocminfo | grep gfx`",
         (r"(?:HIP|ROCm) error: invalid device function", r"hipErrorInvalidDeviceFunction",
          r"hipErrorNoBinaryForGpu(?! ?: continue parsing)",
          r"No device code available for function", r"Unable to find code object for all current devices",
          r"HSA_STATUS_ERROR_INVALID_ISA", r"hipErrorInvalidImage",
          r"HIP error: no kernel image is available", r"[Cc]annot find (?:CodeObject|code object) for",
          # r3-hip: hipErrorInvalidImage's text (hip_error.cpp) as torch / Triton print it
          r"(?:HIP error|Triton Error \[HIP\]):\s*(?:Code: \d+, Messsage: )?device kernel image is invalid",
          # explain-rocm: the same error reported by other layers — the HIP runtime's log comparing ISAs, Triton's
          # launcher (HIP code 98), bitsandbytes' HIP build (ops.hip)
          r"The program ISA \S+ is not compatible with the device ISA",
          r"Triton Error \[HIP\]:.{0,60}invalid device function",
          r"Error invalid device function at line \d+ in file \S+\.hip\b",
          # e-new17: PaddlePaddle's enforce.h (` Hip error(98), invalid device function.`, 209: no binary for the GPU)
          r"\bHip error\((?:" + "|".join(_pd.HIP_NO_KERNEL_NUMBERS) + r")\),",
          # TensorFlow's ROCm build (common_runtime/gpu/gpu_device.cc) refusing a card its build has no code for:
          # it then runs on the CPU
          r"Ignoring visible gpu device \([^\n]*\) with AMDGPU version : gfx"),
         ("Ignoring visible gpu device", "invalid device function", "Hip error(", "hipErrorInvalidDeviceFunction", "hipErrorNoBinaryForGpu", "No device code",
          "code object", "INVALID_ISA", "hipErrorInvalidImage", "CodeObject", "HIP error: no kernel image",
          "kernel image is invalid",
          "is not compatible with the device ISA"),
         sources=("calibration pytorch-132570 (RuntimeError: HIP error: invalid device function)",
                  "ggml/llama.cpp's spelling `ROCm error: invalid device function` (ollama/ollama#11975)")),
    _sig("hip-missing-code-object", "hip_error", "error", "weak", "the HIP runtime's log: a library has no code "
         "object for this GPU's ISA",
         "with AMD_LOG_LEVEL set, the HIP runtime lists every loaded library that carries no kernels for this GPU "
         "architecture; harmless for a library the run does not call (hipBLASLt on consumer cards), the cause when "
         "nothing else failed",
         "if nothing else failed: use a PyTorch/ROCm build for this GPU's gfx target (HSA_OVERRIDE_GFX_VERSION to a "
         "supported sibling on consumer cards)",
         "`rocminfo | grep gfx` against the gfx targets the wheel lists",
         (r"Missing CO for these ISAs", r"Cannot find CO in the bundle (?!\S*hipblaslt)(?:\S+ )?for ISA",
          r"Returned hipErrorNoBinaryForGpu ?: continue parsing",
          # explain-rocm: a library asked the runtime for a kernel its code object for this GPU does not have
          # (rocBLAS' Tensile kernels named Cijk_..., with several GPU architectures in one machine)
          r"hip_(?:code_object|module)\.cpp\s*:\s*\d+\s*:.{0,120}Cannot find the function: \w+",
          # ex-rocm: a library's kernel file for this GPU that the runtime cannot load (not hipBLASLt's, whose missing
          # kernels rocBLAS falls back from: hipblaslt-unsupported)
          r"hipModuleLoad(?:Data)? failed:? (?!\S*hipblaslt[/\\])\S+\.(?:hsaco|co)\b"),
         ("Missing CO", "Cannot find CO", "continue parsing", "Cannot find the function", "hipModuleLoad"),
         sources=("ROCm/legacy-rocm-build#4208 (AMD_LOG_LEVEL=5: Missing CO for these ISAs - "
                  "amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-)",)),
    _sig("rocblas-no-tensile-arch", "hip_error", "error", "root", "rocBLAS has no kernels (TensileLibrary) for "
         "this GPU architecture",
         "rocBLAS ships Tensile libraries for a list of gfx targets; this GPU's (e.g. gfx1031, gfx1036) is not "
         "among them",
         "set HSA_OVERRIDE_GFX_VERSION=10.3.0 (RDNA2 gfx103x) or 11.0.0 (RDNA3) before starting, or build "
         "rocBLAS for the arch",
         "`ls /opt/rocm/lib/rocblas/library | grep gfx`",
         (r"rocBLAS error: Cannot read \S*TensileLibrary\S*", r"Could not initialize Tensile (?:host|library)",
          # ex-rocm: rocBLAS' own Tensile loader under any logger prefix (journald, `ERROR:`), with a path holding
          # spaces (Windows: C:\Program Files\AMD\ROCm\...): never hipBLASLt's logger (`rocblaslt error:`, its
          # hipblaslt/ library dir), which rocBLAS falls back from (hipblaslt-unsupported)
          r"^(?!.*(?:blaslt error|hipblaslt[/\\])).*?(?:Cannot read|Could not load|cannot open) .{0,300}?TensileLibrary",
          r"^(?!.*(?:blaslt error|hipblaslt[/\\])).*?TensileLibrary\S*\.(?:dat|yaml)\S*: No such file",
          r"rocBLAS error:.{0,80}(?:GPU arch|gfx\w+)",
          # e-amd8 (issue 26): rocBLAS' Tensile loader finding no code object for this GPU's processor in its library
          # dir (ROCm/rocBLAS@af09a29ff278bbb9f2b37437037937fd978a3676 library/src/tensile_host.cpp: glob of
          # `<dir>/*<gfx>*co` returned GLOB_NOMATCH -> `rocBLAS warning: No paths matched %s. Make sure that
          # ROCBLAS_TENSILE_LIBPATH is set correctly.`): no GEMM kernels for the card
          r"rocBLAS warning: No paths matched \S*co\. Make sure (?:that )?ROCBLAS_TENSILE_LIBPATH"),
         ("TensileLibrary", "Tensile host", "rocBLAS error", "rocBLAS warning: No paths matched"),
         sources=("ROCm/rocBLAS#1339, ROCm/legacy-rocm-build#3015 (rocBLAS error: Cannot read "
                  "/opt/rocm/lib/rocblas/library/TensileLibrary.dat: No such file or directory for GPU arch : "
                  "gfx1036)",)),
    _sig("no-gpu-visible", "hip_error", "error", "root", "no GPU visible to PyTorch",
         "PyTorch sees no GPU: a CPU-only or CUDA build of torch on an AMD machine, HIP_VISIBLE_DEVICES/"
         "CUDA_VISIBLE_DEVICES hiding the GPUs, missing /dev/kfd or /dev/dri permissions (video/render groups), "
         "or no driver in a container",
         "install the ROCm build of torch (torch.version.hip set), check *_VISIBLE_DEVICES, add the user to the "
         "video and render groups, pass --device=/dev/kfd --device=/dev/dri to the container",
         "`rocm-tune doctor`; `python -c 'import torch;print(torch.version.hip, torch.cuda.device_count())'`",
         (r"No HIP GPUs are available", r"No CUDA GPUs are available", r"Found no NVIDIA driver on your system",
          r"Torch not compiled with CUDA enabled", r"hipErrorNoDevice", r"no ROCm-capable device is detected",
          # e-relabel (FAMILIES.md amended rule 2): /dev/kfd that cannot be opened for another reason than its
          # permissions (EACCES `Permission denied`: gpu-device-permission, hf_cache_permission, reads those). EPERM
          # `Operation not permitted` is the kernel driver refusing (a KFD that did not load right), not the file mode
          r"Unable to open /dev/kfd(?!.{0,60}(?i:permission denied))",
          r"(?:/dev/kfd|/dev/dri\S*)'?:? ?(?i:operation not permitted)",
          r"hsa api call failure at: .{0,120}hsa_init",
          # the ROCr runtime refusing an amdgpu kernel driver too old for it (the GPU is then hidden)
          r"HSA Error: Incompatible kernel and userspace",
          # explain-r2b: rocminfo's own failure to open the GPUs (its HSA_STATUS_ERROR_OUT_OF_RESOURCES is the runtime
          # finding no usable device — permissions, an unsupported GPU, no driver — not memory; it works under sudo
          # when it is the permissions: ROCm/legacy-rocm-build#1064, #1070, #1758; ofiwg/libfabric#6161)
          r"hsa api call failure at: \S*rocminfo\.cc",
          # ex-rocm: DeepSpeed's launcher (launcher/runner.py) counting no GPU; the amdgpu kernel driver that did not
          # bind the GPU at boot (dmesg), so no device exists for the runtime
          r"Unable to proceed, no GPU resources available", r"amdgpu.{0,60}\bprobe of \S+ failed with error -?\d+",
          # r4-hw: the container runtime cannot pass the GPU device nodes in, because the host has none (amdgpu/KFD
          # not loaded: a kernel without the dkms module, a VM without passthrough) or the path is wrong: docker's
          # `error gathering device information while adding custom device "/dev/kfd": no such file or directory`,
          # crun/podman's `error stat'ing file `/dev/kfd``; rocminfo's own `ROCk module is NOT loaded`
          r"adding custom device \\?\"?/dev/(?:kfd|dri)",
          r"stat'?ing (?:file )?[`'\"]?/dev/(?:kfd|dri)",
          # e-new17: Apptainer/Singularity binding a device node the host does not have (--rocm, --bind /dev/kfd;
          # internal/pkg/runtime/engine/singularity/container_linux.go: `mount source %s doesn't exist`)
          r"mount source /dev/(?:kfd|dri)\S* doesn'?t exist",
          r"/dev/(?:kfd|dri)\S*[`'\"]?:? (?i:no such file or directory|no such device)",
          r"ROCk module is NOT loaded", r"Call returned HSA_STATUS_ERROR_OUT_OF_RESOURCES",
          # h7-hip: rocminfo before ROCm 3.x names the file and line and the HSA status by number (4104 = 0x1008,
          # OUT_OF_RESOURCES); the HIP runtime's AMD_LOG_LEVEL trace when the HSA runtime did not start (hipInit then
          # returns an error for every call: no usable GPU, not a wrong device index)
          r"hsa api call failure at line \d+, file: \S*rocminfo\.cc",
          r"rocdevice\.cpp\s*:\s*\d+\s*:.{0,80}\bhsa_init failed",
          r"runtime\.cpp\s*:\s*\d+\s*:.{0,80}\bRuntime initialization failed",
          r"hipInit: Returned hipError(?!Success)\w+",
          # e-amd8 (issue 26): any program's report of hsa_init itself failing with OUT_OF_RESOURCES: ROCR's
          # Runtime::Acquire (ROCm/ROCR-Runtime@c7785a6da1c10c25bc8d527c00b1fe79bfbd84c9 runtime/hsa-runtime/core/
          # runtime/runtime.cpp) returns it whenever Load() fails, and clr's rocdevice.cpp says so ("If there are no GPUs
          # available, hsa_init will fail with HSA_STATUS_ERROR_OUT_OF_RESOURCES"): no usable GPU, not memory
          r"\bhsa_init\b.{0,120}HSA_STATUS_ERROR_OUT_OF_RESOURCES",
          # e-amd (issue 26): AMD SMI's FILE_ERROR / NO_PERM moved to gpu-device-permission (e-relabel)
          ),
         ("GPUs are available", "Found no NVIDIA driver", "not compiled with CUDA", "hipErrorNoDevice",
          "ROCm-capable device", "/dev/kfd", "/dev/dri", "hsa_init", "Incompatible kernel and userspace", "rocminfo.cc", "no GPU resources", "amdgpu",
          "ROCk module is NOT loaded", "Call returned HSA_STATUS_ERROR", "hsa api call failure", "Runtime initialization",
          "hipInit: Returned"),
         sources=("seeds/002 (No HIP GPUs are available)", "ROCm/ROCm-docker#116 (Unable to open /dev/kfd "
                  "read-write: Permission denied)")),
    # explain-r2b (issue 26): torch's warning when the HIP runtime cannot count the GPUs. It is a UserWarning, yet
    # it is why torch.cuda.is_available() is False (the run then fails on the GPU or crawls on the CPU): a weak cause,
    # kept among warnings (WARNING_CAUSES); any specific error after it (no kernel for the GPU, OOM) comes first.
    _sig("hip-init-failed", "hip_error", "error", "weak", "the HIP runtime could not open the GPU "
         "(hipGetDeviceCount failed): torch sees no GPU",
         "PyTorch's HIP runtime failed to enumerate the GPUs: the GPU is not a target of this ROCm/PyTorch build (an "
         "old or consumer gfx), /dev/kfd and /dev/dri are not accessible (render/video groups; a container without "
         "--device=/dev/kfd --device=/dev/dri), HIP_VISIBLE_DEVICES names no valid GPU, or the amdgpu driver does "
         "not match the runtime",
         "`rocminfo | grep gfx` (as the same user and in the same container), add the user to the render and video "
         "groups, check HIP_VISIBLE_DEVICES/ROCR_VISIBLE_DEVICES, install the torch wheel for the installed ROCm "
         "(and HSA_OVERRIDE_GFX_VERSION for a consumer gfx the libraries do not ship)",
         "`python -c 'import torch;print(torch.version.hip, torch.cuda.is_available(), torch.cuda.device_count())'`",
         (r"HIP initialization: Unexpected error from hipGetDeviceCount\(\)",
          # r3-hip: AMD SMI / ROCm SMI (torch's and vLLM's device queries, amd-smi, rocm-smi) failing to initialise or
          # finding no amdgpu driver: its status enums by name and amd-smi's own words (amdsmi_exception.py,
          # amdsmi_cli). Weak: under WSL there is no amdgpu module yet the GPU works (torch only warns `Can't
          # initialize amdsmi - Error code: 34` and goes on); never NOT_SUPPORTED (a metric the card lacks)
          r"\b(?:AMDSMI|RSMI)_STATUS_(?:DRIVER_NOT_LOADED|NO_DRV|INIT_ERROR|NOT_INIT|NO_PERM|PERMISSION)\b",
          # h7-hip: the same libraries failing to open the GPU's DRM node or its sysfs files (libdrm/permissions)
          r"\b(?:AMDSMI|RSMI)_STATUS_(?:DRM_ERROR|FILE_ERROR|AMDGPU_RESTART_ERR)\b",
          r"[Dd]river not initialized \(amdgpu not found in modules\)", r"Unable to detect any devices, check if driver",
          # h7-hip: the user's own check that torch sees no GPU, as collect_env and scripts print it (weak: any
          # error that says why comes first)
          r"^Is CUDA available: False\s*$", r"\bcuda\.is_available\(\)\)?\s*(?:[:=]|->|returns?|is)?\s*False\b",
          r"\b(?:CUDA|GPU|HIP|ROCm|cuda) (?:is )?available\s*[:=]\s*False\b",
          # e-new17: PaddlePaddle's GPU/HIP build finding no device (init.cc's LOG(WARNING), framework.py's and
          # run_check's warnings): it goes on on the CPU, so weak as torch's warning is
          *_pd.PADDLE_NO_DEVICE),
         ("HIP initialization", "_STATUS_", "no GPU found in runtime", "GPU version Paddle", "driver not initialized", "Driver not initialized", "Unable to detect any devices", "available",
          "is_available"),
         sources=("torch/csrc/cuda/Module.cpp / c10/hip/HIPFunctions.cpp warning as ROCm users post it (Error 101: "
                  "hipErrorInvalidDevice)",)),
    # explain-r2b (issue 26): the GPU stopped responding or reported a hardware error — the ROCm runtime's HW
    # exception (hsa_amd_signal handler: "HW Exception by GPU node-N (Agent handle: ...) reason :GPU Hang"), the
    # amdgpu driver's job timeout / MES / reset lines and its RAS/ACA hardware-error reports. Before the memory-fault
    # signature, which shares the amdgpu driver lines: a hang is not a kernel's bad address.
    _sig("gpu-hang", "hip_error", "error", "root", "the GPU hung or reported a hardware error (the driver resets it)",
         "a GPU queue stopped making progress (or the GPU raised an uncorrectable hardware error) and the ROCm "
         "runtime aborted the process (SIGABRT, exit -6/134): a driver/firmware or runtime fault for this GPU, "
         "occasionally a kernel that never ends, on Instinct nodes failing hardware; not the training script's "
         "Python code",
         "read `dmesg -T | grep -i amdgpu` at that time (ring timeout, MES, GPU reset, RAS/ACA errors); update the "
         "amdgpu driver/linux-firmware and ROCm together (or go back to the last firmware that worked); on APUs and "
         "consumer Radeons HSA_ENABLE_SDMA=0 is the known workaround for SDMA hangs; rerun with "
         "AMD_SERIALIZE_KERNEL=3 to see whether one kernel triggers it; uncorrectable hardware errors on an Instinct "
         "node mean the node needs service (drain it)",
         "`dmesg -T | grep -iE 'amdgpu.*(timeout|reset|MES|Hardware Error)'`; `rocm-smi --showras` / `amd-smi "
         "metric --ecc`",
         (r"HW Exception by GPU node-\d+.{0,60}reason\s*:\s*(?:GPU Hang|ECC)",
          # r3-hip: the same hardware causes as the other runtime layers name them: ROCR's VM-fault reasons for an
          # ECC error or a hang recovery (runtime.cpp), HIP's own code/string (hip_error.cpp) for an uncorrectable
          # ECC error, Triton's HIP launcher repeating that string
          r"Memory access fault by GPU node-\d+.{0,120}Reason:\s*(?:DRAM ECC failure|SRAM ECC failure|Generic hang "
          r"recovery)",
          r"hipErrorECCNotCorrectable\b",
          r"(?:HIP error|Triton Error \[HIP\]):\s*(?:Code: \d+, Messsage: )?uncorrectable ECC error encountered",
          r"amdgpu.{0,120}(?:ring \S+ timeout|job_timedout|GPU reset begin|GPU hang|MES failed to respon(?:d|se)|"
          r"MES might be in unrecoverable state)",
          r"\[drm:amdgpu_job_timedout",
          r"amdgpu.{0,80}uncorrectable hardware error", r"amdgpu.{0,80}\[Hardware Error\]",
          # h7-hip: the IOMMU (AMD-Vi) reporting a DMA from the GPU to an address it has no mapping for: a driver/
          # IOMMU set-up fault of this GPU (iommu=pt is the usual workaround), not the script's code
          r"amdgpu \S+: AMD-Vi: (?:Event logged )?\[?IO_PAGE_FAULT",
          # h7-hip: the driver failing to bring a hung GPU back (reset/PSP/IP-block resume failures: ROCm/legacy-rocm-
          # build#2494, two 7900 XTX in training), the shader sequencer's error interrupt and MES refusing to remove a
          # queue (#3452, #2533)
          r"amdgpu.{0,80}(?:GPU mode1 reset failed|ASIC reset failed|GPU reset\(\d+\) failed|PSP create ring failed|"
          r"PSP resume failed|resume of IP block <\w+> failed)",
          r"amdgpu: sq_intr: error\b", r"amdgpu.{0,80}failed to remove hardware queue from MES",
          # e-amd (issue 26): kernels 6.12+ first try a per-queue reset before the whole-GPU one (amdgpu_job.c
          # amdgpu_job_timedout: "Starting %s ring reset", "Ring %s reset succeeded/failed"; drm_dev_wedged_event:
          # "device wedged, but recovered through reset"): the ring still hung, whatever the reset's outcome
          r"amdgpu.{0,80}(?:Starting \S+ ring reset|Ring \S+ reset (?:succeeded|failed)|device wedged\b)",
          # e-amd (issue 26): the SMU firmware not answering the driver (drivers/gpu/drm/amd/pm/swsmu/smu_cmn.c
          # __smu_cmn_reg_print_error: "SMU: I'm not done with your previous command", "SMU: I'm very busy for your
          # command", "SMU: I'm debugging!", "SMU: response:0x%08X for index:%d param:0x%08X message:%s?"): firmware
          # or driver of this GPU, seen before the hangs and resets above
          r"amdgpu.{0,80}SMU: (?:I'm not done with your previous command|I'm very busy for your command|"
          r"I'm debugging!|response:0x[0-9A-Fa-f]+ for index)",
          # e-amd8 (issue 26): the KFD's queue preemption timing out (profiles/amd_errors.py KFD_PREEMPTION_HANGS)
          _alt(_amd.KFD_PREEMPTION_HANGS)),
         ("HW Exception", "amdgpu", "Memory access fault", "hipError", "HIP error", "Triton Error", "qcm fence",
          "unrecoverable state"),
         sources=("ROCm/clr hipamd/src/hip_error.cpp (hipErrorECCNotCorrectable: uncorrectable ECC error encountered)", "ROCm/ROCR-Runtime core/runtime/"
                  "runtime.cpp (Memory access fault ... Reason: DRAM ECC failure / Generic hang recovery; HW Exception "
                  "... reason :ECC)",
                  "ROCm/ROCR-Runtime hsa_amd error handler as users post it: ROCm/legacy-rocm-build#5259 (HW Exception "
                  "by GPU node-4 ... reason :GPU Hang, then torchrun exitcode -6)", "pytorch/ao#2890 (MI300 CI)",
                  "ROCm/legacy-rocm-build#4021 (amdgpu uncorrectable hardware error(ERREVENT_ATHUB_INTERRUPT))")),
    _sig("gpu-memory-fault", "hip_error", "error", "root", "GPU memory access fault / illegal address",
         "a kernel read or wrote outside its memory: a bug in a kernel for this arch, an HSA override that "
         "does not fit the GPU, or an out-of-range index",
         "rerun with AMD_SERIALIZE_KERNEL=3 (HIP) / CUDA_LAUNCH_BLOCKING=1 to find the op; drop an "
         "HSA_OVERRIDE_GFX_VERSION that does not match; try another attention implementation (eager)",
         "the serialized rerun's traceback names the failing op",
         (r"Memory access fault by GPU node-\d+", r"HSA_STATUS_ERROR_MEMORY_(?:APERTURE_VIOLATION|FAULT)\b",
          # e-amd (issue 26): ROCR-Runtime runtime.cpp FreeMemory: GPU memory freed while the GPU still used it
          # ("Memory critical error by agent node-%u (Agent handle: %p) on address %p. Reason: Memory in use.")
          r"Memory critical error by agent node-\d+",
          r"HW Exception by GPU node-\d+", r"amdgpu.{0,80}(?:GPU reset|ring [\w.]+ timeout|GPU fault detected)",
          r"HIP error: an illegal memory access", r"hipErrorIllegalAddress",
          # r3-hip: Triton's HIP launcher (third_party/amd/backend/driver.c: "Triton Error [HIP]:  Code: %d, Messsage:
          # %s" with hipGetErrorString's text)
          r"Triton Error \[HIP\]:\s*(?:Code: \d+, Messsage: )?an illegal memory access",
          # the amdgpu kernel driver's own lines (dmesg / journalctl -k): a VM page fault in a GPU hub, the fault
          # status register with a fault set, a job/ring timeout and the reset that follows
          r"\[(?:gfxhub|mmhub|GFXHUB|MMHUB)\d*\] (?:no-)?(?:retry )?page fault",
          r"\b(?:GC)?VM_L2_PROTECTION_FAULT_STATUS:0x0*[1-9A-Fa-f]",
          r"amdgpu.{0,120}(?:ring \S+ timeout|job_timedout|GPU reset begin|GPU hang|MES failed to respond|VM fault)",
          r"\[drm:amdgpu_job_timedout"),
         ("Memory access fault", "Memory critical error", "APERTURE_VIOLATION", "HSA_STATUS_ERROR_MEMORY_FAULT", "illegal memory access", "hipErrorIllegalAddress", "Triton Error",
          "HW Exception", "amdgpu", "page fault", "PROTECTION_FAULT_STATUS"),
         sources=("ROCm/clr hip_error.cpp (hipErrorIllegalAddress: an illegal memory access was encountered)",
                  "amdgpu gmc_v9/v11 interrupt handlers as users post them: amdgpu: [gfxhub] page fault (src_id:0 "
                  "ring:24 vmid:8 pasid:...), GCVM_L2_PROTECTION_FAULT_STATUS:0x00801031 (ROCm/amdgpu#204, "
                  "ROCm/TheRock#986)")),
    _sig("rocm-library-missing", "hip_error", "error", "root", "a ROCm runtime library is missing or not found",
         "the ROCm libraries this PyTorch/extension was built against (HIP runtime, HSA, rocBLAS, MIOpen, RCCL) are "
         "not installed or not on the library path, or are another ROCm version than the build's",
         "install the ROCm version the wheel was built for (torch.version.hip; the +rocmX.Y in its version) or the "
         "wheel for the installed ROCm; LD_LIBRARY_PATH=/opt/rocm/lib; in containers use a rocm/* base image",
         "`ldd` on the extension's .so; `ls /opt/rocm*/lib | grep -E 'amdhip|hsa|rocblas'`",
         (r"(?<!dlerror: )(?:libamdhip|libhsa-|librocm|librocblas|libhipblas|libMIOpen|librccl(?!-net)|libroc\w*|libhip\w*|"
          r"libamd_comgr)[\w+.-]*\.so[\w.]*: cannot open shared object file",
          # e-amd (issue 26): RCCL's own loader of the ROCr runtime (src/misc/rocmwrap.cc: "Failed to find ROCm runtime
          # library in %s (RCCL_ROCR_PATH=%s)", "Failed to load ROCr missing symbol %s"): the runtime, not a transport
          r"NCCL WARN Failed to (?:find ROCm runtime library in|load ROCr missing symbol)\b",
          # e-new17: PaddlePaddle's dynload of a ROCm library (`Cannot load miopen shared library. Cannot invoke
          # method miopenGetVersion...`)
          r"Cannot load " + _pd.ROCM_DYNLOAD + r" shared library\. Cannot invoke method"),
         ("cannot open shared object", "Failed to find ROCm runtime library", "Failed to load ROCr", "Cannot load "),
         sources=("public notes on ROCm wheels without the runtime on the path: ImportError: libamdhip64.so.6: cannot "
                  "open shared object file: No such file or directory (paddlepaddle-dcu on a ROCm 7 runtime, jax_rocm60)",)),
    # explain-dist (issue 26): MIOpen's own cache/database cannot be created or written (a read-only or
    # permission-restricted HOME/TMP in a container, a shared cache directory of another user): the same
    # cache problem as Hugging Face's or Triton's, not a kernel failure. Before miopen-error, which the same
    # `MIOpen Error:` line also matches.
    _sig("miopen-cache-unwritable", "hf_cache_permission", "error", "root", "MIOpen cannot write its kernel cache "
         "or performance database",
         "MIOpen keeps a user database (MIOPEN_USER_DB_PATH, default ~/.config/miopen) and a kernel cache "
         "(MIOPEN_CUSTOM_CACHE_DIR, default ~/.cache/miopen or /tmp when HOME is on a shared file system); here that "
         "directory is read-only or belongs to another user (a container image's HOME, Singularity without "
         "--fakeroot, a /tmp shared by several users), so opening or writing the SQLite database fails",
         "point MIOPEN_USER_DB_PATH and MIOPEN_CUSTOM_CACHE_DIR at a directory of your own on local disk (e.g. "
         "`d=$(mktemp -d); export MIOPEN_USER_DB_PATH=$d/db MIOPEN_CUSTOM_CACHE_DIR=$d/cache`), one per job when jobs "
         "share a node",
         "`ls -ld ~/.config/miopen ~/.cache/miopen $MIOPEN_USER_DB_PATH $MIOPEN_CUSTOM_CACHE_DIR` as the job's user",
         (r"[Mm][Ii][Oo]pen.{0,200}(?:Permission denied|Read-only file system|readonly database)",
          r"(?:SQLite database|sqlite_db\.cpp:\d+).{0,40}(?:disk I/O error|attempt to write a readonly database|"
          r"unable to open database file)",
          # e-amd (issue 26): MIOpen's SQLiteBase throws this only for the user database (sqlite_db.hpp: a system
          # database that will not open is a warning): the user db/kernel cache directory cannot be written
          r"Cannot open database file: ?\S*\.(?:ukdb|udb|ufdb|db)\b"),
         ("Permission denied", "Read-only file system", "readonly database", "disk I/O error", "unable to open database",
          "Cannot open database file"),
         sources=("ROCm/tensorflow-upstream#1419 (MiOpen: Internal error while accessing SQLite database: disk I/O "
                  "error; a permissions error in Singularity, MIOPEN_USER_DB_PATH=/tmp)", "cms-sw/cmssw#51819 (MIOpen "
                  "Error: filesystem error: cannot create directories: Permission denied [/tmp/miopen-cache/3.5.2.])",
                  "Lumi-supercomputer/LUMI-AI-Guide#81 (per-job MIOPEN_USER_DB_PATH / MIOPEN_CUSTOM_CACHE_DIR)")),
    # r5-hip (issue 26): the process crashed inside the ROCm runtime itself: the kernel's segfault line names the
    # library (`python3[40923]: segfault at 100 ip ... error 4 in libamdhip64.so[7f27..+3f3000]`), a debugger's frame
    # is in it (`#0  0x... in  () at /opt/rocm/hip/lib/libamdhip64.so.5`). Weak: a specific HIP/HSA error, a memory
    # fault or a hang printed with it is the better-named cause; alone it is an unsupported GPU/arch (iGPUs without
    # HSA_OVERRIDE_GFX_VERSION) or a runtime/driver mismatch.
    _sig("rocm-runtime-segfault", "hip_error", "error", "weak", "the process crashed inside the ROCm runtime "
         "(a segfault in libamdhip64 / libhsa-runtime64)",
         "the HIP/HSA runtime itself dereferenced a bad pointer: most often a GPU the installed ROCm does not support "
         "(integrated GPUs, old or new consumer gfx targets), a ROCm user space that does not match the amdgpu kernel "
         "driver, or two ROCm versions loaded in one process",
         "check the GPU's gfx target against the ROCm release (`rocminfo | grep gfx`; HSA_OVERRIDE_GFX_VERSION=9.0.0 "
         "for Vega iGPUs, 10.3.0 for RDNA2, 11.0.0 for RDNA3), install torch for the installed ROCm, and make sure only "
         "one ROCm's libraries are on LD_LIBRARY_PATH",
         "`dmesg | grep -i segfault`; `ldd $(python -c 'import torch,os;print(os.path.dirname(torch.__file__))')"
         "/lib/libtorch_hip.so | grep -E 'amdhip|hsa'`",
         (r"\bsegfault at \w+ ip \w+ sp \w+ error \d+ in lib(?:amdhip64|hsa-runtime64|hsakmt|amd_comgr)\b",
          r"^\s*#\d+\s+0x[0-9a-f]+ in .{0,200}?\blib(?:amdhip64|hsa-runtime64|hsakmt)\.so"),
         ("segfault at", "libamdhip64", "libhsa-runtime64", "libhsakmt"),
         sources=("ROCm/hip#3282 (gdb: #0 ... in () at /opt/rocm/hip/lib/libamdhip64.so.5, Barcelo iGPU, fixed by "
                  "HSA_OVERRIDE_GFX_VERSION=9.0.0)", "vladmandic/sdnext#913, #2252 (segfault ... in libamdhip64.so[...])")),
    _sig("miopen-error", "hip_error", "error", "root", "MIOpen (ROCm's DNN library) failed",
         "MIOpen could not build or run a kernel for this GPU: an architecture the installed MIOpen has no "
         "kernels/compiler support for, a MIOpen version that does not match the ROCm runtime, or an unreadable "
         "kernel cache/database",
         "use the MIOpen that ships with the ROCm/PyTorch build; on consumer cards set HSA_OVERRIDE_GFX_VERSION to a "
         "supported sibling; point MIOPEN_USER_DB_PATH / MIOPEN_CUSTOM_CACHE_DIR at a writable directory; "
         "MIOPEN_FIND_MODE=FAST to avoid tuning",
         "`MIOPEN_ENABLE_LOGGING=1 MIOPEN_LOG_LEVEL=4` on a one-step rerun",
         (r"MIOpen Error:", r"miopenStatus(?!Success)[A-Z]\w+", r"MIOpen\(HIP\): Error", r"instance of 'miopen::Exception'",
          r"[Mm][Ii][Oo]pen\S*: Internal error while accessing SQLite database",
          r"boost::filesystem::\w+: .{0,200}[/.]miopen/"),
         ("MIOpen Error", "miopenStatus", "MIOpen(HIP): Error", "miopen::Exception", "SQLite database",
          "boost::filesystem"),
         sources=("ROCm/MIOpen#1994 (MIOpen Error: /MIOpen/src/ocl/convolutionocl.cpp:831: Forward Convolution "
                  "cannot be executed due to incorrect params)", "ROCm/MIOpen#1878 (kern_db.hpp:147: Internal error "
                  "while accessing SQLite database: database disk image is malformed)", "ROCm/MIOpen#114 "
                  "(boost::filesystem::permissions ... ~/.config/miopen//gfx906_60...ufdb.txt)")),
    _sig("miopen-missing-kdb", "benign_warning", "info", "context", "MIOpen has no precompiled kernel database "
         "for this GPU: kernels compile on first use",
         "MIOpen ships kernel databases (.kdb) for some gfx targets; without one it compiles each convolution "
         "kernel the first time it is needed, so the first steps are slower — nothing fails",
         "nothing (install the miopen-hip-<gfx>kdb package where one exists to skip the first-run compiles)",
         "the run continues after the warning",
         (r"Missing system database file:? \S*\.kdb",), ("Missing system database",), benign=True,
         sources=("ROCm/MIOpen#1996, #2123 (MIOpen(HIP): Warning [SQLiteBase] Missing system database file: "
                  "gfx1030_18.kdb Performance may degrade)",)),
    _sig("invalid-device-ordinal", "config_error", "error", "root", "a process asked for a GPU index it cannot "
         "see",
         "the rank's device index is beyond the GPUs visible to it: more processes per node than visible GPUs "
         "(nproc_per_node / --num_processes), a CUDA_VISIBLE_DEVICES / HIP_VISIBLE_DEVICES / ROCR_VISIBLE_DEVICES "
         "list that a launcher (Ray, Slurm, a container) rewrote or narrowed, or a hard-coded cuda:N",
         "make the processes per node equal the visible GPUs; set only one of HIP_VISIBLE_DEVICES / "
         "ROCR_VISIBLE_DEVICES (on ROCm both apply, one after the other) and let the launcher set it per worker; "
         "use the local rank, not a fixed index, for the device",
         "print torch.cuda.device_count() and the *_VISIBLE_DEVICES variables in each rank",
         (r"(?:HIP|CUDA) error: invalid device ordinal", r"\b(?:hip|cuda)ErrorInvalidDevice\b(?!Function|Pointer)",
          # e-amd (issue 26): the same status in ggml's (`ROCm error: <text>`) and HIPCHECK's (`error: '<text>'(101)`)
          # spellings (ROCm/clr hip_error.cpp: hipErrorInvalidDevice = 101, "invalid device ordinal")
          r"\bROCm error: invalid device ordinal", r"\berror: 'invalid device ordinal'\s*\(101\)",
          # e-hipfa: rccl-tests' HIPCHECK prints hipGetErrorString, the text in current ROCm/clr (the name
          # 'hipErrorInvalidDevice' in older HIP, above)
          r"Test HIP failure \S+ 'invalid device ordinal'",
          r"device >= 0 && device < num_gpus INTERNAL ASSERT FAILED",
          r"CUDA_ERROR_INVALID_DEVICE\b",
          # explain-dist (issue 26): the runtime or torch refusing visibility variables that contradict each other
          # (HIP: `Conflicting visibility of agent-2 between HIP_VISIBLE_DEVICES and GPU_DEVICE_ORDINAL`; torch:
          # `HIP_VISIBLE_DEVICES out of bounds index after applying ROCR_VISIBLE_DEVICES`)
          r"Conflicting visibility of agent\S* between \w+ and \w+",
          r"Cannot specify both ROCR_VISIBLE_DEVICES and HIP_VISIBLE_DEVICES",
          r"\w+_VISIBLE_DEVICES out of bounds index after applying \w+_VISIBLE_DEVICES"),
         ("invalid device ordinal", "ErrorInvalidDevice", "CUDA_ERROR_INVALID_DEVICE", "device < num_gpus",
          "Conflicting visibility", "Cannot specify both", "out of bounds index after applying"),
         sources=("vllm-project/vllm PR #21522 (Ray rewrites HIP_VISIBLE_DEVICES: HIP error: invalid device "
                  "ordinal)", "pytorch/pytorch forum threads (more --nproc_per_node than GPUs: CUDA error: invalid "
                  "device ordinal)")),
    _sig("native-build-failed", "deepspeed_build_jit", "error", "weak", "a native extension did not compile "
         "for this GPU",
         "the compiler (hipcc/clang for a gfx target, nvcc for an sm target) rejected the extension's kernels: an "
         "architecture the extension's sources do not support, or a compiler that does not match them",
         "install a prebuilt wheel for this GPU and torch, build for a supported architecture only "
         "(PYTORCH_ROCM_ARCH / GPU_ARCHS / TORCH_CUDA_ARCH_LIST), or go without the extension",
         "the first `error:` of the compiler above the summary",
         (r"\d+ errors? generated when compiling for (?:gfx\w+|sm_\d+|host)",
          r"error: command '[^']*(?:hipcc|nvcc|clang\+\+|amdclang\+\+)' failed",
          r"\bld(?:\.lld)?: (?:error: )?cannot find -l\w+",
          # the compiler does not know the GPU target it was asked to build for
          r"error: unsupported (?:architecture '?gfx\w+|option '--offload-arch=\w+)",
          # torch.utils.cpp_extension's ninja run, gcc/clang/nvcc's own failures, a compiler that is not there
          r"Command '\['ninja', '-v'[^\]]*\]' returned non-zero exit status \d+",
          r"error: command '[^']*(?:gcc|g\+\+|c\+\+|x86_64-linux-gnu-gcc|cl\.exe)' failed",
          r"nvcc fatal\s*: ", r"fatal error: '[\w/.+-]+\.(?:h|hpp|cuh)' file not found",
          r"Error compiling objects for extension",
          r"(?:^|: )(?:nvcc|hipcc|ninja|gcc|g\+\+|c\+\+|hipify-perl): (?:command )?not found",
          r"CUDA_HOME environment variable is not set", r"^ninja: error: ",
          r"\b(?:clang(?:\+\+|-\d+)?|amdclang(?:\+\+)?|hipcc|nvcc): error: ",
          # ex-rocm: hipcc (perl/hipcc.bin) reporting the clang it ran failed
          r"^\s*failed to execute:\s*\S*(?:clang\+\+|clang|amdclang\+\+|hipcc)\b",
          r"\S+\.(?:cu|cuh|hip)(?:\(\d+\)|:\d+:\d+): error: ",
          # explain-rocm: any C/C++ compiler diagnostic (ROCm/CUDA headers included: a header of another ROCm
          # release than the sources expect), ninja's failed object, pip's build banners for a native package
          r"\S+\.(?:hpp|hh|h|cpp|cc|cxx|c|inl)(?::\d+:\d+|\(\d+\)): (?:fatal )?error: ",
          r"^FAILED: \S+\.(?:o|obj)\s*$",
          r"(?:Failed building wheel for|Could not build wheels for|ERROR: Failed to build) ['\"]?[\w.-]+",
          r"× (?:python setup\.py (?:egg_info|bdist_wheel|develop|install)|Building (?:wheel|editable) for \S+ "
          r"\(pyproject\.toml\)|Getting requirements to build (?:wheel|editable)) did not run successfully"),
         ("errors generated", "error generated", "error: command", "cannot find -l", "error: unsupported",
          "'ninja', '-v'", "nvcc fatal", "file not found", "Error compiling objects", "not found",
          "CUDA_HOME environment", "ninja: error", "clang", ": error: ", "error: ", "FAILED: ", "failed to execute",
          "Failed building wheel", "Could not build wheels", "Failed to build", "did not run successfully"),
         sources=("Dao-AILab/flash-attention#2588 (20 errors generated when compiling for gfx1201)",
                  "clang's summary line, as hipcc prints it")),
    # explain-rocm (issue 26): CMake's own check of the HIP/CUDA toolchain, before any source compiles: the
    # language cannot be enabled (no ROCm root found, a compiler that cannot build a test program, the hip
    # package config absent). The build of the extension fails there, whatever it is.
    _sig("build-toolchain-check-failed", "deepspeed_build_jit", "error", "weak", "the build could not set up the "
         "GPU compiler (CMake's HIP/CUDA toolchain check failed)",
         "CMake enables the HIP or CUDA language before compiling anything: it could not find the ROCm/CUDA "
         "installation (ROCm installed under a versioned path only, ROCM_PATH/CUDA_HOME unset), or the compiler it "
         "found cannot build a test program for the requested GPU target, or the hip/CUDA CMake package files "
         "(the -dev/SDK packages) are not installed",
         "install the ROCm/CUDA development packages (hip-dev / rocm-hip-sdk / cuda-toolkit), point CMake at them "
         "(ROCM_PATH=/opt/rocm-X.Y or -DCMAKE_PREFIX_PATH=/opt/rocm, CMAKE_HIP_COMPILER=/opt/rocm/llvm/bin/clang++; "
         "CUDA_HOME / CUDACXX for CUDA) and build for the GPU's own target (rocminfo | grep gfx)",
         "the CMake output above the error names the compiler and the paths it tried; `ls /opt/rocm*/bin/hipcc`",
         (r"Failed to find ROCm root directory",
          r"\bis not able to compile a simple test program",
          r"Could not find a package configuration file provided by \"(?:hip|HIP|hipblas|hipblaslt|rocblas|rocprim|"
          r"hipcub|rocthrust|amd_comgr|hsa-runtime64|CUDAToolkit)\"",
          r"No CMAKE_(?:HIP|CUDA)_COMPILER could be found",
          r"Failed to find nvcc\.|CMAKE_CUDA_ARCHITECTURES must be non-empty if set"),
         ("Failed to find ROCm root", "simple test program", "package configuration file provided by",
          "No CMAKE_", "Failed to find nvcc", "CMAKE_CUDA_ARCHITECTURES"),
         sources=("CMake Modules/CMakeDetermineHIPCompiler.cmake (\"Failed to find ROCm root directory.\"), "
                  "CMakeTestHIPCompiler.cmake (\"is not able to compile a simple test program\")",
                  "bitsandbytes-foundation/bitsandbytes#1468, ROCm/bitsandbytes#34, ROCm/rocRAND#318")),
    # e-blas (issue 26): a hipBLAS/hipBLASLt/rocBLAS call that returned a failure status (profiles/blas_status.py):
    # by name, by number, and Transformer Engine's ROCm GEMM finding no hipBLASLt algorithm; the allocation status
    # is gpu_oom (oom), hipBLASLt's fallback warning with the run going on stays hipblaslt-unsupported
    _sig("blas-status-error", "hip_error", "error", "root", "a hipBLAS/hipBLASLt/rocBLAS GEMM call failed",
         "the BLAS library returned a failure status for a GEMM (hipblasStatus_t: 3 INVALID_VALUE, 5 "
         "EXECUTION_FAILED, 6 INTERNAL_ERROR, 7 NOT_SUPPORTED, 8 ARCH_MISMATCH ...) or found no algorithm for its "
         "shape/dtype/epilogue: most often a hipBLASLt solution that needs more workspace than the caller gave it "
         "(Transformer Engine's and other extensions' fixed workspace), a shape/epilogue hipBLASLt has no kernel for "
         "on this gfx, or a hipBLASLt/ROCm that does not match the GPU or the PyTorch build",
         "give hipBLASLt a larger workspace (torch: HIPBLASLT_WORKSPACE_SIZE in KiB; Transformer Engine/extensions: "
         "their hipBLASLt workspace setting), or route torch's GEMMs to hipBLAS/rocBLAS with "
         "TORCH_BLAS_PREFER_HIPBLASLT=0; for NOT_SUPPORTED/ARCH_MISMATCH or no algorithm install the hipBLASLt/ROCm "
         "release that supports this gfx (or fall back to an unfused GEMM), and keep ROCm and the PyTorch build "
         "matching",
         "rerun the failing GEMM alone with HIPBLASLT_LOG_MASK=32 (hipBLASLt's call log) and "
         "TORCH_BLAS_PREFER_HIPBLASLT=0; `rocminfo | grep gfx` against the hipBLASLt release notes",
         (_HIPBLAS_BY_NUM + _blas_nums(_blas.HIPBLAS_STATUS, alloc=False),
          _ROCBLAS_BY_NUM + _blas_nums(_blas.ROCBLAS_STATUS, alloc=False),
          # TE (rocm_gemm.hip): NVTE_CHECK(returnedAlgoCount > 0, "Unable to find any suitable algorithms")
          r"(?:\.hip\b|hipblas).{0,300}Unable to find any suitable algorithms?",
          r"\bHIPBLAS(?:LT)?_STATUS_(?!SUCCESS\b|ALLOC_FAILED\b)[A-Z_]+(?!.*(?i:attempt to recover|falling back|"
          r"fall back|unsupported architecture))"),
         ("rror:", "rror :", "RROR:", "Unable to find any suitable", "HIPBLAS_STATUS_", "HIPBLASLT_STATUS_"),
         sources=("hipblas-common.h hipblasStatus_t; TE transformer_engine/common/util/logging.h "
                  "NVTE_CHECK_HIPBLASLT (\"HIPBLASLT Error: \" + status number)",
                  "AMD-AGI/Primus#1141 (rocm_gemm.hip:1934 in function hipblaslt_gemm: HIPBLASLT Error: 6)")),
    # e-blas: the same on NVIDIA: TE's NVTE_CHECK_CUBLAS (`cuBLAS Error: <cublasGetStatusString>`), a number after
    # cuBLAS' name, TE's cublaslt_gemm.cu finding no algorithm, THC's `cublas runtime error : <text>`
    _sig("cublas-status-error", "cuda_error", "error", "root", "a cuBLAS/cuBLASLt GEMM call failed",
         "cuBLAS/cuBLASLt returned a failure status for a GEMM (INVALID_VALUE, EXECUTION_FAILED, INTERNAL_ERROR, "
         "NOT_SUPPORTED, ARCH_MISMATCH ...) or found no algorithm for its shape/dtype/epilogue: a workspace too "
         "small for the chosen algorithm, a dtype/feature this GPU or cuBLAS release lacks, or a CUDA/cuBLAS that "
         "does not match the PyTorch build",
         "give cuBLASLt a larger workspace (torch: CUBLASLT_WORKSPACE_SIZE / CUBLAS_WORKSPACE_CONFIG; TE/extensions: "
         "their workspace setting), rerun with CUDA_LAUNCH_BLOCKING=1 to find the GEMM, and install the CUDA/cuBLAS "
         "release the PyTorch/TE build expects for this GPU",
         "rerun with CUBLASLT_LOG_LEVEL=5 and CUDA_LAUNCH_BLOCKING=1",
         (_CUBLAS_BY_NUM + _blas_nums(_blas.CUBLAS_STATUS, alloc=False),
          r"(?i:cublas(?:lt)? (?:runtime )?error) ?: (?!" + _CUBLAS_ALLOC_TEXT + r")[a-z][\w ,.-]{4,}",
          r"^(?!.*(?:\.hip\b|hipblas)).*(?:\.cu\b|cublas).{0,300}Unable to find any suitable algorithms?"),
         ("rror:", "rror :", "RROR:", "RROR :", "Unable to find any suitable"),
         sources=("cublas_api.h cublasStatus_t / cublasGetStatusString; TE logging.h NVTE_CHECK_CUBLAS",)),
    _sig("hip-runtime-error", "hip_error", "error", "root", "a HIP/HSA runtime call failed",
         "the ROCm runtime reported an error: a PyTorch/ROCm build that does not match the driver or the GPU, an "
         "HSA_OVERRIDE_GFX_VERSION that does not fit the card, or an unsupported GPU",
         "install the PyTorch wheel for the installed ROCm version (torch.version.hip), check the GPU is in the "
         "ROCm support matrix (consumer RDNA: HSA_OVERRIDE_GFX_VERSION), rerun with AMD_SERIALIZE_KERNEL=3 to find "
         "the op",
         "`rocminfo | grep gfx`; `python -c 'import torch;print(torch.version.hip)'` against `apt show rocm-libs`",
         (r"HIP error: (?!out of memory|invalid device function|no kernel image|invalid device ordinal)[\w -]+", r"\bhipError(?!OutOfMemory|MemoryAllocation|NoDevice|"
          r"InvalidDeviceFunction|NoBinaryForGpu|IllegalAddress|"
          # r3-hip: statuses that are answers, not failures, which AMD_LOG_LEVEL=3's per-call trace (clr
          # HIP_ERROR_PRINT, LOG_INFO: `<api>: Returned <hipErrorName> :`) shows all through a healthy run: a stream/
          # event query while work is in flight, peer access asked twice
          r"NotReady\b|PeerAccessAlreadyEnabled|PeerAccessNotEnabled)[A-Z]\w+", r"HSA_STATUS_ERROR_(?!MEMORY_APERTURE|OUT_OF_RESOURCES)\w+",
          # e-amd: the finalizer/image extension's statuses (ROCR-Runtime hsa.cpp hsa_status_string)
          r"\bHSA_EXT_STATUS_ERROR_[A-Z_]+",
          r"rocblas_status_(?!success|memory_error)\w+",
          # r3-hip: Triton's HIP launcher reporting a HIP runtime error (hipGetErrorString's text); not a kernel too
          # big for the GPU (too many resources: the compiler's config, torch-compile-error) nor out of memory
          r"Triton Error \[HIP\]:\s*(?:Code: -?\d+, Messsage: |(?!Code:))(?!too many resources|out of memory)\w[\w -]+",
          # r4-hw: a HIP API call reported failed by the layer that made it (SYCL runtimes on HIP: AdaptiveCpp /
          # hipSYCL `hip_queue: hipMemsetAsync() failed (error code = HIP:1)`; a program's own check `hipMalloc
          # failed: <hipGetErrorString>`): the call's name, `failed`, and a code or message that is not out of memory
          r"\[(?:hipSYCL|AdaptiveCpp|ACPP) Error\]",
          r"\(error code = HIP:\d+\)",
          r"\bhip(?:Malloc|Free|Mem|Stream|Event|Module|Launch|Graph|Device|Get|Set|Init|Ctx|Host|Ipc|Func|Pointer|"
          r"Peer|Occupancy|Runtime|Driver)\w*(?:\(\))? failed\b"
          r"(?!:?\s*[/~.\\]|.{0,80}(?:out of memory|ErrorOutOfMemory|MemoryAllocation|falling back|retry))",
          # r5-hip: a library's own check of a HIP call (AITER/CK: `fail to call hipModuleLaunchKernel(...) ---> [HIP
          # error](invalid resource handle)`): the bracketed status and the `fail to call hip<Api>` form, never OOM
          r"\[HIP error\]\s*\((?!out of memory)[\w -]+\)", r"\bfail(?:ed)? to call hip[A-Z]\w*(?!.{0,300}out of memory)",
          # r5-hip: the ROCm math libraries' own error logger (`rocBLAS error: Tensile solution found, but exception
          # thrown for {...}`); rocBLAS' missing Tensile library is rocblas-no-tensile-arch (before), hipBLASLt's own
          # logger `rocblaslt error:` and rocBLAS reporting hipBLASLt (`No hipBLASLt solution found`) are the
          # hipBLASLt fallback (hipblaslt-unsupported)
          r"\b(?:rocBLAS|rocSOLVER|rocSPARSE|rocFFT|rocRAND|hipSPARSE|hipFFT) error: (?!.*(?i:hipblaslt))",
          # r5-hip: hipBLAS/hipBLASLt's status enum raised as an error (`hipblasLt error: HIPBLAS_STATUS_INTERNAL_ERROR
          # when calling hipblasLtMatmul`); not torch's warning that it recovers with another BLAS (`... Will attempt to
          # recover by calling cublas instead`), not a missing-arch fallback (hipblaslt-unsupported)
          r"\bHIPBLAS(?:LT)?_STATUS_(?!SUCCESS\b)[A-Z_]+(?!.*(?i:attempt to recover|falling back|fall back|unsupported "
          r"architecture))",
          # h7-hip: a HIP status as other layers print it — TensorFlow's ROCm stream executor by number
          # (`failed to query event: hipError_t(600)`) or by its own names (`HIP_ERROR_InvalidValue`), a CHECK macro
          # comparing with hipSuccess (`err == hipSuccess (98 vs. 0)`); never the out-of-memory codes (1002 in HIP
          # before 5.x, 2 after) nor an allocation the allocator retries (gpu_oom), nor the executor's first query of
          # the device (`failed to query device memory info`): a query that fails before any work is the runtime not
          # matching the host's amdgpu driver (version_check's reading, ROCm/tensorflow-upstream#2289)
          r"^(?!.*(?i:failed to allocate|out of memory|OutOfMemory|failed to query device)).*\bhipError_t\((?!1002\)|2\))"
          r"\d+\)",
          r"==\s*hipSuccess \((?!2 vs|1002 vs)\d+ vs\. 0\)",
          r"^(?!.*(?i:failed to allocate|out of memory|failed to query device)).*\bHIP_ERROR_(?!OutOfMemory\b|"
          r"MemoryAllocation\b)[A-Z][A-Za-z]+\b",
          # e-amd (issue 26): a HIP status by its hipGetErrorString text or name (profiles/amd_errors.py, from ROCm/clr
          # hip_error.cpp) in the spellings of the layers that print it beside torch: ggml/llama.cpp's `ROCm error:
          # <text>` (GGML_CUDA_NAME on HIP builds), the HIP samples' / hip-tests' HIPCHECK `error: '<text>'(<n>) at
          # <file>:<line>`, rccl-tests' HIPCHECK `Test HIP failure <file>:<line> '<name or text>'`, and RCCL's CUDACHECK
          # `NCCL WARN Cuda failure [<n>] '<text>'` for the statuses that are the runtime/driver/GPU failing rather
          # than the peer/IPC transport RCCL chose (FAMILIES.md: hip_error when the fix is the ROCm runtime/driver/GPU
          # arch; ROCm/rccl#1055: 'invalid device pointer' from an old host amdgpu-dkms). Allocation failures are
          # oom's; a device-side assert and a GPU index are decided by their own signatures
          r"\bROCm error: " + _HIP_FAIL_TEXT + r"(?![\w-])",
          r"\berror: '" + _HIP_FAIL_TEXT + r"'\s*\(\d+\)",
          # e-hipfa: composable_kernel's own HIP checks (ck_tile/host/hip_check_error.hpp and ck's
          # host_utility/hip_check_error.hpp, thrown as std::runtime_error from a kernel launch in CK, in flash-attention's
          # CK backend, xformers' ck ops, MIOpen): `HIP Function Failed (<file>,<line>) <text>` and `HIP runtime error:
          # <text>. <file>: <line>in function: ...`
          r"HIP Function Failed \([^)\n]*\) " + _HIP_FAIL_TEXT, r"\bHIP runtime error: " + _HIP_FAIL_TEXT,
          r"Test HIP failure \S+ '(?!hipErrorOutOfMemory'|hipErrorMemoryAllocation')(?:" + _HIP_FAIL_TEXT +
          r"|hip[A-Z]\w+)'",
          r"NCCL WARN .{0,120}(?:Cuda|Hip|HIP) failure (?:\d+ )?'" + _HIP_CORE_FAIL + r"'",
          # e-amd: the runtime refusing a launch or a GPU for the platform (profiles/amd_errors.py: clr rocvirtual.cpp
          # hostcall without PCIe atomics; libhsakmt topology.c's unsupported device ID)
          _alt(_amd.CLR_PLATFORM_LAUNCH_FAILURES), _amd.HSAKMT_UNSUPPORTED_GPU, _alt(_amd.QUEUE_CREATE_FAILURES),
          _amd.KFD_PCIE_ATOMICS_REFUSED,   # e-amd8: the KFD skipping a GPU without PCIe atomics
          _amd.GPU_CORE_DUMP,              # e-amd8: ROCr's GPU core dump after a GPU fault
          # e-new17: PaddlePaddle's enforce.h for any other HIP status (` Hip error(1), invalid argument.`, DTK's own
          # texts too); out of memory, a missing kernel, no device and the device index are read by their signatures
          r"\bHip error\((?!(?:" + "|".join(_pd.HIP_ALLOC_NUMBERS + _pd.HIP_NO_KERNEL_NUMBERS + _pd.HIP_DEVICE_NUMBERS)
          + r")\))\d+\),"),
         ("HIP error", "Hip error(", "hipError", "HSA_STATUS_ERROR", "HSA_EXT_STATUS_ERROR", "rocblas_status_", "Triton Error", "hipSYCL Error",
          "AdaptiveCpp Error", "ACPP Error", "error code = HIP:", " failed", "fail to call hip", "failed to call hip",
          " error: ", "HIPBLAS_STATUS_", "HIPBLASLT_STATUS_", "hipError_t(", "hipSuccess (", "HIP_ERROR_",
          "ROCm error: ", "error: '", "Test HIP failure", " failure ", "hostcall", "not supported in libhsakmt",
          "Queue create failed", "queue creation failed", "hsa_queue_create failed", "HIP Function Failed",
          "HIP runtime error: ", "PCI rejects atomics", "GPU core dump"),
         sources=("ROCm/ROCm-docker issues (HSA_STATUS_ERROR_OUT_OF_RESOURCES)",
                  "ROCm/clr hipamd/src/hip_error.cpp (hipGetErrorString texts)",
                  "ggml-org/llama.cpp ggml/src/ggml-cuda/common.cuh ggml_cuda_error (GGML_CUDA_NAME \" error: %s\")",
                  "ROCm/hip-tests HIPCHECK (\"error: '%s'(%d) at %s:%d\")",
                  "ROCm/rccl src/include/checks.h CUDACHECK (WARN \"Cuda failure '%s'\")",
                  "ROCm/rccl-tests src/common.h HIPCHECK (\"Test HIP failure %s:%d '%s'\")",
                  "ROCm/composable_kernel include/ck_tile/host/hip_check_error.hpp (HIP_CHECK_ERROR, hip_check_error)")),
    _sig("amdgpu-ids-missing", "benign_warning", "info", "context", "libdrm cannot find amdgpu.ids (GPU names "
         "only)",
         "libdrm looks up marketing names in amdgpu.ids; a missing file only leaves the name blank",
         "nothing (install libdrm-amdgpu-common / the amdgpu-install package to silence it)",
         "the run continues after it", (r"amdgpu\.ids: No such file or directory",), ("amdgpu.ids",), benign=True),
    _sig("cuda-error", "cuda_error", "error", "root", "CUDA runtime error",
         "a CUDA kernel failed (device-side assert: an index out of range, often labels/vocab; no kernel image: "
         "the GPU's arch is not in the build; illegal memory access)",
         "rerun with CUDA_LAUNCH_BLOCKING=1 to find the op; for device-side asserts check labels against the "
         "vocab size and the tokenizer/model pair; for `no kernel image` install a build for the GPU's arch",
         "the CUDA_LAUNCH_BLOCKING=1 rerun's traceback",
         (r"CUDA error: (?!out of memory|invalid device ordinal)[\w -]+", r"device-side assert triggered",
          # explain-rocm: PyTorch 1.x's spelling (THC), and the driver older than the wheel's CUDA
          r"cuda runtime error \(\d+\) : ", r"The NVIDIA driver on your system is too old",
          # ggml/llama.cpp before 2024: `CUDA error 98 at ggml-cuda.cu:7788: invalid device function`
          r"CUDA error \d+ at \S+:\d+: [\w ]+",
          r"no kernel image is available for execution on the device",
          r"Error [\w ]{1,80} at line \d+ in file \S+\.cu\b",
          # the kernel's own assert line before `device-side assert triggered` (an index past the vocab/labels)
          # e-new16: not the embedding lookup's own assert (torch >= 1.x prints `Indexing.cu:N: indexSelectLargeIndex:
          # block: ...`): that is token-id-past-embedding's (tokenizer_template, FAMILIES.md rule 5)
          r"\.cu:\d+: \w+: block: \[[\d,]+\], thread: \[[\d,]+\] Assertion `(?!srcIndex < srcSelectDimSize`).+` "
          r"failed",
          # cuDNN's status errors and the NVIDIA kernel driver (dmesg): an Xid event, a GPU that left the bus
          r"cuDNN error: CUDNN_STATUS_(?!ALLOC_FAILED)\w+", r"NVRM: Xid \(", r"GPU has fallen off the bus",
          # e-hipfa: bitsandbytes' LLM.int8 matmul (functional.py igemmlt: `raise Exception('cublasLt ran into an
          # error!')` when its cublasLt / hipBLASLt call returns an error): on a ROCm stack _refine_platform reads it
          # as the HIP library's failure
          r"\bcublasLt ran into an error",
          # e-new17: PaddlePaddle's enforce.h (` CUDA error(719), unspecified launch failure.`); out of memory (2) is
          # oom's, no device (100) and the device index (101) their own
          r"\bCUDA error\((?!(?:2|100|101)\))\d+\),"),
         ("CUDA error", "device-side assert", "no kernel image", "Error ", "Assertion `", "cuDNN error", "NVRM: Xid",
          "fallen off the bus", "cuda runtime error", "driver on your system is too old", "cublasLt ran into"),
         sources=("artidoro/qlora#105", "axolotl-ai-cloud/axolotl#1527 (bitsandbytes: Error invalid configuration "
                  "argument at line 119 in file /src/csrc/ops.cu)")),
    # integrator (session 13): a CUTLASS kernel's own guard in xformers' memory-efficient attention
    # (xformers/csrc/attention/cuda/fmha/kernel_forward.h / kernel_backward.h: `printf("FATAL: this function is for
    # sm%d, but was built for sm%d\n", ...)`): the wheel holds no code for the GPU's arch - FAMILIES.md's arch clause
    _sig("xformers-kernel-arch-mismatch", "version_check", "error", "root",
         "xformers' attention kernel was built for another GPU architecture",
         "the installed xformers wheel has no kernels compiled for this GPU's compute capability (a wheel built for "
         "an older card - sm75 on an A100's sm80 - or for another torch/CUDA): each attention call refuses to run",
         "install the xformers wheel that matches the installed torch and CUDA (pip install xformers from the same "
         "index as torch), or build it for the GPU: TORCH_CUDA_ARCH_LIST=8.0 pip install -v --no-build-isolation "
         "git+https://github.com/facebookresearch/xformers; or use SDPA attention instead of xformers",
         "`python -m xformers.info` (the arch list it was built with) and `nvidia-smi --query-gpu=compute_cap "
         "--format=csv`",
         (r"FATAL: this function is for sm\d+, but was built for sm\d+",),
         ("this function is for sm",),
         sources=("facebookresearch/xformers csrc/attention/cuda/fmha/kernel_forward.h (the arch guard's printf)",
                  "Linaqruf/kohya-trainer#85 (A100 with a wheel built for sm75)")),
    # explain-rocm (issue 26): torch/cuda/__init__.py's _check_capability warning at the first CUDA call
    _sig("cuda-arch-not-in-build", "cuda_error", "error", "weak", "the GPU's compute capability is not in this "
         "PyTorch build",
         "PyTorch warns at the first CUDA call that the GPU's sm_XX is not among the architectures the wheel was "
         "compiled for (a new GPU such as sm_120 with a wheel for an older CUDA, or an old GPU such as sm_60 "
         "dropped from recent wheels): every kernel then fails with `no kernel image is available`",
         "install a PyTorch wheel built for the GPU (RTX 50xx/sm_120: a cu128+ wheel; old GPUs: the last wheel "
         "that lists their sm) and rebuild extensions with TORCH_CUDA_ARCH_LIST including it",
         "`python -c 'import torch;print(torch.cuda.get_arch_list(), torch.cuda.get_device_capability())'`",
         (r"with CUDA capability sm_\d+ is not compatible with the current PyTorch installation",
          r"Found GPU\d+ .{0,80} which is of cuda capability [\d.]+\.\s*PyTorch no longer supports this GPU",
          r"Ignoring visible gpu device \([^\n]*\) with Cuda compute capability [\d.]+\. The minimum required"),
         ("is not compatible with the current PyTorch installation", "PyTorch no longer supports this GPU",
          "Ignoring visible gpu device"),
         sources=("pytorch torch/cuda/__init__.py _check_capability (\"... with CUDA capability sm_120 is not "
                  "compatible with the current PyTorch installation.\")",)),
    # ------------------------------------------------------------------ benign warnings
    _sig(*_texts("hipblaslt-unsupported", "hipblaslt_warning", "context"),   # also a plan warning: core/codes.py
         (r"hipBLASLt on an? unsupported architecture", r"hipBLASLt.{0,40}not supported",
          r"rocblaslt warning: No paths matched", r"No hipBLASLt solution found", r"hipBlasLT failed, falling back",
          r"Cannot find CO in the bundle \S*hipblaslt", r"hipblaslt.{0,80}\bno (?:valid )?solutions?\b",
          r"^\s*hipBLASLt warning:", r"hipblaslt.{0,80}No suitable algorithm",
          # hipBLASLt (not rocBLAS) without a Tensile library for this gfx: rocBLAS logs it once and falls back
          # ex-rocm: `rocblaslt` is hipBLASLt's own logger name: its missing Tensile library under any prefix or path
          r"blaslt error: (?:Cannot read|Could not load) .{0,300}?TensileLibrary",
          r"hipBLASLt error: Heuristic Fetch Failed",
          # ex-rocm: the runtime not finding one of hipBLASLt's per-arch kernel files (ROCm/TheRock#7976: logged, then
          # the work goes on with other kernels)
          r"hipModuleLoad(?:Data)? failed:? \S*hipblaslt[/\\]\S+\.(?:hsaco|co)\b"),
         ("hipBLASLt", "rocblaslt warning", "hipBlasLT failed", "blaslt error", "hipModuleLoad"), benign=True,
         ignorecase=True,
         sources=("seeds/000 (日志提示 hipBLASLt 不支持)", "tests/fixtures/logs/alert-hipblaslt-unsupported.log",
                  "lmstudio-ai/lmstudio-bug-tracker#1163 (rocblaslt error: Cannot read .../hipblaslt/library/"
                  "TensileLibrary_lazy_gfx1201.dat, then rocBLAS warning: hipBlasLT failed, falling back to tensile)")),
    _sig("hipblaslt-unsupported-raised", "hipblaslt_warning", "error", "root", "hipBLASLt on an unsupported GPU "
         "raised an error instead of falling back",
         "PyTorch tried hipBLASLt on an architecture it does not support and raised (a PyTorch release whose "
         "fallback check was missing) instead of warning and using hipBLAS",
         "set TORCH_BLAS_PREFER_HIPBLASLT=0 (or torch.backends.cuda.preferred_blas_library('hipblas')) before the "
         "first matmul, or use a PyTorch release with the fallback",
         "the error is gone with TORCH_BLAS_PREFER_HIPBLASLT=0",
         (r"(?:RuntimeError|Error): Attempting to use hipBLASLt on an? unsupported architecture",),
         ("hipBLASLt",), sources=("ROCm/hipBLASLt#1243",)),
    _sig("bitsandbytes-no-gpu", "benign_warning", "info", "context", "bitsandbytes without GPU support",
         "the installed bitsandbytes has no ROCm/CUDA binary; harmless unless the run quantizes (QLoRA, 8-bit "
         "optimizers)",
         "nothing for bf16/fp16 LoRA or full training; for QLoRA install the ROCm build of bitsandbytes",
         "`python -m bitsandbytes`",
         (r"bitsandbytes was compiled without GPU support", r"Could not find the bitsandbytes \w+ binary",
          r"bitsandbytes.{0,80}(?:CPU only|no GPU support|could not find the ROCm|libbitsandbytes_\w+\.so)"),
         ("bitsandbytes",), benign=True),
    # an RL trainer's step line (GRPO/PPO/RLOO: reward/kl keys) with loss 0.0: the policy loss is ~0 by construction
    # at the start (zero-mean advantages, KL 0), not a collapse; a context line, never a cause
    _sig("rl-loss-zero", "benign_warning", "info", "context", "an RL step logs loss 0.0 (normal for GRPO/PPO)",
         "in GRPO/PPO the logged policy loss is about 0 by construction (advantages are normalised to mean 0, the KL "
         "term starts at 0); with equal rewards in a group the gradient is 0 too",
         "nothing; watch the reward and KL columns instead of the loss",
         "the reward/kl values change over the steps while the loss stays near 0",
         (r"'loss'\s*:\s*0\.0\b(?=.{0,400}'(?:kl|rewards?(?:/\w+)?|reward_std)'\s*:)",
          r"\"loss\"\s*:\s*0\.0\b(?=.{0,400}\"(?:kl|rewards?(?:/\w+)?|reward_std)\"\s*:)"),
         ("'loss'", '"loss"'), benign=True,
         sources=("ms-swift FAQ Q92 / huggingface/open-r1#239 (GRPO: loss 0 at the start is expected)",)),
    _sig("token-indices-too-long", "tokenizer_template", "info", "context", "a sample is longer than the "
         "tokenizer's model_max_length",
         "the tokenizer warns when one text is longer than its nominal maximum; training truncates at cutoff_len",
         "nothing (cutoff_len decides); `rocm-tune dataset` shows how many samples are truncated",
         "`rocm-tune dataset DATA --cutoff-len N`",
         (r"Token indices sequence length is longer than the specified maximum sequence length",),
         ("Token indices sequence length",), benign=True),
    _sig("harmless-warning", "benign_warning", "info", "context", "a common harmless warning",
         "a deprecation or informational warning printed by transformers/torch at start-up",
         "nothing", "training continues after it",
         (r"`use_cache=True` is incompatible with gradient checkpointing",
          r"Some weights of \S+ were not initialized from the model checkpoint",
          r"torch\.utils\.checkpoint: the use_reentrant parameter should be passed explicitly",
          r"TypedStorage is deprecated", r"NCCL WARN NET/Plugin", r"Plugin load \(librccl-net\.so\)",
          r"\b(?:Future|User|Deprecation|Runtime|Resource|Import|Syntax|Bytes|PendingDeprecation)Warning\b",
          r"^\s*warnings\.warn\(",
          # e-benign (issue 26): CPython's warnings.formatwarning line of any category a library defines (sklearn's
          # ConvergenceWarning, xFormers' TritonWarning, Lightning's PossibleUserWarning): printed as a warning by
          # the warnings module whatever its words (WARNING_CAUSES excepted, catalogue.match_line)
          r"\.py:\d+: (?:[\w.]+\.)?[A-Z]\w*Warning: \S", r"\bTORCH_NCCL_\w+", r"huggingface/tokenizers: The current process just got forked",
          r"Special tokens have been added in the vocabulary", r"You're using a \w+ ?[Tt]okenizer",
          r"Setting `pad_token_id` to `eos_token_id`", r"right-padding was detected", r"expandable_segments not supported",
          # MIOpen's warnings (workspace, fallback solvers, find-db) are performance notes: the op still runs
          r"MIOpen\(HIP\): Warning \[",
          # xFormers' import-time notes: it runs without Triton / its compiled extensions (slower, not failed)
          r"A matching Triton is not available, some optimizations will not be enabled",
          r"^\s*Error caught was: No module named '?triton", r"xFormers can't load C\+\+/CUDA extensions",
          r"WARNING\[XFORMERS\]",
          # the end of a run that did not call destroy_process_group (torch >= 2.4): a note, not a failure
          r"process group has NOT been destroyed before we destruct ProcessGroupNCCL",
          r"destroy_process_group\(\) was not called before program exit",
          # DeepSpeed's op-compatibility notes at start-up (ops the run may never use)
          r"\[WARNING\]\s+(?:async_io|sparse_attn|cpu_adam|fused_adam|evoformer_attn|fp_quantizer|gds|"
          r"inference_core_ops|cutlass_ops|ragged_\w+)\b",
          # TensorFlow's dynamic loader: an optional library is absent (it falls back)
          r"Could not load dynamic library '[^']+'; dlerror:",
          # h7-hip: notes printed on every start whatever happens next — PyTorch on a CPU without NNPACK's
          # instructions (it uses other kernels), TensorFlow >= 2.14 registering its CUDA plugins twice (logged at
          # error level, harmless), rocm-smi/amd-smi reading a metric this card or VM does not expose
          r"Could not initialize NNPACK! Reason: Unsupported hardware",
          r"Unable to register cu(?:DNN|FFT|BLAS) factory: Attempting to register factory for plugin cu\w+ when one "
          r"has already been registered",
          r"\bRSMI_STATUS_NOT_SUPPORTED\b", r"\bAMDSMI_STATUS_NOT_SUPPORTED\b",
          # NCCL/RCCL without an external network plugin uses its own transports (ROCm/rccl#1026, NVIDIA/nccl#257)
          r"NET/Plugin ?: (?:No plugin found|Could not find:?) \(?lib[rn]ccl-net",
          r"Expected integer value from monitor, but got",
          # e-cfgerr (issue 26): accelerate launch's note that it filled in defaults for flags not given
          # (accelerate/commands/launch.py _validate_launch_command): the run goes on with them
          r"The following values were not passed to `accelerate launch` and had defaults used instead",
          r"^\s*`--[\w-]+` was set to a value of `[^`]*`\s*$",
          r"To avoid this warning pass in values for each of the problematic parameters or run `accelerate config`",
          # e-cfgerr (issue 26): notes transformers/accelerate/DeepSpeed print through loggers that show no level
          # (transformers' default handler prints the bare message), each followed by the run going on:
          # accelerate/utils/other.py check_os_kernel, transformers modeling_utils (FA2 on a model still on the CPU),
          # Trainer.floating_point_ops and the PEFT label_names note, accelerate's GA plugin vs the DeepSpeed JSON,
          # DeepSpeed's Triton-autotune cache probe (`df` on a directory not made yet)
          r"Detected kernel version [\d.]+, which is below the recommended minimum of [\d.]+; this can cause the "
          r"process to hang",
          r"You are attempting to use Flash Attention 2(?:\.0)? with a model not initialized on GPU",
          r"Could not estimate the number of tokens of the input, floating-point operations will not be computed",
          r"No label_names provided for model class `\w+`",
          r"Gradient accumulation steps mismatch: GradientAccumulationPlugin has \d+, DeepSpeed config has \d+\. "
          r"Using DeepSpeed's value",
          r"^df: \S*/\.triton/autotune: No such file or directory",
          # TensorFlow/absl info-level records (`2024-06-01 10:00:00.123: I tensorflow/core/util/port.cc:113] oneDNN
          # custom operations are on ... round-off errors ...`): the level says it is information
          r"^\s*\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+: I (?:tensorflow|external|xla)/[\w./-]+:\d+\] ",
          # RCCL on MI300 without MSCCL++'s environment: it uses its own algorithms (ROCm/Megatron-LM#65 review)
          r"NCCL WARN MSCCL\+\+: Cannot enable MSCCL\+\+; environment is not MSCCL compatible",
          # rdma-core without its provider config directory (no InfiniBand drivers configured): TCP is used
          r"libibverbs: Warning: couldn't open config directory",
          # ms-swift's own warning records, whatever their words (`[WARNING:swift] Failed to import `liger_kernel``):
          # by ms-swift's judgement not a failure (SWIFT_RECORD_CAUSES are read by their own signatures)
          r"^(?:\S+ ){0,2}?(?:\[(?:rank|default)\d+\]:\s*)?\[WARNING:swift\] "),
         ("use_cache=True", "were not initialized", "use_reentrant parameter", "TypedStorage", "NET/Plugin",
          "librccl-net", "Warning", "warnings.warn", "TORCH_NCCL_", "huggingface/tokenizers", "Special tokens",
          "okenizer", "pad_token_id", "right-padding", "expandable_segments", "MIOpen(HIP): Warning",
          "matching Triton", "Error caught was", "xFormers can't load", "WARNING[XFORMERS]", "NOT been destroyed",
          "destroy_process_group", "[WARNING]", "Could not load dynamic library", "NNPACK", "register factory",
          "STATUS_NOT_SUPPORTED", "Expected integer value", "accelerate launch", "was set to a value of",
          "To avoid this warning", "Detected kernel version", "Flash Attention 2", "Could not estimate the number",
          "No label_names provided", "Gradient accumulation steps mismatch", "triton/autotune", ": I ",
          "MSCCL++", "libibverbs: Warning", "[WARNING:swift]"), benign=True,
         sources=("calibration rocm-rccl-1129 (NET/Plugin : Plugin load (librccl-net.so) returned 2)",)),
    # r5-hip (issue 26): a line a logger printed at WARNING level, by the logger's own shape rather than its words:
    # c10's TORCH_WARN (`[W Context.cpp:301] Warning: ...`, `[W1016 17:27:46.69 ProcessGroupNCCL.cpp:1856]`), glog
    # (`W0521 12:00:00.123 4567 file.cc:12]`), Python logging (`WARNING:root:`), vLLM (`WARNING 03-23 14:02:19
    # file.py:12]`), DeepSpeed (`[WARNING] [file.py:12:func]`), plus the deprecation/fallback notes libraries print
    # (`... is deprecated`, `will be removed in v4.47`, `falling back to hipBLAS`). Benign context only: any line a
    # specific rule reads (an OOM, a fallback to the CPU, a failure) is decided by that rule, and a line naming a
    # failure, the CPU or a missing GPU is left out here.
    _sig("warning-level-note", "benign_warning", "info", "context", "a warning-level note from a library",
         "a library logged a warning (a deprecation, a fallback to another kernel or backend, a missing optional "
         "component); the run goes on",
         "nothing, unless the run later fails or is slow", "the run continues after it",
         (r"^(?!.*(?i:error|fail|fatal|abort|exception|out of memory|\boom\b|killed|timed? ?out|\bnan\b|overflow|"
          r"corrupt|\bcpu\b|no (?:gpu|device|cuda|hip)|unable to detect|not detected|cannot|could not))"
          r"(?:\s*(?:\[rank\d+\]:)?\[W(?:\d{3,4}\s+[\d:.]+)?(?:\s+\d+)?\s+[\w./-]+:\d+\]|\s*(?:\[rank\d+\]:)?W\d{4}\s+[\d:.]+\s+\d+\s+[\w./-]+:\d+\]|"
          # h7-hip: TensorFlow/absl's C++ log line (`2018-03-23 17:18:40.740562: W tensorflow/...cc:405] ...`)
          r"\s*\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+: W [\w./-]+:\d+\]|"
          r"\s*(?:\(\w+ pid=\d+\)\s*)?WARNING\s+\d\d-\d\d\s+[\d:.]+\s+[\w./-]+:\d+\]|\s*WARNING:[\w.]+:|"
          r"(?:\S+\s+){0,3}\[WARNING\]\s+\[[\w./-]+:\d+(?::\w+)?\]|"
          r"\s*(?:WARNING|Warning|warning|WARN):\s|(?:\S+\s+){0,3}WARNING\s+\[[\w./-]+:\d+\]|[\w.]+: \[?WARNING\]?\s|"
          # h8-cfgerr (issue 26): the same records behind the prefixes a runner or library puts before the level:
          # Ray's worker tag (`(train_fn pid=100759) `), a bracketed clock (dmlc/xgboost `[00:31:59] WARNING: ...`),
          # and the `DATE TIME WARNING file.py:424 -- msg` / loguru `DATE | WARNING | mod:fn:31 - msg` records
          r"\s*(?:\(\w[\w:.\-]* pid=\d+(?:, ip=[\d.]+)?\)\s*)?(?:\[\d\d:\d\d:\d\d(?:\.\d+)?\]\s*)?(?:WARNING|WARN|Warning):\s|"
          r"\s*(?:\(\w[\w:.\-]* pid=\d+(?:, ip=[\d.]+)?\)\s*)?\d{4}-\d\d-\d\d[ T][\d:.,]+\s*(?:\|\s*)?WARNING\s*(?:\|\s*)?"
          r"[\w./<>-]+:(?:[\w<>]+:)?\d+\s+(?:--|-)\s|"
          # e-cfgerr (issue 26): the fine-tuning runners' own logger records at warning level — ms-swift's
          # `[WARNING:swift] ...` (after a timestamp or a rank prefix), LLaMA-Factory's and transformers'
          # `[WARNING|2024-06-05 10:00:00] logger:162 >> ...` / `[WARNING|logging.py:328] 2024-... >> ...`, and the
          # HF examples' `06/05/2024 10:00:00 - WARNING - logger - ...` (swift/utils/logger.py, llamafactory/extras/
          # logging.py, transformers/utils/logging.py formats)
          r"(?:\S+ ){0,2}?(?:\[(?:rank|default)\d+\]:\s*)?\[(?:WARNING|WARN):[\w.-]+\]\s|"
          r"\s*(?:\[(?:rank|default)\d+\]:\s*)?\[(?:WARNING|WARN)\|[^\]\n]{1,40}\]\s|"
          r"\s*\d\d/\d\d/\d{4} \d\d:\d\d:\d\d - WARNING - [\w.]+ - |"
          r".*\b(?:is|are) deprecated\b|.*\bwill be removed in (?:v|version )?\d|.*\bfalling back to\b|"
          # h8-cfgerr: a note that says of itself it is harmless (`This is expected, and simply means that the
          # legacy behaviour will be used`, `can be safely ignored`, `You can ignore this warning`)
          r".*\b[Tt]his (?:is|IS) expected[,.]|.*\bcan (?:safely be|be safely) ignored\b|.*\b[Yy]ou can (?:safely )?ignore this\b|"
          r".*\b(?:is|are) harmless\b)",
          # h8-cfgerr (issue 26): NCCL/RCCL's INFO trace (bootstrap, rings, channels, plugins) is a trace, not a
          # trouble — except the INFO lines that report a connection refused/reset/retried or an error
          r"^(?!.*(?i:error|fail|fatal|abort|refused|reset|closed|retr(?:y|ies)|timed? ?out|hang|unhandled|remote))"
          r"(?:\S+\s+){0,3}NCCL INFO\s",
          # h8-cfgerr: c10d trying localhost's IPv6 address first (errno 99, EADDRNOTAVAIL) before IPv4
          r"\[c10d\] The (?:server|client) socket has failed to connect to \[(?:localhost|::1?|::ffff:127\.0\.0\.1)\]:\d+ "
          r"\(errno: 99 - Cannot assign requested address\)",
          # c10d's IPv6 attempt on a host without IPv6 (errno 97, EAFNOSUPPORT): it goes on over IPv4
          r"\[c10d\] The (?:server|client) socket .{0,80}\(errno: 97 - Address family not supported by protocol\)",
          # notes printed while the run sets itself up: an optional component absent, the checkpoint's head unused,
          # MIOpen's info-level find-db/perf-db trace
          # e-gen (issue 26): a line of Python's warnings module (`/x/y.py:81: UserWarning: ...`, FutureWarning,
          # DeprecationWarning, RuntimeWarning, a library's own Warning subclass) — a warning by its category, unless
          # its words say something failed or is missing from the GPU stack
          r"^(?!.*(?i:" + _FAILING_WORDS + r"|not compiled with (?:cuda|rocm|hip)\b))"
          r"(?:\S+ )?\S+\.py:\d+: (?:[\w.]+\.)?[A-Z]\w*Warning: \S",
          # e-gen (issue 26): a record whose level is WARNING/WARN in any bracket or bar a logger puts it in, where no
          # other pattern knows the logger — DeepSpeed's op report (` [WARNING]  async_io ...`, also with the colour
          # codes a syslog shows as `#033[93m [WARNING] #033[0m`), `| WARNING |`, `[WARN]` — same exclusions
          r"^(?!.*(?i:" + _FAILING_WORDS + r"))"
          r".{0,60}?(?:\[|\|\s?)(?:WARNING|WARN)(?:\]|\s?\|)(?:\s*(?:#033|\x1b)\[0m)?\s+\S",
          r"No ROCm runtime is found, using ROCM_HOME=", r"Some weights of the model checkpoint at \S+ were not used "
          r"when initializing", r"^\s*xFormers not available\b", r"Xformers is not installed correctly",
          r"MIOpen\(HIP\): Info2? \["),
         ("[W", "W0", "W1", ": W ", "WARNING", "Warning", "warning", "deprecated", "will be removed", "falling back",
          "errno: 97",
          "No ROCm runtime", "were not used when initializing", "xFormers not available", "Xformers is not",
          "MIOpen(HIP): Info", "expected", "ignore", "harmless", "NCCL INFO", "errno: 99"), benign=True,
         sources=("c10 TORCH_WARN / glog / Python logging / vLLM / DeepSpeed logger formats",
                  "pytorch/pytorch#138067 ([W1016 ... Context.cpp:301] Warning: Attempting to use hipBLASLt ...)")),
    # ------------------------------------------------------------------ deepspeed_build_jit
    _sig("deepspeed-op-build-failed", "deepspeed_build_jit", "error", "root", "a DeepSpeed op failed to build "
         "or load",
         "DeepSpeed compiles its ops (cpu_adam, fused_adam, inference kernels) at first use or install time; the "
         "compiler, CUDA/ROCm headers (e.g. cuda_profiler_api.h) or a dependency (dskernels for inference ops) "
         "is missing",
         "install the toolkit's development headers matching torch (CUDA_HOME/ROCM_HOME), or prebuild only the "
         "training ops: DS_BUILD_CPU_ADAM=1 DS_BUILD_FUSED_ADAM=1 DS_BUILD_INFERENCE=0 pip install deepspeed",
         "`ds_report` lists each op as installed/compatible",
         (r"ninja: build stopped: subcommand failed", r"Error building extension '[\w.]+'",
          r"fatal error: [\w/.+-]+\.h(?:pp)?: No such file or directory", r"No module named '?dskernels'?",
          r"object has no attribute 'ds_opt_adam'", r"CUDA_HOME does not exist, unable to compile CUDA op",
          r"MissingCUDAException", r"(?:cpu_adam|fused_adam|transformer_inference)\w*\.so: cannot open shared object",
          r"CUDAMismatchException", r"does not match the version torch was compiled with [\d.]+, unable to compile",
          r"Ninja is required to load C\+\+ extensions",
          r"The detected CUDA version \([\d.]+\) mismatches the version that was used to compile",
          r"torch_extensions[/\\]\S+\.so: (?:undefined symbol|cannot open shared object)",
          r"No module named '?deepspeed\.ops\.[\w.]+_op'?", r"(?:CUDA|ROCM)_HOME environment variable is not set",
          # ex-rocm: DeepSpeed's setup.py abort for an op it was told to prebuild (DS_BUILD_*=1) and its builder's
          # refusal to JIT-load an op it found incompatible (deepspeed/ops/op_builder/builder.py)
          r"Unable to pre-compile \w+", r"Unable to JIT load the \w+ op"),
         ("Ninja is required", "ninja: build stopped", "Error building extension", "fatal error:", "dskernels", "ds_opt_adam",
          "CUDA_HOME does not exist", "MissingCUDAException", "cannot open shared object", "CUDAMismatchException",
          "unable to compile", "detected CUDA version", "torch_extensions", "deepspeed.ops.", "_HOME environment",
          "pre-compile", "JIT load"),
         sources=("calibration deepspeed-2682 (gemm_test.h:6:10: fatal error: cuda_profiler_api.h: No such file "
                  "or directory; ninja: build stopped: subcommand failed)",
                  "seeds/000 (ModuleNotFoundError: No module named 'dskernels')")),
    # ------------------------------------------------------------------ version_check
    _sig("version-check-failed", "version_check", "error", "root", "a package version check failed "
         "(require_version)",
         "LLaMA-Factory/transformers require a version range of a package and the installed one is outside it",
         "install a version in range (the message's own `pip install ...`); where the newer package is known to "
         "work (DeepSpeed on ROCm) DISABLE_VERSION_CHECK=1 skips the check — not when the API changed (TRL for PPO)",
         "`pip show PACKAGE`",
         (r"(\w[\w\-]*(?:[<>=!~]=?[\w.*+]+,?)+) is required for a normal functioning of this module, but found "
          r"([\w\-]+==?[\w.+]+)",
          # r3-ver (issue 26): setuptools' pkg_resources resolving an entry point or `require()`: the installed
          # distribution is outside what another one declares (`(tokenizers 0.13.3 (/…/site-packages),
          # Requirement.parse('tokenizers<0.19,>=0.14'), {'transformers'})`)
          r"(?:Contextual)?VersionConflict: \((\S+ \S+) \(\S+\), Requirement\.parse\('([^']+)'",
          # r3-ver: peft's import_utils (is_torchao/auto_gptq/gptqmodel/optimum_available) and transformers' fx:
          # `Found an incompatible version of torchao. Found version 0.10.0, but only versions above 0.16.0 ...`
          r"Found an incompatible version of ([\w.-]+)\. Found version ([^\s,]+), but only versions? "
          r"(?:above )?([^\s,]+?)\.? (?:are|is) supported",
          # r4-ver (issue 26): any library stating the range it needs and the version it found, with the word
          # `version` between the name and the range (xformers: `Requires Flash-Attention version >=2.7.1,<=2.7.4 but
          # got 2.8.0.post2`)
          r"\b[Rr]equires? ([\w.-]+(?: [\w.-]+){0,3}?) version\s*([<>=!~]=?\s*v?\d[\w.+]*(?:\s*,\s*[<>=!~]=?\s*v?\d"
          r"[\w.+]*)*),? but (?:got|found|have|you have|is)\s+(v?\d[\w.+]*\w)",
          # e-ver (issue 26): transformers' utils/versions.py _compare_versions when the installed distribution's
          # metadata carries no version (a half-removed or broken install): `Unable to compare versions for
          # packaging>=20.0: need=20.0 found=None. This is unusual. Consider reinstalling packaging.`
          r"Unable to compare versions for ([\w.\-]+[<>=!~]=?[^:\s]*): need=\S* found=(\S*)"),
         ("is required for a normal", "VersionConflict", "incompatible version of", " but ",
          "Unable to compare versions"),
         sources=("calibration lf-10757 (ImportError: trl>=0.8.6,<=0.9.6 is required ... but found trl==0.24.0.)",
                  "seeds/000 (DeepSpeed 0.18.3 vs <0.16.9)")),
    _sig("import-name-mismatch", "version_check", "error", "root", "an import failed between two packages' "
         "versions",
         "one package imports a name another no longer (or not yet) has: mismatched versions of transformers, "
         "peft, trl, accelerate or deepspeed",
         "install the versions the runner pins (LLaMA-Factory: `pip install -e .[torch,metrics]` in its checkout; "
         "Axolotl/ms-swift: their requirements)",
         "`pip list | grep -iE 'transformers|peft|trl|accelerate|deepspeed'`",
         (r"(?:ImportError: )?cannot import name '(\w+)' from '([\w.]+)'(?! " + _shadowing_file(r"\2") + ")",
          # any dotted module a package lacks (issue 26, ex-ver; see missing-package): not torch's own build
          # components (torch-build-lacks-backend), DeepSpeed's compiled ops (deepspeed_build_jit) or namespace roots
          r"No module named '(?!torch\._C\._distributed|deepspeed\.ops\.[\w.]*_op\b)(?!" + _NAMESPACE_ROOTS + r")"
          r"\w+\.[\w.]+'",
          # any call with a keyword another release of the callee does not take (issue 26, explain-sw: raised inside a
          # tokenizer or data collator it is still the versions, not the data)
          r"\w+\(\) got an unexpected keyword argument '\w+'",
          # r4-ver (issue 26): pydantic 2's migration error for a name pydantic 1 had (BaseSettings -> pydantic-settings)
          r"PydanticImportError: `[\w.]+` has been (?:moved|removed)",
          # e-ver2 (issue 26): pydantic 2 refusing pydantic 1's API in code written for it (pydantic/fields.py
          # `PydanticUserError: `regex` is removed. use `pattern` instead` / `const` is removed, use `Literal`
          # (code removed-kwargs), deprecated/class_validators.py `If you use `@root_validator` with pre=False (the
          # default) you MUST specify `skip_on_failure=True`. Note that `@root_validator` is deprecated and should be
          # replaced with `@model_validator`.`)
          r"PydanticUserError: [^\n]*(?:`\w+` is removed[.,;]? use `|\bis deprecated and should be replaced with `|"
          r"MUST specify `skip_on_failure=True`)",
          # e-gen8 (issue 26): pydantic 2's BaseModel API (pydantic/main.py at v2.0.0: model_dump, model_dump_json,
          # model_validate, model_validate_json, model_copy, model_json_schema, model_construct, model_fields_set;
          # pydantic 1 spells them dict/json/parse_obj/parse_raw/copy/schema/construct/__fields_set__) called on a
          # model while pydantic 1 is installed
          r"AttributeError: (?:'\w+' object|type object '\w+') has no attribute '(?:model_dump(?:_json)?|"
          r"model_validate(?:_json)?|model_copy|model_json_schema|model_construct|model_fields_set)'"),
         ("cannot import name", "No module named", "unexpected keyword argument", "PydanticImportError",
          "PydanticUserError", "has no attribute 'model_")),
    # integrator (session 13): an OpenMMLab registry (mmengine/registry/registry.py _register_module: `raise
    # KeyError(f'{name} is already registered in {self.name} at {existed_module.__module__}')`, mmcv's the same
    # without ` at`) refusing a name a newer library now registers first - torch 2.5 added torch.optim.Adafactor,
    # which mmengine < 0.10.5 registers from torch.optim and then again from transformers (xtuner prints it as
    # `WARNING: command error: ''Adafactor is already registered in optimizer at torch.optim''!`)
    _sig("registry-name-collision", "version_check", "error", "root",
         "a registry refused a name another package's newer release already registered",
         "an OpenMMLab registry (mmengine/mmcv, used by xtuner, InternLM's tools, mmdet...) registers every class of "
         "torch/transformers by its name; a newer release of one of them added a class whose name the registry "
         "already holds, so registration fails at import",
         "install the mmengine/mmcv release that knows the newer library (mmengine >= 0.10.5 for torch 2.5's "
         "Adafactor), or the older torch/transformers the tool was released with",
         "`pip list | grep -iE 'mmengine|mmcv|xtuner|torch|transformers'`",
         (r"\b\w+ is already registered in \w+ at (?:torch|transformers|timm|peft|accelerate|deepspeed)\b[\w.]*",),
         ("is already registered in",)),
    # e-g8 (issue 26): unsloth rewrites TRL's trainers from the installed TRL's own source and execs the result
    # (unsloth/tokenizer_utils.py <= 2025.2: `RuntimeError: Unsloth: Please file a bug report! Error patching
    # SFTTrainer` for SFT/DPO/KTO; unsloth/models/rl.py + unsloth_zoo/compiler.py create_new_function since 2025.2:
    # the generated unsloth_compiled_cache/Unsloth<X>Trainer.py failing to load, `Direct module loading failed for
    # UnslothSFTTrainer: ...`, `Unsloth: Cannot import UnslothGRPOTrainer from ...`; unsloth/models/rl_replacements.py:
    # `Unsloth: source anchor not found (...); the patched function is out of sync with this TRL / unsloth_zoo version`,
    # `Unsloth: failed to apply a required source edit (...)`). The patcher's own words name TRL's trainer it could not
    # rewrite: TRL's source is not the one the installed unsloth release was written for (unsloth#1699/#1700: TRL
    # 0.15 vs unsloth 2025.2) - FAMILIES.md "Rule 1, refined": two installed components that disagree, shown by the
    # log. The generated file's own SyntaxError/NameError: EXCEPTION_RULES (unsloth-compiled-trainer)
    _sig("unsloth-trainer-patch-failed", "version_check", "error", "root", "unsloth could not patch TRL's trainer "
         "(the installed TRL is not the release this unsloth was written for)",
         "unsloth rebuilds TRL's trainer classes (SFTTrainer, DPOTrainer, GRPOTrainer...) from the installed TRL's "
         "source; a TRL release newer (or older) than the installed unsloth/unsloth_zoo supports changed that source, "
         "so the rewritten trainer is invalid or its anchors are gone",
         "upgrade unsloth and unsloth_zoo together (`pip install -U unsloth unsloth_zoo`), or pin TRL to the range "
         "the installed unsloth supports (e.g. `pip install \"trl<0.15.0\"` for unsloth 2025.2.x); then delete the "
         "stale unsloth_compiled_cache/ folder",
         "`pip show unsloth unsloth_zoo trl` against unsloth's requirements (pyproject.toml's trl bound)",
         (r"\bUnsloth: [^\n]{0,80}\bError patching (\w+)",
          r"Unsloth: source anchor not found\b[^\n]{0,200}out of sync with this TRL",
          r"Unsloth: failed to (?:apply a required source edit|install [\w -]{1,60} into \w+)\b",
          r"Direct module loading failed for (Unsloth\w*(?:Trainer|Config))\b",
          r"Unsloth: Cannot import (Unsloth\w*(?:Trainer|Config)) from "),
         ("Error patching", "source anchor not found", "Unsloth: failed to", "Direct module loading failed",
          "Unsloth: Cannot import"),
         sources=("unslothai/unsloth#1700 (RuntimeError: Unsloth: Please file a bug report! Error patching "
                  "SFTTrainer, TRL 0.15.0)", "unsloth/models/rl_replacements.py, unsloth_zoo/compiler.py")),
    # e-g8: unsloth >= 2025.9 catches a TRL trainer module it cannot patch and goes on with TRL's own class
    # (unsloth/models/rl.py patch_trl_rl_trainers: logger.warning_once): a cause only when nothing more specific is
    _sig("unsloth-trainer-patch-skipped", "version_check", "warning", "weak", "unsloth left a TRL trainer unpatched",
         "the installed TRL's trainer module is not one the installed unsloth can rewrite (another TRL release than "
         "unsloth supports); training goes on with TRL's own trainer, without unsloth's fixes",
         "upgrade unsloth and unsloth_zoo together, or install the TRL release the installed unsloth pins",
         "`pip show unsloth trl`",
         (r"Unsloth: Could not patch trl\.trainer\.\w+: ",),
         ("Could not patch trl.trainer",)),
    _sig("version-required", "version_check", "error", "weak", "a package needs another version",
         "a library states the version of another one it needs, and the installed one is not it",
         "install the version the message names (pip install 'PACKAGE>=X'), within what the runner pins",
         "`pip show PACKAGE`",
         (r"\b[\w.-]+\s*(?:>=|==|<=|~=)\s*\d[\w.]*(?:,\s*[<>=!~]=?\s*\d[\w.]*)?\s+(?:is|are) required\b",
          # e-ver (issue 26): the requirement in any quotes (ms-swift: `Muon optimizer requires "megatron-core>=0.16".`)
          r"\brequires? (?:the )?(?:package )?[`'\"]?[\w.-]+[`'\"]?\s*(?:>=|==|~=)\s*\d[\w.]*",
          # e-ver: the libraries' other words for a minimum version (accelerate `DeepSpeed version must be >= 0.9.3`,
          # DeepSpeed `Torch version must be 2.5 or higher` / `Current torch version does not have device mesh`,
          # ms-swift `... is not supported in vLLM version < 0.10.2`, `the version of vLLM is too old`)
          r"\b[\w.-]+ version must be (?:>=?\s*|at least |greater than |newer than )v?\d",
          r"\bversion must be v?\d[\w.]* or (?:higher|later|newer|above|greater)\b",
          r"\b(?:[Cc]urrent|[Ii]nstalled|[Yy]our) [\w.-]+ version (?:does not|doesn't) "
          r"(?:have|support|provide|include)\b",
          r"\bnot (?:supported|available) (?:in|with|for|on) [\w.-]+ (?:versions?|v)\s*[<>]=?\s*v?\d",
          r"\b(?:version of [\w.-]+|[\w.-]+ version) is too old\b",
          r"[Pp]lease (?:upgrade|update|install) `?[\w.-]+`? ?(?:to |>=|==|~=)\s*`?(?:version )?\d",
          # transformers' lazy import: the real error is in the traceback above, most often a version mismatch
          r"Failed to import [\w.]+ because of the following error",
          # pip's resolver after an install: `X 1.0 requires Y>=2, but you have Y 1.5 which is incompatible.`
          # e-ver2: and the older pips' spellings of the same check (`X 1.0 has requirement Y==2, but you'll have Y 2.1
          # which is incompatible.`, pip 10 - 20.2: src/pip/_internal/commands/install.py _warn_about_conflicts @ 045e244b)
          r"(?:requires|has requirement) [\w.-]+(?:\[[\w,]+\])?[<>=!~]=?[\w.*+]+(?:,[<>=!~]=?[\w.*+]+)*, but you(?:'ll)? "
          r"have [\w.-]+ [\w.+]+ which is incompatible", r"requires the latest version of `?[\w.-]+",
          # e-ver2: two packages of one project released together checking each other (jax/_src/lib/__init__.py
          # check_jaxlib_version: `jaxlib version 0.4.31 is newer than and incompatible with jax version 0.4.30`,
          # `jaxlib is version 0.4.1, but this version of jax requires version >= 0.4.7.`)
          r"\bversion v?\d[\w.+]* is (?:newer|older) than and incompatible with [\w.-]+ version\b",
          r"\b[\w.-]+ is version v?\d[\w.+]*, but this version of [\w.-]+ requires version\b",
          # r3-ver (issue 26): a stack component named a few words after `requires` (`vLLM ROCm requires PyTorch built
          # with ROCm >= 6.1`, `requires a PyTorch version >= 2.1`)
          r"\brequires? (?:[\w.-]+ ){0,4}?(?:PyTorch|torch|ROCm|HIP|CUDA|Python|transformers|accelerate|peft|trl|"
          r"deepspeed|vLLM|vllm|triton|flash[-_]attn|bitsandbytes|numpy)(?: version)?\s*(?:>=|==|~=|>)\s*v?\d",
          # e-ver2 (issue 26): the minimum written after the version rather than as `>=` (transformers trainer.py
          # `Using torch.compile requires PyTorch 2.0 or higher.`, accelerate's `FSDP2 requires PyTorch 2.6.0 or higher`,
          # diffusers' `AttnProcessor2_0 requires PyTorch 2.0, to use it, please upgrade PyTorch to 2.0.`, `requires
          # PyTorch 2.4.0+`) for a component of the stack, and transformers' own FA2 version check (modeling_utils.py:
          # `you need flash_attn package version to be greater or equal than 2.1.0. Detected version 2.0.4`)
          r"\brequires? (?:[\w.-]+ ){0,4}?(?:PyTorch|torch|ROCm|HIP|CUDA|Python|transformers|accelerate|peft|trl|"
          r"deepspeed|DeepSpeed|vLLM|vllm|triton|Triton|flash[-_]attn|bitsandbytes|numpy|diffusers|xformers)"
          r"(?: version)?\s*v?\d+(?:\.\d+)+(?:\+|,? or (?:higher|later|newer|above|greater)\b)",
          r"\b[Yy]ou need [\w.-]+ package version to be (?:greater|higher|newer)(?: or equal)? than v?\d",
          r"A module that was compiled using NumPy 1\.x cannot be run in",
          # r5-ver (issue 26): pip's resolver refusing the install itself — a pinned version that has no wheel for
          # this index/platform (`Could not find a version that satisfies the requirement torch==2.3.0+rocm6.0`), or
          # two pins that cannot hold together (`Cannot install a and b because these package versions have
          # conflicting dependencies`, `ResolutionImpossible`): the stack's versions, whoever runs pip (uv's
          # `No solution found when resolving dependencies` likewise)
          r"Could not find a version that satisfies the requirement [\w.-]+(?:\[[\w,]+\])?\s*[<>=!~]=?\s*\d",
          r"because these package versions have conflicting dependencies", r"\bResolutionImpossible\b",
          # e-ver (issue 26): pip's other refusals of a pinned build: no distribution at that version on this index
          # (`No matching distribution found for vllm==0.6.3+rocm624`), a wheel whose tags (Python, ABI, platform)
          # are not this interpreter's (`... .whl is not a supported wheel on this platform.`)
          r"No matching distribution found for [\w.-]+(?:\[[\w,]+\])?\s*(?:==|>=|<=|~=|<|>)\s*\d",
          r"\S+\.whl is not a supported wheel on this platform",
          r"No solution found when resolving dependencies",
          # h7-ver: conda/mamba's and Poetry's resolvers saying the same
          r"\b(?:LibMamba)?UnsatisfiableError\b", r"\bSolverProblemError\b"),
         ("required", "require", "package version", "upgrade", "update", "install", "Failed to import", "requires", "NumPy 1.x",
          "version must be", "version does not", "version doesn't", "not supported", "not available", "too old",
          "satisfies the requirement", "conflicting dependencies", "has requirement", "incompatible with",
          "but this version of", "ResolutionImpossible", "No solution found",
          "No matching distribution", "not a supported wheel",
          "UnsatisfiableError", "SolverProblemError"),
         sources=("transformers/accelerate/peft messages, e.g. `requires accelerate>=0.26.0`",)),
    # explain-r2a (issue 26): a config written by a newer release (Llama 3.1's rope_type 'llama3', YaRN, LongRoPE, mrope)
    # read by an older transformers / vLLM that knows only {type, factor}: the versions, not the user's settings
    # r4-ver (issue 26): the model's other files in a format newer than the installed library reads: a tokenizer.json
    # written by a newer `tokenizers` (serde's words: `data did not match any variant of untagged enum ModelWrapper`),
    # a quantization_config method the installed transformers does not know
    _sig("model-files-newer-format", "version_check", "error", "root", "the model's files are in a newer format "
         "than the installed library reads",
         "the checkpoint was saved by a newer release: its tokenizer.json by a newer `tokenizers` (Llama 3, Qwen2 and "
         "later tokenizers), or its quantization_config names a method the installed transformers does not know",
         "upgrade tokenizers/transformers to a release that knows the model (its model card names one), within the "
         "range the runner accepts; do not edit the model's files",
         "`pip show tokenizers transformers` against the model card",
         (r"data did not match any variant of untagged enum \w*(?:Wrapper|Type)\w*",
          r"Unknown quantization type, got [\w-]+ - supported types are:"),
         ("untagged enum", "Unknown quantization type"),
         sources=("huggingface/tokenizers (Exception: data did not match any variant of untagged enum ModelWrapper at "
                  "line 1 column ...) on Llama-3/Qwen2 tokenizers with tokenizers < 0.19",
                  "transformers quantizers/auto.py (ValueError: Unknown quantization type, got fp8 - supported types "
                  "are: [...])")),
    _sig("rope-scaling-newer-format", "version_check", "error", "root", "the model's rope_scaling is in a newer "
         "format than the installed library reads",
         "the checkpoint's config.json uses a RoPE scaling type or layout (rope_type 'llama3', 'yarn', 'longrope', "
         "'mrope') added after the installed transformers/vLLM release",
         "upgrade transformers (Llama 3.1 needs >=4.43) or vLLM to a release that knows the model, within the range "
         "the runner accepts; do not edit the model's rope_scaling",
         "`python -c 'import transformers; print(transformers.__version__)'` against the model card",
         (r"`rope_scaling` must be a dictionary with (?:with )?(?:two|2) fields, `type` and `factor`, got \{[^}\n]*'rope_type'",
          r"`rope_scaling`'s (?:type|name) field must be (?:one of|in) [^\n]{0,80}, got '?(?:llama3|yarn|longrope|su|"
          r"mrope|default|proportional)\b",
          r"Unknown RoPE scaling type:? '?(?:llama3|yarn|longrope|su|mrope|default|proportional)\b"),
         ("rope_scaling", "RoPE scaling"),
         sources=("foundation-model-stack/foundation-model-stack#384 (Llama 3.1: raised in configuration_llama.py "
                  "_rope_scaling_validation)", "meta-llama/llama3#299",
                  "ShmuelRonen/ComfyUI_ChatterBox_Voice#1 (`with with two fields`; maintainer: check the transformers "
                  "version)")),
    # ------------------------------------------------------------------ dataset_error
    _sig("dataset-error", "dataset_error", "error", "root", "the dataset could not be found or read",
         "the dataset name is not in dataset_info.json (often: the command ran from another working directory "
         "than the one with data/), its file is missing, or it is malformed",
         "run from the LLaMA-Factory checkout (cd into it; notebook `!cd` does not persist: use %cd) or set "
         "dataset_dir to an absolute path; check the entry's file_name and columns in dataset_info.json",
         "`python -m json.tool data/dataset_info.json` and `ls` the file the entry names",
         (r"Undefined dataset \S+ in \S+", r"Cannot open \S*dataset_info\.json", r"Cannot find valid samples",
          r"File \S+ not found\.?$", r"DatasetGenerationError", r"datasets\.exceptions\.\w+Error",
          r"Unable to find '[^']+'", r"dataset_info\.json.{0,80}(?:JSONDecodeError|Expecting)",
          r"jinja2\.exceptions\.UndefinedError: .{0,80}has no attribute '(?:content|role|from|value|messages)'",
          r"The model did not return a loss from the inputs",
          # explain-dist (issue 26): data files / records whose schema the loader cannot unify, and an empty
          # dataset reaching the sampler
          r"\bCastError: Couldn't cast\b", r"Couldn't cast array of type \S+ to \S+", r"because column names don't match",
          r"num_samples should be a positive integer value, but got num_samples=0",
          r"\bColumn '?\w+'? not in the dataset\b", r"Couldn't infer the same data file format for all splits",
          r"^(?:\[(?:rank|default)\d+\]:\s*)*KeyError: '(?:instruction|input|output|conversations|messages|prompt|"
          r"response|chosen|rejected|text|query|history|system|images?|label|labels|content|role|from|value|"
          # explain-dist (issue 26): a split the loaded dataset does not have (load_dataset(...)['train'])
          r"train|validation|test)'\s*$",
          # ex-ver (issue 26): ms-swift drops the rows it cannot preprocess (`There are errors in the dataset, the data
          # will be deleted`, the row's own error above it) and reports what is left; none left is the data's failure
          r"\bfiltered dataset length: 0\b",
          # h7-hip: a sample's media file (an image, audio or video a row points at) that is not there
          r"No such file or directory: '[^']+\.(?:jpe?g|png|webp|bmp|gif|tiff?|wav|mp3|flac|mp4|avi|mkv|webm)'",
          # h8-cfgerr (issue 26): `datasets`' own exception classes named bare (as many runners re-raise or log them),
          # its no-data-files refusal, and pandas failing to parse a CSV dataset
          r"\b(?:DatasetNotFound|DataFilesNotFound|EmptyDataset|DatasetGeneration|ExpectedMoreDownloadedFiles|"
          r"UnexpectedSplits|NonMatchingSplitsSizes|SplitsNotFound)Error\b|\bExpectedMoreSplits\b",
          r"No (?:\(supported\) )?data files (?:or dataset script )?found in ",
          r"Error tokenizing data\. C error: Expected \d+ fields in line \d+"),
         ("Undefined dataset", "dataset_info", "Cannot find valid samples", "not found", "DatasetGeneration",
          "datasets.exceptions", "Unable to find", "UndefinedError", "did not return a loss", "KeyError",
          "Couldn't cast", "column names don't match", "num_samples=0", "not in the dataset", "Couldn't infer",
          "filtered dataset length", "No such file or directory", "NotFoundError", "EmptyDatasetError",
          "DatasetGenerationError", "ExpectedMoreDownloadedFiles", "UnexpectedSplits", "NonMatchingSplitsSizes",
          "ExpectedMoreSplits", "data files", "Error tokenizing data"),
         sources=("calibration lf-7703 (ValueError: Undefined dataset mllm_demo in dataset_info.json.)",)),
    _sig("json-decode-error", "dataset_error", "error", "weak", "a JSON file (dataset, dataset_info.json or a "
         "config) is malformed",
         "a JSON file the run reads has a syntax error (dataset_info.json, a JSON/JSONL dataset, a DeepSpeed "
         "config)",
         "fix the syntax at the line/column the message gives (a trailing comma, a missing quote)",
         "`python -m json.tool FILE`",
         (r"JSONDecodeError: [A-Z][\w ]+: line \d+ column \d+", r"json\.decoder\.JSONDecodeError",
          # `datasets` reading JSON/JSONL through pyarrow, and its cast of mixed column types
          r"ArrowInvalid: JSON parse error", r"pyarrow\.lib\.Arrow(?:Invalid|TypeError)", r"DatasetGenerationCastError"),
         ("JSONDecodeError", "ArrowInvalid", "pyarrow.lib.Arrow", "DatasetGenerationCastError"),
         sources=("huggingface/datasets issues (pyarrow.lib.ArrowInvalid: JSON parse error: Missing a name for object "
                  "member.)",)),
    # ------------------------------------------------------------------ tokenizer_template
    _sig("template-error", "tokenizer_template", "error", "root", "the chat template is unknown or missing",
         "the YAML names a template LLaMA-Factory does not have (e.g. qwen2 — the Qwen2 family's template is "
         "`qwen`), or the tokenizer has no chat_template/pad token",
         "use the template name the runner lists for the model family (LLaMA-Factory: `template: qwen` for "
         "Qwen/Qwen2/Qwen2.5, llama3, mistral...), or give the tokenizer a chat_template / pad_token",
         "grep the name in LLaMA-Factory's src/llamafactory/data/template.py",
         (r"Template \S+ does not exist", r"chat_template is not set", r"does not have a padding token",
          r"Cannot use chat template functions", r"`?chat_template`? is (?:null|None|empty|missing)",
          r"[Nn]o chat template (?:is set|found|was found)"),
         ("Template ", "chat_template", "padding token", "chat template", "o chat template"),
         sources=("calibration lf-5453 (ValueError: Template qwen2 does not exist.)",)),
    # e-relabel (issue 26, FAMILIES.md amended rule 5 "symptom vs cause"): the embedding lookup's own kernel assert
    # (index_select: `indexSelectLargeIndex/SmallIndex ... Assertion `srcIndex < srcSelectDimSize` failed`, CUDA and
    # HIP alike) before the `device-side assert triggered`: a token id at or past the embedding's rows — tokens added
    # to the tokenizer without resizing the model's embeddings, or a tokenizer of another model (transformers#1848,
    # #24698). The device-side assert is its symptom (a consequence in the ranking)
    _sig("token-id-past-embedding", "tokenizer_template", "error", "root", "a token id is past the model's embedding "
         "table (the embedding lookup's kernel assert)",
         "the embedding lookup got an index >= its number of rows: tokens were added to the tokenizer (special tokens, "
         "a custom vocabulary) without resizing the model's embeddings, the tokenizer belongs to another model, or a "
         "pad/eos id is outside the vocabulary",
         "resize the embeddings to the tokenizer (model.resize_token_embeddings(len(tokenizer))) or load the "
         "tokenizer that belongs to the model; check max(input_ids) < model.config.vocab_size",
         "on the CPU the same batch raises `IndexError: index out of range in self` in torch.embedding",
         # CUDA's assert prints `...` ; HIP's device assert `Device-side assertion `srcIndex < srcSelectDimSize' failed.`
         (r"[Aa]ssertion `srcIndex < srcSelectDimSize['`] failed",),
         ("srcSelectDimSize",),
         sources=("huggingface/transformers#1848 (indexSelectLargeIndex ... Assertion `srcIndex < srcSelectDimSize` "
                  "failed. then CUDA runtime error (59) : device-side assert triggered)",
                  "huggingface/transformers#24698")),
    # ------------------------------------------------------------------ hf_cache_permission
    _sig("hf-cache-permission", "hf_cache_permission", "error", "root", "the Hugging Face cache is not readable/"
         "writable for this user",
         "files in a shared HF cache (model blobs, datasets lock files) were written mode 0600 (huggingface_hub "
         "writes blobs via a tempfile, ignoring the umask, before PR #1220) or belong to another user",
         "upgrade huggingface_hub; `chmod -R g+rw` the cache's blobs and lock files (and setgid the directories); "
         "or point HF_HOME / HF_DATASETS_CACHE at a cache of your own (also when several processes share one)",
         "`ls -l $HF_HOME/hub/models--*/blobs | head`: -rw------- marks the problem",
         (r"PermissionError: \[Errno 13\] Permission denied: '[^']*(?:huggingface|hf_home|/hub/|models--)[^']*'",
          r"-rw------- +\d+ +\S+ +\S+ +[\d.]+[KMGT]? +\w{3} +\d+ +[\d:]+ +[0-9a-f]{40,64}\s*$",
          r"Permission denied.{0,120}(?:huggingface|models--)",
          r"PermissionError: .{0,200}\.lock'?\s*$",
          # any cache a training run writes: HF/datasets/ModelScope, triton, torch extensions/inductor, MIOpen
          r"(?:Permission denied|Read-only file system)\W{0,4}'?[^'\n]{0,200}(?:/\.cache\b|_cache\b|/cache\b|\.triton\b|"
          r"/triton(?:/|_\w+)|torch_extensions|torchinductor|modelscope|miopen|HF_HOME|TRANSFORMERS_CACHE)",
          r"(?:cache|CACHE)[\w ]{0,40}(?:is not writable|not writable|isn't writable|cannot be written)",
          # explain-dist (issue 26): a tool that names the path first (`mkdir: cannot create directory '...':
          # Permission denied`), and transformers' own message when its cache folder cannot be written
          r"['\"\u2018]?/[^'\"\u2019\s]*(?:/\.cache\b|_cache\b|/cache\b|\.triton\b|/triton(?:/|_\w+)|torch_extensions|"
          r"torchinductor|modelscope|miopen|huggingface)[^'\"\u2019\s]*['\"\u2019]?: (?:Permission denied|Read-only file system)",
          r"There was a problem when trying to write in your cache folder"),
         ("Permission denied", "-rw-------", "PermissionError", "Read-only file system", "writable", "written",
          "write in your cache folder"),
         sources=("calibration hfhub-1215 (-rw------- 1 unj46ad six   665 Sep 14 19:08 "
                  "10c66461e4c109db5a2196bff4bb59be30396ed8)",)),
    # e-relabel (issue 26, FAMILIES.md amended rule 2 "device permission vs runtime"): the GPU's device nodes exist but
    # this user or container may not open them (/dev/kfd, /dev/dri/renderD*, /dev/dri/card*, /dev/nvidia*): the fix
    # is the permissions (render/video group, the host's render GID in the container, a udev rule), also when the
    # runtime then says it found no device. Moved here from no-gpu-visible (hip_error) with the relabel: the HIP
    # runtime's, ollama's, AMD SMI's and amd-smi's words for it
    _sig("gpu-device-permission", "hf_cache_permission", "error", "root", "this user may not open the GPU's device "
         "nodes (/dev/kfd, /dev/dri, /dev/nvidia*)",
         "the GPU device files exist but their permissions keep this process out: the user (or the container's user) "
         "is not in the group that owns them (render and video on ROCm), or the container maps another GID for "
         "that group; the runtime then sees no GPU",
         "add the user to the render and video groups (`sudo usermod -aG render,video $USER`, then log in again); in "
         "a container pass the host's render GID (`--group-add $(getent group render | cut -d: -f3)` / group_add) "
         "besides --device=/dev/kfd --device=/dev/dri; or a udev rule giving the nodes to a group the user is in",
         "`ls -l /dev/kfd /dev/dri/renderD*` and `id` as the user (and in the container) the run starts as",
         (r"Unable to open /dev/kfd.{0,60}(?i:permission denied)",
          # e-new17: crun/podman quote the node with backticks (`open \`/dev/kfd\`: Permission denied: OCI permission
          # denied`), runc/docker with double quotes; Apptainer's `while getting stat for /dev/kfd: permission denied`
          r"(?:/dev/kfd|/dev/dri\S*|/dev/nvidia\w*)[`'\"]?:? ?(?i:permission denied)",
          # nvidia-smi / NVML opening /dev/nvidia* without the rights (a rootless container, SELinux, a non-root user:
          # `Failed to initialize NVML: Insufficient Permissions`, nvidia-container-cli's `nvml error: insufficient
          # permissions`; NVIDIA/nvidia-container-toolkit#33, #210, NVIDIA/nvidia-docker#676)
          r"(?i:NVML: Insufficient Permissions|nvml error: insufficient permissions)",
          r"Permission denied:? '?/dev/(?:kfd|dri|nvidia)",
          r"(?:add|in) (?:you|your|the) ?(?:user|user account|account)? to the (?:render|video) group",
          r"not in the (?:render|video) group", r"is not member of \"?\w+\"? group, the default DRM access group",
          # amd-smi (ROCm 7): `User is missing the following required groups: render, video`, `Permission needed to
          # access required GPU device node(s):` (ROCm/amdsmi#125, #184)
          r"missing the following required groups: (?:\w+, )*(?:render|video)\b",
          r"Permission needed to access required GPU device node",
          # e-amd (issue 26): AMD SMI's exception (raised: vLLM/torch asked it for the GPU's arch) for a device file
          # it cannot read: amdsmi_status_t FILE_ERROR "Problem accessing a file", NO_PERM "Permission Denied" — the
          # render node is there but not reachable from this process (a user outside render/video, a container
          # whose render GID is not the host's). The other statuses stay hip-init-failed's weak cause
          r"AmdSmiLibraryException: Error code:\s*\d+ \| AMDSMI_STATUS_(?:FILE_ERROR|NO_PERM)\b",
          # e-amd: AmdSmiLibraryException.__str__ prints "Error code:\n\t{code} | {info}" (the status on its own
          # line) in ROCm 6.x, "An error occured with code: {code}({info})" before (amdsmi py-interface)
          r"^\s*\d+ \| AMDSMI_STATUS_" + _alt(_amd.AMDSMI_ACCESS_STATUSES) + r"\b",
          r"An error occured with code: \d+\(AMDSMI_STATUS_" + _alt(_amd.AMDSMI_ACCESS_STATUSES) + r"\b"),
         ("AmdSmiLibraryException", "AMDSMI_STATUS_", "/dev/kfd", "/dev/dri", "/dev/nvidia", "Insufficient Permissions", "insufficient permissions", "DRM access group",
          "render group",
          "video group", "required groups", "required GPU device node"),
         sources=("ROCm/ROCm-docker#116 (Unable to open /dev/kfd read-write: Permission denied)",
                  "ollama/ollama#7723, #6736 (permissions not set up properly. Either run ollama as root, or add you "
                  "user account to the render group. open /dev/kfd: permission denied)",
                  "ROCm/amdsmi#184 (/dev/dri/card1: Permission denied; owner=root(0):video(39);)")),
    _sig("permission-denied", "hf_cache_permission", "error", "weak", "a file or directory the run needs is not "
         "readable/writable for this user",
         "the process's user may not read or write a path the run uses (a model or data directory, the output "
         "directory, a cache under another user's HOME, a read-only mount)",
         "run as the user that owns the path or fix its mode (`chmod -R u+rw` / `chown`), point the run's output and "
         "caches (HF_HOME, TRITON_CACHE_DIR, output_dir) at a directory of your own; in containers mount it writable",
         "`ls -ld PATH` and `id` for the user the run starts as",
         (r"PermissionError: \[Errno 13\]", r"\[Errno 13\] Permission denied", r"Permission denied \(os error 13\)",
          r"OSError: \[Errno 30\] Read-only file system",
          # explain-dist (issue 26): coreutils and other tools (`mkdir: cannot create directory 'X': Permission denied`)
          r"\bcannot (?:create|open|touch|remove|access|write|make|stat|mkdir)\b.{0,200}: (?:Permission denied|"
          r"Read-only file system)\s*$"),
         ("PermissionError", "Errno 13", "os error 13", "Errno 30", "Permission denied", "Read-only file system"),
         sources=("huggingface/transformers#13472 class of reports ([Errno 13] Permission denied: '/.cache')",)),
    # ------------------------------------------------------------------ unrecognized_model_type_adapter
    _sig("unrecognized-model-type", "unrecognized_model_type_adapter", "error", "root", "transformers does not "
         "recognise the model directory",
         "the directory is a LoRA adapter (adapter_config.json, no config.json with model_type) loaded as a full "
         "model, or its model_type is newer than the installed transformers",
         "load the base model and apply the adapter (PeftModel.from_pretrained / LLaMA-Factory "
         "adapter_name_or_path), or merge it first (`llamafactory-cli export` with export_dir); for a new "
         "architecture upgrade transformers",
         "`ls DIR`: adapter_config.json without config.json means an adapter",
         (r"Unrecognized model(?: in \S+)?\s*\.?\s*Should have (?:a )?`?model_type`? key",
          r"Can't find 'adapter_config\.json'", r"Unrecognized configuration class .{0,200}for this kind of AutoModel"),
         ("Unrecognized model", "adapter_config.json", "Unrecognized configuration class"),
         sources=("seeds/004 (Unrecognized model ... model_type on a LoRA output)",
                  "hiyouga/LlamaFactory#9655 (ValueError: Unrecognized model in /. Should have a `model_type` key in "
                  "its config.json)")),
    # ------------------------------------------------------------------ checkpoint_resume_mismatch
    _sig("zero-world-size-mismatch", "checkpoint_resume_mismatch", "error", "root", "ZeRO checkpoint from another "
         "data-parallel world size",
         "the ZeRO optimizer shards were written by another number of data-parallel ranks; DeepSpeed cannot "
         "re-partition them",
         "resume with the same world size, or load the weights only (load_optimizer_states=False / "
         "no_load_optim) or consolidate with zero_to_fp32.py and start a fresh optimizer; DeepSpeed's "
         "universal checkpoint (ds_to_universal.py) converts across world sizes",
         "`ls CHECKPOINT/global_step*/` counts the *_optim_states.pt shards",
         (r"The checkpoint being loaded used a DP world size of (\d+) but the current world size is (\d+)",),
         ("DP world size",),
         sources=("calibration glm-136 (deepspeed.runtime.zero.utils.ZeRORuntimeException: The checkpoint being "
                  "loaded used a DP world size of 256 but the current world size is 2.)",)),
    _sig("state-dict-mismatch", "checkpoint_resume_mismatch", "error", "root", "checkpoint does not match the "
         "model (state_dict keys/shapes)",
         "the checkpoint was saved from another model, method (LoRA vs full) or config (vocab resized, other "
         "rank/targets) than the one resuming",
         "resume with the same model, method and LoRA settings as the checkpoint, or start without "
         "resume_from_checkpoint",
         "compare the checkpoint's config.json / adapter_config.json with the run's",
         (r"Error\(s\) in loading state_dict for \w+", r"size mismatch for [\w.]+: copying a param with shape",
          r"Can't find a valid checkpoint at \S+",
          # accelerate/transformers loading weights whose shape is not the model's (another vocab / variant)
          r"Trying to set a tensor of shape torch\.Size\(\[[\d, ]+\]\) in \"\w+\" \(which has shape",
          # torch's load_state_dict(strict=True) listing the keys, without the header line
          r"(?:Missing|Unexpected) key\(s\) in state_dict: \S",
          # explain-r2b: torchtune's own key checks when it loads a base model + adapter to resume
          # (torchtune/modules/peft/_utils.py validate_missing_and_unexpected_for_lora / validate_state_dict_for_lora)
          r"Missing LoRA key \S+ from adapter state dict", r"Unexpected key loading (?:adapter|base model)",
          r"Missing non-LoRA key \S+ from base model state dict",
          # torch.distributed.checkpoint (FSDP2 / torchtitan / DCP resumes): its load planner's strict checks
          # (torch/distributed/checkpoint/default_planner.py)
          r"Missing key in checkpoint state_dict: \S",
          r"Size mismatch between saved (?:torch\.Size\()?\[[\d, ]*\]\)? and current"),
         ("loading state_dict", "size mismatch for", "valid checkpoint at", "Trying to set a tensor of shape",
          "key(s) in state_dict", "Missing LoRA key", "Unexpected key loading", "Missing non-LoRA key",
          "Missing key in checkpoint", "Size mismatch between saved")),
    # explain-r2b (issue 26): DeepSpeed's load_checkpoint finds nothing to resume from: no `latest` tag file in the
    # directory, or the directory itself missing (deepspeed/runtime/engine.py load_checkpoint / _load_checkpoint).
    # Weak: a script may go on from scratch, so any failure after it is the cause.
    _sig("deepspeed-no-checkpoint", "checkpoint_resume_mismatch", "warning", "weak", "DeepSpeed found no checkpoint "
         "to resume from (no `latest` file / no checkpoint directory)",
         "the run asked DeepSpeed to resume, but the directory holds no DeepSpeed checkpoint: none was written yet "
         "(checkpoints saved rarely, or only model/LoRA exports were saved), the run died before `latest` was "
         "written, or the path points at another run or a Hugging Face model",
         "point the resume at a directory holding global_stepN/ and its `latest` file (or pass the tag "
         "explicitly: load_checkpoint(dir, tag='global_stepN')); save DeepSpeed checkpoints more often; to start "
         "from exported weights, load them as the model instead of resuming",
         "`ls RUN_DIR` shows global_step*/ and `cat RUN_DIR/latest`",
         (r"Unable to find latest file at \S+",
          r"Client provided checkpoint load path: \S+ does not exist"),
         ("Unable to find latest file", "Client provided checkpoint load path"),
         sources=("deepspeed/runtime/engine.py load_checkpoint (\"Unable to find latest file at {latest_path}, if "
                  "trying to load latest checkpoint please ensure this file exists or pass an explicit checkpoint "
                  "tag when loading a checkpoint.\")", "tdrussell/diffusion-pipe#73, #159", "lean-dojo/ReProver#71")),
    # ------------------------------------------------------------------ slurm
    _sig("slurm-time-limit", "slurm_time_limit_preemption", "error", "root", "Slurm cancelled the job (time "
         "limit / preemption / node failure)",
         "the scheduler ended the job: its --time ran out, a higher-priority job preempted it, or the node failed",
         "request more time (#SBATCH --time) or save checkpoints often (save_steps) and resume "
         "(resume_from_checkpoint) in a requeued job (#SBATCH --requeue, --signal=USR1@120)",
         "`sacct -j JOBID -o JobID,State,Elapsed,Timelimit`",
         (r"CANCELLED AT \S+ DUE TO (TIME LIMIT|PREEMPTION|NODE FAILURE)",
          r"DUE TO (TIME LIMIT|PREEMPTION|NODE FAILURE)",
          # without a reason: scancel or a preemption
          r"\*\*\* (?:JOB|STEP) [\d.]+ ON \S+ CANCELLED AT \S+",
          # r3-misc: the other schedulers' own time-limit kills (PBS/Torque MoM, IBM LSF's exit reason)
          r"job killed: walltime \d+ exceeded limit \d+", r"\bTERM_RUNLIMIT\b"),
         ("DUE TO ", "CANCELLED AT", "walltime", "TERM_RUNLIMIT"),
         sources=("ZettaAI/zetta_utils#671 (slurmstepd: error: *** JOB 494583 ON ... CANCELLED AT "
                  "2024-04-20T09:09:37 DUE TO TIME LIMIT ***)",)),
    # ------------------------------------------------------------------ shared memory (host_ram_oom)
    # before disk-full: `No space left on device` on /dev/shm is the shared memory, not the disk
    _sig("shm-exhausted", "host_ram_oom", "error", "root", "shared memory (/dev/shm) ran out: a DataLoader "
         "worker died with SIGBUS",
         "DataLoader workers pass batches through /dev/shm; a container's default /dev/shm (64 MB in Docker) or a "
         "full tmpfs is too small, so a worker is killed by a bus error",
         "give the container more shared memory (docker run --shm-size=16g or --ipc=host; Kubernetes: an emptyDir "
         "with medium: Memory at /dev/shm), or fewer DataLoader workers (dataloader_num_workers / "
         "preprocessing_num_workers)",
         "`df -h /dev/shm` inside the container",
         (r"is killed by signal: Bus", r"out of shared memory", r"unable to write to file </torch_\w+>",
          # e-host: not NCCL/RCCL's own segments (/dev/shm/nccl-*): nccl-shm-exhausted names those
          r"/dev/shm(?!/nccl-).{0,80}(?:No space left|full|too small)",
          r"No space left on device\W{0,4}'?/dev/shm", r"^(?:\S+: )?(?:line \d+: +)?(?:\d+ )?Bus error",
          r"总线错误",
          # torch/csrc/DataLoader.cpp's SIGBUS handler in the worker
          r"Unexpected bus error encountered in worker", r"insufficient shared memory \(shm\)",
          # explain-r2b: UCX's / ucs signal handler in NCCL's threads (`[host:pid :0:tid] Caught signal 7 (Bus error:
          # nonexistent physical address)`), MPI's exit string: the bus error named in words
          r"Caught signal 7 \(Bus error", r"Bus error \(signal 7\)"),
         ("signal: Bus", "shared memory", "</torch_", "/dev/shm", "Bus error", "总线错误", "bus error"),
         sources=("pytorch/pytorch#2244 class of reports: RuntimeError: DataLoader worker (pid 47) is killed by "
                  "signal: Bus error. It is possible that dataloader's workers are out of shared memory",
                  "msr-fiddle/pipedream#76 (Caught signal 7 (Bus error: nonexistent physical address) in ncclGroupEnd; "
                  "docker --shm-size)")),
    # e-relabel (issue 26, FAMILIES.md amended rule 3 "host memory vs collectives"): NCCL/RCCL could not create or grow
    # its shared-memory segment (/dev/shm/nccl-*: `failed to extend /dev/shm/nccl-XXXX to N bytes`, `Error while
    # creating shared memory segment /dev/shm/nccl-XXXX (size N)`, misc/shmutils.cc): the container's /dev/shm is too
    # small or full. The other ranks see an NCCL error or a timeout; the fix is more shared memory (--shm-size,
    # --ipc=host), so host_ram_oom, not the collective (NCCL_SHM_DISABLE=1 only hides it, slower)
    _sig("nccl-shm-exhausted", "host_ram_oom", "error", "root", "NCCL/RCCL could not allocate its shared-memory "
         "segment in /dev/shm",
         "the collective library's intra-node transport keeps its buffers in /dev/shm; a container's default /dev/shm "
         "(64 MB in Docker, a few MB in some CI pods) or a full tmpfs cannot hold them, so the communicator fails to "
         "start and the other ranks report an NCCL error or time out",
         "give the container more shared memory (docker run --shm-size=16g or --ipc=host; Kubernetes: an emptyDir "
         "with medium: Memory at /dev/shm) and clear stale /dev/shm/nccl-* files; NCCL_SHM_DISABLE=1 only works "
         "around it at a cost in speed",
         "`df -h /dev/shm` inside the container while it runs",
         (r"failed to extend /dev/shm/\S+ to \d+ bytes",
          r"Error while creating shared memory segment /dev/shm/\S+",
          r"shmutils\.cc:\d+.{0,80}(?:/dev/shm|shared memory)",
          # e-host (issue 26): NCCL/RCCL before 2.12 (transport/shm.cc's shmSetup: shm_open names without /dev/shm,
          # `nccl-shm-recv-<hash>-...`); any release's
          # segment a peer could not map for want of memory (`Error while attaching to shared memory segment ...,
          # error: No space left on device (28)`). A segment removed under NCCL (No such file) is nccl-shm-removed
          r"Error while creating shared memory segment (?:/dev/shm/)?nccl-\S+",
          r"Error while attaching to shared memory segment \S+ \(size \d+\), error: (?:No space left|Cannot "
          r"allocate memory|Bus error)",
          # e-hip4 (issue 26): shmutils.cc's other WARNs of a segment that could not be made or mapped for want of
          # room (`Error: failed to create shared memory file /dev/shm/nccl-XXXXXX, error No space left on device
          # (28)`, `Error: Could not map /dev/shm/nccl-XXXXXX size N, error: Cannot allocate memory (12)`).
          r"failed to create shared memory file /dev/shm/\S+,? error:? (?:No space left|Cannot allocate memory)",
          r"Could not map /dev/shm/\S+ size \d+, error: (?:No space left|Cannot allocate memory|Bus error)",
          # e-amd8 (issue 26): the same segment in NCCL 2.3-2.11 / RCCL (include/shm.h shmSetup and RCCL's
          # src/clique/ShmObject.h shmSetupExclusive: SYSCHECK(shm_allocate(fd, size), "posix_fallocate"), whose
          # SYSCHECKVAL (src/include/checks.h) WARNs `Call to posix_fallocate failed : <strerror>`): ENOSPC / ENOMEM
          # is the tmpfs behind /dev/shm full (profiles/collective_causes.py SHM_ALLOCATE_FAILED)
          _cc.SHM_ALLOCATE_FAILED),
         ("/dev/shm", "shared memory segment", "shmutils", "posix_fallocate"),
         sources=("NVIDIA NCCL troubleshooting guide, 'Shared memory' (failed to extend /dev/shm/nccl-03v824 to 4194660 "
                  "bytes)", "pytorch/torchtitan#853 (Error while creating shared memory segment /dev/shm/nccl-1YsMbG "
                  "(size 7340384))", "NVIDIA/nccl src/misc/shmutils.cc (2.12+) and src/transport/shm.cc (2.7-2.11): "
                  "`Error while %s shared memory segment %s (size %d)`")),
    # e-host (issue 26): NCCL/RCCL's segment in /dev/shm removed from under it while the job runs (`unlink shared
    # memory /dev/shm/nccl-d5rTd0 failed, error: No such file or directory`; a peer's attach failing with ENOENT):
    # systemd-logind's RemoveIPC=yes deletes a user's IPC objects when it sees the user's last session end (Slurm/PBS
    # jobs without a PAM session). Not a shortage of memory: the fix is the node's logind setting, a collective
    # transport problem (FAMILIES.md amended rule "Host memory vs collectives")
    _sig("nccl-shm-removed", "nccl_rccl_timeout_hang", "error", "root", "NCCL/RCCL's shared-memory segment was "
         "removed while the job ran (systemd RemoveIPC)",
         "systemd-logind removes a user's /dev/shm objects when it thinks the user logged out (RemoveIPC=yes, the "
         "default): batch jobs started without a login session lose NCCL/RCCL's segments, and the communicator fails",
         "set RemoveIPC=no in /etc/systemd/logind.conf on the compute nodes and restart systemd-logind (or run the "
         "job as a system user / with a PAM session); NCCL_SHM_DISABLE=1 avoids the segments at a cost in speed",
         "`loginctl show-user $USER` on the node while the job runs; the segment is gone from `ls /dev/shm`",
         (r"unlink shared memory /dev/shm/\S+ failed, error: No such file or directory",
          r"Error while attaching to shared memory segment /dev/shm/nccl-\S+ \(size \d+\), error: No such file"),
         ("unlink shared memory", "shared memory segment"),
         sources=("NVIDIA NCCL user guide, Troubleshooting > Shared memory > Systemd (NCCL WARN unlink shared memory "
                  "/dev/shm/nccl-d5rTd0 failed, error: No such file or directory; RemoveIPC=no)",
                  "NVIDIA/nccl src/misc/shmutils.cc (unlink shared memory %s failed, error: %s (%d))")),
    # explain-r2b (issue 26): SIGBUS named by a launcher or a signal handler, without the words of the worker's own
    # message. In training containers it is the shared memory, most often (NCCL's and the DataLoader's segments in a
    # 64 MB /dev/shm); weak: any specific cause in the log comes first. A bare `-7` stays the launcher's exit code.
    _sig("bus-error-signal", "host_ram_oom", "error", "weak", "a process died of SIGBUS (signal 7): most often "
         "/dev/shm too small",
         "a process touched a memory-mapped page that cannot be backed: in containers almost always a shared-memory "
         "segment (NCCL/RCCL transport buffers, DataLoader batches) beyond a small or full /dev/shm; rarely a file "
         "mapped from a disk that filled up or went away",
         "give the container more shared memory (docker run --shm-size=16g or --ipc=host; Kubernetes: an emptyDir "
         "with medium: Memory at /dev/shm) and check `df -h /dev/shm` is not full of stale files; or fewer DataLoader "
         "workers (dataloader_num_workers 0 to confirm)",
         "`df -h /dev/shm` inside the container while it runs",
         (r"Signal 7 \(SIGBUS\) received by PID", r"died with <Signals\.SIGBUS: 7>",
          r"terminated with signal:? ?SIGBUS\b", r"\*\*\* SIGBUS received at time=", r"\bkilled by signal SIGBUS\b",
          r"\bSIGBUS: bus error\b", r"srun: error: \S+: tasks? [\d,-]+: Bus error",
          # e-host (issue 26): zsh's and job control's report of a child killed by SIGBUS (`zsh: bus error  python
          # train.py`, `[1]    78714 bus error (core dumped)  python x.py`), Python's faulthandler (`Fatal Python
          # error: Bus error`), and a container's main process ended by SIGBUS (docker/compose: `exited with code
          # 135`, 128+7; the container's 64 MB /dev/shm default)
          r"^(?:zsh|bash|sh): (?:line \d+: +)?(?:\d+ )?bus error\b", r"^\[\d+\]\s+[+-]?\s*\d+ bus error\b",
          r"Fatal Python error: Bus error", r"\bexited with code 135\b",
          # IDEs' run console (PyCharm/IntelliJ: `Process finished with exit code 135 (interrupted by signal 7: SIGBUS)`)
          r"interrupted by signal 7: SIGBUS"),
         ("SIGBUS", "srun: error", "bus error", "Bus error", "code 135"),
         sources=("torch elastic's failure summary (traceback : Signal 7 (SIGBUS) received by PID ...)",
                  "subprocess.CalledProcessError (died with <Signals.SIGBUS: 7>)",
                  "odysseus-dev/odysseus#6259 (a 64 MB /dev/shm surfaces as exit code -7)")),
    # ------------------------------------------------------------------ disk_full_save
    # ex-num (issue 26): huggingface_hub checks the target's free space before a download and only warns; the write
    # that follows fails (or leaves a truncated file)
    _sig("hub-download-no-disk-space", "disk_full_save", "warning", "weak", "not enough free disk space for a "
         "model file download",
         "the Hugging Face cache (HF_HOME / cache_dir) is on a volume without room for the model's files",
         "point HF_HOME (or cache_dir / local_dir) at a volume with room, or free space; then download again",
         "`df -h ~/.cache/huggingface` (or $HF_HOME)",
         (r"Not enough free disk space to download the file",), ("Not enough free disk space",),
         sources=("huggingface_hub file_download.py _check_disk_space (UserWarning: Not enough free disk space to "
                  "download the file. The expected file size is: ... The target location ... only has ... free disk "
                  "space.)",)),
    _sig("disk-full", "disk_full_save", "error", "root", "no space left on device",
         "a write (usually a checkpoint: weights + optimizer states) filled the disk or the quota",
         "point output_dir at a volume with room, keep fewer checkpoints (save_total_limit), skip optimizer "
         "states (save_only_model: true) or save less often",
         "`df -h OUTPUT_DIR`; `du -sh OUTPUT_DIR/checkpoint-*`",
         (r"No space left on device", r"\[Errno 28\]", r"Disk quota exceeded", r"\[Errno 122\]",
          r"PytorchStreamWriter failed writing (?:file|central directory|record|\w)", r"inline_container\.cc.{0,40}unexpected pos \d+",
          r"StorageFull",
          # `datasets` checks the cache directory's free space before preparing a dataset; Rust's io error kinds
          # (safetensors) for a quota; ENOSPC as C tools and Node print it
          r"Not enough disk space\. Needed:", r"FilesystemQuotaExceeded", r"\bENOSPC\b",
          r"[Nn]o space left on device", r"database or disk is full", r"There is not enough space on the disk",
          r"No usable temporary directory found",
          # r3-misc: EFBIG — the file system's or `ulimit -f`'s largest file (FAT32/exFAT 4 GiB, a quota'd share):
          # `OSError: [Errno 27] File too large`, Rust's `code: 27, kind: FileTooLarge`
          r"\[Errno 27\] File too large", r"\bFileTooLarge\b",
          # r4-hw: Rust's io::Error (safetensors, tokenizers, hf-transfer) names the errno itself, whatever the
          # locale's text; glibc's strerror(ENOSPC) in the locales users post logs in (zh_CN, zh_TW, ja, ko, de, fr,
          # es, pt_BR, ru), which cp/tar/python print instead of `No space left on device`
          r"\(os error (?:28|122)\)",
          r"设备上没有空间|裝置上已無多餘空間|デバイスに空き領域がありません|장치에 남은 공간이 없음|"
          r"Kein Platz mehr auf dem Gerät|Aucun espace disponible sur le périphérique|No queda espacio en el dispositivo|"
          r"Não há espaço disponível no dispositivo|На устройстве не осталось свободного места|超出磁盘限额"),
         ("No space left", "Errno 28", "quota exceeded", "Errno 122", "PytorchStreamWriter failed",
          "inline_container", "StorageFull", "Not enough disk space", "FilesystemQuotaExceeded", "ENOSPC",
          "no space left", "disk is full", "not enough space on the disk", "temporary directory", "Errno 27",
          "FileTooLarge", "os error 28", "os error 122", "设备上没有空间", "裝置上已無多餘空間", "デバイスに空き領域がありません",
          "장치에 남은 공간이 없음", "Kein Platz mehr", "Aucun espace disponible", "No queda espacio",
          "Não há espaço disponível", "не осталось свободного места", "超出磁盘限额"),
         sources=("calibration dolly-139 (OSError: [Errno 28] No space left on device)",)),
    # ------------------------------------------------------------------ other families
    _sig("checkpoint-open-failed", "disk_full_save", "error", "weak", "torch.save could not create the "
         "checkpoint file",
         "PyTorch's checkpoint writer could not open the file for writing: the disk (or quota) is full, the "
         "directory does not exist on this node, or it is not writable",
         "`df -h` the output directory and free space (save_total_limit, save_only_model); create the directory "
         "on every node that saves; check it is writable by the job's user",
         "`df -h DIR; ls -ld DIR; touch DIR/x`",
         (r"(?:RuntimeError: )?File \S+ cannot be opened\.?\s*$", r"PyTorchFileWriter.{0,80}cannot be opened"),
         ("cannot be opened",),
         sources=("torch/serialization.py's _open_zipfile_writer (RuntimeError: File my_out/checkpoints/"
                  "checkpoint_0.pt cannot be opened.), ronin/ronin#51: a full disk after the first epoch",)),
    _sig("deepspeed-no-launcher", "config_error", "error", "root", "DeepSpeed started without a distributed "
         "launcher looks for MPI (mpi4py)",
         "a DeepSpeed config was given to a plain `python` process: without RANK/WORLD_SIZE from a launcher "
         "DeepSpeed tries to discover the ranks through MPI and needs mpi4py",
         "start through a launcher (`deepspeed train.py`, `torchrun --nproc_per_node N`, `accelerate launch`; "
         "axolotl: `accelerate launch -m axolotl.cli.train`), or `pip install mpi4py` only if MPI is meant",
         "`env | grep -E 'RANK|WORLD_SIZE'` in the training process",
         (r"No module named '?mpi4py'?",), ("mpi4py",), sources=("axolotl docs FAQ (single GPU + DeepSpeed)",)),
    _sig("weights-corrupt", "model_download", "error", "root", "model weights are incomplete or corrupt",
         "a weight file (safetensors / .bin) is truncated: an interrupted or partial download, a Git LFS pointer "
         "instead of the file, or a full disk while it was written",
         "download the model again (`huggingface-cli download REPO --local-dir DIR`, checking sizes/sha256 against "
         "the hub; `git lfs pull` in a cloned repo) and check free disk space",
         "`ls -l` the weight files against the sizes on the hub; `sha256sum` them",
         (r"SafetensorError: Error while deserializing header", r"MetadataIncompleteBuffer",
          r"PytorchStreamReader failed reading zip archive", r"_pickle\.UnpicklingError: invalid load key",
          r"incomplete metadata, file not fully covered",
          # huggingface_hub's size check after a download
          r"Consistency check failed: file should be of size \d+ but has size \d+",
          # h8-cfgerr (issue 26): safetensors' own header errors by name (a Git LFS pointer or an HTML page saved as
          # the weights: HeaderTooLarge / HeaderTooSmall / InvalidHeaderDeserialization) and the LFS pointer's own
          # text wherever a loader prints it; as users retype them too (lower case)
          r"\bHeaderToo(?:Large|Small)\b", r"\bInvalidHeaderDeserialization\b",
          r"version https://git-lfs\.github\.com/spec/v1",
          # transformers failing to unpickle a .bin it found (an LFS pointer / partial file)
          r"Unable to load weights from pytorch checkpoint file"),
         ("SafetensorError", "MetadataIncompleteBuffer", "PytorchStreamReader", "invalid load key",
          "file not fully covered", "Consistency check failed", "HeaderToo", "InvalidHeaderDeserialization",
          "git-lfs.github.com", "Unable to load weights"), ignorecase=True,
         sources=("h2oai/h2o-llmstudio#860 (OSError: Consistency check failed: file should be of size 4999819336 "
                  "but has size ...)",)),
    _sig("missing-package", "missing_package", "error", "root", "a Python package is missing",
         "the environment lacks a module the run imports",
         "install it in the environment that runs training (pip install NAME; for LLaMA-Factory extras "
         "`pip install -e .[deepspeed,metrics]`)",
         "`python -c 'import NAME'` in the same environment",
         # FAMILIES.md: a package that is not installed is missing_package, flash-attn included (remote code's
         # check_imports lists it when the modeling file imports it)
         (r"requires the following packages that were not found in your environment: [\w-]+",
          r"requires the [\w.-]+ library but it was not found in your environment",
          r"[Pp]lease install (?:the )?`[\w.-]+` package",
          # issue 26 (ex-ver): only a top-level module is a missing package. `No module named 'a.b'` means Python
          # imported `a` and it has no `b`: another release or build of `a` (triton.ops removed under an older
          # bitsandbytes, transformers.modeling_flash_attention_utils): import-name-mismatch. Namespace roots
          # (google., nvidia., ...) are shared by separate distributions, there the sub-package is the package.
          r"(?:ModuleNotFoundError|ImportError): No module named '?(?!mpi4py)(?!(?!" + _NAMESPACE_ROOTS + r")\w+\.)"
          r"([\w.]+)'?",
          # ex-ver: transformers' lazy import (`Failed to import X because of the following error (look up to see its
          # traceback):`) prints the cause on a line of its own, without the exception's name
          r"^(?:\S+ )?(?:\[(?:rank|default)\d+\]:\s*)?No module named '(?!mpi4py)(?!(?!" + _NAMESPACE_ROOTS +
          r")\w+\.)([\w.]+)'\s*$",
          # e-g8: LLaMA-Factory's loader logging the exception AutoProcessor raised (model/loader.py load_tokenizer:
          # `Failed to load processor: {e}.`), before mm_plugin's `Processor was not found` (processor-not-found)
          r"\bFailed to load processor: No module named '(?!mpi4py)(?!(?!" + _NAMESPACE_ROOTS + r")\w+\.)([\w.]+)'",
          # importlib.metadata asked for a distribution that is not installed (transformers' version probes)
          r"PackageNotFoundError: (?:No package metadata was found for )?\S",
          r"(?:ImportError|ModuleNotFoundError|RuntimeError|OSError): .{0,120}\b(?:is|are) not installed\b(?!.{0,40}flash)",
          r"(?:ImportError|ModuleNotFoundError): .{0,200}(?:[Pp]lease|[Yy]ou (?:need|must|should)) (?:to )?(?:install|run "
          r"`?pip install)\b(?!.{0,80}(?:>=|==|~=|upgrade|latest|version))",
          r"custom CUDA extension \w+ module is not found", r"install (?:APEX|apex|Apex) with --cpp_ext",
          # r3-ver (issue 26): setuptools' pkg_resources (console-script entry points of older installs):
          # `pkg_resources.DistributionNotFound: The 'tqdm>=4.27' distribution was not found and is required by ...`
          r"DistributionNotFound: The '[^']+' distribution was not found"),
         ("No module named", "not found in your environment", "install the", "install `", "PackageNotFoundError",
          "not installed", "module is not found", "--cpp_ext", "DistributionNotFound"),
         sources=("transformers' check_imports for remote code (ImportError: This modeling file requires the "
                  "following packages that were not found in your environment: einops)",)),
    # e-hip4 (issue 26): the AMD attention stacks' own refusals (PyTorch's ROCm SDPA: AOTriton and its CK backend;
    # ROCm/flash-attention's CK build): the kernels were not built for this GPU/dtype/head dim/option; the fix is
    # another attention implementation (FAMILIES.md hip_error vs flash_attn_error). Texts: profiles/amd_attention.py
    _sig("amd-attention-refused", "flash_attn_error", "error", "root", "the ROCm attention kernels refuse this "
         "GPU or input",
         "PyTorch's fused SDPA on ROCm (AOTriton, or its CK backend) or ROCm flash-attention's CK kernels check the "
         "GPU architecture, dtype, head dimension and options before they run; this card or input is outside what "
         "they were built for, so the attention call fails while every other op runs",
         "run attention without those kernels: attn_implementation='eager' (or 'sdpa' instead of "
         "flash_attention_2), torch.backends.cuda.enable_flash_sdp(False) and enable_mem_efficient_sdp(False) for "
         "PyTorch's SDPA, another vLLM attention backend; on gfx1100/gfx1201-class cards a torch whose AOTriton "
         "lists the card (TORCH_ROCM_AOTRITON_ENABLE_EXPERIMENTAL=1 on experimental archs); fp16/bf16 and head dim "
         "<= 256 for CK flash-attention",
         "`python -c \"import torch;print(torch.cuda.get_device_properties(0).gcnArchName)\"` against the list "
         "in the message",
         (*_amdattn.TORCH_ROCM_SDPA_REFUSALS, *_amdattn.CK_FLASH_REFUSALS),
         _amdattn.KEYWORDS,
         sources=("pytorch/pytorch aten/src/ATen/native/transformers/hip/attention.hip ([AOTriton] Accelerated SDPA "
                  "only supports ...)", "ROCm/flash-attention csrc/flash_attn_ck/mha_fwd.cpp (FlashAttention only "
                  "supports AMD MI200 GPUs or newer.; CK only supports head dimension at most 256)")),
    _sig("flash-attn-error", "flash_attn_error", "error", "root", "FlashAttention is not usable here",
         "flash_attn is missing, built for another torch/CUDA/ROCm, or not supported on this GPU (gfx906, "
         "consumer cards)",
         "use sdpa or eager attention (LLaMA-Factory flash_attn: sdpa / disabled) or install a flash-attn "
         "built for this torch and GPU",
         "`python -c 'import flash_attn'`",
         # e-relabel (FAMILIES.md amended rule 1): not flash-attn's `.so: undefined symbol` — a wheel built for another
         # torch/ROCm/CUDA, fixed by the matching wheel: extension-abi-mismatch (version_check) reads it
         # e-ver2 (issue 26): not transformers' reason that names the installed release (modeling_utils.py
         # _check_and_enable_flash_attn_2: `you need flash_attn package version to be greater or equal than 2.1.0.
         # Detected version 2.0.4` -> version-required). Its `the package flash_attn seems to be not installed` stays
         # here: where flash-attn cannot be installed (most ROCm GPUs) the fix is another attention implementation
         (r"FlashAttention2 has been toggled on, but it cannot be used(?! due to the following error: you need "
          r"flash_attn package version)",
          r"FlashAttention only supports Ampere GPUs or newer",
          r"(?:Failed to build|Failed building wheel for|Building wheel for|Running setup\.py install for|"
          r"Could not build wheels for) ['\"]?flash[-_]attn\b(?!.*\.\.\. done\s*$).{0,120}(?:error|fail|required|$)",
          r"Failed to build installable wheels for some pyproject\.toml based projects \(?[^)\n]*flash[-_]attn",
          r"DLL load failed while importing flash_attn\w*", r"No operator found for `memory_efficient_attention_\w+`",
          # composable_kernel's attention kernels refusing the arch/shape (ROCm flash-attention on gfx906, RDNA)
          r"Device\w*(?:Attention|Fmha|FMHA)\w*<.{0,600}> does not support this problem",
          r"[Ff]lash[-_ ]?[Aa]ttention\w*.{0,80}(?:not supported|unsupported|only supports).{0,80}(?:gfx|GPU|arch|ROCm|HIP)",
          r"flash_attn\S*: cannot open shared object", r"No module named '?flash_attn_\w*cuda",
          r"does not support Flash Attention 2\.0 yet",
          r"flash_attn\S*\.whl is not a supported wheel on this platform",
          # ROCm/flash-attention's setup.py validate_and_update_archs: the arch first, then the verdict
          r"(?:is invalid or )?not supported by [Ff]lash[-_ ]?[Aa]ttention",
          # PyTorch's SDPA with no usable fused kernel for this GPU/dtype/shape
          r"No available kernel\. Aborting execution", r"Could not run 'aten::_(?:scaled_dot_product_)?flash_attention",
          r"(?:Error|Exception): (?:FlashAttention|flash_attn)\w*\b(?! has been toggled)",
          # vLLM/ROCm's Triton flash-attention kernel failing to compile for the GPU (gfx906, RDNA3)
          r"(?:error: )\S*flash_attention\w*\.py:\d+:\d+: |\S*flash_attention\w*\.py:\d+:\d+: error:"),
         ("FlashAttention", "flash_attn", "flash-attn", "No available kernel", "memory_efficient_attention", "does not support this problem", "lash Attention", "lash-Attention", "lash_Attention",
          "lash-attention", "lash_attention", "lash attention"),
         sources=("ROCm/flash-attention#37, #93 (One of GPU archs of ['gfx908'] is invalid or not supported by "
                  "Flash-Attention)", "vllm-project/vllm#9319, #4514 (triton_flash_attention.py:211:0: error: stack "
                  "frame size exceeds limit)", "Dao-AILab/flash-attention (FlashAttention only supports Ampere GPUs "
                  "or newer)")),
    _sig("extension-abi-mismatch", "version_check", "error", "root", "a compiled extension was built against "
         "another PyTorch",
         "a native extension (.so) refers to a C++ symbol the installed PyTorch does not export: it was built or "
         "downloaded for another torch version (or CUDA/ROCm build) than the one installed",
         "reinstall the extension built for the installed torch (a wheel matching torch's version and CUDA/ROCm, "
         "or `pip install --no-build-isolation --no-cache-dir` to rebuild it against it)",
         "`python -c 'import torch;print(torch.__version__)'` against the extension's wheel tag",
         (r"\.so\S*: undefined symbol: _Z\w+", r"^undefined symbol: _Z\w+",
          r"(?:site|dist)-packages/\S+\.(?:cpython-\d+\S*|abi3)\.so\S*: undefined symbol: \w+",
          # h7-ver (issue 26): the dynamic loader's own words for any binary or library whose build does not match
          # the libraries it runs with — a C symbol too (`libbitsandbytes_rocm72.so: undefined symbol:
          # hsa_amd_memory_get_preferred_copy_engine` under a torch bundling ROCm 6.3), and a program's `symbol
          # lookup error` (ROCm 2.2 binaries on ROCm 2.3, ROCm/hip#1026)
          r"\bsymbol lookup error: (?:\S+: )?undefined symbol: \w+",
          r"\.so(?:\.\d+)*: undefined symbol: \w+",
          # h7-ver: the same in Windows' and macOS' loaders' words (ERROR_PROC_NOT_FOUND, dyld), and torchvision's own
          # check of its compiled ops (torchvision/extension.py) and an extension op with no GPU kernel under a GPU
          # torch (a CPU build of torchvision/torchaudio/an extension next to a CUDA/ROCm torch)
          r"\[WinError 127\]", r"DLL load failed[^\n]{0,80}: The specified procedure could not be found",
          r"\bSymbol not found: _\w+", r"Couldn't load custom C\+\+ ops\. This can happen if your PyTorch and "
          r"\w+ versions are incompatible",
          r"Could not run '(?!aten::)\w+::\w+' with arguments from the '(?:CUDA|HIP)' backend",
          # numpy 2 under extensions built for numpy 1; torchvision built for another torch
          r"numpy\.core\.multiarray failed to import", r"_ARRAY_API not found",
          r"numpy\.dtype size changed, may indicate binary incompatibility",
          r"operator torchvision::\w+ does not exist",
          r"PyTorch and torchvision were compiled with different CUDA (?:major )?versions",
          # e-ver (issue 26): the same check in the other extensions that copy torchvision's (torch_scatter/
          # torch_sparse/torch_cluster's __init__: `Detected that PyTorch and torch_scatter were compiled with
          # different CUDA versions. PyTorch has CUDA version 11.8 and torch_scatter has CUDA version 12.1.`)
          r"PyTorch and (?!torchvision\b)[\w-]+ were compiled with different (?:CUDA|ROCm|HIP) (?:major )?versions",
          r"module compiled against (?:ABI|API) version \w+ but this version of numpy is \w+",
          # protobuf 4 prints both spellings ("cannot not be" in its older releases)
          r"was removed in the NumPy 2\.0 release", r"Descriptors cannot (?:not )?be created directly",
          # e-ver: an extension asking the loader for one of torch's own libraries that the installed torch does not
          # ship — the CUDA build's libtorch_cuda/libc10_cuda under a ROCm torch (libtorch_hip/libc10_hip there) or
          # the reverse, or torch 1.x's libtorch_cuda_cu/libtorch_cuda_cpp gone since 2.0: it was built for another
          # torch build (pyg-team/pytorch_geometric#8365, Looong01/pyg-rocm-build#1, pytorch/pytorch#139410)
          r"\b(?:libtorch_(?:cuda(?:_cu|_cpp)?|hip)|libc10_(?:cuda|hip)|libcaffe2_nvrtc)\.so[\d.]*: cannot open shared "
          r"object file"),
         ("undefined symbol", "NumPy 1.x", "multiarray failed", "binary incompatibility", "torchvision::",
          "WinError 127", "procedure could not be found", "Symbol not found", "custom C++ ops", "Could not run '",
          "torchvision were compiled", "were compiled with different", "this version of numpy", "NumPy 2.0",
          "Descriptors cannot", "_ARRAY_API",
          "cannot open shared object file"),
         sources=("Dao-AILab/flash-attention issues (flash_attn_2_cuda...so: undefined symbol: _ZN3c104cuda9SetDeviceEi)",
                  "vllm/xformers/torchvision threads: an extension wheel of another torch")),
    _sig("torch-compile-error", "config_error", "error", "root", "torch.compile / Triton could not compile a "
         "kernel for this GPU",
         "the compiler stack (TorchInductor, Triton, LLVM/hipcc) failed for this GPU: a Triton that does not match "
         "the PyTorch build (pytorch-triton-rocm vs triton), an architecture the compiler does not support "
         "(consumer RDNA, older gfx9), or a missing toolchain",
         "run without compilation (torch_compile: false / drop --torch_compile; TORCHDYNAMO_DISABLE=1) or install "
         "the Triton that matches the PyTorch build (pytorch-triton-rocm for ROCm wheels, uninstall a stray "
         "`triton`); on consumer AMD cards keep eager mode",
         "`python -c 'import torch, triton; print(torch.__version__, torch.version.hip, triton.__version__)'`",
         # explain-dist (issue 26): not when what the compiler wrapper re-raises is a PermissionError (a path the
         # user may not read, e.g. a root-only directory on PATH): that is the permission, the compiler is fine
         # issue 26 (ex-ver): nor when it re-raises an import failure: a Triton without the name torch imports is
         # the versions (unsloth#3526), read by import-name-mismatch
         (r"BackendCompilerFailed(?!.*(?:PermissionError|Permission denied|ImportError|cannot import name))",
          r"torch\._inductor\.exc\.\w+(?!.*(?:PermissionError|Permission denied))",
          r"\bInductorError\b(?!.*(?:PermissionError|Permission denied))",
          r"triton\.compiler\.errors\.\w+", r"^(?:\w+\.)*CompilationError: at \d+:\d+",
          r"Internal Triton \w+ codegen error", r"^LLVM ERROR: ", r"Failed to translate TritonGPU to LLVM IR",
          r"HIPRTC_ERROR_COMPILATION", r"torch\._dynamo\.exc\.\w+Error",
          r"triton.{0,80}(?:does not support|unsupported).{0,40}(?:gfx|arch|target)",
          # a Triton kernel that does not fit this GPU (shared memory / registers), or built for another one
          r"triton\.runtime\.errors\.OutOfResources", r"Triton Error \[CUDA\]",
          # e-g4: Triton's OutOfResources as every release prints it (triton/runtime/errors.py: `out of resource:
          # {name}, Required: {required}, Hardware limit: {limit}`), under any module path (triton.runtime.autotuner,
          # triton.compiler.compiler) or bare, re-raised by inductor
          r"(?:^|[\s:.])OutOfResources: out of resource: \w[\w ]*, Required: \d+",
          # r3-hip: on ROCm only a launch that asks for too many resources is the kernel's config; the HIP runtime's
          # other errors through Triton's launcher are the runtime's (hip_error signatures, oom)
          r"Triton Error \[HIP\]:\s*(?:Code: \d+, Messsage: )?too many resources"),
         ("OutOfResources", "Triton Error", "BackendCompilerFailed", "torch._inductor.exc", "InductorError", "triton.compiler.errors",
          "CompilationError", "codegen error", "LLVM ERROR", "TritonGPU", "HIPRTC_ERROR_COMPILATION",
          "torch._dynamo.exc", "triton"),
         sources=("ROCm/legacy-rocm-build#3060 (torch._dynamo.exc.BackendCompilerFailed: backend='inductor' raised: "
                  "RuntimeError: Internal Triton PTX codegen error, RX 7900 XTX)", "pytorch/pytorch#101137")),
    _sig("transformers-too-old", "unrecognized_model_type_adapter", "error", "root", "the installed transformers does not know "
         "this model (type or tokenizer class)",
         "the model's model_type / tokenizer class is newer than the installed transformers (e.g. KeyError: 'qwen2' "
         "before transformers 4.37)",
         "upgrade transformers to a release that has the model (the model card states the minimum), within the "
         "range the runner accepts (LLaMA-Factory checks it at start)",
         "`python -c 'import transformers; print(transformers.__version__)'` against the model card",
         (r"^(?:\[(?:rank|default)\d+\]:\s*)*KeyError: '(?:qwen\d\w*|gemma\w*|recurrent_gemma|jamba|dbrx|granite\w*|"
          r"nemotron\w*|llama4\w*|mllama|deepseek_v\d\w*|mistral3|mixtral|phi\d\w*|olmo\d?\w*|glm4?\w*|cohere\d?|starcoder2|internlm\d?\w*|minicpm\w*)'\s*$",
          # e-g910: the message wraps after `does not` in some pastes (configuration_auto.py's f-string)
          r"has model type `?[\w-]+`? but Transformers does not(?: recognize this architecture|\s*$)",
          r"Tokenizer class \w+ does not exist or is not currently imported"),
         ("KeyError: '", "but Transformers does not", "is not currently imported"),
         sources=("QwenLM/Qwen3#434 (transformers 4.32: KeyError: 'qwen2')", "QwenLM/Qwen3#266 (KeyError: 'qwen2_moe')")),
    # explain-dist (issue 26): the runner's model registry not knowing the model is the same fact as transformers not
    # knowing it (transformers-too-old): unrecognized_model_type_adapter, as lf-8139 (KeyError: 'qwen3') is
    _sig("runner-model-type-unknown", "unrecognized_model_type_adapter", "error", "root", "the training framework does not know "
         "this model type",
         "the runner (ms-swift, LLaMA-Factory template/model registry) is older than the model, or the model "
         "directory's name does not tell it the type",
         "upgrade the runner (ms-swift: `pip install -U ms-swift` or its main branch) or pass the model type "
         "explicitly (ms-swift --model_type, from the list the error prints)",
         "the runner's supported-models list for its installed version",
         (r"model_type: '[\w.-]+' is not registered", r"model_type: '[\w.-]+' not in \[",
          r"Please explicitly pass the model_type",
          # r3-ver (issue 26): vLLM's model registry (vllm/model_executor/models/registry.py) older than the model
          r"Model architectures? \[[^\]\n]*\] (?:are|is) not supported for now",
          # r3-ver: unsloth's loader (unsloth/models/loader.py) for a model type its release does not patch
          r"Unsloth: [\w./-]+ not supported yet!"),
         ("is not registered", "model_type: '", "explicitly pass the model_type", "not supported for now",
          "not supported yet"),
         sources=("modelscope/ms-swift#2676 (ValueError: model_type: 'internvl2_5-38b' is not registered.)",
                  "modelscope/ms-swift#3004", "modelscope/ms-swift#2891")),
    # e-g8 (issue 26): LLaMA-Factory's multimodal plugin checking that a processor was loaded for a multimodal template
    # (src/llamafactory/data/mm_plugin.py _validate_input: `Processor was not found, please check and update your model
    # file.`, and the image/video processor and audio feature extractor; `... your processor config.` before 2025-04).
    # The processor is None because transformers' AutoProcessor could not build one for the model directory
    # (model/loader.py load_tokenizer logs it only at info level: `Failed to load processor: ...`): a model newer
    # than the installed transformers (lf#9458: Qwen3-VL on 4.55), as lf-8139/lf-9178's KeyError for the config
    _sig("processor-not-found", "unrecognized_model_type_adapter", "error", "root", "no processor could be loaded "
         "for the multimodal model",
         "the installed transformers cannot build this model's processor (image/video processor, feature "
         "extractor): the model is newer than the installed transformers, or the model directory lacks its "
         "processor files (preprocessor_config.json, processor_config.json / chat_template.json, e.g. a merged or "
         "exported checkpoint that did not copy them)",
         "upgrade transformers to a release that has the model (the model card states the minimum; within the range "
         "the runner accepts); if transformers already knows it, copy the processor files from the base model into "
         "the model directory; for a text-only model use its text template instead of a multimodal one",
         "`python -c \"from transformers import AutoProcessor; AutoProcessor.from_pretrained('MODEL_DIR')\"` prints "
         "why (LLaMA-Factory logs it only as `Failed to load processor: ...`)",
         (r"(?:\b(?:Image|Video) p|\bP)rocessor was not found, please check and update your (?:model file|processor "
          r"config)",
          r"\bAudio feature extractor was not found, please check and update your (?:model file|processor config)"),
         ("rocessor was not found", "feature extractor was not found"),
         sources=("hiyouga/LlamaFactory#9458 (ValueError: Processor was not found, please check and update your "
                  "model file., transformers 4.55 with Qwen3-VL)", "src/llamafactory/data/mm_plugin.py")),
    _sig("deepspeed-batch-mismatch", "config_error", "error", "root", "DeepSpeed batch sizes do not multiply up",
         "the DeepSpeed config's train_batch_size is not micro_batch x gradient_accumulation x the world size the "
         "launcher really started (often: fewer GPUs visible than the config assumed)",
         "set train_batch_size, train_micro_batch_size_per_gpu and gradient_accumulation_steps to \"auto\" in the "
         "DeepSpeed JSON when the HF Trainer / LLaMA-Factory drives it, or make them multiply up for the real world size",
         "the three numbers after `!=` are micro batch, accumulation and world size as DeepSpeed saw them",
         (r"Check batch related parameters\. train_batch_size is not",
          # explain-dist (issue 26): the other checks of deepspeed/runtime/config.py on the same three numbers
          r"(?:Train batch size|Micro batch size per gpu|Gradient accumulation steps): -?\d+ has to be greater than 0",
          r"Either train_batch_size or (?:train_)?micro_batch_(?:size_)?per_gpu needs to be provided"),
         ("Check batch related", "has to be greater than 0", "needs to be provided"),
         sources=("deepspeedai/DeepSpeed#6914", "hiyouga/LlamaFactory#2574")),
    _sig("fp16-unscale-gradients", "config_error", "error", "root", "fp16 mixed precision with fp16 trainable "
         "weights",
         "the gradient scaler refuses fp16 gradients: the trainable (LoRA) weights were loaded in fp16 while the "
         "trainer runs fp16 mixed precision, which needs fp32 master weights",
         "keep trainable weights in fp32 (load the model in fp32 or cast the LoRA parameters to float32; PEFT's "
         "autocast_adapter_dtype), or train in bf16 where the GPU has it natively",
         "print the dtype of the trainable parameters before training",
         (r"Attempting to unscale FP16 gradients",), ("unscale FP16",),
         sources=("haotian-liu/LLaVA#363", "2U1/Qwen-VL-Series-Finetune#184 (V100, fp16, LoRA)")),
    _sig("inputs-no-grad", "config_error", "error", "root", "the loss has no gradient (nothing trainable "
         "reached it)",
         "with gradient checkpointing and a frozen base model (LoRA), the checkpointed inputs do not require grad, "
         "or no parameter is trainable (LoRA targets matched nothing)",
         "call model.enable_input_require_grads() (HF Trainer / LLaMA-Factory do for PEFT) or use non-reentrant "
         "checkpointing (use_reentrant: False); check that LoRA targets exist in the model",
         "the `trainable params:` line must show a non-zero count",
         (r"element 0 of tensors does not require grad and does not have a grad_fn",), ("does not require grad",),
         sources=("LlamaChinese/Llama-Chinese#242", "datawhalechina/self-llm#229")),
    # e-benign (issue 26): torch/utils/checkpoint.py check_backward_validity warns (and goes on) when no input of a
    # reentrant-checkpointed block requires grad: with the embeddings frozen (LoRA, a frozen base) no gradient reaches
    # the checkpointed layers, so their adapters never train — a warning that IS a cause (the weak tier: any named
    # failure of the run comes first; WARNING_CAUSES keeps it out of the harmless Python warnings)
    _sig("checkpoint-inputs-no-grad", "config_error", "warning", "weak", "gradient checkpointing got inputs that "
         "need no gradient: the checkpointed layers do not train",
         "reentrant gradient checkpointing (use_reentrant=True, the default before torch 2.4's warning) with frozen "
         "embeddings: the blocks' inputs do not require grad, so backward skips the checkpointed layers and their "
         "LoRA/trainable weights get no gradient (the loss stays flat, or backward fails with `element 0 of tensors "
         "does not require grad`)",
         "call model.enable_input_require_grads() before training (HF Trainer/PEFT prepare_model_for_kbit_training "
         "do), or use non-reentrant checkpointing (gradient_checkpointing_kwargs={'use_reentrant': False})",
         "the grad norm of the trainable parameters after the first backward is non-zero",
         (r"None of the inputs have requires_grad=True\. Gradients will be None",), ("None of the inputs",),
         sources=("pytorch torch/utils/checkpoint.py check_backward_validity (warnings.warn(\"None of the inputs have "
                  "requires_grad=True. Gradients will be None\"))",)),
    _sig("lora-target-not-found", "config_error", "error", "root", "LoRA target modules are not in the model",
         "the lora_target names (q_proj,v_proj) do not exist in this architecture (Baichuan: W_pack; ChatGLM: "
         "query_key_value; multimodal models: language_model prefixes)",
         "use lora_target: all (LLaMA-Factory) or the model's own module names (print the model's named_modules)",
         "`python -c \"...; print({n.split('.')[-1] for n, _ in model.named_modules()})\"`",
         (r"Target modules .{0,400}not found in the base model",), ("not found in the base model",),
         sources=("hiyouga/LlamaFactory#43, #1785 (ValueError: Target modules {'q_proj', 'v_proj'} not found in the "
                  "base model.)",)),
    # h7-ver (issue 26): the FSDP auto-wrap policy's layer class is not a module of this model (accelerate's
    # FullyShardedDataParallelPlugin: `Exception: Could not find the transformer layer class to wrap in the model.`,
    # newer releases name it: `... class LlamaDecoderLayer in the model.`): the config names another architecture's
    # decoder layer (fsdp_transformer_layer_cls_to_wrap copied from an example)
    _sig("fsdp-wrap-class-not-found", "config_error", "error", "root", "the FSDP wrap class is not a layer of this "
         "model",
         "fsdp_transformer_layer_cls_to_wrap (accelerate config / TrainingArguments fsdp_config) names a decoder-layer "
         "class this model does not have (an example's LlamaDecoderLayer on a Qwen2/Gemma/Mistral model)",
         "set it to this model's decoder-layer class (Qwen2DecoderLayer, MistralDecoderLayer, ...: print "
         "type(model.model.layers[0]).__name__), or use fsdp_auto_wrap_policy: TRANSFORMER_BASED_WRAP without a class "
         "so accelerate reads the model's _no_split_modules",
         "`python -c \"...; print(type(model.model.layers[0]).__name__)\"` against the config's class name",
         (r"Could not find the transformer layer class (?:to wrap|\w+) in the model",),
         ("transformer layer class",),
         sources=("huggingface/accelerate utils/dataclasses.py FullyShardedDataParallelPlugin (Exception: Could not "
                  "find the transformer layer class to wrap in the model.)",)),
    _sig("hf-hub-unreachable", "model_download", "error", "root", "the model/tokenizer could not be fetched from "
         "the Hugging Face Hub",
         "no network to huggingface.co from this machine (or a gated/private repo without a token) and the files "
         "are not in the local cache",
         "download ahead (`huggingface-cli download REPO --local-dir DIR`, or ModelScope) and point "
         "model_name_or_path at the local directory; HF_HUB_OFFLINE=1 with a warm cache; HF_ENDPOINT for a mirror; "
         "`huggingface-cli login` for gated repos",
         "`ls $HF_HOME/hub` for the repo; `curl -I https://huggingface.co`",
         (r"We couldn't connect to '?https?://huggingface\.co", r"LocalEntryNotFoundError",
          r"You are trying to access a gated repo", r"Repository Not Found for url",
          r"Max retries exceeded with url: \S*(?:huggingface|hf-mirror)", r"CAS service error",
          r"Connection error, and we cannot find the requested files",
          r"is not a local folder and is not a valid model identifier", r"outgoing traffic has been disabled",
          r"offline mode is enabled",
          # h8-cfgerr (issue 26): huggingface_hub's own refusal, by its message family rather than one caller's
          # wrapping: the gated-repo text on its own lines, the hub's error classes named bare (`GatedRepoError:`),
          # the hub's formatted HTTP error (`401 Client Error. (Request ID: Root=...`), and a tool saying the Hub
          # token is missing (`[FAIL] HF_TOKEN is not set in the container — required for ... model download`)
          r"Cannot access gated repo for url", r"Access to model \S+ is restricted\.",
          r"\b(?:GatedRepo|RepositoryNotFound|RevisionNotFound|EntryNotFound|DisabledRepo)Error\b",
          r"\b4\d\d Client Error\. \(Request ID: Root=",
          r"\b(?:HF_TOKEN|HUGGING_FACE_HUB_TOKEN|HUGGINGFACE_(?:HUB_)?TOKEN)\b[^\n]{0,80}?\b(?:is not set|not set|is missing|"
          r"missing|is required|required|is empty|is invalid)\b",
          r"huggingface_hub\.(?:utils\._errors|errors)\.\w+Error", r"HfHubHTTPError",
          # explain-dist (issue 26): ModelScope's hub (ms-swift, LLaMA-Factory with USE_MODELSCOPE_HUB=1)
          r"modelscope\.hub\.errors\.\w+",
          r"(?:4(?:01|03|29)|50\d) (?:Client|Server) Error.{0,120}(?:huggingface|hf-mirror|modelscope)",
          r"(?:ReadTimeout|ConnectTimeout|ConnectionError).{0,160}(?:huggingface\.co|hf-mirror|modelscope)",
          # r4-swift (issue 26): urllib3 giving up on a model hub's host, whatever the reason it names (DNS, refused,
          # the hub's own 5xx answers: `Caused by ResponseError('too many 500 error responses')`) — ms-swift
          # downloads from www.modelscope.cn by default
          r"HTTPS?ConnectionPool\(host='[^']*(?:huggingface\.co|hf-mirror\.com|modelscope\.cn)', port=\d+\): "
          r"Max retries exceeded"),
         ("couldn't connect to", "LocalEntryNotFoundError", "gated repo", "Repository Not Found", "Max retries exceeded",
          "CAS service error", "huggingface_hub.", "HfHubHTTPError", "Error", "Timeout", "Connection error",
          "outgoing traffic", "offline mode", "valid model identifier", "Cannot access gated repo", "is restricted",
          "Client Error", "TOKEN"),
         sources=("baichuan-inc/Baichuan-7B#83", "PromtEngineer/localGPT#822")),
    _sig("model-files-missing", "model_download", "error", "root", "the model directory lacks its files",
         "the path given as the model has no config.json / weights: a wrong path (relative to another working "
         "directory), a download that never finished, or a hub id mistaken for a local directory",
         "point model_name_or_path at the directory that holds config.json and the weights (absolute path), or "
         "download the model again (`huggingface-cli download REPO --local-dir DIR`)",
         "`ls MODEL_DIR` shows config.json, tokenizer files and *.safetensors",
         (r"does not appear to have (?:a file|files) named [\w.\-, ]*(?:config\.json|\.safetensors|\.bin)",
          r"[Ee]rror no file named [\w.,\- ]*(?:pytorch_model\.bin|model\.safetensors)[\w.,\- ]* found in directory",
          # h8-cfgerr (issue 26): transformers/huggingface_hub on a model path that is neither a local directory
          # nor a hub id (`Incorrect path_or_model_id: '/data/x'`, `Repo id must be in the form ...: '/data/x'`,
          # `Can't load tokenizer for '/data/x'. If you were trying to load it from 'https://huggingface.co/models'`),
          # and a shard the index names but the download never wrote
          r"Incorrect path_or_model_id: ", r"Repo id must be in the form 'repo_name' or 'namespace/repo_name': '[/~.]",
          r"Can't load (?:the )?(?:tokenizer|configuration|config|model|processor|image processor|feature extractor)"
          r" for '[^']+'\. If you were trying to load it from 'https://huggingface\.co/models'",
          r"No such file or directory:? ['\"][^'\"]*-\d{5}-of-\d{5}\.(?:safetensors|bin)['\"]"),
         ("does not appear to have", "no file named", "Incorrect path_or_model_id", "Repo id must be", "Can't load",
          "-of-"),
         sources=("transformers' from_pretrained on a directory without its files, as users post it (OSError: "
                  "/models/x does not appear to have a file named config.json)",)),
    _sig("missing-shared-library", "missing_package", "error", "root", "a native library is missing",
         "a compiled extension was built for another CUDA/ROCm runtime than the one installed (e.g. a cu12 wheel on "
         "a CUDA 11 system), or the runtime's libraries are not on the library path",
         "install wheels built for the installed runtime (torch/flash-attn/bitsandbytes for this CUDA/ROCm), or the "
         "matching runtime; LD_LIBRARY_PATH to its lib directory",
         "`ldd` on the extension's .so lists the missing library",
         # r5-hip: not torchvision's import-time warning (`UserWarning: Failed to load image Python extension: libc10_hip.so:
         # cannot open ...`): only its image decoders are missing; the run goes on (harmless-warning)
         # e-hipfa: nor AMD SMI's optional DRM probe (amdsmi's / rdc's library loader: `Fail to open <lib>: <dlerror>`,
         # printed when libdrm_amdgpu is not on the path): the SMI goes on without its DRM queries and the run with it
         (r"(?<!dlerror: )(?<!Failed to load image Python extension: )(?<!Fail to open libdrm_amdgpu\.so: )"
          r"(?<!Fail to open libdrm\.so: )(?!lib[nr]ccl-(?:net|tuner|profiler|env)|libbitsandbytes|libamdhip|libhsa-|librocm|librocblas|libhipblas|libMIOpen|librccl|"
          r"libroc|libhip|libamd_comgr)(lib[\w+-]+\.so[\w.]*): cannot open shared object file",
          # e-new17: PaddlePaddle's dynload (paddle/phi/backends/dynload/cudnn.cc ...: `Cannot load cudnn shared
          # library. Cannot invoke method cudnnGetVersion.`) for the CUDA libraries; ROCm's are rocm-library-missing
          r"Cannot load " + _pd.CUDA_DYNLOAD + r" shared library\. Cannot invoke method"),
         ("cannot open shared object", "Cannot load "),
         # e-amd: NCCL/RCCL's optional plugins (net/tuner/profiler: src/plugin/*.cc try dlopen and fall back to the
         # internal one; the line is an INFO) are never a missing library
         sources=("huggingface/autotrain-advanced#292 (flash_attn: ImportError: libcudart.so.12: cannot open shared "
                  "object file)",)),
    # explain-rocm (issue 26): the toolkit's programs called by an absolute path (Makefiles hard-code /usr/bin/hipcc,
    # /opt/rocm/bin/hipconfig, /usr/local/cuda/bin/nvcc) and the exit status 127 make/sh give a program not found
    _sig("toolkit-program-missing", "missing_package", "error", "root", "a GPU toolkit program the build calls "
         "is not installed where it is looked for",
         "the build (a Makefile, a setup script) runs the ROCm/CUDA compiler or its helper at a fixed path, and no "
         "program is there: the toolkit's development part (hipcc/nvcc) is not installed, or it is installed under "
         "another prefix (/opt/rocm-X.Y without the /opt/rocm link, /usr/local/cuda-X.Y without /usr/local/cuda)",
         "install the toolkit's compiler (rocm-hip-sdk / hip-dev, cuda-toolkit), or point the build at the real "
         "prefix (ROCM_PATH=/opt/rocm-X.Y, HIPCC=/opt/rocm-X.Y/bin/hipcc, CUDA_HOME) or create the link the build "
         "expects (ln -s /opt/rocm-X.Y /opt/rocm)",
         "`ls -l PATH` for the path in the message; `ls -d /opt/rocm* /usr/local/cuda*`",
         (r"^(?:g?make(?:\[\d+\])?|/bin/(?:ba|da)?sh(?:: \d+)?|sh|bash|env|xargs)(?:: line \d+)?: "
          r"/\S*/(?:hipcc|hipconfig|nvcc|amdclang\+\+|amdclang|clang\+\+|hipify-perl|hipify-clang|offload-arch|amdgpu-arch|"
          r"rocm_agent_enumerator)(?:\.pl)?: (?:No such file or directory|not found|command not found)\s*$",
          r"^g?make(?:\[\d+\])?: \*\*\* \[[^\]]*\] Error 127\s*$"),
         ("No such file or directory", "not found", "Error 127"),
         sources=("YellowRoseCx/koboldcpp-rocm#130 (/usr/bin/hipcc and /usr/bin/hipconfig not found: ROCm under "
                  "/opt/rocm-6.3.3 only)", "broncotc/bitsandbytes-rocm#5 (make: /usr/bin/hipcc: No such file or "
                  "directory; make: *** [Makefile:107: hip] Error 127)", "POSIX: exit status 127 = command not found")),
    # TensorFlow returns the dynamic loader's failure as an error status when the library is required (the
    # start-up `W ... dso_loader.cc: Could not load dynamic library` note is harmless; this one is not)
    _sig("framework-library-load-failed", "missing_package", "error", "root", "a library the framework needs "
         "could not be loaded",
         "the framework (TensorFlow's stream executor) needs this GPU runtime library to go on and the dynamic "
         "loader cannot find it: not installed, another version's name, or its directory is not on the library "
         "path (ldconfig / LD_LIBRARY_PATH)",
         "install the runtime the framework was built for, or add its lib directory to LD_LIBRARY_PATH / an "
         "ld.so.conf.d entry and run ldconfig",
         "`ldconfig -p | grep LIBNAME`; `find / -name 'LIBNAME*' 2>/dev/null`",
         (r"(?:Failed precondition|FailedPrecondition\w*|Internal(?:Error)?|NotFound(?:Error)?|Unavailable)\b[^\n]{0,120}"
          r"Could not load dynamic library '[^']+'",),
         ("Could not load dynamic library",),
         sources=("ROCm/legacy-rocm-build#1163 (Failed precondition: Could not load dynamic library 'libhip_hcc.so')",
                  "tensorflow/stream_executor/platform/default/dso_loader.cc")),
    # weak and tail_only: the cause only when nothing more specific failed and no training step followed (a
    # bf16/fp16 run that never quantizes goes on without bitsandbytes' GPU code)
    _sig("bnb-rocm-binary-mismatch", "version_check", "error", "weak", "bitsandbytes looked for a ROCm "
         "binary of another ROCm version",
         "bitsandbytes names its library after the ROCm version torch reports (libbitsandbytes_rocmNN.so); a "
         "bitsandbytes built for another ROCm than the PyTorch wheel (or a HIP version it derives the suffix "
         "wrongly from) finds no such file, so it cannot load its GPU code",
         "install the bitsandbytes build for the ROCm version of the installed PyTorch (torch.version.hip), or "
         "build it from source against that ROCm (BNB_ROCM_VERSION / -DROCM_VERSION to match)",
         "`python -c 'import torch;print(torch.version.hip)'` and `ls $(python -c 'import bitsandbytes,os;"
         "print(os.path.dirname(bitsandbytes.__file__))')/libbitsandbytes_*`",
         (r"(?:Configured ROCm binary not found at|Could not find the bitsandbytes ROCm binary at) \S*"
          r"libbitsandbytes_rocm\d+",
          # e-ver (issue 26): bitsandbytes' cextension.py when no library of torch's ROCm/CUDA version ships and it
          # loads the nearest other one (`No prebuilt binary for ROCm 6.1, loading ROCm 6.4 instead. Set
          # BNB_ROCM_VERSION to override.`): GPU code built for another runtime, a cause when the run dies right after
          # (unslothai/unsloth#10273: SIGSEGV on torch 2.6.0+rocm6.1)
          r"No prebuilt binary for (?:ROCm|CUDA) \d+\.\d+, loading (?:ROCm|CUDA) \d+\.\d+ instead"),
         ("ROCm binary", "No prebuilt binary"), tail_only=True,
         sources=("bitsandbytes-foundation/bitsandbytes#2014 (Configured ROCm "
                                    "binary not found at .../libbitsandbytes_rocm84.so)",
                                    "ROCm/bitsandbytes#82, #91 (libbitsandbytes_rocm63.so / rocm80.so not found)")),
    _sig("int8-multi-device-old-accelerate", "version_check", "error", "root", "an 8-bit model split over "
         "several GPUs was refused by an old accelerate",
         "accelerate releases before 0.20 (PR #1523) refused to train an 8-/4-bit model dispatched over several "
         "GPUs (device_map='auto', naive pipeline)",
         "pip install --upgrade accelerate (>= 0.20), with the peft/transformers the runner pins",
         "`pip show accelerate`",
         (r"[Yy]ou can't train a model that has been loaded in (?:8|4)-bit precision on multiple devices",),
         ("loaded in",), sources=("huggingface/peft#414 (fixed by huggingface/accelerate#1523)",
                                  "artidoro/qlora#137")),
    _sig("int8-wrong-device", "config_error", "error", "root", "each rank must load its 8-/4-bit model on its "
         "own GPU",
         "the quantized model was loaded on one GPU (device_map={'': 0} or 'auto') while the launcher started one "
         "process per GPU, so a rank trains a model that lives on another device",
         "load the model on the rank's own GPU: device_map={'': torch.cuda.current_device()} (or "
         "{'': PartialState().process_index}); for one process spanning GPUs, launch a single process",
         "print the model's device (model.hf_device_map) on every rank",
         (r"[Yy]ou can't train a model that has been loaded in (?:8|4)-bit precision on a different device than "
          r"the one you're training on",),
         ("loaded in",), sources=("huggingface/trl#722", "axolotl-ai-cloud/axolotl#148", "yangjianxin1/Firefly#270",
                                  "accelerate's message")),
    _sig("deepspeed-config-validation", "version_check", "error", "root", "DeepSpeed's config validation "
         "rejected a value another library filled in",
         "DeepSpeed >= 0.15 validates its config with pydantic v2; the value transformers/accelerate computed for "
         "an `auto` key (stage3_prefetch_bucket_size = 0.9 x hidden^2, a float) or a key of another DeepSpeed "
         "version is rejected: the DeepSpeed and transformers/accelerate versions do not match",
         "upgrade transformers/accelerate to releases that cast the value (transformers#33402), or pin deepspeed to "
         "the version the runner pins (0.14.x for older stacks); or set the key to an integer in the DeepSpeed JSON",
         "`pip show deepspeed transformers accelerate`",
         (r"\d+ validation errors? for DeepSpeed\w*Config",),
         ("validation error",), sources=("deepspeedai/DeepSpeed#6525", "modelscope/ms-swift#1862",
                                         "hiyouga/LlamaFactory#5252 (1 validation error for DeepSpeedZeroConfig "
                                         "stage3_prefetch_bucket_size ... int_from_float)")),
    _sig("checkpoint-rename-race", "version_check", "error", "root", "the Trainer's checkpoint rename raced "
         "between ranks",
         "transformers versions that stage checkpoints in tmp-checkpoint-* and rename them on more than the main "
         "rank: another rank already renamed (or removed) the directory, so the rename fails on this one",
         "install a transformers release with the fix (only the main process renames; the staging change was "
         "reverted), or save from rank 0 only (save_on_each_node false)",
         "`pip show transformers` (a dev/source build between the change and its fix)",
         (r"(?:FileExistsError|FileNotFoundError|OSError): \[Errno (?:17|2|39)\] [\w ]+: '[^']*tmp-checkpoint-[^']*' "
          r"-> '[^']*checkpoint-\d+'",),
         ("tmp-checkpoint",), sources=("huggingface/transformers#27925", "axolotl-ai-cloud/axolotl#948",
                                       "modelscope/ms-swift#3049 (FileExistsError: [Errno 17] File exists: "
                                       "'.../tmp-checkpoint-f4fsdt_x' -> '.../checkpoint-276')")),
    _sig("no-training-steps", "dataset_error", "error", "root", "no training step ran, so no checkpoint exists",
         "the dataset gives fewer samples than one optimizer step (after filtering, packing and the batch size x "
         "GPUs x gradient accumulation), or a resume skipped every remaining step: no checkpoint is saved and the "
         "runner's end-of-training code finds none",
         "check how many samples survive preprocessing against per_device_train_batch_size x GPUs x "
         "gradient_accumulation_steps; when resuming, raise num_train_epochs or use resume_only_model",
         "the log's sample count after preprocessing and `Total optimization steps`",
         (r"TrainerState.? object has no attribute .?last_model_checkpoint", r"No training was carried out"),
         ("last_model_checkpoint", "No training was carried out"),
         sources=("modelscope/ms-swift#2956, #3396, #3455 (AttributeError: 'TrainerState' object has no attribute "
                  "'last_model_checkpoint')", "modelscope/ms-swift#3863 ([WARNING:swift] No training was carried "
                  "out, which may be due to the dataset being too small ...)")),
    # ================================================================== issue 26 (explain-sw): the runners' and
    # libraries' own spellings of the families above, taken from their sources (torch.optim, torch.distributed,
    # transformers' HfArgumentParser, pydantic, argparse, PyYAML, bash/zsh/sh, bitsandbytes)
    _sig("optimizer-state-mismatch", "checkpoint_resume_mismatch", "error", "root", "the checkpoint's optimizer "
         "state does not fit this run's optimizer",
         "the optimizer state being resumed was saved for another set of trainable parameters (LoRA targets or "
         "rank, frozen modules, a different model or optimizer): its parameter groups do not line up with the "
         "optimizer this run built",
         "resume with the same model, method, trainable modules and optimizer as the checkpoint; or load only the "
         "weights (HF: resume_from_checkpoint off and start from the checkpoint's weights; DeepSpeed: "
         "load_optimizer_states=False; ms-swift: resume_only_model) and start a fresh optimizer",
         "compare the checkpoint's adapter_config.json / trainer_state.json with this run's settings",
         (r"loaded state dict contains a parameter group that doesn't match the size of optimizer's group",
          r"loaded state dict has a different number of parameter groups",
          # FSDP's optimizer state loading with another sharding / parameter set
          r"optim_state_dict\w*\(\).{0,80}(?:mismatch|does not match|missing)"),
         ("parameter group", "optim_state_dict"),
         sources=("torch/optim/optimizer.py load_state_dict (ValueError: loaded state dict contains a parameter "
                  "group that doesn't match the size of optimizer's group)", "modelscope/ms-swift#107")),
    _sig("checkpoint-files-missing", "checkpoint_resume_mismatch", "error", "root", "the checkpoint to resume "
         "lacks files this run needs",
         "the run resumes from a checkpoint that is incomplete for it: ZeRO shards of another data-parallel world "
         "size or rank count (zero_pp_rank_N_... files that were never written), a checkpoint saved without "
         "optimizer states, or no checkpoint at all in output_dir",
         "resume with the world size the checkpoint was written with, convert it (DeepSpeed ds_to_universal.py + "
         "load_universal / zero_to_fp32.py), or resume weights only; point resume_from_checkpoint at a complete "
         "checkpoint-N directory",
         "`ls CHECKPOINT/global_step*/` against the ranks of this run",
         (r"No such file or directory: '[^']*(?:zero_pp_rank_\d+|bf16_zero_pp_rank_\d+)\w*_(?:optim|model)_states\.pt'",
          r"No such file or directory: '[^']*mp_rank_\d+_model_states\.pt'",
          r"No valid checkpoint found in output directory",
          # deepspeed/runtime/engine.py _get_all_zero_checkpoint_names, when shards of other ranks/nodes are absent
          r"The following zero checkpoints paths are missing",
          # explain-r2b: any file the resume opens inside a checkpoint directory (HF Trainer's checkpoint-N/
          # optimizer.pt, trainer_state.json, rng_state.pth; accelerate's optimizer.bin; DeepSpeed's global_stepN/;
          # torchtune's epoch_N/) that is not there; not the Trainer's own tmp-checkpoint rename race
          r"No such file or directory: '[^']*(?<!tmp-)(?:checkpoint-\d+|global_step\d+|epoch_\d+)[/\\][^']+'"),
         ("_states.pt", "No valid checkpoint found", "zero checkpoints paths are missing", "No such file or directory"),
         sources=("deepspeed/runtime/engine.py _get_all_zero_checkpoints (zero_pp_rank_N_mp_rank_00_optim_states.pt)",
                  "transformers/trainer.py (ValueError: No valid checkpoint found in output directory)")),
    _sig("command-not-found", "missing_package", "error", "root", "the shell could not find the program the run "
         "starts",
         "the command (a runner's CLI such as llamafactory-cli, swift, axolotl, deepspeed, torchrun, accelerate) is "
         "not installed in the environment the shell uses: the package was never installed (only its "
         "requirements), it was installed into another environment, or that environment is not activated",
         "install the package in the environment that runs the job (LLaMA-Factory: `pip install -e .[torch,metrics]` "
         "in its checkout; ms-swift: `pip install ms-swift`; Axolotl: `pip install axolotl`), activate it, or call "
         "the module directly (`python -m ...`)",
         "`which COMMAND` and `pip show PACKAGE` in the same shell",
         # only the programs that start a run: a missing nvidia-smi / rocm-smi or another helper a script calls
         # on the way is not fatal (ROCm hosts print `nvidia-smi: command not found` and train on)
         (r"^(?:\S+: )?(?:line \d+: )?(?:\S*/)?" + _RUN_CMDS + r" ?[:：] ?"
          r"(?:command not found|未找到命令|找不到命令|コマンドが見つかりません)\s*$",
          r"^(?:zsh|bash|fish): command not found: (?:\S*/)?" + _RUN_CMDS + r"\s*$",
          r"^/bin/sh: \d+: (?:\S*/)?" + _RUN_CMDS + r": not found\s*$",
          r"^'" + _RUN_CMDS + r"' is not recognized as an internal or external command",
          r"^'" + _RUN_CMDS + r"' 不是内部或外部命令"),
         ("command not found", "未找到命令", "找不到命令", "コマンドが見つかりません", ": not found",
          "is not recognized as an internal", "不是内部或外部命令"),
         sources=("hiyouga/LlamaFactory#3568 (bash: llamafactory-cli: command not found)", "hiyouga/LlamaFactory#4138",
                  "bash/zsh/dash/cmd.exe messages")),
    _sig("torch-build-lacks-backend", "missing_package", "error", "root", "the installed PyTorch build lacks a "
         "component the run needs",
         "this PyTorch was built without the distributed backend the run asks for (Windows and macOS wheels have "
         "no NCCL; some builds have no distributed package at all), so the process group cannot start",
         "use a backend the build has (backend='gloo' on Windows/macOS; ddp_backend / --ddp_backend gloo) or "
         "install a Linux PyTorch wheel built for the GPU (CUDA/ROCm wheels include NCCL/RCCL)",
         "`python -c 'import torch.distributed as d; print(d.is_available(), d.is_nccl_available())'`",
         (r"Distributed package doesn't have (?:NCCL|MPI|UCC|Gloo) built in",
          r"No module named '?torch\._C\._distributed_c10d'?",
          r"torch\.distributed is not available",
          r"module 'torch\.distributed' has no attribute '(?:init_process_group|is_initialized|get_rank|"
          r"get_world_size|barrier|all_reduce|ReduceOp|ProcessGroup|destroy_process_group)'"),
         ("built in", "_distributed_c10d", "torch.distributed is not available", "module 'torch.distributed'"),
         sources=("torch/distributed/distributed_c10d.py (RuntimeError: Distributed package doesn't have NCCL built "
                  "in)", "bshall/hubert#1")),
    _sig("config-rejected", "config_error", "error", "root", "the runner rejected the run's configuration",
         "a key or argument is not one the runner knows (a typo, a key of another runner/version, a script "
         "passed as an argument), has the wrong type, or the YAML itself does not parse",
         "correct the key or value the message names (the runner's example configs show the accepted keys); for "
         "HfArgumentParser errors remove or rename the listed arguments (renamed keys: see the runner's changelog)",
         "run the runner's own argument help (`llamafactory-cli train -h`, `swift sft --help`) or validate the YAML "
         "with `python -c 'import yaml,sys;yaml.safe_load(open(sys.argv[1]))' FILE`",
         (r"Some (?:specified arguments|keys) are not used by the HfArgumentParser",
          # explain-dist (issue 26): ms-swift's own leftover check (swift/utils/run_utils.py), e.g. a 3.x flag on 2.x
          r"\bremaining_argv: \[['\"]?-",
          # explain-dist (issue 26): OmegaConf/Hydra configs (torchtune recipes and `tune run` overrides, NeMo)
          r"omegaconf\.errors\.\w+", r"Key '[\w.]+' is not in struct", r"Could not override '[\w.]+'",
          r"\d+ validation errors? for (?!DeepSpeed)\w+",
          r"^" + _TASK_PREFIX + r"(?:\S+: |[\w<>\[\]. -]{1,60}(?:launch|config|run|env|train|sft)\w*: |"
          # e-cli9: an argparse subcommand's prog `parent sub` (`vllm serve: error:`, `trl dpo: error:`)
          r"[\w.-]+ [\w.-]+: )?"
          r"error: (?:unrecognized arguments: |argument [-\w/]+: (?:invalid|"
          r"expected|ambiguous|not allowed with|Truthy value expected)|the following arguments are required: |ambiguous option: |one of the "
          r"arguments )",
          # h8-cfgerr (issue 26): the config libraries' own exception classes (torchtune's ConfigError /
          # InstantiationError, OmegaConf/Hydra's key and composition errors named bare, any ConfigurationError)
          r"(?:^|[\s.:\]])(?:ConfigError|InstantiationError|InvalidConfigError|ConfigurationError|MissingMandatoryValue|"
          # e-cfgerr: argparse's and the runners' argument exception classes (ArgumentError, ArgumentTypeError)
          r"ArgumentError|ArgumentTypeError|"
          r"ConfigKeyError|ConfigAttributeError|ConfigCompositionException|OverrideParseException|"
          r"MissingConfigException): ",
          r"yaml\.(?:scanner|parser|constructor|composer)\.\w*Error",
          r"Output directory \(\S+\) already exists and is not empty",
          # e-cfgerr (issue 26): the shell ran one of the command's own options as a command (`lora.sh: line 7:
          # --model_id_or_path: command not found`): a line of the multi-line command lost its trailing backslash (or
          # has a space after it / a blank line), so the runner started without the options below it
          r"^" + _TASK_PREFIX + r"(?:\S+: )?line \d+: --?[A-Za-z][\w-]*(?:=\S*)?: (?:command not found|未找到命令|找不到命令)\s*$",
          # e-cfg4 (issue 26): the same lost continuation in dash's (`run.sh: 7: --lr: not found`, Ubuntu's /bin/sh)
          # and zsh's (`run.sh:7: command not found: --lr`) spelling
          r"^" + _TASK_PREFIX + r"\S+: \d+: --?[A-Za-z][\w-]*(?:=\S*)?: not found\s*$",
          r"^" + _TASK_PREFIX + r"\S+:\d+: command not found: --?[A-Za-z][\w-]*(?:=\S*)?\s*$",
          # e-cfg4 (issue 26): PyYAML's problem lines under a ScannerError/ParserError whose class line a logger or a
          # launcher's summary dropped (yaml/scanner.py, yaml/parser.py, libyaml's `did not find expected key`): the
          # YAML config does not parse
          r"^" + _TASK_PREFIX + r"\s*(?:could not find expected ':'|mapping values are not allowed here|found character '[^']*' that cannot "
          r"start any token|expected <block end>, but found '<[\w ]+>'|did not find expected (?:key|'-' indicator|"
          r"node content)|found undefined alias '?[^'\n]*'?|found duplicate anchor)\s*$",
          # e-cfg4 (issue 26): TOML configs (torchtitan's job config, a launcher's .toml) that do not parse: tomllib/
          # tomli's TOMLDecodeError, the toml package's TomlDecodeError, tomlkit's ParseError subclasses
          r"\b(?:tomllib|tomli|toml\.decoder|tomlkit\.exceptions)\.\w+(?:DecodeError|ParseError|Error): |"
          r"(?:^|[\s:\]])(?:TOMLDecodeError|TomlDecodeError): ",
          # e-cfg4 (issue 26): Hydra's own words when it composes the config (hydra/_internal/config_loader_impl.py,
          # config_repository.py, core/override_parser, errors.py: MissingConfigException, ConfigCompositionException,
          # OverrideParseException), printed bare above `Set the environment variable HYDRA_FULL_ERROR=1`, and
          # OmegaConf's MissingMandatoryValue message when only it is printed (verl, NeMo, torchtitan-hydra recipes)
          r"Could not (?:append to config\. An item is already at|delete from config\. '?[\w.]+'? is not in the "
          r"config|load '[\w.@-]+/[\w/.@-]+')",
          r"^(?:In '[\w/.@-]+': Could not find '[\w/.@-]+'|Could not find '[\w.@-]+/[\w/.@-]+')",
          r"Cannot find primary config '[^']+'", r"Primary config (?:module|directory) '[^']+' not found",
          r"See https?://hydra\.cc/docs/\S*override_grammar\S* for details", r"^Error merging override \S",
          r"^" + _TASK_PREFIX + r"Missing mandatory value: [\w.\[\]-]+\s*$",
          # e-cfgerr (issue 26): Slurm refusing the job's resource request before anything runs (sbatch/srun/salloc
          # `Batch job submission failed:` / `Unable to allocate resources:` / `Unable to create step for job N:` with
          # an invalid gres/partition/account/qos/node/feature spec or a request no node can satisfy): the launch
          # settings of the job script (src/common/slurm_errno.c messages)
          r"\b(?:sbatch|srun|salloc): error: (?:Batch job submission failed|Unable to allocate resources|Unable to "
          r"create step for job \d+|Job submit/allocate failed): (?:Invalid (?:generic resource \(gres\) "
          r"specification|partition name specified|account or account/partition combination specified|qos "
          r"specification|node name specified|feature specification|job array specification|number of nodes "
          r"specified|Trackable RESource \(TRES\) specification)|Requested node configuration is not available|"
          r"More processors requested than permitted|Node count specification invalid|Memory required by task is "
          r"not available|Requested partition configuration not available now|Requested time limit is invalid)",
          # r3-ver (issue 26): transformers' DeepSpeed integration (trainer_config_finalize) checking the DeepSpeed
          # JSON's explicit values against TrainingArguments
          r"DeepSpeed config values that mismatch TrainingArguments values",
          # h8-cfgerr (issue 26): pydantic's detail line under `N validation error(s) for <Config>` when a value has
          # the wrong type, is not one of the choices or a required field is missing (v1 `value is not a valid dict
          # (type=type_error.dict)`, v2 `Input should be a valid dictionary [type=dict_type, input_value=...`): the
          # value as written is wrong, whichever library's config class (DeepSpeed's too) checked it
          r"^\s*(?:value is not a valid [\w ]+|field required|none is not an allowed value|str type expected|"
          r"value could not be parsed to an? \w+|unexpected value; permitted: [^\n]*) \(type=(?:type_error(?:\.\w+)?|"
          r"value_error\.missing)\)",
          r"\[type=(?:dict_type|list_type|tuple_type|set_type|int_type|int_parsing|float_type|float_parsing|bool_type|"
          r"bool_parsing|string_type|literal_error|enum|missing|model_type|model_attributes_type|dataclass_type|"
          r"union_tag_invalid|union_tag_not_found), input_value="),
         ("mismatch TrainingArguments", "HfArgumentParser", "validation error", "error: ", "yaml.", "already exists and is not empty", "remaining_argv", "Batch job submission failed", "command not found",
          "未找到命令", "找不到命令",
          "Unable to allocate resources", "Unable to create step", "Job submit/allocate failed",
          "(type=", "[type=", "ConfigError", "InstantiationError", "ConfigurationError", "MissingMandatoryValue",
          "ConfigKeyError", "ConfigAttributeError", "ConfigCompositionException", "OverrideParseException",
          "ArgumentError", "ArgumentTypeError",
          "MissingConfigException",
          "omegaconf", "not in struct", "Could not override",
          # e-cfg4
          ": not found", "command not found: ", "could not find expected", "mapping values are not allowed",
          "that cannot start any token", "expected <block end>", "did not find expected", "found undefined alias",
          "found duplicate anchor", "DecodeError", "ParseError", "Could not append to config",
          "Could not delete from config", "Could not load '", "Could not find '", "Cannot find primary config",
          "Primary config", "override_grammar", "Error merging override", "Missing mandatory value"),
         sources=("transformers/hf_argparser.py (ValueError: Some specified arguments are not used by the "
                  "HfArgumentParser)", "axolotl-ai-cloud/axolotl#1840 (1 validation error for "
                  "AxolotlConfigWCapabilities)", "argparse (error: unrecognized arguments)", "PyYAML")),
    # e-cfg4 (issue 26): the interpreter was given a script path that is not there (CPython Modules/main.c
    # pymain_run_file: `python: can't open file '/x/train.py': [Errno 2] No such file or directory`): the launch
    # command's path (a typo, another working directory, a script another release of the runner moved)
    _sig("script-not-found", "config_error", "error", "root", "the launch command names a script that is not there",
         "python was started with a script path that does not exist from the directory the job runs in (a typo, a "
         "relative path from another working directory, a script the runner's repository moved or removed)",
         "give the script's real path (or `cd` to the repository first); for a runner's entry script moved between "
         "releases use the entry point of the installed release (its README's launch line)",
         "`ls -l PATH` from the job's working directory",
         (r"\bcan't open file '[^'\n]+': \[Errno 2\] No such file or directory",),
         ("can't open file",),
         sources=("CPython Modules/main.c (pymain_run_file: %ls: can't open file %R: [Errno %d] %s)",)),
    # e-cfg4 (issue 26): the launch line handed a script to something that cannot run it - a .py executed by the
    # shell (bash/dash/zsh reading Python: `train.py: line 1: import: command not found`, `from: can't read
    # /var/mail/transformers`, `syntax error near unexpected token`), or exec'd without `python` and without an
    # executable bit or a #! line (the kernel's EACCES / ENOEXEC as bash, dash, Slurm's slurmstepd execve(), Python's
    # subprocess and Apptainer/Singularity's starter print them): the command line, not a file permission of the run
    _sig("script-not-run-by-python", "config_error", "error", "root", "the launch command ran a script without its "
         "interpreter",
         "the job/launch line executes the training script directly (or hands it to the shell) instead of running it "
         "with `python`: the file is not executable or has no #! line, so the kernel refuses it (permission denied, "
         "exec format error) or the shell reads Python as shell commands",
         "put the interpreter in front of the script (`python train.py ...`, `singularity exec IMAGE python "
         "train.py`, `srun python train.py`), or make it executable with a `#!/usr/bin/env python` first line and "
         "`chmod +x`; a script with Windows line ends (`^M`, `$'\\r'`): convert it (`dos2unix run.sh`)",
         "`head -1 SCRIPT; ls -l SCRIPT` (a #! line and the x bit are both needed to run it without `python`)",
         (r"^" + _TASK_PREFIX + r"(?:\S+: )?(?:line )?\d+: (?:import|from): (?:command )?not found\s*$",
          r"^\S+:\d+: command not found: (?:import|from)\s*$",
          r"^from: can't read /var/mail/[\w.]+\s*$",
          r"\.py: (?:line )?\d+: syntax error near unexpected token",
          r"\bexecve\(\): \S+\.(?:py|sh): (?:Permission denied|Exec format error)",
          r"^" + _TASK_PREFIX + r"(?:\S+: )?(?:line \d+: |\d+: )?\S+\.(?:py|sh): (?:Permission denied|cannot execute binary file: Exec "
          r"format error|cannot execute: [^\n]+)\s*$",
          r"\[Errno 8\] Exec format error: '[^'\n]+'",
          r"^FATAL:\s+(?:permission denied|exec format error)\s*$",
          # the script's #! line names an interpreter that is not there - most often a script saved with Windows
          # line ends (`/bin/bash^M: bad interpreter`), whose other lines the shell then reads with a `\r` each
          # (`$'\r': command not found`); slurmstepd's own spelling of the #! failure (task.c)
          r"\bbad interpreter: No such file or directory", r"\bexecve\(\): bad interpreter\(",
          r"^(?:\S+: )?(?:line \d+: |\d+: )?\$'\\r': command not found\s*$"),
         ("import", "from", "/var/mail/", "syntax error near unexpected token", "execve", "Permission denied",
          "Exec format error", "cannot execute", "permission denied", "exec format error", "bad interpreter",
          "command not found"),
         sources=("bash/dash/zsh messages (command not found, Permission denied, cannot execute binary file)",
                  "slurm slurmstepd/task.c (`error: execve(): X: Permission denied`, `execve(): bad interpreter(...)`)", "CPython subprocess._execute_child (OSError: "
                  "[Errno 8] Exec format error)", "Lumi-supercomputer/LUMI-training-materials ai-20251008 Q&A "
                  "(singularity exec IMAGE test.py -> FATAL: permission denied)")),
    _sig("bnb-no-gpu-library", "version_check", "error", "root", "bitsandbytes loaded without its GPU library",
         "the installed bitsandbytes has no compiled library for this GPU stack (a CUDA-only wheel on ROCm, a CPU "
         "build, another CUDA/ROCm version), so its optimizer/quantization functions are missing",
         "install the bitsandbytes build for this stack (ROCm: the multi-backend / ROCm wheel matching "
         "torch.version.hip; CUDA: a wheel for the installed CUDA), or run without 8-bit optimizers/quantization",
         "`python -m bitsandbytes` prints which library it loaded",
         (r"'NoneType' object has no attribute 'c(?:adam|quantize|dequantize|get_col_row_stats|igemm|\w*_32bit)\w*'",
          # explain-rocm: bitsandbytes 0.3x/0.4x's own words for the same (its setup found no usable library);
          # e-relabel: 0.43+'s cextension.py says `CUDA Setup failed despite CUDA being available` (ROCm/bitsandbytes#35)
          r"CUDA Setup failed despite (?:GPU|CUDA) being available"),
         ("'NoneType' object has no attribute 'c", "CUDA Setup failed despite"),
         sources=("bitsandbytes/cextension.py (lib is None: AttributeError: 'NoneType' object has no attribute "
                  "'cadam32bit_grad_fp32')",)),
    _sig("weights-only-load", "checkpoint_resume_mismatch", "error", "root", "torch.load refused a checkpoint "
         "under PyTorch 2.6's weights_only default",
         "PyTorch 2.6 made torch.load(weights_only=True) the default; a library release older than that loads its "
         "own pickles (rng_state.pth, optimizer/scheduler states, DeepSpeed checkpoints) without weights_only=False, "
         "so resuming or loading fails on a non-tensor object",
         "upgrade the library that loads the file (transformers / accelerate / deepspeed releases made for torch 2.6), "
         "or pin torch < 2.6; only for files you trust: torch.serialization.add_safe_globals or weights_only=False",
         "`pip show torch transformers accelerate deepspeed`",
         (r"Weights only load failed", r"WeightsUnpickler error: Unsupported (?:global|operand)"),
         ("Weights only load failed", "WeightsUnpickler"),
         sources=("torch/serialization.py (_pickle.UnpicklingError: Weights only load failed ... In PyTorch 2.6, we "
                  "changed the default value of the `weights_only` argument)",)),
    _sig("python-too-old", "version_check", "error", "weak", "the Python interpreter is older than the code needs",
         "the library uses syntax or typing of a newer Python (X | None unions need 3.10, list[int] needs 3.9) or "
         "declares a newer Requires-Python, and the environment runs an older interpreter",
         "create the environment with the Python the runner supports (3.10 or newer for current LLaMA-Factory, "
         "ms-swift, Axolotl, transformers) and reinstall",
         "`python --version` in the environment that runs the job",
         (r"unsupported operand type\(s\) for \|: '(?:type|types\.GenericAlias|typing\.\w+|\w+Meta)' and "
          r"'(?:NoneType|type|types\.GenericAlias|typing\.\w+|\w+Meta)'", r"'type' object is not subscriptable",
          r"requires a different Python: [\d.]+ not in '[^']+'",
          # e-new14: pip's resolver naming the releases it skipped for Requires-Python (logged only when the
          # requirement then fails), uv's resolver's words for the same refusal
          r"Ignored the following versions that require a different python version",
          r"the current Python version \([\d.]+\) does not satisfy Python"),
         ("unsupported operand type", "not subscriptable", "requires a different Python", "require a different python",
          "does not satisfy Python"),
         sources=("CPython 3.8/3.9 on PEP 604 / PEP 585 annotations", "pip's Requires-Python check")),
    # r4-ver (issue 26): the dynamic loader's versioned-symbol words for the C/C++ runtime: a binary (torch's
    # libtorch_python.so, a JIT-built extension) needs a newer libstdc++/glibc than the one loaded (a conda env's old
    # libstdcxx-ng, an older distro) — the builds do not match, whichever library the line names as required
    _sig("system-runtime-too-old", "version_check", "error", "root", "a binary needs a newer C/C++ runtime "
         "(GLIBC/GLIBCXX) than the one loaded",
         "the wheel or extension was built with a newer compiler/glibc than the libstdc++.so.6 or libc.so.6 the "
         "loader found: a conda environment's old libstdcxx-ng shadowing the system one, or a wheel built for a "
         "newer distribution",
         "update the runtime the loader picks (conda install -c conda-forge libstdcxx-ng, or put the system "
         "libstdc++ first), or install a build of the package made for this system's glibc",
         "`strings $(dirname $(which python))/../lib/libstdc++.so.6 | grep GLIBCXX_3.4.3`; `ldd --version`",
         (r"version [`'\u2018](?:GLIBC|GLIBCXX|CXXABI)_[\d.]+['\u2019] not found",),
         ("' not found", "\u2019 not found"),
         sources=("ld.so's versioned-symbol error: /lib/libstdc++.so.6: version `GLIBCXX_3.4.32' not found "
                  "(required by .../torch/lib/libtorch_python.so) (sophgo/LLM-TPU#166, FFTAI/Wiki-GRx-Gym#6)",)),
    # e-new18 (issue 26): the same loader error for any other library's version node (glibc elf/dl-version.c
    # match_symbol: "version `%s' not found (required by %s)"): HIP's hip_6.2, HSA's ROCR_1, CUDA's libcudart.so.12,
    # OpenSSL's OPENSSL_3.0.0, libgomp's GOMP_5.0, libgcc_s' GCC_12.0.0 - the binary was linked against another
    # (newer) release of the library than the one the loader found. Not "no version information available" (a note)
    _sig("library-version-node-missing", "version_check", "error", "root", "a binary needs a release of a shared "
         "library other than the one loaded (versioned symbol not found)",
         "the binary (a wheel's extension, a plugin, an executable) was linked against a release of the library that "
         "defines this symbol version; the loader found another release of it first (LD_LIBRARY_PATH, a conda env's "
         "copy, an older system package, another ROCm/CUDA install)",
         "install the build made for the library release installed, or put the release it was linked against first on "
         "the loader's path (LD_LIBRARY_PATH, `ldconfig`); `ldd` on the binary shows which copy it picks",
         "`ldd <the binary named after 'required by'>`; `objdump -T <the library> | grep <version>`",
         (r"\.so[\w.]*: version [`'\u2018](?!GLIBC_|GLIBCXX_|CXXABI_)[\w.@+-]+['\u2019] not found",),
         ("' not found", "\u2019 not found"),
         sources=("glibc elf/dl-version.c: version `%s' not found (required by %s)",
                  "clr hipamd/src/hip_hcc.map.in version nodes (hip_4.2 ... hip_6.2), CUDA's per-soname nodes "
                  "(libcublasLt.so.11: version `libcublasLt.so.11' not found)")),
    # r4-ver (issue 26): `datasets` refusing its own cache because the installed fsspec changed its protocol names
    # (fsspec 2023.10 under datasets < 2.14.6): the two releases do not match, the data is fine
    _sig("datasets-fsspec-mismatch", "version_check", "error", "root", "datasets cannot read its own cache with "
         "the installed fsspec",
         "the installed fsspec is newer than the datasets release understands (fsspec >= 2023.10 with datasets < "
         "2.14.6), so datasets treats its local cache as a remote filesystem",
         "pip install -U datasets (2.14.6 or newer), or pin fsspec<=2023.9.2 where datasets is pinned",
         "`pip show datasets fsspec`",
         (r"Loading a dataset cached in a \w*FileSystem is not supported",),
         ("Loading a dataset cached in",),
         sources=("huggingface/datasets#6330, #6352 (NotImplementedError: Loading a dataset cached in a LocalFileSystem "
                  "is not supported.)",)),
    # ================================================================== end of the explain-sw block
    _sig("child-failed", "launcher_exit", "error", "consequence", "the launcher reports a rank exited with an "
         "error",
         "torchrun/deepspeed/accelerate report that a worker failed; the cause is the worker's own error above",
         "read the first error of the failed rank above this line",
         "the rank and exit code in the launcher's summary",
         (r"ChildFailedError", r"failed \(exitcode: -?\d+\) local_rank: \d+", r"exits with return code = -?\d+",
          r"Sending process \d+ closing signal SIGTERM", r"Killing subprocess \d+",
          r"Received \d+ death signal", r"Closing process \d+ via signal",
          # accelerate launch / subprocess wrappers, torch.multiprocessing.spawn, srun's summary
          r"CalledProcessError: Command '(?!\['ninja')[^\n]{0,3000}' returned non-zero exit status -?\d+",
          r"ProcessExitedException|ProcessRaisedException", r"process \d+ terminated with (?:exit code|signal)",
          r"srun: error: \S+: tasks? [\d,-]+: Exited with exit code \d+",
          # vLLM's engine process reporting a worker's own failure above it
          r"Engine core initialization failed\. See root cause above",
          # explain-dist (issue 26): the launcher itself told to stop from outside (scheduler preemption or time
          # limit, `kill`, a pod eviction): torch elastic's own words for it
          r"SignalException: Process \d+ got signal: \d+", r"Received Signals\.SIG\w+ death signal",
          # e-host2: torch elastic's table row for a rank a signal ended (errors/__init__.py ProcessFailure's message;
          # torch 1.9: `msg: "Signal N (SIGX) received by PID N"`); SIGKILL's and SIGBUS's keep their own codes
          r"Signal \d+ \(SIG[A-Z]+\) received by PID \d+"),
         ("ChildFailedError", "exitcode", "return code", "closing signal", "Killing subprocess", "death signal",
          "via signal", "CalledProcessError", "ProcessExitedException", "ProcessRaisedException", "terminated with",
          "Exited with exit code", "See root cause above", "got signal")),
    _sig("python-exception", "unknown", "error", "weak", "an exception ended the run",
         "an error this catalogue does not know: its message is the best lead",
         "read the exception message and the traceback's last frames of your code",
         "rerun the failing step alone",
         (r"^(?:\[(?:rank|default)\d+\]:\s*)*(?:[\w.]+\.)?[A-Z]\w*(?:Error|Exception)(?::\s|$)",
          # behind a logger's or a test runner's prefix (`E   `, `| ERROR | `, a timestamp)
          r"^(?:\S+\s+){1,6}(?:[\w.]+\.)?[A-Z][a-z]\w*(?:Error|Exception): \S",
          # e-src: not the watchdog's rethrow (`... instance of 'c10::DistBackendError'`): its `what():` line is read
          r"^Segmentation fault|^Fatal Python error|terminate called after throwing(?! an instance of 'c10::DistBackendError')",
          # other ways a log states an error: `Error: ...`, `ERROR: ...`, `[ERROR] ...`, `level=ERROR msg=...`,
          # a tool's `x: error: ...`, and native crashes
          r"^(?:\S+ ){0,4}\[?(?:Error|ERROR|FATAL|Fatal|CRITICAL)\]?:? (?!\[)(?=\S)",
          r"\blevel=(?:ERROR|error|FATAL|fatal)\b", r"^[\w./+-]+: (?:fatal )?error: ",
          r"^\[(?:ERROR|CRITICAL|FATAL):[\w.-]+\] \S",
          r"(?:Segmentation fault|Illegal instruction|Floating point exception|Aborted)(?: \(core dumped\))?\s*$",
          # e-host2: not torch elastic's row for a rank the signal ended (`traceback : Signal 11 (SIGSEGV) received by
          # PID N`): the launcher's teardown (child-failed), which names the first failure's signal
          r"(?<!Signal 11 \()\bSIGSEGV\b|exit code 139\b", r"段错误|核心已转储",
          # explain-rocm: zsh's and job control's words for a crashed child (`zsh: segmentation fault  python x.py`,
          # `[1]    78714 segmentation fault (core dumped)  python x.py`)
          r"^(?:zsh|bash|sh): (?:segmentation fault|abort|illegal hardware instruction|bus error|IOT instruction)\b",
          r"^\[\d+\]\s+\d+ (?:segmentation fault|abort|illegal hardware instruction|bus error|IOT instruction)\b",
          # ex-rocm: Windows' words for a native crash (ROCm on Windows, ZLUDA): the Event Log's / a crash handler's
          # exception code (access violation, illegal instruction, integer divide, stack overflow, fail-fast) and
          # the exit code an IDE or shell prints for it
          r"(?i:\bexception code:?\s*0xc0000(?:005|01d|094|0fd|409)\b)",
          r"exit(?:ed with)? code:?\s*(?:-1073741819|3221225477|-1073741795|-1073741676|-1073740791)\b"),
         ("Error", "Exception", "Segmentation fault", "Fatal Python", "terminate called", "ERROR", "FATAL", "Fatal",
          "CRITICAL", "error", "Illegal instruction", "Floating point", "Aborted", "SIGSEGV", "exit code 139",
          "段错误", "核心已转储", "segmentation fault", "abort", "illegal hardware instruction", "bus error",
          "IOT instruction", "xception code", "XCEPTION CODE", "exit code", "exited with code")),
)

BY_CODE: dict[str, Signature] = {s.code: s for s in SIGNATURES}
assert len(BY_CODE) == len(SIGNATURES), "catalogue codes must be unique"
assert all(s.family in FAMILIES for s in SIGNATURES)

_KEYWORDS: tuple[str, ...] = tuple(dict.fromkeys(k for s in SIGNATURES for k in s.keywords))
# Literal substrings that find every keyword's lines with a few dozen C-speed `bytes.find` passes (one
# regex alternation of all keywords is ~100x slower in `re`). Each keyword contains one of them; a
# keyword added later that contains none becomes its own sentinel (below).
_SCAN = ["rror", "xception", "emory", "ALLOC", "kill", "Kill", "KILL", "exitcode", "return code", "signal",
         "iommu", "barrier", "Watchdog", "imeout", "aborted", "nccl", "endezvous", "timed out", "process group",
         "variable ready", "reduction", "producing loss", "loss scale", "OVERFLOW", "verflow", "nan", "NaN", "NAN",
         "bf16", "loat16", "device function", "device code", "Tensile", "available", "NVIDIA driver",
         "compiled with", "APERTURE", "assert", "kernel image", "BLASLt", "bitsandbytes", "Token indices",
         "use_cache", "initialized", "reentrant", "TypedStorage", "Plugin", "rccl-net", "ninja", "dskernels",
         "ds_opt_adam", "CUDA_HOME", "shared object", "required for", "import name", "dataset", "Dataset",
         "KeyError", "not currently imported", "Check batch", "unscale", "require grad", "base model", "couldn't connect",
         "gated repo", "Repository Not Found", "Max retries", "model_type", "not registered",
         "valid samples", "not found", "Unable to find", "emplate", "padding token", "Permission denied",
         "-rw-------", "ecognize", "adapter_config", "world size", "state_dict", "size mismatch", "checkpoint at",
         "DUE TO", "space left", "Errno", "quota", "StreamWriter", "module named", "FlashAttention", "flash_attn",
         "Segmentation", "Fatal Python", "terminate called", "iommu=pt", "hipErrorNoDevice",
         # short literals that hold many keywords each (issue 26's spellings): fewer passes over a big log
         "NCCL", "RCCL", "rccl", "ERROR", "OUT_OF_", "lloc", "onnect", "mismatch", "F16",
         "f16", "/dev/", "group", "laslt", "LASLT", "lasLT", "amdgpu", "okenizer", "torch._", "lash", "xpected",
         "uggingface", "code", "status", "ncomplete", "Aborted", "SIGSEGV", "Illegal", "Floating", "FATAL", "Fatal",
         "CRITICAL", "Missing CO", "find CO", "parsing"]


def _alternation(words, lookahead: bool = False) -> re.Pattern:
    """One pattern of literal words, the shortest first (at a position it finds the shortest word there)."""
    body = "|".join(map(re.escape, sorted(set(words), key=len)))
    return re.compile(f"(?=({body}))" if lookahead else body)


def _covering(scan: list[str], words) -> list[str]:
    """`scan` plus, in order, every word that holds none of the literals before it (C-speed: one search per word
    with one pattern, instead of a Python loop over hundreds of literals per word)."""
    base = _alternation(scan)
    out = list(scan)
    for w in words:
        if base.search(w) is None and not any(a in w for a in out[len(scan):]):
            out.append(w)
    return out


def _shortest(words: list[str]) -> list[str]:
    """The words, in order, without those that hold another one (a sentinel holding another finds nothing more)."""
    words = list(dict.fromkeys(words))
    rx = _alternation(words, lookahead=True)
    return [w for w in words if all(m.group(1) == w for m in rx.finditer(w))]


_SCAN = _shortest(_covering(_SCAN, _KEYWORDS))
SCAN_SENTINELS: tuple[bytes, ...] = tuple(x.encode() for x in _SCAN)
# The same, case-folded, for a scan of a lower-cased copy of the region: one pass finds every spelling
# (Killed/killed/KILLED, Error/ERROR) and far fewer passes cover all keywords on a big log.
SCAN_FOLDED: tuple[bytes, ...] = tuple(x.encode() for x in _shortest([x.lower() for x in _SCAN]))
# The streaming parser looks for causes (priority root) only on lines holding one of these (cheap).
PARSER_GATE: tuple[str, ...] = ("rror", "xception", "iommu", "fault", "Killed", "DUE TO", "-rw-------",
                                "ninja:", "TensileLibrary", "CPU Virtual Memory", "Kill process", "oom", "OOM",
                                "Cannot allocate", "bad_alloc", "Permission denied", "/dev/kfd", "NCCL WARN",
                                "Connection reset", "Connection closed", "remote process exited", "Tensile",
                                "loss scale", "exit status", "exit code", "memory limit", "LLVM ERROR",
                                "BackendCompilerFailed", "not writable", "Read-only file system",
                                "HSA_NO_SCRATCH_RECLAIM", "No training was carried out",
                                # issue 26 (explain-sw): a shell that cannot find the runner's command
                                "command not found", "未找到命令", "找不到命令", ": not found", "not recognized as an internal",
                                "不是内部或外部命令",
                                # issue 26 (explain-dist): root lines without an error word
                                "Conflicting visibility", "write in your cache folder", "Could not override")
# A handful of literals, cheap to find in the middle of a huge log: every failure line a log ends
# with holds one of them (the sentinels above run on whole head/tail regions, these only in between).
SENTINELS: tuple[bytes, ...] = (b"rror", b"xception", b"Killed", b"out of memory", b"DUE TO", b"Watchdog")


GENERIC = "python-exception"
_WARNING_LINE = re.compile(r"\b(?:Future|User|Deprecation|Runtime|Resource|Import|Syntax|Bytes|PendingDeprecation)"
                           r"Warning: |^\s*warnings\.warn\("
                           # e-benign (issue 26): CPython's warnings.formatwarning (`{file}:{line}: {category}: {msg}`)
                           # for any category a library defines (PossibleUserWarning, TracerWarning, NumbaWarning...)
                           r"|\.py:\d+: (?:[\w.]+\.)?[A-Z]\w*Warning: ")
# Among causes of the same priority, the ones that are most often another rank's or process's
# consequence come after the others (a peer that went away after a rank was SIGKILLed; an exception
# that merely re-raises): lower sorts first.
SECONDARY: dict[str, int] = {"nccl-peer-gone": 1, "rendezvous-timeout": 1, GENERIC: 2,
                             # issue 26 (ex-ver): the compiler wrapper (`BackendCompilerFailed: backend='inductor'
                             # raised:`) re-raises what failed inside it; a cause of its own (an import between
                             # torch and triton, unsloth#3526) found next to it is what to fix
                             "torch-compile-error": 1,
                             "launcher-network-unreachable": 1,   # ex-num: a peer's own failure comes first
                             # h8-cfgerr: DeepSpeed's `N validation error(s) for DeepSpeed*Config` header is read as
                             # versions only when no detail line says the value itself has the wrong type or choice
                             "deepspeed-config-validation": 1}
# explain-r2b: warnings that are a (weak) cause: the GPU runtime failing to start shows only as a UserWarning
WARNING_CAUSES: frozenset[str] = frozenset({"hip-init-failed",
                                            # e-benign: reentrant checkpointing with frozen inputs (no gradient)
                                            "checkpoint-inputs-no-grad",
                                            # ex-num: huggingface_hub's free-space check only warns before the write fails
                                            "hub-download-no-disk-space",
                                            # e-ver: bitsandbytes loading another runtime's library (a warning)
                                            "bnb-rocm-binary-mismatch"})
# r4-swift (issue 26): ms-swift's own logger records (`[INFO:swift] ...`, `[WARNING:swift] ...`, after a timestamp or
# a launcher's rank prefix) are by ms-swift's own judgement not failures: optional back-ends it did not find (`No vLLM
# installed, if you are using vLLM, you will get `ImportError: ...``), features it turned off (`--moe_permute_fusion`
# requires TE >= 2.1.0. Setting to False.`), the rows it skipped. Like a Python warning they are never the root,
# whatever words they hold — except the records that say the run did nothing (SWIFT_RECORD_CAUSES). Its
# `[ERROR:swift]` records are read as any line.
_SWIFT_RECORD = re.compile(r"^(?:\S+ ){0,2}?(?:\[(?:rank|default)\d+\]:\s*)?\[(?:INFO|WARNING):swift\] ")
_RANK_PREFIX = re.compile(r"\[(?:rank|default)\d+\]:")
SWIFT_RECORD_CAUSES: frozenset[str] = frozenset({"no-training-steps",   # `No training was carried out`
                                                 # `Dataset filtered, origin length: N, filtered dataset length: 0`
                                                 "dataset-error"})
# r4-swift (issue 26): DeepSpeed's op-compatibility report at import (` [WARNING]  sparse_attn requires a torch version
# >= 1.5 and < 2.0 but detected 2.1`, `async_io requires the dev libaio .so object ...`), printed by every run that
# imports DeepSpeed (ms-swift's --deepspeed, LLaMA-Factory, accelerate): an op that will not be JIT-built, never a
# failure of its own (a requested DS_BUILD_<OP>=1 that cannot be built is read by the diagnosis from these lines)
_DS_OP_REPORT = re.compile(r"^\s*\[WARNING\]\s+\w+:? (?:requires|is not compatible|cannot|will not be|is not supported|"
                           r"please install)\b")
# signs that count only at the very end of a log (the last lines before it stopped)
END_ONLY: frozenset[str] = frozenset({"nccl-init-then-silence", "log-says-hang", "rendezvous-retry-then-silence",
                                     # r5-run: the JIT-extension step only when the log ends there
                                     "torch-extension-lock-wait"})


# The catch-all exception's family from where it was raised: its last traceback frames (file paths and
# function names) and the exception line, first rule that matches. What a generic exception means
# follows from the library that raised it (a frame in `datasets` is the data, in `huggingface_hub`
# the download), not from its type alone.
# e-gen (issue 26): TrainingArguments fields that transformers releases removed (3.x's evaluate_during_training, gone in
# 4.0; evaluation_strategy, renamed eval_strategy, gone in 4.46; the 5.0 removals: overwrite_output_dir, the per_gpu_*
# batch sizes, no_cuda/use_mps_device -> use_cpu, fp16_backend, the push_to_hub_* trio, logging_dir, ...). An
# HfArgumentParser refusal that names only these is a script or config written for an older transformers
# (diagnose._removed_training_args); checked against transformers 5.24's TrainingArguments, which has none of them.
REMOVED_TRAINING_ARGS: frozenset[str] = frozenset((
    "evaluate_during_training", "evaluation_strategy", "overwrite_output_dir", "per_gpu_train_batch_size",
    "per_gpu_eval_batch_size", "no_cuda", "use_mps_device", "fp16_backend", "push_to_hub_model_id",
    "push_to_hub_organization", "push_to_hub_token", "logging_dir", "use_ipex", "tpu_num_cores", "ray_scope",
    "mp_parameters", "jit_mode_eval", "torchdynamo", "use_legacy_prediction_loop", "fsdp_min_num_params",
    "fsdp_transformer_layer_cls_to_wrap", "include_inputs_for_metrics", "dispatch_batches", "split_batches",
    "save_safetensors", "include_tokens_per_second", "past_index"))

SWIFT_SUBCOMMAND_FIX = (
    "the word after `swift` is not one of ms-swift's subcommands (its CLI router has no route for it): use one it "
    "has - pt, sft, rlhf (DPO/ORPO/SimPO/KTO/GRPO... as `swift rlhf --rlhf_type grpo`), infer, deploy, export, "
    "eval, merge-lora, app / web-ui, sample, rollout (`swift --help`'s list for the installed release); the "
    "subcommand must come first, before any --flag")
SHADOWING_RULES: tuple[tuple[re.Pattern, str, str], ...] = (
    # integrator (session 13): the same shadowing where the import completes but the name is missing - Python prints
    # the file it took the module from (`cannot import name 'interleave_datasets' from 'datasets'
    # (/tmp/ray/.../working_dir_files/_ray_pkg_x/openrlhf/datasets/__init__.py)`: Ray's working_dir put a project's
    # own `datasets` sub-package first on sys.path). The file is outside site/dist-packages and Python's lib, and its
    # folder is neither a checkout's `src/` nor the package's own repository (`DeepSpeed/deepspeed/__init__.py`, an
    # editable install): another project's module of that name.
    (re.compile(r"cannot import name '\w+' from '(\w+)' " + _shadowing_file(r"\1")), "config_error",
     "a file or folder of yours has the name of a package the code imports (e.g. datasets.py or a transformers/ folder "
     "next to the script, or in the working directory): Python imports it instead of the installed package; rename "
     "it (and delete its __pycache__), then rerun"),
)
EXCEPTION_RULES: tuple[tuple[re.Pattern, str, str], ...] = (
    # e-cfg4 (issue 26): the run's own config file is not where the command line says (a YAML/TOML recipe, a
    # DeepSpeed/accelerate/FSDP JSON named on the command line or in the recipe): the path in the settings. A model's
    # config.json and a data file's JSON are not these (their readers' rules decide)
    (re.compile(r"(?:FileNotFoundError|No such file or directory)\b[^\n]*['\"](?:[^'\"\n]*/)?(?:[^'\"\n/]+\.(?:ya?ml|toml)|"
                r"(?:ds|deepspeed|zero|z[0-3]|fsdp|accelerate)[\w.-]*\.json|[\w.-]*(?:ds|deepspeed|zero\d?|fsdp)_?"
                r"config[\w.-]*\.json)['\"]\s*$"), "config_error",
     "the config file the command line (or the recipe) names is not there: give the path that exists (relative "
     "paths are taken from the directory the launch runs in; a job's working directory may not be the submit one)"),
    # e-g910 (issue 26): transformers' auto classes looking the checkpoint's model_type up (configuration_auto.py
    # from_pretrained: `config_class = CONFIG_MAPPING[config_dict["model_type"]]`, _LazyConfigMapping.__getitem__
    # `raise KeyError(key)`, before 4.29 with no ValueError around it; auto_factory.py _LazyAutoMapping.__getitem__
    # for a config class the auto class has no model for): the model type is unknown to the installed release,
    # whatever the type's name
    (re.compile(r"(?:configuration_auto\.py (?:__getitem__|from_pretrained|for_model)|auto_factory\.py __getitem__)\n"
                r"(?:[^\n]*\n)*[^\n]*\bKeyError: ['<][^\n]*$"), "unrecognized_model_type_adapter",
     "the checkpoint's model_type is newer than the installed transformers (its auto classes have no entry for it): "
     "upgrade transformers to a release that has the model (the model card states the minimum), within the range "
     "the runner accepts; a LoRA adapter directory has no model_type at all: load the base model and the adapter"),
    # e-g4 (issue 26): ms-swift's CLI router (swift/cli/main.py cli_main: `ROUTE_MAPPING[method_name]` in 3.x/4.x,
    # `route_mapping[method_name]` in 2.x) raising KeyError for a first argument that is not one of its subcommands
    # (`swift grpo`, `swift train`, a flag first): the command line, whatever the release
    (re.compile(r"swift[/\\]cli[/\\]main\.py (?:cli_)?main\n[^\n]*\bKeyError: '[^'\n]*'\s*$"), "config_error",
     SWIFT_SUBCOMMAND_FIX),
    # e-ver2 (issue 26): a .py file of the user's that has a package's name shadows the installed package — Python's
    # words for it (Lib/importlib/_bootstrap.py, Python/import.c): `cannot import name 'X' from partially initialized
    # module 'datasets' (most likely due to a circular import) (/work/datasets.py)`, the file outside site-packages
    # and named as the module. Not the versions: the user's files. Before the rule that reads any ImportError as two
    # releases. (Python's `No module named 'a.b'; 'a' is not a package` is left to the versions: a package that was
    # one module in another release says it too)
    (re.compile(r"from partially initialized module '(\w+)' \(most likely due to a circular import\) "
                r"\((?![^)\n]*(?:site|dist)-packages)[^)\n]*[/\\]\1\.py\)"), "config_error",
     "a file or folder of yours has the name of a package the code imports (e.g. datasets.py or a transformers/ folder "
     "next to the script, or in the working directory): Python imports it instead of the installed package; rename "
     "it (and delete its __pycache__), then rerun"),
    # r5-run (issue 26): torch's DTensor dispatcher refusing a plain collective on a tensor-parallel weight
    # (`found no DeviceMesh from dtensor args for c10d.broadcast_.default!` when DDP/FSDP broadcasts the module
    # states; `got mixed torch.Tensor and DTensor`): transformers >= 4.50 builds the model with tensor parallelism
    # when device_map/tp_plan meets a multi-process launch, which runners (ms-swift MP+DDP, LLaMA-Factory, TRL) and
    # scripts written for the older releases then wrap in data parallelism (ms-swift#4019, pytorch#155463,
    # accelerate#3628)
    (re.compile(r"found no DeviceMesh from dtensor args|got mixed torch\.Tensor and DTensor"), "version_check",
     "the model was built with tensor-parallel DTensor weights (transformers >= 4.50 does so when device_map='auto' "
     "or a tp_plan meets a torchrun/accelerate/deepspeed launch) and then handed to DDP/FSDP: install the "
     "transformers release the runner pins (< 4.50 for runners that combine device_map with DDP, or the runner "
     "release that handles it), or drop device_map='auto' in a multi-process run (device_map={'': local_rank})"),
    # r5-run (issue 26): an exception whose own words ask to install a package (ms-swift's `ValueError: Please install
    # `qwen_vl_utils``, `ImportError: Please install flash_attn first: `pip install flash-attn``) — before the rule
    # that reads any ImportError as two releases not matching; a request with a version bound or an upgrade is that
    (re.compile(r"^(?:\S+ )?(?:\[(?:rank|default)\d+\]:\s*)?\w*(?:Error|Exception): [^\n]*[Pp]lease (?:first )?"
                r"(?:pip )?install\b(?![^\n]*(?:[<>=]=|>\s*\d|\bversion\b|-U\b|--upgrade|\bupgrade))", re.M),
     "missing_package",
     "a package the chosen model or feature needs is not installed: install the package the message names (the "
     "version the runner's requirements give)"),
    # r5-run (issue 26): cuDNN's frontend/backend API failing to build an execution plan for a convolution
    # (`RuntimeError: ptrDesc->finalize()`, `cuDNN Frontend error`, CUDNN_BACKEND_* descriptors, `GET/FIND was unable
    # to find an engine`): a defect of the torch wheel's bundled cuDNN for that op and dtype (torch 2.6 conv3d in
    # Qwen2.5-VL's patch embedding, ms-swift#5846), not of the run's settings
    (re.compile(r"ptrDesc->finalize\(\)|cuDNN Frontend error|cudnn_frontend::|CUDNN_BACKEND_\w+_DESCRIPTOR|"
                r"(?:GET|FIND) was unable to find an engine to execute this computation"), "version_check",
     "the cuDNN bundled with this torch wheel cannot run this convolution (a known defect of some torch/cuDNN "
     "pairs, e.g. torch 2.6 with conv3d in bf16): install another torch release (2.7.1 fixed the conv3d case) and "
     "rebuild the extensions built against torch (apex, transformer-engine), or as a stopgap set "
     "torch.backends.cudnn.enabled=False for that step"),
    # e-relabel (FAMILIES.md amended rule 1): a library's code (flash-attn, an extension, a runner) reaching for a torch
    # API the installed torch does not have (`module 'torch.library' has no attribute 'wrap_triton'` raised in
    # flash_attn/ops/triton/rotary.py, `cannot import name 'X' from 'torch.Y'`): that release of the library was made
    # for another torch, whichever component raised it — before the frame rules of the components
    (re.compile(r"^(?:\S+ )?(?:\[(?:rank|default)\d+\]:\s*)?(?:AttributeError: module 'torch(?:\.\w+)*' has no attribute|"
                r"ImportError: cannot import name '\w+' from 'torch(?:\.\w+)*')", re.M), "version_check",
     "the library that raised this was made for another torch release (it calls a torch API the installed torch does "
     "not have): install the library release made for the installed torch (an older one), or the torch it needs"),
    # e-ver2 (issue 26): and any installed package's code reaching for an attribute of another package's module that
    # the installed release of that package lacks (torch/_inductor asking `module 'triton.language' has no attribute
    # ...`, DeepSpeed `module 'numpy' has no attribute 'float'`, flash_attn/ops/triton asking triton): the last frame's
    # package and the module's differ, so the two releases do not fit — before the frame rules of the components
    (re.compile(r"[/\\](?:site|dist)-packages[/\\](\w+)[/\\][^\n]*\n(?:\S+ )?(?:\[(?:rank|default)\d+\]:\s*)?"
                r"AttributeError: module '(?!\1['.])\w+(?:\.\w+)*' has no attribute '\w+'", re.M), "version_check",
     "installed code uses an attribute another release of the module it names has (the two packages are from releases "
     "that do not fit): install the versions the package that raised it pins (e.g. the triton its torch wheel was "
     "built with), or the release of it made for the installed module"),
    # e-skew2 (issue 26): torch.compile refusing the interpreter, as torch's releases spell it (torch/_dynamo/
    # eval_frame.py check_if_dynamo_supported: `Python 3.12+ not yet supported for torch.compile`, later `torch.compile
    # is not supported on Python 3.14+` and `... on Python < 3.13.3 built with GIL disabled`; torch/__init__.py compile
    # in 2.2/2.3: `Dynamo is not supported on Python 3.12+`): the installed torch release predates this Python, whichever
    # library asked for the compile - before the frame rule that reads torch/_dynamo as the compile settings
    (re.compile(r"Python 3\.\d+\+ not yet supported for torch\.compile|(?:Dynamo|torch\.compile) is not supported on "
                r"Python (?:3\.\d+\+|< ?3\.[\d.]+ built with GIL disabled)"), "version_check",
     "the installed torch release does not support torch.compile on this Python (each release's TorchDynamo supports "
     "the Pythons released before it: torch >= 2.4 for 3.12, >= 2.6 for 3.13, a later one for 3.14): install a torch "
     "release that supports this Python (with the matching extensions), or run under the Python the torch release "
     "supports; or turn compilation off (torch_compile: false, TORCHDYNAMO_DISABLE=1)"),
    # e-skew2 (issue 26): pickle finding no class of the recorded name in an installed package's module (Lib/pickle.py
    # find_class, _pickle.c: `Can't get attribute 'X' on <module 'a.b' from '.../site-packages/a/b.py'>`): the file
    # (a checkpoint's optimizer/scheduler/trainer state, a torch.save'd tokenizer or model) was written with another
    # release of that package, which had the class there - before the frame rules (tokenization_*, datasets)
    (re.compile(r"AttributeError: Can't get attribute '\w+' on <module '[\w.]+' from '[^'\n]*[/\\](?:site|dist)-packages"
                r"[/\\]"), "version_check",
     "the file was pickled with another release of the package the message names (the class it records is not in "
     "the installed module): install the release it was saved with (the one the checkpoint/recipe was made with), or "
     "re-save the file with the installed release (for weights: save a state_dict / safetensors, not the object)"),
    # issue 26 (explain-sw): flash-attn's own checks (`cu_seqlens_q must have dtype int32`, head dims) from its frames
    (re.compile(r"[/\\]flash_attn[/\\]|flash_attn_interface\.py|flash_attn_\w*cuda"), "flash_attn_error",
     "FlashAttention rejected this call (dtype, head dimension, GPU or build): use sdpa/eager attention or a "
     "flash-attn built for this torch and GPU"),
    # h7-ver (issue 26): an attribute an installed library's own code expects of an object of its dependency, raised in
    # that library (the last frame is under site-packages) — API drift between two releases, before the rules that
    # read a frame's subject (a tokenizer file, the data code, torch.compile, DeepSpeed's engine, the hub client):
    # `'ChatGLMTokenizer' object has no attribute 'sp_tokenizer'` in tokenization code, `'CompiledKernel' object has no
    # attribute 'launch_metadata'` in torch/_inductor are the releases, not the tokenizer or the compile settings.
    # Not Python's own types (a None or a str where an object was expected is a value, not an API)
    (re.compile(r"[/\\](?:site|dist)-packages[/\\]\w+[/\\][^\n]*\n(?:\S+ )?(?:\[(?:rank|default)\d+\]:\s*)?"
                r"AttributeError: '(?!NoneType'|str'|int'|float'|bool'|list'|dict'|tuple'|bytes'|set')\w+' object has no "
                r"attribute '\w+'" + _DID_YOU_MEAN + r"\s*$", re.M), "version_check",
     "an installed library's code expects an attribute another release of its dependency has: install the versions "
     "the runner pins (or the release of the library made for the dependency you have)"),
    # explain-dist (issue 26): torch's per-GPU RNG generators indexed past torch.cuda.device_count(). Restoring a
    # checkpoint's RNG states (set_rng_state_all) saved with more GPUs than are visible now is the checkpoint; any
    # other use means the process was told a GPU index its *_VISIBLE_DEVICES does not show.
    (re.compile(r"torch/cuda/random\.py set_rng_state(?:_all)?\n(?:.*\n)*.*IndexError: tuple index out of range"),
     "checkpoint_resume_mismatch",
     "the checkpoint's RNG states are for more GPUs than this run sees: resume with the same number of GPUs, or "
     "remove rng_state*.pth from the checkpoint"),
    # e-cfg4 (issue 26): the optimizer's or the LR schedule's arithmetic on a hyper-parameter that is a string (YAML
    # 1.1 reads `1e-4` without a dot as a str, a JSON/CLI value quoted): torch/optim's checks and step, transformers'
    # optimization.py lambdas, torch's lr_scheduler
    (re.compile(r"(?:torch[/\\]optim[/\\]\S+|transformers[/\\]optimization\.py) \w+\n(?:[^\n]*\n)*[^\n]*TypeError: "
                r"(?:unsupported operand type\(s\) for [^:\n]+:|'[<>]=?' not supported between instances of) "
                r"'(?:float|int|str)' and '(?:float|int|str)'"), "config_error",
     "a numeric hyper-parameter (learning rate, eps, weight decay, warmup) reached the optimizer/scheduler as a string: "
     "write it as a number (YAML 1.1 reads `1e-4` as text - write `1.0e-4`; no quotes in JSON or on the command line)"),
    (re.compile(r"torch/cuda/random\.py \w+\n(?:.*\n)*.*IndexError: tuple index out of range"), "config_error",
     "a process addressed a GPU index beyond torch.cuda.device_count(): set the *_VISIBLE_DEVICES variables "
     "consistently per process (on ROCm HIP_VISIBLE_DEVICES, not only CUDA_VISIBLE_DEVICES) and use the local rank"),
    (re.compile(r"torch/_inductor/|torch/_dynamo/|/triton/|torch\.compile"), "config_error",
     "torch.compile / Triton failed here: run without compilation (torch_compile: false, TORCHDYNAMO_DISABLE=1) or "
     "install the Triton that matches the PyTorch build"),
    # ex-rocm: DeepSpeed's op builder wherever DeepSpeed sits (site-packages/deepspeed/ops/op_builder, a source
    # checkout's op_builder/, pip's /tmp/pip-install-*/deepspeed_*/op_builder/) and torch's hipify (the ROCm step of
    # every extension build): whatever the exception, the op build failed there
    (re.compile(r"(?:^|[/\\\s])op_builder[/\\]\w+\.py|torch[/\\]utils[/\\](?:cpp_extension\.py|hipify[/\\])"),
     "deepspeed_build_jit",
     "a JIT-built extension failed: install the compiler and CUDA/ROCm headers matching torch, or prebuild the op"),
    # ex-rocm: DeepSpeed's own checks of its config and of the launch (DeepSpeedConfigError, ZeRORuntimeException,
    # deepspeed/runtime/config*.py, zero/config.py, the launcher's runner.py): a setting DeepSpeed rejects
    (re.compile(r"\b(?:DeepSpeedConfigError|ZeRORuntimeException)\b|deepspeed[/\\](?:runtime[/\\](?:config|config_utils|"
                r"zero[/\\](?:config|offload_config))\.py|launcher[/\\]runner\.py)"), "config_error",
     "DeepSpeed rejected a setting of its config or launch: correct the key the message names in the DeepSpeed "
     "JSON (or the runner's deepspeed options)"),
    # ex-rocm: DeepSpeed's engine setting itself up from the config (_configure_*, its sanity checks) and DeepSpeed's
    # runtime asserting a precondition (ZeRO stage vs pipeline, the optimizer object, the NVMe path): the run's
    # DeepSpeed settings or the objects handed to deepspeed.initialize do not fit each other
    (re.compile(r"deepspeed[/\\]runtime[/\\]engine\.py (?:_configure_(?!distributed_model)\w+|_do_\w*sanity_check)\b|"
                r"deepspeed[/\\]runtime[/\\][^\n]*\n(?:[^\n]*\n)*(?:\S+ )?(?:\[(?:rank|default)\d+\]:\s*)?AssertionError: "),
     "config_error",
     "DeepSpeed's runtime refused this combination of settings (or an object passed to deepspeed.initialize): change "
     "the setting the message names (ZeRO stage, offload device/nvme_path, optimizer/scheduler in the DeepSpeed JSON "
     "or the runner)"),
    # ex-rocm: DeepSpeed loading a checkpoint (its checkpoint engine, the universal-checkpoint code, the engine's load
    # path): the checkpoint on disk does not fit this run
    (re.compile(r"deepspeed[/\\](?:runtime[/\\]checkpoint_engine|checkpoint)[/\\]|deepspeed[/\\]runtime[/\\]engine\.py "
                r"(?:load_checkpoint|_load_checkpoint|_load_zero_checkpoint|load_module_state_dict|_get_all_ckpt_names)\b"),
     "checkpoint_resume_mismatch",
     "DeepSpeed could not load this checkpoint for this run: resume with the same ZeRO stage, world size and model, "
     "or convert it (zero_to_fp32.py / universal checkpoint) first"),
    # r3-ver (issue 26): a model's remote code (~/.cache/huggingface/modules/transformers_modules/) reaching for an
    # attribute the installed transformers' objects no longer (or not yet) have — `'DynamicCache' object has no
    # attribute 'get_max_length'`, ChatGLM's tokenizer under transformers >= 4.34 — was written against another
    # transformers release, also when the remote file is a tokenizer (before the tokenizer rule)
    (re.compile(r"[/\\]transformers_modules[/\\][^\n]*\n(?:\S+ )?(?:\[(?:rank|default)\d+\]:\s*)?AttributeError: '?\w+'? "
                r"object has no attribute '\w+'" + _DID_YOU_MEAN + r"\s*$", re.M),
     "version_check", "the model's remote code was written for another transformers release: install the transformers "
     "version its model card names (or a revision of the model made for the installed transformers)"),
    # e-new14: not a frame of code kept in ModelScope's cache (~/.cache/modelscope/hub/<repo>/modeling_x.py, its
    # _github/ checkouts): that is the model's code running, not the download
    (re.compile(r"huggingface_hub/|(?<!\.cache[/\\])modelscope/hub/|snapshot_download|hf_hub_download|file_download\.py|safetensors"),
     "model_download", "fetching or reading the model files failed: download again to a local directory and point "
     "the run at it"),
    (re.compile(r"tokenization_\w+\.py|chat_template|jinja2/|jinja2\.exceptions|apply_chat_template"), "tokenizer_template",
     "the tokenizer / chat template failed: check the template name and the tokenizer's chat_template"),
    # r3-ver (issue 26): torch's default collate (torch/utils/data/_utils/collate.py) failing to batch the samples
    # (`stack expects each tensor to be equal size`, mixed types): the samples differ in length or type and nothing
    # pads them — the data and its collator, whatever the exception
    (re.compile(r"torch[/\\]utils[/\\]data[/\\]_utils[/\\]collate\.py"), "dataset_error",
     "the samples of a batch differ in length or type: pad them with a collator (DataCollatorWithPadding / "
     "DataCollatorForSeq2Seq, padding='longest') or truncate them to one length, and check every sample has the same "
     "fields"),
    # ex-ver (issue 26): and the runners' own data packages (swift/llm/dataset/preprocessor/core.py,
    # axolotl/utils/data/sft.py): a user's path with a data/ folder in it is not one
    (re.compile(r"/datasets/|/data/(?:loader|converter|template|parser|processor|collator|preprocess)\w*\.py|"
                r"dataset_info|_dataset\w*\.py|encode_dataset|preprocess_\w+|DataCollator|data_collator|"
                r"\b(?:swift|llamafactory|axolotl|torchtune|trl|verl|openrlhf)[/\\](?:\w+[/\\])*?(?:datasets?|data)[/\\]"),
     "dataset_error", "reading or formatting the dataset failed: check the file, its columns and the dataset "
     "settings"),
    (re.compile(r"^(?:\S+ )?(?:\[(?:rank|default)\d+\]:\s*)?(?:ImportError|ModuleNotFoundError)\b|module '[\w.]+' has "
                r"no attribute|got an unexpected keyword argument|takes (?:from \d+ to )?\d+ positional arguments? but \d+ (?:were|was) "
                r"given|"
                # issue 26 (explain-sw): a call between two libraries with another release's signature, and an
                # attribute a library's own object lacks when raised inside that library (API drift)
                r"missing \d+ required (?:positional|keyword-only) arguments?: '|"
                # h7-ver (issue 26): any installed package, not a list of them (the first ones: transformers,
                # accelerate, peft, trl, deepspeed, torch, diffusers, bitsandbytes, vllm, the runners; explain-r2a
                # added the libraries that patch or wrap another one's classes): an attribute an installed library's
                # own code expects of an object is the API of another release whichever library it is
                # e-ver (issue 26): the runners and libraries installed editable from a checkout (`pip install -e .`:
                # /work/LLaMA-Factory/src/llamafactory/..., ms-swift/swift/..., DeepSpeed/deepspeed/...) are installed
                # code as much as site-packages
                r"(?:[/\\](?:site|dist)-packages[/\\]\w+[/\\]|[/\\](?i:LLaMA-Factory|LlamaFactory|ms-swift|axolotl|trl|"
                r"transformers|peft|accelerate|DeepSpeed|verl|OpenRLHF|unsloth|torchtune|Megatron-LM)[/\\](?:src[/\\])?"
                r"(?:llamafactory|swift|axolotl|trl|transformers|peft|accelerate|deepspeed|verl|openrlhf|unsloth|"
                r"torchtune|megatron)[/\\])[^\n]*\n"
                r"(?:[^\n]*\n)*(?:\S+ )?(?:\[(?:rank|default)\d+\]:\s*)?AttributeError: '?\w+'? object has no attribute "
                r"'\w+'" + _DID_YOU_MEAN + r"\s*$", re.M), "version_check",
     "the installed library versions do not match what the code expects: install the versions the runner pins"),
    # e-g8 (issue 26): the trainer source unsloth generated from the installed TRL's (unsloth/models/rl.py via
    # unsloth_zoo/compiler.py create_new_function, written to unsloth_compiled_cache/Unsloth<X>Trainer.py) does not
    # compile or refers to a name the rewrite lost, raised in that file (the last frame): TRL's source is not the one
    # the installed unsloth was written for (the code unsloth-trainer-patch-failed reads unsloth's own words for it)
    (re.compile(r"unsloth_compiled_cache[/\\]Unsloth\w*(?:Trainer|Config)\.py \S+\n"
                r"(?:\S+ )?(?:\[(?:rank|default)\d+\]:\s*)?(?:SyntaxError|IndentationError|TabError|NameError)\b"),
     "version_check", "the trainer unsloth rewrote from the installed TRL's source is invalid (unsloth_compiled_cache/"
     "Unsloth*Trainer.py): the installed TRL is not a release this unsloth supports; upgrade unsloth and unsloth_zoo "
     "together (`pip install -U unsloth unsloth_zoo`) or pin TRL to the range the installed unsloth supports, then "
     "delete the unsloth_compiled_cache/ folder"),
    # explain-r2a (issue 26): a name a library's own code uses is undefined where it was raised (the last frame is
    # installed code or a model's remote code): that code was written against another release of what it imports
    # (unsloth#1179: `NameError: name 'Unpack' is not defined` after installing transformers from main). In the
    # user's own script a NameError is the script's bug, not the versions.
    (re.compile(r"(?:[/\\](?:site|dist)-packages[/\\]|[/\\]transformers_modules[/\\])[^\n]*\n"
                r"(?:\S+ )?(?:\[(?:rank|default)\d+\]:\s*)?NameError: name '\w+' is not defined" + _DID_YOU_MEAN + r"\s*$", re.M),
     "version_check", "installed library code refers to a name its dependency does not provide in the installed "
     "release: install the versions the library pins (or the release of it made for the dependency you have)"),
    # e-ver (issue 26): a tuple unpacked where it was raised in installed code or a model's remote code (the last frame)
    # has another length than that code expects: what it called returns another arity in the installed release (GLM-4's
    # remote modeling_chatglm.py `cache_k, cache_v = kv_cache` under transformers' newer cache, zai-org/GLM-4#301/#623;
    # xformers' flash.py unpacking `_C_flashattention.fwd(...)` from another flash-attn build, facebookresearch/
    # xformers#1188). In the user's own script it is the script's.
    (re.compile(r"(?:[/\\](?:site|dist)-packages[/\\]|[/\\]transformers_modules[/\\])[^\n]*\n"
                r"(?:\S+ )?(?:\[(?:rank|default)\d+\]:\s*)?ValueError: (?:too many|not enough) values to unpack "
                r"\(expected \d+", re.M),
     "version_check", "installed code (or the model's remote code) unpacks a result of another length than what it "
     "called returns in the installed release: install the versions the code was written for (the model card's "
     "transformers version for remote code; the library's pinned dependency otherwise)"),
    # e-skew (issue 26): a call in installed code that gives one parameter twice (`TypeError: init_process_group() got
    # multiple values for keyword argument 'backend'` in accelerate/state.py, called by a transformers whose
    # TrainingArguments passes backend= through the kwargs accelerate also sets; FastChat#485): the caller was written
    # for another release of the callee's library. Raised in the user's own script it is the script's.
    (re.compile(r"[/\\](?:site|dist)-packages[/\\][^\n]*\n(?:\S+ )?(?:\[(?:rank|default)\d+\]:\s*)?TypeError: "
                r"[\w.]+\(\) got multiple values for (?:keyword )?argument '\w+'", re.M),
     "version_check", "installed code passes one parameter twice to another library's function (a keyword the "
     "callee's installed release also sets): the two libraries are from releases that do not fit; install the "
     "versions the runner pins (transformers with the accelerate release it was made with)"),
    # r3-ver (issue 26): Python could not even compile a module of an installed library (`match` statements, PEP 604/
    # 695 syntax, f-string forms of a newer Python): the library needs a newer interpreter than the environment's. In
    # the user's own script a SyntaxError is the script's.
    (re.compile(r"[/\\](?:site|dist)-packages[/\\][^\n]* <syntax>\n(?:\S+ )?(?:\[(?:rank|default)\d+\]:\s*)?"
                r"SyntaxError: "),
     "version_check", "installed library code uses syntax of a newer Python than this environment runs: create the "
     "environment with the Python the library requires (3.10+ for current transformers/TRL/LLaMA-Factory) or pin a "
     "release of the library that supports this Python"),
    # r3-ver (issue 26): the library's own words say the argument or name was removed/deprecated in a release, or is
    # no longer supported and names its successor (transformers' training_args `evaluation_strategy` was removed in
    # version 4.46`, accelerate's `dispatch_batches` was deprecated since version 1.0`, TRL's `max_seq_length` is no
    # longer supported ... Use `max_length` instead`): written for another release, before the argument-check frames
    (re.compile(r"^(?:\S+ )?(?:\[(?:rank|default)\d+\]:\s*)?\w*(?:Error|Exception|Warning):[^\n]*(?:\b(?:was|were|has been|"
                r"have been|is|are) (?:removed|deprecated)\b[^\n]{0,40}?\b(?:in|since|as of|from) (?:version |v)?\d|"
                r"\bis no longer (?:supported|accepted|available)\b[^\n]{0,80}\b[Uu]se\b)", re.M),
     "version_check", "the code or config was written for another release of the library: use the name the message "
     "gives for the installed release, or install the release the code was written for"),
    # h7-ver (issue 26): a library object refusing an operation it once allowed and naming its replacement in a
    # NotImplementedError (tensordict >= 0.7: `TensorDict does not support membership checks with the `in` keyword.
    # ... please use `key in tensordict.keys()` instead.`): the calling code was written against an older release of
    # that library (verl on linux-arm64 got a newer tensordict than its pin, verl FAQ)
    (re.compile(r"^(?:\S+ )?(?:\[(?:rank|default)\d+\]:\s*)?NotImplementedError:[^\n]*\b(?:does not|doesn't|no longer) "
                r"supports?\b[^\n]*\b[Pp]lease use `[^`\n]+` instead\b", re.M),
     "version_check", "the calling code was written for another release of the library that raised this (the "
     "operation it refuses was allowed there): install the release the calling code pins, or change the call to the "
     "one the message names"),
    # r4-swift (issue 26): ms-swift's template refusing a row longer than --max_length (3.x: `swift.llm.template.base.
    # MaxLengthError: Current length of row(7756) is larger than the max_length(4096).`, raised in _encode_truncated
    # under truncation_strategy delete/raise; 2.x: `Please check if the max_length is appropriate.`): the data holds
    # samples longer than the run allows
    (re.compile(r"\bMaxLengthError\b|\bis larger than the max_length\(\d+\)|"
                r"Please check if the max_length is appropriate"),
     "dataset_error",
     "rows of the dataset are longer (in tokens, images included) than --max_length: raise max_length, or set "
     "--truncation_strategy left/right to cut them, or drop the over-long rows from the data"),
    # ex-ver (issue 26): ms-swift 3's argument classes live in swift/llm/argument/*_args.py (and megatron's in
    # swift/megatron/argument/): their __post_init__ checks are the run's settings
    (re.compile(r"hf_argparser\.py|training_args\.py|hparams/parser\.py|/arguments?\.py|argument_parser|"
                r"_check_arguments|check_\w*args|validate_\w*config|[/\\]argument[/\\](?:\w+[/\\])?\w+_args\.py|"
                # h8-cfgerr (issue 26): the config systems' own code — torchtune's config package (_parse,
                # _instantiate, _validate, _utils), OmegaConf and Hydra's config loading/composition
                r"torchtune[/\\]config[/\\]_\w+\.py|[/\\]omegaconf[/\\]\w+\.py|hydra[/\\]_internal[/\\]\w+\.py"),
     "config_error",
     "the run's arguments were rejected: correct the setting the message names"),
    # r3-misc (issue 26): a library's config dataclass checking itself — PEFT's LoraConfig/LoftQConfig, TRL's
    # SFTConfig/GRPOConfig/DPOConfig, accelerate's plugins, any `*config*.py` / `*_args.py` / `*arguments*.py`
    # `__post_init__` (or a `validate*` method there): the settings the user passed were refused
    # (not transformers' model `configuration_*.py`: a model's config refusing its file is a version matter)
    # and accelerate's launcher refusing its launch settings (`_validate_launch_command`, `prepare_*_env/_cmd`)
    (re.compile(r"[/\\](?!configuration_)(?:\w*[cC]onfig\w*|\w*_args|\w*arguments\w*)\.py "
                r"(?:__post_init__|_?validate\w*)$|"
                r"accelerate[/\\](?:commands|utils)[/\\]launch\.py (?:_validate\w*|prepare_\w+)$", re.M),
     "config_error",
     "the run's arguments were rejected: correct the setting the message names"),
    # e-cfgerr (issue 26): the checks a library runs on the run's settings before the first step, by the frame that
    # raised — whatever the words: a trainer class refusing its arguments in __init__ (TRL's grpo_trainer.py `The
    # global train batch size (7 x 1) must be evenly divisible by the number of generations per prompt (8)`, ms-swift's
    # swift/trainers/rlhf_trainer/grpo_trainer.py the same), with a ValueError/AssertionError/TypeError whose words are
    # not about the tokenizer or the data (those are read by the rules for them); transformers' DeepSpeed integration
    # reconciling the DeepSpeed JSON with TrainingArguments (transformers/deepspeed.py, integrations/deepspeed.py
    # deepspeed_init / deepspeed_optim_sched / trainer_config_process|finalize: `ZeRO Offload can only work with
    # DeepSpeed optimizers`); accelerate's dataclasses.py plugins checking themselves (__post_init__, set_*); vLLM's
    # SamplingParams/EngineArgs verifying the values the runner passed (sampling_params.py _verify_args: `max_tokens
    # must be at least 1, got 0`, engine/arg_utils.py)
    (re.compile(r"[/\\]\w*[Tt]rainer\w*\.py __init__\n(?:\S+ )?(?:\[(?:rank|default)\d+\]:\s*)?"
                r"(?:ValueError|AssertionError|TypeError): (?![^\n]*(?i:tokeni[sz]|processor|pad_token|eos_token|chat.?template|"
                r"dataset|column|sample|label))|"
                r"transformers[/\\](?:integrations[/\\])?deepspeed\.py (?:deepspeed_init|deepspeed_optim_sched|"
                r"trainer_config_process|trainer_config_finalize|fill_match|fill_only)$|"
                r"accelerate[/\\]utils[/\\]dataclasses\.py (?:__post_init__|set_\w+|_?validate\w*)$|"
                r"vllm[/\\](?:sampling_params\.py (?:_verify\w*|__post_init__)|engine[/\\]arg_utils\.py \w+|"
                # vLLM's engine checking a request against the engine's settings (`The decoder prompt (length 40127)
                # is longer than the maximum model length of 32768. Make sure that `max_model_len` is no smaller than
                # the number of text tokens.`, vllm/engine/llm_engine.py, v1/engine/processor.py)
                r"(?:v1[/\\])?engine[/\\](?:llm_engine|processor)\.py _validate_model_inputs?)$|"
                # torchrun's own argument handling (torch/distributed/run.py determine_local_world_size: `Unsupported
                # nproc_per_node value: gpus`, config_from_args, parse_min_max_nnodes)
                r"torch[/\\]distributed[/\\](?:run|launch)\.py (?:determine_local_world_size|config_from_args|"
                r"parse_min_max_nnodes|parse_args|get_args_parser|_get_logs_specs_class)$", re.M),
     "config_error",
     "the library refused the run's settings before the first step: change the setting the message names (batch "
     "sizes that must divide each other, an optimizer or offload combination, a length limit)"),
    # ex-num (issue 26): raised by the frames that restore a checkpoint into the run — torch's own load_state_dict
    # (optimizer, module), DeepSpeed's engine and ZeRO restore, accelerate's load_state, the HF Trainer's resume steps,
    # Lightning's restore, torch.distributed.checkpoint — whatever the exception's type: the checkpoint does not fit
    # the model/optimizer/parallel layout this run built
    (re.compile(r"torch[/\\](?:optim[/\\]optimizer|nn[/\\]modules[/\\]module)\.py load_state_dict|"
                r"deepspeed[/\\]runtime[/\\]\S+ (?:load_checkpoint|_load_checkpoint|_load_zero_checkpoint|"
                r"load_module_state_dict|_load_optimizer_state|load_state_dict)|"
                r"accelerate[/\\]\S+ load_(?:accelerator_)?state|"
                r"transformers[/\\]trainer\.py _load_(?:from_checkpoint|optimizer_and_scheduler|rng_state|best_model)|"
                r"lightning[/\\]\S+ (?:restore\w*|_restore\w*|load_checkpoint)|torch[/\\]distributed[/\\]checkpoint[/\\]"),
     "checkpoint_resume_mismatch",
     "the checkpoint does not fit what this run built (model, optimizer parameter groups, ZeRO/parallel layout): "
     "resume with the same model, trainable parameters and number of GPUs it was saved with, or load the weights "
     "only and start the optimizer fresh"),
    # e-src (issue 26): torch.nn.DataParallel's own steps failing on what it is given (torch/nn/parallel/comm.py
    # scatter: `chunk expects at least a 1-dimensional tensor` for a 0-dim input such as the Trainer's
    # num_items_in_batch; scatter_gather.py / gather: `Gather got an input of invalid size`; data_parallel.py forward's
    # device check): the single-process multi-GPU wrapper the HF Trainer (and scripts) use when a plain `python` run
    # sees several GPUs — not a replica's own error (parallel_apply re-raises those `in replica N`)
    (re.compile(r"torch[/\\]nn[/\\]parallel[/\\](?:comm|scatter_gather|data_parallel|replicate)\.py "
                r"(?:scatter\w*|gather\w*|_scatter\w*|forward|replicate|_broadcast\w*|broadcast\w*)$", re.M),
     "ddp_error",
     "torch.nn.DataParallel (one process driving several GPUs) could not split or gather this batch: launch with "
     "torchrun / accelerate launch (DDP, one process per GPU), or make one GPU visible (CUDA_VISIBLE_DEVICES=0, on ROCm "
     "HIP_VISIBLE_DEVICES=0) so the Trainer does not wrap the model in DataParallel"),
)
# ex-num (issue 26): when no frame decides, the statement the traceback shows last (the source line under the last
# frame) and the exception's type: a lookup/shape error raised by the statement that reads a checkpoint or state dict
# (`optimizer.load_state_dict(checkpoint["optimizer"])`, `torch.load(...)["model"]`) means the checkpoint lacks or
# shapes differently what this code expects — whoever wrote the loop (llama2.c, a user's train.py).
STATEMENT_RULES: tuple[tuple[re.Pattern, re.Pattern, str, str], ...] = (
    (re.compile(r"\b(?:load_state_dict|load_checkpoint|load_from_checkpoint|_load_from_checkpoint|load_state|"
                r"set_state_dict|torch\.load)\s*\(|\b(?:checkpoint|ckpt|chkpt|state_dict|model_state\w*|optim\w*_state\w*|"
                r"saved_state\w*)\s*\[\s*['\"]"),
     re.compile(r"\b(?:KeyError|IndexError|ValueError|RuntimeError)\b"), "checkpoint_resume_mismatch",
     "the checkpoint does not hold what this code reads from it (a key, a parameter group, a shape): resume from a "
     "checkpoint written by the same code and settings, or load only the parts it has (weights without the "
     "optimizer state) and start the optimizer fresh"),
    # e-src (issue 26): a runner's `assert` over the run's settings (verl's fsdp_workers.py `assert self.config.actor.
    # ppo_mini_batch_size % self.config.actor.ppo_micro_batch_size == 0`, any `assert args.x ... cfg.y`) that could not
    # even be evaluated because a setting it reads is unset (None) or of the wrong type: Python raises the TypeError
    # of the operator, not the check's message — the configuration lacks that value
    (re.compile(r"^\s*assert\b.*\b(?:config|cfg|conf|args|hparams|params|training_args|\w+_args|\w+_config)\.\w+"),
     re.compile(r"\bTypeError: (?:unsupported operand type\(s\)|'[<>]=?' not supported between|'NoneType' object "
                r"(?:is not|cannot)|\w+\(\) argument must be)"), "config_error",
     "a check of the runner on the run's settings failed to evaluate because a setting it reads is unset (None) or of "
     "the wrong type: set the value the assert names (the runner's example configs give it), or the option that "
     "makes the runner skip that check"),
)
# e-swift2 (issue 26): torch.embedding's CPU bounds check (`IndexError: index out of range in self`) names no table;
# the model's own call above it in the traceback does. (regex of the call, family, fix): the token tables (a token or
# token-type id past the vocabulary: FAMILIES.md rule 5, symptom vs cause) and the learned position table (a
# sequence longer than the model's max_position_embeddings: the run's length setting). The last call shown decides.
EMBEDDING_INDEX_RULES: tuple[tuple[re.Pattern, str, str], ...] = (
    (re.compile(r"\bself\.(?:embeddings\.)?(?:position_embeddings|wpe|embed_positions|pos_embed\w*)\("), "config_error",
     "a sequence is longer than the model's learned position table (max_position_embeddings, 512 for BERT/RoBERTa, "
     "1024 for GPT-2): truncate to that length (tokenizer truncation=True, max_length / cutoff_len / model_max_length "
     "<= max_position_embeddings)"),
    (re.compile(r"\bself\.(?:embeddings\.)?(?:word_embeddings|embed_tokens|wte|tok_embeddings|embed_in|word_emb|"
                r"token_type_embeddings|shared)\("), "tokenizer_template",
     "a token id is past the model's embedding table: tokens were added to the tokenizer without "
     "model.resize_token_embeddings(len(tokenizer)), the tokenizer belongs to another model, or token_type_ids go "
     "past type_vocab_size (RoBERTa-style models take none); check max(input_ids) < model.config.vocab_size"),
)
EMBEDDING_INDEX_ERROR = re.compile(r"\bIndexError: index out of range in self\b")

# When no frame decides: what the exception's own message is about (the last line only).
# e-gen (issue 26): what has releases — a capitalised product name (ROCm, CUDA, Python, PyTorch, cuDNN) or a package's
# own lower-case name — as opposed to a setting (block_size, max_model_len) that a bound in a message may also name
_RELEASED = (r"(?:[A-Z][A-Za-z0-9.+-]*|cu[A-Z]\w*|torch|pytorch|transformers|vllm|numpy|python|triton|deepspeed|accelerate|"
             r"peft|trl|bitsandbytes|xformers|flash[-_]attn|diffusers|pydantic|datasets|megatron-core|rocm|cuda|hip|"
             r"nccl|rccl|glibc|gcc|driver)")

MESSAGE_RULES: tuple[tuple[re.Pattern, str, str], ...] = (
    # e-gen (issue 26): a feature bounded by a release in the message's own words (`Float8_e4m3fn is only supported for
    # ROCm 6.5 and above`, `requires CUDA 11.8 or later`, `needs torch 2.1 or newer`): the installed release is on the
    # wrong side of it — before the settings' `only supported`/`must be` wordings below read it as the configuration
    # (the bound's subject is a product or package — a capitalised name or a package's own name — not a setting such
    # as `block_size 16 and above`)
    (re.compile(r"\b(?:only )?(?:supported|available|works?) (?:for|on|with|in|by|from) (?:[A-Za-z]\w* ){0,2}?" + _RELEASED +
                r" (?:v(?:ersion)?\s*)?\d+(?:\.\d+)*\+?,? (?:and|or) (?:above|later|newer|higher|greater)\b|"
                r"\b(?:requires?|needs?) (?:[A-Za-z]\w* ){0,2}?" + _RELEASED + r" (?:v(?:ersion)?\s*)?\d+(?:\.\d+)*\+?,? or "
                r"(?:above|later|newer|higher|greater)\b"), "version_check",
     "the feature needs a newer release of the library or platform the message names than the one installed: "
     "install a build for that release (for ROCm: the PyTorch wheel built for the newer ROCm), or turn the feature "
     "off"),
    # e-gen (issue 26): an fp8 dtype this GPU's kernels do not take (MI300/gfx942 hipBLASLt uses the fnuz variants
    # float8_e4m3fnuz/e5m2fnuz; gfx950, RDNA4 and NVIDIA the OCP e4m3fn/e5m2; eager ops such as mm/mul/randn have no
    # fp8 kernel at all): `Cannot convert ScalarType Float8_e4m3fn to hipDataType` (pytorch/ao#1066), `"addmm_cuda"
    # not implemented for 'Float8_e4m3fn'` — the dtype the run chose, not the versions
    (re.compile(r"Cannot convert ScalarType Float8_\w+ to \w*DataType|not implemented for '?Float8_\w+'?"),
     "config_error",
     "the run asked for an fp8 dtype variant this GPU (or this op) has no kernel for: on MI300 (gfx942) use "
     "torch.float8_e4m3fnuz/e5m2fnuz, on gfx950/RDNA4/NVIDIA float8_e4m3fn/e5m2, and run fp8 matmuls through "
     "torch._scaled_mm / torchao rather than eager ops"),
    (re.compile(r"\b(?:requires?|required) (?:\w+ )?[\w-]+ ?(?:[<>=]=?|version)|\bversion\b.{0,60}\b(?:installed|"
                r"found|required|supported)|"
                # explain-r2a (issue 26): `X is not supported in this version of vLLM`, `this version of peft does not
                # support ...`, `unsupported by the installed version`
                r"\b(?:not |un)supported (?:in|by|with) (?:this|the (?:current|installed)|your) (?:\w+ )?(?:version|"
                r"release)|\b(?:this|the installed|your) (?:version|release) of [\w.-]+ (?:does not|doesn't|cannot|"
                r"can't) |"
                # r3-ver (issue 26): transformers' check_peft_version (`The version of PEFT you are using is not
                # compatible, please use a version that is greater than 0.5.0`) and a package named in backticks
                # (`Please upgrade `transformers` to the latest version`)
                r"\bversion of [\w.-]+ (?:you are using|you have|installed) is (?:not |in)compatible|"
                r"\b(?:use|install) a version (?:that is )?(?:greater|higher|newer|older|lower) than|"
                # r5-ver (issue 26): two layers of the stack compared by version in the exception's own words (a HIP/
                # CUDA runtime newer than the driver, a library compiled against another torch/ROCm than it runs on)
                r"\b(?:runtime|driver|compiled|built) (?:\w+ )?version\b.{0,80}\b(?:newer|older|higher|lower|"
                r"insufficient|mismatch\w*|does not match|doesn't match|differs?|different)\b|"
                r"(?:upgrade|downgrade|update) (?:your |the )?[`'\"]?(?:\w+ )?[`'\"]?(?:version|package|"
                r"transformers|torch|peft|trl|deepspeed|accelerate)|"
                # h7-ver (issue 26): a bare KeyError naming a field of a Hugging Face model config that one
                # transformers release writes (or keeps in a sub-config's dict) and another does not (`KeyError:
                # 'architectures'` from InternVL/GPTQ code reading llm_config['architectures'] under transformers
                # >= 4.45, ms-swift FAQ): the config and the code reading it are of different releases
                r"^\s*'(?:architectures|auto_map|transformers_version|rope_scaling|(?:llm|text|vision|audio|language)"
                r"_config)'\s*$|"
                # h7-ver: with no frame to read, an attribute missing on an object of a library's own classes (a model,
                # tokenizer, processor, trainer, config, accelerator, engine, cache, state, plugin, scheduler, collator
                # or arguments class): a method or field of another release of that library (`'LlamaForCausalLM'
                # object has no attribute 'enable_input_require_grads'`, `'DynamicCache' object has no attribute
                # 'get_max_length'`)
                r"^\s*'\w+(?:For\w+|PreTrainedModel|Model|Tokenizer(?:Fast)?|Processor|Trainer|Config|Accelerator|"
                r"Engine|Pipeline|Cache|State|Plugin|Scheduler|Collator|Arguments|Args)' object has no attribute "
                r"'\w+'" + _DID_YOU_MEAN + r"\s*$|"
                # e-ver (issue 26): the building blocks transformers' modeling files name after their model
                # (<Model>Attention, <Model>MLP, <Model>DecoderLayer, <Model>RotaryEmbedding, <Model>RMSNorm,
                # <Model>SparseMoeBlock ...): their attributes move between releases (4.48 took rotary_emb out of
                # LlamaAttention), so code patching another release's internals finds them missing
                r"^\s*'[A-Z][a-z]\w*?(?:Attention\w*|MLP|(?:Decoder|Encoder|Vision|Text)?Layer|Block|RotaryEmbedding|"
                r"RMSNorm|LayerNorm|Experts|SparseMoeBlock|MoE\w*)' object has no attribute '\w+'" + _DID_YOU_MEAN + r"\s*$", re.I),
     "version_check",
     "the installed library versions do not match what the code expects: install the versions the runner pins"),
    # r5-run (issue 26): the runners' own raise asking for a package (ms-swift's `Please install `qwen_vl_utils`:
    # `pip install qwen_vl_utils``, LLaMA-Factory's and TRL's `Please install X with `pip install X``, a library's
    # `... requires the X library ... pip install X`): a package the chosen model/feature needs is not installed
    # (an upgrade/downgrade request is the version rule above)
    (re.compile(r"[Pp]lease (?:first )?(?:install|pip install)\b|\brequires? (?:the )?`?[\w.\-]+`? (?:library|package)\b|"
                r"\b(?:is|are) not installed\b|`pip install [\w.\-\[\],]+`"), "missing_package",
     "a package the chosen model or feature needs is not installed: install the package the message names (the "
     "version the runner's requirements give)"),
    (re.compile(r"\b[Tt]okenizer\b|chat[_ ]template|\bpad_token\b|\beos_token\b|special tokens?"), "tokenizer_template",
     "the tokenizer / chat template does not fit: check the template name and the tokenizer's special tokens"),
    # h7-ver (issue 26): with no frame to read, a bare KeyError naming a part a training checkpoint holds (the
    # optimizer/scheduler/model state dicts of a torch.save'd dict) and torch.distributed.checkpoint's own exception:
    # the checkpoint does not hold what the resuming code reads from it
    (re.compile(r"^\s*'(?:optimizer|optim|optimizer_state_dict|model_state_dict|state_dict|lr_scheduler|scheduler|"
                r"scheduler_state_dict|module)'\s*$|\bCheckpointException\b"), "checkpoint_resume_mismatch",
     "the checkpoint does not hold what the resuming code reads from it (a state dict saved by other code or settings, "
     "or a partial save): resume from a checkpoint written by the same code and settings, or load only the weights "
     "and start the optimizer fresh"),
    # before the data rule: a checkpoint index is a .json file, not the dataset
    (re.compile(r"resume_from_checkpoint|\bcheckpoint\b", re.I), "checkpoint_resume_mismatch",
     "the checkpoint does not match this run: resume with the same settings or start fresh"),
    # h8-cfgerr (issue 26): before the data rule, a message that names a setting (backticked snake_case) as one that
    # must be set/given is about the setting even when it mentions the dataset (`max_steps` must be set when the
    # dataset is an iterable dataset)
    (re.compile(r"`[a-z]\w*_\w+` (?:must|has to|needs to|should) be (?:set|specified|provided|given|passed)\b|"
                # e-cfgerr (issue 26): the message names the argument itself (`args.dataset`, `self.dataset`,
                # `--dataset`) as missing or empty — ms-swift 2.x `self.dataset: [], Please input the training
                # dataset.`, `--model is required` — the command lacks the option, not the data its value would name
                r"(?:\bargs\.|\bself\.|(?:^|\s)--)[a-z]\w*\b[^\n]{0,60}?(?:[Pp]lease (?:input|set|specify|provide|pass)\b|"
                r"\b(?:is|are) (?:required|not set|missing|empty)\b|\bcannot be (?:empty|None)\b|"
                r"\bmust be (?:set|specified|provided|given|passed)\b)"),
     "config_error", "a setting of the run is missing: set the one the message names"),
    # ex-ver: `datasets`' split messages (`Unknown split "validation". Should be one of ['train']`, `Instruction 'train'
    # corresponds to no data!`) name no dataset word but are the data's
    (re.compile(r"\b[Dd]atasets?\b|\bcolumns?\b|\bsamples?\b|\.jsonl?\b|\bmessages\b|\bconversations\b|"
                r"\bUnknown split\b|corresponds to no data\b|"
                # h8-cfgerr: `Invalid data split: trainval, possible_splits: [...]`, `Missing split`
                r"\b(?:[Ii]nvalid|[Mm]issing) (?:data(?:set)? )?split\b|\bpossible_splits\b|"
                r"\b(?:assistant|user|system)_message\b|['\"]role['\"]\s*:|<(?:image|video|audio)>"),
     "dataset_error", "the dataset does not have what the run needs: check its file, format and columns"),
    # e-ver3 (issue 26): a flag starts with a letter (`--lr`, `-c`): ` -1` in torch's `index -1 is out of bounds` or
    # `got -2` is a number, not an option of the command line
    (re.compile(r"(?:^|\s)--?[A-Za-z_]\w*|\bargument|must be (?:set|specified|one of|an?)|should be (?:set|one of)|"
                # e-cfgerr (issue 26): a setting's bound in the checks' own words — `num_generations` must be greater
                # than 1, `max_tokens must be at least 1, got 0` (vLLM SamplingParams), `must be between 0 and 1`;
                # a value required for a feature (`The ZeRO stage must be 3 to use offload_param`); a setting named
                # with its value against a limit (`Requested `tensor_parallel_size` 8 is greater than the number of
                # GPUs 4`)
                r"\b(?:must|should|has to|needs? to) be (?:strictly )?(?:greater|larger|smaller|less|bigger|more|"
                r"higher|lower|at least|at most|positive|non-?negative|between|in the range|within)\b|"
                r"\bmust be [^.\n]{1,40}\b(?:to use|when using|if using|for using|to enable|when enabling)\b|"
                # a setting compared with an operator (`max_seq_length (4096) must be <= the model's
                # max_position_embeddings`), a value refused by name (click's BadParameter `Error: Invalid value for
                # 'CONFIG': Path 'x.yml' does not exist.` behind axolotl's CLI), a config key that does not exist
                # (yacs/fvcore `Non-existent config key: ...`)
                r"\b(?:must|should) be (?:<=?|>=?|==|!=) |"
                r"\b[Mm]ake sure (?:that )?`[a-z]\w*_\w+` (?:is|are|has|does)\b|"
                r"\b(?:[Ii]nvalid|[Uu]nsupported|[Uu]nknown) value (?:for|of) (?:env(?:ironment)? var(?:iable)? )?['\"`]?[\w.-]+|"
                r"\b[Nn]on-existent config key\b|"
                r"`[a-z]\w*_\w+`:? \(?\d+\)? (?:is|must be|should be|cannot be) (?:smaller|larger|greater|less|bigger|"
                r"more|higher|lower) than\b|"
                r"(?:not|isn't|is not) supported (?:with|for|when)|cannot be used (?:with|together)|incompatible with|"
                r"only (?:supports?|accepts?|works? (?:with|in|on|for|when)|be used (?:with|in|on|for|when))|[Pp]lease (?:set|specify|use|launch|pass|provide|choose|select)|"
                r"not compatible|(?:cannot|can't|can not)\b.{0,60}\bwith\b.{0,40}\b(?:enabled|on|set)\b|"
                r"`\w+` is (?:smaller|larger|greater|less|bigger) than|"
                # h8-cfgerr: a setting named with its value compared to a limit (`max_length 8192 is larger than the
                # model's max_position_embeddings 4096`), a size that must divide another (`Tensor parallel size (3)
                # must divide the number of attention heads`), and a number the config gave as a string (YAML reads
                # `1e-5` as a str: `'<=' not supported between instances of 'float' and 'str'`, `could not convert
                # string to float`, `invalid literal for int() with base 10: 'auto'`)
                r"\b[a-z]\w*_\w+ \(?\d+\)? (?:is|must be|should be) (?:smaller|larger|greater|less|bigger|more) than\b|"
                r"\bmust (?:evenly )?divide\b|\b(?:cannot|can't|can not) (?:specify|set|pass|use|provide|give) both\b|"
                r"not supported between instances of '(?:float|int)' and 'str'|not supported between instances of 'str' "
                r"and '(?:float|int)'|could not convert string to float: |invalid literal for int\(\) with base 10: |"
                r"\b(?:unknown|invalid|unsupported|unrecognized)\b.{0,40}\b[a-z]\w*_\w+=\S|"
                # h8-cfgerr: a setting's value named as not one the code knows (`Invalid optimizer name: adamw_8bitt`,
                # `Unknown scheduler option 'cosine_warm'`)
                r"\b(?:invalid|unknown|unrecognized) (?:\w+ ){0,2}(?:name|option|choice|mode|strategy|argument|key|"
                r"parameter)s?:? ['\"`]?[\w./-]+|"
                r"Expected all tensors to be on the same device|can only be used on (?:CUDA|GPU)|"
                r"supported (?:types|values|options|choices) are|"
                r"flatten tensors with uniform dtype|Cannot flatten integer dtype|"
                # issue 26 (explain-sw): requirements on a value and the runners' `You passed/You must ...` wording
                r"(?:has|have|must|should|needs?) to be (?:greater|larger|smaller|less|positive|divisible|a multiple|"
                r"an? (?:int|integer|list|string|bool|dict))|(?:is|are) not divisible by|(?:must|should|has to|needs? to) be (?:evenly )?divisible by|"
                r"\bYou (?:passed|set|specified|provided|cannot|can't|can not|must|should|need to)\b|invalid choice|"
                r"only compatible with|at the same time|requires `?[a-z]\w*_\w+`? to be\b|"
                # explain-dist (issue 26): a distributed script started without its launcher / process group; a setting
                # only valid with another (`quantization_bit` is only valid for LoRA training; sample_packing requires
                # flash_attention); the runners' `You have to ...` / `Please either ... or set ...`
                r"Default process group has not been initialized|"
                # h7-ver (issue 26): torch's env:// rendezvous without the launcher's variables (a multi-GPU script run
                # with plain python); two settings that exclude each other in the library's words (`At most one of fp16
                # and bf16 can be True, but not both`, `mutually exclusive`, `Cannot use device_map='auto' with
                # DeepSpeed ZeRO-3`)
                r"\benvironment variable (?:RANK|WORLD_SIZE|MASTER_ADDR|MASTER_PORT|LOCAL_RANK) expected, but not set|"
                r"\bbut not both\b|\bmutually exclusive\b|\bcannot be (?:both|simultaneously) (?:set|enabled|used|True)\b|"
                r"\b(?:cannot|can't|can not) (?:use|be used|enable|combine)\b[^.\n]{0,80}\bwith\b|"
                r"\bis only (?:valid|available|supported|allowed|usable) (?:for|with|when|in|on)\b|"
                r"`?\b[a-z]\w*_\w+`? (?:requires|needs) `?[a-z]\w*_\w+\b|\bYou have to (?:set|specify|pass|use|provide)\b|"
                r"[Pp]lease either (?:use|set|pass|specify|provide)\b|"
                # r3-misc: Python's Enum refusing a setting's value (`'step' is not a valid IntervalStrategy`,
                # SchedulerType, OptimizerNames, FSDP ShardingStrategy, accelerate PrecisionType/DynamoBackend, PEFT
                # TaskType): the run's settings name a choice that does not exist
                r"is not a valid (?-i:[A-Z]\w*(?:Strategy|Type|Names?|Options?|Mode|Policy|Prefetch|Backend))\b|"
                # r3-misc: the runners' refusals of a combination of settings (LLaMA-Factory hparams/parser.py:
                # `neat_packing` cannot be set as True except SFT; Cannot use `a` and `b` together; PPO training
                # does not support evaluation; Please enable `predict_with_generate` ...; Cannot use device map for
                # quantized models in training)
                r"`\w+` cannot be (?:set|used|enabled)\b|\bcannot use\b.{0,80}\btogether\b|"
                r"\b(?:does|do) not (?:yet )?support\b|[Pp]lease (?:enable|disable) `|"
                r"\bcannot (?:use|create|resize|apply)\b.{0,60}\b(?:quantized|adapters?|device map)\b",
                re.I), "config_error",
     "a setting of the run is not accepted: change the one the message names"),
)
# lines that say the process is on an AMD/ROCm stack (a crash without a message is then the GPU runtime's)
ROCM_MARKERS = re.compile(r"\b(?:ROCm|rocm|HIP_VISIBLE_DEVICES|ROCR_VISIBLE_DEVICES|HSA_\w+|gfx\d{3,4}|amdgpu|"
                          r"libamdhip64|libhsa-runtime|MI\d{2,3}X?\b|Radeon|Instinct|hipBLASLt|rocBLAS|MIOpen|RCCL|"
                          r"\+rocm[\d.]+|DCU|Hygon|hy-smi|DTK|dtk-[\d.]+|K100(?:_AI)?|Z100L?|BW1000|"
                          # explain-rocm: hipBLAS/hipify'd names in messages that keep CUDA's wording
                          r"HIPBLAS_\w+|hipblas\w*|HIP_R_\w+|hipify\w*|ZLUDA|zluda|"
                          # ggml's ROCm buffer names (ROCm0 KV buffer, ROCm_Host compute buffer)
                          r"ROCm\d+|ROCm_Host|"
                          # ex-rocm: the HIP runtime and PyTorch's ROCm library as Windows names them
                          r"amdhip64\w*\.dll|torch_hip\.dll)\b")


def by_code(code: str) -> Signature | None:
    return BY_CODE.get(code)


def match_line(line: str) -> list[tuple[Signature, re.Match]]:
    """Every signature matching one log line, highest priority first (catalogue order within)."""
    if not line:
        return []
    out = []
    for s in SIGNATURES:
        for k in s.keywords:
            if k in line:
                break
        else:
            continue
        m = s.match(line)
        if m:
            out.append((s, m))
    if len(out) > 1:
        # the catch-all exception is only for lines nothing more specific explains (a watchdog's
        # `RuntimeError: ... Watchdog caught ...` is a timeout, not an unknown error)
        out = [sm for sm in out if sm[0].code != GENERIC] or out
    if out and (warning := _WARNING_LINE.search(line)):
        # a Python warning (FutureWarning, UserWarning...) is never a failure, whatever words it holds — except the
        # few that report the GPU runtime failing (WARNING_CAUSES)
        out = [sm for sm in out if sm[0].benign or sm[0].code in WARNING_CAUSES] or \
            [(BY_CODE["harmless-warning"], warning)]
    if out and any(not sm[0].benign and sm[0].code not in WARNING_CAUSES for sm in out) and \
            (warning := _library_warning(line)) is not None:
        # e-benign (issue 26): a warning a training library prints and goes on after (its own source's words, no
        # failure word anywhere on the line) is never a failure, whatever other rule its words fit
        out = [sm for sm in out if sm[0].benign or sm[0].code in WARNING_CAUSES] or \
            [(BY_CODE["harmless-warning"], warning)]
    if out and (record := _SWIFT_RECORD.search(line) or _DS_OP_REPORT.search(line)) and \
            not _RANK_PREFIX.search(line, record.end()):   # another rank's line run into the record is read as is
        out = [sm for sm in out if sm[0].benign or sm[0].code in WARNING_CAUSES or sm[0].code in SWIFT_RECORD_CAUSES] \
            or [(BY_CODE["harmless-warning"], record)]
    out.sort(key=lambda sm: -sm[0].priority)
    return out


_WHOLE_LINE = re.compile(r".+")


def _library_warning(line: str) -> re.Match | None:
    """The line as a match when it is one of the training libraries' harmless warnings (diagnose/library_warnings.py,
    from their sources) and holds no failure word: a demotion may overrule the causes' rules only then."""
    from rocm_tune.core.runs.diagnose import library_warnings as _lw   # the table is read on first use

    if _lw.FAILING.search(line) or _lw.warning_of(line, strict=True) is None:
        return None
    return _WHOLE_LINE.search(line)


def best_match(line: str) -> tuple[Signature, re.Match] | None:
    """The one signature a line stands for (highest priority), or None."""
    hits = match_line(line)
    return hits[0] if hits else None



def requirement_found(text: str) -> tuple[str, str] | None:
    """(what is required, what was found) from a version-check-failed line, whichever of its shapes it is: the
    require_version form names the requirement first, pkg_resources' VersionConflict what it found first, peft's
    `Found an incompatible version of X` the package, what it found and the lowest version it accepts (r3-ver)."""
    m = BY_CODE["version-check-failed"].match(text)
    if m is None:
        return None
    req, found = m.group(1), m.group(2)
    if "VersionConflict" in m.re.pattern:
        req, found = m.group(2), m.group(1)
    elif "incompatible version" in m.re.pattern:
        req, found = f"{m.group(1)}>{m.group(3)}", f"{m.group(1)}=={m.group(2)}"
    elif " but (?:got" in m.re.pattern:  # r4-ver: `Requires NAME version RANGE but got V`
        req, found = m.group(1) + re.sub(r"\s+", "", m.group(2)), f"{m.group(1)}=={m.group(3)}"
    return req.rstrip(".,"), found.rstrip(".,")
