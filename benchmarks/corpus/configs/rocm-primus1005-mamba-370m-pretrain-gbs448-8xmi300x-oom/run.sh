# single node, 8 x MI300X
./runner/primus-cli direct \
  -- train pretrain \
  --config examples/megatron/configs/MI300X/mamba_370M-pretrain.yaml
