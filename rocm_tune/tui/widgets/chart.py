"""A braille line chart that redraws from its series (see `render.render_chart`)."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual.widget import Widget

from rocm_tune.tui.render import render_chart


class Chart(Widget):
    """Set `series` with `update_series([(name, values, style[, marker]), ...])`; redraws only on change."""

    DEFAULT_CSS = """
    Chart { height: 1fr; width: 1fr; min-height: 4; }
    """

    def __init__(self, title: str, *, id: str | None = None, empty: str = "no data yet") -> None:
        super().__init__(id=id)
        self.title = title
        self.empty = empty
        self.x_label = ""
        self._series: list[tuple] = []
        self._key: tuple | None = None

    def update_series(self, series: Sequence[tuple], x_label: str = "") -> None:
        copied = [(ser[0], list(ser[1]), *ser[2:]) for ser in series]
        key = tuple((ser[0], len(ser[1]), ser[1][-1] if ser[1] else None, ser[1][0] if ser[1] else None)
                    for ser in copied) + (x_label,)
        if key == self._key:
            return
        self._key = key
        self._series = copied
        self.x_label = x_label
        self.refresh()

    def render(self) -> Text:
        if not any(ser[1] for ser in self._series):
            return Text(f"{self.title}\n{self.empty}", style="dim")
        return render_chart(self.title, self._series, self.size.width, self.size.height, x_label=self.x_label)
