"""c-wrap: the training command inside a wrapper -- containers, schedulers, remote shells, environment managers
(check; issue 26).

Scripts are written from the launchers' own docs (docker run --help, podman-run(1), apptainer-exec(1), enroot
start, srun(1), sbatch --wrap, mpirun(1) / mpiexec.hydra, ssh(1), conda run, uv run, timeout(1), numactl(8),
taskset(1), env(1), ray job submit, kubectl exec) around the runners' own example commands (llamafactory-cli train,
torchrun / deepspeed / accelerate launch, python -m verl.trainer.main_ppo, swift sft, megatron sft, tune run,
axolotl train). None is a corpus case. No mocks of core.
"""

from __future__ import annotations

import json

import pytest

from rocm_tune.cli import main
from rocm_tune.core.formats import read_texts
from rocm_tune.core.runners.launchers import parse_script

LF_YAML = """model_name_or_path: Qwen/Qwen2.5-7B-Instruct
stage: sft
do_train: true
finetuning_type: lora
lora_target: all
dataset: alpaca_en_demo
template: qwen
cutoff_len: 2048
per_device_train_batch_size: 2
gradient_accumulation_steps: 8
bf16: true
output_dir: saves/qwen2.5-7b/lora/sft
"""


def _one(text: str):
    """The last command of a script (the training, in these scripts)."""
    return parse_script(text, "run.sh").commands[-1]


# --- containers ----------------------------------------------------------------------------------------------------
DOCKER = ("docker run --rm -it --device=/dev/kfd --device /dev/dri --group-add video --ipc=host --shm-size 64G \\\n"
          "  --security-opt seccomp=unconfined -v /home/me/train.py:/workspace/train.py -v $HOME/data:/data \\\n"
          "  -w /workspace -e HIP_VISIBLE_DEVICES=0,1,2,3 --env HF_HOME=/data/hf --name lf \\\n"
          "  rocm/pytorch:latest llamafactory-cli train qwen_lora.yaml\n")


def test_docker_run_options_are_not_the_command_and_its_env_counts():
    c = _one(DOCKER)
    assert c.argv == ["llamafactory-cli", "train", "qwen_lora.yaml"]      # not `-v .../train.py:...`, not the image
    assert c.wrappers == ("docker",)
    assert c.env == {"HIP_VISIBLE_DEVICES": "0,1,2,3", "HF_HOME": "/data/hf"}
    job = read_texts({"run.sh": DOCKER, "qwen_lora.yaml": LF_YAML})
    assert (job.runner, job.launcher) == ("llamafactory", "llamafactory-cli")
    assert (job.gpus.value, job.gpus.native) == (4, "HIP_VISIBLE_DEVICES")   # -e reaches llamafactory-cli


def test_docker_env_file_given_beside_counts_and_minus_e_wins():
    run = "docker run --env-file ./rocm.env -e NCCL_DEBUG=WARN rocm/pytorch llamafactory-cli train qwen_lora.yaml\n"
    assert _one(run).env_files == ("./rocm.env",)
    env = "# GPUs for this job\nHIP_VISIBLE_DEVICES=0,1,2,3,4,5\nNCCL_DEBUG=INFO\nHF_TOKEN\n"
    job = read_texts({"run.sh": run, "conf/rocm.env": env, "qwen_lora.yaml": LF_YAML})
    assert (job.gpus.value, job.gpus.native) == (6, "HIP_VISIBLE_DEVICES")
    assert "format-unknown" not in {f.code for f in job.findings}         # the env file is read, not refused
    assert any("rocm.env" in n and "--env-file" in n for n in job.notes)
    alone = read_texts({"run.sh": run, "qwen_lora.yaml": LF_YAML})        # not given: nothing assumed
    assert alone.gpus is None or alone.gpus.native != "HIP_VISIBLE_DEVICES"


def test_docker_exec_podman_and_compose_run():
    assert _one("docker exec -it -u root -w /w trainer torchrun --nproc_per_node 8 train.py\n").argv[0] == "torchrun"
    pod = _one("podman run --rm --device /dev/kfd --device /dev/dri --security-opt label=disable -v ./:/w:Z "
               "docker.io/rocm/megatron-lm:latest megatron sft --model Qwen/Qwen2.5-7B-Instruct --train_type full\n")
    assert pod.argv[:2] == ["megatron", "sft"] and pod.wrappers == ("podman",)
    comp = _one("docker compose run --rm -e NPROC_PER_NODE=8 trainer swift sft --model Qwen/Qwen2.5-7B-Instruct\n")
    assert comp.argv[:2] == ["swift", "sft"] and comp.env == {"NPROC_PER_NODE": "8"}


