"""A braille line chart that redraws from its series (see `render.render_chart`)."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual.widget import Widget

from rocm_tune.tui.render import render_chart


class Chart(Widget):
    """Set `series` with `update_series([(name, values, style[, marker]), ...])`; redraws only on change.

    The rendered text is cached per (series, size): a poll that brings nothing new costs nothing."""

    DEFAULT_CSS = """
    Chart { height: 1fr; width: 1fr; min-height: 4; }
    """

    def __init__(self, title: str, *, id: str | None = None, empty: str = "no data yet") -> None:
        super().__init__(id=id)
        self.title = title
        self.empty = empty
        self.x_label = ""
        self.x_steps: tuple[int, int] | None = None
        self._series: list[tuple] = []
        self._key: tuple | None = None
        self._cache: tuple[tuple, Text] | None = None

    def update_series(self, series: Sequence[tuple], x_label: str = "",
                      x_steps: tuple[int, int] | None = None) -> None:
        key = tuple((ser[0], len(ser[1]), ser[1][-1] if ser[1] else None, ser[1][0] if ser[1] else None)
                    for ser in series) + (x_label, x_steps)
        if key == self._key:
            return
        self._key = key
        self._series = [(ser[0], list(ser[1]), *ser[2:]) for ser in series]   # copied before plotting
        self.x_label = x_label
        self.x_steps = x_steps
        self._cache = None
        self.refresh()

    def render(self) -> Text:
        if not any(ser[1] for ser in self._series):
            return Text(f"{self.title}\n{self.empty}", style="dim")
        size = (self.size.width, self.size.height)
        if self._cache is not None and self._cache[0] == size:
            return self._cache[1]
        text = render_chart(self.title, self._series, size[0], size[1], x_label=self.x_label,
                            x_steps=self.x_steps if size[1] >= 6 else None)
        self._cache = (size, text)
        return text
