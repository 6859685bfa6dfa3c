"""check on vision-language and audio models (issue 26 items 1-2): the Qwen3-VL tower, ms-swift Megatron's
freeze_vit default and image caps, and the model an ms-swift 2.x --model_type names."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from rocm_tune.core.model import vision as model_vision
from rocm_tune.core.model.architecture import load_model


def _check(tmp_path, name: str, text: str, *args: str) -> dict:
    f = tmp_path / name
    f.write_text(text)
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    out = subprocess.run([sys.executable, "-m", "rocm_tune", "check", str(f), *args, "--json"], capture_output=True,
                         text=True, env=env, cwd=tmp_path, timeout=300)
    assert out.returncode in (0, 1, 3), out.stderr
    return json.loads(out.stdout)


# published totals of the Hugging Face model cards: language model + vision tower
@pytest.mark.parametrize("name,total_b", [("qwen3-vl-2b", 2.13), ("qwen3-vl-4b", 4.44), ("qwen3-vl-8b", 8.77),
                                          ("qwen3-vl-32b", 33.4), ("qwen3-vl-30b-a3b", 31.1)])
def test_qwen3_vl_presets_carry_their_tower(name, total_b):
    spec = load_model(name)
    assert spec.vision is not None and spec.vision.kind == "qwen3_vl"
    assert abs((spec.params.total + spec.vision.params) / 1e9 - total_b) < 0.01 * total_b
    assert spec.vision.pixels_per_token == 32 * 32                # 16-pixel patches merged 2x2
    assert spec.vision.default_max_pixels == 16777216             # preprocessor size.longest_edge
    assert not spec.vision.batch_wide_math_scores
    assert any("vision tower (" in n and "counted beside the language model" in n for n in spec.notes)


@pytest.mark.parametrize("name", ["qwen3-vl-4b", "qwen3-vl-8b", "qwen3-vl-30b-a3b"])
def test_qwen3_vl_tower_params_match_the_real_class_on_meta(name):
    """Patch embedding with bias, the learned position table, 24/27 blocks, the merger and one post-shuffle-norm
    merger per DeepStack index: transformers' Qwen3VLVisionModel counts the same."""
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    spec = load_model(name)
    vc = dict(spec.config["vision_config"])
    hf = transformers.Qwen3VLConfig(vision_config=vc).vision_config
    with torch.device("meta"):
        tower = transformers.models.qwen3_vl.modeling_qwen3_vl.Qwen3VLVisionModel._from_config(hf)
    assert spec.vision.params == sum(p.numel() for p in tower.parameters())
    assert spec.vision.deepstack == len(vc["deepstack_visual_indexes"]) == 3


def test_a_qwen3_vl_config_json_is_not_read_as_qwen2_5_vl():
    """Qwen3-VL's vision_config also has intermediate_size/out_hidden_size (Qwen2.5-VL's marks): its own keys
    (deepstack_visual_indexes, num_position_embeddings) or model_type decide; no attention windows."""
    vc = {"depth": 24, "hidden_size": 1024, "intermediate_size": 4096, "num_heads": 16, "out_hidden_size": 2560,
          "patch_size": 16, "spatial_merge_size": 2, "temporal_patch_size": 2, "in_channels": 3,
          "num_position_embeddings": 2304, "deepstack_visual_indexes": [5, 11, 17]}
    for top in ("qwen3_vl", "qwen3_5", ""):
        t = model_vision.from_config({"model_type": top, "vision_config": vc}, 2560)
        assert t.kind == "qwen3_vl" and t.window_patches == 0 and t.full_blocks == 0
        assert t.attention_blocks_over_image == 24
    q25 = model_vision.from_config(load_model("qwen2.5-vl-7b").config, 3584)
    assert q25.kind == "qwen2_5_vl" and q25.default_max_pixels == model_vision.PROCESSOR_MAX_PIXELS == 12845056


SWIFT2 = ("NPROC_PER_NODE=1 CUDA_VISIBLE_DEVICES=0,1 swift sft --model_type {mt} --model_id_or_path $MODEL_PATH "
          "--sft_type lora --max_length 1024 --batch_size 1 --use_flash_attn false\n")


