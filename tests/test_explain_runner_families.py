"""`explain` on whole logs of the runner/library families (issue 26, explain-sw block of the catalogue).

Each log is built from the lines the tools print (torch.optim, torch.distributed's c10d store and watchdog,
transformers' HfArgumentParser, pydantic, bash, the launchers' teardown), with the noise around them; the root's
family is what the test holds, and where a launcher or a peer reports after a cause, that the cause stays the root.
"""

from __future__ import annotations

from rocm_tune.core.runs.diagnose.diagnose import explain_text

TEARDOWN = (
    "W1111 15:43:30.004000 1401 torch/distributed/elastic/multiprocessing/api.py:858] Sending process 1420 closing "
    "signal SIGTERM\n"
    "E1111 15:43:31.208000 1401 torch/distributed/elastic/multiprocessing/api.py:833] failed (exitcode: 1) "
    "local_rank: 0 (pid: 1423) of binary: /usr/bin/python\n"
    "torch.distributed.elastic.multiprocessing.errors.ChildFailedError:\n"
)


def _root(text: str):
    exp = explain_text(text)
    assert exp.root is not None, [d.code for d in exp.diagnoses]
    return exp.diagnoses[exp.root]


def test_resume_with_another_optimizer_is_a_checkpoint_mismatch_and_the_launcher_only_follows():
    text = ("[INFO:swift] Setting args.resume_from_checkpoint: output/v0/checkpoint-400\n"
            "  File \"/opt/conda/lib/python3.10/site-packages/torch/optim/optimizer.py\", line 390, in load_state_dict\n"
            "    raise ValueError(\"loaded state dict contains a parameter group \"\n"
            "ValueError: loaded state dict contains a parameter group that doesn't match the size of optimizer's "
            "group\n" + TEARDOWN)
    r = _root(text)
    assert (r.code, r.family) == ("optimizer-state-mismatch", "checkpoint_resume_mismatch")
    assert "fresh optimizer" in r.fix


def test_zero_shards_of_another_world_size_are_a_checkpoint_mismatch():
    text = ("[2024-06-01 10:00:01,000] [INFO] [engine.py:3017:_get_all_zero_checkpoint_state_dicts] Loading 8 zero "
            "partition checkpoints for rank 4\n"
            "FileNotFoundError: [Errno 2] No such file or directory: 'out/checkpoint-500/global_step500/"
            "zero_pp_rank_4_mp_rank_00_optim_states.pt'\n" + TEARDOWN)
    assert _root(text).family == "checkpoint_resume_mismatch"


def test_a_runner_cli_not_found_is_a_missing_package_but_a_compiler_not_found_is_the_build():
    assert _root("$ llamafactory-cli train x.yaml\nbash: llamafactory-cli: command not found\n").family == \
        "missing_package"
    assert _root("[root@gpu01 LLaMA-Factory]# llamafactory-cli train a.yaml\nllamafactory-cli：未找到命令\n").family \
        == "missing_package"
    built = _root("Building extension module fused_adam...\n/bin/sh: 1: nvcc: not found\n"
                  "ninja: build stopped: subcommand failed.\n")
    assert built.family == "deepspeed_build_jit"


def test_a_torch_without_nccl_or_c10d_is_a_missing_package_not_a_version_mismatch():
    for line in ("RuntimeError: Distributed package doesn't have NCCL built in",
                 "ModuleNotFoundError: No module named 'torch._C._distributed_c10d'; 'torch._C' is not a package"):
        r = _root("Traceback (most recent call last):\n  File \"train.py\", line 44, in train\n" + line + "\n")
        assert r.family == "missing_package", line
    # a submodule a newer transformers moved stays a version mismatch
    r = _root("ModuleNotFoundError: No module named 'transformers.models.qwen2_vl.image_processing_qwen2_vl_fast'\n")
    assert r.family == "version_check"


