"""Hostile inputs found by h-hostile's attack on every command (issue 26), through the real CLI.

A number that JSON/YAML read as Infinity or NaN (json.loads takes `Infinity`/`NaN`, YAML `.inf`/`.nan`, a shell
flag `inf`) in a DeepSpeed JSON, a launch script, an OLMo/axolotl/GRPO config or a model's vision_config; a log
saved as UTF-16 (PowerShell's `>`); numbers in Unicode digits. Each: no traceback, exit 0/1 for a config that still
reads, else exit 2 with ONE line naming the value. The commands run in this process (`cli.main`): an exception
escaping it is the traceback a user would see.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from rocm_tune import cli


def run(argv: list[str], capsys) -> tuple[int, str, str]:
    try:
        rc = cli.main(argv)
    except SystemExit as exc:
        rc = exc.code if isinstance(exc.code, int) else 0
    out, err = capsys.readouterr()
    return int(rc or 0), out, err


def refused(argv: list[str], capsys, *must: str) -> str:
    rc, _, err = run(argv, capsys)
    lines = err.strip().splitlines()
    assert rc == 2 and len(lines) == 1, (rc, err)
    assert lines[0].startswith("rocm-tune") and "error" in lines[0], lines[0]
    for m in must:
        assert m in lines[0], (m, lines[0])
    return lines[0]


LF_YAML = ("model_name_or_path: Qwen/Qwen2.5-7B-Instruct\nstage: sft\nfinetuning_type: lora\ncutoff_len: 1024\n"
           "per_device_train_batch_size: 2\ngradient_accumulation_steps: 8\nbf16: true\ndo_train: true\n"
           "dataset: alpaca_en_demo\ntemplate: qwen\noutput_dir: out\n")


# ------------------------------------------------------------------- numbers json/yaml read as inf/nan


@pytest.mark.parametrize("value", ["Infinity", "-Infinity", "NaN", "1e308"])
def test_deepspeed_json_stage_and_buckets_of_infinity_read(tmp_path, capsys, value):
    """DeepSpeed reads its JSON with json.load (Infinity, NaN accepted): zero_optimization.stage and the bucket
    sizes (deepspeed/runtime/zero/config.py) of such a value are not a stage or a size, never a traceback."""
    ds = tmp_path / "ds.json"
    ds.write_text('{"train_micro_batch_size_per_gpu": %s, "gradient_accumulation_steps": 1, "bf16": {"enabled": true}, '
                  '"zero_optimization": {"stage": %s, "reduce_bucket_size": %s, "allgather_bucket_size": %s, '
                  '"overlap_comm": true}}' % (value, value, value, value))
    cfg = tmp_path / "train.yaml"
    cfg.write_text(LF_YAML + f"deepspeed: {ds}\n")
    rc, out, err = run(["check", "--no-app", "--gpu", "mi300x", "--gpus", "2", str(cfg), str(ds)], capsys)
    assert rc in (0, 1), err
    assert "Traceback" not in err and out


def test_deepspeed_bucket_of_1e308_elements_is_kept_within_float_range(tmp_path, capsys):
    ds = tmp_path / "ds.json"
    ds.write_text(json.dumps({"train_micro_batch_size_per_gpu": 1, "bf16": {"enabled": True},
                              "zero_optimization": {"stage": 2, "reduce_bucket_size": 1e308}}))
    cfg = tmp_path / "train.yaml"
    cfg.write_text(LF_YAML + f"deepspeed: {ds}\n")
    rc, out, err = run(["check", "--no-app", "--json", "--gpu", "mi300x", "--gpus", "2", str(cfg), str(ds)], capsys)
    assert rc in (0, 1), err
    assert json.loads(out)["verdict"] == "oom"          # 2^53 elements of bucket: nothing fits, said, not raised


@pytest.mark.parametrize("script", [
    # DeepSpeed-Chat (applications/DeepSpeed-Chat/training/step1_supervised_finetuning/main.py): --lora_dim N
    "deepspeed main.py --model_name_or_path facebook/opt-1.3b --lora_dim inf --per_device_train_batch_size 4\n",
    # ChatGLM-style ptuning/main.py: --max_source_length + --max_target_length is the sequence
    "python main.py --do_train --model_name_or_path qwen2.5-7b --max_source_length inf --max_target_length 512 "
    "--per_device_train_batch_size 4\n",
    "python main.py --do_train --model_name_or_path qwen2.5-7b --max_source_length 1e400 --max_target_length nan "
    "--per_device_train_batch_size 4\n",
])
def test_launch_flags_of_inf_are_not_a_traceback(tmp_path, capsys, script):
    sh = tmp_path / "train.sh"
    sh.write_text(script)
    rc, _, err = run(["check", "--no-app", "--gpu", "mi300x", str(sh)], capsys)
    assert rc in (0, 1, 2) and "Traceback" not in err, err


def test_grpo_lengths_of_inf_fall_back_to_trls_defaults(tmp_path, capsys):
    """TRL's GRPOConfig max_prompt_length / max_completion_length given as inf / 1e400 in a launch script."""
    sh = tmp_path / "run_grpo.sh"
    sh.write_text("torchrun --nproc_per_node 8 src/open_r1/grpo.py --model_name_or_path Qwen/Qwen2.5-VL-3B-Instruct "
                  "--num_generations 8 --max_prompt_length inf --max_completion_length 1e400 --beta nan "
                  "--per_device_train_batch_size 1 --bf16 true --gradient_checkpointing true\n")
    rc, out, err = run(["check", "--no-app", "--gpu", "mi300x", str(sh)], capsys)
    assert rc in (0, 1), err
    assert out


