"""explain's memory and precision families on spellings the tools print (issue 26, item 5).

The lines are written the way their sources print them: torch.multiprocessing.spawn's ProcessExitedException, a
shell's `Killed` after a tqdm bar and in other locales, PBS/Torque's and LSF's memory-limit kills,
clip_grad_norm_(error_if_nonfinite=True), timm/YOLO's non-finite-loss stop, Keras' TerminateOnNaN, TensorFlow's
NanLossDuringTrainingError, a plain loop's `loss nan`. The boundaries are tested on whole logs: a NaN loss is an fp16
overflow only when the run states fp16 (Lightning's AMP line, a GradScaler, --mixed_precision fp16), a NaN loss in a
bf16 run is a NaN loss; an OOM outside the training step (generation, a LoRA merge in a notebook, a logger that prints
the message before its traceback) says where it happened and gives that phase's fix, not the training levers.
"""

from __future__ import annotations

import pytest

from rocm_tune.core.runs.diagnose.diagnose import explain_text, run_precision


def _root(exp):
    assert exp.root is not None, exp
    d = exp.diagnoses[exp.root]
    assert not d.benign
    return d


HOST_RAM = [
    "torch.multiprocessing.spawn.ProcessExitedException: process 1 terminated with signal SIGKILL",
    " 37%|███▋      | 1108/3000 [41:07<1:10:12,  2.23s/it]Killed",
    "Getötet",
    "=>> PBS: job killed: mem 134217728kb exceeded limit 125829120kb",
    "TERM_MEMLIMIT: job killed after reaching LSF memory usage limit.",
    "[1]    48213 killed     python train.py --config qwen_lora.yaml",
    "The kernel appears to have died. It will restart automatically.",
]


@pytest.mark.parametrize("line", HOST_RAM)
def test_host_ram_kills_in_their_own_spellings_are_host_ram_oom(line):
    d = _root(explain_text("{'loss': 1.2107, 'grad_norm': 0.4413, 'learning_rate': 1.9e-05, 'epoch': 0.41}\n"
                           + line + "\n"))
    assert d.family == "host_ram_oom", (line, d.code)


NAN = [
    "RuntimeError: The total norm of order 2.0 for gradients from `parameters` is non-finite, so it cannot be clipped. "
    "To disable this error and scale the gradients by the non-finite norm anyway, set `error_if_nonfinite=False`",
    "WARNING: non-finite loss, ending training  tensor([nan], device='cuda:0')",
    "Batch 212: Invalid loss, terminating training",
    "tensorflow.python.training.basic_session_run_hooks.NanLossDuringTrainingError: NaN loss during training.",
    "epoch 001:   1%|  | 11/1402 [00:09<19:52, loss nan, nll_loss nan, ppl nan, wps 7014, lr 1.5e-06]",
]


@pytest.mark.parametrize("line", NAN)
def test_non_finite_loss_spellings_are_nan_loss_when_the_precision_is_not_fp16(line):
    d = _root(explain_text("Using bfloat16 Automatic Mixed Precision (AMP)\n" + line + "\n"))
    assert d.family == "nan_loss", (line, d.code)


_LIGHTNING = ("GPU available: True (cuda), used: True\n{amp}\n"
              "Epoch 0:  12%|█▏        | 210/1714 [01:51<13:17,  1.89it/s, loss=nan, v_num=0]\n")


def test_the_runs_precision_decides_between_fp16_overflow_and_nan_loss():
    fp16 = explain_text(_LIGHTNING.format(amp="Using 16bit native Automatic Mixed Precision (AMP)"))
    assert _root(fp16).family == "fp16_overflow"
    bf16 = explain_text(_LIGHTNING.format(amp="Using bfloat16 Automatic Mixed Precision (AMP)"))
    assert _root(bf16).family == "nan_loss"
    assert "bf16 is already on" in _root(bf16).fix          # the lever the log shows on is not suggested again
    assert run_precision(["trainer = Trainer(precision='bf16-mixed')"]) == "bf16"
    assert run_precision(["accelerate launch --mixed_precision fp16 train.py"]) == "fp16"
    # a plain loop: the GradScaler is what says fp16 (bf16 and fp32 need no loss scaler)
    loop = "iter 2 loss 2.1954\niter 3 loss nan\n"
    assert _root(explain_text(loop)).family == "nan_loss"
    scaled = "  scaler = torch.cuda.amp.GradScaler()\n" + loop
    assert _root(explain_text(scaled)).family == "fp16_overflow"


_OOM = ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 280.00 MiB. GPU 0 has a total capacity of "
        "14.74 GiB of which 120.06 MiB is free. Of the allocated memory 13.91 GiB is allocated by PyTorch, and "
        "{ru} is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting "
        "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory "
        "Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)")


