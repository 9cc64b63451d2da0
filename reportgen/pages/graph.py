"""Tables of the graph-level study: per-pass evidence, the Relay→Relax pass map, API migration."""
import difflib
import html

from reportgen.render import cells, provenance
from reportgen.data import load, merge
from study import cases
from reportgen.render.cells import code_span as _code, text as _esc
from reportgen.render.markdown import markdown, ms_cell as _ms_cell
from reportgen.render.figures import derive, fmt_number, operand, rests_on_jump
from reportgen.data.words import W, W_fact, W_for
from reportgen.errors import ReportError


def _fam(current):
    return merge.family(current, "graph")


def _steps(current, variant, subject="conv"):
    """The pipeline steps of one subject: the conv unit ("conv") or a model ("resnet18")."""
    rows = [c for c in _fam(current).values()
            if subject in (c.record["case"].get("unit"), c.record["case"].get("model"))
            and c.record["case"].get("pipeline") == variant]
    return sorted(rows, key=lambda c: c.record["case"]["step"])


def _calls_text(calls):
    return "<br>".join(f"{_esc(k)} ×{v}" for k, v in calls.items()) or "—"


def step_table(book, current, variant, subject="conv"):
    """One row per pass step: structure counts, whether the IR changed, latency of that step's module."""
    lines = []
    steps = _steps(current, variant, subject)
    if not steps:
        return W("graph.step_table.text")
    many = subject != "conv"   # a network has too many distinct calls to list
    for cur in steps:
        rec = cur.record
        if not cur.ok:   # a failed step has no figure: its IR sizes were printed as no run compared them
            lines.append([str(rec["case"]["step"]), _code(rec["case"]["pass"]), book.failed(cur)] + ["—"] * 6)
            continue
        stats = rec["extra"]["stats"]
        latency = _ms_cell(book, cur, "p50", "p50_ms")
        lines.append([str(rec["case"]["step"]), f"{_code(rec['case']['pass'])}",
                      str(stats["n_calls"]) if many else _calls_text(stats["calls"]),
                      str(stats["n_relax_funcs"]), str(stats["n_tir_funcs"]),
                      book.current(f"{rec['id']}#intermediate_bytes", f"{stats['intermediate_bytes']:,}", "B", cur),
                      f"{stats['tir_alloc_bytes']:,}", W("graph.step_table.word_yes") if rec["extra"]["changed"] else W("graph.step_table.word_no"), latency])
    return markdown([W("graph.step_table.head_step"), "Pass", W("graph.step_table.head_calls"), W("graph.step_table.head_relax_funcs"), W("graph.step_table.head_tir_funcs"), W("graph.step_table.head_intermediate_bytes"),
                     W("graph.step_table.head_tir_alloc_bytes"), W("graph.step_table.head_ir_changed"), W("graph.step_table.head_p50")], lines)


def step_words(case, cur=None):
    """What a pipeline step does: the words filed under its pipeline and pass (a record holds only those
    keys); with the record ``cur``, a pipeline or pass with no words is blamed on that record."""
    if cur is not None:
        return W_fact("graph.step_diffs.step", [cur.blame("case.pipeline"), cur.blame("case.pass")],
                      case["pipeline"], case["pass"])
    return W_for("graph.step_diffs.step", case["pipeline"], case["pass"])


DIFF_WORK = 4_000_000
"""The most lines x lines one step diff may compare (the committed IR texts hold at most 944 lines):
two artifacts of 25 000 lines each, interleaved, kept difflib busy past the build's time limit."""
DIFF_BUDGET = 40_000_000
"""The lines x lines all the step diffs of one call may compare together (a thousand forged steps)."""


