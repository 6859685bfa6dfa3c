"""explain (issue 26 item 5, r3-misc): the message shapes the tools themselves print, taken from their SOURCE (so
that logs nobody tuned on read right): torch.distributed.elastic's failure table, DeepSpeed's and accelerate's
launchers, Slurm, the kernel OOM killer and cgroup v2, errno 28/122 on save, resume errors of HF Trainer / torch /
DeepSpeed, and the config checks of TrainingArguments, PEFT, accelerate and LLaMA-Factory. Each shape is wrapped in
realistic noise (progress bars, harmless warnings, launcher teardown) and must be read as its family."""

from __future__ import annotations

import pytest

from rocm_tune.core.runs.diagnose.diagnose import diagnose

HEAD = """[2025-06-03 09:12:01,114] [INFO] [real_accelerator.py:222:get_accelerator] Setting ds_accelerator to cuda (auto detect)
/opt/conda/lib/python3.10/site-packages/transformers/training_args.py:1575: FutureWarning: `evaluation_strategy` is \
deprecated and will be removed in version 4.46 of 🤗 Transformers. Use `eval_strategy` instead
  warnings.warn(
06/03/2025 09:12:07 - INFO - llamafactory.data.loader - Loading dataset alpaca_en_demo.json...
Running tokenizer on dataset (num_proc=16): 100%|██████████| 1000/1000 [00:02<00:00, 412.31 examples/s]
`use_cache=True` is incompatible with gradient checkpointing. Setting `use_cache=False`.
 12%|█▏        | 60/500 [03:11<23:02,  3.14s/it]{'loss': 1.2345, 'grad_norm': 0.81, 'learning_rate': 4.9e-05, 'epoch': 0.36}
"""

ELASTIC = """W0603 09:40:12.551000 140 torch/distributed/elastic/multiprocessing/api.py:897] Sending process 212 closing \
signal SIGTERM
E0603 09:40:13.002000 140 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: {code}) local_rank: \
0 (pid: 211) of binary: /opt/conda/bin/python3
Traceback (most recent call last):
  File "/opt/conda/bin/torchrun", line 8, in <module>
    sys.exit(main())
  File "/opt/conda/lib/python3.10/site-packages/torch/distributed/run.py", line 892, in main
    run(args)
  File "/opt/conda/lib/python3.10/site-packages/torch/distributed/launcher/api.py", line 263, in launch_agent
    raise ChildFailedError(
torch.distributed.elastic.multiprocessing.errors.ChildFailedError:
============================================================
src/train.py FAILED
------------------------------------------------------------
Failures:
  <NO_OTHER_FAILURES>
------------------------------------------------------------
Root Cause (first observed failure):
[0]:
  time      : 2025-06-03_09:40:12
  host      : node-17
  rank      : 0 (local_rank: 0)
  exitcode  : {code} (pid: 211)
  error_file: <N/A>
  traceback : {tb}
============================================================
"""


def _tb(file: str, line: int, func: str, exc: str) -> str:
    return ("Traceback (most recent call last):\n  File \"/work/src/train.py\", line 41, in <module>\n    main()\n"
            f"  File \"{file}\", line {line}, in {func}\n    raise\n{exc}\n")


SITE = "/opt/conda/lib/python3.10/site-packages"

