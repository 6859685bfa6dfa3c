"""Model families whose own forward computes the training loss in a way that holds more of the [tokens, vocab] logits
than transformers' loss does (data; the logic is core/memory/loss_copies.py).

transformers' ForCausalLMLoss (4.50 on: labels padded instead of the logits shifted) holds, at the end of the forward,
the 16-bit logits the model returns, their fp32 upcast and the fp32 log-softmax of the cross-entropy: 2 + 4 + 4 bytes
per logit, as core/memory/estimate.py counts them.

Remote code (trust_remote_code) keeps its own forward. The ChatGLM family's modeling_chatglm.py (THUDM/chatglm2-6b,
THUDM/chatglm3-6b, THUDM/glm-4-9b(-chat), THUDM/glm-4v-9b; model_type "chatglm", family "chatglm" here) does, in
ChatGLMForConditionalGeneration.forward, whenever labels are given:

    lm_logits = self.transformer.output_layer(hidden_states)        # 16-bit (ChatGLM2/3: transposed, .contiguous())
    lm_logits = lm_logits.to(torch.float32)                          # fp32 copy; the 16-bit one is freed
    shift_logits = lm_logits[..., :-1, :].contiguous()               # a second fp32 copy, alive to the return
    loss = CrossEntropyLoss(ignore_index=-100)(shift_logits.view(..), shift_labels.view(-1))   # fp32 log-softmax
    lm_logits = lm_logits.to(hidden_states.dtype)                    # 16-bit copy made while the fp32 one is alive

so at the cast back the fp32 logits, the shifted fp32 copy, the fp32 log-softmax (saved for the backward) and the new
16-bit logits are alive together: 4 + 4 + 4 + 2 bytes per logit under a 16-bit compute dtype (14, not 10). Without
autograd (evaluation, torch.no_grad) the log-softmax is freed inside cross_entropy: the peak is at it, 4 + 4 + 4 = 12
(not 10). In fp32 the two .to() calls return the same tensor (12 bytes, as counted for fp32 already).
"""

from __future__ import annotations

# family -> (bytes per logit at the loss's peak under a 16-bit compute dtype: training, evaluation (no_grad); the
# source that says so)
OWN_LOSS_BYTES_16BIT: dict[str, tuple[int, int, str]] = {
    "chatglm": (14, 12, "modeling_chatglm.py ChatGLMForConditionalGeneration.forward (THUDM/chatglm3-6b, "
                    "THUDM/glm-4-9b-chat): fp32 logits + shifted fp32 copy + fp32 log-softmax + the 16-bit cast back"),
}
# what core/memory/estimate.py counts for transformers' own loss: 16-bit logits + fp32 upcast + fp32 log-softmax
TRANSFORMERS_LOSS_BYTES_16BIT = 10

