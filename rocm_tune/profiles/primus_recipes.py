"""AMD Primus Megatron-Bridge model files whose recipe builds its own LoRA (issue 26). Pure data.

A Primus experiment's `modules.<trainer>.model: <file>.yaml` names a file of primus/configs/models/megatron_bridge/,
which names a recipe module and a flavor function; that function returns the ConfigContainer, its `peft` included.
An experiment's `peft: lora` override is a string, and Primus' merge skips a value whose type differs from the
field's (AMD-AGI/Primus:primus/backends/megatron_bridge/config_utils.py _merge_dict_to_dataclass: "Skipping ...:
type mismatch"): the recipe's LoRA object stays. Keys are the model file's base name, lower case."""

from __future__ import annotations

_MLPERF70 = ("AMD-AGI/Primus:primus/backends/megatron_bridge/recipes/mlperf_llama2_70b/llama2_custom.py "
             "(_llama2_lora: peft_config = LoRA(dim=16, alpha=32, target_modules=[\"linear_qkv\", \"linear_proj\"]))")

# model file -> (LoRA rank, the HF names of the modules it wraps, source)
RECIPE_LORA: dict[str, tuple[int, tuple[str, ...], str]] = {
    # recipe primus.backends.megatron_bridge.recipes.mlperf_llama2_70b.llama2_custom, flavor
    # llama2_70b_lora_mxfp4_config -> llama2_70b_lora_config -> _llama2_lora; linear_qkv is q/k/v, linear_proj is o
    "llama2_70b_lora_mxfp4": (16, ("q_proj", "k_proj", "v_proj", "o_proj"), _MLPERF70),
}


def recipe_lora(model_file: str) -> tuple[int, tuple[str, ...], str] | None:
    """The recipe's own LoRA of a Primus Megatron-Bridge model file (`llama2_70b_lora_mxfp4.yaml`), or None."""
    base = str(model_file).replace("\\", "/").rsplit("/", 1)[-1].lower()
    for ext in (".yaml", ".yml"):
        if base.endswith(ext):
            base = base[: -len(ext)]
    return RECIPE_LORA.get(base)
