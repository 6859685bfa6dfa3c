"""Readers of the configs users already have (pure: standard library + yaml).

One module per format: ``lf_yaml`` (LLaMA-Factory YAML, overrides, flags), ``hf_args`` (HF
TrainingArguments flags of custom scripts), ``swift`` (ms-swift command lines), ``deepspeed_json``,
``accelerate`` (accelerate config YAML), ``shell`` (scripts, launch lines, line continuations, #SBATCH).
``read_job(files)`` detects each file's format from its content and merges the files given together
into one :class:`Job` (the files given together are one job: a reference from one to another resolves
to the file given beside it with that name)."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from rocm_tune.core.errors import UserError
from rocm_tune.core.files import MAX_CONFIG_BYTES, check_lines, read_bytes
from rocm_tune.core.formats import automodel, dotenv, env_reads, glm_finetune, litgpt, mlperf, nb_cells, olmo
from rocm_tune.core.runners import (
    accelerate,
    axolotl,
    gpt_programs,
    megatron,
    rl_programs,
    textgen,
    torchtitan,
    torchtune,
)
from rocm_tune.core.runners import autotrain
from rocm_tune.core.runners import universal_llm_trainer as ult
from rocm_tune.core.runners import unsloth as unsloth_runner
from rocm_tune.core.runners import deepspeed as deepspeed_json
from rocm_tune.core.runners import hf as hf_args
from rocm_tune.core.runners import instructlab
from rocm_tune.core.runners import launchers as shell
from rocm_tune.core.runners import values
from rocm_tune.core.runners import llamafactory as lf_yaml
from rocm_tune.core.runners import ms_swift as swift
from rocm_tune.core.runners.common import (
    Finding,
    Job,
    Setting,
    as_int,
    load_structured,
    resolve_ref,
    scalar_value,
    yaml_error_line,
    yaml_lines,
)
from rocm_tune.profiles.gpt_programs import NANOCHAT_MODULES

NANOCHAT_ENTRY = "nanochat base_train"
# a statement that calls something (`trainer = SFTTrainer(...)`, `trainer.train()`): a .py file with one is a program
_CALLS = re.compile(r"^\s*(?:[A-Za-z_][\w.]*\s*=\s*)?[A-Za-z_][\w.]*\s*\(", re.MULTILINE)
# a JAX/Flax training (its imports, or its calls where the imports are cut): out of scope, said so
JAX_PROGRAM = re.compile(r"^\s*(?:import|from)\s+(?:jax|flax|optax|chex)\b|\b(?:jax|optax|chex|flax)\.[a-z_]+\(?",
                         re.MULTILINE)

__all__ = ["Finding", "Job", "Setting", "detect", "read_job"]

LAUNCHERS = ("torchrun", "deepspeed", "accelerate", "torch.distributed.run", "torch.distributed.launch")
_load_structured = load_structured
_resolve_ref = resolve_ref


_HOST_LINE = re.compile(r"^\s*([^\s#]+)\s+slots\s*=\s*(\d+)\s*(#.*)?$")


def hostfile_hosts(text: str) -> list[tuple[str, int]] | None:
    """A DeepSpeed hostfile (`HOST slots=N` lines, `#` comments): [(host, slots)], else None."""
    hosts = []
    for line in text.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        m = _HOST_LINE.match(line)
        if m is None:
            return None
        hosts.append((m.group(1), int(m.group(2))))
    return hosts or None


def detect(text: str, path: str = "config") -> str:
    """lf-yaml | axolotl-yaml | accelerate-yaml | deepspeed-json | dataset-info | rocm-tune-plan | hostfile | script
    | python | unknown."""
    if hostfile_hosts(text):
        return "hostfile"
    if dotenv.is_dotenv(text, path):
        return "dotenv"
    if notebook_code(text) is not None:
        return "notebook"
    if path.endswith(".toml") or re.search(r"^\[model\]\s*$", text, re.MULTILINE):
        if torchtitan.is_config(torchtitan.load_toml(text)):
            return "torchtitan-toml"
    data = _load_structured(text, path)
    if torchtitan.primus_module(data) is not None:
        return "primus-torchtitan-yaml"
    if torchtune.is_torchtune_mapping(data):
        return "torchtune-yaml"
    if litgpt.is_config(data):
        return "litgpt-yaml"
    if autotrain.is_config(data):
        return "autotrain-yaml"
    if olmo.is_config(data):
        return "olmo-yaml"
    if automodel.is_config(data):
        return "automodel-yaml"
    if glm_finetune.is_config(data):
        return "glm-finetune-yaml"
    if ult.is_config(data):
        return "ult-yaml"
    if mlperf.is_config(text):
        return "mlperf-config"
    if megatron.primus_module(data) is not None:
        return "primus-yaml"
    if lf_yaml.is_lf_mapping(data):
        return "lf-yaml"
    if isinstance(data, dict) and "base_model" in data:
        return "axolotl-yaml"
    if accelerate.is_accelerate_mapping(data):
        return "accelerate-yaml"
    if hf_args.is_recipe_mapping(data) or hf_args.flatten_sections(data) is not None:
        return "hf-yaml"
    if textgen.is_textgen_params(data):
        return "textgen-lora"
    if deepspeed_json.is_ds_mapping(data):
        return "deepspeed-json"
    if isinstance(data, dict) and {"recommended", "hardware", "goal"} <= set(data):
        return "rocm-tune-plan"
    if isinstance(data, dict) and data and all(
            isinstance(v, dict) and any(k in v for k in ("file_name", "hf_hub_url", "ms_hub_url", "script_url",
                                                          "cloud_file_name", "om_hub_url")) for v in data.values()):
        return "dataset-info"
    if any(k in text for k in ("n_layer", "block_size", "init_from")) and gpt_programs.is_nanogpt_config(text):
        return "nanogpt-config"
    if any(w in text for w in ("import torch", "from transformers", "def ", "import ")) and (
            "\\\n" not in text or _python_file(text, path)) and not _shell_file(text, path):
        return "python"
    if str(path).endswith(".py") and _CALLS.search(text) and not JAX_PROGRAM.search(text) and _python_file(text, path):
        # a notebook's cells saved as a .py without their import cell: a Python program by its name that parses
        return "python"
    words = text.split()
    if any(w.startswith("--") for w in words) or any(
            k in text for k in ("llamafactory-cli", "torchrun", "deepspeed", "accelerate", "swift ", "python")) or \
            any(megatron.amd_launcher(w) for w in words) or \
            any(os.path.basename(w) in torchtitan_launchers() for w in words):
        return "script"
    return "unknown"


def torchtitan_launchers() -> tuple[str, ...]:
    """torchtitan's launch scripts (./run_train.sh, run_llama_train.sh): a file that runs one is a launch script."""
    from rocm_tune.profiles.torchtitan_configs import LAUNCH_SCRIPTS

    return LAUNCH_SCRIPTS


def _shell_file(text: str, path: str) -> bool:
    """A shell script by its shebang (`#!/bin/bash`, `#!/usr/bin/env bash`) that Python cannot parse: its `python -c
    "import torch; ..."` lines do not make it a Python program."""
    first = text.lstrip()[:100].splitlines()[0] if text.strip() else ""
    if not (first.startswith("#!") and re.search(r"\b(?:ba|z|da|k)?sh\b", first)):
        return False
    import ast
    try:
        ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return True
    return False


def _python_file(text: str, path: str) -> bool:
    """A Python program by its name or its shebang that Python can parse (a docstring may show a shell command
    with backslash continuations: it is still a program, not a launch script)."""
    first = text.lstrip()[:100].splitlines()[0] if text.strip() else ""
    if not (str(path).endswith(".py") or (first.startswith("#!") and "python" in first)):
        return False
    from rocm_tune.core.files import parse_python

    try:
        parse_python(text, path, "Python program")   # the project's one parser, with its depth limits
    except UserError:
        # a notebook's cells as a script: its shell lines (`!pip ...`, or a command kept without its `!`) aside
        cells = hf_args.without_bare_shell_lines("\n".join(hf_args.without_shell_lines(text.splitlines())))
        try:
            parse_python(cells, path, "Python program")
        except UserError:
            return False
    return True


# huggingface/trl trl/cli.py: `trl sft|dpo|grpo|kto|rloo|reward ...` runs trl/scripts/<command>.py under accelerate
TRL_CLI = ("sft", "dpo", "grpo", "kto", "rloo", "reward", "orpo", "gkd", "xpo", "nash_md", "online_dpo", "prm")


def _torchtitan_entry(argv: list[str]) -> tuple[int, str, str] | None:
    """torchtitan's trainer: `train.py` / `-m torchtitan.train` followed by `--job.config_file X.toml`, or its
    launcher `./run_train.sh` (`run_llama_train.sh`), which runs that with $CONFIG_FILE and $NGPU."""
    from rocm_tune.profiles import torchtitan_configs as T

    for i, w in enumerate(argv):
        base = os.path.basename(w)
        if base in T.LAUNCH_SCRIPTS:
            return i, "megatron", f"torchtitan ({base})"
        later = [a.split("=", 1)[0] for a in argv[i + 1:]]
        if (w.endswith(".py") or (w in T.TRAIN_MODULES and i > 0 and argv[i - 1] in ("-m", "--module"))) and \
                any(a in T.CONFIG_FLAGS for a in later):
            return i, "megatron", f"torchtitan ({base})"
    return None


def _entry(argv: list[str]) -> tuple[int, str, str] | None:
    """(index, runner, entry description) of the training program inside a command."""
    rl = rl_programs.entry(argv)
    if rl is not None:         # verl / OpenRLHF: the actor read as the transformers program it trains
        return rl[0], "hf", f"{rl[1]} {argv[rl[0]]}"
    lit = litgpt.entry(argv)
    if lit is not None:        # LitGPT fine-tuning (core/formats/litgpt.py): read with LitGPT's own defaults
        return lit[0], "hf", f"litgpt finetune {lit[1]}"
    at = autotrain.entry(argv)
    if at is not None:         # AutoTrain Advanced `autotrain llm --train ...` (core/runners/autotrain.py)
        return at, "hf", autotrain.ENTRY
    atc = autotrain.config_entry(argv)
    if atc is not None:        # `autotrain --config X.yml`: the YAML's task and params (_apply_autotrain_config)
        return atc[0], "hf", "autotrain --config"
    titan = _torchtitan_entry(argv)
    if titan is not None:      # torchtitan: its TOML (--job.config_file) with the CLI's --section.key overrides
        return titan
    for i, w in enumerate(argv):
        base = os.path.basename(w)
        if i > 0 and os.path.basename(argv[i - 1]) in ("bash", "sh", "source", ".") and megatron.amd_launcher(w):
            return i, "megatron", f"{megatron.AMD_ENTRY} {base}"
        if base in ("llamafactory-cli", "lmf") and i + 1 < len(argv) and argv[i + 1] in ("train", "sft"):
            return i + 1, "llamafactory", "llamafactory-cli train"
        if base == "lf_launch.py" or w == "rocm_tune.train.lf_launch":
            return i, "llamafactory", "lf_launch"
        if base in ("train_bash.py",) or w.endswith(("src/train.py", "src/train_bash.py")) or \
                w in ("llamafactory.train", "llamafactory.launcher"):
            return i, "llamafactory", w
        if base == "swift" and i + 1 < len(argv) and argv[i + 1] in ("sft", "pt", "rlhf"):
            return i + 1, "ms-swift", f"swift {argv[i + 1]}"
        swift_cli = _swift_cli(w, argv[i - 1] if i else "") or SWIFT_V1_SCRIPTS.get(base)
        if swift_cli:
            return i, "ms-swift", f"swift {swift_cli}"
        if w in ("axolotl.cli.train",) or (base == "axolotl" and i + 1 < len(argv) and argv[i + 1] == "train"):
            return (i + 1 if base == "axolotl" else i), "axolotl", "axolotl train"
        if ((w == "rocm_tune" and i > 0 and argv[i - 1] in ("-m", "--module")) or base == "rocm-tune") \
                and i + 1 < len(argv) and argv[i + 1] == "train":
            return i + 1, "builtin", "rocm-tune train"     # rocm-tune's own trainer (a --runner builtin bundle)
        if base == "trl" and i + 1 < len(argv) and argv[i + 1] in TRL_CLI:
            return i + 1, "hf", f"trl {argv[i + 1]}"     # TRL's CLI: TrainingArguments / <Stage>Config flags
        if base == "tune" and i + 1 < len(argv) and argv[i + 1] == "run":
            return i + 1, "torchtune", "tune run"
        if base == "megatron" and i + 1 < len(argv) and argv[i + 1] in ("sft", "pt", "rlhf"):
            return i + 1, "megatron", f"megatron {argv[i + 1]}"
        later = {a.split("=", 1)[0]: 1 for a in argv[i + 1:] if a.startswith("--")}
        if w.endswith(".py") and (base.startswith("pretrain_") or megatron.is_megatron_args(later)
                                  or any("--" + k in later for k in SLIME_MARKERS)):
            return i, "megatron", w
        if w.endswith(".py"):
            return i, "hf", w
        if (w in NANOCHAT_MODULES and i > 0 and argv[i - 1] in ("-m", "--module")) or \
                w.replace("\\", "/").endswith("scripts/base_train.py"):
            return i, "hf", NANOCHAT_ENTRY
        if _is_training_module(argv, i):
            return i, "hf", f"python -m {w}"
    return None


# ms-swift 1.x/2.x's example entry points (examples/pytorch/llm/llm_sft.py: `from swift.llm import sft_main;
# sft_main()`, llm_dpo.py / llm_rlhf.py: rlhf_main / dpo_main, llm_pt.py: pt_main): the same programs as
# `swift sft|rlhf|pt`, with the flags of their release
SWIFT_V1_SCRIPTS = {"llm_sft.py": "sft", "llm_pt.py": "pt", "llm_dpo.py": "rlhf", "llm_rlhf.py": "rlhf",
                    "llm_orpo.py": "rlhf", "llm_simpo.py": "rlhf", "llm_kto.py": "rlhf"}


def _swift_cli(word: str, before: str) -> str | None:
    """`swift/cli/sft.py` (a path ending so) or `-m swift.cli.sft`: the program `swift sft|pt|rlhf` itself runs
    (modelscope/ms-swift swift/cli/main.py: ROUTE_MAPPING 'sft' -> 'swift.cli.sft', started as `python -m
    torch.distributed.run ... <that module's file>`), so a launcher (deepspeed, torchrun) that names it runs ms-swift
    with ms-swift's defaults: its command (sft, pt, rlhf), else None."""
    for cmd in ("sft", "pt", "rlhf"):
        if word.replace("\\", "/").endswith(f"swift/cli/{cmd}.py") or \
                (word == f"swift.cli.{cmd}" and before in ("-m", "--module")):
            return cmd
    return None


