# Felafax: LoRA fine-tuning of Llama 3.1 405B in JAX on one node of 8 x AMD MI300X (TensorWave), Sep 22 2024
# run data: misc/tests/amd_405b_run_sep22/rocm_smi_cleaned_405b_batchsize16_seqlen64.csv
MODEL_NAME = "llama-3.1-405B-Instruct-JAX"

@chex.dataclass(frozen=True)
class TrainerConfig:
    learning_rate: float = 1e-4
    num_epochs: int = 1
    max_steps: int | None = 100
    batch_size: int = 16
    seq_length: int = 64
    dataset_size_limit: int | None = None
    print_every_n_steps: int = 5
    eval_every_n_steps: int = 1000
    max_eval_steps: int | None = 1


trainer_config = TrainerConfig()
optimizer = optax.sgd(trainer_config.learning_rate)

# parameters sharded over a ("dp", "fsdp", "mp") mesh of the 8 GPUs; LoRA A/B matrices:
#   (".*lora_a", PS("fsdp", "mp")), (".*lora_b", PS("mp", "fsdp"))
trainer = trainer_lib.CausalLMTrainer(
    model=model,
    model_ckpt_path=model_path,
    model_configurator=model_configurator,
    optimizer=optimizer,
    training_config=trainer_config,
    mesh=jax_utils.MESH,
    model_name=MODEL_NAME,
)
