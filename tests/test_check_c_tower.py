"""Tiled vision towers (InternVL, MiniCPM-V 2.6, GLM-4V-9B): parameters against transformers on the meta device and
the model cards' totals, tokens per image at the runners' defaults, the date-glued folder prefix."""
import json
import subprocess
import sys

import pytest

from rocm_tune.core.model import lora, names, vision
from rocm_tune.core.model.architecture import identify_model

INTERNVIT_300M = dict(hidden_size=1024, intermediate_size=4096, num_hidden_layers=24, num_attention_heads=16,
                      qkv_bias=True, qk_normalization=False, norm_type="layer_norm", image_size=448, patch_size=14)
INTERNVIT_6B = dict(hidden_size=3200, intermediate_size=12800, num_hidden_layers=45, num_attention_heads=25,
                    qkv_bias=False, qk_normalization=True, norm_type="rms_norm", image_size=448, patch_size=14)


@pytest.mark.parametrize("v,lm", [(INTERNVIT_300M, 3584), (INTERNVIT_6B, 5120)])
def test_internvl_tower_equals_transformers_on_meta(v, lm):
    torch = pytest.importorskip("torch")
    tr = pytest.importorskip("transformers")
    if not hasattr(tr, "InternVLForConditionalGeneration"):
        pytest.skip("transformers without InternVL")
    cfg = tr.InternVLConfig(vision_config=dict(
        hidden_size=v["hidden_size"], intermediate_size=v["intermediate_size"], num_hidden_layers=v["num_hidden_layers"],
        num_attention_heads=v["num_attention_heads"], attention_bias=v["qkv_bias"], use_qk_norm=v["qk_normalization"],
        norm_type=v["norm_type"], image_size=[448, 448], patch_size=[14, 14]),
        text_config=dict(model_type="qwen2", hidden_size=lm, intermediate_size=64, num_hidden_layers=1,
                         num_attention_heads=8, num_key_value_heads=8, vocab_size=16), downsample_ratio=0.5)
    with torch.device("meta"):
        m = tr.InternVLForConditionalGeneration(cfg)
    want = sum(p.numel() for n, p in m.named_parameters() if "vision_tower" in n or "multi_modal_projector" in n)
    assert vision.internvl_tower(v, lm).params == want


def test_internvl_tiles_and_tokens():
    t = vision.tiled_from_config({"model_type": "internvl_chat", "vision_config": {**INTERNVIT_300M,
                                  "model_type": "intern_vit_6b"}, "max_dynamic_patch": 12, "use_thumbnail": True}, 4096)
    assert t.kind == "internvl" and t.tile_tokens == 256 and t.max_tiles == 13   # 12 tiles + thumbnail
    assert t.tokens_for(t.max_tiles) == 3328 and t.patches_per_tile == 1025
    # InternVL2.5-8B: InternViT-300M + mlp1 + internlm2.5-7b-chat (7.74B) = 8.08B, the model card's 8.1B
    assert abs(t.params + 7_737_708_544 - 8.1e9) / 8.1e9 < 0.02


def test_minicpmv_tower_equals_siglip_and_resampler_on_meta():
    torch = pytest.importorskip("torch")
    tr = pytest.importorskip("transformers")
    with torch.device("meta"):
        s = tr.SiglipVisionModel(tr.SiglipVisionConfig(hidden_size=1152, intermediate_size=4304, num_hidden_layers=27,
                                                       num_attention_heads=16, image_size=980, patch_size=14,
                                                       vision_use_head=False))
        mha = torch.nn.MultiheadAttention(3584, 28)
    lm = 3584   # resampler.py: query, proj, kv_proj (no bias), attn, ln_q/ln_kv/ln_post
    want = sum(p.numel() for p in s.parameters()) + 64 * lm + lm * lm + 1152 * lm \
        + sum(p.numel() for p in mha.parameters()) + 6 * lm
    spec = identify_model("openbmb/MiniCPM-V-2_6", network=False).spec
    assert spec.vision.params == want


def test_presets_total_the_model_cards():
    glm = identify_model("THUDM/glm-4v-9b", network=False).spec
    assert abs(glm.params.total + glm.vision.params - 13.9e9) / 13.9e9 < 0.02
    assert glm.vision.tokens_for(1) == 1602 and glm.vision.patches_per_tile == 6401 and not glm.vision.checkpointing
    mv = identify_model("OpenBMB/MiniCPM-V-2_6-int4", network=False)
    assert abs(mv.spec.params.total + mv.spec.vision.params - 8.1e9) / 8.1e9 < 0.02 and mv.quant_bits == 4
    assert mv.spec.vision.tokens_for(mv.spec.vision.max_tiles) == 640      # (1 + max_slice_nums 9) x 64 queries


def test_glued_prefix_both_ways():
    got = identify_model("/root/models/modelscope0731-glm-4v-9b", network=False)
    assert got.spec.name == "glm-4v-9b"
    assert names.glued_prefix_reading(names.parse_name("qwen2-7b")) is None       # a family's own version digits
    assert names.glued_prefix_reading(names.parse_name("llama3-8b")) is None
    assert identify_model("abc1234-foo-7b", network=False).how == "assumed"        # the rest names no preset


def test_llama_names_read_by_role_on_chatglm():
    glm = identify_model("THUDM/glm-4v-9b", network=False).spec
    got = lora.by_role(glm.linears, ("q_proj", "v_proj"))
    assert got is not None and got[0] == ("query_key_value",)