# modules run with `-m` that start other programs, not a training (torchrun's and accelerate's own modules are read
# as launchers; pip, venv ... are no training)
_NOT_PROGRAMS = ("torch.distributed.run", "torch.distributed.launch", "accelerate.commands.launch", "pip", "venv",
                 "http.server", "deepspeed.launcher.runner", "torch.utils.collect_env", "ensurepip")


def _is_training_module(argv: list[str], i: int) -> bool:
    """`python -m pkg.train --model_path M ...`: Python runs the module as __main__ exactly as `python pkg/train.py`
    (docs.python.org, the -m option), so a module whose arguments name the model is the training program, read as
    a transformers program like a script (its own flag names: core/runners/hf.py _own_names)."""
    w = argv[i]
    if i == 0 or argv[i - 1] not in ("-m", "--module") or w in _NOT_PROGRAMS or w.startswith("-"):
        return False
    later = [a[2:].split("=", 1)[0].replace("-", "_") for a in argv[i + 1:] if a.startswith("--")]
    return any(hf_args.MODEL_FLAG.match(k) for k in later)


def notebook_code(text: str) -> str | None:
    """The code cells of a Jupyter notebook (.ipynb JSON) as one Python program (shell `!` and magic `%` lines
    commented out; nothing is run), or None when the text is not a notebook."""
    import json

    s = text.lstrip()
    if not s.startswith("{") or '"cells"' not in s[:200000]:
        return None
    try:
        nb = json.loads(text)
    except ValueError:
        return None
    if not isinstance(nb, dict) or not isinstance(nb.get("cells"), list):
        return None
    cells = _code_cells(nb)
    # the cells after the one that runs `trainer.train()` reload the pushed result for inference: the model they
    # name is not the one trained (nb_cells.training_cell), so the program ends with the training cell
    last = nb_cells.training_cell(cells)
    return "\n".join(c + "\n" for c in (cells if last is None else cells[:last + 1]))


def _code_cells(nb: dict) -> list[str]:
    """The notebook's code cells as Python text, shell and magic lines made `pass` (hf.without_shell_lines)."""
    out: list[str] = []
    for cell in nb["cells"]:
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        src = cell.get("source", "")
        src = "".join(src) if isinstance(src, list) else str(src)
        out.append("\n".join(hf_args.without_shell_lines(src.splitlines())))
    return out


def _notebook_names(text: str) -> dict:
    """The names a notebook's code cells assign one literal value (values.module_names); {} when they do not parse."""
    from rocm_tune.core.files import parse_python

    try:
        return values.module_names(parse_python(notebook_code(text) or "", "notebook", "notebook"))
    except UserError:
        return {}


def notebook_files(text: str, path: str) -> dict[str, str]:
    """What a notebook writes and runs besides its Python: `%%writefile NAME` cells as files named NAME (beside the
    notebook), and its `!` shell lines as one script (`NOTEBOOK!`): Colab/Kaggle notebooks of LLaMA-Factory,
    Axolotl or torchrun write a config that way and start it with `!llamafactory-cli train NAME`."""
    import json

    try:
        nb = json.loads(text)
    except ValueError:
        return {}
    out: dict[str, str] = {}
    shell: list[str] = []
    here = os.path.dirname(path)
    for cell in nb.get("cells", []) if isinstance(nb, dict) else []:
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        src = cell.get("source", "")
        src = "".join(src) if isinstance(src, list) else str(src)
        lines = src.splitlines()
        first = lines[0].strip() if lines else ""
        if first.startswith("%%writefile"):
            parts = first.split()
            name = parts[-1] if len(parts) > 1 else ""
            if name and not name.startswith("-"):
                out[os.path.join(here, name) if here else name] = "\n".join(lines[1:]) + "\n"
            continue
        shell += [ln.lstrip()[1:] for ln in lines if ln.lstrip().startswith("!")]
    # the config files its Python cells write (`yaml.dump(cfg, open("config.yml", "w"))` ...): read as written
    for name, t in nb_cells.written_files(notebook_code(text) or "").items():
        q = os.path.join(here, name) if here and not os.path.isabs(name) else name
        out.setdefault(q, t)
    if any(w in ln for ln in shell for w in ("train", "torchrun", "accelerate", "deepspeed", "swift", "tune ")):
        names = _notebook_names(text)
        out[path + "!"] = "\n".join(values.ipython_expand(ln, names) for ln in shell) + "\n"
    return out


def _count_devices(v: str) -> int | None:
    parts = [p for p in str(v).split(",") if p.strip() != ""]
    return len(parts) if parts and all(p.strip().lstrip("-").isdigit() or p.strip().startswith(("GPU-", "MIG-"))
                                       for p in parts) else None


def _launch_settings(job: Job, cmd: shell.Command, launch_flags: dict[str, tuple[str, int]], file: str) -> None:
    """What the launcher's own flags set beside the GPU count: a hostfile, accelerate's config file, srun's
    one-node deepspeed jobs."""
    if job.launcher == "deepspeed" and "srun" in cmd.wrappers and not {"hostfile", "force_multi"} & set(launch_flags):
        # `srun --nodes=N deepspeed train.py`: each node's deepspeed launcher finds no hostfile and "will proceed with
        # training with local resources only" (deepspeed/launcher/runner.py fetch_hostfile; world_info localhost,
        # master_addr 127.0.0.1): N separate one-node jobs, each sharding over its own node's GPUs
        job.settings["__ds_local__"] = Setting("__ds_local__", True, file, cmd.line, "srun ... deepspeed", "flag")
    if "hostfile" in launch_flags:     # read when the hostfile is given beside the script (read_texts)
        job.settings["__hostfile__"] = Setting("__hostfile__", launch_flags["hostfile"][0], file,
                                               launch_flags["hostfile"][1], "hostfile", "flag")
    if "config_file" in launch_flags:
        job.settings["accelerate_config"] = Setting("accelerate_config", launch_flags["config_file"][0], file,
                                                    launch_flags["config_file"][1], "config_file", "flag")
    if job.launcher == "accelerate" and accelerate.states_config(launch_flags):
        # applied over the config file once it is read (_apply_accelerate): the command line wins
        job.settings["__accelerate_cli__"] = Setting("__accelerate_cli__", launch_flags, file, cmd.line,
                                                     "accelerate launch", "flag")


def _env_files(job: Job, cmd: shell.Command) -> dict[str, str]:
    """The variables of the --env-file(s) the command's wrapper names (`docker run --env-file x.env`), when the file
    is given (matched by its name); its own -e values win (Docker CLI reference, "Set environment variables")."""
    out: dict[str, str] = {}
    for ref in cmd.env_files:
        path = next((p for p in job.files if os.path.basename(p) == os.path.basename(ref)), None)
        if path is not None:
            out.update(shell.env_file_values(job.files[path]))
            job.notes.append(f"{path}: the --env-file of the command on line {cmd.line}: its variables are "
                             "that command's environment")
    return out


def _launcher(job: Job, pre: list, runner: str, entry: str) -> dict[str, tuple[str, int]]:
    """The launcher and its flags (everything before the program); the runners' own CLIs as their launchers."""
    launch_flags: dict[str, tuple[str, int]] = {}
    for i, t in enumerate(pre):
        b = os.path.basename(t.text)
        if b in LAUNCHERS or b.endswith("ccelerate") or t.text in LAUNCHERS:
            job.launcher = "accelerate" if b.endswith("ccelerate") else ("torchrun" if "torch" in b else b)
            launch_flags = shell.flag_values(pre[i + 1:])
            break
    if runner == "llamafactory" and job.launcher is None:
        job.launcher = "llamafactory-cli" if "llamafactory-cli" in entry else None
    if runner == "ms-swift" and job.launcher is None:      # `deepspeed swift/cli/rlhf.py` keeps its launcher
        job.launcher = "swift"
    return launch_flags


def _flag_counts(job: Job, launch_flags: dict[str, tuple[str, int]], file: str) -> Setting | None:
    """The GPUs per node the launcher's flags give (returned) and its node count (set on the job)."""
    g = None
    for k in ("nproc_per_node", "nproc-per-node", "num_gpus", "num_processes"):
        if k in launch_flags and as_int(launch_flags[k][0]):
            g = Setting("gpus", as_int(launch_flags[k][0]), file, launch_flags[k][1], k, "flag")
    if "include" in launch_flags:         # deepspeed --include localhost:0,1
        inc = launch_flags["include"][0].split("@")[0]
        n = _count_devices(inc.split(":", 1)[1]) if ":" in inc else None
        if n:
            g = Setting("gpus", n, file, launch_flags["include"][1], "include", "flag")
    for k in ("nnodes", "num_nodes", "num_machines"):
        if k in launch_flags and _node_count(k, launch_flags[k][0]):
            job.nodes = Setting("nodes", _node_count(k, launch_flags[k][0]), file, launch_flags[k][1], k, "flag")
    return g


def _runner_env(job: Job, runner: str, entry: str, env: dict[str, str], file: str, line: int,
                g: Setting | None) -> Setting | None:
    """What the runners' own environment variables set: ms-swift's process/node counts, image caps and chunked loss,
    LLaMA-Factory's Megatron modes; the GPUs per node after them."""
    if runner == "ms-swift":
        if as_int(env.get("NNODES", "x")) and job.nodes is None:     # swift/cli/main.py: torchrun --nnodes
            job.nodes = Setting("nodes", as_int(env["NNODES"]), file, line, "NNODES", "env")
        _swift_processes(job, env, file, line, g)
        _swift_image_caps(job, env, file, line)
        if (as_int(env.get("CELOSS_PARALLEL_SIZE", "x")) or 0) > 0:
            # swift/trainers/sequence_parallel: the sequence-parallel loss runs ChunkedCrossEntropyLoss in blocks
            job.settings.setdefault("chunked_ce", Setting("chunked_ce", as_int(env["CELOSS_PARALLEL_SIZE"]), file,
                                                          line, "CELOSS_PARALLEL_SIZE", "env"))
        g = job.gpus or g
    if runner == "llamafactory" and lf_yaml.megatron_backend(env):      # USE_MCA=1 / USE_MEGATRON_BRIDGE=1
        job.settings["__lf_megatron__"] = Setting("__lf_megatron__", lf_yaml.megatron_backend(env), file, line,
                                                  "USE_MCA" if "USE_MCA" in env else "USE_MEGATRON_BRIDGE", "env")
    if runner == "megatron" and entry.startswith("megatron "):
        _swift_image_caps(job, env, file, line)     # `megatron sft` runs ms-swift's templates
    return g


def _read_command(job: Job, cmd: shell.Command, file: str, script: shell.Script) -> None:
    argv = cmd.argv
    job.env.update({**script.exports, **cmd.env})   # what any command's launch sets (OmegaConf `${oc.env:X}`)
    hit = _entry(argv)
    if hit is None:
        return
    idx, runner, entry = hit
    job.runner, job.entry, job.entry_file, job.entry_line = runner, entry, file, cmd.tokens[idx].line
    job.lf_launch = entry == "lf_launch"
    pre = cmd.tokens[:idx]
    prog = cmd.tokens[idx + 1:]
    env = {**script.exports, **_env_files(job, cmd), **cmd.env}
    job.env.update(env)
    launch_flags = _launcher(job, pre, runner, entry)
    g = _flag_counts(job, launch_flags, file)
    _launch_settings(job, cmd, launch_flags, file)
    if g is None and as_int(env.get("NPROC_PER_NODE", "x")) and (runner in ("ms-swift", "llamafactory", "megatron")):
        g = Setting("gpus", as_int(env["NPROC_PER_NODE"]), file, cmd.line, "NPROC_PER_NODE", "env")
    # fsdp_qlora's train.py mp.spawn()s one process per visible GPU itself (nprocs=torch.cuda.device_count())
    spawns = runner == "hf" and job.launcher is None and hf_args.is_fsdp_qlora(shell.flag_values(prog), entry)
    if g is None:
        for var in ("HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES"):
            if var in env and _count_devices(env[var]):
                n = _count_devices(env[var])
                # llamafactory-cli / swift / deepspeed start one rank per visible device; python script.py is one
                if job.launcher in ("llamafactory-cli", "swift", "deepspeed", "accelerate") or n == 1 or spawns:
                    g = Setting("gpus", n, file, cmd.line, var, "env")
                break
    g = _runner_env(job, runner, entry, env, file, cmd.line, g)
    if g is None and spawns:
        job.notes.append("fsdp_qlora train.py starts one process per visible GPU (mp.spawn over "
                         "torch.cuda.device_count()): pass --gpus, or --world_size in the command")
    elif g is None and runner in ("hf", "builtin") and job.launcher is None:
        ranks = shell.ranks_per_node(cmd, as_int(script.sbatch.get("--nodes", script.sbatch.get("-N", ("", 0)))[0]))
        g = Setting("gpus", ranks[0], file, cmd.line, ranks[1], "flag") if ranks else \
            Setting("gpus", 1, file, cmd.line, "python", "assumed")
    if g is not None and job.gpus is None:
        job.gpus = g
    _bad_count(job, runner, launch_flags, env, file, cmd.line)
    if entry.startswith(megatron.AMD_ENTRY):
        _read_amd_launcher(job, entry.split()[-1], env, prog, file, cmd.line)
        return
    if entry.startswith("torchtitan ("):
        _read_titan_command(job, entry, env, prog, file, cmd.line)
        return
    if entry == NANOCHAT_ENTRY:       # no program file: its flags over base_train's defaults (core/runners/gpt_programs)
        st, notes = gpt_programs.nanochat_settings(shell.flag_values(prog), file)
        job.settings = {**job.settings, **st}
        job.notes += notes
        job.script_flags["style"] = "python"
        return
    _read_program(job, runner, entry, prog, file, _program_env(job, cmd, env, file))


def _program_env(job: Job, cmd: shell.Command, env: dict[str, str], file: str) -> dict:
    """The variables of the .env files the program loads (named on its command line) or the script sources, under
    the launch line's and the script's own (env_reads.program_env): {KEY: (value, line, file)}; {} when none."""
    named = env_reads.named_on(cmd.argv, job.files)
    sourced = dict(job.script_flags.get("__sourced_env__") or {})
    for ref in cmd.env_files:        # docker/uv --env-file: its variables are the program's environment too
        path = next((q for q in job.files if os.path.basename(q) == os.path.basename(ref)), None)
        if path is not None and {"docker", "podman"} & set(cmd.wrappers):   # docker's rules: quotes kept as written
            sourced.update({k: (v, cmd.line, path) for k, v in shell.env_file_values(job.files[path]).items()})
        elif path is not None:          # uv run --env-file: dotenv's rules
            sourced.update({k: (v, ln, path) for k, (v, ln) in dotenv.values(job.files[path]).items()})
    if not named and not sourced:
        return {}
    out = env_reads.program_env(named, job.files, env, file, cmd.line)
    for k, v in sourced.items():      # a later assignment of the script (or the launch line) wins over the file
        out.setdefault(k, v if env.get(k, v[0]) == v[0] else (env[k], cmd.line, file))
    for k, v in cmd.env.items():
        out.setdefault(k, (v, cmd.line, file))
    if named:
        job.notes.append(f"{file}:{cmd.line}: the program loads {', '.join(os.path.basename(p) for p in named)} "
                         "into its environment (python-dotenv load_dotenv: the launch line's variables win)")
    return out


