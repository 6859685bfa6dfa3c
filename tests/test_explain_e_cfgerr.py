"""explain (issue 26 item 5, e-cfgerr): config_error read by where the check that refused the settings lives (a
trainer's __init__, transformers' DeepSpeed integration, accelerate's dataclasses, vLLM's SamplingParams, torchrun's
own argument handling, Slurm's submission refusals, a shell running a command's --option) and by the checks' own
wording (a bound, a divisibility, a missing argument); the runners' warning records and the libraries' level-less
notes as harmless context, never a root. Lines are the libraries' own messages (the source file is named at each),
wrapped in realistic noise; none is a corpus case's log."""

from __future__ import annotations

import pytest

from tests.helpers_explain import explain_text

NOISE = ("[2025-03-02 10:01:11,402] [INFO] [real_accelerator.py:222:get_accelerator] Setting ds_accelerator to cuda "
         "(auto detect)\n"
         "Loading checkpoint shards: 100%|██████████| 4/4 [00:07<00:00,  1.82s/it]\n")
TEARDOWN = ("E0302 10:01:40.118000 140 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: 1) "
            "local_rank: 0 (pid: 311) of binary: /opt/conda/bin/python3\n")
PROGRESS = ("{'loss': 1.2345, 'grad_norm': 0.98, 'learning_rate': 1.9e-05, 'epoch': 0.12}\n"
            " 12%|█▏        | 120/1000 [03:12<23:31,  1.60s/it]\n"
            "{'loss': 1.1021, 'grad_norm': 0.91, 'learning_rate': 1.8e-05, 'epoch': 0.24}\n"
            " 24%|██▍       | 240/1000 [06:24<20:19,  1.60s/it]\n")
FINISHED = ("{'train_runtime': 812.4, 'train_samples_per_second': 9.8, 'train_steps_per_second': 0.61, "
            "'train_loss': 1.0312, 'epoch': 3.0}\n100%|██████████| 500/500 [13:32<00:00,  1.62s/it]\n")
SITE = "/opt/conda/lib/python3.10/site-packages"


def tb(*frames: tuple[str, int, str, str]) -> str:
    out = "Traceback (most recent call last):\n"
    for path, line, fn, code in frames:
        out += f'  File "{path}", line {line}, in {fn}\n    {code}\n'
    return out


