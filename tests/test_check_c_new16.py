"""c-new16 (issue 26): what today's independent sample showed check misses, as families.

* LLaMA-Factory's Megatron back ends (hiyouga/LlamaFactory src/llamafactory/hparams/parser.py get_train_args):
  `USE_MCA=1` (alibaba/ROLL mcore_adapter TrainingArguments) and `USE_MEGATRON_BRIDGE=1`
  (hparams/megatron_bridge_args.py) take Megatron's parallel / optimizer / recompute keys, read through
  core/runners/megatron.py; LF's own gradient checkpointing does not run there.
* OmegaConf's env resolver (`${oc.env:X}`, `${oc.env:X,default}`, inline, the launch's environment first) in the YAML
  of the runners that load it with OmegaConf (torchtune, NeMo Automodel).
* NeMo Automodel: wildcard PEFT targets (module_matcher.py), ep_size / pp_size as the FSDP2 + EP layout
  (distributed/mesh.py), ChatDataset's seq_length a cap only with truncation on; the GLM-5 family preset
  (transformers models/glm_moe_dsa, GlmMoeDsaConfig defaults = zai-org/GLM-5).
The configs below are written from those sources (LLaMA-Factory examples/megatron/*.yaml, Automodel
examples/llm_finetune/*.yaml), not taken from the corpus."""

from __future__ import annotations

from rocm_tune.core import formats
from rocm_tune.core.check.check import check
from rocm_tune.core.model.architecture import by_name
from rocm_tune.core.runners import megatron, values


def _write(tmp_path, name: str, text: str) -> str:
    p = tmp_path / name
    p.write_text(text)
    return str(p)


# LLaMA-Factory examples/megatron/qwen3_moe_full.yaml (main ff6d4d12), as its header says: 8 x 78 GB
LF_MCA = """model_name_or_path: Qwen/Qwen3-30B-A3B-Instruct-2507
do_train: true
stage: sft
finetuning_type: full
dataset: alpaca_en_demo
cutoff_len: 4096
template: qwen3_nothink
output_dir: saves/mca/qwen3_moe_full
per_device_train_batch_size: 1
gradient_accumulation_steps: 8
bf16: true
tensor_model_parallel_size: 1
sequence_parallel: false
pipeline_model_parallel_size: 4
use_distributed_optimizer: true
overlap_param_gather: true
overlap_grad_reduce: true
moe_grouped_gemm: true
moe_token_dispatcher_type: alltoall
expert_model_parallel_size: 2
recompute_granularity: full
"""


def test_use_mca_yaml_is_read_as_megatron_layout(tmp_path):
    y = _write(tmp_path, "qwen3_moe_full.yaml", LF_MCA)
    sh = _write(tmp_path, "run.sh", "USE_MCA=1 llamafactory-cli train qwen3_moe_full.yaml\n")
    job = formats.read_job([sh, y])
    assert job.runner == "llamafactory" and job.get("__lf_megatron__") == "mca"
    lay = megatron.layout(job.settings, 8)
    assert lay is not None and (lay.tp, lay.pp, lay.ep) == (1, 4, 2) and lay.distributed_optimizer
    assert job.get("disable_gradient_checkpointing") is False          # recompute_granularity: full
    rep = check([sh, y], gpu_id="h100-sxm", gpus=8)
    assert rep.verdict == "fits"                                       # the example's 8 x 78 GB
    # the same keys without the Megatron split's reading: whole Qwen3-30B-A3B + Adam on every GPU
    plain = _write(tmp_path, "plain.yaml", "\n".join(line for line in LF_MCA.splitlines()
                                                     if "parallel" not in line and "distributed" not in line))
    assert check([plain], gpu_id="h100-sxm", gpus=8).verdict == "oom"


def test_megatron_keys_without_env_are_read_as_mca_and_no_recompute_means_none(tmp_path):
    # USE_MCA is needed for HfArgumentParser to accept these keys: a YAML with them alone is read as that mode
    y = _write(tmp_path, "a.yaml", LF_MCA.replace("recompute_granularity: full\n", ""))
    job = formats.read_job([y])
    assert job.settings["__lf_megatron__"].kind == "assumed"
    assert job.get("disable_gradient_checkpointing") is True            # mcore_adapter: recompute None
    assert job.get("__distopt__") is True and job.get("__pp__") == 4


def test_use_megatron_bridge_defaults_to_the_distributed_optimizer(tmp_path):
    # examples/megatron_bridge/llama3_sft.yaml's keys, use_distributed_optimizer left at its default (True)
    y = _write(tmp_path, "llama3_sft.yaml", "model_name_or_path: meta-llama/Llama-3.2-1B-Instruct\nstage: sft\n"
               "do_train: true\nfinetuning_type: full\ndataset: alpaca_en_demo\ntemplate: llama3\ncutoff_len: 2048\n"
               "per_device_train_batch_size: 1\nbf16: true\ntensor_model_parallel_size: 2\n"
               "pipeline_model_parallel_size: 1\n")
    sh = _write(tmp_path, "go.sh", "export USE_MEGATRON_BRIDGE=true\nllamafactory-cli train llama3_sft.yaml\n")
    job = formats.read_job([sh, y])
    assert job.get("__lf_megatron__") == "megatron-bridge" and job.get("__distopt__") is True
    assert job.get("__tp__") == 2
    off = _write(tmp_path, "off.sh", "USE_MEGATRON_BRIDGE=0 USE_MCA=no llamafactory-cli train llama3_sft.yaml\n")
    assert formats.read_job([off, y]).settings["__lf_megatron__"].kind == "assumed"    # env off: the keys decide


