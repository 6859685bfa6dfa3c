# single node, 8 x MI355X; the tuned runs set the allocator flag (PR #1011)
export PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True
./runner/primus-cli direct \
  --log_file /tmp/primus_qwen3_30B.log \
  -- train pretrain \
  --config qwen3_30B_A3B-BF16-pretrain.yaml
