"""explain, integrator rules of session 13 (issue 26), logs written from the sources:
- a module of another project taken for an installed package (Python prints the file it imported the module from
  after `cannot import name 'X' from 'M' (FILE)`): the user's files, not two releases;
- an OpenMMLab registry refusing a name a newer torch/transformers registers first (mmengine registry.py)."""

from __future__ import annotations

import pytest

from rocm_tune.core.runs.diagnose.diagnose import diagnose

TRACE = """\
2025-02-26 11:05:20,114\tINFO worker.py:1832 -- Started a local Ray instance.
(pid=18822) [2025-02-26 11:05:31,552] [INFO] [real_accelerator.py:222:get_accelerator] Setting ds_accelerator to cuda
Traceback (most recent call last):
  File "/usr/lib/python3.10/runpy.py", line 187, in _run_module_as_main
    mod_name, mod_spec, code = _get_module_details(mod_name, _Error)
  File "{root}/train_sft.py", line 9, in <module>
    from trainer_utils import build_dataset
  File "{root}/trainer_utils.py", line 3, in <module>
    from datasets import {name}, load_dataset
ImportError: cannot import name '{name}' from 'datasets' ({file})
"""


@pytest.mark.parametrize("file,family", [
    # another project's sub-package first on sys.path (Ray's working_dir, PYTHONPATH=src/myproj)
    ("/tmp/ray/session_x/runtime_resources/working_dir_files/_ray_pkg_1/myproj/datasets/__init__.py", "config_error"),
    # a datasets.py next to the script
    ("/home/user/exp/datasets.py", "config_error"),
    # the installed package lacking the name: two releases
    ("/opt/conda/lib/python3.10/site-packages/datasets/__init__.py", "version_check"),
    ("/home/user/.venv/lib/python3.11/site-packages/datasets/__init__.py", "version_check"),
    # an editable checkout of the package itself is the package
    ("/home/user/src/datasets/src/datasets/__init__.py", "version_check"),
    ("/work/Datasets/datasets/__init__.py", "version_check"),
])
def test_an_import_from_a_shadowing_file_is_the_users_files(tmp_path, file, family):
    p = tmp_path / "train.log"
    p.write_text(TRACE.format(root="/home/user/exp", name="interleave_datasets", file=file))
    exp = diagnose([str(p)])
    assert exp.answer == family
    if family == "config_error":
        assert "rename it" in exp.diagnoses[exp.root].fix


XTUNER = """\
12/10 03:40:31 - mmengine - INFO - Checkpoints will be saved to /root/work_dirs.
{line}
Traceback (most recent call last):
  File "/usr/local/lib/python3.10/dist-packages/mmengine/registry/registry.py", line 586, in register_module
    self._register_module(module=module, module_name=name, force=force)
  File "/usr/local/lib/python3.10/dist-packages/mmengine/registry/registry.py", line 528, in _register_module
    raise KeyError(f'{{name}} is already registered in {{self.name}} '
KeyError: '{name} is already registered in optimizer at torch.optim'
"""


@pytest.mark.parametrize("name", ["Adafactor", "LRScheduler"])
def test_a_registry_collision_with_torch_is_version_skew(tmp_path, name):
    p = tmp_path / "xtuner.log"
    p.write_text(XTUNER.format(name=name, line="[2024-12-10 03:40:35,120] [INFO] [real_accelerator.py:203] cuda"))
    exp = diagnose([str(p)])
    assert exp.answer == "version_check"
    assert exp.diagnoses[exp.root].code == "registry-name-collision"
    assert "mmengine" in exp.diagnoses[exp.root].fix


def test_xtuner_prints_the_collision_as_a_warning_and_it_is_still_the_cause(tmp_path):
    p = tmp_path / "xtuner.log"
    p.write_text("12/10 03:40:39 - mmengine - WARNING - WARNING: command error: ''Adafactor is already registered in "
                 "optimizer at torch.optim''!\n12/10 03:40:39 - mmengine - INFO - exiting\n")
    exp = diagnose([str(p)])
    assert exp.answer == "version_check"


