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
import unicodedata

from study.schema import STATUSES, _INVISIBLE as INVISIBLE
from study.stats import is_number

NAMED_FROM = "20261205T120000Z"
"""Runs started at or after this second (their id's time) cite only ranges that name the record."""

_ID_CHAR = r"[A-Za-z0-9_+\-/=]"
"""Characters of a case id (study.schema._ID) other than ".", which may also end a sentence."""
_BEFORE = _ID_CHAR[:-1] + ".]"
"""An id character or "." before an id: the tail of a longer id."""


def _whole_id(case_id):
    """``case_id`` as a whole id: not inside a longer id (``n=64`` is not named by a line about
    ``n=640``); a full stop right after it ends a sentence."""
    return re.compile(rf"(?<!{_BEFORE}){re.escape(case_id)}(?!{_ID_CHAR}|\.{_ID_CHAR})")


def names_record(case_id, text):
    """True when ``text`` holds ``case_id`` as a whole id (_whole_id): does a range name its record (a
    marker on the evidence of runs before NAMED_FROM, the writeup's count).  It is stricter than
    _occurs, which finds the id in any letter case and glued to a path, to refuse more lines: a
    line that merely holds the id there is a statement to check, not proof that the range is about it."""
    return _whole_id(case_id).search(text) is not None


def bound(run_id):
    """True when the run ``run_id`` started at or after NAMED_FROM (ids start with the UTC second)."""
    return run_id.split("-", 1)[0] >= NAMED_FROM


# -- the figure and the outcome the named lines state ------------------------------------------

NUMBER = re.compile(r"(?<![\w.])[-+]?(\d+(?:\.(\d*))?|\.\d+)(?:[eE]([-+]?\d+))?")
SCALES = (1.0, 1e3, 1e6)   # s, ms, us per call
RELATIVE = 0.005           # a printed figure rounded to 3 significant digits is within this
STATS = ("p50", "mean", "min", "max", "p95", "p99")
UNITS = {"s": 1.0, "ms": 1e3, "us": 1e6, "ns": 1e9}
_STAT_KEY = re.compile(r"(p50|mean|min|max|p95|p99)_(s|ms|us|ns)")
NOTE_KEYS = re.compile(_STAT_KEY.pattern + r"|gflops|rel_err|abs_err|max_err|check|sum_check")
"""The keys a note about a record may give: facts the record holds, each compared with it (a statistic
of its samples, its GFLOPS from extra.flops_per_call, its check's errors, its check passed).  A line of
a bound run that names a record is its summary, its status or such a note, nothing else.  Free words
were read for every spelling of a median or a failure ("p50 was about", "FA<BS>ILED", "OOM", the
Chinese for timed out...) and each round of attacks found one more; a note's figures that no record
holds (a kernel's name, a profile's times, a tuning's trials) are said on a context line that names no
record (``context``), so nothing about a record is left unread."""
AGREE = 5e-4
"""A note's figure agrees with the record's within this share of it: four significant digits, as
``note`` writes them (the precision the value itself claims was no bound: "1e1" stood for 14.9 ms)."""
_NUMBER_VALUE = re.compile(r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:e[-+]?\d{1,3})?")
_MOST_FIELDS = 12


