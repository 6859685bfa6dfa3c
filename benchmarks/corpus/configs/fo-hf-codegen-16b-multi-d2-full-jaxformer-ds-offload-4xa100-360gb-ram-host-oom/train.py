# codegen-16B-multi fine-tune, following jaxformer's "A100 fine-tune" recipe (jaxformer/hf/train.py):
# own data, longer run, checkpoint saving added. Launched with: deepspeed --num_gpus=4 train.py
import json

import deepspeed
import torch
from transformers import AutoConfig, AutoModelForCausalLM

MODEL = "Salesforce/codegen-16B-multi"
SEQ_LEN = 2048
OPT_STEPS = 20000


def main():
    ds_config = json.load(open("ds_config.json"))

    config = AutoConfig.from_pretrained(MODEL)
    config.gradient_checkpointing = True
    config.use_cache = False

    # plain from_pretrained in every rank (no zero.Init): each process builds the full fp32 model in host RAM
    model = AutoModelForCausalLM.from_pretrained(MODEL, config=config)
    model.train()
    model.gradient_checkpointing_enable()

    model_engine, optimizer, _, _ = deepspeed.initialize(
        model=model, model_parameters=model.parameters(), config_params=ds_config
    )

    for step, batch in enumerate(load_batches(SEQ_LEN, ds_config["train_micro_batch_size_per_gpu"])):
        batch = batch.to(model_engine.device)
        loss = model_engine(input_ids=batch, labels=batch).loss
        model_engine.backward(loss)
        model_engine.step()
        if step % 1000 == 0:
            model_engine.save_checkpoint("ckpt", tag=f"step{step}")
        if step >= OPT_STEPS:
            break


if __name__ == "__main__":
    main()
