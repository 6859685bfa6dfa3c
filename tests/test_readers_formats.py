"""Issue 26 item 2: the configs users paste -- torchtune recipes and `tune run`, Megatron-LM / `megatron sft`
arguments (TP/PP/CP/SP), notebooks with device_map="auto" and paged optimizers, a command line in a .txt -- are
read and answered. Fixtures follow public examples (torchtune recipes/configs/llama3_1/8B_lora.yaml, ms-swift
examples/train/megatron, Megatron-LM examples/gpt3, HF/TRL notebooks)."""

from __future__ import annotations

from pathlib import Path

from rocm_tune.core.check.check import check

FX = Path(__file__).parent / "fixtures" / "readers"


def test_tune_run_reads_the_recipe_config_and_its_overrides(tmp_path):
    # the recipe's own data (alpaca_cleaned_dataset: its longest sample, 1044 tokens, bounds the 4096 cap) fits ...
    stock = check([str(FX / "run.sh"), str(FX / "8B_lora.yaml")], gpu_id="mi210")
    assert stock.verdict == "fits" and stock.cfg is not None and stock.cfg.cutoff_len == 4096
    assert any("longest sample" in a and "alpaca-cleaned" in a.lower() for a in stock.assumptions)
    # ... the user's own data is counted at the cap
    (tmp_path / "run.sh").write_text((FX / "run.sh").read_text())
    (tmp_path / "8B_lora.yaml").write_text((FX / "8B_lora.yaml").read_text().replace(
        "torchtune.datasets.alpaca_cleaned_dataset", "torchtune.datasets.instruct_dataset\n  source: json"))
    rep = check([str(tmp_path / "run.sh"), str(tmp_path / "8B_lora.yaml")], gpu_id="mi210")
    c = rep.cfg
    assert rep.runner == "torchtune" and c is not None
    assert (c.method, c.lora_rank, c.precision) == ("lora", 8, "pure_bf16")          # dtype bf16: no autocast
    assert (c.cutoff_len, c.micro_batch, c.gpus) == (4096, 4, 2)          # key=value overrides, --nproc_per_node
    assert c.gradient_checkpointing is False
    assert rep.execution and "FSDP" in rep.execution.get("sharding", "")   # lora_finetune_distributed
    # the fix changes the override on the command line (it wins over the YAML), keeping the effective batch
    assert rep.verdict == "oom" and rep.fix is not None
    assert "batch_size=4" not in rep.fix["files"]["run.sh"] and rep.fix["changes"]["per_device_train_batch_size"] < 4


def test_megatron_tp_pp_sp_divide_the_memory():
    rep = check([str(FX / "pretrain.sh")], gpu_id="mi250x")
    assert rep.runner == "megatron" and rep.cfg is not None and rep.cfg.world_size == 8
    assert any("TP 4, PP 2" in n for n in rep.est_notes)
    # the same job without model parallelism holds the whole model's states on each GPU
    no_mp = FX.parent / "readers" / "pretrain.sh"
    text = no_mp.read_text().replace("--tensor-model-parallel-size 4 --pipeline-model-parallel-size 2", "")
    plain = check_text(text, "mi250x")
    assert rep.memory["step"]["peak_allocated_bytes"] * 3 < plain.memory["step"]["peak_allocated_bytes"]


def check_text(text: str, gpu: str, name: str = "x.sh"):
    import tempfile

    d = Path(tempfile.mkdtemp())
    (d / name).write_text(text)
    return check([str(d / name)], gpu_id=gpu)


def test_swift_megatron_sft_counts_the_visible_gpus():
    rep = check([str(FX / "megatron.sh")], gpu_id="mi300x")
    assert rep.runner == "megatron" and rep.cfg.world_size == 8 and rep.verdict == "fits"
    assert rep.cfg.gradient_checkpointing and rep.cfg.micro_batch == 4


