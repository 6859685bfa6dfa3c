# train_grpo.py -- GRPO on GSM8K with TRL (reward functions after the Unsloth Qwen2.5 GRPO notebook)
import argparse
import re

from datasets import load_dataset
from trl import GRPOConfig, GRPOTrainer

SYSTEM_PROMPT = """Respond in the following format:
<reasoning>
...
</reasoning>
<answer>
...
</answer>"""


def extract_hash_answer(text):
    return text.split("####")[1].strip() if "####" in text else None


def get_gsm8k(split="train"):
    data = load_dataset("openai/gsm8k", "main")[split]
    return data.map(lambda x: {
        "prompt": [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": x["question"]}],
        "answer": extract_hash_answer(x["answer"]),
    })


def correctness_reward_func(prompts, completions, answer, **kwargs):
    responses = [c[0]["content"] for c in completions]
    extracted = [r.split("<answer>")[-1].split("</answer>")[0].strip() for r in responses]
    return [2.0 if r == a else 0.0 for r, a in zip(extracted, answer)]


def soft_format_reward_func(completions, **kwargs):
    pattern = r"<reasoning>.*?</reasoning>\s*<answer>.*?</answer>"
    return [0.5 if re.match(pattern, c[0]["content"], flags=re.S) else 0.0 for c in completions]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--model_name_or_path", default="Qwen/Qwen2.5-1.5B-Instruct")
    p.add_argument("--max_steps", type=int, default=200)
    p.add_argument("--train_epoch", type=int, default=1)
    p.add_argument("--report_to", default="none")
    a = p.parse_args()

    args = GRPOConfig(
        output_dir="outputs/Qwen2.5-1.5B-GRPO",
        learning_rate=5e-6,
        lr_scheduler_type="cosine",
        warmup_ratio=0.1,
        bf16=True,
        num_train_epochs=a.train_epoch,
        max_steps=a.max_steps,
        beta=0.04,
        max_grad_norm=0.1,
        use_vllm=True,                 # generations come from `trl vllm-serve` on GPU 0
        logging_steps=1,
        report_to=a.report_to,
    )
    trainer = GRPOTrainer(
        model=a.model_name_or_path,
        reward_funcs=[soft_format_reward_func, correctness_reward_func],
        args=args,
        train_dataset=get_gsm8k(),
    )
    trainer.train()


if __name__ == "__main__":
    main()
