"""Issue 26 item 4: host RAM is part of the verdict. An offload that needs more host RAM than the node has is not
a fix; a full fine-tune no change fits gets LoRA/QLoRA with its figure; the fix's files work from where the user
runs them (an added DeepSpeed JSON named by its path, the launch script copied and starting the fixed config)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from rocm_tune.core.check.check import check, write_fix

FX = Path(__file__).parent / "fixtures" / "readers"


def _job(tmp_path: Path) -> list[str]:
    (tmp_path / "configs").mkdir()
    shutil.copy(FX / "qwen32b_full.yaml", tmp_path / "configs" / "train.yaml")
    (tmp_path / "run.sh").write_text("FORCE_TORCHRUN=1 CUDA_VISIBLE_DEVICES=0,1 llamafactory-cli train "
                                     "configs/train.yaml\n")
    return [str(tmp_path / "run.sh"), str(tmp_path / "configs" / "train.yaml")]


def test_offload_fix_never_needs_more_host_ram_than_the_node_has(tmp_path):
    paths = _job(tmp_path)
    free = check(paths, gpu_id="mi210")                 # 32B full fine-tune on 2 x 64 GiB: OOM
    assert free.verdict == "oom" and free.fix is not None
    need = free.fix.get("host_ram_bytes", 0)
    assert 0 < need <= 1024 * 2**30                      # an offload, at most the 1 TiB a node is assumed to have
    small = check(paths, gpu_id="mi210", host_ram_gib=need / 2**30 / 2)
    assert small.fix is None or small.fix.get("host_ram_bytes", 0) <= need / 2
    if small.fix is not None and small.fix.get("target") == "method":
        assert small.fix["changes"]["finetuning_type"] == "lora"


def test_full_fine_tune_that_cannot_fit_gets_lora_or_qlora(tmp_path):
    rep = check(_job(tmp_path), gpu_id="mi210", host_ram_gib=256)
    nf = [f for f in rep.findings if f.code == "no-fix-found"]
    assert nf and "QLoRA of the same model fits" in nf[0].message and nf[0].fix == "use QLoRA"
    assert rep.fix is not None and rep.fix["target"] == "method"
    assert rep.fix["changes"] == {"finetuning_type": "lora", "quantization_bit": 4}
    # the LoRA/QLoRA the fix names does fit: check the fixed YAML again
    out = tmp_path / "fixed"
    write_fix(rep.fix, str(out), force=False)
    again = check([str(out / "run.sh"), str(out / "train.yaml")], gpu_id="mi210", host_ram_gib=256)
    assert again.cfg is not None and again.cfg.method == "qlora" and again.verdict == "fits"


def test_own_offload_beyond_the_stated_ram_is_an_oom_at_host(tmp_path):
    paths = _job(tmp_path)
    text = Path(paths[1]).read_text() + "deepspeed: ds_z3_offload_config.json\n"
    Path(paths[1]).write_text(text)
    ds = {"zero_optimization": {"stage": 3, "offload_optimizer": {"device": "cpu"}, "offload_param": {"device": "cpu"}},
          "bf16": {"enabled": "auto"}}
    (tmp_path / "ds_z3_offload_config.json").write_text(json.dumps(ds))
    paths.append(str(tmp_path / "ds_z3_offload_config.json"))
    roomy = check(paths, gpu_id="mi210")
    assert roomy.cpu_ram_bytes > 64 * 2**30
    short = check(paths, gpu_id="mi210", host_ram_gib=64)
    assert (short.verdict, short.oom_phase) == ("oom", "host")
    assert any(f.code == "host-ram-short" for f in short.findings)


def test_fixed_files_run_from_where_the_user_runs_them(tmp_path):
    rep = check(_job(tmp_path), gpu_id="mi210")
    assert rep.fix is not None and rep.fix["added"]           # a DeepSpeed JSON the fix adds
    out = tmp_path / "fix"
    written = write_fix(rep.fix, str(out), force=False)
    assert {Path(w).name for w in written} == {"train.yaml", "run.sh", *rep.fix["added"]}
    yaml_text = (out / "train.yaml").read_text()
    for name in rep.fix["added"]:
        assert str(out.resolve() / name) in yaml_text                 # named by its path, found from any cwd
    run = (out / "run.sh").read_text()
    assert str(out.resolve() / "train.yaml") in run and "configs/train.yaml" not in run


def _offload_job(tmp_path: Path) -> list[str]:
    paths = _job(tmp_path)
    Path(paths[1]).write_text(Path(paths[1]).read_text() + "deepspeed: ds_z3_offload_config.json\n")
    ds = {"zero_optimization": {"stage": 3, "offload_optimizer": {"device": "cpu"}, "offload_param": {"device": "cpu"}},
          "bf16": {"enabled": "auto"}}
    (tmp_path / "ds_z3_offload_config.json").write_text(json.dumps(ds))
    return [*paths, str(tmp_path / "ds_z3_offload_config.json")]


def test_deepspeed_offload_needs_its_buffer_factor_of_host_ram(tmp_path):
    """DeepSpeed's own host estimate (estimate_zero3_model_states_mem_needs) multiplies the pinned states by
    additional_buffer_factor 1.5; a 32-33B ZeRO-3 offload is killed on 600-744 GB (DeepSpeed#3448,
    LLaMA-Factory#6755) although its 18 bytes/param of pinned states would fit."""
    from rocm_tune.core.check.check import DS_HOST_BUFFER_FACTOR
    from rocm_tune.core.memory.estimate import estimate

    paths = _offload_job(tmp_path)
    roomy = check(paths, gpu_id="mi210")
    pinned = estimate(roomy.model, roomy.cfg).cpu_offload_bytes
    assert pinned > 64 * 2**30
    assert abs(roomy.cpu_ram_bytes - DS_HOST_BUFFER_FACTOR * pinned) <= 0.01 * pinned
    # RAM above the pinned states but below DeepSpeed's allowance: the host runs out first
    between = check(paths, gpu_id="mi210", host_ram_gib=1.2 * pinned / 2**30)
    assert (between.verdict, between.oom_phase) == ("oom", "host")
    enough = check(paths, gpu_id="mi210", host_ram_gib=1.6 * pinned / 2**30)
    assert enough.oom_phase != "host" and not any(f.code == "host-ram-short" for f in enough.findings)
