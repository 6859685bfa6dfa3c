"""A LoRA run on a compressed-tensors checkpoint (llm-compressor's AWQ / GPTQ / W4A16 exports) holds its linears at
16 bits once they have run: transformers loads them as compressed_tensors' CompressedLinear (CompressedTensorsConfig
run_compressed=True), whose first forward decompresses the weight and registers it as a parameter for good
(neuralmagic/compressed-tensors >= 0.9.3, src/compressed_tensors/linear/compressed_linear.py forward). An AutoAWQ
checkpoint of the same model stays 4-bit (WQLinear dequantizes per call, saves only the packed weight)."""

from __future__ import annotations

import contextlib
import io
import json

from rocm_tune.cli import main

CONFIG = {
    "architectures": ["Qwen3MoeForCausalLM"], "model_type": "qwen3_moe", "hidden_size": 2048,
    "intermediate_size": 6144, "moe_intermediate_size": 768, "num_experts": 128, "num_experts_per_tok": 8,
    "num_hidden_layers": 48, "num_attention_heads": 32, "num_key_value_heads": 4, "head_dim": 128,
    "vocab_size": 151936, "max_position_embeddings": 40960, "torch_dtype": "bfloat16", "tie_word_embeddings": False,
    "rms_norm_eps": 1e-6, "decoder_sparse_step": 1, "mlp_only_layers": [], "norm_topk_prob": True,
}
COMPRESSED = {"quant_method": "compressed-tensors", "format": "pack-quantized", "quantization_status": "compressed",
              "config_groups": {"group_0": {"targets": ["Linear"], "weights": {"num_bits": 4, "type": "int",
                                                                               "group_size": 32}}},
              "ignore": ["lm_head", "re:.*mlp.gate$"]}
AUTOAWQ = {"quant_method": "awq", "bits": 4, "group_size": 128, "version": "gemm", "zero_point": True}

SCRIPT = """swift sft \\
  --model {model} \\
  --train_type lora \\
  --target_modules q_proj k_proj v_proj o_proj \\
  --max_length 512 \\
  --per_device_train_batch_size 1 \\
  --gradient_checkpointing true \\
  --output_dir out
"""


def _check(tmp_path, quant: dict) -> dict:
    model = tmp_path / quant["quant_method"]
    model.mkdir()
    (model / "config.json").write_text(json.dumps({**CONFIG, "quantization_config": quant}))
    script = tmp_path / f"train-{quant['quant_method']}.sh"
    script.write_text(SCRIPT.format(model=model))
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        rc = main(["check", str(script), "--gpu", "rtx3090", "--json"])
    assert rc in (0, 1), out.getvalue()
    return json.loads(out.getvalue())


def test_compressed_tensors_linears_are_counted_decompressed(tmp_path):
    ct = _check(tmp_path, COMPRESSED)
    awq = _check(tmp_path, AUTOAWQ)
    assert any("compressed-tensors" in n and "16 bits" in n for n in ct["notes"])
    assert not any("compressed-tensors" in n for n in awq["notes"])
    assert awq["verdict"] == "fits"
    # ~30.5B parameters at 16 bits on a 24 GB card: out of memory once loaded and run
    assert ct["verdict"] == "oom"
    grown = ct["memory"]["load"]["peak_allocated_bytes"] - awq["memory"]["load"]["peak_allocated_bytes"]
    assert grown > 35 * 2**30   # the linears' 1.5 bytes per parameter more (16 bits instead of ~4)


AUX = """swift sft \\
  --model Qwen/Qwen3-30B-A3B \\
  --train_type lora \\
  --max_length 4096 \\
  --per_device_train_batch_size 2 \\
  --gradient_checkpointing true {extra}\\
  --output_dir out
"""


def _swift(tmp_path, name: str, extra: str) -> dict:
    script = tmp_path / f"{name}.sh"
    script.write_text(AUX.format(extra=extra))
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        rc = main(["check", str(script), "--vram-gib", "192", "--json"])
    assert rc in (0, 1), out.getvalue()
    return json.loads(out.getvalue())


def _aux_gib(d: dict) -> float:
    notes = [n for n in d["notes"] if n.startswith("router load-balancing loss")]
    assert len(notes) == 1, d["notes"]
    return float(notes[0].split(" holds ")[1].split(" GiB")[0])


def test_router_aux_loss_one_hot_and_masks_are_counted(tmp_path):
    """ms-swift's router_aux_loss_coef > 0 makes Qwen3-MoE return every layer's router logits and run transformers'
    load_balancing_loss_func over them: 48 layers x 8192 tokens x top-8 of 128 experts."""
    off = _swift(tmp_path, "off", "")
    masked = _swift(tmp_path, "masked", "--router_aux_loss_coef 1e-3 ")
    flat = _swift(tmp_path, "flat", "--router_aux_loss_coef 1e-3 --padding_free true ")
    assert "router_aux_loss" not in off["understood"]
    assert masked["understood"]["router_aux_loss"] == "masked"
    assert flat["understood"]["router_aux_loss"] == "unmasked"
    e, k, layers, tokens = 128, 8, 48, 2 * 4096
    assert abs(_aux_gib(masked) - (3 * 2 * e * layers + 24 * k * e * layers) * tokens / 2**30) < 0.01
    assert abs(_aux_gib(flat) - (3 * 2 * e * layers + 12 * k * e * layers) * tokens / 2**30) < 0.01
    # a transient at the forward's end: the step's peak grows, never by more than the term itself
    grown = masked["memory"]["step"]["peak_allocated_bytes"] - off["memory"]["step"]["peak_allocated_bytes"]
    assert 0 < grown <= _aux_gib(masked) * 2**30 * 1.01
