# single node, 8 x MI355X (Primus production docs' direct mode)
./runner/primus-cli direct \
  --log_file /tmp/primus_gpt_oss_20B.log \
  -- train pretrain \
  --config gpt_oss_20B-FP8-pretrain.yaml
