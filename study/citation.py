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

from study.schema import _INVISIBLE as INVISIBLE

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
    """True when ``text`` holds ``case_id`` as a whole id (_whole_id)."""
    return _whole_id(case_id).search(text) is not None


def bound(run_id):
    """True when the run ``run_id`` started at or after NAMED_FROM (ids start with the UTC second)."""
    return run_id.split("-", 1)[0] >= NAMED_FROM


# -- the figure and the outcome the named lines state ------------------------------------------

NUMBER = re.compile(r"(?<![\w.])[-+]?(\d+(?:\.(\d*))?|\.\d+)(?:[eE]([-+]?\d+))?")
SCALES = (1.0, 1e3, 1e6)   # s, ms, us per call
RELATIVE = 0.005           # a printed figure rounded to 3 significant digits is within this
STATUS_WORD = re.compile(r"[^\w]*(?:error\b|timeout|timed out|skipped|stopped|killed)", re.I)
"""Right after a record's id, a status other than ok (the harness writes failures as "<id>: <status>:
<error>"; "error" further on is a statistic: "error median 0.000")."""
STATUS_ANYWHERE = re.compile(r"\b(?:time[sd]?[ -]?out|skipped|killed|aborted)\b|\bstatus\W{1,3}(?!ok\b)\w+"
                             r"|\berror\b(?!\s*(?:median|mean|max|min|p\d\d|rel|abs|of|is|[:=]?\s*[-+]?[\d.]))", re.I)
"""Before the id, or anywhere else on a line naming it, a status other than ok: "timed out: <id>",
"killed <id>", "error in <id>", "<id> -- status: timeout" (not "rel err", "error median 0.0")."""
FAILURE = re.compile(r"fail|wrong|mismatch|incorrect|differs|segmentation|abort|crash|traceback|exception"
                     r"|seg ?fault|\bsig(?:segv|abrt|kill|bus|fpe|ill)\b|core dumped|\bassert(?:ion)?\b"
                     r"|(?-i:[A-Z][A-Za-z]*Error\b|\bERR\b)|\berrored\b|\berrors?\s*[:=]\s*[1-9]"
                     r"|out of memory|\boom\b|\bnan\b|\bnot ok\b|\bpanic|\bterminated\b|\bcancel+ed\b"
                     r"|\binterrupted\b|did not pass|\bnot passed\b|\b(?:passed|check|ok)\W{0,3}false\b"
                     r"|\bexit(?: code| status)?\s*[:=]?\s*[1-9]|\brc\s*[:=]\s*[1-9]|non-?zero|\bbad (?:result|output)"
                     r"|\binvalid (?:result|output)|>\s*threshold|\bfehler\b|[\u2717\u2718\u274c]"
                     r"|\u5931\u8d25|\u9519\u8bef|\u4e0d\u4e00\u81f4|\u8d85\u65f6|[\u672a\u4e0d]\u901a\u8fc7"
                     r"|\u4e0d\u6b63\u786e|\u5f02\u5e38|\u5d29\u6e83|\u4e2d\u65ad|\u51fa\u9519"
                     r"|\u5185\u5b58\u4e0d\u8db3|\u5df2?\u7ec8\u6b62|\u88ab?\u6740\u6b7b|\u5df2?\u8df3\u8fc7|\u5df2?\u53d6\u6d88"
                     r"|\u62a5\u9519|\u4e0d\u5339\u914d|\u8d85\u51fa|\u65e0\u6548"
                     r"|\bhung\b|\bhang(?:s|ing)?\b|\bdeadlock|\bdiverged?\b|\bunsupported\b|\bgiving up\b|\bgave up\b"
                     r"|(?-i:\bKO\b|\bDNF\b)|\binf(?:inity)?\b|[\u2716\U0001f4a5]", re.I)
"""Anywhere in what a line says about a record (_said_about), a word of failure ("<id>: ok, but result
differs", "[<id>] FAILED", "FAILED: <id>"): a crash (segfault, SIGSEGV, core dumped, an exception's
name such as AssertionError), out of memory (OOM), NaN, "not ok", an exit code or "passed=False", a
cross mark, and the Chinese for failed, wrong, inconsistent, timed out, did not pass, incorrect,
exception, crashed, interrupted and went wrong."""
_NUMBER = r"([-+]?(?:\d+(?:[.,]\d*)?|[.,]\d+)(?:[eE][-+]?\d+)?)"
_UNIT = r"(s|secs?|seconds?|ms|msecs?|milli[a-z]*|us|\u03bcs|usecs?|micro[a-z]*|ns|nsecs?|nano[a-z]*)\b"
_FILLER = r"(?:of|is|was|were|at|about|around|approx(?:imately)?|roughly|near|time|latency|runtime|duration|per|call" \
          r"|took|takes|the|samples)"
