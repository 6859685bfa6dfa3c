"""`check` on programs that carry no training config of their own (issue 26 items 1, 2 and 5): bash-array
Megatron/slime scripts, verl and OpenRLHF RL launches, Unsloth programs, names whose size is a version or an
expert layout, LoRA regexes of older module trees. The scripts are shortened from the public files each test cites."""

from __future__ import annotations

import json
from pathlib import Path

from rocm_tune.cli import main
from rocm_tune.core.formats import shell
from rocm_tune.core.model.architecture import identify_model
from rocm_tune.core.model.names import parse_name


def _run(args, capsys):
    rc = main(["check", *args, "--json"])
    out = capsys.readouterr()
    return rc, json.loads(out.out)


def _write(tmp_path: Path, name: str, text: str) -> str:
    p = tmp_path / name
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text)
    return str(p)


# THUDM/slime scripts/run-qwen3-8B-amd.sh (shortened): flags grouped in bash arrays, the model's shape in a
# sourced scripts/models/qwen3-8B.sh, the HF checkpoint under a shell variable, `ray job submit -- python3 train.py`
SLIME = """#!/bin/bash
set -euxo pipefail
MODEL_DIR="/home/user/projects/model" # Need to change to your own path
export HIP_VISIBLE_DEVICES=${HIP_VISIBLE_DEVICES:-"0,1,2,3,4,5,6,7"}
SCRIPT_DIR="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" &>/dev/null && pwd)"
source "${SCRIPT_DIR}/models/qwen3-8B.sh"

CKPT_ARGS=(
   --hf-checkpoint ${MODEL_DIR}/Qwen3-8B
   #--hf-checkpoint /root/Qwen3-4B-FP8
   --ref-load ${MODEL_DIR}/Qwen3-8B_torch_dist
   --save-interval 20
)

PERF_ARGS=(
   --tensor-model-parallel-size 2
   --sequence-parallel
   --pipeline-model-parallel-size 1
   --recompute-granularity full
   --recompute-method uniform
   --recompute-num-layers 1
   --use-dynamic-batch-size
   --max-tokens-per-gpu 9216
)

ray job submit --address="http://127.0.0.1:8265" \\
   -- python3 train.py \\
   --actor-num-nodes 1 \\
   --actor-num-gpus-per-node 8 \\
   --colocate \\
   ${MODEL_ARGS[@]} \\
   ${CKPT_ARGS[@]} \\
   ${PERF_ARGS[@]}
"""
SLIME_MODEL = """MODEL_ARGS=(
   --swiglu
   --num-layers 36
   --hidden-size 4096
   --ffn-hidden-size 12288
   --num-attention-heads 32
   --group-query-attention
   --num-query-groups 8
)
"""


def test_bash_arrays_expand_into_the_command_and_across_files():
    other = shell.parse_script(SLIME_MODEL, "models/qwen3-8B.sh").arrays
    s = shell.parse_script(SLIME, "run.sh", other)
    flags = shell.flag_values([t for c in s.commands for t in c.tokens])
    assert flags["hf-checkpoint"][0] == "/home/user/projects/model/Qwen3-8B"   # the commented line is a comment
    assert flags["tensor-model-parallel-size"][0] == "2" and flags["max-tokens-per-gpu"][0] == "9216"
    assert flags["num-layers"][0] == "36"                                        # from the other file's array
    assert flags["hf-checkpoint"][1] == 9                                        # line of the array's word
    # no word of an array runs as a command of its own
    assert not any(c.argv[0] in ("--hf-checkpoint", "--tensor-model-parallel-size", "--swiglu", ")")
                   for c in s.commands)


def test_slime_script_is_answered_with_its_checkpoint_and_actor_gpus(tmp_path, capsys):
    run = _write(tmp_path, "scripts/run-qwen3-8B-amd.sh", SLIME)
    mod = _write(tmp_path, "scripts/models/qwen3-8B.sh", SLIME_MODEL)
    rc, d = _run([run, mod, "--gpu", "mi300x"], capsys)
    assert d["verdict"] == "fits", d.get("reason")
    assert d["world_size"] == 8 and d["understood"]["cutoff_len"] == 9216
    assert "qwen3-8b" in json.dumps(d["notes"]).lower()