def test_apptainer_and_singularity_env_reach_the_container():
    text = ("export APPTAINERENV_HIP_VISIBLE_DEVICES=0,1\n"
            "apptainer exec -e --rocm -B /scratch:/scratch --env PYTORCH_HIP_ALLOC_CONF=expandable_segments:True,"
            "OMP_NUM_THREADS=8 lf.sif llamafactory-cli train qwen_lora.yaml\n")
    c = _one(text)
    assert c.argv[0] == "llamafactory-cli"          # apptainer's -e is --cleanenv: it takes no value, lf.sif is the image
    assert c.env["HIP_VISIBLE_DEVICES"] == "0,1" and c.env["OMP_NUM_THREADS"] == "8"
    assert c.env["PYTORCH_HIP_ALLOC_CONF"] == "expandable_segments:True"
    job = read_texts({"run.sh": text, "qwen_lora.yaml": LF_YAML})
    assert job.gpus.value == 2
    sing = _one("SINGULARITYENV_ROCR_VISIBLE_DEVICES=0 singularity run --nv docker://rocm/pytorch torchrun "
                "--nproc_per_node 1 train.py\n")
    assert sing.argv[0] == "torchrun" and sing.env["ROCR_VISIBLE_DEVICES"] == "0"


def test_enroot_start():
    c = _one("enroot start --rw -e HIP_VISIBLE_DEVICES=0,1,2,3 -m /data:/data pytorch axolotl train axo.yaml\n")
    assert c.argv == ["axolotl", "train", "axo.yaml"] and c.env == {"HIP_VISIBLE_DEVICES": "0,1,2,3"}
    job = read_texts({"run.sh": "enroot start --rw pytorch axolotl train axo.yaml\n",
                      "axo.yaml": "base_model: Qwen/Qwen2.5-7B\nsequence_len: 2048\nmicro_batch_size: 1\n"})
    assert job.runner == "axolotl" and job.get("model_name_or_path") == "Qwen/Qwen2.5-7B"


# --- schedulers and MPI --------------------------------------------------------------------------------------------
SRUN = ("srun -N 1 -n 1 --gpus-per-node=8 -c 56 --overlap -l singularity exec --rocm -B /scratch lf.sif \\\n"
        "  bash -lc 'cd /work && torchrun --nproc_per_node 8 src/train.py --model_name_or_path "
        "Qwen/Qwen2.5-7B-Instruct --stage sft --finetuning_type full --per_device_train_batch_size 1 "
        "--cutoff_len 4096 --bf16'\n")


def test_srun_singularity_bash_lc_with_cd():
    c = _one(SRUN)
    assert c.argv[0] == "torchrun" and c.wrappers == ("srun", "singularity", "bash")
    job = read_texts({"run.sh": SRUN})
    assert (job.runner, job.entry, job.launcher) == ("llamafactory", "src/train.py", "torchrun")
    assert job.gpus.value == 8 and int(job.get("cutoff_len")) == 4096


def test_srun_deepspeed_without_hostfile_is_still_seen():
    job = read_texts({"run.sh": "srun --nodes=2 --ntasks-per-node=1 deepspeed --num_gpus 8 train.py "
                                "--deepspeed ds.json --model_name_or_path Qwen/Qwen2.5-7B\n"})
    assert job.launcher == "deepspeed" and job.get("__ds_local__") is True


def test_sbatch_wrap():
    text = 'sbatch -N 1 --gpus-per-node=8 --wrap="torchrun --nproc_per_node=8 train.py --model_name_or_path ' \
           'meta-llama/Llama-3.1-8B --per_device_train_batch_size 1"\n'
    job = read_texts({"run.sh": text})
    assert (job.entry, job.launcher, job.gpus.value) == ("train.py", "torchrun", 8)


