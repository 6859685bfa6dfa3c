"""LLaMA-Factory (``llamafactory-cli train``): the dtypes it really loads and trains in.

Read in hiyouga/LlamaFactory at the commits below (v0.9.5 = 7af90952, main = ff6d4d12 agree):

* the model is loaded with ``torch_dtype="auto"``: the dtype config.json names, whatever bf16/fp16 say;
* with ``bf16: false`` and ``fp16: false`` no autocast runs and ``compute_dtype`` is inferred
  (``infer_optim_dtype``: bf16 when ``is_torch_bf16_gpu_available()`` - True on every ROCm GPU, gfx906
  included, and on pre-Ampere NVIDIA through emulation - else fp16): "fp32" trains a bf16 checkpoint in bf16;
* trainable parameters are upcast to fp32 unless pure_bf16 / BAdam, or DeepSpeed ZeRO-3 without
  quantisation (DeepSpeed keeps fp32 partitions itself); LoRA adapters follow
  (``autocast_adapter_dtype=cast_trainable_params_to_fp32``): under pure_bf16 they stay bf16;
* ``bf16: true`` / ``fp16: true`` = torch autocast through the HF Trainer; pure_bf16 = no autocast.
"""

from __future__ import annotations

from rocm_tune.core.runners import Fact, Regime, checkpoint_dtype

REPO = "hiyouga/LlamaFactory"
V095 = "7af909522a951e3ad9f022ea6f88b6755257eaa5"   # v0.9.5
FACTS = (
    Fact('load_model passes torch_dtype="auto" to from_pretrained (the checkpoint\'s dtype)',
         f"{REPO}:src/llamafactory/model/loader.py (load_model)", V095),
    Fact("compute_dtype is set only for bf16/pure_bf16 (bfloat16) or fp16 (float16)",
         f"{REPO}:src/llamafactory/hparams/parser.py (get_train_args, post-process model arguments)", V095),
    Fact("compute_dtype None -> infer_optim_dtype(config.torch_dtype)",
         f"{REPO}:src/llamafactory/model/patcher.py (patch_config)", V095),
    Fact("infer_optim_dtype: bf16 if is_torch_bf16_gpu_available() and the model dtype is bf16 or None, "
         "else fp16 on any CUDA/ROCm/NPU device, else fp32",
         f"{REPO}:src/llamafactory/extras/misc.py (infer_optim_dtype)", V095),
    Fact("cast_trainable_params_to_fp32 unless pure_bf16, use_badam, or ZeRO-3 without quantization_bit",
         f"{REPO}:src/llamafactory/model/adapter.py (init_adapter)", V095),
    Fact("get_peft_model(..., autocast_adapter_dtype=cast_trainable_params_to_fp32)",
         f"{REPO}:src/llamafactory/model/adapter.py (_setup_lora_tuning)", V095),
    Fact("pure_bf16 is refused with DeepSpeed ZeRO-3 and on devices without bf16",
         f"{REPO}:src/llamafactory/hparams/parser.py (get_train_args)", V095),
    Fact("the SFT/DPO/RM collators pad to the longest sample of the batch, pad_to_multiple_of=8",
         f"{REPO}:src/llamafactory/train/sft/workflow.py (run_sft)", V095),
    Fact("ZeRO-3: zero.Init casts every parameter to the config's dtype (fp16 / bf16 / else fp32) when it "
         "partitions it", "deepspeedai/DeepSpeed:deepspeed/runtime/zero/partition_parameters.py (_set_dtype)",
         "v0.19.8"),
    Fact("torch.cuda.is_bf16_supported() returns True whenever torch.version.hip is set",
         "pytorch/pytorch:torch/cuda/__init__.py (is_bf16_supported)", "v2.13.0"),
)


def _upcasts(cfg) -> bool:
    """adapter.py init_adapter: are the trainable parameters cast to fp32?"""
    if cfg.precision == "pure_bf16":
        return False
    return not (cfg.zero_stage == 3 and cfg.method != "qlora")


def regime(model, cfg) -> Regime:
    ckpt = checkpoint_dtype(model)
    p = cfg.precision
    trainable = "fp32" if _upcasts(cfg) else ckpt
    notes: list[str] = []
    if p in ("bf16", "fp16"):
        return Regime("llamafactory", p, ckpt, trainable, p, p, ckpt, False,
                      (f'weights load as the checkpoint\'s {ckpt} (torch_dtype="auto")',) if ckpt != p else ())
    if p == "pure_bf16":
        ignored = ckpt != "bf16"
        if ignored:
            notes.append(f"pure_bf16 keeps the checkpoint's {ckpt} weights: LLaMA-Factory does not cast them to bf16")
        return Regime("llamafactory", p, ckpt, ckpt, ckpt, None, ckpt, ignored, tuple(notes))
    if cfg.zero_stage == 3 and cfg.method != "qlora":
        # DeepSpeed ZeRO-3 builds the model under zero.Init and casts every parameter to the JSON's dtype when it
        # partitions it: fp32 with fp16 and bf16 off (measured: stock llamafactory-cli + ZeRO-3 trains fp32 weights
        # although the checkpoint is bf16 and bf16 is "available")
        return Regime("llamafactory", p, "fp32", "fp32", "fp32", None, ckpt, False,
                      ("DeepSpeed ZeRO-3 casts the weights to fp32 when it partitions them (fp16 and bf16 off in "
                       "its JSON)",) if ckpt != "fp32" else ())
    # fp32 requested: bf16: false, fp16: false -> no autocast, weights as stored, trainable upcast
    compute = trainable if cfg.method == "full" else ckpt
    ignored = ckpt != "fp32" and not (cfg.method == "full" and trainable == "fp32")
    if ignored:
        notes.append(f"LLaMA-Factory loads the {ckpt} checkpoint as stored (torch_dtype=\"auto\") and, with "
                     f"bf16 and fp16 off, runs no autocast: frozen weights and activations stay {ckpt}")
    return Regime("llamafactory", p, ckpt, trainable, compute, None, ckpt, ignored, tuple(notes))