# (id, expected family, where the shape comes from, the failure lines)
SHAPES = [
    # --- host RAM: the killers' words and the launchers' reports of SIGKILL
    ("elastic-sigkill", "host_ram_oom", "torch/distributed/elastic/multiprocessing/errors/__init__.py",
     ELASTIC.format(code="-9", tb="Signal 9 (SIGKILL) received by PID 211")),
    ("kernel-oom", "host_ram_oom", "linux mm/oom_kill.c",
     "[ 8812.123456] Out of memory: Killed process 211 (python3) total-vm:98765432kB, anon-rss:61234567kB, "
     "file-rss:0kB, shmem-rss:0kB, UID:1000 pgtables:123456kB oom_score_adj:0\n"
     + ELASTIC.format(code="-9", tb="Signal 9 (SIGKILL) received by PID 211")),
    ("cgroup2-oom", "host_ram_oom", "linux mm/oom_kill.c (dump_oom_summary, memcg)",
     "[ 912.5] oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=docker-4f2a.scope,mems_allowed=0-1,"
     "oom_memcg=/system.slice/docker-4f2a.scope,task_memcg=/system.slice/docker-4f2a.scope,task=python3,pid=211,uid=0\n"
     "[ 912.6] Memory cgroup out of memory: Killed process 211 (python3) total-vm:88123456kB, anon-rss:31234567kB, "
     "file-rss:81234kB, shmem-rss:0kB, UID:0 pgtables:71234kB oom_score_adj:0\n"),
    ("slurm-oom-new", "host_ram_oom", "slurm src/plugins/task/cgroup (oom_kill events)",
     "slurmstepd: error: Detected 1 oom_kill event in StepId=4211.0. Some of the step tasks have been OOM Killed.\n"
     "srun: error: node-17: task 0: Out Of Memory\n"),
    ("slurm-oom-old", "host_ram_oom", "slurm task/cgroup (<= 21.08)",
     "slurmstepd: error: Detected 2 oom-kill event(s) in step 4211.batch cgroup. Some of your processes may have "
     "been killed by the cgroup out-of-memory handler.\n"),
    ("slurm-mem-limit", "host_ram_oom", "slurm jobacct_gather (memory enforcement)",
     "slurmstepd: error: Job 4211 exceeded memory limit (134217728 > 131072000), being killed\n"
     "slurmstepd: error: Exceeded job memory limit\n"
     "slurmstepd: error: *** JOB 4211 ON node-17 CANCELLED AT 2025-06-03T09:40:13 ***\n"),
    ("deepspeed-minus9", "host_ram_oom", "deepspeed/launcher/launch.py sigkill_handler",
     "[2025-06-03 09:40:12,318] [INFO] [launch.py:319:sigkill_handler] Killing subprocess 211\n"
     "[2025-06-03 09:40:12,318] [INFO] [launch.py:319:sigkill_handler] Killing subprocess 212\n"
     "[2025-06-03 09:40:12,801] [ERROR] [launch.py:325:sigkill_handler] ['/opt/conda/bin/python3', '-u', "
     "'src/train.py', '--local_rank=1', '--deepspeed', 'ds_z3.json'] exits with return code = -9\n"),
    ("accelerate-sigkill", "host_ram_oom", "accelerate/commands/launch.py simple_launcher (CalledProcessError)",
     "Traceback (most recent call last):\n  File \"/opt/conda/bin/accelerate\", line 8, in <module>\n"
     "    sys.exit(main())\n"
     f"  File \"{SITE}/accelerate/commands/launch.py\", line 1001, in simple_launcher\n"
     "    raise subprocess.CalledProcessError(returncode=process.returncode, cmd=cmd)\n"
     "subprocess.CalledProcessError: Command '['/opt/conda/bin/python3', 'train.py', '--bf16']' died with "
     "<Signals.SIGKILL: 9>.\n"),
    ("cpu-alloc", "host_ram_oom", "c10/core/impl/alloc_cpu.cpp",
     _tb(f"{SITE}/torch/serialization.py", 1470, "load",
         "RuntimeError: [enforce fail at alloc_cpu.cpp:117] data. DefaultCPUAllocator: not enough memory: you tried "
         "to allocate 1073741824 bytes.")),
    # --- disk full / quota while saving
    ("errno28-torch-save", "disk_full_save", "torch/serialization.py (PyTorchFileWriter)",
     _tb(f"{SITE}/torch/serialization.py", 967, "save",
         "RuntimeError: [enforce fail at inline_container.cc:603] . unexpected pos 1536960512 vs 1536960400")
     + "\nDuring handling of the above exception, another exception occurred:\n\n"
     + _tb(f"{SITE}/torch/serialization.py", 966, "save",
           "RuntimeError: [enforce fail at inline_container.cc:764] . PytorchStreamWriter failed writing file "
           "data/113: file write failed")),
    ("errno28-safetensors", "disk_full_save", "safetensors bindings (SafetensorError from io::Error)",
     _tb(f"{SITE}/safetensors/torch.py", 286, "save_file",
         "safetensors_rust.SafetensorError: Error while serializing: IoError(Os { code: 28, kind: StorageFull, "
         "message: \"No space left on device\" })")),
    ("errno28-shutil", "disk_full_save", "shutil.copyfile (OSError errno 28)",
     _tb("/opt/conda/lib/python3.10/shutil.py", 267, "copyfile",
         "OSError: [Errno 28] No space left on device: '/output/checkpoint-500/optimizer.pt'")),
    ("errno122-quota", "disk_full_save", "OSError errno EDQUOT (122)",
     _tb(f"{SITE}/transformers/trainer.py", 3321, "_save_checkpoint",
         "OSError: [Errno 122] Disk quota exceeded: '/home/u/out/checkpoint-1000/model-00002-of-00004.safetensors'")),
    ("errno27-efbig", "disk_full_save", "OSError errno EFBIG (file system / ulimit -f largest file)",
     _tb(f"{SITE}/torch/serialization.py", 652, "save", "OSError: [Errno 27] File too large")),
    ("winerr112", "disk_full_save", "Windows ERROR_DISK_FULL",
     _tb(f"{SITE}/torch/serialization.py", 652, "save", "OSError: [WinError 112] There is not enough space on the disk")),
    ("errno28-zh", "disk_full_save", "glibc zh_CN strerror(ENOSPC)",
     _tb(f"{SITE}/torch/serialization.py", 652, "save", "OSError: [Errno 28] 设备上没有空间")),
    # --- resume / checkpoint mismatch
    ("no-valid-ckpt", "checkpoint_resume_mismatch", "transformers/trainer.py _load_from_checkpoint",
     _tb(f"{SITE}/transformers/trainer.py", 2815, "_load_from_checkpoint",
         "ValueError: Can't find a valid checkpoint at /output/checkpoint-500")),
    ("size-mismatch", "checkpoint_resume_mismatch", "torch/nn/modules/module.py load_state_dict",
     _tb(f"{SITE}/torch/nn/modules/module.py", 2584, "load_state_dict",
         "RuntimeError: Error(s) in loading state_dict for LlamaForCausalLM:\n\tsize mismatch for "
         "model.embed_tokens.weight: copying a param with shape torch.Size([32001, 4096]) from checkpoint, the "
         "shape in current model is torch.Size([32000, 4096]).")),
    ("missing-keys", "checkpoint_resume_mismatch", "torch/nn/modules/module.py load_state_dict",
     _tb(f"{SITE}/torch/nn/modules/module.py", 2584, "load_state_dict",
         "RuntimeError: Error(s) in loading state_dict for PeftModelForCausalLM:\n\tMissing key(s) in state_dict: "
         "\"base_model.model.model.layers.0.self_attn.q_proj.lora_A.default.weight\". \n\tUnexpected key(s) in "
         "state_dict: \"base_model.model.model.layers.0.self_attn.q_proj.lora_A.weight\". ")),
    ("optim-group", "checkpoint_resume_mismatch", "torch/optim/optimizer.py load_state_dict",
     _tb(f"{SITE}/torch/optim/optimizer.py", 880, "load_state_dict",
         "ValueError: loaded state dict contains a parameter group that doesn't match the size of optimizer's group")),
    ("optim-ngroups", "checkpoint_resume_mismatch", "torch/optim/optimizer.py load_state_dict",
     _tb(f"{SITE}/torch/optim/optimizer.py", 871, "load_state_dict",
         "ValueError: loaded state dict has a different number of parameter groups")),
    ("ds-zero-world", "checkpoint_resume_mismatch", "deepspeed/runtime/zero/stage_1_and_2.py",
     _tb(f"{SITE}/deepspeed/runtime/zero/stage_1_and_2.py", 2300, "_load_legacy_checkpoint",
         "ZeRORuntimeException: The checkpoint being loaded used a DP world size of 8 but the current world size is "
         "4. Automatic adjustment of ZeRO's optimizer state partitioning with a new world size is not currently "
         "supported.")),
    # --- config errors raised while checking the arguments
    ("ta-fp16-bf16", "config_error", "transformers/training_args.py __post_init__",
     _tb(f"{SITE}/transformers/training_args.py", 1785, "__post_init__",
         "ValueError: At most one of fp16 and bf16 can be True, but not both")),
    ("ta-best-model", "config_error", "transformers/training_args.py __post_init__",
     _tb(f"{SITE}/transformers/training_args.py", 1771, "__post_init__",
         "ValueError: --load_best_model_at_end requires the saving steps to be a round multiple of the evaluation "
         "steps, but found 500, which is not a round multiple of 300.")),
    ("ta-strategy-match", "config_error", "transformers/training_args.py __post_init__",
     _tb(f"{SITE}/transformers/training_args.py", 1751, "__post_init__",
         "ValueError: --load_best_model_at_end requires the save and eval strategy to match, except when "
         "--save_strategy=\"best\", but found\n- Evaluation strategy: IntervalStrategy.NO\n- Save strategy: "
         "SaveStrategy.STEPS")),
    ("ta-eval-steps", "config_error", "transformers/training_args.py __post_init__",
     _tb(f"{SITE}/transformers/training_args.py", 1580, "__post_init__",
         "ValueError: evaluation strategy steps requires either non-zero --eval_steps or --logging_steps")),
    ("ta-prefetch", "config_error", "transformers/training_args.py __post_init__",
     _tb(f"{SITE}/transformers/training_args.py", 1804, "__post_init__",
         "ValueError: --dataloader_prefetch_factor can only be set when data is loaded in a different process, "
         "i.e. when --dataloader_num_workers > 0.")),
    ("hfparser-extra", "config_error", "transformers/hf_argparser.py parse_dict",
     _tb(f"{SITE}/transformers/hf_argparser.py", 387, "parse_dict",
         "ValueError: Some keys are not used by the HfArgumentParser: ['lora_rnak']")),
    ("peft-layers", "config_error", "peft/tuners/lora/config.py __post_init__",
     _tb(f"{SITE}/peft/tuners/lora/config.py", 1041, "__post_init__",
         "ValueError: `layers_to_transform` cannot be used when `target_modules` is a str.")),
    ("peft-loftq", "config_error", "peft/tuners/lora/config.py __post_init__",
     _tb(f"{SITE}/peft/tuners/lora/config.py", 1059, "__post_init__",
         "ValueError: `loftq_config` must be specified when `init_lora_weights` is 'loftq'.")),
    ("accel-multigpu", "config_error", "accelerate/commands/launch.py _validate_launch_command",
     _tb(f"{SITE}/accelerate/commands/launch.py", 1209, "_validate_launch_command",
         "ValueError: You need to use at least 2 processes to use `--multi_gpu`.")),
    ("accel-device-map", "config_error", "accelerate/accelerator.py prepare_model",
     _tb(f"{SITE}/accelerate/accelerator.py", 1478, "prepare_model",
         "ValueError: You can't train a model that has been loaded with `device_map='auto'` in any distributed mode. "
         "Please rerun your script specifying `--num_processes=1` or by launching with `python {{myscript.py}}`.")),
    ("ds-hf-mismatch", "config_error", "transformers/integrations/deepspeed.py trainer_config_finalize",
     _tb(f"{SITE}/transformers/integrations/deepspeed.py", 268, "trainer_config_finalize",
         "ValueError: Please correct the following DeepSpeed config values that mismatch TrainingArguments values:\n"
         "- ds train_micro_batch_size_per_gpu=4 vs hf per_device_train_batch_size=2\n"
         "The easiest method is to set these DeepSpeed config values to 'auto'.")),
    ("lf-quant-lora", "config_error", "llamafactory/hparams/parser.py _verify_model_args",
     _tb(f"{SITE}/llamafactory/hparams/parser.py", 104, "_verify_model_args",
         "ValueError: Quantization is only compatible with the LoRA method.")),
    ("lf-streaming", "config_error", "llamafactory/hparams/parser.py get_train_args",
     _tb(f"{SITE}/llamafactory/hparams/parser.py", 251, "get_train_args",
         "ValueError: Please specify `max_steps` in streaming mode.")),
    # --- hangs and time limits
    ("watchdog", "nccl_rccl_timeout_hang", "torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp",
     "[rank1]:[E603 09:40:12.551112 213 ProcessGroupNCCL.cpp:616] [Rank 1] Watchdog caught collective operation "
     "timeout: WorkNCCL(SeqNum=5241, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=1800000) ran for "
     "1800087 milliseconds before timing out.\n"
     + ELASTIC.format(code="-6", tb="Signal 6 (SIGABRT) received by PID 211")),
    ("store-timeout", "nccl_rccl_timeout_hang", "torch/distributed/distributed_c10d.py / TCPStore",
     _tb(f"{SITE}/torch/distributed/rendezvous.py", 189, "_create_c10d_store",
         "torch.distributed.DistStoreError: Timed out after 901 seconds waiting for clients. 1/2 clients joined.")),
    ("slurm-time", "slurm_time_limit_preemption", "slurm slurmstepd (job cancelled)",
     "slurmstepd: error: *** JOB 4211 ON node-17 CANCELLED AT 2025-06-03T21:40:13 DUE TO TIME LIMIT ***\n"
     "srun: Job step aborted: Waiting up to 32 seconds for job step to finish.\n"),
    # --- second batch: other spellings of the same families
    ("bash-killed", "host_ram_oom", "bash job report (SIGKILL from the OOM killer)",
     "/bin/bash: line 1:   211 Killed                  python3 src/train.py --config train.yaml\n"),
    ("k8s-137", "host_ram_oom", "kubectl / containerd (OOMKilled, 128+9)",
     "command terminated with exit code 137\n    Last State:     Terminated\n      Reason:       OOMKilled\n"
     "      Exit Code:    137\n"),
    ("mp-spawn-sigkill", "host_ram_oom", "torch/multiprocessing/spawn.py ProcessExitedException",
     _tb(f"{SITE}/torch/multiprocessing/spawn.py", 199, "join",
         "torch.multiprocessing.spawn.ProcessExitedException: process 1 terminated with signal SIGKILL")),
    ("dataloader-killed", "host_ram_oom", "torch/utils/data/_utils/signal_handling.py",
     _tb(f"{SITE}/torch/utils/data/_utils/signal_handling.py", 73, "handler",
         "RuntimeError: DataLoader worker (pid 4711) is killed by signal: Killed. ")),
    ("elastic-minus9-only", "host_ram_oom", "torch/distributed/elastic/multiprocessing/api.py _poll",
     "E0603 09:40:13.002000 140 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: -9) "
     "local_rank: 0 (pid: 211) of binary: /opt/conda/bin/python3\n"),
    ("datasets-disk", "disk_full_save", "datasets/builder.py (_check_disk_space)",
     _tb(f"{SITE}/datasets/builder.py", 889, "download_and_prepare",
         "OSError: Not enough disk space. Needed: 4.12 GiB (download: 1.20 GiB, generated: 2.92 GiB, "
         "post-processed: Unknown size)")),
    ("stream-writer-only", "disk_full_save", "caffe2/serialize/inline_container.cc",
     _tb(f"{SITE}/torch/serialization.py", 966, "save",
         "RuntimeError: [enforce fail at inline_container.cc:626] . PytorchStreamWriter failed writing file "
         "data/4: file write failed")),
    ("errno28-write", "disk_full_save", "io.BufferedWriter.write (OSError errno 28)",
     _tb(f"{SITE}/transformers/tokenization_utils_base.py", 2473, "save_pretrained",
         "OSError: [Errno 28] No space left on device")),
    ("peft-size-mismatch", "checkpoint_resume_mismatch", "peft/utils/save_and_load.py set_peft_model_state_dict",
     _tb(f"{SITE}/torch/nn/modules/module.py", 2584, "load_state_dict",
         "RuntimeError: Error(s) in loading state_dict for PeftModelForCausalLM:\n\tsize mismatch for "
         "base_model.model.lm_head.modules_to_save.default.weight: copying a param with shape torch.Size([151936, "
         "3584]) from checkpoint, the shape in current model is torch.Size([152064, 3584]).")),
    ("ddp-missing-keys", "checkpoint_resume_mismatch", "torch/nn/modules/module.py load_state_dict (user script)",
     "Traceback (most recent call last):\n  File \"/work/train.py\", line 88, in <module>\n"
     "    model.load_state_dict(torch.load(args.resume)[\"model\"])\n"
     "RuntimeError: Error(s) in loading state_dict for DistributedDataParallel:\n\tMissing key(s) in state_dict: "
     "\"module.fc.weight\", \"module.fc.bias\". \n\tUnexpected key(s) in state_dict: \"fc.weight\", \"fc.bias\". \n"),
    ("trl-generations", "config_error", "trl/trainer/grpo_config.py __post_init__",
     _tb(f"{SITE}/trl/trainer/grpo_config.py", 745, "__post_init__",
         "ValueError: The global train batch size (1 x 2) must be evenly divisible by the number of generations per "
         "prompt (8). Given the current train batch size, the valid values for the number of generations are: [2].")),
    ("ds-micro-batch", "config_error", "deepspeed/runtime/config.py _do_error_check",
     _tb(f"{SITE}/deepspeed/runtime/config.py", 1000, "_do_error_check",
         "AssertionError: Micro batch size per gpu: 0 has to be greater than 0")),
    # transformers filled an `auto` key with a float DeepSpeed >= 0.15 refuses: a version pairing (transformers#33402)
    ("ds-pydantic", "version_check", "deepspeed/runtime/config_utils.py (pydantic model)",
     _tb("/opt/conda/lib/python3.10/site-packages/pydantic/main.py", 212, "__init__",
         "pydantic_core._pydantic_core.ValidationError: 1 validation error for DeepSpeedZeroConfig\n"
         "stage3_prefetch_bucket_size\n  Input should be a valid integer, got a number with a fractional part "
         "[type=int_from_float, input_value=15099494.4, input_type=float]")),
    ("lf-zero3-unsloth", "config_error", "llamafactory/hparams/parser.py get_train_args",
     _tb(f"{SITE}/llamafactory/hparams/parser.py", 287, "get_train_args",
         "ValueError: Unsloth is incompatible with DeepSpeed ZeRO-3.")),
    ("slurm-preempt", "slurm_time_limit_preemption", "slurm slurmstepd (preemption)",
     "slurmstepd: error: *** STEP 4211.0 ON node-17 CANCELLED AT 2025-06-03T21:40:13 DUE TO PREEMPTION ***\n"),
    ("hb-monitor", "nccl_rccl_timeout_hang", "torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp heartbeat",
     "[rank0]:[E603 10:10:12.551112 213 ProcessGroupNCCL.cpp:1316] [PG ID 0 PG GUID 0(default_pg) Rank 0] Heartbeat "
     "monitor timed out! Process will be terminated after dumping debug info. workMetaList_.size()=1\n"),
    ("store-barrier", "nccl_rccl_timeout_hang", "torch/distributed/distributed_c10d.py _store_based_barrier",
     _tb(f"{SITE}/torch/distributed/distributed_c10d.py", 3311, "_store_based_barrier",
         "RuntimeError: Timed out initializing process group in store based barrier on rank: 1, for key: "
         "store_based_barrier_key:1 (world_size=2, worker_count=1, timeout=0:30:00)")),
    # --- third batch: rank-prefixed lines, other schedulers and OOM daemons, shared memory
    ("rank-prefixed-lf", "config_error", "llamafactory/hparams/parser.py, printed by torchrun's [rankN]: prefix",
     "[rank0]: Traceback (most recent call last):\n[rank0]:   File \"/work/LLaMA-Factory/src/llamafactory/launcher.py\", "
     "line 23, in <module>\n[rank0]:     launch()\n[rank0]:   File \"/work/LLaMA-Factory/src/llamafactory/hparams/"
     "parser.py\", line 251, in get_train_args\n[rank0]:     raise ValueError(\"Please specify `max_steps` in "
     "streaming mode.\")\n[rank0]: ValueError: Please specify `max_steps` in streaming mode.\n"),
    ("rank-prefixed-sizemm", "checkpoint_resume_mismatch", "torch load_state_dict under torchrun",
     "[rank1]: RuntimeError: Error(s) in loading state_dict for Qwen2ForCausalLM:\n[rank1]: \tsize mismatch for "
     "lm_head.weight: copying a param with shape torch.Size([151936, 3584]) from checkpoint, the shape in current "
     "model is torch.Size([152064, 3584]).\n"),
    ("shm-write", "host_ram_oom", "torch/csrc (shared memory file of a DataLoader worker)",
     _tb(f"{SITE}/torch/multiprocessing/reductions.py", 560, "reduce_storage",
         "RuntimeError: unable to write to file </torch_4711_2093746123_0>: No space left on device (28)")),
    ("systemd-oomd", "host_ram_oom", "systemd-oomd (src/oom/oomd-util.c)",
     "systemd-oomd[812]: Killed /user.slice/user-1000.slice/session-2.scope due to memory pressure for "
     "/user.slice/user-1000.slice being 64.21% > 50.00% for > 20s with reclaim activity\n"),
    ("earlyoom", "host_ram_oom", "earlyoom (kill.c)",
     "earlyoom[901]: low memory! at or below SIGTERM limits: mem 10.00%, swap 10.00%\n"
     "earlyoom[901]: sending SIGTERM to process 211 uid 1000 \"python3\": badness 912, VmRSS 61234 MiB\n"),
    ("pbs-mem", "host_ram_oom", "PBS Pro MoM (job killed: mem)",
     "=>> PBS: job killed: mem 135266304kb exceeded limit 134217728kb\n"),
    ("lsf-mem", "host_ram_oom", "IBM LSF (TERM_MEMLIMIT)",
     "TERM_MEMLIMIT: job killed after reaching LSF memory usage limit.\nExited with exit code 137.\n"),
    ("pbs-walltime", "slurm_time_limit_preemption", "PBS Pro MoM (job killed: walltime)",
     "=>> PBS: job killed: walltime 86430 exceeded limit 86400\n"),
    ("lsf-runlimit", "slurm_time_limit_preemption", "IBM LSF (TERM_RUNLIMIT)",
     "TERM_RUNLIMIT: job killed after reaching LSF run time limit.\nExited with exit code 140.\n"),
    ("cp-quota", "disk_full_save", "coreutils cp/tar (strerror EDQUOT / ENOSPC)",
     "cp: error writing '/scratch/u/out/checkpoint-900/model.safetensors': Disk quota exceeded\n"
     "tar: out/ckpt.tar: Wrote only 4096 of 10240 bytes\ntar: Error is not recoverable: exiting now\n"),
    ("trl-packing", "config_error", "trl/trainer/sft_trainer.py __init__",
     _tb(f"{SITE}/trl/trainer/sft_trainer.py", 267, "__init__",
         "ValueError: You passed `packing=False` to the SFTTrainer/SFTConfig, but you didn't pass a "
         "`dataset_text_field` or `formatting_func` argument.")),
    ("trainer-quantized", "config_error", "transformers/trainer.py __init__",
     _tb(f"{SITE}/transformers/trainer.py", 502, "__init__",
         "ValueError: You cannot perform fine-tuning on purely quantized models. Please attach trainable adapters on "
         "top of the quantized model to correctly perform fine-tuning. Please see: "
         "https://huggingface.co/docs/transformers/peft for more details")),
    ("accel-fsdp-env", "config_error", "accelerate/utils/launch.py prepare_multi_gpu_env",
     _tb(f"{SITE}/accelerate/utils/launch.py", 307, "prepare_multi_gpu_env",
         "ValueError: When using `--fsdp_cpu_ram_efficient_loading` set `--fsdp_sync_module_states` to `True`")),
    # --- fourth batch: host allocation failures, GPU OOM spellings, socket timeouts, config parsers
    ("numpy-alloc", "host_ram_oom", "numpy/core/_exceptions.py _ArrayMemoryError",
     _tb(f"{SITE}/datasets/arrow_dataset.py", 3210, "map",
         "numpy.core._exceptions._ArrayMemoryError: Unable to allocate 37.3 GiB for an array with shape (1000000, "
         "10000) and data type float32")),
    ("bad-alloc", "host_ram_oom", "libstdc++ std::bad_alloc",
     "terminate called after throwing an instance of 'std::bad_alloc'\n  what():  std::bad_alloc\n"
     "Aborted (core dumped)\n"),
    ("errno12", "host_ram_oom", "OSError errno ENOMEM (fork of a DataLoader worker)",
     _tb("/opt/conda/lib/python3.10/multiprocessing/popen_fork.py", 66, "_launch",
         "OSError: [Errno 12] Cannot allocate memory")),
    ("shm-bus", "host_ram_oom", "torch/utils/data/_utils/signal_handling.py",
     "ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient shared memory (shm).\n"
     + _tb(f"{SITE}/torch/utils/data/dataloader.py", 1133, "_try_get_data",
           "RuntimeError: DataLoader worker (pid(s) 4711) exited unexpectedly")),
    ("hip-oom", "gpu_oom", "c10/cuda/CUDACachingAllocator.cpp (HIP build)",
     _tb(f"{SITE}/torch/nn/modules/linear.py", 125, "forward",
         "torch.OutOfMemoryError: HIP out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 191.98 "
         "GiB of which 1.20 GiB is free. Of the allocated memory 180.12 GiB is allocated by PyTorch, and 8.31 GiB is "
         "reserved by PyTorch but unallocated.")),
    ("cuda-error-oom", "gpu_oom", "c10/cuda/CUDAException (cudaErrorMemoryAllocation)",
     _tb(f"{SITE}/torch/nn/modules/module.py", 1160, "convert",
         "RuntimeError: CUDA error: out of memory\nCUDA kernel errors might be asynchronously reported at some other "
         "API call, so the stacktrace below might be incorrect.\nFor debugging consider passing CUDA_LAUNCH_BLOCKING=1.")),
    ("vllm-cache", "gpu_oom", "vllm/worker (no memory for the KV cache)",
     _tb(f"{SITE}/vllm/engine/llm_engine.py", 375, "_initialize_kv_caches",
         "ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when "
         "initializing the engine.")),
    ("nccl-unhandled", "nccl_rccl_timeout_hang", "torch ProcessGroupNCCL (ncclSystemError)",
     _tb(f"{SITE}/torch/distributed/distributed_c10d.py", 2288, "all_reduce",
         "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1970, "
         "unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.20.5\nncclSystemError: System "
         "call (e.g. socket, malloc) or external library call failed or device error.")),
    ("client-socket", "nccl_rccl_timeout_hang", "torch/csrc/distributed/c10d/socket.cpp",
     "[W603 09:40:12.551112 socket.cpp:697] [c10d] The client socket has timed out after 900s while trying to "
     "connect to (10.0.0.1, 29500).\n"
     + _tb(f"{SITE}/torch/distributed/rendezvous.py", 189, "_create_c10d_store",
           "torch.distributed.DistNetworkError: The client socket has timed out after 900s while trying to connect to "
           "(10.0.0.1, 29500).")),
    ("ncclid-store", "nccl_rccl_timeout_hang", "torch ProcessGroupNCCL broadcastUniqueNCCLID",
     "[rank1]: torch.distributed.DistBackendError: [1] is setting up NCCL communicator and retrieving ncclUniqueId "
     "from [0] via c10d key-value store by key '0', but store->get('0') got error: Socket Timeout\n"),
    ("os-error-28-rust", "disk_full_save", "hf-xet / Rust std::io::Error",
     _tb(f"{SITE}/huggingface_hub/file_download.py", 1723, "_download_to_tmp_and_move",
         "RuntimeError: Data processing error: CAS service error : IO Error: No space left on device (os error 28)")),
    ("safetensors-quota", "disk_full_save", "safetensors bindings (EDQUOT)",
     _tb(f"{SITE}/safetensors/torch.py", 286, "save_file",
         "safetensors_rust.SafetensorError: Error while serializing: IoError(Os { code: 122, kind: "
         "FilesystemQuotaExceeded, message: \"Disk quota exceeded\" })")),
    ("unexpected-pos", "disk_full_save", "caffe2/serialize/inline_container.cc (short write)",
     _tb(f"{SITE}/torch/serialization.py", 967, "save",
         "RuntimeError: [enforce fail at inline_container.cc:595] . unexpected pos 3584 vs 3478")),
    ("ta-bf16-setup", "bf16_unsupported", "transformers/training_args.py __post_init__",
     _tb(f"{SITE}/transformers/training_args.py", 1782, "__post_init__",
         "ValueError: Your setup doesn't support bf16/gpu. You need to assign use_cpu if you want to train the model "
         "on CPU. You need Ampere+ GPU with cuda>=11.0.")),
    ("argparse-unrecognized", "config_error", "argparse ArgumentParser.error",
     "usage: train.py [-h] [--model_name_or_path MODEL_NAME_OR_PATH] [--lora_rank LORA_RANK]\n"
     "train.py: error: unrecognized arguments: --lora_rnak 8\n"),
    ("argparse-invalid", "config_error", "argparse ArgumentParser.error",
     "usage: train.py [-h] [--learning_rate LEARNING_RATE]\n"
     "train.py: error: argument --learning_rate: invalid float value: '2e-4,'\n"),
    ("hfparser-remaining", "config_error", "transformers/hf_argparser.py parse_args_into_dataclasses",
     _tb(f"{SITE}/transformers/hf_argparser.py", 348, "parse_args_into_dataclasses",
         "ValueError: Some specified arguments are not used by the HfArgumentParser: ['--lora_rnak', '8']")),
    ("lora-kwarg-old", "version_check", "dataclass __init__ of an older PEFT",
     "Traceback (most recent call last):\n  File \"/work/train.py\", line 30, in <module>\n"
     "    cfg = LoraConfig(r=16, use_rslora=True)\nTypeError: LoraConfig.__init__() got an unexpected keyword "
     "argument 'use_rslora'\n"),
    ("ta-kwarg-removed", "version_check", "dataclass __init__ of a newer transformers",
     "Traceback (most recent call last):\n  File \"/work/train.py\", line 52, in <module>\n"
     "    args = TrainingArguments(output_dir='o', evaluation_strategy='steps')\nTypeError: TrainingArguments.__init__() "
     "got an unexpected keyword argument 'evaluation_strategy'\n"),
    ("omegaconf-struct", "config_error", "omegaconf/errors.py (struct mode)",
     _tb(f"{SITE}/omegaconf/dictconfig.py", 353, "_get_impl",
         "omegaconf.errors.ConfigAttributeError: Key 'lr' is not in struct\n    full_key: optimizer.lr\n"
         "    object_type=dict")),
    ("yaml-scanner", "config_error", "yaml/scanner.py",
     _tb(f"{SITE}/yaml/scanner.py", 577, "fetch_value",
         "yaml.scanner.ScannerError: mapping values are not allowed here\n  in \"examples/train_lora.yaml\", line 12, "
         "column 15")),
    ("ds-json", "config_error", "deepspeed/runtime/config.py (json.load of the DeepSpeed JSON)",
     _tb(f"{SITE}/deepspeed/runtime/config.py", 680, "__init__",
         "json.decoder.JSONDecodeError: Expecting ',' delimiter: line 5 column 3 (char 88)")),
    ("ds-json-stdlib-frames", "config_error", "json/decoder.py under deepspeed/runtime/config.py",
     "Traceback (most recent call last):\n  File \"/work/train.py\", line 41, in <module>\n    main()\n"
     f"  File \"{SITE}/deepspeed/runtime/config.py\", line 680, in __init__\n"
     "    self._param_dict = hjson.load(open(config, \"r\"), object_pairs_hook=dict_raise_error_on_duplicate_keys)\n"
     "  File \"/opt/conda/lib/python3.10/json/__init__.py\", line 346, in loads\n    return _default_decoder.decode(s)\n"
     "  File \"/opt/conda/lib/python3.10/json/decoder.py\", line 355, in raw_decode\n"
     "    raise JSONDecodeError(\"Expecting value\", s, err.value) from None\n"
     "json.decoder.JSONDecodeError: Expecting value: line 12 column 22 (char 301)\n"),
    # the same error reading a dataset stays the data's
    ("dataset-json", "dataset_error", "datasets/packaged_modules/json/json.py",
     _tb(f"{SITE}/datasets/packaged_modules/json/json.py", 160, "_generate_tables",
         "json.decoder.JSONDecodeError: Expecting ',' delimiter: line 1 column 58 (char 57)")),
    ("axolotl-pydantic", "config_error", "axolotl/utils/config/models/input (pydantic)",
     _tb(f"{SITE}/axolotl/utils/config/__init__.py", 240, "validate_config",
         "pydantic_core._pydantic_core.ValidationError: 1 validation error for AxolotlConfigWCapabilities\n  Value "
         "error, sample_packing requires flash_attention or sdp_attention [type=value_error, input_value={...}, "
         "input_type=dict]")),
]


