"""JSON as the study writes and reads it: json.loads that refuses what a figure never is (NaN, Infinity,
an integer of hundreds of digits, a double out of range), a key given twice, nesting past MAX_DEPTH and a lone
surrogate escape, each as a ValueError naming it; dumps writes one canonical line."""
import json
import re


def _reject_constant(name):
    raise ValueError(f"{name} is not valid JSON (NaN and Infinity are refused)")


MAX_DIGITS = 100
"""Digits an integer literal may have: a count or a size needs a few (Python refuses to read an
integer of over 4300 digits at all, and reads one of a few thousand slowly)."""


def _int(text):
    if len(text.lstrip("-")) > MAX_DIGITS:
        raise ValueError(f"an integer of {len(text.lstrip('-'))} digits (at most {MAX_DIGITS}) is no figure")
    return int(text)


def _float(text):
    value = float(text)
    if value in (float("inf"), float("-inf")):   # 1e999: out of a double's range, read as infinity
        raise ValueError(f"number {text[:40]!r} is out of range (a JSON figure is a finite double)")
    return value


MAX_DEPTH = 64
"""Nesting a record or manifest may have (deeper JSON would exhaust the parser's recursion)."""


def _no_duplicates(pairs):
    seen = {}
    for key, value in pairs:
        if key in seen:
            raise ValueError(f"duplicate key {key!r:.60} (JSON objects must not repeat a key)")
        seen[key] = value
    return seen


def _depth(value):
    """Deepest nesting of lists and objects in a parsed value (iterative: no recursion)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, (list, dict)):
            deepest = max(deepest, level)
            if level > MAX_DEPTH:
                break
            # only containers go on the stack: a record's long sample lists hold numbers
            stack.extend([(v, level + 1) for v in (item.values() if isinstance(item, dict) else item)
                          if isinstance(v, (list, dict))])
    return deepest


def loads(text):
    """json.loads that refuses NaN/Infinity, repeated keys and nesting deeper than MAX_DEPTH
    instead of silently accepting them (or failing with a RecursionError)."""
    try:
        value = json.loads(text, parse_constant=_reject_constant, object_pairs_hook=_no_duplicates,
                           parse_int=_int, parse_float=_float)
    except RecursionError:
        raise ValueError(f"nested deeper than {MAX_DEPTH} levels") from None
    if _depth(value) > MAX_DEPTH:
        raise ValueError(f"nested deeper than {MAX_DEPTH} levels")
    if _SURROGATE_ESCAPE.search(text):   # only an escape can make one: the text itself is UTF-8
        try:
            json.dumps(value, ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError:
            raise ValueError("a string holds a lone UTF-16 surrogate escape (such as \\ud800): "
                             "it is not text and cannot be written to a page") from None
    return value


_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def dumps(obj):
    """Canonical JSON line: sorted keys, no NaN allowed."""
    return json.dumps(obj, sort_keys=True, ensure_ascii=False, allow_nan=False)
