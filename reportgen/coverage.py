"""The acceptance checklist (seed §32, §34), evaluated against the rendered pages."""
import html as _html
import re
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from .errors import ReportError

_TAG = re.compile(r"<[^>]+>")


@dataclass
class Result:
    item: dict
    covered: bool
    reasons: list = field(default_factory=list)


def read_items(archive_dir):
    path = Path(archive_dir) / "coverage.yaml"
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    problems = []
    for i, item in enumerate(data.get("items", [])):
        for key in ("id", "article", "content", "seed_sections", "page", "anchor", "require"):
            if key not in item:
                problems.append(f"{path}: items[{i}].{key}: missing")
    if problems:
        raise ReportError(problems)
    return data["rules"], data["items"]


def page_text(page_html):
    """Visible text: tags removed without adding spaces (highlighted code is split into spans)."""
    return re.sub(r"\s+", " ", _html.unescape(_TAG.sub("", page_html)))


def evaluate(items, pages_html, numbers, tables):
    """One Result per item: covered only when everything it requires is on its page."""
    by_page = {}
    for entry in numbers:
        by_page.setdefault(entry["page"], []).append(entry)
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
        text = page_text(html_text)
        shown = {e["id"] for e in by_page.get(page, [])}
        need = item["require"]
        for term in need.get("terms", []):
            if term not in text:
                reasons.append(f"缺少术语 “{term}”")
        for table_id in need.get("tables", []):
            missing = [c.id for c in tables[table_id].figures() if c.id not in shown]
            if missing:
                reasons.append(f"{table_id} 有 {len(missing)} 个历史数字未出现")
        family = need.get("current")
        if family and not any(e["kind"] == "current" and e["record"].startswith(family + "/")
                              for e in by_page.get(page, [])):
            reasons.append(f"尚无 {family} 的当前复测数字")
        results.append(Result(item, not reasons, reasons))
    return results


def archived_missing(numbers, tables):
    """Archived figures that appear on no page (seed §34: data kept 100%)."""
    shown = {e["id"] for e in numbers if e["kind"] == "historical"}
    return [c.id for t in tables.values() for c in t.figures() if c.id not in shown]