def test_mpirun_options_and_exported_env():
    text = ("mpirun -np 8 --allow-run-as-root --bind-to none --map-by slot -x NCCL_DEBUG=INFO -x HIP_VISIBLE_DEVICES=0,1 "
            "--mca btl_tcp_if_include eth0 -H localhost:8 deepspeed --num_gpus 2 train.py --deepspeed ds.json\n")
    c = _one(text)
    assert c.argv[:3] == ["deepspeed", "--num_gpus", "2"]          # --mca takes two words: eth0 is not the program
    assert c.env == {"NCCL_DEBUG": "INFO", "HIP_VISIBLE_DEVICES": "0,1"}
    hydra = _one("mpiexec -n 2 -ppn 1 -genv HIP_VISIBLE_DEVICES 0,1 accelerate launch --num_processes 2 train.py\n")
    assert hydra.argv[:2] == ["accelerate", "launch"] and hydra.env == {"HIP_VISIBLE_DEVICES": "0,1"}


@pytest.mark.parametrize("script,gpus,native", [
    ("srun --ntasks-per-node=8 --gpus-per-node=8 python train.py", 8, "srun --ntasks-per-node"),
    ("#SBATCH --nodes=2\nsrun -n 16 -c 7 python train.py", 8, "srun -n"),          # 16 ranks over the job's 2 nodes
    ("srun -N 2 -n8 python train.py", 4, "srun -n"),
    ("mpirun -np 4 --bind-to none python train.py", 4, "mpirun -np"),
    ("mpiexec -n 8 -ppn 4 python train.py", 4, "mpiexec -ppn"),
    ("mpirun -np 16 -H a:8,b:8 python train.py", 1, "python"),   # hosts named: per node not known from -np alone
    ("srun python train.py", 1, "python"),
])
def test_ranks_srun_and_mpirun_start_of_a_plain_program(script, gpus, native):
    job = read_texts({"run.sh": script + " --model_name_or_path Qwen/Qwen2.5-7B --deepspeed ds.json\n"})
    assert (job.gpus.value, job.gpus.native) == (gpus, native)


def test_ray_job_submit_and_kubectl_exec_run_what_follows_the_dashes():
    ray = ("ray job submit --address=http://127.0.0.1:8265 --runtime-env-json='{\"working_dir\": \".\"}' -- "
           "python3 -m verl.trainer.main_ppo actor_rollout_ref.model.path=Qwen/Qwen2.5-3B-Instruct "
           "trainer.n_gpus_per_node=8 trainer.nnodes=2\n")
    job = read_texts({"run.sh": ray})
    assert job.entry == "verl verl.trainer.main_ppo" and (job.gpus.value, job.nodes.value) == (8, 2)
    kube = read_texts({"run.sh": "kubectl exec -it -n training trainer-0 -c main -- swift sft --model "
                                 "Qwen/Qwen2.5-7B-Instruct --train_type lora --max_length 2048\n"})
    assert kube.runner == "ms-swift" and kube.get("model_name_or_path") == "Qwen/Qwen2.5-7B-Instruct"


# --- remote shells, environments, process settings -----------------------------------------------------------------
def test_ssh_remote_command_with_its_own_prefixes():
    text = ('ssh -p 2222 -o StrictHostKeyChecking=no -i ~/.ssh/id node01 "cd /work && FORCE_TORCHRUN=1 '
            'NPROC_PER_NODE=4 llamafactory-cli train qwen_lora.yaml"\n')
    c = _one(text)
    assert c.argv[0] == "llamafactory-cli" and c.env == {"FORCE_TORCHRUN": "1", "NPROC_PER_NODE": "4"}
    job = read_texts({"run.sh": text, "qwen_lora.yaml": LF_YAML})
    assert (job.gpus.value, job.gpus.native) == (4, "NPROC_PER_NODE")


def test_nohup_conda_run_in_the_background():
    c = _one("nohup conda run -n lf --no-capture-output llamafactory-cli train qwen_lora.yaml > train.log 2>&1 &\n")
    assert c.argv[:3] == ["llamafactory-cli", "train", "qwen_lora.yaml"] and c.wrappers == ("nohup", "conda")


def test_uv_run_module_is_python_m():
    text = ("timeout 10h uv run --with flash-attn -m verl.trainer.main_ppo algorithm.adv_estimator=grpo "
            "actor_rollout_ref.model.path=Qwen/Qwen2.5-3B-Instruct data.max_prompt_length=512 "
            "data.max_response_length=1024 actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=4 "
            "trainer.n_gpus_per_node=8 trainer.nnodes=1\n")
    c = _one(text)
    assert c.argv[:3] == ["python", "-m", "verl.trainer.main_ppo"] and c.wrappers == ("timeout", "uv")
    assert read_texts({"run.sh": text}).gpus.value == 8


