"""`explain` at the border config_error vs version_check where the log does not say "version" (helper e-skew2, issue 26).

FAMILIES.md: an argument, key or value the installed release does not know while another release declares it ->
version_check; one no release declares (a typo, another section's key) -> config_error. The logs are written from the
libraries' raise sites (DeepSpeed's pydantic config sections, transformers' ExplicitEnum._missing_, Python's Enum,
torch's dynamo wrapper and check_if_dynamo_supported, pickle's find_class, the removals' own messages) with launcher
noise and other ranks; none is copied from the corpus. Which release declares each key/value is read from the
sources by tools/build_deepspeed_config_keys.py and tools/build_enum_values.py.
"""

from __future__ import annotations

import pytest

from rocm_tune.core.runs.diagnose import enum_skew, name_skew
from rocm_tune.core.runs.diagnose.diagnose import diagnose
from rocm_tune.profiles.deepspeed_config_keys import DEEPSPEED_CONFIG_KEYS

SP = "/opt/conda/envs/ft/lib/python3.11/site-packages"
NOISE = ("[2025-11-02 09:14:03,118] [INFO] [real_accelerator.py:222:get_accelerator] Setting ds_accelerator to cuda "
         "(auto detect)\n[INFO|trainer.py:2128] 2025-11-02 09:14:20,001 >> ***** Running training *****\n"
         "Loading checkpoint shards: 100%|##########| 4/4 [00:06<00:00,  1.52s/it]\n")
RANKS = ("[rank1]:[E1102 09:44:21.000000 ProcessGroupNCCL.cpp:616] [Rank 1] Watchdog caught collective operation "
         "timeout: WorkNCCL(SeqNum=4, OpType=BROADCAST, NumelIn=1, NumelOut=1, Timeout(ms)=1800000) ran for 1800012 "
         "milliseconds before timing out.\n"
         "E1102 09:44:22.000000 311 torch/distributed/elastic/multiprocessing/api.py:862] failed (exitcode: 1) "
         "local_rank: 0 (pid: 312) of binary: /opt/conda/envs/ft/bin/python\n"
         "torch.distributed.elastic.multiprocessing.errors.ChildFailedError:\n")


def _tb(*frames: tuple[str, str, str], rank: bool = False) -> str:
    """A traceback's head and frames as Python prints them (optionally under torchrun's [rank0]: prefix)."""
    lines = ["Traceback (most recent call last):", '  File "/work/sft/train.py", line 88, in <module>', "    main()"]
    for path, fn, code in frames:
        lines += [f'  File "{path}", line 120, in {fn}', f"    {code}"]
    return "".join((f"[rank0]: {ln}\n" if rank else f"{ln}\n") for ln in lines)


def _exc(text: str, rank: bool = False) -> str:
    return "".join((f"[rank0]: {ln}\n" if rank else f"{ln}\n") for ln in text.splitlines())


DS_ZERO = _tb((f"{SP}/deepspeed/runtime/engine.py", "_configure_zero_optimizer", "zero_config = DeepSpeedZeroConfig(**d)"),
              (f"{SP}/deepspeed/runtime/zero/config.py", "__init__", "super().__init__(**data)"),
              (f"{SP}/pydantic/main.py", "__init__", "validated_self = self.__pydantic_validator__.validate_python("
               "data, self_instance=self)"), rank=True)
COMPILE = _tb((f"{SP}/torch/_dynamo/convert_frame.py", "_compile", "guarded_code = compile_inner(code, one_graph, hooks)"),
              (f"{SP}/torch/_dynamo/output_graph.py", "call_user_compiler", "raise BackendCompilerFailed("
               "self.compiler_fn, e) from e"))
TA_ENUM = _tb((f"{SP}/transformers/hf_argparser.py", "parse_yaml_file", "outputs = self.parse_dict(yaml.safe_load(f))"),
              (f"{SP}/transformers/training_args.py", "__post_init__", "self.optim = OptimizerNames(self.optim)"),
              ("/opt/conda/envs/ft/lib/python3.11/enum.py", "__call__", "return cls.__new__(cls, value)"),
              (f"{SP}/transformers/utils/generic.py", "_missing_", "raise ValueError("))
