# nanoGPT-style config: 760M GPT (24 layers, n_embd 1536) on one AMD Instinct MI300X (192 GB), ROCm
# python train.py config/train_gpt_760m.py
out_dir = 'out-gpt-760m'
eval_interval = 500
eval_iters = 100
log_interval = 10
wandb_log = False

dataset = 'fineweb'
gradient_accumulation_steps = 1
batch_size = 32
block_size = 1024

n_layer = 24
n_head = 24
n_embd = 1536
dropout = 0.0
bias = False

learning_rate = 3e-4
max_iters = 20000
lr_decay_iters = 20000
min_lr = 3e-5
weight_decay = 1e-1
beta1 = 0.9
beta2 = 0.95
warmup_iters = 1000

device = 'cuda'
dtype = 'bfloat16'
compile = True
