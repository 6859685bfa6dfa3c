"""MLPerf Training submission configs (`config_<SYSTEM>_<N>x<G>x<T>*.sh`): scripts of `export VAR=...` lines only,
which the submission's run script sources before it starts the NeMo/Megatron training. Pure.

The variables are read the way the implementation reads them (mlcommons/training_results_v5.1, AMD and the
submitters that reuse its code):
- llama2_70b_lora: src/conf/megatron_gpt_peft_tuning_config.yaml - trainer.devices ${DGXNGPU,8}, num_nodes
  ${DGXNNODES,1}, tensor/pipeline/context_parallel_size ${TP,1} ${PP,1} ${CP,1}, sequence_parallel ${SP,False},
  micro_batch_size ${MBS,1}, global_batch_size MINIBS * devices * nodes / (TP * PP * CP), encoder_seq_length
  ${MAX_SEQLEN,8192}, activations_checkpoint_granularity/method/num_layers ${ACG} ${ACM} ${ACL}, fp8 ${FP8,False},
  peft.lora_tuning adapter_dim ${LORA_DIM,16} on target_modules ['attention'] (linear_qkv and linear_proj); the model
  is the benchmark's: Llama-2-70B.
- llama31_8b: src/train.py - SEQ_LENGTH = 8192, --size ${SIZE} (choices ["8b"]), --gbs ${GBS} --mbs ${MBS};
  the model is Llama 3.1 8B, pretrained from scratch (every weight trains), with Megatron's distributed optimizer
  (DistributedDataParallelConfig(use_distributed_optimizer=True)).
FP8 is counted as bf16 (an upper bound of the FP8 weights and activations), said.
"""

from __future__ import annotations

import re

from rocm_tune.core.runners.common import Setting, as_bool, as_int

SRC70 = "mlcommons/training_results_v5.1:AMD/benchmarks/llama2_70b_lora/implementations/*/src/conf/" \
        "megatron_gpt_peft_tuning_config.yaml"
SRC8 = "mlcommons/training_results_v5.1:AMD/benchmarks/llama31_8b/implementations/*/src/train.py"
_EXPORT = re.compile(r"^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)=(.*)$")
MARKERS = ("DGXNGPU", "DGXNNODES", "DGXSYSTEM", "MLPERF_SUBMISSION_ORG", "MLPERF_SUBMISSION_PLATFORM")


def variables(text: str) -> dict[str, tuple[str, int]] | None:
    """{VAR: (value, line)} of a script that only assigns variables (`export A=1 && export B=2`, `;` too), else None."""
    out: dict[str, tuple[str, int]] = {}
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.split(" #")[0].strip()
        if not line or line.startswith("#"):
            continue
        for part in re.split(r"\s*(?:&&|;)\s*", line):
            if not part:
                continue
            m = _EXPORT.match(part)
            if m is None:
                return None
            v = m.group(2).strip()
            if len(v) >= 2 and v[0] == v[-1] and v[0] in "'\"":
                v = v[1:-1]
            out[m.group(1)] = (v, n)
    return out or None


def is_config(text: str) -> bool:
    """An MLPerf Training config: variable assignments only, with the submission's markers and a micro batch."""
    if "MBS" not in text or not any(k in text for k in MARKERS):
        return False
    v = variables(text)
    return v is not None and "MBS" in v and any(k in v for k in MARKERS)


