"""e-ver3 (issue 26): explain reads where a generic exception was raised (traceback_anatomy.py): installed code
calling another release's API is the versions (naming the border), a library's own defect is the versions, the
sentences the libraries use to refuse a user's value are the configuration. Every log below is written from the raising
code (the frames are the files and functions that raise or pass the call on, the messages the raise statements'),
with the noise and other ranks' lines a run prints; none is a corpus case."""

from __future__ import annotations

import pytest

from rocm_tune.core.runs.diagnose import traceback_anatomy as ta
from rocm_tune.core.runs.diagnose.diagnose import explain_text

SP = "/opt/conda/envs/train/lib/python3.10/site-packages"
DP = "/usr/local/lib/python3.10/dist-packages"
RC = "/root/.cache/huggingface/modules/transformers_modules/THUDM/glm-4-9b-chat"


def _root(log: str):
    exp = explain_text(log)
    assert exp.root is not None, exp.answer
    return exp.answer, exp.diagnoses[exp.root]


# TRL >= 0.12 passes processing_class= to transformers' Trainer.__init__ (trl/trainer/sft_trainer.py SFTTrainer.__init__
# `super().__init__(model=model, args=args, ..., processing_class=processing_class, ...)`); transformers < 4.46 has no
# such parameter. Raised in TRL's frame (the caller), not the user's: before, the trainer-__init__ refusal rule read it
# as the run's settings.
TRL_PROCESSING_CLASS = f"""\
[2025-03-02 10:11:04,118] [INFO] [real_accelerator.py:219:get_accelerator] Setting ds_accelerator to cuda (auto detect)
Map: 100%|██████████| 5000/5000 [00:01<00:00, 3411.02 examples/s]
[rank1]:[W302 10:11:09.771] Warning: ProcessGroupNCCL.cpp:1168 destroy_process_group() was not called
[rank0]: Traceback (most recent call last):
[rank0]:   File "/home/ana/sft/train_sft.py", line 71, in <module>
[rank0]:     trainer = SFTTrainer(model=model, args=cfg, train_dataset=ds, processing_class=tok)
[rank0]:   File "{SP}/trl/trainer/sft_trainer.py", line 420, in __init__
[rank0]:     super().__init__(
[rank0]: TypeError: Trainer.__init__() got an unexpected keyword argument 'processing_class'
E0302 10:11:12.004000 88121 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: 1) local_rank: 0
"""

# TRL 0.14-0.16's GRPOTrainer builds vLLM's engine with `LLM(model=..., device=vllm_device, ...)`
# (trl/trainer/grpo_trainer.py __init__); vLLM >= 0.8 dropped LLM's `device` parameter.
TRL_VLLM_DEVICE = f"""\
INFO 04-11 08:02:33 [__init__.py:239] Automatically detected platform rocm.
Traceback (most recent call last):
  File "/work/rl/grpo.py", line 88, in <module>
    trainer = GRPOTrainer(model=name, reward_funcs=[fmt_reward], args=args, train_dataset=ds)
  File "{SP}/trl/trainer/grpo_trainer.py", line 452, in __init__
    self.llm = LLM(
TypeError: LLM.__init__() got an unexpected keyword argument 'device'
"""

# transformers >= 4.46's Trainer.compute_loss passes num_items_in_batch to the model's forward (trainer.py
# compute_loss `outputs = model(**inputs, **loss_kwargs)`), through torch's Module.__call__ (module.py
# _wrapped_call_impl / _call_impl `return forward_call(*args, **kwargs)`): a model class of another release (remote
# code's forward without **kwargs) refuses it. The caller is the Trainer, past the dispatch frames.
FORWARD_VIA_MODULE_CALL = f"""\
{{'loss': 2.3125, 'grad_norm': 1.84, 'learning_rate': 1e-05, 'epoch': 0.0}}
  0%|          | 1/1250 [00:04<1:31:12,  4.38s/it]
Traceback (most recent call last):
  File "/home/u/ft.py", line 40, in <module>
    trainer.train()
  File "{DP}/transformers/trainer.py", line 2245, in train
    return inner_training_loop(
  File "{DP}/transformers/trainer.py", line 3698, in compute_loss
    outputs = model(**inputs, **loss_kwargs)
  File "{DP}/torch/nn/modules/module.py", line 1736, in _wrapped_call_impl
    return self._call_impl(*args, **kwargs)
  File "{DP}/torch/nn/modules/module.py", line 1747, in _call_impl
    return forward_call(*args, **kwargs)
TypeError: ChatGLMForConditionalGeneration.forward() got an unexpected keyword argument 'num_items_in_batch'
"""

