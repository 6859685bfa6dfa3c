# llm-train-bench: FSDP Llama3 70B 4-layer proxy model, TransformerEngine FP8 (reprod script of ROCm/TransformerEngine#78)
# usage: python ./train_fsdp_llama_70_reprod.py --bsz=2   (batch size 10 is the script default)
import os
from contextlib import nullcontext

import fire
import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn.functional as F
from torch.distributed.fsdp import FullyShardedDataParallel as FSDP, MixedPrecision, ShardingStrategy
from torch.distributed.fsdp.wrap import ModuleWrapPolicy

import transformer_engine.pytorch as te
from transformer_engine.common.recipe import DelayedScaling, Format

from pydantic.dataclasses import dataclass


@dataclass
class LLaMAConfig:
    n_layers: int = 4         # 4-layer proxy of Llama 3 70B
    n_heads: int = 64
    n_kv_heads: int = 8
    d_embd: int = 8192
    d_hid: int = 28672
    norm_eps: float = 1e-5
    # Reference: https://huggingface.co/meta-llama/Meta-Llama-3-70B/blob/main/config.json
    vocab_size: int = 128256
    max_seq_len: int = 4096   # filled in: the sequence length is not in the posted part of the thread
    arch_name: str = "llama"


class Fp8LLaMABlock(te.TransformerLayer):
    def __init__(self, d_embd, d_hid, n_heads, n_kv_heads, norm_eps, **kwargs):
        super().__init__(hidden_size=d_embd, ffn_hidden_size=d_hid, num_attention_heads=n_heads,
                         num_gqa_groups=n_heads // n_kv_heads, fuse_qkv_params=True, attn_input_format="bshd",
                         attention_dropout=0.0, hidden_dropout=0.0, normalization="RMSNorm",
                         layernorm_epsilon=norm_eps, activation="swiglu", bias=False)


class Fp8LLaMA(torch.nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.tok_embd = torch.nn.Embedding(cfg.vocab_size, cfg.d_embd)
        self.tsfmr_blks = torch.nn.ModuleList(
            Fp8LLaMABlock(cfg.d_embd, cfg.d_hid, cfg.n_heads, cfg.n_kv_heads, cfg.norm_eps) for _ in range(cfg.n_layers))
        self.norm_lm_head = te.LayerNormLinear(cfg.d_embd, cfg.vocab_size, bias=False, normalization="RMSNorm",
                                               eps=cfg.norm_eps)
        freq_cis_TE = te.attention.RotaryPositionEmbedding(cfg.d_embd // cfg.n_heads)(max_seq_len=131072)
        self.register_buffer("freq_cis_TE", freq_cis_TE.to(torch.bfloat16))

    def forward(self, idx_BT, is_first_microbatch):
        x_BTE = self.tok_embd(idx_BT)
        for tsfmr_blk in self.tsfmr_blks:
            x_BTE = tsfmr_blk(x_BTE, rotary_pos_emb=self.freq_cis_TE, is_first_microbatch=is_first_microbatch)
        return self.norm_lm_head(x_BTE)


def train(rank, world_size, bsz, n_steps, grad_acc_steps, use_fp8):
    os.environ.setdefault("MASTER_ADDR", "localhost")
    os.environ.setdefault("MASTER_PORT", "12355")
    dist.init_process_group("nccl", rank=rank, world_size=world_size)
    torch.cuda.set_device(rank)
    cfg = LLaMAConfig()
    model = Fp8LLaMA(cfg).to("cuda")
    model = FSDP(model, sharding_strategy=ShardingStrategy.FULL_SHARD,
                 auto_wrap_policy=ModuleWrapPolicy({Fp8LLaMABlock}),
                 mixed_precision=MixedPrecision(param_dtype=torch.bfloat16, reduce_dtype=torch.float32),
                 use_orig_params=True, device_id=rank)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-5, fused=True)
    fp8_recipe = DelayedScaling(fp8_format=Format.HYBRID, amax_history_len=16, amax_compute_algo="max")
    for step in range(n_steps):
        for micro in range(grad_acc_steps):
            idx = torch.randint(0, cfg.vocab_size, (bsz, cfg.max_seq_len + 1), device="cuda")
            ctx = te.fp8_autocast(enabled=use_fp8, fp8_recipe=fp8_recipe, fp8_group=dist.group.WORLD) if use_fp8 else nullcontext()
            with ctx:
                logits = model(idx[:, :-1], is_first_microbatch=(micro == 0))
            loss = F.cross_entropy(logits.float().view(-1, cfg.vocab_size), idx[:, 1:].reshape(-1))
            (loss / grad_acc_steps).backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        if rank == 0 and step % 10 == 0:
            print(f"step {step} loss {loss.item():.4f}")
    dist.destroy_process_group()


def main(bsz: int = 10, n_steps: int = 128, grad_acc_steps: int = 1, use_fp8: bool = True):
    world_size = torch.cuda.device_count()   # 8 x MI300X
    mp.spawn(train, args=(world_size, bsz, n_steps, grad_acc_steps, use_fp8), nprocs=world_size, join=True)


if __name__ == "__main__":
    fire.Fire(main)
