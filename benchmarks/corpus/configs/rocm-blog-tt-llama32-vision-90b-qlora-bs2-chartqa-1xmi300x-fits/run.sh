# single AMD Instinct MI300X (TensorWave), ROCm 6.3 wheels, torchtune @20bdf10
tune download meta-llama/Llama-3.2-90B-Vision-Instruct \
--output-dir /tmp/Llama-3.2-90B-Vision-Instruct \
--ignore-patterns "original/consolidated*.pth"

# Start fine-tuning
tune run lora_finetune_single_device \
--config configs/llama3_2_vision_90B_qlora.yaml
