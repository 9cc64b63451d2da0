"""The acceptance checklist (seed §32, §34), evaluated against the rendered pages.

An item is covered only when its page has its anchor and everything its ``require`` asks
for is on the rendered page (or, for the site-wide checks, on some page):

  terms        strings in the page text
  tables       every figure of these archive tables shown on the page
  current      at least one current figure of this family (or of each family of a list)
  elsewhere    {page: [strings]}: strings in the text of other pages
  snippets     "all": every snippet of archive/code.yaml verbatim (whitespace aside) on some page
  formulas     "all": every formula of archive/code.yaml on some page
  archived     "all": every archived figure on some page (§34: data kept 100 %)
  conclusions  "all": every historical conclusion of reportgen.conclusions on the page, with a verdict

``strict_problems`` turns the unmet items into the messages that fail ``--strict``.
"""
import html as _html
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from .errors import ReportError

_TAG = re.compile(r"<[^>]+>")
REQUIREMENTS = {"terms", "tables", "current", "elsewhere", "snippets", "formulas", "archived", "conclusions"}


@dataclass
class Result:
    item: dict
    covered: bool
    reasons: list = field(default_factory=list)


def read_code(archive_dir):
    """archive/code.yaml: the seed's code, commands and formulas, verbatim."""
    path = Path(archive_dir) / "code.yaml"
    if not path.exists():
        return {"snippets": [], "formulas": []}
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def _resolve(item, code):
    """Expand the "all" requirements into the concrete things to look for."""
    need = dict(item["require"])
    if need.get("snippets") == "all":
        need["snippets"] = {s["id"]: s["text"] for s in code["snippets"]}
    if need.get("formulas") == "all":
        need["formulas"] = {f["id"]: f["text"] for f in code["formulas"]}
    if need.get("conclusions") == "all":
        from . import conclusions
        need["conclusions"] = conclusions.ids()
    return {**item, "require": need}


def read_items(archive_dir):
    path = Path(archive_dir) / "coverage.yaml"
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    problems = []
    for i, item in enumerate(data.get("items", [])):
        for key in ("id", "article", "content", "seed_sections", "page", "anchor", "require"):
            if key not in item:
                problems.append(f"{path}: items[{i}].{key}: missing")
        for key in sorted(set(item.get("require") or {}) - REQUIREMENTS):
            problems.append(f"{path}: items[{i}].require.{key}: unknown requirement "
                            f"(known: {', '.join(sorted(REQUIREMENTS))})")
    ids = [item.get("id") for item in data.get("items", [])]
    problems += [f"{path}: items: duplicate id {i!r}" for i in sorted({i for i in ids if ids.count(i) > 1})]
    if problems:
        raise ReportError(problems)
    code = read_code(archive_dir)
    return data["rules"], [_resolve(item, code) for item in data["items"]]


def page_text(page_html):
    """Visible text: tags removed without adding spaces (highlighted code is split into spans)."""
    return re.sub(r"\s+", " ", _html.unescape(_TAG.sub("", page_html)))


def _squash(text):
    """Text without any whitespace: code compares equal however a page wraps or indents it."""
    return re.sub(r"\s+", "", text)


_VERDICT = re.compile(r'data-conclusion="([^"]+)" data-verdict="([^"]+)"')


def _site_checks(need, texts, numbers, tables):
    """Requirements met anywhere on the site: code, formulas, archived figures."""
    reasons = []
    squashed = None
    for kind, label in (("snippets", "原文代码"), ("formulas", "公式")):
        wanted = need.get(kind) or {}
        if wanted:
            squashed = squashed if squashed is not None else [_squash(t) for t in texts.values()]
            missing = [k for k, text in wanted.items() if not any(_squash(text) in t for t in squashed)]
            if missing:
                reasons.append(f"{label} {len(wanted) - len(missing)}/{len(wanted)} 出现在站内，缺：{', '.join(missing)}")
    if need.get("archived") == "all":
        missing = archived_missing(numbers, tables)
        if missing:
            reasons.append(f"{len(missing)} 个历史数字没有出现在任何页面")
    return reasons


def evaluate(items, pages_html, numbers, tables):
    """One Result per item: covered only when everything it requires is on its page."""
    by_page = {}
    for entry in numbers:
        by_page.setdefault(entry["page"], []).append(entry)
    texts = {p: page_text(h) for p, h in pages_html.items()}
    results = []
    for item in items:
        page = item["page"]
        html_text = pages_html.get(page)
        reasons = []
        if html_text is None:
            results.append(Result(item, False, [f"页面 {page} 不存在"]))
            continue
        if f'id="{item["anchor"]}"' not in html_text:
            reasons.append(f"缺少锚点 #{item['anchor']}")
        text = texts[page]
        shown = {e["id"] for e in by_page.get(page, [])}
        need = item["require"]
        for term in need.get("terms", []):
            if term not in text:
                reasons.append(f"缺少术语 “{term}”")
        for table_id in need.get("tables", []):
            missing = [c.id for c in tables[table_id].figures() if c.id not in shown]
            if missing:
                reasons.append(f"{table_id} 有 {len(missing)} 个历史数字未出现")
        families = need.get("current") or []
        for family in [families] if isinstance(families, str) else families:
            if not any(e["kind"] == "current" and e["record"].startswith(family + "/")
                       for e in by_page.get(page, [])):
                reasons.append(f"尚无 {family} 的当前复测数字")
        for other, terms in (need.get("elsewhere") or {}).items():
            missing = [t for t in terms if t not in texts.get(other, "")]
            if missing:
                reasons.append(f"{other} 缺少 {'、'.join(f'“{t}”' for t in missing)}")
        reasons += _site_checks(need, texts, numbers, tables)
        wanted = need.get("conclusions") or []
        if wanted:
            found = dict(_VERDICT.findall(html_text))
            missing = [c for c in wanted if c not in found]
            if missing:
                reasons.append(f"原文结论 {len(wanted) - len(missing)}/{len(wanted)} 条带着当前证据列出，缺：{', '.join(missing)}")
        results.append(Result(item, not reasons, reasons))
    return results


def archived_missing(numbers, tables):
    """Archived figures that appear on no page (seed §34: data kept 100%)."""
    shown = {e["id"] for e in numbers if e["kind"] == "historical"}
    return [c.id for t in tables.values() for c in t.figures() if c.id not in shown]


def strict_problems(coverage_json):
    """`--strict`: one message per unmet item of a built site's coverage.json."""
    path = Path(coverage_json)
    try:
        results = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        return [f"{path}: cannot read the coverage results: {exc}"]
    return [f"{path}: item {r['id']!r} ({r['page']}#{r['anchor']}) not covered: {'; '.join(r['reasons'])}"
            for r in results if not r["covered"]]