@pytest.mark.parametrize("case", SHAPES, ids=[c[0] for c in SHAPES])
def test_a_tools_own_message_shape_is_read_as_its_family(tmp_path, case):
    _id, family, _source, lines = case
    log = tmp_path / "run.log"
    log.write_text(HEAD + lines)
    exp = diagnose([str(log)])
    assert exp.root is not None, _id
    r = exp.diagnoses[exp.root]
    assert (exp.answer, r.benign) == (family, False), (_id, r.code, r.family)


# Whole logs where the failure is followed by what it caused on other ranks and in the launcher (a peer gone, a
# watchdog timeout, the elastic table, DeepSpeed's `exits with return code`), and more spellings of each family
# (shells', Docker's and Colab's words for a kill, older kernels, Windows' paging file, gcc out of disk, enum values).
WD = ("[rank0]:[E603 10:10:12.551112 213 ProcessGroupNCCL.cpp:616] [Rank 0] Watchdog caught collective operation "
      "timeout: WorkNCCL(SeqNum=5241, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=1800000) ran for "
      "1800087 milliseconds before timing out.\n")
PEER = ("[rank0]:[E603 09:40:12.6 ProcessGroupNCCL.cpp:1537] [PG 0 Rank 0] Process group watchdog thread terminated "
        "with exception: NCCL error: remote process exited or there was a network error, NCCL version 2.21.5\n"
        "ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.\n")
