"""`explain` on two gaps an independent sample of public logs showed (helper e-g8, issue 26).

1. unsloth patching TRL's trainers: unsloth rebuilds TRL's trainer classes from the installed TRL's source; a TRL
   release the installed unsloth was not written for breaks the rewrite. The messages are unsloth's own, from its
   source: unsloth/tokenizer_utils.py (<= 2025.2, `Error patching SFTTrainer`), unsloth/models/rl.py +
   unsloth_zoo/compiler.py create_new_function (the generated unsloth_compiled_cache/Unsloth<X>Trainer.py),
   unsloth/models/rl_replacements.py (`source anchor not found ... out of sync with this TRL / unsloth_zoo version`).
   FAMILIES.md "Rule 1, refined": the patcher's words name the other package's trainer it could not rewrite - the
   two installed components disagree and the log shows it -> version_check.
2. LLaMA-Factory's `Processor was not found, please check and update your model file.` (src/llamafactory/data/
   mm_plugin.py _validate_input, and its image/video/audio siblings; `... processor config.` before 2025-04):
   transformers could not build a processor for the model -> unrecognized_model_type_adapter, as the KeyError of a
   model type the installed transformers predates (lf-8139, lf-9178).
The look-alikes from the same files keep their families. The logs are written as the tools print them (banners,
other ranks, torchrun's teardown); none is a corpus case.
"""

from __future__ import annotations

import pytest

from rocm_tune.core.runs.diagnose.diagnose import diagnose

UNSLOTH_BANNER = (
    "==((====))==  Unsloth 2025.3.19: Fast Qwen2 patching. Transformers: 4.50.0.\n"
    "   \\\\   /|    NVIDIA A10G. Num GPUs = 1. Max memory: 22.184 GB. Platform: Linux.\n"
    "O^O/ \\_/ \\    Torch: 2.6.0+cu124. CUDA: 8.6. CUDA Toolkit: 12.4. Triton: 3.2.0\n"
    "\\        /    Bfloat16 = TRUE. FA [Xformers = 0.0.29.post3. FA2 = False]\n"
    " \"-____-\"     Free license: http://github.com/unslothai/unsloth\n"
    "🦥 Unsloth: Will patch your computer to enable 2x faster free finetuning.\n"
    "🦥 Unsloth Zoo will now patch everything to make training faster!\n")
TB = "Traceback (most recent call last):\n  File \"/home/user/finetune.py\", line 3, in <module>\n" \
     "    from unsloth import FastLanguageModel\n"

LF_HEAD = (
    "[INFO|2025-06-02 09:12:44] llamafactory.hparams.parser:401 >> Process rank: 1, world size: 2, device: cuda:1, "
    "distributed training: True, compute dtype: torch.bfloat16\n"
    "[INFO|tokenization_utils_base.py:2058] 2025-06-02 09:12:45,101 >> loading file tokenizer.json\n"
    "[INFO|2025-06-02 09:12:46] llamafactory.data.loader:143 >> Loading dataset mllm_demo.json...\n")
LF_TB = (
    "[rank1]: Traceback (most recent call last):\n"
    "[rank1]:   File \"/opt/LLaMA-Factory/src/llamafactory/data/processor/supervised.py\", line 48, in "
    "_encode_data_example\n"
    "[rank1]:     messages = self.template.mm_plugin.process_messages(prompt + response, images, videos, audios, "
    "self.processor)\n"
    "[rank1]:   File \"/opt/LLaMA-Factory/src/llamafactory/data/mm_plugin.py\", line 176, in _validate_input\n"
    "[rank1]:     raise ValueError(\n")
TORCHRUN_END = (
    "W0602 09:12:50.118000 4410 torch/distributed/elastic/multiprocessing/api.py:897] Sending process 4478 closing "
    "signal SIGTERM\n"
    "E0602 09:12:50.402000 4410 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: 1) "
    "local_rank: 1 (pid: 4479) of binary: /usr/bin/python3\n"
    "torch.distributed.elastic.multiprocessing.errors.ChildFailedError:\n")


def _explain(tmp_path, text):
    log = tmp_path / "train.log"
    log.write_text(text)
    exp = diagnose([str(log)])
    return exp, (exp.diagnoses[exp.root] if exp.root is not None else None)


