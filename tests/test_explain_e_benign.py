"""`explain` and the training libraries' own harmless warnings (helper e-benign, issue 26: "harmless library
warnings are never causes").

rocm_tune/profiles/library_warnings.py lists the messages transformers, peft, trl, accelerate, DeepSpeed, torch,
bitsandbytes, huggingface_hub, datasets, diffusers, unsloth and Liger-Kernel print with logger.warning/_once or
warnings.warn and go on after (tools/build_library_warnings.py reads them from the sources). Each log below is written
as the library prints the warning (the message from the file named next to it, values filled in; transformers' and
accelerate's default handlers print the bare message), among the lines a training run prints (progress bars, loss
dicts, other ranks). None of these warnings is in the fit corpus.
"""

from __future__ import annotations

import pytest

from rocm_tune.core.runs.diagnose import library_warnings as lw
from rocm_tune.core.runs.diagnose.diagnose import diagnose, render_text

LOAD = "Loading checkpoint shards: 100%|##########| 2/2 [00:03<00:00,  1.52s/it]\n"
START = "[INFO|trainer.py:2128] 2025-03-02 09:14:07,511 >> ***** Running training *****\n"
STEPS = ("{'loss': 1.9021, 'grad_norm': 0.8411, 'learning_rate': 1.99e-05, 'epoch': 0.01}\n"
         " 2%|2         | 20/1000 [00:31<25:02,  1.53s/it]\n"
         "{'loss': 1.7730, 'grad_norm': 0.7902, 'learning_rate': 1.98e-05, 'epoch': 0.02}\n"
         " 4%|4         | 40/1000 [01:02<24:40,  1.54s/it]\n")


def _explain(tmp_path, text, name="train.log"):
    log = tmp_path / name
    log.write_text(text)
    exp = diagnose([str(log)])
    return exp, (exp.diagnoses[exp.root] if exp.root is not None else None)


def _named(exp) -> list[tuple[str, str]]:
    return [(w["library"], w["source"]) for d in exp.diagnoses if d.benign for w in d.numbers.get("warnings", ())]


