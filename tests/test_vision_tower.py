"""A vision-language model's vision tower and image tokens in the estimate and in `check` (issue 26)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import replace

import pytest

from rocm_tune.core.memory.estimate import TrainConfig, estimate
from rocm_tune.core.model.architecture import load_model, model_from_config

# Qwen2-VL-7B-Instruct's published vision_config (embed_dim/mlp_ratio; hidden_size = the language model's)
QWEN2_VL_VISION = {"depth": 32, "embed_dim": 1280, "mlp_ratio": 4, "num_heads": 16, "in_chans": 3,
                   "hidden_size": 3584, "patch_size": 14, "spatial_merge_size": 2, "temporal_patch_size": 2}


@pytest.mark.parametrize("kind", ["qwen2_vl", "qwen2_5_vl"])
def test_tower_params_match_the_real_class_on_meta(kind):
    """The tower's parameters as transformers builds them (meta device), from the preset / published vision_config."""
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    if kind == "qwen2_5_vl":
        spec = load_model("qwen2.5-vl-7b")
        vc = dict(spec.config["vision_config"])
        cls = transformers.models.qwen2_5_vl.modeling_qwen2_5_vl.Qwen2_5_VisionTransformerPretrainedModel
        hf = transformers.Qwen2_5_VLConfig(vision_config=vc).vision_config
    else:
        spec = model_from_config({**load_model("qwen2.5-vl-7b").config, "model_type": "qwen2_vl",
                                  "vision_config": QWEN2_VL_VISION})
        cls = transformers.models.qwen2_vl.modeling_qwen2_vl.Qwen2VisionTransformerPretrainedModel
        hf = transformers.Qwen2VLConfig(vision_config=QWEN2_VL_VISION).vision_config
    with torch.device("meta"):
        tower = cls._from_config(hf)
    assert spec.vision is not None and spec.vision.kind == kind
    assert spec.vision.params == sum(p.numel() for p in tower.parameters())
    assert spec.vision.pixels_per_token == 28 * 28     # 14x14 patches merged 2x2


def test_frozen_tower_weights_are_in_the_breakdown():
    m = load_model("qwen2.5-vl-7b")
    text = replace(m, vision=None)
    cfg = TrainConfig(method="lora", precision="bf16", cutoff_len=2048, image_tokens=1024)
    vl, lm = estimate(m, cfg).per_gpu, estimate(text, cfg).per_gpu
    tower_bytes = m.vision.params * 2                                   # bf16, frozen
    assert abs((vl.weights_bytes - lm.weights_bytes) - tower_bytes) <= 1024
    assert abs((vl.frozen_weights_bytes - lm.frozen_weights_bytes) - tower_bytes) <= 1024
    assert vl.vision_bytes >= tower_bytes and vl.gradients_bytes == lm.gradients_bytes
    assert vl.activations_bytes == lm.activations_bytes                # a frozen tower keeps no activations
    assert "vision_bytes" not in estimate(text, cfg).per_gpu.to_dict()  # said only for a VLM
    assert any("1024 image tokens per sample = 4096 ViT patches" in n for n in estimate(m, cfg).notes)


def test_trained_tower_adds_gradients_optimizer_and_image_activations():
    m = load_model("qwen2.5-vl-7b")
    base = TrainConfig(method="full", precision="bf16", cutoff_len=1024, zero_stage=3, gpus=4, image_tokens=1024)
    frozen = estimate(m, base).per_gpu
    trained = estimate(m, replace(base, vision_trainable=True)).per_gpu
    few = estimate(m, replace(base, vision_trainable=True, image_tokens=256)).per_gpu
    assert trained.gradients_bytes > frozen.gradients_bytes and trained.optimizer_bytes > frozen.optimizer_bytes
    assert trained.activations_bytes > few.activations_bytes > frozen.activations_bytes  # more patches, more kept
    assert trained.peak_allocated_bytes > frozen.peak_allocated_bytes
    no_ckpt = estimate(m, replace(base, vision_trainable=True, gradient_checkpointing=False)).per_gpu
    assert no_ckpt.activations_bytes > trained.activations_bytes
    # image_tokens are the tower's (check caps them at cutoff_len only where the runner drops an over-long sample;
    # LLaMA-Factory cuts the token ids but encodes the whole image): more of them, more activations
    whole = estimate(m, replace(base, vision_trainable=True, image_tokens=50_000)).per_gpu
    assert whole.activations_bytes > trained.activations_bytes


