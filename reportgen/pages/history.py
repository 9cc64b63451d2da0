"""The runs over time: every run listed, consecutive runs on one machine compared."""
import html

from reportgen.data import compare, merge
from reportgen.render import comparable
from study import identity
from reportgen.render.cells import code_span as _code, text as _esc
from reportgen.render.markdown import markdown

VERDICT_ZH = {"better": '<span class="ok">变快</span>', "worse": '<span class="bad">变慢</span>',
              "same": "持平", "noisy": '<span class="warn">差异不显著</span>', "not_comparable": "不可比"}


def runs_table(runs, data_prefix, current):
    """Every run of every machine (``current``: the site's records, for the comparability note)."""
    lines = []
    for run in reversed(runs):
        m, env = run.manifest, run.manifest["environment"]
        fams = "，".join(f"{_esc(name)}（{_esc(e['status'])}，{_esc(e['records'])} 条）" for name, e in m["experiments"].items())
        blas = "; ".join(str(b.get("architecture")) for b in env["blas"])
        lines.append([f'<a href="{html.escape(data_prefix)}/runs/{html.escape(run.run_id)}/run.json">'
                      f"{html.escape(run.run_id)}</a>", _esc(m["profile"]), _esc(m["finished_at"]),
                      _esc(merge.machine_of(run)), _esc(f"{identity.cpu_name(env)}，{identity.isa_level(env)}"), _esc(env["tvm_version"]), _esc(blas),
                      _esc(m["git"]["commit"][:10] + ("（有未提交修改）" if m["git"]["dirty"] else "")), fams])
    table = markdown(["运行", "档位", "完成时间（UTC）", "机器", "CPU", "TVM", "BLAS 内核", "代码版本", "实验族"], lines)
    return table + "\n\n" + comparability(current)


def comparability(current):
    """Per experiment family: do its current records come from one environment? (see comparable)"""
    notes = comparable.by_family(current)
    if not notes:
        return "站内每个实验族的当前复测都来自同一环境：机器、CPU、TVM、LLVM、NumPy 与 BLAS 内核都相同。"
    return "\n".join(["站内以下实验族的当前复测混合了不同环境，对应页面的表格不能逐行直接比较：", ""]
                     + [f"- {_code(family)}：{text}" for family, text in notes.items()])


def comparisons(runs):
    """Each run against the previous run on the same machine that shares cases with it."""
    parts = []
    for i, run in enumerate(runs):
        machine = merge.machine_of(run)
        ids = {r["id"] for r in run.records}
        earlier = [r for r in runs[:i] if merge.machine_of(r) == machine
                   and ids & {x["id"] for x in r.records}]
        if not earlier:
            continue
        base = earlier[-1]
        rows = compare.compare_runs(base, run)
        counts = {}
        for row in rows:
            counts[row.verdict] = counts.get(row.verdict, 0) + 1
        env_diff = compare.environment_differences(base, run)
        lines = [[_esc(r.id), f"{r.median_a:.4g}", f"{r.median_b:.4g}", f"{r.ratio:.3f}", f"{r.p_value:.2g}",
                  VERDICT_ZH[r.verdict]] for r in rows if r.verdict in ("better", "worse")]
        summary = "，".join(f"{VERDICT_ZH[k]} {v}" for k, v in sorted(counts.items()))
        text = [f"### {html.escape(base.run_id)} → {html.escape(run.run_id)}", "",
                f"共同用例 {len(rows)} 个：{summary}。"]
        if env_diff:
            text.append("环境不同，以下差异可能来自环境而非代码：" + "；".join(
                f"{_esc(k)}：{_esc(a)} → {_esc(b)}" for k, a, b in env_diff) + "。")
        text += ["", markdown(["用例", "A 中位数", "B 中位数", "B ÷ A", "p 值", "结论"], lines) if lines
                 else f"没有显著且超过 {compare.MIN_EFFECT:.0%} 的变化。", ""]
        parts.append("\n".join(text))
    return "\n".join(parts) or "目前没有两次在同一台机器上、含相同用例的运行，暂无可比较的内容。"


def names(site):
    """The placeholders this module gives the page templates."""
    d, b = site.data, site.book
    return {
        "history_runs": lambda: runs_table(d.all_runs, b.data_prefix(), d.current),
        "history_compare": lambda: comparisons(d.all_runs),
    }
