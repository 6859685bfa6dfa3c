"""`rocm-tune check` driven as a user, on real configs (sources cited per test)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from rocm_tune.cli import main
from rocm_tune.core.formats import shell

REPO = Path(__file__).resolve().parents[1]

# ms-swift#5199 (calibration sw-5199-qwen25vl-7b-lora-z3-len20k-2xa6000/train.sh), verbatim: the `#` on the
# target_modules line ends the command; --max_length and --deepspeed zero3 never reach swift.
SWIFT_5199 = """CUDA_VISIBLE_DEVICES=0,1 \\
NPROC_PER_NODE=$nproc_per_node \\
swift sft \\
    --model /root/data3/Qwen.Qwen2.5-VL-7B-Instruct \\
    --model_type qwen2_5_vl \\
    --train_type lora \\
    --max_pixel 602112 \\
    --dataset data2/train_mecg_converted_multimodal_grpo.jsonl \\
    --torch_dtype bfloat16 \\
    --num_train_epochs 1 \\
    --per_device_train_batch_size 1 \\
    --per_device_eval_batch_size 1 \\
    --learning_rate 1e-4 \\
    --lora_rank 8 \\
    --lora_alpha 32 \\
    # --target_modules all-linear \\
    --gradient_accumulation_steps 16 \\
    --eval_steps 100 \\
    --max_length 20480 \\
    --output_dir output \\
    --deepspeed zero3
"""

# hiyouga/LlamaFactory#5187 (calibration lf-5187-qwen2-72b-lora-noDS-4xa100/launch.sh), shortened excerpt:
# Qwen2-72B LoRA, plain DDP on 4 x A100-80GB -> OOM (each rank holds the whole 145 GB model)
LF_5187 = """nohup bash -c 'CUDA_VISIBLE_DEVICES=0,1,2,3 llamafactory-cli train \\
    --stage sft \\
    --do_train \\
    --model_name_or_path /opt/LLMs/Qwen2-72B-Instruct \\
    --template qwen \\
    --finetuning_type lora \\
    --cutoff_len 1024 \\
    --per_device_train_batch_size 1 \\
    --per_device_eval_batch_size 1 \\
    --gradient_accumulation_steps 2 \\
    --fp16' > /op
"""

# hiyouga/LlamaFactory#3708 (calibration lf-3708-qwen15-7b-lora-z2-cutoff8k-4x3090), the memory-relevant keys
# of PQ_sft.yaml as posted, its launch.sh and LLaMA-Factory's ds_z2_config.json: OOM on 4 x RTX 3090
LF_3708_YAML = """model_name_or_path: /sshfs/pretrains/Qwen/Qwen1.5-7B-Chat/
stage: sft
do_train: true
finetuning_type: lora
lora_target: q_proj,v_proj
ddp_timeout: 180000000
deepspeed: examples/deepspeed/ds_z2_config.json
dataset: PQ
template: qwen
cutoff_len: 8196
per_device_train_batch_size: 1
gradient_accumulation_steps: 1
warmup_steps: 0.1
fp16: true
"""
LF_3708_LAUNCH = """#!/bin/bash
NPROC_PER_NODE=4
CUDA_VISIBLE_DEVICES=4,5,6,7 python -m torch.distributed.run \\
    --nproc_per_node $NPROC_PER_NODE \\
    --nnodes 1 \\
    --standalone \\
    src/train.py bash/yaml/train/PQ_sft.yaml
"""
DS_Z2 = json.dumps({"train_batch_size": "auto", "train_micro_batch_size_per_gpu": "auto",
                    "fp16": {"enabled": "auto"}, "bf16": {"enabled": "auto"},
                    "zero_optimization": {"stage": 2, "allgather_bucket_size": 5e8, "overlap_comm": False,
                                          "reduce_bucket_size": 5e8, "contiguous_gradients": True}}, indent=2)
# Qwen1.5-7B's published config.json (huggingface.co/Qwen/Qwen1.5-7B/blob/main/config.json), memory keys
QWEN15_7B = {"model_type": "qwen2", "hidden_size": 4096, "intermediate_size": 11008, "num_hidden_layers": 32,
             "num_attention_heads": 32, "num_key_value_heads": 32, "vocab_size": 151936,
             "tie_word_embeddings": False, "torch_dtype": "bfloat16", "max_position_embeddings": 32768}

# field report 001 (/work/shared/seeds/001_*.txt): Baichuan2 fine-tune.py through deepspeed on 16 GB DCUs
REPORT_001 = """hostfile=""
deepspeed --hostfile=$hostfile fine-tune.py  \\
    --report_to "none" \\
    --data_path $1 \\
    --model_name_or_path $2 \\
    --output_dir $3 \\
    --model_max_length 512 \\
    --num_train_epochs 4 \\
    --per_device_train_batch_size 16 \\
    --gradient_accumulation_steps 1 \\
    --gradient_checkpointing True \\
    --deepspeed ds_config.json \\
    --bf16 True \\
    --tf32 False \\
    --use_lora False
"""
REPORT_001_DS = '{"zero_optimization": {"stage": 3, "stage3_prefetch_bucket_size": "auto"}, "bf16": {"enabled": "auto"}}'

# field report 003 (/work/shared/seeds/003_*.txt): llamafactory-cli train command line, excerpt
REPORT_003 = """llamafactory-cli train \\
    --stage sft \\
    --model_name_or_path deepseek-ai/DeepSeek-R1-Distill-Qwen-32B \\
    --finetuning_type lora \\
    --flash_attn auto \\
    --cutoff_len 512 \\
    --per_device_train_batch_size 1 \\
    --gradient_accumulation_steps 32 \\
    --bf16 True \\
    --lora_rank 8 \\
    --lora_target all \\
    --deepspeed cache/ds_z3_offload_aggressive.json \\
    --gradient_checkpointing True
