"""e-ver4 (issue 26): the version facts a log shows, read against what each release declares it needs.

FAMILIES.md "Rule 1, refined": version_check where the log (or a file beside it) shows the installed components
disagree - here a release's declared requirement (profiles/release_pins.py, generated from the libraries' tags by
tools/build_release_pins.py), a flash-attn wheel's torch, or pip's own conflict report - and the failure was raised
inside one of the two packages. Without such a pair the component's own family stays. Every log is written from the
tools' own output (llamafactory-cli env, pip list / freeze / install, collect_env, ds_report, Unsloth's banner), with
noise and other ranks' lines; none is a corpus case.
"""
from __future__ import annotations

import pytest

from rocm_tune.core.runs.diagnose import version_facts as vf
from rocm_tune.core.runs.diagnose.diagnose import explain_text
from rocm_tune.profiles.release_pins import FLASH_ATTN_TORCH, PINS

SP = "/opt/conda/envs/lf/lib/python3.10/site-packages"


def _root(log: str):
    exp = explain_text(log)
    assert exp.root is not None, exp.answer
    return exp.diagnoses[exp.root]


# llamafactory-cli env (src/llamafactory/extras/env.py print_env): one `- key: value` line per package
def _lf_env(trl: str, transformers: str = "4.46.1") -> str:
    return ("[INFO|2024-11-20 10:01:12] llamafactory.cli:157 >> Environment:\n\n"
            "- `llamafactory` version: 0.9.1\n- Platform: Linux-5.15.0-122-generic-x86_64-with-glibc2.35\n"
            "- Python version: 3.10.15\n- PyTorch version: 2.4.1+rocm6.1 (GPU)\n"
            f"- Transformers version: {transformers}\n- Datasets version: 3.1.0\n- Accelerate version: 1.0.1\n"
            f"- PEFT version: 0.12.0\n- TRL version: {trl}\n- GPU type: AMD Instinct MI300X\n"
            "- DeepSpeed version: 0.15.4\n\n")


# a failure raised inside TRL's DPO trainer, on two ranks: a value check TRL's release makes (config_error alone)
def _trl_failure(ranks: tuple[int, ...] = (1, 0)) -> str:
    out = ""
    for r in ranks:
        p = f"[rank{r}]: "
        out += (f"{p}Traceback (most recent call last):\n"
                f'{p}  File "{SP}/llamafactory/launcher.py", line 23, in <module>\n{p}    launch()\n'
                f'{p}  File "{SP}/llamafactory/train/dpo/workflow.py", line 78, in run_dpo\n'
                f"{p}    trainer = CustomDPOTrainer(\n"
                f'{p}  File "{SP}/trl/trainer/dpo_trainer.py", line 412, in __init__\n'
                f"{p}    raise ValueError(\n"
                f"{p}ValueError: max_length (1024) must be greater than max_prompt_length (2048)\n")
    return out + ("E1120 10:03:44.000000 140 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: 1) "
                  "local_rank: 0 (pid: 2211) of binary: /opt/conda/envs/lf/bin/python\n")


# a shape failure inside transformers' modeling code (unknown alone)
MODELING = ("Traceback (most recent call last):\n  File \"/work/sft.py\", line 88, in <module>\n    trainer.train()\n"
            f'  File "{SP}/transformers/models/qwen2/modeling_qwen2.py", line 310, in forward\n'
            "    attn_output = attn_output + residual\n"
            "RuntimeError: The size of tensor a (32) must match the size of tensor b (64) at non-singleton dimension 3\n")


def test_lf_env_trl_outside_lf_pins_is_version_check() -> None:
    d = _root(_lf_env("0.12.1") + "Loading checkpoint shards: 100%|##########| 4/4 [00:05<00:00,  1.31s/it]\n" +
              _trl_failure())
    assert d.family == "version_check", (d.family, d.code, d.title)
    assert "llamafactory 0.9.1" in d.title and "trl 0.12.1" in d.title
    assert ">=0.8.6,<=0.9.6" in d.fix and "trl" in d.fix


def test_lf_env_trl_inside_lf_pins_keeps_the_component_family() -> None:
    assert _root(_lf_env("0.9.6") + _trl_failure()).family == "config_error"


def test_lf_env_transformers_outside_pins_with_modeling_failure() -> None:
    assert _root(_lf_env("0.9.6") + MODELING).family == "unknown"
    d = _root(_lf_env("0.9.6", transformers="4.49.0") + MODELING)
    assert d.family == "version_check", (d.family, d.code, d.title)
    assert "transformers 4.49.0" in d.title and ">=4.41.2,<=4.46.1" in d.fix


