"""`check` on Answer.AI's fsdp_qlora train.py (issue 26, helper c-fsdpq): `python train.py --flag value` read as the
program it is (AnswerDotAI/fsdp_qlora train.py @05ed9f2, fastcore @call_parse over main()): --train_type
full|lora|custom_lora|qlora|custom_qlora|bnb_dora|hqq_lora|hqq_dora, FSDP --sharding_strategy over every process,
CPU offload of the sharded parameters (--use_cpu_offload, on by default), --precision, LoRA rank/targets,
--use_gradient_checkpointing / --reentrant_checkpointing / --use_activation_cpu_offload. The launch lines are the
repository's own (README.md, train_hqq_bench.sh, train.sh, table1.sh), not corpus cases."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rocm_tune.cli import main
from rocm_tune.core import formats
from rocm_tune.core.runners import hf
from rocm_tune.profiles import qlora_programs as Q

# README.md "Once installed ...": Llama-2 70B QLoRA on Alpaca at 512 tokens, the repo's two-consumer-GPU example
# ("This example command currently uses just over 128GB of CPU RAM")
README_70B = """python train.py \\
--model_name meta-llama/Llama-2-70b-hf \\
--batch_size 2 \\
--context_length 512 \\
--precision bf16 \\
--train_type qlora \\
--use_gradient_checkpointing true \\
--use_cpu_offload true \\
--dataset alpaca \\
--reentrant_checkpointing true
"""

# train_hqq_bench.sh "# Full / max batch size / gpu = 8 (38/40 GB)" on two A100-40GB
HQQ_BENCH_FULL = """export CUDA_VISIBLE_DEVICES=4,5
python train.py \\
--world_size 2 \\
--master_port 12356 \\
--model_name meta-llama/Llama-2-7b-hf \\
--gradient_accumulation_steps 4 \\
--batch_size 8 \\
--context_length 512 \\
--precision bf16 \\
--train_type full \\
--use_gradient_checkpointing true \\
--use_cpu_offload false \\
--log_to wandb \\
--dataset alpaca \\
--verbose true
"""


def _hqq_bench(train_type: str, batch: int) -> str:
    """train_hqq_bench.sh's QLoRA / HQQ / DoRA runs (7B, 512 tokens, two A100-40GB, `max batch size / gpu`)."""
    return (f"export CUDA_VISIBLE_DEVICES=4,5\npython train.py \\\n--world_size 2 \\\n"
            f"--model_name meta-llama/Llama-2-7b-hf \\\n--gradient_accumulation_steps 1 \\\n--batch_size {batch} \\\n"
            f"--context_length 512 \\\n--precision bf16 \\\n--train_type {train_type} \\\n"
            f"--use_gradient_checkpointing true \\\n--use_cpu_offload false \\\n--dataset alpaca\n")


def _write(tmp_path: Path, name: str, text: str) -> str:
    p = tmp_path / name
    p.write_text(text)
    return str(p)


def _job(tmp_path: Path, text: str) -> formats.Job:
    p = _write(tmp_path, "launch.sh", text)
    return formats.read_texts({p: text})


def _v(job: formats.Job, key: str):
    s = job.settings.get(key)
    return None if s is None else s.value


def _check(tmp_path: Path, capsys, text: str, *more: str) -> dict:
    rc = main(["check", _write(tmp_path, "launch.sh", text), *more, "--json"])
    out = capsys.readouterr().out
    assert rc in (0, 1), out
    return json.loads(out)


def test_readme_70b_qlora_reads_fsdp_offload_4bit_and_its_flags(tmp_path):
    job = _job(tmp_path, README_70B)
    assert job.entry == "train.py"
    assert _v(job, "finetuning_type") == "lora" and _v(job, "quantization_bit") == 4
    assert _v(job, "fsdp") == "full_shard auto_wrap offload"
    assert str(_v(job, "per_device_train_batch_size")) == "2" and str(_v(job, "cutoff_len")) == "512"
    assert _v(job, "disable_gradient_checkpointing") is False
    assert _v(job, "gradient_checkpointing_kwargs") == {"use_reentrant": True}
    assert _v(job, "lora_rank") == 64 and _v(job, "lora_target") == Q.FSDP_QLORA_ALL_TARGETS
    assert "o_proj" not in Q.FSDP_QLORA_ALL_TARGETS.split(",")
    assert _v(job, "load_dtype") == "bf16" and _v(job, "bf16") is True
    assert any("fsdp_qlora train.py flags read" in n and "--lora_rank 64" in n for n in job.notes)