# (family, root code, log) - unsloth's failures to rewrite TRL's trainer, each spelling its source can print
UNSLOTH = {
    # tokenizer_utils.py <= 2025.2 for DPO (the same loop as SFT/KTO), printed plainly (not in a notebook)
    "error-patching-dpo": ("version_check", "unsloth-trainer-patch-failed", UNSLOTH_BANNER + TB +
                           "  File \"/usr/lib/python3.10/site-packages/unsloth/tokenizer_utils.py\", line 1063, in "
                           "<module>\n    raise RuntimeError(f\"Unsloth: Please file a bug report! Error patching "
                           "{trainer_name}\")\n"
                           "RuntimeError: Unsloth: Please file a bug report! Error patching DPOTrainer\n"),
    # rl.py + unsloth_zoo: the generated module failed to import, the fallback loader's error
    "direct-loading": ("version_check", "unsloth-trainer-patch-failed", UNSLOTH_BANNER +
                       "Standard import failed for UnslothGRPOTrainer: invalid syntax (UnslothGRPOTrainer.py, line "
                       "1187). Using tempfile instead!\n" + TB +
                       "  File \"/usr/lib/python3.10/site-packages/unsloth_zoo/compiler.py\", line 428, in "
                       "create_new_function\n"
                       "RuntimeError: Direct module loading failed for UnslothGRPOTrainer: invalid syntax "
                       "(UnslothGRPOTrainer.py, line 1187)\n"),
    # rl_replacements.py's guarded source edit (newest releases)
    "anchor-out-of-sync": ("version_check", "unsloth-trainer-patch-failed", UNSLOTH_BANNER + TB +
                           "RuntimeError: Unsloth: source anchor not found (sft_trainer.compute_loss); the patched "
                           "function is out of sync with this TRL / unsloth_zoo version. Please file a bug report.\n"),
    "required-edit": ("version_check", "unsloth-trainer-patch-failed", UNSLOTH_BANNER + TB +
                      "RuntimeError: Unsloth: failed to apply a required source edit (sft_prepare_dataset) (anchor "
                      "not found); please file a bug report.\n"),
    # the generated trainer file itself does not compile (Python's SyntaxError with the file as last frame)
    "compiled-cache-syntax": ("version_check", None, UNSLOTH_BANNER + TB +
                              "  File \"<frozen importlib._bootstrap>\", line 241, in _call_with_frames_removed\n"
                              "  File \"/workspace/unsloth_compiled_cache/UnslothSFTTrainer.py\", line 612\n"
                              "    model = <class 'inspect._empty'>,\n            ^\n"
                              "SyntaxError: invalid syntax\n"),
    "compiled-cache-name": ("version_check", None, UNSLOTH_BANNER + TB +
                            "  File \"/workspace/unsloth_compiled_cache/UnslothSFTTrainer.py\", line 1040, in __init__\n"
                            "    if is_peft_available() and isinstance(model, PeftModel):\n"
                            "NameError: name 'is_peft_available' is not defined\n"),
}


@pytest.mark.parametrize("name", sorted(UNSLOTH))
def test_unsloth_trl_patch_failures_are_the_versions(tmp_path, name):
    family, code, text = UNSLOTH[name]
    exp, root = _explain(tmp_path, text)
    assert exp.answer == family, (name, exp.answer, root and root.code)
    if code is not None:
        assert root is not None and root.code == code
        assert "trl" in root.fix.lower() and "unsloth" in root.fix.lower()


def test_unsloth_skipped_patch_is_weak(tmp_path):
    """The newest unsloth warns and goes on with TRL's own trainer: the cause only when nothing else is. A real
    failure after it (the GPU memory) is the root."""
    warn = UNSLOTH_BANNER + ("Unsloth: Could not patch trl.trainer.sft_trainer: unexpected indent (<string>, "
                             "line 14)\n")
    exp, root = _explain(tmp_path, warn + TB + "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 "
                         "GiB. GPU 0 has a total capacity of 22.06 GiB of which 1.02 GiB is free.\n")
    assert exp.answer == "gpu_oom"
    exp, root = _explain(tmp_path, warn + TB + "RuntimeError: training stopped\n")
    assert root is not None and root.code == "unsloth-trainer-patch-skipped" and exp.answer == "version_check"


