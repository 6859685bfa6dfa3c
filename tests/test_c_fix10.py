"""c-fix10: check's `understood` says QLoRA options only for QLoRA runs; LLaMA-Factory's release stated in prose."""
import json

import pytest

from rocm_tune.core.check.check import check
from rocm_tune.core.runners.llamafactory import newest_release, pinned_release

SWIFT = ("CUDA_VISIBLE_DEVICES=0 \\\nswift sft \\\n    --model Qwen/Qwen2.5-1.5B-Instruct \\\n    --dataset d.jsonl \\\n"
         "    --train_type {tt} \\\n    --torch_dtype bfloat16 \\\n    --max_length 1024 {extra}\n")


def _understood(tmp_path, text: str) -> dict:
    f = tmp_path / "train.sh"
    f.write_text(text)
    return json.loads(json.dumps(check([str(f)], gpu_id="mi300x").to_dict()))["understood"]


def test_plain_lora_says_no_quantisation(tmp_path):
    u = _understood(tmp_path, SWIFT.format(tt="lora", extra=""))
    assert u["method"] == "lora"
    assert "quant_bits" not in u and "double_quant" not in u and "freeze_trainable_layers" not in u


def test_qlora_still_says_its_bits(tmp_path):
    u = _understood(tmp_path, SWIFT.format(tt="lora", extra="--quant_method bnb --quant_bits 4"))
    assert (u["method"], u["quant_bits"], u["double_quant"]) == ("qlora", 4, True)


def _lf(tmp_path, note: str):
    (tmp_path / "sft.yaml").write_text("model_name_or_path: Qwen/Qwen2.5-1.5B-Instruct\nstage: sft\ndo_train: true\n"
                                       "finetuning_type: lora\ncutoff_len: 1024\nbf16: true\n")
    (tmp_path / "README.md").write_text(note)
    from rocm_tune.core.runners.common import Job
    files = {p.name: p.read_text() for p in tmp_path.iterdir()}
    return Job(runner="llamafactory", files=files)


@pytest.mark.parametrize("note, want", [
    ("环境：llamafactory版本0.9.4，torch 2.5", (0, 9, 4)),
    ("Trained with LLaMA-Factory v0.9.1 on one card.", (0, 9, 1)),
    ("$ llamafactory-cli version: 0.9.3", (0, 9, 3)),
    ("| Welcome to LLaMA Factory, version 0.8.3.dev0 |", (0, 8, 3)),
])
def test_release_stated_next_to_the_name(tmp_path, note, want):
    job = _lf(tmp_path, note)
    assert pinned_release(job) == want
    got = newest_release(job)
    assert got is not None and got[0] == want


@pytest.mark.parametrize("note", ["git clone https://github.com/hiyouga/LLaMA-Factory.git",
                                  "cd LLaMA-Factory/examples/train_lora", "LLaMA-Factory with a 1.5B model",
                                  "LLaMA-Factory v0.9.1 then LLaMA-Factory v0.9.3"])
def test_no_single_release_stated(tmp_path, note):
    assert pinned_release(_lf(tmp_path, note)) is None


@pytest.mark.parametrize("note, cutoff", [("LLaMA-Factory v0.9.0", 1024), ("llamafactory版本0.9.4", 2048)])
def test_stated_release_sets_the_cutoff_default(tmp_path, note, cutoff):
    """DataArguments.cutoff_len is 1024 through v0.9.0 and 2048 since v0.9.1: check reads the stated release."""
    (tmp_path / "sft.yaml").write_text("model_name_or_path: Qwen/Qwen2.5-1.5B-Instruct\nstage: sft\ndo_train: true\n"
                                       f"finetuning_type: lora\nbf16: true\n# {note}\n")
    d = check([str(tmp_path / "sft.yaml")], gpu_id="mi300x").to_dict()
    assert d["understood"]["cutoff_len"] == cutoff


AUTOMODEL = """recipe: TrainFinetuneRecipeForNextTokenPrediction
step_scheduler:
  local_batch_size: 1
distributed:
  strategy: fsdp2
model:
  _target_: nemo_automodel.NeMoAutoModelForCausalLM.from_pretrained
  pretrained_model_name_or_path: Qwen/Qwen2.5-1.5B-Instruct
{dtype}dataset:
  _target_: nemo_automodel.components.datasets.llm.squad.make_squad_dataset
  seq_length: 1024
"""


@pytest.mark.parametrize("dtype, want", [("", "bf16"), ("  torch_dtype: auto\n", "bf16"),
                                         ("  torch_dtype: float32\n", "bf16")])
def test_automodel_default_dtype_is_bf16(tmp_path, dtype, want):
    """NeMoAutoModel loads torch_dtype "auto" (the checkpoint's, else bf16) and FSDP2's mp_policy computes in bf16
    (float32 weights: the fp32 masters of a bf16 mixed-precision run)."""
    (tmp_path / "r.yaml").write_text(AUTOMODEL.format(dtype=dtype))
    d = check([str(tmp_path / "r.yaml")], gpu_id="mi300x").to_dict()
    assert d["understood"]["precision"] == want
    assert not any(a.startswith("precision: no bf16/fp16 key") for a in d["assumptions"])


MOE = "{pin}\nswift sft --model {m} --dataset d.jsonl --train_type lora --target_modules {t} --torch_dtype bfloat16 " \
      "--max_length 1024\n"


def _moe(tmp_path, m, t, pin=""):
    (tmp_path / "train.sh").write_text(MOE.format(pin=pin, m=m, t=t))
    return check([str(tmp_path / "train.sh")], gpu_id="mi300x").to_dict()


@pytest.mark.parametrize("m", ["Qwen/Qwen1.5-MoE-A2.7B", "deepseek-ai/DeepSeek-V2-Lite"])
def test_named_mlp_targets_skip_fused_experts_under_transformers_5(tmp_path, m):
    """transformers 5 fuses routed experts into 3-D parameters (no gate_proj modules there): names wrap the shared /
    dense MLPs only; a 4.x pin builds them as nn.Linear and the names wrap every expert too."""
    t = "gate_proj up_proj down_proj"
    five = _moe(tmp_path, m, t)
    four = _moe(tmp_path, m, t, pin='pip install "transformers==4.51.3"')
    assert five["understood"].get("lora_fused_experts") is True and "lora_expert_linears" not in five["understood"]
    assert four["understood"].get("lora_expert_linears") is True and "lora_fused_experts" not in four["understood"]
    assert five["memory"]["step"]["peak_allocated_bytes"] < four["memory"]["step"]["peak_allocated_bytes"]


def test_names_matching_only_experts_are_kept(tmp_path):
    """Qwen3-MoE has no dense or shared MLP: under 5.x the names would match nothing (PEFT refuses that), so the
    files were written for a release where they match the experts: kept as written."""
    a = _moe(tmp_path, "Qwen/Qwen3-30B-A3B", "gate_proj up_proj down_proj")
    b = _moe(tmp_path, "Qwen/Qwen3-30B-A3B", "gate_proj up_proj down_proj", pin='pip install "transformers==4.51.3"')
    assert a["memory"]["step"]["peak_allocated_bytes"] == b["memory"]["step"]["peak_allocated_bytes"]


def test_attention_only_targets_unchanged(tmp_path):
    d = _moe(tmp_path, "Qwen/Qwen1.5-MoE-A2.7B", "q_proj v_proj")
    assert d["understood"]["lora_targets"] == ["q_proj", "v_proj"]