def test_readme_70b_qlora_fits_two_3090s_with_the_host_holding_the_shards(tmp_path, capsys):
    d = _check(tmp_path, capsys, README_70B, "--gpu", "rtx3090", "--gpus", "2", "--host-ram-gib", "128")
    assert d["verdict"] == "fits"
    assert "ddp-lora-gc-reentrant" not in json.dumps(d)      # FSDP, not DDP's reducer


def test_the_same_70b_as_full_fine_tune_without_offload_is_oom(tmp_path, capsys):
    text = README_70B.replace("--train_type qlora", "--train_type full").replace(
        "--use_cpu_offload true", "--use_cpu_offload false")
    d = _check(tmp_path, capsys, text, "--gpu", "rtx3090", "--gpus", "2", "--host-ram-gib", "128")
    assert d["verdict"] == "oom"


def test_ddp_sharding_keeps_the_whole_16bit_70b_on_each_card(tmp_path, capsys):
    text = README_70B.replace("--train_type qlora", "--train_type lora").replace(
        "--use_cpu_offload true", "--use_cpu_offload false --sharding_strategy ddp")
    job = _job(tmp_path, text)
    assert _v(job, "fsdp") == "no_shard auto_wrap" and _v(job, "quantization_bit") is None
    assert _check(tmp_path, capsys, text, "--gpu", "rtx3090", "--gpus", "2")["verdict"] == "oom"


def test_hqq_bench_full_fine_tune_fits_two_a100_40gb(tmp_path, capsys):
    job = _job(tmp_path, HQQ_BENCH_FULL)
    assert _v(job, "finetuning_type") == "full" and _v(job, "fsdp") == "full_shard auto_wrap"
    assert job.gpus is not None and job.gpus.value == 2
    assert str(_v(job, "gradient_accumulation_steps")) == "4"
    assert _check(tmp_path, capsys, HQQ_BENCH_FULL, "--gpu", "a100-40gb")["verdict"] == "fits"


@pytest.mark.parametrize("train_type,batch,bits,dora", [
    ("custom_qlora", 16, 4, None), ("hqq_lora", 32, 4, None), ("hqq_dora", 32, 4, True), ("bnb_dora", 16, 4, True)])
def test_hqq_bench_quantised_types_fit_two_a100_40gb(tmp_path, capsys, train_type, batch, bits, dora):
    text = _hqq_bench(train_type, batch)
    job = _job(tmp_path, text)
    assert _v(job, "quantization_bit") == bits and _v(job, "use_dora") is dora
    assert _v(job, "fsdp") == "full_shard auto_wrap"
    assert _check(tmp_path, capsys, text, "--gpu", "a100-40gb")["verdict"] == "fits"


def test_defaults_of_train_py_fill_what_the_line_leaves_out(tmp_path):
    job = _job(tmp_path, "python train.py --model_name meta-llama/Llama-2-13b-hf --dataset_samples 1024\n")
    assert _v(job, "finetuning_type") == "lora" and _v(job, "quantization_bit") == 4      # --train_type qlora
    assert _v(job, "fsdp") == "full_shard auto_wrap offload"                             # --use_cpu_offload True
    assert _v(job, "per_device_train_batch_size") == 1 and _v(job, "cutoff_len") == 512
    assert job.settings["cutoff_len"].kind == "assumed"
    assert _v(job, "gradient_checkpointing_kwargs") == {"use_reentrant": False}
    assert any("--use_cpu_offload True" in n and "--context_length 512" in n for n in job.notes)


def test_equals_spelling_shell_variables_and_a_launcher_around_it(tmp_path):
    job = _job(tmp_path, "BS=6\nCTX=2048\ntorchrun --nproc_per_node 2 train.py --model_name=meta-llama/Llama-2-7b-hf "
                         "--batch_size=$BS --context_length $CTX --train_type=lora --use_cpu_offload=false "
                         "--dataset dummy\n")
    assert _v(job, "finetuning_type") == "lora" and _v(job, "quantization_bit") is None
    assert str(_v(job, "per_device_train_batch_size")) == "6" and str(_v(job, "cutoff_len")) == "2048"
    assert _v(job, "fsdp") == "full_shard auto_wrap" and _v(job, "packing") is True      # dummy: full-length rows


