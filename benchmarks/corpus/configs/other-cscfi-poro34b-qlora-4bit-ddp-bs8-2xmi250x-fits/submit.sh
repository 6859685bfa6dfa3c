#!/bin/bash
# Fine-tune Poro-34B on LUMI with 2 GCDs (PEFT/LoRA + 4bit), from the README
sbatch run-finetuning-lumi-gpu2.sh --model=LumiOpen/Poro-34B --b 8 --4bit --peft
