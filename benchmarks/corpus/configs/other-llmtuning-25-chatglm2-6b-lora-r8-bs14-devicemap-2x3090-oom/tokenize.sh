CUDA_VISIBLE_DEVICES=0,1 python tokenize_dataset_rows.py \
    --model_checkpoint THUDM/chatglm2-6b \
    --input_file my_data.json \
    --prompt_key q \
    --target_key a \
    --save_name my_data \
    --max_seq_length 2000 \
    --skip_overlength False
