"""issue 26, check over-counting (c-over): what Liger's kernels really keep, and a fused linear cross-entropy that
never makes the [tokens, vocab] logits.

Sources modelled (linkedin/Liger-Kernel @ ead96b6):
* ops/rms_norm.py LigerRMSNormFunction.forward: ctx.save_for_backward(X, W, RSTD) - the input in its own dtype and
  one fp32 rstd per row, not transformers' fp32 copies (LlamaRMSNorm: hidden_states.to(torch.float32) ...);
* ops/swiglu.py LigerSiLUMulFunction.forward: ctx.save_for_backward(a, b) - the gate and up outputs only;
  swiglu_backward writes their gradients into a and b in place;
* ops/fused_linear_cross_entropy.py fused_linear_cross_entropy_forward: the loss and grad_input are made chunk by
  chunk (chunk_size = next_power_of_2(cdiv(BT, cdiv(V, H)))) - no logits tensor;
* transformers/monkey_patch.py apply_liger_kernel_to_llama(rms_norm=True, swiglu=True, fused_linear_cross_entropy=True)
  defaults; axolotl's LigerPlugin passes each of its own flags (unset = off); LLaMA-Factory turns the fused loss off
  outside pt/sft (model_utils/liger_kernel.py require_logits), TRL's DPO takes its log-probs from the logits.
The corpus figure: shisa-ai's 1x MI300X run of Llama-3.2-1B, 64 x 8192 packed tokens, ZeRO-3, GC, Liger: 95 GB."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from rocm_tune.cli import main
from rocm_tune.core import formats
from rocm_tune.core.check.check import build_config, check
from rocm_tune.core.memory.estimate import TrainConfig, estimate
from rocm_tune.core.model.architecture import load_model

CORPUS = Path(__file__).resolve().parents[1] / "benchmarks" / "corpus" / "configs"


@pytest.fixture(scope="module")
def llama1b():
    return load_model("llama-3.2-1b")


def test_liger_norm_and_swiglu_keep_what_their_autograd_functions_save(llama1b):
    m = llama1b
    assert (m.hidden_size, m.intermediate_size, m.num_layers, m.norms_per_layer) == (2048, 8192, 16, 2)
    base = TrainConfig(method="full", precision="pure_bf16", cutoff_len=1024, micro_batch=2,
                       gradient_checkpointing=False, attn="fa2", optim="adamw")
    plain = estimate(m, base).per_gpu.activations_bytes
    liger = estimate(m, replace(base, liger_norm=True, liger_swiglu=True)).per_gpu.activations_bytes
    tokens = 2 * 1024
    # per token per layer: two RMSNorms keep 4 B (fp32 input) + 2 B (normalised bf16 input, trainable weight) x
    # hidden in transformers, 2 B x hidden + a 4 B rstd under Liger; the SiLU-mul no longer keeps its output
    # (2 B x intermediate)
    norms = 2 * (4 + 2) * 2048 - 2 * (2 * 2048 + 4)
    swiglu = 2 * 8192
    assert plain - liger == pytest.approx((norms + swiglu) * tokens * 16, abs=1024)


def test_fused_linear_ce_has_no_vocab_term(llama1b):
    m = llama1b
    cfg = TrainConfig(method="full", precision="pure_bf16", cutoff_len=8192, micro_batch=8,
                      gradient_checkpointing=True, attn="fa2", optim="adamw")
    logits = m.vocab_size * 8 * 8192
    unfused = estimate(m, cfg).per_gpu.peak_allocated_bytes
    fused = estimate(m, replace(cfg, fused_ce=True)).per_gpu.peak_allocated_bytes
    # the plain loss holds 12 bytes per logit at its peak (fp32 log-softmax, its gradient and the incoming one)
    assert unfused - fused >= 10 * logits
    # the fused one grows with the hidden states, not the vocabulary: doubling the batch adds far less than 2 bytes
    # per logit
    fused16 = estimate(m, replace(cfg, fused_ce=True, micro_batch=16)).per_gpu.peak_allocated_bytes
    assert fused16 - fused < 2 * logits


def _cfg(tmp_path, name: str, text: str, model: str):
    p = tmp_path / name
    p.write_text(text)
    job = formats.read_job([str(p)])
    return job, build_config(job, load_model(model), None, None)[0]


AXOLOTL = """base_model: meta-llama/Llama-3.2-1B-Instruct
plugins:
  - axolotl.integrations.liger.LigerPlugin
