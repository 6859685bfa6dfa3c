"""explain (issue 26, e-cfg4): the user's own settings refused (config_error), in the spellings the tools print them.

Each log is written from the tool's own output format (the source file is named at each): argparse and
HfArgumentParser, OmegaConf/Hydra's composition messages printed bare above `HYDRA_FULL_ERROR`, PyYAML's problem lines
and TOML decode errors, the launchers' own checks (torchrun's run.py, `accelerate launch`, the deepspeed runner,
transformers' DeepSpeed integration: rows of rocm_tune/profiles/runner_refusals.py made by
tools/build_runner_refusals.py), a launch line that runs a script without its interpreter (bash/dash/zsh, Slurm's
slurmstepd, CPython's subprocess, Apptainer), a numeric setting that reached the optimizer as a string, and the
parallel layouts checked against the model (Megatron-Core, torchtitan). Wrapped in rank prefixes, other ranks'
watchdog timeouts and elastic's ChildFailedError: the dead rank's refusal is the root. None is a corpus case's log.
Lines that must stay in their own family (a cache's permission, a data file's JSON) are checked too.
"""

from __future__ import annotations

import pytest

from tests.helpers_explain import explain_text

NOISE = ("[2025-03-02 10:01:11,402] [INFO] [real_accelerator.py:222:get_accelerator] Setting ds_accelerator to cuda "
         "(auto detect)\n"
         "Loading checkpoint shards: 100%|██████████| 4/4 [00:07<00:00,  1.82s/it]\n")
TB = "Traceback (most recent call last):\n  File \"/work/train.py\", line 12, in <module>\n    main()\n"
SITE = "/opt/conda/lib/python3.10/site-packages"
CHILD_FAILED = ("E0302 10:01:40.118000 140 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: 1) "
                "local_rank: 0 (pid: 311) of binary: /opt/conda/bin/python3\n"
                "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: \n"
                "============================================================\ntrain.py FAILED\n")
PEER_TIMEOUT = ("[rank1]:[E1120 10:31:02.112 ProcessGroupNCCL.cpp:616] [Rank 1] Watchdog caught collective operation "
                "timeout: WorkNCCL(SeqNum=1, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for "
                "600012 milliseconds before timing out.\n"
                "[rank1]:[E1120 10:31:02.113 ProcessGroupNCCL.cpp:1785] [PG 0 Rank 1] Exception (either an error or "
                "timeout) detected by watchdog at work: 1, last enqueued NCCL work: 1, last completed NCCL work: 0.\n")


def frame(path: str, line: int, fn: str, code: str) -> str:
    return f"  File \"{path}\", line {line}, in {fn}\n    {code}\n"


def ranked(text: str, rank: int = 0) -> str:
    return "".join(f"[rank{rank}]: {line}\n" for line in text.rstrip("\n").split("\n"))


SUBPROCESS = frame("/usr/lib/python3.10/subprocess.py", 1847, "_execute_child",
                   "raise child_exception_type(errno_num, err_msg, err_filename)")

