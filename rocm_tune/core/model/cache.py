"""Where a model's config.json already is on this machine, and the Hub's copy of it (config.json only).

* The Hugging Face cache (``HF_HUB_CACHE``, ``HUGGINGFACE_HUB_CACHE``, ``HF_HOME/hub``, ``XDG_CACHE_HOME``,
  ``~/.cache/huggingface/hub``): ``models--<org>--<name>/snapshots/<rev>/config.json``, ``refs/main`` first.
* The ModelScope cache (``MODELSCOPE_CACHE``, ``~/.cache/modelscope/hub``): ``[models/]<org>/<name>/config.json``,
  where ModelScope writes ``.`` in a name as ``___`` (``Qwen2___5-7B-Instruct``).

Both are searched by a full hub id and by a name alone (the last component of a path that is not here: the model
the user downloaded under that name). ``fetch_hub_config`` downloads ``config.json`` alone from the Hub (or
``HF_ENDPOINT``'s mirror) within a few seconds and keeps it under ``$XDG_CACHE_HOME/rocm-tune/hub-configs``;
never with ``HF_HUB_OFFLINE`` set, never weights. Standard library only.
"""

from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path

HUB_TIMEOUT_S = 4.0
MISS_TTL_S = 24 * 3600      # a name the Hub did not know is asked again after a day
_TRUE = ("1", "true", "yes", "on")


def hf_cache_dirs() -> list[Path]:
    dirs: list[Path] = []
    for var in ("HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE"):
        if os.environ.get(var):
            dirs.append(Path(os.environ[var]))
    if os.environ.get("HF_HOME"):
        dirs.append(Path(os.environ["HF_HOME"]) / "hub")
    xdg = os.environ.get("XDG_CACHE_HOME")
    if xdg:
        dirs.append(Path(xdg) / "huggingface" / "hub")
    dirs.append(Path.home() / ".cache" / "huggingface" / "hub")
    return list(dict.fromkeys(dirs))


def modelscope_cache_dirs() -> list[Path]:
    bases: list[Path] = []
    if os.environ.get("MODELSCOPE_CACHE"):
        bases.append(Path(os.environ["MODELSCOPE_CACHE"]))
    bases.append(Path.home() / ".cache" / "modelscope" / "hub")
    out: list[Path] = []
    for b in bases:
        out += [b / "models", b, b / "hub" / "models", b / "hub"]
    return list(dict.fromkeys(out))


def _snapshot_config(repo: Path) -> Path | None:
    """config.json of the snapshot refs/main names, else of the newest snapshot that has one."""
    snaps = repo / "snapshots"
    if not snaps.is_dir():
        return None
    ref = repo / "refs" / "main"
    if ref.is_file():
        try:
            rev = ref.read_text(encoding="utf-8").strip()
        except OSError:
            rev = ""
        if rev and (snaps / rev / "config.json").is_file():
            return snaps / rev / "config.json"
    cands = [p for p in snaps.glob("*/config.json") if p.is_file()]
    return max(cands, key=lambda p: p.stat().st_mtime) if cands else None


def find_in_hf_cache(repo_id: str) -> Path | None:
    folder = "models--" + repo_id.replace("/", "--")
    for base in hf_cache_dirs():
        hit = _snapshot_config(base / folder)
        if hit is not None:
            return hit
    return None


def _ms_names(name: str) -> list[str]:
    out = [name]
    if "." in name:
        out.append(name.replace(".", "___"))
    if "___" in name:
        out.append(name.replace("___", "."))
    return out


def find_in_modelscope_cache(repo_id: str) -> Path | None:
    org, _, nm = repo_id.partition("/")
    for base in modelscope_cache_dirs():
        for n in _ms_names(nm):
            p = base / org / n / "config.json"
            if p.is_file():
                return p
    return None


def _dir_entries(base: Path) -> list[Path]:
    try:
        return sorted(base.iterdir()) if base.is_dir() else []
    except OSError:
        return []


