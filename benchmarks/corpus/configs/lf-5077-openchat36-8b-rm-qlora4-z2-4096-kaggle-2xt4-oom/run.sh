# Kaggle notebook cell (2 x Tesla T4)
!cd /kaggle/working/LLaMA-Factory && llamafactory-cli train /kaggle/working/config.yaml