# PeterGriffinJin/Search-R1 train_grpo.sh (verl) with the 14B model on 4 GPUs and train_batch_size 1, as the user of
# Search-R1#80 ran it (OOM on 4x A800-80G; the maintainer: 8x H100 works)
VERL = """export CUDA_VISIBLE_DEVICES=0,1,2,3
export BASE_MODEL='Qwen/Qwen2.5-14B'
PYTHONUNBUFFERED=1 python3 -m verl.trainer.main_ppo \\
    data.train_batch_size=1 \\
    data.max_prompt_length=4096 \\
    data.max_response_length=500 \\
    algorithm.adv_estimator=grpo \\
    actor_rollout_ref.model.path=$BASE_MODEL \\
    actor_rollout_ref.model.enable_gradient_checkpointing=true \\
    actor_rollout_ref.actor.use_kl_loss=true \\
    actor_rollout_ref.actor.ppo_mini_batch_size=256 \\
    actor_rollout_ref.actor.ppo_micro_batch_size=64 \\
    actor_rollout_ref.actor.fsdp_config.param_offload=true \\
    actor_rollout_ref.actor.fsdp_config.optimizer_offload=true \\
    actor_rollout_ref.rollout.name=vllm \\
    actor_rollout_ref.rollout.gpu_memory_utilization=0.6 \\
    actor_rollout_ref.ref.fsdp_config.param_offload=True \\
    trainer.n_gpus_per_node=%d \\
    trainer.nnodes=1 \\
    2>&1 | tee run.log
"""


def test_verl_launch_is_read_as_its_fsdp_actor(tmp_path, capsys):
    f = _write(tmp_path, "train_grpo.sh", VERL % 4)
    rc, d = _run([f, "--gpu", "a800-80gb"], capsys)
    u = d["understood"]
    assert d["runner"] == "hf" and d["world_size"] == 4
    assert u["micro_batch"] == 16 and u["cutoff_len"] == 4596 and u["gradient_checkpointing"] is True
    text = json.dumps(d["notes"])
    assert "FSDP FULL_SHARD + CPU offload" in text and "vLLM colocated" in text
    assert d["verdict"] == "oom"          # 16 sequences of 4.6k tokens of a 14B model per GPU
    f8 = _write(tmp_path, "eight/train_grpo.sh", VERL % 8)
    rc, d8 = _run([f8, "--gpu", "h100-sxm"], capsys)
    assert d8["world_size"] == 8 and d8["understood"]["micro_batch"] == 8
    assert d8["margin_bytes"] > d["margin_bytes"]


# OpenRLHF#901: GRPO of Qwen2.5-7B, the actor on 2 of the node's 4 GPUs with ZeRO-2 (OOM on 48 GB cards)
OPENRLHF = """ray job submit --address="http://127.0.0.1:8265" -- python3 -m openrlhf.cli.train_ppo_ray \\
    --ref_num_nodes 1 \\
    --ref_num_gpus_per_node 2 \\
    --actor_num_nodes 1 \\
    --actor_num_gpus_per_node 2 \\
    --pretrain Qwen/Qwen2.5-7B-Instruct \\
    --micro_train_batch_size 2 \\
    --prompt_max_len 1024 \\
    --generate_max_len 1024 \\
    --advantage_estimator group_norm \\
    --zero_stage 2 \\
    --bf16 \\
    --flash_attn
"""


def test_openrlhf_actor_is_a_deepspeed_program_on_its_own_gpus(tmp_path, capsys):
    f = _write(tmp_path, "train_grpo_ray.sh", OPENRLHF)
    rc, d = _run([f, "--gpu", "rtx6000-ada"], capsys)
    assert d["world_size"] == 2 and d["understood"]["zero_stage"] == 2
    assert d["understood"]["cutoff_len"] == 2048 and d["understood"]["method"] == "full"
    assert d["verdict"] == "oom"          # 7.6B full: Adam states over only 2 GPUs do not fit 48 GB