# (case, log, the library and the file that prints the warning)
HARMLESS = [
    # transformers tokenization_utils_base.py _get_padding_truncation_strategies (logger.warning), bare, before the bar
    ("tokenizer-truncation", LOAD +
     "Truncation was not explicitly activated but `max_length` is provided a specific value, please use "
     "`truncation=True` to explicitly truncate examples to max length. Defaulting to 'longest_first' truncation "
     "strategy. If you encode pairs of sequences (GLUE-style) with the tokenizer you can select this strategy more "
     "precisely by providing a specific strategy to `truncation`.\n" + START + STEPS,
     ("transformers", "src/transformers/tokenization_utils_base.py")),
    # transformers generation/utils.py (logger.warning) glued to a tqdm bar of an eval loop
    ("generate-no-mask", START + " 10%|#         | 5/50 [00:04<00:40,  1.12it/s]The attention mask and the pad "
     "token id were not set. As a consequence, you may observe unexpected behavior. Please pass your input's "
     "`attention_mask` to obtain reliable results.\n" + STEPS,
     ("transformers", "src/transformers/generation/utils.py")),
    # DeepSpeed runtime/zero stage3 step(): allocator flushes under memory pressure - a performance warning, the run
    # goes on (its words hold "memory", not a failure); other ranks' prefixes
    ("ds-allocator-flushes", START +
     "[rank1]: [2025-03-02 09:20:11,020] [WARNING] [stage3.py:2114:step] 3 pytorch allocator cache flushes since "
     "last step. this happens when there is high memory pressure and is detrimental to performance. if this is "
     "happening frequently consider adjusting settings to reduce memory consumption. If you are unable to make the "
     "cache flushes go away consider adding get_accelerator().empty_cache() calls in your training loop to ensure "
     "that all ranks flush their caches at the same time\n" + STEPS,
     ("deepspeed", None)),
    # peft tuners/tuners_utils.py (warnings.warn) on rank 0 and rank 1
    ("peft-second-adapter", LOAD +
     "[rank0]:/opt/conda/lib/python3.11/site-packages/peft/tuners/tuners_utils.py:168: UserWarning: Already found a "
     "`peft_config` attribute in the model. This will lead to having multiple adapters in the model. Make sure to "
     "know what you are doing!\n"
     "[rank1]:/opt/conda/lib/python3.11/site-packages/peft/tuners/tuners_utils.py:168: UserWarning: Already found a "
     "`peft_config` attribute in the model. This will lead to having multiple adapters in the model. Make sure to "
     "know what you are doing!\n  warnings.warn(\n" + START + STEPS,
     ("peft", "src/peft/tuners/tuners_utils.py")),
    # datasets builder.py (logger.warning, bare) while the data is prepared, then training
    ("datasets-num-proc", "Generating train split: 52002 examples [00:01, 35120.33 examples/s]\n"
     "Setting num_proc from 16 back to 1 for the train split to disable multiprocessing as it only contains one "
     "shard.\n" + START + STEPS, ("datasets", "datasets/builder.py")),
    # bitsandbytes autograd/_functions.py (warnings.warn) in an 8-bit LoRA run
    ("bnb-cast", START + "/usr/lib/python3.10/site-packages/bitsandbytes/autograd/_functions.py:316: UserWarning: "
     "MatMul8bitLt: inputs will be cast from torch.float32 to float16 during quantization\n"
     "  warnings.warn(f\"MatMul8bitLt: inputs will be cast from {A.dtype} to float16 during quantization\")\n" + STEPS,
     ("bitsandbytes", "bitsandbytes/autograd/_functions.py")),
    # transformers modeling_utils.py (5.x, logger.warning_once): bare, then training
    ("torch-dtype-deprecated", "`torch_dtype` is deprecated! Use `dtype` instead!\n" + LOAD + START + STEPS,
     ("transformers", "src/transformers/modeling_utils.py")),
    # Liger-Kernel transformers/monkey_patch.py (logger.warning): an optional patch skipped; the words name a version
    # requirement, which a version rule would read as a failure
    ("liger-gpt-oss", "GPT-OSS support requires transformers >= 4.55.0\n" + START + STEPS,
     ("liger-kernel", "src/liger_kernel/transformers/monkey_patch.py")),
    # torch distributed/fsdp/_exec_order_utils.py (warnings.warn): its words say "hang", the run trains on
    ("fsdp-forward-order", START + STEPS.splitlines(keepends=True)[0] +
     "[rank3]:/usr/lib/python3.10/site-packages/torch/distributed/fsdp/_exec_order_utils.py:269: UserWarning: Forward "
     "order differs from that of the first iteration on rank 3. Collectives are unchecked and may give incorrect "
     "results or hang.\n" + STEPS, ("torch", "torch/distributed/fsdp/_exec_order_utils.py")),
    # peft utils/save_and_load.py (warnings.warn) at the save that ends a run that finished
    ("peft-save-vocab", START + STEPS + "{'train_runtime': 1520.3, 'train_samples_per_second': 5.26, "
     "'train_loss': 1.6120, 'epoch': 1.0}\n"
     "/usr/lib/python3.10/site-packages/peft/utils/save_and_load.py:250: UserWarning: Could not find a config file in "
     "/models/llama-3-8b - will assume that the vocabulary was not modified.\n  warnings.warn(\n"
     "100%|##########| 1000/1000 [25:20<00:00,  1.52s/it]\n", ("peft", "src/peft/utils/save_and_load.py")),
]


@pytest.mark.parametrize("case,text,src", HARMLESS, ids=[c[0] for c in HARMLESS])
def test_a_library_warning_with_the_run_going_on_is_harmless(tmp_path, case, text, src):
    exp, root = _explain(tmp_path, text)
    assert root is None, (case, root and root.code)
    assert exp.answer == "benign_warning", case
    named = _named(exp)
    assert named, case
    assert named[0][0] == src[0] and (src[1] is None or named[0][1] == src[1]), (case, named)
    out = render_text(exp, width=200)
    assert "harmless" in out and f"{src[0]} warning" in out


def test_a_bare_warning_no_other_rule_knows_is_found_and_named(tmp_path):
    # datasets builder.py: without the table the log had no sign at all (answer unknown)
    text = ("Setting num_proc from 8 to 2 for the validation split as it only contains 2 shards.\n" + START + STEPS)
    exp, root = _explain(tmp_path, text)
    assert root is None and exp.answer == "benign_warning"
    assert ("datasets", "datasets/builder.py") in _named(exp)