"""


def _run(args, capsys):
    rc = main(["check", *args])
    out = capsys.readouterr()
    return rc, out.out, out.err


def _write(tmp_path: Path, name: str, text: str) -> str:
    p = tmp_path / name
    p.write_text(text)
    return str(p)


def test_comment_inside_continuation_drops_flags(tmp_path, capsys):
    f = _write(tmp_path, "train.sh", SWIFT_5199)
    rc, out, err = _run([f, "--gpu", "l40s", "--model", "qwen2.5-7b", "--json"], capsys)
    assert rc == 1 and not err
    d = json.loads(out)
    cut = [x for x in d["findings"] if x["code"] == "shell-comment-cuts-command"]
    assert cut and cut[0]["line"] == 16 and cut[0]["severity"] == "error"
    assert "--deepspeed" in cut[0]["message"] and "--max_length" in cut[0]["message"]
    # what really runs: no DeepSpeed (the flag was dropped), 2 GPUs from CUDA_VISIBLE_DEVICES, no truncation
    assert d["understood"]["zero_stage"] == 0 and d["world_size"] == 2
    assert d["understood"]["cutoff_len"] > 20480
    assert d["verdict"] == "oom"
    # the fix restores what the author wrote (the comment line goes), then makes that fit
    diff = d["fix"]["diff"]
    assert "-    # --target_modules all-linear \\" in diff
    assert d["fix"]["as_intended"]["zero_stage"] == 3
    fixed = d["fix"]["files"]["train.sh"]
    assert "# --target_modules" not in fixed and "--deepspeed zero3" in fixed


def test_shell_reader_words_with_hash_are_not_comments():
    # ms-swift README (calibration sw-readme-qwen25-7b-lora-3090/train.sh): dataset#500 is a word
    s = shell.parse_script("swift sft \\\n  --dataset a/b#500 \\\n    c#500 \\\n  --max_length 2048 # note\n", "t.sh")
    flags = shell.flag_values(s.commands[0].tokens)
    assert flags["max_length"] == ("2048", 4) and flags["dataset"][0] == "a/b#500" and not s.findings


def test_whole_model_on_every_gpu_lf_5187(tmp_path, capsys):
    f = _write(tmp_path, "launch.sh", LF_5187)
    rc, out, _ = _run([f, "--gpu", "NVIDIA A100-SXM4-80GB", "--model", "qwen2.5-72b", "--json"], capsys)
    d = json.loads(out)
    assert rc == 1 and d["verdict"] == "oom" and d["world_size"] == 4
    assert d["runner"] == "llamafactory" and d["understood"]["lf_launch"] is False
    assert d["understood"]["precision"] == "fp16" and d["understood"]["method"] == "lora"
    assert any(x["code"] == "whole-model-fills-gpu" and x["severity"] == "error" for x in d["findings"])  # 144 GiB > 85 %
    assert d["memory"]["step"]["reserved_bytes"] > d["vram_bytes"] and d["margin_bytes"] < 0
    assert d["fix"] is not None and "zero" in json.dumps(d["fix"]["changes"])


def _lf_3708(tmp_path):
    m = tmp_path / "qwen15-7b"
    m.mkdir()
    (m / "config.json").write_text(json.dumps(QWEN15_7B))
    y = _write(tmp_path, "PQ_sft.yaml", LF_3708_YAML)
    s = _write(tmp_path, "launch.sh", LF_3708_LAUNCH)
    j = _write(tmp_path, "ds_z2_config.json", DS_Z2)
    return [y, s, j, "--gpu", "rtx3090", "--model", str(m)]


def test_lf_3708_oom_and_minimal_fix_written(tmp_path, capsys):
    args = _lf_3708(tmp_path)
    rc, out, _ = _run([*args, "--json"], capsys)
    d = json.loads(out)
    assert rc == 1 and d["verdict"] == "oom" and d["world_size"] == 4
    assert d["understood"]["cutoff_len"] == 8196 and d["understood"]["zero_stage"] == 2
    assert any(x["code"] == "warmup-steps-float" and x["line"] == 13 for x in d["findings"])
    assert any("reduce_bucket_size 500,000,000" in n for n in d["notes"])     # the JSON's buckets, as written
    fix = d["fix"]
    assert fix and fix["diff"].startswith("---")
    outdir = tmp_path / "fixed"
    rc, out, _ = _run([*args, "--fix", str(outdir)], capsys)
    assert rc == 1 and (outdir / next(iter(fix["files"]))).is_file()
    # the fixed files, checked again, fit
    fixed = {n: str(outdir / n) for n in fix["files"]}
    again = [fixed.get(os.path.basename(p), p) for p in args[:3]] + args[3:]
    _rc2, out2, _ = _run([*again, "--json"], capsys)
    assert json.loads(out2)["verdict"] == "fits"
    # never over the user's files without --force
    before = {n: (outdir / n).read_text() for n in fix["files"]}
    rc3, _o, err = _run([*args, "--fix", str(outdir)], capsys)
    assert rc3 == 2 and err.count("\n") == 1 and "--force" in err
    assert before == {n: (outdir / n).read_text() for n in fix["files"]}


def test_report_001_hf_flags_mapped(tmp_path, capsys):
    f = _write(tmp_path, "fine_tune_train.sh", REPORT_001)
    j = _write(tmp_path, "ds_config.json", REPORT_001_DS)
    rc, out, _ = _run([f, j, "--gpu", "z100", "--gpus", "2", "--model", "baichuan2-7b-chat", "--json"], capsys)
    d = json.loads(out)
    u = d["understood"]
    assert (u["cutoff_len"], u["micro_batch"], u["precision"], u["method"], u["zero_stage"]) == \
        (512, 16, "bf16", "full", 3)
    assert d["runner"] == "hf" and any("--model_max_length" in n for n in d["notes"])
    assert any(x["code"] == "bf16-emulated" for x in d["findings"])
    assert d["verdict"] == "oom" and rc == 1


def test_report_003_lf_command_line(tmp_path, capsys):
    f = _write(tmp_path, "train.sh", REPORT_003)
    _rc, out, _ = _run([f, "--gpu", "k100-ai", "--gpus", "8", "--json"], capsys)
    d = json.loads(out)
    u = d["understood"]
    assert d["runner"] == "llamafactory" and u["lora_rank"] == 8 and u["cutoff_len"] == 512
    assert d["world_size"] == 8 and u["precision"] == "bf16" and u["gradient_checkpointing"] is True
    # the JSON it names is not here: its ZeRO stage and offload are read from its name, and that is said
    miss = [x for x in d["findings"] if x["code"] == "reference-missing"]
    assert miss and miss[0]["line"] == 12 and "assumed from its name" in miss[0]["message"]
    assert (u["zero_stage"], u["offload"]) == (3, "all")
    # offload of a 32B model: the frozen bf16 weights live in pinned host RAM (~61 GiB per node, not per GPU)
    assert 55 * 2**30 < d["cpu_ram_bytes"] < 80 * 2**30
    # the real run OOMed at ~50 GB in use; the estimate is far below (a known ZeRO-3 gap, zero3-memory.md
    # section 4): the answer must not claim certainty it has not -- it names every ZeRO-3 term it counted
    assert any(n.startswith("ZeRO-3 terms counted") for n in d["notes"])


@pytest.mark.parametrize("content", ["", "hello world\n"])
def test_bad_input_one_line_exit_2(tmp_path, capsys, content):
    f = _write(tmp_path, "x.txt", content)
    rc, out, err = _run([f, "--gpu", "rtx3090"], capsys)
    assert rc == 2 and not out and err.count("\n") == 1 and "x.txt" in err
    rc, out, err = _run([str(tmp_path / "missing.yaml")], capsys)
    assert rc == 2 and err.count("\n") == 1 and "missing.yaml" in err


def test_json_contract(tmp_path, capsys):
    args = _lf_3708(tmp_path)
    _rc, out, _ = _run([*args, "--json"], capsys)
    d = json.loads(out)
    for k in ("runner", "world_size", "understood", "execution", "memory", "cpu_ram_bytes", "vram_bytes",
              "verdict", "oom_phase", "margin_bytes", "findings", "fix", "assumptions"):
        assert k in d
    for ph in ("load", "step", "save"):
        assert set(d["memory"][ph]) == {"peak_allocated_bytes", "reserved_bytes"}
    for f in d["findings"]:
        assert set(f) >= {"code", "severity", "file", "line", "message", "fix"}
    assert d["verdict"] in ("fits", "oom", "unknown") and d["oom_phase"] in ("load", "step", "eval", "save", None)


def test_check_starts_without_torch(tmp_path):
    f = _write(tmp_path, "launch.sh", LF_5187)
    code = ("import sys; from rocm_tune.cli import main; main(['check', sys.argv[1], '--gpu', 'a100-80gb', "
            "'--model', 'qwen2.5-72b', '--json']); assert 'torch' not in sys.modules")
    r = subprocess.run([sys.executable, "-c", code, f], capture_output=True, text=True, cwd=REPO, check=False,
                       env={**os.environ, "PYTHONPATH": str(REPO)})
    assert r.returncode == 0, r.stderr


def test_launchers_env_and_sbatch(tmp_path):
    """Reader details from the brief: torchrun --nproc_per_node, deepspeed --include / --num_gpus, exports of
    *_VISIBLE_DEVICES, #SBATCH --nodes, key=value overrides after the YAML, FORCE_TORCHRUN."""
    from rocm_tune.core.formats import read_texts

    y = "model_name_or_path: qwen2.5-7b\nstage: sft\nfinetuning_type: lora\ncutoff_len: 2048\n"
    j = read_texts({"a.yaml": y, "run.sh": "#!/bin/bash\n#SBATCH --nodes=2\n#SBATCH --gres=gpu:4\n"
                    "export HIP_VISIBLE_DEVICES=0,1,2,3\nFORCE_TORCHRUN=1 llamafactory-cli train a.yaml "
                    "cutoff_len=4096 per_device_train_batch_size=2\n"})
    assert (j.gpus.value, j.nodes.value) == (4, 2) and j.nodes.native == "#SBATCH --nodes"
    assert j.get("cutoff_len") == 4096 and j.get("per_device_train_batch_size") == 2 and j.runner == "llamafactory"
    j = read_texts({"run.sh": "deepspeed --include localhost:0,1,2 train.py --model_name_or_path x --bf16 True\n"})
    assert j.gpus.value == 3 and j.launcher == "deepspeed" and j.runner == "hf"
    j = read_texts({"run.sh": "deepspeed --num_gpus 2 train.py --model_name_or_path x\n"})
    assert j.gpus.value == 2
    j = read_texts({"run.sh": "export CUDA_VISIBLE_DEVICES=0,1\ntorchrun --nproc_per_node=8 --nnodes 2 "
                    "src/train.py a.yaml\n", "a.yaml": y})
    assert (j.gpus.value, j.nodes.value, j.get("cutoff_len")) == (8, 2, 2048)


