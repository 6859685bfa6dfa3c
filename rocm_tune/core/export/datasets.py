"""LLaMA-Factory datasets by name: `dataset: NAME[,NAME...]` + `dataset_dir: DIR`, as LLaMA-Factory means them.

LLaMA-Factory (data/parser.py `get_dataset_list`, 0.9.x) splits `dataset` on commas, then looks each name up in
`DIR/dataset_info.json`, DIR relative to its working directory — run.sh changes into the bundle directory, so
there. `ONLINE` (and `REMOTE:<repo>`) mean the hub: no dataset_info.json is read. That lookup happens on the
machine that trains, which need not be this one, so here:

* DIR is `ONLINE` or `REMOTE:...`: written as it is, nothing checked.
* DIR is absolute (or `~/...`): checked when DIR/dataset_info.json exists here; written as it is.
* DIR is relative: when `./DIR/dataset_info.json` exists in the current directory of the export, that folder is
  meant (checked; its absolute path is written). Otherwise DIR is the bundle's (`BUNDLE/DIR`, where run.sh runs
  LLaMA-Factory): checked when `BUNDLE/DIR/dataset_info.json` exists here, else left to the training machine.
* A dataset_info.json that is checked must be a JSON object listing every name (one line naming the name and
  the closest names otherwise); one that is not here gives a note, never an error.

Every caller (the export CLI, `plan`, the app's Export screen) goes through `resolve_named`, so the checks and
messages are the same everywhere.
"""

from __future__ import annotations

import difflib
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from rocm_tune.core.errors import UserError

if TYPE_CHECKING:
    from rocm_tune.core.export.common import ExportOptions

DEFAULT_DIR = "data"  # LLaMA-Factory's DataArguments.dataset_dir default
ONLINE = "ONLINE"
INFO = "dataset_info.json"
# the app's stand-in when no dataset is given: a marked name no dataset_info.json has (never checked)
PLACEHOLDER = "CHANGE_ME_dataset"
_BAD_NAME = re.compile(r"[\s\x00-\x1f\x7f]")
_FIELD_DIR = re.compile(r"^(?P<names>[^@]+)@(?P<dir>.+)$")
_FILE_SUFFIX = re.compile(r"\.(json|jsonl|parquet|csv|txt|arrow)$", re.IGNORECASE)


def is_hub_dir(d: str) -> bool:
    """ONLINE or REMOTE:<repo>: LLaMA-Factory loads the names from a hub, no local dataset_info.json."""
    return d == ONLINE or d.startswith("REMOTE:")


def parse_names(text: object, flag: str = "--dataset-name") -> tuple[str, ...]:
    """The names of `NAME[,NAME...]` (split on commas and stripped, as LLaMA-Factory does)."""
    s = str(text) if text is not None else ""
    items = tuple(t.strip() for t in s.split(","))
    if not s.strip() or any(not t for t in items):
        raise UserError(f"{flag} {s!r} is not a dataset name list; expected NAME or NAME,NAME "
                        "(entries of dataset_info.json)")
    for t in items:
        if _BAD_NAME.search(t):
            raise UserError(f"{flag} {s!r}: dataset name {t!r} contains whitespace or a control character")
    return items


def closest(name: str, known: list[str], n: int = 3) -> list[str]:
    """The known names nearest to `name` (difflib), nearest first; a case-insensitive match comes first."""
    exact = [k for k in known if k.lower() == name.lower()]
    near = difflib.get_close_matches(name, known, n=n, cutoff=0.7)
    if not near:
        low = {k.lower(): k for k in known}
        near = [low[k] for k in difflib.get_close_matches(name.lower(), list(low), n=n, cutoff=0.7)]
    return list(dict.fromkeys(exact + near))[:n]


def _unknown(name: str, info: Path, known: list[str]) -> UserError:
    near = closest(name, known)
    if near:
        hint = "closest: " + ", ".join(near)
    else:
        shown = sorted(known)
        hint = "it lists: " + ", ".join(shown[:8]) + (f" and {len(shown) - 8} more" if len(shown) > 8 else "")
    return UserError(f"dataset {name!r} is not in {info}; {hint}")