DS_END = ("[2025-06-03 09:40:12,318] [INFO] [launch.py:319:sigkill_handler] Killing subprocess 211\n"
          "[2025-06-03 09:40:12,801] [ERROR] [launch.py:325:sigkill_handler] ['/opt/conda/bin/python3', '-u', "
          "'src/train.py', '--local_rank=1'] exits with return code = {c}\n")
MIXED_A = [
 ("oom-kill+peer", "host_ram_oom", PEER + ELASTIC.format(code="-9", tb="Signal 9 (SIGKILL) received by PID 211")),
 ("disk+watchdog", "disk_full_save", "[INFO|trainer.py:3503] 2025-06-03 09:30:00 >> Saving model checkpoint to out/checkpoint-500\n" +
   "[rank0]: " + "RuntimeError: [enforce fail at inline_container.cc:764] . PytorchStreamWriter failed writing file data/113: file write failed\n" + WD + ELASTIC.format(code="1", tb="<N/A>")),
 ("time+sigterm", "slurm_time_limit_preemption", "slurmstepd: error: *** STEP 4211.0 ON node-17 CANCELLED AT 2025-06-03T21:40:13 DUE TO TIME LIMIT ***\n"
   "W0603 21:40:13.1 140 torch/distributed/elastic/agent/server/api.py:704] Received Signals.SIGTERM death signal, shutting down workers\n"
   "torch.distributed.elastic.multiprocessing.api.SignalException: Process 140 got signal: 15\n" + PEER + "srun: error: node-17: task 0: Terminated\n"),
 ("sizemm+elastic", "checkpoint_resume_mismatch", "[rank0]: RuntimeError: Error(s) in loading state_dict for LlamaForCausalLM:\n[rank0]: \tsize mismatch for lm_head.weight: copying a param with shape torch.Size([32001, 4096]) from checkpoint, the shape in current model is torch.Size([32000, 4096]).\n" + ELASTIC.format(code="1", tb="<N/A>")),
 ("cfg+ds", "config_error", _tb(f"{SITE}/transformers/training_args.py", 1785, "__post_init__", "ValueError: At most one of fp16 and bf16 can be True, but not both") + DS_END.format(c=1)),
 ("gpuoom+watchdog", "gpu_oom", "[rank1]: torch.OutOfMemoryError: HIP out of memory. Tried to allocate 2.00 GiB. GPU 1 has a total capacity of 63.98 GiB of which 0 bytes is free.\n" + WD + ELASTIC.format(code="-6", tb="Signal 6 (SIGABRT) received by PID 211")),
 ("shards+ds-9", "host_ram_oom", "Loading checkpoint shards:  50%|█████     | 2/4 [01:02<01:02, 31.1s/it]\n" + DS_END.format(c=-9)),
 ("save+ds-9", "host_ram_oom", "[INFO|trainer.py:3503] 2025-06-03 09:30:00 >> Saving model checkpoint to out/checkpoint-500\n" + DS_END.format(c=-9)),
 ("elastic-9-only", "host_ram_oom", ELASTIC.format(code="-9", tb="Signal 9 (SIGKILL) received by PID 211")),
 ("benign-ok", "benign_warning", "Some weights of LlamaForSequenceClassification were not initialized from the model checkpoint at meta-llama/Llama-2-7b-hf and are newly initialized: ['score.weight']\nYou should probably TRAIN this model on a down-stream task to be able to use it for predictions and inference.\n100%|██████████| 500/500 [26:11<00:00,  3.14s/it]\n***** train metrics *****\n  epoch = 3.0\n  train_loss = 0.8123\nTraining completed. Do not forget to share your model on huggingface.co/models =)\n"),
 ("quota+peer", "disk_full_save", "[rank0]: OSError: [Errno 122] Disk quota exceeded\n" + PEER + ELASTIC.format(code="1", tb="<N/A>")),
 ("cfg-lf+elastic", "config_error", "[rank0]: ValueError: Please launch distributed training with `llamafactory-cli` or `torchrun`.\n" + ELASTIC.format(code="1", tb="<N/A>")),
 ("cgroup-kill-then-child", "host_ram_oom", "Memory cgroup out of memory: Killed process 211 (python3) total-vm:88123456kB, anon-rss:31234567kB, file-rss:81234kB, shmem-rss:0kB, UID:0 pgtables:71234kB oom_score_adj:0\n" + DS_END.format(c=-9) + PEER),
 ("rdzv-timeout", "nccl_rccl_timeout_hang", _tb(f"{SITE}/torch/distributed/elastic/rendezvous/dynamic_rendezvous.py", 1106, "next_rendezvous", "torch.distributed.elastic.rendezvous.api.RendezvousTimeoutError")),
 ("missing-keys-frameless", "checkpoint_resume_mismatch", "RuntimeError: Error(s) in loading state_dict for GPT2LMHeadModel:\n\tMissing key(s) in state_dict: \"transformer.h.0.attn.bias\". \n"),
 ("no-valid-ckpt-rank", "checkpoint_resume_mismatch", "[rank0]: ValueError: Can't find a valid checkpoint at saves/qwen/lora/sft/checkpoint-1000\n" + ELASTIC.format(code="1", tb="<N/A>")),
]
def enum_tb(exc):
    return ("Traceback (most recent call last):\n  File \"/work/train.py\", line 41, in <module>\n    main()\n"
            f"  File \"{SITE}/transformers/training_args.py\", line 1650, in __post_init__\n    self.lr_scheduler_type = SchedulerType(self.lr_scheduler_type)\n"
            "  File \"/opt/conda/lib/python3.10/enum.py\", line 385, in __call__\n    return cls.__new__(cls, value)\n"
            "  File \"/opt/conda/lib/python3.10/enum.py\", line 710, in __new__\n    raise ve_exc\n"
            f"  File \"{SITE}/transformers/utils/generic.py\", line 480, in _missing_\n    raise ValueError(\n" + exc + "\n")
