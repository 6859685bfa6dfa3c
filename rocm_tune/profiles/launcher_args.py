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
    # e-cli9: torchrun (torch.distributed.run's get_args_parser, pytorch/pytorch torch/distributed/run.py@010929fd,
    # read at that one commit: the newest release's flags, both spellings (`--nproc-per-node` / `--nproc_per_node`) of
    # each folded to '_'; no older release read, so it tells a typo from a flag torchrun has, not which release added
    # one) and torch.distributed.launch (torch/distributed/launch.py@271cacc: run.py's parser plus `--use-env`/
    # `--use_env`, which torchrun refuses: torchrun always passes the local rank in LOCAL_RANK)
    "torchrun": (
        "main", "main",
        {
            "main..main": (
                "event_log_handler help local_addr local_ranks_filter log_dir logs_specs m master_addr master_port "
                "max_restarts module monitor_interval nnodes no_python node_rank nproc_per_node numa_binding r "
                "rdzv_backend rdzv_conf rdzv_endpoint rdzv_id redirects role run_path signals_to_handle standalone "
                "start_method t tee"
            ),
        },
        "",
    ),
    "torch-launch": (
        "main", "main",
        {
            "main..main": (
                "event_log_handler help local_addr local_ranks_filter log_dir logs_specs m master_addr master_port "
                "max_restarts module monitor_interval nnodes no_python node_rank nproc_per_node numa_binding r "
                "rdzv_backend rdzv_conf rdzv_endpoint rdzv_id redirects role run_path signals_to_handle standalone "
                "start_method t tee use_env"
            ),
        },
        "",
    ),
}