def _read_nanogpt_config(job: Job, text: str, p: str, texts: dict[str, str]) -> None:
    """A nanoGPT config file (`python train.py config/x.py --batch_size=32`): read over train.py's defaults, with the
    --key=value words of a command in another file given that passes it (configurator.py: those win)."""
    base = os.path.basename(p)
    flags: dict = {}
    where = ""
    for q, t in texts.items():
        if q == p or base not in t:
            continue
        for cmd in shell.parse_script(t, q).commands:
            if any(os.path.basename(w) == base for w in cmd.argv):
                flags, where = shell.flag_values(cmd.tokens), q
    st, notes = gpt_programs.read_nanogpt_config(text, p, flags, where)
    job.settings = {**job.settings, **st}
    job.notes += notes
    if job.runner == "unknown":
        job.runner, job.entry, job.entry_file, job.entry_line = "hf", f"python train.py {base}", p, 1
        job.script_flags["style"] = "python"
    job.gpus = job.gpus or Setting("gpus", 1, p, 1, "python train.py", "assumed")


def _read_titan_command(job: Job, entry: str, env: dict, prog: list, file: str, line: int) -> None:
    """torchtitan's command: `--job.config_file X.toml` and the `--section.key value` overrides after it (torchtitan
    ConfigManager: the command line wins over the TOML; a bare `--section.flag` is true, `--section.no-flag` /
    `--no-section.flag` false). run_train.sh takes the TOML from $CONFIG_FILE, the GPUs from $NGPU (8 unset) and
    passes its own arguments on as overrides. Read once every file is (_apply_torchtitan)."""
    from rocm_tune.profiles import torchtitan_configs as T

    words = [(t.text.strip("'\""), t.line) for t in prog]
    ref: tuple[str, int] | None = None
    overrides: list[tuple[str, object, int]] = []
    i = 0
    while i < len(words):
        w, wl = words[i]
        nxt = words[i + 1][0] if i + 1 < len(words) else None
        i += 1
        if not w.startswith("--") or "." not in w.split("=", 1)[0]:
            continue
        key, eq, value = w[2:].partition("=")
        if not eq and (nxt is None or nxt.startswith("--")):
            neg = key.startswith("no-") or ".no-" in key or ".no_" in key
            key = key.removeprefix("no-").replace(".no-", ".").replace(".no_", ".") if neg else key
            overrides.append((key, not neg, wl))
            continue
        if not eq:
            value, i = str(nxt), i + 1
        if "--" + key in T.CONFIG_FLAGS:
            ref = (value, wl)
        else:
            overrides.append((key, scalar_value(value), wl))
    launcher = os.path.basename(entry[len("torchtitan ("):-1]) in T.LAUNCH_SCRIPTS
    if launcher:
        cfg = env.get("CONFIG_FILE") or str(T.LAUNCH_DEFAULTS["CONFIG_FILE"])
        ref = ref or (cfg, line)
        ngpu = as_int(env.get("NGPU", T.LAUNCH_DEFAULTS["NGPU"]))
        if ngpu and job.gpus is None:
            job.gpus = Setting("gpus", ngpu, file, line, "NGPU", "env" if "NGPU" in env else "default")
        job.launcher = "torchrun"
    job.script_flags["style"] = "megatron"
    job.script_flags["torchtitan"] = {"ref": ref, "overrides": overrides, "file": file}
    if job.gpus is None:
        job.gpus = Setting("gpus", 1, file, line, "torchrun --nproc_per_node", "assumed")


def _apply_torchtitan(job: Job, texts: dict[str, str], cfgs: list[str]) -> None:
    """The torchtitan TOML a torchtitan command names (given beside it), or the TOML given alone, with the
    command's overrides: read as the layout it runs (core/runners/torchtitan.py)."""
    cmd = job.script_flags.get("torchtitan")
    if cmd is None:                    # a TOML alone, or beside another trainer's command (whose settings win)
        for p in cfgs[:1]:
            _read_own_trainer(job, "torchtitan-toml", texts[p], p)
        return
    chosen = cfgs[0] if cfgs else None
    if cmd is not None and cmd["ref"] is not None:
        hit, how = resolve_ref(str(cmd["ref"][0]), Path(cmd["file"] or ".").parent, texts)
        if hit in cfgs:
            chosen = hit
            if how:
                job.notes.append(how)
        elif hit is None and chosen:
            job.notes.append(f"--job.config_file {cmd['ref'][0]}: not given; the TOML given ({chosen}) read in its "
                             f"place")
    text = texts[chosen] if chosen else ""
    data = dict(torchtitan.load_toml(text) or {}) if chosen else {}
    if not chosen and cmd is not None:
        # the TOML is not here: torchtitan's own config of that name, else torchtitan's defaults (said)
        data = _shipped_titan_config(job, str(cmd["ref"][0]) if cmd["ref"] else "")
    over = cmd["overrides"] if cmd is not None else []
    data = torchtitan.apply_overrides(data, [(k, v) for k, v, _l in over])
    st, notes = torchtitan.read(data, text, chosen or (cmd["file"] if cmd else ""), "torchtitan")
    for key, setting in list(st.items()):       # a fix edits the override, not the TOML
        for k, _v, line in over:
            if setting.native and k.split(".")[-1].replace("-", "_") == setting.native:
                st[key] = Setting(key, setting.value, cmd["file"], line, k, "flag", setting.invert)
    if over:
        notes.append("the command's overrides read over the TOML: " + ", ".join(f"--{k} {v}" for k, v, _l in over))
    job.settings = {**job.settings, **st}
    job.notes += notes


def _shipped_titan_config(job: Job, ref: str) -> dict:
    """The TOML a torchtitan command names when it is not given: torchtitan's own train_configs file of that place
    in the repository (profiles/torchtitan_configs.py SHIPPED_CONFIGS), said; else {} (with a note asking for it)."""
    from rocm_tune.profiles import torchtitan_configs as T

    path = ref.replace("\\", "/")
    key = path.split("torchtitan/models/", 1)[1] if "torchtitan/models/" in path else ""
    if key in T.SHIPPED_CONFIGS:
        job.notes.append(f"--job.config_file {ref}: not given; torchtitan's own {key} read ({T.SHIPPED_SOURCE}{key}); "
                         f"give the file if it was edited")
        return {k: dict(v) for k, v in T.SHIPPED_CONFIGS[key].items()}
    job.notes.append(f"--job.config_file {ref or '(none)'}: not given; torchtitan's defaults read (JobConfig); give "
                     f"the TOML to read the model and the layout")
    return {}


def _read_amd_launcher(job: Job, base: str, env: dict, prog: list, file: str, line: int) -> None:
    """AMD's Megatron-LM launcher scripts (core/runners/megatron.py read_amd_launcher): the Megatron flags they
    build from their variables, read as Megatron-LM arguments."""
    flags, notes, gpus = megatron.read_amd_launcher(base, env, [(t.text, t.line) for t in prog], line)
    st, more = megatron.read_flags(flags, file)
    job.settings.update(st)
    job.notes += notes + more
    job.launcher = "torchrun"
    job.script_flags["style"] = "megatron"
    if gpus and job.gpus is None:
        job.gpus = Setting("gpus", gpus, file, line, "HIP_VISIBLE_DEVICES (in the launcher)", "flag")


def _node_count(key: str, value: str) -> int | None:
    """A node count: a whole number, or for torchrun's --nnodes the elastic `MIN:MAX` (torch/distributed/run.py
    parse_min_max_nnodes), read as MIN - the fewest nodes it may start with, so the most each rank must hold."""
    text = str(value).strip().strip("'\"")
    if key == "nnodes" and text.count(":") == 1:
        lo, hi = (as_int(x) for x in text.split(":"))
        return lo if lo and hi and lo <= hi else None
    return as_int(text)


# torchrun's --nproc_per_node takes a number or one of these (torch/distributed/run.py determine_local_world_size)
_NPROC_WORDS = ("auto", "gpu", "cpu", "xpu")


def _bad_count(job: Job, runner: str, launch_flags: dict, env: dict, file: str, line: int) -> None:
    """A process or node count the launcher cannot start with (`--nproc_per_node zz`, `NPROC_PER_NODE=x` before
    `swift` or `llamafactory-cli`, which hand it to torchrun): kept as `__bad_value__`, so the check says which value
    stops the run instead of counting one process. A value the shell computes (`$NGPU`, `$(nproc)`) is not bad."""
    seen = [(k, *launch_flags[k]) for k in ("nproc_per_node", "nproc-per-node", "num_gpus", "num_processes", "nnodes",
                                            "num_nodes", "num_machines") if k in launch_flags]
    if runner in ("ms-swift", "llamafactory", "megatron"):
        seen += [(k, env[k], line) for k in ("NPROC_PER_NODE", "NNODES") if k in env]
    for key, value, where in seen:
        text = str(value).strip().strip("'\"")
        if as_int(text) is not None or values.unread(text) or _node_count(key, text) or \
                (key.lower().startswith("nproc") and text.lower() in _NPROC_WORDS):
            continue
        job.settings.setdefault("__bad_value__", Setting("__bad_value__", text, file, where, key, "flag"))


# words that name data, configs or outputs, never the model a program loads
_NOT_MODEL_EXT = (".json", ".jsonl", ".yaml", ".yml", ".txt", ".csv", ".tsv", ".parquet", ".arrow", ".py", ".sh",
                  ".log", ".pt", ".bin", ".safetensors", ".zip", ".tar", ".gz")
_OUTPUT_DIRS = frozenset({"out", "output", "outputs", "save", "saves", "save_dir", "runs", "logs", "results", "ckpt",
                          "ckpts", "checkpoints", "exp", "exps", "experiments"})


def _positional_model(job: Job, words: list, file: str) -> None:
    """A program that takes its model as a positional argument (`python finetune_vision.py data/ THUDM/glm-4v-9b
    configs/lora.yaml`, GLM-4's typer scripts; `python train.py /models/Qwen2.5-7B data.json`): the first positional
    word whose name reads as a model with a size - a path or hub id, not a data/config file, not under an output
    folder. Said in the notes as read from the position, so the user can correct it with --model."""
    from rocm_tune.core.model.names import parse_name

    for t in words:
        w = t.text.strip("'\"")
        if w.startswith("-") or "=" in w or "$" in w or w.lower().endswith(_NOT_MODEL_EXT):
            continue
        parts = [x for x in w.replace("\\", "/").split("/") if x]
        if not parts or "/" not in w and not any(c.isdigit() for c in w) or \
                any(x.lower() in _OUTPUT_DIRS for x in parts[:-1]):
            continue
        name = parse_name(w)
        if name.size_b is None or not name.series:
            continue
        job.settings["model_name_or_path"] = Setting("model_name_or_path", w, file, t.line, "positional", "flag")
        job.notes.append(f"the model is the program's positional argument {w!r} (its name reads as "
                         f"{name.describe()}): pass --model if that word is not the model")
        return


def _read_program(job: Job, runner: str, entry: str, words: list, file: str, env: dict | None = None) -> None:
    """The program's own arguments, read by its runner's module; `env`: the variables of the .env files it loads
    (_program_env), read as its arguments by name where the program itself is not given (its flags win)."""
    if runner == "axolotl":
        for t in [t for t in words if not t.text.startswith("-")][:1]:
            if t.text.endswith((".yaml", ".yml")):
                job.settings["__config_ref__"] = Setting("__config_ref__", t.text, file, t.line, t.text, "ref")
        job.script_flags["style"] = "axolotl"
    elif runner in ("llamafactory", "builtin"):
        positional = [t for t in words if not t.text.startswith("-")]
        for t in positional[:1]:
            if t.text.endswith((".yaml", ".yml", ".json")):
                job.settings["__config_ref__"] = Setting("__config_ref__", t.text, file, t.line, t.text, "ref")
        overrides = [(t.text, t.line) for t in words if "=" in t.text and not t.text.startswith("-")]
        job.settings.update(lf_yaml.read_overrides(overrides, file))
        job.settings.update(lf_yaml.read_flags(shell.flag_values(words), file))
        job.script_flags["style"] = "lf-flags"
    elif runner == "ms-swift":
        if words and words[0].text.endswith((".yaml", ".yml", ".json")):
            # `swift sft FILE.yaml`: swift/cli/main.py parse_yaml_args reads argv[0]'s keys as its flags
            job.script_flags["swift_config"] = (words[0].text, file, words[0].line, entry)
        lists: dict[str, list[str]] = {}
        job.settings.update(swift.read_flags(shell.flag_values(words, lists), file, entry, lists))
        job.script_flags["style"] = "swift"
    elif runner == "torchtune":
        _read_tune_run(job, words, file)
    elif entry.startswith(("verl ", "openrlhf")):
        _read_rl_program(job, entry, words, file)
    elif entry.startswith("litgpt finetune "):
        _read_litgpt(job, entry.split()[-1], words, file)
    elif entry == autotrain.ENTRY:
        _read_autotrain(job, shell.flag_values(words), file)
    elif entry == "autotrain --config":
        job.script_flags["style"] = "autotrain"
        ref = next((t for t in words), None)
        if ref is not None:
            job.script_flags["autotrain_config"] = (ref.text.removeprefix("--config="), file, ref.line)
    elif runner == "megatron":
        _read_megatron(job, entry, words, file)
    else:
        flags = shell.flag_values(words)
        if hf_args.is_fsdp_qlora(flags, entry):
            st, notes, world = hf_args.read_fsdp_qlora(flags, file)
            if world and (job.gpus is None or job.gpus.kind in ("assumed", "env")):
                job.gpus = Setting("gpus", world, file, flags.get("world_size", ("", None))[1], "world_size", "flag")
        elif hf_args.is_llama_recipes(flags, entry):
            st, notes = hf_args.read_llama_recipes(flags, file)
        else:
            st, notes = hf_args.read_flags(flags, file)
            if "finetuning_type" not in job.settings:
                hf_args.lora_by_program(entry, st, file, notes)
            hf_args.read_qwen_vl_finetune(entry, flags, st, file, notes)
            hf_args.read_qwen_v1_finetune(entry, flags, st, file, notes)
            hf_args.read_alpaca_lora(entry, flags, st, file, notes)
            if not any(os.path.basename(q) == os.path.basename(entry.split()[-1]) for q in job.files if entry):
                hf_args.read_fp32_program(entry, flags, st, file, notes)     # the program itself is read if given
            ds = instructlab.read_main_ds(entry, flags, st, file, notes)
            if ds is not None and job.ds is None:
                job.ds = deepspeed_json.read(ds, "", None)
            hf_args.read_qlora_program(entry, flags, st, file, notes, job.settings)
            hf_args.read_vocab_program(entry, flags, st, file)
            hf_args.read_pretrain_main(entry, flags, st, file, notes)
            if env and not any(os.path.basename(q) == os.path.basename(entry.split()[-1]) for q in job.files):
                st = {**_env_settings(env, notes), **st}
        job.settings.update(st)
        job.notes += notes
        job.script_flags["style"] = "hf"
        if "model_name_or_path" not in job.settings:
            _positional_model(job, words, file)
        if entry.startswith("trl "):
            _read_trl_cli(job, entry.split()[1], flags, file)