MIXED_B = [
 ("bare-killed", "host_ram_oom", "Loading checkpoint shards:  75%|███████▌  | 3/4 [00:40<00:13, 13.3s/it]Killed\n"),
 ("zsh-killed", "host_ram_oom", "zsh: killed     python train.py --config cfg.yaml\n"),
 ("job-killed", "host_ram_oom", "[1]    42117 killed     python train.py\n"),
 ("winerr1455", "host_ram_oom", "OSError: [WinError 1455] The paging file is too small for this operation to complete. Error loading \"C:\\Users\\u\\venv\\lib\\site-packages\\torch\\lib\\cudnn_cnn_infer64_8.dll\" or one of its dependencies.\n"),
 ("compose-137", "host_ram_oom", "trainer-1 exited with code 137\n"),
 ("colab", "host_ram_oom", "Your session crashed after using all available RAM.\n"),
 ("old-kernel", "host_ram_oom", "[ 1234.5] Out of memory: Kill process 211 (python) score 912 or sacrifice child\n[ 1234.6] Killed process 211 (python) total-vm:98765432kB, anon-rss:61234567kB, file-rss:0kB\n"),
 ("invoked", "host_ram_oom", "Jun 03 09:40:12 node-17 kernel: python3 invoked oom-killer: gfp_mask=0x100cca(GFP_HIGHUSER_MOVABLE), order=0, oom_score_adj=0\n"),
 ("elastic-9-noTB", "host_ram_oom", ELASTIC.format(code="-9", tb="To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html")),
 ("status-137", "host_ram_oom", "subprocess.CalledProcessError: Command 'torchrun --nproc_per_node 8 train.py' returned non-zero exit status 137.\n"),
 ("gcc-nospace", "disk_full_save", "[3/5] c++ -MMD -MF cpu_adam.o.d -c csrc/adam/cpu_adam.cpp -o cpu_adam.o\nFAILED: cpu_adam.o\n{standard input}: Assembler messages:\n{standard input}:12: Fatal error: can't write 24 bytes to section .text of cpu_adam.o: 'No space left on device'\nfatal error: error writing to /tmp/ccQ1w2e3.s: No space left on device\ncompilation terminated.\nninja: build stopped: subcommand failed.\n"),
 ("arrow-28", "disk_full_save", "pyarrow.lib.ArrowIOError: [Errno 28] Error writing bytes to file. Detail: [errno 28] No space left on device\n"),
 ("rng-missing", "checkpoint_resume_mismatch", _tb(f"{SITE}/transformers/trainer.py", 3000, "_load_rng_state", "FileNotFoundError: [Errno 2] No such file or directory: 'output/checkpoint-100/rng_state.pth'")),
 ("lightning-opt", "checkpoint_resume_mismatch", _tb(f"{SITE}/lightning/pytorch/trainer/connectors/checkpoint_connector.py", 380, "restore_optimizers", "KeyError: 'Trying to restore optimizer state but checkpoint contains only the model. This is probably due to `ModelCheckpoint.save_weights_only` being set to `True`.'")),
 ("dcp-missing", "checkpoint_resume_mismatch", _tb(f"{SITE}/torch/distributed/checkpoint/default_planner.py", 350, "create_default_local_load_plan", "RuntimeError: Missing key in checkpoint state_dict: model.layers.0.self_attn.q_proj.weight.")),
 ("enum-sched", "config_error", enum_tb("ValueError: cosine_warm is not a valid SchedulerType, please select one of ['linear', 'cosine', 'cosine_with_restarts', 'polynomial', 'constant']")),
 ("enum-optim-frameless", "config_error", "ValueError: adamw_8bitt is not a valid OptimizerNames, please select one of ['adamw_torch', 'adamw_torch_fused', 'adamw_bnb_8bit', 'adafactor']\n"),
 ("enum-strategy-frameless", "config_error", "ValueError: 'step' is not a valid IntervalStrategy\n"),
]


