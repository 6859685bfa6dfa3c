"""e-hipfa (issue 26): the lines that show a process enumerated no GPU at all before it asked for one by index.
Data only: the rule is core/runs/diagnose/no_device.py.

Sources:
- NVIDIA/nccl-tests and ROCm/rccl-tests src/common.cu: `# Using devices` and then one row per rank
  (`#  Rank  0 Group  0 Pid   211 on    host device  0 [0000:05:00] AMD Instinct MI300X`); each row first queries
  the device's properties, so a HIPCHECK failure right under the header means the first device did not exist.
- torch's queries as scripts and runners print them: torch.cuda.device_count() / is_available().
"""

from __future__ import annotations

# a header whose device rows are missing: the failure is the next line
RCCL_TESTS_HEADER = r"^#\s*Using devices\s*$"
RCCL_TESTS_ROW = r"^#\s+Rank\s+\d+\b"
# the count of GPUs printed as zero (or torch saying it has none)
ZERO_GPUS = (r"(?i:\bdevice_count\(\)\s*(?:[:=]|->|returns?|is)?\s*0\b|\b(?:gpu|device)[_ ]count\s*[:=]\s*0\b|"
             r"\b(?:number of|num(?:ber)?_?|found|available) ?(?:gpus?|devices?|gpu devices)\s*[:=]?\s*0\b|"
             r"\b(?:cuda|hip|gpu)[_ ]?(?:is_)?available\(?\)?\s*[:=]\s*False\b)")
# a visibility mask in the log: then an index past it is the mask's (config_error), not an empty machine
MASK_SET = r"\b(?:HIP|CUDA|ROCR|GPU_DEVICE)_(?:VISIBLE_DEVICES|ORDINAL)\s*[=:]"

TITLE = "the process found no GPU at all, then asked for one by index (invalid device ordinal)"
CAUSE = ("the HIP runtime enumerated no device (the run printed no device, or a count of zero): the container or "
         "session does not see the GPU nodes (/dev/kfd, /dev/dri), the driver is not loaded, or the GPU is not "
         "supported by this ROCm; the ordinal error is its consequence, not a wrong index")
FIX = ("make the GPU visible to the process first: `rocminfo` must list a gfx agent; in a container pass "
       "--device=/dev/kfd --device=/dev/dri (and --group-add video/render, --security-opt seccomp=unconfined); check "
       "the amdgpu driver is loaded (`dmesg | grep -i kfd`)")
