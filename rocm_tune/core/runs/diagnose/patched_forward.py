"""A library's patched model forward and transformers of different releases (e-new18, issue 26).

Liger-Kernel, Unsloth, LLaMA-Factory's and axolotl's attention patches and PEFT replace transformers' forwards with
their own (profiles/forward_patchers.py). Each is written against one transformers release's signatures, so a newer
or older transformers passes an argument the patch does not declare, or the patch calls transformers' modules with
another release's arguments or return shapes. FAMILIES.md (Rule 1, refined: an argument the installed release does
not know while the caller is another release -> version_check): the versions when the frame that raised is a patch
module or the refused function is a patched one; generate()'s unused-model_kwargs refusal when a patching library is
active in the run (generate reads the patched forward's signature). A signature error in user code stays as it is.

Pure: regexes over the text.
"""
from __future__ import annotations

import re
from functools import lru_cache

from rocm_tune.profiles import forward_patchers as fp

_FRAME = re.compile(r'File "(?P<path>[^"]+)", line \d+, in (?P<fn>[\w<>]+)|'
                    r"(?:^|\s)(?P<ppath>[\w./\\-]+\.py):\d+: in (?P<pfn>[\w<>]+)", re.M)
# wrappers between a caller and the forward it calls (torch's Module.__call__, transformers' and accelerate's
# decorators): the frame that raised a call's TypeError is the one above them
_WRAPPER = re.compile(r"torch[/\\]nn[/\\]modules[/\\]module\.py|transformers[/\\]utils[/\\](?:generic|deprecation)\.py|"
                      r"accelerate[/\\]hooks\.py|torch[/\\]_dynamo[/\\]|torch[/\\]utils[/\\]checkpoint\.py|"
                      r"peft[/\\]tuners[/\\]tuners_utils\.py")


@lru_cache(maxsize=1)
def _rx() -> tuple[tuple[tuple[str, re.Pattern[str], re.Pattern[str], re.Pattern[str]], ...],
                   tuple[re.Pattern[str], ...], re.Pattern[str], re.Pattern[str]]:
    pats = tuple((name, re.compile(path), re.compile(rf"^(?:\w+\.)*(?:{fn})$"), re.compile(words))
                 for name, path, fn, words in fp.PATCHERS)
    return pats, tuple(re.compile(p) for p in fp.SIGNATURE_ERRORS), re.compile(fp.UNUSED_MODEL_KWARGS), \
        re.compile(fp.MISSING_ATTRIBUTE)


def _frames(pre: str) -> list[str]:
    """The paths of the last traceback's frames, innermost last (Python's and pytest's spellings)."""
    tb = pre[-8000:]
    if "Traceback (most recent call last)" in tb:
        tb = tb[tb.rfind("Traceback (most recent call last)"):]
    return [m.group("path") or m.group("ppath") for m in _FRAME.finditer(tb)]


def _raising_patcher(frames: list[str], call: bool) -> str | None:
    """The patching library whose module is the frame that raised (for a call's TypeError: the caller above the
    wrappers)."""
    pats = _rx()[0]
    inner = [f for f in frames if not _WRAPPER.search(f)] if call else frames
    if not inner:
        return None
    return next((name for name, path, _, _ in pats if path.search(inner[-1])), None)


def _seam(text: str) -> tuple[str, re.Match[str]] | None:
    """The kind of seam error the line shows and its match."""
    _, sigs, unused, attr = _rx()
    for rx in sigs:
        if m := rx.search(text):
            return ("unpack" if "values to unpack" in m.group(0) else "call"), m
    if m := unused.search(text):
        return "unused", m
    if m := attr.search(text):
        return "attribute", m
    return None


def _patcher(kind: str, m: re.Match[str], pre: str, blob: str) -> str | None:
    pats = _rx()[0]
    func = m.groupdict().get("func") or ""
    if kind == "call" and (named := next((n for n, _, fn, _ in pats if fn.match(func)), None)):
        return named        # the refused function is a patched forward (`lce_forward() got an unexpected ...`)
    if kind == "unused":    # generate() read the forward's signature: the patch active anywhere in the run
        seen = blob + "\n" + pre
        return next((n for n, _, _, words in pats if words.search(seen)), None)
    return _raising_patcher(_frames(pre), call=kind == "call")


def reading(text: str, pre: str, blob: str) -> tuple[str, str] | None:
    """(title, fix) when a signature/arity/return-shape error sits at the seam between a patched forward and
    transformers, else None."""
    seam = _seam(text)
    if seam is None:
        return None
    kind, m = seam
    lib = _patcher(kind, m, pre, blob)
    if lib is None:
        return None
    what = {"call": f"the call {m.group(0)!r}", "unpack": f"unpacking a result ({m.group(0)})",
            "unused": "generate() refused inputs the model's forward does not declare",
            "attribute": f"the patch reads {m.group(0)}"}[kind]
    if kind == "unused":
        what += f" ({m.group('arg')})"
    title = (f"the forward {lib} puts in place of transformers' own and the installed transformers are of different "
             f"releases: {what} - the patch was written for another transformers release's signatures")
    return title, fp.FIX.get(lib) or fp.FIX_OTHER.format(lib=lib)
