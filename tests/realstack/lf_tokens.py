"""Compare the built-in trainer's rendering of LLaMA-Factory templates with LLaMA-Factory's own SFT
processor, with one tokenizer (runs in the venv, rocm_tune on PYTHONPATH).
Usage: lf_tokens.py MODEL_DIR DATA.json TEMPLATE CUTOFF -> JSON {"n", "mismatches": [...]}"""

from __future__ import annotations

import json
import sys


def main() -> int:
    model, data, template, cutoff = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    from llamafactory.data import get_template_and_fix_tokenizer
    from llamafactory.data.processor.supervised import SupervisedDatasetProcessor
    from llamafactory.hparams import DataArguments
    from transformers import AutoTokenizer

    from rocm_tune.train.data import encode_lf, lf_pairs, to_messages

    tok = AutoTokenizer.from_pretrained(model)
    da = DataArguments(template=template, cutoff_len=cutoff)
    proc = SupervisedDatasetProcessor(template=get_template_and_fix_tokenizer(tok, da), tokenizer=tok,
                                      processor=None, data_args=da)
    with open(data, encoding="utf-8") as fh:
        recs = json.load(fh)
    bad = []
    for i, r in enumerate(recs):
        # LLaMA-Factory's alpaca converter: instruction and input joined by a newline, system column if any
        query = "\n".join(x for x in (r.get("instruction"), r.get("input")) if x)
        ids, labels = proc._encode_data_example([{"role": "user", "content": query}],
                                                [{"role": "assistant", "content": r["output"]}],
                                                r.get("system"), None, [], [], [])
        ex = encode_lf(lf_pairs(tok, template, to_messages(r, "alpaca")), cutoff)
        if ex is None or ex.input_ids != ids or ex.labels != labels:
            bad.append({"i": i, "lf": [ids, labels], "ours": None if ex is None else [ex.input_ids, ex.labels]})
    print(json.dumps({"n": len(recs), "mismatches": bad[:3], "count": len(bad)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
