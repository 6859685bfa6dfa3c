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

# e-hipfa: the device nodes and the user as coreutils print them (`ls -l /dev/kfd /dev/dri/renderD128`, `id`):
# `crw-rw---- 1 root render 235, 0 Nov 28 10:00 /dev/kfd` (a numeric group where the container has no name for the
# host's GID) and `uid=1000(alice) gid=1000(alice) groups=1000(alice),27(sudo),44(video)`
NODE_LS = (r"^\s*c[r-][w-][xsS-](?P<grp>[r-][w-][xsS-])(?P<oth>[r-][w-][xtT-])[.+]?\s+\d+\s+\S+\s+(?P<group>\S+)\s+"
           r"\d+,\s*\d+\s+.*?(?P<node>/dev/(?:kfd|dri/renderD\d+))\s*$")
ID_LINE = r"\buid=(?P<uid>\d+)\([^)\n]*\)\s+gid=(?P<gid>\d+)\((?P<gname>[^)\n]*)\)(?:\s+groups=(?P<groups>[^\n]*))?"
ID_GROUP = r"(\d+)\(([^)\n]*)\)"
NO_ACCESS_TITLE = ("no GPU visible: the GPU's device node {node} belongs to group {group}, and the user the run starts "
                   "as ({user}) is not in it")
