"""Public sets with no sourced longest-sample figure (issue 26, helper c-data9): the s1K reasoning traces, the
UltraFeedback pairs, the Tulu 3 SFT mixture and ADGEN under a vocabulary below 100k tokens. None has a published
whole-set token maximum (the s1 paper says only that 32768 "avoids cutting off samples", an upper bound equal to
its own block size), so profiles/dataset_lengths.py holds no figure for them and check keeps counting at the cap,
saying the longest sample that still fits. The configs are written from TRL's own sft.py usage, not the corpus."""

from __future__ import annotations

import pytest

from rocm_tune.core.check.check import check
from rocm_tune.profiles import dataset_lengths as dl

TRL = """accelerate launch trl/scripts/sft.py \\
    --model_name_or_path Qwen/Qwen2.5-7B-Instruct \\
    --dataset_name {data} \\
    --max_seq_length 32768 \\
    --per_device_train_batch_size 8 \\
    --gradient_checkpointing \\
    --bf16 \\
    --output_dir out
"""
UNSOURCED = ("simplescaling/s1K", "simplescaling/s1K-1.1", "simplescaling/s1K_tokenized",
             "HuggingFaceH4/ultrafeedback_binarized", "openbmb/UltraFeedback", "allenai/tulu-3-sft-mixture",
             "PeterJinGo/nq_hotpotqa_train")


@pytest.mark.parametrize("name", UNSOURCED)
def test_sets_without_a_published_maximum_get_no_figure_for_any_vocabulary(name):
    for vocab in (0, 32000, 128256, 151936):
        assert dl.longest(name, vocab=vocab) is None, (name, vocab)


def test_adgen_figure_is_qwen_counted_so_only_large_vocabularies_get_it():
    # ms-swift 2.x table: advertise-gen-zh, all 98399 rows, longest 241 Qwen tokens (chatglm-6b: 130528 tokens)
    got = dl.longest("advertise-gen-zh", vocab=130528)
    assert got is not None and got[0] == 241 + dl.SWIFT_TEMPLATE_ALLOWANCE and "98399 rows" in got[2]
    assert dl.longest("advertise-gen-zh", vocab=65024) is None and dl.longest("advertise-gen-zh") is None


def test_trl_sft_on_an_unsourced_set_keeps_the_cap_and_says_what_fits(tmp_path):
    p = tmp_path / "train.sh"
    p.write_text(TRL.format(data="simplescaling/s1K-1.1"))
    rep = check([str(p)], gpu_id="mi300x").to_dict()
    assert "sequence_bound" not in rep and rep["understood"]["cutoff_len"] == 32768
    p.write_text(TRL.format(data="TIGER-Lab/MathInstruct"))
    bounded = check([str(p)], gpu_id="mi300x").to_dict()
    # the same run on a set with a sourced figure is counted at that figure, not at the cap
    assert bounded["sequence_bound"]["data_longest_tokens"] == 4383 + dl.SWIFT_TEMPLATE_ALLOWANCE
    assert bounded["sequence_bound"]["at_cutoff_len"]["peak_bytes"] > max(
        ph["reserved_bytes"] for ph in bounded["memory"].values() if ph)