def test_hf_argument_parser_and_pydantic_rejections_are_config_errors_deepspeed_s_own_stays_version():
    # e-skew: a name no LLaMA-Factory release declares (--max_source_length itself, LLaMA-Factory <= 0.1.8's, is version
    # skew since the session-8 relabel of lf-1004: tests/test_explain_e_skew.py)
    hf = _root("[INFO] [launch.py:139:main] 0 NCCL_IB_DISABLE=1\n"
               "ValueError: Some specified arguments are not used by the HfArgumentParser: ['--max_sorce_lenght', "
               "'64']\n[2023-09-22 14:03:20,101] [ERROR] [launch.py:321:sigkill_handler] ['/usr/bin/python3', '-u', "
               "'src/train_bash.py', '--local_rank=7'] exits with return code = 1\n")
    assert (hf.code, hf.family) == ("config-rejected", "config_error")
    ax = _root("pydantic_core._pydantic_core.ValidationError: 1 validation error for AxolotlConfigWCapabilities\n"
               "pretraining_dataset\n  Input should be a valid list [type=list_type]\n")
    assert ax.family == "config_error"
    ds = _root("pydantic_core._pydantic_core.ValidationError: 1 validation error for DeepSpeedZeroConfig\n"
               "stage3_prefetch_bucket_size\n  Input should be a valid integer, got a number with a fractional part\n")
    assert ds.family == "version_check"


def test_store_timeouts_and_old_watchdog_spellings_are_the_collective_family():
    store = ("Files already downloaded and verified\n"
             "RuntimeError: [1] is setting up NCCL communicator and retreiving ncclUniqueId from [0] via c10d "
             "key-value store by key '0', but store->get('0') got error: Socket Timeout\n"
             "Exception raised from recvBytes at ../torch/csrc/distributed/c10d/Utils.hpp:580 (most recent call first):\n"
             + TEARDOWN)
    assert _root(store).family == "nccl_rccl_timeout_hang"
    old = ("[E ProcessGroupNCCL.cpp:587] [Rank 1] Caught collective operation timeout: WorkNCCL(OpType=BROADCAST, "
           "Timeout(ms)=1800000) ran for 1806345 milliseconds before timing out.\n" + TEARDOWN)
    assert _root(old).family == "nccl_rccl_timeout_hang"


def test_only_the_launcher_teardown_is_launcher_exit_and_after_a_cause_it_is_a_consequence():
    alone = _root("Traceback (most recent call last):\nsubprocess.CalledProcessError: Command '['/usr/bin/python', "
                  "'train.py']' returned non-zero exit status 1.\n")
    assert alone.family == "launcher_exit"
    exp = explain_text("ModuleNotFoundError: No module named 'einops'\n"
                       "subprocess.CalledProcessError: Command '['/usr/bin/python', 'train.py']' returned non-zero "
                       "exit status 1.\n")
    r = exp.diagnoses[exp.root]
    assert r.family == "missing_package"
    assert any(d.code == "child-failed" and d.consequence_of == exp.root for d in exp.diagnoses)


def test_api_drift_inside_a_library_is_a_version_mismatch_but_not_in_the_user_s_own_code():
    lib = ("Traceback (most recent call last):\n"
           "  File \"D:\\envs\\lf\\lib\\site-packages\\transformers\\trainer.py\", line 2316, in "
           "_inner_training_loop\n    self.optimizer.train()\n"
           "  File \"D:\\envs\\lf\\lib\\site-packages\\accelerate\\optimizer.py\", line 128, in train\n"
           "    return self.optimizer.train()\n"
           "AttributeError: 'AdamW' object has no attribute 'train'\n")
    assert _root(lib).family == "version_check"
    own = ("Traceback (most recent call last):\n  File \"/home/u/train.py\", line 12, in main\n    cfg.lora.rank\n"
           "AttributeError: 'dict' object has no attribute 'lora'\n")
    assert _root(own).family != "version_check"
    sig = ("Traceback (most recent call last):\n"
           "  File \"/root/LLaMA-Factory/src/llmtuner/extras/patches/llama_patch.py\", line 92, in forward\n"
           "TypeError: LlamaRotaryEmbedding.forward() missing 1 required positional argument: 'position_ids'\n")
    assert _root(sig).family == "version_check"