def _env_settings(env: dict, notes: list[str]) -> dict[str, Setting]:
    """The settings the .env variables of a program not given say, read as its flags (env_reads.as_flags)."""
    by_file, more = env_reads.as_flags(env)
    out: dict[str, Setting] = {}
    for f, flags in by_file.items():
        st, n = hf_args.read_flags(flags, f)
        st.pop(hf_args.CMD_COUNTS, None)
        out.update(st)
        notes += n
    notes += more
    if out:
        notes.append("the program itself is not given: a setting its environment does not set is counted at "
                     "TrainingArguments' default (give the program to read its own defaults)")
    return out


def _read_rl_program(job: Job, entry: str, words: list, file: str) -> None:
    """verl's / OpenRLHF's trainer arguments, with the GPUs per node and nodes they name."""
    if entry.startswith("verl "):
        st, notes, gpus, nodes = rl_programs.read_verl(words, file)
    else:
        kind = entry.split()[0]
        st, notes, gpus, nodes = rl_programs.read_openrlhf(
            shell.flag_values(words), file, kind.split("-", 1)[1] if "-" in kind else "ppo",
            local=re.search(r"\btrain_ppo(?:\.py)?$", entry.strip()) is not None)
    job.settings.update(st)
    job.notes += notes
    job.script_flags["style"] = "hf"
    if gpus and (job.gpus is None or job.gpus.kind in ("assumed", "env")):
        job.gpus = Setting("gpus", gpus, file, None, entry.split()[0] + " GPUs per node", "flag")
    if nodes and job.nodes is None:
        job.nodes = Setting("nodes", nodes, file, None, entry.split()[0] + " nodes", "flag")


def _read_megatron(job: Job, entry: str, words: list, file: str) -> None:
    """Megatron-LM / `megatron sft` / slime flags."""
    mlists: dict[str, list[str]] = {}
    flags = shell.flag_values(words, mlists)
    for k in ("recompute-modules", "recompute_modules"):     # nargs="*": every module named counts
        if k in flags and k in mlists:
            flags[k] = (" ".join(mlists[k]), flags[k][1])
    st, notes = megatron.read_flags(flags, file, swift=entry.startswith("megatron "))
    job.settings.update(st)
    job.notes += notes
    # slime / Miles (ray job submit -- python3 train.py): the training actors' GPUs per node and nodes
    for k, attr in (("actor-num-gpus-per-node", "gpus"), ("actor-num-nodes", "nodes")):
        if k in flags and as_int(flags[k][0]) and getattr(job, attr) is None:
            setattr(job, attr, Setting(attr, as_int(flags[k][0]), file, flags[k][1], k, "flag"))
    job.script_flags["style"] = "megatron"


def _read_litgpt(job: Job, method: str, words: list, file: str) -> None:
    """LitGPT's command words (core/formats/litgpt.py): a positional checkpoint_dir, jsonargparse flags, and
    `--config X.yaml`, whose keys are merged under the flags once every file is read (_apply_litgpt_config)."""
    flags, pos = litgpt.flags_of([(t.text, t.line) for t in words])
    if pos and "checkpoint_dir" not in flags:
        flags["checkpoint_dir"] = pos[0]
    job.script_flags["style"] = "litgpt"
    job.script_flags["litgpt"] = {"method": method, "flags": flags, "file": file}
    st, notes = litgpt.read(method, flags, file)
    job.settings.update(st)
    job.notes += notes
    job.defaults = dict(litgpt.DEFAULTS)
    dev = as_int(flags.get("devices", (None, None))[0])
    if dev and (job.gpus is None or job.gpus.kind == "assumed"):    # Fabric starts one process per device
        job.gpus = Setting("gpus", dev, file, flags["devices"][1], "devices", "flag")


def _read_autotrain(job: Job, flags: dict, file: str | None, fields: dict | None = None) -> None:
    """AutoTrain Advanced's LLM parameters (core/runners/autotrain.py): command flags or a YAML's fields, with the
    defaults of the release they name; its launch (one process with device_map, DDP under accelerate, ZeRO-3)."""
    old = False
    if fields is None:
        fields, old = autotrain.fields_of_flags(flags)
    release, why = autotrain.release_of(job.files, old)
    st, notes = autotrain.read(fields, file, release)
    job.settings.update(st)
    job.notes += [why] + notes
    job.defaults = dict(autotrain.DEFAULTS)
    job.script_flags["style"] = "autotrain"
    how, stage = autotrain.launch(fields, release)
    peft = st["finetuning_type"].value == "lora"
    if how == "device_map" and peft:
        job.settings["device_map"] = Setting("device_map", "auto", file, None, "device_map", "default")
        job.notes.append(f'release {release["name"]} trains in the `autotrain` process itself, from_pretrained('
                         f'device_map="auto"): the layers split over the GPUs it sees')
    elif how == "deepspeed" and job.ds is None:
        job.ds = deepspeed_json.read({"zero_optimization": {"stage": stage}}, "", None)
        job.ds_from_accelerate = True
        job.launcher = job.launcher or "accelerate"
        job.notes.append(f"distributed_backend deepspeed: accelerate launch --use_deepspeed --zero_stage {stage}, no "
                         f"offload (commands.py get_accelerate_command)")
    elif how == "ddp":
        job.launcher = job.launcher or "accelerate"
        job.notes.append("AutoTrain starts `accelerate launch --multi_gpu --num_processes <visible GPUs>` when it "
                         "sees several GPUs: one DDP rank, a whole model, per GPU (commands.py)")


def _apply_autotrain_config(job: Job, texts: dict[str, str]) -> None:
    """`autotrain --config X.yml` with X given beside the script, or an AutoTrain LLM YAML given alone."""
    ref = job.script_flags.pop("autotrain_config", None)
    yamls = [p for p, f in job.formats.items() if f == "autotrain-yaml"]
    path = None
    if ref is not None:
        hit, how = _resolve_ref(str(ref[0]), Path(ref[1] or ".").parent, texts)
        if hit is None or hit not in texts:
            job.findings.append(Finding.of("reference-missing", ref[1], ref[2], f"{ref[0]} (the file `autotrain "
                                           f"--config` reads) is not here and was not given beside the script",
                                           None))
            return
        path = hit
        if how:
            job.notes.append(how)
    elif yamls and "model_name_or_path" not in job.settings:
        path = yamls[0]
    if path is None:
        return
    data = _load_structured(texts[path], path)
    if not autotrain.is_config(data):
        return
    fields = autotrain.fields_of_config(data, yaml_lines(texts[path]))
    if ref is None:
        job.runner, job.entry, job.entry_file, job.entry_line = "hf", "autotrain --config", path, 1
    _read_autotrain(job, {}, path, fields)


def _apply_swift_config(job: Job, texts: dict[str, str]) -> None:
    """`swift sft|pt|rlhf FILE.yaml` (or .json): ms-swift's parse_yaml_args (swift/cli/main.py) puts the file's keys,
    as `--key value` (a list: its items), in place of the file name, so the command's later flags win. The file given
    beside the script: its keys under the flags; not given: said (the model and batch are in it)."""
    ref = job.script_flags.pop("swift_config", None)
    if ref is None:
        return
    value, file, line, entry = ref
    hit, how = _resolve_ref(str(value), Path(file or ".").parent, texts)
    if hit is None or hit not in texts:
        job.findings.append(Finding.of("reference-missing", file, line, f"{value} (the file `{entry}` reads its "
                                       f"arguments from) is not here and was not given beside the script", None))
        return
    data = _load_structured(texts[hit], hit)
    if not isinstance(data, dict):
        return
    lines = yaml_lines(texts[hit])
    flags: dict[str, tuple[str, int]] = {}
    lists: dict[str, list[str]] = {}
    for k, v in data.items():
        if k == "ENV":
            continue
        if isinstance(v, list):
            lists[k] = [str(x) for x in v]
            v = v[-1] if v else ""
        elif isinstance(v, dict):
            v = json.dumps(v)
        flags[str(k)] = (str(v).lower() if isinstance(v, bool) else str(v), lines.get(str(k)) or 1)
    for k, st in swift.read_flags(flags, hit, entry, lists).items():
        job.settings.setdefault(k, st)
    job.notes.append(f"{hit}: the arguments of `{entry}` (its keys read as flags; the command line's own flags over "
                     f"them)" + (f"; {how}" if how else ""))


def _apply_litgpt_config(job: Job, texts: dict[str, str]) -> None:
    """`litgpt finetune ... --config X.yaml` with X given beside the script (or a LitGPT YAML given alone): its keys,
    then the command's flags over them."""
    cmd = job.script_flags.get("litgpt")
    yamls = [p for p, f in job.formats.items() if f == "litgpt-yaml"]
    if cmd is None and not yamls:
        return
    flags, file, method = (cmd or {}).get("flags", {}), (cmd or {}).get("file"), (cmd or {}).get("method")
    path = None
    if "config" in flags:
        path, how = _resolve_ref(str(flags["config"][0]), Path(file or ".").parent, texts)
        if path is None or path not in texts:
            job.findings.append(Finding.of("reference-missing", file, flags["config"][1],
                                           f"{flags['config'][0]} is not here and was not given beside the script",
                                           None))
            path = None
        elif how:
            job.notes.append(how)
    elif yamls:
        path = yamls[0]
    if path is None:
        return
    data = _load_structured(texts[path], path)
    values = {**litgpt.from_config(data if isinstance(data, dict) else {}, yaml_lines(texts[path])), **flags}
    method = method or litgpt.method_of_config(path, data)
    st, notes = litgpt.read(method, values, path if not flags else (file or path))
    for k, v in st.items():
        if v.native not in flags and v.native.split("/")[0] not in flags and k != "finetuning_type":
            v.file = path
    job.settings.update(st)
    job.notes += notes
    job.defaults = dict(litgpt.DEFAULTS)
    if cmd is None:
        job.runner, job.entry, job.entry_file, job.entry_line = "hf", f"litgpt finetune {method}", path, 1
        job.script_flags["style"] = "litgpt"
    dev = as_int(values.get("devices", (None, None))[0])
    if dev and (job.gpus is None or job.gpus.kind == "assumed"):
        job.gpus = Setting("gpus", dev, path, values["devices"][1], "devices", "flag")
    elif job.gpus is None:
        job.gpus = Setting("gpus", 1, path, None, "devices", "assumed")


def _read_trl_cli(job: Job, command: str, flags: dict, file: str) -> None:
    """TRL's CLI (trl/cli.py): the stage its command names; accelerate's `--num_processes` / `--config_file` among
    its flags (it launches trl/scripts/<command>.py with them)."""
    stage = {"grpo": "grpo", "dpo": "dpo", "online_dpo": "dpo", "orpo": "orpo", "cpo": "cpo",
             "kto": "kto", "reward": "reward"}.get(command, "sft")
    job.settings.setdefault("stage", Setting("stage", stage, file, job.entry_line, f"trl {command}", "flag"))
    n = as_int(flags.get("num_processes", ("", 0))[0])
    if n and (job.gpus is None or job.gpus.kind == "assumed"):
        job.gpus = Setting("gpus", n, file, flags["num_processes"][1], "num_processes", "flag")
    if "config_file" in flags and "accelerate_config" not in job.settings:
        job.settings["accelerate_config"] = Setting("accelerate_config", flags["config_file"][0], file,
                                                    flags["config_file"][1], "config_file", "flag")
    job.notes.append(f"trl {command}: TRL's CLI, read as trl/scripts/{command}.py's arguments (huggingface/trl "
                     f"trl/cli.py)")


def _swift_image_caps(job, env: dict[str, str], file: str, line: int | None) -> None:
    """The image caps ms-swift's Qwen-VL templates read from the environment (swift `sft` and `megatron sft` alike)."""
    if as_int(env.get("MAX_PIXELS", "x")):   # qwen_vl_utils / ms-swift read the image pixel cap from the env
        cap = Setting("image_max_pixels", as_int(env["MAX_PIXELS"]), file, line, "MAX_PIXELS", "env")
        job.settings.setdefault("image_max_pixels", cap)
    if as_int(env.get("MAX_NUM", "x")):
        # ms-swift's InternVL templates (swift/llm/template/template/internvl.py): get_env_args('max_num', int, 12)
        # tiles of 448 x 448 per image, a thumbnail added when there are more than one
        job.settings.setdefault("max_dynamic_patch", Setting("max_dynamic_patch", as_int(env["MAX_NUM"]), file, line,
                                                             "MAX_NUM", "env"))
    if as_int(env.get("IMAGE_MAX_TOKEN_NUM", "x")):
        # qwen_vl_utils >= 0.0.14 caps an image in language tokens (ms-swift converts MAX_PIXELS into it:
        # swift/model/models/qwen.py compat_qwen_vl_utils); check turns it into pixels with the tower's patch
        job.settings.setdefault("image_max_tokens", Setting("image_max_tokens", as_int(env["IMAGE_MAX_TOKEN_NUM"]),
                                                            file, line, "IMAGE_MAX_TOKEN_NUM", "env"))


