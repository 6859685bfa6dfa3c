"""c-gross (issue 26): fitting runs read as OOM by a wide margin - what the reader took wrongly, from the runners' source.

* torchtune without tokenizer.max_seq_len truncates no sample (torchtune/modules/transforms/tokenizers/_utils.py:
  `if max_seq_len is not None`): the 2048 tokens counted then are a guess, neither a cap nor the worst case, and an
  OOM only there is no answer - the data's longest sample decides (said, with the length that fits). A set cap, an
  OOM whatever the length, or named data with a sourced length still answer.
* torchtune's CEWithChunkedOutputLoss (torchtune/modules/loss/ce_chunked_output_loss.py) holds the 16-bit logits and
  each chunk's fp32 log-softmax, one chunk's fp32 upcast at a time, and the recipe frees the logits before the
  backward: 6 + 4/n bytes per logit at the forward's peak, 4 + 10/n in the backward - not the whole fp32 copy.
* a readable file gets an answer, never an error: a .py of a notebook's cells without its import cell (TRL's
  SFTConfig / SFTTrainer calls) is read as a program; a JAX program is said unknown, with its reason.
Configs are torchtune's own recipes (recipes/configs at v0.5.0) with the overrides its docs show, not corpus cases.
"""

from __future__ import annotations

from rocm_tune.cli import main
from rocm_tune.core.check.check import check

# pytorch/torchtune v0.5.0 recipes/configs/llama3_1/8B_full.yaml (its data swapped for the text-completion builder the
# torchtune docs show for a local JSON file: no named data, so nothing bounds the samples' length)
TT_8B_FULL = """\
output_dir: /tmp/torchtune/llama3_1_8B/full
tokenizer:
  _component_: torchtune.models.llama3.llama3_tokenizer
  path: /tmp/Meta-Llama-3.1-8B-Instruct/original/tokenizer.model
  max_seq_len: {max_seq_len}
dataset:
  _component_: torchtune.datasets.text_completion_dataset
  source: json
  data_files: my_corpus.json
  column: text
  split: train
  packed: False
seed: null
shuffle: True
model:
  _component_: torchtune.models.llama3_1.llama3_1_8b
checkpointer:
  _component_: torchtune.training.FullModelHFCheckpointer
  checkpoint_dir: /tmp/Meta-Llama-3.1-8B-Instruct/
  checkpoint_files: [model-00001-of-00004.safetensors, model-00002-of-00004.safetensors,
                     model-00003-of-00004.safetensors, model-00004-of-00004.safetensors]
  recipe_checkpoint: null
  output_dir: ${{output_dir}}
  model_type: LLAMA3
resume_from_checkpoint: False
batch_size: {batch_size}
epochs: 1
optimizer:
  _component_: torch.optim.AdamW
  lr: 2e-5
  fused: True
loss:
  _component_: torchtune.modules.loss.{loss}
max_steps_per_epoch: null
compile: False
optimizer_in_bwd: False
gradient_accumulation_steps: 1
device: cuda
enable_activation_checkpointing: True
enable_activation_offloading: False
custom_sharded_layers: ['tok_embeddings', 'output']
dtype: bf16
"""


def _tt(tmp_path, *, max_seq_len="null", batch_size=2, loss="CEWithChunkedOutputLoss", gpus=8, extra=""):
    cfg = tmp_path / "8B_full.yaml"
    cfg.write_text(TT_8B_FULL.format(max_seq_len=max_seq_len, batch_size=batch_size, loss=loss))
    run = tmp_path / "run.sh"
    run.write_text(f"tune run --nproc_per_node {gpus} full_finetune_distributed --config 8B_full.yaml {extra}\n")
    return [str(run), str(cfg)]


# --- torchtune: no max_seq_len, the length counted is a guess ------------------------------------------------------

def test_untruncated_oom_only_at_the_guessed_length_is_unknown(tmp_path):
    # batch 128 of 8B full over 8 MI300X: OOM at the 2048 tokens assumed, fits at a shorter longest sample
    rep = check(_tt(tmp_path, batch_size=128), gpu_id="mi300x", gpus=8)
    assert rep.cfg.cutoff_len == 2048
    assert rep.verdict == "unknown"
    assert "the data's longest sample decides" in rep.reason and "tokenizer.max_seq_len" in rep.reason
    fit = int(rep.reason.split("stays within ")[1].split()[0])
    assert 0 < fit < 2048
    # the length it names does fit: capped there, the same config answers fits
    capped = check(_tt(tmp_path, max_seq_len=fit, batch_size=128), gpu_id="mi300x", gpus=8)
    assert capped.verdict == "fits"