@dataclass(frozen=True)
class NamedDatasets:
    """Where LLaMA-Factory will find NAME(s), and what could be checked here."""

    names: tuple[str, ...]
    dir: str  # dataset_dir to write: absolute for a folder found here, relative = in the bundle, or ONLINE
    given_dir: str  # --dataset-dir as given (default `data`)
    resolved: str  # "here" (a folder of this machine) | "bundle" | "training machine" | "hub" | "placeholder"
    info: str | None = None  # the dataset_info.json checked here (absolute), None when nothing was checked
    entries: dict = field(default_factory=dict)  # name -> its dataset_info.json entry (checked ones only)

    @property
    def text(self) -> str:
        """The YAML's `dataset:` value."""
        return ",".join(self.names)

    @property
    def checked(self) -> bool:
        return self.info is not None

    def shown_dir(self, bundle_dir: str | None) -> str:
        """DIR as LLaMA-Factory will see it from the bundle directory (absolute when the bundle's is known)."""
        if bundle_dir and not is_hub_dir(self.dir) and not os.path.isabs(self.dir):
            return os.path.normpath(os.path.join(bundle_dir, self.dir))
        return self.dir

    def note(self, bundle_dir: str | None) -> str | None:
        """One line for stderr / `--json` notes when the names could not be checked here."""
        if self.resolved == "hub":
            return f"dataset {self.text}: dataset_dir {self.dir}: LLaMA-Factory loads it from the hub when it trains " \
                   "(not checked here)"
        if self.resolved == "training machine":
            where = os.path.join(self.shown_dir(bundle_dir), INFO)
            if not os.path.isabs(where):
                where += " in the bundle directory"
            return (f"dataset {self.text}: {os.path.join(self.given_dir, INFO)} is not readable here; LLaMA-Factory "
                    f"resolves it in {where} on the training machine (copy or link a "
                    f"dataset_info.json folder there, or pass --dataset-dir with its path on that machine)")
        return None

    def as_json(self, bundle_dir: str | None) -> dict:
        return {"names": list(self.names), "dataset_dir": self.shown_dir(bundle_dir), "resolved": self.resolved,
                "checked": self.info}

    def stats_source(self) -> tuple[str, str] | None:
        """(folder, name) whose local file `rocm-tune plan` can read for token statistics: one name, checked
        here, its entry a local file_name that exists; else None."""
        if len(self.names) != 1 or not self.info:
            return None
        entry = self.entries.get(self.names[0])
        folder = os.path.dirname(self.info)
        if isinstance(entry, dict) and entry.get("file_name") and \
                os.path.exists(os.path.join(folder, str(entry["file_name"]))):
            return folder, self.names[0]
        return None


def _check(names: tuple[str, ...], info: Path) -> dict:
    from rocm_tune.core.data.dataset import read_dataset_info

    data = read_dataset_info(info)  # one line naming the file (line/column of malformed JSON)
    known = [str(k) for k in data]
    for name in names:
        if name not in data:
            raise _unknown(name, info, known)
        if not isinstance(data[name], dict):
            raise UserError(f"entry {name!r} in {info} must be a JSON object (file_name, formatting, columns, ...)")
    return {n: data[n] for n in names}


