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

# transformers' own causal-LM loss before the 4.50 one (labels padded, the logits not copied), by the release a user's
# files pin (`transformers==4.44.2`), under a 16-bit compute dtype, where the trainer hands the model its labels:
#
# * 4.36-4.45, LlamaForCausalLM.forward and the forwards "Copied from" it (MistralForCausalLM, MixtralForCausalLM,
#   Qwen2ForCausalLM, Qwen2MoeForCausalLM, GemmaForCausalLM; modeling_llama.py v4.44.2):
#       logits = self.lm_head(hidden_states); logits = logits.float()        # the 16-bit output is freed
#       shift_logits = logits[..., :-1, :].contiguous()                      # a second fp32 copy, alive to the return
#       loss = CrossEntropyLoss()(shift_logits.view(-1, vocab), ...)         # fp32 log-softmax, saved for backward
#   4 + 4 + 4 = 12 bytes per logit at the loss, not 10;
# * 4.46-4.47, the same models' forward returns the 16-bit logits and calls self.loss_function = ForCausalLMLoss
#   (loss/loss_utils.py v4.47.0): `logits = logits.float()`, `shift_logits = logits[..., :-1, :].contiguous()`, then
#   fixed_cross_entropy: 2 + 4 + 4 + 4 = 14 bytes per logit.
# The loss backward holds 12 bytes per logit either way (the saved log-softmax, its gradient, the input's gradient;
# the slice's zero-filled fp32 gradient comes after the log-softmax's is freed). In fp32 compute `.float()` returns
# the tensor itself: 12 bytes, as counted for fp32 already. 4.48-4.49 are left at the 4.50 count (the release that
# dropped the copy is not pinned down here). Families not listed keep transformers' count (GPT-2's and OPT's
# forwards take the loss on the 16-bit logits, no upcast).
# (first release, first release after, bytes per logit at the loss's forward peak, at its backward's, the source)
PRE_450_LOSS_BYTES_16BIT: tuple[tuple[tuple[int, int], tuple[int, int], int, int, str], ...] = (
    ((4, 36), (4, 46), 12, 12, "modeling_llama.py LlamaForCausalLM.forward (v4.36-v4.45): logits.float() then "
                               "shift_logits = logits[..., :-1, :].contiguous(), an fp32 copy beside the log-softmax"),
    ((4, 46), (4, 48), 14, 12, "loss/loss_utils.py ForCausalLMLoss (v4.46-v4.47): logits.float() and "
                               "logits[..., :-1, :].contiguous() beside the 16-bit logits the forward returns"),
)
PRE_450_LOSS_FAMILIES: tuple[str, ...] = ("llama", "mistral", "mixtral", "qwen2", "qwen2_moe", "gemma")

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