def test_notebook_device_map_and_paged_optimizer():
    rep = check([str(FX / "ft.ipynb")], gpu_id="rtx4090", gpus=2)
    assert rep.cfg is not None and rep.cfg.optim == "paged_adamw_8bit"
    codes = {f.code for f in rep.findings}
    assert "paged-optimizer" in codes and "ddp-lora-gc-reentrant" not in codes
    one = check([str(FX / "ft.ipynb")], gpu_id="rtx4090", gpus=1)
    # layers split over 2 GPUs in one process: each holds about half
    assert rep.memory["step"]["peak_allocated_bytes"] < 0.6 * one.memory["step"]["peak_allocated_bytes"]


def test_a_command_line_pasted_into_a_text_file():
    rep = check([str(FX / "args.txt")], gpu_id="mi250x")
    c = rep.cfg
    assert rep.runner == "llamafactory" and c is not None
    assert (c.method, c.cutoff_len, c.micro_batch, c.zero_stage, c.gpus) == ("full", 4096, 1, 3, 4)


CONFIG_DATACLASS = '''
from dataclasses import dataclass, field

@dataclass
class TrainConfig:
    model_name: str = "Qwen/Qwen2.5-3B-Instruct"
    max_sequence_length: int = 4096
    batch_size: int = 2
    gradient_accumulation_steps: int = 8
    use_lora: bool = True
    lora_rank: int = 16
    lora_target_modules: list = field(default_factory=lambda: ["q_proj", "v_proj"])
    bf16: bool = True
'''


def test_a_config_dataclass_is_read_by_its_names(tmp_path):
    rep = check_text(CONFIG_DATACLASS, "mi210", "train_config.py")
    c = rep.cfg
    assert c is not None and rep.runner == "hf"
    assert (c.method, c.lora_rank, c.cutoff_len, c.micro_batch, c.precision) == ("lora", 16, 4096, 2, "bf16")
    assert c.lora_targets == ("q_proj", "v_proj")


SWIFT_MEGATRON_MOE = """NPROC_PER_NODE=2 CUDA_VISIBLE_DEVICES=0,1 \\
megatron sft \\
    --model Qwen/Qwen3-30B-A3B \\
    --tuner_type lora --lora_rank 8 \\
    --expert_model_parallel_size 2 \\
    --micro_batch_size 8 --global_batch_size 16 \\
    --recompute_granularity full --max_length 2048 \\
    --cross_entropy_loss_fusion true
"""


def test_swift_megatron_defaults_and_expert_parallel():
    with_ep = check_text(SWIFT_MEGATRON_MOE, "mi300x")
    assert with_ep.runner == "megatron" and with_ep.cfg.precision == "bf16"      # ms-swift: the checkpoint's dtype
    no_ep = check_text(SWIFT_MEGATRON_MOE.replace("--expert_model_parallel_size 2 \\\n", ""), "mi300x")
    w_ep = with_ep.memory["load"]["peak_allocated_bytes"]
    w_no = no_ep.memory["load"]["peak_allocated_bytes"]
    assert 0.5 * w_no < w_ep < 0.6 * w_no          # the routed experts (~95 % of Qwen3-30B-A3B) split over 2 GPUs


def test_amd_primus_experiment_yaml():
    rep = check([str(FX / "primus_qwen3_32b_lora.yaml")], gpu_id="mi300x", gpus=8)
    c = rep.cfg
    assert rep.runner == "megatron" and c is not None
    assert (c.method, c.precision, c.cutoff_len, c.micro_batch, c.gradient_checkpointing) == \
        ("lora", "bf16", 8192, 4, True)
    assert rep.model is not None and rep.model.name == "qwen3-32b"       # from the experiment's model file name
    assert any("TP 2" in n and "sequence parallel" in n for n in rep.est_notes)


