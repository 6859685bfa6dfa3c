"""torch.compile's partition keeps less than eager autograd (helper c-over3, issue 26). Inductor's AOTAutograd partition
(functorch min_cut_rematerialization_partition) saves the matmuls' inputs and outputs and recomputes the pointwise ops
in the backward: an RMSNorm keeps its 16-bit input and an fp32 rstd per row (not its fp32 copies), the SiLU-mul keeps
the gate and up outputs (not the activation's output) - the terms liger_norm / liger_swiglu count. Who compiles the
forward: the OLMo trainer's `compile:` section (allenai/OLMo and AMD's Instella scripts/train.py: `if cfg.compile is not
None: trainer.train_batch = torch.compile(...)`, CompilerConfig backend "inductor"), transformers' TrainingArguments
`torch_compile` (Axolotl passes its own torch_compile / torch_compile_backend: core/builders/base.py
_configure_torch_compile) and torchtune's `compile: True`. A non-inductor backend (aot_eager, eager) keeps autograd's
default saving. Every file is written for the test from those sources; none is a corpus case."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rocm_tune.cli import main
from rocm_tune.core.runners.common import Job, Setting
from rocm_tune.core.runners.config import _compiled, compiles_forward

# allenai/OLMo configs/official/OLMo-1B.yaml's model block (d_model 2048, 16 layers, SwiGLU mlp_ratio 8), its trainer
# keys as that file sets them; `{compile}` is the part under test
OLMO = """run_name: olmo-1b-test
model:
  d_model: 2048
  n_heads: 16
  n_layers: 16
  mlp_ratio: 8
  weight_tying: true
  alibi: false
  rope: true
  flash_attention: true
  attention_dropout: 0.0
  attention_layer_norm: false
  multi_query_attention: false
  include_bias: false
  block_type: sequential
  layer_norm_type: default
  layer_norm_with_affine: false
  activation_type: swiglu
  residual_dropout: 0.0
  embedding_dropout: 0.0
  max_sequence_length: 2048
  vocab_size: 50280
  embedding_size: 50304
  eos_token_id: 50279
  pad_token_id: 1
  init_device: meta
  init_fn: mitchell
{compile}
optimizer:
  name: adamw
  learning_rate: 4.0e-4
global_train_batch_size: 2048
device_train_microbatch_size: {mb}
precision: amp_bf16
fsdp:
  wrapping_strategy: null
  precision: mixed
max_duration: 739_328
data:
  paths:
    - data/part-0-00000.npy
"""
COMPILED = "compile:\n  fullgraph: false\n"

AX = """base_model: {model}
datasets:
  - path: ./data.jsonl
    type: alpaca
