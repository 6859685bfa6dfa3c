# Reconstructed from ROCm_Training_Success_Guide.md (bigattichouse/worldmodel): the 'Memory-Optimized Training Configuration'
# dataclass, with the values of the run the guide reports as OOM ("Second attempt: batch_size=2, sequence_length=4096").
# Environment as in the guide:
#   export HSA_OVERRIDE_GFX_VERSION=9.0.6    # Native gfx906 for MI50
#   export PYTORCH_ROCM_ARCH=gfx906
#   export HIP_VISIBLE_DEVICES=0
#   export PYTORCH_HIP_ALLOC_CONF=expandable_segments:True,max_split_size_mb:512
from dataclasses import dataclass, field

@dataclass
class OptimizedROCmConfig:
    # Model
    model_name: str = "Qwen2.5-3B-Instruct"

    # Memory settings (second attempt in the guide)
    max_sequence_length: int = 4096
    batch_size: int = 2
    gradient_accumulation_steps: int = 8

    # LoRA settings
    use_lora: bool = True
    lora_rank: int = 16
    lora_alpha: int = 16
    lora_target_modules: list = field(default_factory=lambda: ["q_proj", "v_proj", "k_proj", "o_proj", "gate_proj", "up_proj", "down_proj"])

    # ROCm stability settings
    use_4bit: bool = False               # Disabled for ROCm
    use_8bit: bool = False               # Disabled for ROCm
    fp16: bool = False                   # Disabled for ROCm
    bf16: bool = False                   # Disabled for ROCm
