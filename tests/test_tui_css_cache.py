"""The parsed-CSS cache (rocm_tune.tui.css_cache): what a start reads back is what Textual would parse, it is
used only for the same CSS under the same theme variables, and a cache file that is not this user's own
regular file, or is damaged, is never read or replaced (issue 25 item 15)."""

from __future__ import annotations

import asyncio
import os
import pickle

import pytest
import textual.css.stylesheet as textual_stylesheet
from textual.css.parse import parse

from helpers_tui import wait_for
from rocm_tune.tui import css_cache


@pytest.fixture
def cache_home(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("ROCM_TUNE_FAKE_GPUS", "mi50-32gb:2")
    monkeypatch.setattr(css_cache, "_STORE", None)   # as a new process: the file is read on first use
    monkeypatch.setattr(css_cache, "_NEW", {})
    return tmp_path / "cache"


def count_parses(monkeypatch) -> list[int]:
    """Textual's CSS parser, counted: one entry per stylesheet text parsed."""
    calls: list[int] = []
    real = textual_stylesheet.parse

    def counted(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(textual_stylesheet, "parse", counted)
    return calls


def same_rules(a: list, b: list) -> bool:
    """RuleSets equal field by field (a layout object compares by identity: by its name here)."""
    def norm(rules):
        return [(r.selector_set, {k: getattr(v, "name", v) if k == "layout" else v for k, v in r.styles._rules.items()},
                 r.styles.important, r.errors, r.is_default_rules, r.tie_breaker, r.selector_names, r.pseudo_classes)
                for r in rules]

    return norm(a) == norm(b)


def paint_hardware(tokens: list | None = None) -> dict:
    """Start the app to its first paint; the hardware screen's values once the GPUs are in (and the
    stylesheet's variable tokens appended to `tokens`). The cache is saved as `rocm-tune` saves it at exit."""
    from rocm_tune.tui.app import RocmTuneApp

    async def run():
        app = RocmTuneApp(start="hardware")
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for(pilot, lambda: app.first_paint_at is not None, what="first paint")
            await wait_for(pilot, lambda: app.screen.query_one("#gpus").row_count == 2, what="GPU rows")
            table = app.screen.query_one("#gpus")
            if tokens is not None:
                tokens.append(app.stylesheet._variable_tokens)
            return {"rows": [table.get_row_at(i)[:3] for i in range(2)], "rules": len(app.stylesheet.rules),
                    "styles": {w.id: (str(w.styles.color), str(w.styles.background), w.styles.height)
                               for w in app.screen.walk_children() if w.id}}

    shown = asyncio.run(run())
    css_cache.save()
    return shown


def test_second_start_reads_every_parse_back_and_shows_the_same(cache_home, monkeypatch):
    calls = count_parses(monkeypatch)
    tokens: list = []
    first = paint_hardware(tokens)
    files = list((cache_home / "rocm-tune").glob("tui-css-*.pickle"))
    assert len(files) == 1 and calls, "the first start parses and writes the cache after its paint"
    assert oct(files[0].stat().st_mode & 0o777) == "0o600"
    store = pickle.loads(files[0].read_bytes())
    for (css, read_from, is_default, tie_breaker, scope, _digest), blob in store.items():
        fresh = list(parse(scope, css, read_from, variable_tokens=tokens[0],
                           is_default_rules=is_default, tie_breaker=tie_breaker))
        assert same_rules(pickle.loads(blob), fresh), read_from

    monkeypatch.setattr(css_cache, "_STORE", None)   # a new start
    calls.clear()
    second = paint_hardware()
    assert calls == [], "the second start parsed CSS again"
    assert second == first


def test_other_variables_never_get_the_rules_of_these(cache_home, monkeypatch):
    css = "Static { color: $fg; }"
    red = css_cache.CachedStylesheet(variables={"fg": "red"})._parse_rules(css, ("t", "x"))
    assert css_cache.save()
    monkeypatch.setattr(css_cache, "_STORE", None)   # a new start, red's parse in the file
    calls = count_parses(monkeypatch)
    blue = css_cache.CachedStylesheet(variables={"fg": "blue"})._parse_rules(css, ("t", "x"))
    assert len(calls) == 1 and "#FF0000" in red[0].css and "#0000FF" in blue[0].css
    again = css_cache.CachedStylesheet(variables={"fg": "red"})._parse_rules(css, ("t", "x"))
    assert len(calls) == 1 and "#FF0000" in again[0].css


@pytest.mark.parametrize("bad", ["group-writable", "symlink", "damaged", "not-a-dict"])
def test_a_cache_file_that_is_not_ours_or_is_damaged_is_not_read(cache_home, monkeypatch, bad, tmp_path):
    paint_hardware()
    path = css_cache.cache_file()
    good = path.read_bytes()
    if bad == "group-writable":
        path.chmod(0o620)
    elif bad == "symlink":
        target = tmp_path / "elsewhere.pickle"
        target.write_bytes(good)
        path.unlink()
        path.symlink_to(target)
    elif bad == "damaged":
        path.write_bytes(good[: len(good) // 2])
    else:
        path.write_bytes(pickle.dumps(["not", "a", "dict"]))
    monkeypatch.setattr(css_cache, "_STORE", None)
    calls = count_parses(monkeypatch)
    shown = paint_hardware()
    assert calls, "a cache file that must not be read was read"
    assert shown["rows"][0][1] == "AMD Instinct MI50 32GB"
    if bad == "symlink":
        assert path.is_symlink() and (tmp_path / "elsewhere.pickle").read_bytes() == good, "the symlink was replaced"
    elif bad == "group-writable":
        assert oct(path.stat().st_mode & 0o777) == "0o600", "a parse that was not read is written anew, private"


def test_a_cache_that_cannot_be_written_costs_nothing_but_the_parse(cache_home, monkeypatch):
    cache_home.mkdir()
    (cache_home / "rocm-tune").write_text("a file where the cache folder would be")
    shown = paint_hardware()
    assert shown["rows"][1][0] == "1"
    assert css_cache.save() is False
    assert (cache_home / "rocm-tune").read_text() == "a file where the cache folder would be"
    assert os.listdir(cache_home) == ["rocm-tune"]