def _check(tmp_path, name: str, text: str, *args: str) -> dict:
    f = tmp_path / name
    f.write_text(text)
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    out = subprocess.run([sys.executable, "-m", "rocm_tune", "check", str(f), *args, "--json"], capture_output=True,
                         text=True, env=env, cwd=tmp_path, timeout=300)
    assert out.returncode in (0, 1), out.stderr
    return json.loads(out.stdout)


def test_check_llamafactory_vlm_says_the_image_assumption(tmp_path):
    rep = _check(tmp_path, "vl.yaml", "model_name_or_path: Qwen/Qwen2.5-VL-7B-Instruct\nimage_max_pixels: 262144\n"
                 "stage: sft\ndo_train: true\nfinetuning_type: lora\ncutoff_len: 2048\n"
                 "per_device_train_batch_size: 1\nbf16: true\n", "--gpu", "rtx5090")
    said = " ".join(rep["assumptions"])
    assert "vision tower frozen" in said and "262144 pixels (image_max_pixels)" in said
    assert "334 tokens of 784 pixels" in said and "1336 ViT patches" in said
    assert "vlm-language-part" not in json.dumps(rep["findings"])


def test_check_ms_swift_full_with_vit_trained_counts_it(tmp_path):
    script = ("MAX_PIXELS=1003520 NPROC_PER_NODE=4 swift sft --model Qwen/Qwen2.5-VL-7B-Instruct --train_type full "
              "--freeze_vit {fv} --max_length 2048 --per_device_train_batch_size 1 --deepspeed zero3 "
              "--torch_dtype bfloat16\n")
    frozen = _check(tmp_path, "a.sh", script.format(fv="true"), "--gpu", "rtx-a6000", "--gpus", "4")
    trained = _check(tmp_path, "b.sh", script.format(fv="false"), "--gpu", "rtx-a6000", "--gpus", "4")
    assert "vision tower frozen (freeze_vit: true)" in " ".join(frozen["assumptions"])
    said = " ".join(trained["assumptions"])
    assert "vision tower trained (freeze_vit: false)" in said and "1003520 pixels (MAX_PIXELS)" in said
    assert "1280 tokens of 784 pixels" in said
    assert trained["memory"]["step"]["peak_allocated_bytes"] > frozen["memory"]["step"]["peak_allocated_bytes"]


def test_check_llamafactory_image_resolution_is_the_older_pixel_cap(tmp_path):
    rep = _check(tmp_path, "old.yaml", "model_name_or_path: Qwen/Qwen2.5-VL-7B-Instruct\nimage_resolution: 448\n"
                 "stage: sft\ndo_train: true\nfinetuning_type: full\nfreeze_vision_tower: false\ncutoff_len: 512\n"
                 "per_device_train_batch_size: 1\nbf16: true\n", "--gpu", "mi300x")
    said = " ".join(rep["assumptions"])
    assert "vision tower trained (freeze_vision_tower: False)" in said or "vision tower trained (freeze_vision_tower: false)" in said
    assert "200704 pixels (image_resolution 448 squared) = 256 tokens" in said