OPTIM_LIST = ("['adamw_torch', 'adamw_torch_fused', 'adamw_torch_xla', 'adamw_apex_fused', 'adafactor', "
              "'adamw_anyprecision', 'sgd', 'adagrad', 'adamw_bnb_8bit', 'adamw_8bit', 'lion_8bit', 'lion_32bit', "
              "'paged_adamw_32bit', 'paged_adamw_8bit', 'paged_lion_32bit', 'paged_lion_8bit', 'rmsprop']")
SCHED = _tb((f"{SP}/transformers/training_args.py", "__post_init__",
             "self.lr_scheduler_type = SchedulerType(self.lr_scheduler_type)"),
            (f"{SP}/transformers/utils/generic.py", "_missing_", "raise ValueError("))
SCHED_LIST = "['linear', 'cosine', 'cosine_with_restarts', 'polynomial', 'constant', 'constant_with_warmup']"

# name -> (family, words the answer (title + fix) must hold, log)
CASES = {
    # DeepSpeed >= 0.16.2 declares zeropp_loco_param in DeepSpeedZeroConfig; an older one refuses it (pydantic 2)
    "ds-key-of-newer-release": ("version_check", ("zeropp_loco_param", "0.16.2", "upgrade DeepSpeed"),
        NOISE + DS_ZERO + _exc("pydantic_core._pydantic_core.ValidationError: 1 validation error for "
                               "DeepSpeedZeroConfig\nzeropp_loco_param\n  Extra inputs are not permitted "
                               "[type=extra_forbidden, input_value={'err_beta': 0.8, 'reset_T': 1024}, "
                               "input_type=dict]", rank=True) + RANKS),
    # pydantic 1 under DeepSpeed 0.9.x: zero_quantized_weights (ZeRO++) came in 0.10.0
    "ds-key-zeropp-pydantic1": ("version_check", ("zero_quantized_weights", "0.10.0"),
        NOISE + DS_ZERO + _exc("pydantic.error_wrappers.ValidationError: 1 validation error for DeepSpeedZeroConfig\n"
                               "zero_quantized_weights\n  extra fields not permitted (type=value_error.extra)")),
    # the same key refused by a DeepSpeed that the log shows declares it (0.17.1 >= 0.16.2): not the release, the
    # section it was written in (zeropp_loco_param belongs in zero_optimization, not in offload_param)
    "ds-key-release-has-it": ("config_error", ("zeropp_loco_param", "section"),
        "[2025-11-02 09:14:05,001] [INFO] [logging.py:128:log_dist] [Rank 0] DeepSpeed info: version=0.17.1, "
        "git-hash=unknown, git-branch=unknown\n" + NOISE + DS_ZERO.replace("zero/config.py", "zero/offload_config.py") +
        _exc("pydantic_core._pydantic_core.ValidationError: 1 validation error for DeepSpeedZeroOffloadParamConfig\n"
             "zeropp_loco_param\n  Extra inputs are not permitted [type=extra_forbidden, input_value={'err_beta': 0.8}, "
             "input_type=dict]")),
    # a typo in the user's DeepSpeed JSON: no release declares it; the answer gives DeepSpeed's spelling
    "ds-key-typo": ("config_error", ("stage3_max_live_parameters",),
        NOISE + DS_ZERO + _exc("pydantic_core._pydantic_core.ValidationError: 1 validation error for "
                               "DeepSpeedZeroConfig\nstage3_max_live_paramters\n  Extra inputs are not permitted "
                               "[type=extra_forbidden, input_value=1000000000.0, input_type=float]", rank=True)),
    # a key of another program (an HF TrainingArguments key pasted into zero_optimization): the configuration
    "ds-key-of-another-program": ("config_error", ("gradient_checkpointing_kwargs", "section"),
        NOISE + DS_ZERO + _exc("pydantic_core._pydantic_core.ValidationError: 1 validation error for "
                               "DeepSpeedZeroConfig\ngradient_checkpointing_kwargs\n  Extra inputs are not permitted "
                               "[type=extra_forbidden, input_value={'use_reentrant': False}, input_type=dict]")),
    # transformers 4.38 refusing a GaLore optimizer (OptimizerNames gained galore_* after 4.38.2)
    "optim-of-newer-transformers": ("version_check", ("galore_adamw_8bit", "4.38.2", "upgrade transformers"),
        NOISE + TA_ENUM + f"ValueError: galore_adamw_8bit is not a valid OptimizerNames, please select one of "
        f"{OPTIM_LIST}\n" + RANKS),
    "optim-typo": ("config_error", ("paged_adamw_8bit",),
        NOISE + TA_ENUM + f"ValueError: paged_adamw_8bt is not a valid OptimizerNames, please select one of "
        f"{OPTIM_LIST}\n"),
    # warmup_stable_decay came with transformers 4.39-4.41 (after the 4.38.2 the table read)
    "scheduler-of-newer-transformers": ("version_check", ("warmup_stable_decay", "4.41.2"),
        NOISE + SCHED + f"ValueError: warmup_stable_decay is not a valid SchedulerType, please select one of "
        f"{SCHED_LIST}\n"),
    "scheduler-typo": ("config_error", ("constant_with_warmup",),
        NOISE + SCHED + f"ValueError: constant_with_warmpu is not a valid SchedulerType, please select one of "
        f"{SCHED_LIST}\n"),
    # save_strategy: best is SaveStrategy's (a later release's enum for the same option), refused by IntervalStrategy
    "save-strategy-best": ("version_check", ("best", "IntervalStrategy", "4.51.3"),
        _tb((f"{SP}/transformers/training_args.py", "__post_init__",
             "self.save_strategy = IntervalStrategy(self.save_strategy)"),
            (f"{SP}/transformers/utils/generic.py", "_missing_", "raise ValueError(")) +
        "ValueError: best is not a valid IntervalStrategy, please select one of ['no', 'steps', 'epoch']\n"),
    # accelerate < 0.17 (PrecisionType without fp8): Python's own Enum words
    "accelerate-fp8": ("version_check", ("fp8", "0.17.0"),
        NOISE + _tb((f"{SP}/accelerate/accelerator.py", "__init__",
                     "self.state = AcceleratorState(mixed_precision=mixed_precision, cpu=cpu)"),
                    (f"{SP}/accelerate/state.py", "__init__", "mixed_precision = PrecisionType(mixed_precision)"),
                    ("/opt/conda/envs/ft/lib/python3.11/enum.py", "__new__", "raise ve_exc")) +
        "ValueError: 'fp8' is not a valid PrecisionType\n"),
    # torch's compile wrapper re-raising an API error between inductor and the installed Triton
    "inductor-triton-attribute": ("version_check", ("Triton", "AttributeError"),
        NOISE + COMPILE + "torch._dynamo.exc.BackendCompilerFailed: backend='inductor' raised:\n"
        "AttributeError: 'KernelMetadata' object has no attribute 'cluster_dims'\n\n"
        "Set TORCH_LOGS=\"+dynamo\" and TORCHDYNAMO_VERBOSE=1 for more information\n"),
    # (torch >= 2.6 words it InductorError; read by the signature-drift rule, which names the call)
    "inductor-error-signature": ("version_check", ("make_launcher",),
        NOISE + _tb((f"{SP}/torch/_inductor/compile_fx.py", "compile_fx_inner", "raise InductorError(e, "
                     "currentframe()).with_traceback(e.__traceback__) from None"), rank=True) +
        "[rank0]: torch._inductor.exc.InductorError: TypeError: make_launcher() got an unexpected keyword argument "
        "'num_ctas'\n" + RANKS),
    # torch.compile refusing the interpreter (torch 2.3 on Python 3.12; torch 2.9 on 3.14), asked for by a library
    "dynamo-python-312": ("version_check", ("torch.compile", "Python", "2.4"),
        NOISE + _tb((f"{SP}/diffusers/models/modeling_utils.py", "compile", "return torch.compile(self, **kw)"),
                    (f"{SP}/torch/__init__.py", "compile", "raise RuntimeError(\"Dynamo is not supported on Python "
                     "3.12+\")")) + "RuntimeError: Dynamo is not supported on Python 3.12+\n"),
    "dynamo-python-314": ("version_check", ("torch.compile",),
        _tb((f"{SP}/torch/_dynamo/eval_frame.py", "check_if_dynamo_supported", "raise RuntimeError(")) +
        "RuntimeError: torch.compile is not supported on Python 3.14+\n"),
    # Python 3.12 removed distutils; an old bitsandbytes still imports it
    "python-removed-distutils": ("version_check", ("Python 3.12", "distutils"),
        NOISE + _tb((f"{SP}/bitsandbytes/cuda_setup/main.py", "<module>", "from distutils.version import "
                     "LooseVersion")) + "ModuleNotFoundError: No module named 'distutils'\n"),
    # a trainer state / scheduler pickled with another release of transformers (tokenization module moved)
    "pickle-class-of-another-release": ("version_check", ("pickled",),
        NOISE + _tb((f"{SP}/transformers/trainer.py", "_load_from_checkpoint", "state = torch.load(path, "
                     "weights_only=False)"), (f"{SP}/torch/serialization.py", "_load", "result = unpickler.load()")) +
        f"AttributeError: Can't get attribute 'LlamaTokenizerFast' on <module "
        f"'transformers.models.llama.tokenization_llama_fast' from '{SP}/transformers/models/llama/"
        "tokenization_llama_fast.py'>\n"),
    # flash-attn asserting the torch release it needs (a bare AssertionError under a version comparison)
    "assert-on-torch-version": ("version_check", ("release",),
        NOISE + _tb((f"{SP}/flash_attn/__init__.py", "<module>", "from flash_attn.flash_attn_interface import *"),
                    (f"{SP}/flash_attn/flash_attn_interface.py", "<module>",
                     "assert version.parse(torch.__version__) >= version.parse(\"2.2.0\")")) + "AssertionError\n"),
    # a keyword a release removed, in transformers' own words
    "kwarg-no-longer-supported": ("version_check", ("release",),
        NOISE + _tb((f"{SP}/transformers/models/auto/auto_factory.py", "from_pretrained", "return model_class."
                     "from_pretrained("), (f"{SP}/transformers/modeling_utils.py", "from_pretrained",
                     "raise ValueError(")) +
        "ValueError: `load_in_4bit` is no longer supported as an argument to from_pretrained. Please pass a "
        "`BitsAndBytesConfig` object in `quantization_config` instead.\n"),
    # removed names: the answer names the release that dropped them and the replacement
    "peft-int8-removed": ("version_check", ("0.10.0", "prepare_model_for_kbit_training"),
        NOISE + _tb(("/work/sft/model.py", "<module>", "from peft import prepare_model_for_int8_training, LoraConfig"))
        + f"ImportError: cannot import name 'prepare_model_for_int8_training' from 'peft' ({SP}/peft/__init__.py)\n"),
    "accelerate-split-batches-removed": ("version_check", ("1.0.0", "DataLoaderConfiguration"),
        NOISE + _tb((f"{SP}/transformers/trainer.py", "create_accelerator_and_postprocess",
                     "self.accelerator = Accelerator(**args)"), rank=True) +
        "[rank0]: TypeError: Accelerator.__init__() got an unexpected keyword argument 'split_batches'\n" + RANKS),
    "trl-dpo-tokenizer-removed": ("version_check", ("0.12.0", "processing_class"),
        NOISE + _tb(("/work/sft/dpo.py", "main", "trainer = DPOTrainer(model, ref_model, args=cfg, "
                     "train_dataset=ds, tokenizer=tok)")) +
        "TypeError: DPOTrainer.__init__() got an unexpected keyword argument 'tokenizer'\n"),
    # config errors that must stay config errors: a LLaMA-Factory YAML key typo, a bad TrainingArguments combination
    "lf-yaml-typo": ("config_error", (),
        "$ llamafactory-cli train qwen_lora_sft.yaml\n" + NOISE +
        _tb((f"{SP}/llamafactory/hparams/parser.py", "_parse_args", "raise ValueError(f\"Some keys are not used by "
             "the HfArgumentParser: {sorted(unused_keys)}\")")) +
        "ValueError: Some keys are not used by the HfArgumentParser: ['lora_rnak']\n"),
    "ta-strategy-mismatch": ("config_error", (),
        NOISE + _tb((f"{SP}/transformers/training_args.py", "__post_init__", "raise ValueError(")) +
        "ValueError: --load_best_model_at_end requires the save and eval strategy to match, but found\n"
        "- Evaluation strategy: IntervalStrategy.STEPS\n- Save strategy: IntervalStrategy.EPOCH\n"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_skew_or_configuration(tmp_path, name):
    family, words, text = CASES[name]
    log = tmp_path / "train.log"
    log.write_text(text)
    exp = diagnose([str(log)])
    assert exp.root is not None
    r = exp.diagnoses[exp.root]
    assert r.family == family, (name, r.code, r.title)
    said = f"{r.title} {r.fix}"
    for w in words:
        assert w in said, (name, w, said)


def test_deepspeed_keys_come_from_every_pydantic_release():
    old, new, spans, classes = DEEPSPEED_CONFIG_KEYS
    assert (old, new) == ("0.7.0", "main")          # 0.7.0 made the ZeRO section a DeepSpeedConfigModel
    where = {k: s for s, keys in spans.items() for k in keys.split()}
    assert where["stage3_prefetch_bucket_size"] == "0.7.0..main"     # an alias="..." spelling, not the field name
    assert where["zero_hpz_partition_size"] == "0.10.0..main"
    assert "DeepSpeedZeroOffloadOptimizerConfig" in classes.split()


def test_enum_reading_spans_and_typos():
    got = enum_skew.read_enum_refusal("ValueError: schedule_free_adamw is not a valid OptimizerNames, please select "
                                      "one of ['adamw_torch', 'sgd']")
    assert got is not None and got.span == ("4.45.2", "5.24.0") and got.before == "4.41.2"
    typo = enum_skew.read_enum_refusal("ValueError: 'fp61' is not a valid PrecisionType")
    assert typo is not None and typo.span is None and "fp16" in typo.close
    # a removed value: adamw_hf is in 4.20-4.46 only
    gone = enum_skew.read_enum_refusal("ValueError: adamw_hf is not a valid OptimizerNames, please select one of "
                                       "['adamw_torch']")
    assert gone is not None and gone.span == ("4.20.1", "4.46.3")
    assert "removed later" in enum_skew.skew_sentence(gone)[0]
    assert enum_skew.read_enum_refusal("ValueError: 'x' is not a valid MyOwnEnum") is None


def test_removed_names_and_python_modules():
    said = name_skew.removed_name("AttributeError: module 'numpy' has no attribute 'float_'")
    assert said is not None and "2.0.0" in said[0] and "np.float64" in said[1]
    assert name_skew.removed_name("TypeError: Trainer.__init__() got an unexpected keyword argument 'tokenizer'")
    # another callee's keyword of the same name is not the Trainer's removal
    assert name_skew.removed_name("TypeError: Linear.__init__() got an unexpected keyword argument 'tokenizer'") \
        is None
    assert name_skew.python_removed_module("ModuleNotFoundError: No module named 'imp'") is not None
    assert name_skew.python_removed_module("ModuleNotFoundError: No module named 'einops'") is None