def test_flash_attn_s_own_checks_are_flash_attn_and_a_plain_missing_flash_attn_is_a_missing_package():
    check = ("Traceback (most recent call last):\n"
             "  File \"/usr/lib/python3.10/site-packages/flash_attn/flash_attn_interface.py\", line 85, in "
             "_flash_attn_varlen_forward\n"
             "RuntimeError: cu_seqlens_q must have dtype int32\n")
    assert _root(check).family == "flash_attn_error"
    missing = _root("  File \"openrlhf/models/ring_attn_utils.py\", line 4, in <module>\n"
                    "ModuleNotFoundError: No module named 'flash_attn'\n")
    assert missing.family == "missing_package"
    names = _root("ImportError: cannot import name 'flash_attn_varlen_qkvpacked_func' from 'flash_attn' "
                  "(/usr/lib/python3.10/site-packages/flash_attn/__init__.py)\n")
    # a name flash_attn's installed release does not export: another release has it (e-ver3, FAMILIES.md's border
    # rule: a flash-attn import failure is missing_package or version_check)
    assert names.family == "version_check"


def test_settings_stated_as_requirements_are_config_errors():
    for msg in ("AssertionError: Micro batch size per gpu: 0 has to be greater than 0",
                "ValueError: You passed `packing=False` to the SFTTrainer, but you didn't pass a `dataset_text_field`",
                "ValueError: num_attention_heads (28) must be divisible by tensor_parallel_size (8)"):
        assert _root("Traceback (most recent call last):\n  File \"run.py\", line 3, in <module>\n" + msg + "\n"
                     ).family == "config_error", msg


def test_pip_s_conflict_report_is_weak_and_a_later_real_error_is_the_root():
    pip = "torch 2.1.0 requires triton==2.1.0, but you have triton 2.3.0 which is incompatible.\n"
    assert _root(pip).family == "version_check"
    exp = explain_text(pip + "Traceback (most recent call last):\n"
                       "ValueError: loaded state dict contains a parameter group that doesn't match the size of "
                       "optimizer's group\n")
    assert exp.diagnoses[exp.root].family == "checkpoint_resume_mismatch"


def test_the_live_alert_names_the_same_cause_and_fix_as_explain(tmp_path):
    import json

    import pytest

    from tests.conftest import run_cli

    cases = {"optimizer-state-mismatch": "ValueError: loaded state dict contains a parameter group that doesn't match "
                                         "the size of optimizer's group\n",
             "command-not-found": "bash: llamafactory-cli: command not found\n",
             "config-rejected": "ValueError: Some keys are not used by the HfArgumentParser: ['split']\n"}
    for code, line in cases.items():
        log = tmp_path / f"{code}.log"
        log.write_text("[INFO|2024-10-08 15:41:20] llamafactory.cli:88 >> starting\n" + line)
        r = run_cli("explain", str(log), "--json")
        assert r.returncode == 1, r.stderr
        root = json.loads(r.stdout)["root"]
        assert root["code"] == code
        a = run_cli("attach", str(log), "--once", "--json", "--no-gpus")
        assert a.returncode == 0, a.stderr
        alerts = [x for x in json.loads(a.stdout)["alerts"] if x["code"] == code]
        if not alerts:
            pytest.fail(f"attach raised no {code} alert")
        # the alert gives explain's fix word for word, then how to confirm it
        assert alerts[0]["fix"].startswith(root["fix"])


def test_a_missing_helper_command_is_not_the_cause_a_missing_runner_is():
    # ROCm hosts print this from scripts that call nvidia-smi, and train on
    text = ("bash: nvidia-smi: command not found\n"
            "{'loss': 1.3977, 'grad_norm': 1.98, 'learning_rate': 1e-05, 'epoch': 0.01}\n"
            "ValueError: loaded state dict contains a parameter group that doesn't match the size of optimizer's "
            "group\n")
    assert _root(text).family == "checkpoint_resume_mismatch"
    assert explain_text("bash: nvidia-smi: command not found\n").root is None
    assert _root("train.sh: line 12: torchrun: command not found\n").family == "missing_package"


def test_c10d_s_client_retry_warning_is_not_a_cause():
    text = ("[W socket.cpp:663] [c10d] The client socket has failed to connect to [kubernetes.docker.internal]:7250 "
            "(system error: 10049 - The requested address is not valid in that context.).\n"
            "Traceback (most recent call last):\n  File \"train.py\", line 130, in <module>\n"
            "RuntimeError: Distributed package doesn't have NCCL built in\n")
    r = _root(text)
    assert r.family == "missing_package"
    assert not any(d.code == "rendezvous-timeout" for d in explain_text(text).diagnoses)
