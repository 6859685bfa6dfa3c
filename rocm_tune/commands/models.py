"""`rocm-tune models [QUERY] [--json]`: list/search the model presets, or show one model's shape."""

from __future__ import annotations

import argparse

from rocm_tune.commands._common import print_json
from rocm_tune.core.errors import UserError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("query", nargs="*", help='words to match ("qwen3", "7b", "moe"); empty lists all presets')
    parser.add_argument("--show", metavar="MODEL",
                        help="one model (preset, directory, config.json or cached hub id): shape and parameter counts")
    parser.add_argument("--json", action="store_true", help="one JSON object on stdout")


def _billions(n: int) -> str:
    return f"{n / 1e9:.2f}B" if n >= 1e9 else f"{n / 1e6:.0f}M"


def run(args: argparse.Namespace) -> int:
    from rocm_tune.core.model.architecture import load_model, search_presets

    if args.show is not None:
        if args.query:
            raise UserError(f"--show {args.show!r} shows one model; leave out the search words "
                            f"({' '.join(args.query)!r}) or drop --show")
        spec = load_model(args.show)
        if args.json:
            print_json(spec.to_dict())
            return 0
        p = spec.params
        print(f"{spec.name}  ({spec.family}, from {spec.source}{': ' + spec.location if spec.location else ''})")
        print(f"  parameters   {p.total:,} ({_billions(p.total)})"
              + (f", {spec.active_params:,} active per token" if spec.is_moe else ""))
        print(f"  layers {spec.num_layers}, hidden {spec.hidden_size}, intermediate {spec.intermediate_size}, "
              f"heads {spec.num_attention_heads}/{spec.num_kv_heads} kv, head_dim {spec.head_dim}, vocab {spec.vocab_size}")
        if spec.is_moe:
            print(f"  experts {spec.num_experts} (top-{spec.num_experts_per_tok}), shared {spec.num_shared_experts}")
        print(f"  embed {p.embed:,}  lm_head {p.lm_head:,}{' (tied)' if spec.tie_word_embeddings else ''}  "
              f"attention {p.attention:,}  mlp {p.mlp:,}  experts {p.experts:,}  norms {p.norms:,}")
        for w in spec.warnings:
            print(f"  warning: {w}")
        return 0

    query = " ".join(args.query)
    found = search_presets(query)
    if not found:
        raise UserError(f"no preset matches {query!r}; try a family (qwen2.5, llama, gemma2) or a size (7b)")
    if args.json:
        print_json({"query": query, "count": len(found), "models": [
            {"name": m.name, "hub_id": m.hub_id, "family": m.family, "size_label": m.size_label,
             "params_total": m.params.total, "active_params": m.active_params, "num_layers": m.num_layers,
             "hidden_size": m.hidden_size, "vocab_size": m.vocab_size} for m in found]})
        return 0
    width = max(len(m.name) for m in found)
    print(f"{'name':<{width}}  {'params':>8}  {'family':<12}  hub id")
    for m in found:
        print(f"{m.name:<{width}}  {_billions(m.params.total):>8}  {m.family:<12}  {m.hub_id or ''}")
    return 0
