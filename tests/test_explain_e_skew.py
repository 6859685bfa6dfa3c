"""`explain` on an argument the installed release refuses but another release of the same runner declares (helper
e-skew, issue 26): FAMILIES.md "config_error vs version_check" — version skew is version_check, a name no release of
that runner declares (a typo, another runner's key) stays config_error.

The refusals are written as the tools' source prints them (transformers/hf_argparser.py, LLaMA-Factory's
hparams/parser.py, argparse for Megatron's parse_args and accelerate launch, accelerate's config reader, pydantic 2
under eole's config (extra="forbid"), Python's TypeError for a config class), with names that are not in the corpus; which release declares each name is read from the runners'
tags by tools/build_runner_arg_names.py (rocm_tune/profiles/runner_args.py).
"""

from __future__ import annotations

import pytest

from rocm_tune.core.runs.diagnose import arg_skew
from rocm_tune.core.runs.diagnose.diagnose import diagnose
from rocm_tune.profiles.runner_args import RUNNER_ARGS

NOISE = ("[2025-03-02 10:00:01,000] [INFO] [real_accelerator.py:222:get_accelerator] Setting ds_accelerator to cuda "
         "(auto detect)\n[rank1]:[W302 10:00:09.000000 ProcessGroupNCCL.cpp:1496] Warning: WARNING: "
         "destroy_process_group() was not called before program exit\n")
LF_TB = ("Traceback (most recent call last):\n"
         "  File \"/opt/conda/bin/llamafactory-cli\", line 8, in <module>\n    sys.exit(main())\n"
         "  File \"/opt/conda/lib/python3.10/site-packages/llamafactory/hparams/parser.py\", line 64, in _parse_args\n"
         "    raise ValueError(f\"Some specified arguments are not used by the HfArgumentParser: {unknown_args}\")\n")
HF_TB = ("Traceback (most recent call last):\n  File \"/work/run_clm.py\", line 233, in main\n"
         "    model_args, data_args, training_args = parser.parse_args_into_dataclasses()\n"
         "  File \"/usr/lib/python3.10/site-packages/transformers/hf_argparser.py\", line 348, in "
         "parse_args_into_dataclasses\n")
PY_TB = "Traceback (most recent call last):\n  File \"/work/finetune.py\", line 41, in <module>\n"


def _root(tmp_path, text):
    log = tmp_path / "train.log"
    log.write_text(text)
    exp = diagnose([str(log)])
    assert exp.root is not None
    return exp.diagnoses[exp.root]


