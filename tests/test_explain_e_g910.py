"""`explain` on the gaps the independent samples g9/g10 showed (helper e-g910, issue 26): families read from the
code that raised the exception. Each log is written as the tool's source prints it (none is a corpus case), and
each rule has look-alikes that keep their own family.

- transformers' modeling_<m>.py reshaping the attention output to hidden_size on a checkpoint whose heads x
  head_dim is another width (Mistral-NeMo on < 4.43) -> version_check (the log shows both widths);
- flash-linear-attention's TileLang backend failing to build for this GPU -> flash_attn_error (FLA_TILELANG=0);
- nvidia-resiliency-ext (CUDA-only) loaded by a Megatron option -> config_error on ROCm, missing_package on NVIDIA;
- PEFT refusing a quantization library's layer (QuantLinear, WQLinear_GEMM, HQQLinear...) -> version_check; any
  other module type stays config_error (target_modules);
- transformers' auto classes not knowing the model_type (KeyError in configuration_auto, "does not recognize this
  architecture") -> unrecognized_model_type_adapter, whatever the type's name.
"""

from __future__ import annotations

import pytest

from rocm_tune.core.runs.diagnose.diagnose import diagnose

NOISE = ("Loading checkpoint shards: 100%|##########| 4/4 [00:05<00:00,  1.31s/it]\n"
         "[INFO|trainer.py:2128] 2025-01-10 10:00:00,000 >> ***** Running training *****\n"
         "  0%|          | 0/1000 [00:00<?, ?it/s]")
SP = "/opt/conda/lib/python3.11/site-packages"
TB = "Traceback (most recent call last):\n  File \"/work/train.py\", line 41, in <module>\n    trainer.train()\n"


def _frame(path: str, line: int, fn: str, code: str) -> str:
    return f'  File "{path}", line {line}, in {fn}\n    {code}\n'


def _root(tmp_path, text):
    log = tmp_path / "train.log"
    log.write_text(text)
    exp = diagnose([str(log)])
    assert exp.root is not None
    return exp.diagnoses[exp.root]


# ---------------------------------------------------------------- transformers attention width vs checkpoint
def _modeling(model: str, code: str) -> str:
    return (TB + _frame(f"{SP}/torch/nn/modules/module.py", 1736, "_call_impl", "return forward_call(*args, **kwargs)")
            + _frame(f"{SP}/transformers/models/{model}/modeling_{model}.py", 431, "forward", code))


WIDTH = {
    # Qwen2's flash-attention path (4.40-4.42): reshape to hidden_size; 2 x 512 tokens x 32 heads x 128 = 4096 vs 5120
    "qwen2-flash-reshape": ("qwen2", "attn_output = attn_output.reshape(bsz, q_len, self.hidden_size).contiguous()",
                            "RuntimeError: shape '[2, 512, 5120]' is invalid for input of size 4194304", "4096"),
    # Llama eager path (4.36-4.42): view to hidden_size; a 3072-wide model with 32 x 128 attention (Minitron-style)
    "llama-eager-view": ("llama", "attn_output = attn_output.view(bsz, q_len, self.hidden_size)",
                         "[rank0]: RuntimeError: shape '[1, 77, 3072]' is invalid for input of size 315392", "4096"),
}


@pytest.mark.parametrize("key", sorted(WIDTH))
def test_attention_width_skew_is_version_check(tmp_path, key):
    model, code, err, width = WIDTH[key]
    d = _root(tmp_path, NOISE + "\n" + _modeling(model, code) + err + "\n")
    assert d.family == "version_check"
    assert width in d.fix and "head_dim" in d.fix and "upgrade transformers" in d.fix


@pytest.mark.parametrize("text", [
    # the user's own reshape: their tensor, not the release's model code
    TB + _frame("/work/model.py", 88, "forward", "x = x.view(b, s, self.hidden_size)")
    + "RuntimeError: shape '[1, 83, 5120]' is invalid for input of size 339968\n",
    # transformers' code, but the split into heads (the input, not the width, is wrong)
    _modeling("mistral", "query_states = query_states.view(bsz, q_len, self.num_heads, self.head_dim)")
    + "RuntimeError: shape '[1, 83, 32, 128]' is invalid for input of size 430080\n",
])
def test_other_shape_errors_are_not_the_release(tmp_path, text):
    assert _root(tmp_path, NOISE + "\n" + text).family != "version_check"


# ---------------------------------------------------------------- flash-linear-attention's TileLang backend
FLA = "/srv/venv/lib/python3.12/site-packages/fla"
TL = "/srv/venv/lib/python3.12/site-packages/tilelang"


