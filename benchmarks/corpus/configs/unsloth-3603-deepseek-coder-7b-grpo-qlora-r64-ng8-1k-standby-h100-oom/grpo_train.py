# QLoRA GRPO on deepseek-coder-7b, one H100 80GB
# unsloth==2025.11.3, trl==0.23.0, transformers==4.56.2, torch==2.8.0+cu128
import os
os.environ["UNSLOTH_VLLM_STANDBY"] = "1"

from unsloth import FastLanguageModel
from trl import GRPOConfig, GRPOTrainer


class Runner:
    def __init__(self, model_name, max_seq_length=1536, load_in_4bit=True):
        self.model_name = model_name
        self.max_seq_length = max_seq_length
        self.load_in_4bit = load_in_4bit

    def load_model_and_tokenizer(self):
        print(f"Loading model: {self.model_name}")

        self.model, self.tokenizer = FastLanguageModel.from_pretrained(
            model_name=self.model_name,
            max_seq_length=self.max_seq_length,
            load_in_4bit=self.load_in_4bit,
            fast_inference=True,
            gpu_memory_utilization=0.8,
            local_files_only=True
        )

        self.model = FastLanguageModel.get_peft_model(
            self.model,
            r=64,
            target_modules=["q_proj", "k_proj", "v_proj", "o_proj",
                           "gate_proj", "up_proj", "down_proj"],
            lora_alpha=64,
            use_gradient_checkpointing="unsloth",
            random_state=3407,
        )

    def train(self, dataset, reward_funcs):
        args = GRPOConfig(
            per_device_train_batch_size=1,
            num_generations=8,
            max_prompt_length=512,
            max_completion_length=1024,
            learning_rate=5e-6,
            output_dir="outputs",
        )
        trainer = GRPOTrainer(model=self.model, processing_class=self.tokenizer, reward_funcs=reward_funcs,
                              args=args, train_dataset=dataset)
        trainer.train()


if __name__ == "__main__":
    runner = Runner("deepseek-ai/deepseek-coder-7b-instruct-v1.5")
    runner.load_model_and_tokenizer()