def test_a_version_named_vlm_gets_a_bound_not_unknown():
    # MiniCPM-V 2.6 has a preset now (tests/test_check_c_tower.py); MiniCPM-o 2.6 is still named by version only
    p = parse_name("openbmb/MiniCPM-o-2_6")
    assert p.size_b is None and p.series == "minicpmo2.6"
    got = identify_model("openbmb/MiniCPM-o-2_6", network=False)
    assert got.how == "assumed" and 8.2e9 < got.spec.params.total < 9.2e9
    assert "not modelled" in got.assumption and "Qwen2.5-7B" in got.assumption
    assert identify_model("totally-unknown-model", network=False).spec is None   # no bound: still unknown


def test_expert_layout_names_take_that_layouts_shape():
    got = identify_model("/models/zephyr-8x7b-sft-full", network=False)
    assert got.how == "assumed" and got.spec.num_experts == 8
    assert 45e9 < got.spec.params.total < 48e9       # Mixtral-8x7B's 46.7B, not a dense 56B


# OpenBMB/MiniCPM-V finetune/finetune_lora.sh: a PEFT regex over the LLM's attention (module tree llm.model.layers.N)
MINICPM = """GPUS_PER_NODE=8
MODEL="openbmb/MiniCPM-V-2_6"
torchrun --nproc_per_node $GPUS_PER_NODE finetune.py \\
    --model_name_or_path $MODEL \\
    --use_lora true \\
    --lora_target_modules "llm\\..*layers\\.\\d+\\.self_attn\\.(q_proj|k_proj|v_proj|o_proj)" \\
    --model_max_length 2048 \\
    --per_device_train_batch_size 1 \\
    --gradient_checkpointing true \\
    --bf16 true \\
    --deepspeed ds_config_zero3.json
"""
DS_Z3 = json.dumps({"zero_optimization": {"stage": 3}, "bf16": {"enabled": "auto"},
                    "train_micro_batch_size_per_gpu": "auto"})


def test_lora_regex_of_a_vlm_tree_is_read_not_refused(tmp_path, capsys):
    f = _write(tmp_path, "finetune_lora.sh", MINICPM)
    j = _write(tmp_path, "ds_config_zero3.json", DS_Z3)
    rc, d = _run([f, j, "--gpu", "rtx3090"], capsys)
    assert d["verdict"] == "fits", d.get("reason")
    assert d["understood"]["method"] == "lora" and d["world_size"] == 8


# the Unsloth + AMD blog's settings (Llama-3.3-70B, LoRA 16-bit r64, batch 128 x 1024, one MI300X): fits there
UNSLOTH = """from unsloth import FastLanguageModel
from trl import SFTTrainer, SFTConfig
model, tokenizer = FastLanguageModel.from_pretrained(
    model_name="unsloth/Llama-3.3-70B-Instruct", max_seq_length=1024, load_in_4bit=False)
model = FastLanguageModel.get_peft_model(
    model, r=64, lora_alpha=64,
    target_modules=["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"],
    use_gradient_checkpointing=%s)
trainer = SFTTrainer(model=model, tokenizer=tokenizer, train_dataset=None,
    args=SFTConfig(per_device_train_batch_size=128, gradient_accumulation_steps=1, bf16=True,
                   optim="adamw_8bit", output_dir="outputs"))
trainer.train()
"""


def test_unsloth_program_loads_bf16_and_offloads_its_checkpoints(tmp_path, capsys):
    f = _write(tmp_path, "train.py", UNSLOTH % '"unsloth"')
    rc, d = _run([f, "--gpu", "mi300x"], capsys)
    text = json.dumps(d["notes"])
    assert "loads the weights in bfloat16" in text and "offloaded to host memory" in text
    assert d["understood"]["gradient_checkpointing"] is True
    assert d["verdict"] == "fits", d.get("reason")
    # checkpointing kept on the GPU (True, not "unsloth"): the 80 layers' inputs stay: over the card
    g = _write(tmp_path, "gpu/train.py", UNSLOTH % "True")
    rc, d2 = _run([g, "--gpu", "mi300x"], capsys)
    assert d2["verdict"] != "fits" and d2["understood"]["gradient_checkpointing"] is True


