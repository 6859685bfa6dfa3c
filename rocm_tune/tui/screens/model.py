"""Step 2: model. Search presets by name or size, or give a local path / hub id from the cache."""

from __future__ import annotations

import os
import re
from importlib import import_module
from typing import Any, ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.timer import Timer
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from rocm_tune.core.errors import UserError
from rocm_tune.core.plan.questions import BY_NAME
from rocm_tune.tui.render import fit_name, flow, fmt_count
from rocm_tune.tui.screens.base import StepScreen, next_binding
from rocm_tune.tui.screens.launch import DEMO_BINDING, DemoMixin
from rocm_tune.tui.widgets.fields import QuestionField
from rocm_tune.tui.widgets.inputs import after_keys


class SearchResults(Message):
    def __init__(self, query: str, specs: list, direct: Any = None, error: str | None = None) -> None:
        super().__init__()
        self.query, self.specs, self.direct, self.error = query, specs, direct, error


def looks_like_ref(text: str) -> bool:
    """A path or an `org/name` hub id (as opposed to search words)."""
    return bool(text) and (os.sep in text or text.startswith((".", "~")) or os.path.exists(text)) \
        and " " not in text.strip()


def render_model_info(spec: Any, width: int = 1000) -> Text:
    """Parameter count, layers, hidden size, vocab, family (a pure function of the ModelSpec); each figure kept
    whole within `width` columns."""
    if spec is None:
        return Text("no model selected", style="dim")
    p = getattr(spec, "params", None)
    t = Text()
    t.append(f"{spec.name}", style="bold")
    label = getattr(spec, "size_label", None)
    if label:
        t.append(f"  ({label})")
    t.append("\n")
    flow(t, [(f"family     {spec.family}", ""), (f"   source {spec.source}", "")], width, " " * 11)
    if getattr(spec, "hub_id", None):
        t.append(f"\nhub id     {spec.hub_id}")
    if getattr(spec, "location", None) and spec.source != "preset":
        t.append(f"\nlocation   {spec.location}")
    t.append(f"\nparameters {fmt_count(p.total if p else None)}")
    if getattr(spec, "num_experts", 0):
        t.append(f"  (MoE: {spec.num_experts} experts, {spec.num_experts_per_tok} active,"
                 f" {fmt_count(spec.active_params)} active params)")
    pad = " " * 11
    for parts in ([f"layers     {spec.num_layers}", f"   hidden {spec.hidden_size}",
                   f"   intermediate {spec.intermediate_size}"],
                  [f"heads      {spec.num_attention_heads} (kv {spec.num_kv_heads}, dim {spec.head_dim})"],
                  [f"vocab      {spec.vocab_size}", f"   tied embeddings {'yes' if spec.tie_word_embeddings else 'no'}"],
                  [f"context    {spec.max_position_embeddings}", f"   dtype {spec.torch_dtype or 'N/A'}"]):
        t.append("\n")
        flow(t, [(p, "") for p in parts], width, pad)
    for w in getattr(spec, "warnings", ()) or ():
        t.append(f"\n! {w}", style="yellow")
    return t