def test_skew_between_packages_the_failure_is_not_in_keeps_the_family() -> None:
    # LF 0.9.1 with trl 0.12.1 shown, but the failure is inside transformers' modeling file: no pair of it
    assert _root(_lf_env("0.12.1") + MODELING).family == "unknown"


def test_runner_frames_up_the_traceback_do_not_count() -> None:
    # launched by LLaMA-Factory (its frames on top), failing in transformers: LF 0.9.1's trl pin is not this failure's
    via_lf = MODELING.replace("  File \"/work/sft.py\", line 88, in <module>\n    trainer.train()\n",
                              f'  File "{SP}/llamafactory/train/sft/workflow.py", line 96, in run_sft\n'
                              "    train_result = trainer.train()\n")
    assert "llamafactory/train" in via_lf
    assert _root(_lf_env("0.12.1") + via_lf).family == "unknown"


# pip install's resolver report (pip >= 20.3 _warn_about_conflicts), then the run failing
PIP_CONFLICT = (
    "Successfully built llamafactory\n"
    "ERROR: pip's dependency resolver does not currently take into account all the packages that are installed. This "
    "behaviour is the source of the following dependency conflicts.\n"
    "trl 0.12.0 requires transformers>=4.46.0, but you have transformers 4.44.2 which is incompatible.\n"
    "Successfully installed accelerate-1.1.1 trl-0.12.0\n")


def test_pip_conflict_report_names_the_two_releases() -> None:
    d = _root(PIP_CONFLICT + _trl_failure((0,)))
    assert d.family == "version_check", (d.family, d.code, d.title)
    assert "trl 0.12.0" in d.title and "transformers 4.44.2" in d.title and ">=4.46.0" in d.fix


def test_pip_list_that_fits_keeps_the_family() -> None:
    pip_list = ("Package                  Version\n------------------------ -----------\naccelerate               1.0.1\n"
                "llamafactory             0.9.1\ntransformers             4.46.1\ntrl                      0.9.6\n")
    assert _root(pip_list + _trl_failure((0,))).family == "config_error"
    assert _root(pip_list.replace("0.9.6", "0.11.4") + _trl_failure((0,))).family == "version_check"


# pip freeze with a flash-attn release wheel (setup.py get_wheel_url names torch and the C++ ABI), torch's collect_env,
# then a CUDA failure raised in flash_attn's interface
def _fa_log(torch: str) -> str:
    return (f"[pip3] flash_attn @ https://github.com/Dao-AILab/flash-attention/releases/download/v2.7.4.post1/"
            "flash_attn-2.7.4.post1+cu12torch2.6cxx11abiFALSE-cp311-cp311-linux_x86_64.whl\n"
            f"[pip3] numpy==1.26.4\n[pip3] torch=={torch}\n[pip3] triton==3.1.0\n"
            "Traceback (most recent call last):\n  File \"/work/infer.py\", line 30, in <module>\n"
            "    out = model.generate(**batch)\n"
            f'  File "{SP}/flash_attn/flash_attn_interface.py", line 91, in _flash_attn_forward\n'
            "    out, softmax_lse, S_dmask, rng_state = flash_attn_gpu.fwd(\n"
            "RuntimeError: CUDA error: invalid argument\n"
            "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might "
            "be incorrect.\n")


def test_flash_attn_wheel_for_another_torch() -> None:
    d = _root(_fa_log("2.5.1"))
    assert d.family == "version_check", (d.family, d.code, d.title)
    assert "2.7.4.post1" in d.title and "2.5.1" in d.title and "torch 2.5.1" in d.fix


def test_flash_attn_wheel_for_this_torch_keeps_the_family() -> None:
    d = _root(_fa_log("2.6.0"))
    assert d.family != "version_check", (d.family, d.title)


# pip list, then torchvision's compiled op missing from this torch (torchvision/_meta_registrations.py registering
# a fake for torchvision::nms)
def _tv_log(tv: str) -> str:
    return ("Package           Version\n----------------- ------------\n"
            f"torch             2.5.1+rocm6.2\ntorchvision       {tv}\n"
            "Traceback (most recent call last):\n  File \"/work/detect.py\", line 3, in <module>\n"
            "    import torchvision\n"
            f'  File "{SP}/torchvision/_meta_registrations.py", line 164, in <module>\n'
            '    @torch.library.register_fake("torchvision::nms")\n'
            f'  File "{SP}/torch/library.py", line 654, in register\n'
            "    use_lib._register_fake(op_name, func, _stacklevel=stacklevel + 1)\n"
            "RuntimeError: operator torchvision::nms does not exist\n")


