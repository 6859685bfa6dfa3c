# DeepSeek-R1-0528-Qwen3-8B GRPO with Unsloth + vLLM (self-llm models/DeepSeek-R1-Distill-Qwen/05, notebook code cells in order up to trainer.train())

# %% [cell 0]
# ==================================================
# 安装 unsloth 与指定版本 vllm 的依赖。
# ==================================================

# pip install unsloth vllm==0.8.5.post1

# %% [cell 1]
# ==================================================
# 安装 langid 库，用于语言检测。
# ==================================================

# pip install langid -qq

# %% [cell 2]
# ==================================================
# 导入 Unsloath 的 FastLanguageModel，并加载本地 Qwen3-8B 模型；同时设置最大序列长度与 LoRA Rank。
# ==================================================

from unsloth import FastLanguageModel
import torch
max_seq_length = 1024 # 对于reasoning场景下，可以设置的更长
lora_rank = 32 

model, tokenizer = FastLanguageModel.from_pretrained(
    model_name = "deepseek-ai/DeepSeek-R1-0528-Qwen3-8B",
    max_seq_length = max_seq_length,
    load_in_4bit = True,
    fast_inference = True,
    max_lora_rank = lora_rank,
    gpu_memory_utilization = 0.7,
)

model = FastLanguageModel.get_peft_model(
    model,
    r = lora_rank,
    target_modules = [
        "q_proj", "k_proj", "v_proj", "o_proj",
        "gate_proj", "up_proj", "down_proj",
    ],
    lora_alpha = lora_rank*2,
    use_gradient_checkpointing = "unsloth",
)

# %% [cell 3]
# ==================================================
# 通过 huggingface-cli 从 Hugging Face 下载数据集文件至本地路径。
# ==================================================

huggingface-cli download --resume-download --repo-type dataset open-r1/DAPO-Math-17k-Processed --local-dir open-r1/DAPO-Math-17k-Processed

# %% [cell 5]
# ==================================================
# 初始化聊天模板的相关标记变量，如 reasoning_start、reasoning_end、user_token 等。
# ==================================================

reasoning_start = None
reasoning_end = None
user_token = None
assistant_token = None

for token in tokenizer.get_added_vocab().keys():
    if "think" in token and "/" in token:
        reasoning_end = token
    elif "think" in token:
        reasoning_start = token
    elif "user" in token:
        user_token = token
    elif "assistant" in token:
        assistant_token = token

system_prompt = \
f"""You are given a problem.
Think about the problem and provide your working out.
You must think in Bahasa Indonesia."""
system_prompt

# %% [cell 6]
# ==================================================
# 演示使用 tokenizer.apply_chat_template 将多轮消息转换为模型可用的 token。
# ==================================================

print(tokenizer.apply_chat_template([
    {"role" : "user", "content" : "What is 1+1?"},
    {"role" : "assistant", "content" : f"<think>I think it's 2.2</think>2"},
    {"role" : "user", "content" : "What is 1+1?"},
    {"role" : "assistant", "content" : f"<think>I think it's 2.2</think>2"},
], tokenize = False, add_generation_prompt = True))

# %% [cell 8]
# ==================================================
# 加载 Open R1 Math 数据集，并查看数据集对象。
# ==================================================

from datasets import load_dataset
dataset = load_dataset("/opt/tiger/test0/open-r1/DAPO-Math-17k-Processed", "en", split = "train")
dataset

# %% [cell 10]
# ==================================================
# 打印首条样本的用户 prompt。
# ==================================================

dataset[0]["prompt"]

# %% [cell 11]
# ==================================================
# 打印首条样本的标准答案 solution。
# ==================================================

dataset[0]["solution"]

# %% [cell 13]
# ==================================================
# 定义 extract_hash_answer 函数，用于从答案字符串中提取 '####' 后的数字；随后进行示例验证。
# ==================================================

def extract_hash_answer(text):
    # if "####" not in text: return None
    # return text.split("####")[1].strip()
    return text
extract_hash_answer(dataset[0]["solution"])

# %% [cell 15]
# ==================================================
# 对数据集进行 map 转换，生成带系统提示、用户提示及提取后的答案字段的新数据集。
# ==================================================

dataset = dataset.map(lambda x: {
    "prompt" : [
        {"role": "system", "content": system_prompt},
        {"role": "user",   "content": x["prompt"]},
    ],
    "answer": extract_hash_answer(x["solution"]),
})
dataset[0]

# %% [cell 17]
# ==================================================
# 引入正则表达式，定义 solution_end_regex 以及辅助语言检测函数。
# ==================================================

import re

# Add optional EOS token matching
solution_end_regex = rf"{reasoning_end}(.*)"

match_format = re.compile(solution_end_regex, re.DOTALL)
match_format

