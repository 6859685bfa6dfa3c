"""DeepSpeed-Chat's training mains (deepspeedai/DeepSpeedExamples applications/DeepSpeed-Chat/training/
step1_supervised_finetuning/main.py, step2_reward_model_finetuning/main.py): argparse defaults the launch scripts
leave. `--max_seq_len` default 512; `--dtype` default fp16 (choices fp16, bf16; the releases before `--dtype` always
wrote `fp16: {enabled: True}` in utils/ds_utils.py get_train_ds_config); `--lora_dim N > 0` adds LoRA and
`--only_optimize_lora` freezes every other weight (without it, utils/module/lora.py only_optimize_lora_parameters is
not called: every base weight keeps requires_grad and trains beside the adapters); `--per_device_train_batch_size`
default 16; `--zero_stage` builds the DeepSpeed config."""

from __future__ import annotations

DS_CHAT_SOURCE = "deepspeedai/DeepSpeedExamples applications/DeepSpeed-Chat/training/step1_supervised_finetuning/main.py"
MAX_SEQ_LEN = 512
BATCH = 16
DTYPE = "fp16"
# flags only these mains take (with --zero_stage): they mark a DeepSpeed-Chat launch
MARKERS = ("lora_dim", "only_optimize_lora", "lora_module_name")
# utils/ds_utils.py get_train_ds_config(): the zero_optimization block main.py hands deepspeed.initialize beside
# --zero_stage / --offload ("overlap_comm": True at every stage: ZeRO-1/2 then keep two IPG buckets of
# reduce_bucket_size, DeepSpeed's default 5e8 elements, instead of one)
ZERO_EXTRA = {"overlap_comm": True}

# 01-ai/Yi's finetune/sft/main.py is DeepSpeed-Chat's step-1 main with a `--training_debug_steps` flag of its own
# (argparse default 10; the training loop breaks at that step), launched by finetune/scripts/run_sft*_Yi_*.sh. The
# repository pins transformers==4.34.0 (requirements.txt, 01-ai/Yi 03c9c1b3), before transformers' sdpa attention
# (4.36), and utils/model/model_utils.py create_hf_model calls from_pretrained(..., trust_remote_code=True) without
# use_flash_attention_2: LlamaAttention runs eager, scores in 16 bit and their fp32 softmax (modeling_llama.py 4.34
# `softmax(attn_weights, dim=-1, dtype=torch.float32)`)
YI_MARKER = "training_debug_steps"
YI_SOURCE = "01-ai/Yi finetune/sft/main.py, requirements.txt transformers==4.34.0 (no sdpa before 4.36)"