def test_torchvision_for_another_torch() -> None:
    d = _root(_tv_log("0.19.1+rocm6.1"))
    assert d.family == "version_check", (d.family, d.code, d.title)
    assert "torchvision 0.19.1+rocm6.1 is the build for torch 2.4" in d.title and "2.5.1" in d.fix
    assert vf.companion_skews(vf.read_facts(_tv_log("0.20.1+rocm6.2"))) == []


# bitsandbytes >= 0.48 declares torch>=2.3,<3 (its pyproject at the tag); a HIP failure raised in its functional.py
def _bnb_log(torch: str) -> str:
    return (f"bitsandbytes      0.48.2\ntorch             {torch}\n"
            "Traceback (most recent call last):\n  File \"/work/qlora.py\", line 51, in <module>\n"
            "    trainer.train()\n"
            f'  File "{SP}/bitsandbytes/functional.py", line 1001, in dequantize_4bit\n'
            "    lib.cdequantize_blockwise_bf16_nf4(*args)\n"
            "RuntimeError: HIP error: invalid device function\n"
            "HIP kernel errors might be asynchronously reported at some other API call, so the stacktrace below might "
            "be incorrect.\n")


def test_hip_failure_in_a_package_whose_torch_pin_is_broken() -> None:
    assert _root(_bnb_log("2.4.1+rocm6.1")).family == "hip_error"
    d = _root(_bnb_log("2.1.2+rocm5.6"))
    assert d.family == "version_check", (d.family, d.code, d.title)
    assert "bitsandbytes 0.48.2 declares torch>=2.3,<3" in d.title and "torch 2.1.2+rocm5.6" in d.title


def test_resource_failure_with_a_skew_in_view_stays_oom() -> None:
    oom = (f'  File "{SP}/trl/trainer/dpo_trainer.py", line 1400, in get_batch_loss_metrics\n'
           "torch.OutOfMemoryError: HIP out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of "
           "191.98 GiB of which 1.10 GiB is free. Of the allocated memory 180.2 GiB is allocated by PyTorch, and 8.1 "
           "GiB is reserved by PyTorch but unallocated.\n")
    d = _root(_lf_env("0.12.1") + "Traceback (most recent call last):\n" + oom)
    assert d.family == "gpu_oom"


# ---- the facts, spelled as each tool prints them
COLLECT_ENV = ("PyTorch version: 2.1.2+rocm5.6\nIs debug build: False\nCUDA used to build PyTorch: N/A\n"
               "ROCM used to build PyTorch: 5.6.31061-8c743ae5d\n\nVersions of relevant libraries:\n"
               "[pip3] numpy==1.24.1\n[pip3] pytorch-triton-rocm==2.1.0\n[pip3] torch==2.1.2+rocm5.6\n"
               "[conda] transformers              4.36.2                   pypi_0    pypi\n")
DS_REPORT = ("DeepSpeed general environment info:\ntorch install path ............... ['/opt/conda/lib/python3.10/"
             "site-packages/torch']\ntorch version .................... 2.3.0+rocm6.0\n"
             "deepspeed install path ........... ['/opt/conda/lib/python3.10/site-packages/deepspeed']\n"
             "deepspeed info ................... 0.14.2, unknown, unknown\ntorch hip version ................ "
             "6.0.32830-d62f6a171\n")
UNSLOTH = ("==((====))==  Unsloth 2025.3.14: Fast Qwen2 patching. Transformers: 4.49.0. vLLM: 0.7.3.\n"
           "   \\\\   /|    GPU: AMD Instinct MI300X. Num GPUs = 1. Max memory: 191.984 GB. Platform: Linux.\n"
           "O^O/ \\_/ \\    Torch: 2.6.0+rocm6.2.4. CUDA: 9.4. CUDA Toolkit: None. Triton: 3.2.0\n"
           "\\        /    Bfloat16 = TRUE. FA [Xformers = 0.0.29.post3. FA2 = False]\n")