@pytest.mark.parametrize("case", MIXED_A + MIXED_B, ids=[c[0] for c in MIXED_A + MIXED_B])
def test_the_failure_stays_the_root_above_its_consequences(tmp_path, case):
    _id, family, lines = case
    log = tmp_path / "run.log"
    log.write_text(HEAD + lines)
    exp = diagnose([str(log)])
    r = exp.diagnoses[exp.root] if exp.root is not None else None
    assert exp.answer == family and not (r and r.benign), (_id, r and r.code)


# LLaMA-Factory's hparams/parser.py checks, as users paste them: only the last line under torchrun's rank prefix, no
# frames (verbatim from hiyouga/LlamaFactory src/llamafactory/hparams/parser.py)
LF_PARSER = [
    ("config_error", "Cannot resize embedding layers of a quantized model."),
    ("config_error", "Cannot create new adapter upon a quantized model."),
    ("config_error", "`predict_with_generate` cannot be set as True except SFT."),
    ("config_error", "`neat_packing` cannot be set as True except SFT."),
    ("config_error", "Please enable `predict_with_generate` to save model predictions."),
    ("config_error", "RM and PPO stages do not support `load_best_model_at_end`."),
    ("config_error", "PPO training does not support evaluation, use the SFT stage to evaluate models."),
    ("config_error", "Cannot use `predict_with_generate` and `compute_accuracy` together."),
    ("config_error", "Cannot use device map for quantized models in training."),
    ("config_error", "Distributed training does not support layer-wise GaLore."),
    ("config_error", "vLLM engine does not support RoPE scaling."),
    ("config_error", "Unsloth is incompatible with DeepSpeed ZeRO-3."),
    ("config_error", "Please launch distributed training with `llamafactory-cli` or `torchrun`."),
    ("config_error", "Output directory already exists and is not empty. Please set `overwrite_output_dir`."),
    ("bf16_unsupported", "This device does not support `pure_bf16`."),
]