# GLM-4's remote modeling_chatglm.py (transformers_modules) calls GenerationMixin._update_model_kwargs_for_generation
# with standardize_cache_format=, which transformers 4.44 removed.
REMOTE_CODE_CALL = f"""\
Loading checkpoint shards: 100%|██████████| 10/10 [00:07<00:00,  1.36it/s]
Traceback (most recent call last):
  File "/srv/eval/chat.py", line 19, in <module>
    out = model.generate(**inputs, max_new_tokens=256)
  File "{SP}/transformers/generation/utils.py", line 2024, in generate
    result = self._sample(
  File "{RC}/modeling_chatglm.py", line 929, in _update_model_kwargs_for_generation
    model_kwargs["past_key_values"] = self._extract_past_from_model_output(
TypeError: GLMForConditionalGeneration._extract_past_from_model_output() got an unexpected keyword argument 'standardize_cache_format'
"""

# peft's own check (tuners/tuners_utils.py BaseTuner._check_new_adapter_config: `_check_new_peft_config was called
# incorrectly, this should not happen. Please open an issue and report the error: https://github.com/huggingface/
# peft/issues`): the library's defect, fixed in a later release.
PEFT_CONFESSION = f"""\
trainable params: 4,194,304 || all params: 6,742,609,920 || trainable%: 0.0622
Traceback (most recent call last):
  File "/home/me/lora.py", line 33, in <module>
    model.add_adapter("second", cfg2)
  File "{SP}/peft/peft_model.py", line 1003, in add_adapter
    self.base_model.inject_adapter(self.base_model.model, adapter_name)
  File "{SP}/peft/tuners/tuners_utils.py", line 605, in _check_new_adapter_config
    raise ValueError(
ValueError: _check_new_peft_config was called incorrectly, this should not happen. Please open an issue and report the error: https://github.com/huggingface/peft/issues
"""

# peft/config.py PeftConfigMixin.from_pretrained: `config_cls = PEFT_TYPE_TO_CONFIG_MAPPING[peft_type]` - an adapter
# saved by a newer peft with a tuner type the installed peft's registry lacks: a KeyError deep in the library.
PEFT_REGISTRY_KEYERROR = f"""\
[rank0]: Traceback (most recent call last):
[rank0]:   File "/data/jobs/merge.py", line 12, in <module>
[rank0]:     model = PeftModel.from_pretrained(base, "out/adapter")
[rank0]:   File "{SP}/peft/peft_model.py", line 490, in from_pretrained
[rank0]:     config = PEFT_TYPE_TO_CONFIG_MAPPING[
[rank0]:   File "{SP}/peft/config.py", line 197, in from_pretrained
[rank0]:     config_cls = PEFT_TYPE_TO_CONFIG_MAPPING[peft_type]
[rank0]: KeyError: 'SHIRA'
"""

# a variable read before it was set in a library's own code path (Python's UnboundLocalError wording, 3.11+)
LIB_UNBOUND = f"""\
Generating train split: 1200 examples [00:00, 40210.11 examples/s]
Traceback (most recent call last):
  File "/home/u/run.py", line 51, in <module>
    main()
  File "/home/u/run.py", line 47, in main
    trainer.train()
  File "{SP}/accelerate/utils/memory.py", line 157, in decorator
    return function(batch_size, *args, **kwargs)
  File "{SP}/transformers/trainer.py", line 2591, in _inner_training_loop
    self._maybe_log_save_evaluate(tr_loss, grad_norm, model, trial, epoch, ignore_keys_for_eval, start_time)
UnboundLocalError: cannot access local variable 'grad_norm' where it is not associated with a value
"""

# TRL sft_trainer.py SFTTrainer._prepare_dataset: `raise ValueError("When packing is enabled, `max_length` can't be
# `None`.")`
TRL_PACKING = f"""\
Tokenizing train dataset: 100%|██████████| 800/800 [00:00<00:00, 5120.33 examples/s]
Traceback (most recent call last):
  File "/home/k/sft.py", line 60, in <module>
    trainer = SFTTrainer(model, args=SFTConfig(packing=True, max_length=None), train_dataset=ds)
  File "{SP}/trl/trainer/sft_trainer.py", line 1603, in _prepare_dataset
    raise ValueError("When packing is enabled, `max_length` can't be `None`.")
ValueError: When packing is enabled, `max_length` can't be `None`.
"""

