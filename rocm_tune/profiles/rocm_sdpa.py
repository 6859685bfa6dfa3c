"""Which SDPA kernels a ROCm build of PyTorch has for an AMD architecture, by torch release (c-sdpa8, issue 26): data.

PyTorch's scaled_dot_product_attention on ROCm runs a flash / mem-efficient kernel only where the AOTriton build the
release bundles has images for the card's architecture, and for some architectures only when the user opts in;
otherwise it runs the math kernel, which keeps the [batch, heads, seq, seq] scores and the softmax of every layer
(counted as eager attention: core/check/check.py _sdpa_math). The GPU profiles' sdpa_flash / sdpa_mem_efficient are
today's releases; this table is what older releases had. A file that states no release keeps the profile's answer.

Sources:
- pytorch aten/src/ATen/native/transformers/cuda/sdp_utils.cpp (hipified for ROCm),
  check_flash_attention_hardware_support / check_mem_efficient_hardware_support:
  `aotriton::v2::flash::check_gpu(stream)` ("Flash attention was not compiled for current AMD GPU architecture");
  2.5-2.6: `if (arch == "gfx1100") { ... check_env("TORCH_ROCM_AOTRITON_ENABLE_EXPERIMENTAL") ... "Flash attention
  support on Navi31 GPU is still experimental. Enable it with TORCH_ROCM_AOTRITON_ENABLE_EXPERIMENTAL=1." }`;
  from 2.7 (AOTriton >= 0.9, `#if AOTRITON_VERSION_MINOR >= 9`): `aotriton::isArchExperimentallySupported(stream)`
  gates the same way ("... on Current AMD GPU is still experimental").
- pytorch cmake/External/aotriton.cmake / .ci/docker/aotriton_version.txt: the AOTriton each release bundles
  (2.3 0.4b, 2.4 0.6b, 2.5 0.7b, 2.6 0.8b, 2.7 0.9.2b, 2.8 0.10b, 2.9 0.11b); before 2.3 ROCm builds had no AOTriton
  (flash / mem-efficient not built, SDPA is math); 2.3 built AOTriton's flash only (mem-efficient on ROCm from 2.4).
- ROCm/aotriton CMakeLists.txt at those tags: TARGET_GPUS "MI200;MI300X" (0.4b-0.6b), "MI200;MI300X;Navi31"
  (0.7b-0.8b), "MI200;MI300X;Navi31;RX9070XT" (0.9b), AOTRITON_TARGET_ARCH "gfx90a;gfx942;gfx950;gfx1100;gfx1151;
  gfx1150;gfx1201;gfx1200" (0.10b), + gfx1101, gfx1102 (0.11b); v2src isArchExperimentallySupported: gfx950, gfx1201
  (0.9b), gfx950, gfx1151, gfx1201 (0.10b-0.12b).
- download.pytorch.org/whl/rocmX.Y (pytorch.org "previous versions"): the torch releases built for each ROCm index.
"""
from __future__ import annotations

# the environment variable that lets an experimental architecture use the AOTriton kernels (c10::utils::check_env:
# "1", "true", "on", "yes", "y", any case)
EXPERIMENTAL_ENV = "TORCH_ROCM_AOTRITON_ENABLE_EXPERIMENTAL"

_MI = ("gfx90a", "gfx942")
_V010 = _MI + ("gfx950", "gfx1100", "gfx1150", "gfx1151", "gfx1200", "gfx1201")
# torch (major, minor) -> (AOTriton, archs with flash, archs with mem-efficient, archs behind EXPERIMENTAL_ENV)
RELEASES: dict[tuple[int, int], tuple[str | None, tuple[str, ...], tuple[str, ...], tuple[str, ...]]] = {
    (2, 0): (None, (), (), ()),
    (2, 1): (None, (), (), ()),
    (2, 2): (None, (), (), ()),
    (2, 3): ("0.4b", _MI, (), ()),
    (2, 4): ("0.6b", _MI, _MI, ()),
    (2, 5): ("0.7b", _MI + ("gfx1100",), _MI + ("gfx1100",), ("gfx1100",)),
    (2, 6): ("0.8b", _MI + ("gfx1100",), _MI + ("gfx1100",), ("gfx1100",)),
    (2, 7): ("0.9.2b", _MI + ("gfx950", "gfx1100", "gfx1201"), _MI + ("gfx950", "gfx1100", "gfx1201"),
             ("gfx950", "gfx1201")),
    (2, 8): ("0.10b", _V010, _V010, ("gfx950", "gfx1151", "gfx1201")),
    (2, 9): ("0.11b", _V010 + ("gfx1101", "gfx1102"), _V010 + ("gfx1101", "gfx1102"),
             ("gfx950", "gfx1151", "gfx1201")),
}
# releases after the last row: today's default (the GPU profile's sdpa_flash / sdpa_mem_efficient)

# the ROCm wheel index (download.pytorch.org/whl/rocmX.Y[.Z], the +rocmX.Y local version) -> torch releases built for it
INDEX_RELEASES: dict[str, tuple[tuple[int, int], ...]] = {
    "5.4.2": ((2, 0),), "5.5": ((2, 1),), "5.6": ((2, 1), (2, 2)), "5.7": ((2, 2), (2, 3)),
    "6.0": ((2, 3), (2, 4)), "6.1": ((2, 4), (2, 5), (2, 6)), "6.2": ((2, 5),), "6.2.4": ((2, 6), (2, 7)),
    "6.3": ((2, 7), (2, 8), (2, 9)), "6.4": ((2, 8), (2, 9)),
}
