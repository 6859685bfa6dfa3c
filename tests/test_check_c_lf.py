"""`check` reads a LLaMA-Factory config as the release that runs it does (issue 26, helper c-lf), each rule from
hiyouga/LLaMA-Factory's source (the mirror's main ff6d4d12 and the release tags named):

* flash_attn in each release's spelling: a boolean up to v0.6 (hparams/model_args.py:60 @ v0.6.0, `--flash_attn`
  alone = FlashAttention-2), `off` = eager in v0.7-v0.8 (model_args.py:68 @ v0.7.0, model_utils/attention.py @ v0.8.0),
  `disabled` = eager and `auto` = transformers' default (SDPA) from v0.9 (extras/constants.py AttentionFunction);
* the reference model of preference stages: none for pref_loss orpo/simpo (hparams/finetuning_args.py:593
  use_ref_model), a loaded `ref_model` also under LoRA, a copy of the model for full/freeze
  (train/trainer_utils.py:116-146 create_ref_model); KTO asks for one too (train/kto/workflow.py:57-60), the reward
  model trains on chosen + rejected with none (train/rm/workflow.py PairwiseDataCollatorWithPadding);
* gradient checkpointing on by default in every release (model_args.py disable_gradient_checkpointing = False @
  v0.5.3 ... ff6d4d12; model_utils/checkpointing.py prepare_model_for_training enables it at load, so transformers'
  own `gradient_checkpointing: false` does not turn it off).
Values in, the settings read and the estimate's part they decide out."""

from __future__ import annotations

import contextlib
import io
import json

from rocm_tune.cli import main
from rocm_tune.core.memory.estimate import TrainConfig, estimate
from rocm_tune.core.model.architecture import load_model

YAML = """### model
model_name_or_path: Qwen/Qwen2.5-7B-Instruct
trust_remote_code: true

### method
stage: {stage}
do_train: true
finetuning_type: {ft}
{extra}
### dataset
dataset: {dataset}
template: qwen
{cutoff}overwrite_cache: true
preprocessing_num_workers: 16

### output
output_dir: saves/qwen2.5-7b/{ft}/{stage}
logging_steps: 10
save_steps: 500
plot_loss: true

### train
per_device_train_batch_size: 1
gradient_accumulation_steps: 8
learning_rate: 5.0e-6
num_train_epochs: 3.0
lr_scheduler_type: cosine
warmup_ratio: 0.1
bf16: true
ddp_timeout: 180000000
"""

# LLaMA-Factory v0.6-era launch (README @ v0.6.0: `python src/train_bash.py --stage sft ... --flash_attn`)
SCRIPT = """CUDA_VISIBLE_DEVICES=0 python src/train_bash.py \\
    --stage sft \\
    --do_train \\
    --model_name_or_path meta-llama/Llama-2-7b-hf \\
    --dataset alpaca_gpt4_en \\
    --template default \\
    --finetuning_type lora \\
    --lora_target q_proj,v_proj \\
    --output_dir saves/llama2-7b/lora/sft \\
    --overwrite_cache \\
    --per_device_train_batch_size 4 \\
    --gradient_accumulation_steps 4 \\
    --lr_scheduler_type cosine \\
    --logging_steps 10 \\
    --save_steps 1000 \\
    --learning_rate 5e-5 \\
    --num_train_epochs 3.0 \\
    --plot_loss \\
    --fp16{flags}
"""


def _check(tmp_path, name: str, text: str, *extra: str) -> dict:
    p = tmp_path / name
    p.write_text(text)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        rc = main(["check", str(p), "--gpu", "mi300x", *extra, "--json"])
    assert rc in (0, 1), out.getvalue()
    return json.loads(out.getvalue())


def _yaml(stage="sft", ft="lora", extra="", cutoff="cutoff_len: 2048\n", dataset="alpaca_en_demo") -> str:
    return YAML.format(stage=stage, ft=ft, extra=extra, cutoff=cutoff, dataset=dataset)


def _peak(d: dict, phase: str = "step") -> int:
    return d["memory"][phase]["peak_allocated_bytes"]


def _params(preset: str) -> int:
    return estimate(load_model(preset), TrainConfig(method="full")).params_total


# ------------------------------------------------------------------------------------------------ flash_attn
def test_bare_flash_attn_flag_of_v06_is_flashattention2(tmp_path):
    d = _check(tmp_path, "train.sh", SCRIPT.format(flags=" \\\n    --flash_attn"))
    assert d["understood"]["attn"] == "fa2"
    plain = _check(tmp_path, "plain.sh", SCRIPT.format(flags=""))
    assert plain["understood"]["attn"] == "sdpa"        # flash_attn False (the v0.6 default): transformers' SDPA