# accelerate accelerator.py Accelerator.prepare with FSDP2: `raise ValueError("Only one model is supported when using
# FSDP2")`, on two ranks
ACCEL_FSDP2 = f"""\
[rank1]: Traceback (most recent call last):
[rank1]:   File "/w/train.py", line 90, in <module>
[rank1]:     policy, ref, opt = accelerator.prepare(policy, ref, opt)
[rank1]:   File "{SP}/accelerate/accelerator.py", line 1522, in prepare
[rank1]:     raise ValueError("Only one model is supported when using FSDP2")
[rank1]: ValueError: Only one model is supported when using FSDP2
[rank0]: Traceback (most recent call last):
[rank0]:   File "/w/train.py", line 90, in <module>
[rank0]:     policy, ref, opt = accelerator.prepare(policy, ref, opt)
[rank0]:   File "{SP}/accelerate/accelerator.py", line 1522, in prepare
[rank0]:     raise ValueError("Only one model is supported when using FSDP2")
[rank0]: ValueError: Only one model is supported when using FSDP2
W1128 09:12:01.551000 4411 torch/distributed/elastic/multiprocessing/api.py:897] Sending process 4502 closing signal SIGTERM
"""

# transformers trainer.py Trainer._prepare_context_parallel_inputs: `Context parallelism is supported only with SDPA
# attention, you are using {model.config._attn_implementation}.`
HF_CP_SDPA = f"""\
{{'train_runtime': 0.0}}
Traceback (most recent call last):
  File "/home/t/cp.py", line 30, in <module>
    trainer.train()
  File "{SP}/transformers/trainer.py", line 2423, in _prepare_context_parallel_inputs
    raise ValueError(
ValueError: Context parallelism is supported only with SDPA attention, you are using flash_attention_2.
"""

# DeepSpeed engine.py DeepSpeedEngine._zero3_consolidated_16bit_state_dict: `raise ValueError("this function requires
# ZeRO-3 mode")` when the user saves a 16-bit model with ZeRO stage 2
DS_ZERO3_ONLY = f"""\
[2025-01-09 12:00:01,002] [INFO] [logging.py:128:log_dist] [Rank 0] step=1000, skipped=0, lr=[1e-05]
Traceback (most recent call last):
  File "/opt/jobs/save.py", line 15, in <module>
    engine.save_16bit_model("out")
  File "{SP}/deepspeed/runtime/engine.py", line 3790, in _zero3_consolidated_16bit_state_dict
    raise ValueError("this function requires ZeRO-3 mode")
ValueError: this function requires ZeRO-3 mode
"""

# peft tuners/oft/config.py OFTConfig.check_kwargs (a config check's frame, which the frame rules read as the
# settings): the message gives the installed release as the reason
PEFT_OFT_RELEASE = f"""\
Loading checkpoint shards: 100%|██████████| 4/4 [00:03<00:00,  1.21it/s]
Traceback (most recent call last):
  File "/home/q/infer.py", line 14, in <module>
    model = PeftModel.from_pretrained(base, "ckpt/oft-adapter")
  File "{SP}/peft/config.py", line 152, in from_pretrained
    kwargs = cls.check_kwargs(**kwargs)
  File "{SP}/peft/tuners/oft/config.py", line 208, in check_kwargs
    raise ValueError(
ValueError: OFT has been updated since PEFT 0.14.0. Your trained adapter weights are incompatible with the latest version of OFT. Please retrain your adapter weights with newer PEFT versions. Alternatively, downgrade PEFT to version 0.13.0 to use the old adapter weights.
"""

# ms-swift swift/arguments/rlhf_args.py RLHFArguments._check_grpo: `Please update liger-kernel to 0.7.0 or later: pip
# install -U liger-kernel`, printed by every rank
SWIFT_LIGER_RELEASE = "".join(f"""\
[rank{r}]: Traceback (most recent call last):
[rank{r}]:   File "{SP}/swift/cli/rlhf.py", line 5, in <module>
[rank{r}]:     rlhf_main()
[rank{r}]:   File "{SP}/swift/arguments/rlhf_args.py", line 150, in __post_init__
[rank{r}]:     self._check_grpo()
[rank{r}]:   File "{SP}/swift/arguments/rlhf_args.py", line 547, in _check_grpo
[rank{r}]:     raise ValueError('Please update liger-kernel to 0.7.0 or later: pip install -U liger-kernel')
[rank{r}]: ValueError: Please update liger-kernel to 0.7.0 or later: pip install -U liger-kernel
""" for r in (0, 1))