def step_diffs(results_dir, current, variant, data_prefix, subject="conv"):
    """A collapsible unified diff of the IR text between consecutive steps that passed (a failed step's IR is
    no step of the pipeline the study shows: its entry holds what it said)."""
    steps = [c for c in _steps(current, variant, subject) if c.ok]
    parts, budget = [], DIFF_BUDGET
    for prev, cur in zip(steps, steps[1:]):
        rec = cur.record
        before = load.read_artifact(results_dir, prev.record["extra"]["artifacts"]["ir"]).splitlines()
        after = load.read_artifact(results_dir, rec["extra"]["artifacts"]["ir"]).splitlines()
        work = len(before) * len(after)   # a line diff's cost grows with the product at worst
        budget -= work
        diff = None if work > DIFF_WORK or budget < 0 else \
            list(difflib.unified_diff(before, after, "before", "after", lineterm="", n=2))
        title = W("graph.step_diffs.title", step=rec['case']['step'], pass_=rec['case']['pass'], what=step_words(rec['case'], cur))
        link = W("graph.step_diffs.link", href=cells.href(data_prefix + '/' + rec['extra']['artifacts']['ir']))
        if diff is None:   # too long to diff: the link above holds the IR
            body = W("graph.step_diffs.too_long", before=len(before), after=len(after))
        else:
            body = "\n".join(provenance.cut_line(d) for d in diff[:400]) if diff else W("graph.step_diffs.unchanged")
        if diff is not None and len(diff) > 400:
            body += W("graph.step_diffs.body", diff=len(diff) - 400)
        parts.append(f'??? note "{_esc(title)}"\n    {link}\n\n' + cells.code_block(body, "diff", "    ") + "\n")
    return "\n".join(parts)


def hello(book, current, data_prefix):
    """The smallest module, its IR and what it returned: the output through the book (printed plainly, a new level
    of it went unflagged here while the codegen page flagged it)."""
    cur = _fam(current).get(cases.case_id("graph", case="hello"))
    if cur is None:
        return W("graph.step_table.text")
    if not cur.ok:
        return book.failed(cur)
    extra = cur.record["extra"]
    links = " · ".join(f'<a href="{cells.href(data_prefix + "/" + ref)}">{_esc(name)}</a>'
                       for name, ref in sorted(extra["artifacts"].items()))
    return (cells.code_block(extra['ir_text'].rstrip(), "python") + W("graph.hello.result", code=_code(extra['target']), input=_esc(cur.record['case']['input']), output=book.current(f"{cur.record['id']}#graph_output", _esc(extra['output']), "value", cur), output_dtype=_esc(extra['output_dtype']), script_roundtrip=W("graph.step_table.word_yes") if extra['script_roundtrip'] else W("graph.step_table.word_no"), links=links))


def pass_group(passes, relay_pass, cur=None):
    """A Relay pass's group in the §24 table (archive/tables/s24_passes.yaml), the seed's own grouping;
    a pass the table has no row for is the fault of the record ``cur`` that names it."""
    try:
        return passes.cell(relay_pass, "group").text
    except KeyError:
        if cur is not None:
            raise ReportError(f"{cur.blame('case.relay_pass')}: {relay_pass!r:.80} is not a Relay pass of the "
                              f"seed's table (archive/tables/{passes.id}.yaml has a row for each)") from None
        raise ReportError(f"archive/tables/{passes.id}.yaml: no row for the Relay pass {relay_pass!r} "
                          "that a pass-map record names") from None


def pass_note(case, cur=None):
    """The pass map's note on a Relay pass, filed under the pass name its record carries (``cur``: blamed
    for a pass with no note)."""
    if cur is not None:
        return W_fact("graph.pass_map.note", cur.blame("case.relay_pass"), case["relay_pass"])
    return W_for("graph.pass_map.note", case["relay_pass"])