def resolve_named(names_text: object, dataset_dir: str | None = None, *, bundle_dir: str | None = None,
                  cwd: str | None = None, flag: str = "--dataset-name") -> NamedDatasets:
    """NAME(s) in DIR by the rules of this module's docstring; UserError (one line) for a name that a readable
    dataset_info.json does not list, or for a malformed one."""
    names = parse_names(names_text, flag)
    given = DEFAULT_DIR if dataset_dir is None else str(dataset_dir).strip()
    if not given or any(ch in given for ch in "\n\r\x00"):
        raise UserError(f"--dataset-dir {dataset_dir!r} is not a folder (the one whose {INFO} lists {names[0]}, "
                        f"or {ONLINE} for the hub)")
    if names == (PLACEHOLDER,):
        return NamedDatasets(names, given, given, "placeholder")
    if is_hub_dir(given):
        return NamedDatasets(names, given, given, "hub")
    p = os.path.expanduser(given)
    here = Path(cwd or os.getcwd())
    candidates: list[tuple[Path, str]] = []
    if os.path.isabs(p):
        candidates.append((Path(p), "here"))
    else:
        candidates.append((here / p, "here"))
        if bundle_dir:
            candidates.append((Path(bundle_dir) / p, "bundle"))
    for folder, kind in candidates:
        info = folder / INFO
        if os.path.exists(info):  # a dangling link is not readable here: left to the training machine
            entries = _check(names, info)
            written = given if kind == "bundle" else os.path.abspath(str(folder))
            return NamedDatasets(names, written, given, kind, str(Path(os.path.abspath(str(info)))), entries)
    return NamedDatasets(names, p if os.path.isabs(p) else given, given, "training machine")


def for_export(opts: ExportOptions, dataset: str | None, bundle_dir: str | None = None) -> NamedDatasets | None:
    """The named dataset(s) of an export (`--dataset-name` [+ `--dataset-dir`, or `--dataset` a
    dataset_info.json folder]); None without `--dataset-name`."""
    if not opts.dataset_name:
        return None
    d = opts.dataset_dir
    if dataset:
        p = os.path.expanduser(str(dataset))
        if not os.path.isdir(p):
            raise UserError(f"--dataset {dataset!r} is a file (it gets its own {INFO} entry) and --dataset-name "
                            f"{opts.dataset_name!r} names an entry of a {INFO} folder; drop one of them")
        if d:
            raise UserError(f"--dataset {dataset!r} and --dataset-dir {d!r} both name the {INFO} folder; "
                            "give one of them")
        d = os.path.abspath(p)
    return resolve_named(opts.dataset_name, d, bundle_dir=bundle_dir or opts.bundle_dir)


def export_options(opts: ExportOptions, dataset: str | None, notes: list[str]) -> ExportOptions:
    """ExportOptions with `dataset`/`dataset_dir` as the YAML will name them, and the note to show."""
    nd = for_export(opts, dataset)
    if nd is None:
        return opts
    note = nd.note(opts.bundle_dir)
    if note:
        notes.append(note)
    return opts.with_(dataset_name=nd.text, dataset_dir=nd.dir)


def parse_field(text: str) -> tuple[str, str | None] | None:
    """The app's dataset field as (NAME[,NAME...], DIR or None) when it names LLaMA-Factory datasets
    (`NAME`, `a,b`, `NAME@DIR`) rather than a path: None for a path (it exists, has a path separator
    without `@`, or ends in a data-file suffix such as .json)."""
    s = text.strip()
    if not s or os.path.exists(os.path.expanduser(s)):
        return None
    m = _FIELD_DIR.match(s)
    if m:
        return m.group("names").strip(), m.group("dir").strip()
    if os.sep in s or s.startswith("~") or _FILE_SUFFIX.search(s):
        return None
    return s, None


def run_sh_comment(opts: ExportOptions, runner: str = "llamafactory") -> list[str]:
    """run.sh's line saying where the trainer will resolve `dataset:` (empty without a dataset name)."""
    from rocm_tune.core.export.common import comment
    from rocm_tune.core.export.llamafactory import in_bundle

    if not opts.dataset_name or not opts.dataset_dir:
        return []
    who = "LLaMA-Factory" if runner == "llamafactory" else "rocm-tune's trainer"
    if is_hub_dir(opts.dataset_dir):
        return ["# " + comment(f"dataset: {opts.dataset_name}, loaded by {who} from the hub (dataset_dir "
                               f"{opts.dataset_dir}) on the machine that runs this script")]
    where = in_bundle(opts, opts.dataset_dir)
    info = os.path.join(where, INFO) + ("" if os.path.isabs(where) else " (relative to this script's directory)")
    return ["# " + comment(f"dataset: {opts.dataset_name}, resolved by {who} in {info} "
                           "on the machine that runs this script")]
