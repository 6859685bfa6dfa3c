"""Every calibration config (../shared/calibration/real-configs/) through `rocm-tune check`: verdict vs the
real outcome, printed as a table with totals.

    PYTHONPATH=. python3 benchmarks/check_real_configs.py [CALIBRATION_DIR]

The configs are given exactly as posted. Where the model path of a config is not here and the model has no
preset yet, the model is given as its published config.json (the `MODELS` table below, from each model's
hub config.json), as a user would pass `--model`; the GPU as the case states it (a card without a profile
is given by its name with `--vram-gib`). Both are printed."""

from __future__ import annotations

import glob
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from rocm_tune.core.check.check import check
from rocm_tune.core.errors import UserError

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT = os.path.join(HERE, "..", "..", "shared", "calibration", "real-configs")

_Q = {"model_type": "qwen2", "hidden_act": "silu", "rms_norm_eps": 1e-6, "tie_word_embeddings": False,
      "torch_dtype": "bfloat16", "max_position_embeddings": 32768}
# published config.json values (huggingface.co/<id>/blob/main/config.json)
MODELS = {
    "Qwen1.5-7B": {**_Q, "hidden_size": 4096, "intermediate_size": 11008, "num_hidden_layers": 32,
                   "num_attention_heads": 32, "num_key_value_heads": 32, "vocab_size": 151936},
    "Qwen1.5-14B": {**_Q, "hidden_size": 5120, "intermediate_size": 13696, "num_hidden_layers": 40,
                    "num_attention_heads": 40, "num_key_value_heads": 40, "vocab_size": 152064},
    "Qwen2-72B": {**_Q, "hidden_size": 8192, "intermediate_size": 29568, "num_hidden_layers": 80,
                  "num_attention_heads": 64, "num_key_value_heads": 8, "vocab_size": 152064},
    "Meta-Llama-3-8B": {"model_type": "llama", "hidden_size": 4096, "intermediate_size": 14336,
                        "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 8,
                        "vocab_size": 128256, "tie_word_embeddings": False, "torch_dtype": "bfloat16",
                        "rms_norm_eps": 1e-5, "max_position_embeddings": 8192},
    "Mistral-7B-v0.1": {"model_type": "mistral", "hidden_size": 4096, "intermediate_size": 14336,
                        "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 8,
                        "vocab_size": 32000, "tie_word_embeddings": False, "torch_dtype": "bfloat16",
                        "rms_norm_eps": 1e-5, "max_position_embeddings": 32768, "sliding_window": 4096},
    "Llama-2-7b": {"model_type": "llama", "hidden_size": 4096, "intermediate_size": 11008, "num_hidden_layers": 32,
                   "num_attention_heads": 32, "num_key_value_heads": 32, "vocab_size": 32000,
                   "tie_word_embeddings": False, "torch_dtype": "float16", "rms_norm_eps": 1e-5,
                   "max_position_embeddings": 4096},
    "Llama-2-70b": {"model_type": "llama", "hidden_size": 8192, "intermediate_size": 28672, "num_hidden_layers": 80,
                    "num_attention_heads": 64, "num_key_value_heads": 8, "vocab_size": 32000,
                    "tie_word_embeddings": False, "torch_dtype": "float16", "rms_norm_eps": 1e-5,
                    "max_position_embeddings": 4096},
    "gpt-oss-20b": {"model_type": "gpt_oss", "hidden_size": 2880, "intermediate_size": 2880, "num_hidden_layers": 24,
                    "num_attention_heads": 64, "num_key_value_heads": 8, "head_dim": 64, "num_local_experts": 32,
                    "num_experts_per_tok": 4, "vocab_size": 201088, "tie_word_embeddings": False,
                    "sliding_window": 128, "torch_dtype": "bfloat16", "rms_norm_eps": 1e-5,
                    "max_position_embeddings": 131072},
}
# which table entry (or preset) serves a case's model, by a word of its stated hub id
MODEL_FOR = [("Qwen1.5-7B", "Qwen1.5-7B"), ("Qwen1.5-14B", "Qwen1.5-14B"), ("Qwen2-72B", "Qwen2-72B"),
             ("Meta-Llama-3-8B", "Meta-Llama-3-8B"), ("Qwen2.5-VL-7B", "qwen2.5-7b"),
             ("Mistral-7B-v0.1", "Mistral-7B-v0.1"), ("gpt-oss-20b", "gpt-oss-20b"), ("Llama-2-70b", "Llama-2-70b"), ("Llama-2-7b", "Llama-2-7b")]
# cards without a profile yet: given by name with --vram-gib (the memory the case states)
GPU_FALLBACK = ("A800", "RTX A6000", "Quadro RTX 6000")