def test_flash_attn_off_of_v07_v08_and_disabled_of_v09_are_eager(tmp_path):
    off = _check(tmp_path, "off.sh", SCRIPT.format(flags=" \\\n    --flash_attn off").replace(
        "python src/train_bash.py", "llamafactory-cli train"))
    disabled = _check(tmp_path, "disabled.yaml", _yaml(extra="flash_attn: disabled\n"))
    auto = _check(tmp_path, "auto.yaml", _yaml(extra="flash_attn: auto\n"))
    assert off["understood"]["attn"] == "eager"
    assert disabled["understood"]["attn"] == "eager"
    assert auto["understood"]["attn"] == "sdpa"
    # eager attention keeps every layer's softmax scores: the step needs more than SDPA's at the same length
    assert _peak(disabled) > _peak(auto)


# ------------------------------------------------------------------------------------------------ reference model
def test_orpo_and_simpo_keep_no_reference_model_sigmoid_keeps_one(tmp_path):
    sig = _check(tmp_path, "sig.yaml", _yaml(stage="dpo", ft="full", extra="pref_beta: 0.1\npref_loss: sigmoid\n",
                                             dataset="dpo_en_demo"))
    orpo = _check(tmp_path, "orpo.yaml", _yaml(stage="dpo", ft="full", extra="pref_beta: 0.1\npref_loss: orpo\n",
                                               dataset="dpo_en_demo"))
    simpo = _check(tmp_path, "simpo.yaml", _yaml(stage="dpo", ft="full", extra="pref_loss: simpo\n",
                                                 dataset="dpo_en_demo"))
    assert sig["understood"]["reference_model"] is True and orpo["understood"]["reference_model"] is False
    assert simpo["understood"]["reference_model"] is False
    assert orpo["understood"]["stage"] == "dpo"          # chosen and rejected still in one batch
    # the difference is one frozen bf16 copy of every parameter
    assert _peak(sig) - _peak(orpo) == 2 * _params("qwen2.5-7b")
    assert _peak(orpo) == _peak(simpo)


def test_lora_dpo_uses_the_disabled_adapter_unless_ref_model_is_given(tmp_path):
    plain = _check(tmp_path, "lora.yaml", _yaml(stage="dpo", extra="lora_target: all\n", dataset="dpo_en_demo"))
    given = _check(tmp_path, "ref.yaml", _yaml(stage="dpo", extra="lora_target: all\nref_model: Qwen/Qwen2.5-7B-Instruct\n",
                                               dataset="dpo_en_demo"))
    assert plain["understood"]["reference_model"] is False and given["understood"]["reference_model"] is True
    assert _peak(given) - _peak(plain) == 2 * _params("qwen2.5-7b")


def test_kto_and_ppo_full_keep_a_reference_copy_and_reward_model_doubles_the_rows(tmp_path):
    sft = _check(tmp_path, "sft.yaml", _yaml(stage="sft", ft="full"))
    kto = _check(tmp_path, "kto.yaml", _yaml(stage="kto", ft="full", dataset="kto_en_demo"))
    assert kto["understood"]["stage"] == "sft" and kto["understood"]["reference_model"] is True
    assert _peak(kto) - _peak(sft) == 2 * _params("qwen2.5-7b")
    # train/ppo/workflow.py: create_ref_model(add_valuehead=True) - a copy for a full policy, none under LoRA
    ppo = _check(tmp_path, "ppo.yaml", _yaml(stage="ppo", ft="full", extra="reward_model: saves/rm\n"))
    assert ppo["understood"]["stage"] == "sft" and ppo["understood"]["reference_model"] is True
    assert _peak(ppo) - _peak(sft) == 2 * _params("qwen2.5-7b")
    lppo = _check(tmp_path, "lppo.yaml", _yaml(stage="ppo", extra="reward_model: saves/rm\n"))
    assert lppo["understood"]["reference_model"] is False
    assert any("stage ppo" in x and "generation is not counted" in x for x in lppo["assumptions"])
    rm = _check(tmp_path, "rm.yaml", _yaml(stage="rm", extra="lora_target: all\n", dataset="dpo_en_demo"))
    lora_sft = _check(tmp_path, "lsft.yaml", _yaml(stage="sft", extra="lora_target: all\n"))
    assert rm["understood"]["stage"] == "dpo" and rm["understood"]["reference_model"] is False
    assert _peak(rm) > _peak(lora_sft)                   # chosen + rejected: two rows per sample


def test_reference_model_unset_keeps_the_stage_rule_for_other_runners():
    model = load_model("qwen2.5-7b")
    full = estimate(model, TrainConfig(method="full", stage="dpo"))
    said = estimate(model, TrainConfig(method="full", stage="dpo", reference_model=True))
    none = estimate(model, TrainConfig(method="full", stage="dpo", reference_model=False))
    assert full.per_gpu.peak_allocated_bytes == said.per_gpu.peak_allocated_bytes
    assert full.per_gpu.peak_allocated_bytes - none.per_gpu.peak_allocated_bytes == 2 * full.params_total


# ------------------------------------------------------------------------------------------------ checkpointing
def test_gradient_checkpointing_is_on_in_llamafactory_whatever_transformers_key_says(tmp_path):
    base = _check(tmp_path, "gc.yaml", _yaml(extra="gradient_checkpointing: false\n"))
    assert base["understood"]["gradient_checkpointing"] is True
    off = _check(tmp_path, "nogc.yaml", _yaml(extra="disable_gradient_checkpointing: true\n"))
    assert off["understood"]["gradient_checkpointing"] is False
    assert _peak(off) > _peak(base)


