"""`check` where the files define the model or the runner without a hub id (helper c-g910): Megatron-LM /
Megatron-DeepSpeed model flags (megatron/training/arguments.py validate_args, tokenizer.py
_vocab_size_with_padding), BERT built from its config (transformers models/bert/modeling_bert.py) or named by
NVIDIA's run_pretraining.py --bert_model, torchtitan's job TOML (torchtitan/config/job_config.py) and Primus'
torchtitan experiment YAML. Every file here is written for the test from those sources; none is a corpus case."""

from __future__ import annotations

import json
from pathlib import Path

from rocm_tune.cli import main
from rocm_tune.core import formats
from rocm_tune.core.model.architecture import load_model, model_from_config
from rocm_tune.core.runners import launchers, megatron, torchtitan


def _write(tmp_path: Path, name: str, text: str) -> str:
    p = tmp_path / name
    p.write_text(text)
    return str(p)


def _check(paths: list[str], capsys, *extra: str) -> dict:
    rc = main(["check", *paths, *extra, "--json"])
    out = json.loads(capsys.readouterr().out)
    assert rc in (0, 1), out
    return out


def _settings(paths: list[str]) -> dict:
    return {k: s.value for k, s in formats.read_job(paths).settings.items()}


# ---------------------------------------------------------------- shell word splitting around unrun substitutions
def test_unquoted_options_with_an_unrun_command_substitution_are_split(tmp_path):
    p = _write(tmp_path, "run.sh", 'stamp=$(date "+%Y.%m.%d")\nbase=`pwd`\n'
               'opts=" --tensor-model-parallel-size 4 --micro-batch-size 3 --tensorboard-dir tb_${stamp} '
               '--vocab-file ${base}/v.json"\n'
               'torchrun --nproc_per_node 8 pretrain_gpt.py ${opts} --pipeline-model-parallel-size 2\n')
    cmd = launchers.parse_script(Path(p).read_text(), p).commands[-1]
    words = [t.text for t in cmd.tokens]
    assert "--micro-batch-size" in words and "3" in words
    assert 'tb_$(date +%Y.%m.%d)' in words and "`pwd`/v.json" in words
    st = _settings([p])
    assert st["__tp__"] == 4 and st["__pp__"] == 2 and str(st["per_device_train_batch_size"]) == "3"


# ---------------------------------------------------------------- Megatron: the model from its flags
def _flags(**kw) -> dict:
    return {k: (str(v), 1) for k, v in kw.items()}


def test_megatron_gpt_shape_gpt2_bpe_padded_by_tp_and_tied():
    cfg, note = megatron.model_from_flags(_flags(num_layers=24, hidden_size=1024, num_attention_heads=16,
                                                 vocab_file="/data/gpt2-vocab.json", merge_file="/data/gpt2-merges.txt",
                                                 tensor_model_parallel_size=4))
    # 50257 rounded up to a multiple of 128 x 4 = 512
    assert cfg["vocab_size"] == 50688 and cfg["intermediate_size"] == 4096 and cfg["tie_word_embeddings"] is True
    assert cfg["model_type"] == "gpt_neox" and "padded to 50688" in note


def test_megatron_llama_shape_swiglu_gqa_null_tokenizer_untied():
    cfg, _ = megatron.model_from_flags(_flags(num_layers=32, hidden_size=4096, num_attention_heads=32,
                                              swiglu="true", group_query_attention="true", num_query_groups=8,
                                              tokenizer_type="NullTokenizer", vocab_size=128000,
                                              untie_embeddings_and_output_weights="true"))
    assert cfg["intermediate_size"] == int((4 * 4096 * 2 / 3) / 64) * 64 == 10880
    assert cfg["num_key_value_heads"] == 8 and cfg["vocab_size"] == 128000 and not cfg["tie_word_embeddings"]
    spec = model_from_config(cfg, name="m", source="program")
    assert spec.params.total == 2 * 128000 * 4096 + 32 * (4096 * 10240 + 3 * 4096 * 10880 + 2 * 4096) + 4096


def test_megatron_shape_needs_every_dimension_and_a_vocabulary():
    assert megatron.model_from_flags(_flags(num_layers=12, hidden_size=768)) is None
    # a SentencePiece / HF tokenizer whose vocabulary no file here states: not guessed
    assert megatron.model_from_flags(_flags(num_layers=12, hidden_size=768, num_attention_heads=12,
                                            tokenizer_type="HuggingFaceTokenizer", tokenizer_model="x/y")) is None


