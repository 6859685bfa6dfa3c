"""Textual's DataTable, with lines never drawn at column widths that are no longer the table's.

DataTable caches each rendered line under a counter that add_row / update_cell raise, but computes
the auto column widths later, when its queue is idle, without raising the counter. A frame drawn in
between (the first screen is painted while the first GPU samples arrive) caches the header and rows
at the old widths, and they stay on screen, cut or misaligned, until a cell changes, which on a
steady machine may be never. Here a change of the widths raises the counter before the next draw.

DataTable also ends each line with the filler that extends its style to the widget's width, a segment of no cells
when the columns fill the width exactly; whether that empty segment survives to the screen depends on which of
Textual's line caches the frame was drawn from (a snapshot taken under load differed by it alone). Lines are drawn
without empty segments, so the same table always gives the same frame.
"""

from __future__ import annotations

from typing import Any

from textual.geometry import Region
from textual.strip import Strip
from textual.widgets import DataTable


class FitTable(DataTable):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._drawn_widths: tuple[int, ...] = ()

    def render_lines(self, crop: Region) -> list[Strip]:
        widths = tuple(column.get_render_width(self) for column in self.columns.values())
        if widths != self._drawn_widths:
            self._drawn_widths = widths
            self._update_count += 1   # DataTable's cache key of rendered rows and lines
        return [Strip([seg for seg in line if seg.text], line.cell_length) for line in super().render_lines(crop)]