def pass_map(book, passes, current, data_prefix):
    rows = [c for c in _fam(current).values() if "relay_pass" in c.record["case"]]  # §24 order
    lines, details = [], []
    for cur in rows:
        rec, extra = cur.record, cur.record["extra"]
        if cur.ok:
            check = rec["check"]
            verdict = book.current(f"{rec['id']}#semantics", W("graph.pass_map.changed_same_output"), "evidence", cur)
            err = W("graph.pass_map.max_err", max_abs_err=check['max_abs_err']) if check["max_abs_err"] is not None else ""
            before = extra["before_stats"]["n_calls"]
            after = extra["after_stats"]["n_calls"]
            detail = W("graph.pass_map.detail", before=before, after=after, err=err)
            details.append(_demo_details(rec, extra, data_prefix))
        else:
            verdict = book.failed(cur)
            detail = "—"
        lines.append([f"{_code(rec['case']['relay_pass'])}", _esc(pass_group(passes, rec['case']['relay_pass'], cur)),
                      f"{_code(extra['relax_equivalent'])}" if extra["relax_equivalent"] else W("graph.pass_map.none"),
                      _esc(pass_note(rec["case"], cur)), verdict, _esc(detail)])
    return markdown([W("graph.pass_map.head_relay_pass"), W("graph.pass_map.head_group"), W("graph.pass_map.head_relax"), W("graph.pass_map.head_note"), W("graph.pass_map.head_demo"), W("graph.pass_map.head_structure")], lines) + "\n\n" + "\n".join(details)


def _demo_details(rec, extra, data_prefix):
    diff = difflib.unified_diff(extra["before_text"].splitlines(), extra["after_text"].splitlines(),
                                "before", "after", lineterm="", n=2)
    title = W("graph.demo_details.title", relay_pass=rec['case']['relay_pass'], join=' + '.join(extra['passes']))
    return f'??? example "{_esc(title)}"\n' + cells.code_block("\n".join(diff), "diff", "    ") + "\n"


def migration_note(case, cur=None):
    """The migration table's note on an old API, filed under the old API its record carries (``cur``:
    blamed for an API with no note)."""
    if cur is not None:
        return W_fact("graph.migration.note", cur.blame("case.old_api"), case["old_api"])
    return W_for("graph.migration.note", case["old_api"])


def migration(book, current):
    rows = [c for c in _fam(current).values() if "old_api" in c.record["case"]]  # the seed's order
    lines = []
    for cur in rows:
        extra = cur.record["extra"]
        status = book.current(f"{cur.record['id']}#resolves", W("graph.migration.importable"), "evidence", cur) if cur.ok else book.failed(cur)
        lines.append([f"{_code(extra['old_api'])}", _esc(extra["era"]), f"{_code(extra['new_api'])}",
                      _esc(migration_note(cur.record["case"], cur)), status])
    return markdown([W("graph.migration.head_old_api"), W("graph.migration.head_era"), W("graph.migration.head_today"), W("graph.pass_map.head_note"), W("graph.migration.head_check")], lines)


def fusion_summary(book, current, variant, subject):
    """One sentence, computed from the records: what fusion did to calls, bytes and latency."""
    steps = {c.record["case"]["pass"]: c for c in _steps(current, variant, subject)}
    before, after = steps.get("AnnotateTIROpPattern"), steps.get("FuseTIR")
    if before is None or after is None or not (before.ok and after.ok):
        return W("graph.fusion_summary.text")
    sb, sa = before.record["extra"]["stats"], after.record["extra"]["stats"]
    ratio = after.stat("p50") / before.stat("p50")
    trend = W("graph.fusion_summary.unchanged") if abs(ratio - 1) < 0.05 else (W("graph.fusion_summary.faster") if ratio < 1 else W("graph.fusion_summary.slower"))

    def fig(cur, suffix, text, unit):
        return book.current(f"{cur.record['id']}#{suffix}", text, unit, cur)
    bytes_before, bytes_after = f"{sb['intermediate_bytes']:,}", f"{sa['intermediate_bytes']:,}"
    return (W("graph.fusion_summary.result", calls_before=fig(before, 'n_calls', str(sb['n_calls']), 'calls'), bytes_before=fig(before, 'intermediate_bytes', bytes_before, 'B'), calls_after=fig(after, 'n_calls', str(sa['n_calls']), 'calls'), bytes_after=fig(after, 'intermediate_bytes', bytes_after, 'B'), ms_before=_ms_cell(book, before, 'p50', 'p50_ms'), ms_after=_ms_cell(book, after, 'p50', 'p50_ms'), trend=trend, ratio=ratio))


