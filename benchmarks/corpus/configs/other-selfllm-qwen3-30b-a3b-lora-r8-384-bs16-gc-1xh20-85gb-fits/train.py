# Qwen3-30B-A3B LoRA (self-llm models/Qwen3/06, notebook code cells in order, up to trainer.train())

# %% [cell 1]
from datasets import Dataset
import pandas as pd
from transformers import AutoTokenizer, AutoModelForCausalLM, DataCollatorForSeq2Seq, TrainingArguments, Trainer, GenerationConfig

# %% [cell 2]
# 将JSON文件转换为CSV文件
df = pd.read_json('dataset/huanhuan.json')
ds = Dataset.from_pandas(df)

# %% [cell 3]
ds[:3]

# %% [cell 5]
model_path = 'Qwen/Qwen3-30B-A3B'
tokenizer = AutoTokenizer.from_pretrained(model_path, use_fast=False, trust_remote_code=True)

# %% [cell 6]
# 使用tokenizer构建messages并打印， 查看chat_template的输出格式
messages = [
    {"role": "system", "content": "You are a helpful assistant."},
    {"role": "user", "content": "你好，你是谁？"},
    {"role": "assistant", "content": "我是一个AI助手，旨在帮助你解决问题"},
]

# %% [cell 8]
# 使用chat_template将messages格式化并打印
text = tokenizer.apply_chat_template(
    messages,
    tokenize=False,
    add_generation_prompt=True,
    enable_thinking=False
)

print(text)

# %% [cell 9]
# 使用chat_template将messages格式化并打印
text = tokenizer.apply_chat_template(
    messages,
    tokenize=False,
    add_generation_prompt=True,
    enable_thinking=True
)

print(text)

# %% [cell 10]
def process_func(example):
    MAX_LENGTH = 384    # 分词器会将一个中文字切分为多个token，因此需要放开一些最大长度，保证数据的完整性
    input_ids, attention_mask, labels = [], [], []
    # 构建指令部分的输入, 可参考上面的输出格式进行调整和补充
    instruction = tokenizer(
        f"<s><|im_start|>system\n现在你要扮演皇帝身边的女人--甄嬛<|im_end|>\n" 
        f"<|im_start|>user\n{example['instruction'] + example['input']}<|im_end|>\n"  
        f"<|im_start|>assistant\n<think>\n\n</think>\n\n",  
        add_special_tokens=False   
    )
    response = tokenizer(f"{example['output']}", add_special_tokens=False)
    # 拼接指令和回复部分的 input_ids
    input_ids = instruction["input_ids"] + response["input_ids"] + [tokenizer.pad_token_id]
    attention_mask = instruction["attention_mask"] + response["attention_mask"] + [1]  # 因为eos token咱们也是要关注的所以 补充为1
    # 构建标签
    # 对于指令部分，使用 -100 忽略其损失计算；对于回复部分，保留其 input_ids 作为标签
    labels = [-100] * len(instruction["input_ids"]) + response["input_ids"] + [tokenizer.pad_token_id]  
    # 如果总长度超过最大长度，进行截断
    if len(input_ids) > MAX_LENGTH:
        input_ids = input_ids[:MAX_LENGTH]
        attention_mask = attention_mask[:MAX_LENGTH]
        labels = labels[:MAX_LENGTH]
    return {
        "input_ids": input_ids,
        "attention_mask": attention_mask,
        "labels": labels
    }

# %% [cell 11]
tokenized_id = ds.map(process_func, remove_columns=ds.column_names)
tokenized_id

# %% [cell 12]
# 解码输入
print(tokenizer.decode(tokenized_id[0]['input_ids']))

# %% [cell 13]
# 解码标签, 过滤掉-100
print(tokenizer.decode(list(filter(lambda x: x != -100, tokenized_id[1]["labels"]))))

# %% [cell 15]
import torch

model = AutoModelForCausalLM.from_pretrained(model_path, device_map="auto",
                                             torch_dtype=torch.bfloat16, 
                                             trust_remote_code=True)
model

# %% [cell 16]
model.enable_input_require_grads() # 开启梯度检查点时，要执行该方法

# %% [cell 17]
model.dtype

# %% [cell 19]
from peft import LoraConfig, TaskType, get_peft_model

config = LoraConfig(
    task_type=TaskType.CAUSAL_LM, 
    target_modules=["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"],  # 可以自行添加更多微调的target_modules
    inference_mode=False,   # 训练模式
    r=8,                    # Lora 秩
    lora_alpha=32,          # Lora alaph，具体作用参见 Lora 原理
    lora_dropout=0.1        # Dropout 比例
)
config

# %% [cell 20]
model = get_peft_model(model, config)
config

# %% [cell 21]
model.print_trainable_parameters()

# %% [cell 23]
args = TrainingArguments(
    output_dir="./output/Qwen3_30B_A3B_lora",
    per_device_train_batch_size=16,
    gradient_accumulation_steps=1,
    logging_steps=10,
    num_train_epochs=1,
    save_steps=100, 
    learning_rate=1e-4,
    save_on_each_node=True,
    gradient_checkpointing=True,
    report_to="none",
)

# %% [cell 24]
import swanlab
from swanlab.integration.transformers import SwanLabCallback

# 实例化SwanLabCallback
swanlab_callback = SwanLabCallback(
    project="Qwen3-8B", 
    experiment_name="Qwen3_30B_A3B-Lora"
)

# %% [cell 25]
trainer = Trainer(
    model=model,
    args=args,
    train_dataset=tokenized_id,
    data_collator=DataCollatorForSeq2Seq(tokenizer=tokenizer, padding=True),
    callbacks=[swanlab_callback]
)

# %% [cell 26]
trainer.train()
