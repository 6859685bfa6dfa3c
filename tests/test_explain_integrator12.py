"""Integrator rules of session 12. verl's default reward dispatcher refusing the rows' data_source (integrator, session 12): dataset_error, with the
column and the custom scorer named. Log written from verl/utils/reward_score/__init__.py default_compute_score and
verl/trainer/main_ppo.py under Ray (RayTaskError wrapping), not from a corpus case."""

from __future__ import annotations

from rocm_tune.core.runs.diagnose.diagnose import diagnose

LOG = """(TaskRunner pid=88121) Training Progress:   0%|          | 0/435 [00:00<?, ?it/s]
(WorkerDict pid=88702) [rank0]:[W1103 09:12:44] Warning: torch.cuda.amp.autocast is deprecated
Error executing job with overrides: ['algorithm.adv_estimator=grpo', 'data.train_files=/data/mymath/train.parquet']
Traceback (most recent call last):
  File "/opt/verl/verl/trainer/main_ppo.py", line 42, in main
    run_ppo(config)
  File "/opt/verl/verl/trainer/main_ppo.py", line 96, in run_ppo
    ray.get(runner.run.remote(config))
ray.exceptions.RayTaskError(NotImplementedError): ray::TaskRunner.run() (pid=88121, ip=10.1.2.3)
  File "/opt/verl/verl/trainer/ppo/ray_trainer.py", line 1150, in fit
    reward_tensor, reward_extra_infos_dict = compute_reward(batch, self.reward_fn)
  File "/opt/verl/verl/workers/reward_manager/naive.py", line 80, in __call__
    score = self.compute_score(
  File "/opt/verl/verl/utils/reward_score/__init__.py", line 107, in default_compute_score
    raise NotImplementedError(f"Reward function is not implemented for {data_source=}")
NotImplementedError: Reward function is not implemented for data_source='my_math_v2'
"""


def test_unknown_data_source_is_the_data(tmp_path):
    (tmp_path / "run.log").write_text(LOG)
    exp = diagnose([str(tmp_path / "run.log")])
    r = exp.diagnoses[exp.root]
    assert r.family == "dataset_error" and r.code == "verl-reward-data-source"
    assert "data_source" in r.fix and "custom_reward_function.path" in r.fix


CKPT = """[INFO|trainer.py:2405] 2026-02-11 08:01:12,345 >> ***** Running training *****
[2026-02-11 08:01:12,400] [INFO] [config.py:1007:print]   zero_optimization_stage ...... 3
  0%|          | 0/120 [00:00<?, ?it/s]
[rank1]: Traceback (most recent call last):
[rank1]:   File "/opt/conda/lib/python3.11/site-packages/torch/_tensor.py", line 648, in backward
[rank1]:     torch.autograd.backward(
[rank1]:   File "/opt/conda/lib/python3.11/site-packages/torch/utils/checkpoint.py", line 1129, in unpack_hook
[rank1]:     frame.check_recomputed_tensors_match(gid)
[rank1]:   File "/opt/conda/lib/python3.11/site-packages/torch/utils/checkpoint.py", line 903, in check_recomputed_tensors_match
[rank1]:     raise CheckpointError(
[rank1]: torch.utils.checkpoint.CheckpointError: torch.utils.checkpoint: Recomputed values for the following tensors have different metadata than during the forward pass.
[rank1]: tensor at position 12:
[rank1]: saved metadata: {'shape': torch.Size([2560, 2560]), 'dtype': torch.bfloat16, 'device': device(type='cuda', index=1)}
[rank1]: recomputed metadata: {'shape': torch.Size([0]), 'dtype': torch.bfloat16, 'device': device(type='cuda', index=1)}
W0211 08:01:20.111000 4242 torch/distributed/elastic/multiprocessing/api.py:897] Sending process 4301 closing signal SIGTERM
E0211 08:01:20.500000 4242 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: 1) local_rank: 1 (pid: 4302) of binary: /opt/conda/bin/python
"""


def test_zero3_recomputation_mismatch_is_the_engine_not_a_checkpoint_file(tmp_path):
    (tmp_path / "run.log").write_text(CKPT)
    exp = diagnose([str(tmp_path / "run.log")])
    r = exp.diagnoses[exp.root]
    assert r.family == "ddp_error" and r.code == "checkpoint-recompute-mismatch"
    assert "use_reentrant" in r.fix and "ZeRO-2" in r.fix
