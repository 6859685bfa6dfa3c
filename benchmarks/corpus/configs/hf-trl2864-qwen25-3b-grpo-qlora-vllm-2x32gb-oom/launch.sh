export CUDA_VISIBLE_DEVICES=0,1
accelerate launch --num_processes 1 train_Datawhale-R1.py --config Datawhale-R1.yaml