# transformers' own causal-LM loss, release by release (read from the release wheels' source; 16-bit compute dtype;
# an fp32 compute dtype holds 12 in every row, as counted): bytes per [token, vocab] logit at the loss's peak, with
# autograd (the step) and without (evaluation) alike. `logits[..., :-1, :]` of a batch of ONE row is already
# contiguous (the batch dimension has size 1, its stride does not count), so `.contiguous()` returns the tensor
# itself and the shifted copy exists only with two rows or more.
#   v4.30.2 and older (models/llama/modeling_llama.py LlamaForCausalLM.forward): no upcast, the shifted copy and the
#     cross-entropy in the logits' dtype (autocast then upcasts inside cross_entropy): not modelled here, today's 10.
#   v4.31.0 - v4.45.2 (modeling_llama.py, and the same lines in modeling_mistral / mixtral / qwen2 / qwen2_moe / gemma
#     / gemma2 / phi / phi3 / cohere / olmo / starcoder2 .py @ v4.36.2, v4.44.2, v4.45.2): `logits = logits.float()` in
#     the forward (v4.45: `self.lm_head(hidden_states[:, -num_logits_to_keep:, :]).float()`, num_logits_to_keep=0 in
#     training = every position), the 16-bit lm_head output freed at once; `shift_logits = logits[..., :-1, :]
#     .contiguous()` and CrossEntropyLoss: fp32 logits (returned) + fp32 shifted copy + fp32 log-softmax = 4 + 4 + 4 =
#     12 (one row: 4 + 4 = 8).
#   v4.46.0 - v4.48.x (loss/loss_utils.py ForCausalLMLoss, called as self.loss_function(logits=logits, ...) from the
#     forward, which returns the 16-bit logits): `logits = logits.float()` and `shift_logits = logits[..., :-1, :]
#     .contiguous()` inside the loss: 2 + 4 + 4 + 4 = 14 (one row: 10; no_grad too: the loss's fp32 local lives through
#     the cross-entropy). Mistral kept its own forward (the row above) through v4.47.1, Starcoder2 through v4.46.x.
#   v4.49.0 on (loss_utils.py ForCausalLMLoss: `labels = nn.functional.pad(labels, (0, 1), value=ignore_index)`, the
#     logits not shifted): 2 + 4 + 4 = 10, today's figure, any batch.
# Measured on CPU (a 1-layer LlamaForCausalLM, vocab 32000, bf16, a dispatch mode summing the live storages made in the
# forward with labels): v4.44.2 12.0 / 8.1, v4.47.1 14.0 / 10.1, v4.50.0 10.0 / 10.1 bytes per logit under no_grad at
# 2 rows / 1 row (with autograd 0.6-1.0 more in each, the layer's saved activations).
# (first release, first release after, bytes per logit with two rows or more, with one row, the source)
HF_LOSS_BYTES_16BIT: tuple[tuple[tuple[int, int], tuple[int, int] | None, int, int, str], ...] = (
    ((4, 31), (4, 46), 12, 8, "transformers models/<family>/modeling_<family>.py ForCausalLM.forward @ v4.31.0-v4.45.2: "
                              "`logits = logits.float()`, `shift_logits = logits[..., :-1, :].contiguous()`"),
    ((4, 46), (4, 49), 14, 10, "transformers loss/loss_utils.py ForCausalLMLoss @ v4.46.0, v4.47.1, v4.48.0: the 16-bit "
                               "logits returned, `logits.float()` and a shifted `.contiguous()` fp32 copy inside the loss"),
    ((4, 49), None, 10, 10, "transformers loss/loss_utils.py ForCausalLMLoss @ v4.49.0: labels padded, no shifted copy"),
)
# the model types whose ForCausalLM in transformers has those lines (checked in the release wheels named above)
HF_LOSS_FAMILIES = frozenset({"llama", "mistral", "mixtral", "qwen2", "qwen2_moe", "gemma", "gemma2", "phi", "phi3",
                              "cohere", "olmo", "starcoder2"})
# model types that kept their own upcasting forward (the v4.31-v4.45 row) after v4.46.0, up to the release named
# (modeling_mistral.py @ v4.46.0, v4.47.1: `logits = logits.float()` + shifted copy; ForCausalLMLoss @ v4.48.0;
# modeling_starcoder2.py @ v4.46.0 likewise, ForCausalLMLoss @ v4.47.1)
HF_OWN_FORWARD_UNTIL: dict[str, tuple[int, int]] = {"mistral": (4, 48), "starcoder2": (4, 47)}
# Vision-language wrappers keep their own forward: Qwen2VLForConditionalGeneration / Qwen2_5_VLForConditionalGeneration
# (models/qwen2_vl/modeling_qwen2_vl.py @ v4.45.2 - v4.50.0, qwen2_5_vl @ v4.49.0, v4.50.0): `logits = logits.float()`
# and `shift_logits = logits[..., :-1, :].contiguous()` under `if labels is not None`, the fp32 logits returned: 12,
# (8 with one row), whatever the release's ForCausalLMLoss holds. (first release, first release not checked, bytes per
# logit with two rows or more, with one row, source)
HF_QWEN_VL_LOSS_16BIT: tuple[tuple[int, int], tuple[int, int], int, int, str] = (
    (4, 45), (4, 51), 12, 8, "transformers models/qwen2_vl/modeling_qwen2_vl.py (qwen2_5_vl) "
                              "Qwen2VLForConditionalGeneration.forward @ v4.45.2-v4.50.0: `logits = logits.float()`, "
                              "`shift_logits = logits[..., :-1, :].contiguous()`")

# transformers before v4.36 has no SDPA path for these families: LlamaAttention / MistralAttention compute
# `attn_weights = torch.matmul(query_states, key_states.transpose(2, 3)) / math.sqrt(self.head_dim)`, add the mask,
# `nn.functional.softmax(attn_weights, dim=-1, dtype=torch.float32).to(query_states.dtype)` and keep them for the
# backward (modeling_llama.py v4.33-v4.35); `attn_implementation` and LlamaSdpaAttention came in v4.36 (the default
# "sdpa" from then on). Without a FlashAttention-2 request (v4.34-v4.35 `use_flash_attention_2=True`) a pinned
# release before 4.36 runs eager attention: (first release after, families, the source)
PRE_SDPA_ATTENTION: tuple[tuple[int, int], tuple[str, ...], str] = (
    (4, 36), ("llama", "mistral"),
    "modeling_llama.py / modeling_mistral.py before v4.36: eager attention only (LlamaSdpaAttention and "
    "attn_implementation='sdpa' came in v4.36)")
