"""`check` reads ms-swift command lines of every vintage (issue 26 item 2): weight quantisation other than bnb
(--quant_method hqq/quanto/eetq), ms-swift 2.x spellings (--model_type alone, --model_id_or_path, --sft_type), and
a named short dataset bounding the sequence when --max_length is not given.

The scripts are ms-swift's own examples (examples/train/qlora/hqq.sh, examples/train/tuners/dora/train.sh at
modelscope/ms-swift@3602360a), whose header comments state the measured memory: 10GB and 17.2GiB."""

from __future__ import annotations

import contextlib
import io
import json

from rocm_tune.cli import main

SWIFT = """CUDA_VISIBLE_DEVICES=0 \\
swift sft \\
    --model Qwen/Qwen2.5-7B-Instruct \\
    --tuner_type lora \\
    --torch_dtype bfloat16 {extra}\\
    --dataset 'AI-ModelScope/alpaca-gpt4-data-zh#500' \\
    --per_device_train_batch_size 1 \\
    --lora_rank 8 \\
    --max_length 2048 \\
    --output_dir output
"""


def _check(tmp_path, text: str, *args: str) -> dict:
    p = tmp_path / "train.sh"
    p.write_text(text)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        rc = main(["check", str(p), *args, "--json"])
    assert rc in (0, 1), out.getvalue()
    return json.loads(out.getvalue())


def test_hqq_4bit_weights_are_counted_quantised(tmp_path):
    plain = _check(tmp_path, SWIFT.format(extra=""), "--vram-gib", "16")
    hqq = _check(tmp_path, SWIFT.format(extra="--quant_method hqq --quant_bits 4 "), "--vram-gib", "16")
    assert plain["verdict"] == "oom"            # 15 GiB of bf16 weights + the step do not fit 16 GiB
    assert hqq["verdict"] == "fits"             # the example states 10GB for the 4-bit HQQ run
    # --quant_bits with no --quant_method quantises nothing (QuantizeArguments returns no config)
    nomethod = _check(tmp_path, SWIFT.format(extra="--quant_bits 4 "), "--vram-gib", "16")
    assert nomethod["verdict"] == "oom"


def test_swift2_spellings_name_the_model(tmp_path):
    for flags, size in (("--model_type qwen2_5-7b-instruct --sft_type lora", "7b"),
                        ("--model_type qwen2_5-7b-instruct --model_id_or_path /data/Qwen2___5-72B-Instruct "
                         "--sft_type lora", "72b")):
        d = _check(tmp_path, f"swift sft {flags} --max_length 1024\n", "--vram-gib", "80")
        assert d["verdict"] != "unknown", d.get("reason")
        assert size in json.dumps(d).lower()


def test_short_named_dataset_bounds_the_sequence(tmp_path):
    text = SWIFT.replace("    --max_length 2048 \\\n", "").replace("AI-ModelScope/alpaca-gpt4-data-zh#500",
                                                                   "swift/self-cognition#1000")
    assert "max_length" not in text
    bounded = _check(tmp_path, text.format(extra=""), "--vram-gib", "24")
    assert bounded["verdict"] == "fits"         # the dora/lora examples on self-cognition measure ~17 GiB
    # any dataset not known to be short: the model's context stays the worst case
    open_ended = _check(tmp_path, text.replace("swift/self-cognition#1000", "my/own-data").format(extra=""),
                        "--vram-gib", "24")
    assert open_ended["verdict"] == "oom"


def test_swift_without_nproc_is_one_process_and_its_zero3_verdict_stands(tmp_path):
    """ms-swift without NPROC_PER_NODE runs one process (swift/cli/main.py starts torchrun only when NPROC_PER_NODE or
    NNODES is set): a full fine-tune under ZeRO-3 that does not fit one card is an OOM there, not a question about
    a GPU count."""
    full = ("swift pt --model Qwen/Qwen2.5-7B --train_type full --torch_dtype bfloat16 --dataset 'd#100' "
            "--per_device_train_batch_size 1 --max_length 2048 --deepspeed zero3\n")
    rep = _check(tmp_path, full, "--gpu", "rtx4090")
    assert rep["verdict"] == "oom" and rep["world_size"] == 1
    assert any("swift without NPROC_PER_NODE starts one process" in a for a in rep["assumptions"])


def test_swift_deepspeed_over_a_device_map_is_said_to_stop_at_start(tmp_path):
    """More visible GPUs than NPROC_PER_NODE make every ms-swift process spread its model (device_map); with
    --deepspeed, swift's _init_deepspeed raises "DeepSpeed is not compatible with `device_map`": an error finding at
    the line, the fix being one process per visible GPU. With NPROC_PER_NODE = the visible count, no such finding."""
    cmd = ("{env}swift sft --model Qwen/Qwen2.5-7B-Instruct --train_type lora --dataset 'd#100' "
           "--per_device_train_batch_size 1 --max_length 2048 --deepspeed zero2\n")
    rep = _check(tmp_path, cmd.format(env="CUDA_VISIBLE_DEVICES=0,1,2,3 NPROC_PER_NODE=2 "), "--gpu", "a100-80gb")
    hit = [f for f in rep["findings"] if f["code"] == "swift-deepspeed-device-map"]
    assert len(hit) == 1 and hit[0]["severity"] == "error" and "2 of the visible GPUs" in hit[0]["message"]
    ok = _check(tmp_path, cmd.format(env="CUDA_VISIBLE_DEVICES=0,1,2,3 NPROC_PER_NODE=4 "), "--gpu", "a100-80gb")
    assert ok["world_size"] == 4 and not [f for f in ok["findings"] if f["code"] == "swift-deepspeed-device-map"]


def test_gpus_given_to_swift_are_the_gpus_it_sees_not_its_process_count(tmp_path):
    """For ms-swift, --gpus N states the GPUs on the box; the processes are NPROC_PER_NODE's (one without it), and
    each spreads its model over the GPUs left to it (device_map, swift/llm/model/register.py)."""
    cmd = ("{env}swift sft --model Qwen/Qwen2.5-7B-Instruct --train_type lora --dataset 'd#100' "
           "--per_device_train_batch_size 1 --max_length 2048\n")
    one = _check(tmp_path, cmd.format(env=""), "--gpu", "a100-80gb", "--gpus", "4")
    assert one["world_size"] == 1 and one["execution"]["sharding"] == "device_map over 4 GPUs per process"
    assert any("swift without NPROC_PER_NODE starts one process" in a for a in one["assumptions"])
    two = _check(tmp_path, cmd.format(env="CUDA_VISIBLE_DEVICES=0,1,2,3 NPROC_PER_NODE=2 "), "--gpu", "a100-80gb",
                 "--gpus", "4")
    assert two["world_size"] == 2 and two["execution"]["sharding"] == "device_map over 2 GPUs per process"
    ddp = _check(tmp_path, cmd.format(env="NPROC_PER_NODE=4 "), "--gpu", "a100-80gb", "--gpus", "4")
    assert ddp["world_size"] == 4 and not ddp["execution"].get("sharding")
    # the same model's step per GPU: a quarter of the layers on each of 4 GPUs holds less than all of them on one
    assert one["memory"]["step"]["peak_allocated_bytes"] < ddp["memory"]["step"]["peak_allocated_bytes"]
