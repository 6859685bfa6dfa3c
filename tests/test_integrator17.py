"""Session 17 integration: torchtune's custom_sharded_layers makes the output projection an FSDP unit of its own
(recipes' _setup_model -> training.get_shard_conditions(names_to_match=...)), so its full gradient is reduce-scattered
after its own backward instead of living through the whole backward in the root unit; the bundle asks for it."""

from __future__ import annotations

from rocm_tune.core.check.check import check

YAML = """output_dir: /tmp/out
model:
  _component_: torchtune.models.llama3_1.llama3_1_8b
tokenizer:
  _component_: torchtune.models.llama3.llama3_tokenizer
  path: /tmp/tokenizer.model
  max_seq_len: 2048
dataset:
  _component_: torchtune.datasets.alpaca_cleaned_dataset
batch_size: 2
epochs: 1
optimizer:
  _component_: torch.optim.AdamW
  lr: 2e-5
  fused: true
loss:
  _component_: torchtune.modules.loss.CEWithChunkedOutputLoss
enable_activation_checkpointing: true
dtype: bf16
fsdp_cpu_offload: false
%s"""
RUN = "tune run --nproc_per_node 4 full_finetune_distributed --config llama.yaml\n"


def _step(tmp_path, extra: str) -> int:
    (tmp_path / "llama.yaml").write_text(YAML % extra)
    (tmp_path / "run.sh").write_text(RUN)
    d = check([str(tmp_path / "llama.yaml"), str(tmp_path / "run.sh")], gpu_id="a100-80gb").to_dict()
    assert d["runner"] == "torchtune"
    return d["memory"]["step"]["peak_allocated_bytes"]


def test_output_as_its_own_unit_frees_its_gradient_early(tmp_path):
    root = _step(tmp_path, "")
    own = _step(tmp_path, "custom_sharded_layers: ['tok_embeddings', 'output']\n")
    # Llama-3.1-8B: output 128256 x 4096 bf16 gradient = 1.05 GB in the root unit, through the whole backward; as its
    # own unit it exists only in the loss's backward, before any layer's unsharded gradient (218M params x 2 B):
    # what stays at the peak is the excess, 1.05 GB - 0.44 GB
    head, layer = 128256 * 4096 * 2, 218_112_000 * 2
    assert 0.9 * (root - own) < min(head, layer) < 1.1 * (root - own) + 2**20


def test_the_bundle_shards_the_output_on_its_own(tmp_path):
    import yaml

    from rocm_tune.core.export import ExportOptions, write_bundle
    from rocm_tune.core.model.architecture import load_model
    from rocm_tune.core.plan.planner import PlanRequest, plan
    from rocm_tune.profiles.gpu_profiles import get_gpu_profile
    from rocm_tune.train.tiny import make_tiny_dataset

    res = plan(PlanRequest(model=load_model("llama-3.1-70b"), gpu=get_gpu_profile("rtx3090"), gpus=2, nodes=1,
                           method="full", runner="builtin", model_ref="llama-3.1-70b", precision="fp32", stage="sft"))
    data = make_tiny_dataset(str(tmp_path / "d.json"), n=8)
    out = tmp_path / "b"
    write_bundle(res.plan, "torchtune", str(out), opts=ExportOptions(bundle_dir=str(out)), dataset=str(data))
    written = yaml.safe_load((out / "torchtune.yaml").read_text())
    assert written["custom_sharded_layers"] == ["tok_embeddings", "output"]
    # and the bundle's own check agrees with its plan (the root unit's 4.2 GB fp32 output gradient made it OOM)
    d = check([str(out / "torchtune.yaml"), str(out / "tune_run.sh")], gpu_id="rtx3090").to_dict()
    assert d["verdict"] == "fits" and d["assumptions"] == []
