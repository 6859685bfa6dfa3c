# copy-paste from README, single GPU
# (trl#5697 / #5759: max_completion_length raised from the default 256 to 1024)
from datasets import load_dataset
from trl import GRPOConfig, GRPOTrainer
from trl.rewards import accuracy_reward

dataset = load_dataset("trl-lib/DeepMath-103K", split="train")

training_args = GRPOConfig(
    output_dir="output",
    # all defaults: per_device_train_batch_size=8, num_generations=8
    max_completion_length=1024,
    logging_steps=1,
)

trainer = GRPOTrainer(
    model="Qwen/Qwen2.5-0.5B-Instruct",
    reward_funcs=accuracy_reward,
    train_dataset=dataset,
    args=training_args,
)
trainer.train()
