"""Textual's Footer drawn as one widget, with its keys in the screen's first frame.

Textual's Footer composes empty, waits for the screen's first `bindings_updated` signal (sent when focus
first lands) and then recomposes after the next refresh: the first frame of every screen shows an empty
key bar, a second layout pass mounts the keys, and every later signal (each focus move) rebuilds them.
Each key is a FooterKey widget of its own (~9 M instructions each to the first paint: composed, styled,
mounted, laid out and rendered; ~37 M of the Hardware screen's ~300 M above a bare Textual app, issue 25
item 15). Here the footer is one widget: it draws the keys FooterKey would draw, with FooterKey's own CSS
(its component classes, compact or not, a disabled key dim, the key under the mouse highlighted), runs
the key a click lands on as FooterKey does, and redraws only when the keys shown change (a focused
widget's shown bindings, a key enabled or disabled). Binding groups are drawn as plain keys (the app has
none). What is shown is the picture Footer's FooterKeys give (tests/__snapshots__ unchanged).
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any, ClassVar, NamedTuple

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.color import Color
from textual.css.styles import RenderStyles
from textual.screen import Screen
from textual.strip import Strip
from textual.widgets import Footer


class FooterEntry(NamedTuple):
    key: str
    key_display: str
    description: str
    action: str
    enabled: bool


def shown_keys(screen: Screen) -> tuple[Hashable, ...]:
    """What Footer.compose shows for `screen`'s active bindings (the same fields, in order)."""
    return tuple(
        (binding.key, binding.action, binding.description, binding.group, bool(enabled), tooltip)
        for (_, binding, enabled, tooltip) in screen.active_bindings.values()
        if binding.show
    )


def footer_entries(screen: Screen) -> list[FooterEntry]:
    """The keys Footer.compose makes a FooterKey for: one per action (its first binding), in order."""
    by_action: dict[str, FooterEntry] = {}
    for _, binding, enabled, _tooltip in screen.active_bindings.values():
        if binding.show and binding.action not in by_action:
            by_action[binding.action] = FooterEntry(binding.key, screen.app.get_key_display(binding),
                                                    binding.description, binding.action, bool(enabled))
    return list(by_action.values())


def _over(background: Color, styles: RenderStyles) -> Color:
    """`background` with the node's own background laid over it (as DOMNode.rich_style composes them)."""
    if styles.has_rule("background"):
        return background + styles.background.tint(styles.background_tint)
    return background


def _style(background: Color, color: Color, text_style: Style) -> Style:
    return text_style + Style.from_color((background + color).rich_color if (background.a or color.a) else None,
                                         background.rich_color if background.a else None)


class KeyFooter(Footer):
    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "footer-key--key", "footer-key--description", "key-footer--item", "key-footer--hover",
    }
    # FooterKey's own CSS (textual/widgets/_footer.py), on the component classes of this one widget
    DEFAULT_CSS = """
    KeyFooter {
        .key-footer--item { background: $footer-item-background; }
        .key-footer--hover { color: $footer-key-foreground; background: $block-hover-background; }
        .footer-key--key {
            color: $footer-key-foreground;
            background: $footer-key-background;
            text-style: bold;
            padding: 0 1;
        }
        .footer-key--description {
            padding: 0 1 0 0;
            color: $footer-description-foreground;
            background: $footer-description-background;
        }
        &.-compact {
            .footer-key--key { padding: 0; }
            .footer-key--description { padding: 0 0 0 1; }
        }
    }
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.set_reactive(Footer._bindings_ready, True)
        self._shown: tuple[Hashable, ...] | None = None
        self._entries: list[FooterEntry] = []
        self._spans: list[tuple[int, int, int]] = []   # (first cell, end cell, entry index) of each key drawn
        self._hover: int | None = None

    @property
    def keys(self) -> list[tuple[str, str]]:
        """(key, description) of each key shown, in order."""
        return [(e.key, e.description) for e in self._entries]

    def compose(self):
        self._shown = shown_keys(self.screen)
        self._entries = footer_entries(self.screen)
        return iter(())

    def bindings_changed(self, screen: Screen) -> None:
        if not screen.app.app_focus:
            return
        if self.is_attached and screen is self.screen and shown_keys(screen) != self._shown:
            self._shown = shown_keys(screen)
            self._entries = footer_entries(screen)
            self.refresh()

    def render_line(self, y: int) -> Strip:
        """The keys on the first line; the rest of the line (and any line below) the footer's background.

        A Line API render (as DataTable's): a Text returned by render() would lend the footer's text colour to
        the blank margins between keys, which Footer leaves with its background alone."""
        under = self.background_colors[1]   # the footer's background, composed over its ancestors'
        blank = Style.from_color(None, under.rich_color if under.a else None)
        width = self.size.width
        if y != 0:
            return Strip.blank(width, blank)
        color = next((n.styles.color for n in self.ancestors_with_self if n.styles.has_rule("color")),
                     Color(255, 255, 255, 0))
        text_style = self.rich_style.without_color
        segments: list[Segment] = []
        self._spans = []
        x = 0
        for index, entry in enumerate(self._entries):
            key = self._key_text(entry, index == self._hover, under, color, text_style)
            segments.extend(key.render(self.app.console))
            self._spans.append((x, x + key.cell_len, index))
            x += key.cell_len
            if self.compact:   # FooterKey's margin-right in a compact footer
                segments.append(Segment(" ", blank))
                x += 1
        return Strip(segments).adjust_cell_length(width, blank)

    def _key_text(self, entry: FooterEntry, hover: bool, under: Color, color: Color, text_style: Style) -> Text:
        """What FooterKey.render draws for `entry` on a footer whose background is `under`."""
        item = self.get_component_styles("key-footer--hover" if hover else "key-footer--item")
        item_bg = _over(under, item)
        item_color = item.color if item.has_rule("color") else color
        dim = text_style + (Style(dim=True) if not entry.enabled else Style())   # FooterKey.-disabled
        parts = []
        for name, words in (("footer-key--key", entry.key_display), ("footer-key--description", entry.description)):
            styles = self.get_component_styles(name)
            bg = _over(item_bg, styles)
            fg = styles.color if styles.has_rule("color") else item_color
            pad = styles.padding
            parts.append((" " * pad.left + words + " " * pad.right, _style(bg, fg, dim + styles.text_style)))
            if not entry.description:
                parts[-1] = (words, parts[-1][1])
                break
        return Text.assemble(*parts, style=_style(item_bg, item_color, dim), end="")

    def _entry_at(self, x: int) -> int | None:
        return next((i for start, end, i in self._spans if start <= x < end), None)

    def on_mouse_move(self, event: events.MouseMove) -> None:
        hover = self._entry_at(event.x)
        if hover != self._hover:
            self._hover = hover
            self.refresh()

    def on_leave(self, event: events.Leave) -> None:
        if self._hover is not None:
            self._hover = None
            self.refresh()

    def on_mouse_down(self, event: events.MouseDown) -> None:
        index = self._entry_at(event.x)
        if index is None:
            return
        entry = self._entries[index]
        if entry.enabled:
            self.app.simulate_key(entry.key)
        else:
            self.app.bell()

    def _watch_compact(self, compact: bool) -> None:
        self.refresh()

