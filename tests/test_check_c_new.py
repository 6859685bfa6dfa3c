"""check answers the configurations the runners themselves ship (issue 26, helper c-new): the runners' own examples
(copies in tests/fixtures/runner_examples/, SOURCES.md says where each is from) and inputs written from the runners'
source that are not among them.

- presets from source: GLM-4.7-Flash (transformers Glm4MoeLiteConfig: MLA + MoE counted as DeepSeek's), TinyLlama
  1.1B (torchtune's llama2 1B config), bert-base-chinese;
- a bounded answer from the name where the architecture is not modelled (DeepSeek-V4-Flash, Jamba 1.5 Large, DBRX,
  PaddleOCR-VL, Emu3, HunyuanOCR, DeepSeek-OCR, GLM-4.6V, jina-reranker-m0), said;
- KTransformers (LLaMA-Factory use_kt): the routed experts are held on the CPU;
- `swift sft FILE.yaml` reads the file's keys (ms-swift parse_yaml_args); `swift infer|export|deploy ...` is no
  training; torchtune's phi3_mini / smollm2_135m builders name their model.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rocm_tune.cli import main
from rocm_tune.core.model.architecture import identify_model
from rocm_tune.core.model.names import parse_name
from rocm_tune.core.runners.torchtune import model_name

from tests.test_check_model_id import home  # noqa: F401 - the fixture: an empty HOME, no cache variable

pytestmark = pytest.mark.usefixtures("home")

EX = Path(__file__).parent / "fixtures" / "runner_examples"


def _check(capsys, *args) -> dict:
    main(["check", *map(str, args), "--gpu", "mi300x", "--gpus", "8", "--json", "--no-app"])
    return json.loads(capsys.readouterr().out)


# ------------------------------------------------------------------------------------------ presets from source

def test_glm47_flash_preset_counts_as_transformers_builds_it():
    got = identify_model("zai-org/GLM-4.7-Flash", network=False)
    assert got.how == "preset" and got.spec.name == "glm-4.7-flash"
    p = got.spec.params
    # Glm4MoeLiteForCausalLM on the meta device (transformers 5.24): 29,943,390,976 parameters
    assert p.total == 29_943_390_976
    assert got.spec.num_experts == 64 and got.spec.num_experts_per_tok == 4
    assert not got.spec.warnings            # counted by the DeepSeek MLA+MoE handler, not the generic decoder


def test_axolotl_glm47_flash_example_gets_a_verdict_with_the_preset(capsys):
    d = _check(capsys, EX / "axolotl_glm47_flash_lora.yaml")
    assert d["verdict"] == "fits"
    assert d["model"]["name"] == "glm-4.7-flash" and d["model"]["identified_by"] == "preset"


@pytest.mark.parametrize("ref", ["/tmp/TinyLlama_v1.1", "TinyLlama/TinyLlama_v1.1", "/data/TinyLlama-1.1B-Chat-v1.0"])
def test_tinyllama_by_hub_id_or_local_folder(ref):
    got = identify_model(ref, network=False)
    assert got.spec is not None and got.spec.name == "tinyllama-1.1b"
    assert 1.09e9 < got.spec.params.total < 1.11e9        # 22 layers of 2048, GQA 4, untied 32000 vocab: 1.100B


def test_torchtune_qat_example_with_tinyllama_checkpoint_dir(capsys):
    d = _check(capsys, EX / "torchtune_llama2_1B_qat_single_device.yaml")
    assert d["verdict"] == "fits" and d["model"]["name"] == "tinyllama-1.1b"


def test_swift_bert_chinese_example_uses_the_bert_preset(capsys):
    d = _check(capsys, EX / "swift_seq_cls_bert_sft.sh")
    assert d["verdict"] == "fits"
    assert d["model"]["name"] == "bert-base-chinese" and d["model"]["identified_by"] == "preset"


# ------------------------------------------------------------------------------------------ bounded by the name

@pytest.mark.parametrize("ref,total_b,active_b", [
    ("nvidia/DeepSeek-V4-Flash-NVFP4", 284.3, 13.8),
    ("ai21labs/AI21-Jamba-1.5-Large", 398.0, 94.0),
    ("LnL-AI/dbrx-base-converted-v2", 132.0, 36.0),
    ("PaddlePaddle/PaddleOCR-VL-1.6", 0.80, None),
    ("BAAI/Emu3-Gen", 8.49, None),
    ("Tencent-Hunyuan/HunyuanOCR", 1.0, None),
    ("deepseek-ai/DeepSeek-OCR", 3.3, 0.57),
    ("ZhipuAI/GLM-4.6V", 106.0, 12.0),
    ("JinaAI/jina-reranker-m0", 2.4, None),
])
def test_sizeless_2025_2026_names_get_the_bounded_answer(ref, total_b, active_b):
    got = identify_model(ref, network=False)
    assert got.how == "assumed" and got.spec is not None
    assert abs(got.spec.params.total / 1e9 - total_b) / total_b < 0.08
    assert "is not here, in no cache and matches no preset" in got.assumption
    assert "is not modelled" in got.assumption                # the architecture is said, not hidden
    if active_b is not None:
        assert got.spec.num_experts > 0


@pytest.mark.parametrize("name,label,bits", [("nvidia/DeepSeek-V4-Flash-NVFP4", "NVFP4", 4),
                                             ("RedHatAI/Qwen3-8B-NVFP4", "NVFP4", 4),
                                             ("nvidia/Llama-3.3-70B-Instruct-NVFP4", "NVFP4", 4),
                                             ("Qwen/Qwen3-8B-FP8", "FP8", 8),
                                             ("llama2_70b_lora_mxfp4", None, None)])
def test_nvfp4_checkpoints_are_read_as_4_bit(name, label, bits):
    """NVFP4 in a name is a ModelOpt checkpoint; MXFP4 is left alone (Primus' recipe names its training precision)."""
    p = parse_name(name)
    assert (p.quant, p.quant_bits) == (label, bits)
    assert "nvfp4" not in (p.series or "")


def test_axolotl_deepseek_v4_example_gets_a_verdict_and_says_the_assumption(capsys):
    d = _check(capsys, EX / "axolotl_v4_flash_nvfp4_lora.yaml")
    assert d["verdict"] in ("fits", "oom")
    assert d["model"]["identified_by"] == "assumed"
    assert any("DeepSeek-V4" in a and "give --model" in a for a in d["assumptions"])


@pytest.mark.parametrize("fixture", ["axolotl_dbrx_16bit_lora.yaml", "axolotl_jamba_qlora_fsdp_large.yaml"])
def test_archived_dbrx_and_jamba_large_examples_get_a_verdict(capsys, fixture):
    d = _check(capsys, EX / fixture)
    assert d["verdict"] in ("fits", "oom") and d["model"]["identified_by"] == "assumed"


def test_an_encoder_reranker_gets_no_decoder_shape():
    """gte-reranker-modernbert-base is a 149M ModernBERT cross-encoder (8192 positions): a Llama-style decoder of that
    size would carry a 32768-token context into the estimate (an OOM by terabytes for a run ms-swift's example gives
    5 GB): no bounded answer; the question stays."""
    got = identify_model("iic/gte-reranker-modernbert-base", network=False)
    assert got.how == "unknown" and got.spec is None


def test_a_version_after_a_variant_word_is_not_part_of_the_series():
    assert parse_name("LnL-AI/dbrx-base-converted-v2").series == "dbrx"
    assert parse_name("ai21labs/Jamba-v0.1").series == "jambav0.1"      # a version right after the family stays
    assert parse_name("mistralai/Mistral-7B-Instruct-v0.3").version == "v0.3"


# ------------------------------------------------------------------------------------------ KTransformers

def test_ktransformers_example_keeps_the_experts_on_the_cpu(capsys):
    d = _check(capsys, EX / "lf_qwen3moe_lora_sft_kt.yaml")
    assert d["verdict"] == "fits" and d["model"]["name"] == "qwen3-235b-a22b"
    assert any(n.startswith("use_kt: KTransformers keeps the 128 routed experts") for n in d["notes"])


def test_same_config_without_use_kt_holds_the_experts_on_the_gpus(capsys, tmp_path):
    text = (EX / "lf_qwen3moe_lora_sft_kt.yaml").read_text().replace("use_kt: true", "use_kt: false")
    y = tmp_path / "no_kt.yaml"
    y.write_text(text)
    d = _check(capsys, y)
    assert d["verdict"] == "oom"                               # 235B on 8 x 192 GiB under DDP: does not fit
    assert not any(n.startswith("use_kt") for n in d["notes"])


def test_use_kt_on_a_dense_model_changes_nothing(capsys, tmp_path):
    y = tmp_path / "dense_kt.yaml"
    y.write_text("model_name_or_path: Qwen/Qwen2.5-7B-Instruct\nstage: sft\ndo_train: true\nfinetuning_type: lora\n"
                 "lora_target: all\ntemplate: qwen\ncutoff_len: 1024\nper_device_train_batch_size: 1\nbf16: true\n"
                 "output_dir: saves/x\nuse_kt: true\n")
    d = _check(capsys, y)
    assert d["verdict"] == "fits" and not any(n.startswith("use_kt") for n in d["notes"])


# ------------------------------------------------------------------------------------------ ms-swift commands

def test_swift_ray_script_with_its_yaml_reads_the_yaml(capsys):
    d = _check(capsys, EX / "swift_ray" / "sft.sh", EX / "swift_ray" / "sft.yaml")
    assert d["verdict"] == "fits" and d["model"]["name"] == "qwen2.5-7b"
    assert any("sft.yaml: the arguments of `swift sft`" in n for n in d["notes"])


def test_swift_ray_script_alone_says_its_yaml_is_missing(capsys):
    d = _check(capsys, EX / "swift_ray" / "sft.sh")
    assert d["verdict"] == "unknown"
    assert any(f["code"] == "reference-missing" and "sft.yaml" in f["message"] for f in d["findings"])
    assert "sft.yaml (the file `swift sft` reads its arguments from) is not here" in d["reason"]


def test_swift_json_config_and_flags_over_it(capsys, tmp_path):
    """Written from swift/cli/main.py parse_yaml_args: a .json file works as a .yaml does; a flag after it wins."""
    (tmp_path / "cfg.json").write_text(json.dumps({"model": "Qwen/Qwen2.5-7B-Instruct", "tuner_type": "lora",
                                                   "per_device_train_batch_size": 1, "max_length": 2048,
                                                   "target_modules": ["all-linear"], "torch_dtype": "bfloat16"}))
    (tmp_path / "run.sh").write_text("swift sft cfg.json --max_length 4096\n")
    d = _check(capsys, tmp_path / "run.sh", tmp_path / "cfg.json")
    assert d["verdict"] == "fits" and d["model"]["name"] == "qwen2.5-7b"
    assert "4096" in json.dumps(d["understood"])


@pytest.mark.parametrize("cmd", ["swift infer --model Qwen/Qwen2.5-7B-Instruct --stream true --max_new_tokens 512",
                                 "swift deploy --model Qwen/Qwen2.5-7B-Instruct --infer_backend vllm --port 8000",
                                 "swift export --model Qwen/Qwen2.5-7B-Instruct --quant_bits 4 --quant_method awq",
                                 "megatron export --model Qwen/Qwen2.5-7B-Instruct --to_mcore true --output_dir o",
                                 "llamafactory-cli chat --model_name_or_path Qwen/Qwen2.5-7B-Instruct --template qwen"])
def test_runner_commands_that_do_not_train_are_not_read_as_training(capsys, tmp_path, cmd):
    s = tmp_path / "run.sh"
    s.write_text("CUDA_VISIBLE_DEVICES=0 \\\n" + cmd + "\n")
    d = _check(capsys, s)
    assert d["verdict"] == "unknown" and "no training command" in d["reason"]


def test_swift_infer_example_is_no_training(capsys):
    d = _check(capsys, EX / "swift_full_infer.sh")
    assert d["verdict"] == "unknown" and "script without a training command" in d["reason"]


# ------------------------------------------------------------------------------------------ torchtune builders

@pytest.mark.parametrize("builder,name", [("torchtune.models.phi3.phi3_mini", "Phi-3-mini"),
                                          ("torchtune.models.phi3.lora_phi3_mini", "Phi-3-mini"),
                                          ("torchtune.models.phi3.qlora_phi3_mini", "Phi-3-mini"),
                                          ("torchtune.models.smollm2.smollm2_360m", "SmolLM2-360M"),
                                          ("torchtune.models.llama3_1.lora_llama3_1_8b", "Llama-3.1-8B"),
                                          ("torchtune.models.llama2.llama2", None)])
def test_torchtune_builder_names(builder, name):
    assert model_name(builder) == name


def test_torchtune_evaluation_example_is_no_training(capsys):
    """recipes/configs/phi3/evaluation.yaml (eleuther_eval: `tasks`, no optimizer) is not read as a training."""
    d = _check(capsys, EX / "torchtune_phi3_evaluation.yaml")
    assert d["verdict"] == "unknown"
    assert "a torchtune evaluation config (no optimizer" in d["reason"]


def test_torchtune_generation_config_is_no_training_and_a_nested_optimizer_is_a_training(capsys, tmp_path):
    """Written from torchtune's recipes: generate.py reads cfg.prompt and builds no optimizer; the async GRPO recipe
    keeps its optimizer under `training:`."""
    gen = tmp_path / "gen.yaml"
    gen.write_text("model:\n  _component_: torchtune.models.llama3_1.llama3_1_8b\ncheckpointer:\n"
                   "  _component_: torchtune.training.FullModelHFCheckpointer\n  checkpoint_dir: /tmp/Llama-3.1-8B\n"
                   "prompt:\n  user: Tell me a joke.\nmax_new_tokens: 300\ndevice: cuda\ndtype: bf16\n")
    d = _check(capsys, gen)
    assert d["verdict"] == "unknown" and "a torchtune generation config" in d["reason"]
    train = tmp_path / "train.yaml"
    train.write_text(gen.read_text().replace("prompt:\n  user: Tell me a joke.\nmax_new_tokens: 300\n", "")
                     + "batch_size: 1\ntraining:\n  optimizer:\n    _component_: torch.optim.AdamW\n    lr: 1e-5\n"
                     + "dataset:\n  _component_: torchtune.datasets.alpaca_dataset\n")
    d = _check(capsys, train)
    assert d["verdict"] in ("fits", "oom") and d["model"]["name"] == "llama-3.1-8b"


def test_swift_all_linear_with_embedding_and_head_targets(capsys):
    """examples/train/base_to_chat/lora2.sh: `--target_modules all-linear embed_tokens lm_head` (ms-swift's
    get_target_modules expands all-linear and keeps the other names)."""
    d = _check(capsys, EX / "swift_base_to_chat_lora2.sh")
    assert d["verdict"] == "fits" and d["model"]["name"] == "qwen2.5-1.5b"
    assert any(a.startswith("LoRA targets: all-linear with embed_tokens, lm_head") for a in d["assumptions"])


def test_a_trl_list_with_all_linear_is_not_expanded(capsys, tmp_path):
    """PEFT expands only the string "all-linear"; in a list it is a module name that matches nothing (the other
    names are wrapped), so the ms-swift reading is not applied to a Trainer script."""
    s = tmp_path / "train.sh"
    s.write_text("accelerate launch --num_processes 1 train.py --model_name_or_path Qwen/Qwen2.5-1.5B "
                 "--lora_target_modules all-linear,q_proj --use_peft true --per_device_train_batch_size 1 "
                 "--max_seq_length 1024 --bf16 true --output_dir o\n")
    rc = main(["check", str(s), "--gpu", "mi300x", "--json", "--no-app"])
    out = capsys.readouterr()
    assert "LoRA targets: all-linear with" not in out.out + out.err
    assert rc == 2 or json.loads(out.out)["verdict"] in ("fits", "oom", "unknown")


@pytest.mark.parametrize("preset", ["deepseek-v3", "llama-4-maverick", "glm-4.7-flash", "qwen3-30b-a3b"])
def test_use_kt_takes_the_experts_from_the_moe_layers_only(preset, tmp_path):
    """The dense layers (DeepSeek-V3's first 3, GLM-4.7-Flash's first, Llama 4's interleaved dense ones) keep their
    size; each MoE layer loses its routed experts; the total loses them all."""
    from rocm_tune.core import formats
    from rocm_tune.core.check.check import _experts_on_cpu

    y = tmp_path / "kt.yaml"
    y.write_text(f"model_name_or_path: {preset}\nstage: sft\ndo_train: true\nfinetuning_type: lora\nuse_kt: true\n")
    job = formats.read_job([str(y)])
    spec = identify_model(preset, network=False).spec
    got = _experts_on_cpu(job, spec)
    p, q = spec.params, got.params
    assert q.total == p.total - p.experts and q.experts == 0
    changed = [i for i, (a, b) in enumerate(zip(p.per_layer, q.per_layer)) if a != b]
    assert len(changed) == spec.moe_layers and min(q.per_layer) > 0
    assert sum(p.per_layer) - sum(q.per_layer) == (p.experts // spec.moe_layers) * spec.moe_layers


def test_torchtune_shipped_config_alone_runs_with_its_registered_recipe(capsys, tmp_path):
    """recipes/configs/llama3/70B_full.yaml given alone: torchtune/_recipe_registry.py lists it under
    full_finetune_distributed (FSDP2; torchtune has no DDP recipe), so 8 GPUs shard it; the same file under a name
    the registry does not know is read as before (no recipe: replicated), and said nowhere."""
    d = _check(capsys, EX / "70B_full.yaml")
    assert d["verdict"] == "fits" and d["model"]["name"] == "llama-3-70b"
    assert any("recipe registry runs the config 70B_full with full_finetune_distributed" in n for n in d["notes"])
    own = tmp_path / "my_70b_run.yaml"
    own.write_text((EX / "70B_full.yaml").read_text())
    d = _check(capsys, own)
    assert not any("recipe registry" in n for n in d["notes"])
    assert d["verdict"] == "oom"


def test_registry_table_agrees_with_the_single_device_naming():
    """Every registered config named *_single_device runs a *_single_device recipe (torchtune's own convention)."""
    from rocm_tune.profiles.torchtune_recipes import CONFIG_RECIPE

    assert CONFIG_RECIPE["llama3_1/8B_lora_single_device"] == "lora_finetune_single_device"
    assert CONFIG_RECIPE["llama3/70B_full"] == "full_finetune_distributed"
    assert all(r.endswith("single_device") for c, r in CONFIG_RECIPE.items() if c.endswith("single_device"))


def test_torchtune_ppo_config_is_a_training_check_does_not_model(capsys, tmp_path):
    """recipes/configs/mistral/7B_full_ppo_low_memory.yaml's shape (policy_model + reward_and_value_model, the
    ppo_full_finetune_single_device recipe): a training, said as not modelled (not "no training", not "--model")."""
    y = tmp_path / "ppo.yaml"
    y.write_text("policy_model:\n  _component_: torchtune.models.mistral.mistral_7b\n"
                 "reward_and_value_model:\n  _component_: torchtune.models.mistral.mistral_reward_7b\n"
                 "tokenizer:\n  _component_: torchtune.models.mistral.mistral_tokenizer\n  path: /tmp/m/tokenizer.model\n"
                 "optimizer:\n  _component_: bitsandbytes.optim.PagedAdamW\n  lr: 3e-6\nbatch_size: 64\n")
    d = _check(capsys, y)
    assert d["verdict"] == "unknown" and d["reason"] == "a torchtune PPO config is not modelled"