OLMO = ("model:\n  d_model: {d}\n  n_heads: 16\n  n_layers: 16\n  mlp_ratio: 8\n  max_sequence_length: 4096\n"
        "  vocab_size: 50280\n  embedding_size: 50304\n  weight_tying: false\n"
        "device_train_microbatch_size: 4\nglobal_train_batch_size: 512\nprecision: amp_bf16\n"
        "fsdp:\n  sharding_strategy: FULL_SHARD\n")


@pytest.mark.parametrize("d", [".inf", "-.inf", ".nan", "[1]", "x", "0", "-1", "2048.5"])
def test_olmo_model_size_not_a_whole_number_is_one_line(tmp_path, capsys, d):
    """allenai/OLMo olmo/config.py ModelConfig.d_model: int. The model cannot be built from anything else."""
    cfg = tmp_path / "olmo.yaml"
    cfg.write_text(OLMO.format(d=d))
    refused(["check", "--no-app", "--gpu", "mi300x", str(cfg)], capsys, "model.d_model")


def test_olmo_config_with_whole_sizes_still_reads(tmp_path, capsys):
    cfg = tmp_path / "olmo.yaml"
    cfg.write_text(OLMO.format(d=2048))
    rc, out, err = run(["check", "--no-app", "--json", "--gpu", "mi300x", str(cfg)], capsys)
    assert rc in (0, 1), err
    assert "OLMo" in out


@pytest.mark.parametrize("value", ["x", "[0.1]", ".nan", ".inf"])
def test_axolotl_val_set_size_that_is_not_a_number(tmp_path, capsys, value):
    """axolotl's val_set_size (src/axolotl/utils/schemas/config.py: float) given as text, a list, NaN."""
    cfg = tmp_path / "qlora.yml"
    cfg.write_text("base_model: Qwen/Qwen2.5-7B\nadapter: qlora\nload_in_4bit: true\nsequence_len: 2048\n"
                   "micro_batch_size: 2\ngradient_accumulation_steps: 4\nbf16: auto\ndatasets:\n"
                   "  - path: tatsu-lab/alpaca\n    type: alpaca\n"
                   f"val_set_size: {value}\nplugins:\n  - axolotl.integrations.liger.LigerPlugin\n")
    rc, _, err = run(["check", "--no-app", "--gpu", "mi300x", str(cfg)], capsys)
    assert rc in (0, 1, 2) and "Traceback" not in err, err


def test_llamafactory_warmup_steps_of_inf(tmp_path, capsys):
    cfg = tmp_path / "train.yaml"
    cfg.write_text(LF_YAML + "warmup_steps: .inf\n")
    rc, _, err = run(["check", "--no-app", "--gpu", "mi300x", str(cfg)], capsys)
    assert rc in (0, 1), err


# ------------------------------------------------------------------- a model's vision/audio tower


QWEN2_VL = {"architectures": ["Qwen2VLForConditionalGeneration"], "model_type": "qwen2_vl", "hidden_size": 1536,
            "intermediate_size": 8960, "num_attention_heads": 12, "num_hidden_layers": 28, "num_key_value_heads": 2,
            "vocab_size": 151936, "max_position_embeddings": 32768,
            "vision_config": {"depth": 32, "embed_dim": 1280, "hidden_size": 1536, "num_heads": 16, "mlp_ratio": 4,
                              "patch_size": 14, "spatial_merge_size": 2, "temporal_patch_size": 2}}


def _model(tmp_path: Path, text: str) -> Path:
    d = tmp_path / "m"
    d.mkdir()
    (d / "config.json").write_text(text)
    return d


@pytest.mark.parametrize("key,value", [("depth", "Infinity"), ("depth", "-1"), ("embed_dim", "NaN"),
                                       ("num_heads", '"16"'), ("patch_size", "0"), ("spatial_merge_size", "1e400"),
                                       ("depth", "18446744073709551616"), ("mlp_ratio", "NaN"),
                                       ("mlp_ratio", '"x"'), ("mlp_ratio", "Infinity")])
