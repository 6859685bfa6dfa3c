"""The vision tower of a vision-language model: its parameters and what one image costs it.

Shapes follow transformers' modeling code (Qwen2-VL: models/qwen2_vl/modeling_qwen2_vl.py, Qwen2.5-VL:
models/qwen2_5_vl/modeling_qwen2_5_vl.py): a Conv3d patch embedding (bias-free, kernel temporal_patch x patch x
patch over in_chans), `depth` ViT blocks (fused qkv with bias, proj with bias; Qwen2-VL: LayerNorm + fc1/fc2 MLP of
embed_dim*mlp_ratio; Qwen2.5-VL: RMSNorm + gated gate/up/down MLP with bias) and the PatchMerger (a norm over the
ViT width, then Linear(d*m^2, d*m^2) -> GELU -> Linear(d*m^2, language hidden)). An image of P pixels becomes
P / patch^2 patches in the ViT and P / (patch*merge)^2 tokens in the language model (28 x 28 pixels per token for
patch 14, merge 2), as Qwen2-VL's image processor (smart_resize) makes them.

Qwen3-VL (models/qwen3_vl/modeling_qwen3_vl.py Qwen3VLVisionModel; Qwen3.5's tower is the same class) is the
Qwen2-VL layout with a biased Conv3d patch embedding, a learned position table (nn.Embedding(num_position_embeddings,
hidden)), fc1/fc2 MLP blocks with LayerNorms, patches of 16 pixels (32 x 32 pixels per language token) and, for each
of deepstack_visual_indexes, one more PatchMerger whose LayerNorm runs after the 2x2 shuffle (over hidden*merge^2).
Its blocks attend over each whole image; transformers runs the non-flash path image by image (split by cu_seqlens),
so no mask spans the micro-batch.

Attention over patches: Qwen2-VL's blocks all attend over every patch of an image (cu_seqlens per image/frame);
Qwen2.5-VL's attend within windows of window_size pixels (112: 8 x 8 patches) except the blocks in
fullatt_block_indexes ([7, 15, 23, 31]), which attend over the whole image. Eager attention materialises the scores
(num_heads x n x n for an image of n patches: matmul in the compute dtype, softmax in float32, cast back);
FlashAttention (flash_attn_varlen_func) and SDPA without a mask do not.
"""
from __future__ import annotations

from dataclasses import dataclass

from rocm_tune.core.errors import UserError

# models/qwen2_vl/image_processing_qwen2_vl.py: max_pixels 12845056 (16384 tokens of 28x28) when none is set;
# LLaMA-Factory's ModelArguments.image_max_pixels: 768 * 768
PROCESSOR_MAX_PIXELS = 12845056
LLAMAFACTORY_MAX_PIXELS = 768 * 768
# the Qwen-VL processors cap an image at 16384 language tokens: Qwen2-VL's max_pixels 12845056 = 16384 x 28^2,
# Qwen3-VL's preprocessor_config size.longest_edge 16777216 = 16384 x 32^2
PROCESSOR_MAX_TOKENS = 16384