def _fla_tb(err: str, backend: bool = True) -> str:
    head = (TB + _frame(f"{FLA}/ops/gated_delta_rule/chunk.py", 163, "chunk_gated_delta_rule_fwd",
                        "o = chunk_fwd_o(q=q, k=k, v=v, h=h, g=g, scale=scale)"))
    if backend:
        head += _frame(f"{FLA}/ops/backends/__init__.py", 182, "wrapper", "result = impl(*args, **kwargs)")
        head += _frame(f"{FLA}/ops/common/backends/tilelang/__init__.py", 61, "chunk_fwd_o",
                       "return chunk_fwd_o_tilelang(")
    return (head + _frame(f"{TL}/jit/kernel.py", 137, "__init__", "adapter = self._compile_and_create_adapter(func)")
            + _frame(f"{TL}/engine/lower.py", 249, "lower", "mod = LowerAndLegalize(mod, target)")
            + '  File "<unknown>", line 0, in tvm::tl::GemmPyNode::getGemmInst(int, tvm::Target) const\n' + err)


def test_fla_tilelang_backend_on_rdna_is_attention(tmp_path):
    err = ("tvm.error.InternalError: Check failed: (0) is false: Unsupported target for gemm: hip -keys=hip,gpu "
           "-mcpu=gfx1100 -mtriple=amdgcn-amd-amdhsa-hcc -thread_warp_size=32\n")
    d = _root(tmp_path, "HIP_VISIBLE_DEVICES=0 python train_gdn.py\n" + _fla_tb(err))
    assert d.family == "flash_attn_error"
    assert "FLA_TILELANG=0" in d.fix


def test_tilelang_kernel_of_the_user_is_not_fla(tmp_path):
    # the same TVM error from the user's own TileLang kernel: no FLA backend frame, not the attention library's
    err = "tvm.error.InternalError: Check failed: (0) is false: Unsupported target for gemm: metal -keys=metal,gpu\n"
    d = _root(tmp_path, _fla_tb(err, backend=False).replace(f"{FLA}/ops/gated_delta_rule/chunk.py", "/work/my_gemm.py"))
    assert d.family != "flash_attn_error"


def test_fla_tilelang_import_failure_is_the_package(tmp_path):
    text = (TB + _frame(f"{FLA}/ops/common/backends/tilelang/__init__.py", 12, "<module>",
                        "from fla.ops.common.backends.tilelang.chunk_bwd import chunk_bwd_dqkwg_tilelang")
            + "ModuleNotFoundError: No module named 'tilelang'\n")
    assert _root(tmp_path, text).family == "missing_package"


# ---------------------------------------------------------------- a CUDA-only package an option loads
MEGATRON = "/workspace/Megatron-LM/megatron"
NVRX_ASYNC = (TB + _frame(f"{MEGATRON}/training/checkpointing.py", 498, "save_checkpoint",
                          "save_strategy = get_default_save_sharded_strategy(args.ckpt_format)")
              + _frame(f"{MEGATRON}/core/dist_checkpointing/strategies/torch.py", 1169, "get_async_strategy",
                       "raise ModuleNotFoundError(")
              + "ModuleNotFoundError: A compatible `nvidia-resiliency-ext` installation is required for\n"
                "`async_strategy=\"nvrx\"`. Please install it or set `async_strategy` to `mcore`.\n")
NVRX_FT = (TB + _frame(f"{MEGATRON}/training/ft_integration.py", 61, "<module>",
                       "import nvidia_resiliency_ext.fault_tolerance as ft")
           + "ModuleNotFoundError: No module named 'nvidia_resiliency_ext'\n")


@pytest.mark.parametrize("text", [
    "export HIP_VISIBLE_DEVICES=0,1,2,3\ntorchrun pretrain_gpt.py --async-save --save /ckpt\n" + NVRX_ASYNC,
    "torchrun pretrain_gpt.py --enable-ft-package\n" + NVRX_FT,
])
def test_cuda_only_package_on_rocm_is_the_option(tmp_path, text):
    d = _root(tmp_path, text)
    assert d.family == "config_error"
    assert "--async-strategy mcore" in d.fix and "--enable-ft-package" in d.fix


def test_cuda_only_package_on_nvidia_is_install(tmp_path):
    text = ("| NVIDIA-SMI 550.54.15   Driver Version: 550.54.15   CUDA Version: 12.4 |\n"
            "torchrun pretrain_gpt.py --enable-ft-package\n" + NVRX_FT)
    assert _root(tmp_path, text).family == "missing_package"


def test_other_missing_module_stays_missing_package(tmp_path):
    text = TB + _frame("/work/train.py", 3, "<module>", "import wandb") + "ModuleNotFoundError: No module named 'wandb'\n"
    assert _root(tmp_path, "HIP_VISIBLE_DEVICES=0\n" + text).family == "missing_package"


