# Code cells of validation/AMD_ROCm_validation.ipynb (atchudhansg/colony-collapse @ 06145a3),
# exported in notebook order; the OpenEnv launch / 2048 renderer / sandbox test cells are omitted.

# In[2]:
from unsloth import FastLanguageModel
import torch
import os

# ============================================================================
# 🔥 ROCm/AMD MI300X OPTIMIZATION - MAX PERFORMANCE MODE 🔥
# ============================================================================

# Force ROCm optimizations
os.environ["PYTORCH_ROCM_ARCH"] = "gfx942"  # MI300X architecture
os.environ["HSA_FORCE_FINE_GRAIN_PCIE"] = "1"
os.environ["NCCL_DEBUG"] = "WARN"

# Enable Flash Attention for AMD
os.environ["ATTN_BACKEND"] = "triton"  # Use Triton for attention on AMD

# Max out GPU utilization (ROCm-compatible settings)
# Note: TF32 is NVIDIA-specific and not available on AMD ROCm
torch.backends.cudnn.benchmark = True  # Auto-tune kernels for optimal performance

print("🚀 ROCm Optimizations Enabled!")
print(f"   GPU: {torch.cuda.get_device_name(0)}")
print(f"   VRAM: {torch.cuda.get_device_properties(0).total_memory / 1024**3:.1f} GB")

# MI300X has 192GB - use it ALL!
max_seq_length = 2048  # Increased from 768 - your game needs longer context
lora_rank = 16         # Increased from 4 - MI300X can handle it!

model, tokenizer = FastLanguageModel.from_pretrained(
    model_name = "unsloth/Meta-Llama-3.1-8B-Instruct",  # CHANGED: Llama instead of GPT-OSS (20x faster!)
    load_in_4bit = False,  # MI300X has 192GB - use full BF16!
    max_seq_length = max_seq_length,
    dtype = torch.bfloat16,  # BF16 for MI300X
    device_map = "auto",  # Let it auto-optimize for MI300X
)

print("✅ Llama 3.1 8B loaded in BF16!")
print("   Why Llama instead of GPT-OSS:")
print("   - GPT-OSS: 3-8 tok/s (chain-of-thought overhead)")
print("   - Llama 3.1 8B: 40-80 tok/s (optimized for speed)")
print("   - 10-20x FASTER for RL training!")

# In[5]:
# ============================================================================
# 🔥 AGGRESSIVE LoRA CONFIG FOR MI300X 🔥
# ============================================================================

model = FastLanguageModel.get_peft_model(
    model,
    r = lora_rank,  # 16 instead of 4 - MI300X can handle it!
    target_modules = [
        "q_proj", "k_proj", "v_proj", "o_proj",
        "gate_proj", "up_proj", "down_proj",
    ],
    lora_alpha = lora_rank * 2,  # 32 for faster convergence
    lora_dropout = 0.0,  # Disable dropout for speed
    use_gradient_checkpointing = "unsloth",  # Memory efficient
    random_state = 3407,
    use_rslora = True,  # Rank-stabilized LoRA for better training
)

# Enable inference mode optimizations
FastLanguageModel.for_inference(model)

print("✅ LoRA configured for MI300X:")
print(f"   LoRA rank: {lora_rank} (4x larger than default)")
print(f"   LoRA alpha: {lora_rank * 2}")
print(f"   Trainable params: ~{lora_rank * 8 * 1024 * 1024 / 1e6:.1f}M")
print(f"   Memory usage: {torch.cuda.memory_allocated() / 1024**3:.1f} GB / 192 GB")

# In[28]:
prompt = """
Create a new short 2048 strategy using only native Python code.
You are given a list of list of numbers for the current board state.
Output one action for "0", "1", "2", "3" on what is the optimal next step.
Output your new short function in backticks using the format below:
```python
def strategy(board):
    return "0" # Example
```
All helper functions should be inside def strategy. Only output the short function `strategy`.
""".strip()
print(prompt)

