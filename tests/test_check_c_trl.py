"""Runner defaults that decide memory, read as each runner's source sets them (issue 26, helper c-trl):

- torchtune <= 0.2 truncates in its dataset builders, with the builder's own default when the config sets no
  max_seq_len (pytorch/torchtune v0.1.0..v0.2.1 torchtune/datasets/_alpaca.py `alpaca_dataset(max_seq_len: int =
  512)`, alpaca_cleaned_dataset = partial(alpaca_dataset, ...); _slimorca.py `slimorca_dataset(max_seq_len: int =
  1024)`); v0.3.0 moved the cut to tokenizer.max_seq_len and the checkpointers from torchtune.utils to
  torchtune.training, so a `torchtune.utils.*Checkpointer` config is a <= 0.2 config.
- ms-swift's `swift sft|pt|rlhf` runs swift/cli/<cmd>.py (modelscope/ms-swift swift/cli/main.py ROUTE_MAPPING, started
  as `python -m torch.distributed.run ... <file>`): a launcher naming that file (deepspeed, torchrun, python -m
  swift.cli.sft) runs ms-swift with ms-swift's defaults (gradient_checkpointing True: swift/trainers/arguments.py
  TrainArgumentsMixin; --torch_dtype), not a plain transformers script's (fp32, no checkpointing).
"""

from __future__ import annotations

import pytest

from rocm_tune.core import formats
from rocm_tune.core.check.check import check

TT = """# torchtune {version} LoRA recipe config
model:
  _component_: torchtune.models.llama3.lora_llama3_8b
  lora_attn_modules: ['q_proj', 'v_proj']
  apply_lora_to_mlp: False
  apply_lora_to_output: False
  lora_rank: 8
  lora_alpha: 16
tokenizer:
  _component_: torchtune.models.llama3.llama3_tokenizer
  path: /tmp/Meta-Llama-3-8B/original/tokenizer.model
checkpointer:
  _component_: {checkpointer}
  checkpoint_dir: /tmp/Meta-Llama-3-8B/original/
  checkpoint_files: [consolidated.00.pth]
  output_dir: /tmp/Meta-Llama-3-8B/
  model_type: LLAMA3
dataset:
  _component_: torchtune.datasets.{builder}
  train_on_input: True{dataset_len}
batch_size: 16
optimizer:
  _component_: torch.optim.AdamW
  lr: 3e-4
enable_activation_checkpointing: True
dtype: bf16
"""


def _tt(tmp_path, checkpointer="torchtune.utils.FullModelMetaCheckpointer", builder="alpaca_cleaned_dataset",
        dataset_len="", version="0.1"):
    p = tmp_path / "8B_lora_single_device.yaml"
    p.write_text(TT.format(checkpointer=checkpointer, builder=builder, dataset_len=dataset_len, version=version))
    launch = tmp_path / "launch.sh"
    launch.write_text(f"tune run lora_finetune_single_device --config {p}\n")
    return check([str(launch), str(p)], gpu_id="rtx-a6000").to_dict()


@pytest.mark.parametrize("builder,length", [("alpaca_cleaned_dataset", 512), ("alpaca_dataset", 512),
                                            ("slimorca_dataset", 1024)])
def test_torchtune_v02_builder_truncates_at_its_own_default(tmp_path, builder, length):
    rep = _tt(tmp_path, builder=builder)
    assert rep["understood"]["cutoff_len"] == length
    assert any(f"{builder} truncates at its own default max_seq_len {length}" in n for n in rep["notes"])


def test_torchtune_v03_config_keeps_the_no_truncation_assumption(tmp_path):
    # torchtune.training.* checkpointer: >= 0.3, where alpaca_dataset has no max_seq_len and the tokenizer's None
    # cuts nothing: the 2048-token assumption (said as such) stays
    rep = _tt(tmp_path, checkpointer="torchtune.training.FullModelMetaCheckpointer", version="0.3")
    assert rep["understood"]["cutoff_len"] == 2048
    assert not any("truncates at its own default" in n for n in rep["notes"])


