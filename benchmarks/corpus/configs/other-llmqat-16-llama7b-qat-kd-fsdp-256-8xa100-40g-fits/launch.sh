bash run_train.sh 4 8 4