# TRL's CLI as its docs launch it (huggingface/trl docs/source/clis.md): `trl sft` with TrainingArguments flags
TRL_CLI = """trl sft --model_name_or_path Qwen/Qwen2.5-7B --dataset_name trl-lib/Capybara \\
  --per_device_train_batch_size 2 --max_length 4096 --gradient_checkpointing --bf16 \\
  --use_peft --lora_r 32 --num_processes 2 --output_dir out
"""
# OpenRLHF README's SFT launch (shortened): `deepspeed --module openrlhf.cli.train_sft`
OPENRLHF_SFT = """deepspeed --module openrlhf.cli.train_sft \\
   --max_len 4096 \\
   --dataset Open-Orca/OpenOrca \\
   --micro_train_batch_size 2 \\
   --pretrain meta-llama/Meta-Llama-3-8B \\
   --zero_stage 2 \\
   --bf16 \\
   --gradient_checkpointing
"""


def test_trl_cli_and_openrlhf_sft_are_training_commands(tmp_path, capsys):
    rc, d = _run([_write(tmp_path, "t.sh", TRL_CLI), "--gpu", "a100-80gb"], capsys)
    u = d["understood"]
    assert d["verdict"] == "fits" and d["world_size"] == 2
    assert (u["method"], u["cutoff_len"], u["micro_batch"], u["lora_rank"]) == ("lora", 4096, 2, 32)
    rc, d = _run([_write(tmp_path, "o.sh", OPENRLHF_SFT), "--gpu", "a100-80gb", "--gpus", "8"], capsys)
    u = d["understood"]
    assert d["world_size"] == 8 and (u["method"], u["zero_stage"], u["cutoff_len"]) == ("full", 2, 4096)
    assert d["verdict"] in ("fits", "oom")


# OpenRLHF/OpenRLHF#384 (GLM-4-9B DPO; "fixed: flash_attn was not on, a few GB more"), as an SFT of Llama-3-8B
# without checkpointing so that the attention scores show: before 2025-08 `--flash_attn` is a switch and the Actor
# loads attn_implementation="eager" without it (openrlhf/models/actor.py); `--attn_implementation` replaced it
OPENRLHF_ATTN = """deepspeed --module openrlhf.cli.train_sft \\
   --max_len 4096 \\
   --micro_train_batch_size 1 \\
   --pretrain meta-llama/Meta-Llama-3-8B \\
   --lora_rank 16 \\
   --zero_stage 2 \\
   --bf16%s
"""


def test_openrlhf_attention_follows_its_flags(tmp_path, capsys):
    got = {}
    for tag, extra in (("none", ""), ("flash", " \\\n   --flash_attn"),
                       ("impl", " \\\n   --attn_implementation flash_attention_2"),
                       ("packed", " \\\n   --packing_samples")):
        rc, d = _run([_write(tmp_path, tag + ".sh", OPENRLHF_ATTN % extra), "--gpu", "mi300x", "--gpus", "1"], capsys)
        got[tag] = (d["understood"]["attn"], d["memory"]["step"]["peak_allocated_bytes"])
    assert got["none"][0] == "eager" and {got[k][0] for k in ("flash", "impl", "packed")} == {"fa2"}
    # eager keeps each layer's fp32 softmax of 32 heads x 4096 x 4096 (2 GiB) for backward, 32 layers: > 64 GiB more
    assert got["none"][1] - got["flash"][1] > 32 * 32 * 4096 * 4096 * 4