"""Words a statement may put between a statistic and its figure ("p50 was about 9.99 ms", "median time
9.99 ms", "p50 took 9.99 ms", "p50 of the samples 9.99 ms"); no other word (a per-operator profile line
"Mean QLinearConv 0.05 ms" is about an operator)."""
_STAT = (r"(?<![A-Za-z0-9])(?P<stat>p50|median|mean|average|avg|min|max|p95|p99|50th percentile|med|q50|p 50"
         r"|percentile\(50\)|50%(?=\s*[:=]))"
         r"(?:_?(?P<glued>ms|us|ns)|_(?P<glued_s>s))?(?![A-Za-z0-9])")
"""A statistic's name, inside an identifier too ("p50_ms", "time_p50", "median_ms", "p50ms"), its unit
glued to it or not."""
_SEP = r"[^\w.,+]{0,4}"
STATISTIC = re.compile(_STAT + _SEP + r"(?:" + _FILLER + r"\b" + _SEP + r"){0,3}(?:[(\[/](?P<paren>" + _UNIT
                       + r")[)\]]?" + _SEP + r")?(?P<figure>" + _NUMBER + r")\s*" + r"(?:(?P<after>" + _UNIT[1:-3]
                       + r")\b)?", re.I)
"""A statistic stated with its unit, before or after the figure, up to three _FILLER words between: "p50 1.1 ms",
"p50: 1.1ms", "median=1100 us", "p50 of 1.1 milliseconds", "p50 (ms) 1.1", "p50 [ms] 1.1", "mean 1,1 ms",
"p50 was about 9.99 ms", "median time 9.99 ms", "50th percentile 9.99 millisec", "p50 -> 9.99 ms",
"p50_ms=9.99", "{'p50_s': 0.00999}"."""
FIGURE_FIRST = re.compile(r"(?<![\w.])(?P<figure>" + _NUMBER + r")\s*(?P<after>" + _UNIT[1:-3] + r")\b[\s(\[=]{0,4}"
                          + r"(?:(?:is|was|at)\s+(?:the\s+)?)?"
                          + _STAT + r"(?!" + _SEP + r"[-+]?[\d.,])", re.I)
"""A figure and its unit before the statistic: "9.99 ms (p50)", "9.99 ms median" (not "1.1 ms (mean 1.2
ms)": a statistic its own figure follows is read forward)."""
_UNIT_KEY = re.compile(r"['\"]unit['\"]\s*:\s*['\"](?P<unit>[a-z\u03bc]+)['\"]", re.I)
"""A harness's printed dict: {'p50': 0.00999, 'unit': 's'} states its unit once, apart."""
STAT_KEYS = {"p50": "p50", "median": "p50", "mean": "mean", "average": "mean", "avg": "mean", "min": "min",
             "max": "max", "p95": "p95", "p99": "p99", "50th percentile": "p50", "med": "p50", "q50": "p50",
             "p 50": "p50", "percentile(50)": "p50", "50%": "p50"}
UNITS = {"s": 1.0, "ms": 1e3, "us": 1e6, "\u03bcs": 1e6, "ns": 1e9}
_LONG_UNITS = (("milli", "ms"), ("msec", "ms"), ("micro", "us"), ("usec", "us"), ("nano", "ns"), ("nsec", "ns"),
               ("sec", "s"))


def _unit(word):
    """The scale of a unit as a line may spell it (NFKC, any case, long forms), or None."""
    word = unicodedata.normalize("NFKC", word).lower()
    for long, short in _LONG_UNITS:
        if word.startswith(long):
            return UNITS[short]
    return UNITS.get(word)


def _plain(line):
    """A line as its words read: terminal colour codes dropped and backspaces applied (FA<ESC[0m>ILED),
    other control characters read as spaces (their text kept),
    compatibility forms folded (NFKC: a fullwidth colon, a Greek mu), invisible characters dropped
    (a zero-width space inside "p50" hid it from the check)."""
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