def names(site):
    """The placeholders this module gives the page templates."""
    d, b = site.data, site.book
    return {
        "graph_steps": lambda variant, subject="conv": step_table(b, d.current, variant, subject),
        "fusion_summary": lambda variant, subject="conv": fusion_summary(b, d.current, variant, subject),
        "graph_diffs": lambda variant: step_diffs(d.results_dir, d.current, variant, b.data_prefix()),
        "graph_hello": lambda: hello(b, d.current, b.data_prefix()),
        "pass_map": lambda: pass_map(b, d.tables["s24_passes"], d.current, b.data_prefix()),
        "api_migration": lambda: migration(b, d.current),
        "graph_finding": lambda: finding(b, d.current),
    }


def finding(book, current, variant="decompose", subject="resnet18", e2e_model="resnet18_v1"):
    """Facts of the page's opening finding (words in docs/graph.md): what the graph pipeline did to
    ResNet-18's calls and latency (first step against the last, judged by the study's noise rule),
    and what scheduling (e2e group D against C) did to the same network."""
    from reportgen.data import compare, queries
    steps = {c.record["case"]["pass"]: c for c in _steps(current, variant, subject)}
    ordered = _steps(current, variant, subject)
    before, after = steps.get("AnnotateTIROpPattern"), steps.get("FuseTIR")
    if not ordered or before is None or after is None or not all(c.ok for c in (ordered[0], ordered[-1], before, after)):
        return None
    first, last = ordered[0], ordered[-1]
    verdict, ratio, p = compare.samples_verdict(first.record["samples"], last.record["samples"])
    sb, sa = before.record["extra"]["stats"], after.record["extra"]["stats"]
    out = {"calls_before": book.current(f"{before.record['id']}#n_calls", str(sb["n_calls"]), "calls", before),
           "calls_after": book.current(f"{after.record['id']}#n_calls", str(sa["n_calls"]), "calls", after),
           "first_ms": _ms_cell(book, first, "p50", "p50_ms"), "last_ms": _ms_cell(book, last, "p50", "p50_ms"),
           "ratio": book.current(f"{last.record['id']}#vs_imported", f"{ratio:.2f}", "ratio", last,
                                 derived=derive("median(samples(last)) / median(samples(imported))",
                                                operand("imported", first, fmt_number(first.stat("p50") * 1e3, "ms"), "ms (p50)"), operand("last", last, fmt_number(last.stat("p50") * 1e3, "ms"), "ms (p50)"))),
           "verdict": verdict, "p": f"{p:.2g}", "first_pass": first.record["case"]["pass"],
           "last_pass": last.record["case"]["pass"]}
    # the explanation follows the verdict: where the ratio rests on a flagged level, it says so too
    out["rests"] = rests_on_jump(out["ratio"], out["first_ms"], out["last_ms"])
    c, d = (queries.e2e(current, e2e_model, e) for e in ("tvm_c", "tvm_d"))
    if c is not None and d is not None and c.ok and d.ok and c.record["run_id"] == d.record["run_id"]:
        out["tuned_gain"] = book.current(f"{d.record['id']}#vs_c", f"{c.stat('p50') / d.stat('p50'):.1f}×", "×", d,
                                         derived=derive("p50(tvm_c) / p50(tvm_d)", operand("tvm_c", c, fmt_number(c.stat("p50") * 1e3, "ms"), "ms (p50)"), operand("tvm_d", d, fmt_number(d.stat("p50") * 1e3, "ms"), "ms (p50)")))
        out["tuned_ms"] = _ms_cell(book, d, "p50", "p50_ms")
    return out
