"""`explain` on the shapes this session's new samples brought (helper e-new14, issue 26). Each log is written from
the tool's source (the raise/print sites named beside it), with the usual noise and other ranks around it, none
copied from the corpus: a guarded optional import (NameError / 'NoneType' not callable) read against what the log
shows of its package, a KeyError of a data row, a vision tower's empty merge reshape, the launcher-injected
`--local_rank`, pip's/uv's requires-Python refusal before a missing command or module, a fallback line in a run that
went on, and a rank torn down while the model was being built in host RAM.
"""

from __future__ import annotations

import pytest

from rocm_tune.core.runs.diagnose import guarded_imports, run_shapes
from rocm_tune.core.runs.diagnose.diagnose import diagnose

DS = ("[2025-03-02 10:11:02,551] [INFO] [real_accelerator.py:219:get_accelerator] Setting ds_accelerator to cuda "
      "(auto detect)\n[2025-03-02 10:11:07,902] [INFO] [comm.py:652:init_distributed] cdb=None\n")
SHARDS = "Loading checkpoint shards: 100%|##########| 3/3 [00:09<00:00,  3.02s/it]\n"
TORCHRUN_END = ("E0302 10:13:14.901000 2231 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: 1) "
                "local_rank: 0 (pid: 2240) of binary: /opt/venv/bin/python3\n"
                "torch.distributed.elastic.multiprocessing.errors.ChildFailedError:\n")


def _explain(tmp_path, text, name="train.log"):
    log = tmp_path / name
    log.write_text(text)
    exp = diagnose([str(log)])
    return exp, (exp.diagnoses[exp.root] if exp.root is not None else None)


def _tb(frames: list[tuple[str, str, str]], rank: str = "") -> str:
    out = rank + "Traceback (most recent call last):\n"
    for path, fn, stmt in frames:
        out += f'{rank}  File "{path}", line 77, in {fn}\n{rank}    {stmt}\n'
    return out


