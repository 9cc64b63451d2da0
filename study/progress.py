"""Progress that a person can watch: families report steps, `retest` draws them.

A family prints ``[family] @progress done=N total=M unit=trials [best_ms=X] [what=...]`` (see
``experiments.harness.Harness.progress``); retest's echo thread turns each such line into a bar
on a terminal (``█████░░░ 120/320 trials  best 61.2 ms  5m12s elapsed, ~8m left``, redrawn in
place) and, when output is not a terminal (CI, a log), into a plain line at most every tenth of
the way, so logs stay short.  The ETA is elapsed × (total − done) / done since the step began.
"""
import re
import sys
import time

_LINE = re.compile(r"@progress\s+(.*)$")
_FIELD = re.compile(r"(\w+)=(\S+)")


def parse(line):
    """{field: value} of a progress line, or None for any other line."""
    match = _LINE.search(line)
    if match is None:
        return None
    fields = dict(_FIELD.findall(match.group(1)))
    try:
        fields["done"], fields["total"] = int(fields["done"]), max(int(fields["total"]), 1)
    except (KeyError, ValueError):
        return None
    return fields


def _clock(seconds):
    seconds = int(seconds)
    return f"{seconds // 60}m{seconds % 60:02d}s" if seconds >= 60 else f"{seconds}s"


class Bar:
    """One family's progress, drawn on ``stream``."""

    def __init__(self, name, stream=None, width=24):
        self.name, self.stream, self.width = name, stream or sys.stdout, width
        self.tty = hasattr(self.stream, "isatty") and self.stream.isatty()
        self.started, self.last_tenth, self.drawn = None, -1, False

    def text(self, fields, now):
        done, total = fields["done"], fields["total"]
        if self.started is None or done == 0:
            self.started = now
        elapsed = now - self.started
        frac = min(done / total, 1.0)
        parts = [f"{done}/{total} {fields.get('unit', '')}".rstrip(), f"{frac:.0%}"]
        if fields.get("best_ms"):
            parts.append(f"best {fields['best_ms']} ms")
        parts.append(f"{_clock(elapsed)} elapsed")
        if 0 < done < total:
            parts.append(f"~{_clock(elapsed * (total - done) / done)} left")
        if fields.get("what"):
            parts.append(fields["what"])
        filled = int(round(frac * self.width))
        return "█" * filled + "░" * (self.width - filled), "  ".join(parts)

    def update(self, fields, now=None):
        now = time.monotonic() if now is None else now
        bar, text = self.text(fields, now)
        if self.tty:
            self.stream.write(f"\r  [{self.name}] {bar} {text}\033[K")
            self.drawn = True
        else:
            tenth = int(10 * fields["done"] / fields["total"])
            if tenth == self.last_tenth:
                return
            self.last_tenth = tenth
            self.stream.write(f"  [{self.name}] {text}\n")
        self.stream.flush()

    def line(self, text):
        """An ordinary progress line: below the bar on a terminal."""
        if self.drawn:
            self.stream.write("\n")
            self.drawn = False
        self.stream.write(f"  {text}\n")
        self.stream.flush()