FAILURES = [
    # trl/trainer/grpo_trainer.py GRPOTrainer.__init__ (the message template quoted in huggingface/trl#3061); the
    # same check in ms-swift's swift/trainers/rlhf_trainer/grpo_trainer.py
    ("trl-grpo-trainer-init-batch-check", "config_error",
     tb(("/work/grpo.py", 52, "<module>", "trainer = GRPOTrainer("),
        (f"{SITE}/trl/trainer/grpo_trainer.py", 409, "__init__", "raise ValueError(")) +
     "ValueError: The global train batch size (3 x 2) must be evenly divisible by the number of generations per prompt "
     "(4). Given the current train batch size, the valid values for the number of generations are: [2, 3, 6].\n"),
    ("grpo-batch-check-without-frames", "config_error",
     "[rank1]: ValueError: The global train batch size (2 x 1) must be evenly divisible by the number of generations "
     "per prompt (8). Given the current train batch size, the valid values for the number of generations are: [2].\n"),
    # transformers/deepspeed.py deepspeed_init (huggingface/transformers#11044)
    ("transformers-deepspeed-init-offload-optimizer", "config_error",
     tb(("/work/run_summarization.py", 541, "main", "train_result = trainer.train(resume_from_checkpoint=checkpoint)"),
        (f"{SITE}/transformers/trainer.py", 1118, "train", "deepspeed_engine, optimizer, lr_scheduler = deepspeed_init("),
        (f"{SITE}/transformers/deepspeed.py", 329, "deepspeed_init",
         'raise ValueError("ZeRO Offload can only work with DeepSpeed optimizers")')) +
     "ValueError: ZeRO Offload can only work with DeepSpeed optimizers\n"),
    # accelerate/state.py AcceleratorState.__init__
    ("accelerate-fsdp-needs-distributed", "config_error",
     tb((f"{SITE}/accelerate/state.py", 211, "__init__",
         'raise ValueError("Using fsdp only works in distributed training.")')) +
     "ValueError: Using fsdp only works in distributed training.\n"),
    # vllm/sampling_params.py SamplingParams._verify_args, reached from ms-swift's vLLM engine (ms-swift#8223 wording)
    ("vllm-sampling-params-verify", "config_error",
     tb((f"{SITE}/swift/llm/infer/infer_engine/vllm_engine.py", 384, "_prepare_generation_config",
         "res = SamplingParams(**kwargs)"),
        (f"{SITE}/vllm/sampling_params.py", 364, "__post_init__", "self._verify_args()"),
        (f"{SITE}/vllm/sampling_params.py", 406, "_verify_args", "raise ValueError(")) +
     "ValueError: max_tokens must be at least 1, got -239.\n"),
    # transformers' GenerationConfig.validate wording (ms-swift#3032), no frames
    ("generation-bound-without-frames", "config_error",
     "ValueError: `max_new_tokens` must be greater than 0, but is -930.\n"),
    # torch/distributed/run.py determine_local_world_size
    ("torchrun-nproc-per-node", "config_error",
     tb(("/usr/local/bin/torchrun", 8, "<module>", "sys.exit(main())"),
        ("/usr/local/lib/python3.10/dist-packages/torch/distributed/run.py", 717, "determine_local_world_size",
         'raise ValueError(f"Unsupported nproc_per_node value: {nproc_per_node}") from e')) +
     "ValueError: Unsupported nproc_per_node value: gpus\n"),
    # Slurm's submission refusals (src/common/slurm_errno.c)
    ("sbatch-invalid-gres", "config_error",
     "sbatch: error: Batch job submission failed: Invalid generic resource (gres) specification\n"),
    ("srun-node-configuration", "config_error",
     "srun: error: Unable to allocate resources: Requested node configuration is not available\n"),
    # megatron/training/arguments.py validate_args (ms-swift#5737), pasted without its frames
    ("megatron-layers-pp-without-frames", "config_error",
     "[rank14]: AssertionError: Number of layers should be divisible by the pipeline-model-parallel size\n"),
    # bash running the command's own option after a line lost its backslash (ms-swift#2326's shape)
    ("shell-ran-an-option", "config_error",
     "run.sh: line 7: --model_id_or_path: command not found\n"),
    # ms-swift 2.x swift/llm/utils/argument.py: the argument itself named as missing, without its frames
    ("argument-named-missing", "config_error",
     "ValueError: self.dataset: [], Please input the training dataset.\n"),
    # transformers/hf_argparser.py string_to_bool through argparse
    ("argparse-truthy", "config_error",
     "usage: train.py [-h] [--bf16 [BF16]]\ntrain.py: error: argument --bf16: Truthy value expected: got auto but "
     "expected one of yes/no, true/false, t/f, y/n, 1/0 (case insensitive).\n"),
]


@pytest.mark.parametrize("name,family,lines", FAILURES, ids=[f[0] for f in FAILURES])
def test_settings_refused_before_the_first_step_are_config_errors(tmp_path, name, family, lines):
    e, r = explain_text(tmp_path, NOISE + lines + TEARDOWN)
    assert r is not None and not r.benign, (name, e.answer)
    assert e.answer == family, (name, e.answer, r.code)


def test_rocr_and_cuda_visible_devices_together_are_the_settings(tmp_path):
    # Parsl/parsl#3858: ROCR_VISIBLE_DEVICES narrows the node first, CUDA/HIP_VISIBLE_DEVICES then index into it
    err = (tb(("<string>", 1, "<module>", ""),
              (f"{SITE}/torch/cuda/__init__.py", 372, "_lazy_init", "torch._C._cuda_init()")) +
           "RuntimeError: No HIP GPUs are available\n")
    e, r = explain_text(tmp_path, "> ROCR_VISIBLE_DEVICES=1 CUDA_VISIBLE_DEVICES=1 python -c \"import torch; "
                                  "torch.zeros(4).to('cuda')\"\n" + err)
    assert r is not None and e.answer == "config_error", (e.answer, r.code if r else None)
    assert "ROCR_VISIBLE_DEVICES" in r.fix
    # the same error with one mask only is not read as the masks
    e, r = explain_text(tmp_path, "> CUDA_VISIBLE_DEVICES=1 python -c \"import torch; torch.zeros(4).to('cuda')\"\n"
                        + err, name="one.log")
    assert r is not None and e.answer != "config_error", (e.answer, r.code)


