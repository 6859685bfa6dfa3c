"""The flags each release of the `deepspeed` launcher declares (e-ver3, issue 26): data, no logic.

Made by tools/build_launcher_args.py from deepspeedai/DeepSpeed's deepspeed/launcher/runner.py at every release tag
(and the default branch's head, 'main'). Shape as runner_args.RUNNER_ARGS: (oldest release read, newest, {"FIRST..LAST":
flags first and last declared in those releases ('-' written '_')}, class names). explain uses it to tell a flag the
installed launcher refuses (`deepspeed: error: unrecognized arguments: --x`) but another release declares (version
skew) from one no release declares (a typo, or the script's own flag put before the script: the command).
"""
from __future__ import annotations


LAUNCHER_ARGS: dict[str, tuple[str, str, dict[str, str], str]] = {
    "deepspeed-launcher": (
        "v0.3.0", "main",
        {
            "v0.3.0..main": "exclude hostfile include launcher launcher_args master_addr master_port num_gpus num_nodes",
            "v0.3.16..main": "force_multi",
            "v0.5.7..main": "autotuning",
            "v0.5.10..main": "module no_local_rank no_python",
            "v0.6.0..main": "save_pid",
            "v0.6.5..main": "no_ssh_check",
            "v0.7.0..main": "elastic_training max_elastic_nodes min_elastic_nodes",
            "v0.8.0..main": "enable_each_rank_log",
            "v0.9.0..main": "bind_core_list bind_cores_to_rank",
            "v0.10.2..main": "ssh_port",
            "v0.14.5..main": "no_ssh node_rank",
            "v0.17.1..main": "venv_script",
            "v0.17.6..main": "log_level quiet",
        },
        "",
    ),
}