def test_tower_heads_and_full_attention_blocks_match_the_real_config():
    """num_heads and the whole-image attention blocks as transformers' Qwen2.5-VL / Qwen2-VL vision configs hold
    them (fullatt_block_indexes; Qwen2-VL attends over the whole image in every block)."""
    transformers = pytest.importorskip("transformers")
    spec = load_model("qwen2.5-vl-7b")
    hf = transformers.Qwen2_5_VLConfig(vision_config=dict(spec.config["vision_config"])).vision_config
    assert spec.vision.heads == hf.num_heads
    assert spec.vision.full_blocks == len(hf.fullatt_block_indexes)
    assert spec.vision.window_patches == (hf.window_size // hf.patch_size) ** 2
    q2 = model_from_config({**spec.config, "model_type": "qwen2_vl", "vision_config": QWEN2_VL_VISION}).vision
    assert q2.heads == 16 and q2.attention_blocks_over_image == q2.depth


def test_eager_attention_scores_over_a_large_image_are_counted():
    """Eager attention materialises num_heads x n x n scores over the n patches of an image (float32 softmax beside
    the bf16 matmul output): a 12.8M-pixel image (16384 tokens, 65536 patches) needs 16 x 65536^2 x 6 bytes in one
    full-attention block, where SDPA/FlashAttention need nothing of the kind."""
    m = load_model("qwen2.5-vl-7b")
    base = TrainConfig(method="lora", precision="bf16", cutoff_len=20_000, image_tokens=16384)
    sdpa = estimate(m, base)
    eager = estimate(m, replace(base, attn="eager"))
    scores = 16 * 65536 ** 2 * (4 + 2)
    assert eager.per_gpu.peak_allocated_bytes >= scores > 4 * sdpa.per_gpu.peak_allocated_bytes
    assert any("eager attention scores over one image: 384.00 GiB" in n for n in eager.notes)
    assert not any("eager attention scores" in n for n in sdpa.notes)
    small = estimate(m, replace(base, attn="eager", image_tokens=256))    # 1024 patches: 0.09 GiB
    assert any("eager attention scores over one image: 0.09 GiB" in n for n in small.notes)


def test_frozen_tower_with_inputs_requiring_grad_keeps_block_inputs():
    """ms-swift makes the frozen tower's input require grad under gradient checkpointing: autograd records the
    tower, each of its blocks keeping its input (patches x hidden in bf16)."""
    m = load_model("qwen2.5-vl-7b")
    base = TrainConfig(method="lora", precision="bf16", cutoff_len=4096, image_tokens=4096)
    plain = estimate(m, base).per_gpu
    recorded = estimate(m, replace(base, vision_input_grads=True)).per_gpu
    kept = m.vision.depth * 4096 * 4 * m.vision.hidden * 2
    assert abs((recorded.vision_bytes - plain.vision_bytes) - kept) <= 1024
    assert recorded.peak_allocated_bytes > plain.peak_allocated_bytes


def test_check_ms_swift_lora_records_the_frozen_tower_unless_vit_checkpointing_is_off(tmp_path):
    """ms-swift 3.5+ (--vit_gradient_checkpointing exists from 3.5, with the patch_embed get_input_embeddings patch)
    records the frozen Qwen-VL tower under checkpointing; before 3.5 (no version marker: the older assumed)
    enable_input_require_grads raises NotImplementedError on transformers' vision model and is swallowed (helper
    c-vlm8)."""
    script = ("MAX_PIXELS=1003520 swift sft --model Qwen/Qwen2.5-VL-7B-Instruct --train_type lora "
              "--max_length 2048 --per_device_train_batch_size 1 --torch_dtype bfloat16 {extra}\n")
    on = _check(tmp_path, "a.sh", script.format(extra="--vit_gradient_checkpointing true"), "--gpu", "rtx-a6000")
    off = _check(tmp_path, "b.sh", script.format(extra="--vit_gradient_checkpointing false"), "--gpu", "rtx-a6000")
    old = _check(tmp_path, "c.sh", script.format(extra=""), "--gpu", "rtx-a6000")
    assert "enable_input_require_grads" in " ".join(on["assumptions"])
    assert "enable_input_require_grads" not in " ".join(off["assumptions"]) + " ".join(old["assumptions"])
    assert on["memory"]["step"]["peak_allocated_bytes"] > off["memory"]["step"]["peak_allocated_bytes"]


# ms-swift 2.x's Qwen2-VL best practice (docs/source/Multi-Modal/qwen2-vl最佳实践.md): LoRA on one A10/3090, 20 GB
SWIFT2_OCR = ("SIZE_FACTOR=8 MAX_PIXELS=602112 CUDA_VISIBLE_DEVICES=0 swift sft \\\n"
              "  --model_type qwen2-vl-7b-instruct \\\n  --model_id_or_path qwen/Qwen2-VL-7B-Instruct \\\n"
              "  --sft_type lora \\\n  --dataset latex-ocr-print#20000 {extra}\n")


def test_ms_swift_2x_max_length_default_and_image_tokens_on_top(tmp_path):
    """ms-swift 2.x (--sft_type / --model_id_or_path): SftArguments.max_length 2048 when unset (3.x: the model's
    context); its Qwen2-VL template expands each image after the max_length check, so the language model sees
    2048 + 768 tokens for a 602112-pixel image; the documented 20 GB run fits a 24 GiB card."""
    rep = _check(tmp_path, "ocr.sh", SWIFT2_OCR.format(extra=""), "--gpu", "rtx3090")
    said = " ".join(rep["assumptions"])
    assert rep["understood"]["cutoff_len"] == 2048 + 768
    assert "768 tokens of 784 pixels, 768 counted (the whole image reaches the tower" in said
    assert "the language model sees up to 2816 tokens" in said
    assert rep["verdict"] == "fits"


def test_ms_swift_2x_uncapped_image_materialises_the_vision_scores(tmp_path):
    """No MAX_PIXELS under ms-swift 2.x: a 12845056-pixel image (16384 tokens, 65536 patches) reaches the tower
    whole; transformers 4.45's Qwen2-VL vision SDPA (3-D tensors with a mask) runs the math backend: 16 x 65536^2
    scores. FlashAttention (--use_flash_attn true) keeps none: the step needs hundreds of GiB less."""
    script = ("NPROC_PER_NODE=8 swift sft --model_type qwen2-vl-7b-instruct --model_id_or_path "
              "/models/qwen/Qwen2-VL-7B-Instruct --sft_type lora --dataset in.jsonl --deepspeed default-zero3 {x}\n")
    sdpa = _check(tmp_path, "a.sh", script.format(x=""), "--gpu", "a800-80gb", "--gpus", "8")
    fa2 = _check(tmp_path, "b.sh", script.format(x="--use_flash_attn true"), "--gpu", "a800-80gb", "--gpus", "8")
    assert "math backend" in " ".join(sdpa["assumptions"]) and "math backend" not in " ".join(fa2["assumptions"])
    assert sdpa["verdict"] == "oom"
    # the frozen tower runs without a graph (ms-swift before 3.5): its scores are in the step's peak, nothing kept
    scores = 16 * 65536 ** 2 * 6
    assert sdpa["memory"]["step"]["peak_allocated_bytes"] >= scores
    assert fa2["memory"]["step"]["peak_allocated_bytes"] < scores / 4


def test_llamafactory_whole_image_reaches_the_tower_and_lora_records_an_unfrozen_one(tmp_path):
    """LLaMA-Factory cuts the token ids at cutoff_len but builds pixel_values from the whole image: 67108864 pixels
    = 85598 tokens reach the tower although cutoff_len is 24576 (issue 9075's settings). With freeze_vision_tower
    false, lora_target all puts LoRA on the tower's linears: its pass is recorded (each block keeps its input)."""
    yaml = ("model_name_or_path: Qwen/Qwen2.5-VL-3B-Instruct\nstage: sft\ndo_train: true\nfinetuning_type: lora\n"
            "lora_target: all\ncutoff_len: 24576\nimage_max_pixels: 67108864\nper_device_train_batch_size: 1\n"
            "bf16: true\nfreeze_vision_tower: {fz}\n")
    free = _check(tmp_path, "a.yaml", yaml.format(fz="false"), "--gpu", "h100-sxm")
    frozen = _check(tmp_path, "b.yaml", yaml.format(fz="true"), "--gpu", "h100-sxm")
    said = " ".join(free["assumptions"])
    assert "85598 counted (the whole image reaches the tower" in said and "342392 ViT patches" in said
    assert "LoRA over all linear layers reaches the unfrozen tower" in said
    assert "reaches the unfrozen tower" not in " ".join(frozen["assumptions"])
    kept = 36 * 342392 * 1280 * 2            # Qwen2.5-VL-3B's 32 blocks... at least every block input, bf16
    assert free["memory"]["step"]["peak_allocated_bytes"] - frozen["memory"]["step"]["peak_allocated_bytes"] \
        >= kept * 32 // 36


def test_ms_swift_4x_drops_an_over_long_sample_unless_it_truncates(tmp_path):
    """ms-swift after its max_length fix of 2025-05-12 (4.x spells --tuner_type): the default raise skips a sample
    over max_length, so the tower sees at most max_length tokens of image; --truncation_strategy right keeps every
    image token (swift/template/base.py _truncate protects the placeholders). Before the fix (3.x --train_type),
    the Qwen-VL template checked max_length before expanding the images: the whole image reaches the tower and its
    tokens come on top of max_length."""
    script = ("swift sft --model Qwen/Qwen2.5-VL-7B-Instruct --{t} lora --max_length 1024 "
              "--per_device_train_batch_size 1 --torch_dtype bfloat16 {x}\n")
    dropped = _check(tmp_path, "a.sh", script.format(t="tuner_type", x=""), "--gpu", "h100-sxm")
    cut = _check(tmp_path, "b.sh", script.format(t="tuner_type", x="--truncation_strategy right"), "--gpu", "h100-sxm")
    old = _check(tmp_path, "c.sh", script.format(t="train_type", x=""), "--gpu", "h100-sxm")
    assert "1024 counted (inside cutoff_len 1024)" in " ".join(dropped["assumptions"])
    assert dropped["understood"]["cutoff_len"] == 1024
    assert "16384 counted (the whole image reaches the tower" in " ".join(cut["assumptions"])
    assert "16384 counted (the whole image reaches the tower" in " ".join(old["assumptions"])
    assert old["understood"]["cutoff_len"] == 1024 + 16384


def test_ms_swift_3x_qwen25vl_sdpa_math_path_unless_flash_or_4x(tmp_path):
    """ms-swift 3.x (--train_type) without FlashAttention on Qwen2.5-VL (issue 4989's settings: max_length 5000, no
    MAX_PIXELS, ZeRO-3 on 8 H20): the transformers of that time (4.49-4.51) call the vision SDPA on 3-D tensors with
    a mask, the math backend: 16 x 65536^2 scores for a 12.8M-pixel image. --attn_impl flash_attn or a 4.x install
    (--tuner_type, transformers that split the attention per window) materialise none."""
    script = ("NPROC_PER_NODE=8 swift sft --model /245_disk/Qwen2.5-VL-7B --dataset d.jsonl --{t} lora "
              "--deepspeed zero3 --max_length 5000 --per_device_train_batch_size 1 --gradient_checkpointing true {x}\n")
    args = ("--gpu", "h20", "--gpus", "8")
    sdpa = _check(tmp_path, "a.sh", script.format(t="train_type", x=""), *args)
    fa2 = _check(tmp_path, "b.sh", script.format(t="train_type", x="--attn_impl flash_attn"), *args)
    new = _check(tmp_path, "c.sh", script.format(t="tuner_type", x=""), *args)
    assert "math backend" in " ".join(sdpa["assumptions"])
    assert "math backend" not in " ".join(fa2["assumptions"]) + " ".join(new["assumptions"])
    assert sdpa["verdict"] == "oom"
    # the frozen tower runs without a graph (ms-swift before 3.5): its scores are in the step's peak, nothing kept
    scores = 16 * 65536 ** 2 * 6
    assert sdpa["memory"]["step"]["peak_allocated_bytes"] >= scores
    assert fa2["memory"]["step"]["peak_allocated_bytes"] < scores / 4


@pytest.mark.parametrize("name,total", [("qwen2-vl-2b", 2_208_985_600), ("qwen2-vl-7b", 8_291_375_616),
                                        ("qwen2-vl-72b", 73_405_560_320)])
def test_qwen2_vl_presets_are_qwen2_vl_with_its_own_tower(name, total):
    """Qwen2-VL is not Qwen2.5-VL: its tower attends over the whole image in every block (LayerNorm, fc1/fc2 MLP of
    embed_dim x 4); language model + tower = the published total, and = transformers' class on the meta device."""
    spec = load_model(name)
    assert spec.vision.kind == "qwen2_vl" and spec.vision.attention_blocks_over_image == spec.vision.depth == 32
    assert spec.params.total + spec.vision.params == total
    assert load_model(f"Qwen/Qwen2-VL-{name.split('-')[-1].upper()}-Instruct").name == name
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    if name == "qwen2-vl-72b":
        return                                   # 73B on the meta device: slow on a shared 2-core machine
    cfg = {k: v for k, v in spec.config.items() if k != "model_type"}
    with torch.device("meta"):
        m = transformers.Qwen2VLForConditionalGeneration(transformers.Qwen2VLConfig(**cfg))
    assert sum(p.numel() for p in m.parameters()) == total


def test_ms_swift_image_max_token_num_caps_the_image_in_tokens(tmp_path):
    """qwen_vl_utils >= 0.0.14 reads IMAGE_MAX_TOKEN_NUM (ms-swift's examples set it; swift/model/models/qwen.py
    converts MAX_PIXELS into it): 1024 tokens of 28x28 pixels for Qwen2.5-VL = 802816 pixels, 4096 ViT patches."""
    rep = _check(tmp_path, "t.sh", "IMAGE_MAX_TOKEN_NUM=1024 swift sft --model Qwen/Qwen2.5-VL-7B-Instruct "
                 "--tuner_type lora --max_length 2048 --torch_dtype bfloat16\n", "--gpu", "rtx-a6000")
    said = " ".join(rep["assumptions"])
    assert "802816 pixels (IMAGE_MAX_TOKEN_NUM 1024 tokens of 784 pixels) = 1024 tokens" in said
    assert "4096 ViT patches per sample" in said


def test_ms_swift_2x_full_trains_the_tower_unless_freeze_vit(tmp_path):
    """ms-swift 2.x: SftArguments.freeze_vit defaults to False, so a full sft trains the ViT (its best practice adds
    --freeze_vit true for the '4 * 60GB' run); 3.x freezes it by default."""
    script = ("CUDA_VISIBLE_DEVICES=0,1,2,3 NPROC_PER_NODE=4 swift sft --model_type qwen2-vl-7b-instruct "
              "--model_id_or_path qwen/Qwen2-VL-7B-Instruct --sft_type full {x} --deepspeed default-zero2 "
              "--dataset latex-ocr-print#20000\n")
    free = _check(tmp_path, "a.sh", script.format(x=""), "--gpu", "a100-80gb", "--gpus", "4")
    frozen = _check(tmp_path, "b.sh", script.format(x="--freeze_vit true"), "--gpu", "a100-80gb", "--gpus", "4")
    assert "vision tower trained (ms-swift 2.x's freeze_vit default false)" in " ".join(free["assumptions"])
    assert "vision tower frozen (freeze_vit: true)" in " ".join(frozen["assumptions"])
    assert free["memory"]["step"]["peak_allocated_bytes"] > frozen["memory"]["step"]["peak_allocated_bytes"]


def test_qwen2_audio_preset_is_its_language_model_and_counts_the_encoder_as_its_tower():
    """Qwen2-Audio-7B (LLaMA-Factory issue 7568's model) was an assumed ~7B Llama from its name; its preset is the
    published text_config (Qwen2 decoder, 32 KV heads, 156032 tokens): 7754878976 parameters, which with the audio
    encoder and projector that transformers builds make the published 8.40B. The encoder and projector (its
    audio_config) are the model's tower since the c-vlm change (they were said not counted before)."""
    spec = load_model("Qwen/Qwen2-Audio-7B")
    assert spec.name == "qwen2-audio-7b" and spec.params.total == 7_754_878_976
    assert spec.num_kv_heads == 32 and spec.vocab_size == 156032
    assert spec.vision is not None and spec.vision.positions == 1500 and spec.vision.tokens_per_clip == 750
    assert any("audio encoder (32 blocks + projector, 642M params)" in n for n in spec.notes)
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    audio = {"model_type": "qwen2_audio_encoder", "num_mel_bins": 128, "encoder_layers": 32,
             "encoder_attention_heads": 20, "encoder_ffn_dim": 5120, "d_model": 1280}
    text = {k: v for k, v in spec.config.items() if k not in ("architectures", "torch_dtype")}
    with torch.device("meta"):
        m = transformers.Qwen2AudioForConditionalGeneration(transformers.Qwen2AudioConfig(audio_config=audio,
                                                                                          text_config=text))
    total = sum(p.numel() for p in m.parameters())
    encoder = sum(p.numel() for n, p in m.named_parameters() if "audio_tower" in n or "multi_modal_projector" in n)
    assert total == 8_397_094_912 and total - encoder == spec.params.total and encoder == spec.vision.params


def test_ms_swift_3x_unset_max_length_is_not_raised_by_the_image(tmp_path):
    """An unset 3.x --max_length is counted as the model's context (Qwen2.5-VL-7B: 128000) already: the image's
    tokens are not added on top of it as they are on top of a max_length the job sets."""
    rep = _check(tmp_path, "a.sh", "swift sft --model Qwen/Qwen2.5-VL-7B-Instruct --train_type lora "
                 "--torch_dtype bfloat16\n", "--gpu", "mi300x")
    assert rep["understood"]["cutoff_len"] == 128000


def test_math_path_scores_span_the_micro_batch():
    """transformers 4.45-4.51's Qwen-VL vision SDPA builds one [1, n, n] mask over every patch of the micro-batch
    (cu_seqlens only masks across images): two 1024-token images per micro-batch = 8192 patches, 16 x 8192^2 x 6
    bytes = 6.00 GiB of scores in one block, four times one image's."""
    m = load_model("qwen2.5-vl-7b")
    base = TrainConfig(method="lora", precision="bf16", cutoff_len=4096, image_tokens=1024, micro_batch=2)
    math = estimate(m, replace(base, vision_scores=True))
    eager = estimate(m, replace(base, attn="eager"))
    assert any("attention scores materialised over the micro-batch's patches: 6.00 GiB" in n for n in math.notes)
    assert any("eager attention scores over one image: 1.50 GiB" in n for n in eager.notes)