def test_a_set_max_seq_len_is_a_cap_and_still_answers_oom(tmp_path):
    rep = check(_tt(tmp_path, max_seq_len=2048, batch_size=128), gpu_id="mi300x", gpus=8)
    assert rep.verdict == "oom" and rep.oom_phase in ("step", "eval")


def test_untruncated_oom_whatever_the_length_stays_oom(tmp_path):
    # full 8B (bf16 weights, gradients, AdamW state: 64 GiB of states) on one 24 GB card: no sample length fits
    rep = check(_tt(tmp_path, batch_size=2, gpus=1), gpu_id="rtx4090", gpus=1)
    assert rep.verdict == "oom"


def test_untruncated_fit_is_still_fits(tmp_path):
    rep = check(_tt(tmp_path, batch_size=2), gpu_id="mi300x", gpus=8)
    assert rep.verdict == "fits"


def test_command_line_max_seq_len_override_is_a_cap(tmp_path):
    # the README form: `tokenizer.max_seq_len=$SEQ_LEN` on the tune run line sets the cap
    rep = check(_tt(tmp_path, batch_size=128, extra="tokenizer.max_seq_len=4096"), gpu_id="mi300x", gpus=8)
    assert rep.cfg.cutoff_len == 4096 and rep.verdict == "oom"


# --- torchtune: CEWithChunkedOutputLoss counted from its source ----------------------------------------------------

def test_chunked_output_loss_bytes_per_logit(tmp_path):
    rep = check(_tt(tmp_path, max_seq_len=2048, batch_size=8), gpu_id="mi300x", gpus=8)
    # 8 chunks (the class default): forward 6 + 4/8 = 6.5 B, backward 4 + 10/8 = 5.25 B per logit, in 2-byte copies
    assert rep.cfg.logits_16bit_loss == (3.25, 2.625)
    assert any("CEWithChunkedOutputLoss (8 chunks)" in n for n in rep.est_notes + rep.job.notes)
    assert not any(f.code == "kernels-not-modelled" and "cut_cross_entropy" in f.message for f in rep.findings)


def test_chunked_output_loss_num_chunks_read(tmp_path):
    files = _tt(tmp_path, max_seq_len=2048, batch_size=8)
    text = open(files[1]).read().replace("loss.CEWithChunkedOutputLoss",
                                         "loss.CEWithChunkedOutputLoss\n  num_output_chunks: 16")
    open(files[1], "w").write(text)
    rep = check(files, gpu_id="mi300x", gpus=8)
    assert rep.cfg.logits_16bit_loss == (3.125, 2.3125)


def test_chunked_loss_needs_less_step_memory_than_plain_cross_entropy(tmp_path):
    chunked = check(_tt(tmp_path, max_seq_len=2048, batch_size=8), gpu_id="mi300x", gpus=8)
    plain = check(_tt(tmp_path, max_seq_len=2048, batch_size=8, loss="CrossEntropyLoss"), gpu_id="mi300x", gpus=8)
    assert plain.cfg.logits_16bit_loss is None
    logits = 8 * 2048 * 128256
    saved = plain.memory["step"]["peak_allocated_bytes"] - chunked.memory["step"]["peak_allocated_bytes"]
    # the whole fp32 copy and log-softmax (12 B per logit in the backward) against 6.5 B at the chunked forward
    assert 0.5 * 5.5 * logits < saved <= 5.5 * logits * 1.01


# --- a readable file is answered -----------------------------------------------------------------------------------