def _swift_processes(job: Job, env: dict, file: str, line: int, g: Setting | None) -> None:
    """ms-swift starts NPROC_PER_NODE processes (1 without it) and spreads each one's model over the visible GPUs
    it is left with (device_map, swift/llm/model/register.py get_default_device_map): visible 4, NPROC 2 = DDP 2 x
    2 GPUs per process; visible 2, no NPROC = one process over 2 GPUs."""
    vis = next((_count_devices(env[v]) for v in ("CUDA_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES", "ASCEND_RT_VISIBLE_DEVICES")
                if v in env and _count_devices(env[v])), None)
    if "NPROC_PER_NODE" in env and not as_int(env["NPROC_PER_NODE"]):
        return                         # set from a shell variable: one process per visible GPU assumed (said there)
    nproc = as_int(env.get("NPROC_PER_NODE", "x")) or (as_int(g.value) if g is not None and g.native not in (
        "CUDA_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES") else None) or 1
    if vis:
        # the GPUs the processes see: ms-swift < 3.5 puts GRPO's vLLM engine on those no process trains on (core/runners/rl.py)
        job.settings["__visible_gpus__"] = Setting("__visible_gpus__", vis, file, line, "CUDA_VISIBLE_DEVICES", "env")
    if vis and vis > nproc and vis % nproc == 0:
        per = vis // nproc
        job.settings["device_map"] = Setting("device_map", "auto", file, line, "CUDA_VISIBLE_DEVICES", "env")
        job.settings["__devmap_gpus__"] = Setting("__devmap_gpus__", per, file, line, "CUDA_VISIBLE_DEVICES", "env")
        job.gpus = Setting("gpus", nproc, file, line, "NPROC_PER_NODE", "env")
        job.notes.append(f"ms-swift: {nproc} process(es), each spreading the model over {per} of the {vis} visible GPUs "
                         f"(device_map)")


def _read_tune_run(job: Job, words: list, file: str) -> None:
    """`tune run [--nproc_per_node N] [--nnodes M] RECIPE --config CFG [key=value ...]` (torchtune/_cli/run.py:
    the torchrun flags come before the recipe)."""
    i, recipe = 0, None
    while i < len(words):
        t = words[i].text
        if t.startswith("--") and recipe is None:
            key = t[2:].split("=", 1)[0].replace("-", "_")
            val = t.split("=", 1)[1] if "=" in t else (words[i + 1].text if i + 1 < len(words) else "")
            if key in ("nproc_per_node", "nnodes") and as_int(val):
                which = "gpus" if key == "nproc_per_node" else "nodes"
                setattr(job, which, Setting(which, as_int(val), file, words[i].line, key, "flag"))
            i += 1 if "=" in t else 2
            continue
        if recipe is None:
            recipe = t
        elif t in ("--config", "-c") and i + 1 < len(words):
            job.settings["__config_ref__"] = Setting("__config_ref__", words[i + 1].text, file, words[i + 1].line,
                                                     "config", "ref")
            i += 2
            continue
        elif "=" in t and not t.startswith("-"):
            job.settings.setdefault("__tune_overrides__", Setting("__tune_overrides__", [], file, words[i].line,
                                                                  "override", "override")).value.append(
                (t, words[i].line))
        i += 1
    job.launcher = "tune"
    job.settings["__recipe__"] = Setting("__recipe__", recipe or "", file, None, "recipe", "flag")
    job.script_flags["style"] = "torchtune"
    if job.gpus is None:
        job.gpus = Setting("gpus", 1, file, None, "tune run", "assumed")


def _shipped_recipe(path: str | None, notes: list[str]) -> str | None:
    """A torchtune config given without its `tune run RECIPE`: the recipe torchtune's registry lists a config of that
    name under (`llama3/70B_full.yaml` -> full_finetune_distributed; profiles/torchtune_recipes.py), said; else None."""
    from rocm_tune.profiles.torchtune_recipes import CONFIG_RECIPE

    if not path:
        return None
    parts = Path(path).with_suffix("").parts
    key = "/".join(parts[-2:])
    if key in CONFIG_RECIPE:
        recipes = {CONFIG_RECIPE[key]}
    else:       # the file out of its folder: its name, where every family's config of that name has one recipe
        key = parts[-1] if parts else ""
        recipes = {r for c, r in CONFIG_RECIPE.items() if c.rsplit("/", 1)[-1] == key}
    if len(recipes) != 1:
        return None
    recipe = recipes.pop()
    notes.append(f"{Path(path).name}: no `tune run` line; torchtune's recipe registry runs the config {key} with "
                 f"{recipe} (torchtune/_recipe_registry.py)")
    return recipe


def _has_key(data, key: str, depth: int = 3) -> bool:
    """`key` at the top of a mapping or in a section under it (torchtune dev/async GRPO: training.optimizer)."""
    if not isinstance(data, dict) or depth < 0:
        return False
    return key in data or any(_has_key(v, key, depth - 1) for v in data.values())


def _tune_recipe_program(job: Job, cfgs: list[str]) -> bool:
    """A torchtune config given with a program the command starts by itself (`torchrun recipes/
    full_finetune_distributed.py --config X.yaml`, as `tune run` does: torchtune/_cli/run.py hands the recipe to
    torchrun; a fork's own recipe, MiroTrain's `torchrun sft_trainer.py --config ...`) that names no HF model:
    the program is a recipe and the config its settings."""
    if not cfgs or job.runner != "hf" or "model_name_or_path" in job.settings:
        return False
    text = job.files.get(job.entry_file or "", "")
    return str(job.entry).endswith(".py") and any(
        re.search(r"--config[\s=]+\S*" + re.escape(os.path.basename(c)), text) for c in cfgs)


def _apply_torchtune(job: Job, texts: dict[str, str], cfgs: list[str]) -> None:
    """The torchtune config the `tune run` names (given, or a built-in config name) with its overrides."""
    ref = job.settings.pop("__config_ref__", None)
    recipe = job.settings.pop("__recipe__", None)
    overrides = job.settings.pop("__tune_overrides__", None)
    chosen = cfgs[0] if cfgs else None
    data: dict = {}
    if ref is not None:
        hit, how = resolve_ref(str(ref.value), Path(ref.file or ".").parent, texts)
        if hit in cfgs:
            chosen = hit
            if how:
                job.notes.append(how)
        elif hit is None and chosen is None:
            data = torchtune.config_from_name(str(ref.value))
            job.notes.append(f"--config {ref.value}: torchtune's built-in config (its model and method are read "
                             f"from the name; give the YAML for the rest)")
    text = texts[chosen] if chosen else ""
    if chosen:
        data = dict(_load_structured(text) or {})
    if chosen and "policy_model" in data and "model" not in data:
        # recipes/ppo_full_finetune_single_device.py: policy, reference policy, reward and value models in one run
        job.runner, job.entry, job.entry_file = "torchtune PPO", "tune run", chosen
        job.notes.append(f"{Path(chosen).name}: torchtune's PPO recipe (ppo_full_finetune_single_device: policy, "
                         f"reference policy, reward and value models)")
        return
    if chosen and not _has_key(data, "optimizer") and not any(str(w).split("=", 1)[0] == "optimizer._component_"
                                                      for w, _l in (overrides.value if overrides else [])):
        # every torchtune training recipe builds cfg.optimizer (full_finetune_*, lora_*, *_dpo_*, ppo, KD: their
        # _setup_optimizer); a config without one is an eleuther_eval / generate / quantize recipe's: no training
        kind = "evaluation" if "tasks" in data else "generation" if "prompt" in data else "quantization" \
            if "quantizer" in data else "non-training"
        job.formats[chosen] = f"a torchtune {kind} config (no optimizer: no training recipe takes it)"
        return
    for w, _line in (overrides.value if overrides is not None else []):      # dotted OmegaConf overrides
        k, v = w.split("=", 1)
        node = data
        parts = k.lstrip("~").split(".")
        for part in parts[:-1]:
            node = node.setdefault(part, {}) if isinstance(node.get(part, {}), dict) else {}
        node[parts[-1]] = scalar_value(v)
    recipe_name = str(recipe.value) if recipe is not None else _shipped_recipe(chosen, job.notes)
    ranks = str(job.gpus.value) if job.gpus is not None else ""
    if recipe_name is None and job.launcher == "torchrun" and ranks.isdigit() and int(ranks) > 1 \
            and str(job.entry).endswith(".py"):
        # a recipe program torchrun starts on several GPUs: torchtune's recipes for more than one device are its
        # *_distributed ones (FSDP2: training.shard_model); its single-device recipes refuse a world size over 1
        recipe_name = f"{Path(str(job.entry)).stem} (torchrun, {ranks} GPUs: distributed)"
    st, notes = torchtune.read(data, text, chosen or (ref.file if ref else "") or "", recipe_name)
    for w, line in (overrides.value if overrides is not None else []):    # a fix edits the override, not the YAML
        k = w.split("=", 1)[0].lstrip("~")
        for key, setting in list(st.items()):
            if setting.native == k.split(".")[-1]:
                st[key] = Setting(key, setting.value, overrides.file, line, k, "override", setting.invert)
    job.settings = {**job.settings, **st}
    job.notes += notes
    job.runner = "torchtune"
    if not job.entry:
        job.entry, job.entry_file = "tune run", chosen


# flags by which a training program's command line shows it is one (beside a model flag: hf_args.MODEL_FLAG)
_TRAINING_FLAGS = ("per_device_train_batch_size", "learning_rate", "num_train_epochs", "max_steps", "output_dir",
                   "gradient_accumulation_steps", "deepspeed", "fsdp", "bf16", "fp16", "lora_r", "lora_rank",
                   "micro_batch_size", "batch_size", "cutoff_len", "max_seq_length", "max_length")


def _helper_commands(commands: list) -> dict[int, str]:
    """Lines of the commands that a script runs BEFORE its training to prepare it (`python3 prep/gsm8k.py
    --local_dir data`, a download or tokenising step): a plain Python program with no model and no training flag,
    when a later command is a training that does show one (or is a known trainer: llamafactory-cli, swift, verl, ...).
    -> {line: the program}. With no such later command nothing is skipped: the first program stays the training."""
    found: list[tuple[int, str, bool]] = []
    for cmd in commands:
        e = _entry(cmd.argv)
        if e is None:
            continue
        idx, runner, entry = e
        flags = [a[2:].split("=", 1)[0].replace("-", "_") for a in cmd.argv[idx + 1:] if a.startswith("--")]
        plain = runner == "hf" and entry.endswith(".py") and " " not in entry
        weak = plain and not any(hf_args.MODEL_FLAG.match(k) or k in _TRAINING_FLAGS for k in flags)
        found.append((cmd.line, entry, weak))
    out: dict[int, str] = {}
    for i, (line, entry, weak) in enumerate(found):
        if weak and any(not w for _, _, w in found[i + 1:]):
            out[line] = entry
    return out


def read_job(paths: list[str]) -> Job:
    """Read the files given together as one job. UserError (exit 2) for a path that cannot be read or a
    file in which nothing is understood."""
    texts: dict[str, str] = {}
    for p in paths:
        path = Path(p)
        if not path.exists():
            raise UserError(f"{p}: no such file")
        if path.is_dir():
            raise UserError(f"{p}: is a directory; give the config files themselves")
        raw = read_bytes(path, "config file", MAX_CONFIG_BYTES)  # a FIFO, a device or a huge file: one line
        if b"\x00" in raw[:4096]:
            raise UserError(f"{p}: a binary file, not a config, script or DeepSpeed JSON")
        texts[p] = check_lines(raw.decode("utf-8", errors="replace"), p, "config file")
    return read_texts(texts)


_RUNS_SCRIPT = re.compile(r"^(?:bash|sh|zsh|source|\.)$")


def _caller_env(p: str, texts: dict[str, str], notes: list[str]) -> dict[str, str] | None:
    """The variables another file given sets on the command that runs script `p` (`MBS=64 CPU_OFFLOAD=False bash
    wikitext_finetune.sh`, `./p.sh`): bash passes them in the script's environment, where `${MBS:-8}` reads them.
    None when no file runs it, or two commands run it with different variables (which one is meant is not known)."""
    base = os.path.basename(p)
    found: list[tuple[str, int, dict[str, str]]] = []
    for q, t in texts.items():
        if q == p or base not in t:
            continue
        try:
            cmds = shell.parse_script(t, q).commands
        except UserError:
            continue
        for c in cmds:
            argv = c.argv
            i = 1 if argv and _RUNS_SCRIPT.match(argv[0]) else 0
            if c.env and len(argv) > i and os.path.basename(argv[i]) == base and (i or argv[i].startswith(("./", "/"))):
                found.append((q, c.line, dict(c.env)))
    if not found or any(f[2] != found[0][2] for f in found):
        return None
    q, line, env = found[0]
    notes.append(f"{os.path.basename(p)}: run by {os.path.basename(q)}:{line} with {', '.join(env)} set: "
                 f"the script's ${{VAR:-default}} read those values")
    return env


def _read_script(job: Job, text: str, p: str, arrays: dict | None = None,
                 inherited: dict[str, str] | None = None) -> None:
    """A launch script: its findings, the training command (a second one is noted or warned), #SBATCH sizes.
    `arrays`: the bash arrays the job's other scripts define (a sourced ``models/<model>.sh``); `inherited`: the
    variables the command of another file that runs this script sets (_caller_env)."""
    task = shell.task_commands(text)
    src, notes, exported = env_reads.sourced(text, job.files, inherited, task)
    if src:         # `source x.env`: its variables set in the script (over the caller's), the script's own win;
        job.notes += notes      # the exported ones reach the program it starts
        job.script_flags.setdefault("__sourced_env__", {}).update({k: v for k, v in src.items() if k in exported})
        inherited = {**(inherited or {}), **{k: v[0] for k, v in src.items()}}
    script = shell.parse_script(text, p, arrays, inherited)
    job.findings += script.findings
    for line, raw, value in dict.fromkeys(script.computed):
        job.notes.append(f"{p}:{line}: {raw} computed here as {value} (bash arithmetic over the script's own values)")
    helpers = _helper_commands(script.commands)
    for cmd in script.commands:
        if cmd.line in helpers:
            job.notes.append(f"{p}:{cmd.line} ({helpers[cmd.line]}) is not read as the training: it names no model "
                             "and no training setting, and a later command does")
            continue
        if job.entry and _entry(cmd.argv) is not None and job.entry_file != p:
            job.notes.append(f"{p}:{cmd.line} starts the training too (another way to launch it); "
                             f"the GPUs are read from {job.entry_file}")
            continue
        if job.entry and _entry(cmd.argv) is not None:
            job.findings.append(Finding.of(
                "several-trainings", p, cmd.line,
                f"another training starts on line {cmd.line}; this answer is for the first one "
                f"({job.entry_file}:{job.entry_line})", "check the other one on its own"))
            continue
        _read_command(job, cmd, p, script)
    _detached_flags(job, script, p)
    sb = script.sbatch
    for key in ("--nodes", "-N"):
        if key in sb and as_int(sb[key][0]) and job.nodes is None:
            job.nodes = Setting("nodes", as_int(sb[key][0]), p, sb[key][1], "#SBATCH " + key, "sbatch")
    for key in ("--gres", "--gpus-per-node"):
        if key in sb and job.gpus is None:
            n = as_int(sb[key][0].rsplit(":", 1)[-1])
            if n:
                job.gpus = Setting("gpus", n, p, sb[key][1], "#SBATCH " + key, "sbatch")


