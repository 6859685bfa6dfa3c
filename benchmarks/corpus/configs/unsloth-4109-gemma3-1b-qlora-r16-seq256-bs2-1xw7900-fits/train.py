# Repro / test script (unsloth PR #4029 "Fix Gemma3 NaN losses on ROCm by disabling
# torch.compile for RDNA GPUs"; re-tested in PR #4109 on a Radeon PRO W7900, ROCm 7.1)
from unsloth import FastLanguageModel
from trl import SFTTrainer, SFTConfig
from datasets import Dataset

ds = Dataset.from_list([{"text": "Q: Hi\nA: Hello!"}] * 20)
m, t = FastLanguageModel.from_pretrained(
    "unsloth/gemma-3-1b-pt", max_seq_length=256, dtype=None, load_in_4bit=True,
)
m = FastLanguageModel.get_peft_model(m, r=16,
    target_modules=["q_proj","k_proj","v_proj","o_proj","gate_proj","up_proj","down_proj"],
    use_gradient_checkpointing="unsloth",
)
trainer = SFTTrainer(model=m, tokenizer=t, train_dataset=ds,
    args=SFTConfig(output_dir="./out", max_steps=3, bf16=True,
        per_device_train_batch_size=2, dataset_text_field="text",
        max_seq_length=256, report_to="none"))
trainer.train()