# In[38]:
def function_works(completions, **kwargs):
    scores = []
    for idx, completion in enumerate(completions):
        score = 0
        response = completion[0]["content"]
        function = extract_function(response)
        
        # Debug: Print first few responses
        if idx < 2:
            print(f"\n🔍 DEBUG Response #{idx}:")
            print(f"   Length: {len(response)} chars")
            print(f"   First 200 chars: {response[:200]}")
            print(f"   Extracted function: {function is not None}")
        
        if function is not None:
            ok, info = check_python_modules(function)
            if "error" in info:
                score = -2.0
            else:
                try:
                    new_strategy = create_locked_down_function(function)
                    score = 1.0
                except Exception as e:
                    if idx < 2:
                        print(f"   ❌ Function creation failed: {str(e)[:100]}")
                    score = -0.5
        else:
            score = -2.0
            if idx < 2:
                print(f"   ❌ No function extracted from response")
        
        scores.append(score)
    
    if scores:
        print(f"\n📊 function_works scores: {scores[:5]}... (avg: {sum(scores)/len(scores):.2f})")
    return scores

# In[39]:
def no_cheating(completions, **kwargs):
    scores = []
    for completion in completions:
        score = 0
        response = completion[0]["content"]
        function = extract_function(response)
        if function is not None:
            ok, info = check_python_modules(function)
            scores.append(1.0 if ok else -20.0)  # Penalize heavily!
        else:
            scores.append(-1.0)  # Failed creating function
    
    if scores:
        print(f"📊 no_cheating scores: {scores[:5]}... (avg: {sum(scores)/len(scores):.2f})")
    return scores

# In[40]:
import numpy as np
global PRINTER
PRINTER = 0
def strategy_succeeds(completions, **kwargs):
    global PRINTER
    scores = []
    for completion in completions:
        printed = False
        score = 0
        response = completion[0]["content"]
        function = extract_function(response)
        if PRINTER % 5 == 0:
            printed = True
            print(function)
        PRINTER += 1
        if function is not None:
            ok, info = check_python_modules(function)
        if function is None or "error" in info:
            scores.append(0)
            continue
        try:
            new_strategy = create_locked_down_function(function)
        except:
            scores.append(0)
            continue
        try:
            # Reset OpenEnv to an initial state!
            global port, openenv_process
            port, openenv_process = launch_openenv(port, openenv_process)
            result = openenv_process.reset()
            current_state = result.observation
            steps, if_done = execute_strategy(new_strategy, current_state)
            print(f"Steps = {steps} If Done = {if_done}")
            if printed is False:
                print(function)
            print(render_board(current_state))
            if if_done:
                scores.append(20.0) # Success - massively reward!
            else:
                scores.append(2.0) # Failed but function works!
        except TimeoutError as e:
            print("Timeout")
            scores.append(-1.0) # Failed with timeout
        except Exception as e:
            print(f"Exception = {str(e)}")
            scores.append(-3.0) # Failed
    return scores

# In[41]:
from datasets import Dataset

# Create dataset - simple prompt without reasoning_effort (Llama doesn't use it)
dataset = Dataset.from_list([
    {"prompt": [{"role": "user", "content": prompt.strip()}], "answer": 0}
] * 1000)

maximum_length = len(tokenizer.apply_chat_template(
    [{"role": "user", "content": prompt.strip()}], 
    add_generation_prompt = True
))

print(f"📊 Dataset created:")
print(f"   Samples: {len(dataset)}")
print(f"   Max prompt length: {maximum_length} tokens")
print(f"   Max completion length: {max_seq_length - maximum_length - 1} tokens")
print(f"\nSample:")
print(dataset[0])

# In[44]:
max_prompt_length = maximum_length + 1

# ============================================================================
# 🔥 CRITICAL SPEED FIX: Reduce completion length!
# ============================================================================
# Your model is generating 1912 tokens every time (hitting max limit)
# A simple 2048 strategy only needs ~200 tokens!
max_completion_length = 512  # Override: 512 instead of ~1900!
# This will make training 4-6x FASTER!

