# Remove the overwrite parameters in the end (max_steps_per_epoch=1 epochs=1) to run the full fine-tuning
# ! tune run lora_finetune_single_device --config configs/llama3_2_vision_90B_qlora.yaml max_steps_per_epoch=20 epochs=1
tune run lora_finetune_single_device --config configs/llama3_2_vision_90B_qlora.yaml max_steps_per_epoch=20 epochs=1
