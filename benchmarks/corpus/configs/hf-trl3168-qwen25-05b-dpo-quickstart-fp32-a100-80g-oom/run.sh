cd ~/project/Framework/trl/examples/quick_start
python run_dpo.py