# ------------------------------------------------------------------------------------------------ Liger
def test_liger_only_for_the_model_types_llamafactory_lists(tmp_path):
    # model/model_utils/liger_kernel.py apply_liger_kernel: qwen2_5_vl is listed, qwen3_vl is not ("Current model does
    # not support liger kernel.": nothing patched, the logits are made whole)
    listed = _check(tmp_path, "q25.yaml", _yaml(extra="enable_liger_kernel: true\n").replace(
        "Qwen/Qwen2.5-7B-Instruct", "Qwen/Qwen2.5-VL-7B-Instruct"))
    plain25 = _check(tmp_path, "q25p.yaml", _yaml().replace("Qwen/Qwen2.5-7B-Instruct", "Qwen/Qwen2.5-VL-7B-Instruct"))
    assert listed["understood"]["fused_ce"] is True and listed["understood"]["liger_norm"] is True
    assert _peak(listed) < _peak(plain25)
    unlisted = _check(tmp_path, "q3vl.yaml", _yaml(extra="enable_liger_kernel: true\n").replace(
        "Qwen/Qwen2.5-7B-Instruct", "Qwen/Qwen3-VL-8B-Instruct"))
    plain3 = _check(tmp_path, "q3vlp.yaml", _yaml().replace("Qwen/Qwen2.5-7B-Instruct", "Qwen/Qwen3-VL-8B-Instruct"))
    assert "fused_ce" not in unlisted["understood"] and "liger_norm" not in unlisted["understood"]
    assert any("qwen3_vl" in n and "no Liger kernel" in n for n in unlisted["notes"])
    assert not any(f["code"] == "kernels-not-modelled" for f in listed["findings"] + unlisted["findings"])
    assert _peak(unlisted) == _peak(plain3)
    text = _check(tmp_path, "q3.yaml", _yaml(extra="enable_liger_kernel: true\n").replace(
        "Qwen/Qwen2.5-7B-Instruct", "Qwen/Qwen3-8B"))
    assert text["understood"]["fused_ce"] is True        # the Qwen3 language model is listed


# ------------------------------------------------------------------------------------------------ neat_packing
def test_neat_packing_without_fa2_keeps_a_4d_mask_of_the_packed_length(tmp_path):
    # data/collator.py:535-536: block_diag_attn and attn_implementation != "flash_attention_2" ->
    # prepare_4d_attention_mask(attention_mask_with_indices, compute_dtype): [batch, 1, seq, seq] 16-bit
    packed = _check(tmp_path, "packed.yaml", _yaml(extra="packing: true\n", cutoff="cutoff_len: 16384\n"))
    neat = _check(tmp_path, "neat.yaml", _yaml(extra="neat_packing: true\n", cutoff="cutoff_len: 16384\n"))
    neat_fa2 = _check(tmp_path, "neatfa.yaml", _yaml(extra="neat_packing: true\nflash_attn: fa2\n",
                                                     cutoff="cutoff_len: 16384\n"))
    packed_fa2 = _check(tmp_path, "packfa.yaml", _yaml(extra="packing: true\nflash_attn: fa2\n",
                                                       cutoff="cutoff_len: 16384\n"))
    assert neat["understood"]["mask_4d"] is True and "mask_4d" not in neat_fa2["understood"]
    assert _peak(neat) - _peak(packed) == 1 * 16384 * 16384 * 2      # one row, bf16
    assert _peak(neat_fa2) == _peak(packed_fa2)


# ------------------------------------------------------------------------------------------------ freeze + GC
def test_freeze_layers_below_the_trained_block_keep_nothing_under_llamafactory_checkpointing(tmp_path):
    # model/model_utils/checkpointing.py get_custom_gradient_checkpointing_func: only a layer with trainable parameters
    # gets requires_grad hidden states and a checkpoint; a frozen layer below it runs plainly, outside autograd
    model = load_model("qwen2.5-7b")
    lf = TrainConfig(method="freeze", freeze_trainable_layers=2, cutoff_len=4096, runner="llamafactory")
    hf = TrainConfig(method="freeze", freeze_trainable_layers=2, cutoff_len=4096, runner="hf")
    below = model.num_layers - 2
    kept = estimate(model, hf).per_gpu.activations_bytes - estimate(model, lf).per_gpu.activations_bytes
    assert kept == below * model.hidden_size * 2 * 4096          # one bf16 checkpoint per frozen layer, no more
    d = _check(tmp_path, "freeze.yaml", _yaml(ft="freeze", extra="freeze_trainable_layers: 2\n",
                                              cutoff="cutoff_len: 4096\n"))
    assert d["understood"]["method"] == "freeze" and d["understood"]["gradient_checkpointing"] is True
    assert d["understood"]["runner"] == "llamafactory" and d["understood"]["freeze_trainable_layers"] == 2
