"""Tables of the graph-level study: per-pass evidence, the Relay→Relax pass map, API migration."""
import difflib
import html

from reportgen.render import cells
from reportgen.data import load, merge
from reportgen.render.cells import code_span as _code, text as _esc
from reportgen.render.markdown import markdown, ms_cell as _ms_cell


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
        return "（尚无记录）"
    many = subject != "conv"   # a network has too many distinct calls to list
    for cur in steps:
        rec, stats = cur.record, cur.record["extra"]["stats"]
        latency = _ms_cell(book, cur, "p50", "p50_ms")
        lines.append([str(rec["case"]["step"]), f"{_code(rec['case']['pass'])}",
                      str(stats["n_calls"]) if many else _calls_text(stats["calls"]),
                      str(stats["n_relax_funcs"]), str(stats["n_tir_funcs"]),
                      book.current(f"{rec['id']}#intermediate_bytes", f"{stats['intermediate_bytes']:,}", "B", cur),
                      f"{stats['tir_alloc_bytes']:,}", "是" if rec["extra"]["changed"] else "否", latency])
    return markdown(["步", "Pass", "main 中的调用（按算子）", "Relax 函数", "TIR 函数", "中间张量字节（图级）",
                     "TIR 内部分配字节", "IR 改变", "该步编译后延迟 p50"], lines)


def step_diffs(results_dir, current, variant, data_prefix, subject="conv"):
    """A collapsible unified diff of the IR text between consecutive steps."""
    steps = _steps(current, variant, subject)
    parts = []
    for prev, cur in zip(steps, steps[1:]):
        rec = cur.record
        before = load.read_artifact(results_dir, prev.record["extra"]["artifacts"]["ir"])
        after = load.read_artifact(results_dir, rec["extra"]["artifacts"]["ir"])
        diff = list(difflib.unified_diff(before.splitlines(), after.splitlines(), "before", "after", lineterm="", n=2))
        title = f"第 {rec['case']['step']} 步 {rec['case']['pass']}：{rec['extra']['description_zh']}"
        link = f'<a href="{cells.href(data_prefix + "/" + rec["extra"]["artifacts"]["ir"])}">完整 IR</a>'
        body = "\n".join(diff[:400]) if diff else "（IR 文本没有变化）"
        if len(diff) > 400:
            body += f"\n… 另有 {len(diff) - 400} 行差异，见完整 IR"
        parts.append(f'??? note "{_esc(title)}"\n    {link}\n\n' + cells.code_block(body, "diff", "    ") + "\n")
    return "\n".join(parts)


def hello(current, data_prefix):
    cur = _fam(current).get("graph/case=hello")
    if cur is None:
        return "（尚无记录）"
    extra = cur.record["extra"]
    links = " · ".join(f'<a href="{cells.href(data_prefix + "/" + ref)}">{_esc(name)}</a>'
                       for name, ref in sorted(extra["artifacts"].items()))
    return (cells.code_block(extra['ir_text'].rstrip(), "python") + "\n\n"
            f"在 {_code(extra['target'])} 上编译运行，输入 {_esc(cur.record['case']['input'])} 得到 "
            f"{_esc(extra['output'])}（{_esc(extra['output_dtype'])}），打印出的 IR 可以原样解析回同一个模块："
            f"{'是' if extra['script_roundtrip'] else '否'}。生成物：{links}")


def pass_map(book, current, data_prefix):
    rows = [c for c in _fam(current).values() if "relay_pass" in c.record["case"]]  # §24 order
    lines, details = [], []
    for cur in rows:
        rec, extra = cur.record, cur.record["extra"]
        if cur.ok:
            check = rec["check"]
            verdict = book.current(f"{rec['id']}#semantics", "IR 改变，输出一致", "evidence", cur)
            err = f"最大误差 {check['max_abs_err']:.2g}" if check["max_abs_err"] is not None else ""
            before = extra["before_stats"]["n_calls"]
            after = extra["after_stats"]["n_calls"]
            detail = f"调用 {before} → {after}；{err}"
            details.append(_demo_details(rec, extra, data_prefix))
        else:
            verdict = book.failed(cur)
            detail = "—"
        lines.append([f"{_code(rec['case']['relay_pass'])}", _esc(extra["group_zh"]),
                      f"{_code(extra['relax_equivalent'])}" if extra["relax_equivalent"] else "无",
                      _esc(extra["note_zh"]), verdict, _esc(detail)])
    return markdown(["Relay Pass（§24）", "分组", "Relax 对应", "说明", "演示", "结构变化"], lines) + "\n\n" + "\n".join(details)