def _value(value):
    """A field's value as a line writes it: a number to four significant digits, a flag as true/false,
    any other value with every character outside [A-Za-z0-9_.:+/,()*-] as "_"."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return f"{value:.4g}" if math.isfinite(value) else "nan"
    return re.sub(r"[^\w.:+/,()*-]", "_", str(value), flags=re.ASCII)[:200] or "-"


def note(case_id, **fields):
    """The harness's lines about a case: ``<id>: key=value ...`` with the fields of NOTE_KEYS (checked
    against the record), then a context line with the others, which names no record.  None, one or two
    lines, in the order given."""
    held = {k: v for k, v in fields.items() if NOTE_KEYS.fullmatch(k)}
    rest = {k: v for k, v in fields.items() if k not in held}
    return ([f"{case_id}: " + " ".join(f"{k}={_value(v)}" for k, v in held.items())] if held else []) + \
        ([context(**rest)] if rest else [])


def context(**fields):
    """A line of figures about the case in progress that its record does not hold (a kernel's name and
    time, a tuning's trials): ``(context) key=value ...``, naming no record and read as no statement."""
    return "(context) " + " ".join(f"{re.sub(r'[^a-z0-9_]', '_', k.lower())}={_value(v)}" for k, v in fields.items())


def _held(rec, key):
    """The record's own value of a note's key (in the key's unit), or None when it holds none."""
    def number(v):
        return float(v) if is_number(v) else None
    stats, check, extra = (rec.get(k) if isinstance(rec.get(k), dict) else {} for k in ("stats", "check", "extra"))
    stat = _STAT_KEY.fullmatch(key)
    if stat:
        value = number(stats.get(stat.group(1)))
        return None if value is None else value * UNITS[stat.group(2)]
    if key == "gflops":
        flops, p50 = number(extra.get("flops_per_call")), number(stats.get("p50"))
        return flops / p50 / 1e9 if flops and p50 else None
    return number(check.get({"rel_err": "max_rel_err", "abs_err": "max_abs_err", "max_err": "max_abs_err"}[key]))


def _field_problem(rec, key, value):
    """Why one field of a note about an ok record is not in the grammar or contradicts the record, or None."""
    if not NOTE_KEYS.fullmatch(key):
        return f"a cited line's note gives {key!r:.40}, which is no fact of its record (study.citation.NOTE_KEYS)"
    if key in ("check", "sum_check"):
        return None if value == "passed" else f"a cited line reports {key}={value[:20]!r} for a record whose status is ok"
    if not _NUMBER_VALUE.fullmatch(value):
        return f"a cited line's note gives {key}={value!r:.40}, not a number"
    held, stated = _held(rec, key), float(value)
    if held is None:
        return f"a cited line's note gives {key}, which its record does not hold"
    if not (abs(stated - held) <= AGREE * abs(held) if held else stated == 0):
        return f"a cited line states another {key} ({key}={value[:20]}) than the record's {held:.4g}"
    return None


_GRAMMAR = ("a cited line names the record outside the harness's grammar (only '<id>: <summary>', "
            "'<id>: <status>[: <error>]' or a note '<id>: key=value ...' name a record)")


def _untagged(rec, line):
    """``line`` without the "[family] " tag the harness's say() puts before it."""
    prefix = f"[{rec.get('experiment')}] "
    return line[len(prefix):] if line.startswith(prefix) else line


def _occurs(case_id, text):
    """True when ``text`` holds ``case_id``, glued to a path, a name or a suffix or not ("results/<id>:
    FAILED", "x=<id>", "<id>.so: FAILED"), but not as the head of a longer id ("<id>0", "<id>.5": a
    number goes on).  In a record's own range a line of a longer id with a word after a "."
    (graph/api=relay.expr.const for graph/api=relay.expr) names it too: the range holds its own case."""
    return re.search(rf"{re.escape(case_id)}(?!{_ID_CHAR}|\.\d)", text, re.I) is not None


_LOOKALIKE_UPPER = str.maketrans("\u0391\u0392\u0395\u0396\u0397\u0399\u039a\u039c\u039d\u039f\u03a1\u03a4\u03a5\u03a7\u04c0",
                                 "ABEZHIKMNOPTYXl")
_LOOKALIKE = str.maketrans("\u0430\u0432\u0435\u043a\u043c\u043d\u043e\u0440\u0441\u0442\u0443\u0445\u0456\u0458\u0455\u0501"
                           "\u03b1\u03bf\u03c1\u03bd\u03ba\u03c4\u03b9\u03c5\u03c7\u03b5\u0261\u0578\u0570\u0274\u1d0f\u04cf"
                           "\u0131\u0222\u0223\u09ea\uff1a:",
                           "abekmhopctyxijsd" "aopvktiuxeg" "nhnol" "i88" "8" "==")
"""Cyrillic, Greek, Armenian and small-capital letters that read as Latin ones (numpy_g\u0435mm with a
Cyrillic e; the Greek capitals before case folding: N, not nu); a colon reads as "=" (n:4096)."""


def _skeleton(text):
    """``text`` as its letters read: compatibility forms and accents folded, look-alikes as Latin, any
    case; "=" around any separators as one "="; every other run of characters but letters and digits
    as one "/"."""
    text = "".join(c for c in unicodedata.normalize("NFKD", text.translate(_LOOKALIKE_UPPER))
                   if not unicodedata.combining(c))
    text = re.sub(r"[^a-z0-9=]+", "/", text.casefold().translate(_LOOKALIKE))
    return re.sub(r"/*=[/=]*", "=", text)


def _mentions(rec, line):
    """True when ``line`` (its "[family] " tag aside) names a case of the record's family in any spelling:
    the family's name (its letters in order, with or without separators, any case or look-alikes)
    and one of its id fields given a value anywhere on the line (n=4096, N : 4096, before or after the
    family), or the page anchor's form (numpy-gemm-dtype-float32-n-32-...).  In a record's own range
    every such line is the record's own grammar line: a line about another case is refused there too."""
    from study import cases   # study.cases imports nothing of the study's users
    family = rec["id"].split("/", 1)[0]
    names = [re.escape(_skeleton(f).strip("/")) for f in cases.ID_FIELDS.get(family, ())]
    if not names:
        return False
    text = "/" + _skeleton(_untagged(rec, line)) + "/"
    fam = "/?".join(re.escape(ch) for ch in _skeleton(family).replace("/", ""))
    field = "(?:" + "|".join(names) + ")"
    tag = re.match(r"\s*\[([^\]\n]{1,40})\]", line)   # "[int8] model=...": the tag names the family too
    if not re.search(rf"[/=]{fam}[/=]", text) and not (tag and re.fullmatch(fam, _skeleton(tag.group(1)).strip("/"))):
        return False
    return re.search(rf"[/=]{field}=", text) is not None or \
        re.search(rf"/{fam}/{field}/(?:[a-z0-9]+/){{1,4}}{field}/", text) is not None


def _line_problems(rec, line):
    """Why one cited line that names the record is not its summary, its status or a note that agrees."""
    text = _untagged(rec, line.rstrip("\r"))
    head = f"{rec['id']}: "
    if _plain(text) != text or not text.startswith(head) or _occurs(rec["id"], text[len(head):]):
        return [_GRAMMAR]   # control or invisible characters, words before the id, the id twice
    rest = text[len(head):]
    status = rec.get("status")
    said = re.fullmatch(rf"({'|'.join(STATUSES)})(?:: (.*))?", rest)
    if said:
        if said.group(1) != status:
            return [f"a cited line reports {said.group(1)!r} for a record whose status is {status!r:.20}"]
        return [] if said.group(2) is None or status != "ok" else [_GRAMMAR]
    stated = re.fullmatch(r"p50 (\S+) ms over (\d+) samples", rest)
    if stated:   # the summary: exactly as ``summary`` writes it (summary_problem)
        p50 = (rec.get("stats") or {}).get("p50")
        if not isinstance(p50, (int, float)):
            return ["a cited line states a median for a record that has none"]
        if summary_problem(rec, line):
            return [f"a cited line states another p50 than the record's ('p50 {float(p50) * 1e3:.4g} ms')"]
        return []
    fields = rest.split(" ")
    if not rest or len(fields) > _MOST_FIELDS or not all(re.fullmatch(r"[a-z][a-z0-9_]{0,19}=\S+", f) for f in fields):
        return [_GRAMMAR]
    keys = [f.split("=", 1)[0] for f in fields]
    if len(set(keys)) < len(keys):
        return [f"a cited line's note gives {sorted(k for k in keys if keys.count(k) > 1)[0]!r} twice"]
    return [p for p in (_field_problem(rec, *f.split("=", 1)) for f in fields) if p]


def own_lines(rec, lines):
    """The lines of ``lines`` that are the record's own grammar lines (its summary, status or notes,
    each agreeing with it): what the provenance page shows as checked; every other line is output."""
    return [line for line in lines if _untagged(rec, line).startswith(f"{rec['id']}: ") and not _line_problems(rec, line)]


def statement_problems(rec, lines):
    """Why the cited ``lines`` (of a run bound by NAMED_FROM) break the grammar or contradict the
    record: each line that names the record's id (read as it shows: colour codes dropped, backspaces
    applied, invisible characters dropped; or any case of its family in any spelling, _mentions) is exactly its
    summary, its own status, or a note of NOTE_KEYS whose every figure is the record's.  Empty when they
    agree.  A line naming no record is context, read as no statement (the provenance page says which
    lines were checked)."""
    if rec.get("status") != "ok":   # only an ok record's figure is published; a failure's lines are its own
        return []
    out = []
    for line in lines:
        plain = _plain(line)
        if _occurs(rec["id"], plain) or _occurs(rec["id"], line) or _mentions(rec, plain) \
                or _mentions(rec, line):   # as the page shows it too: backspaces there erase nothing
            out.extend(p for p in _line_problems(rec, line) if p not in out)
    return out


def _plain(line):
    """A line as its words read: terminal colour codes dropped and backspaces applied (FA<ESC[0m>ILED),
    other control characters read as spaces (their text kept),
    compatibility forms folded (NFKC: a fullwidth colon, a Greek mu), invisible characters dropped
    (a zero-width space inside an id hid it from the check)."""
    line = re.sub(r"\x1b\[[0-?]*[ -/]*[@-~]", "", line)   # colour codes; any other escape's text is kept, read
    shown = []                                          # (an OSC title "FAILED" shows on the provenance page)
    for ch in line:   # a backspace takes back the character before it, as a terminal shows it (one pass)
        if ch == "\x08":
            if shown:
                shown.pop()
        else:
            shown.append(ch)
    line = re.sub(r"[\x00-\x08\x0b-\x1f\x7f]", " ", "".join(shown))
    return unicodedata.normalize("NFKC", re.sub("[" + INVISIBLE + "]", "", line))


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


def summary(rec_id, status, samples=(), p50=None):
    """The harness's last line for a record (without the "[family] " its say() adds): the median and
    the sample count of a timed ok record, the status of any other."""
    if status == "ok" and samples and p50 is not None:
        return f"{rec_id}: p50 {p50 * 1e3:.4g} ms over {len(samples)} samples"
    return f"{rec_id}: {status}"


_SUMMARY = re.compile(r"(?:\[[a-z0-9_]+\] )?(\S+): (?:p50 \S+ ms over \d+ samples|" + "|".join(STATUSES) + ")")


def summaries(lines):
    """{id: [line numbers (from 1)]} of the lines of a log shaped as a record's summary (``summary``'s
    two forms, after an optional "[family] "): a record has one; a second, outside its cited range,
    reported it twice (another median beside the one its evidence shows).  An id without its family after
    a "[family] " tag is read with the tag's family before it ("[int8] model=...": the same case)."""
    out = {}
    for number, line in enumerate(lines, 1):
        m = _SUMMARY.fullmatch(line.rstrip("\r"))
        if m:
            said, tag = m.group(1), re.match(r"\[([a-z0-9_]+)\] ", line)
            if tag and said.split("/", 1)[0] != tag.group(1) and "=" in said.split("/", 1)[0]:
                said = f"{tag.group(1)}/{said}"
            out.setdefault(said, []).append(number)
    return out


_MEDIAN_PHRASE = re.compile(r"\b(?:p\s*50|median)\b\W*[-+\d.,eE]+\s*(?:[mun\u03bc]?s|msec|usec)\b.*\b(?:samples?|runs?)\b"
                            r"|\u4e2d\u4f4d.*\d.*(?:\u6837\u672c|\u6b21)",
                            re.I)


def stray_median(lines):
    """The index in ``lines`` (a record's cited lines but its last, the summary) of the first line stating a
    median as a summary does ("p50 <v> ms over <n> samples" in any case, spacing or unit, or in Chinese, read as it
    shows: _plain), or spelled with lookalike letters (letters.foreign_letter, mixed_script: a Cyrillic p in
    'p50'), else None.  The harness writes that phrase only in a record's summary, and its lines in Latin letters:
    '[int8] p50 0.0500 ms over 200 samples', naming no record, passed as context and stood in the record's excerpt
    beside a median 40x off its own; 'P50  0.05 us (200 samples)' passed a check of the exact words."""
    from study import letters
    return next((i for i, line in enumerate(lines) if _MEDIAN_PHRASE.search(_plain(line))
                 or letters.foreign_letter(_plain(line)) or letters.mixed_script(_plain(line))), None)


_STATED = re.compile(r"\b(?:p\s*50|p\s*95|p\s*99|median|mean|average)\b(?:\W|\s*(?:was|is|of|=)\s*){0,3}[-+]?\.?\d"
                     r"|\u4e2d\u4f4d|\u5e73\u5747", re.I)
"""A statistic's key followed by a number, in any spelling: 'p50=0.0001ms', 'median: 1e-7 s', 'p50 0.4 ms'."""
_PER_CALL = re.compile(r"\d\s*(?:[mun\u03bc\u00b5]?s|sec\w*|msec|usec)\b(?!\s*$)|\d\s*(?:[mun\u03bc\u00b5]?s|sec\w*)\s*$"
                       r"|\d\s*[GMT]?FLOP|\d\s*(?:\u6beb\u79d2|\u5fae\u79d2|\u7eb3\u79d2|\u79d2)", re.I)
_TIMED_OUT = re.compile(r"timed out after \d+(?:\.\d+)? s\b")
"""The harness's own timeout message: its seconds are the limit, not a measurement."""
"""A time per call: '0.0001 ms per call', '3 us/call'."""


def error_problem(text):
    """Why a failed record's error text cannot stand as its status, or None: it states a median as a summary does
    (stray_median), or is a summary line, or a note's statistic ('p50_ms=').  The pages print the error as the
    failure's status and a failure cell's title: 'retried ok: p50 0.0001 ms over 21 samples' was printed there while
    the same words in its cited line were refused."""
    plain = unicodedata.normalize("NFKC", text)
    if (stray_median([text]) is not None or _SUMMARY.search(text) or _STAT_KEY.search(text)
            or _STATED.search(plain) or _PER_CALL.search(_TIMED_OUT.sub("", plain))):
        return ("states a median or a summary, which a failed record has none of (only a cited summary line states "
                "one, checked against the record)")
    return None


def failed_error_problems(rec):
    """error_problem of a failed record's error, as 'error: ...' lines (reportgen.data.load reads each record).  A
    family's own failure record (scope=family) is retest's: 'family exited with code N: ' and its log's last line,
    which may be a record's summary (declared: the line itself is in the record's cited excerpt)."""
    error = rec.get("error")
    family = (rec.get("case") or {}).get("scope") == "family" and str(error).startswith("family exited with code ")
    said = error_problem(error) if rec.get("status") != "ok" and isinstance(error, str) and not family else None
    return [f"error: {error[:80]!r} {said}"] if said else []


def summarised(said, rec, ids=frozenset()):
    """The line numbers of ``said`` (summaries) that report the record's case in any spelling of its id (fields
    in another order, an optional field left out: cases.canonical_id with the record's case).  ``ids``: the
    ids of the run's records, each read as itself only (the other spellings are few: each is compared)."""
    from study import cases
    want = cases.canonical_id(rec["id"], rec.get("case"))
    return sorted(n for key, numbers in said.items() if key == rec["id"] or (
        key not in ids and key.split("/", 1)[0] == rec["id"].split("/", 1)[0]
        and cases.canonical_id(key, rec.get("case")) == want) for n in numbers)


def summary_problem(rec, line):
    """Why ``line``, the last line a record of a bound run cites, is not its summary, or None: exactly
    what ``summary`` writes for it (after an optional "[family] "), "<id>: p50 <v> ms over <n> samples"
    for a timed ok record (compared as text: a figure read at its own printed precision let "1e1 ms"
    stand for 14.9 ms, and other scripts' digits read as numbers), "<id>: <status>" for any other
    (its error is the record's own field, never words in the checked line)."""
    text = _untagged(rec, line.rstrip("\r"))
    head = f"{rec['id']}: "
    if not text.startswith(head):
        return f"the last cited line is not the record's summary ('{head}...')"
    stats = rec.get("stats") or {}
    timed = rec.get("status") == "ok" and rec.get("samples") and isinstance(stats.get("p50"), (int, float))
    # an untimed record's line is its status alone: an error "none; rerun ok, p50 ..." stood in the checked line
    wanted = summary(rec["id"], str(rec.get("status")), rec.get("samples"), float(stats["p50"]) if timed else None)
    if text == wanted:
        return None
    return f"the last cited line does not state the record's {'median and count' if timed else 'status'} ('{wanted[:160]}')"