def test_lf_without_megatron_keys_is_untouched(tmp_path):
    y = _write(tmp_path, "sft.yaml", "model_name_or_path: Qwen/Qwen2.5-7B\nstage: sft\ndo_train: true\n"
               "finetuning_type: lora\ndataset: alpaca_en_demo\ntemplate: qwen\ncutoff_len: 1024\n")
    sh = _write(tmp_path, "r.sh", "llamafactory-cli train sft.yaml\n")
    job = formats.read_job([sh, y])
    assert "__lf_megatron__" not in job.settings and megatron.layout(job.settings, 1) is None


# ------------------------------------------------------------------------------------------------ OmegaConf env
def test_oc_env_default_env_and_inline():
    data = {"model": {"path": "${oc.env:MODEL_PATH,zai-org/GLM-5.2}", "q": "${oc.env:Q,'a b'}",
                      "none": "${oc.env:N,null}", "bare": "${oc.env:UNSET_X}", "old": "${env:OLD,7}"},
            "out": "${oc.env:ROOT,/tmp}/runs/${model.path}"}
    notes: list[str] = []
    got = values.omegaconf_resolve(data, notes)
    assert got["model"]["path"] == "zai-org/GLM-5.2" and got["model"]["q"] == "a b"
    assert got["model"]["none"] is None and got["model"]["bare"] == "${oc.env:UNSET_X}"
    assert got["model"]["old"] == "7" and got["out"] == "/tmp/runs/zai-org/GLM-5.2"
    env = values.omegaconf_resolve(data, [], {"MODEL_PATH": "/ckpt/glm", "UNSET_X": "x"})
    assert env["model"]["path"] == "/ckpt/glm" and env["model"]["bare"] == "x"
    assert any("unless the environment sets MODEL_PATH" in n for n in notes)


# ------------------------------------------------------------------------------------------------ NeMo Automodel
# shaped on Automodel examples/llm_finetune/glm/glm_5_hellaswag_pp.yaml / the GLM-5 LoRA recipes
GLM5 = """recipe: TrainFinetuneRecipeForNextTokenPrediction
step_scheduler:
  global_batch_size: 64
  local_batch_size: 1
distributed:
  strategy: fsdp2
  tp_size: 1
  cp_size: 1
  pp_size: 1
  ep_size: 64
  activation_checkpointing: true
model:
  _target_: nemo_automodel.NeMoAutoModelForCausalLM.from_pretrained
  pretrained_model_name_or_path: ${oc.env:GLM5_PATH,zai-org/GLM-5}
  torch_dtype: bf16
peft:
  _target_: nemo_automodel.components._peft.lora.PeftConfig
  target_modules:
    - "*.self_attn.q_b_proj"
    - "*.self_attn.o_proj"
    - "*.mlp.experts"
  dim: 16
dataset:
  _target_: nemo_automodel.components.datasets.llm.chat_dataset.ChatDataset
  path_or_dataset_id: some/chat-data
  seq_length: 4096
  truncation: true
"""


def test_glm5_preset_counts_about_744b():
    got = by_name("zai-org/GLM-5.2")
    assert got is not None and got.spec.name == "glm-5" and got.spec.family == "deepseek_v3"
    assert 735e9 < got.spec.params.total < 750e9        # GLM-5: 744B (the DSA indexer's ~0.9B not counted)


def test_automodel_oc_env_wildcards_and_expert_layout(tmp_path):
    y = _write(tmp_path, "glm5_lora.yaml", GLM5)
    job = formats.read_job([y])
    assert job.get("model_name_or_path") == "zai-org/GLM-5"
    assert job.get("lora_target") == "q_b_proj,o_proj,gate_proj,up_proj,down_proj"
    assert job.get("__ep__") == 64 and job.get("__fsdp__") == 3 and job.get("fsdp") is None
    assert job.get("cutoff_len") == 4096                                # truncation on: seq_length caps
    rep = check([y], gpu_id="h100-sxm", gpus=8, nodes=8)
    assert rep.verdict == "fits"
    # the launch's environment names another checkpoint: that one is read
    sh = _write(tmp_path, "run.sh", "GLM5_PATH=deepseek-ai/DeepSeek-V3 automodel glm5_lora.yaml --nproc-per-node 8\n")
    assert formats.read_job([sh, y]).get("model_name_or_path") == "deepseek-ai/DeepSeek-V3"


def test_automodel_ep_split_matters_and_chat_seq_length_without_truncation(tmp_path):
    # without EP the whole layer (all 256 experts) is gathered per FSDP unit: the step needs more
    ep = check([_write(tmp_path, "ep.yaml", GLM5)], gpu_id="h100-sxm", gpus=8, nodes=8)
    no_ep = check([_write(tmp_path, "noep.yaml", GLM5.replace("ep_size: 64", "ep_size: 1"))],
                  gpu_id="h100-sxm", gpus=8, nodes=8)
    assert no_ep.memory["step"]["peak_allocated_bytes"] > ep.memory["step"]["peak_allocated_bytes"] + 20 * 2**30
    # ChatDataset: seq_length is apply_chat_template's max_length, a cut only with truncation on
    job = formats.read_job([_write(tmp_path, "t.yaml", GLM5.replace("truncation: true", "truncation: false"))])
    assert job.get("cutoff_len") is None