# %% [cell 19]
# ==================================================
# 使用 match_format 正则，对示例字符串进行格式匹配测试（未加 <think> 标签）。
# ==================================================

match_format.findall(
    "Let me think!</think>"\
    f"Hence, the solution is 2.",
)

# %% [cell 20]
# ==================================================
# 使用 match_format 正则，对示例字符串进行格式匹配测试（含 <think> 标签）。
# ==================================================

match_format.findall(
    "<think>Let me think!</think>"\
    f"\n\nHence, the solution is 2",
)

# %% [cell 22]
# ==================================================
# 定义 match_format_exactly 函数：若返回内容严格符合模板格式，则给予高奖励。
# ==================================================

def match_format_exactly(completions, **kwargs):
    scores = []
    for completion in completions:
        score = 0
        response = completion[0]["content"]
        if match_format.search(response) is not None: score += 3.0
        scores.append(score)
    return scores

# %% [cell 24]
# ==================================================
# 定义 match_format_approximately 函数：当模板部分符合时，以符号数量作为次级奖励。
# ==================================================

def match_format_approximately(completions, **kwargs):
    scores = []
    for completion in completions:
        score = 0
        response = completion[0]["content"]
        score += 0.5 if response.count(reasoning_start) == 1 else -1.0
        score += 0.5 if response.count(reasoning_end)   == 1 else -1.0
        scores.append(score)
    return scores

# %% [cell 26]
# ==================================================
# 定义 check_answer 函数：从预测结果里抽取答案，与真值比较并计算分数。
# ==================================================

def check_answer(prompts, completions, answer, **kwargs):
    question = prompts[0][-1]["content"]
    responses = [completion[0]["content"] for completion in completions]

    extracted_responses = [
        guess.group(1)
        if (guess := match_format.search(r)) is not None else None \
        for r in responses
    ]

    scores = []
    for guess, true_answer in zip(extracted_responses, answer):
        score = 0
        if guess is None:
            scores.append(-2.0)
            continue
        # Correct answer gets 5 points!
        if guess == true_answer:
            score += 5.0
        # Match if spaces are seen, but less reward
        elif guess.strip() == true_answer.strip():
            score += 3.5
        else:
            # We also reward it if the answer is close via ratios!
            # Ie if the answer is within some range, reward it!
            try:
                ratio = float(guess) / float(true_answer)
                if   ratio >= 0.9 and ratio <= 1.1: score += 2.0
                elif ratio >= 0.8 and ratio <= 1.2: score += 1.5
                else: score -= 2.5 # Penalize wrong answers
            except:
                score -= 4.5 # Penalize
        scores.append(score)
    return scores

# %% [cell 28]
# ==================================================
# 测试 match_numbers 正则表达式在不同数字字符串上的提取效果。
# ==================================================

match_numbers = re.compile(
    r".*?[\s]{0,}([-]?[\d\.\,]{1,})",
    flags = re.MULTILINE | re.DOTALL
)
print(match_numbers.findall("  0.34  "))
print(match_numbers.findall("  123,456  "))
print(match_numbers.findall("  -0.234  "))
print(match_numbers.findall("17"))

# %% [cell 30]
# ==================================================
# 使用 langid 库定义 get_lang 函数，检测输入文本的语言类别。
# ==================================================

import langid

def get_lang(text: str) -> str:
    if not text:
        return "und"
    lang, _ = langid.classify(text)
    return lang


print(get_lang("Hello, How are you")) # This should return en
print(get_lang("Aku berpikir kalau aku adalah kamu")) # This should return id
print(get_lang("我在这里")) # This should return zh

# %% [cell 31]
# ==================================================
# 定义 format_and_language_reward_func：综合格式匹配与目标语言一致性进行奖励。
# ==================================================

import re

def format_and_language_reward_func(completions, **kwargs):
    scores = []

    for completion_item in completions:
        if not completion_item or not isinstance(completion_item[0], dict) or "content" not in completion_item[0]:
            scores.append(-5.0)
            print(f"Warning: Malformed completion item, assigning default low score: {completion_item}")
            continue

        content = completion_item[0]["content"]

        lang = get_lang(content)

        if lang == 'id':
            score = 5.0
        elif lang == 'en':
            score = -3.0
        elif lang == 'zh':
            score = -3.0
        else:
            score = -5.0

        scores.append(score)

    return scores

# %% [cell 32]
# ==================================================
# 示例：调用 format_and_language_reward_func 并打印得分结果。
# ==================================================

prompts = [
    [{"role": "assistant", "content": "What is the result of (1 + 2) * 4?"}],
    [{"role": "assistant", "content": "What is the result of (3 + 1) * 2?"}],
]
completions = [
    [{"role": "assistant", "content": "<think>The sum of 1 and 2 is 3, which we multiply by 4 to get 12.</think><answer>(1 + 2) * 4 = 12</answer>"}],
    [{"role": "assistant", "content": "The sum of 3 and 1 is 4, which we multiply by 2 to get 8. So (3 + 1) * 2 = 8."}],
]
format_and_language_reward_func(prompts=prompts, completions=completions)