@pytest.mark.parametrize("case", LF_PARSER, ids=[m[:40] for _, m in LF_PARSER])
def test_llamafactory_parser_refusals_without_frames(tmp_path, case):
    family, message = case
    log = tmp_path / "run.log"
    log.write_text(HEAD + f"[rank0]: ValueError: {message}\n")
    exp = diagnose([str(log)])
    assert exp.answer == family, (message, exp.diagnoses[exp.root].code if exp.root is not None else None)


OK_END = "100%|██████████| 500/500 [26:11<00:00,  3.14s/it]\n***** train metrics *****\n  epoch = 3.0\n  train_loss = 0.8123\n"
# torch's c10d/gloo/NCCL words for a peer or a store that went away or timed out
NET_SHAPES = [
    ("gloo-peer", "RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:598] Connection closed by peer "
     "[10.0.0.2]:12345\n"),
    ("gloo-recv", "RuntimeError: [/opt/pytorch/third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:81] Timed out "
     "waiting 1800000ms for recv operation to complete\n"),
    ("ib-completion", "node-17:211:402 [0] transport/net_ib.cc:1696 NCCL WARN NET/IB : Got completion from peer "
     "10.0.0.2<56789> with error 12, opcode 0, len 0, vendor err 129 (Recv) localGid ::ffff:10.0.0.1\n"),
    ("wd-exception", "[rank3]:[E603 10:10:12.1 ProcessGroupNCCL.cpp:1595] [PG 0 Rank 3] Exception (either an error or "
     "timeout) detected by watchdog at work: 5241, last enqueued NCCL work: 5241, last completed NCCL work: 5240.\n"),
    ("rdzv-conn", _tb(f"{SITE}/torch/distributed/elastic/rendezvous/c10d_rendezvous_backend.py", 113, "_call_store",
                      "torch.distributed.elastic.rendezvous.api.RendezvousConnectionError: The connection to the C10d "
                      "store has failed. See inner exception for details.")),
]