def test_megatron_deepspeed_script_builds_the_model_over_a_resume_load(tmp_path, capsys):
    p = _write(tmp_path, "pretrain.sh", """#!/bin/bash
dir=`pwd`
now=$(date "+%H.%M")
ckpt=out/ckpt_${now}
opts=" --num-layers 24 --hidden-size 2048 --num-attention-heads 16 --seq-length 1024 \\
 --max-position-embeddings 1024 --micro-batch-size 4 --global-batch-size 512 --bf16 \\
 --tensor-model-parallel-size 1 --load ${ckpt} --save ${ckpt} --checkpoint-activations"
data=" --vocab-file ${dir}/gpt2-vocab.json --merge-file ${dir}/gpt2-merges.txt"
deepspeed --num_gpus 8 ${dir}/pretrain_gpt.py ${opts} ${data} --deepspeed
""")
    st = _settings([p])
    assert isinstance(st["model_name_or_path"], dict) and st["model_name_or_path"]["num_hidden_layers"] == 24
    assert st["model_name_or_path"]["vocab_size"] == 50304
    assert st["disable_gradient_checkpointing"] is False
    out = _check([p], capsys, "--gpu", "mi210", "--gpus", "8")
    assert out["verdict"] == "fits" and out["model"]["source"] == "program"


# ---------------------------------------------------------------- BERT
def test_bert_family_counts_encoder_and_pretraining_heads():
    spec = model_from_config({"model_type": "bert", "hidden_size": 768, "num_hidden_layers": 12,
                              "num_attention_heads": 12, "intermediate_size": 3072, "vocab_size": 30522,
                              "max_position_embeddings": 512, "type_vocab_size": 2}, name="b")
    # BertModel 109,482,240 (the published count) + the MLM transform, decoder bias and NSP head
    assert spec.params.total == 109482240 + (768 * 768 + 768 + 2 * 768) + 30522 + (2 * 768 + 2)
    assert load_model("google-bert/bert-large-cased").params.total > 3.3e8


def test_model_built_from_a_named_config_in_a_program(tmp_path, capsys):
    p = _write(tmp_path, "train_mlm.py", """from transformers import (AutoConfig, AutoModelForMaskedLM, Trainer,
    TrainingArguments)
config = AutoConfig.from_pretrained("bert-large-uncased")
model = AutoModelForMaskedLM.from_config(AutoConfig.from_pretrained("bert-large-uncased"))
args = TrainingArguments(output_dir="out", per_device_train_batch_size=16, bf16=True)
Trainer(model=model, args=args).train()
""")
    st = _settings([p])
    assert st["model_name_or_path"] == "bert-large-uncased" and st["load_dtype"] == "fp32"
    out = _check([p], capsys, "--gpu", "mi300x")
    assert out["model"]["name"] == "bert-large-uncased" and out["verdict"] == "fits"


def test_nvidia_bert_run_pretraining_flags(tmp_path):
    p = _write(tmp_path, "run.sh", "python -m torch.distributed.launch --nproc_per_node=8 run_pretraining.py "
               "--bert_model=bert-base-uncased --train_batch_size=8192 --gradient_accumulation_steps=128 "
               "--max_seq_length=128 --fp16 --do_train\n")
    st = _settings([p])
    assert st["model_name_or_path"] == "bert-base-uncased" and st["per_device_train_batch_size"] == 64
    q = _write(tmp_path, "run2.sh", "torchrun --nproc_per_node=8 run_pretraining.py --bert_model=BERT-B-cased "
               "--train_batch_size=32 --max_seq_length=512\n")
    assert _settings([q])["model_name_or_path"] == "bert-base-cased"


# ---------------------------------------------------------------- torchtitan
TOML = """[job]
dump_folder = "./outputs"

[model]
name = "llama3"
flavor = "8B"
hf_assets_path = "./assets/hf/Llama-3.1-8B"

[training]
local_batch_size = 2
seq_len = 4096
steps = 100

[parallelism]
data_parallel_shard_degree = -1
tensor_parallel_degree = 2

[activation_checkpoint]
mode = "full"
"""


def test_torchtitan_toml_is_read_as_its_layout(tmp_path, capsys):
    p = _write(tmp_path, "llama3_8b.toml", TOML)
    assert formats.detect(TOML, p) == "torchtitan-toml"
    st = _settings([p])
    assert st["model_name_or_path"] == "llama-3.1-8b" and str(st["per_device_train_batch_size"]) == "2"
    assert str(st["cutoff_len"]) == "4096" and st["__tp__"] == 2 and st["__fsdp__"] == 3 and st["bf16"] is True
    assert st["disable_gradient_checkpointing"] is False
    out = _check([p], capsys, "--gpu", "mi300x", "--gpus", "8")
    assert out["runner"] == "megatron" and out["verdict"] == "fits" and out["model"]["name"] == "llama-3.1-8b"


def test_torchtitan_defaults_where_the_toml_is_silent(tmp_path):
    data = torchtitan.load_toml('[model]\nname = "qwen3"\nflavor = "14B"\n[training]\nsteps = 10\n')
    st, notes = torchtitan.read(data, "", "t.toml")
    assert st["model_name_or_path"].value == "qwen3-14b"
    assert str(st["per_device_train_batch_size"].value) == "8" and str(st["cutoff_len"].value) == "2048"
    # selective, selective_ac_option "2" (the defaults): every 2nd of qwen3 14B's 40 blocks recomputed (c-titan:
    # torchtitan/distributed/activation_checkpoint.py _apply_layer_sac), read as Megatron's block recompute
    assert st["__recompute_layers__"].value == 20
    assert any("selective" in n for n in notes)


