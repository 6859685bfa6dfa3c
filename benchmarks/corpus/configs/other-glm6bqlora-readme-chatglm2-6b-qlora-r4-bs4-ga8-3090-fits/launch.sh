# 进入本项目目录，训练启动命令如下 (README); chatGLM2-6B: model_name_or_path -> THUDM/chatglm2-6b
python3 train_qlora.py \
--train_args_json chatGLM_6B_QLoRA.json \
--model_name_or_path THUDM/chatglm2-6b \
--train_data_path data/train.jsonl \
--eval_data_path data/dev.jsonl \
--lora_rank 4 \
--lora_dropout 0.05 \
--compute_dtype fp32