def test_vision_config_size_that_is_not_a_size_is_one_line(tmp_path, capsys, key, value):
    """transformers' Qwen2VLVisionConfig (depth, embed_dim, num_heads, patch_size ...: int; mlp_ratio: float)."""
    cfg = json.dumps(QWEN2_VL).replace(f'"{key}": {json.dumps(QWEN2_VL["vision_config"][key])}', f'"{key}": {value}')
    assert f'"{key}": {value}' in cfg
    d = _model(tmp_path, cfg)
    for cmd in (["models", "--show", str(d)], ["estimate", "--model", str(d)]):
        line = refused(cmd, capsys, key, "config.json")
        assert "inf" in line.lower() or "nan" in line.lower() or value.strip('"') in line


def test_vision_config_of_whole_sizes_still_counts_the_tower(tmp_path, capsys):
    d = _model(tmp_path, json.dumps(QWEN2_VL))
    rc, out, err = run(["models", "--show", str(d), "--json"], capsys)
    assert rc == 0, err
    assert "vision tower (32 ViT blocks" in out


def test_audio_config_of_infinity_is_one_line(tmp_path, capsys):
    """Qwen2-Audio's audio_config (a Whisper encoder: max_source_positions int)."""
    cfg = {"architectures": ["Qwen2AudioForConditionalGeneration"], "model_type": "qwen2_audio",
           "text_config": {"model_type": "qwen2", "hidden_size": 4096, "intermediate_size": 11008,
                           "num_attention_heads": 32, "num_hidden_layers": 32, "num_key_value_heads": 32,
                           "vocab_size": 156032},
           "audio_config": {"model_type": "qwen2_audio_encoder", "d_model": 1280, "encoder_layers": 32,
                            "encoder_attention_heads": 20, "encoder_ffn_dim": 5120, "num_mel_bins": 128,
                            "max_source_positions": 1500}}
    d = _model(tmp_path, json.dumps(cfg).replace('"max_source_positions": 1500', '"max_source_positions": Infinity'))
    rc, _, err = run(["models", "--show", str(d)], capsys)
    assert rc == 2 and len(err.strip().splitlines()) == 1, err
    assert "max_source_positions" in err


def test_whisper_config_transformers_refuses_falls_back_not_a_traceback(tmp_path, capsys):
    """huggingface_hub's strict dataclass validation (transformers' WhisperConfig) raises its own error type for a
    float where an int belongs: the exact counter falls back and says why; the command ends in one line."""
    cfg = {"architectures": ["WhisperForConditionalGeneration"], "model_type": "whisper", "d_model": 1280,
           "encoder_layers": 32, "decoder_layers": 32, "encoder_attention_heads": 20, "vocab_size": 51866,
           "num_mel_bins": 128}
    d = _model(tmp_path, json.dumps(cfg)[:-1] + ', "max_source_positions": Infinity}')
    rc, _, err = run(["models", "--show", str(d)], capsys)
    assert rc in (0, 2) and len(err.strip().splitlines()) <= 1, err


# ------------------------------------------------------------------- a log saved as UTF-16


OOM_LOG = ("Loading model\r\n{'loss': 1.2, 'epoch': 0.1}\r\nTraceback (most recent call last):\r\n"
           '  File "train.py", line 3, in <module>\r\n'
           "torch.OutOfMemoryError: HIP out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of "
           "31.98 GiB of which 0 bytes is free.\r\n")


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-16-be"])
def test_explain_reads_a_utf16_log_with_its_byte_order_mark(tmp_path, capsys, encoding):
    """Windows PowerShell 5's `python train.py > log.txt` and Out-File write UTF-16 LE with a BOM: explain reads
    the text (the OOM rule fires on its line), not NUL-separated bytes matched only by resemblance."""
    bom = {"utf-16": b"", "utf-16-le": b"\xff\xfe", "utf-16-be": b"\xfe\xff"}[encoding]
    log = tmp_path / "train.log"
    log.write_bytes(bom + OOM_LOG.encode(encoding))
    rc, out, err = run(["explain", "--json", "--no-stacks", str(log)], capsys)
    assert rc == 1, err
    got = json.loads(out)
    assert got["root"]["code"] == "oom", got["root"]
    assert "resemblance" not in json.dumps(got["root"]), got["root"]


def test_explain_odd_bytes_after_a_utf16_mark_are_not_a_traceback(tmp_path, capsys):
    log = tmp_path / "train.log"
    log.write_bytes(b"\xff\xfe" + OOM_LOG.encode("utf-16-le") + b"\x00")
    rc, _, err = run(["explain", "--no-stacks", str(log)], capsys)
    assert rc in (0, 1), err