def test_primus_torchtitan_experiment(tmp_path):
    text = """work_group: ${TEAM:amd}
modules:
  pre_trainer:
    framework: torchtitan
    config: pre_trainer.yaml
    model: qwen3_8b.yaml
    overrides:
      training:
        local_batch_size: 4
        seq_len: 8192
      parallelism:
        context_parallel_degree: 2
"""
    p = _write(tmp_path, "qwen3_8b-pretrain.yaml", text)
    assert formats.detect(text, p) == "primus-torchtitan-yaml"
    st = _settings([p])
    assert st["model_name_or_path"] == "qwen3-8b" and st["__cp__"] == 2 and str(st["cutoff_len"]) == "8192"
    assert "disable_gradient_checkpointing" not in st            # Primus' pre_trainer.yaml: mode none


def test_torchtitan_bad_number_is_one_line_error(tmp_path, capsys):
    p = _write(tmp_path, "bad.toml", TOML.replace("local_batch_size = 2", 'local_batch_size = "two"'))
    rc = main(["check", p, "--gpu", "mi300x", "--json"])
    assert rc == 2 and "local_batch_size" in capsys.readouterr().err


# ---------------------------------------------------------------- DeepSpeed-Chat main.py, OpenRLHF train_ppo
def test_ds_chat_defaults_and_only_optimize_lora(tmp_path):
    base = ("deepspeed --num_gpus 2 main.py --model_name_or_path meta-llama/Llama-2-7b-hf --zero_stage 3 "
            "--lora_dim 64 --lora_module_name layers. --deepspeed --output_dir out")
    p = _write(tmp_path, "a.sh", base + " --only_optimize_lora\n")
    st = _settings([p])
    assert st["cutoff_len"] == 512 and st["fp16"] is True and st["per_device_train_batch_size"] == 16
    assert st["finetuning_type"] == "lora"
    q = _write(tmp_path, "b.sh", base + " --dtype bf16 --max_seq_len 1024 --per_device_train_batch_size 4\n")
    st = _settings([q])
    assert st["finetuning_type"] == "full" and st["bf16"] is True and "fp16" not in st
    assert str(st["cutoff_len"]) == "1024" and str(st["per_device_train_batch_size"]) == "4"


def test_openrlhf_train_ppo_without_ray_keeps_four_models_per_gpu(tmp_path, capsys):
    flags = ("--pretrain meta-llama/Llama-3.1-8B --reward_pretrain meta-llama/Llama-3.1-8B --micro_train_batch_size 1 "
             "--micro_rollout_batch_size 2 --prompt_max_len 512 --generate_max_len 512 --zero_stage 3 --bf16 "
             "--gradient_checkpointing --flash_attn")
    local = _write(tmp_path, "ppo.sh", f"deepspeed --module openrlhf.cli.train_ppo {flags}\n")
    ray = _write(tmp_path, "ppo_ray.sh", f"python3 -m openrlhf.cli.train_ppo_ray --actor_num_gpus_per_node 8 {flags}\n")
    assert _settings([local]).get("__rl_side_models__") == "critic,reward"
    assert "__rl_side_models__" not in _settings([ray])
    a = _check([local], capsys, "--gpu", "h100", "--gpus", "8")
    b = _check([ray], capsys, "--gpu", "h100", "--gpus", "8")
    step = lambda r: r["memory"]["step"]["peak_allocated_bytes"]      # noqa: E731
    # ZeRO-3 over 8: the critic (2 + 2 + 12 B) and the reward model (2 B) per parameter, split 8 ways
    assert step(a) - step(b) > 8.0e9 * 18 / 8 * 0.9


# ---------------------------------------------------------------- T5
def test_t5_counts_encoder_decoder_cross_attention_and_relative_bias():
    cfg = {"model_type": "t5", "d_model": 512, "d_ff": 2048, "d_kv": 64, "num_heads": 8, "num_layers": 6,
           "vocab_size": 32128, "feed_forward_proj": "relu"}
    H, F, V, L = 512, 2048, 32128, 6
    enc = 4 * H * H + 2 * H * F + 2 * H
    dec = 8 * H * H + 2 * H * F + 3 * H
    # t5-small (v1.0): tied embeddings; relu feed-forward; one relative bias (32 x 8) per stack; two final norms
    assert model_from_config(cfg, name="t").params.total == V * H + L * (enc + dec) + 2 * 32 * 8 + 2 * H
    gated = model_from_config({**cfg, "feed_forward_proj": "gated-gelu", "tie_word_embeddings": False}, name="g")
    assert gated.params.total - model_from_config(cfg, name="t").params.total == V * H + 2 * L * H * F


def test_sharded_reupload_names_the_same_model():
    from rocm_tune.core.model.architecture import identify_model

    got = identify_model("someone/flan-t5-xl-sharded-bf16")
    assert got.spec is not None and got.spec.name == "flan-t5-xl"
