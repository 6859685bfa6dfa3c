# GRPOConfig as posted in the issue; model/reward lines and the launch command are not in the excerpt we could read
training_args = GRPOConfig(
    output_dir=output_dir,
    learning_rate=5e-6,
    adam_beta1 = 0.9,
    adam_beta2 = 0.99,
    weight_decay = 0.1,
    warmup_ratio = 0.1,
    lr_scheduler_type='cosine',
    logging_steps=1,
    bf16=True,
    per_device_train_batch_size=1,
    gradient_accumulation_steps=1,
    num_generations=2,
    max_prompt_length=256,
    max_completion_length=512,
    num_train_epochs=1,
    save_steps=100,
    max_grad_norm=0.1,
    log_on_each_node=False,
    # use_vllm=False,
    report_to="wandb",
    vllm_gpu_memory_utilization=0.5,
)


trainer = GRPOTrainer(
    model = model,
    # reward_funcs = xmlcount_reward_func,
    reward_funcs = [
        xmlcount_reward_func,
        soft_format_reward_func,
        # strict_format_reward_func,