def test_fix_never_over_a_dangling_symlink(tmp_path, capsys):
    args = _lf_3708(tmp_path)
    _rc, out, _ = _run([*args, "--json"], capsys)
    name = next(iter(json.loads(out)["fix"]["files"]))
    outdir = tmp_path / "out"
    outdir.mkdir()
    (outdir / name).symlink_to(tmp_path / "nowhere")
    rc, _o, err = _run([*args, "--fix", str(outdir)], capsys)
    assert rc == 2 and err.count("\n") == 1 and os.path.islink(outdir / name) and not (tmp_path / "nowhere").exists()
    rc, _o, _e = _run([*args, "--fix", str(outdir), "--force"], capsys)
    assert rc == 1 and (outdir / name).is_file() and not os.path.islink(outdir / name)


def test_accelerate_zero3_init_flag_fix(tmp_path, capsys):
    """hiyouga/LlamaFactory#3035 (calibration lf-3035-qwen15-14b-lora-z3-2x4090): accelerate DeepSpeed plugin with
    zero3_init_flag false on 2 x RTX 4090 -> every GPU loads the whole 14B model; the fix sets it true."""
    acc = _write(tmp_path, "duogou.yaml", "compute_environment: LOCAL_MACHINE\ndeepspeed_config:\n"
                 "  zero3_init_flag: false\n  zero_stage: 3\ndistributed_type: DEEPSPEED\nmixed_precision: bf16\n"
                 "num_machines: 1\nnum_processes: 2\n")
    sh = _write(tmp_path, "launch.sh", "accelerate launch \\\n    --config_file duogou.yaml --num_processes 2 \\\n"
                "    src/train_bash.py \\\n    --stage sft \\\n    --model_name_or_path Qwen/Qwen2.5-14B \\\n"
                "    --finetuning_type lora \\\n    --lora_target q_proj,v_proj \\\n    --cutoff_len 1024 \\\n"
                "    --per_device_train_batch_size 1\n")
    rc, out, _ = _run([acc, sh, "--gpu", "rtx4090", "--json"], capsys)
    d = json.loads(out)
    assert rc == 1 and d["verdict"] == "oom" and d["oom_phase"] == "load"
    assert d["understood"]["precision"] == "bf16" and d["understood"]["zero_stage"] == 3 and d["world_size"] == 2
    assert any(f["code"] == "zero3-init-flag-false" and f["line"] == 3 for f in d["findings"])
    assert "zero3_init_flag: true" in d["fix"]["files"]["duogou.yaml"]