# ---------------------------------------------------------------- PEFT and a quantization library's layer
PEFT = (TB + _frame(f"{SP}/peft/mapping.py", 222, "get_peft_model", "return MODEL_TYPE_TO_PEFT_MODEL_MAPPING[...]")
        + _frame(f"{SP}/peft/tuners/lora/model.py", 338, "_create_new_module", "raise ValueError("))
NEW_TAIL = (" is not supported. Currently, only the following modules are supported: `torch.nn.Linear`, "
            "`torch.nn.Embedding`, `torch.nn.Conv2d`, `transformers.pytorch_utils.Conv1D`.\n")


@pytest.mark.parametrize("module", [
    "WQLinear_GEMM(in_features=4096, out_features=4096, bias=False, w_bit=4, group_size=128)",
    "HQQLinear()",
    "TritonV2QuantLinear()",
])
def test_peft_refusing_a_quantized_layer_is_version_check(tmp_path, module):
    d = _root(tmp_path, NOISE + "\n" + PEFT + f"ValueError: Target module {module}" + NEW_TAIL)
    assert (d.family, d.code) == ("version_check", "lora-target-quantized-layer")
    assert "upgrade peft" in d.fix


def test_peft_old_wording_quantlinear(tmp_path):
    text = PEFT + ("ValueError: Target module QuantLinear() is not supported. Currently, only `torch.nn.Linear` and "
                   "`Conv1D` are supported.\n")
    assert _root(tmp_path, text).family == "version_check"


@pytest.mark.parametrize("module", ["LlamaRMSNorm((4096,), eps=1e-06)",
                                    "Qwen2DecoderLayer(\n  (self_attn): Qwen2Attention(...)\n)"])
def test_peft_refusing_another_module_stays_config_error(tmp_path, module):
    d = _root(tmp_path, PEFT + f"ValueError: Target module {module}" + NEW_TAIL)
    assert (d.family, d.code) == ("config_error", "lora-target-type-unsupported")


# ---------------------------------------------------------------- transformers not knowing the model_type
AUTO = (TB + _frame(f"{SP}/transformers/models/auto/auto_factory.py", 523, "from_pretrained",
                    "config, kwargs = AutoConfig.from_pretrained(")
        + _frame(f"{SP}/transformers/models/auto/configuration_auto.py", 1050, "from_pretrained",
                 'config_class = CONFIG_MAPPING[config_dict["model_type"]]'))


@pytest.mark.parametrize("text", [
    # _LazyConfigMapping.__getitem__ (4.10-4.28): a type name in no built-in list of the engine
    AUTO + _frame(f"{SP}/transformers/models/auto/configuration_auto.py", 745, "__getitem__", "raise KeyError(key)")
    + "KeyError: 'ernie4_5_moe'\n",
    # before 4.10 CONFIG_MAPPING was a plain OrderedDict: the KeyError comes from from_pretrained itself
    AUTO + "KeyError: 'llama'\n",
    # 4.29+: the ValueError around it, and its first line wrapped where the terminal cut it
    AUTO + "ValueError: The checkpoint you are trying to load has model type `gemma3_text` but Transformers does not "
    "recognize this architecture. This could be because of an issue with the checkpoint, or because your version of "
    "Transformers is out of date.\n",
    AUTO + "ValueError: The checkpoint you are trying to load has model type `qwen3_next` but Transformers does not\n"
    "recognize this architecture.\n",
    # auto_factory.py _LazyAutoMapping.__getitem__: a config class the auto class has no model for
    TB + _frame(f"{SP}/transformers/models/auto/auto_factory.py", 565, "from_pretrained",
                "model_class = _get_model_class(config, cls._model_mapping)")
    + _frame(f"{SP}/transformers/models/auto/auto_factory.py", 766, "__getitem__", "raise KeyError(key)")
    + "KeyError: <class 'transformers_modules.ernie.configuration_ernie.Ernie4_5Config'>\n",
    # with no frames at all, the bare KeyError of a type newer than the release
    "KeyError: 'gemma'\n",
])
def test_model_type_unknown_to_transformers(tmp_path, text):
    assert _root(tmp_path, NOISE + "\n" + text).family == "unrecognized_model_type_adapter"


def test_keyerror_in_the_users_table_is_not_the_model_type(tmp_path):
    text = TB + _frame("/work/train.py", 88, "main", "cls = MODEL_CLASSES[args.model_type]") + "KeyError: 'ernie4_5_moe'\n"
    assert _root(tmp_path, text).family != "unrecognized_model_type_adapter"
