"""The log lines a record cites are about that record: they name its id.

A record cites a range of its family's log as its evidence. Before this rule a range could hold
only another case's summary line, or a bare "done" (2 to 92 records of the runs of 29 Nov to 3 Dec:
a NumPy peer's range printed the TVM case timed just before it), and a reviewer opening the
evidence read a line about something else. ``names_record`` is the test both sides apply: the
harness writes a closing line with the id when a range would otherwise lack one, and reportgen
refuses a run started at or after ``NAMED_FROM`` whose records break it, while older records are
published with a visible marker instead.
"""
import math
import re

NAMED_FROM = "20261205T120000Z"
"""Runs started at or after this second (their id's time) cite only ranges that name the record."""

_ID_CHAR = r"[A-Za-z0-9_+\-/=]"
"""Characters of a case id (study.schema._ID) other than ".", which may also end a sentence."""
_BEFORE = _ID_CHAR[:-1] + ".]"
"""An id character or "." before an id: the tail of a longer id."""


def names_record(case_id, text):
    """True when ``text`` holds ``case_id`` as a whole id: not inside a longer id (``n=64`` is not
    named by a line about ``n=640``); a full stop right after it ends a sentence."""
    pattern = rf"(?<!{_BEFORE}){re.escape(case_id)}(?!{_ID_CHAR}|\.{_ID_CHAR})"
    return re.search(pattern, text) is not None


def bound(run_id):
    """True when the run ``run_id`` started at or after NAMED_FROM (ids start with the UTC second)."""
    return run_id.split("-", 1)[0] >= NAMED_FROM


# -- the figure and the outcome the named lines state ------------------------------------------

NUMBER = re.compile(r"(?<![\w.])[-+]?(\d+(?:\.(\d*))?|\.\d+)(?:[eE]([-+]?\d+))?")
SCALES = (1.0, 1e3, 1e6)   # s, ms, us per call
RELATIVE = 0.005           # a printed figure rounded to 3 significant digits is within this
FAILURE_WORDS = ("compile_failed", "run_failed", "timeout", "check_failed", "skipped", "stopped", "error")
"""A line "<id>: <word>..." with one of these words (or any word starting "fail") reports an
outcome other than ok: the harness writes failures as "<id>: <status>: <error>"."""


def printed_numbers(text):
    """(value, half a unit in its last printed place) of each plain number in ``text``."""
    out = []
    for match in NUMBER.finditer(text):
        try:
            value = float(match.group(0))
        except ValueError:
            continue
        if not math.isfinite(value):
            continue
        decimals = len(match.group(2) or "")
        exponent = int(match.group(3) or 0) if len(match.group(3) or "") <= 6 else 10**6
        # 0e400 is 0, but 10.0 ** 400 overflows: the place is bounded to what a float can hold
        # a zero's exponent widens nothing: "0e400" is read as "0", not as a figure of any size
        place = -decimals if value == 0 else max(-330, min(300, exponent - decimals))
        out.append((value, 0.5 * 10.0 ** place))
    return out


def expected_values(rec, p50):
    """The figures a summary line may state for a record whose median is ``p50`` seconds."""
    values = [p50 * scale for scale in SCALES]
    flops = (rec.get("extra") or {}).get("flops_per_call")
    if isinstance(flops, (int, float)) and not isinstance(flops, bool) and flops > 0 and p50 > 0:
        values.append(flops / p50 / 1e9)
    return values


def _matches(value, half_unit, target):
    return abs(value - target) <= max(half_unit * 1.0001, RELATIVE * abs(target))


def cites_value(rec, p50, text):
    """True when ``text`` (the cited log lines) prints the median ``p50`` of ``rec``."""
    if not (isinstance(p50, float) and math.isfinite(p50) and p50 > 0):
        return False
    wanted = expected_values(rec, p50)
    if isinstance(rec.get("id"), str) and rec["id"]:
        text = text.replace(rec["id"], " ")   # the id's own numbers (n=32, threads=1) are not figures
    return any(_matches(value, half, target) for value, half in printed_numbers(text) for target in wanted)


def _stated(case_id, line):
    """What ``line`` says right after "<case_id>:" (the id whole, as names_record reads it): (its
    first word in lower case, the text after that word), or None."""
    match = re.search(rf"(?<!{_BEFORE}){re.escape(case_id)}:\s*([A-Za-z_][A-Za-z0-9_]*)(.*)", line)
    return (match.group(1).lower(), match.group(2)) if match else None


def statement_problems(rec, lines):
    """Why the cited ``lines`` contradict an ok record (runs bound by NAMED_FROM): a line naming it
    reports a failure, its own summary "<id>: p50 <v> ms" states another median, or no line prints
    the median of a timed record. Empty when they agree."""
    if rec.get("status") != "ok":
        return []
    out, case_id = [], rec["id"]
    stats = rec.get("stats") or {}
    p50 = float(stats["p50"]) if isinstance(stats.get("p50"), (int, float)) else None
    for line in lines:
        said = _stated(case_id, line)
        if said is None:
            continue
        word, rest = said
        if word in FAILURE_WORDS or word.startswith("fail"):
            out.append(f"a cited line reports {word!r:.40} for a record whose status is ok")
        elif word == "p50" and p50 is not None:
            head = re.match(r"\s*(\S+)\s*(s|ms|us|µs)\b", rest)   # a median with its unit
            numbers = printed_numbers(head.group(1)) if head else []
            scale = {"s": 1.0, "ms": 1e3}.get(head.group(2), 1e6) if head else 1.0
            if numbers and not _matches(*numbers[0], p50 * scale):
                out.append(f"a cited line states another median ({line.strip()[:80]!r}) than the record's p50 {p50:.4g} s")
    if p50 is not None and rec.get("samples") and not cites_value(rec, p50, "\n".join(lines)):
        out.append(f"no cited line prints the record's median ({p50 * 1e3:.4g} ms)")
    return out