PRIMUS_NATIVE_SFT = """\
exp_name: ${PRIMUS_EXP_NAME:llama2_70B-FP8-sft-packed-perf}
modules:
  post_trainer:
    framework: megatron
    config: sft_trainer.yaml
    model: ${PRIMUS_MODEL:llama2_70B}.yaml
    overrides:
      stage: sft
      micro_batch_size: ${PRIMUS_MBS:1}
      global_batch_size: ${PRIMUS_GBS:16}
      seq_length: ${PRIMUS_SEQ_LENGTH:4096}
      tensor_model_parallel_size: ${PRIMUS_TP:2}
      pipeline_model_parallel_size: ${PRIMUS_PP:1}
      use_distributed_optimizer: true
      recompute_granularity: full
      bf16: true
      lora:
        enabled: true
        dim: 16
        alpha: 32
        target_modules:
          - linear_qkv
          - linear_proj
"""


def test_primus_placeholders_take_their_defaults_and_the_lora_block_is_read(tmp_path):
    """Primus' loader replaces `${VAR:default}` with the default when VAR is unset (primus/core/config/yaml_loader.py)
    and its native SFT trainer wraps the model with LoRA when `lora.enabled` (megatron_sft_trainer.py, _init_lora):
    the shape of Primus' examples/megatron/configs/MI355X/llama2_70B-FP8-sft-packed-perf.yaml."""
    f = tmp_path / "llama2_70B-FP8-sft-packed-perf.yaml"
    f.write_text(PRIMUS_NATIVE_SFT)
    rep = check([str(f)], gpu_id="mi355x", gpus=8)
    c = rep.cfg
    assert rep.runner == "megatron" and c is not None and rep.model is not None
    assert rep.model.name == "llama-2-70b"                   # ${PRIMUS_MODEL:llama2_70B}.yaml -> llama2_70B
    assert (c.method, c.lora_rank, c.cutoff_len, c.micro_batch) == ("lora", 16, 4096, 1)
    assert any("TP 2" in n for n in rep.est_notes)
    assert rep.verdict == "fits"                            # 70B LoRA, TP 2: ~65 GiB of bf16 weights per GPU
    full = tmp_path / "full.yaml"
    full.write_text(PRIMUS_NATIVE_SFT.replace("enabled: true", "enabled: false"))
    assert check([str(full)], gpu_id="mi355x", gpus=8).cfg.method == "full"


def test_arguments_pasted_without_their_command():
    rep = check([str(FX / "flags_only.txt")], gpu_id="rtx4090")
    c = rep.cfg
    assert rep.runner == "hf" and c is not None
    assert (c.method, c.lora_rank, c.cutoff_len, c.micro_batch, c.precision) == ("lora", 16, 2048, 4, "bf16")
    assert any("without the command" in n for n in rep.job.notes)


def test_accelerate_config_named_by_the_script_is_read_from_disk(tmp_path):
    """`accelerate launch --config_file recipes/zero3.yaml ...` with only the script and the recipe given: the
    accelerate config where the script names it sets the process count and the ZeRO stage (the alignment-handbook
    command as AMD's Mixtral blog runs it)."""
    from rocm_tune.core import formats

    (tmp_path / "recipes").mkdir()
    (tmp_path / "recipes" / "zero3.yaml").write_text(
        "compute_environment: LOCAL_MACHINE\ndeepspeed_config:\n  offload_optimizer_device: none\n"
        "  offload_param_device: none\n  zero3_init_flag: true\n  zero_stage: 3\ndistributed_type: DEEPSPEED\n"
        "mixed_precision: bf16\nnum_machines: 1\nnum_processes: 8\n")
    (tmp_path / "sft.yaml").write_text("model_name_or_path: Qwen/Qwen2.5-7B\ntorch_dtype: bfloat16\nbf16: true\n"
                                      "per_device_train_batch_size: 4\nmax_seq_length: 2048\n"
                                      "gradient_checkpointing: true\nnum_train_epochs: 1\n")
    (tmp_path / "launch.sh").write_text("accelerate launch --config_file recipes/zero3.yaml scripts/run_sft.py "
                                        "sft.yaml\n")
    import os

    old = os.getcwd()
    try:
        os.chdir(tmp_path)
        job = formats.read_job(["launch.sh", "sft.yaml"])
    finally:
        os.chdir(old)
    assert job.accelerate is not None and job.accelerate.get("num_processes") == 8
    assert job.ds is not None and job.ds.stage == 3
    assert any("accelerate config read from" in n for n in job.notes)