@pytest.mark.parametrize("precision,load,auto", [
    ("bf16", "bf16", "bf16"), ("fp32", "fp32", None), ("bf16_autocast", "fp32", "bf16"),
    ("fp16_autocast", "fp32", "fp16"), ("bf16_buffers_autocast", "bf16", "bf16")])
def test_precision_choices_set_the_load_dtype_and_autocast(tmp_path, precision, load, auto):
    job = _job(tmp_path, f"python train.py --train_type custom_qlora --precision {precision}\n")
    assert _v(job, "load_dtype") == load
    for half in ("bf16", "fp16"):
        assert _v(job, half) is (True if half == auto else None)


def test_world_size_sharding_strategy_activation_offload_and_peft_default_targets(tmp_path):
    job = _job(tmp_path, "python train.py --world_size 4 --model_name meta-llama/Llama-2-70b-hf --train_type hqq_lora "
                         "--sharding_strategy hybrid_shard_grad_op --use_activation_cpu_offload true "
                         "--use_gradient_checkpointing false --lora_target_modules default --n_bits 2\n")
    assert job.gpus is not None and job.gpus.value == 4 and job.gpus.native == "world_size"
    assert _v(job, "fsdp") == "_hybrid_shard_zero2 auto_wrap offload"
    assert _v(job, "activation_offloading") is True and _v(job, "disable_gradient_checkpointing") is True
    assert _v(job, "lora_target") == "__peft_default__" and _v(job, "quantization_bit") == 2


def test_other_programs_named_train_py_are_not_read_as_fsdp_qlora():
    assert not hf.is_fsdp_qlora({"model_name": ("x", 1), "batch_size": ("4", 1)}, "train.py")
    assert not hf.is_fsdp_qlora({"train_type": ("qlora", 1)}, "finetune.py")
    assert hf.is_fsdp_qlora({"train_type": ("hqq_dora", 1)}, "python fsdp_qlora/train.py")
    # llama-recipes' finetuning.py keeps its own reader (context_length is a flag of both)
    assert not hf.is_fsdp_qlora({"context_length": ("2048", 1), "enable_fsdp": ("", 1)}, "finetuning.py")


def test_llama_pro_types_are_said_not_modelled(tmp_path):
    job = _job(tmp_path, "python train.py --train_type hqq_llama_pro --llama_pro_path /models/llama_pro\n")
    assert any("hqq_llama_pro: not modelled" in n for n in job.notes)


def test_low_memory_false_loads_the_whole_model_on_every_gpu(tmp_path, capsys):
    """--low_memory false: each rank builds the whole model on its GPU before FSDP shards it. The README's 70B
    QLoRA (4-bit, ~35 GiB) then fails at load on a 24 GB card, where low_memory (the default) fits."""
    text = README_70B.replace("--dataset alpaca", "--dataset alpaca --low_memory false")
    job = _job(tmp_path, text)
    assert _v(job, Q.FSDP_WHOLE_LOAD_KEY) is True
    d = _check(tmp_path, capsys, text, "--gpu", "rtx3090", "--gpus", "2", "--host-ram-gib", "128")
    assert d["verdict"] == "oom" and d["oom_phase"] == "load"
    d = _check(tmp_path, capsys, README_70B, "--gpu", "rtx3090", "--gpus", "2", "--host-ram-gib", "128")
    assert d["verdict"] == "fits"


def test_train_py_spawns_one_process_per_visible_gpu(tmp_path):
    """fsdp_qlora() mp.spawn()s nprocs=torch.cuda.device_count(): the visible GPUs are its ranks, --world_size
    names them; a bare `python train.py` is not one process."""
    job = _job(tmp_path, "export CUDA_VISIBLE_DEVICES=0,1\npython train.py --train_type lora --use_cpu_offload False\n")
    assert job.gpus is not None and (job.gpus.value, job.gpus.native) == (2, "CUDA_VISIBLE_DEVICES")
    job = _job(tmp_path, "CUDA_VISIBLE_DEVICES=0,1,2,3 python train.py --world_size 2 --train_type lora\n")
    assert job.gpus is not None and (job.gpus.value, job.gpus.native) == (2, "world_size")
    job = _job(tmp_path, "python train.py --train_type qlora --use_cpu_offload False\n")
    assert job.gpus is None and any("one process per visible GPU" in n for n in job.notes)
    # another program's plain `python train.py` stays one process
    job = _job(tmp_path, "export CUDA_VISIBLE_DEVICES=0,1\npython train.py --model_name_or_path gpt2 --bf16\n")
    assert job.gpus is not None and job.gpus.value == 1