class ModelScreen(DemoMixin, StepScreen):
    STEP = "model"
    BINDINGS: ClassVar[list[BindingType]] = [next_binding("model"), DEMO_BINDING]
    HELP = """[b]Model[/b]
Type to search the presets by name, family or size (e.g. 'qwen 7b'), or type a local directory /
config.json path, or a hub id (org/name) that is in the local HF or ModelScope cache.
enter (or ctrl+n) takes the only match, an exact name, or the preset highlighted in the list;
when several presets match, it moves to the list: up/down shows a preset's details, enter takes it.
ctrl+t starts `rocm-tune demo` (asks first): a tiny random model trains for real on a tiny dataset
(built here, nothing downloaded; about 30 s on a CPU), detached like any run, and the monitor opens on it.

[b]ctrl+n[/b] next   [b]ctrl+t[/b] demo run   [b]esc[/b] back   [b]tab[/b] list   [b]f1[/b] help   [b]ctrl+q[/b] quit"""

    def compose(self) -> ComposeResult:
        yield from self.compose_header()
        with Vertical(classes="body"):
            yield QuestionField(BY_NAME["model"], self.state.answers.get("model"))
            with Horizontal(id="model-split"):
                yield OptionList(id="presets")
                yield Static(render_model_info(self.state.model), id="model-info")
            yield Static("new here? [b]ctrl+t[/b]: a tiny real training run (rocm-tune demo), watched live",
                         id="demo-hint")
        yield from self.compose_footer()

    def on_mount(self) -> None:
        self._specs: list = []
        self._shown_query: str | None = None   # the query whose results the list shows
        self._ambiguous = False                 # the last enter/ctrl+n found several matches
        self._asked: str | None = None          # ... for this query: its "pick one" stays on the status line
        self._timer: Timer | None = None
        self.search(str(self.state.answers.get("model") or ""))
        self.query_one("#in-model", Input).focus()

    @on(Input.Changed, "#in-model")
    def _typed(self, event: Input.Changed) -> None:
        if self._timer is not None:
            self._timer.stop()
        value = event.value
        # the list is stale until this search answers: nothing in it counts as picked
        self._shown_query = None
        self.query_one("#presets", OptionList).highlighted = None
        self._timer = self.set_timer(0.12, lambda: self.search(value))

    @work(thread=True, exclusive=True, exit_on_error=False, group="search")
    def search(self, query: str) -> None:
        model = import_module("rocm_tune.core.model.architecture")
        direct, error = None, None
        q = query.strip()
        try:
            specs = model.search_presets(q) if not looks_like_ref(q) else []
        except Exception as exc:  # noqa: BLE001 - a worker must not crash the app
            specs, error = [], f"search failed: {exc}"
        if q and (looks_like_ref(q) or not specs or "/" in q):
            try:
                direct = model.load_model(q)
            except UserError as exc:
                error = str(exc)
            except Exception as exc:  # noqa: BLE001 - a worker must not crash the app
                error = f"{q}: {exc}"
        self.post_message(SearchResults(query, specs, direct, error))

    def on_search_results(self, msg: SearchResults) -> None:
        self._specs = list(msg.specs)
        self._shown_query = msg.query.strip()
        ol = self.query_one("#presets", OptionList)
        ol.clear_options()
        for s, prompt in zip(self._specs, self._prompts()):
            ol.add_option(Option(prompt, id=s.name))
        if msg.direct is not None:
            self.state.model = msg.direct
            self._show_info(msg.direct)
            self.set_status(f"found {msg.direct.name} ({msg.direct.source})")
        elif self._specs:
            exact = next((s for s in self._specs if s.name == msg.query.strip()), None)
            spec = exact or self._specs[0]
            self._show_info(spec)
            if self._asked != msg.query.strip():
                self.set_status(f"{len(self._specs)} preset(s) match" + (f" '{msg.query}'" if msg.query else ""))
        else:
            self._show_info(None)
            self.set_status(msg.error or f"no preset matches {msg.query!r}", error=bool(msg.error))

    def _prompts(self) -> list[str]:
        """The list's lines at its current width: every name whole, the parameter count dropped (the pane beside
        shows it) before a name would be shortened, a name shortened (middle ellipsis) only where it cannot fit."""
        avail = max(12, (self.query_one("#presets", OptionList).size.width or 36) - 5)
        longest = max((len(s.name) for s in self._specs), default=0)
        counts = longest + 8 <= avail
        name_w = min(avail - 8, max(longest, 20)) if counts else avail
        out = []
        for s in self._specs:
            p = getattr(getattr(s, "params", None), "total", None)
            name = fit_name(s.name, name_w)
            out.append(f"{name:<{name_w}} {fmt_count(p):>7}" if counts else name)
        return out

    def on_resize(self) -> None:
        super().on_resize()
        self.call_after_refresh(self._refit)   # the list's lines at the width it has now (results may come first)

    def _refit(self) -> None:
        if hasattr(self, "_info_spec"):
            self._show_info(self._info_spec)
        ol = self.query_one("#presets", OptionList)
        if ol.option_count != len(getattr(self, "_specs", ())):
            return
        for s, prompt in zip(self._specs, self._prompts()):
            if str(ol.get_option(s.name).prompt) != prompt:
                ol.replace_option_prompt(s.name, prompt)

    def _show_info(self, spec: Any) -> None:
        self._info_spec = spec
        self.query_one("#model-info", Static).update(render_model_info(spec, self._info_width()))

    def _info_width(self) -> int:
        w = self.query_one("#model-info", Static).size.width - 2   # its padding
        return w if w > 10 else max(30, (self.app.size.width or 80) - 42)

    @on(OptionList.OptionHighlighted, "#presets")
    def _highlight(self, event: OptionList.OptionHighlighted) -> None:
        spec = next((s for s in self._specs if s.name == event.option.id), None)
        if spec is not None:
            self._show_info(spec)

    @on(OptionList.OptionSelected, "#presets")
    def _select(self, event: OptionList.OptionSelected) -> None:
        inp = self.query_one("#in-model", Input)
        with inp.prevent(Input.Changed):
            inp.value = str(event.option.id)
        self.action_next()

    @on(Input.Submitted, "#in-model")
    def _submitted(self) -> None:
        after_keys(self, self._take)   # after the keys typed before enter (a burst)

    def _take(self) -> None:
        if not self.is_current:
            return
        self._ambiguous = False
        self._next()
        if self._ambiguous and self.is_current:
            # several presets match: the list takes the keys, its first entry highlighted; enter takes one
            ol = self.query_one("#presets", OptionList)
            if ol.option_count:
                ol.focus()
                if ol.highlighted is None:
                    ol.highlighted = 0

    def _highlighted(self, query: str) -> Any:
        """The preset highlighted in the list, when the list shows the results of `query`."""
        ol = self.query_one("#presets", OptionList)
        if ol.highlighted is None or self._shown_query != query:
            return None
        name = ol.get_option_at_index(ol.highlighted).id
        return next((s for s in self._specs if s.name == name), None)

    def choose(self, query: str) -> Any:
        """The preset that `query` names: an exact name, the only search match, or the highlighted one
        of several matches. None when the query is no search (a path, a hub id) or matches nothing;
        UserError when several presets match and none is highlighted."""
        q = query.strip()
        if not q or looks_like_ref(q) or "/" in q:
            return None
        model = import_module("rocm_tune.core.model.architecture")
        specs = model.search_presets(q)
        words = re.split(r"[-_\s]+", q.lower())   # "qwen2.5 7b" names qwen2.5-7b (not qwen2.5-vl-7b)
        exact = next((s for s in specs if re.split(r"[-_\s]+", s.name.lower()) == words), None)
        if exact is not None:
            return exact
        if len(specs) == 1:
            return specs[0]
        if len(specs) > 1:
            picked = self._highlighted(q)
            if picked is not None:
                return picked
            try:
                return model.load_model(q)   # an alias that also matches other presets
            except UserError:
                self._ambiguous, self._asked = True, q
                raise UserError(f"{len(specs)} models match {q!r}; pick one") from None
        return None

    def validate_step(self) -> None:
        ref = str(self.state.answers.get("model") or "")
        spec = self.choose(ref)
        if spec is None:
            model = import_module("rocm_tune.core.model.architecture")
            self.state.model = model.load_model(ref)  # UserError names the bad ref
            return
        inp = self.query_one("#in-model", Input)
        if inp.value.strip() != spec.name:
            with inp.prevent(Input.Changed):
                inp.value = spec.name
        self.state.answers["model"] = spec.name
        self.state.model = spec