def test_ms_swift_2x_model_type_names_the_model_when_the_path_is_an_unset_variable(tmp_path):
    """ms-swift 2.x: --model_type is one registered checkpoint (qwen2-vl-7b-instruct), --model_id_or_path only
    where its files are: with the path an unset shell variable the model_type is the model, said as assumed."""
    rep = _check(tmp_path, "a.sh", SWIFT2.format(mt="qwen2-vl-7b-instruct"), "--vram-gib", "80")
    assert rep["verdict"] in ("fits", "oom")
    said = " ".join(rep["assumptions"])
    assert "model qwen2-vl-7b-instruct: from model_type (model_id_or_path is $MODEL_PATH" in said
    assert "vision tower" in said


def test_ms_swift_3x_family_model_type_does_not_name_the_model(tmp_path):
    """3.x's --model_type is an architecture family (`qwen2_vl`: no size): the unset path stays the one question."""
    rep = _check(tmp_path, "b.sh", "swift sft --model $MODEL_PATH --model_type qwen2_vl --train_type lora "
                 "--max_length 1024\n", "--vram-gib", "80")
    assert rep["verdict"] == "unknown"
    assert "$MODEL_PATH, a shell variable" in json.dumps(rep)


MEGATRON = ("IMAGE_MAX_TOKEN_NUM=1024 NPROC_PER_NODE=2 megatron sft --model Qwen/Qwen3-VL-8B-Instruct "
            "--tensor_model_parallel_size 2 --sequence_parallel true --micro_batch_size 1 --global_batch_size 4 "
            "--recompute_granularity full --recompute_method uniform --recompute_num_layers 1 --max_length 2048 "
            "--packing true {x}\n")


def test_megatron_sft_freezes_the_vit_by_default_and_reads_the_image_cap(tmp_path):
    """ms-swift's MegatronTunerMixin: freeze_vit / freeze_aligner default True; `megatron sft` runs ms-swift's
    templates, so IMAGE_MAX_TOKEN_NUM caps the image (1024 tokens of 32x32 pixels for Qwen3-VL)."""
    default = _check(tmp_path, "a.sh", MEGATRON.format(x=""), "--vram-gib", "80", "--gpus", "2")
    trained = _check(tmp_path, "b.sh", MEGATRON.format(x="--freeze_vit false"), "--vram-gib", "80", "--gpus", "2")
    said = " ".join(default["assumptions"])
    assert "vision tower frozen (freeze_vit (ms-swift megatron's default): True)" in said
    assert "1048576 pixels (IMAGE_MAX_TOKEN_NUM 1024 tokens of 1024 pixels)" in said
    assert "vision tower trained (freeze_vit: False)" in " ".join(trained["assumptions"])
    assert trained["memory"]["step"]["peak_allocated_bytes"] > default["memory"]["step"]["peak_allocated_bytes"]


def test_qwen3_vl_under_ms_swift_is_a_release_after_the_max_length_fix(tmp_path):
    """ms-swift runs Qwen3-VL from 3.9: its templates expand the image before max_length is applied, so the
    language model's tokens stay at --max_length (Qwen2.5-VL under the same 3.x flags: an older release is
    assumed and the image's tokens come on top)."""
    script = "MAX_PIXELS=1003520 swift sft --model {m} --train_type lora --max_length 2048 --torch_dtype bfloat16\n"
    q3 = _check(tmp_path, "a.sh", script.format(m="Qwen/Qwen3-VL-8B-Instruct"), "--gpu", "a100-80gb")
    q25 = _check(tmp_path, "b.sh", script.format(m="Qwen/Qwen2.5-VL-7B-Instruct"), "--gpu", "a100-80gb")
    assert q3["understood"]["cutoff_len"] == 2048
    assert "980 tokens of 1024 pixels, 980 counted (inside cutoff_len 2048)" in " ".join(q3["assumptions"])
    assert q25["understood"]["cutoff_len"] == 2048 + 1280


