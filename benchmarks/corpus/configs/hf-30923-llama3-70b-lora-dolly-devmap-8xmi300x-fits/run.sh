python3 train_lora.py