sequence_len: 4096
micro_batch_size: 4
bf16: true
flash_attention: true
gradient_checkpointing: false
{extra}
"""


def _check(tmp_path: Path, capsys, name: str, text: str, *args: str) -> dict:
    (tmp_path / name).write_text(text)
    rc = main(["check", str(tmp_path / name), *args, "--json"])
    out = json.loads(capsys.readouterr().out)
    assert rc in (0, 1), out
    return out


def _step(out: dict) -> int:
    return int(out["memory"]["step"]["peak_allocated_bytes"])


def _said(out: dict) -> bool:
    return any("torch.compile (inductor)" in str(n) for n in out.get("notes") or [])


def test_olmo_compile_section_keeps_the_fused_terms_and_turns_the_verdict(tmp_path, capsys):
    # micro-batch 15 x 2048 tokens without activation checkpointing on an 80 GiB card: eager autograd's fp32 norm
    # copies and SiLU output do not fit, the compiled partition's saved set does (15, not 16: c-under8a counts
    # FSDP's backward activations beside the sharded gradients, no longer less all the unsharded ones)
    eager = _check(tmp_path, capsys, "olmo.yaml", OLMO.format(compile="", mb=15), "--gpu", "h100-sxm", "--gpus", "8")
    comp = _check(tmp_path, capsys, "olmo.yaml", OLMO.format(compile=COMPILED, mb=15), "--gpu", "h100-sxm",
                  "--gpus", "8")
    assert not _said(eager) and _said(comp)
    assert _step(comp) < 0.85 * _step(eager)
    assert eager["verdict"] == "oom" and comp["verdict"] == "fits"


@pytest.mark.parametrize("section", ["compile: null\n", "compile:\n  backend: aot_eager\n"])
def test_olmo_no_compile_or_another_backend_counts_eager_autograd(tmp_path, capsys, section):
    base = _check(tmp_path, capsys, "olmo.yaml", OLMO.format(compile="", mb=4), "--gpu", "h100-sxm", "--gpus", "8")
    other = _check(tmp_path, capsys, "olmo.yaml", OLMO.format(compile=section, mb=4), "--gpu", "h100-sxm",
                   "--gpus", "8")
    assert not _said(other)
    assert _step(other) == _step(base)


def test_axolotl_torch_compile_and_its_backend(tmp_path, capsys):
    model = "NousResearch/Meta-Llama-3-8B"
    plain = _check(tmp_path, capsys, "ax.yaml", AX.format(model=model, extra=""), "--gpu", "mi300x")
    comp = _check(tmp_path, capsys, "ax.yaml", AX.format(model=model, extra="torch_compile: true"), "--gpu", "mi300x")
    aot = _check(tmp_path, capsys, "ax.yaml", AX.format(model=model, extra="torch_compile: true\n"
                                                                          "torch_compile_backend: aot_eager"),
                 "--gpu", "mi300x")
    assert _said(comp) and not _said(plain) and not _said(aot)
    # Llama-3-8B, 4 x 4096 tokens, no checkpointing: 32 layers x (4 fp32 norm bytes x 2 norms x 4096 + 4 x 14336 the
    # SiLU's output... ) per token less; at least a tenth of the step
    assert _step(comp) < 0.9 * _step(plain)
    assert _step(aot) == _step(plain)


def _job(runner: str, **settings) -> Job:
    job = Job(runner=runner)
    for k, v in settings.items():
        job.settings[k] = Setting(k, v, "f.yaml", 1, k, "yaml")
    return job


def test_who_compiles_the_forward():
    assert compiles_forward(_job("hf", torch_compile=True)) == "torch_compile"
    assert compiles_forward(_job("llamafactory", torch_compile="true")) == "torch_compile"
    assert compiles_forward(_job("torchtune", compile=True)) == "compile"
    # `compile` is torchtune's key only: elsewhere it is no TrainingArguments field
    assert compiles_forward(_job("hf", compile=True)) is None
    assert compiles_forward(_job("hf", torch_compile=False)) is None
    assert compiles_forward(_job("hf", torch_compile=True, torch_compile_backend="aot_eager")) is None
    assert compiles_forward(_job("hf", torch_compile=True, torch_compile_backend="inductor")) == "torch_compile"


def test_compiled_terms_follow_the_mlp():
    class Gated:
        gated_mlp = True

    class Plain:
        gated_mlp = False

    assert _compiled(_job("hf", torch_compile=True), Gated()) == {"liger_norm": True, "liger_swiglu": True}
    assert _compiled(_job("hf", torch_compile=True), Plain()) == {"liger_norm": True, "liger_swiglu": False}
    assert _compiled(_job("hf"), Gated()) == {}


def test_the_partition_saves_what_the_terms_count():
    """The source of the term: one OLMo-style block (fp32 RMSNorm as olmo/model.py RMSLayerNorm writes it, RoPE, SDPA,
    SwiGLU) in bf16 on the CPU. Eager autograd's saved tensors (saved_tensors_hooks) against the forward graph's
    saved outputs under AOTAutograd's min-cut partition (inductor's): the compiled block keeps no fp32 norm copy and
    no SiLU output, about two thirds of eager's bytes."""
    torch = pytest.importorskip("torch")
    nn, F = torch.nn, torch.nn.functional
    from functorch.compile import min_cut_rematerialization_partition
    from torch._dynamo.backends.common import aot_autograd

    H, NH, FF, T, B, dt = 128, 4, 344, 64, 2, torch.bfloat16

    class RMS(nn.Module):
        def __init__(self):
            super().__init__()
            self.weight = nn.Parameter(torch.ones(H, dtype=dt))

        def forward(self, x):
            og, x = x.dtype, x.to(torch.float32)
            x = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6)
            return self.weight * x.to(og)

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.n1, self.n2 = RMS(), RMS()
            self.qkv = nn.Linear(H, 3 * H, bias=False, dtype=dt)
            self.o = nn.Linear(H, H, bias=False, dtype=dt)
            self.up = nn.Linear(H, 2 * FF, bias=False, dtype=dt)
            self.down = nn.Linear(FF, H, bias=False, dtype=dt)

        def forward(self, x):
            q, k, v = (t.view(B, T, NH, H // NH).transpose(1, 2) for t in self.qkv(self.n1(x)).split(H, -1))
            a = F.scaled_dot_product_attention(q, k, v, is_causal=True).transpose(1, 2).reshape(B, T, H)
            x = x + self.o(a)
            h, g = self.up(self.n2(x)).chunk(2, -1)
            return x + self.down(F.silu(g) * h)

    torch.manual_seed(0)
    blk = Block()
    x = torch.randn(B, T, H, dtype=dt, requires_grad=True)
    skip = {p.untyped_storage().data_ptr() for p in blk.parameters()} | {x.untyped_storage().data_ptr()}
    seen: dict = {}

    def pack(t):
        seen[t.untyped_storage().data_ptr()] = t.untyped_storage().nbytes()
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        blk(x)
    eager = sum(n for p, n in seen.items() if p not in skip)
    saved: list[int] = []

    def fw(gm, _inputs):
        for n in list(gm.graph.nodes)[-1].args[0][1:]:
            val = n.meta.get("val")
            if isinstance(val, torch.Tensor) and not n.name.startswith("primals"):
                saved.append(val.numel() * val.element_size())
        return gm

    backend = aot_autograd(fw_compiler=fw, bw_compiler=lambda gm, _i: gm,
                           partition_fn=min_cut_rematerialization_partition)
    torch._dynamo.reset()
    torch.compile(blk, backend=backend)(x)
    compiled = sum(saved)
    assert compiled > 0
    assert compiled < 0.75 * eager


# ------------------------------------------------------------------------------------------------ TRL DPO Liger loss
# TRL v0.25 on: DPOTrainer takes `use_liger_kernel` as its own loss (trainer/dpo_trainer.py: LigerFusedLinearDPOLoss,
# _compute_loss_liger: the decoder's hidden states and lm_head's weight, no [rows, seq, vocab] logits); before v0.25 the
# flag only patches the model, whose fused loss needs labels the DPO forward never passes. Axolotl's
# dpo_use_liger_kernel sets it (core/trainers/dpo/__init__.py), a key that came with its trl==0.25.0 pin.
ZERO3 = '{"bf16": {"enabled": "auto"}, "zero_optimization": {"stage": 3}, "train_micro_batch_size_per_gpu": "auto"}'
AX_DPO = """base_model: Qwen/Qwen3-8B
rl: dpo
datasets:
  - path: ./prefs.jsonl
    split: train
    type: chatml.intel
sequence_len: 2048
micro_batch_size: 4
bf16: true
gradient_checkpointing: true
flash_attention: true
deepspeed: zero3.json
{extra}
"""
TRL_DPO = ("import torch\nfrom transformers import AutoModelForCausalLM\nfrom trl import DPOConfig, DPOTrainer\n"
           "model = AutoModelForCausalLM.from_pretrained('Qwen/Qwen3-8B', torch_dtype=torch.bfloat16)\n"
           "args = DPOConfig(output_dir='o', per_device_train_batch_size=4, max_length=2048, bf16=True,\n"
           "                 deepspeed='zero3.json', use_liger_kernel=True)\n"
           "trainer = DPOTrainer(model=model, args=args, train_dataset=ds)\ntrainer.train()\n")


def _files(tmp_path: Path, capsys, files: dict[str, str]) -> dict:
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    rc = main(["check", *(str(tmp_path / n) for n in files), "--gpu", "mi300x",
               "--gpus", "8", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert rc in (0, 1), out
    return out


def _copies(out: dict) -> bool:
    return any(str(n).startswith("TRL DPO under DeepSpeed") for n in out.get("notes") or [])


def test_axolotl_dpo_use_liger_kernel_counts_no_logits(tmp_path, capsys):
    plain = _files(tmp_path, capsys, {"ax.yaml": AX_DPO.format(extra=""), "zero3.json": ZERO3})
    liger = _files(tmp_path, capsys, {"ax.yaml": AX_DPO.format(extra="dpo_use_liger_kernel: true"),
                                      "zero3.json": ZERO3})
    assert _copies(plain) and not _copies(liger)
    # 2 x 4 rows x 2048 tokens x 151936 vocab: the copies of the 16-bit logits (5 at the forward's peak, unpinned)
    logits = 2 * 4 * 2048 * 151936
    assert _step(plain) - _step(liger) > 2 * 2 * logits


@pytest.mark.parametrize("pin,fused", [("trl==0.25.0\n", True), ("trl==0.29.1\n", True), ("trl==0.24.0\n", False),
                                       ("", False)])
def test_trl_dpo_use_liger_kernel_is_the_loss_from_v0_25(tmp_path, capsys, pin, fused):
    files = {"dpo.py": TRL_DPO, "zero3.json": ZERO3}
    if pin:
        files["requirements.txt"] = pin
    out = _files(tmp_path, capsys, files)
    assert _copies(out) is not fused


# torchtune recipes/configs/llama3_1/8B_full_single_device.yaml's keys (compile: False there; True compiles every layer,
# training.compile_model, backend TORCH_COMPILE_BACKEND default inductor)
TT = """output_dir: /tmp/out
model:
  _component_: torchtune.models.llama3_1.llama3_1_8b
tokenizer:
  _component_: torchtune.models.llama3.llama3_tokenizer
  path: /tmp/Meta-Llama-3.1-8B-Instruct/original/tokenizer.model
  max_seq_len: 4096
dataset:
  _component_: torchtune.datasets.alpaca_cleaned_dataset
  packed: true
batch_size: 4
optimizer:
  _component_: torch.optim.AdamW
  lr: 2e-5
loss:
  _component_: torchtune.modules.loss.CEWithChunkedOutputLoss
device: cuda
dtype: bf16
enable_activation_checkpointing: false
compile: {compile}
"""


def test_torchtune_compile_true_counts_the_compiled_layers(tmp_path, capsys):
    plain = _check(tmp_path, capsys, "tt.yaml", TT.format(compile="False"), "--gpu", "mi300x")
    comp = _check(tmp_path, capsys, "tt.yaml", TT.format(compile="True"), "--gpu", "mi300x")
    assert _said(comp) and not _said(plain)
    assert _step(comp) < 0.9 * _step(plain)