# %% [cell 34]
# ==================================================
# 定义 check_numbers 函数：比较预测答案与真实数字之间的误差，并打印日志。
# ==================================================

global PRINTED_TIMES
PRINTED_TIMES = 0
global PRINT_EVERY_STEPS
PRINT_EVERY_STEPS = 5

def check_numbers(prompts, completions, answer, **kwargs):
    question = prompts[0][-1]["content"]
    responses = [completion[0]["content"] for completion in completions]

    extracted_responses = [
        guess.group(1)
        if (guess := match_numbers.search(r)) is not None else None \
        for r in responses
    ]

    scores = []
    # Print only every few steps
    global PRINTED_TIMES
    global PRINT_EVERY_STEPS
    if PRINTED_TIMES % PRINT_EVERY_STEPS == 0:
        print(
            '*'*20 + f"Question:\n{question}", f"\nAnswer:\n{answer[0]}", f"\nResponse:\n{responses[0]}", f"\nExtracted:\n{extracted_responses[0]}"
        )
    PRINTED_TIMES += 1

    for guess, true_answer in zip(extracted_responses, answer):
        if guess is None:
            scores.append(-2.5)
            continue
        # Convert to numbers
        try:
            true_answer = float(true_answer.strip())
            # Remove commas like in 123,456
            guess       = float(guess.strip().replace(",", ""))
            scores.append(3.5 if guess == true_answer else -1.5)
        except:
            scores.append(0)
            continue
    return scores

# %% [cell 36]
# ==================================================
# 将数据集文本映射为 tokens，准备训练用的输入。
# ==================================================

tokenized = dataset.map(
    lambda x: {"tokens" : tokenizer.apply_chat_template(x["prompt"], add_generation_prompt = True, tokenize = True)},
    batched = True,
)
print(tokenizer.decode(tokenized[0]["tokens"]))
tokenized = tokenized.map(lambda x: {"L" : len(x["tokens"])})

import numpy as np
maximum_length = int(np.quantile(tokenized["L"], 0.9))
print("Max Length = ", maximum_length)

# Filter only samples smaller than 90% max length
dataset = dataset.select(np.where(np.array(tokenized["L"]) <= maximum_length)[0])
del tokenized

# %% [cell 38]
# ==================================================
# 设置 vLLM 的采样参数，例如 temperature、top_k、最大生成长度等。
# ==================================================

max_prompt_length = maximum_length + 1 # + 1 just in case!
max_completion_length = max_seq_length - max_prompt_length

from vllm import SamplingParams
vllm_sampling_params = SamplingParams(
    min_p = 0.1,
    top_p = 1.0,
    top_k = -1,
    seed = 3407,
    stop = [tokenizer.eos_token],
    include_stop_str_in_output = True,
)

from trl import GRPOConfig, GRPOTrainer
training_args = GRPOConfig(
    vllm_sampling_params = vllm_sampling_params,
    temperature = 1.0,
    learning_rate = 5e-6,
    weight_decay = 0.01,
    warmup_ratio = 0.1,
    lr_scheduler_type = "linear",
    optim = "adamw_8bit",
    logging_steps = 1,
    per_device_train_batch_size = 1,
    gradient_accumulation_steps = 1, # Increase to 4 for smoother training
    num_generations = 4, # Decrease if out of memory
    max_prompt_length = max_prompt_length,
    max_completion_length = max_completion_length,
    # num_train_epochs = 1, # Set to 1 for a full training run
    max_steps = 100,
    save_steps = 100,
    report_to = "swanlab", # Can use Weights & Biases
    output_dir = "outputs",

    # For optional training + evaluation
    # fp16_full_eval = True,
    # per_device_eval_batch_size = 4,
    # eval_accumulation_steps = 1,
    # eval_strategy = "steps",
    # eval_steps = 1,
)

# %% [cell 40]
# ==================================================
# 配置并实例化 GRPOTrainer，其中包含若干奖励函数与训练参数。
# ==================================================

# For optional training + evaluation
# new_dataset = dataset.train_test_split(test_size = 0.01)

trainer = GRPOTrainer(
    model = model,
    processing_class = tokenizer,
    reward_funcs = [
        match_format_exactly,
        match_format_approximately,
        check_answer,
        check_numbers,
        format_and_language_reward_func,
    ],
    args = training_args,
    train_dataset = dataset,

    # For optional training + evaluation
    # train_dataset = new_dataset["train"],
    # eval_dataset = new_dataset["test"],
)
trainer.train()