def test_report_004_ddp_lora_reentrant(tmp_path, capsys):
    """Field report 004 (/work/shared/seeds/004_*.txt): Qwen3-4B LoRA on 4 x H100, DDP, batch 4 x 8 x 4 = 128,
    gradient checkpointing on -> 'Expected to mark a variable ready only once'. Their trainer's settings, written
    as the HF TrainingArguments flags of a custom script."""
    f = _write(tmp_path, "run.sh", "torchrun --nproc_per_node 4 train.py \\\n  --model_name_or_path Qwen/Qwen3-4B \\\n"
               "  --use_lora True \\\n  --per_device_train_batch_size 4 \\\n  --gradient_accumulation_steps 8 \\\n"
               "  --gradient_checkpointing True \\\n  --bf16 True \\\n  --model_max_length 1024\n")
    rc, out, _ = _run([f, "--gpu", "h100-sxm", "--json"], capsys)
    d = json.loads(out)
    assert d["world_size"] == 4 and d["understood"]["method"] == "lora" and d["runner"] == "hf"
    hit = [x for x in d["findings"] if x["code"] == "ddp-lora-gc-reentrant"]
    assert hit and "use_reentrant" in hit[0]["fix"]
    assert d["verdict"] == "fits" and rc == 0        # a warning, not an error: it fits
    # the same flags with use_lora False: full fine-tuning, no LoRA finding
    f2 = _write(tmp_path, "run2.sh", Path(f).read_text().replace("--use_lora True", "--use_lora False"))
    _rc, out2, _ = _run([f2, "--gpu", "h100-sxm", "--json"], capsys)
    d2 = json.loads(out2)
    assert d2["understood"]["method"] == "full" and not any(x["code"] == "ddp-lora-gc-reentrant" for x in d2["findings"])


