# Excerpt of train.py, abacaj/fine-tune-mistral @ c8c8ec16850ad43c3dc6cc8a9ab44e354c515c78 (dataset/sampler/training-loop
# helpers omitted; settings as in the file).
import os, functools, uuid
import torch
import torch.distributed as dist
import transformers
from torch.distributed.fsdp import FullyShardedDataParallel as FSDP, MixedPrecision
from torch.distributed.fsdp.fully_sharded_data_parallel import ShardingStrategy
from torch.distributed.fsdp.wrap import transformer_auto_wrap_policy
from transformers.models.mistral.modeling_mistral import MistralDecoderLayer


def setup_model(model_name, max_length):
    config = transformers.AutoConfig.from_pretrained(model_name, use_auth_token=os.environ["HF_TOKEN"])
    config.use_cache = False
    model = transformers.AutoModelForCausalLM.from_pretrained(
        model_name,
        use_auth_token=os.environ["HF_TOKEN"],
        config=config,
        torch_dtype=torch.bfloat16,
    )
    tokenizer = transformers.AutoTokenizer.from_pretrained(
        model_name, model_max_length=max_length, padding_side="right", use_fast=False,
        use_auth_token=os.environ["HF_TOKEN"], trust_remote_code=True,
    )
    return model, tokenizer


if __name__ == "__main__":
    local_rank = int(os.environ["LOCAL_RANK"])
    world_size = int(os.environ["WORLD_SIZE"])
    torch.backends.cuda.matmul.allow_tf32 = True
    torch.backends.cudnn.allow_tf32 = True
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl", rank=local_rank, world_size=world_size)

    model_name = "mistralai/Mistral-7B-v0.1"
    scheduler_type = "cosine"
    seed = 877645  # set your seed
    transformers.set_seed(seed)

    run_id = str(uuid.uuid4())
    output_dir = f"./outputs/{model_name}/{run_id}"
    max_length = 2048  # adjust as needed
    disable_dropout = False
    gradient_checkpointing = True
    clip_gradients = True
    shuffle = True  # multipack sampler already does random sampling
    train_batch_size = 2  # adjust as needed
    validation_batch_size = 2  # adjust as needed
    epochs = 3  # adjust as needed
    acc_steps = 0  # TODO: not implemented here yet
    lr = 2e-05  # adjust as needed
    weight_decay = 0.0  # adjust as needed
    gradient_clipping = 1.0  # adjust as needed
    train_on_inputs = False  # whether to train on instruction tokens
    use_multipack_sampler = (
        True  # whether to use the multipack sampler or torch sampler
    )

    model, tokenizer = setup_model(model_name, max_length)
    auto_wrap_policy = functools.partial(
        transformer_auto_wrap_policy,
        transformer_layer_cls={
            MistralDecoderLayer,
        },
    )

    fsdp_config = dict(
        auto_wrap_policy=auto_wrap_policy,
        sharding_strategy=ShardingStrategy.FULL_SHARD,
        device_id=torch.cuda.current_device(),
        mixed_precision=MixedPrecision(
            param_dtype=torch.bfloat16,
            reduce_dtype=torch.bfloat16,
            buffer_dtype=torch.bfloat16,
        ),
        backward_prefetch=None,
        param_init_fn=None,
        cpu_offload=None,
    )

    model = FSDP(model, **fsdp_config)
    optimizer = torch.optim.AdamW(params=model.parameters(), lr=lr, betas=(0.9, 0.95), eps=1e-8, weight_decay=weight_decay)
    if gradient_checkpointing:
        model.gradient_checkpointing_enable()
    # ... multipack dataloader (batch_max_length = train_batch_size * max_length), cosine scheduler, training loop ...
