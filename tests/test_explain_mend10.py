"""Two borders of `explain` that disagreed with FAMILIES.md or with each other (tenth session, issue 26):

- transformers' `BatchEncoding.convert_to_tensors` ("Unable to create tensor, you should probably activate truncation
  and/or padding ...") is the same fact as torch's "expected sequence of length N at dim 1 (got M)" it re-raises:
  the batch's rows differ in length and nothing pads them (dataset_error), whether the log keeps the inner
  exception, the tokenization frame, or only the last line;
- a remote-code model whose modeling file imports flash_attn when it is not installed (transformers'
  `check_imports`: "requires the following packages that were not found in your environment: flash_attn") is a
  package that is not installed (missing_package), like any other package that message names.

Logs written from the sources (transformers src/transformers/tokenization_utils_base.py, dynamic_module_utils.py).
"""

from __future__ import annotations

import pytest

from rocm_tune.core.runs.diagnose.diagnose import diagnose

SP = "/opt/conda/lib/python3.10/site-packages"
UNABLE = ("ValueError: Unable to create tensor, you should probably activate truncation and/or padding with "
          "'padding=True' 'truncation=True' to have batched tensors with the same length. Perhaps your features "
          "(`labels` in this case) have excessive nesting (inputs type `list` where type `int` is expected).\n")
UNABLE_OLD = ("ValueError: Unable to create tensor, you should probably activate truncation and/or padding with "
              "'padding=True' 'truncation=True' to have batched tensors with the same length.\n")
INNER = (f"Traceback (most recent call last):\n  File \"{SP}/transformers/tokenization_utils_base.py\", line 762, "
         "in convert_to_tensors\n    tensor = as_tensor(value)\nValueError: expected sequence of length 312 at dim 1 "
         "(got 287)\n\nThe above exception was the direct cause of the following exception:\n\n")
OUTER = ("Traceback (most recent call last):\n  File \"/home/u/train.py\", line 88, in <module>\n    trainer.train()\n"
         f"  File \"{SP}/transformers/data/data_collator.py\", line 271, in __call__\n    batch = pad_without_fast_"
         f"tokenizer_warning(\n  File \"{SP}/transformers/tokenization_utils_base.py\", line 778, in convert_to_tensors\n"
         "    raise ValueError(\n")
NOISE = "  0%|          | 0/1250 [00:00<?, ?it/s]\n"


def _answer(tmp_path, text):
    log = tmp_path / "train.log"
    log.write_text(text)
    exp = diagnose([str(log)])
    root = exp.diagnoses[exp.root] if exp.root is not None else None
    return (root.family, root.code) if root else (None, None)


@pytest.mark.parametrize("text", [
    NOISE + INNER + OUTER + UNABLE,      # the chained exceptions as Python prints them
    NOISE + OUTER + UNABLE,              # only the outer traceback pasted
    NOISE + UNABLE,                      # only the last line
    NOISE + OUTER + UNABLE_OLD,          # transformers before 4.31 (no "excessive nesting" sentence)
])
def test_unable_to_create_tensor_is_the_unpadded_batch(tmp_path, text):
    assert _answer(tmp_path, text) == ("dataset_error", "batch-not-padded")


def test_a_tokenizer_failure_in_the_same_file_keeps_its_family(tmp_path):
    # look-alike: the same module failing for a tokenizer reason (no pad token) stays tokenizer_template
    text = (NOISE + OUTER + "ValueError: Asking to pad but the tokenizer does not have a padding token. Please select "
            "a token to use as `pad_token` `(tokenizer.pad_token = tokenizer.eos_token e.g.)` or add a new pad token "
            "via `tokenizer.add_special_tokens({'pad_token': '[PAD]'})`.\n")
    assert _answer(tmp_path, text)[0] == "tokenizer_template"


REMOTE = ("Traceback (most recent call last):\n  File \"/home/u/ft.py\", line 12, in <module>\n    model = "
          "AutoModelForCausalLM.from_pretrained(path, trust_remote_code=True)\n"
          f"  File \"{SP}/transformers/dynamic_module_utils.py\", line 180, in check_imports\n"
          "    raise ImportError(\n")


@pytest.mark.parametrize("names", ["flash_attn", "einops, flash_attn", "flash-attn"])
def test_remote_code_missing_flash_attn_is_a_missing_package(tmp_path, names):
    text = REMOTE + (f"ImportError: This modeling file requires the following packages that were not found in your "
                     f"environment: {names}. Run `pip install {names.replace(',', '')}`\n")
    assert _answer(tmp_path, text) == ("missing_package", "missing-package")


def test_flash_attn_that_cannot_run_on_the_gpu_stays_flash_attn_error(tmp_path):
    # look-alike: flash-attn installed but refusing the GPU - the fix is another attention implementation
    text = ("RuntimeError: FlashAttention only supports Ampere GPUs or newer.\n")
    assert _answer(tmp_path, text)[0] == "flash_attn_error"
