"""Provenance pages: for every current record, the evidence behind its figures."""
import json
from pathlib import Path

from reportgen.render import cells
from reportgen.data import load
from reportgen.render.figures import slug


def log_excerpt(results_dir, rec, context=0, limit=40):
    """The log lines a record cites (at most `limit`), read through load (no symlink, no ..)."""
    lines = load.read_log(results_dir, rec).splitlines()
    first, last = rec["log"]["lines"]
    chosen = lines[max(0, first - 1 - context): min(len(lines), last + context)]
    if len(chosen) > limit:
        chosen = chosen[:limit // 2] + [f"… ({len(chosen) - limit} 行略去，见完整日志) …"] + chosen[-limit // 2:]
    return "\n".join(chosen)


def reproduce_command(rec, profile):
    return (f"reportgen retest --profile {profile} --only {rec['experiment']} --force\n"
            f"reportgen trace '{rec['id']}'")


def _fence(text, lang=""):
    return cells.code_block(text, lang)


def entry(results_dir, cur, data_prefix):
    """Markdown for one record: id heading (stable anchor), facts, samples, log, command."""
    rec, run = cur.record, cur.run
    log_href = f"{data_prefix}/{rec['log']['path']}"
    records_href = f"{data_prefix}/runs/{rec['run_id']}/records.jsonl"
    stats = rec["stats"] or {}
    facts = [
        ("状态", rec["status"] + (f"：{rec['error']}" if rec["error"] else "")),
        ("运行", f"{rec['run_id']}（{run.manifest['profile']} 档）"
                 + (f"，沿用自 {rec['reused_from']}" if rec["reused_from"] else "")),
        ("指标", f"{rec['metric']}，单位 {rec['unit']}；预热 {rec['warmup']} 次，"
                 f"{rec['repeat']} 个样本 × 每样本 {rec['number']} 次调用"),
        ("统计", ", ".join(f"{k}={v:.6g}" for k, v in stats.items() if k != "n")
                 + (f", n={stats.get('n')}" if stats else "")),
        ("数值校验", json.dumps(rec["check"], ensure_ascii=False)),
        ("日志", f'<a href="{cells.href(log_href)}">{cells.text(rec["log"]["path"])}</a> '
                 f'第 {rec["log"]["lines"][0]}–{rec["log"]["lines"][1]} 行，sha256 '
                 f'<code>{cells.text(rec["log"]["sha256"])}</code>'),
        ("原始记录", f'<a href="{cells.href(records_href)}">records.jsonl</a>'),
    ]
    parts = [f"### {cells.text(rec['id'])} {{#{slug(rec['id'])}}}", "",
             "| 字段 | 内容 |", "|---|---|"]
    parts += [f"| {k} | {v if k in ('日志', '原始记录') else cells.text(v)} |"
              for k, v in facts]
    parts += ["", "**参数**", "", _fence(json.dumps(rec["case"], ensure_ascii=False, indent=1, sort_keys=True), "json"),
              "", "**全部原始样本**", "", _fence(json.dumps(rec["samples"]), "json"),
              "", "**日志摘录**", "", _fence(log_excerpt(results_dir, rec), "text"),
              "", "**复现命令**", "", _fence(reproduce_command(rec, run.manifest["profile"]), "bash"), ""]
    return "\n".join(parts)


def page(results_dir, family, currents, data_prefix="../data"):
    """The provenance page of one experiment family."""
    head = [f"# 溯源：{family}", "",
            "本页由 `reportgen build` 生成。站内每个当前复测数字都链接到这里的一个条目："
            "条目给出记录 id、运行、全部原始样本、数值校验、日志所在行与 sha256，以及复现命令。", ""]
    body = [entry(results_dir, cur, data_prefix)
            for _id, cur in sorted(currents.items())]
    return "\n".join(head + body)


def groups(currents):
    """{group: {record id: Current}} of one family's records, by figures.provenance_group."""
    from reportgen.render.figures import provenance_group
    out = {}
    for rid, cur in sorted(currents.items()):
        out.setdefault(provenance_group(rid), {})[rid] = cur
    return out


def index_page(family, grouped):
    """The family's provenance index: one line per page of entries, with how many records it holds."""
    lines = [f"# 溯源：{family}", "",
             "本实验族的溯源条目按用例分成几页，每页只装一组记录，便于打开和搜索。站内每个当前复测数字都直接链接到它所在的那一页。", ""]
    lines += [f"- [{group}]({family}/{group}.md)：{len(entries)} 条记录" for group, entries in grouped.items()]
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