def test_trlparser_recipe_with_model_id_fsdp_and_the_programs_lora(tmp_path):
    """`torchrun ... lora.py --config x.yaml` (TrlParser over a ScriptArguments dataclass with `model_id`, as the
    Hugging Face and vendor FSDP guides write it): the recipe names the model and `fsdp: "full_shard auto_wrap"`,
    the program builds its LoraConfig in code; all three are read, FSDP shards the weights over the 8 ranks."""
    (tmp_path / "x.yaml").write_text(
        'model_id: "/data/models/Meta-Llama-3-70B"\nmax_seq_length: 2048\nper_device_train_batch_size: 1\n'
        'learning_rate: 0.0001\nbf16: true\ngradient_checkpointing: true\nfsdp: "full_shard auto_wrap"\n'
        'fsdp_config:\n  backward_prefetch: "backward_pre"\n')
    (tmp_path / "lora.py").write_text(
        "from peft import LoraConfig\nfrom trl import SFTTrainer\n"
        "def main(script_args, training_args):\n"
        "    peft_config = LoraConfig(r=16, lora_alpha=32, target_modules='all-linear', task_type='CAUSAL_LM')\n"
        "    trainer = SFTTrainer(model=model, args=training_args, peft_config=peft_config,\n"
        "                         max_seq_length=script_args.max_seq_length)\n")
    (tmp_path / "run.sh").write_text("ACCELERATE_USE_FSDP=1 torchrun --nproc_per_node=8 ./lora.py --config x.yaml\n")
    rep = check([str(tmp_path / "run.sh"), str(tmp_path / "x.yaml"), str(tmp_path / "lora.py")], gpu_id="mi300x")
    assert rep.model is not None and rep.cfg is not None
    assert rep.cfg.method == "lora" and rep.cfg.lora_rank == 16 and rep.cfg.cutoff_len == 2048
    assert rep.cfg.world_size == 8 and any(n.startswith("FSDP FULL_SHARD over 8") for n in rep.est_notes)
    single = check([str(tmp_path / "run.sh"), str(tmp_path / "x.yaml"), str(tmp_path / "lora.py")], gpu_id="mi300x",
                   gpus=1)
    assert single.memory["step"]["peak_allocated_bytes"] > rep.memory["step"]["peak_allocated_bytes"]


def test_trainingarguments_fsdp_flag_shards_over_the_ranks(tmp_path):
    """`--fsdp "full_shard auto_wrap"` on a custom HF script's command line (TrainingArguments.fsdp): the full
    fine-tune's weights, gradients and optimizer state divide over the 4 ranks."""
    cmd = ("torchrun --nproc_per_node 4 train.py --model_name_or_path Qwen/Qwen2.5-7B --per_device_train_batch_size 1 "
           "--model_max_length 2048 --bf16 True --gradient_checkpointing True")
    (tmp_path / "fsdp.sh").write_text(cmd + ' --fsdp "full_shard auto_wrap"\n')
    (tmp_path / "ddp.sh").write_text(cmd + "\n")
    sharded = check([str(tmp_path / "fsdp.sh")], gpu_id="a100-80gb")
    plain = check([str(tmp_path / "ddp.sh")], gpu_id="a100-80gb")
    assert any(n.startswith("FSDP FULL_SHARD over 4") for n in sharded.est_notes)
    assert sharded.memory["step"]["peak_allocated_bytes"] < plain.memory["step"]["peak_allocated_bytes"] / 2
