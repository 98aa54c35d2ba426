"""A progress bar on stderr for long commands, drawn only on a terminal.

>>> import io
>>> bar = ProgressBar("key", io.StringIO())  # not a terminal: draws nothing
>>> bar(1, 2); bar.close(); bar.stream.getvalue()
''
"""

from __future__ import annotations

import sys
import time
from typing import TextIO

_WIDTH = 30


class ProgressBar:
    """``progress(done, total)`` callback that redraws one stderr line, at most 10 times a second.

    Quiet when the stream is not a terminal or ``quiet`` is set; :meth:`close` erases the line.
    """

    def __init__(self, label: str, stream: TextIO | None = None, quiet: bool = False) -> None:
        self.label = label
        self.stream = sys.stderr if stream is None else stream
        isatty = getattr(self.stream, "isatty", None)
        self.enabled = not quiet and bool(isatty and isatty())
        self.drawn = 0
        self.last = 0.0

    def __call__(self, done: int, total: int) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if done < total and now - self.last < 0.1:
            return
        self.last = now
        filled = _WIDTH * done // max(total, 1)
        line = f"\r{self.label} [{'#' * filled}{'.' * (_WIDTH - filled)}] {done}/{total}"
        self.stream.write(line)
        self.stream.flush()
        self.drawn = len(line)

    def close(self) -> None:
        """Erase the bar (call before printing anything else)."""
        if self.drawn:
            self.stream.write("\r" + " " * self.drawn + "\r")
            self.stream.flush()
            self.drawn = 0
