"""Re-make rocm_tune/profiles/dataset_feature_types.py from huggingface/datasets' own source (e-ver3, issue 26).

Usage: python3 tools/build_dataset_feature_types.py DATASETS.git
  DATASETS.git: a git directory of huggingface/datasets; every release tag X.Y.Z is read (no network).
A dataset saved with `save_to_disk` / pushed with its dataset_info records each column's feature as {"_type": NAME}.
Loading it with a datasets release that has no feature class NAME fails in features.py generate_from_dict:
`ValueError: Feature type 'NAME' not found. Available feature types: [...]` (datasets >= 2.20, the _FEATURE_TYPES
registry) or `KeyError: 'NAME'` (before 2.20: `globals()[obj.pop("_type")]`). The feature classes declare their name
as `_type: str = field(default="NAME", ...)` in src/datasets/features/*.py; per name this records the first and the
last release tag that declares it.
"""
from __future__ import annotations

import pathlib
import re
import subprocess
import sys

OUT = pathlib.Path(__file__).resolve().parents[1] / "rocm_tune" / "profiles" / "dataset_feature_types.py"
_DECL = re.compile(r'_type: str = field\(default="(\w+)"')
_HEAD = '''"""The feature types (the `_type` of a saved dataset's features) each datasets release declares (e-ver3, issue 26):
data, no logic. Made by tools/build_dataset_feature_types.py from huggingface/datasets' release tags
(src/datasets/features/*.py: `_type: str = field(default="NAME", ...)`).

A dataset saved by a release with a feature type the installed release lacks fails to load in features.py
generate_from_dict: `ValueError: Feature type 'List' not found. Available feature types: [...]` (datasets >= 2.20) or
`KeyError: 'List'` (older). The name is then the saved dataset's release, not the data: version_check.
"""
from __future__ import annotations

'''


def _git(repo: str, *args: str) -> str:
    return subprocess.run(["git", "-C", repo, *args], capture_output=True, text=True, check=True).stdout


def _key(tag: str) -> tuple[int, ...]:
    return tuple(int(p) for p in tag.split("."))


def main(repo: str) -> None:
    tags = sorted((t for t in _git(repo, "tag").split() if re.fullmatch(r"\d+\.\d+\.\d+", t)), key=_key)
    read: list[str] = []
    spans: dict[str, list[str]] = {}
    for tag in tags:
        try:
            out = _git(repo, "grep", "-h", "-E", r'_type: str = field\(default="', tag, "--", "src/datasets/features/")
        except subprocess.CalledProcessError:
            continue                      # a release before the features package declared its types this way
        names = sorted(set(_DECL.findall(out)))
        if not names:
            continue
        read.append(tag)
        for n in names:
            spans.setdefault(n, [tag, tag])[1] = tag
    lines = [_HEAD, "# the releases read, in order\nFEATURE_RELEASES: tuple[str, ...] = ("]
    for i in range(0, len(read), 10):
        lines.append("    " + " ".join(f'"{t}",' for t in read[i:i + 10]))
    lines.append(")\n# feature type -> (first release read that declares it, last release read that declares it)")
    lines.append("FEATURE_TYPES: dict[str, tuple[str, str]] = {")
    for n in sorted(spans, key=lambda k: (_key(spans[k][0]), k)):
        lines.append(f'    "{n}": ("{spans[n][0]}", "{spans[n][1]}"),')
    lines.append("}\n")
    OUT.write_text("\n".join(lines))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print("usage: build_dataset_feature_types.py DATASETS.git", file=sys.stderr)
        raise SystemExit(2)
    main(sys.argv[1])