def _detached_flags(job: Job, script: shell.Script, p: str) -> None:
    """A line of the training command without its trailing backslash: bash ends the command there, and the next
    lines (``--deepspeed ds.json ...``) are commands of their own that fail (``--deepspeed: command not found``).
    Their flags never reach the program: a finding, and a DeepSpeed JSON they name is not the training's."""
    train = next((c for c in script.commands if c.line == job.entry_line and job.entry_file == p), None)
    if train is None or not train.tokens:
        return
    end = max(t.line for t in train.tokens)
    lost: list[shell.Token] = []
    for c in script.commands:
        if c.line == end + 1 and c.argv and c.argv[0].startswith("-") and not c.env:
            lost += c.tokens
            end = max(t.line for t in c.tokens)
    if not lost:
        return
    first, last = lost[0].line, lost[-1].line
    flags = [t.text for t in lost if t.text.startswith("--")]
    shown = ", ".join(flags[:8]) + (", ..." if len(flags) > 8 else "")
    lines = f"line {first}" if first == last else f"lines {first}-{last}"
    job.findings.append(Finding.of(
        "shell-missing-backslash", p, first - 1,
        f"line {first - 1} does not end in a backslash: bash ends the training command there and runs {lines} as "
        f"a separate command (which fails): {len(flags)} flag(s) never reach the program ({shown})",
        f"end line {first - 1} with a backslash"))
    values = shell.flag_values(lost)
    if "deepspeed" in values and "deepspeed" not in shell.flag_values(train.tokens):
        v, ln = values["deepspeed"]
        job.settings["__detached_ds__"] = Setting("__detached_ds__", v, p, ln, "deepspeed", "flag")


def _drop_detached_ds(job: Job) -> None:
    """The DeepSpeed JSON given beside a script whose ``--deepspeed`` line is cut off the command: not used."""
    cut = job.settings.pop("__detached_ds__", None)
    if cut is None or job.ds is None or "deepspeed" in job.settings or not job.ds.file:
        return
    if os.path.basename(job.ds.file) != os.path.basename(str(cut.value)):
        return
    job.ds = None
    job.notes.append(f"{cut.value}: not used -- the --deepspeed line ({cut.file}:{cut.line}) is cut off the "
                     f"training command, so the program runs without DeepSpeed")


def _read_lf_args_dict(job: Job, text: str, p: str) -> bool:
    """A Python program that hands LLaMA-Factory its arguments as a dict (run_exp(dict(...)), a fork's start_sft):
    that dict is the config, as a YAML would be (the command that starts the program decides the ranks)."""
    found = hf_args.lf_args_dict(text, p)
    if found is None:
        return False
    pairs, call, line = found
    job.settings = {**{k: Setting(k, v, p, ln, k, "flag") for k, (v, ln) in pairs.items()}, **job.settings}
    job.notes.append(f"{os.path.basename(p)}: the dict passed to {call}(...) (line {line}) read as LLaMA-Factory's "
                     f"arguments; nothing is executed")
    if job.runner != "builtin":
        job.runner = "llamafactory"
    if not job.entry:
        job.entry, job.entry_file, job.entry_line = f"{call}(...) in {os.path.basename(p)}", p, line
        job.script_flags["style"] = "python"
    job.gpus = job.gpus or Setting("gpus", 1, p, line, "python", "assumed")
    return True


def _read_beside(path: str):
    """A settings file beside a program (program_config.choose), as data; None when it does not read."""
    from rocm_tune.core.files import read_config_text
    try:
        return _load_structured(read_config_text(path, "config"), path)
    except (UserError, OSError):
        return None


def _program_configs(texts: dict[str, str], p: str) -> dict:
    """The settings files (YAML/JSON) the job gives beside Python program `p`, as data: what it may load."""
    from rocm_tune.core.runners.program_config import bind_configs, is_config_path
    files: dict[str, dict] = {}
    for q, t in texts.items():
        if q != p and is_config_path(q):
            try:
                data = _load_structured(t, q)
            except UserError:
                continue
            if isinstance(data, dict):
                files[q] = data
    # the program's own Python modules it may import (config.py's class Config, model.py's model builder); a file
    # another given program imports is such a module itself, not a program: it reads none
    modules = {q: t for q, t in texts.items() if q != p and q.endswith(".py")}
    stem = re.escape(os.path.splitext(os.path.basename(p))[0])
    if any(re.search(rf"^\s*(?:from\s+\.?{stem}\s+import|import\s+{stem}\b)", t, re.M) for t in modules.values()):
        modules = {}
    return {"files": files, "program": p, "read": _read_beside, "bind": bind_configs, "modules": modules}


def _read_python_file(job: Job, text: str, p: str, texts: dict[str, str]) -> None:
    """A Python program: its TrainingArguments when it builds them in code (under the flags of a script that starts
    it, which win), else a note that it is not modelled."""
    started = any(os.path.basename(p) in t for q, t in texts.items() if q != p)
    if _read_lf_args_dict(job, text, p):
        return
    # the program's own length cap (a truncating tokenizer) and per-rank batch (a global batch // world size): read
    # under every other setting, used by build_config where nothing else sets them
    job.settings = {**hf_args.program_bounds(text, p), **job.settings}
    lib = hf_args.python_program(text)
    environ, env_notes = env_reads.program_environ(p, text, texts)
    token = values.ENVIRON.set(environ)
    try:
        read = hf_args.read_python(text, p, _program_configs(texts, p))
    finally:
        values.ENVIRON.reset(token)
    if read is not None and environ:
        read[1].extend(env_notes)
    if read is not None and lib:
        # a library whose kernels only save memory (Unsloth): estimated as the plain HF program it patches, an
        # upper bound: "fits" holds; over the card, its savings decide (check says unknown)
        read[0]["__upper_bound__"] = Setting("__upper_bound__", lib, p, 1, "import", "flag")
        if lib.startswith("unsloth"):
            unsloth_runner.tiled_env(read[0], text, p)
        job.findings.append(Finding.of("kernels-not-modelled", p, 1,
                                    f"Python program using {lib.split()[0]}: {lib}; estimated without them, as the "
                                    f"plain transformers program (an upper bound)", None))
    if read is not None:
        _named_shape(job, read[0], text, p)
    mref = job.settings.get("model_name_or_path")
    if mref is not None and mref.kind == "flag" and str(mref.native).replace("-", "_") in hf_args.output_named_flags(text):
        del job.settings["model_name_or_path"]      # the program's own help: that flag names its output
        job.notes.append(f"--{mref.native}: {os.path.basename(p)}'s argparse help says it names the output, not the "
                         f"model to train")
    if read is not None and started:
        # a program a script (launch.sh, a dstack/Slurm/k8s YAML) starts: what it builds in code holds unless the
        # command's flags say otherwise (those are read from the script, and win); the launcher decides the ranks
        job.settings = {**read[0], **job.settings}
        job.notes += read[1]
        return
    if read is not None:       # a program that builds its TrainingArguments in code: one process
        job.settings = {**read[0], **job.settings}
        job.notes += read[1]
        job.runner, job.entry, job.entry_file, job.entry_line = "hf", f"python {os.path.basename(p)}", p, 1
        job.script_flags["style"] = "python"
        job.gpus = job.gpus or Setting("gpus", 1, p, 1, "python", "assumed")
        return
    if lib and read is None:
        job.findings.append(Finding.of("format-not-modelled", p, 1,
                                       f"Python program using {lib.split()[0]}: {lib}; not modelled", None))
        return
    if read is None and not started and _read_dict_arguments(job, text, p):
        return
    if read is None and _read_python_launcher(job, text, p):
        return
    if read is None and not started and _read_python_command(job, text, p):
        return
    if read is None and started:
        # a program with its own loop (accelerate's Accelerator, plain torch) a script starts: what its calls set
        # (gradient_checkpointing_enable, attn_implementation, LoRA/quantization) under the script's flags
        calls, more = hf_args.read_program_calls(text, p)
        calls.pop("cutoff_len", None)               # the script's flags decide the length
        if calls:
            job.settings = {**calls, **job.settings}
            job.notes += more + [f"{p}: its calls ({', '.join(sorted(calls))}) read under the script's flags"]
    job.findings.append(Finding.of(
        "program-settings-not-read" if started else "format-not-modelled", p, 1,
        "Python source: the training settings inside a program are not read"
        + ("; the flags the script passes it are" if started else ""), None))


def _named_shape(job: Job, own: dict, text: str, p: str) -> None:
    """`--model d12` naming a row of the program's own table of shapes ({"d12": GPTConfig(n_layer=12, ...)}:
    modded-nanogpt, nanoGPT's config_args): the model is that shape (core/runners/gpt_programs.named_shapes)."""
    ref = job.settings.get("model_name_or_path") or own.get("model_name_or_path")
    if ref is None or not isinstance(ref.value, str):
        return
    shape = gpt_programs.named_shapes(text).get(ref.value.strip())
    if shape is None:
        return
    job.settings["model_name_or_path"] = Setting("model_name_or_path", shape, ref.file, ref.line, ref.native,
                                                 ref.kind)
    job.notes.append(f"model {ref.value!r}: a row of {os.path.basename(p)}'s own table of shapes "
                     f"({shape['num_hidden_layers']} layers x {shape['hidden_size']}, {shape['num_attention_heads']} "
                     f"heads, vocab {shape['vocab_size']})")


# slime / Miles train.py flags: a Megatron trainer even where no parallel size is written
SLIME_MARKERS = ("actor-num-gpus-per-node", "megatron-to-hf-mode", "train-backend")


def _read_python_command(job: Job, text: str, p: str, arrays: dict | None = None) -> bool:
    """A Python program (a .py file) that writes the training's command line in its strings (an f-string passed to
    os.system, a subprocess argv list, a `.format()` template): that command read as a script, each field
    computed from the module's literal assignments or left unread (core/runners/values.python_command_view).
    True when it held one."""
    if not (p.endswith(".py") or text.lstrip().startswith("#!")):
        return False
    from rocm_tune.core.files import parse_python

    try:
        tree = parse_python(text, p, "Python program")
    except UserError:
        return False
    view = values.python_command_view(text, tree)
    if view is None or not any(_entry(c.argv) is not None for c in shell.parse_script(view, p).commands):
        return False
    before = job.entry
    _read_script(job, view, p, arrays)
    if job.entry == before:
        return False
    job.notes.append(f"{p}: a Python program that builds its command line in strings: that command is read, its "
                     f"fields computed from the program's literal assignments where they can be (nothing is run)")
    return True


def _read_python_launcher(job: Job, text: str, p: str) -> bool:
    """A Python launcher that composes a Megatron command line in strings (slime/Miles `scripts/*.py`, their CI
    tests): the flags it writes are read as the command it submits, its f-string fields filled from its constants and
    dataclass defaults (a field it computes at run time stays unknown). True when it was one."""
    argv = hf_args.python_cli_text(text, p)
    if not argv:
        return False
    script = shell.parse_script("python3 train.py " + argv, p)
    words = [t for c in script.commands for t in c.tokens]
    flags = shell.flag_values(words)
    if len(flags) < 3 or not (megatron.is_megatron_args(flags) or any(k in flags for k in SLIME_MARKERS)):
        return False
    if job.entry and os.path.basename(p) in job.entry:        # a script that only starts this launcher
        job.entry, job.entry_file, job.entry_line, job.runner = Job().entry, None, None, "unknown"
    for cmd in script.commands:
        if not job.entry and _entry(cmd.argv) is not None:
            _read_command(job, cmd, p, script)
    job.entry = f"python {os.path.basename(p)}"
    job.notes.append(f"{p}: a Python launcher: the Megatron arguments it writes in strings are read as its command "
                     f"(fields from its constants and dataclass defaults; nothing is executed)")
    return True


def _apply_primus(job: Job, texts: dict[str, str], path: str) -> None:
    """A Primus (Megatron) YAML: its settings over the command's; the runner is megatron."""
    st, notes = megatron.read_primus(dict(_load_structured(texts[path]) or {}), texts[path], path)
    job.settings = {**job.settings, **st}
    job.notes += notes
    job.runner, job.entry, job.entry_file = "megatron", "primus train", path
    if job.gpus is None:
        # Primus' launch scripts start GPUS_PER_NODE ranks: a value exported in a file given beside the experiment
        for q, t in texts.items():
            m = re.search(r"^\s*(?:export\s+)?GPUS_PER_NODE=[\"']?(\d+)", t, re.MULTILINE)
            if q != path and m and as_int(m.group(1)):
                job.gpus = Setting("gpus", as_int(m.group(1)), q, t[:m.start()].count("\n") + 1, "GPUS_PER_NODE",
                                   "env")
                break


def _apply_axolotl(job: Job, texts: dict[str, str], axo_cfgs: list[str], ref) -> None:
    """The Axolotl YAML the command names (else the first given): its settings under the command's."""
    ax = axo_cfgs[0]
    if ref is not None:
        hit, how = _resolve_ref(str(ref.value), Path(ref.file or ".").parent, texts)
        if hit in axo_cfgs:
            ax = hit
            if how:
                job.notes.append(how)
    st, notes = axolotl.read(dict(_load_structured(texts[ax])), texts[ax], ax)
    job.settings = {**st, **job.settings}
    job.notes += notes
    job.runner = "axolotl"
    job.script_flags["style"] = "axolotl-yaml"
    if not job.entry:
        job.entry, job.entry_file = "axolotl train", ax


def _apply_lf_yaml(job: Job, texts: dict[str, str], chosen: str) -> None:
    """The chosen LLaMA-Factory YAML: its keys, then the command's overrides over them."""
    data = dict(_load_structured(texts[chosen]))
    base = lf_yaml.read_yaml(data, texts[chosen], chosen)
    whole, bad_line = yaml_error_line(texts[chosen], chosen)
    if not whole:
        job.findings.append(Finding.of("yaml-excerpt", chosen, bad_line,
                                       "the YAML does not parse as a whole (an excerpt?): only its complete "
                                       "`key: value` lines were read", None))
    over = job.settings
    job.settings = {**base, **over}
    if job.runner != "builtin":          # the built-in trainer reads the same YAML
        job.runner = "llamafactory"
    if not job.entry:
        job.entry, job.entry_file = "llamafactory-cli train", chosen