def test_dataset_missing_from_dataset_info(tmp_path, capsys):
    y = _write(tmp_path, "sft.yaml", "model_name_or_path: qwen2.5-0.5b\nstage: sft\nfinetuning_type: lora\n"
               "dataset: alpaca_en_demo,my_data\ntemplate: qwen\ncutoff_len: 512\nper_device_train_batch_size: 1\n")
    info = _write(tmp_path, "dataset_info.json", json.dumps({"alpaca_en_demo": {"file_name": "a.json"}}))
    rc, out, _ = _run([y, info, "--gpu", "rtx3090", "--json"], capsys)
    d = json.loads(out)
    hit = [x for x in d["findings"] if x["code"] == "dataset-not-in-info"]
    assert rc == 1 and hit and "my_data" in hit[0]["message"] and "alpaca_en_demo" not in hit[0]["message"]
    assert hit[0]["line"] == 4 and d["verdict"] == "fits"
    assert not any(x["code"] == "format-unknown" for x in d["findings"])


def test_zero3_terms_llama3_8b():
    """The ZeRO-3 terms beyond the steady-state allocations (../shared/knowledge/zero3-memory.md section 4, case 1:
    Llama-3-8B full fine-tuning, ZeRO-3 + offload, 8 x RTX 3090 -- hiyouga/LlamaFactory#5977)."""
    from rocm_tune.core.memory.estimate import TrainConfig
    from rocm_tune.core.model.architecture import load_model
    from rocm_tune.core.runners import deepspeed as ds

    m = load_model("llama-3.1-8b")             # the Llama-3-8B shape: V 128256 x h 4096
    p_v = 128256 * 4096
    full = TrainConfig(method="full", precision="fp16", gpus=8, zero_stage=3, offload="all")
    t = ds.zero3_terms(m, full, prefetch_bucket=int(0.9 * 4096 * 4096))
    assert t.vocab_grad == 2 * p_v                               # 0.98 GiB, as the note's table
    # the partition back on the GPU, then the larger of the fp64 norm chunk and the fp32 copy (DeepSpeed 0.19.8)
    assert t.offload_grad_temps == p_v / 8 * 2 + max(8 * min(p_v / 8, 250_000_000), 4 * p_v / 8)
    assert t.coalesced_gather == 2 * int(0.9 * 4096 * 4096)
    lora = TrainConfig(method="lora", precision="bf16", gpus=8, zero_stage=3, offload="none")
    assert ds.zero3_terms(m, lora).vocab_grad == 0 and ds.zero3_terms(m, lora).offload_grad_temps == 0
    assert ds.zero3_terms(m, TrainConfig(zero_stage=2, gpus=2)) is None


def test_zero3_check_counts_and_names_its_terms(tmp_path, capsys):
    # hiyouga/LlamaFactory#5977 (calibration lf-5977-llama3-8b-full-z3offload-8x3090): memory-relevant keys
    y = _write(tmp_path, "llama3_full_sft_ds3_offload.yaml",
               "model_name_or_path: meta-llama/Llama-3.1-8B\nstage: sft\nfinetuning_type: full\n"
               "deepspeed: examples/deepspeed/ds_z3_offload_config.json\ntemplate: llama3\ncutoff_len: 1024\n"
               "per_device_train_batch_size: 1\ngradient_accumulation_steps: 2\nfp16: true\n")
    _rc, out, _ = _run([y, "--gpu", "rtx3090", "--gpus", "8", "--json"], capsys)
    d = json.loads(out)
    assert d["understood"]["zero_stage"] == 3 and d["understood"]["offload"] == "all" and d["verdict"] == "fits"
    note = [n for n in d["notes"] if n.startswith("ZeRO-3 terms counted")]
    assert note and "dense vocab gradient 0.98 GiB" in note[0]
    step = d["memory"]["step"]
    assert step["reserved_bytes"] > 1.15 * step["peak_allocated_bytes"]
    # LLaMA-Factory's own example JSON was not given: read as LLaMA-Factory's file of that name, and said
    assert any("LLaMA-Factory's own examples/deepspeed file" in n for n in d["notes"])


