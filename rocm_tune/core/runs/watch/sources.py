"""Log sources: follow files incrementally and turn what is new into `Event`s.

`FileFollower` reads a growing file by byte offset and returns only complete new lines. It keeps a
partial last line until its newline arrives, survives truncation (size < offset: start again from
0), rotation (the path now names another inode: drain the old file, then follow the new one),
files that do not exist yet (checked again on every poll), invalid UTF-8 / binary junk (decoded
with errors="replace") and endless lines (cut at `max_line` bytes). A UTF-16 log (Windows PowerShell's `>`
writes UTF-16LE with a byte-order mark; some tools write it without one: core/files.log_encoding) is decoded
as it arrives, a character cut between two reads completed by the next. For text logs `\\r` also ends a
line, so tqdm's in-place redraws arrive as they are drawn.

Sources (one per file):
- `LineSource(kind, path)`: metrics.jsonl (`kind="metrics"`), LLaMA-Factory trainer_log.jsonl
  (`"llamafactory"`), any text log (`"text"`: stdout.log, running_log.txt, nohup.out, ...).
- `TrainerStateSource(path)`: HF trainer_state.json in an output directory, also looking at
  `checkpoint-*/trainer_state.json` and using the newest; re-read whole when it changes.
Every source has `poll(max_bytes=None) -> Iterator[list[Event]]` (batches, so a huge first read
never holds all events in memory at once), `path`, `kind`, `exists()` and `close()`.
"""

from __future__ import annotations

import codecs
import glob
import os
import stat
from collections.abc import Iterator
from typing import BinaryIO

from rocm_tune.core.errors import UserError
from rocm_tune.core.files import decode_log_head, load_json, log_encoding
from rocm_tune.core.runs.watch.parsers import Event, events_from_trainer_state, parser_for

CHUNK = 2 * 2**20          # bytes read per batch
HEAD_BYTES = 256           # first bytes kept to recognise a file rewritten from scratch
MAX_LINE = 1 * 2**20       # a "line" longer than this is cut (binary junk without newlines)
SAMPLE_TAIL = 2 * 2**20    # first read of a huge JSON-lines log: the newest bytes parsed line by line
SAMPLE_POINTS = 16384      # ... and about this many ordinary step lines parsed from the older part
LOOK_HEAD = 1 * 2**20      # a look at a huge log (attach --plain --no-follow): its start (total steps, world size) ...
LOOK_TAIL = 2 * 2**20      # ... and its newest bytes (the steps shown, the end); the middle is not read