def _small_text(path: str, limit: int = 1 << 20) -> str | None:
    """A config file on disk, as text (None when unreadable or over `limit` bytes)."""
    try:
        if os.path.getsize(path) > limit:
            return None
        with open(path, encoding="utf-8", errors="replace") as fh:
            return fh.read()
    except OSError:
        return None


def _apply_accelerate(job: Job, texts: dict[str, str]) -> None:
    """The accelerate config (given, or named by --config_file): nodes, processes and its ZeRO settings."""
    acc = job.settings.pop("accelerate_config", None)
    if acc is not None and job.accelerate is None:
        hit, how = _resolve_ref(str(acc.value), Path(acc.file or ".").parent, texts)
        if hit and hit not in texts:        # on disk where the script names it (not given on the command line)
            text = _small_text(hit)
            if text is not None and detect(text, hit) == "accelerate-yaml":
                job.accelerate = accelerate.read(_load_structured(text, hit), text, hit)
                job.notes.append(f"--config_file {acc.value}: the accelerate config read from {hit}")
        elif hit and job.formats.get(hit) == "accelerate-yaml":
            job.accelerate = accelerate.read(_load_structured(texts[hit]), texts[hit], hit)
    cli = job.settings.pop("__accelerate_cli__", None)
    if cli is not None and isinstance(cli.value, dict):
        job.accelerate = accelerate.read_cli(cli.value, str(cli.file), job.accelerate)
        job.notes.append("accelerate launch's own flags read as its config (they win over a config file)")
    if job.accelerate is not None:
        a = job.accelerate
        if job.nodes is None and (a.get("num_machines") or 1) > 1:
            job.nodes = Setting("nodes", a["num_machines"], a["file"], a["lines"].get("num_machines"),
                                "num_machines", "yaml")
        if job.gpus is None and a.get("num_processes"):
            job.gpus = Setting("gpus", a["num_processes"], a["file"], a["lines"].get("num_processes"),
                               "num_processes", "yaml")
        if job.ds is None and a.get("zero_stage") is not None:
            data = {"zero_optimization": {"stage": a["zero_stage"]}}
            if a.get("offload_param") == "cpu" or a.get("offload_optimizer") == "cpu":
                data = deepspeed_json.with_zero(data, a["zero_stage"],
                                                "all" if a.get("offload_param") == "cpu" else "optimizer")
            job.ds = deepspeed_json.read(data, "", None)
            job.ds_from_accelerate = True


def read_texts(texts: dict[str, str]) -> Job:
    """As read_job, from {path: text} (the files given, or a fixed version of them)."""
    for p, text in list(texts.items()):
        if notebook_code(text) is not None:     # the files a notebook writes and the commands it runs
            for q, t in notebook_files(text, p).items():
                texts.setdefault(q, t)
    paths = list(texts)
    job = Job()
    job.files = dict(texts)
    found = _read_each(job, texts)
    yaml_cfgs, axo_cfgs, tune_cfgs, primus_cfgs, recipes = (found[k] for k in ("lf", "axolotl", "torchtune",
                                                                                "primus", "recipe"))
    _apply_litgpt_config(job, texts)
    _apply_autotrain_config(job, texts)
    _apply_swift_config(job, texts)
    if found["torchtitan"] or "torchtitan" in job.script_flags:
        _apply_torchtitan(job, texts, found["torchtitan"])
    if all(f in ("unknown", "dataset-info", "rocm-tune-plan", "hostfile", "dotenv") for f in job.formats.values()):
        if not any(JAX_PROGRAM.search(t) for t in texts.values()):
            raise UserError(f"{paths[0]}: nothing in it is a training config (LLaMA-Factory YAML, DeepSpeed JSON, "
                        f"accelerate config or launch script)")
    _read_hostfile(job, texts)
    _read_dstack_resources(job, texts)
    for p in found["textgen"][:1]:
        _apply_textgen(job, texts, p)
    for p in found["glm"][:1]:
        _read_own_trainer(job, "glm-finetune-yaml", texts[p], p)
    if recipes and job.runner in ("hf", "unknown"):
        _apply_recipe(job, texts, recipes[0])
    if job.runner == "unknown" and not yaml_cfgs and not axo_cfgs and not tune_cfgs and not primus_cfgs:
        _bare_arguments(job, texts)
    if job.runner == "torchtune" or (tune_cfgs and job.runner == "unknown") or _tune_recipe_program(job, tune_cfgs):
        _apply_torchtune(job, texts, tune_cfgs)
    if primus_cfgs and job.runner == "unknown":
        _apply_primus(job, texts, primus_cfgs[0])
    _apply_main_config(job, texts, yaml_cfgs, axo_cfgs)
    if job.runner == "llamafactory":
        lf_yaml.apply_megatron(job)
    _drop_detached_ds(job)
    # DeepSpeed JSON named by the config (runners/deepspeed.py)
    deepspeed_json.attach_reference(job, texts)
    _native_deepspeed(job, texts)
    # accelerate config named by --config_file
    _apply_accelerate(job, texts)
    _per_node_processes(job)
    _device_map_per_rank(job)
    from rocm_tune.core.runners import rl

    rl.apply_sequence(job, job.notes)
    rl.apply_generations(job, job.notes)
    rl.apply_unsloth_batch(job, job.notes)
    return job


_DS_INITIALIZE = re.compile(r"\bdeepspeed\.initialize\s*\(")
_HF_TRAINER = re.compile(r"\b(?:Seq2Seq)?Trainer\s*\(|TrainingArguments\s*\(|SFTConfig\s*\(")


# launchers that start one process per GPU, each seeing every GPU of the node (torchrun sets LOCAL_RANK, not
# CUDA_VISIBLE_DEVICES: torch/distributed/run.py)
_RANK_LAUNCHERS = ("torchrun", "accelerate", "deepspeed")


def _device_map_per_rank(job: Job) -> None:
    """A program's from_pretrained(device_map="auto") under a launcher that starts a rank per GPU: every rank loads a
    whole copy, spread by accelerate's infer_auto_device_map over all the GPUs it sees (transformers modeling_utils
    from_pretrained -> accelerate get_max_memory: every visible device), so N ranks put N copies, 1/N each, on every
    GPU: one whole model per GPU, as DDP holds it (the alpaca-lora/Platypus `device_map = {"": LOCAL_RANK}` branch
    does the same on the rank's own GPU). The one-process split (Layout.device_map) is dropped."""
    dm = job.settings.get("device_map")
    if dm is None or dm.native != "device_map" or job.launcher not in _RANK_LAUNCHERS or job.runner != "hf" \
            or job.get("__devmap_gpus__") or (job.gpus is not None and (as_int(job.gpus.value) or 0) <= 1
                                              and job.gpus.kind != "assumed"):
        return
    del job.settings["device_map"]
    job.notes = [n for n in job.notes if not n.startswith(f"line {dm.line}: device_map=")]   # hf.py's 1-process note
    job.notes.append(f'{dm.file}:{dm.line}: device_map="{dm.value}" under {job.launcher}: every rank loads a whole '
                     f"copy of the model spread over all the GPUs it sees, so each GPU holds N copies' 1/N: counted "
                     f"as one whole model per GPU (data parallel), not one process split over the GPUs")


def _native_deepspeed(job: Job, texts: dict[str, str]) -> None:
    """A program that hands its model to `deepspeed.initialize(...)` itself (no transformers Trainer): the DeepSpeed
    JSON is the run's whole config - its micro-batch and its fp16/bf16 are what run (DeepSpeed's own engine reads them;
    there is no TrainingArguments to match)."""
    if job.ds is None or not any(job.formats.get(p) == "python" and _DS_INITIALIZE.search(t)
                                 and not _HF_TRAINER.search(t) for p, t in texts.items()):
        return
    data, file = job.ds.data, job.ds.file
    mb = data.get("train_micro_batch_size_per_gpu")
    if isinstance(mb, int) and mb > 0:
        job.settings["per_device_train_batch_size"] = Setting("per_device_train_batch_size", mb, file,
                                                              job.ds.lines.get("train_micro_batch_size_per_gpu"),
                                                              "train_micro_batch_size_per_gpu", "flag")
    for name in ("bf16", "fp16"):
        if getattr(job.ds, name) is True:
            job.settings[name] = Setting(name, True, file, job.ds.lines.get(name), name, "flag")
    job.notes.append(f"the program calls deepspeed.initialize itself: {file} is the run's config (micro-batch, "
                     "precision)")


def _read_each(job: Job, texts: dict[str, str]) -> dict[str, list]:
    """Each file's format into job.formats; DeepSpeed JSON, accelerate configs, scripts and Python programs read
    into the job at once; the configs that need the others first, by kind: {"lf": [(path, data)], "axolotl",
    "torchtune", "primus", "recipe": [path]}."""
    found: dict[str, list] = {"lf": [], "axolotl": [], "torchtune": [], "primus": [], "recipe": [], "textgen": [],
                              "glm": [], "torchtitan": []}
    # bash arrays of every script given (slime/Megatron scripts `source models/<model>.sh` for MODEL_ARGS=(...))
    arrays: dict = {}
    for p, text in texts.items():
        if detect(text, p) == "script" and "=(" in text:
            arrays.update(shell.parse_script(text, p).arrays)
    parts = _ult_parts(texts)         # the LoRA / quantization YAMLs a universal-llm-trainer config names
    later = {"torchtune-yaml": "torchtune", "primus-yaml": "primus", "axolotl-yaml": "axolotl", "hf-yaml": "recipe",
             "glm-finetune-yaml": "glm", "torchtitan-toml": "torchtitan"}   # GLM's demo YAML, torchtitan's TOML:
    # read under the command that passes it
    for p, text in texts.items():
        fmt = "ult-part" if p in parts else detect(text, p)
        job.formats[p] = fmt
        if fmt == "notebook":          # its code cells, read as a Python program (never run)
            text = notebook_code(text) or ""
            job.notes.append(f"{p}: a Jupyter notebook: its code cells are read as a Python program (not run)")
            fmt = "python"
        if fmt in later:
            found[later[fmt]].append(p)
        elif fmt in ("olmo-yaml", "mlperf-config", "automodel-yaml", "primus-torchtitan-yaml"):
            _read_own_trainer(job, fmt, text, p)
        elif fmt == "ult-yaml":
            _read_ult(job, text, p, texts)
        elif fmt in ("litgpt-yaml", "autotrain-yaml", "ult-part"):
            pass                       # read under the command given beside it (_apply_litgpt_config, _autotrain)
        elif fmt == "deepspeed-json":
            job.ds = deepspeed_json.read(_load_structured(text), text, p)
        elif fmt == "accelerate-yaml":
            job.accelerate = accelerate.read(_load_structured(text), text, p)
        elif fmt == "lf-yaml":
            found["lf"].append((p, _load_structured(text)))
        elif fmt == "script" and _launched_by_another(p, texts):
            job.notes.append(f"{p}: AMD's Megatron-LM launcher, started by another file given: read through the "
                             "variables that file passes it")
        elif fmt == "script" and _read_python_command(job, text, p, arrays):
            pass                       # a .py file that only writes a command in a string (no import)
        elif fmt == "script":
            if values.is_makefile(p):      # its recipes as the shell runs them, $(VAR) filled from its variables
                text = values.makefile_as_script(text)
                job.notes.append(f"{p}: a Makefile: its recipe read as the command it runs, $(VAR) from its variables")
            _read_script(job, text, p, arrays, _caller_env(p, texts, job.notes))
        elif fmt == "textgen-lora":
            found["textgen"].append(p)
        elif fmt == "dotenv":
            pass                       # read by the script that sources it / the program that loads it (env_reads)
        elif fmt in ("dataset-info", "hostfile"):
            pass                       # read by check's dataset finding / by the deepspeed --hostfile below
        elif fmt == "rocm-tune-plan":
            job.notes.append(f"{p}: rocm-tune's own plan.json (not read here: the bundle's files are; "
                             f"`rocm-tune preflight {p}` verifies it on the machine)")
        elif fmt == "python":
            _read_python_file(job, text, p, texts)
        elif fmt == "nanogpt-config":
            _read_nanogpt_config(job, text, p, texts)
        elif _read_training_args_file(job, text, p):
            pass
        elif shell.is_env_file(text) and any("--env-file" in t and os.path.basename(p) in t for t in texts.values()):
            pass                       # read with the command whose wrapper names it (_env_files)
        else:
            job.findings.append(Finding.of("format-unknown", p, None,
                                           "not recognised as a LLaMA-Factory YAML, DeepSpeed JSON, accelerate config "
                                           "or launch script", None))
    return found


def _read_training_args_file(job: Job, text: str, p: str) -> bool:
    """A JSON/YAML file of transformers' TrainingArguments fields (HfArgumentParser.parse_json_file /
    parse_yaml_file: a program's `--train_args_json FILE`, or `python train.py args.json`): its keys read as the
    flags of the same names; a setting the command line also gives keeps the command line's."""
    from rocm_tune.profiles.runner_args import TRAINING_ARGUMENTS_FIELDS, TRAINING_ARGUMENTS_MIN_KEYS
    try:
        data = _load_structured(text, p)
    except UserError:
        return False
    if not isinstance(data, dict) or len(TRAINING_ARGUMENTS_FIELDS & set(data)) < TRAINING_ARGUMENTS_MIN_KEYS:
        return False
    lines = text.splitlines()

    def line_of(key: str) -> int:
        return next((i for i, ln in enumerate(lines, 1) if re.search(rf"['\"]?\b{re.escape(key)}\b['\"]?\s*:", ln)), 0)

    flags = {str(k): (str(v).lower() if isinstance(v, bool) else str(v), line_of(str(k))) for k, v in data.items()
             if isinstance(v, (str, int, float, bool))}
    st, notes = hf_args.read_flags(flags, p)
    for key, setting in st.items():
        job.settings.setdefault(key, setting)
    job.formats[p] = "training-args"
    job.notes += notes + [f"{p}: transformers' TrainingArguments as a file (HfArgumentParser.parse_json_file): its "
                          f"keys read as the training flags of the same names"]
    return True


