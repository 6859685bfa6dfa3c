"""The training YAML of `rocm-tune train`: LLaMA-Factory key names, validation, plan -> config."""

from __future__ import annotations

import json

import pytest
import yaml

from rocm_tune.core.errors import UserError
from rocm_tune.train.config import config_dict_from_plan, config_from_dict, load_config
from tests.conftest import run_cli


@pytest.fixture
def model_dir(tmp_path):
    d = tmp_path / "m"
    d.mkdir()
    (d / "config.json").write_text(json.dumps({"model_type": "qwen2"}))
    return d


@pytest.fixture
def data_file(tmp_path):
    f = tmp_path / "d.json"
    f.write_text(json.dumps([{"instruction": "hi", "output": "hello"}]))
    return f


def base(model_dir, data_file, **kw):
    d = {"model_name_or_path": str(model_dir), "train_file": str(data_file)}
    d.update(kw)
    return d


def test_llamafactory_keys_and_defaults(model_dir, data_file, tmp_path):
    cfg = config_from_dict(base(model_dir, data_file, finetuning_type="lora", lora_rank=16, lora_target="q_proj,v_proj",
                                disable_gradient_checkpointing=True, bf16=True, learning_rate="1e-4",
                                num_train_epochs=2, output_dir="out", plot_loss=True, template="qwen"),
                           base_dir=tmp_path)
    assert cfg.lora_rank == 16 and cfg.lora_target == "q_proj,v_proj"
    assert cfg.gradient_checkpointing is False
    assert cfg.precision == "bf16" and cfg.learning_rate == 1e-4 and cfg.num_train_epochs == 2.0
    assert cfg.output_dir == str(tmp_path / "out")
    assert cfg.ignored == ("plot_loss",)
    assert config_from_dict(base(model_dir, data_file, pure_bf16=True)).precision == "pure_bf16"
    assert config_from_dict(base(model_dir, data_file)).precision == "fp32"
    assert config_from_dict(base(model_dir, data_file)).gradient_checkpointing is True


@pytest.mark.parametrize("extra,needle", [
    ({"lora_rnak": 8}, "unknown config key 'lora_rnak' (did you mean 'lora_rank'?)"),
    ({"lora_rank": "big"}, "'lora_rank': expected int"),
    ({"lora_rank": 0}, "lora_rank"),
    ({"stage": "dpo"}, "DPO needs LLaMA-Factory"),
    ({"finetuning_type": "prefix"}, "finetuning_type 'prefix'"),
    ({"nan_policy": "ignore"}, "nan_policy 'ignore'"),
    ({"bf16": True, "fp16": True}, "choose one precision"),
    ({"quantization_bit": 3}, "quantization_bit must be 4 or 8"),
    ({"quantization_bit": 4, "finetuning_type": "full"}, "needs finetuning_type: lora"),
    ({"learning_rate": float("nan")}, "learning_rate"),
    ({"cutoff_len": -5}, "cutoff_len"),
    ({"train_file": "/nope/x.json"}, "train_file '/nope/x.json' does not exist"),
    ({"model_name_or_path": "/nope/model"}, "not a local model directory"),
    ({"resume_from_checkpoint": "/nope/ckpt"}, "is not a checkpoint directory"),
])
def test_bad_values_name_the_key(model_dir, data_file, extra, needle):
    with pytest.raises(UserError) as e:
        config_from_dict(base(model_dir, data_file, **extra))
    assert needle in str(e.value)


def test_needs_a_dataset_and_a_model(model_dir):
    with pytest.raises(UserError, match="needs dataset"):
        config_from_dict({"model_name_or_path": str(model_dir)})
    with pytest.raises(UserError, match="needs model_name_or_path"):
        config_from_dict({"train_file": "x"})
    with pytest.raises(UserError, match="mapping"):
        config_from_dict(["a"])


def test_load_config_files(tmp_path, model_dir, data_file):
    good = tmp_path / "good.yaml"
    good.write_text(yaml.safe_dump(base(model_dir, data_file, max_steps=5)))
    assert load_config(good, output_dir=str(tmp_path / "o")).output_dir == str(tmp_path / "o")
    bad = tmp_path / "bad.yaml"
    bad.write_text("model_name_or_path: [unclosed\n")
    with pytest.raises(UserError, match="not valid YAML at line"):
        load_config(bad)
    lst = tmp_path / "list.yaml"
    lst.write_text("- a\n- b\n")
    with pytest.raises(UserError, match="must be a YAML mapping"):
        load_config(lst)
    with pytest.raises(UserError, match="does not exist"):
        load_config(tmp_path / "missing.yaml")


def test_plan_to_config_roundtrip(tmp_path, model_dir, data_file):
    plan = {"model": {"ref": str(model_dir), "name": "m"}, "goal": {"method": "lora", "stage": "sft", "dataset": str(data_file)},
            "recommended": {"method": "lora", "precision": "fp16", "attn": "eager", "cutoff_len": 2048, "micro_batch": 2,
                            "grad_accum": 16, "gradient_checkpointing": True, "optim": "adamw", "lora_rank": 64,
                            "lora_alpha": 128, "lora_targets": ["all"], "learning_rate": 1e-5, "epochs": 5,
                            "ddp_find_unused_parameters": False}}
    d = config_dict_from_plan(plan, output_dir=str(tmp_path / "out"))
    cfg = config_from_dict(d)
    assert (cfg.precision, cfg.flash_attn, cfg.cutoff_len, cfg.per_device_train_batch_size) == ("fp16", "disabled", 2048, 2)
    assert (cfg.gradient_accumulation_steps, cfg.lora_rank, cfg.lora_alpha, cfg.learning_rate) == (16, 64, 128, 1e-5)
    assert cfg.gradient_checkpointing is True and cfg.num_train_epochs == 5
    with pytest.raises(UserError, match="no dataset"):
        config_dict_from_plan({**plan, "goal": {}})


def test_cli_check_and_bad_config(tmp_path, model_dir, data_file):
    good = tmp_path / "good.yaml"
    good.write_text(yaml.safe_dump(base(model_dir, data_file, finetuning_type="freeze", plot_loss=True)))
    out = run_cli("train", str(good), "--check")
    assert out.returncode == 0, out.stderr
    assert "freeze fp32" in out.stdout and "'plot_loss' is ignored" in out.stdout
    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump(base(model_dir, data_file, lora_rnak=8)))
    out = run_cli("train", str(bad))
    assert out.returncode == 2 and out.stderr.count("\n") == 1 and "lora_rnak" in out.stderr


def test_llamafactory_use_reentrant_gc_and_fractional_warmup_steps(tmp_path):
    from rocm_tune.core.errors import UserError
    from rocm_tune.train.config import config_from_dict

    model = tmp_path / "m"
    model.mkdir()
    (model / "config.json").write_text('{"model_type": "qwen2"}')
    data = tmp_path / "d.json"
    data.write_text("[]")
    base = {"model_name_or_path": str(model), "train_file": str(data)}
    cfg = config_from_dict({**base, "use_reentrant_gc": False, "warmup_steps": 0.1})
    assert cfg.use_reentrant_gc is False and cfg.warmup_steps == 0.1
    assert config_from_dict({**base, "warmup_steps": 20}).warmup_steps == 20
    with pytest.raises(UserError, match="warmup_steps"):
        config_from_dict({**base, "warmup_steps": 2.5})