def test_torchtune_v02_stated_max_seq_len_wins_over_the_builder_default(tmp_path):
    rep = _tt(tmp_path, dataset_len="\n  max_seq_len: 4096")
    assert rep["understood"]["cutoff_len"] == 4096


def test_torchtune_v02_default_changes_the_verdict_on_a_48gb_card(tmp_path):
    # Llama-3-8B LoRA, batch 16, bf16, checkpointing on, one RTX A6000 (torchtune#830's setting): 16 x 512 tokens
    # fit, 16 x 2048 do not
    old = _tt(tmp_path)
    new = _tt(tmp_path, checkpointer="torchtune.training.FullModelMetaCheckpointer")
    assert old["verdict"] == "fits" and new["verdict"] == "oom"
    assert old["memory"]["step"]["peak_allocated_bytes"] < new["memory"]["step"]["peak_allocated_bytes"]


SWIFT_DS = """deepspeed --hostfile=/etc/mpi/hostfile \\
    {program} \\
    --rlhf_type dpo \\
    --model Qwen/Qwen2.5-7B-Instruct \\
    --torch_dtype bfloat16 \\
    --train_type full \\
    --dataset my_prefs.jsonl \\
    --per_device_train_batch_size 1 \\
    --deepspeed zero3 \\
    --max_length 4096 \\
    --output_dir out
"""


@pytest.mark.parametrize("program", ["swift/cli/rlhf.py", "${SCRIPT_DIR}/swift/cli/rlhf.py",
                                     "/opt/ms-swift/swift/cli/rlhf.py"])
def test_a_launcher_running_swift_cli_rlhf_is_ms_swift(tmp_path, program):
    p = tmp_path / "train_dpo.sh"
    p.write_text(SWIFT_DS.format(program=program))
    job = formats.read_job([str(p)])
    assert job.runner == "ms-swift" and job.entry == "swift rlhf" and job.launcher == "deepspeed"
    rep = check([str(p)], gpu_id="h800", gpus=8, nodes=4).to_dict()
    u = rep["understood"]
    # ms-swift's defaults: checkpointing on, --torch_dtype bfloat16 read; --rlhf_type dpo is the DPO stage
    assert u["gradient_checkpointing"] is True and u["precision"] == "bf16" and u["stage"] == "dpo"
    assert u["gpus"] == 8 and u["nodes"] == 4 and u["zero_stage"] == 3


def test_torchrun_and_module_forms_of_swift_cli(tmp_path):
    p = tmp_path / "sft.sh"
    p.write_text("torchrun --nproc_per_node 4 swift/cli/sft.py --model Qwen/Qwen2.5-7B-Instruct "
                 "--train_type lora --dataset d.jsonl --output_dir out\n")
    job = formats.read_job([str(p)])
    assert job.runner == "ms-swift" and job.entry == "swift sft" and job.launcher == "torchrun"
    assert job.gpus is not None and job.gpus.value == 4
    q = tmp_path / "pt.sh"
    q.write_text("python -m swift.cli.pt --model Qwen/Qwen2.5-0.5B --train_type full --dataset d.jsonl\n")
    job = formats.read_job([str(q)])
    assert job.runner == "ms-swift" and job.entry == "swift pt"
    assert job.settings["stage"].value == "pt"


def test_other_programs_named_sft_stay_transformers_scripts(tmp_path):
    p = tmp_path / "run.sh"
    p.write_text("torchrun --nproc_per_node 2 train/sft.py --model_name_or_path Qwen/Qwen2.5-0.5B --bf16 True "
                 "--output_dir out\n")
    job = formats.read_job([str(p)])
    assert job.runner == "hf" and job.entry.endswith("train/sft.py")


