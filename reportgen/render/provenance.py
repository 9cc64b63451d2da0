"""Provenance pages: for every current record, the evidence behind its figures."""
import json
from pathlib import Path

from study import citation
from study.stats import is_number
from reportgen.render import cells
from reportgen.data import logtext
from reportgen.render.figures import log_excerpt_file, record_file, slug
from reportgen.data.words import W


MAX_LINE_CHARS = 2000
"""A log line longer than this is shown cut, with a note (the whole log stays downloadable): one
10 MB line of progress output cannot make a 10 MB page."""


def cut_line(line):
    if len(line) <= MAX_LINE_CHARS:
        return line
    return line[:MAX_LINE_CHARS] + W("provenance.log_excerpt.cut_line", chars=len(line), shown=MAX_LINE_CHARS)


def log_excerpt(results_dir, rec, context=0, limit=40):
    """The log lines a record cites (at most `limit`), read through load (no symlink, no ..).

    Lines are counted as the harness counts them, by "\n" only (splitlines would also split at
    "\r", form feeds and U+2028 and shift every later excerpt); a carriage return inside a line is
    shown as ␍."""
    return shown_lines(logtext.cited_lines(logtext.log_lines(results_dir, rec), rec, context), limit, rec["id"])


def shown_lines(lines, limit=40, record_id=None):
    """Cited log ``lines`` as an excerpt shows them: each cut and with ␍ visible; over ``limit``, the
    first and last ``limit // 2``, and between them the lines that name ``record_id`` (at most
    ``limit // 2``): a shortened excerpt must not drop what the range says about its own record."""
    chosen = [cut_line(line.replace("\r", "␍")) for line in lines]
    if len(chosen) <= limit:
        return "\n".join(chosen)
    half = limit // 2
    middle = [i for i in range(half, len(chosen) - half)
              if record_id is not None and citation.names_record(record_id, lines[i])][:half]
    out, last = [], -1
    for i in list(range(half)) + middle + list(range(len(chosen) - half, len(chosen))):
        if i > last + 1:
            out.append(W("provenance.log_excerpt.elided", chosen=i - last - 1))
        out.append(chosen[i])
        last = i
    return "\n".join(out)


def _since(second):
    """20261205T120000Z as 2026-12-05 12:00 UTC."""
    return f"{second[:4]}-{second[4:6]}-{second[6:8]} {second[9:11]}:{second[11:13]} UTC"


def reproduce_command(rec, profile):
    return (f"reportgen retest --profile {profile} --only {rec['experiment']} --force\n"
            f"reportgen trace '{rec['id']}'")


def _fence(text, _lang=""):
    # verbatim, unhighlighted: a build's provenance pages hold thousands of these blocks
    return cells.pre_block(text)


def entry(results_dir, cur, data_prefix, full_log=True):
    """Markdown for one record: id heading (stable anchor), facts, samples, log, command.
    ``full_log``: link the whole log and print the samples (the publication machine's), else link
    only its cited lines and leave the samples to the record file (another machine's page: one per
    machine, so its size grows with the machines, not with their samples)."""
    rec, run = cur.record, cur.run
    cited = logtext.cited_lines(logtext.log_lines(results_dir, rec), rec)
    unnamed = "" if citation.names_record(rec["id"], "\n".join(cited)) else \
        W("provenance.entry.unnamed", since=_since(citation.NAMED_FROM))
    log_href = (f"{data_prefix}/{rec['log']['path']}" if full_log
                else f"{data_prefix}/logs/{rec['run_id']}/{log_excerpt_file(rec)}")
    records_href = f"{data_prefix}/records/{rec['run_id']}/{record_file(rec['id'])}"
    stats = rec["stats"] or {}
    # a failed record's numbers (a check_failed one's samples, statistics and errors) are no figure: no run is
    # compared with them (pages.history.all_jumps compares ok records), so the entry names them and the record
    # file holds them; its status, error and the check's words stay
    ok = rec["status"] == "ok"
    check = rec["check"] if ok else {k: v for k, v in rec["check"].items() if not is_number(v)}
    hidden = 0 if ok else len(rec["samples"] or ()) + len(stats) + len(rec["check"]) - len(check)
    facts = [
        (W("provenance.entry.status_label"), cells.text(rec["status"])
         + (W("provenance.entry.error", error=cells.text(rec['error'])) if rec["error"] else "")),
        (W("provenance.entry.run_label"), W("provenance.entry.run", run_id=rec['run_id'], profile=run.manifest['profile'])
                 + (W("provenance.entry.reused_from", reused_from=rec['reused_from']) if rec["reused_from"] else "")),
        (W("provenance.entry.metric_label"), W("provenance.entry.metric", metric=rec['metric'], unit=rec['unit'], warmup=rec['warmup'], repeat=rec['repeat'], number=rec['number'])),
        (W("provenance.entry.stats_label"), (", ".join(f"{k}={v:.6g}" for k, v in stats.items() if k != "n")
                 + (f", n={stats.get('n')}" if stats else "")) if not hidden else
         W("provenance.entry.failed_figures", n=hidden)),
        (W("provenance.entry.check_label"), json.dumps(check, ensure_ascii=False)),
        (W("provenance.entry.log_label"), W("provenance.entry.log", href=cells.href(log_href), path=cells.text(rec['log']['path']), first_line=rec['log']['lines'][0], last_line=rec['log']['lines'][1], sha256=cells.text(rec['log']['sha256'])) + unnamed),
        (W("provenance.entry.record_label"), f'<a href="{cells.href(records_href)}">{cells.text(record_file(rec["id"]))}</a>'),
    ]
    parts = [f"### {cells.text(rec['id'])} {{#{slug(rec['id'])}}}", "",
             W("provenance.entry.table_head"), "|---|---|"]
    parts += [W("provenance.entry.table_row", k=k, v=v if k in (W("provenance.entry.status_label"), W("provenance.entry.log_label"),
                                                         W("provenance.entry.record_label")) else cells.text(v))
              for k, v in facts]
    parts += ["", W("provenance.entry.params_title"), "", _fence(json.dumps(rec["case"], ensure_ascii=False, indent=1, sort_keys=True), "json"),
              "", W("provenance.entry.samples_title"), "",
              _fence(json.dumps(rec["samples"]), "json") if full_log and not (hidden and rec["samples"]) else
              W("provenance.entry.samples_in_record", n=len(rec["samples"]), href=cells.href(records_href)),
              *_excerpt(rec, cited),
              "", W("provenance.entry.reproduce_title"), "", _fence(reproduce_command(rec, run.manifest["profile"]), "bash"), ""]
    return "\n".join(parts)