class FileFollower:
    """Incremental reader of one file path. `read_batches()` yields lists of new complete lines."""

    def __init__(self, path: str, split_cr: bool = False, from_end: bool = False, max_line: int = MAX_LINE):
        self.path = str(path)
        self.split_cr = split_cr
        self.max_line = max_line
        self.offset = 0
        self.inode: tuple[int, int] | None = None
        self._fh: BinaryIO | None = None
        self._partial = b""
        self._from_end = from_end
        self._head = b""
        self.error: str | None = None   # "permission denied" when the file exists but cannot be read
        self.truncations = 0
        self.rotations = 0
        self._codec: tuple[str, int] | None = None   # (codec, mark length) once the first bytes tell it
        self._decoder: codecs.IncrementalDecoder | None = None   # UTF-16 -> text across reads
        self._cut_line = False      # after skip_to: the line the skip lands in is no whole line

    # ---------------------------------------------------------------- internals
    def _open(self) -> bool:
        try:
            fd = os.open(self.path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
            fh = os.fdopen(fd, "rb")
        except PermissionError:
            self.error = "permission denied"
            return False
        except OSError:
            return False
        self.error = None
        try:
            st = os.fstat(fh.fileno())
        except OSError:
            fh.close()
            return False
        if not stat.S_ISREG(st.st_mode):  # a FIFO or device is never read (it may block or never end)
            fh.close()
            return False
        self._fh = fh
        self.inode = (st.st_dev, st.st_ino)
        self._head = self._read_head(fh)
        self.offset = st.st_size if self._from_end else 0
        self._from_end = False
        self._partial = b""
        self._codec = self._decoder = None
        return True

    def _decide(self, fh, final: bool = False) -> bool:
        """The file's encoding from its first bytes (False: too few yet, nothing is read until they tell). A
        UTF-16 file is read past its mark, from a whole code unit (a follower opened at the end)."""
        if self._codec is not None:
            return True
        self._codec = log_encoding(self._read_head(fh), final)
        if self._codec is None:
            return False
        codec, mark = self._codec
        if codec != "utf-8":
            self._decoder = codecs.getincrementaldecoder(codec)("replace")
            self.offset = max(self.offset, mark)
            self.offset -= (self.offset - mark) % 2
        return True

    def _text(self, data: bytes, final: bool = False) -> bytes:
        """Raw bytes as the UTF-8 `_split` cuts into lines (a UTF-16 character cut by the read waits for its rest)."""
        if self._decoder is None:
            return data
        return self._decoder.decode(data, final).encode("utf-8", "replace")

    @staticmethod
    def _read_head(fh) -> bytes:
        try:
            return os.pread(fh.fileno(), HEAD_BYTES, 0)
        except OSError:
            return b""

    def _same_head(self, fh) -> bool:
        """The file still starts with the bytes it started with (identity beyond the inode)."""
        head = self._head
        if not head:
            self._head = self._read_head(fh)
            return True
        cur = self._read_head(fh)
        if cur[: len(head)] != head:
            return False
        if len(cur) > len(head):
            self._head = cur
        return True

    def close(self) -> None:
        if self._fh is not None:
            try:
                self._fh.close()
            except OSError:
                pass
            self._fh = None

    def exists(self) -> bool:
        return os.path.exists(self.path)

    def _split(self, data: bytes, final: bool) -> list[str]:
        """Complete lines from `partial + data`; the incomplete tail stays in `_partial`."""
        buf = self._partial + data if self._partial else data
        if self.split_cr:
            cut = max(buf.rfind(b"\n"), buf.rfind(b"\r"))
        else:
            cut = buf.rfind(b"\n")
        if cut < 0:
            if final or len(buf) > self.max_line:
                self._partial = b""
                return [buf[: self.max_line].decode("utf-8", "replace")] if buf else []
            self._partial = buf
            return []
        complete, self._partial = buf[: cut + 1], buf[cut + 1:]
        if len(self._partial) > self.max_line:
            self._partial = self._partial[-self.max_line:]
        text = complete.decode("utf-8", "replace")
        if self.split_cr:
            if "\r" in text:
                text = text.replace("\r\n", "\n").replace("\r", "\n")
            lines = text.split("\n")
            lines.pop()
        else:
            lines = text.split("\n")
            lines.pop()  # after the final "\n"
        if self.max_line and len(complete) > self.max_line:
            lines = [ln if len(ln) <= self.max_line else ln[: self.max_line] for ln in lines]
        return lines

    def skip_to(self, offset: int) -> None:
        """Read on from `offset` (a look at a huge log leaves its middle out); the line it lands in is dropped."""
        self.offset, self._partial, self._cut_line = offset, b"", True
        if self._codec is not None and self._decoder is not None:
            self.offset -= (self.offset - self._codec[1]) % 2     # a UTF-16 code unit's first byte
            self._decoder.reset()

    def _uncut(self, text: bytes) -> bytes:
        """`text` without the rest of the line a skip landed in."""
        if not self._cut_line:
            return text
        ends = [i for i in (text.find(b"\n"), text.find(b"\r") if self.split_cr else -1) if i >= 0]
        if not ends:
            return b""
        self._cut_line = False
        return text[min(ends) + 1:]

    def _read_all(self, fh, max_bytes: int | None) -> Iterator[list[str]]:
        budget = max_bytes
        if not self._decide(fh):
            return
        while True:
            n = CHUNK if budget is None else min(CHUNK, budget)
            if n <= 0:
                return
            try:
                fh.seek(self.offset)
                data = fh.read(n)
            except OSError:
                return
            if not data:
                return
            self.offset += len(data)
            if budget is not None:
                budget -= len(data)
            lines = self._split(self._uncut(self._text(data)), final=False)
            if lines:
                yield lines
            if len(data) < n:
                return

    # ---------------------------------------------------------------- public
    def read_batches(self, max_bytes: int | None = None) -> Iterator[list[str]]:
        """New complete lines since the last call, in batches of up to ~CHUNK bytes."""
        if self._fh is None and not self._open():
            return
        fh = self._fh
        if fh is None:  # _open() returned True: it set _fh
            return
        try:
            st_path = os.stat(self.path)
            path_id = (st_path.st_dev, st_path.st_ino)
        except OSError:
            path_id = None  # deleted or being rotated: read what the open handle still has
        try:
            size = os.fstat(fh.fileno()).st_size
        except OSError:
            size = self.offset
        if size < self.offset or not self._same_head(fh):
            # truncated in place (e.g. `> log`, overwrite_output_dir), or rewritten from scratch to
            # more than its old size between two polls: the first bytes are not those read before
            self.truncations += 1
            self.offset = 0
            self._partial = b""
            self._head = self._read_head(fh)
            self._codec = self._decoder = None     # a new file: its encoding is told again
        yield from self._read_all(fh, max_bytes)
        if path_id is not None and path_id != self.inode:
            # rotated / replaced: the old file is drained above; flush its tail, follow the new one.
            tail = self.flush_partial()
            if tail:
                yield tail
            self.close()
            self.rotations += 1
            if self._open():
                yield from self._read_all(self._fh, max_bytes)

    def read_lines(self, max_bytes: int | None = None) -> list[str]:
        out: list[str] = []
        for batch in self.read_batches(max_bytes):
            out.extend(batch)
        return out

    def flush_partial(self) -> list[str]:
        """The incomplete last line as a line (call when the writer is known to be gone); a log too short to
        tell its encoding before is read now, a UTF-16 character left half is replaced."""
        lines: list[str] = []
        if self._codec is None and self._fh is not None and self._decide(self._fh, final=True):
            lines = [ln for batch in self._read_all(self._fh, None) for ln in batch]
        rest = self._text(b"", final=True)
        return lines + (self._split(rest, final=True) if self._partial or rest else [])

    def size(self) -> int | None:
        try:
            return os.stat(self.path).st_size
        except OSError:
            return None

    def mtime(self) -> float | None:
        try:
            return os.stat(self.path).st_mtime
        except OSError:
            return None


class LineSource:
    """A line-oriented log file and its parser (`kind`: metrics | llamafactory | text)."""

    def __init__(self, kind: str, path: str, from_end: bool = False):
        self.kind = kind
        self.path = str(path)
        self.parser = parser_for(kind)
        self.follower = FileFollower(path, split_cr=(kind == "text"), from_end=from_end)
        self._lines_read = 0
        self.skipped = 0            # bytes poll_look left unread

    def poll(self, max_bytes: int | None = None) -> Iterator[list[Event]]:
        feed = self.parser.feed_lines
        for lines in self.follower.read_batches(max_bytes):
            evs = feed(lines)
            if evs or lines:
                yield evs

    def poll_lines(self, max_bytes: int | None = None, sample: bool = False
                   ) -> Iterator[tuple[list[str], list[Event]]]:
        """Like poll(), also giving the raw lines of each batch (for a log pane).

        sample=True (the first read of a file): JSON-lines batches older than the newest
        SAMPLE_TAIL bytes are read with a stride so that about SAMPLE_POINTS ordinary step lines of
        the old part are parsed — History keeps only a decimated old part anyway. Lines that are
        not ordinary steps (errors, NaN/Inf, zero loss, start/end/eval records) are always parsed,
        and the newest SAMPLE_TAIL bytes are parsed line by line. Text logs are always read fully."""
        feed = self.parser.feed_lines
        fol = self.follower
        can_sample = sample and self.kind in ("metrics", "llamafactory", "text")
        size = fol.size() or 0 if can_sample else 0
        start = fol.offset
        for lines in fol.read_batches(max_bytes):
            stride = 1
            if can_sample and lines:
                old_bytes = size - SAMPLE_TAIL - start
                if fol.offset < size - SAMPLE_TAIL and old_bytes > 0:
                    per_line = max(1.0, (fol.offset - start) / max(1, self._lines_read + len(lines)))
                    stride = max(1, int(old_bytes / per_line / SAMPLE_POINTS))
            self._lines_read += len(lines)
            yield lines, (feed(lines, stride) if stride > 1 else feed(lines))

    def poll_look(self, head: int = LOOK_HEAD, tail: int = LOOK_TAIL) -> Iterator[tuple[list[str], list[Event]]]:
        """poll_lines() of a log's first `head` and last `tail` bytes only (the middle of a bigger file is not read:
        `skipped` says how many bytes): what a no-follow look shows, at the same cost for any size."""
        size = self.follower.size() or 0
        if self.follower.offset or size <= head + tail:
            yield from self.poll_lines()
            return
        yield from self.poll_lines(max_bytes=head)
        start = max(self.follower.offset, size - tail)
        self.skipped = start - self.follower.offset
        self.follower.skip_to(start)
        yield from self.poll_lines()

    def finish(self) -> list[Event]:
        """Parse the incomplete last line too (the writer has exited)."""
        lines = self.follower.flush_partial()
        return self.parser.feed_lines(lines) if lines else []

    def exists(self) -> bool:
        return self.follower.exists()

    def mtime(self) -> float | None:
        return self.follower.mtime()

    def close(self) -> None:
        self.follower.close()


def newest_trainer_state(output_dir: str) -> str | None:
    """The newest of OUTPUT_DIR/trainer_state.json and OUTPUT_DIR/checkpoint-*/trainer_state.json."""
    cands = [os.path.join(output_dir, "trainer_state.json")]
    cands += glob.glob(os.path.join(glob.escape(output_dir), "checkpoint-*", "trainer_state.json"))
    best, best_key = None, None
    for c in cands:
        try:
            st = os.stat(c)
        except OSError:
            continue
        base = os.path.basename(os.path.dirname(c))
        num = -1
        if base.startswith("checkpoint-"):
            try:
                num = int(base.split("-", 1)[1])
            except ValueError:
                num = -1
        key = (st.st_mtime, num)
        if best_key is None or key > best_key:
            best, best_key = c, key
    return best


class TrainerStateSource:
    """HF trainer_state.json (whole-file JSON, rewritten at each save). Emits only new log entries."""

    kind = "trainer_state"

    def __init__(self, path: str):
        # path: the trainer_state.json itself or an output directory
        self.path = str(path)
        self._is_dir = os.path.isdir(self.path)
        self._sig: tuple | None = None
        self._last_step = -1
        self._ended = False

    def current_file(self) -> str | None:
        if self._is_dir or os.path.isdir(self.path):
            return newest_trainer_state(self.path)
        return self.path if os.path.exists(self.path) else None

    def poll(self, max_bytes: int | None = None) -> Iterator[list[Event]]:
        f = self.current_file()
        if f is None:
            return
        try:
            st = os.stat(f)
        except OSError:
            return
        if not stat.S_ISREG(st.st_mode):
            return
        sig = (f, st.st_mtime_ns, st.st_size)
        if sig == self._sig:
            return
        try:
            with open(f, "rb") as fh:
                raw = fh.read(256 * 2**20)
            obj = load_json(raw.decode("utf-8", "replace"), f, "trainer_state.json")  # files' depth/number limits
        except Exception:
            return  # half-written file: try again at the next poll (signature not stored)
        self._sig = sig
        events = events_from_trainer_state(obj)
        steps = [e.step for e in events if e.kind == "step" and e.step is not None]
        if steps and max(steps) < self._last_step:
            self._last_step = -1  # a new run (or an older checkpoint became the newest): start over
        out = []
        for e in events:
            if e.kind == "end":
                if not self._ended:
                    self._ended = True
                    out.append(e)
            elif e.step is None or e.step > self._last_step or (e.kind == "eval" and e.step == self._last_step):
                out.append(e)
        for e in out:
            if e.kind == "step" and e.step is not None:
                self._last_step = max(self._last_step, e.step)
        if out:
            yield out

    def finish(self) -> list[Event]:
        return []

    def exists(self) -> bool:
        return self.current_file() is not None

    def mtime(self) -> float | None:
        f = self.current_file()
        try:
            return os.stat(f).st_mtime if f else None
        except OSError:
            return None

    def close(self) -> None:
        pass


def make_source(kind: str, path: str, from_end: bool = False):
    """Source object for a SourceSpec kind: metrics | llamafactory | text | trainer_state."""
    if kind == "trainer_state":
        return TrainerStateSource(path)
    return LineSource(kind, path, from_end=from_end)


def sniff_kind(path: str) -> str:
    """Guess the source kind of a file from its name and first non-empty line."""
    name = os.path.basename(path)
    if name == "trainer_state.json":
        return "trainer_state"
    if name == "metrics.jsonl":
        return "metrics"
    if name == "trainer_log.jsonl":
        return "llamafactory"
    try:
        with open(path, "rb") as fh:
            head = decode_log_head(fh.read(65536))
    except OSError:
        return "text"
    for line in head.splitlines():
        s = line.strip()
        if not s:
            continue
        if s.startswith("{"):
            try:
                obj = load_json(s[:1 << 20], path, "log")
            except (ValueError, RecursionError, UserError):
                break
            if isinstance(obj, dict):
                if "type" in obj and obj.get("type") in ("start", "step", "eval", "error", "checkpoint", "end"):
                    return "metrics"
                if "current_steps" in obj or "total_steps" in obj:
                    return "llamafactory"
                if "log_history" in obj:
                    return "trainer_state"
        elif name.endswith(".json") and s.startswith("{"):
            break
        break
    if name.endswith(".json") and '"log_history"' in head:
        return "trainer_state"
    return "text"