# (name, expected code or None for any, log text, where the lines come from)
CONFIG_ERRORS = [
    # --- parsers
    ("argparse-ranked-timeout", None, ranked("train.py: error: argument --max_steps: invalid int value: '1e4'") +
     PEER_TIMEOUT + CHILD_FAILED, "CPython Lib/argparse.py (_get_value: invalid %(type)s value)"),
    ("hf-unused-other-ranks", "config-rejected",
     "".join(ranked("ValueError: Some specified arguments are not used by the HfArgumentParser: ['--lora_rnak', '8']",
                    r) for r in range(4)) + PEER_TIMEOUT + CHILD_FAILED, "transformers/hf_argparser.py"),
    ("hydra-missing-bare", "config-rejected",
     "Missing mandatory value: data.train_files\n    full_key: data.train_files\n    object_type=dict\n\n"
     "Set the environment variable HYDRA_FULL_ERROR=1 for a complete stack trace.\n",
     "omegaconf/errors.py MissingMandatoryValue as hydra/_internal/utils.py run_and_report prints it"),
    ("hydra-append", "config-rejected",
     "Could not append to config. An item is already at 'trainer.logger'.\n\n"
     "Set the environment variable HYDRA_FULL_ERROR=1 for a complete stack trace.\n",
     "hydra/_internal/config_loader_impl.py _apply_overrides_to_config"),
    ("hydra-override-grammar", "config-rejected",
     "LexerNoViableAltException: trainer.logger=[console,wandb\n                                     ^\n"
     "See https://hydra.cc/docs/1.2/advanced/override_grammar/basic for details\n\n"
     "Set the environment variable HYDRA_FULL_ERROR=1 for a complete stack trace.\n",
     "hydra/core/override_parser/overrides_parser.py (OverrideParseException)"),
    ("hydra-primary-config", "config-rejected",
     "Cannot find primary config 'ppo_trainr'. Check that it's in your config search path.\n\nConfig search path:\n"
     "\tprovider=hydra, path=pkg://hydra.conf\n\tprovider=main, path=file:///work/verl/trainer/config\n\n"
     "Set the environment variable HYDRA_FULL_ERROR=1 for a complete stack trace.\n",
     "hydra/_internal/config_loader_impl.py _missing_config_error"),
    ("hydra-group-option", "config-rejected",
     "In 'ppo_trainer': Could not find 'actor/dp_actr'\n\nAvailable options in 'actor':\n\tdp_actor\n"
     "\tmegatron_actor\n\nSet the environment variable HYDRA_FULL_ERROR=1 for a complete stack trace.\n",
     "hydra/_internal/defaults_list.py _missing_config_error (MissingConfigException)"),
    ("yaml-problem-lines", "config-rejected",
     "while parsing a block mapping\n  in \"/work/ds_config.yaml\", line 1, column 1\n"
     "expected <block end>, but found '<block mapping start>'\n  in \"/work/ds_config.yaml\", line 7, column 3\n",
     "PyYAML yaml/parser.py parse_block_mapping_key"),
    ("yaml-expected-colon", "config-rejected",
     "while scanning a simple key\n  in \"train_lora.yaml\", line 12, column 1\ncould not find expected ':'\n"
     "  in \"train_lora.yaml\", line 13, column 1\n", "PyYAML yaml/scanner.py"),
    ("toml-tomllib", None, TB + frame("/work/torchtitan/torchtitan/config/manager.py", 90, "_maybe_load_toml",
                                      "return tomllib.load(f)") +
     "tomllib.TOMLDecodeError: Expected '=' after a key in a key/value pair (at line 14, column 9)\n",
     "CPython Lib/tomllib/_parser.py (suffixed_err)"),
    ("toml-package", None, TB + "toml.decoder.TomlDecodeError: Key name found without value. Reached end of line. "
     "(line 3 column 12 char 40)\n", "uiri/toml toml/decoder.py"),
    ("lr-as-string", None, TB + frame(f"{SITE}/transformers/optimization.py", 90, "lr_lambda",
                                      "return float(current_step) / float(max(1, num_warmup_steps))") +
     "TypeError: unsupported operand type(s) for *: 'float' and 'str'\n",
     "transformers/optimization.py lambdas on a YAML 1.1 `1e-4` (a str)"),
    # --- launchers (rows of runner_refusals.py)
    ("torchrun-nproc", None, TB + frame(f"{SITE}/torch/distributed/run.py", 765, "determine_local_world_size",
                                        "raise ValueError(f\"Unsupported nproc_per_node value: {nproc_per_node}\")") +
     "ValueError: Unsupported nproc_per_node value: gpux\n", "torch/distributed/run.py determine_local_world_size"),
    ("accelerate-gpu-ids", None,
     "The following values were not passed to `accelerate launch` and had defaults used instead:\n"
     "\t`--num_processes` was set to a value of `1`\n" + TB +
     "ValueError: Less than two GPU ids were configured and tried to run on on multiple GPUs. Please ensure at least "
     "two are specified for `--gpu_ids`, or use `--gpu_ids='all'`.\n", "accelerate/commands/launch.py"),
    ("deepspeed-hostfile", None, TB + frame(f"{SITE}/deepspeed/launcher/runner.py", 470, "main",
                                            "raise ValueError(...)") +
     "ValueError: Num nodes is >1 but no extra nodes available via hostfile\n", "deepspeed/launcher/runner.py"),
    ("hf-deepspeed-config-path", None, TB + frame(f"{SITE}/transformers/integrations/deepspeed.py", 77, "__init__",
                                                  "super().__init__(config_file_or_dict)") +
     "ValueError: Expected a string path to an existing deepspeed config, or a dictionary, or a base64 encoded "
     "string. Received: ds_z3.json\n", "accelerate/utils/deepspeed.py HfDeepSpeedConfig"),
    ("titan-parallel-dims", None, ranked(
        "AssertionError: Invalid parallel dims: dp_replicate(1) * dp_shard(2) * cp(1) * tp(2) * pp(1) != WORLD_SIZE(8)")
     + PEER_TIMEOUT + CHILD_FAILED, "torchtitan/distributed/parallel_dims.py _validate"),
    # --- a launch line that runs a script without its interpreter
    ("lost-continuation-dash", "config-rejected", NOISE + "train.sh: 9: --per_device_train_batch_size: not found\n",
     "dash's `%s: %d: %s: not found`"),
    ("lost-continuation-zsh", "config-rejected", "run.sh:12: command not found: --output_dir\n", "zsh"),
    ("py-read-by-bash", "script-not-run-by-python",
     "./train.py: line 1: import: command not found\n./train.py: line 3: syntax error near unexpected token `('\n",
     "bash reading a Python file"),
    ("py-read-by-bash-from", "script-not-run-by-python",
     "from: can't read /var/mail/transformers\n./finetune.py: line 5: syntax error near unexpected token `('\n",
     "bash running `from x import y` (from(1) is a mail program)"),
    ("slurmstepd-execve", "script-not-run-by-python",
     "+ srun ./train.py --config cfg.yaml\nslurmstepd: error: execve(): ./train.py: Permission denied\n"
     "srun: error: nid001: task 0: Exited with exit code 13\n", "slurm slurmstepd/task.c"),
    ("bash-permission", "script-not-run-by-python", "bash: ./finetune.py: Permission denied\n",
     "bash execute_cmd.c (EACCES)"),
    ("crlf-script", "script-not-run-by-python",
     "bash: ./run.sh: /bin/bash\r: bad interpreter: No such file or directory\n", "bash with a CRLF #! line"),
    ("crlf-lines", "script-not-run-by-python",
     "run.sh: line 2: $'\\r': command not found\nrun.sh: line 3: $'\\r': command not found\n", "bash, CRLF lines"),
    ("subprocess-exec-format", None, TB + SUBPROCESS + "OSError: [Errno 8] Exec format error: 'train.py'\n",
     "CPython subprocess.py _execute_child (ENOEXEC)"),
    ("subprocess-eacces", "permission-denied", TB + SUBPROCESS +
     "PermissionError: [Errno 13] Permission denied: 'train.py'\n",
     "CPython subprocess.py _execute_child (EACCES), torchrun --no-python"),
    ("script-path-missing", "script-not-found",
     "/opt/conda/bin/python: can't open file '/work/LLaMA-Factory/src/train.py': [Errno 2] No such file or directory\n"
     + CHILD_FAILED, "CPython Modules/main.c pymain_run_file"),
    ("recipe-yaml-missing", None, TB + frame(f"{SITE}/llamafactory/hparams/parser.py", 70, "read_args",
                                             "return yaml.safe_load(Path(sys.argv[1]).absolute().read_text())") +
     "FileNotFoundError: [Errno 2] No such file or directory: '/work/examples/train_lora/qwen2_lora_sft.yaml'\n",
     "LLaMA-Factory hparams/parser.py read_args"),
    ("ds-json-missing", None, ranked("FileNotFoundError: [Errno 2] No such file or directory: "
                                     "'configs/ds_config_zero3.json'") + PEER_TIMEOUT + CHILD_FAILED,
     "a DeepSpeed JSON named by --deepspeed"),
    ("apptainer-exec", "script-not-run-by-python",
     "+ srun apptainer exec --rocm /scratch/img.sif /users/me/train.py --epochs 1\nFATAL:   permission denied\n"
     "srun: error: nid005: task 0: Exited with exit code 255\n", "Apptainer starter exec of a non-executable file"),
]