@pytest.mark.parametrize("case", NET_SHAPES, ids=[c[0] for c in NET_SHAPES])
def test_c10d_gloo_and_nccl_network_shapes_are_the_collective_family(tmp_path, case):
    log = tmp_path / "run.log"
    log.write_text(HEAD + case[1])
    assert diagnose([str(log)]).answer == "nccl_rccl_timeout_hang", case[0]


# lines that only may precede a failure, in a run that went on to finish: no root
FINISHED_WITH = [
    ("ipv6", "[W603 09:12:01.1 socket.cpp:663] [c10d] The IPv6 network addresses of (master-0, 29500) cannot be "
     "retrieved (gai error: -2 - Name or service not known).\n"),
    ("resume-version", "You are resuming training from a checkpoint trained with 4.38.2 of Transformers but your "
     "current version is 4.41.0. This is not recommended and could yield to errors or unwanted behaviors.\n"),
    ("missing-keys-warning", "There were missing keys in the checkpoint model loaded: ['lm_head.weight'].\n"),
    # huggingface_hub's free-space warning (file_download.py _check_disk_space) is a cause only when the run failed
    ("hub-space", f"{SITE}/huggingface_hub/file_download.py:1142: UserWarning: Not enough free disk space to download "
     "the file. The expected file size is: 4943.16 MB. The target location /root/.cache/huggingface/hub only has "
     "4000.00 MB free disk space.\n  warnings.warn(\n"),
]


@pytest.mark.parametrize("case", FINISHED_WITH, ids=[c[0] for c in FINISHED_WITH])
def test_a_warning_in_a_run_that_finished_is_not_the_root(tmp_path, case):
    log = tmp_path / "run.log"
    log.write_text(HEAD + case[1] + OK_END)
    exp = diagnose([str(log)])
    assert exp.root is None and exp.status == "finished", case[0]
    # the same free-space warning before a failed write is the cause
    if case[0] == "hub-space":
        log.write_text(HEAD + case[1] + "OSError: [Errno 28] No space left on device\n")
        assert diagnose([str(log)]).answer == "disk_full_save"
