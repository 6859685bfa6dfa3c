# llm-train-bench reprod.py: GPT-2 XL (1.5B) single-GPU training, TransformerEngine FP8
# to change batch size just do `python ./reprod.py --bsz=BATCH_SIZE`
import contextlib

import fire
import torch
import torch.nn.functional as F
import torch.nn as nn
import transformer_engine.pytorch as te
from transformer_engine.common.recipe import DelayedScaling, Format

from pydantic.dataclasses import dataclass


@dataclass
class GPTConfig:
    n_layers: int    # L
    n_heads: int     # H
    d_embd: int      # E
    max_seq_len: int = 1024
    vocab_size: int  = 50304 # V
    arch_name: str = 'gpt'


class Fp8GPTBlock(te.TransformerLayer):
    def __init__(self, d_embd, n_heads, **kwargs):
        super().__init__(d_embd, 4 * d_embd, n_heads, hidden_dropout=0.0, attention_dropout=0.0,
                         layer_type='encoder', self_attn_mask_type='causal', normalization='LayerNorm',
                         bias=True, activation='gelu', attn_input_format='bshd', fuse_qkv_params=True)


class Fp8GPT(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.tok_embd = nn.Embedding(cfg.vocab_size, cfg.d_embd)
        self.pos_embd = nn.Embedding(cfg.max_seq_len, cfg.d_embd)
        self.tsfmr_blks = nn.ModuleList(Fp8GPTBlock(cfg.d_embd, cfg.n_heads) for _ in range(cfg.n_layers))
        self.out_norm_lm_head = te.LayerNormLinear(cfg.d_embd, cfg.vocab_size, bias=False)

    def forward(self, idx_BT, is_first_microbatch):
        pos_T = torch.arange(idx_BT.size(1), dtype=torch.int64, device=idx_BT.device)
        x_BTE = self.tok_embd(idx_BT) + self.pos_embd(pos_T).unsqueeze(0)
        for tsfmr_blk in self.tsfmr_blks:
            x_BTE = tsfmr_blk(x_BTE, is_first_microbatch=is_first_microbatch)
        return self.out_norm_lm_head(x_BTE)


def train(bsz: int = 14, n_steps: int = 128, grad_acc_steps: int = 1, pt_compile: bool = False):
    torch.manual_seed(3985)
    torch.cuda.set_device(0)
    cfg_json = {"n_layers": 48, "n_heads": 25, "d_embd": 1600, "max_seq_len": 1024, "vocab_size": 50304}  # GPT-2 XL
    cfg_m = GPTConfig(**cfg_json)
    model = Fp8GPT(cfg_m).to("cuda:0")
    optimizer = torch.optim.AdamW(model.parameters(), fused=True)
    fp8_recipe = DelayedScaling(fp8_format=Format.HYBRID, amax_history_len=16, amax_compute_algo="max")
    for step_idx in range(n_steps):
        for micro_idx in range(grad_acc_steps):
            data_batch = torch.randint(0, cfg_m.vocab_size, (bsz, cfg_m.max_seq_len + 1), device="cuda:0")
            with te.fp8_autocast(enabled=True, fp8_recipe=fp8_recipe), torch.amp.autocast("cuda", torch.bfloat16):
                logits = model(data_batch[:, :-1], is_first_microbatch=(micro_idx == 0))
            loss = F.cross_entropy(logits.float().view(-1, cfg_m.vocab_size), data_batch[:, 1:].reshape(-1))
            (loss / grad_acc_steps).backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)


if __name__ == "__main__":
    fire.Fire(train)