def test_size_words_of_speech_and_encoder_models_bound_them():
    # (Qwen-VL-Chat was the third until session 17 gave it a preset: tests/test_c_pre8.py)
    for name, lo, hi in (("openai/whisper-large-v3", 1.4, 1.7), ("FacebookAI/roberta-large", 0.3, 0.45)):
        got = identify_model(name, network=False)
        assert got.how == "assumed" and lo < got.spec.params.total / 1e9 < hi, name
        assert "is not modelled" in got.assumption          # an encoder(-decoder) counted as a decoder: said
    base = parse_name("bert-base-uncased")
    assert "base" in base.variants and identify_model("bert-base-uncased", network=False).spec is not None


# ms-swift examples/train/sequence_parallel (shortened): Ulysses sequence parallelism under DeepSpeed ZeRO-3
SWIFT_SP = """NPROC_PER_NODE=8 \\
swift sft \\
    --model Qwen/Qwen2.5-32B-Instruct \\
    --tuner_type lora \\
    --torch_dtype bfloat16 \\
    --per_device_train_batch_size 1 \\
    --max_length 65536 \\
    --use_liger_kernel true \\
    --deepspeed zero3 \\
    --attn_impl flash_attn%s
"""


def test_sequence_parallel_under_zero_shards_states_and_splits_the_sequence(tmp_path, capsys):
    rc, sp = _run([_write(tmp_path, "sp.sh", SWIFT_SP % " \\\n    --sequence_parallel_size 8"), "--gpu", "a100-80gb"],
                  capsys)
    rc, plain = _run([_write(tmp_path, "plain.sh", SWIFT_SP % ""), "--gpu", "a100-80gb"], capsys)
    text = json.dumps(sp["notes"])
    assert "sequence parallel 8 under ZeRO-3" in text and "8192 tokens" in text
    assert "Megatron TP" not in text                     # not counted as whole weights on every GPU
    assert sp["world_size"] == plain["world_size"] == 8
    assert sp["memory"]["step"]["peak_allocated_bytes"] < plain["memory"]["step"]["peak_allocated_bytes"]
    assert sp["memory"]["load"]["peak_allocated_bytes"] == plain["memory"]["load"]["peak_allocated_bytes"]


def test_fused_lora_targets_are_read_by_role_where_the_known_shape_names_them_otherwise(tmp_path, capsys):
    # a local Falcon-style checkpoint (fused query_key_value, dense_h_to_4h) whose shape is assumed from its name
    y = _write(tmp_path, "c.yaml", "model_name_or_path: /data/models/Falcon3-7B-Instruct-local-merge\nstage: sft\n"
               "do_train: true\nfinetuning_type: lora\nlora_target: query_key_value,dense_h_to_4h\ncutoff_len: 1024\n"
               "per_device_train_batch_size: 1\nbf16: true\noutput_dir: saves/c\n")
    rc, d = _run([y, "--gpu", "a100-80gb"], capsys)
    assert d["verdict"] == "fits"
    assert d["understood"]["lora_targets"] == ["q_proj", "k_proj", "v_proj", "gate_proj", "up_proj"]
    assert any("query_key_value -> q_proj, k_proj, v_proj" in a for a in d["assumptions"])
    # a name of no known role is still refused, as PEFT refuses it
    z = _write(tmp_path, "z.yaml", "model_name_or_path: Qwen/Qwen2.5-7B\nstage: sft\ndo_train: true\n"
               "finetuning_type: lora\nlora_target: not_a_module\noutput_dir: saves/z\n")
    rc = main(["check", z, "--gpu", "a100-80gb", "--json"])
    capsys.readouterr()
    assert rc == 2


