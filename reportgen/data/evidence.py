"""Does a record's log evidence contain the measurement it is cited for?

A record cites a range of its family's log. A reviewer who opens that range should find the
figure the site shows, not only "done". ``cites_value`` reads the numbers printed in the range and
accepts the range when one of them is the record's median (seconds, milliseconds or microseconds
per call) or, for a record that states ``flops_per_call``, its GFLOPS, each to the precision it
was printed with.
"""
import math
import re

from study import citation

NUMBER = re.compile(r"(?<![\w.])[-+]?(\d+(?:\.(\d*))?|\.\d+)(?:[eE]([-+]?\d+))?")
SCALES = (1.0, 1e3, 1e6)   # s, ms, µs per call
RELATIVE = 0.005           # a printed figure rounded to 3 significant digits is within this


def printed_numbers(text):
    """(value, half a unit in its last printed place) of each plain number in ``text``."""
    out = []
    for match in NUMBER.finditer(text):
        token = match.group(0)
        try:
            value = float(token)
        except ValueError:
            continue
        if not math.isfinite(value):
            continue
        decimals = len(match.group(2) or "")
        exponent = int(match.group(3) or 0)
        out.append((value, 0.5 * 10.0 ** (exponent - decimals)))
    return out


def expected_values(rec, p50):
    """The figures a summary line may state for a record whose median is ``p50`` seconds."""
    values = [p50 * scale for scale in SCALES]
    flops = (rec.get("extra") or {}).get("flops_per_call")
    if isinstance(flops, (int, float)) and not isinstance(flops, bool) and flops > 0 and p50 > 0:
        values.append(flops / p50 / 1e9)
    return values


def cites_value(rec, p50, text):
    """True when ``text`` (the cited log lines) prints the median ``p50`` of ``rec``."""
    if not (isinstance(p50, float) and math.isfinite(p50) and p50 > 0):
        return False
    wanted = expected_values(rec, p50)
    for value, half_unit in printed_numbers(text):
        for target in wanted:
            if abs(value - target) <= max(half_unit * 1.0001, RELATIVE * abs(target)):
                return True
    return False


def gaps(results_dir, current):
    """(timed, [ids], [unnamed ids]) over the current records: how many have samples, those of them
    whose cited log lines do not print their median, and the records (any) whose cited lines do not
    name them (study.citation: runs before its rule may cite a neighbour's lines)."""
    from reportgen.data import load
    timed, missing, unnamed, logs = 0, [], [], {}   # logs: each family log read and split once, not per record
    for cid, cur in sorted(current.items()):
        rec = cur.record
        path = rec["log"]["path"]
        if path not in logs:
            logs[path] = load.log_lines(results_dir, rec)
        text = "\n".join(load.cited_lines(logs[path], rec))
        if not citation.names_record(rec["id"], text):
            unnamed.append(cid)
        if rec.get("status") != "ok" or not rec.get("samples") or not rec.get("stats"):
            continue
        timed += 1
        if not cites_value(rec, float(rec["stats"]["p50"]), text):
            missing.append(cid)
    return timed, missing, unnamed
