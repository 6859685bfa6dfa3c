export HSA_NO_SCRATCH_RECLAIM=1` to avoid known issues and stabilize performance.

Single-node training:

