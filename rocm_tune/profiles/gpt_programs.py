"""Training programs that build a dense GPT from its own shape (no hub model): their defaults, read from source.

- karpathy/nanoGPT train.py @3adf61e (module globals; `python train.py config/x.py --key=value`, configurator.py
  exec()s the config file, then literal_eval()s each --key=value over a global of the same name). model.py
  GPT.from_pretrained's config_args: init_from='gpt2*' loads that GPT-2 (vocab 50257). From scratch the vocab is
  50304 (data/<dataset>/meta.pkl's vocab_size when there is one). Weights fp32, torch.amp.autocast(dtype), AdamW.
- karpathy/nanochat scripts/base_train.py (@306bc38, Oct 2025, and @92d63d4): depth -> n_layer = depth,
  model_dim = depth * aspect_ratio (64) rounded up to head_dim (128), n_head = model_dim / head_dim; vocab 65536
  (scripts/tok_train.py --vocab_size 2**16); max_seq_len 2048, device_batch_size 32; bf16 autocast; Muon for the
  matrices, AdamW for embedding and lm_head (counted here as AdamW everywhere: an upper bound).
"""

from __future__ import annotations

NANOGPT_SOURCE = "karpathy/nanoGPT train.py @3adf61e"
# train.py's globals a config file or --key=value may override, with their defaults
NANOGPT_DEFAULTS: dict[str, object] = {
    "out_dir": "out", "eval_interval": 2000, "log_interval": 1, "eval_iters": 200, "eval_only": False,
    "always_save_checkpoint": True, "init_from": "scratch", "wandb_log": False, "wandb_project": "owt",
    "wandb_run_name": "gpt2", "dataset": "openwebtext", "gradient_accumulation_steps": 40, "batch_size": 12,
    "block_size": 1024, "n_layer": 12, "n_head": 12, "n_embd": 768, "dropout": 0.0, "bias": False,
    "learning_rate": 6e-4, "max_iters": 600000, "weight_decay": 1e-1, "beta1": 0.9, "beta2": 0.95,
    "grad_clip": 1.0, "decay_lr": True, "warmup_iters": 2000, "lr_decay_iters": 600000, "min_lr": 6e-5,
    "backend": "nccl", "device": "cuda", "dtype": "bfloat16", "compile": True,
}
NANOGPT_VOCAB = 50304
# model.py GPT.from_pretrained: init_from -> (n_layer, n_head, n_embd), vocab 50257
GPT2_SHAPES: dict[str, tuple[int, int, int]] = {
    "gpt2": (12, 12, 768), "gpt2-medium": (24, 16, 1024), "gpt2-large": (36, 20, 1280), "gpt2-xl": (48, 25, 1600),
}
GPT2_VOCAB = 50257
# keys that mark a file as a nanoGPT config (at least two of them, one a model or batch key)
NANOGPT_MARKERS = ("n_layer", "n_head", "n_embd", "block_size", "init_from", "eval_interval", "always_save_checkpoint",
                   "gradient_accumulation_steps", "lr_decay_iters", "wandb_run_name")
NANOGPT_CORE = ("n_layer", "n_embd", "block_size", "batch_size", "init_from")

NANOCHAT_SOURCE = "karpathy/nanochat scripts/base_train.py"
# the module names nanochat's speedrun.sh starts (`torchrun -m scripts.base_train -- --depth=20`)
NANOCHAT_MODULES = ("scripts.base_train",)
NANOCHAT_DEFAULTS: dict[str, int] = {"depth": 20, "aspect_ratio": 64, "head_dim": 128, "max_seq_len": 2048,
                                     "device_batch_size": 32}
NANOCHAT_VOCAB = 65536
# what the estimate leaves out for nanochat (base_train: `model = torch.compile(model, dynamic=False)`, Muon keeps one
# momentum buffer where AdamW keeps two): the estimate bounds from above
NANOCHAT_UNCOUNTED = "torch.compile's fused activations and Muon's single state (nanochat base_train)"
