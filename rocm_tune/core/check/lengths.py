"""The sample length `check` counts (issue 26): LLaMA-Factory's, TRL's, axolotl's (without sample_packing) and
torchtune's collators pad each micro-batch to its longest sample, not to the length cap (LLaMA-Factory
train/sft/workflow.py: SFTDataCollatorWith4DAttentionMask(pad_to_multiple_of=8), a DataCollatorForSeq2Seq; TRL
DataCollatorForPreference / DataCollatorForLanguageModeling pad to the batch's longest; torchtune
padded_collate_sft). So the step's memory follows the data, and the cap only bounds it:

* when the data a LLaMA-Factory config names is on disk (`dataset` entries of `dataset_dir/dataset_info.json`),
  its longest sample after truncation decides the verdict (core/data/seqlen.longest_batch_tokens) - the cap's
  verdict is said next to it;
* when the data is not at hand and only the cap does not fit, the longest sample that still fits is said, so the
  user can compare it with the data they know.

Pure: the estimator and the dataset reader only."""

from __future__ import annotations

import os
from dataclasses import replace

from rocm_tune.core.errors import UserError

PAD_MULTIPLE = 8


def local_data(job, model):
    """(DatasetStats, where) of the local data a LLaMA-Factory config trains on, or (None, why-not / None)."""
    from rocm_tune.core.data.dataset import analyze_dataset

    if job.runner != "llamafactory":
        return None, None
    ds = job.settings.get("dataset")
    names = [n.strip() for n in str(ds.value).split(",") if n.strip()] if ds is not None else []
    if not names:
        return None, None
    base = os.path.dirname(ds.file or "") or "."
    folder = os.path.join(base, str(job.get("dataset_dir", "data")))
    if not os.path.isfile(os.path.join(folder, "dataset_info.json")):
        return None, None
    longest, stats = 0, None
    try:
        for n in names:
            s = analyze_dataset(folder, model, n)
            if s.lengths and s.lengths[-1] >= longest:
                longest, stats = s.lengths[-1], s
    except (UserError, OSError, ValueError) as exc:
        return None, f"the data named in {os.path.basename(ds.file or '')} could not be read ({exc})"
    return stats, folder


def padded(tokens: int) -> int:
    return -(-max(1, int(tokens)) // PAD_MULTIPLE) * PAD_MULTIPLE


def longest_that_fits(fits_at, cap: int) -> int:
    """The longest padded sample length in [8, cap) at which `fits_at(length)` holds (0: none); `fits_at` is
    monotone (more tokens never take less memory)."""
    lo, hi = 0, cap // PAD_MULTIPLE          # in units of 8 tokens: fits_at(lo*8) is known true (or lo == 0)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if fits_at(mid * PAD_MULTIPLE):
            lo = mid
        else:
            hi = mid
    return lo * PAD_MULTIPLE


def at_length(cfg, tokens: int):
    return replace(cfg, cutoff_len=int(tokens))


def named_bound(job, vocab: int = 0) -> tuple[int, str, str] | None:
    """(longest sample in tokens, its source, the key that named the data) of the public data the config names
    (profiles/dataset_lengths.py), as the runner's reader found it (`dataset_max_tokens`), or LLaMA-Factory's
    `dataset` names of its own dataset_info.json (alpaca_en, ...) when they are not on disk. `vocab`: the model's
    vocabulary size, for the figures that hold only for large vocabularies. None: unknown data."""
    from rocm_tune.core.runners.common import as_int, named_data
    from rocm_tune.profiles.dataset_lengths import longest_of

    s = job.settings.get("dataset_max_tokens")
    src = job.settings.get("__data_source__")
    names = job.settings.get("__data_names__")
    lf = job.runner == "llamafactory" and job.settings.get("dataset") is not None
    if s is None and lf and names is None:
        ds = job.settings["dataset"]
        got = named_data([n.strip() for n in str(ds.value).split(",") if n.strip()], ds.file, ds.line, ds.native,
                         llamafactory=True)
        s, src, names = got.get("dataset_max_tokens"), got.get("__data_source__"), got.get("__data_names__")
    n = as_int(s.value) if s is not None else None
    if names is not None and vocab:
        big = longest_of([x for x in str(names.value).split(",") if x.strip()], lf, vocab)
        if big is not None and (n is None or big[0] < n):
            return big[0], big[1], names.native
    if s is None or n is None:
        return None
    return n, str(src.value) if src is not None else "the named dataset", s.native