# (expected family, log) — the deciding lines from the sources named in the comment
CASES = {
    # ChatGLM-6B (v1) quantization.py: `logger.warning("Failed to load cpm_kernels:" + str(exception))`, then
    # compress_int4_weight's kernels call: the package is not installed
    "cpm-kernels-v1-not-installed": ("missing_package", SHARDS +
        "[WARNING|quantization.py:19] 2024-05-01 09:00:01 >> Failed to load cpm_kernels:No module named 'cpm_kernels'\n"
        + _tb([("/work/cli_demo.py", "<module>", "model = model.quantize(8)"),
               ("/root/.cache/huggingface/modules/transformers_modules/chatglm-6b/quantization.py", "__init__",
                "self.weight = compress_int4_weight(self.weight)"),
               ("/root/.cache/huggingface/modules/transformers_modules/chatglm-6b/quantization.py",
                "compress_int4_weight", "kernels.int4WeightCompression(gridDim, blockDim, 0, stream, [ctypes.c_void_p("
                "weight.data_ptr()), ctypes.c_void_p(out.data_ptr()), ctypes.c_int32(n), ctypes.c_int32(m)])")])
        + "NameError: name 'KernelFunction' is not defined\n"),
    # a module's own logger names it (logging.getLogger(__name__)) and the missing package; the name is not in the
    # table: the logger's module is the raising file
    "logged-beside-the-raising-module": ("missing_package",
        "2024-07-01 12:00:00 - WARNING - mylib.kernels.fused - Failed to import fused ops: No module named "
        "'fused_dense_lib'\n" + _tb([("/opt/venv/lib/python3.10/site-packages/mylib/kernels/fused.py", "forward",
                                      "return fused_dense_cuda(x, self.weight)")], "[rank1]: ")
        + "[rank1]: NameError: name 'fused_dense_cuda' is not defined\n" + TORCHRUN_END),
    # flash-attn 2.x installed, code written for 1.x (flash_attn_unpadded_func was renamed varlen in 2.0)
    "flash-attn-2-for-1x-code": ("version_check",
        "Requirement already satisfied: flash-attn in /opt/venv/lib/python3.10/site-packages (2.5.8)\n" + DS +
        _tb([("/work/vicuna/train_flash.py", "forward", "output_unpad = flash_attn_unpadded_func(q, k, v, cu_q, "
              "cu_k, max_s, max_s, 0.0, causal=True)")], "[rank3]: ")
        + "[rank3]: NameError: name 'flash_attn_unpadded_func' is not defined\n"),
    # the import error itself logged: the package is there without the name
    "cannot-import-name-logged": ("version_check",
        "WARNING: cannot import name 'flash_attn_varlen_func' from 'flash_attn' (/usr/lib/python3/dist-packages/"
        "flash_attn/__init__.py); falling back to eager attention\n" + SHARDS +
        _tb([("/work/model/attn.py", "forward", "out = flash_attn_varlen_func(q, k, v, cu, cu, m, m)")])
        + "NameError: name 'flash_attn_varlen_func' is not defined\n"),
    # remote code with `LlamaSdpaAttention = None` after its guarded import on transformers >= 4.48
    "remote-code-attention-class-none": ("version_check", SHARDS +
        _tb([("/work/train.py", "<module>", "model = AutoModelForCausalLM.from_pretrained(path, trust_remote_code=True)"),
             ("/root/.cache/huggingface/modules/transformers_modules/mymoe/modeling_mymoe.py", "__init__",
              "self.self_attn = MYMOE_ATTENTION_CLASSES[config._attn_implementation](config, layer_idx)")])
        + "TypeError: 'NoneType' object is not callable\n"),
    # a Dataset.__getitem__ reading a field the rows do not have (torch DataLoader fetch), on two ranks
    "dataset-getitem-keyerror": ("dataset_error", DS + "  0%|          | 0/900 [00:00<?, ?it/s]\n" +
        _tb([("/work/sft/train.py", "train", "for step, batch in enumerate(loader):"),
             ("/opt/venv/lib/python3.10/site-packages/torch/utils/data/_utils/fetch.py", "<listcomp>",
              "data = [self.dataset[idx] for idx in possibly_batched_index]"),
             ("/work/sft/data.py", "__getitem__", "turns = self.list_data_dict[i][\"dialogue_turns\"]")], "[rank2]: ")
        + "[rank2]: KeyError: 'dialogue_turns'\n" + TORCHRUN_END),
    # a datasets.map preprocessing function: datasets' LazyDict raises for a column the data lacks
    "datasets-map-column": ("dataset_error",
        "Map (num_proc=4):   0%|          | 0/5000 [00:00<?, ? examples/s]\n" +
        _tb([("/work/prep.py", "<module>", "ds = ds.map(preprocess_function, batched=True)"),
             ("/opt/venv/lib/python3.11/site-packages/datasets/arrow_dataset.py", "_map_single",
              "batch = apply_function_on_filtered_inputs("),
             ("/work/prep.py", "preprocess_function", "inputs = [q + a for q, a in zip(examples[\"question\"], "
              "examples[\"answer\"])]"),
             ("/opt/venv/lib/python3.11/site-packages/datasets/formatting/formatting.py", "__getitem__",
              "value = self.data[key]")]) + "KeyError: 'question'\n"),
    # Qwen2.5-VL's vision tower: a frame of one 14x14 patch reshaped by the merge unit (4)
    "vision-merge-unit-empty": ("dataset_error",
        "Qwen2_5_VLForConditionalGeneration loaded; processor min_pixels=None\n" + SHARDS +
        "  0%|          | 0/310 [00:00<?, ?it/s]" +
        _tb([("/opt/venv/lib/python3.10/site-packages/transformers/models/qwen2_5_vl/modeling_qwen2_5_vl.py",
              "forward", "hidden_states = hidden_states.reshape(seq_len // self.spatial_merge_unit, "
              "self.spatial_merge_unit, -1)")]) + "RuntimeError: shape '[0, 4, -1]' is invalid for input of size 5120\n"),
    # DeepSpeed's launcher adds --local_rank=N; a script that only knows --local-rank refuses it on every rank
    "deepspeed-local-rank-refused": ("version_check", DS +
        "[2025-03-02 10:11:04,210] [INFO] [runner.py:607:main] cmd = /usr/bin/python3 -u -m deepspeed.launcher.launch "
        "--world_info=eyJsb2NhbGhvc3QiOiBbMCwgMV19 --master_addr=127.0.0.1 --master_port=29500 train_gpt.py\n"
        "usage: train_gpt.py [-h] [--local-rank LOCAL_RANK] [--micro-batch-size MICRO_BATCH_SIZE]\n"
        "train_gpt.py: error: unrecognized arguments: --local_rank=1\n"
        "usage: train_gpt.py [-h] [--local-rank LOCAL_RANK] [--micro-batch-size MICRO_BATCH_SIZE]\n"
        "train_gpt.py: error: unrecognized arguments: --local_rank=0\n"
        "[2025-03-02 10:11:06,861] [ERROR] [launch.py:325:sigkill_handler] ['/usr/bin/python3', '-u', 'train_gpt.py', "
        "'--local_rank=1'] exits with return code = 2\n"),
    # pip's resolver skipping every release for Requires-Python, then the package's CLI missing
    "pip-ignored-requires-python": ("version_check",
        "$ pip install axolotl==0.9.0\n"
        "ERROR: Ignored the following versions that require a different python version: 0.9.0 Requires-Python "
        ">=3.11; 0.9.1 Requires-Python >=3.11\n"
        "ERROR: Could not find a version that satisfies the requirement axolotl==0.9.0 (from versions: 0.4.0, 0.5.0)\n"
        "ERROR: No matching distribution found for axolotl==0.9.0\n$ axolotl train config.yml\n"
        "bash: axolotl: command not found\n"),
    # uv's resolver refusing the Python, then the module missing
    "uv-requires-python-then-module": ("version_check",
        "$ uv pip install llamafactory==0.9.4\n  x No solution found when resolving dependencies:\n"
        "  `-> Because the current Python version (3.10.14) does not satisfy Python>=3.11 and llamafactory==0.9.4 "
        "depends on Python>=3.11, we can conclude that llamafactory==0.9.4 cannot be used.\n"
        "$ python -m llamafactory.cli train x.yaml\n/opt/venv/bin/python: Error while finding module specification "
        "for 'llamafactory.cli' (ModuleNotFoundError: No module named 'llamafactory')\n"),
    # a fallback line (torchtune's precision check) in a run whose bars reached their end: nothing failed
    "fallback-then-finished": ("benign_warning",
        "INFO:torchtune.utils._logging:Running FullFinetuneRecipeDistributed with resolved config:\n"
        "BF16 not supported on this hardware. Setting dtype to float32\n"
        "1|120|Loss: 1.2231: 100%|##########| 120/120 [03:02<00:00,  1.52s/it]\n"),
    # SAT's get_model prints `building <Class> model ...`, then the launcher kills every rank without an exit code
    "sat-model-build-killed": ("host_ram_oom", DS +
        "[2025-03-02 10:12:18,036] [INFO] [RANK 0] > initializing model parallel with size 1\n"
        "[2025-03-02 10:12:18,048] [INFO] [RANK 0] building VisualGLMModel model ...\n"
        "[2025-03-02 10:12:31,074] [INFO] [launch.py:315:sigkill_handler] Killing subprocess 71201\n"
        "[2025-03-02 10:12:31,398] [INFO] [launch.py:315:sigkill_handler] Killing subprocess 71202\n"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_shape_gets_the_family_of_its_source(tmp_path, case):
    family, text = CASES[case]
    exp, r = _explain(tmp_path, text)
    assert exp.answer == family, (case, exp.answer, r.code if r else None, [(d.code, d.family) for d in exp.diagnoses])
    if r is not None:
        assert not r.benign


# the other side of each border: the same shapes where the log shows something else
BORDERS = {
    # torch >= 2.0's torch.distributed.launch passes --local-rank; the deprecated launcher's own advice is torchrun
    # (a launch setting): config_error, as before
    "torch2-launch-dash-refused": ("config_error",
        "/opt/venv/lib/python3.10/site-packages/torch/distributed/launch.py:183: FutureWarning: The module "
        "torch.distributed.launch is deprecated\nand will be removed in future. Use torchrun.\n"
        "usage: finetune.py [-h] [--local_rank LOCAL_RANK] [--lr LR]\n"
        "finetune.py: error: unrecognized arguments: --local-rank=0\n"),
    # pip refused another package than the one whose command is missing: the missing command stays the root
    "pip-refused-another-package": ("missing_package",
        "ERROR: Package 'vllm' requires a different Python: 3.8.10 not in '>=3.9'\n"
        "$ llamafactory-cli train examples/train_lora/llama3_lora_sft.yaml\n"
        "bash: llamafactory-cli: command not found\n"),
    # a package's own logger (its __init__.py) reported the import it went on without
    "package-logger-missing-module": ("missing_package",
        "W0302 10:00:00 mylib - fast path unavailable: No module named 'mylib_ext'\n"
        "2025-03-02 10:00:01 WARNING mylib: No module named 'mylib_ext'\n" +
        _tb([("/opt/venv/lib/python3.10/site-packages/mylib/__init__.py", "fast_norm",
              "return _ext_rms_norm(x, w, eps)")]) + "NameError: name '_ext_rms_norm' is not defined\n"),
    # a checkpoint's key is no data row: not dataset_error
    "checkpoint-key": ("checkpoint_resume_mismatch",
        _tb([("/work/train.py", "<module>", "optimizer.load_state_dict(checkpoint[\"optimizer\"])")])
        + "KeyError: 'optimizer'\n"),
    # a failure after the fallback line still is the root
    "fallback-then-oom": ("gpu_oom",
        "BF16 not supported on this hardware. Setting dtype to float32\n"
        "1|3|Loss: 1.9: 2%|2         | 3/120 [00:05<03:02,  1.52s/it]\n" +
        _tb([("/work/recipe.py", "train", "loss.backward()")]) +
        "torch.OutOfMemoryError: HIP out of memory. Tried to allocate 1.95 GiB. GPU 0 has a total capacity of 63.98 "
        "GiB of which 1.10 GiB is free.\n"),
}


@pytest.mark.parametrize("case", sorted(BORDERS))
def test_the_other_side_of_each_border(tmp_path, case):
    family, text = BORDERS[case]
    exp, r = _explain(tmp_path, text)
    assert exp.answer == family, (case, exp.answer, r.code if r else None, [(d.code, d.family) for d in exp.diagnoses])


def test_a_guarded_name_with_nothing_said_of_its_package_is_left_to_the_other_rules():
    pre = 'Traceback (most recent call last):\n  File "/work/m.py", line 3, in f\n    flash_attn_varlen_func(q, k, v)\n'
    assert guarded_imports.family("NameError: name 'flash_attn_varlen_func' is not defined", pre) is None
    # the installed major is the one that defines the name: no skew to report
    assert guarded_imports.family("NameError: name 'flash_attn_varlen_func' is not defined", pre,
                                  ["Successfully installed flash-attn-2.6.3"]) is None
    assert guarded_imports.family("NameError: name 'flash_attn_varlen_func' is not defined", pre,
                                  ["Successfully installed flash-attn-1.0.9"])[0] == "version_check"


def test_a_finished_pip_build_is_no_flash_attn_failure(tmp_path):
    exp, r = _explain(tmp_path, "  Building wheel for flash-attn (setup.py) ... done\n"
                      "  Created wheel for flash-attn: filename=flash_attn-2.5.8-cp310-cp310-linux_x86_64.whl\n"
                      "Successfully installed flash-attn-2.5.8\n" + SHARDS +
                      "{'loss': 1.31, 'grad_norm': 0.9, 'learning_rate': 2e-05, 'epoch': 0.1}\n")
    assert r is None or r.family != "flash_attn_error"
    exp, r = _explain(tmp_path, "  Building wheel for flash-attn (setup.py) ... error\n"
                      "  ERROR: Failed building wheel for flash-attn\n", name="b.log")
    assert r is not None and r.family == "flash_attn_error"


def test_fallback_words_and_model_build_lines():
    assert run_shapes.fell_back("Flash attention is not available, falling back to sdpa")
    assert not run_shapes.fell_back("RuntimeError: expected scalar type Float but found BFloat16")
    assert run_shapes.MODEL_BUILD.search("[INFO] building GPT model ...")
    assert run_shapes.MODEL_BUILD.search("Instantiating LlamaForCausalLM model under default dtype torch.float16.")


def test_a_frame_of_model_code_in_the_modelscope_cache_is_no_download(tmp_path):
    # remote code ModelScope keeps in its cache (~/.cache/modelscope/hub/...): an AttributeError there is the model's
    # code; modelscope's own hub package (site-packages/modelscope/hub/) failing stays the download
    code = _tb([("/work/infer.py", "<module>", "model = AutoModel.from_pretrained(path, trust_remote_code=True)"),
                ("/root/.cache/modelscope/hub/models/acme/Tiny-VL/modeling_tiny.py", "forward",
                 "h = self.rotary(h, pos)")]) + "ValueError: too many values to unpack (expected 2)\n"
    exp, r = _explain(tmp_path, code)
    assert r is None or r.family != "model_download"
    hub = _tb([("/work/infer.py", "<module>", "snapshot_download('acme/Tiny-VL')"),
               ("/opt/venv/lib/python3.10/site-packages/modelscope/hub/api.py", "get_model_files",
                "raise_on_error(r.json())")]) + "RuntimeError: Request failed with code 10010205\n"
    exp, r = _explain(tmp_path, hub, name="hub.log")
    assert r is not None and r.family == "model_download"