@pytest.mark.parametrize("name,code,text,source", CONFIG_ERRORS, ids=[c[0] for c in CONFIG_ERRORS])
def test_the_users_settings_refused_are_config_error(tmp_path, name, code, text, source):
    _, root = explain_text(tmp_path, text)
    assert root is not None, source
    assert root.family == "config_error", (source, root.code, root.family)
    if code is not None:
        assert root.code == code, (source, root.code)


def test_a_script_run_without_python_says_to_put_the_interpreter_first(tmp_path):
    _, root = explain_text(tmp_path, "+ srun ./train.py --lr 1e-4\nslurmstepd: error: execve(): ./train.py: "
                                     "Permission denied\n")
    assert root is not None and "python train.py" in root.fix


# (name, expected family, log text): lines of the same shapes that stay in their own family
OTHERS = [
    # a cache written by another user: the permission, not the launch line
    ("cache-permission", "hf_cache_permission", TB + "PermissionError: [Errno 13] Permission denied: "
     "'/root/.cache/huggingface/hub/models--Qwen--Qwen2.5-7B/refs/main'\n"),
    # a generated module written into a read-only cache: a .py, but not exec'd by subprocess
    ("module-cache-py", "hf_cache_permission", TB + frame(f"{SITE}/transformers/dynamic_module_utils.py", 60,
                                                          "create_dynamic_module", "init_path.touch()") +
     "PermissionError: [Errno 13] Permission denied: '/home/x/.cache/huggingface/modules/transformers_modules/"
     "modeling_chatglm.py'\n"),
    # a JSON dataset read by `datasets`: the data
    ("data-json", "dataset_error", TB + frame(f"{SITE}/datasets/packaged_modules/json/json.py", 160,
                                              "_generate_tables", "dataset = json.load(f)") +
     frame("/usr/lib/python3.10/json/decoder.py", 353, "raw_decode", "obj, end = self.scan_once(s, idx)") +
     "json.decoder.JSONDecodeError: Expecting ',' delimiter: line 1 column 900 (char 899)\n"),
]


