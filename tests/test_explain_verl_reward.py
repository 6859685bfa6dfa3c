"""verl's default reward dispatcher refusing the rows' data_source (integrator, session 12): dataset_error, with the
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