def test_a_users_own_class_registered_twice_is_not_read_as_versions(tmp_path):
    p = tmp_path / "mm.log"
    p.write_text("Traceback (most recent call last):\n  File \"/home/u/proj/models.py\", line 12, in <module>\n"
                 "    @MODELS.register_module()\nKeyError: 'MyHead is already registered in model at proj.models'\n")
    exp = diagnose([str(p)])
    assert not (exp.root is not None and exp.diagnoses[exp.root].code == "registry-name-collision")


CLR = """\
Using device: cuda
Epoch 1/3
  step 40/900  loss 2.0132
{line}
Aborted (core dumped)
"""


@pytest.mark.parametrize("line", [
    ":0:/longer_pathname_so_that_rpms_can_support_packaging_the_debug_info_for_all_os_profiles/src/clr/hipamd/src/"
    "hip_global.cpp:158 : 15742695212 us:  Module not initialized",
    ":0:rocdevice.cpp            :2876: 4133209563 us: [pid:5221  tid:0x7f1c2d7fe640] Failed to create a queue",
])
def test_a_level_0_rocclr_line_before_an_abort_is_the_hip_runtime(tmp_path, line):
    p = tmp_path / "train.log"
    p.write_text(CLR.format(line=line))
    exp = diagnose([str(p)])
    assert exp.answer == "hip_error"
    assert exp.diagnoses[exp.root].code == "hip-runtime-check-failed"


def test_amd_log_level_trace_lines_of_a_healthy_run_are_not_a_failure(tmp_path):
    p = tmp_path / "trace.log"
    p.write_text("\n".join(
        [f":3:hip_memory.cpp            :{700 + i}: 1234{i} us: [pid:77 tid:0x7f] hipMalloc ( 0x7ffd, 4096 ) "
         for i in range(20)]
        + [":1:hip_code_object.cpp       :624 : 99 us: [pid:77 tid:0x7f] hipModuleGetFunction ok",
           "{'loss': 1.2, 'epoch': 1.0}", "{'train_runtime': 12.5, 'epoch': 1.0}"]) + "\n")
    exp = diagnose([str(p)])
    assert not (exp.root is not None and exp.diagnoses[exp.root].code == "hip-runtime-check-failed")


def test_xformers_kernel_built_for_another_arch_is_the_wheel(tmp_path):
    p = tmp_path / "train.log"
    p.write_text("steps:   0%|          | 0/1600 [00:00<?, ?it/s]\nepoch 1/10\n"
                 + "FATAL: this function is for sm86, but was built for sm800\n" * 12
                 + "steps:   0%|          | 1/1600 [00:03<1:20:11,  3.01s/it, loss=nan]\n")
    exp = diagnose([str(p)])
    assert exp.answer == "version_check"
    assert exp.diagnoses[exp.root].code == "xformers-kernel-arch-mismatch"


@pytest.mark.parametrize("line", [
    "RuntimeError: /opt/te/transformer_engine/common/util/rtc.cpp:200 in function compile: NVRTC Error: "
    "NVRTC_ERROR_COMPILATION",
    "RuntimeError: /src/TransformerEngine/transformer_engine/common/util/rtc.cpp:188 in function compile: HIPRTC "
    "Error: HIPRTC_ERROR_COMPILATION",
])
def test_a_librarys_runtime_kernel_compile_is_the_jit_build(tmp_path, line):
    p = tmp_path / "train.log"
    p.write_text('/usr/local/cuda/include/cuda_fp8.hpp(72): error: identifier "__nv_fp8_e4m3" is undefined\n'
                 '12 errors detected in the compilation of "transformer_engine/common/transpose/rtc/cast_transpose.cu".'
                 "\nTraceback (most recent call last):\n  File \"train.py\", line 88, in <module>\n"
                 "    loss.backward()\n" + line + "\n")
    exp = diagnose([str(p)])
    assert exp.answer == "deepspeed_build_jit"
    assert exp.diagnoses[exp.root].code == "library-rtc-compile-failed"
