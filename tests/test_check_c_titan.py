"""`check` on torchtitan trainings (issue 26, helper c-titan): torchtitan's job TOML read under the command that runs
it (`train.py` / `-m torchtitan.train --job.config_file X.toml`, `./run_train.sh` with CONFIG_FILE / NGPU) and its
`--section.key` overrides, under every release's spelling of the keys (pytorch/torchtitan config_manager.py /
config/job_config.py). The TOMLs are torchtitan's own train_configs (shortened), not corpus cases."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from rocm_tune.cli import main
from rocm_tune.core import formats
from rocm_tune.core.runners import megatron, torchtitan
from rocm_tune.profiles import torchtitan_configs as T
from rocm_tune.profiles.model_presets import PRESET_DIR, build_index

# pytorch/torchtitan v0.2.2 torchtitan/models/llama3/train_configs/llama3_70b.toml
LLAMA3_70B = """[job]
dump_folder = "./outputs"
description = "Llama 3 70B training"
[model]
name = "llama3"
flavor = "70B"
hf_assets_path = "./assets/hf/Llama-3.1-70B"
[optimizer]
name = "AdamW"
lr = 1.5e-4
eps = 1e-8
[training]
local_batch_size = 8
seq_len = 8192
max_norm = 1.0  # grad norm clipping
steps = 1000
dataset = "c4"
[parallelism]
data_parallel_replicate_degree = 1
data_parallel_shard_degree = -1
tensor_parallel_degree = 8  # 8-way TP
pipeline_parallel_degree = 1
context_parallel_degree = 1
[activation_checkpoint]
mode = "full"
[compile]
enable=false
components = ["model", "loss"]
"""

# pytorch/torchtitan 1923ce4db (2024-09) train_configs/llama3_8b.toml: batch_size, data_parallel_degree and the
# degrees under [training], pipeline parallel under [experimental]
LLAMA3_8B_2024 = """[model]
name = "llama3"
flavor = "8B"
norm_type = "rmsnorm"  # layernorm / np_layernorm / rmsnorm / fused_rmsnorm
tokenizer_path = "./torchtitan/datasets/tokenizer/original/tokenizer.model"
[optimizer]
name = "AdamW"
lr = 3e-4
[training]
batch_size = 1
seq_len = 8192
warmup_steps = 200  # lr scheduler warm up
max_norm = 1.0  # grad norm clipping
steps = 1000
data_parallel_degree = -1
tensor_parallel_degree = 1
compile = false
dataset = "c4"
[experimental]
pipeline_parallel_degree = 1
[activation_checkpoint]
mode = 'selective'  # ['none', 'selective', 'full']
selective_ac_option = 'op'  # 'int' = ac every positive int layer or 'op', ac based on ops policy
[float8]
enable_float8_linear = false
"""

# pytorch/torchtitan v0.2.2 torchtitan/models/deepseek_v3/train_configs/deepseek_v3_16b.toml
DSV3_16B = """[model]
name = "deepseek_v3"
flavor = "16B"
hf_assets_path = "./assets/hf/deepseek-moe-16b-base"
[optimizer]
name = "AdamW"
lr = 2.2e-4
[training]
local_batch_size = 4
seq_len = 4096
dataset = "c4"
[parallelism]
data_parallel_replicate_degree = 1
data_parallel_shard_degree = -1
tensor_parallel_degree = 1
pipeline_parallel_degree = 1
expert_parallel_degree = 8
expert_tensor_parallel_degree = 1
[activation_checkpoint]
mode = "selective"  # ["none", "selective", "full"]
selective_ac_option = 'op'
[compile]
enable=true
components = ["loss"] # ["model", "loss"]
"""

# pytorch/torchtitan v0.2.2 torchtitan/models/qwen3/train_configs/qwen3_32b.toml
QWEN3_32B = """[model]
name = "qwen3"
flavor = "32B"
hf_assets_path = "./assets/hf/Qwen3-32B"
[training]
local_batch_size = 2
seq_len = 4096
[parallelism]
data_parallel_replicate_degree = 1
data_parallel_shard_degree = -1
tensor_parallel_degree = 1
context_parallel_degree = 1
[activation_checkpoint]
mode = "full"  # ["none", "selective", "full"]
selective_ac_option = "op"
"""


def _write(tmp_path: Path, name: str, text: str) -> str:
    p = tmp_path / name
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text)
    return str(p)


def _job(files: list[str]) -> formats.Job:
    return formats.read_texts({p: Path(p).read_text() for p in files})


def _check(files: list[str], capsys, *more: str) -> tuple[int, dict]:
    rc = main(["check", *files, *more, "--json"])
    out = capsys.readouterr().out
    return rc, (json.loads(out) if out.strip() else {})


def _v(job: formats.Job, key: str):
    s = job.settings.get(key)
    return None if s is None else s.value


def test_run_train_sh_reads_config_file_ngpu_and_its_overrides(tmp_path, capsys):
    files = [_write(tmp_path, "launch.sh", "CONFIG_FILE=./torchtitan/models/llama3/train_configs/llama3_70b.toml "
                                           "NGPU=8 ./run_train.sh --training.local_batch_size 2\n"),
             _write(tmp_path, "llama3_70b.toml", LLAMA3_70B)]
    job = _job(files)
    assert (job.runner, job.entry) == ("megatron", "torchtitan (run_train.sh)")
    assert job.gpus is not None and job.gpus.value == 8 and job.gpus.native == "NGPU"
    assert str(_v(job, "per_device_train_batch_size")) == "2"          # the command's override, not the TOML's 8
    mb = job.settings["per_device_train_batch_size"]
    assert mb.file == files[0] and mb.native == "training.local_batch_size"
    assert str(_v(job, "cutoff_len")) == "8192"
    assert _v(job, "model_name_or_path") == "llama-3.1-70b"
    assert (_v(job, "__tp__"), _v(job, "__sp__"), _v(job, "__fsdp__")) == (8, True, 3)
    assert _v(job, "disable_gradient_checkpointing") is False          # mode "full"
    # 70.6B params x (fp32 weight + fp32 gradient + 2 fp32 moments) / 8 GPUs ~ 131 GiB before activations
    rc, out = _check(files, capsys, "--gpu", "mi300x")
    assert out["verdict"] == "fits" and out["world_size"] == 8
    step = out["memory"]["step"]["peak_allocated_bytes"] / 2**30
    assert 130 < step < 190
    rc, out = _check(files, capsys, "--gpu", "h100")
    assert out["verdict"] == "oom"


def test_run_train_sh_unset_reads_torchtitans_defaults(tmp_path):
    files = [_write(tmp_path, "go.sh", "./run_train.sh\n"), _write(tmp_path, "llama3_70b.toml", LLAMA3_70B)]
    job = _job(files)
    # run_train.sh: NGPU=${NGPU:-"8"}; the TOML given is read though CONFIG_FILE names the debug model's
    assert job.gpus is not None and job.gpus.value == 8
    assert str(_v(job, "per_device_train_batch_size")) == "8"
    assert any("debug_model.toml: not given; the TOML given" in n for n in job.notes)
    assert _v(job, "model_name_or_path") == "llama-3.1-70b"
    job = _job([files[0]])   # alone: torchtitan's own debug_model.toml, the llama3 "debugmodel" flavor
    assert _v(job, "model_name_or_path") == T.FLAVOR_SHAPES[("llama3", "debugmodel")]


def test_2024_spellings_under_torchrun_train_py_with_overrides(tmp_path):
    files = [_write(tmp_path, "train.sh", "torchrun --nproc_per_node 8 train.py --job.config_file "
                                          "./train_configs/llama3_8b.toml --training.batch_size 4 "
                                          "--experimental.pipeline_parallel_degree=2\n"),
             _write(tmp_path, "train_configs/llama3_8b.toml", LLAMA3_8B_2024)]
    job = _job(files)
    assert (job.runner, job.entry) == ("megatron", "torchtitan (train.py)")
    assert str(_v(job, "per_device_train_batch_size")) == "4"
    assert job.settings["per_device_train_batch_size"].native == "training.batch_size"
    assert _v(job, "__pp__") == 2 and _v(job, "__tp__") is None
    assert _v(job, "__fsdp__") == 3                  # data_parallel_degree -1 (FSDP over the ranks left)
    assert _v(job, "model_name_or_path") == "llama-3.1-8b"
    assert "compiled_loss" not in job.settings       # [training] compile = false
    assert not any("float8" in n for n in job.notes)  # enable_float8_linear = false


def test_module_entry_bool_flags_and_selective_every_nth_layer(tmp_path):
    files = [_write(tmp_path, "run.sh", "torchrun --nproc_per_node=4 -m torchtitan.train "
                                        "--job.config_file=qwen3_32b.toml --activation_checkpoint.mode selective "
                                        "--activation_checkpoint.selective_ac_option 2 --compile.enable\n"),
             _write(tmp_path, "qwen3_32b.toml", QWEN3_32B)]
    job = _job(files)
    assert job.gpus is not None and job.gpus.value == 4
    assert _v(job, "model_name_or_path") == "qwen3-32b"
    # _apply_layer_sac: every 2nd of the 64 blocks checkpointed -> Megatron's block recompute of 32 of 64
    assert _v(job, "__recompute_layers__") == 32
    assert _v(job, "compiled_loss") == "true"        # --compile.enable, components default ["model", "loss"]


def test_expert_parallel_and_the_16b_flavor(tmp_path, capsys):
    f = _write(tmp_path, "deepseek_v3_16b.toml", DSV3_16B)
    job = _job([f])
    assert _v(job, "model_name_or_path") == "deepseek-v2-lite"     # torchtitan's "16B": V2-Lite's shape
    assert _v(job, "__ep__") == 8 and _v(job, "compiled_loss") == "true"
    rc, out = _check([f], capsys, "--gpu", "mi300x", "--gpus", "8")
    assert out["verdict"] == "fits"


def test_hsdp_shards_over_the_shard_group_only(tmp_path, capsys):
    def step(replicate: int) -> float:
        text = LLAMA3_70B.replace("data_parallel_replicate_degree = 1", f"data_parallel_replicate_degree = "
                                                                        f"{replicate}")
        f = _write(tmp_path / f"r{replicate}", "llama3_70b.toml", text)
        rc, out = _check([f], capsys, "--gpu", "mi300x", "--gpus", "64")
        assert "HSDP" in out["execution"]["sharding"] or replicate == 1
        return out["memory"]["step"]["peak_allocated_bytes"]

    full, hsdp = step(1), step(8)
    # 64 GPUs / TP 8 = 8 data-parallel ranks; replicate 8 leaves shards of 1: the 70B's fp32 states / 8 (TP only)
    assert hsdp - full > 100 * 2**30
    assert megatron.Layout(tp=8, fsdp=3, replicate=8).shard_dp(8) == 1
    assert megatron.Layout(cp=2, fsdp=3, shard_cp=True).shard_dp(4) == 8


def test_flavors_match_their_presets_and_405b_is_given_by_shape(tmp_path, capsys):
    index = build_index()
    for (name, flavor), (preset, layers, dim) in T.FLAVORS.items():
        if not preset:
            continue
        data = yaml.safe_load((PRESET_DIR / index[preset]).read_text())
        cfg = data["config"].get("text_config", data["config"])
        assert (cfg["num_hidden_layers"], cfg["hidden_size"]) == (layers, dim), (name, flavor)
    shape = T.FLAVOR_SHAPES[("llama3", "405b")]
    assert torchtitan._model_ref({"name": "llama3", "flavor": "405B"}, None)[0] == shape
    f = _write(tmp_path, "llama3_405b.toml", LLAMA3_70B.replace('"70B"', '"405B"'))
    rc, out = _check([f], capsys, "--gpu", "mi300x", "--gpus", "512")
    assert out["model"]["source"] != "preset" and out["verdict"] in ("fits", "oom")


def test_bad_degree_is_a_one_line_error(tmp_path, capsys):
    files = [_write(tmp_path, "run.sh", "torchrun --nproc_per_node 8 train.py --job.config_file llama3_70b.toml "
                                        "--parallelism.tensor_parallel_degree eight\n"),
             _write(tmp_path, "llama3_70b.toml", LLAMA3_70B)]
    rc = main(["check", *files, "--gpu", "mi300x", "--json"])
    err = capsys.readouterr().err
    assert rc == 2
    assert "tensor_parallel_degree = 'eight': expected a whole number" in err and "Traceback" not in err


@pytest.mark.parametrize("words,expected", [
    (["--training.local_batch_size", "4"], [("training.local_batch_size", 4)]),
    (["--compile.no-enable"], [("compile.enable", False)]),
    (["--no-compile.enable", "--training.seq_len=4096"], [("compile.enable", False), ("training.seq_len", 4096)]),
])
def test_override_words(tmp_path, words, expected):
    f = _write(tmp_path, "r.sh", "torchrun train.py --job.config_file x.toml " + " ".join(words) + "\n")
    job = _job([f])
    got = [(k, v) for k, v, _l in job.script_flags["torchtitan"]["overrides"]]
    assert got == expected


def test_a_shipped_config_named_but_not_given_is_torchtitans_own(tmp_path):
    f = _write(tmp_path, "go.sh", "CONFIG_FILE=./torchtitan/models/llama3/train_configs/llama3_405b.toml NGPU=8 "
                                  "./run_train.sh --parallelism.data_parallel_replicate_degree 4\n")
    job = _job([f])
    assert _v(job, "model_name_or_path") == T.FLAVOR_SHAPES[("llama3", "405b")]
    assert str(_v(job, "per_device_train_batch_size")) == "2" and _v(job, "__tp__") == 8
    assert _v(job, "__dp_replicate__") == 4 and _v(job, "compiled_loss") == "true"
    assert any("torchtitan's own llama3/train_configs/llama3_405b.toml read" in n for n in job.notes)
    g = _write(tmp_path, "mine.sh", "torchrun --nproc_per_node 8 train.py --job.config_file ./cfg/mine.toml\n")
    job = _job([g])          # no such file, no shipped one of that name: torchtitan's JobConfig defaults
    assert str(_v(job, "per_device_train_batch_size")) == "8" and str(_v(job, "cutoff_len")) == "2048"
    assert _v(job, "__fsdp__") == 3


def test_flavor_shapes_count_what_transformers_builds():
    from rocm_tune.core.model.architecture import model_from_config

    # parameter counts of transformers' LlamaForCausalLM / DeepseekV2ForCausalLM built from these configs on the
    # meta device (transformers 5.24): Llama 3.1 405B's published 405.85B, DeepSeek-V2's 236B
    want = {("llama3", "405b"): 405_853_388_800, ("llama3", "debugmodel"): 6_163_712,
            ("deepseek_v3", "236b"): 235_741_434_880}
    for key, n in want.items():
        assert model_from_config(dict(T.FLAVOR_SHAPES[key])).params.total == n


def test_the_fix_edits_the_toml_key_or_the_override_it_came_from(tmp_path, capsys):
    toml = _write(tmp_path, "llama3_70b.toml", LLAMA3_70B.replace("local_batch_size = 8", "local_batch_size = 16"))
    rc, out = _check([toml], capsys, "--gpu", "mi250x", "--gpus", "64")
    assert out["verdict"] == "oom"
    diff = out["fix"]["diff"]
    assert "-local_batch_size = 16\n" in diff and "+local_batch_size = 8\n" in diff
    assert out["fix"]["manual_where"] == "the torchtitan job TOML"
    assert any("global_batch_size" in m for m in out["fix"]["manual"])
    sh = _write(tmp_path, "launch.sh", "CONFIG_FILE=llama3_70b.toml NGPU=8 ./run_train.sh "
                                       "--training.local_batch_size 16\n")
    toml = _write(tmp_path, "llama3_70b.toml", LLAMA3_70B)
    rc, out = _check([sh, toml], capsys, "--gpu", "mi250x", "--gpus", "64")
    assert "+CONFIG_FILE=llama3_70b.toml NGPU=8 ./run_train.sh --training.local_batch_size 8\n" in out["fix"]["diff"]
    assert "--gradient_accumulation_steps" not in out["fix"]["diff"]