HARMLESS = [
    # ms-swift's own warning record (swift/llm/infer/infer_engine/vllm_engine.py, ms-swift#6023 wording)
    ("swift-warning-record",
     "[WARNING:swift] max_model_len(10240) - num_tokens(1505) < max_tokens(10240). Setting max_tokens: 8735\n"),
    # LLaMA-Factory's logger format (llamafactory/extras/logging.py) with hparams/parser.py's advice
    ("llamafactory-warning-record",
     "[WARNING|2025-02-10 10:02:13] llamafactory.hparams.parser:162 >> We recommend enable `upcast_layernorm` in "
     "quantized training.\n"),
    # accelerate/commands/launch.py _validate_launch_command (bmaltais/kohya_ss#1735)
    ("accelerate-launch-defaults",
     "The following values were not passed to `accelerate launch` and had defaults used instead:\n"
     "\t`--num_processes` was set to a value of `1`\n\t`--num_machines` was set to a value of `1`\n"
     "To avoid this warning pass in values for each of the problematic parameters or run `accelerate config`.\n"),
    # accelerate/utils/other.py check_os_kernel
    ("accelerate-kernel-advisory",
     "Detected kernel version 5.4.0, which is below the recommended minimum of 5.5.0; this can cause the process to "
     "hang. It is recommended to upgrade the kernel to the minimum version or higher.\n"),
    # wandb's rocm-smi probe on an NVIDIA-only allocation (wandb/wandb#7319)
    ("wandb-no-amd-gpus", "WARNING: No AMD GPUs specified\nWARNING: No AMD GPUs specified\n"),
    # the ROCm wheel's libdrm in a venv (pytorch/pytorch#144203, removed as benign by #147791) and collect_env's
    # unreadable fields
    ("amdgpu-ids-and-collect-env",
     "amdgpu.ids: No such file or directory\namdgpu.ids: No such file or directory\nPyTorch version: 2.5.1+rocm6.2\n"
     "CUDA runtime version: Could not collect\nNvidia driver version: Could not collect\n"
     "cuDNN version: Could not collect\nHIP runtime version: 6.2.41133\n"),
    # RCCL on MI300 without MSCCL++'s environment (ROCm/Megatron-LM#65 review)
    ("rccl-msccl-notice",
     "node1:1234:1290 [0] NCCL WARN MSCCL++: Cannot enable MSCCL++; environment is not MSCCL compatible\n"),
    # TensorFlow's info-level record that mentions round-off errors
    ("tf-info-record",
     "2024-06-01 10:00:00.123456: I tensorflow/core/util/port.cc:113] oneDNN custom operations are on. You may see "
     "slightly different numerical results due to floating-point round-off errors from different computation orders. "
     "To turn them off, set the environment variable `TF_ENABLE_ONEDNN_OPTS=0`.\n"),
]


@pytest.mark.parametrize("name,lines", HARMLESS, ids=[h[0] for h in HARMLESS])
def test_harmless_notes_of_a_run_that_goes_on_are_no_failure(tmp_path, name, lines):
    e, r = explain_text(tmp_path, NOISE + lines + PROGRESS)
    assert r is None, (name, r.code if r else None)
    assert e.answer == "benign_warning", (name, e.answer)


def test_rccl_iommu_advisory_is_harmless_when_the_run_goes_on_and_a_hang_sign_when_it_stops_there(tmp_path):
    # rccl src/init.cc: `NCCL WARN Missing "iommu=pt" from kernel command line which can lead to system instablity or
    # hang!` — training steps after it show the run did not hang there
    warn = ("node1:2211:2211 [0] NCCL WARN Missing \"iommu=pt\" from kernel command line which can lead to system "
            "instablity or hang!\n")
    e, r = explain_text(tmp_path, NOISE + warn + PROGRESS)
    assert r is None and e.answer == "benign_warning", (e.answer, r.code if r else None)
    e, r = explain_text(tmp_path, NOISE + PROGRESS + warn, name="stopped.log")
    assert r is not None and r.code == "iommu-p2p-hang", (e.answer, r.code if r else None)


def test_a_runner_warning_record_is_never_the_root_of_a_real_failure(tmp_path):
    text = (NOISE + "[WARNING:swift] Failed to import `liger_kernel`; you can install it with `pip install "
            "liger-kernel`.\n" + "[rank0]: ValueError: The global train batch size (1 x 1) must be evenly divisible by "
            "the number of generations per prompt (16). Given the current train batch size, the valid values for the "
            "number of generations are: [].\n" + TEARDOWN)
    e, r = explain_text(tmp_path, text)
    assert r is not None and not r.benign and e.answer == "config_error", (e.answer, r.code if r else None)


