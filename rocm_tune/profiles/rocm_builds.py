"""How a binary names the ROCm release it was built for, and how a log shows the ROCm installed (e-new18, issue 26).

A ROCm library's soname (`librocm_smi64.so.6`, `libhipblaslt.so.0`) asked for by a binary built for one ROCm release
cannot be opened on a system with another: the soname moved (rocm_smi_lib 7.0 of ROCm 6.1 ships .so.7; hipBLASLt,
rocBLAS, MIOpen bump theirs across releases). Sources: jax's ROCm plugins (jax_plugins/xla_rocm60,
jax_rocm60_plugin / jax_rocm60_pjrt wheels), jaxlib's +rocm610 local versions, bitsandbytes' per-ROCm libraries
(libbitsandbytes_rocm62.so), torch/vLLM/onnxruntime wheels' +rocm6.2 local versions; the installed ROCm as
/opt/rocm-X.Y.Z paths, amd-smi's `ROCm version: X.Y.Z`, hipconfig/`HIP version: X.Y`, ROCM_VERSION=, rocm-core's
package version (dpkg/rpm lists).
"""
from __future__ import annotations

# the ROCm release a binary or wheel was built for: xla_rocm60, jax_rocm60_plugin, +rocm6.2, +rocm610, _rocm62.so
BUILT_FOR = r"(?:(?<=[_+])|\bjax[-_]?)rocm[-_]?(?P<maj>\d)\.?(?P<min>\d)(?=\d?\d?(?:[\W_]|$))"

# the ROCm installed on the system the log was taken on
INSTALLED = (r"/opt/rocm-(?P<maj>\d+)\.(?P<min>\d+)|\bROCm [Vv]ersion:? v?(?P<maj2>\d+)\.(?P<min2>\d+)|"
             r"\bHIP version:? (?P<maj3>\d+)\.(?P<min3>\d+)|\bROCM_VERSION=['\"]?(?P<maj4>\d+)\.(?P<min4>\d+)|"
             r"\brocm-core[\s=_-]+(?P<maj5>\d+)\.(?P<min5>\d+)")