def test_bad_value_in_the_users_file_is_a_finding(tmp_path, capsys):
    y = _write(tmp_path, "a.yaml", "model_name_or_path: qwen2.5-7b\nfinetuning_type: lora\ncutoff_len: 1024\n"
               "per_device_train_batch_size: abc\n")
    rc, out, err = _run([y, "--gpu", "rtx3090", "--json"], capsys)
    d = json.loads(out)
    assert rc == 1 and not err and d["verdict"] == "unknown"
    assert [(f["code"], f["line"]) for f in d["findings"] if f["severity"] == "error"] == [("bad-value", 4)]


def test_zero3_init_residue():
    from rocm_tune.core.memory.estimate import TrainConfig
    from rocm_tune.core.model.architecture import load_model
    from rocm_tune.core.runners import deepspeed as ds

    m = load_model("qwen2.5-14b")
    assert ds.zero3_init_residue(m, TrainConfig(zero_stage=3, gpus=2, precision="bf16")) == 2 * m.params.total
    assert ds.zero3_init_residue(m, TrainConfig(zero_stage=2, gpus=2)) == 0


def test_exported_bundle_reads_back_as_its_plan(tmp_path, capsys):
    """Issue 19 item 5 in small: a bundle `rocm-tune export` writes, read back by `check`, gives the plan's own
    training config (LLaMA-Factory through the bundle's lf_launch.py) and the plan's own memory."""
    out_dir = tmp_path / "bundle"
    rc = main(["export", "--model", "qwen2.5-7b", "--method", "lora", "--gpu", "rtx3090", "--gpus", "4",
               "--zero", "2", "--cutoff-len", "1024", "--dataset-name", "alpaca_en_demo", "-o", str(out_dir)])
    capsys.readouterr()
    assert rc == 0
    plan = json.loads((out_dir / "plan.json").read_text())
    files = sorted(str(p) for p in out_dir.iterdir())
    rc, out, _ = _run([*files, "--gpu", "rtx3090", "--json"], capsys)
    d = json.loads(out)
    u, r = d["understood"], plan["recommended"]
    for k in ("method", "precision", "attn", "cutoff_len", "micro_batch", "zero_stage", "offload",
              "gradient_checkpointing", "optim", "lora_rank", "lora_alpha"):
        assert u[k] == r[k], k
    assert u["lora_targets"] == r["lora_targets"] and u["runner"] == "llamafactory" and u["lf_launch"] is True
    assert d["world_size"] == 4 and d["verdict"] == "fits"
    assert d["memory"]["step"]["peak_allocated_bytes"] == plan["memory"]["peak_allocated_bytes"]
    # one memory truth: the plan's reserved holds the two NCCL/RCCL communicators check counts too
    assert abs(d["memory"]["step"]["reserved_bytes"] - plan["memory"]["reserved_bytes"]) <= 512
    assert plan["memory"]["communicator_bytes"] == 2 * 2**29
    assert not [f for f in d["findings"] if f["severity"] in ("error", "warning")]


def test_space_after_backslash_ends_the_command(tmp_path, capsys):
    # bash: "\\ " + newline is an escaped space, not a continuation -- the flags below never reach the program
    f = _write(tmp_path, "sp.sh", "llamafactory-cli train \\\n    --model_name_or_path qwen2.5-7b \\\n"
               "    --finetuning_type lora \\  \n    --cutoff_len 8192 \\\n    --per_device_train_batch_size 4 \\\n"
               "    --bf16 true\n")
    rc, out, _ = _run([f, "--gpu", "rtx3090", "--json"], capsys)
    d = json.loads(out)
    hit = [x for x in d["findings"] if x["code"] == "shell-space-after-backslash"]
    assert rc == 1 and hit and hit[0]["line"] == 3 and "--cutoff_len" in hit[0]["message"]
    assert d["understood"]["cutoff_len"] == 2048 and d["understood"]["micro_batch"] == 8   # LF's defaults run
    fixed = d["fix"]["files"]["sp.sh"]
    assert "--finetuning_type lora \\\n" in fixed and d["fix"]["as_intended"]["precision"] == "bf16"