@dataclass(frozen=True)
class VisionTower:
    kind: str            # "qwen2_vl" | "qwen2_5_vl" | "qwen3_vl"
    depth: int
    hidden: int          # ViT width
    intermediate: int    # ViT MLP width
    gated: bool          # gate/up/down (Qwen2.5-VL) vs fc1/fc2 (Qwen2-VL)
    patch: int
    temporal_patch: int
    merge: int           # spatial_merge_size
    in_chans: int
    out_hidden: int      # the language model's hidden size (the merger's output)
    norm_bias: bool      # LayerNorm (Qwen2-VL) vs RMSNorm (Qwen2.5-VL)
    heads: int = 16      # num_heads
    full_blocks: int = 0  # blocks attending over the whole image (Qwen2.5-VL: len(fullatt_block_indexes)); 0 = all
    window_patches: int = 0   # patches of one attention window in the other blocks (0: no windows)
    patch_bias: bool = False  # the Conv3d patch embedding has a bias (Qwen3-VL)
    position_embeddings: int = 0   # rows of a learned position table (Qwen3-VL num_position_embeddings)
    deepstack: int = 0        # extra post-shuffle-norm mergers (Qwen3-VL len(deepstack_visual_indexes))

    @property
    def block_params(self) -> int:
        d, i = self.hidden, self.intermediate
        norms = 2 * d * (2 if self.norm_bias else 1)
        attn = d * 3 * d + 3 * d + d * d + d
        mlp = (2 * (d * i + i) + i * d + d) if self.gated else (d * i + i + i * d + d)
        return norms + attn + mlp

    def _merger(self, norm_width: int) -> int:
        d, m2 = self.hidden, self.merge ** 2
        return norm_width * (2 if self.norm_bias else 1) + (d * m2) * (d * m2) + d * m2 + d * m2 * self.out_hidden \
            + self.out_hidden

    @property
    def merger_params(self) -> int:
        """The merger into the language model, plus the DeepStack mergers (their norm after the shuffle)."""
        return self._merger(self.hidden) + self.deepstack * self._merger(self.hidden * self.merge ** 2)

    @property
    def patch_embed_params(self) -> int:
        return self.in_chans * self.temporal_patch * self.patch * self.patch * self.hidden \
            + (self.hidden if self.patch_bias else 0) + self.position_embeddings * self.hidden

    @property
    def params(self) -> int:
        return self.patch_embed_params + self.depth * self.block_params + self.merger_params

    @property
    def default_max_pixels(self) -> int:
        """The processor's own cap when nothing sets one: 16384 language tokens of this tower's pixels."""
        return PROCESSOR_MAX_TOKENS * self.pixels_per_token

    @property
    def batch_wide_math_scores(self) -> bool:
        """transformers 4.45-4.51's Qwen2-VL / Qwen2.5-VL vision SDPA (one [1, n, n] mask over the micro-batch);
        Qwen3-VL came with 4.57, whose non-flash path attends image by image."""
        return self.kind in ("qwen2_vl", "qwen2_5_vl")

    @property
    def pixels_per_token(self) -> int:
        return (self.patch * self.merge) ** 2

    @property
    def patches_per_token(self) -> int:
        return self.merge ** 2

    def tokens(self, pixels: int) -> int:
        """Language-model tokens of one image of `pixels` pixels (at least one)."""
        return max(1, int(pixels) // self.pixels_per_token)

    def block_kept_per_patch(self, compute_bytes: int) -> float:
        """Bytes autograd keeps per patch in one trained ViT block: the two norms' inputs, qkv in/out, the
        attention output, proj input, the MLP's input, intermediate outputs and the down projection's input."""
        d, i = self.hidden, self.intermediate
        mlp = 4 * i if self.gated else 2 * i
        return compute_bytes * (8 * d + mlp)

    def eager_scores(self, image_patches: int, compute_bytes: int) -> float:
        """Bytes of one full-attention block's eager scores over one image of `image_patches` patches: the
        matmul's output in the compute dtype beside softmax's float32 output (then its cast back)."""
        n = int(image_patches)
        return self.heads * n * n * (4 + compute_bytes)

    @property
    def attention_blocks_over_image(self) -> int:
        return self.full_blocks or self.depth

    def block_transient_per_patch(self, compute_bytes: int) -> float:
        """Bytes alive per patch while one block runs forward without keeping anything (a frozen tower)."""
        d, i = self.hidden, self.intermediate
        return compute_bytes * (5 * d + (2 * i if self.gated else i))


@dataclass(frozen=True)
class ClipTower(VisionTower):
    """The CLIP ViT a LLaVA-style script adds with --vision_tower (haotian-liu/LLaVA llava/model/multimodal_encoder/
    clip_encoder.py: CLIPVisionModel.from_pretrained, frozen with requires_grad_(False); LLaVA-NeXT trains it only
    under --unfreeze_mm_vision_tower). transformers' CLIPVisionModel: a bias-free Conv2d patch embedding, a class
    embedding, (patches + 1) positions, a pre-LayerNorm, `depth` blocks (q/k/v/o with bias, LayerNorms, fc1/fc2
    MLP) and a post-LayerNorm. Every patch of the selected layer is one language token (mm_vision_select_feature
    'patch'); the projector (mm_projector_type) is not counted here."""
    image_size: int = 336

    @property
    def params(self) -> int:
        d, n = self.hidden, self.patches_per_image
        return self.in_chans * self.patch * self.patch * d + d + (n + 1) * d + 2 * d + self.depth * self.block_params \
            + 2 * d

    @property
    def block_params(self) -> int:
        d, i = self.hidden, self.intermediate
        return 4 * d * d + 4 * d + 4 * d + d * i + i + i * d + d

    @property
    def patches_per_image(self) -> int:
        return (self.image_size // self.patch) ** 2

    @property
    def patches_per_token(self) -> int:
        return 1

    @property
    def pixels_per_token(self) -> int:
        return self.patch ** 2

    @property
    def default_max_pixels(self) -> int:
        return self.image_size ** 2

    def tokens(self, pixels: int) -> int:
        return self.patches_per_image

    @property
    def batch_wide_math_scores(self) -> bool:
        return False


# the CLIP vision towers LLaVA-style scripts name (openai's published CLIPVisionConfig: ViT-L/14 and ViT-B/16)
CLIP_TOWERS = {"clip-vit-large-patch14-336": (24, 1024, 4096, 16, 14, 336),
               "clip-vit-large-patch14": (24, 1024, 4096, 16, 14, 224),
               "clip-vit-base-patch16": (12, 768, 3072, 12, 16, 224),
               "clip-vit-base-patch32": (12, 768, 3072, 12, 32, 224)}


def clip_tower(name: str, lm_hidden: int) -> ClipTower | None:
    """The CLIP tower a --vision_tower name points at (its last path component), or None for one not known."""
    key = str(name or "").strip().strip("'\"").rstrip("/").split("/")[-1].lower()
    dims = CLIP_TOWERS.get(key)
    if dims is None:
        return None
    depth, d, i, heads, patch, size = dims
    return ClipTower("clip", depth, d, i, False, patch, 1, 1, 3, lm_hidden, True, heads, image_size=size)


class _PlainBlocks:
    """What a tower of plain pre-norm transformer blocks (fc1/fc2 MLP, every block attending over all its positions)
    keeps and needs per position: shared by the audio encoder and the tiled vision towers."""

    depth: int
    hidden: int
    intermediate: int
    heads: int

    @property
    def attention_blocks_over_image(self) -> int:
        return self.depth

    @property
    def batch_wide_math_scores(self) -> bool:
        return False

    def block_kept_per_patch(self, compute_bytes: int) -> float:
        return compute_bytes * (8 * self.hidden + 2 * self.intermediate)

    def block_transient_per_patch(self, compute_bytes: int) -> float:
        return compute_bytes * (5 * self.hidden + self.intermediate)

    def eager_scores(self, positions: int, compute_bytes: int) -> float:
        n = int(positions)
        return self.heads * n * n * (4 + compute_bytes)


@dataclass(frozen=True)
class AudioTower(_PlainBlocks):
    """A Whisper-style audio encoder (Qwen2-Audio: models/qwen2_audio/modeling_qwen2_audio.py Qwen2AudioEncoder and
    Qwen2AudioMultiModalProjector): Conv1d(mel, d, 3) and Conv1d(d, d, 3, stride 2) over the log-mel frames, a
    max_source_positions x d position table, `depth` pre-LayerNorm blocks (q/v/o with bias, k without; fc1/fc2 MLP),
    a final LayerNorm, then AvgPool1d(2) and a Linear(d, language hidden). Its feature extractor pads or cuts a clip
    to 30 s (3000 frames): 1500 encoder positions, 750 language tokens. It stands where a vision tower does
    (ModelSpec.vision): the same frozen/trained/activation accounting, positions in place of patches."""
    kind: str
    depth: int
    hidden: int
    intermediate: int
    heads: int
    mel_bins: int
    positions: int       # max_source_positions: encoder positions of one 30 s clip
    out_hidden: int
    pool: int = 2        # positions per language token (avg_pooler)
    full_blocks: int = 0
    window_patches: int = 0
    norm_bias: bool = True
    merge: int = 1

    @property
    def block_params(self) -> int:
        d, i = self.hidden, self.intermediate
        return 4 * d * d + 3 * d + 4 * d + d * i + i + i * d + d

    @property
    def params(self) -> int:
        d = self.hidden
        return (self.mel_bins * d * 3 + d) + (d * d * 3 + d) + self.positions * d + self.depth * self.block_params \
            + 2 * d + d * self.out_hidden + self.out_hidden

    @property
    def patches_per_token(self) -> int:
        return self.pool

    @property
    def tokens_per_clip(self) -> int:
        return self.positions // self.pool



def _audio(config: dict, lm_hidden: int) -> AudioTower | None:
    a = config.get("audio_config") if isinstance(config, dict) else None
    if not isinstance(a, dict) or not ("d_model" in a or "encoder_layers" in a):
        return None
    return AudioTower(str(a.get("model_type") or "whisper_audio"), _int(a, "encoder_layers", 32),
                      _int(a, "d_model", 1280), _int(a, "encoder_ffn_dim", 5120),
                      _int(a, "encoder_attention_heads", 20), _int(a, "num_mel_bins", 128),
                      _int(a, "max_source_positions", 1500), lm_hidden)


_MAX_SIZE = 10**9   # the bound core/model/architecture.Config.int puts on the language model's sizes


def _int(d: object, key: str | tuple[str, ...], default: int) -> int:
    """`d[key]` (the first key of a tuple that is set) as a size of at least 1, `default` when it is not set; a
    value that is set but not a whole number in [1, 10^9] (a string, a list, NaN, Infinity, -1, 0, 2^64) is a
    UserError naming the key and the value (model_from_config adds the file)."""
    keys = (key,) if isinstance(key, str) else key
    got = [(k, d[k]) for k in keys if isinstance(d, dict) and d.get(k) is not None]
    if not got:
        return default
    k, v = got[0]
    if isinstance(v, bool) or not isinstance(v, (int, float)) or (isinstance(v, float) and not v.is_integer()) \
            or not 1 <= v <= _MAX_SIZE:
        raise UserError(f"{k}={v!r} in its vision/audio config must be an integer between 1 and {_MAX_SIZE:,}")
    return int(v)


def _ratio(d: dict, key: str, default: float) -> float:
    """`d[key]` as a positive finite ratio (mlp_ratio, downsample_ratio), `default` when not set; UserError otherwise."""
    v = d.get(key)
    if v is None:
        return default
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 < v <= 1000:
        raise UserError(f"{key}={v!r} in its vision config must be a number above 0 and at most 1000")
    return float(v)


def _qwen3(v: dict, lm_hidden: int) -> VisionTower:
    d = _int(v, "hidden_size", 1152)
    return VisionTower("qwen3_vl", _int(v, "depth", 27), d, _int(v, "intermediate_size", 4304), False,
                       _int(v, "patch_size", 16), _int(v, "temporal_patch_size", 2),
                       _int(v, "spatial_merge_size", 2), _int(v, ("in_channels", "in_chans"), 3),
                       _int(v, "out_hidden_size", lm_hidden), True, _int(v, "num_heads", 16),
                       patch_bias=True, position_embeddings=_int(v, "num_position_embeddings", 2304),
                       deepstack=len(v.get("deepstack_visual_indexes") or ()))


def from_config(config: dict, lm_hidden: int) -> VisionTower | AudioTower | TiledTower | None:
    """The tower described by a config.json's vision_config (Qwen2-VL / Qwen2.5-VL / Qwen3-VL and Qwen3.5; the tiled
    towers of InternVL, MiniCPM-V and GLM-4V; Qwen-VL's "visual") or, with none, its audio_config (a Whisper-style encoder: Qwen2-Audio);
    None for others."""
    v = config.get("vision_config") if isinstance(config, dict) else None
    mt = str(config.get("model_type") or "") if isinstance(config, dict) else ""
    if not isinstance(v, dict):
        if mt == "qwen" and isinstance(config.get("visual"), dict):
            return qwen_vl_tower(config, lm_hidden)
        return _audio(config, lm_hidden)
    tiled = tiled_from_config(config, lm_hidden)
    if tiled is not None:
        return tiled
    vt = str(v.get("model_type") or "")
    if any(k in t for k in ("qwen3_vl", "qwen3_5") for t in (mt, vt)) or "deepstack_visual_indexes" in v \
            or "num_position_embeddings" in v:
        return _qwen3(v, lm_hidden)
    if "qwen2_5_vl" in mt or "qwen2_5_vl" in vt or "intermediate_size" in v and "out_hidden_size" in v:
        d = _int(v, "hidden_size", 1280)
        return VisionTower("qwen2_5_vl", _int(v, "depth", 32), d, _int(v, "intermediate_size", 3420), True,
                           _int(v, "patch_size", 14), _int(v, "temporal_patch_size", 2),
                           _int(v, "spatial_merge_size", 2), _int(v, ("in_chans", "in_channels"), 3),
                           _int(v, "out_hidden_size", lm_hidden), False, _int(v, "num_heads", 16),
                           len(v.get("fullatt_block_indexes") or (7, 15, 23, 31)),
                           (_int(v, "window_size", 112) // _int(v, "patch_size", 14)) ** 2)
    if "qwen2_vl" in mt or "qwen2_vl" in vt or "embed_dim" in v:
        d = _int(v, "embed_dim", 1280)
        return VisionTower("qwen2_vl", _int(v, "depth", 32), d, int(d * _ratio(v, "mlp_ratio", 4)), False,
                           _int(v, "patch_size", 14), _int(v, "temporal_patch_size", 2),
                           _int(v, "spatial_merge_size", 2), _int(v, ("in_chans", "in_channels"), 3),
                           _int(v, "hidden_size", lm_hidden), True, _int(v, "num_heads", 16))
    return None


# ------------------------------------------------------------------------------------------------ tiled towers
# InternVL (OpenGVLab/InternVL internvl_chat/internvl/model/internvl_chat/modeling_internvl_chat.py), MiniCPM-V 2.6
# (openbmb/MiniCPM-V-2_6 modeling_minicpmv.py + resampler.py) and GLM-4V-9B (THUDM/glm-4v-9b visual.py) cut an
# image into fixed-size tiles (InternVL's dynamic_preprocess: up to max_num 448 x 448 tiles + a thumbnail; MiniCPM-V's
# slice_image: up to max_slice_nums slices of ~448 x 448 + the whole image; GLM-4V: one 1120 x 1120 image). Each tile
# is its own sequence in the ViT (attention spans one tile) and a fixed number of language tokens after the
# projector.

@dataclass(frozen=True)
class TiledTower(_PlainBlocks):
    kind: str                 # "internvl" | "minicpmv" | "glm4v" | "qwen_vl"
    depth: int
    hidden: int
    intermediate: int
    heads: int
    patch: int
    tile: int                 # side of one tile in pixels
    tile_tokens: int          # language tokens of one tile (after pixel shuffle / resampler / conv)
    max_tiles: int            # tiles of one image at the runner's default (thumbnail / source image included)
    block_params: int
    other_params: int         # embeddings, final norms, projector / resampler
    extra_tokens: int = 0     # marker tokens per image around the tiles (GLM-4V: boi + eoi)
    checkpointing: bool = True   # the tower honours gradient_checkpointing_enable (GLM-4V's EVA2-CLIP does not)
    input_grads_hook: bool = True  # a PreTrainedModel with enable_input_require_grads (EVA2CLIPModel: nn.Module)
    lora_names: tuple = ()    # module names of the tower's linears a LoRA target list can name
    norm_bias: bool = True
    full_blocks: int = 0
    window_patches: int = 0
    merge: int = 1
    cls_token: bool = True

    @property
    def params(self) -> int:
        return self.depth * self.block_params + self.other_params

    @property
    def patches_per_tile(self) -> int:
        return (self.tile // self.patch) ** 2 + (1 if self.cls_token else 0)

    @property
    def patches_per_token(self) -> int:
        return max(1, self.patches_per_tile // self.tile_tokens)

    def tokens_for(self, tiles: int) -> int:
        return max(1, int(tiles)) * self.tile_tokens + self.extra_tokens

    def attention_span(self, image_patches: int) -> int:
        """Patches one attention call spans: one tile (every tile is its own sequence in the ViT)."""
        return min(int(image_patches), self.patches_per_tile)



def _ln(d: int, bias: bool = True) -> int:
    return d * (2 if bias else 1)


def _lin(i: int, o: int, bias: bool = True) -> int:
    return i * o + (o if bias else 0)


def internvl_tower(v: dict, lm_hidden: int, downsample: float = 0.5, max_tiles: int = 13) -> TiledTower:
    """InternViT (modeling_intern_vit.py: Conv2d patch embedding with bias, class embedding, (patches + 1) position
    table; blocks of norm1/norm2 (LayerNorm for InternViT-300M, RMSNorm for InternViT-6B), qkv (bias per qkv_bias),
    optional q/k RMSNorms (qk_normalization), proj, fc1/fc2, layer scales ls1/ls2) and InternVLChatModel's mlp1
    (LayerNorm(d*r) -> Linear(d*r, lm) -> GELU -> Linear(lm, lm), r = (1/downsample_ratio)^2). A 448-pixel tile is
    1024 patches, 256 tokens after pixel_shuffle at 0.5."""
    d, i = _int(v, "hidden_size", 1024), _int(v, "intermediate_size", 4096)
    rms = str(v.get("norm_type") or "layer_norm") == "rms_norm"
    qkv_bias = bool(v.get("qkv_bias", True))
    block = 2 * _ln(d, not rms) + _lin(d, 3 * d, qkv_bias) + (2 * d if v.get("qk_normalization") else 0) \
        + _lin(d, d) + _lin(d, i) + _lin(i, d) + 2 * d
    patch, size = _int(v, "patch_size", 14), _int(v, "image_size", 448)
    r = round(1 / downsample) ** 2
    other = 3 * patch * patch * d + d + d + ((size // patch) ** 2 + 1) * d \
        + _ln(d * r) + _lin(d * r, lm_hidden) + _lin(lm_hidden, lm_hidden)
    tokens = int((size // patch) ** 2 * downsample * downsample)
    return TiledTower("internvl", _int(v, "num_hidden_layers", 24), d, i, _int(v, "num_attention_heads", 16),
                      patch, size, tokens, max_tiles, block, other, norm_bias=not rms,
                      lora_names=("qkv", "proj", "fc1", "fc2"))


def minicpmv_tower(config: dict, lm_hidden: int, max_slices: int = 9) -> TiledTower:
    """MiniCPM-V 2.6's SigLIP (modeling_navit_siglip.py SiglipVisionTransformer: Conv2d patch embedding with bias,
    a (image_size/patch)^2 position table, blocks of two LayerNorms, q/k/v/out with bias, fc1/fc2, a post-LayerNorm)
    and the resampler (resampler.py: query_num learned queries of the language width, kv_proj Linear(d, lm) without
    bias, nn.MultiheadAttention(lm, lm/128 heads), ln_q/ln_kv/ln_post, proj lm x lm). Each slice of ~scale_resolution^2
    pixels is query_num tokens; an image is its source plus up to max_slice_nums slices."""
    v = config.get("vision_config") or {}
    d, i = _int(v, "hidden_size", 1152), _int(v, "intermediate_size", 4304)
    patch, size = _int(v, "patch_size", 14), _int(v, "image_size", 980)
    block = 2 * _ln(d) + 4 * _lin(d, d) + _lin(d, i) + _lin(i, d)
    q = _int(config, "query_num", 64)
    resampler = q * lm_hidden + lm_hidden * lm_hidden + _lin(d, lm_hidden, False) + _lin(lm_hidden, 3 * lm_hidden) \
        + _lin(lm_hidden, lm_hidden) + 3 * _ln(lm_hidden)
    other = 3 * patch * patch * d + d + (size // patch) ** 2 * d + _ln(d) + resampler
    slices = config.get("slice_config") or {}
    tile = _int(slices, "scale_resolution", 448)
    depth = _int(v, "num_hidden_layers", 27) - (1 if config.get("drop_vision_last_layer") else 0)
    return TiledTower("minicpmv", depth, d, i, _int(v, "num_attention_heads", 16), patch, tile, q,
                      1 + _int(slices, "max_slice_nums", max_slices), block, other, cls_token=False,
                      lora_names=("q_proj", "k_proj", "v_proj", "out_proj", "fc1", "fc2"))


def glm4v_tower(config: dict, lm_hidden: int) -> TiledTower:
    """GLM-4V-9B's EVA2-CLIP-E (visual.py: PatchEmbedding Conv2d with bias + cls_embedding + an nn.Embedding of
    num_positions; TransformerLayer: input/post-attention LayerNorms, query_key_value and dense with bias, fc1/fc2;
    then a Conv2d(d, lm, 2, stride 2), the GLU projector (linear_proj lm x lm, LayerNorm, gate_proj/dense_h_to_4h
    lm x ffn_hidden_size, dense_4h_to_h, no biases) and boi/eoi). A 1120 x 1120 image is 6400 patches + cls, 1600
    language tokens + boi/eoi. Its Transformer loops over the layers with no checkpointing hook."""
    v = config.get("vision_config") or {}
    d, i = _int(v, "hidden_size", 1792), _int(v, "intermediate_size", 15360)
    patch, size = _int(v, "patch_size", 14), _int(v, "image_size", 1120)
    ffn = _int(config, "ffn_hidden_size", 13696)
    block = 2 * _ln(d) + _lin(d, 3 * d) + _lin(d, d) + _lin(d, i) + _lin(i, d)
    other = 3 * patch * patch * d + d + d + _int(v, "num_positions", (size // patch) ** 2 + 1) * d \
        + 4 * d * lm_hidden + lm_hidden + lm_hidden * lm_hidden + _ln(lm_hidden) + 3 * lm_hidden * ffn + 2 * lm_hidden
    tokens = (size // patch // 2) ** 2
    return TiledTower("glm4v", _int(v, "num_hidden_layers", 63), d, i, _int(v, "num_heads", 16), patch, size,
                      tokens, 1, block, other, extra_tokens=2, checkpointing=False, input_grads_hook=False,
                      lora_names=("query_key_value", "dense", "fc1", "fc2"))


def qwen_vl_tower(config: dict, lm_hidden: int) -> TiledTower:
    """Qwen-VL / Qwen-VL-Chat's ViT-bigG (remote code visual.py VisionTransformer, built from config.json's "visual"):
    a bias-free Conv2d patch embedding, a 256 x width position table (interpolated to the grid), ln_pre, `layers`
    VisualAttentionBlocks (ln_1/ln_2, attn.in_proj width -> 3 width and attn.out_proj with bias, mlp.c_fc / c_proj of
    int(width * mlp_ratio) with bias, GELU) and the Resampler: 256 learned queries and a fixed sin-cos pos_embed of
    output_dim, kv_proj Linear(width, output_dim) without bias, nn.MultiheadAttention(output_dim, output_dim / 128
    heads), ln_q / ln_kv, then ln_post and proj (output_dim x output_dim). One 448 x 448 image is 1024 patches and 256
    language tokens between <img> and </img>. Its TransformerBlock loops over the blocks with no checkpointing."""
    v = config.get("visual") or {}
    d, out = _int(v, "width", 1664), _int(v, "output_dim", lm_hidden)
    i = int(d * _ratio(v, "mlp_ratio", 4.9231))
    patch, size, q = _int(v, "patch_size", 14), _int(v, "image_size", 448), _int(v, "n_queries", 256)
    block = 2 * _ln(d) + _lin(d, 3 * d) + _lin(d, d) + _lin(d, i) + _lin(i, d)
    resampler = 2 * q * out + _lin(d, out, False) + _lin(out, 3 * out) + _lin(out, out) + 2 * _ln(out)
    other = 3 * patch * patch * d + 256 * d + _ln(d) + resampler + _ln(out) + out * out
    return TiledTower("qwen_vl", _int(v, "layers", 48), d, i, _int(v, "heads", 16), patch, size, q, 1, block, other,
                      extra_tokens=2, checkpointing=False, input_grads_hook=False, cls_token=False,
                      lora_names=("in_proj", "out_proj", "c_fc", "c_proj"))


def tiled_from_config(config: dict, lm_hidden: int) -> TiledTower | None:
    """The tiled tower a config.json describes: InternVL (vision_config model_type intern_vit_6b, downsample_ratio,
    max_dynamic_patch), MiniCPM-V (model_type minicpmv: a SigLIP vision_config + query_num + slice_config), GLM-4V-9B
    (model_type chatglm with a vision_config); None for others."""
    v = config.get("vision_config")
    if not isinstance(v, dict):
        return None
    mt, vt = str(config.get("model_type") or ""), str(v.get("model_type") or "")
    if vt == "intern_vit_6b" or mt == "internvl_chat":
        thumb = 1 if config.get("use_thumbnail", True) else 0
        mx = _int(config, "max_dynamic_patch", 12)
        return internvl_tower(v, lm_hidden, _ratio(config, "downsample_ratio", 0.5), mx + (thumb if mx > 1 else 0))
    if mt == "minicpmv" or "query_num" in config and "slice_config" in config:
        return minicpmv_tower(config, lm_hidden)
    if mt == "chatglm" or "scaling_factor" in v and "num_positions" in v:
        return glm4v_tower(config, lm_hidden)
    return None