_FILE_SUFFIX = r"(?:log|txt|jsonl?|out|err|csv|py|s|ll|c)"
"""A file's suffix after an id ("<id>.log: FAILED" names the record); other text after a "." may
continue a longer id (graph/api=relay.expr.const)."""


def _said_about(rec, line):
    """(before, after) for each occurrence of the record's id in a line (as its words read), glued to
    a path or a name or not ("results/<id>: FAILED", "x=<id>"), but not inside a longer id: the line
    before the id, from its start (after the harness's "[<experiment>] " tag, and no other: "[FAILED]"
    is words), without the record's other occurrences; and the rest of the line after it. Another id
    before it is no end to what the line says (a made-up one would hide the words before it)."""
    line = _plain(line)
    tag = re.match(rf"\s*\[{re.escape(str(rec.get('experiment')))}\]\s*", line)
    start = tag.end() if tag else 0
    occurrence = re.compile(rf"{re.escape(rec['id'])}(?!{_ID_CHAR}|\.(?!{_FILE_SUFFIX}\b){_ID_CHAR})")
    for match in occurrence.finditer(line):
        yield occurrence.sub(" ", line[start:match.start()]), line[match.end():]


def statement_problems(rec, lines):
    """Why the cited ``lines`` contradict an ok record (runs bound by NAMED_FROM): what a line says
    about its id (before it, back to the line's start or another id, and after it) reports a failure,
    or the first of each statistic it states there with a time unit (p50/median, mean, min, max, p95,
    p99; a paired peer's may follow) is not the record's. Empty when they agree. A case's free words
    are not read for every meaning: the provenance page says that the summary line is the checked
    statement."""
    if rec.get("status") != "ok":
        return []
    out = []
    stats = rec.get("stats") or {}
    for line in lines:
        for before, after in _said_about(rec, line):
            said = f"{before} {after}"   # the line without the id, read as one statement
            failed = STATUS_WORD.match(after) or FAILURE.search(said) or STATUS_ANYWHERE.search(said)
            if failed:
                word = re.sub(r"^\W+", "", failed.group(0))
                out.append(f"a cited line reports {word!r:.40} for a record whose status is ok")
            seen = set()
            apart = _UNIT_KEY.search(said)
            for stat in sorted([*STATISTIC.finditer(said), *FIGURE_FIRST.finditer(said)], key=lambda m: m.start()):
                key = STAT_KEYS[stat.group("stat").lower()]
                unit = stat.group("glued") or stat.group("glued_s") or stat.groupdict().get("paren") or stat.group("after")
                scale = _unit(unit or (apart.group("unit") if apart else ""))
                value = stats.get(key)
                if key in seen or scale is None or not isinstance(value, (int, float)):
                    continue
                seen.add(key)   # the first: a paired peer's may follow
                figure = stat.group("figure")   # 9,990 us is nine thousand; 1,1 ms a decimal comma
                figure = figure.replace(",", "") if re.fullmatch(r"[-+]?\d{1,3}(?:,\d{3})+(?:\.\d*)?", figure) \
                    else figure.replace(",", ".")
                numbers = printed_numbers(figure) or [(math.inf, 0.0)]   # 1e99999: inf
                if not _matches(*numbers[0], float(value) * scale):
                    out.append(f"a cited line states another {stat.group('stat')} ({stat.group(0)[:40]!r}) than the "
                               f"record's {key} {float(value):.4g} s")
    return out


def summary(rec_id, status, samples=(), p50=None):
    """The harness's last line for a record (without the "[family] " its say() adds): the median and
    the sample count of a timed ok record, the status of any other."""
    if status == "ok" and samples and p50 is not None:
        return f"{rec_id}: p50 {p50 * 1e3:.4g} ms over {len(samples)} samples"
    return f"{rec_id}: {status}"


def summary_problem(rec, line):
    """Why ``line``, the last line a record of a bound run cites, is not its summary, or None: exactly
    what ``summary`` writes for it (after an optional "[family] "), "<id>: p50 <v> ms over <n> samples"
    for a timed ok record (compared as text: a figure read at its own printed precision let "1e1 ms"
    stand for 14.9 ms, and other scripts' digits read as numbers), "<id>: <status>" for any other
    (its error is the record's own field, never words in the checked line)."""
    text = re.sub(rf"^\[{re.escape(str(rec.get('experiment')))}\] ", "", line.rstrip("\r"))
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