def test_shell_variables_with_defaults_and_several_commands(tmp_path):
    from rocm_tune.core.formats import read_texts

    j = read_texts({"run.sh": "NPROC=${NPROC:-4}\ntorchrun --nproc_per_node ${NPROC} src/train.py a.yaml\n"
                    "torchrun --nproc_per_node ${GPUS:-2} src/train.py b.yaml\n",
                    "a.yaml": "model_name_or_path: qwen2.5-7b\nfinetuning_type: lora\ncutoff_len: 1024\n",
                    "b.yaml": "model_name_or_path: qwen2.5-7b\nfinetuning_type: full\ncutoff_len: 512\n"})
    assert j.gpus.value == 4 and j.get("cutoff_len") == 1024
    assert any(f.code == "several-trainings" and f.line == 3 for f in j.findings)


def test_gpu_without_profile(tmp_path, capsys):
    f = _write(tmp_path, "launch.sh", LF_5187)
    # the memory is in the name nvidia-smi prints; said in the answer
    # (A800 and RTX A6000 have profiles now: cards without one stand in for them)
    _rc, out, _ = _run([f, "--gpu", "Tesla V100-SXM3-32GB", "--model", "qwen2.5-72b", "--json"], capsys)
    d = json.loads(out)
    assert d["vram_bytes"] == 32 * 2**30 and any("read from the name" in n for n in d["notes"])
    # no size in the name and no --vram-gib: one line naming the card and the flag, exit 2
    rc, out, err = _run([f, "--gpu", "NVIDIA RTX 5000 Ada Generation"], capsys)
    assert rc == 2 and not out and err.count("\n") == 1 and "RTX 5000 Ada" in err and "--vram-gib" in err
    _rc, out, _ = _run([f, "--gpu", "NVIDIA RTX 5000 Ada Generation", "--vram-gib", "32", "--model", "qwen2.5-72b",
                        "--json"], capsys)
    assert json.loads(out)["vram_bytes"] == 32 * 2**30


AXOLOTL_QLORA_70B = """base_model: meta-llama/Llama-2-70b-hf
load_in_4bit: true
adapter: qlora
lora_r: 32
lora_alpha: 16
lora_target_linear: true
sequence_len: 4096
micro_batch_size: 8
gradient_accumulation_steps: 1
bf16: true
gradient_checkpointing: true
"""


def test_fix_of_an_axolotl_yaml_writes_yaml_keys_not_shell_flags(tmp_path):
    """A setting the fix adds to an Axolotl config is its own YAML key (issue 25 item 19's class: no shell line
    in a file that is not a shell script); the fixed file still parses as YAML and reads back as the fix."""
    import yaml

    cfg = tmp_path / "qlora.yml"
    cfg.write_text(AXOLOTL_QLORA_70B)
    out = tmp_path / "fixed"
    r = subprocess.run([sys.executable, "-m", "rocm_tune", "check", str(cfg), "--gpu", "rtx4090", "--no-app",
                        "--json", "--fix", str(out)], capture_output=True, text=True, timeout=300)
    d = json.loads(r.stdout)
    assert d["verdict"] == "oom" and d["fix"] is not None, r.stderr[-500:]
    fixed = (out / "qlora.yml").read_text()
    assert "\n--" not in fixed and "\\\n" not in fixed           # no shell flag or continuation
    data = yaml.safe_load(fixed)
    for k, v in d["fix"]["changes"].items():
        native = {"cutoff_len": "sequence_len", "per_device_train_batch_size": "micro_batch_size"}.get(k, k)
        if k == "__zero__":
            assert str(data["deepspeed"]).endswith(".json") and os.path.isfile(data["deepspeed"])
        elif k == "disable_gradient_checkpointing":
            assert data["gradient_checkpointing"] is (not v)
        else:
            assert data[native] == v, (k, native, data.get(native))
    assert cfg.read_text() == AXOLOTL_QLORA_70B                 # the user's file is untouched
