"""The image size `check` counts for a Qwen-VL tower when nothing caps it (issue 26, helper c-vlm8).

The Qwen-VL processors resize an image only when it is outside [min_pixels, max_pixels]: transformers'
models/qwen2_vl/image_processing_qwen2_vl.py smart_resize and qwen_vl_utils' vision_process.py smart_resize round
each side to a multiple of patch x merge (28 pixels for patch 14) and scale down only when h x w > max_pixels, up
only when it is < min_pixels (qwen_vl_utils MIN_PIXELS = 4 * 28 * 28, MAX_PIXELS = 16384 * 28 * 28; transformers'
Qwen2VLImageProcessor max_pixels 12845056 = 16384 x 28 x 28, Qwen3-VL's size.longest_edge 16384 x 32 x 32). So an
image is (h / 28) x (w / 28) tokens of its own size, and the default cap is reached only by images of 12.8
megapixels or more. ms-swift reads the cap from MAX_PIXELS (2.x/3.x: qwen_vl_utils' env, swift/llm/template/
template/qwen.py) or IMAGE_MAX_TOKEN_NUM (qwen_vl_utils >= 0.0.14); the qwen-vl-finetune scripts from --max_pixels.

`check` counts one image per sample at the cap (the worst case). When that is OOM and a smaller image fits, the
OOM stands (ms-swift users who set no MAX_PIXELS report exactly that OOM: the maintainers' answer is to lower
MAX_PIXELS) and the answer says the largest image that fits and the cap that keeps every image there, as
core/check/lengths.py says the longest sample that fits.

Pure: standard library only."""

from __future__ import annotations

from dataclasses import replace

# qwen_vl_utils MIN_PIXELS = 4 * 28 * 28: the smallest image the processor makes (it enlarges smaller ones)
MIN_TOKENS = 4
# what sets the cap, per runner
_CAP_NAMES = {"ms-swift": "MAX_PIXELS (or IMAGE_MAX_TOKEN_NUM)"}


def config_at(cfg, tokens: int, base: int | None, whole: bool):
    """`cfg` with `tokens` language tokens of image per sample: on top of the cut text when the runner expands the
    images after max_length (`base`: the text's cap), else inside cutoff_len (capped there unless the whole image
    reaches the tower)."""
    t = max(1, int(tokens))
    if base is not None:
        return replace(cfg, image_tokens=t, cutoff_len=base + t)
    return replace(cfg, image_tokens=t if whole else min(t, cfg.cutoff_len))


def largest_fitting(fits, cap_tokens: int) -> int:
    """The largest image, in language tokens in [MIN_TOKENS, cap_tokens), at which `fits(tokens)` holds (0: none);
    `fits` is monotone (a larger image never takes less memory)."""
    if cap_tokens <= MIN_TOKENS or not fits(MIN_TOKENS):
        return 0
    lo, hi = MIN_TOKENS, int(cap_tokens)     # fits(lo) is true, fits(hi) false (the cap's OOM)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if fits(mid):
            lo = mid
        else:
            hi = mid
    return lo


def reason(runner: str, tower, best: int, cap_tokens: int, phase: str | None) -> str:
    """The line said beside the cap's OOM: the data's image size decides, and the cap that makes the run fit."""
    ppt = tower.pixels_per_token
    side = int((best * ppt) ** 0.5)
    name = _CAP_NAMES.get(runner, "the processor's max_pixels")
    return (f"images counted at the processor's cap; the data's image size decides: no image cap is set, so the Qwen-VL processor keeps each image at its own "
            f"size up to {cap_tokens * ppt} pixels ({cap_tokens} tokens of {ppt} pixels; smart_resize only shrinks "
            f"larger ones); at that cap it is OOM at {phase or 'step'}, and it fits while each sample's images stay "
            f"within {best} tokens ({best * ppt} pixels, about {side}x{side}): set {name} to {best * ppt} or less")