def test_a_log_that_stops_at_a_warning_is_not_called_harmless(tmp_path):
    # nothing after the warning and no ending: the stop is not explained by it
    text = LOAD + ("Setting num_proc from 16 back to 1 for the train split to disable multiprocessing as it only "
                   "contains one shard.\n")
    exp, _root = _explain(tmp_path, text)
    assert exp.answer != "benign_warning"
    # the same lines with the run going on after them are harmless
    exp2, _ = _explain(tmp_path, text + START + STEPS, "went-on.log")
    assert exp2.answer == "benign_warning"


def test_a_run_that_fails_for_another_reason_keeps_its_cause(tmp_path):
    text = ("`torch_dtype` is deprecated! Use `dtype` instead!\n" + LOAD + START + STEPS +
            "[rank0]: Traceback (most recent call last):\n"
            "[rank0]:   File \"/work/train.py\", line 88, in <module>\n"
            "[rank0]: torch.OutOfMemoryError: HIP out of memory. Tried to allocate 1.95 GiB. GPU 0 has a total "
            "capacity of 63.98 GiB of which 1.02 GiB is free. Of the allocated memory 60.11 GiB is allocated by "
            "PyTorch, and 1.20 GiB is reserved by PyTorch but unallocated.\n")
    exp, root = _explain(tmp_path, text)
    assert root is not None and root.family == "gpu_oom" and not root.benign
    assert exp.answer == "gpu_oom"


def test_a_warning_that_is_a_cause_is_not_in_the_table():
    # torch/utils/checkpoint.py: with frozen embeddings under reentrant checkpointing no gradient reaches the layers
    line = ("/usr/lib/python3.10/site-packages/torch/utils/checkpoint.py:61: UserWarning: None of the inputs have "
            "requires_grad=True. Gradients will be None")
    assert lw.warning_of(line) is None
    # hipBLASLt on a GPU without it is left to its own rules (hipblaslt_warning when the run dies at it)
    assert lw.warning_of("UserWarning: Attempting to use hipBLASLt on an unsupported architecture! Overriding blas "
                         "backend to hipblas") is None


def test_a_value_holding_a_failure_is_not_a_harmless_warning():
    # peft save_and_load.py's template, its value a failure: the line is not read as the harmless warning
    ok = "Could not find a config file in /models/m - will assume that the vocabulary was not modified."
    bad = ("Could not find a config file in CUDA error: out of memory - will assume that the vocabulary was not "
           "modified.")
    assert lw.warning_of(ok) is not None
    assert lw.warning_of(bad) is None
    assert lw.warning_of(ok, strict=True) is None   # its fixed words say "could not": it overrules no rule


