# single node, 8 x MI325X (Primus v26.5 docker)
export EXP=examples/megatron/configs/MI325X/qwen3_30B_A3B-BF16-pretrain.yaml
./runner/primus-cli direct \
  --log_file /tmp/primus_qwen3_30B.log \
  -- train pretrain \
  --config qwen3_30B_A3B-BF16-pretrain.yaml