liger_rms_norm: true
{glu}liger_fused_linear_cross_entropy: true
datasets:
  - path: shisa-ai/shisa-v2-sharegpt
    type: chat_template
sequence_len: 4096
micro_batch_size: 2
gradient_checkpointing: true
optimizer: adamw_torch
bf16: auto
"""


def test_axolotl_reads_each_liger_flag(tmp_path):
    _, cfg = _cfg(tmp_path, "a.yaml", AXOLOTL.format(glu="liger_glu_activation: true\n"), "llama-3.2-1b")
    assert (cfg.liger_norm, cfg.liger_swiglu, cfg.fused_ce) == (True, True, True)
    # liger_glu_activation unset: axolotl passes swiglu=None to apply_liger_kernel_to_llama - the MLP is not patched
    _, cfg = _cfg(tmp_path, "b.yaml", AXOLOTL.format(glu=""), "llama-3.2-1b")
    assert (cfg.liger_norm, cfg.liger_swiglu, cfg.fused_ce) == (True, False, True)
    _, cfg = _cfg(tmp_path, "c.yaml", AXOLOTL.format(glu="").replace("liger_fused_linear_cross_entropy: true\n", ""),
                  "llama-3.2-1b")
    assert cfg.fused_ce is False


LF = """model_name_or_path: Qwen/Qwen2.5-7B-Instruct
stage: {stage}
do_train: true
finetuning_type: lora
lora_target: all
{pref}dataset: alpaca_en_demo
template: qwen
cutoff_len: 4096
per_device_train_batch_size: 2
enable_liger_kernel: true
bf16: true
"""


def test_llamafactory_fused_loss_only_for_sft(tmp_path):
    _, sft = _cfg(tmp_path, "sft.yaml", LF.format(stage="sft", pref=""), "qwen2.5-7b")
    assert (sft.liger_norm, sft.liger_swiglu, sft.fused_ce) == (True, True, True)
    # DPO needs the logits (LLaMA-Factory require_logits -> fused_linear_cross_entropy=False)
    _, dpo = _cfg(tmp_path, "dpo.yaml", LF.format(stage="dpo", pref="pref_beta: 0.1\n"), "qwen2.5-7b")
    assert (dpo.liger_norm, dpo.liger_swiglu, dpo.fused_ce) == (True, True, False)


def test_liger_flags_stay_out_of_the_config_dict_when_off():
    assert not {"liger_norm", "liger_swiglu", "fused_ce"} & set(TrainConfig().to_dict())
    assert TrainConfig(fused_ce=True).to_dict()["fused_ce"] is True


def test_corpus_mi300x_llama1b_mbs64_liger_fits():
    """shisa-ai 5090-numerics README, run hap954mv: 95.04 GB on one 192 GB MI300X (fit case of the corpus)."""
    d = CORPUS / "rocm-shisa-numerics-ax-llama32-1b-full-8k-packing-liger-z3-mbs64-gc-95gb-1xmi300x-fits"
    rep = check([str(d / "1xMI300-adamw_torch_8bit-liger-dsz3.yaml"), str(d / "zero3_bf16.json")],
                gpu_id="mi300x", gpus=1)
    assert rep.verdict == "fits"
    step = rep.memory["step"]["reserved_bytes"] / 2**30
    assert 60 < step < 178     # the measured 88.5 GiB (95.04 GB) lies inside; the card is 192 GB


OPENRLHF = """deepspeed --num_gpus 1 --module openrlhf.cli.train_sft \\
  --pretrain Qwen/Qwen3-8B \\
  --dataset sft.jsonl \\
  --bf16 \\
  --gradient_checkpointing \\
  --flash_attn \\
  {liger}--micro_train_batch_size 2 \\
  --max_len 8192 \\
  --packing_samples