def _gpu(case: dict) -> tuple[str | None, float | None, str]:
    from rocm_tune.profiles.gpu_profiles import find_gpu_profile

    hw = case.get("hardware", {})
    name = hw.get("gpu_model", "")
    p = find_gpu_profile(name)
    if p is not None:
        return p.id, None, p.id
    for k in GPU_FALLBACK:
        if k in name:        # no profile yet: the card by name, its memory as stated (--vram-gib)
            gib = hw.get("gpu_memory_gb")
            return name, gib, f"{k} --vram-gib {gib}"
    if "not named" in name or "not stated" in name:   # only the memory is stated: a card by that memory
        gib = hw.get("gpu_memory_gb")
        return f"unnamed {gib} GB GPU", gib, f"--vram-gib {gib}"
    for pid in ("rtx3090", "rtx4090", "a100-40gb", "a100-80gb", "h100-sxm", "h200", "v100-32gb", "mi300x"):
        q = find_gpu_profile(pid)
        if q and any(w in name.replace(" ", "").lower() for w in (pid.replace("-", ""),)):
            return pid, None, pid
    table = {"3090": "rtx3090", "4090": "rtx4090", "A100 40": "a100-40gb", "A100-SXM4-80": "a100-80gb",
             "A100 80": "a100-80gb", "H100": "h100-sxm", "H200": "h200", "V100 32": "v100-32gb", "MI300X": "mi300x"}
    for k, pid in table.items():
        if k in name:
            return pid, None, pid
    return None, None, "?"


def _measured_gib(case: dict) -> tuple[float | None, str]:
    """The case's per-GPU figure in GiB and what it is (reserved = what nvidia-smi/rocm-smi show)."""
    figures = [x for x in case.get("memory_per_gpu") or [] if x and x.get("value") is not None]
    if not figures:
        return None, ""
    # the figure taken while training (a case may also give one after model load)
    m = next((x for x in figures if "train" in str(x.get("what", "")).lower()), figures[0])
    v, unit, tool = float(m["value"]), str(m.get("unit", "")), str(m.get("tool", ""))
    if unit.startswith("%"):
        gib = v / 100 * case["hardware"]["gpu_memory_gb"] * 1e9 / 2**30
    elif unit.startswith("GiB"):
        gib = v
    else:                      # GB, or "G" with GB/GiB not stated: read as GB
        gib = v * 1e9 / 2**30
    kind = "allocated" if "allocated" in tool and "reserved" not in tool else "reserved"
    return gib, kind


def main(argv: list[str]) -> int:
    root = argv[0] if argv else DEFAULT
    tmp = tempfile.mkdtemp(prefix="check-models-")
    rows = []
    for d in sorted(glob.glob(os.path.join(root, "*", ""))):
        with open(os.path.join(d, "case.json"), encoding="utf-8") as fh:
            case = json.load(fh)
        files = [f for f in sorted(glob.glob(os.path.join(d, "*")))
                 if os.path.basename(f) not in ("case.json", "requirements_at_commit.txt")]
        gpu, vram, gpu_txt = _gpu(case)
        model = None
        for word, target in MODEL_FOR:
            if word.lower() in case["model"].lower():
                if target in MODELS:
                    path = os.path.join(tmp, target)
                    os.makedirs(path, exist_ok=True)
                    with open(os.path.join(path, "config.json"), "w", encoding="utf-8") as fh:
                        json.dump(MODELS[target], fh)
                    model = path
                else:
                    model = target
                break
        try:
            from rocm_tune.core.formats import read_job

            # files that do not say the GPU count (a YAML without its launch line): as the user would give it
            gpus = None if read_job(files).gpus is not None else case["hardware"].get("gpus_per_node")
            rep = check(files, gpu_id=gpu, vram_gib=vram, model_ref=model, gpus=gpus)
            verdict, reason = rep.verdict, rep.reason
            meas, kind = _measured_gib(case)
            key = "peak_allocated_bytes" if kind == "allocated" else "reserved_bytes"
            step = max(p[key] for p in rep.memory.values() if p) / 2**30 if rep.memory else None
            codes = ",".join(sorted({f.code for f in rep.findings if f.severity != "info"}))
        except UserError as exc:
            verdict, reason, step, codes = "unknown", str(exc).rsplit(": ", 1)[-1][:60], None, ""
        outcome = case["outcome"]
        expect = "oom" if outcome == "oom" else "fits"
        right = verdict == expect
        meas, _kind = _measured_gib(case)
        rows.append((case["id"], outcome, verdict, right, step, meas, gpu_txt,
                     os.path.basename(model) if model else "-", codes or reason[:50]))
    print(f"{'case':52s} {'real':5s} {'check':8s} {'ok':3s} {'est GiB':>8s}  {'measured':18s} {'gpu':18s} "
          f"{'model given':14s} findings / why unknown")
    for cid, out, ver, ok, step, meas, g, m, why in rows:
        ms = ""
        if meas is not None:
            ms = f"{meas:.1f} GiB" + (f" ({(step / meas - 1) * 100:+.0f}%)" if step else "")
        print(f"{cid[:52]:52s} {out:5s} {ver:8s} {'yes' if ok else ('n/a' if ver == 'unknown' else 'NO'):3s} "
              f"{'' if step is None else f'{step:8.1f}':>8s}  {ms:18s} {g:18s} {m:14s} {why}")
    n = len(rows)
    right = sum(r[3] for r in rows)
    unknown = sum(r[2] == "unknown" for r in rows)
    wrong = n - right - unknown
    print(f"\nTotal {n}: right {right}, wrong {wrong}, unknown (named) {unknown}")
    errs = [abs(r[4] / r[5] - 1) for r in rows if r[4] and r[5]]
    if errs:
        print(f"Memory vs measured ({len(errs)} cases with a figure and an estimate): within 10 % in "
              f"{sum(e <= 0.10 for e in errs)}; errors {', '.join(f'{e * 100:.0f}%' for e in errs)}")
    print("est GiB: the largest phase, reserved (or peak allocated where the figure is torch's allocated); "
          "measured: the case's figure (GB read as 1e9 bytes)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
