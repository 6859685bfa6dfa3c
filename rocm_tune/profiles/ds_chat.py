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