def test_env_numactl_taskset_chain():
    c = _one("env -u OMP_NUM_THREADS HIP_VISIBLE_DEVICES=0,1 numactl --cpunodebind=0 --membind 0 taskset -c 0-31 "
             "accelerate launch --num_processes 2 train.py --model_name_or_path Qwen/Qwen2.5-1.5B\n")
    assert c.argv[:2] == ["accelerate", "launch"] and c.env == {"HIP_VISIBLE_DEVICES": "0,1"}
    assert c.wrappers == ("env", "numactl", "taskset")


def test_heredoc_fed_to_a_shell_in_a_container():
    text = ("docker exec -i -e NPROC_PER_NODE=8 trainer bash <<EOF\n"
            "cd /workspace\n"
            "tune run --nproc_per_node 8 full_finetune_distributed --config llama3_1/8B_full batch_size=2\n"
            "EOF\n")
    cmds = parse_script(text, "run.sh").commands
    tune = next(c for c in cmds if c.argv[:2] == ["tune", "run"])
    assert tune.env == {"NPROC_PER_NODE": "8"} and tune.wrappers == ("docker",) and tune.line == 3
    assert read_texts({"run.sh": text}).runner == "torchtune"


def test_command_lists_pipes_and_loops():
    cmds = parse_script("for seed in 1 2; do HIP_VISIBLE_DEVICES=0 python train.py --seed $seed | tee log; done\n"
                        "cd /w && A=1 torchrun --nproc_per_node 2 train.py; echo done\n", "run.sh").commands
    assert [c.argv[0] for c in cmds] == ["for", "python", "tee", "done", "cd", "torchrun", "echo"]
    assert cmds[1].env == {"HIP_VISIBLE_DEVICES": "0"} and cmds[5].env == {"A": "1"} and cmds[5].line == 2


# --- a verl trainer under another package name --------------------------------------------------------------------
def test_verl_trainer_vendored_under_another_name():
    text = ("srun --overlap --nodes=2 --ntasks=1 -w node0 docker exec -w /data/code trainer \\\n"
            "  python3 -m myproject.trainer.main_ppo algorithm.adv_estimator=grpo \\\n"
            "  actor_rollout_ref.model.path=Qwen/Qwen2.5-3B-Instruct data.max_prompt_length=512 \\\n"
            "  data.max_response_length=2048 actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=2 \\\n"
            "  trainer.n_gpus_per_node=8 trainer.nnodes=2\n")
    job = read_texts({"run.sh": text})
    assert job.entry == "verl myproject.trainer.main_ppo" and job.nodes.value == 2
    other = read_texts({"run.sh": "python3 -m myproject.trainer.main_ppo --config cfg.yaml\n"})
    assert not other.entry.startswith("verl")        # no verl overrides: a program of its own


# --- what is not a wrapper -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("line,argv0", [
    ("docker ps -a\n", "docker"),                       # not run/exec: docker itself
    ("docker build -t img .\n", "docker"),
    ("docker run --rm rocm/pytorch\n", "docker"),       # the image's own command: nothing to read
    ("srun hostname\n", "hostname"),
    ("nohup\n", "nohup"),
    ("bash train.sh\n", "bash"),                        # a script file, read through the files given
    ("ssh node01\n", "ssh"),                            # an interactive login
])
def test_commands_that_wrap_nothing(line, argv0):
    assert _one(line).argv[0] == argv0


# --- the verdict through the command line --------------------------------------------------------------------------
def _check(tmp_path, monkeypatch, capsys, files: dict[str, str], *args: str) -> dict:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    paths = []
    for name, text in files.items():
        (tmp_path / name).write_text(text)
        paths.append(str(tmp_path / name))
    main(["check", *paths, *args, "--json", "--no-app"])
    return json.loads(capsys.readouterr().out)


def test_verdicts_inside_wrappers(tmp_path, monkeypatch, capsys):
    d = _check(tmp_path, monkeypatch, capsys, {"run.sh": DOCKER, "qwen_lora.yaml": LF_YAML}, "--gpu", "mi300x")
    assert d["runner"] == "llamafactory" and d["verdict"] == "fits"
    big = SRUN.replace("Qwen/Qwen2.5-7B-Instruct", "Qwen/Qwen2.5-72B-Instruct").replace("8 src", "1 src")
    d = _check(tmp_path, monkeypatch, capsys, {"run.sh": big}, "--gpu", "mi300x")
    assert d["model"]["name"].startswith("qwen2.5-72b") and d["verdict"] == "oom"   # 72B full on one GPU
