# experiment knobs as in the PR table (262k); BT_* come from the Baseten job (1 node x 8 GPUs)
export BT_NUM_GPUS=8 BT_GROUP_SIZE=1 BT_NODE_RANK=0
EXP_TAG=262k MAX_LENGTH=262144 TP=8 PP=1 EP=1 CP=1 RECOMPUTE_NUM_LAYERS=2 TRAIN_ITERS=5 bash run.sh