def test_an_oom_while_merging_in_a_notebook_names_the_merge_and_not_the_training_levers():
    log = ("Unsloth: Merging 4bit and LoRA weights to 16bit...\n"
           "---------------------------------------------------------------------------\n"
           "OutOfMemoryError                          Traceback (most recent call last)\n"
           "[/usr/local/lib/python3.11/dist-packages/unsloth/save.py](https://localhost:8080/#) in _merge_lora(layer, "
           "name)\n    176             # if not torch.isfinite(W).all():\n"
           "--> 177             maximum_element = torch.max(W.min().abs(), W.max())\n\n"
           + _OOM.format(ru="31.50 MiB") + "\n")
    exp = explain_text(log)
    d = _root(exp)
    assert d.family == "gpu_oom" and d.numbers.get("phase") == "merge"
    assert d.first.text.startswith("torch.OutOfMemoryError")       # the message, not IPython's traceback header
    assert "merging" in d.fix and "per_device_train_batch_size" not in d.fix
    assert "training step" not in d.cause


def test_an_oom_in_generation_is_found_from_the_call_on_the_frames_source_line():
    log = ('Traceback (most recent call last):\n'
           '  File "/home/u/app/captioning_thread.py", line 366, in run\n'
           '    generated_token_ids = model.generate(**model_inputs, **generation_parameters)\n'
           '  File "/home/u/venv/lib/python3.11/site-packages/torch/utils/_contextlib.py", line 115, in '
           'decorate_context\n    return func(*args, **kwargs)\n' + _OOM.format(ru="31.50 MiB") + "\n")
    d = _root(explain_text(log))
    assert d.numbers.get("phase") == "generation" and "while generating" in d.fix


def test_fragmentation_is_named_when_reserved_but_unallocated_covers_the_request_unless_the_setting_is_on():
    frag = _root(explain_text(_OOM.format(ru="1.20 GiB") + "\n"))
    assert "may be fragmentation" in frag.fix and "expandable_segments:True" in frag.fix
    on = _root(explain_text("export PYTORCH_HIP_ALLOC_CONF=expandable_segments:True\n" + _OOM.format(ru="1.20 GiB")
                            + "\n"))
    assert "already set" in on.fix and "set PYTORCH_HIP_ALLOC_CONF" not in on.fix
    short = _root(explain_text(_OOM.format(ru="20.00 MiB") + "\n"))
    assert "may be fragmentation" not in short.fix


def test_dotted_config_prints_and_the_zero_optimizer_line_state_the_precision():
    ds = ["[2024-09-03 02:37:24,137] [INFO] [config.py:1001:print]   bfloat16_enabled ............. True",
          "[2024-09-03 02:37:24,137] [INFO] [config.py:1001:print]   fp16_enabled ................. False"]
    assert run_precision(ds) == "bf16"
    assert run_precision(["  bf16 ............................................ False",
                          "  fp16 ............................................ True"]) == "fp16"
    assert run_precision(["[INFO] [logging.py:96:log_dist] [Rank 0] Creating torch.bfloat16 ZeRO stage 3 optimizer"]) \
        == "bf16"


@pytest.mark.parametrize("line", [
    " iteration      120/  500000 | lm loss: 7.212E+00 | loss scale: 1.0 | number of skipped iterations:   0 | "
    "number of nan iterations:   3 |",
    "ValueError: Expected parameter loc (Tensor of shape (8, 4)) of distribution Normal(loc: torch.Size([8, 4]), "
    "scale: torch.Size([8, 4])) to satisfy the constraint Real(), but found invalid values:",
    "微调Qwen2-7B-Instruct，用的bf16，训练一段时间后loss为nan",
])
def test_megatron_distributions_and_the_users_own_words_name_a_nan_loss(line):
    assert _root(explain_text(line + "\n")).family == "nan_loss"


def test_a_loss_stated_as_all_zero_is_fp16_overflow_in_fp16_and_nan_loss_in_bf16():
    said = "使用baichuan2-13B进行微调时出现loss全为0的情况\n"
    assert _root(explain_text(said + "    --fp16 \\\n")).family == "fp16_overflow"
    assert _root(explain_text(said + "    --bf16 \\\n")).family == "nan_loss"
    assert _root(explain_text("the loss is always 0 after step 30\nbf16: true\n")).family == "nan_loss"