def find_by_name(name: str) -> tuple[str, Path, str] | None:
    """A model cached under this name, by any organisation: (cache kind, config.json, hub id) or None.
    The name compares case-insensitively, with ModelScope's ``___`` read as ``.``."""
    want = name.replace("___", ".").lower()
    if not want or "/" in want:
        return None
    for base in hf_cache_dirs():
        for repo in _dir_entries(base):
            parts = repo.name.split("--", 2)
            if len(parts) == 3 and parts[0] == "models" and parts[2].lower() == want:
                hit = _snapshot_config(repo)
                if hit is not None:
                    return "hf-cache", hit, f"{parts[1]}/{parts[2]}"
    for base in modelscope_cache_dirs():
        for org in _dir_entries(base):
            for repo in _dir_entries(org):
                if repo.name.replace("___", ".").lower() == want and (repo / "config.json").is_file():
                    return "modelscope-cache", repo / "config.json", f"{org.name}/{repo.name.replace('___', '.')}"
    return None


# ------------------------------------------------------------------------------------------------ the Hub
def offline() -> bool:
    return any(str(os.environ.get(v, "")).strip().lower() in _TRUE for v in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE"))


def hub_endpoint() -> str:
    return (os.environ.get("HF_ENDPOINT") or "https://huggingface.co").rstrip("/")


def _store_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "rocm-tune" / "hub-configs"


_REPO_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,95}/[A-Za-z0-9][A-Za-z0-9._-]{0,95}$")


def kept_hub_config(repo_id: str) -> Path | None:
    """The config.json an earlier fetch_hub_config kept for this hub id (no network)."""
    if not _REPO_ID.match(repo_id):
        return None
    p = _store_dir() / repo_id.replace("/", "--") / "config.json"
    return p if p.is_file() else None


def fetch_hub_config(repo_id: str, timeout: float = HUB_TIMEOUT_S) -> tuple[dict | None, str]:
    """(config dict or None, where it came from / why not). config.json only; kept for the next time."""
    if not _REPO_ID.match(repo_id):
        return None, f"{repo_id!r} is not a hub id"
    store = _store_dir() / repo_id.replace("/", "--")
    kept = store / "config.json"
    if kept.is_file():
        try:
            return json.loads(kept.read_text(encoding="utf-8")), f"{hub_endpoint()} (kept in {kept})"
        except (OSError, ValueError):
            pass
    if offline():
        return None, "HF_HUB_OFFLINE is set"
    miss = store / "miss"
    try:
        if miss.is_file() and time.time() - miss.stat().st_mtime < MISS_TTL_S:
            return None, f"{hub_endpoint()} did not have it ({miss.read_text(encoding='utf-8').strip()})"
    except OSError:
        pass
    cfg, why = _bounded(repo_id, timeout)
    try:
        store.mkdir(parents=True, exist_ok=True)
        if cfg is not None:
            kept.write_text(json.dumps(cfg, indent=1), encoding="utf-8")
        elif why.startswith("HTTP"):            # the Hub answered: remember it; a network failure is retried
            miss.write_text(why + "\n", encoding="utf-8")
    except OSError:
        pass
    return cfg, (hub_endpoint() if cfg is not None else why)


def _bounded(repo_id: str, timeout: float) -> tuple[dict | None, str]:
    """_download in a daemon thread: the name lookup (DNS) has no timeout of its own, the whole fetch does."""
    import threading

    box: list[tuple[dict | None, str]] = []
    t = threading.Thread(target=lambda: box.append(_download(repo_id, timeout)), daemon=True)
    t.start()
    t.join(timeout + 0.5)
    return box[0] if box else (None, f"no answer from {hub_endpoint()} within {timeout:g} s")


def _download(repo_id: str, timeout: float) -> tuple[dict | None, str]:
    import urllib.error
    import urllib.request

    url = f"{hub_endpoint()}/{repo_id}/resolve/main/config.json"
    headers = {"User-Agent": "rocm-tune (config.json only)"}
    token = os.environ.get("HF_TOKEN") or os.environ.get("HUGGING_FACE_HUB_TOKEN")
    if token:
        headers["Authorization"] = f"Bearer {token}"
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=timeout) as resp:
            body = resp.read(2_000_000)
    except urllib.error.HTTPError as exc:
        return None, f"HTTP {exc.code} from {url}"
    except (urllib.error.URLError, OSError, ValueError) as exc:
        return None, f"no answer from {hub_endpoint()} within {timeout:g} s ({type(exc).__name__})"
    try:
        data = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return None, f"{url} is not JSON"
    return (data, "ok") if isinstance(data, dict) else (None, f"{url} is not a JSON object")