"""


def _notes(path, capsys) -> list[str]:
    main(["check", str(path), "--gpu", "mi300x", "--json"])
    return json.loads(capsys.readouterr().out)["notes"]


def test_openrlhf_liger_patches_the_layers_but_not_the_loss(tmp_path, capsys):
    """openrlhf/models/actor.py loads AutoLigerKernelForCausalLM and calls the model without labels."""
    job, cfg = _cfg(tmp_path, "sft.sh", OPENRLHF.format(liger="--use_liger_kernel \\\n  "), "qwen3-8b")
    assert (cfg.liger_norm, cfg.liger_swiglu, cfg.fused_ce) == (True, True, False)
    notes = _notes(tmp_path / "sft.sh", capsys)
    assert any(n.startswith("Liger kernels: RMSNorm") for n in notes)
    assert not any("cross-entropy" in n for n in notes)
    # an LLaMA-Factory SFT with Liger says the fused loss in the same notes
    (tmp_path / "lf.yaml").write_text(LF.format(stage="sft", pref=""))
    assert any(n.startswith("fused linear cross-entropy") for n in _notes(tmp_path / "lf.yaml", capsys))
    _, plain = _cfg(tmp_path, "plain.sh", OPENRLHF.format(liger=""), "qwen3-8b")
    assert (plain.liger_norm, plain.liger_swiglu, plain.fused_ce) == (False, False, False)


TEXTGEN = {"lora_name": "my-lora", "always_override": False, "q_proj_en": True, "v_proj_en": True, "k_proj_en": False,
           "o_proj_en": False, "gate_proj_en": False, "down_proj_en": False, "up_proj_en": False, "save_steps": 0,
           "micro_batch_size": 4, "batch_size": 128, "epochs": 3, "learning_rate": "3e-4",
           "lr_scheduler_type": "linear", "lora_rank": 32, "lora_alpha": 64, "lora_dropout": 0.05, "cutoff_len": 256,
           "dataset": "my_alpaca_set", "eval_dataset": "None", "format": "alpaca-format", "optimizer": "adamw_torch"}


def _textgen(tmp_path, params: dict, server: str):
    p = tmp_path / "loras" / "my-lora" / "training_parameters.json"
    p.parent.mkdir(parents=True)
    p.write_text(json.dumps(params, indent=4))
    s = tmp_path / "start.sh"
    s.write_text(f"#!/bin/bash\nexport HSA_OVERRIDE_GFX_VERSION=10.3.0\n{server}\n")
    return [str(p), str(s)]


def test_textgen_training_tab_is_read_as_the_tab_trains(tmp_path):
    """modules/training.py: LoRA on the ticked projections, samples padded to cutoff_len, fp16 AMP, and PEFT's
    prepare_model_for_kbit_training (gradient checkpointing on) for a model loaded in 4 bit."""
    files = _textgen(tmp_path, TEXTGEN, "python server.py --model llama-2-7b-chat-hf --loader transformers --load-in-4bit")
    rep = check(files, gpu_id="rx6900xt")
    c = rep.cfg
    assert c is not None
    assert (c.method, c.quant_bits, c.double_quant, c.lora_rank, c.lora_targets) == ("qlora", 4, False, 32,
                                                                                     ("q_proj", "v_proj"))
    assert (c.cutoff_len, c.micro_batch, c.gradient_checkpointing, c.precision) == (256, 4, True, "fp16")
    assert rep.verdict == "fits"          # issue 3759: Llama-2-7B and a Llama-2-13B trained so on a 16 GB RX 6900 XT


def test_textgen_unquantized_and_old_files(tmp_path):
    old = {k: v for k, v in TEXTGEN.items() if not k.endswith("_proj_en")}      # files from before the boxes
    files = _textgen(tmp_path, {**old, "micro_batch_size": 8, "cutoff_len": 2048},
                     "python server.py --model llama-2-13b --bf16")
    rep = check(files, gpu_id="rx6900xt")
    c = rep.cfg
    assert c is not None
    # no quantized load: no prepare_model_for_kbit_training, no checkpointing; PEFT's default q_proj, v_proj
    assert (c.method, c.gradient_checkpointing, c.precision, c.lora_targets) == ("lora", False, "bf16",
                                                                               ("q_proj", "v_proj"))
    assert (c.cutoff_len, c.micro_batch) == (2048, 8)
    assert rep.verdict == "oom"           # 26 GB of bf16 weights alone on a 16 GB card