def _read_own_trainer(job: Job, fmt: str, text: str, p: str) -> None:
    """A config that is a whole training by itself: the OLMo trainer's YAML (core/formats/olmo.py) or an MLPerf
    Training config (core/formats/mlperf.py). A command in another file given wins (its runner and GPUs)."""
    if fmt == "olmo-yaml":
        st, notes = olmo.read(_load_structured(text, p), yaml_lines(text), p)
        runner, entry, style = "hf", "OLMo trainer (scripts/train.py)", "hf"
        gpus, nodes = None, None
    elif fmt == "automodel-yaml":
        oc_notes: list[str] = []       # Automodel loads its YAML with OmegaConf (resolvers and interpolations)
        am_data = values.omegaconf_resolve(dict(_load_structured(text, p) or {}), oc_notes, job.env)
        st, notes, _dp = automodel.read(am_data, yaml_lines(text), p)
        notes += oc_notes
        runner, entry, style = "hf", "NeMo Automodel recipe (automodel finetune llm)", "hf"
        gpus, nodes = None, None
        job.defaults = dict(automodel.DEFAULTS)
    elif fmt == "glm-finetune-yaml":
        st, notes = glm_finetune.read(_load_structured(text, p), yaml_lines(text), p)
        runner, entry, style = "hf", "GLM finetune demo (finetune_demo/finetune.py)", "hf"
        gpus, nodes = None, None
    elif fmt in ("torchtitan-toml", "primus-torchtitan-yaml"):
        kind = "torchtitan" if fmt == "torchtitan-toml" else "primus"
        data = torchtitan.load_toml(text) if kind == "torchtitan" else _load_structured(text, p)
        st, notes = torchtitan.read(dict(data or {}), text, p, kind)
        runner, entry, style = "megatron", f"torchtitan ({'primus train' if kind == 'primus' else 'train.py'})", \
            "megatron"
        gpus, nodes = None, None
    else:
        st, notes, flags, bench = mlperf.read(text, p)
        more, notes2 = megatron.read_flags(flags, p)
        st = {**more, **st}
        notes += notes2
        if bench == "llama2_70b_lora":
            st["lora_target"] = Setting("lora_target", "q_proj,k_proj,v_proj,o_proj", p, None, "target_modules",
                                        "default")
        runner, entry, style = "megatron", f"MLPerf {bench} (NeMo/Megatron)", "megatron"
        gpus, nodes = mlperf.world(text, p)
    _own_trainer_job(job, st, notes, (runner, entry, style), p, gpus, nodes)


def _ult_parts(texts: dict[str, str]) -> set[str]:
    """The files given that a universal-llm-trainer config names as its LoRA / quantization config."""
    out: set[str] = set()
    for p, text in texts.items():
        if not p.endswith((".yaml", ".yml")) or "peft_config_path" not in text and "quant_config" not in text:
            continue
        try:
            data = _load_structured(text, p)
        except UserError:
            continue
        if ult.is_config(data):
            out |= {q for ref in ult.sub_configs(data).values() for q in [_resolve_ref(ref, p, texts)[0]]
                    if q in texts and q != p}
    return out


def _read_ult(job: Job, text: str, p: str, texts: dict[str, str]) -> None:
    """ljm565/universal-llm-trainer's config (core/runners/universal_llm_trainer.py) with the LoRA and quantization
    YAMLs it names, when given; `python3 src/run/train.py` spawns one process per `device` entry itself."""
    data = _load_structured(text, p)
    subs: dict[str, tuple[str | None, dict | None]] = {}
    for role, ref in ult.sub_configs(data).items():
        q = _resolve_ref(ref, p, texts)[0]
        sub = _load_structured(texts[q], q) if q in texts else None
        subs[role] = (ref, sub if isinstance(sub, dict) else None)
    peft_ref, peft = subs.get("peft", (None, None))
    st, notes, n = ult.read(data, yaml_lines(text), p, peft, peft_ref, subs.get("quant", (None, None))[1])
    gpus = Setting("gpus", n, p, yaml_lines(text).get("device"), "device", "yaml")
    _own_trainer_job(job, st, notes, ("hf", ult.ENTRY, "hf"), p, gpus, None)


def _own_trainer_job(job: Job, st: dict, notes: list[str], how: tuple[str, str, str], p: str, gpus, nodes) -> None:
    """A trainer's own config read into the job (a command in another file given wins: its runner and GPUs)."""
    runner, entry, style = how
    job.settings = {**st, **job.settings}
    job.notes += notes
    if job.runner == "unknown":
        job.runner, job.entry, job.entry_file, job.entry_line = runner, entry, p, 1
        job.script_flags["style"] = style
        job.launcher = job.launcher or "torchrun"
    if gpus is not None and (job.gpus is None or job.gpus.kind == "assumed"):
        job.gpus = gpus
    if nodes is not None and job.nodes is None:
        job.nodes = nodes
    if job.gpus is None:
        job.gpus = Setting("gpus", 1, p, None, "torchrun --nproc_per_node", "assumed")


def _read_dict_arguments(job: Job, text: str, p: str) -> bool:
    """A program that hands its training arguments to a library as one literal dict (core/formats/pyargs.py): read
    as LLaMA-Factory's arguments when the keys are its own (DB-GPT-Hub's start_sft, LLaMA-Factory's run_exp), else
    as TrainingArguments; one process."""
    from rocm_tune.core.files import parse_python
    from rocm_tune.core.formats import pyargs

    try:
        flags = pyargs.dict_arguments(parse_python(text, p, "Python program"))
    except UserError:
        return False
    if not flags:
        return False
    lf = sum(k in flags for k in lf_yaml.MARKERS if k != "model_name_or_path") >= 2
    if lf:     # max_source_length + max_target_length: runners/config.py _sequence_and_batch
        st, notes = lf_yaml.read_flags(flags, p), list[str]()
    else:
        st, notes = hf_args.read_flags(flags, p)
    job.settings = {**st, **job.settings}
    job.notes += notes + [f"{p}: the training arguments are one literal dict the program hands to its library, read "
                          f"as {'LLaMA-Factory' if lf else 'transformers'}' arguments"]
    job.runner = "llamafactory" if lf else "hf"
    job.entry, job.entry_file, job.entry_line = f"python {os.path.basename(p)}", p, 1
    job.script_flags["style"] = "python"
    job.gpus = job.gpus or Setting("gpus", 1, p, 1, "python", "assumed")
    return True


def _launched_by_another(p: str, texts: dict[str, str]) -> bool:
    """The file is one of AMD's Megatron-LM launchers (core/runners/megatron.py amd_launcher) and another file given
    runs it (`MBS=2 ... bash examples/llama/train_llama3.sh`): that command, with its variables, is the training."""
    base = megatron.amd_launcher(p)
    return base is not None and any(q != p and re.search(rf"\b(?:bash|sh|source)\s+\S*{re.escape(base)}\b", t)
                                    for q, t in texts.items())


def _apply_textgen(job: Job, texts: dict[str, str], path: str) -> None:
    """text-generation-webui's training_parameters.json (core/runners/textgen.py): the tab's settings under what the
    server.py launch beside it says (its --model); the tab trains in the server's process (transformers Trainer)."""
    settings, notes = textgen.read(_load_structured(texts[path]), texts[path], path, texts)
    for k, v in settings.items():
        job.settings.setdefault(k, v)
    job.notes += notes
    if job.runner == "unknown":
        job.runner = "hf"


def _apply_main_config(job: Job, texts: dict[str, str], yaml_cfgs: list, axo_cfgs: list[str]) -> None:
    """A YAML the command line names (or the only one given): its keys, then the command's overrides."""
    ref = job.settings.pop("__config_ref__", None)
    chosen = None
    if ref is not None:
        hit, how = _resolve_ref(str(ref.value), Path(ref.file or ".").parent, {p: t for p, t in texts.items()})
        if hit and job.formats.get(hit) == "lf-yaml":
            chosen = hit
            if how:
                job.notes.append(how)
        elif hit is None:
            job.findings.append(Finding.of("reference-missing", ref.file, ref.line,
                                           f"{ref.value} is not here and was not given beside the script", None))
    if chosen is None and yaml_cfgs:
        chosen = yaml_cfgs[0][0]
    if chosen is None and axo_cfgs:
        _apply_axolotl(job, texts, axo_cfgs, ref)
    if chosen is not None:
        _apply_lf_yaml(job, texts, chosen)


def _apply_recipe(job: Job, texts: dict[str, str], path: str) -> None:
    """An HfArgumentParser recipe YAML (TRL / alignment-handbook / open-r1): its keys under the command's flags."""
    data = _load_structured(texts[path])
    flat = None if hf_args.is_recipe_mapping(data) else hf_args.flatten_sections(data)
    st, notes = hf_args.read_recipe(dict(flat or data), yaml_lines(texts[path]), path, job.entry or "")
    if flat is not None:
        notes.append(f"{path}: a config in sections; its keys read as the program's arguments (batch_size as "
                     f"per_device_train_batch_size, a LoRA rank as LoRA on)")
    prog: dict = {}
    for q in (q for q, f in job.formats.items() if f == "python" and hf_args.read_python(texts[q], q) is None):
        calls, more = hf_args.read_program_calls(texts[q], q)     # the program the recipe is passed to
        calls.pop("cutoff_len", None)                             # the recipe's max_seq_length decides
        if calls:
            prog.update(calls)
            notes += more + [f"{q}: its LoRA/quantization calls read under the recipe's keys"]
    if "finetuning_type" in prog:
        st.pop("finetuning_type", None)         # the recipe's "full" is only its default when use_peft is absent
    job.settings = {**prog, **st, **job.settings}
    job.notes += notes
    if job.runner == "unknown":
        job.runner, job.entry, job.entry_file, job.entry_line = "hf", path, path, 1
        job.gpus = job.gpus or Setting("gpus", 1, path, 1, "python", "assumed")


_DSTACK_GPU = re.compile(r"^(?P<name>[A-Za-z][\w-]*)?(?::?(?P<mem>\d+\s*GB)(?:\.\.\d+\s*GB)?)?(?::(?P<count>\d+))?$",
                         re.IGNORECASE)


def _read_dstack_resources(job: Job, texts: dict[str, str]) -> None:
    """A dstack task (`type: task`, `resources: gpu: MI300X:8`, dstack.ai/docs/concepts/tasks): the card it asks
    for (a name or a memory) and how many, where the command line says neither. The card is resolved by check."""
    for p, fmt in job.formats.items():
        text = texts.get(p, "")
        if fmt != "script" or "resources:" not in text or "type:" not in text:
            continue
        try:
            data = _load_structured(text)
        except UserError:
            continue
        res = data.get("resources") if isinstance(data, dict) else None
        gpu = res.get("gpu") if isinstance(res, dict) else None
        name, mem, count = None, None, None
        if isinstance(gpu, dict):
            names = gpu.get("name")
            name = names[0] if isinstance(names, list) and len(names) == 1 else names if isinstance(names, str) else None
            mem, count = gpu.get("memory"), gpu.get("count")
        elif isinstance(gpu, (str, int)):
            m = _DSTACK_GPU.match(str(gpu).strip())
            if m:
                name, mem, count = m.group("name"), m.group("mem"), m.group("count")
        line = yaml_lines(text).get("resources")
        if name or mem:
            job.settings["__gpu_named__"] = Setting("__gpu_named__", str(name or ""), p, line, "resources.gpu",
                                                    "flag")
            if mem and not name:
                job.settings["__gpu_named__"] = Setting("__gpu_named__", f"a {mem} GPU", p, line, "resources.gpu",
                                                        "flag")
        n = as_int(str(count).split("..")[0]) if count is not None else None
        if n and job.gpus is None:
            job.gpus = Setting("gpus", n, p, line, "resources.gpu", "flag")
        return


def _not_training_command(tokens: list) -> bool:
    """A runner's own sub-command that does not train (`swift infer`, `megatron export`, `llamafactory-cli chat`:
    profiles/runner_commands.py)."""
    from rocm_tune.profiles.runner_commands import NOT_TRAINING_SUBCOMMANDS

    if len(tokens) < 2:
        return False
    subs = NOT_TRAINING_SUBCOMMANDS.get(os.path.basename(tokens[0].text))
    return subs is not None and tokens[1].text in subs


def _bare_arguments(job: Job, texts: dict[str, str]) -> None:
    """Arguments pasted without their command (a .txt of `--key value` lines, a post's flag list): read by the
    runner their names belong to -- Megatron's parallel sizes, LLaMA-Factory's own keys, else TrainingArguments --
    and said; the GPUs are then not known (one assumed, said)."""
    for p, fmt in job.formats.items():
        if fmt != "script":
            continue
        script = shell.parse_script(texts[p], p)
        if any(_not_training_command(c.tokens) for c in script.commands):
            continue            # `swift infer --model X`: the flags of an inference/export, not a training's
        toks = [t for c in script.commands for t in c.tokens]
        flags = shell.flag_values(toks)
        if len(flags) < 3 or "model_name_or_path" not in flags and "model" not in flags and "load" not in flags:
            continue
        if megatron.is_megatron_args(flags):
            st, notes = megatron.read_flags(flags, p)
            job.runner = "megatron"
        elif sum(k in flags for k in lf_yaml.MARKERS) >= 2:
            st, notes = lf_yaml.read_flags(flags, p), []
            job.runner = "llamafactory"
        else:
            st, notes = hf_args.read_flags(flags, p)
            job.runner = "hf"
        job.settings.update(st)
        job.notes += notes + [f"{p}: arguments without the command that takes them, read as {job.runner}'s"]
        job.entry, job.entry_file, job.entry_line = f"({job.runner} arguments)", p, 1
        job.script_flags["style"] = "hf" if job.runner == "hf" else "lf-flags"
        return


def _read_hostfile(job: Job, texts: dict[str, str]) -> None:
    """`deepspeed --hostfile F`: F given beside the script says the nodes (its hosts) and, when the script does not,
    the GPUs per node (their slots; DeepSpeed's runner.py fetch_hostfile)."""
    ref = job.settings.pop("__hostfile__", None)
    if ref is None:
        return
    hit, how = _resolve_ref(str(ref.value), Path(ref.file or ".").parent, texts)
    hosts = hostfile_hosts(texts[hit]) if hit in texts else None
    if hosts is None:
        job.notes.append(f"--hostfile {ref.value or '(empty)'}: not given beside the script, so the node count is "
                         f"not known from it")
        return
    if how:
        job.notes.append(how)
    if job.nodes is None:
        job.nodes = Setting("nodes", len(hosts), hit, 1, "hostfile", "hostfile")
    if job.gpus is None and len({n for _h, n in hosts}) == 1:
        job.gpus = Setting("gpus", hosts[0][1], hit, 1, "slots", "hostfile")


def _per_node_processes(job: Job) -> None:
    """accelerate's num_processes (config key or `accelerate launch --num_processes`) counts the processes of
    all machines (accelerate/commands/launch.py); `gpus` is per node."""
    g, n = job.gpus, as_int(job.nodes.value) if job.nodes is not None else None
    if g is None or g.native != "num_processes" or not n or n <= 1:
        return
    total = as_int(g.value)
    if total and total % n == 0:
        job.gpus = Setting("gpus", total // n, g.file, g.line, g.native, g.kind)
        job.notes.append(f"num_processes {total} counts all {n} machines: {total // n} GPU(s) per node")