# (family, words the answer must hold, log): skew names are version_check with the release that has them
CASES = {
    # LLaMA-Factory <= 0.3.3 spelled the adapter --checkpoint_dir (renamed adapter_name_or_path in 0.4.0)
    "lf-checkpoint-dir-removed": ("version_check", ("LLaMA-Factory", "checkpoint_dir", "v0.3.3"),
        "$ llamafactory-cli train --stage sft --checkpoint_dir saves/lora --template qwen\n" + NOISE + LF_TB +
        "ValueError: Some specified arguments are not used by the HfArgumentParser: ['--checkpoint_dir', "
        "'saves/lora']\n"),
    # YAML key of 0.7-0.8 (visual_inputs) given to a newer LLaMA-Factory (parse_dict's `Some keys` words)
    "lf-visual-inputs-yaml": ("version_check", ("visual_inputs", "v0.8.3"),
        "$ llamafactory-cli train qwen2vl_lora.yaml\n" + LF_TB.replace("specified arguments", "keys") +
        "ValueError: Some keys are not used by the HfArgumentParser: ['visual_inputs']\n"),
    # a plain transformers script: eval_strategy (4.41+) on transformers 4.38
    "hf-eval-strategy-on-438": ("version_check", ("eval_strategy", "4.41", "upgrade"),
        "$ torchrun --nproc_per_node 2 run_clm.py --eval_strategy steps --output_dir out\n" + HF_TB +
        "ValueError: Some specified arguments are not used by the HfArgumentParser: ['--eval_strategy', 'steps']\n"),
    # eval_on_start (4.45+) as `--eval_on_start=True`
    "hf-eval-on-start-equals": ("version_check", ("eval_on_start",),
        HF_TB + "ValueError: Some specified arguments are not used by the HfArgumentParser: ['--eval_on_start=True']\n"),
    # TRL renamed SFTConfig.max_seq_length max_length (gone after 0.19); Python 3.11 names the class
    "trl-max-seq-length": ("version_check", ("TRL", "max_seq_length", "v0.19"),
        PY_TB + "    args = SFTConfig(output_dir='out', max_seq_length=2048)\n"
        "TypeError: SFTConfig.__init__() got an unexpected keyword argument 'max_seq_length'\n"),
    # TrainingArguments(evaluation_strategy=...) on a transformers that dropped it (last in 4.46): a keyword that is
    # already read as the versions now says which release had it
    "hf-evaluation-strategy-kwarg": ("version_check", ("evaluation_strategy", "4.46.3", "or earlier"),
        PY_TB + "    args = TrainingArguments(output_dir='out', evaluation_strategy='steps')\n"
        "TypeError: TrainingArguments.__init__() got an unexpected keyword argument 'evaluation_strategy'\n"),
    # PEFT added use_dora in 0.9: PEFT 0.8 on Python 3.8 (no class in the message, the call is on the frame)
    "peft-use-dora-on-08": ("version_check", ("PEFT", "use_dora", "v0.9.0"),
        PY_TB + "    peft_config = LoraConfig(r=16, lora_alpha=32, use_dora=True)\n"
        "TypeError: __init__() got an unexpected keyword argument 'use_dora'\n"),
    # an adapter_config.json saved by a newer PEFT (layer_replication: 0.10+) loaded by an older one on Python 3.8:
    # the class is built in peft/config.py from the file's keys
    "peft-adapter-config-newer": ("version_check", ("PEFT", "layer_replication", "upgrade"),
        PY_TB + "  File \"/usr/lib/python3.8/site-packages/peft/peft_model.py\", line 325, in from_pretrained\n"
        "    config = PEFT_TYPE_TO_CONFIG_MAPPING[PeftConfig._get_peft_type(model_id)].from_pretrained(model_id)\n"
        "  File \"/usr/lib/python3.8/site-packages/peft/config.py\", line 134, in from_pretrained\n"
        "    config = config_cls(**kwargs)\n"
        "TypeError: __init__() got an unexpected keyword argument 'layer_replication'\n"),
    # a flag Megatron-LM removed (--fp16-lm-cross-entropy stays; --DDP-impl is gone after 23.06)
    "megatron-removed-flag": ("version_check", ("Megatron", "DDP_impl", "23.06"),
        "usage: pretrain_gpt.py [-h] [--num-layers NUM_LAYERS] [--hidden-size HIDDEN_SIZE]\n"
        "pretrain_gpt.py: error: unrecognized arguments: --DDP-impl local\n" + NOISE),
    # a flag only newer Megatron-Core declares (core_v0.15+), refused by an older one
    "megatron-new-flag": ("version_check", ("quick_geglu", "upgrade"),
        "usage: pretrain_gpt.py [-h] [--num-layers NUM_LAYERS]\n"
        "pretrain_gpt.py: error: unrecognized arguments: --quick-geglu --glu-linear-offset 1.0\n"),
    # eole's pydantic config (extra="forbid"): `precision` (eole 0.0.1) was renamed compute_dtype in 0.0.2
    "eole-renamed-key": ("version_check", ("eole", "precision", "0.0.1"),
        "$ eole train -config wmt17_en_de.yaml\n" + PY_TB.replace("/work/finetune.py",
            "/usr/lib/python3.10/site-packages/eole/bin/run/__init__.py") +
        "pydantic_core._pydantic_core.ValidationError: 1 validation error for TrainConfig\ntraining.precision\n"
        "  Extra inputs are not permitted [type=extra_forbidden, input_value='fp16', input_type=str]\n"
        "    For further information visit https://errors.pydantic.dev/2.9/v/extra_forbidden\n"),
    # a key every eole release has, written at the top level instead of its section: the configuration
    "eole-key-in-wrong-section": ("config_error", (),
        "$ eole train -config wmt17_en_de.yaml\n" + PY_TB.replace("/work/finetune.py",
            "/usr/lib/python3.10/site-packages/eole/bin/run/__init__.py") +
        "pydantic_core._pydantic_core.ValidationError: 1 validation error for TrainConfig\naccum_count\n"
        "  Extra inputs are not permitted [type=extra_forbidden, input_value=[8], input_type=list]\n"),
    # accelerate's config file written by a newer `accelerate config` (parallelism_config: 1.10+) read by an older one
    "accelerate-config-key-newer": ("version_check", ("accelerate", "parallelism_config", "v1.10.0"),
        "$ accelerate launch --config_file fsdp2.yaml train.py\n" + PY_TB.replace("/work/finetune.py",
            "/usr/lib/python3.10/site-packages/accelerate/commands/config/config_args.py") +
        "ValueError: The config file at fsdp2.yaml had unknown keys (['parallelism_config']), please try upgrading "
        "your `accelerate` version or fix (and potentially remove) these keys from your config file.\n"),
    # a launch flag accelerate dropped after 0.13 (--min_num_params, now --fsdp_min_num_params)
    "accelerate-launch-flag-removed": ("version_check", ("min_num_params", "v0.13.2"),
        "usage: accelerate <command> [<args>] launch [-h] [--config_file CONFIG_FILE] [--cpu]\n"
        "accelerate <command> [<args>] launch: error: unrecognized arguments: --min_num_params 2000\n"),
    "accelerate-launch-typo": ("config_error", ("num_processes",),
        "usage: accelerate <command> [<args>] launch [-h] [--config_file CONFIG_FILE] [--cpu]\n"
        "accelerate <command> [<args>] launch: error: unrecognized arguments: --num_procesess 8\n"),
    # a key no accelerate release has (a typo) in its config file: the configuration, with accelerate's spelling
    "accelerate-config-typo": ("config_error", ("mixed_precision",),
        "$ accelerate launch --config_file fsdp.yaml train.py\n" + PY_TB.replace("/work/finetune.py",
            "/usr/lib/python3.10/site-packages/accelerate/commands/config/config_args.py") +
        "ValueError: The config file at fsdp.yaml had unknown keys (['mixed_precison']), please try upgrading "
        "your `accelerate` version or fix (and potentially remove) these keys from your config file.\n"),
    # typos stay the configuration, with the runner's spelling
    "peft-typo": ("config_error", ("lora_dropout",),
        PY_TB + "    cfg = LoraConfig(r=8, lora_dropuot=0.05)\n"
        "TypeError: LoraConfig.__init__() got an unexpected keyword argument 'lora_dropuot'\n"),
    "megatron-typo": ("config_error", ("tensor_model_parallel_size",),
        "usage: pretrain_gpt.py [-h] [--num-layers NUM_LAYERS]\n"
        "pretrain_gpt.py: error: unrecognized arguments: --tensor-model-paralel-size 2\n"),
    "lf-typo": ("config_error", (),
        "$ llamafactory-cli train --stage sft --lora_rnak 8\n" + LF_TB +
        "ValueError: Some specified arguments are not used by the HfArgumentParser: ['--lora_rnak', '8']\n"),
    # one skew name and one typo together: not every name is another release's
    "hf-mixed": ("config_error", (),
        HF_TB + "ValueError: Some specified arguments are not used by the HfArgumentParser: ['--eval_strategy', "
        "'steps', '--my_own_flag', '1']\n"),
    # a key every release has, refused by LLaMA-Factory's chat parser: the command, not a release
    "lf-chat-training-key": ("config_error", (),
        "$ llamafactory-cli chat --model_name_or_path qwen --learning_rate 1e-4\n" + LF_TB.replace(
            "_parse_args", "get_infer_args") +
        "ValueError: Some specified arguments are not used by the HfArgumentParser: ['--learning_rate', '1e-4']\n"),
    # Megatron keys given to LLaMA-Factory's HF parser: its Megatron mode (USE_MCA=1), not a release
    "lf-megatron-keys-no-mca": ("config_error", (),
        "$ llamafactory-cli train examples/megatron/qwen3_full.yaml\n" + LF_TB.replace("specified arguments", "keys") +
        "ValueError: Some keys are not used by the HfArgumentParser: ['context_parallel_size', "
        "'virtual_pipeline_model_parallel_size']\n"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_skew_or_config(tmp_path, case):
    family, words, text = CASES[case]
    r = _root(tmp_path, text)
    assert r.family == family, (case, r.family, r.code, r.title)
    for w in words:
        assert w in r.title + " " + r.fix, (case, w, r.title, r.fix)


def test_refusal_shapes_read_from_source_messages():
    hf = arg_skew.find_refusal("ValueError: Some specified arguments are not used by the HfArgumentParser: "
                               "['--dpo_beta', '0.1', '--sft_packing']")
    assert hf == arg_skew.Refusal("hfargparser", ("dpo_beta", "sft_packing"))
    keys = arg_skew.find_refusal("ValueError: Some keys are not used by the HfArgumentParser: ['a_b', 'c']")
    assert keys is not None and keys.names == ("a_b", "c")
    ap = arg_skew.find_refusal("x.py: error: unrecognized arguments: --window-size 128,0 --quick-geglu")
    assert ap == arg_skew.Refusal("argparse", ("window_size", "quick_geglu"), "x.py:")
    pyd = arg_skew.find_refusal("2 validation errors for TrainConfig\ndata.corpus_1.foo_bar\n  Extra inputs are "
                                "not permitted [type=extra_forbidden]\ntraining.model_dtype\n  Extra inputs are not "
                                "permitted")
    assert pyd == arg_skew.Refusal("pydantic", ("foo_bar", "model_dtype"), "TrainConfig")
    acc = arg_skew.find_refusal("ValueError: The config file at /root/.cache/huggingface/accelerate/default_config.yaml "
                                "had unknown keys (['enable_cpu_affinity', 'fp8_config']), please try upgrading")
    assert acc == arg_skew.Refusal("accelerate-config", ("enable_cpu_affinity", "fp8_config"))
    kw = arg_skew.find_refusal("TypeError: GRPOConfig.__init__() got an unexpected keyword argument 'use_vllm'")
    assert kw == arg_skew.Refusal("kwarg", ("use_vllm",), "GRPOConfig")
    assert arg_skew.find_refusal("RuntimeError: CUDA error: out of memory") is None


def test_spans_come_from_the_release_tags():
    """The table's spans follow the source: a name of every release read is not skew, one added/removed is."""
    _, lf_new, lf_spans, _ = RUNNER_ARGS["llamafactory"]
    assert lf_new == "main"
    names = {n: s for s, v in lf_spans.items() for n in v.split()}
    assert names["checkpoint_dir"].endswith("v0.3.3") and names["pref_beta"].endswith("..main")
    ref = arg_skew.Refusal("hfargparser", ("learning_rate",))
    every = arg_skew.read_refusal(ref, ("transformers",))                 # every release has it: not a release
    assert every is not None and every.runner == "" and every.close == ()
    rd = arg_skew.read_refusal(arg_skew.Refusal("hfargparser", ("evaluation_strategy",)), ("transformers",))
    assert rd is not None and rd.runner == "transformers" and rd.spans[0][1].endswith("4.46.3")
    typo = arg_skew.read_refusal(arg_skew.Refusal("kwarg", ("lora_alpah",), "LoraConfig"), ("peft",))
    assert typo is not None and typo.runner == "" and "lora_alpha" in typo.close


def test_a_parameter_given_twice_inside_installed_code_is_the_versions_in_the_script_it_is_not(tmp_path):
    lib = (PY_TB + "  File \"/usr/lib/python3.10/site-packages/peft/tuners/lora/model.py\", line 230, in "
           "_create_new_module\n    new_module = Linear8bitLt(target, adapter_name, **kwargs)\n"
           "TypeError: Linear8bitLt.__init__() got multiple values for argument 'adapter_name'\n")
    assert _root(tmp_path, lib).family == "version_check"
    own = (PY_TB + "  File \"/work/finetune.py\", line 52, in build\n    return make_model(cfg, cfg=cfg)\n"
           "TypeError: make_model() got multiple values for argument 'cfg'\n")
    assert _root(tmp_path, own).family != "version_check"
