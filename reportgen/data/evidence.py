"""Does a record's log evidence contain the measurement it is cited for?

A record cites a range of its family's log. A reviewer who opens that range should find the
figure the site shows, not only "done". ``study.citation.cites_value`` reads the numbers printed
in the range and accepts it when one of them is the record's median (seconds, milliseconds or
microseconds per call) or, for a record that states ``flops_per_call``, its GFLOPS, each to the
precision it was printed with. Runs under the citation rule are refused when it fails; older
records are counted here for the writeup.
"""
from study import citation
from study.citation import cites_value


def gaps(results_dir, current):
    """(timed, [ids], [unnamed ids]) over the current records: how many have samples, those of them
    whose cited log lines do not print their median, and the records (any) whose cited lines do not
    name them (study.citation: runs before its rule may cite a neighbour's lines)."""
    from reportgen.data import logtext
    timed, missing, unnamed, logs = 0, [], [], {}   # logs: each family log read and split once, not per record
    for cid, cur in sorted(current.items()):
        rec = cur.record
        path = rec["log"]["path"]
        if path not in logs:
            logs[path] = logtext.log_lines(results_dir, rec)
        text = "\n".join(logtext.cited_lines(logs[path], rec))
        if not citation.names_record(rec["id"], text):
            unnamed.append(cid)
        if rec.get("status") != "ok" or not rec.get("samples") or not rec.get("stats"):
            continue
        timed += 1
        if not cites_value(rec, float(rec["stats"]["p50"]), text):
            missing.append(cid)
    return timed, missing, unnamed