def test_glm_4_1v_preset_is_the_language_model_of_the_real_class():
    """GLM-4.1V-9B / GLM-4.6V-Flash (Glm4vForConditionalGeneration): the preset counts its language model exactly as
    transformers builds it (meta device), the vision tower apart; GLM-4.6V-Flash's names reach the same preset."""
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    spec = load_model("ZhipuAI/GLM-4.6V-Flash")
    assert spec.name == "glm-4.1v-9b" and load_model("zai-org/GLM-4.1V-9B-Thinking").name == spec.name
    with torch.device("meta"):
        m = transformers.Glm4vForConditionalGeneration(transformers.Glm4vConfig())
    visual = sum(p.numel() for n, p in m.named_parameters() if ".visual." in n or n.startswith("model.visual"))
    assert sum(p.numel() for p in m.parameters()) - visual == spec.params.total == 9_400_279_040
    assert any("only the language model is counted" in n for n in spec.notes)


def test_llamafactory_qwen2_audio_counts_the_frozen_encoder(tmp_path):
    """LLaMA-Factory 7568's config: the audio encoder is frozen by freeze_vision_tower's default (visual.py registers
    Qwen2-Audio's audio_tower as its vision_model_keys); its 642M bf16 weights and one 30 s clip (1500 encoder
    positions, 750 tokens) are in the estimate."""
    rep = _check(tmp_path, "a.yaml", "model_name_or_path: Qwen/Qwen2-Audio-7B\nstage: sft\ndo_train: true\n"
                 "finetuning_type: lora\nlora_target: all\nper_device_train_batch_size: 1\nbf16: true\n",
                 "--gpu", "rtx3090")
    said = " ".join(rep["assumptions"])
    assert "audio encoder frozen (the runner's default)" in said and "1500 encoder positions, 750 tokens" in said
    note = next(n for n in rep["notes"] if n.startswith("audio encoder (frozen)"))
    assert "642M params, 1.20 GiB weights per GPU" in note


@pytest.mark.parametrize("name,size", [("openai/clip-vit-large-patch14", 224),
                                       ("openai/clip-vit-large-patch14-336", 336)])
def test_clip_tower_params_match_the_real_class_on_meta(name, size):
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    t = model_vision.clip_tower(name, 4096)
    cfg = transformers.CLIPVisionConfig(hidden_size=1024, intermediate_size=4096, num_hidden_layers=24,
                                        num_attention_heads=16, patch_size=14, image_size=size)
    with torch.device("meta"):
        m = transformers.CLIPVisionModel(cfg)
    assert t.params == sum(p.numel() for p in m.parameters())
    assert t.tokens(0) == (size // 14) ** 2 and t.patches_per_token == 1
    assert model_vision.clip_tower("./my/siglip-so400m", 4096) is None


LLAVA = ("torchrun --nproc_per_node=2 llava/train/train_mem.py --model_name_or_path lmsys/vicuna-7b-v1.5 "
         "--vision_tower openai/clip-vit-large-patch14-336 --mm_projector_type mlp2x_gelu --bf16 True "
         "--per_device_train_batch_size 4 --model_max_length 2048 --gradient_checkpointing True {x}\n")


def test_llava_script_adds_its_frozen_clip_tower(tmp_path):
    """haotian-liu/LLaVA train.py: --vision_tower is a CLIP ViT beside the language model, frozen
    (requires_grad_(False)); LLaVA-NeXT's --unfreeze_mm_vision_tower True trains it: more memory."""
    frozen = _check(tmp_path, "a.sh", LLAVA.format(x=""), "--gpu", "a100-80gb", "--gpus", "2")
    trained = _check(tmp_path, "b.sh", LLAVA.format(x="--unfreeze_mm_vision_tower True"), "--gpu", "a100-80gb",
                     "--gpus", "2")
    said = " ".join(frozen["assumptions"])
    assert "vision tower frozen (LLaVA's train.py freezes --vision_tower)" in said
    assert "one 336x336 image per sample = 576 patches" in said
    assert any("a CLIP ViT (24 blocks, 304M params, 336x336 images)" in n for n in frozen["notes"])
    assert "vision tower trained (unfreeze_mm_vision_tower: True)" in " ".join(trained["assumptions"])
    assert trained["memory"]["step"]["peak_allocated_bytes"] > frozen["memory"]["step"]["peak_allocated_bytes"]
