"""The memory a verdict compares with is what torch sees on the card (the profile's cited `vram_gib`, e.g. 39.39 GiB
on an A100 40GB), not the marketed size: a configuration between the two fits a card typed as 40 GiB and is an OOM
on the a100-40gb profile - in check, in plan and in what the app draws (one definition)."""

from __future__ import annotations

from rocm_tune.core.check.check import check
from rocm_tune.profiles.gpu_profiles import get_gpu_profile

GIB = 2**30


def _config(tmp_path, cutoff: int):
    cfg = tmp_path / f"sft_{cutoff}.yaml"
    cfg.write_text("model_name_or_path: Qwen/Qwen2.5-7B-Instruct\nstage: sft\ndo_train: true\n"
                   "finetuning_type: full\ndeepspeed: ds_z3.json\ntemplate: qwen\n"
                   f"cutoff_len: {cutoff}\nper_device_train_batch_size: 1\ngradient_accumulation_steps: 8\n"
                   "bf16: true\ngradient_checkpointing: false\noutput_dir: out\n")
    (tmp_path / "ds_z3.json").write_text('{"zero_optimization": {"stage": 3}, "bf16": {"enabled": "auto"}, '
                                         '"train_micro_batch_size_per_gpu": "auto"}\n')
    return str(cfg)


def _worst(rep) -> int:
    """The largest reserved estimate over the phases (check's margin is the card's memory minus it)."""
    return rep.vram_bytes - rep.margin_bytes


def _between_torch_and_nominal(tmp_path, card):
    """A cutoff_len whose reserved estimate lies between the card's torch figure and its marketed size (searched
    with check itself, so the estimator's own numbers make the condition)."""
    lo, hi = 64, 65536
    low_nominal = card.nominal_gib * GIB
    while hi - lo > 8:                   # the largest cutoff whose estimate is <= the marketed size
        mid = (lo + hi) // 2
        rep = check([_config(tmp_path, mid)], vram_gib=card.nominal_gib, gpus=8)
        lo, hi = (mid, hi) if _worst(rep) <= low_nominal else (lo, mid)
    rep = check([_config(tmp_path, lo)], vram_gib=card.nominal_gib, gpus=8)
    return lo, rep


def test_a_config_that_fits_the_nominal_size_is_an_oom_on_the_torch_figure(tmp_path):
    card = get_gpu_profile("a100-40gb")
    assert card.nominal_gib == 40 and card.vram_bytes == round(39.39 * GIB)
    cutoff, typed = _between_torch_and_nominal(tmp_path, card)
    assert typed.verdict == "fits" and typed.vram_bytes == 40 * GIB       # --vram-gib 40 (no --gpu): as typed
    assert card.vram_bytes < _worst(typed) <= 40 * GIB, "the search must land between 39.39 and 40 GiB"
    on_card = check([_config(tmp_path, cutoff)], gpu_id="a100-40gb", gpus=8)
    assert on_card.vram_bytes == card.vram_bytes
    assert on_card.verdict == "oom" and on_card.margin_bytes < 0


def test_plan_and_app_use_the_same_torch_figure():
    from rocm_tune.core.memory import fitting
    from rocm_tune.core.plan.answers import choose_hardware

    hw = choose_hardware({"gpu": "a100-40gb", "gpus": 8})
    assert hw.profile.vram_bytes == round(39.39 * GIB)
    # the app's fit test (tui.plan_model) and the plan's Hardware.fits both call fitting.fits with vram_bytes:
    # a reservation of 85 % of 40 GiB is over the limit of 85 % of 39.39 GiB
    reserved = 0.85 * 40 * GIB
    assert fitting.fits(reserved, 40 * GIB) and not fitting.fits(reserved, hw.profile.vram_bytes)