def _demo_details(rec, extra, data_prefix):
    diff = difflib.unified_diff(extra["before_text"].splitlines(), extra["after_text"].splitlines(),
                                "before", "after", lineterm="", n=2)
    title = f"{rec['case']['relay_pass']} → {' + '.join(extra['passes'])}：演示图上的 IR 差异"
    return f'??? example "{_esc(title)}"\n' + cells.code_block("\n".join(diff), "diff", "    ") + "\n"


def migration(book, current):
    rows = [c for c in _fam(current).values() if "old_api" in c.record["case"]]  # the seed's order
    lines = []
    for cur in rows:
        extra = cur.record["extra"]
        status = book.current(f"{cur.record['id']}#resolves", "可导入", "evidence", cur) if cur.ok else book.failed(cur)
        lines.append([f"{_code(extra['old_api'])}", _esc(extra["era"]), f"{_code(extra['new_api'])}",
                      _esc(extra["note_zh"]), status])
    return markdown(["旧 API", "年代", "TVM 0.27 对应", "说明", "核验"], lines)


def fusion_summary(book, current, variant, subject):
    """One sentence, computed from the records: what fusion did to calls, bytes and latency."""
    steps = {c.record["case"]["pass"]: c for c in _steps(current, variant, subject)}
    before, after = steps.get("AnnotateTIROpPattern"), steps.get("FuseTIR")
    if before is None or after is None or not (before.ok and after.ok):
        return "（融合前后的记录不全，无法比较。）"
    sb, sa = before.record["extra"]["stats"], after.record["extra"]["stats"]
    ratio = after.stat("p50") / before.stat("p50")
    trend = "基本不变" if abs(ratio - 1) < 0.05 else ("变快" if ratio < 1 else "变慢")

    def fig(cur, suffix, text, unit):
        return book.current(f"{cur.record['id']}#{suffix}", text, unit, cur)
    bytes_before, bytes_after = f"{sb['intermediate_bytes']:,}", f"{sa['intermediate_bytes']:,}"
    return (f"融合前（AnnotateTIROpPattern 之后）main 中有 {fig(before, 'n_calls', str(sb['n_calls']), 'calls')} 次调用、"
            f"{fig(before, 'intermediate_bytes', bytes_before, 'B')} 字节图级中间张量；"
            f"FuseTIR 之后是 {fig(after, 'n_calls', str(sa['n_calls']), 'calls')} 次调用、"
            f"{fig(after, 'intermediate_bytes', bytes_after, 'B')} 字节。"
            f"延迟中位数从 {_ms_cell(book, before, 'p50', 'p50_ms')} 到 {_ms_cell(book, after, 'p50', 'p50_ms')}，"
            f"{trend}（比值 {ratio:.2f}）。")


def names(site):
    """The placeholders this module gives the page templates."""
    d, b = site.data, site.book
    return {
        "graph_steps": lambda variant, subject="conv": step_table(b, d.current, variant, subject),
        "fusion_summary": lambda variant, subject="conv": fusion_summary(b, d.current, variant, subject),
        "graph_diffs": lambda variant: step_diffs(d.results_dir, d.current, variant, b.data_prefix()),
        "graph_hello": lambda: hello(d.current, b.data_prefix()),
        "pass_map": lambda: pass_map(b, d.current, b.data_prefix()),
        "api_migration": lambda: migration(b, d.current),
    }