PIP_INSTALL = ("Attempting uninstall: transformers\n    Found existing installation: transformers 4.40.0\n"
               "    Uninstalling transformers-4.40.0:\n      Successfully uninstalled transformers-4.40.0\n"
               "Successfully installed peft-0.13.2 transformers-4.46.3\n"
               "Requirement already satisfied: torch<3,>=2.3 in /usr/lib/python3/site-packages (from bitsandbytes) "
               "(2.4.0+rocm6.1)\n")


BNB_DIAG = ("=================== bug report ===================\n"
            "================= bitsandbytes v0.45.0 =================\nPlatform: Linux-6.8.0-x86_64\n"
            "Python: 3.11.10\nPyTorch: 2.5.1+rocm6.2\n  CUDA: N/A\n  HIP: 6.2.41133-dd7f95766\n  XPU: N/A\n"
            "Related packages:\n  accelerate: 1.2.1\n  diffusers: not found\n  numpy: 1.26.4\n  pip: 24.2\n"
            "  peft: 0.14.0\n  transformers: 4.47.1\n  trl: 0.13.0\n")


@pytest.mark.parametrize("log,want", [
    ("Resolved 42 packages in 310ms\nInstalled 2 packages in 18ms\n - transformers==4.40.0\n + transformers==4.46.1\n"
     " + trl==0.12.1\n  - Updating peft (0.11.1 -> 0.13.2)\n", {"transformers": "4.46.1", "trl": "0.12.1",
                                                               "peft": "0.13.2"}),
    (BNB_DIAG, {"bitsandbytes": "0.45.0", "torch": "2.5.1+rocm6.2", "accelerate": "1.2.1", "peft": "0.14.0",
                "transformers": "4.47.1", "trl": "0.13.0"}),
    (COLLECT_ENV, {"torch": "2.1.2+rocm5.6", "triton": "2.1.0", "transformers": "4.36.2"}),
    (DS_REPORT, {"torch": "2.3.0+rocm6.0", "deepspeed": "0.14.2"}),
    (UNSLOTH, {"unsloth": "2025.3.14", "transformers": "4.49.0", "vllm": "0.7.3", "torch": "2.6.0+rocm6.2.4",
               "triton": "3.2.0", "xformers": "0.0.29.post3"}),
    (PIP_INSTALL, {"peft": "0.13.2", "transformers": "4.46.3", "torch": "2.4.0+rocm6.1"}),
    (_lf_env("0.9.6"), {"llamafactory": "0.9.1", "trl": "0.9.6", "peft": "0.12.0", "torch": "2.4.1+rocm6.1"}),
])
def test_facts_as_each_tool_prints_them(log: str, want: dict[str, str]) -> None:
    got = {k: f.version for k, f in vf.read_facts(log).items()}
    assert {k: got.get(k) for k in want} == want, got


@pytest.mark.parametrize("text", [
    "ROCM used to build PyTorch: 6.0.32830-d62f6a171", "[load_test] total VRAM reported by torch: 96.00 GiB",
    'python -c "import transformers, torch; print(transformers.__version__, torch.__version__)"\n4.21.3 1.13.1',
    "torch.version.hip: 6.1.40091",
])
def test_numbers_that_are_no_release_are_no_fact(text: str) -> None:
    assert "torch" not in vf.read_facts(text)


@pytest.mark.parametrize("version,spec,ok", [
    ("4.46.1", ">=4.41.2,<=4.46.1", True), ("4.47.0", ">=4.41.2,<=4.46.1", False),
    ("4.46.2", ">=4.45.0,!=4.46.2", False), ("4.46.3", "==4.46.*", True), ("2.6.0+rocm6.2", "~=2.6.0", True),
    ("2.7.0", "~=2.6.0", False), ("0.21.0", "<0.21,>=0.20", False),
])
def test_specifiers(version: str, spec: str, ok: bool) -> None:
    assert vf.satisfies(version, spec) is ok


def test_pins_come_from_the_release_tags() -> None:
    # LLaMA-Factory 0.9.1's check_dependencies: require_version("trl>=0.8.6,<=0.9.6"); flash-attn 2.7.4.post1's
    # publish workflow: torch 2.2 .. 2.6
    lf = dict(next(p for a, b, p in PINS["llamafactory"] if a <= "0.9.1" <= b and len(a) == len("0.9.1")))
    assert lf["trl"] == ">=0.8.6,<=0.9.6"
    assert FLASH_ATTN_TORCH["2.7.4.post1"][-1] == "2.6"
    assert all(lib in PINS for lib in ("peft", "trl", "accelerate", "ms-swift", "axolotl", "unsloth"))
