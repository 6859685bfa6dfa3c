#!/bin/bash
# 1x MI300X
python ./reprod.py --bsz=14