@pytest.mark.parametrize("name,family,text", OTHERS, ids=[o[0] for o in OTHERS])
def test_the_same_shapes_elsewhere_keep_their_family(tmp_path, name, family, text):
    _, root = explain_text(tmp_path, text)
    assert root is not None and root.family == family, (name, root and root.code, root and root.family)


def test_the_refusal_table_holds_the_launchers_and_layouts():
    """The generated table has rows from each source e-cfg4 added to tools/build_runner_refusals.py."""
    from rocm_tune.core.runs.diagnose.refusals import refusal_of
    from rocm_tune.profiles.runner_refusals import REFUSALS

    files = {path for _r, path, _f, _e, _m in REFUSALS}
    for path in ("torch/distributed/run.py", "src/accelerate/commands/launch.py", "deepspeed/launcher/runner.py",
                 "src/transformers/integrations/deepspeed.py", "torchtitan/distributed/parallel_dims.py",
                 "megatron/core/transformer/transformer_config.py"):
        assert path in files, path
    # deepspeed_load_checkpoint's refusals are the checkpoint's, not the config's: left out of the table
    assert refusal_of("ValueError: [deepspeed] failed to resume from checkpoint /ckpt/global_step100") is None
    assert refusal_of("[rank3]: ValueError: Unsupported nproc_per_node value: gpux") == \
        ("torchrun", "torch/distributed/run.py")


def test_a_missing_model_config_json_is_not_read_as_the_runs_config_file(tmp_path):
    text = TB + "FileNotFoundError: [Errno 2] No such file or directory: '/models/llama-7b/config.json'\n"
    _, root = explain_text(tmp_path, text)
    assert root is None or "config file the command line" not in (root.fix or "")


# what each launcher puts before a task's lines (srun --label, pdsh / DeepSpeed's multi-node runner, Ray's actor
# prefix, torchrun's --tee), in front of argparse's error and a lost continuation, with the other ranks timing out
PREFIXES = ["0: ", "worker-0: ", "localhost: ", "(TaskRunner pid=2051) ", "(WorkerDict pid=3120, ip=10.0.0.2) ",
            "[default0]:"]


@pytest.mark.parametrize("prefix", PREFIXES)
def test_a_refusal_behind_a_launchers_prefix_is_the_root_not_the_peers_timeout(tmp_path, prefix):
    text = (f"{prefix}usage: train.py [-h] [--lora_rank LORA_RANK]\n"
            f"{prefix}train.py: error: unrecognized arguments: --lora_rnak 8\n" + PEER_TIMEOUT)
    _, root = explain_text(tmp_path, text)
    assert root is not None and root.family == "config_error", (root and root.code)
    _, root = explain_text(tmp_path, f"{prefix}job.sh: line 14: --deepspeed: command not found\n" + PEER_TIMEOUT,
                           name="cont.log")
    assert root is not None and root.code == "config-rejected", (root and root.code)


# FAMILIES.md puts "bad JSON" of the data (LLaMA-Factory's dataset registry included, as the corpus labels it) under
# dataset_error: the registry read by LLaMA-Factory's data/parser.py is not taken for a config reader
_DATASET_INFO = ("dataset-info-json", "json-decode-error", NOISE + TB +
     frame("/app/src/llamafactory/data/parser.py", 125, "get_dataset_list", "dataset_info = json.load(f)") +
     frame("/usr/lib/python3.10/json/decoder.py", 353, "raw_decode",
           "obj, end = self.scan_once(s, idx)") +
     "json.decoder.JSONDecodeError: Expecting ',' delimiter: line 20 column 3 (char 512)\n",
     "LLaMA-Factory src/llamafactory/data/parser.py get_dataset_list")


def test_llamafactory_dataset_info_json_that_does_not_parse_stays_dataset_error(tmp_path):
    _, root = explain_text(tmp_path, _DATASET_INFO[2])
    assert root is not None and root.code == "json-decode-error" and root.family == "dataset_error", root
