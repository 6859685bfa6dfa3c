# 6 x A100, default Llama3-8B QAT config on alpaca (PR test plan)
tune run --nnodes 1 --nproc_per_node 6 qat_distributed --config ./8B_qat_full.yaml