def test_unsloth_lookalikes_keep_their_family(tmp_path):
    # unsloth's own dtype check inside the generated trainer (rl.py's config checks) is the run's settings
    exp, _ = _explain(tmp_path, UNSLOTH_BANNER + TB +
                      "  File \"/workspace/unsloth_compiled_cache/UnslothSFTTrainer.py\", line 210, in __init__\n"
                      "TypeError: Unsloth: Model is in float16 precision but you want to use bfloat16 precision. Set "
                      "fp16 to `True` and bf16 to `False`\n")
    assert exp.answer != "version_check", exp.answer
    # the user's script's own NameError is the script, not two releases
    exp, _ = _explain(tmp_path, UNSLOTH_BANNER + "Traceback (most recent call last):\n  File \"/home/user/finetune.py\", "
                      "line 40, in <module>\n    trainer = SFTTrainer(model=model, tokenizer=tokenizer)\n"
                      "NameError: name 'SFTTrainer' is not defined\n")
    assert exp.answer != "version_check", exp.answer


# LLaMA-Factory's processor checks (mm_plugin.py _validate_input), each spelling of both releases
PROCESSOR_LINES = [
    "ValueError: Processor was not found, please check and update your model file.",
    "ValueError: Image processor was not found, please check and update your model file.",
    "ValueError: Video processor was not found, please check and update your model file.",
    "ValueError: Audio feature extractor was not found, please check and update your model file.",
    "ValueError: Processor was not found, please check and update your processor config.",
    "ValueError: Image processor was not found, please check and update your processor config.",
]


@pytest.mark.parametrize("line", PROCESSOR_LINES)
def test_lf_processor_not_found_is_the_model_unknown(tmp_path, line):
    exp, root = _explain(tmp_path, LF_HEAD + LF_TB + f"[rank1]: {line}\n" + TORCHRUN_END)
    assert exp.answer == "unrecognized_model_type_adapter"
    assert root is not None and root.code == "processor-not-found"
    assert "upgrade transformers" in root.fix


def test_lf_processor_lookalikes_keep_their_family(tmp_path):
    # an image in the data of a text-only template: mm_plugin's other check, not the model's processor
    exp, root = _explain(tmp_path, LF_HEAD + LF_TB + "[rank1]: ValueError: This model does not support image input. "
                         "Please check whether the correct `template` is used.\n" + TORCHRUN_END)
    assert exp.answer != "unrecognized_model_type_adapter"
    assert root is None or root.code != "processor-not-found"
    # the count of images against the <image> placeholders is the data rows
    exp, _ = _explain(tmp_path, LF_HEAD + LF_TB + "[rank1]: ValueError: The number of images does not match the "
                      "number of <image> tokens in [{'content': '<image>Describe both.', 'role': 'user'}].\n"
                      + TORCHRUN_END)
    assert exp.answer == "dataset_error"
    # transformers' KeyError for the config of a model it predates stays where lf-8139/lf-9178 put it
    exp, _ = _explain(tmp_path, LF_HEAD + "[rank1]: Traceback (most recent call last):\n"
                      "[rank1]:   File \"/usr/local/lib/python3.10/site-packages/transformers/models/auto/"
                      "configuration_auto.py\", line 1073, in from_pretrained\n"
                      "[rank1]:     config_class = CONFIG_MAPPING[config_dict[\"model_type\"]]\n"
                      "[rank1]: KeyError: 'qwen3_vl'\n" + TORCHRUN_END)
    assert exp.answer == "unrecognized_model_type_adapter"


@pytest.mark.parametrize("reason, family", [
    # transformers' own requirement check on the video processor: the package is not installed
    ("Qwen2VLVideoProcessor requires the Torchvision library but it was not found in your environment. You can "
     "install it with pip: `pip install torchvision`", "missing_package"),
    # the import itself, as str(ModuleNotFoundError) prints it
    ("No module named 'torchvision'", "missing_package"),
    # the KeyError of a model type the installed transformers predates (str(KeyError) is the quoted key)
    ("'qwen3_vl'", "unrecognized_model_type_adapter"),
])
def test_lf_logged_processor_error_decides(tmp_path, reason, family):
    """LLaMA-Factory logs why AutoProcessor failed (model/loader.py: `Failed to load processor: {e}.`) before
    mm_plugin raises: where that reason names a package that is not installed, that is the cause."""
    info = f"[INFO|2025-06-02 09:12:45] llamafactory.model.loader:110 >> Failed to load processor: {reason}.\n"
    exp, _ = _explain(tmp_path, LF_HEAD + info + LF_TB + "[rank1]: ValueError: Processor was not found, please check "
                      "and update your model file.\n" + TORCHRUN_END)
    assert exp.answer == family
