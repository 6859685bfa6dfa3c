# Yuan2.0-2B LoRA (bf16 notebook) - self-llm models/Yuan2.0/05, notebook code cells in order up to trainer.train()

# %% [cell 3]
import pandas as pd
from datasets import Dataset
from transformers import LlamaTokenizer, AutoModelForCausalLM, DataCollatorForSeq2Seq, TrainingArguments, Trainer

# %% [cell 4]
# 将JSON文件转换为CSV文件
df = pd.read_json('../dataset/huanhuan-100.json')
ds = Dataset.from_pandas(df)

# %% [cell 5]
ds[:2]

# %% [cell 7]
path = '/root/autodl-fs/YuanLLM/Yuan2-2B-Mars-hf'

tokenizer = LlamaTokenizer.from_pretrained(path, add_eos_token=False, add_bos_token=False, eos_token='<eod>')
tokenizer.add_tokens(['<sep>', '<pad>', '<mask>', '<predict>', '<FIM_SUFFIX>', '<FIM_PREFIX>', '<FIM_MIDDLE>','<commit_before>','<commit_msg>','<commit_after>','<jupyter_start>','<jupyter_text>','<jupyter_code>','<jupyter_output>','<empty_output>'], special_tokens=True)
tokenizer.pad_token = tokenizer.eos_token

# %% [cell 8]
def process_func(example):
    MAX_LENGTH = 384    # Llama分词器会将一个中文字切分为多个token，因此需要放开一些最大长度，保证数据的完整性

    instruction = tokenizer(f"{example['instruction']}<sep>")
    response = tokenizer(f"{example['output']}<eod>")
    input_ids = instruction["input_ids"] + response["input_ids"]
    attention_mask = [1] * len(input_ids) 
    labels = [-100] * len(instruction["input_ids"]) + response["input_ids"] # instruction 不计算loss

    if len(input_ids) > MAX_LENGTH:  # 做一个截断
        input_ids = input_ids[:MAX_LENGTH]
        attention_mask = attention_mask[:MAX_LENGTH]
        labels = labels[:MAX_LENGTH]

    return {
        "input_ids": input_ids,
        "attention_mask": attention_mask,
        "labels": labels
    }

# %% [cell 9]
tokenized_id = ds.map(process_func, remove_columns=ds.column_names)
tokenized_id

# %% [cell 10]
tokenizer.decode(tokenized_id[0]['input_ids'])

# %% [cell 11]
tokenizer.decode(list(filter(lambda x: x != -100, tokenized_id[0]["labels"])))

# %% [cell 13]
import torch

model = AutoModelForCausalLM.from_pretrained(path, device_map="auto", torch_dtype=torch.bfloat16, trust_remote_code=True)
model

# %% [cell 14]
model.enable_input_require_grads() # 开启梯度检查点时，要执行该方法

# %% [cell 15]
model.dtype

# %% [cell 17]
from peft import LoraConfig, TaskType, get_peft_model

config = LoraConfig(
    task_type=TaskType.CAUSAL_LM, 
    target_modules=["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"],
    inference_mode=False, # 训练模式
    r=8, # Lora 秩
    lora_alpha=32, # Lora alaph，具体作用参见 Lora 原理
    lora_dropout=0.1# Dropout 比例
)
config

# %% [cell 18]
model = get_peft_model(model, config)
config

# %% [cell 19]
model.print_trainable_parameters()

# %% [cell 20]
model.dtype

# %% [cell 22]
args = TrainingArguments(
    output_dir="./output/Yuan2.0-2B_lora_bf16",
    per_device_train_batch_size=4,
    gradient_accumulation_steps=1,
    logging_steps=10,
    num_train_epochs=3,
    save_steps=10, # 为了快速演示，这里设置10，建议你设置成100
    learning_rate=5e-5,
    save_on_each_node=True,
    gradient_checkpointing=True
)

# %% [cell 23]
trainer = Trainer(
    model=model,
    args=args,
    train_dataset=tokenized_id,
    data_collator=DataCollatorForSeq2Seq(tokenizer=tokenizer, padding=True),
)

# %% [cell 24]
trainer.train()
