import re
import json
import argparse

from datasets import Dataset
from trl import GRPOConfig, GRPOTrainer

raw_model_path = "Qwen/Qwen3-0.6B"


def load_data(path):
    # prompts are plain strings, the longest prompt is about 2500 tokens
    with open(path, "r", encoding="utf-8") as f:
        rows = [json.loads(line) for line in f]
    return Dataset.from_list([{"prompt": r["prompt"]} for r in rows])


def end_reward(completions, **kwargs):
    res = []
    for completion in completions:
        if re.match("12345657235252(一|二|三|四)252525252，254(8|3|6|0)25245252225。", completion):
            score = 1
        else:
            score = 0
        res.append(score)
    return res


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", default="data/train.jsonl")
    args = parser.parse_args()
    dataset = load_data(args.data)

    # training_args = GRPOConfig(output_dir="Qwen3-0.6B-GRPO", logging_steps=10)

    trainer = GRPOTrainer(
        model=raw_model_path,
        reward_funcs=end_reward,
        # args=training_args,
        train_dataset=dataset,
    )
    trainer.train()


if __name__ == "__main__":
    main()
