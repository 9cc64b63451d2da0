"""The log lines a record cites are about that record: they name its id.

A record cites a range of its family's log as its evidence. Before this rule a range could hold
only another case's summary line, or a bare "done" (2 to 92 records of the runs of 29 Nov to 3 Dec:
a NumPy peer's range printed the TVM case timed just before it), and a reviewer opening the
evidence read a line about something else. ``names_record`` is the test both sides apply: the
harness writes a closing line with the id when a range would otherwise lack one, and reportgen
refuses a run started at or after ``NAMED_FROM`` whose records break it, while older records are
published with a visible marker instead.
"""
import re

NAMED_FROM = "20261205T120000Z"
"""Runs started at or after this second (their id's time) cite only ranges that name the record."""

_ID_CHAR = r"[A-Za-z0-9_+\-/=]"
"""Characters of a case id (study.schema._ID) other than ".", which may also end a sentence."""


def names_record(case_id, text):
    """True when ``text`` holds ``case_id`` as a whole id: not inside a longer id (``n=64`` is not
    named by a line about ``n=640``); a full stop right after it ends a sentence."""
    before = _ID_CHAR[:-1] + ".]"   # an id char or "." before it: the tail of a longer id
    pattern = rf"(?<!{before}){re.escape(case_id)}(?!{_ID_CHAR}|\.{_ID_CHAR})"
    return re.search(pattern, text) is not None


def bound(run_id):
    """True when the run ``run_id`` started at or after NAMED_FROM (ids start with the UTC second)."""
    return run_id.split("-", 1)[0] >= NAMED_FROM