def _check(tmp_path, text, *args):
    f = tmp_path / "run.sh"
    f.write_text(text)
    r = subprocess.run([sys.executable, "-m", "rocm_tune", "check", str(f), *args, "--json"], capture_output=True,
                       text=True, cwd=tmp_path)
    return json.loads(r.stdout)


def test_minicpm_tune_vision_trains_tower_under_lora(tmp_path):
    base = ("torchrun --nproc_per_node 1 finetune.py --model_name_or_path openbmb/MiniCPM-V-2_6 --use_lora true "
            "--bf16 true --model_max_length 2048 --per_device_train_batch_size 1 --gradient_checkpointing true "
            "--max_slice_nums 9 --tune_vision {}\n")
    on = json.dumps(_check(tmp_path, base.format("true"), "--vram-gib", "80"))
    off = json.dumps(_check(tmp_path, base.format("false"), "--vram-gib", "80"))
    assert "vision tower (trained)" in on and "vision tower (trained)" not in off
    assert "10 tile(s)" in on and "640 tokens" in on



def test_internvl3_preset_and_swift_max_num(tmp_path):
    spec = identify_model("OpenGVLab/InternVL3-8B", network=False).spec
    assert abs(spec.params.total + spec.vision.params - 8.0e9) / 8.0e9 < 0.02          # model card: 8B
    assert spec.vision.kind == "internvl" and spec.vision.max_tiles == 13
    run = "MAX_NUM={} swift sft --model OpenGVLab/InternVL3-8B --tuner_type lora --max_length 4096\n"
    six = json.dumps(_check(tmp_path, run.format(6), "--vram-gib", "48"))
    one = json.dumps(_check(tmp_path, run.format(1), "--vram-gib", "48"))
    assert "7 tile(s)" in six and "1792 tokens" in six                    # 6 tiles + thumbnail, 256 tokens each
    assert "1 tile(s)" in one and "256 tokens" in one                     # one tile: no thumbnail


def test_llamafactory_internvl_one_tile_unless_crop_to_patches(tmp_path):
    yaml = ("model_name_or_path: OpenGVLab/InternVL3-8B\nstage: sft\ndo_train: true\nfinetuning_type: lora\n"
            "template: intern_vl\ncutoff_len: 4096\nper_device_train_batch_size: 1\nbf16: true\n{}")
    f = tmp_path / "a.yaml"
    f.write_text(yaml.format(""))

    def run(text):
        f.write_text(text)
        r = subprocess.run([sys.executable, "-m", "rocm_tune", "check", str(f), "--vram-gib", "48", "--json"],
                           capture_output=True, text=True, cwd=tmp_path)
        return r.stdout
    off, on = run(yaml.format("")), run(yaml.format("crop_to_patches: true\n"))
    assert "1 tile(s)" in off and "256 tokens" in off
    assert "13 tile(s)" in on and "3328 tokens" in on


def test_swift2_default_lora_targets_leave_the_tower_alone(tmp_path):
    base = "CUDA_VISIBLE_DEVICES=0 swift sft --model_type glm4v-9b-chat --sft_type lora --dataset d.jsonl {}\n"
    default = json.dumps(_check(tmp_path, base.format(""), "--vram-gib", "80"))
    every = json.dumps(_check(tmp_path, base.format("--lora_target_modules ALL"), "--vram-gib", "80"))
    # 2.x: lora_target_modules ['DEFAULT'] (glm4v: the language model's self_attention.query_key_value), and
    # EVA2CLIPModel is a plain nn.Module: no enable_input_require_grads hook, its pass is not recorded
    assert "vision tower (frozen)" in default and "inputs requiring grad" not in default
    assert "autograd records its pass" in every


GLM_LORA = """data_config:
  train_file: train.jsonl
  val_file: dev.jsonl
max_input_length: 512
max_output_length: 512
training_args:
  output_dir: ./output
  per_device_train_batch_size: 1
peft_config:
  peft_type: LORA
  task_type: CAUSAL_LM
  r: 8
  lora_alpha: 32
  target_modules: [{t}]
"""


@pytest.mark.parametrize("target,recorded", [('"query_key_value"', True), ('"dense_h_to_4h"', False)])
def test_glm4v_lora_target_naming_the_tower_records_its_uncheckpointed_pass(tmp_path, target, recorded):
    (tmp_path / "configs").mkdir()
    (tmp_path / "configs" / "lora.yaml").write_text(GLM_LORA.format(t=target))
    (tmp_path / "run.sh").write_text("python finetune_vision.py data/vqa/ THUDM/glm-4v-9b configs/lora.yaml\n")
    r = subprocess.run([sys.executable, "-m", "rocm_tune", "check", "configs/lora.yaml", "run.sh", "--gpu",
                        "rtx-a6000", "--json"], capture_output=True, text=True, cwd=tmp_path)
    d = json.loads(r.stdout)
    said = " ".join(d["assumptions"])
    assert "1602 tokens" in said and "6401 ViT patches per tile" in said
    # query_key_value is also the name of EVA2-CLIP's attention input: PEFT wraps 63 more linears and the tower's
    # blocks (no checkpointing hook) keep their activations: 63 x 6408 patches x (8 x 1792 + 2 x 15360) x 2 bytes
    assert ("also names the tower's linears" in said) is recorded
    assert ("not checkpointed" in said) is recorded
    kept = 63 * 6408 * (8 * 1792 + 2 * 15360) * 2 / 2 ** 30
    assert (f"activations {kept:.2f} GiB kept" in json.dumps(d)) is recorded