NOTEBOOK_CELLS = '''\
# a notebook's cells saved as a .py: its import cell and its download cell were not kept
MODEL_ID = "Qwen/Qwen2.5-0.5B-Instruct"
base_model = AutoModelForCausalLM.from_pretrained(MODEL_ID, torch_dtype=torch.bfloat16)
lora_config = LoraConfig(r=16, lora_alpha=32, lora_dropout=0.05, task_type="CAUSAL_LM", target_modules="all-linear")
training_args = SFTConfig(
    output_dir="out",
    per_device_train_batch_size=4,
    gradient_accumulation_steps=4,
    gradient_checkpointing=True,
    bf16=True,
    max_length=512,
)
trainer = SFTTrainer(model=base_model, train_dataset=ds["train"], peft_config=lora_config, args=training_args,
                     processing_class=tokenizer)
trainer.train()
'''


def test_notebook_cells_without_imports_are_read_as_a_program(tmp_path):
    prog = tmp_path / "sft_cells.py"
    prog.write_text(NOTEBOOK_CELLS)
    rep = check([str(prog)], gpu_id="mi300x", gpus=1)
    assert rep.runner == "hf"
    assert rep.cfg is not None and rep.cfg.micro_batch == 4 and rep.cfg.cutoff_len == 512
    assert rep.cfg.method == "lora" and rep.cfg.lora_rank == 16
    assert rep.verdict == "fits"


def test_a_py_of_constants_only_is_still_not_a_training(tmp_path, capsys):
    consts = tmp_path / "settings.py"
    consts.write_text('OUTPUT_DIR = "out"\nSEED = 42\n')
    assert main(["check", str(consts), "--gpu", "mi300x", "--json", "--no-app"]) == 2
    assert "nothing in it is a training config" in capsys.readouterr().err


def test_jax_program_without_imports_is_unknown_not_an_error(tmp_path, capsys):
    # felafax-style trainer cells: optax / jax calls, no imports kept
    prog = tmp_path / "llama_lora_jax.py"
    prog.write_text("trainer_config = TrainerConfig(batch_size=16, seq_length=64)\n"
                    "optimizer = optax.sgd(learning_rate=1e-3)\n"
                    "mesh = jax.sharding.Mesh(devices, ('dp', 'fsdp', 'mp'))\n"
                    "trainer = Trainer(trainer_config=trainer_config, optimizer=optimizer, mesh=mesh)\n"
                    "trainer.train()\n")
    rep = check([str(prog)], gpu_id="mi300x")
    assert rep.verdict == "unknown" and "JAX/Flax program" in rep.reason
    assert main(["check", str(prog), "--gpu", "mi300x", "--json", "--no-app"]) == 1
    assert "Traceback" not in capsys.readouterr().err


# modelscope's / the hub's download-then-load pattern (modelscope snapshot_download(model_id) returns the local folder)
DOWNLOAD_THEN_LOAD = '''\
from modelscope import snapshot_download
from transformers import AutoModelForCausalLM, AutoTokenizer
from peft import LoraConfig
from trl import SFTConfig, SFTTrainer

MODEL_ID = "Qwen/Qwen2.5-7B-Instruct"
{second}
model_dir = snapshot_download(MODEL_ID)
model = AutoModelForCausalLM.from_pretrained(model_dir, torch_dtype=torch.bfloat16)
args = SFTConfig(output_dir="out", per_device_train_batch_size=2, gradient_checkpointing=True, bf16=True,
                 max_length=1024)
trainer = SFTTrainer(model=model, train_dataset=ds, args=args,
                     peft_config=LoraConfig(r=8, target_modules="all-linear", task_type="CAUSAL_LM"))
trainer.train()
'''


def test_model_loaded_from_its_download_folder_is_the_id_downloaded(tmp_path):
    prog = tmp_path / "sft.py"
    prog.write_text(DOWNLOAD_THEN_LOAD.format(second=""))
    rep = check([str(prog)], gpu_id="mi300x", gpus=1)
    assert rep.model is not None and rep.model.name == "qwen2.5-7b"
    assert any("from_pretrained(model_dir)" in n and "Qwen/Qwen2.5-7B-Instruct" in n for n in rep.job.notes)
    assert rep.verdict == "fits"


def test_two_model_ids_are_not_guessed_between(tmp_path):
    prog = tmp_path / "sft.py"
    prog.write_text(DOWNLOAD_THEN_LOAD.format(second='DRAFT_MODEL_ID = "Qwen/Qwen2.5-0.5B-Instruct"'))
    rep = check([str(prog)], gpu_id="mi300x", gpus=1)
    assert rep.model is None and rep.verdict == "unknown"