# torch's own bounds message inside transformers' generation code (generation/utils.py _sample): ` -1` is an index, not
# a command-line flag
GENERATE_INDEX = f"""\
Traceback (most recent call last):
  File "/home/u/gen.py", line 22, in <module>
    out = model.generate(**batch, max_new_tokens=64)
  File "{SP}/transformers/generation/utils.py", line 2597, in _sample
    next_token_logits = outputs.logits[:, -1, :].clone().float()
IndexError: index -1 is out of bounds for dimension 1 with size 0
"""

# LLaMA-Factory installed editable (`pip install -e .` in its checkout): model/model_utils/moe.py imports
# modeling_qwen3_omni_moe only `if is_transformers_version_greater_than("4.57.0")` and uses it in its block's __init__
# (line 222): under an older transformers the name is undefined. The catalogue's NameError rule reads site-packages
# frames only; the anatomy knows the checkout's package.
LF_EDITABLE_NAMEERROR = """\
[INFO|2025-11-02 09:10:11] llamafactory.model.model_utils.checkpointing:143 >> Gradient checkpointing enabled.
Traceback (most recent call last):
  File "/opt/conda/bin/llamafactory-cli", line 8, in <module>
    sys.exit(main())
  File "/workspace/LLaMA-Factory/src/llamafactory/model/loader.py", line 173, in load_model
    model = load_class.from_pretrained(**init_kwargs)
  File "/workspace/LLaMA-Factory/src/llamafactory/model/model_utils/moe.py", line 222, in __init__
    modeling_qwen3_omni_moe.Qwen3OmniMoeThinkerTextMLP(
NameError: name 'modeling_qwen3_omni_moe' is not defined
"""

# a KeyError raised by the user's own script (the last frame is theirs): not a library's defect
USER_KEYERROR = """\
Traceback (most recent call last):
  File "/home/u/prep.py", line 9, in <module>
    n = totals[name]
KeyError: 'gpu7'
"""


@pytest.mark.parametrize("log,family,border", [
    (TRL_PROCESSING_CLASS, "version_check", "trl's code (sft_trainer.py __init__) calls Trainer.__init__()"),
    (TRL_VLLM_DEVICE, "version_check", "trl's code (grpo_trainer.py __init__) calls LLM.__init__()"),
    (FORWARD_VIA_MODULE_CALL, "version_check", "transformers' code (trainer.py compute_loss) calls"),
    (REMOTE_CODE_CALL, "version_check", "remote code"),
    (PEFT_CONFESSION, "version_check", "peft says this is a defect of its own"),
    (PEFT_REGISTRY_KEYERROR, "version_check", "peft's own code failed (config.py from_pretrained)"),
    (LIB_UNBOUND, "version_check", "transformers' own code failed (trainer.py _inner_training_loop)"),
    (TRL_PACKING, "config_error", "trl refused a value"),
    (ACCEL_FSDP2, "config_error", "accelerate refused a value"),
    (HF_CP_SDPA, "config_error", "transformers refused a value"),
    (DS_ZERO3_ONLY, "config_error", "deepspeed refused a value"),
    (PEFT_OFT_RELEASE, "version_check", "peft refused this because of an installed release"),
    (SWIFT_LIGER_RELEASE, "version_check", "install the version the message names"),
    (LF_EDITABLE_NAMEERROR, "version_check", "llamafactory's own code failed (moe.py __init__)"),
])
def test_family_and_border(log, family, border):
    answer, d = _root(log)
    assert answer == family, (answer, d.code, d.fix)
    assert border in d.fix, d.fix


def test_negative_index_is_not_a_flag():
    # the catalogue's settings rule took ` -1` for a command-line flag (config_error); a tensor's bounds are the
    # shape of what the code was given, not a library defect either: neither rule decides
    answer, d = _root(GENERATE_INDEX)
    assert answer not in ("config_error", "version_check"), d.fix


def test_user_script_keyerror_is_not_a_library_defect():
    answer, d = _root(USER_KEYERROR)
    assert answer != "version_check", d.fix


def test_release_reason_is_not_a_setting_update():
    lib = ta.anatomy([(f"{SP}/trl/trainer/grpo_config.py", "__post_init__")])
    assert ta.release_refusal(lib, "ValueError: Please update your config to set `use_vllm=True`") is None
    assert ta.release_refusal(lib, "ValueError: x is not supported for this version of PEFT")[0] == "version_check"
    # the user's own script saying so is not an installed release refusing
    assert ta.release_refusal(ta.anatomy([("/home/u/t.py", "main")]), "ValueError: please upgrade torch") is None