def _excerpt(rec, cited):
    """The cited lines under their title; for a record of a run under the citation rule, its own
    checked lines first (its summary, load refused the run unless the range ends with it, and its
    notes: study.citation.own_lines), then the whole range as unchecked output, whose words are no
    statement about the record however they read."""
    excerpt = _fence(shown_lines(cited, record_id=rec["id"]), "text")
    if not (citation.bound(rec["run_id"]) and cited):
        return ["", W("provenance.entry.log_excerpt_title"), "", excerpt]
    own = citation.own_lines(rec, cited) if rec.get("status") == "ok" else [cited[-1]]
    return ["", W("provenance.entry.summary_title", line=rec["log"]["lines"][1]), "",
            _fence("\n".join(cut_line(line) for line in own or [cited[-1]]), "text"),
            "", W("provenance.entry.log_excerpt_title_checked"), "", excerpt]


def page(results_dir, family, currents, data_prefix="../data", full_log=True):
    """The provenance page of one experiment family."""
    head = [W("provenance.page.title", family=family), "",
            W("provenance.page.intro"), ""]
    body = [entry(results_dir, cur, data_prefix, full_log)
            for _id, cur in sorted(currents.items())]
    return "\n".join(head + body)


def groups(currents):
    """{group: {record id: Current}} of one family's records, by figures.provenance_group."""
    from reportgen.render.figures import provenance_group
    out = {}
    for rid, cur in sorted(currents.items()):
        out.setdefault(provenance_group(rid), {})[rid] = cur
    return out


def group_title(family, currents):
    """A group page's title in words (family and model, stage...), from the id segments the group is
    named by (figures.provenance_group); the page's code name stays in its heading."""
    from reportgen.render.figures import GROUP_DEPTH
    from reportgen.render.labels import case_label
    first = next(iter(sorted(currents)), "")
    fields = dict(part.partition("=")[::2] for part in first.split("/")[1:1 + GROUP_DEPTH.get(family, 1)]
                  if "=" in part)
    return W("provenance.group_title", case=case_label(family, fields))


def index_page(family, grouped):
    """The family's provenance index: one line per page of entries, with how many records it holds."""
    lines = [W("provenance.page.title", family=family), "",
             W("provenance.index_page.intro"), ""]
    lines += [W("provenance.index_page.group_item", group=group, family=family, entries=len(entries)) for group, entries in grouped.items()]
    return "\n".join(lines) + "\n"


_DERIVED = Path(__file__).with_name("derived.md")


def derived_section(entries, rel):
    """Markdown for the derived figures of one provenance page: formula, every operand linked to its
    record's entry (``rel`` turns a site path into a link from this page), result, and where shown."""
    if not entries:
        return ""
    import jinja2
    rows = []
    for e in entries:
        d = e["derived"]
        rows.append({
            "id": cells.code_span(e["id"]), "anchor": "derived-" + slug(e["id"]),
            "formula": cells.code_span(d["formula"]), "result": cells.text(d["result"]),
            "pages": ", ".join(f'<a href="{cells.href(rel(p))}">{cells.text(p)}</a>' for p in e["pages"]),
            "operands": [{"name": cells.code_span(o["name"]), "value": cells.text(f"{o['value']} {o['unit']}".strip()),
                          "record": f'<a href="{cells.href(rel(o["page"] + "#" + o["anchor"]))}">'
                                    f'{cells.text(o["record"])}</a>', "run": cells.code_span(o["run"])}
                         for o in d["operands"]]})
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(_DERIVED.parent)), undefined=jinja2.StrictUndefined,
                             autoescape=False, comment_start_string="{##", comment_end_string="##}")
    return env.get_template(_DERIVED.name).render(derived=rows)