def read(text: str, file: str) -> tuple[dict[str, Setting], list[str], dict[str, tuple[str, int]], str]:
    """(settings, notes, the Megatron flags they make, the benchmark) of an MLPerf config."""
    v = variables(text) or {}

    def get(name: str, default: str) -> tuple[str, int | None]:
        val, line = v.get(name, (default, None))
        return (default if "$" in str(val) else str(val)), line

    flags: dict[str, tuple[str, int]] = {}

    def put(flag: str, name: str, default: str) -> None:
        val, line = get(name, default)
        flags[flag] = (val, line or 1)

    pretrain = "SIZE" in v or ("GBS" in v and "MINIBS" not in v)
    bench = "llama31_8b" if pretrain else "llama2_70b_lora"
    notes = [f"{file}: an MLPerf Training config (the {bench} benchmark): its variables read as the implementation "
             f"reads them ({SRC8 if pretrain else SRC70})"]
    put("tensor-model-parallel-size", "TP", "1")
    put("pipeline-model-parallel-size", "PP", "1")
    put("context-parallel-size", "CP", "1")
    put("micro-batch-size", "MBS", "1")
    flags["bf16"] = ("true", 1)
    if pretrain:
        put("global-batch-size", "GBS", "1152")
        flags["seq-length"] = ("8192", 1)
        flags["model"] = ("meta-llama/Llama-3.1-8B", 1)
        # MegatronStrategy(ddp=DistributedDataParallelConfig(use_distributed_optimizer=True, ...)) in train.py
        flags["use-distributed-optimizer"] = ("true", 1)
        notes.append("the distributed optimizer is on (train.py: DistributedDataParallelConfig("
                     "use_distributed_optimizer=True)): the optimizer state is split over the data-parallel ranks")
        notes.append(f"sequence length 8192 and the model (Llama 3.1 8B) are the benchmark's ({SRC8}: SEQ_LENGTH)")
    else:
        put("seq-length", "MAX_SEQLEN", "8192")
        put("lora-rank", "LORA_DIM", "16")
        flags["model"] = ("meta-llama/Llama-2-70b-hf", 1)
        notes.append(f"LoRA rank {flags['lora-rank'][0]} on the attention projections, Llama-2-70B, sequence "
                     f"length {flags['seq-length'][0]}: the benchmark's ({SRC70})")
    if as_bool(get("SP", "False")[0]):
        put("sequence-parallel", "SP", "True")
    acg, line = get("ACG", "null")
    if acg.lower() in ("full", "selective"):
        flags["recompute-granularity"] = (acg.lower(), line or 1)
        put("recompute-method", "ACM", "block")
        put("recompute-num-layers", "ACL", "1")
    out: dict[str, Setting] = {}
    fp8, fline = get("FP8", "False")
    if not pretrain and as_bool(fp8):
        # fp8_params: ${FP8}: Transformer Engine keeps the frozen base weights as FP8 tensors (1 byte each)
        out["quantization_bit"] = Setting("quantization_bit", 8, file, fline, "FP8 (fp8_params)", "env")
        notes.append(f"FP8=True: fp8_params stores the frozen Llama-2-70B weights in FP8, counted at 8 bits; "
                     f"activations counted in bf16 (an upper bound) ({SRC70}: fp8_params: ${{FP8}})")
    elif as_bool(fp8) or as_bool(get("FP8_PARAMS", "0")[0]):
        notes.append("FP8 on: counted as bf16 (an upper bound of the FP8 weights and activations)")
    return out, notes, flags, bench


def world(text: str, file: str) -> tuple[Setting | None, Setting | None]:
    """(GPUs per node, nodes): DGXNGPU (default 8) and DGXNNODES (default 1), or the file name's <N>x<G>."""
    v = variables(text) or {}
    m = re.search(r"_(\d+)x(\d+)x\d+", file)
    g = as_int(v.get("DGXNGPU", ("", 0))[0])
    n = as_int(v.get("DGXNNODES", ("", 0))[0])
    gpus = Setting("gpus", g, file, v["DGXNGPU"][1], "DGXNGPU", "env") if g else \
        Setting("gpus", int(m.group(2)) if m else 8, file, None, "DGXNGPU", "assumed")
    nodes = Setting("nodes", n, file, v["DGXNNODES"][1], "DGXNNODES", "env") if n else \
        (Setting("nodes", int(m.group(1)), file, None, "config file name", "flag") if m else None)
    return gpus, nodes