def test_a_utf8_log_is_read_unchanged(tmp_path, capsys):
    from rocm_tune.core.runs.diagnose.diagnose import utf16_as_utf8

    text = OOM_LOG.encode("utf-8") + b"\xff\xfe in the middle stays"
    assert utf16_as_utf8(text) == text
    assert utf16_as_utf8(b"\xff\xfe" + "ü".encode("utf-16-le")) == "ü".encode("utf-8")


# ------------------------------------------------------------------- numeric options: ASCII digits only


@pytest.mark.parametrize("argv,flag,value", [
    (["plan", "--gpus", "١٢"], "--gpus", "١٢"),
    (["plan", "--gpus", "1_0"], "--gpus", "1_0"),
    (["plan", "--vram-gib", "１６"], "--vram-gib", "１６"),
    (["plan", "--hours", "1_0"], "--hours", "1_0"),
    (["plan", "--method", "qlora", "--quant-bits", "٤"], "--quant-bits", "٤"),
    (["estimate", "--cutoff-len", "²"], "--cutoff-len", "²"),
    (["dataset", "x.json", "--bins", "١٢"], "--bins", "١٢"),
    (["runs", "--limit", "٣"], "--limit", "٣"),
    (["explain", "--stall-s", "٣٠", "x.log"], "--stall-s", "٣٠"),
])
def test_numbers_in_other_digits_are_refused_naming_the_flag(capsys, argv, flag, value):
    """int()/float() read '١٢' (Arabic-Indic), '１６' (full-width) and '1_0' as numbers; a flag takes ASCII digits."""
    argv = [argv[0], "--model", "qwen2.5-0.5b", *(["--gpu", "mi50-32gb"] if argv[0] == "plan" else []), *argv[1:]] \
        if argv[0] in ("plan", "estimate") else argv
    refused(argv, capsys, flag, repr(value))


@pytest.mark.parametrize("value", [" 2 ", "+2", "2"])
def test_ascii_integers_with_a_sign_or_spaces_still_read(capsys, value):
    rc, out, err = run(["plan", "--model", "qwen2.5-0.5b", "--gpu", "mi50-32gb", "--gpus", value, "--json"], capsys)
    assert rc == 0, err
    assert json.loads(out)["hardware"]["gpus"] == 2


@pytest.mark.parametrize("value", ["1e1", "16.5", ".5e2", "24"])
def test_ascii_floats_in_every_python_spelling_still_read(capsys, value):
    rc, _, err = run(["plan", "--model", "qwen2.5-0.5b", "--gpu", "mi50-32gb", "--vram-gib", value], capsys)
    assert rc in (0, 1), err


# ------------------------------------------------------------------- what a refusal and a hint say


def _special(tmp_path: Path, kind: str) -> Path:
    p = tmp_path / f"cfg-{kind}.yaml"
    if kind == "fifo":
        os.mkfifo(p)
    elif kind == "dir":
        p.mkdir()
    elif kind == "dangling":
        p.symlink_to(tmp_path / "nowhere")
    elif kind == "loop":
        p.symlink_to(p)
    return p


@pytest.mark.parametrize("kind,must", [("fifo", "is a FIFO"), ("dir", "is a directory"), ("dangling", "does not exist"),
                                       ("loop", "symbolic links")])
def test_explain_config_that_is_not_a_file_says_what_it_is(tmp_path, capsys, kind, must):
    """`explain --config` of a FIFO or a directory said 'no such file'; it says what the path is (never opened
    blocking: a FIFO without a writer would hang)."""
    log = tmp_path / "train.log"
    log.write_text(OOM_LOG)
    cfg = _special(tmp_path, kind)
    refused(["explain", "--no-stacks", str(log), "--config", str(cfg)], capsys, "--config", str(cfg), must)
    assert os.path.lexists(cfg) and not (tmp_path / "nowhere").exists()


def test_export_to_a_dir_with_a_leading_dash_prints_commands_that_run(tmp_path, capsys, monkeypatch):
    """`bash -bundle/run.sh` reads -bundle as bash's own option: the printed commands say ./-bundle."""
    monkeypatch.chdir(tmp_path)
    data = tmp_path / "data.json"
    data.write_text('[{"instruction": "hi", "input": "", "output": "yo"}]')
    rc, out, err = run(["export", "--model", "qwen2.5-0.5b", "--gpu", "mi50-32gb", "--dataset", str(data),
                        "--out=-bundle"], capsys)
    assert rc == 0, err
    assert "start: bash ./-bundle/run.sh" in out and "submit: sbatch ./-bundle/slurm.sbatch" in out
    assert (tmp_path / "-bundle" / "run.sh").is_file()
