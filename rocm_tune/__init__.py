"""rocm-tune: plan, launch and watch LLM fine-tuning on AMD and NVIDIA GPUs."""

__version__ = "0.1.0"
