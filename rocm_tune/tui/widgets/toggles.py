"""A SelectionList whose ticks are readable by glyph: `[x]` ticked, `[ ]` not (colour only adds)."""

from __future__ import annotations

from rich.segment import Segment
from textual.strip import Strip
from textual.widgets import SelectionList
from textual.widgets.option_list import OptionDoesNotExist

TICKED, UNTICKED = "[x]", "[ ]"


class TickList(SelectionList[str]):
    def render_line(self, y: int) -> Strip:
        strip = super().render_line(y)
        segments = list(strip)
        _, scroll_y = self.scroll_offset
        try:
            selection = self.get_option_at_index(scroll_y + y)
        except OptionDoesNotExist:
            return strip
        if len(segments) < 4:
            return strip
        glyph = TICKED if selection.value in self._selected else UNTICKED
        # Textual draws ▐X▌ for both states (only colours differ): one glyph per state instead
        return Strip([Segment(glyph, segments[1].style), *segments[3:]])