@pytest.mark.parametrize("head,absent", [
    ("NPROC_PER_NODE=8 swift sft --model Qwen/Qwen2.5-7B-Instruct --deepspeed zero3-offload --train_type full\n",
     ("offload the optimizer", "shard with DeepSpeed ZeRO-3")),
    ("[INFO] [logging.py:96:log_dist] [Rank 0] DeepSpeed Basic Optimizer = DeepSpeedCPUAdam\n",
     ("offload the optimizer",)),
    ("fsdp_config:\n  fsdp_sharding_strategy: FULL_SHARD\n  fsdp_activation_checkpointing: true\n",
     ("shard with DeepSpeed ZeRO-3", "turn gradient checkpointing on")),
    ("model, tokenizer = FastLanguageModel.from_pretrained(...)\nuse_gradient_checkpointing = \"unsloth\"\n"
     "   \\\\   /|    Num examples = 3,000 | Num Epochs = 1 | Total steps = 60\n"
     "O^O/ \\_/ \\    Batch size per device = 1 | Gradient accumulation steps = 8\n",
     ("turn gradient checkpointing on", "lower per_device_train_batch_size")),
])
def test_a_memory_lever_the_log_shows_on_is_not_suggested_again(head, absent):
    oom = ("  File \"/x/transformers/trainer.py\", line 3318, in training_step\n    loss = self.compute_loss(model, "
           "inputs)\n" + _OOM.format(ru="20.00 MiB") + "\n")
    d = _root(explain_text(head + oom))
    assert d.family == "gpu_oom"
    for words in absent:
        assert words not in d.fix, (words, d.fix)
    assert "LoRA/QLoRA" in d.fix or "lower cutoff_len" in d.fix   # what is left to change is still said


@pytest.mark.parametrize("line", [
    "RuntimeError: CUDA driver error: out of memory",
    "Error: out of memory at line 380 in file /mmfs1/gscratch/zlab/timdettmers/git/bitsandbytes/csrc/pythonInterface.c",
    "ValueError: Free memory on device (10.2/23.64 GiB) on startup is less than desired GPU memory utilization (0.9, "
    "21.28 GiB). Decrease GPU memory utilization or reduce GPU memory used by other processes.",
])
def test_the_driver_apis_bitsandbytes_and_vllms_out_of_memory_are_a_gpu_oom(line):
    assert _root(explain_text(line + "\n")).family == "gpu_oom"


def test_a_bf16_runs_deepspeed_fp16_block_and_loss_scale_print_do_not_make_it_fp16():
    ds_json = ('{"fp16": {"enabled": "auto", "loss_scale": 0, "loss_scale_window": 1000, "initial_scale_power": 16},\n'
               ' "bf16": {"enabled": "auto"}, "zero_optimization": {"stage": 3}}\n')
    log = ("llamafactory-cli train examples/train_lora/qwen_lora_sft.yaml\n"
           "[INFO|2025-03-12 10:02:11] llamafactory.hparams.parser:401 >> Process rank: 0, world size: 4, device: "
           "cuda:0, distributed training: True, compute dtype: torch.bfloat16\n"
           "[2025-03-12 10:02:40,117] [INFO] [config.py:1001:print]   loss_scale ................... 0\n"
           + ds_json +
           "{'loss': 1.3391, 'grad_norm': 0.8412, 'learning_rate': 2e-05, 'epoch': 0.01}\n"
           "{'loss': 0.0, 'grad_norm': nan, 'learning_rate': 4e-05, 'epoch': 0.02}\n")
    assert _root(explain_text(log)).family == "nan_loss"
    # the same lines in an fp16 run are an fp16 overflow
    fp16 = log.replace("compute dtype: torch.bfloat16", "compute dtype: torch.float16")
    assert _root(explain_text(fp16)).family == "fp16_overflow"


def test_an_oom_capped_by_the_process_or_a_tiny_apu_carve_out_says_so_first():
    capped = ("torch.OutOfMemoryError: HIP out of memory. Tried to allocate 2.00 MiB. GPU 0 has a total capacity of "
              "255.98 GiB of which 244.65 GiB is free. 1.05 GiB allowed; Of the allocated memory 1017.01 MiB is "
              "allocated by PyTorch, with 17.00 MiB allocated in private pools (e.g., HIP Graphs), and 54.99 MiB is "
              "reserved by PyTorch but unallocated.\n")
    assert _root(explain_text(capped)).fix.startswith("this process is capped at 1.05 GiB")
    apu = ("torch.cuda.OutOfMemoryError: HIP out of memory. Tried to allocate 2.00 MiB (GPU 0; 512.00 MiB total "
           "capacity; 150.39 MiB already allocated; 312.00 MiB free; 168.00 MiB reserved in total by PyTorch)\n")
    assert "UMA frame buffer" in _root(explain_text(apu)).fix
    big = _root(explain_text(_OOM.format(ru="20.00 MiB") + "\n"))
    assert "UMA" not in big.fix and "capped" not in big.fix