VERL = """python3 -m verl.trainer.main_ppo \\
    algorithm.adv_estimator=grpo \\
    data.max_prompt_length=1024 \\
    data.max_response_length=3072 \\
    actor_rollout_ref.model.path=Qwen/Qwen2.5-7B-Instruct \\
    actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=8 \\
    actor_rollout_ref.rollout.name=vllm \\
    actor_rollout_ref.rollout.gpu_memory_utilization=0.4 \\
    trainer.n_gpus_per_node=8 \\
    trainer.nnodes=1{gc}
"""


@pytest.mark.parametrize("gc,on", [("", True), (" \\\n    actor_rollout_ref.model.enable_gradient_checkpointing=False", False),
                                   (" \\\n    actor_rollout_ref.model.enable_gradient_checkpointing=True", True)])
def test_verl_checkpoints_the_actor_unless_told_not_to(tmp_path, gc, on):
    # verl/trainer/config/ppo_trainer.yaml: actor_rollout_ref.model.enable_gradient_checkpointing: True since v0.2
    p = tmp_path / "run_grpo.sh"
    p.write_text(VERL.format(gc=gc))
    rep = check([str(p)], gpu_id="mi300x").to_dict()
    assert rep["understood"]["gradient_checkpointing"] is on
    assert rep["understood"]["cutoff_len"] == 4096 and rep["understood"]["micro_batch"] == 8


def test_verl_default_checkpointing_lowers_the_step(tmp_path):
    peaks = {}
    for name, gc in (("default", ""), ("off", " \\\n    actor_rollout_ref.model.enable_gradient_checkpointing=False")):
        p = tmp_path / f"{name}.sh"
        p.write_text(VERL.format(gc=gc))
        peaks[name] = check([str(p)], gpu_id="mi300x").to_dict()["memory"]["step"]["peak_allocated_bytes"]
    # 8 x 4096 tokens of a 7B model: every layer's activations kept without checkpointing, one layer's input with it
    assert peaks["off"] - peaks["default"] > 20 * 2**30


SWIFT_GRPO = """NPROC_PER_NODE=8 swift rlhf \\
    --rlhf_type grpo \\
    --model Qwen/Qwen2.5-7B-Instruct \\
    --train_type lora \\
    --use_vllm true \\
    --vllm_mode colocate \\
    --vllm_gpu_memory_utilization 0.4 \\
    --sleep_level 1 \\
    --dataset AI-MO/NuminaMath-TIR#5000 \\
    --per_device_train_batch_size 4 \\
    {length}--max_completion_length 2048 \\
    --output_dir out
"""


def test_swift_grpo_max_length_bounds_the_prompt_not_the_trained_sequence(tmp_path):
    # ms-swift docs (Instruction/Command-line-parameters.md): "In PPO, GRPO, GKD and inference scenarios, max_length
    # refers to max_prompt_length"; the rollout is encoded for training with max_length None (grpo_trainer.py
    # _template_context): prompt 4096 + completion 2048 = 6144 tokens per sequence
    p = tmp_path / "grpo.sh"
    p.write_text(SWIFT_GRPO.format(length="--max_length 4096 \\\n    "))
    rep = check([str(p)], gpu_id="mi300x").to_dict()
    assert rep["understood"]["cutoff_len"] == 4096 + 2048
    assert any("--max_length 4096 bounds the prompt" in n for n in rep["notes"])
    # without --max_length: max_prompt_length's default 512 + the completion, as before
    p.write_text(SWIFT_GRPO.format(length=""))
    assert check([str(p)], gpu_id="mi300x").to_dict()["understood"]["cutoff_len"] == 512 + 2048


def test_swift_sft_max_length_stays_the_whole_sequence(tmp_path):
    p = tmp_path / "sft.sh"
    p.write_text("NPROC_PER_NODE=8 swift sft --model Qwen/Qwen2.5-7B-Instruct --train_type lora "
                 "--dataset d.jsonl --max_length 4096 --max_completion_length 2048 --output_dir out\n")
    assert check([str(p)], gpu_id="mi300x").to_dict()["understood"]["cutoff_len"] == 4096