def test_a_clean_finished_log_with_runner_warnings_says_no_failure(tmp_path):
    e, r = explain_text(tmp_path, NOISE + "[WARNING:swift] The current model does not support gradient "
                        "checkpointing.\n" + PROGRESS + FINISHED)
    assert r is None and e.status == "finished" and e.answer == "benign_warning", (e.status, e.answer)


def test_a_setting_refused_on_one_rank_outranks_the_peers_that_saw_it_go(tmp_path):
    # transformers/training_args.py __post_init__ on rank 0; rank 1 then sees its peer exit (torch's ProcessGroupNCCL
    # `remote process exited or there was a network error`): the refused setting is the cause, the peer loss follows
    cfg = (f'[rank0]: Traceback (most recent call last):\n[rank0]:   File "{SITE}/transformers/training_args.py", line '
           "1683, in __post_init__\n[rank0]:     raise ValueError(\n[rank0]: ValueError: --load_best_model_at_end "
           "requires the save and eval strategy to match, but found\n[rank0]: - Evaluation strategy: IntervalStrategy.NO\n"
           "[rank0]: - Save strategy: SaveStrategy.STEPS\n")
    peer = ("[rank1]: torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/"
            "ProcessGroupNCCL.cpp:1970, remote process exited or there was a network error, NCCL version 2.20.5\n")
    for order, text in (("cause-first", cfg + peer), ("peer-first", peer + cfg)):
        e, r = explain_text(tmp_path, NOISE + text + TEARDOWN, name=f"{order}.log")
        assert r is not None and e.answer == "config_error", (order, e.answer, r.code if r else None)


@pytest.mark.parametrize("name,lines", [
    # accelerate/commands/launch.py launch_command_parser: argparse under a multi-word prog name
    ("accelerate-launch-argparse",
     "usage: accelerate <command> [<args>] launch [-h] [--mixed_precision {no,fp16,bf16,fp8}] training_script\n"
     "accelerate <command> [<args>] launch: error: argument --mixed_precision: invalid choice: 'bfloat16' (choose "
     "from 'no', 'fp16', 'bf16', 'fp8')\n"),
    # click/exceptions.py BadParameter behind a click CLI (axolotl's `axolotl train CONFIG`)
    ("click-bad-parameter",
     "Usage: axolotl train [OPTIONS] CONFIG\nTry 'axolotl train --help' for help.\n\n"
     "Error: Invalid value for 'CONFIG': Path 'examples/llama-3/lora-8b.yml' does not exist.\n"),
    # yacs/config.py _merge_a_into_b
    ("yacs-non-existent-key",
     tb(("/work/tools/train_net.py", 40, "setup", "cfg.merge_from_file(args.config_file)"),
        (f"{SITE}/yacs/config.py", 491, "_merge_a_into_b", 'raise KeyError("Non-existent config key: {}".format(full_key))'))
     + "KeyError: 'Non-existent config key: SOLVER.WARMUP_ITER'\n"),
])
def test_launchers_and_config_libraries_refusing_a_value(tmp_path, name, lines):
    e, r = explain_text(tmp_path, NOISE + lines)
    assert r is not None and e.answer == "config_error", (name, e.answer, r.code if r else None)


def test_a_request_longer_than_the_engines_max_model_len_is_the_setting(tmp_path):
    # vllm/engine/llm_engine.py _validate_model_input behind ms-swift's deploy server (uvicorn's 500 access line first)
    text = ("INFO:     Uvicorn running on http://0.0.0.0:8080 (Press CTRL+C to quit)\n"
            "INFO:     127.0.0.1:48484 - \"POST /v1/chat/completions HTTP/1.1\" 500 Internal Server Error\n"
            "ERROR:    Exception in ASGI application\n"
            + tb((f"{SITE}/vllm/engine/llm_engine.py", 1017, "_validate_model_input", "raise ValueError(")) +
            "ValueError: The decoder prompt (length 40127) is longer than the maximum model length of 32768. Make sure "
            "that `max_model_len` is no smaller than the number of text tokens.\n")
    e, r = explain_text(tmp_path, text)
    assert r is not None and e.answer == "config_error", (e.answer, r.code if r else None)
