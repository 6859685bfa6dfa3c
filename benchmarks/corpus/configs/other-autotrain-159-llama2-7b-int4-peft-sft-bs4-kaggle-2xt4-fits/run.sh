# Kaggle notebook cell (GPU T4 x2, internet on)
# !pip install -U autotrain-advanced
# !autotrain setup --update-torch
# data: ./train.csv with a "text" column
!autotrain llm --train --project_name llamav2 --model abhishek/llama-2-7b-hf-small-shards --data_path . --use_peft --use_int4 --learning_rate 2e-4 --train_batch_size 4 --num_train_epochs 1 --trainer sft