print(f"⚡ Speed Optimization:")
print(f"   Max prompt length: {max_prompt_length} tokens")
print(f"   Max completion: {max_completion_length} tokens (was {max_seq_length - maximum_length - 1})")
print(f"   Expected speedup: 4-6x faster per step!")
print(f"   New ETA for 600 steps: ~2-4 hours (instead of 15 hours)")

from trl import GRPOConfig, GRPOTrainer

# ============================================================================
# 🔥 MAXIMUM PERFORMANCE GRPO CONFIG FOR MI300X 🔥
# ============================================================================

training_args = GRPOConfig(
    # Generation settings
    temperature = 1.0,
    num_generations = 8,  # Increased from 2 - MI300X can handle it!
    
    # Learning rate (aggressive for fast convergence)
    learning_rate = 1e-4,  # Increased from 5e-5
    weight_decay = 0.01,
    warmup_ratio = 0.1,
    lr_scheduler_type = "cosine",  # Cosine for smoother convergence
    
    # Optimizer - USE STANDARD ADAMW FOR ROCm (bitsandbytes 8-bit not available on ROCm)
    optim = "adamw_torch",  # Standard PyTorch AdamW (ROCm compatible!)
    adam_beta1 = 0.9,
    adam_beta2 = 0.999,
    adam_epsilon = 1e-8,
    max_grad_norm = 1.0,
    
    # Batch size - MAX OUT THE MI300X!
    per_device_train_batch_size = 4,  # Increased from 1!
    gradient_accumulation_steps = 4,  # Increased from 1 - effective batch = 16!
    
    # Context lengths
    max_prompt_length = max_prompt_length,
    max_completion_length = max_completion_length,
    
    # Training steps
    max_steps = 600,
    save_steps = 100,
    logging_steps = 1,
    
    # Output
    output_dir = "outputs_marooned_rl",
    report_to = "none",
    
    # ROCm/AMD optimizations
    bf16 = True,  # Use BF16 on MI300X
    # Note: tf32 removed - it's NVIDIA-specific (Ampere+), not available on AMD ROCm
    gradient_checkpointing = True,  # Save memory
    dataloader_num_workers = 4,  # Parallel data loading
    dataloader_pin_memory = True,  # Pin memory for faster transfer
    
    # Remove these if OOM (but MI300X should handle it!)
    # per_device_eval_batch_size = 4,
    # eval_accumulation_steps = 1,
    # eval_strategy = "steps",
    # eval_steps = 100,
)

print("🚀 GRPO Config Optimized for MI300X:")
print(f"   Batch size: {training_args.per_device_train_batch_size}")
print(f"   Gradient accumulation: {training_args.gradient_accumulation_steps}")
print(f"   Effective batch: {training_args.per_device_train_batch_size * training_args.gradient_accumulation_steps}")
print(f"   Generations per step: {training_args.num_generations}")
print(f"   Learning rate: {training_args.learning_rate}")
print(f"   Optimizer: {training_args.optim} (ROCm compatible!)")
print(f"   Total steps: {training_args.max_steps}")
print(f"\n   Expected training time: ~1-2 hours (vs 5+ hours with GPT-OSS)")
print(f"   Note: Using standard AdamW (bitsandbytes 8-bit not available on ROCm)")

# In[45]:
# For optional training + evaluation
# new_dataset = dataset.train_test_split(test_size = 0.01)

trainer = GRPOTrainer(
    model = model,
    processing_class = tokenizer,
    reward_funcs = [
        function_works,
        no_cheating,
        strategy_succeeds,
    ],
    args = training_args,
    train_dataset = dataset,

    # For optional training + evaluation
    # train_dataset = new_dataset["train"],
    # eval_dataset = new_dataset["test"],
)

# In[46]:
trainer.train()