def test_frame_owners():
    got = [(f.kind, f.owner) for f in ta.anatomy([
        (f"{SP}/trl/trainer/sft_trainer.py", "__init__"),
        (f"{DP}/transformers/trainer.py", "train"),
        ("/work/LLaMA-Factory/src/llamafactory/train/sft/workflow.py", "run_sft"),
        ("/home/me/ms-swift/swift/llm/train/sft.py", "main"),
        (f"{RC}/modeling_chatglm.py", "forward"),
        ("/usr/lib/python3.10/json/decoder.py", "raw_decode"),
        ("/opt/conda/bin/torchrun", "<module>"),
        ("/home/me/train.py", "<module>"),
        ("C:\\Users\\me\\miniconda3\\Lib\\site-packages\\peft\\peft_model.py", "forward"),
    ])]
    assert got == [("library", "trl"), ("library", "transformers"), ("library", "llamafactory"),
                   ("library", "swift"), ("remote_code", "the model's remote code (transformers_modules)"),
                   ("stdlib", "json"), ("entry", "torchrun"), ("user", "train.py"), ("library", "peft")]


def test_caller_skips_dispatch_frames():
    frames = ta.anatomy([("/home/u/ft.py", "<module>"), (f"{DP}/transformers/trainer.py", "compute_loss"),
                         (f"{DP}/torch/nn/modules/module.py", "_wrapped_call_impl"),
                         (f"{DP}/torch/nn/modules/module.py", "_call_impl"),
                         (f"{SP}/accelerate/hooks.py", "new_forward")])
    who = ta.caller(frames)
    assert who is not None and (who.owner, who.function) == ("transformers", "compute_loss")


def test_border_skew_needs_installed_caller_and_another_package():
    user = ta.anatomy([("/home/u/train.py", "<module>")])
    line = "TypeError: Trainer.__init__() got an unexpected keyword argument 'tokenizer'"
    assert ta.border_skew(user, line) is None      # the user's own call: the catalogue's rules decide
    own = ta.anatomy([(f"{SP}/transformers/utils/import_utils.py", "__getattr__")])
    assert ta.border_skew(own, "AttributeError: module 'transformers.models' has no attribute 'qwen9'") is None
    lib = ta.anatomy([(f"{SP}/deepspeed/comm/torch.py", "reduce_scatter_fn")])
    fam, fix = ta.border_skew(lib, "AttributeError: module 'torch.distributed' has no attribute '_reduce_scatter_base'")
    assert fam == "version_check" and "deepspeed" in fix and "torch" in fix


def test_anatomy_family_shapes():
    lib = ta.anatomy([("/home/u/x.py", "<module>"), (f"{SP}/peft/peft_model.py", "set_adapter")])
    assert ta.anatomy_family(lib, "ValueError: Adapter 'second' not found.")[0] == "config_error"
    assert ta.anatomy_family(lib, "ValueError: Unknown loss type: sigmoid_x")[0] == "config_error"
    assert ta.anatomy_family(lib, "IndexError: list index out of range")[0] == "version_check"
    assert ta.anatomy_family(lib, "IndexError: index 3 is out of bounds for dimension 0 with size 3") is None
    # a parameter's name missing, or a key missing while loading files: the files', not only the release's
    assert ta.anatomy_family(lib, "KeyError: 'model.layers.0.self_attn.q_proj.weight'") is None
    loading = ta.anatomy([(f"{SP}/transformers/modeling_utils.py", "_load_state_dict_into_meta_model")])
    assert ta.anatomy_family(loading, "KeyError: 'lm_head'") is None
    # a KeyError naming a data column is the data's, not a library defect
    assert ta.anatomy_family(lib, "KeyError: 'messages'") is None
    # no library frame at all: nothing to say
    assert ta.anatomy_family(ta.anatomy([("/home/u/x.py", "<module>")]), "IndexError: list index out of range") is None


def test_message_past_rank_prefix():
    assert ta.message_of("[rank3]: ValueError: Cannot delete adapter(s) 'a' while they are merged.") == \
        "Cannot delete adapter(s) 'a' while they are merged."
    assert ta.message_of("(RayWorkerWrapper pid=77) peft.errors.FooError: x") == "x"
    assert ta.message_of("a line: with a colon") == ""
    lib = ta.anatomy([(f"{SP}/peft/tuners/tuners_utils.py", "_check_adapters_not_merged")])
    got = ta.anatomy_family(lib, "[rank3]: ValueError: Cannot delete adapter(s) 'a' while they are merged.")
    assert got is not None and got[0] == "config_error"