def test_swift_eval_under_sequence_parallel_holds_the_shards_16bit_logits_and_a_chunked_loss(tmp_path, capsys):
    # ms-swift evaluates with a validation split (4.x: --split_dataset_ratio, default 0); under sequence parallel its
    # compute_loss pops the labels, the model returns the shard's 16-bit logits and per_token_loss_func_sp takes the
    # loss in CELOSS_PARALLEL_SIZE-row chunks
    sp = " \\\n    --sequence_parallel_size 8 \\\n    --per_device_eval_batch_size 1 \\\n    --split_dataset_ratio 0.01"
    rc, plain = _run([_write(tmp_path, "a.sh", SWIFT_SP % sp), "--gpu", "a100-80gb"], capsys)
    rc, chunked = _run([_write(tmp_path, "b.sh", "CELOSS_PARALLEL_SIZE=1024 \\\n" + SWIFT_SP % sp), "--gpu",
                        "a100-80gb"], capsys)
    ev_plain = plain["memory"]["eval"]["peak_allocated_bytes"] - plain["memory"]["save"]["peak_allocated_bytes"]
    ev_chunk = chunked["memory"]["eval"]["peak_allocated_bytes"] - chunked["memory"]["save"]["peak_allocated_bytes"]
    tokens, vocab = 65536 // 8, 152064
    # unchunked: 16-bit logits and their 16-bit log-softmax (4 B a logit), not the HF loss's 10 B
    assert 4 * tokens * vocab <= ev_plain < 5 * tokens * vocab
    # chunked: the 16-bit logits plus one 1024-row fp32 chunk, less than the unchunked loss
    assert 2 * tokens * vocab + 8 * 1024 * vocab <= ev_chunk < ev_plain


def test_a_plain_assignment_line_is_a_shell_variable_not_the_programs_environment(tmp_path, capsys):
    # bash: `NPROC_PER_NODE=8` alone on a line sets a shell variable; swift only sees it when exported (or when
    # it prefixes the command); $VAR still expands it
    body = SWIFT_SP % ""
    cmd = body.split("swift sft", 1)[1]
    rc, plain = _run([_write(tmp_path, "a.sh", "NPROC_PER_NODE=8\nswift sft" + cmd), "--gpu", "a100-80gb"], capsys)
    rc, exported = _run([_write(tmp_path, "b.sh", "export NPROC_PER_NODE=8\nswift sft" + cmd), "--gpu", "a100-80gb"],
                        capsys)
    rc, later = _run([_write(tmp_path, "c.sh", "NPROC_PER_NODE=8\nexport NPROC_PER_NODE\nswift sft" + cmd), "--gpu",
                      "a100-80gb"], capsys)
    rc, expanded = _run([_write(tmp_path, "d.sh", "n=8\nNPROC_PER_NODE=$n swift sft" + cmd), "--gpu", "a100-80gb"],
                        capsys)
    assert plain["world_size"] == 1
    assert exported["world_size"] == later["world_size"] == expanded["world_size"] == 8


def test_a_comment_line_after_env_prefixes_cuts_them_off_the_program(tmp_path, capsys):
    # ms-swift#3504 as posted: `A=.. B=.. \` + `# X=.. \` + `swift sft ...`: bash ends the command at the comment,
    # the prefixes become unexported shell variables and swift runs without NPROC_PER_NODE (one process)
    cmd = SWIFT_SP.split("swift sft", 1)[1]
    sh = "CUDA_VISIBLE_DEVICES=0,1,2,3 \\\nNPROC_PER_NODE=4 \\\n# VIDEO_TOTAL_PIXELS=14112000 \\\nswift sft" + cmd
    rc, d = _run([_write(tmp_path, "cut.sh", sh), "--gpu", "a100-80gb"], capsys)
    cut = [f for f in d["findings"] if f["code"] == "shell-comment-cuts-command"]
    assert len(cut) == 1 and cut[0]["line"] == 3
    assert "CUDA_VISIBLE_DEVICES, NPROC_PER_NODE" in cut[0]["message"]
    assert d["world_size"] == 1
    # the same lines without the comment: one command, 4 processes, no finding
    rc, ok = _run([_write(tmp_path, "ok.sh", sh.replace("# VIDEO_TOTAL_PIXELS=14112000 \\\n", "")), "--gpu",
                   "a100-80gb"], capsys)
    assert ok["world_size"] == 4 and not [f for f in ok["findings"] if f["code"] == "shell-comment-cuts-command"]