def test_an_overflow_streak_from_a_high_start_is_the_scaler_calibrating(tmp_path):
    # DeepSpeed runtime/fp16/loss_scaler.py from initial_scale_power 32: 12 halvings, the scale stays at 2^20
    scale = 2 ** 32
    lines = []
    for i in range(12):
        lines.append(f"[2025-03-02 09:15:{10 + i:02d},000] [INFO] [loss_scaler.py:183:update_scale] [deepspeed] "
                     f"OVERFLOW! Rank 0 Skipping step. Attempted loss scale: {scale}, reducing to {scale // 2}\n")
        scale //= 2
    exp, root = _explain(tmp_path, START + "".join(lines) + STEPS)
    assert root is None and exp.answer == "benign_warning"
    # the same streak driving the scale toward its minimum is fp16 overflow
    scale, lines = 2 ** 12, []
    for i in range(12):
        lines.append(f"[2025-03-02 09:15:{10 + i:02d},000] [INFO] [loss_scaler.py:183:update_scale] [deepspeed] "
                     f"OVERFLOW! Rank 0 Skipping step. Attempted loss scale: {scale}, reducing to {max(scale // 2, 1)}\n")
        scale = max(scale // 2, 1)
    exp2, root2 = _explain(tmp_path, START + "".join(lines) + STEPS, "collapse.log")
    assert root2 is not None and exp2.answer == "fp16_overflow"


def test_the_table_is_read_from_every_library_named():
    from rocm_tune.profiles.library_warnings import CAUSES, WARNINGS

    libs = {w[0] for w in WARNINGS}
    assert {"transformers", "peft", "trl", "accelerate", "deepspeed", "torch", "bitsandbytes"} <= libs
    assert all("\x00" not in w[1] and w[2].strip() for w in WARNINGS)
    # no listed warning carries the words of a cause
    assert not [w for w in WARNINGS if any(c.lower() in w[2].lower() for c, _why in CAUSES)]


CKPT_WARN = ("[rank0]:/usr/lib/python3.10/site-packages/torch/utils/checkpoint.py:91: UserWarning: None of the inputs "
             "have requires_grad=True. Gradients will be None\n[rank0]:  warnings.warn(\n")


def test_checkpointing_without_input_gradients_is_the_cause_not_a_harmless_warning(tmp_path):
    # torch/utils/checkpoint.py check_backward_validity: reentrant checkpointing, frozen embeddings - the loss does not
    # train although the run goes on
    flat = "".join(f"{{'loss': 2.3026, 'grad_norm': 0.0, 'learning_rate': 1.9{i}e-05, 'epoch': 0.0{i}}}\n"
                   for i in range(1, 5))
    exp, root = _explain(tmp_path, LOAD + START + CKPT_WARN + flat + " 4%|4         | 40/1000 [01:02<24:40,  1.54s/it]\n")
    assert root is not None and root.code == "checkpoint-inputs-no-grad"
    assert exp.answer == "config_error" and "enable_input_require_grads" in root.fix
    # a failure the log names comes first: the warning is not the root then
    oom = ("[rank0]: torch.OutOfMemoryError: HIP out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total "
           "capacity of 63.98 GiB of which 1.10 GiB is free.\n")
    exp2, root2 = _explain(tmp_path, LOAD + START + CKPT_WARN + oom, "oom.log")
    assert root2 is not None and exp2.answer == "gpu_oom"


def test_rccl_adjusting_a_setting_and_rocblas_falling_back_are_harmless(tmp_path):
    # RCCL src/graph/connect.cc and src/init.cc: WARN()s that limit or ignore a setting and go on (no error return
    # after them); rocBLAS library/src/tensile_host.cpp's XF32 fallback. Two ranks, then training.
    text = (START +
            "node01:41233:41233 [0] NCCL WARN User asked for a minimum of 64 channels, limiting to 32\n"
            "node01:41234:41234 [1] NCCL WARN User asked for a minimum of 64 channels, limiting to 32\n"
            "node01:41233:41233 [0] NCCL WARN NCCL_WORK_FIFO_DEPTH=1000 is being ignored because it is not a power "
            "of 2.\n"
            "rocBLAS warning: No Tensile solution found for XF32, fall back to FP32\n" + STEPS)
    exp, root = _explain(tmp_path, text)
    assert root is None and exp.answer == "benign_warning"
    libs = {lib for lib, _src in _named(exp)}
    assert {"rccl", "rocblas"} <= libs, _named(exp)
    # RCCL's WARN on its failure path (an error returned after it) is not in the table
    assert lw.warning_of("node01:1:1 [0] NCCL WARN NET/Socket : No usable listening interface found") is None


def test_a_python_warning_of_a_library_category_is_harmless_whatever_its_words(tmp_path):
    # CPython warnings.formatwarning prints `{file}:{line}: {category}: {message}` for any category: sklearn's
    # ConvergenceWarning ("failed"), xFormers' TritonWarning ("Error caught was"), Lightning's PossibleUserWarning
    text = (START +
            "/usr/lib/python3.10/site-packages/sklearn/linear_model/_logistic.py:469: ConvergenceWarning: lbfgs "
            "failed to converge (status=1):\nSTOP: TOTAL NO. OF ITERATIONS REACHED LIMIT.\n" + STEPS +
            "[rank1]:/usr/lib/python3.10/site-packages/lightning/pytorch/trainer/connectors/data_connector.py:441: "
            "PossibleUserWarning: The 'train_dataloader' does not have many workers which may be a bottleneck.\n" +
            STEPS)
    exp, root = _explain(tmp_path, text)
    assert root is None and exp.answer == "benign_warning"
    assert all(d.benign for d in exp.diagnoses)
    # each warning line is read (as harmless), the one with failure words included
    seen = [h.text for d in exp.diagnoses for h in d.evidence]
    assert any("ConvergenceWarning" in t for t in seen) and any("PossibleUserWarning" in t for t in seen)
