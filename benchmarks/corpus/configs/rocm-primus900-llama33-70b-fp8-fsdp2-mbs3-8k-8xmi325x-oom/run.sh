# single node, 8 x MI325X (Primus v26.5 docker)
export EXP=examples/megatron/configs/MI325X/llama3.3_70B-FP8-pretrain.yaml
./runner/primus-cli direct \
  --log_file /tmp/primus_llama33_70B.log \
  -- train pretrain \
  --config llama3.3_70B-FP8-pretrain.yaml
